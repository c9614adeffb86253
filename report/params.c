/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Policy parameters, printed once: the values every policy shares, then per
 * policy only what it sets differently; durations with their unit.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/util.h"

/* Durations are named *cost* or *_ns (model/policy.c); seed and the like are plain. */
static bool is_duration(const char *key)
{
	return strstr(key, "cost") || strstr(key, "_ns");
}

const char *ir_fmt_param(char *buf, size_t len, const char *key, json_object *v)
{
	if (is_duration(key) && json_object_is_type(v, json_type_int))
		return ir_fmt_ns(buf, len, json_object_get_int64(v));
	snprintf(buf, len, "%s", jtext(v));
	return buf;
}

/* The value most policies give key (the first such on a tie), or NULL. */
json_object *ir_param_common(json_object *pol, const char *key)
{
	json_object *best = NULL;
	size_t best_n = 0;

	for (size_t i = 0; i < jlen(pol); i++) {
		json_object *v = jget(jget(jidx(pol, i), "params"), key);
		size_t n = 0;

		if (!v)
			continue;
		for (size_t j = 0; j < jlen(pol); j++) {
			json_object *w = jget(jget(jidx(pol, j), "params"), key);

			n += w && !strcmp(jtext(w), jtext(v));
		}
		if (n > best_n) {
			best = v;
			best_n = n;
		}
	}
	return best_n > 1 || jlen(pol) == 1 ? best : NULL;
}

bool ir_param_shared(json_object *pol, const char *key, json_object *v)
{
	json_object *c = ir_param_common(pol, key);

	return c && !strcmp(jtext(c), jtext(v));
}

/* "key value;" items wrapped at 100 columns, each line indented by indent:
 * all of par, or only those not at the common value (own). */
static void items(FILE *out, json_object *par, json_object *pol, bool own, int indent)
{
	int col = indent;
	char b[64];

	json_object_object_foreach(par, k, v) {
		json_object *c = ir_param_common(pol, k);
		int len;

		if (own && c && !strcmp(jtext(c), jtext(v)))
			continue;
		ir_fmt_param(b, sizeof(b), k, v);
		len = (int)(strlen(k) + strlen(b)) + 3;
		if (col > indent && col + len > 100) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		}
		fprintf(out, " %s %s;", ir_tsafe(k), ir_tsafe(b));	/* from a file */
		col += len;
	}
}

void ir_params_text(json_object *pol, FILE *out, int w)
{
	if (!jlen(pol))
		return;
	fprintf(out, "\n  Parameters (every policy, unless its line below says otherwise):\n   ");
	/* each policy's keys that hold the common value and were not printed before */
	for (size_t i = 0; i < jlen(pol); i++) {
		json_object *par = jget(jidx(pol, i), "params");
		json_object *firsts = json_object_new_object();

		if (!par || !json_object_is_type(par, json_type_object)) {
			json_object_put(firsts);
			continue;
		}
		json_object_object_foreach(par, k, v) {
			bool seen = false;

			for (size_t j = 0; j < i && !seen; j++)
				seen = jget(jget(jidx(pol, j), "params"), k) != NULL;
			if (!seen && ir_param_common(pol, k) && ir_param_shared(pol, k, v))
				json_object_object_add(firsts, k, json_object_get(v));
		}
		items(out, firsts, pol, false, 3);	/* all: they are the common values */
		json_object_put(firsts);
	}
	fputc('\n', out);
	for (size_t i = 0; i < jlen(pol); i++) {
		json_object *p = jidx(pol, i), *par = jget(p, "params");
		bool own = false;

		if (!par || !json_object_is_type(par, json_type_object))
			continue;
		json_object_object_foreach(par, k, v) {
			(void)k;
			own |= !ir_param_shared(pol, k, v);
		}
		if (!own)
			continue;
		fprintf(out, "  %-*s", w, ir_tsafe(jstr(p, "label", jstr(p, "name", "?"))));
		items(out, par, pol, true, 2 + w);
		fputc('\n', out);
	}
}

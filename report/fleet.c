/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Two reports side by side: compare (per-policy deltas B - A); the fleet
 * merge is report/merge.c.
 * Policies are matched by label (name plus parameters), else by name.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/util.h"

static const char *plabel(json_object *p)
{
	return jstr(p, "label", jstr(p, "name", "?"));
}

static json_object *find_policy(json_object *doc, json_object *p)
{
	json_object *pol = jget(doc, "policies");

	for (size_t i = 0; i < jlen(pol); i++)
		if (!strcmp(plabel(jidx(pol, i)), plabel(p)))
			return jidx(pol, i);
	for (size_t i = 0; i < jlen(pol); i++)
		if (!strcmp(jstr(jidx(pol, i), "name", ""), jstr(p, "name", "?")))
			return jidx(pol, i);
	return NULL;
}

enum kind { K_COUNT, K_NS };

static void cmp_row(FILE *out, const char *what, int64_t a, int64_t b, enum kind k)
{
	char x[32], y[32], d[32];
	double rel = a ? 100.0 * (double)(b - a) / (double)llabs(a) : NAN;

	if (k == K_NS) {
		ir_fmt_ns(x, sizeof(x), a);
		ir_fmt_ns(y, sizeof(y), b);
		ir_fmt_sns(d, sizeof(d), b - a);
	} else {
		snprintf(x, sizeof(x), "%" PRId64, a);
		snprintf(y, sizeof(y), "%" PRId64, b);
		snprintf(d, sizeof(d), "%+" PRId64, b - a);
	}
	fprintf(out, "  %-28s %14s %14s %14s", what, x, y, d);
	if (!isnan(rel))
		fprintf(out, " %+8.1f%%", rel);
	fputc('\n', out);
}

int ir_report_compare(json_object *a, const char *name_a, json_object *b, const char *name_b, FILE *out)
{
	json_object *ta = jget(a, "trace"), *tb = jget(b, "trace");
	json_object *oa = jget(a, "observed"), *ob = jget(b, "observed");
	json_object *pa = jget(a, "policies"), *pb = jget(b, "policies");
	const char *lv[8];
	int nl;

	fprintf(out, "A  %s: %s, kernel %s, %" PRId64 " cpus\n", name_a, jstr(ta, "path", "?"),
		jstr(ta, "kernel", "unknown"), jint(ta, "cpus"));
	fprintf(out, "B  %s: %s, kernel %s, %" PRId64 " cpus\n", name_b, jstr(tb, "path", "?"),
		jstr(tb, "kernel", "unknown"), jint(tb, "cpus"));
	if (jint(ta, "window_ns") != jint(tb, "window_ns"))
		fprintf(out, "NOTE: the traces cover different windows; compare rates, not only totals\n");
	if (jget(a, "open_loop") || jget(b, "open_loop"))
		fprintf(out, "NOTE: %s\n", jstr(a, "open_loop", jstr(b, "open_loop", "")));
	fprintf(out, "\nObserved%*s %14s %14s %14s %9s\n", 21, "", "A", "B", "B - A", "");
	cmp_row(out, "window", jint(ta, "window_ns"), jint(tb, "window_ns"), K_NS);
	cmp_row(out, "idle (CPU-time)", ir_idle_total(a), ir_idle_total(b), K_NS);
	cmp_row(out, "idle while work waited", jint(oa, "idle_while_waiting_ns"), jint(ob, "idle_while_waiting_ns"), K_NS);
	cmp_row(out, "newidle points", jint(oa, "newidle_points"), jint(ob, "newidle_points"), K_COUNT);
	cmp_row(out, "observed newidle pulls", jint(oa, "newidle_pulls"), jint(ob, "newidle_pulls"), K_COUNT);
	cmp_row(out, "migrations", jint(jget(oa, "migrations"), "total"), jint(jget(ob, "migrations"), "total"), K_COUNT);
	cmp_row(out, "lost events", jint(ta, "lost_events"), jint(tb, "lost_events"), K_COUNT);

	{
		/* levels from both documents */
		const char *la[8], *lb[8];
		int na = ir_levels(a, la, 8), nb = ir_levels(b, lb, 8);

		nl = 0;
		for (int i = 0; i < na + nb; i++) {
			const char *s = i < na ? la[i] : lb[i - na];
			int dup = 0;

			for (int k = 0; k < nl; k++)
				dup |= !strcmp(lv[k], s);
			if (!dup && nl < 8)
				lv[nl++] = s;
		}
	}
	for (size_t i = 0; i < jlen(pa); i++) {
		json_object *p = jidx(pa, i), *q = find_policy(b, p);
		char what[64];

		if (!q) {
			fprintf(out, "\nPolicy %s: only in A\n", plabel(p));
			continue;
		}
		{
			int pad = 22 - (int)strlen(plabel(p));

			fprintf(out, "\nPolicy %s%*s %14s %14s %14s\n", plabel(p), pad > 0 ? pad : 0, "", "A", "B",
				"B - A");
		}
		cmp_row(out, "newidle points", jint(p, "newidle_points"), jint(q, "newidle_points"), K_COUNT);
		cmp_row(out, "attempts", jint(jget(p, "attempts"), "total"), jint(jget(q, "attempts"), "total"), K_COUNT);
		cmp_row(out, "pulls", jint(jget(p, "pulls"), "total"), jint(jget(q, "pulls"), "total"), K_COUNT);
		for (int l = 0; l < nl; l++) {
			snprintf(what, sizeof(what), "  pulls at %s", lv[l]);
			cmp_row(out, what, jint(jget(jget(p, "pulls"), "by_level"), lv[l]),
				jint(jget(jget(q, "pulls"), "by_level"), lv[l]), K_COUNT);
		}
		cmp_row(out, "idle lost", jint(p, "idle_lost_ns"), jint(q, "idle_lost_ns"), K_NS);
		cmp_row(out, "idle recovered", jint(p, "idle_recovered_ns"), jint(q, "idle_recovered_ns"), K_NS);
		cmp_row(out, "balance cost", jint(p, "balance_cost_ns"), jint(q, "balance_cost_ns"), K_NS);
		cmp_row(out, "migrations avoided vs ref", jint(jget(p, "migrations_avoided"), "total"),
			jint(jget(q, "migrations_avoided"), "total"), K_COUNT);
	}
	for (size_t i = 0; i < jlen(pb); i++)
		if (!find_policy(a, jidx(pb, i)))
			fprintf(out, "\nPolicy %s: only in B\n", plabel(jidx(pb, i)));
	return ferror(out) ? -1 : 0;
}

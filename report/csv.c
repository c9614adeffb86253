/* SPDX-License-Identifier: GPL-2.0-only */
/* CSV renderer: one row per policy, stable column order, RFC 4180 quoting. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/util.h"

#define MAX_LEVELS 8

static const char *const bail_keys[] = { "not_overloaded", "migration_cost", "lowest_cost", "ttwu_pending" };

/* ",<pre><level><post>": a level name comes from the document, so quoted. */
static void header(FILE *out, const char *pre, const char *level, const char *post)
{
	char h[256];

	snprintf(h, sizeof(h), "%s%s%s", pre, level, post);
	fputc(',', out);
	ir_csv_field(out, h);
}

int ir_report_csv(json_object *doc, FILE *out)
{
	json_object *t = jget(doc, "trace"), *pol = jget(doc, "policies");
	const char *lv[MAX_LEVELS];
	int nl = ir_levels(doc, lv, MAX_LEVELS);
	const char *ref = jstr(doc, "reference", "");

	fputs("trace,kernel,cpus,window_ns,policy,label,reference,newidle_points,attempts,pulls", out);
	for (int l = 0; l < nl; l++)
		header(out, "pulls_", lv[l], "");
	fputs(",idle_recovered_ns,idle_lost_ns,balance_cost_ns", out);
	for (int l = 0; l < nl; l++)
		header(out, "balance_cost_", lv[l], "_ns");
	fputs(",migrations_avoided,idle_traded_ns", out);
	for (size_t b = 0; b < sizeof(bail_keys) / sizeof(bail_keys[0]); b++)
		fprintf(out, ",bails_%s", bail_keys[b]);
	fputc('\n', out);
	for (size_t i = 0; i < jlen(pol); i++) {
		json_object *p = jidx(pol, i), *pulls = jget(p, "pulls");

		ir_csv_field(out, jstr(t, "path", ""));
		fputc(',', out);
		ir_csv_field(out, jstr(t, "kernel", ""));
		fprintf(out, ",%" PRId64 ",%" PRId64 ",", jint(t, "cpus"), jint(t, "window_ns"));
		ir_csv_field(out, jstr(p, "name", ""));
		fputc(',', out);
		ir_csv_field(out, jstr(p, "label", jstr(p, "name", "")));
		fputc(',', out);
		ir_csv_field(out, ref);
		fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64, jint(p, "newidle_points"),
			jint(jget(p, "attempts"), "total"), jint(pulls, "total"));
		for (int l = 0; l < nl; l++)
			fprintf(out, ",%" PRId64, jint(jget(pulls, "by_level"), lv[l]));
		fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64, jint(p, "idle_recovered_ns"),
			jint(p, "idle_lost_ns"), jint(p, "balance_cost_ns"));
		for (int l = 0; l < nl; l++)
			fprintf(out, ",%" PRId64, jint(jget(p, "balance_cost_by_level"), lv[l]));
		fprintf(out, ",%" PRId64 ",%" PRId64, jint(jget(p, "migrations_avoided"), "total"),
			jint(p, "idle_traded_ns"));
		for (size_t b = 0; b < sizeof(bail_keys) / sizeof(bail_keys[0]); b++)
			fprintf(out, ",%" PRId64, jint(jget(p, "bails"), bail_keys[b]));
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}

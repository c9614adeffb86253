/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Long-format rows for pandas, DuckDB, Spark and SQL engines: one row per
 * trace x policy x level, as JSON lines or CSV, with the stable columns
 * documented in docs/report.md ("Long-format rows").  Level "all" carries a
 * policy's totals (and the figures that have no level: idle, bails); the
 * per-level rows carry attempts, pulls, cost and migrations avoided at that
 * level, null elsewhere.  Sweep points are rows of level "all" with
 * sweep_param and sweep_value set.  Reads only the report document.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/util.h"

#define MAX_LEVELS 8

/* The columns, in order: never reorder or rename (docs/report.md). */
enum col {
	C_TRACE, C_TRACE_ID, C_HOST, C_KERNEL, C_CPUS, C_WINDOW, C_POLICY, C_LABEL, C_REFERENCE,
	C_SWEEP_PARAM, C_SWEEP_VALUE, C_LEVEL, C_POINTS, C_ATTEMPTS, C_PULLS, C_COST,
	C_AVOIDED, C_RECOVERED, C_LOST, C_TRADED, C_BAIL_NOT_OVERLOADED,
	C_BAIL_MIGRATION_COST, C_BAIL_LOWEST_COST, C_BAIL_TTWU_PENDING, C__COUNT
};
static const char *const col_name[C__COUNT] = {
	"trace", "trace_id", "host", "kernel", "cpus", "window_ns", "policy", "label", "reference",
	"sweep_param", "sweep_value", "level", "newidle_points", "attempts", "pulls", "balance_cost_ns",
	"migrations_avoided", "idle_recovered_ns", "idle_lost_ns", "idle_traded_ns",
	"bails_not_overloaded", "bails_migration_cost", "bails_lowest_cost", "bails_ttwu_pending",
};

struct cell {
	enum { NUL, STR, INT } t;
	const char *s;
	int64_t i;
};

struct row {
	struct cell c[C__COUNT];
};

static void set_s(struct row *r, enum col c, const char *s)
{
	r->c[c] = (struct cell){ .t = s ? STR : NUL, .s = s };
}

static void set_i(struct row *r, enum col c, int64_t i)
{
	r->c[c] = (struct cell){ .t = INT, .i = i };
}

/* A number from the document, or null when the key is absent. */
static void set_j(struct row *r, enum col c, json_object *o, const char *k)
{
	json_object *v = jget(o, k);

	if (v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		set_i(r, c, json_object_get_int64(v));
	else
		r->c[c].t = NUL;
}

int ir_rows_header(enum ir_rows_format fmt, FILE *out)
{
	if (fmt == IR_ROWS_CSV) {
		for (int c = 0; c < C__COUNT; c++)
			fprintf(out, "%s%s", c ? "," : "", col_name[c]);
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}

static void emit(const struct row *r, enum ir_rows_format fmt, FILE *out)
{
	if (fmt == IR_ROWS_CSV) {
		for (int c = 0; c < C__COUNT; c++) {
			if (c)
				fputc(',', out);
			if (r->c[c].t == STR)
				ir_csv_field(out, r->c[c].s);
			else if (r->c[c].t == INT)
				fprintf(out, "%" PRId64, r->c[c].i);
		}
		fputc('\n', out);
		return;
	}
	json_object *o = json_object_new_object();

	for (int c = 0; c < C__COUNT; c++)
		json_object_object_add(o, col_name[c], r->c[c].t == STR ? json_object_new_string(r->c[c].s) :
				       r->c[c].t == INT ? json_object_new_int64(r->c[c].i) : NULL);
	fprintf(out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* A sweep point's figures: the keys of report.sweeps[].points[]. */
static const struct {
	enum col c;
	const char *key;
} sweep_cols[] = {
	{ C_ATTEMPTS, "attempts" }, { C_PULLS, "pulls" }, { C_COST, "balance_cost_ns" },
	{ C_RECOVERED, "idle_recovered_ns" }, { C_LOST, "idle_lost_ns" },
};

int ir_report_rows(json_object *doc, const char *host, enum ir_rows_format fmt, FILE *out)
{
	json_object *t = jget(doc, "trace"), *pol = jget(doc, "policies"), *sw = jget(doc, "sweeps");
	const char *lv[MAX_LEVELS];
	int nl = ir_levels(doc, lv, MAX_LEVELS);
	struct row base = { 0 };
	char id[17];

	snprintf(id, sizeof(id), "%016" PRIx64, ir_trace_fingerprint(t));
	set_s(&base, C_TRACE, jstr(t, "path", ""));
	set_s(&base, C_TRACE_ID, id);
	set_s(&base, C_HOST, host ? host : ir_hostname(t));
	set_s(&base, C_KERNEL, jstr(t, "kernel", NULL));
	set_j(&base, C_CPUS, t, "cpus");
	set_j(&base, C_WINDOW, t, "window_ns");
	set_s(&base, C_REFERENCE, jstr(doc, "reference", NULL));

	for (size_t i = 0; i < jlen(pol); i++) {
		json_object *p = jidx(pol, i), *bails = jget(p, "bails");
		struct row r = base;

		set_s(&r, C_POLICY, jstr(p, "name", ""));
		set_s(&r, C_LABEL, jstr(p, "label", jstr(p, "name", "")));
		set_s(&r, C_LEVEL, "all");
		set_j(&r, C_POINTS, p, "newidle_points");
		set_j(&r, C_ATTEMPTS, jget(p, "attempts"), "total");
		set_j(&r, C_PULLS, jget(p, "pulls"), "total");
		set_j(&r, C_COST, p, "balance_cost_ns");
		set_j(&r, C_AVOIDED, jget(p, "migrations_avoided"), "total");
		set_j(&r, C_RECOVERED, p, "idle_recovered_ns");
		set_j(&r, C_LOST, p, "idle_lost_ns");
		set_j(&r, C_TRADED, p, "idle_traded_ns");
		set_j(&r, C_BAIL_NOT_OVERLOADED, bails, "not_overloaded");
		set_j(&r, C_BAIL_MIGRATION_COST, bails, "migration_cost");
		set_j(&r, C_BAIL_LOWEST_COST, bails, "lowest_cost");
		set_j(&r, C_BAIL_TTWU_PENDING, bails, "ttwu_pending");
		emit(&r, fmt, out);
		for (int l = 0; l < nl; l++) {
			struct row q = base;

			q.c[C_POLICY] = r.c[C_POLICY];
			q.c[C_LABEL] = r.c[C_LABEL];
			set_s(&q, C_LEVEL, lv[l]);
			set_j(&q, C_ATTEMPTS, jget(jget(p, "attempts"), "by_level"), lv[l]);
			set_j(&q, C_PULLS, jget(jget(p, "pulls"), "by_level"), lv[l]);
			set_j(&q, C_COST, jget(p, "balance_cost_by_level"), lv[l]);
			set_j(&q, C_AVOIDED, jget(jget(p, "migrations_avoided"), "by_level"), lv[l]);
			emit(&q, fmt, out);
		}
	}
	for (size_t s = 0; s < jlen(sw); s++) {
		json_object *o = jidx(sw, s), *pts = jget(o, "points");
		const char *name = jstr(o, "policy", ""), *param = jstr(o, "param", "");

		for (size_t i = 0; i < jlen(pts); i++) {
			json_object *p = jidx(pts, i);
			struct row r = base;
			char label[256];

			snprintf(label, sizeof(label), "%s.%s=%" PRId64, name, param, jint(p, "value"));
			set_s(&r, C_POLICY, name);
			set_s(&r, C_LABEL, label);
			set_s(&r, C_SWEEP_PARAM, param);
			set_j(&r, C_SWEEP_VALUE, p, "value");
			set_s(&r, C_LEVEL, "all");
			for (size_t k = 0; k < sizeof(sweep_cols) / sizeof(sweep_cols[0]); k++)
				set_j(&r, sweep_cols[k].c, p, sweep_cols[k].key);
			emit(&r, fmt, out);
		}
	}
	return ferror(out) ? -1 : 0;
}

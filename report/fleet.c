/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Two reports side by side: compare (per-policy deltas B - A); the fleet
 * merge is report/merge.c.  Policies pair when they are the same policy
 * (ir_same_policy): the same name and the same resolved parameters
 * ("params"; labels may spell them differently), or, in documents without
 * params, the same label.  Never by name alone.
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

bool ir_same_policy(json_object *p, json_object *q)
{
	json_object *a = jget(p, "params"), *b = jget(q, "params");

	if (strcmp(jstr(p, "name", ""), jstr(q, "name", "")))
		return false;
	if (a && b)
		return json_object_equal(a, b);
	return !strcmp(plabel(p), plabel(q));
}

static json_object *find_policy(json_object *doc, json_object *p)
{
	json_object *pol = jget(doc, "policies");

	for (size_t i = 0; i < jlen(pol); i++)
		if (ir_same_policy(jidx(pol, i), p))
			return jidx(pol, i);
	return NULL;
}

/* The level names and per-CPU spans a report was replayed with. */
static const char *levels_text(json_object *doc, char *buf, size_t len)
{
	json_object *lv = jget(jget(doc, "domains"), "levels");
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < jlen(lv) && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", jtext(jidx(lv, i)));
	return buf[0] ? buf : "none";
}

int ir_report_fleet_check_pair(json_object *first, const char *name0, json_object *doc, const char *name,
			       FILE *warn)
{
	char a[128], b[128];
	json_object *t0 = jget(first, "trace"), *t = jget(doc, "trace");
	json_object *d0 = jget(jget(first, "domains"), "cpus"), *d = jget(jget(doc, "domains"), "cpus");

	if (jint(t, "cpus") != jint(t0, "cpus"))
		fprintf(warn, "idlereplay: warning: %s has %" PRId64 " CPUs but %s %" PRId64 ": per-trace figures are not comparable one to one\n",
			name, jint(t, "cpus"), name0, jint(t0, "cpus"));
	else if (d0 && d && !json_object_equal(d0, d))
		fprintf(warn, "idlereplay: warning: %s was replayed with another topology than %s (levels %s against %s)\n",
			name, name0, levels_text(doc, a, sizeof(a)), levels_text(first, b, sizeof(b)));
	return ferror(warn) ? -1 : 0;
}

enum kind { K_COUNT, K_NS };

/* Where compare's rows go: a text table, CSV rows, or a JSON array. */
struct cmp {
	enum ir_compare_format fmt;
	FILE *out;
	double sec_a, sec_b;		/* the windows, in seconds: rates are per second of trace */
	const char *section;
	json_object *rows;
	json_object *only[2];		/* JSON: labels of policies only in A, only in B */
};

/* A policy one side lacks: said in the text, listed in the JSON
 * (only_in_a, only_in_b), a row of its own in the CSV (no figures). */
static void only_in(struct cmp *c, const char *label, char side)
{
	json_object **o = &c->only[side == 'B'];

	if (c->fmt == IR_COMPARE_TEXT) {
		fprintf(c->out, "\nPolicy %s: only in %c (%c has no policy with these parameters)\n", ir_tsafe(label),
			side, side == 'A' ? 'B' : 'A');
	} else if (c->fmt == IR_COMPARE_CSV) {
		ir_csv_field(c->out, label);
		fprintf(c->out, ",only in %c,,,,,,,\n", side);
	} else if (*o || (*o = json_object_new_array())) {
		json_object_array_add(*o, json_object_new_string(label));
	}
}

/* A rate per second of trace: counts as "/s", durations as a share of time ("ms/s"). */
static const char *fmt_rate(char *buf, size_t len, double v, enum kind k, bool sign)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (k == K_COUNT)
		snprintf(buf, len, sign ? "%+.1f/s" : "%.1f/s", v);
	else
		snprintf(buf, len, sign ? "%+.2f ms/s" : "%.2f ms/s", v / 1e6);
	return buf;
}

/* A JSON number: an integer when v is one that int64_t holds, else a double. */
static json_object *jnum(double v)
{
	return v >= -9223372036854775808.0 && v < 9223372036854775808.0 && v == floor(v) ?
		       json_object_new_int64((int64_t)v) : json_object_new_double(v);
}

/*
 * One row.  a and b in double (a sum over CPUs may not fit int64_t); ia and
 * ib, when given, the exact integers, so counts print exactly and B - A is
 * exact when it fits int64_t (values from a file may be anything).
 */
static void cmp_out(struct cmp *c, const char *what, double a, double b, const int64_t *ia, const int64_t *ib,
		    enum kind k, bool rate)
{
	char x[32], y[32], d[32], ra[32], rb[32], rd[32];
	int64_t diff = 0;
	bool exact = ia && ib && !__builtin_sub_overflow(*ib, *ia, &diff);
	double dd = b - a;
	double rel = a ? 100.0 * dd / fabs(a) : NAN;
	double pa = rate && c->sec_a > 0 ? a / c->sec_a : NAN;
	double pb = rate && c->sec_b > 0 ? b / c->sec_b : NAN;
	/* the text indents sub-rows ("  pulls at MC"); a metric's name has no blanks around it */
	const char *name = what + strspn(what, " ");

	if (c->fmt == IR_COMPARE_JSON) {
		json_object *r = json_object_new_object();

		json_object_object_add(r, "section", json_object_new_string(c->section));
		json_object_object_add(r, "metric", json_object_new_string(name));
		json_object_object_add(r, "unit", json_object_new_string(k == K_NS ? "ns" : "count"));
		json_object_object_add(r, "a", ia ? json_object_new_int64(*ia) : jnum(a));
		json_object_object_add(r, "b", ib ? json_object_new_int64(*ib) : jnum(b));
		json_object_object_add(r, "delta", exact ? json_object_new_int64(diff) : jnum(dd));
		json_object_object_add(r, "a_per_s", isnan(pa) ? NULL : json_object_new_double(pa));
		json_object_object_add(r, "b_per_s", isnan(pb) ? NULL : json_object_new_double(pb));
		json_object_object_add(r, "delta_per_s", isnan(pa) || isnan(pb) ? NULL : json_object_new_double(pb - pa));
		json_object_array_add(c->rows, r);
		return;
	}
	if (ia)
		snprintf(x, sizeof(x), "%" PRId64, *ia);
	else
		snprintf(x, sizeof(x), "%.0f", a);
	if (ib)
		snprintf(y, sizeof(y), "%" PRId64, *ib);
	else
		snprintf(y, sizeof(y), "%.0f", b);
	if (exact)
		snprintf(d, sizeof(d), "%+" PRId64, diff);
	else
		snprintf(d, sizeof(d), "%+.0f", dd);
	if (c->fmt == IR_COMPARE_CSV) {
		ir_csv_field(c->out, c->section);
		fputc(',', c->out);
		ir_csv_field(c->out, name);
		fprintf(c->out, ",%s,%s,%s,%s,", k == K_NS ? "ns" : "count", x, y, d + (d[0] == '+'));
		if (!isnan(pa) && !isnan(pb))
			fprintf(c->out, "%.3f,%.3f,%.3f", pa, pb, pb - pa);
		else
			fputs(",,", c->out);
		fputc('\n', c->out);
		return;
	}
	if (k == K_NS) {
		ir_fmt_dns(x, sizeof(x), a);
		ir_fmt_dns(y, sizeof(y), b);
		ir_fmt_dsns(d, sizeof(d), dd);
	}
	fprintf(c->out, "  %-28s %14s %14s %14s", ir_tsafe(what), x, y, d);
	fprintf(c->out, " %9s", isnan(rel) ? "" : (snprintf(ra, sizeof(ra), "%+.1f%%", rel), ra));
	if (!isnan(pa) && !isnan(pb))
		fprintf(c->out, " %13s %13s %14s", fmt_rate(ra, sizeof(ra), pa, k, false),
			fmt_rate(rb, sizeof(rb), pb, k, false), fmt_rate(rd, sizeof(rd), pb - pa, k, true));
	fputc('\n', c->out);
}

static void cmp_row(struct cmp *c, const char *what, int64_t a, int64_t b, enum kind k, bool rate)
{
	cmp_out(c, what, (double)a, (double)b, &a, &b, k, rate);
}

static void cmp_head(struct cmp *c, const char *section, const char *title)
{
	c->section = section;
	if (c->fmt == IR_COMPARE_TEXT)
		fprintf(c->out, "\n%-30s %14s %14s %14s %9s %13s %13s %14s\n", ir_tsafe(title), "A", "B", "B - A", "(B-A)/A",
			"A per s", "B per s", "B - A per s");
}

static json_object *side(json_object *t, const char *name)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "report", json_object_new_string(name));
	json_object_object_add(o, "trace", json_object_new_string(jstr(t, "path", "")));
	json_object_object_add(o, "kernel", json_object_new_string(jstr(t, "kernel", "")));
	json_object_object_add(o, "cpus", json_object_new_int64(jint(t, "cpus")));
	json_object_object_add(o, "window_ns", json_object_new_int64(jint(t, "window_ns")));
	return o;
}

int ir_report_compare(json_object *a, const char *name_a, json_object *b, const char *name_b,
		      enum ir_compare_format fmt, FILE *out)
{
	json_object *ta = jget(a, "trace"), *tb = jget(b, "trace");
	json_object *oa = jget(a, "observed"), *ob = jget(b, "observed");
	json_object *pa = jget(a, "policies"), *pb = jget(b, "policies");
	struct cmp c = { .fmt = fmt, .out = out, .sec_a = (double)jint(ta, "window_ns") / 1e9,
			 .sec_b = (double)jint(tb, "window_ns") / 1e9 };
	const char *lv[8];
	int nl, ret;

	if (fmt == IR_COMPARE_JSON) {
		c.rows = json_object_new_array();
	} else if (fmt == IR_COMPARE_CSV) {
		fputs("section,metric,unit,a,b,delta,a_per_s,b_per_s,delta_per_s\n", out);
	} else {
		fprintf(out, "A  %s: %s, kernel %s, %" PRId64 " cpus\n", ir_tsafe(name_a),
			ir_tsafe(jstr(ta, "path", "?")), ir_tsafe(jstr(ta, "kernel", "unknown")), jint(ta, "cpus"));
		fprintf(out, "B  %s: %s, kernel %s, %" PRId64 " cpus\n", ir_tsafe(name_b),
			ir_tsafe(jstr(tb, "path", "?")), ir_tsafe(jstr(tb, "kernel", "unknown")), jint(tb, "cpus"));
		if (jint(ta, "window_ns") != jint(tb, "window_ns"))
			fprintf(out, "NOTE: the traces cover different windows: the rates (per second of trace) compare them\n");
		if (jget(a, "open_loop") || jget(b, "open_loop"))
			fprintf(out, "NOTE: %s\n", ir_tsafe(jstr(a, "open_loop", jstr(b, "open_loop", ""))));
	}
	cmp_head(&c, "observed", "Observed");
	cmp_row(&c, "window", jint(ta, "window_ns"), jint(tb, "window_ns"), K_NS, false);
	cmp_out(&c, "idle (CPU-time)", ir_idle_total(a), ir_idle_total(b), NULL, NULL, K_NS, true);
	cmp_row(&c, "idle while work waited", jint(oa, "idle_while_waiting_ns"), jint(ob, "idle_while_waiting_ns"), K_NS, true);
	cmp_row(&c, "newidle points", jint(oa, "newidle_points"), jint(ob, "newidle_points"), K_COUNT, true);
	cmp_row(&c, "observed newidle pulls", jint(oa, "newidle_pulls"), jint(ob, "newidle_pulls"), K_COUNT, true);
	cmp_row(&c, "migrations", jint(jget(oa, "migrations"), "total"), jint(jget(ob, "migrations"), "total"), K_COUNT, true);
	cmp_row(&c, "lost events", jint(ta, "lost_events"), jint(tb, "lost_events"), K_COUNT, true);

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
		char what[64], title[160];

		if (!q) {
			only_in(&c, plabel(p), 'A');
			continue;
		}
		snprintf(title, sizeof(title), "Policy %s", plabel(p));
		cmp_head(&c, plabel(p), title);
		cmp_row(&c, "newidle points", jint(p, "newidle_points"), jint(q, "newidle_points"), K_COUNT, true);
		cmp_row(&c, "attempts", jint(jget(p, "attempts"), "total"), jint(jget(q, "attempts"), "total"), K_COUNT, true);
		cmp_row(&c, "pulls", jint(jget(p, "pulls"), "total"), jint(jget(q, "pulls"), "total"), K_COUNT, true);
		for (int l = 0; l < nl; l++) {
			snprintf(what, sizeof(what), "  pulls at %s", lv[l]);
			cmp_row(&c, what, jint(jget(jget(p, "pulls"), "by_level"), lv[l]),
				jint(jget(jget(q, "pulls"), "by_level"), lv[l]), K_COUNT, true);
		}
		cmp_row(&c, "idle lost", jint(p, "idle_lost_ns"), jint(q, "idle_lost_ns"), K_NS, true);
		cmp_row(&c, "idle recovered", jint(p, "idle_recovered_ns"), jint(q, "idle_recovered_ns"), K_NS, true);
		cmp_row(&c, "balance cost", jint(p, "balance_cost_ns"), jint(q, "balance_cost_ns"), K_NS, true);
		cmp_row(&c, "migrations avoided vs ref", jint(jget(p, "migrations_avoided"), "total"),
			jint(jget(q, "migrations_avoided"), "total"), K_COUNT, true);
		cmp_row(&c, "idle traded vs ref", jint(p, "idle_traded_ns"), jint(q, "idle_traded_ns"), K_NS, true);
	}
	for (size_t i = 0; i < jlen(pb); i++)
		if (!find_policy(a, jidx(pb, i)))
			only_in(&c, plabel(jidx(pb, i)), 'B');
	if (fmt == IR_COMPARE_JSON) {
		json_object *doc = json_object_new_object();

		json_object_object_add(doc, "schema", json_object_new_string("idlereplay.compare/1"));
		json_object_object_add(doc, "a", side(ta, name_a));
		json_object_object_add(doc, "b", side(tb, name_b));
		json_object_object_add(doc, "rows", c.rows);
		json_object_object_add(doc, "only_in_a", c.only[0] ? c.only[0] : json_object_new_array());
		json_object_object_add(doc, "only_in_b", c.only[1] ? c.only[1] : json_object_new_array());
		ret = fprintf(out, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								       JSON_C_TO_STRING_NOSLASHESCAPE)) < 0;
		json_object_put(doc);
		if (ret)
			return -1;
	}
	return ferror(out) ? -1 : 0;
}

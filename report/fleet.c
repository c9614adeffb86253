/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reports across traces: compare (two traces, per-policy deltas B - A) and
 * merge (a fleet: one row per trace, totals, median and p90 across traces).
 * Policies pair when they are the same policy: the same name and the same
 * resolved parameters ("params"; labels may spell them differently), or,
 * in documents without params, the same label.  Never by name alone.
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

static bool same_policy(json_object *p, json_object *q)
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
		if (same_policy(jidx(pol, i), p))
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
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", json_object_get_string(jidx(lv, i)));
	return buf[0] ? buf : "none";
}

int ir_report_fleet_check(json_object *const *docs, const char *const *names, int n, FILE *warn)
{
	char a[128], b[128];

	for (int r = 1; r < n; r++) {
		json_object *t0 = jget(docs[0], "trace"), *t = jget(docs[r], "trace");
		json_object *d0 = jget(jget(docs[0], "domains"), "cpus"), *d = jget(jget(docs[r], "domains"), "cpus");

		if (jint(t, "cpus") != jint(t0, "cpus"))
			fprintf(warn, "idlereplay: warning: %s has %" PRId64 " CPUs but %s %" PRId64 ": per-trace figures are not comparable one to one\n",
				names[r], jint(t, "cpus"), names[0], jint(t0, "cpus"));
		else if (d0 && d && !json_object_equal(d0, d))
			fprintf(warn, "idlereplay: warning: %s was replayed with another topology than %s (levels %s against %s)\n",
				names[r], names[0], levels_text(docs[r], a, sizeof(a)), levels_text(docs[0], b, sizeof(b)));
	}
	return ferror(warn) ? -1 : 0;
}

static const char *host_of(json_object *doc, const char *name)
{
	const char *p = jstr(jget(doc, "trace"), "path", name);
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* In double: a sum of int64_t values from a file may not fit one. */
static double idle_total(json_object *doc)
{
	json_object *c = jget(jget(doc, "observed"), "cpus");
	double s = 0;

	for (size_t i = 0; i < jlen(c); i++)
		s += (double)jint(jidx(c, i), "idle_ns");
	return s;
}

enum kind { K_COUNT, K_NS };

static void cmp_print(FILE *out, const char *what, const char *x, const char *y, const char *d, double rel)
{
	fprintf(out, "  %-28s %14s %14s %14s", what, x, y, d);
	if (!isnan(rel))
		fprintf(out, " %+8.1f%%", rel);
	fputc('\n', out);
}

static void cmp_row(FILE *out, const char *what, int64_t a, int64_t b, enum kind k)
{
	char x[32], y[32], d[32];
	/* b - a may not fit int64_t (values from a file): exact when it does,
	 * else in double */
	int64_t diff;
	int ovf = __builtin_sub_overflow(b, a, &diff);
	double dd = (double)b - (double)a;
	double rel = a ? 100.0 * dd / fabs((double)a) : NAN;

	if (k == K_NS) {
		ir_fmt_ns(x, sizeof(x), a);
		ir_fmt_ns(y, sizeof(y), b);
		ir_fmt_dsns(d, sizeof(d), dd);
	} else {
		snprintf(x, sizeof(x), "%" PRId64, a);
		snprintf(y, sizeof(y), "%" PRId64, b);
		if (ovf)
			snprintf(d, sizeof(d), "%+.0f", dd);
		else
			snprintf(d, sizeof(d), "%+" PRId64, diff);
	}
	cmp_print(out, what, x, y, d, rel);
}

/* A row of durations that are sums (may not fit int64_t). */
static void cmp_row_dns(FILE *out, const char *what, double a, double b)
{
	char x[32], y[32], d[32];

	cmp_print(out, what, ir_fmt_dns(x, sizeof(x), a), ir_fmt_dns(y, sizeof(y), b),
		  ir_fmt_dsns(d, sizeof(d), b - a), a ? 100.0 * (b - a) / fabs(a) : NAN);
}

int ir_report_compare(json_object *a, const char *name_a, json_object *b, const char *name_b, FILE *out)
{
	json_object *ta = jget(a, "trace"), *tb = jget(b, "trace");
	json_object *oa = jget(a, "observed"), *ob = jget(b, "observed");
	json_object *pa = jget(a, "policies"), *pb = jget(b, "policies");
	const char *lv[8];
	int nl;

	fprintf(out, "A  %s: %s, kernel %s, %" PRId64 " cpus\n", ir_tsafe(name_a), ir_tsafe(jstr(ta, "path", "?")),
		ir_tsafe(jstr(ta, "kernel", "unknown")), jint(ta, "cpus"));
	fprintf(out, "B  %s: %s, kernel %s, %" PRId64 " cpus\n", ir_tsafe(name_b), ir_tsafe(jstr(tb, "path", "?")),
		ir_tsafe(jstr(tb, "kernel", "unknown")), jint(tb, "cpus"));
	if (jint(ta, "window_ns") != jint(tb, "window_ns"))
		fprintf(out, "NOTE: the traces cover different windows; compare rates, not only totals\n");
	if (jget(a, "open_loop") || jget(b, "open_loop"))
		fprintf(out, "NOTE: %s\n", ir_tsafe(jstr(a, "open_loop", jstr(b, "open_loop", ""))));
	fprintf(out, "\nObserved%*s %14s %14s %14s %9s\n", 21, "", "A", "B", "B - A", "");
	cmp_row(out, "window", jint(ta, "window_ns"), jint(tb, "window_ns"), K_NS);
	cmp_row_dns(out, "idle (CPU-time)", idle_total(a), idle_total(b));
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
			fprintf(out, "\nPolicy %s: only in A (B has no policy with these parameters)\n", ir_tsafe(plabel(p)));
			continue;
		}
		{
			int pad = 22 - (int)strlen(ir_tsafe(plabel(p)));

			fprintf(out, "\nPolicy %s%*s %14s %14s %14s\n", ir_tsafe(plabel(p)), pad > 0 ? pad : 0, "", "A", "B",
				"B - A");
		}
		cmp_row(out, "newidle points", jint(p, "newidle_points"), jint(q, "newidle_points"), K_COUNT);
		cmp_row(out, "attempts", jint(jget(p, "attempts"), "total"), jint(jget(q, "attempts"), "total"), K_COUNT);
		cmp_row(out, "pulls", jint(jget(p, "pulls"), "total"), jint(jget(q, "pulls"), "total"), K_COUNT);
		for (int l = 0; l < nl; l++) {
			snprintf(what, sizeof(what), "  pulls at %s", ir_tsafe(lv[l]));
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
			fprintf(out, "\nPolicy %s: only in B (A has no policy with these parameters)\n", ir_tsafe(plabel(jidx(pb, i))));
	return ferror(out) ? -1 : 0;
}

/* ---- merge ---- */

enum { C_CPUS, C_WINDOW, C_IDLE, C_IDLE_WAIT, C_POINTS, C_OPULLS, C_MIG, C_LOST, NCOL };
static const char *const col_name[NCOL] = { "cpus", "window", "idle", "idle_waited", "newidle_points",
					    "newidle_pulls", "migrations", "lost_events" };
static const enum kind col_kind[NCOL] = { K_COUNT, K_NS, K_NS, K_NS, K_COUNT, K_COUNT, K_COUNT, K_COUNT };

static double col_val(json_object *doc, int c)
{
	json_object *t = jget(doc, "trace"), *o = jget(doc, "observed");

	switch (c) {
	case C_CPUS: return (double)jint(t, "cpus");
	case C_WINDOW: return (double)jint(t, "window_ns");
	case C_IDLE: return idle_total(doc);
	case C_IDLE_WAIT: return (double)jint(o, "idle_while_waiting_ns");
	case C_POINTS: return (double)jint(o, "newidle_points");
	case C_OPULLS: return (double)jint(o, "newidle_pulls");
	case C_MIG: return (double)jint(jget(o, "migrations"), "total");
	default: return (double)jint(t, "lost_events");
	}
}

static const char *cell(char *buf, size_t len, double v, enum kind k, enum ir_merge_format fmt)
{
	if (isnan(v))
		snprintf(buf, len, fmt == IR_MERGE_CSV ? "" : "-");
	else if (fmt == IR_MERGE_CSV || k == K_COUNT)
		snprintf(buf, len, "%.0f", v);
	else
		ir_fmt_dns(buf, len, v);
	return buf;
}

static void row(FILE *out, enum ir_merge_format fmt, const char *host, const char *kernel, const double *v,
		const enum kind *kinds, int n)
{
	char b[32];

	if (fmt == IR_MERGE_CSV) {
		ir_csv_field(out, host);
		fputc(',', out);
		ir_csv_field(out, kernel);
		for (int c = 0; c < n; c++)
			fprintf(out, ",%s", cell(b, sizeof(b), v[c], kinds[c], fmt));
	} else {
		fprintf(out, "  %-24.24s %-16.16s", ir_tsafe(host), ir_tsafe(kernel));
		for (int c = 0; c < n; c++)
			fprintf(out, " %13s", cell(b, sizeof(b), v[c], kinds[c], fmt));
	}
	fputc('\n', out);
}

/* Totals, median and p90 rows for columns [c0, c0 + ncol) of vals[n][stride]. */
static void summary_rows(FILE *out, enum ir_merge_format fmt, const double *vals, int n, int stride, int c0,
			 int ncol, const enum kind *kinds)
{
	double *tmp = malloc(sizeof(double) * (size_t)(n ? n : 1));
	double *sum = malloc(sizeof(double) * 3 * (size_t)(ncol ? ncol : 1));

	if (!tmp || !sum) {
		free(tmp);
		free(sum);
		return;
	}
	for (int c = 0; c < ncol; c++) {
		int m = 0;
		double t = 0;

		for (int r = 0; r < n; r++) {
			double v = vals[r * stride + c0 + c];

			if (!isnan(v)) {
				t += v;
				tmp[m++] = v;
			}
		}
		sum[c] = m ? t : NAN;
		sum[ncol + c] = ir_percentile(tmp, m, 50);
		sum[2 * ncol + c] = ir_percentile(tmp, m, 90);
	}
	if (fmt == IR_MERGE_TEXT)
		fprintf(out, "  %s\n", "--------");
	row(out, fmt, "total", "", sum, kinds, ncol);
	row(out, fmt, "median", "", sum + ncol, kinds, ncol);
	row(out, fmt, "p90", "", sum + 2 * ncol, kinds, ncol);
	free(tmp);
	free(sum);
}

#define PCOLS 5
static const char *const pcol_name[PCOLS] = { "attempts", "pulls", "idle_lost", "idle_recovered", "balance_cost" };
static const enum kind pcol_kind[PCOLS] = { K_COUNT, K_COUNT, K_NS, K_NS, K_NS };

int ir_report_merge(json_object *const *docs, const char *const *names, int n, enum ir_merge_format fmt,
		    FILE *out)
{
	json_object *seen[64];
	int nseen = 0, stride;
	double *vals;
	enum kind kinds[NCOL + PCOLS * 64];

	for (int r = 0; r < n; r++) {
		json_object *pol = jget(docs[r], "policies");

		for (size_t i = 0; i < jlen(pol); i++) {
			json_object *p = jidx(pol, i);
			int dup = 0;

			for (int s = 0; s < nseen; s++)
				dup |= same_policy(seen[s], p);
			if (!dup && nseen < 64)
				seen[nseen++] = p;
		}
	}
	stride = NCOL + PCOLS * nseen;
	vals = calloc((size_t)(n ? n : 1) * (size_t)stride, sizeof(double));
	if (!vals)
		return -1;
	for (int c = 0; c < stride; c++)
		kinds[c] = c < NCOL ? col_kind[c] : pcol_kind[(c - NCOL) % PCOLS];
	for (int r = 0; r < n; r++) {
		json_object *pol = jget(docs[r], "policies");

		for (int c = 0; c < NCOL; c++)
			vals[r * stride + c] = (double)col_val(docs[r], c);
		for (int s = 0; s < nseen; s++) {
			json_object *p = NULL;
			double *v = &vals[r * stride + NCOL + s * PCOLS];

			for (size_t i = 0; i < jlen(pol) && !p; i++)
				if (same_policy(jidx(pol, i), seen[s]))
					p = jidx(pol, i);
			v[0] = p ? (double)jint(jget(p, "attempts"), "total") : NAN;
			v[1] = p ? (double)jint(jget(p, "pulls"), "total") : NAN;
			v[2] = p ? (double)jint(p, "idle_lost_ns") : NAN;
			v[3] = p ? (double)jint(p, "idle_recovered_ns") : NAN;
			v[4] = p ? (double)jint(p, "balance_cost_ns") : NAN;
		}
	}

	if (fmt == IR_MERGE_CSV) {
		/* One rectangular table: a row per trace, then total, median, p90. */
		fputs("host,kernel", out);
		for (int c = 0; c < NCOL; c++)
			fprintf(out, ",%s%s", col_name[c], col_kind[c] == K_NS ? "_ns" : "");
		for (int s = 0; s < nseen; s++)
			for (int k = 0; k < PCOLS; k++) {
				char h[160];

				snprintf(h, sizeof(h), "%s:%s%s", plabel(seen[s]), pcol_name[k],
					 pcol_kind[k] == K_NS ? "_ns" : "");
				fputc(',', out);
				ir_csv_field(out, h);
			}
		fputc('\n', out);
		for (int r = 0; r < n; r++)
			row(out, fmt, host_of(docs[r], names[r]), jstr(jget(docs[r], "trace"), "kernel", "unknown"),
			    &vals[r * stride], kinds, stride);
		summary_rows(out, fmt, vals, n, stride, 0, stride, kinds);
		free(vals);
		return ferror(out) ? -1 : 0;
	}

	fprintf(out, "Fleet: %d reports (total, median and p90 across them)\n\nObserved\n  %-24s %-16s", n,
		"host", "kernel");
	for (int c = 0; c < NCOL; c++)
		fprintf(out, " %13s", col_name[c]);
	fputc('\n', out);
	for (int r = 0; r < n; r++)
		row(out, fmt, host_of(docs[r], names[r]), jstr(jget(docs[r], "trace"), "kernel", "unknown"),
		    &vals[r * stride], kinds, NCOL);
	summary_rows(out, fmt, vals, n, stride, 0, NCOL, kinds);
	for (int s = 0; s < nseen; s++) {
		int missing = 0;

		fprintf(out, "\nPolicy %s\n", ir_tsafe(plabel(seen[s])));
		for (int r = 0; r < n; r++)
			if (!find_policy(docs[r], seen[s]))
				fprintf(out, "%s%s", missing++ ? ", " : "  no policy with these parameters in: ",
					ir_tsafe(host_of(docs[r], names[r])));
		if (missing)
			fputc('\n', out);
		fprintf(out, "  %-24s %-16s", "host", "kernel");
		for (int k = 0; k < PCOLS; k++)
			fprintf(out, " %13s", pcol_name[k]);
		fputc('\n', out);
		for (int r = 0; r < n; r++)
			row(out, fmt, host_of(docs[r], names[r]), jstr(jget(docs[r], "trace"), "kernel", "unknown"),
			    &vals[r * stride + NCOL + s * PCOLS], pcol_kind, PCOLS);
		summary_rows(out, fmt, vals, n, stride, NCOL + s * PCOLS, PCOLS, pcol_kind);
	}
	free(vals);
	return ferror(out) ? -1 : 0;
}

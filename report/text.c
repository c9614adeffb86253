/* SPDX-License-Identifier: GPL-2.0-only */
/* Text renderer: reads only the JSON document, prints aligned tables. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/util.h"

#define MAX_LEVELS 8

static double pct(int64_t a, int64_t b)
{
	return b > 0 ? 100.0 * (double)a / (double)b : 0.0;
}

static const char *fmt_ratio(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.3f", v);
	return buf;
}

static void print_trace(json_object *t, FILE *out)
{
	char b[32];
	json_object *ev = jget(t, "events");

	fprintf(out, "trace     %s\n", ir_tsafe(jstr(t, "path", "?")));
	fprintf(out, "kernel    %s   clock %s   cpus %" PRId64 "   file v%" PRId64 "\n",
		ir_tsafe(jstr(t, "kernel", "unknown")), ir_tsafe(jstr(t, "clock", "?")), jint(t, "cpus"), jint(t, "file_version"));
	fprintf(out, "window    %s, %" PRId64 " events\n", ir_fmt_ns(b, sizeof(b), jint(t, "window_ns")),
		jint(t, "events_total"));
	if (ev && json_object_is_type(ev, json_type_object)) {
		fprintf(out, "events   ");
		json_object_object_foreach(ev, k, v)
			fprintf(out, " %s=%" PRId64, ir_tsafe(k), json_object_get_int64(v));
		fputc('\n', out);
	}
}

static void print_domains(json_object *d, FILE *out)
{
	json_object *lv = jget(d, "levels"), *cpus = jget(d, "cpus");

	if (!d)
		return;
	fprintf(out, "domains  ");
	for (size_t l = 0; l < jlen(lv); l++) {
		const char *name = jtext(jidx(lv, l));
		const char *seen[64];
		int ns = 0;

		fprintf(out, " %s:", ir_tsafe(name));
		for (size_t c = 0; c < jlen(cpus); c++) {
			json_object *cl = jget(jidx(cpus, c), "levels");

			for (size_t k = 0; k < jlen(cl); k++) {
				const char *span = jstr(jidx(cl, k), "span", NULL);
				int dup = 0;

				if (!span || strcmp(jstr(jidx(cl, k), "name", ""), name))
					continue;
				for (int s = 0; s < ns; s++)
					dup |= !strcmp(seen[s], span);
				if (dup)
					continue;
				if (ns < 64)
					seen[ns++] = span;
				fprintf(out, "%s%s", ns == 1 ? " " : ",", ir_tsafe(span));
			}
		}
	}
	fputc('\n', out);
}

static void print_observed(json_object *o, int64_t window, FILE *out)
{
	char b1[32], b2[32];
	json_object *cpus = jget(o, "cpus"), *mig = jget(o, "migrations");
	size_t n = jlen(cpus);

	fprintf(out, "\nObserved (straight from the trace)\n");
	fprintf(out, "  %4s %12s %7s %12s %12s %10s %8s\n", "cpu", "idle", "idle%", "busy", "idle entries",
		"newidle", "pulls");
	for (size_t i = 0; i < n; i++) {
		json_object *c = jidx(cpus, i);

		fprintf(out, "  %4" PRId64 " %12s %6.1f%% %12s %12" PRId64 " %10" PRId64 " %8" PRId64 "\n",
			jint(c, "cpu"), ir_fmt_ns(b1, sizeof(b1), jint(c, "idle_ns")),
			pct(jint(c, "idle_ns"), window), ir_fmt_ns(b2, sizeof(b2), jint(c, "busy_ns")),
			jint(c, "idle_entries"), jint(c, "newidle_points"), jint(c, "newidle_pulls"));
	}
	fprintf(out, "  idle while another CPU had a waiting task: %s (CPU-time)\n",
		ir_fmt_ns(b1, sizeof(b1), jint(o, "idle_while_waiting_ns")));
	fprintf(out, "  newidle points %" PRId64 ", observed newidle pulls %" PRId64 "\n",
		jint(o, "newidle_points"), jint(o, "newidle_pulls"));
	if (mig) {
		json_object *by = jget(mig, "by_cause");

		fprintf(out, "  migrations %" PRId64 ":", jint(mig, "total"));
		if (by && json_object_is_type(by, json_type_object)) {
			json_object_object_foreach(by, k, v)
				if (json_object_get_int64(v))
					fprintf(out, " %s %" PRId64 " (%.0f%%)", ir_tsafe(k), json_object_get_int64(v),
						pct(json_object_get_int64(v), jint(mig, "total")));
		}
		fputc('\n', out);
	}
}

static void print_warnings(json_object *doc, FILE *out)
{
	json_object *t = jget(doc, "trace"), *lost = jget(t, "lost_by_cpu");
	json_object *an = jget(jget(doc, "observed"), "anomalies");

	for (size_t i = 0; i < jlen(lost); i++) {
		fputs("WARNING: ", out);
		ir_lost_sentence(out, jidx(lost, i), t);
		fputc('\n', out);
	}
	if (an && json_object_is_type(an, json_type_object)) {
		int any = 0;

		json_object_object_foreach(an, k, v) {
			if (!json_object_get_int64(v))
				continue;
			fprintf(out, "%s %s %" PRId64, any ? "," : "WARNING: state anomalies (events that contradict the "
				"reconstructed state; figures near them are approximate):", ir_tsafe(k), json_object_get_int64(v));
			any = 1;
		}
		if (any)
			fputc('\n', out);
	}
}

static int label_width(json_object *pol)
{
	int w = 6;

	for (size_t i = 0; i < jlen(pol); i++) {
		int l = (int)strlen(ir_tsafe(jstr(jidx(pol, i), "label", jstr(jidx(pol, i), "name", "?"))));

		if (l > w)
			w = l;
	}
	return w;
}

static const char *plabel(json_object *p)
{
	return ir_tsafe(jstr(p, "label", jstr(p, "name", "?")));
}

static void print_policies(json_object *doc, FILE *out)
{
	json_object *pol = jget(doc, "policies");
	const char *lv[MAX_LEVELS];
	int nl = ir_levels(doc, lv, MAX_LEVELS), w = label_width(pol);
	const char *ref = ir_tsafe(jstr(doc, "reference", NULL));
	char b1[32], b2[32], b3[32], b4[32];

	if (!jlen(pol))
		return;
	fprintf(out, "\nPolicies%s%s%s\n", ref ? " (reference: " : "", ref ? ref : "", ref ? ")" : "");

	/* Pulls by level, and migrations avoided relative to the reference. */
	fprintf(out, "\n  Pulls (migrations) at newidle points, by level; avoided = reference pulls - these\n");
	fprintf(out, "  %-*s %9s", w, "policy", "points");
	for (int l = 0; l < nl; l++)
		fprintf(out, " %8s", ir_tsafe(lv[l]));
	fprintf(out, " %8s %9s", "pulls", "avoided");
	for (int l = 0; l < nl; l++)
		fprintf(out, " %8.8s", ir_tsafe(lv[l]));
	fputc('\n', out);
	for (size_t i = 0; i < jlen(pol); i++) {
		json_object *p = jidx(pol, i), *by = jget(jget(p, "pulls"), "by_level");
		json_object *av = jget(p, "migrations_avoided"), *avby = jget(av, "by_level");

		fprintf(out, "  %-*s %9" PRId64, w, plabel(p), jint(p, "newidle_points"));
		for (int l = 0; l < nl; l++)
			fprintf(out, " %8" PRId64, jint(by, lv[l]));
		fprintf(out, " %8" PRId64, jint(jget(p, "pulls"), "total"));
		if (av) {
			fprintf(out, " %+9" PRId64, jint(av, "total"));
			for (int l = 0; l < nl; l++)
				fprintf(out, " %+8" PRId64, jint(avby, lv[l]));
		}
		fputc('\n', out);
	}

	/* Idle time. */
	fprintf(out, "\n  Idle time (CPU-time); traded = this policy's idle lost - the reference's\n");
	fprintf(out, "  %-*s %12s %14s %12s\n", w, "policy", "idle lost", "idle recovered", "idle traded");
	for (size_t i = 0; i < jlen(pol); i++) {
		json_object *p = jidx(pol, i);

		fprintf(out, "  %-*s %12s %14s %12s\n", w, plabel(p),
			ir_fmt_ns(b1, sizeof(b1), jint(p, "idle_lost_ns")),
			ir_fmt_ns(b2, sizeof(b2), jint(p, "idle_recovered_ns")),
			jget(p, "idle_traded_ns") ? ir_fmt_sns(b3, sizeof(b3), jint(p, "idle_traded_ns")) : "");
	}

	/* Balance attempts and modelled cost, by level; early bails. */
	fprintf(out, "\n  load_balance attempts and modelled cost (max_newidle_lb_cost), by level; early bails\n");
	fprintf(out, "  %-*s %9s %11s", w, "policy", "attempts", "cost");
	for (int l = 0; l < nl; l++)
		fprintf(out, " %8.8s %10s", ir_tsafe(lv[l]), "cost");
	fprintf(out, "  %s\n", "bails");
	for (size_t i = 0; i < jlen(pol); i++) {
		json_object *p = jidx(pol, i), *att = jget(p, "attempts"), *cbl = jget(p, "balance_cost_by_level");
		json_object *bails = jget(p, "bails");

		fprintf(out, "  %-*s %9" PRId64 " %11s", w, plabel(p), jint(att, "total"),
			ir_fmt_ns(b1, sizeof(b1), jint(p, "balance_cost_ns")));
		for (int l = 0; l < nl; l++)
			fprintf(out, " %8" PRId64 " %10s", jint(jget(att, "by_level"), lv[l]),
				ir_fmt_ns(b4, sizeof(b4), jint(cbl, lv[l])));
		fputc(' ', out);
		if (bails && json_object_is_type(bails, json_type_object)) {
			json_object_object_foreach(bails, k, v)
				fprintf(out, " %s %" PRId64, ir_tsafe(k), json_object_get_int64(v));
		}
		fputc('\n', out);
	}

	/* Parameters (assumed defaults included: every report prints them), once. */
	ir_params_text(pol, out, w);
}

static int is_cost_param(const char *param)
{
	return strstr(param, "cost") != NULL || strstr(param, "_ns") != NULL;
}

static void print_sweeps(json_object *doc, FILE *out)
{
	json_object *sw = jget(doc, "sweeps");
	char b0[32], b1[32], b2[32], b3[32];

	for (size_t i = 0; i < jlen(sw); i++) {
		json_object *s = jidx(sw, i), *pts = jget(s, "points");
		const char *param = jstr(s, "param", "?");

		fprintf(out, "\nSweep: %s, %s\n", ir_tsafe(jstr(s, "policy", "?")), ir_tsafe(param));
		fprintf(out, "  %12s %9s %9s %12s %14s %12s\n", "value", "attempts", "pulls", "idle lost",
			"idle recovered", "cost");
		for (size_t k = 0; k < jlen(pts); k++) {
			json_object *pt = jidx(pts, k);
			double v = jdbl(pt, "value");

			if (is_cost_param(param))
				ir_fmt_dns(b0, sizeof(b0), v);
			else
				snprintf(b0, sizeof(b0), "%g", v);
			fprintf(out, "  %12s %9" PRId64 " %9" PRId64 " %12s %14s %12s\n", b0, jint(pt, "attempts"),
				jint(pt, "pulls"), ir_fmt_ns(b1, sizeof(b1), jint(pt, "idle_lost_ns")),
				ir_fmt_ns(b2, sizeof(b2), jint(pt, "idle_recovered_ns")),
				ir_fmt_ns(b3, sizeof(b3), jint(pt, "balance_cost_ns")));
		}
	}
}

static void print_fidelity(json_object *doc, FILE *out)
{
	json_object *f = jget(doc, "fidelity"), *g = jget(doc, "ground_truth");
	char b1[16], b2[16], b3[16], b4[16];

	if (f) {
		const char *costs = jstr(f, "costs", "assumed");
		json_object *ex = jget(f, "expected_pulls");
		int64_t obs = jint(f, "observed_pulls"), pred = jint(f, "predicted_pulls");

		fprintf(out, "\nFidelity: %s (the model of the recording kernel, %s costs) against what that kernel did\n",
			ir_tsafe(jstr(f, "policy", "?")), ir_tsafe(costs));
		if (ex)
			fprintf(out, "  predicted pulls are expected values over seeds: mean %.1f (5-95 %%: %.0f-%.0f)\n",
				jdbl(ex, "mean"), jdbl(ex, "p5"), jdbl(ex, "p95"));
		if (!obs && !pred) {
			fprintf(out, "  %" PRId64 " newidle points; no newidle pull observed and none predicted: "
				"nothing to judge the model by\n", jint(f, "points"));
		} else if (!obs) {
			fprintf(out, "  %" PRId64 " newidle points; the kernel made no newidle pull, the model predicts %"
				PRId64 " with %s costs: precision cannot be judged.\n", jint(f, "points"), pred, ir_tsafe(costs));
			if (!strcmp(costs, "assumed"))
				fprintf(out, "  The costs are assumptions (no probes in this trace): `idlereplay calibrate "
					"TRACE` fits them to the observed pulls.\n");
		} else {
			fprintf(out, "  %" PRId64 " newidle points, observed pulls %" PRId64 ", predicted %" PRId64
				", %" PRId64 " at the same points; precision %s, recall %s\n", jint(f, "points"), obs, pred,
				jint(f, "true_positives"), fmt_ratio(b1, sizeof(b1), jdbl(f, "precision")),
				fmt_ratio(b2, sizeof(b2), jdbl(f, "recall")));
		}
	}
	if (g) {
		json_object *e = jget(g, "avg_idle_rel_error");

		fprintf(out, "\nGround truth (kernel probes at sched_balance_newidle; %s parameters)\n",
			!strcmp(jstr(g, "mode", "assumed"), "probed") ? "probed" : "assumed");
		fprintf(out, "  probed calls %" PRId64 ", matched to newidle points %" PRId64
			"; point precision %s, recall %s\n", jint(g, "calls"), jint(g, "matched_points"),
			fmt_ratio(b1, sizeof(b1), jdbl(g, "point_precision")),
			fmt_ratio(b2, sizeof(b2), jdbl(g, "point_recall")));
		fprintf(out, "  avg_idle relative error: median %s, p90 %s\n",
			fmt_ratio(b1, sizeof(b1), jdbl(e, "median")), fmt_ratio(b2, sizeof(b2), jdbl(e, "p90")));
		fprintf(out, "  agreement: overload %s, early bail %s; pulls precision %s, recall %s\n",
			fmt_ratio(b1, sizeof(b1), jdbl(g, "overload_agreement")),
			fmt_ratio(b2, sizeof(b2), jdbl(g, "early_bail_agreement")),
			fmt_ratio(b3, sizeof(b3), jdbl(g, "pull_precision")),
			fmt_ratio(b4, sizeof(b4), jdbl(g, "pull_recall")));
		if (jget(g, "expected_pulls"))
			fprintf(out, "  pulls at probed calls: kernel %" PRId64 ", model expected %.1f over seeds "
				"(5-95 %%: %.0f-%.0f); precision and recall are of the means\n",
				jint(g, "kernel_pulls"), jdbl(jget(g, "expected_pulls"), "mean"),
				jdbl(jget(g, "expected_pulls"), "p5"), jdbl(jget(g, "expected_pulls"), "p95"));
	}
}

/* What the replay assumed where the trace is silent, and whether newidle
 * probes stood in for it (README "Outcomes", issue 11). */
static void print_assumptions(json_object *doc, FILE *out)
{
	json_object *a = jget(doc, "assumptions"), *g = jget(doc, "ground_truth");
	const char *mode = jstr(g, "mode", "assumed");
	char b1[32], b2[32], b3[32], b4[32];

	if (!a)
		return;
	fprintf(out, "assumed   mode %s%s: sched_migration_cost %s, max_idle_balance_cost %s, "
		"avg_idle starts at %s, rd->overload rewritten by top-level balances every %s per group "
		"(x%lld when busy), "
		"avg_idle update %s\n", ir_tsafe(mode),
		strcmp(mode, "probed") ? " (no newidle probes)" : " (costs and avg_idle from newidle probes)",
		ir_fmt_ns(b1, sizeof(b1), jint(a, "sched_migration_cost_ns")),
		ir_fmt_ns(b2, sizeof(b2), jint(a, "max_idle_balance_cost_ns")),
		ir_fmt_ns(b3, sizeof(b3), jint(a, "avg_idle_init_ns")),
		ir_fmt_ns(b4, sizeof(b4), jint(a, "overload_balance_interval_ns")),
		(long long)jint(a, "overload_busy_factor"),
		json_object_get_boolean(jget(a, "avg_idle_shift")) ? "diff >> 3 (4.15)" : "diff / 8");
}

/* The closed loop (issue 13): figures per policy beside the trace's. */
static void cl_row(FILE *out, const char *label, json_object *f)
{
	char b[6][32];
	json_object *w = jget(f, "wait_ns"), *bal = jget(f, "balance_cpu_ns");

	fprintf(out, "  %-28s %10s %10s %10s %9s %9s %8lld %6lld %10s\n", ir_tsafe(label),
		ir_fmt_ns(b[0], sizeof(b[0]), jint(f, "completion_ns")), ir_fmt_ns(b[1], sizeof(b[1]), jint(f, "idle_ns")),
		ir_fmt_ns(b[2], sizeof(b[2]), jint(f, "idle_while_waiting_ns")), ir_fmt_ns(b[3], sizeof(b[3]), jint(w, "p50")),
		ir_fmt_ns(b[4], sizeof(b[4]), jint(w, "p99")), (long long)jint(f, "migrations"),
		(long long)jint(f, "newidle_pulls"),
		bal && !json_object_is_type(bal, json_type_null) ? ir_fmt_ns(b[5], sizeof(b[5]), json_object_get_int64(bal)) : "-");
}

/* A randomised policy's row is the mean over its seeds: the spread below it */
static void cl_spread(FILE *out, json_object *f)
{
	json_object *sd = jget(f, "seeds"), *lo = jget(sd, "p5"), *hi = jget(sd, "p95");
	char a[32], b[32];
	static const char *const ns[][2] = {
		{ "completion", "completion_ns" }, { "idle", "idle_ns" }, { "idle+wait", "idle_while_waiting_ns" },
	};

	if (!sd || jint(sd, "n") <= 1)
		return;
	fprintf(out, "  %-28s 5-95 %% over %lld seeds (the row is their mean):", "",
		(long long)jint(sd, "n"));
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		fprintf(out, " %s %s-%s,", ns[i][0], ir_fmt_ns(a, sizeof(a), jint(lo, ns[i][1])),
			ir_fmt_ns(b, sizeof(b), jint(hi, ns[i][1])));
	fprintf(out, " wait p50 %s-%s,", ir_fmt_ns(a, sizeof(a), jint(jget(lo, "wait_ns"), "p50")),
		ir_fmt_ns(b, sizeof(b), jint(jget(hi, "wait_ns"), "p50")));
	fprintf(out, " p99 %s-%s,", ir_fmt_ns(a, sizeof(a), jint(jget(lo, "wait_ns"), "p99")),
		ir_fmt_ns(b, sizeof(b), jint(jget(hi, "wait_ns"), "p99")));
	fprintf(out, " migrate %lld-%lld, pulls %lld-%lld\n", (long long)jint(lo, "migrations"),
		(long long)jint(hi, "migrations"), (long long)jint(lo, "newidle_pulls"),
		(long long)jint(hi, "newidle_pulls"));
}

static void cl_err(FILE *out, const char *name, double v)
{
	if (isnan(v))
		fprintf(out, " %s n/a", name);
	else
		fprintf(out, " %s %+.1f %%", name, 100 * v);
}

static void put_tsafe(FILE *out, const char *s)
{
	fputs(ir_tsafe(s), out);
}

static void print_closed_loop(json_object *doc, FILE *out)
{
	json_object *cl = jget(doc, "closed_loop"), *fit = jget(doc, "closed_loop_fit"), *wk, *e;
	const char *withheld;

	if (!cl || !fit)
		return;
	fprintf(out, "\nClosed loop: the trace's workload re-simulated under each policy (%.1f %% of wakeups explained:",
		100 * jdbl(fit, "explained_share"));
	wk = jget(fit, "wakeups");
	json_object_object_foreach(wk, k, v)
		fprintf(out, " %s %.1f %%", ir_tsafe(k), 100 * jdbl(v, "share"));
	fprintf(out, ")\n");
	fprintf(out, "  %-28s %10s %10s %10s %9s %9s %8s %6s %10s\n", "", "completion", "idle", "idle+wait",
		"wait p50", "wait p99", "migrate", "pulls", "balance");
	cl_row(out, "trace (measured)", jget(fit, "measured"));
	cl_row(out, "frozen to the trace", jget(fit, "frozen"));
	if ((withheld = jstr(fit, "withheld", NULL))) {
		fprintf(out, "  closed-loop figures withheld: %s\n", ir_tsafe(withheld));
		return;
	}
	json_object_object_foreach(cl, label, f) {
		cl_row(out, label, f);
		cl_spread(out, f);
	}
	if (ir_cl_stalled_sentence(out, "  WARNING: ", fit, cl, put_tsafe))
		fputc('\n', out);
	if ((e = jget(fit, "relative_error")) && !json_object_is_type(e, json_type_null)) {
		json_object *sd = jget(fit, "simulated_seeds");

		fprintf(out, "  self-consistency of %s against the trace", ir_tsafe(jstr(fit, "policy", "?")));
		if (sd && jint(sd, "n") > 1)
			fprintf(out, " (its mean over %lld seeds)", (long long)jint(sd, "n"));
		fputc(':', out);
		cl_err(out, "completion", jdbl(e, "completion_ns"));
		cl_err(out, "idle", jdbl(e, "idle_ns"));
		cl_err(out, "wait p50", jdbl(jget(e, "wait_ns"), "p50"));
		cl_err(out, "p99", jdbl(jget(e, "wait_ns"), "p99"));
		cl_err(out, "migrations", jdbl(e, "migrations"));
		cl_err(out, "pulls", jdbl(e, "newidle_pulls"));
		fputc('\n', out);
	}
	/* the columns' meaning, once (a new reader cannot guess "idle+wait") */
	fprintf(out, "  columns: completion, of the workload; idle, CPU time idle; idle+wait, CPU time idle while "
		"another CPU had a waiting task; wait p50, wait p99, runqueue wait per wakeup; migrate, migrations of "
		"all causes; pulls, newidle pulls; balance, CPU time in newidle balance (docs/closed-loop.md). "
		"Each schedule in Perfetto: idlereplay export TRACE --perfetto FILE\n");
	fprintf(out, "  not modelled:");
	for (size_t i = 0; i < jlen(jget(fit, "not_modelled")); i++)
		fprintf(out, "%s %s", i ? ";" : "", ir_tsafe(jtext(jidx(jget(fit, "not_modelled"), i))));
	fputc('\n', out);
}

int ir_report_text(json_object *doc, FILE *out)
{
	json_object *t = jget(doc, "trace");
	const char *ol = jstr(doc, "open_loop", NULL);

	print_trace(t, out);
	print_domains(jget(doc, "domains"), out);
	ir_headlines_text(doc, out);
	print_assumptions(doc, out);
	print_warnings(doc, out);
	if (ol)
		fprintf(out, "NOTE: %s\n", ir_tsafe(ol));
	print_observed(jget(doc, "observed"), jint(t, "window_ns"), out);
	print_policies(doc, out);
	if (jget(jget(doc, "assumptions"), "load_balance_inputs"))
		fprintf(out, "\n  ASSUMED load_balance() inputs: %s\n",
			ir_tsafe(jstr(jget(doc, "assumptions"), "load_balance_inputs", "")));
	print_sweeps(doc, out);
	print_fidelity(doc, out);
	print_closed_loop(doc, out);
	return ferror(out) ? -1 : 0;
}

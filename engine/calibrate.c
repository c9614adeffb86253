/* SPDX-License-Identifier: GPL-2.0-only */
/* One calibration (document idlereplay.calibration/1): a trace's newidle
 * probes -> parameter distributions and the replay options they suggest;
 * without probes, the per-level costs (one cost_scale on the defaults) of
 * the recording kernel's model fitted to the trace's own observed newidle
 * pulls (model/costfit.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

struct cal_run {
	struct ir_calib *cal;
	uint64_t events;
	idlereplay_progress_fn *progress;
	void *arg;
};

static int feed(void *arg, const struct ir_event *ev)
{
	struct cal_run *r = arg;

	ir_calib_feed(r->cal, ev);
	if (!(++r->events & 0xffff) && r->progress)
		r->progress(r->arg, r->events, 0);
	return 0;
}

static json_object *stats_obj(const struct ir_calib_stats *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "n", json_object_new_int64((int64_t)s->n));
	json_object_object_add(o, "min", json_object_new_int64((int64_t)s->min));
	json_object_object_add(o, "p10", json_object_new_int64((int64_t)s->p10));
	json_object_object_add(o, "p50", json_object_new_int64((int64_t)s->p50));
	json_object_object_add(o, "p90", json_object_new_int64((int64_t)s->p90));
	json_object_object_add(o, "max", json_object_new_int64((int64_t)s->max));
	return o;
}

/* The probe's sd0..sd2 are the levels of the CPU it fired on, lowest first:
 * they have names only if every CPU has the same levels (SPEC 4). */
static int level_kinds(struct idlereplay *ir, const struct ir_domains *dom, int nr_cpus)
{
	int n = ir_domains_nr_levels(dom, 0);

	for (int c = 1; c < nr_cpus; c++) {
		bool same = ir_domains_nr_levels(dom, c) == n;

		for (int l = 0; same && l < n && l < 3; l++)
			same = ir_domains_level(dom, c, l)->kind == ir_domains_level(dom, 0, l)->kind;
		if (!same)
			return ir_engine_fail(ir, IR_ERR_INPUT, "%s: CPU %d's sched domain levels differ from CPU 0's: "
					      "the probed levels sd0..sd2 have no one name", ir->path, c);
	}
	return IR_OK;
}

/* An argument as a shell reads it back: single-quoted unless plainly safe. */
static void shell_arg(char *buf, size_t len, const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_,.=/:+-";

	snprintf(buf, len, !s[strspn(s, safe)] || strchr(s, '\'') ? "%s" : "'%s'", s);
}

static json_object *calib_doc(const char *path, const struct ir_trace_info *ti, const struct ir_domains *dom,
			      const struct ir_calib_stats *st, uint64_t calls, const char *topo_arg)
{
	json_object *doc = json_object_new_object(), *stats = json_object_new_object();
	json_object *sugg = json_object_new_object(), *costs = json_object_new_object();
	char opt_line[4096], policy_kv[512] = "", topo[1200] = "";
	size_t n;

	json_object_object_add(doc, "schema", json_object_new_string(IR_CALIB_SCHEMA));
	json_object_object_add(doc, "trace", json_object_new_string(path));
	json_object_object_add(doc, "kernel", json_object_new_string(ti->kernel));
	json_object_object_add(doc, "calls", json_object_new_int64((int64_t)calls));
	for (int k = 0; k < IR_CALIB__COUNT; k++)
		json_object_object_add(stats, ir_calib_name[k], stats_obj(&st[k]));
	json_object_object_add(doc, "stats", stats);

	for (int l = 0; l < 3 && l < ir_domains_nr_levels(dom, 0); l++) {
		const struct ir_sched_domain *sd = ir_domains_level(dom, 0, l);
		size_t n = strlen(policy_kv);

		if (!st[IR_CALIB_SD0 + l].n)
			continue;
		json_object_object_add(costs, ir_level_name[sd->kind],
				       json_object_new_int64((int64_t)st[IR_CALIB_SD0 + l].p50));
		snprintf(policy_kv + n, sizeof(policy_kv) - n, "%s%s.max_newidle_lb_cost=%llu",
			 n ? "," : "", ir_level_key(sd->kind), (unsigned long long)st[IR_CALIB_SD0 + l].p50);
	}
	/* A complete command: the topology the levels were named by, the
	 * measured medians, and every policy with the measured costs. */
	if (topo_arg) {
		char q[1100];

		shell_arg(q, sizeof(q), topo_arg);
		snprintf(topo, sizeof(topo), "--topology %s ", q);
	}
	n = (size_t)snprintf(opt_line, sizeof(opt_line), "%s--max-idle-balance-cost %llu --newidle-lead %llu", topo,
			     (unsigned long long)st[IR_CALIB_MAX_IDLE_BALANCE_COST].p50,
			     (unsigned long long)st[IR_CALIB_LEAD].p50);
	for (int k = 0; policy_kv[0] && k < IR_POL__COUNT && n < sizeof(opt_line); k++)
		n += (size_t)snprintf(opt_line + n, sizeof(opt_line) - n, " --policy %s:%s",
				      ir_policy_name((enum ir_policy_kind)k), policy_kv);
	json_object_object_add(sugg, "max_newidle_lb_cost", costs);
	json_object_object_add(sugg, "max_idle_balance_cost",
			       json_object_new_int64((int64_t)st[IR_CALIB_MAX_IDLE_BALANCE_COST].p50));
	json_object_object_add(sugg, "newidle_lead_ns", json_object_new_int64((int64_t)st[IR_CALIB_LEAD].p50));
	json_object_object_add(sugg, "replay_options", json_object_new_string(opt_line));
	json_object_object_add(doc, "suggested", sugg);
	return doc;
}

/* The cost_scale grid, permille: 1/8x .. 16384x the assumed defaults. */
#define NR_SCALES 18

static const char *const fit_verdict[] = {
	"fitted", "lower bound only: the kernel pulled nothing",
	"upper bound: the model pulls fewer than observed even at the lowest costs",
	"no information: nothing observed and nothing predicted at any cost",
	"lower bound: the model pulls more than observed even at the highest costs",
};

/* Replay the trace with the model of its kernel at every scale of the grid,
 * in one pass (a sweep per scale), on a handle of our own: its report
 * document stays in memory. */
static int replay_grid(struct idlereplay *ir, const char *name, enum ir_policy_kind kind,
		       const uint64_t *scale, idlereplay_progress_fn *progress, void *arg, idlereplay **out)
{
	idlereplay *sub = idlereplay_new();
	char sweep[128];
	int ret = IR_OK;

	*out = sub;
	if (!sub)
		return ir_engine_fail(ir, IR_ERR_INPUT, "out of memory");
	idlereplay_on_warning(sub, ir->warn, ir->warn_arg);
	if (ir->topo_arg)
		ret = idlereplay_set(sub, "topology", ir->topo_arg);
	for (int i = 0; i < NR_SCALES && !ret; i++) {
		/* NI_RANDOM draws: average several seeds rather than trust one */
		snprintf(sweep, sizeof(sweep), "%s%s.cost_scale=%llu:%llu:1", name,
			 kind == IR_POL_PROPORTIONAL ? ":seeds=8" : "",
			 (unsigned long long)scale[i], (unsigned long long)scale[i]);
		ret = idlereplay_set(sub, "sweep", sweep);
	}
	if (!ret && !(ret = idlereplay_open(sub, ir->path)))
		ret = idlereplay_run(sub, progress, arg);
	if (ret)
		ir_engine_fail(ir, ret, "%s", sub->err);
	return ret;
}

static json_object *fit_doc(const char *path, const struct ir_trace_info *ti, const char *name,
			    json_object *report, const uint64_t *scale, const double *pred,
			    double observed, const struct ir_cost_fit *fit, const char *topo_arg)
{
	json_object *res = json_object_new_object(), *g = json_object_new_array();
	char opt_line[1400], topo[1200] = "";

	json_object_object_add(res, "schema", json_object_new_string(IR_CALIB_SCHEMA));
	json_object_object_add(res, "trace", json_object_new_string(path));
	json_object_object_add(res, "kernel", json_object_new_string(ti->kernel));
	json_object_object_add(res, "method", json_object_new_string("observed_pulls"));
	json_object_object_add(res, "policy", json_object_new_string(name));
	json_object_object_add(res, "observed_pulls", json_object_new_double(observed));
	json_object_object_add(res, "newidle_points",
			       json_object_get(json_object_object_get(json_object_object_get(report, "fidelity"), "points")));
	for (int i = 0; i < NR_SCALES; i++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "cost_scale", json_object_new_int64((int64_t)scale[i]));
		json_object_object_add(x, "predicted_pulls", json_object_new_double(pred[i]));
		json_object_array_add(g, x);
	}
	json_object_object_add(res, "grid", g);
	json_object_object_add(res, "status", json_object_new_string(fit_verdict[fit->status]));
	json_object_object_add(res, "cost_scale", fit->scale < 0 ? NULL : json_object_new_double(fit->scale));
	json_object_object_add(res, "cost_scale_lo", fit->lo < 0 ? NULL : json_object_new_double(fit->lo));
	json_object_object_add(res, "cost_scale_hi", fit->hi < 0 ? NULL : json_object_new_double(fit->hi));
	if (fit->scale >= 0) {
		/* a complete command: the topology the replay used, then the fit */
		if (topo_arg) {
			char q[1100];

			shell_arg(q, sizeof(q), topo_arg);
			snprintf(topo, sizeof(topo), "--topology %s ", q);
		}
		snprintf(opt_line, sizeof(opt_line), "%s--policy %s:cost_scale=%.0f", topo, name, fit->scale);
		json_object_object_add(res, "replay_options", json_object_new_string(opt_line));
	}
	return res;
}

/* A trace without probes: fit cost_scale to its observed newidle pulls. */
static int calibrate_unprobed(struct idlereplay *ir, const struct ir_trace_info *ti,
			      idlereplay_progress_fn *progress, void *arg)
{
	enum ir_policy_kind kind = ir_policy_for_trace(ti->kernel_major, ti->kernel_minor, ti->kernel_patch, NULL, false);
	const char *name = ir_policy_name(kind);
	uint64_t scale[NR_SCALES];
	double pred[NR_SCALES], observed;
	struct ir_cost_fit fit;
	json_object *doc, *sw;
	idlereplay *sub;
	int ret;

	for (int i = 0; i < NR_SCALES; i++)
		scale[i] = 125ull << i;
	if ((ret = replay_grid(ir, name, kind, scale, progress, arg, &sub)))
		goto out;
	doc = sub->doc;
	sw = json_object_object_get(doc, "sweeps");
	observed = (double)json_object_get_int64(json_object_object_get(
		json_object_object_get(doc, "observed"), "newidle_pulls"));
	for (int i = 0; i < NR_SCALES; i++) {
		json_object *pt = json_object_array_get_idx(json_object_object_get(
			json_object_array_get_idx(sw, (size_t)i), "points"), 0);

		pred[i] = (double)json_object_get_int64(json_object_object_get(pt, "pulls"));
	}
	ir_cost_fit(scale, pred, NR_SCALES, observed, &fit);
	ir->doc = fit_doc(ir->path, ti, name, doc, scale, pred, observed, &fit, ir->topo_arg);
	ret = ir->json_path ? idlereplay_write(ir, "json", ir->json_path) : IR_OK;
out:
	idlereplay_free(sub);
	return ret;
}

int idlereplay_calibrate(idlereplay *ir, idlereplay_progress_fn *progress, void *arg)
{
	const struct ir_trace_info *ti;
	struct cal_run run = { .progress = progress, .arg = arg };
	struct ir_calib_stats st[IR_CALIB__COUNT];
	struct ir_topology *topo = NULL;
	struct ir_domains *dom = NULL;
	const char *topo_source;
	uint64_t calls;
	int ret;

	ir->err[0] = 0;
	if (!ir->tr)
		return ir_engine_fail(ir, IR_ERR_USAGE, "no trace open");
	if (ir->ran)
		return ir_engine_fail(ir, IR_ERR_USAGE, "%s: the trace was read already", ir->path);
	ir->ran = true;
	ti = ir_trace_info(ir->tr);
	if (!ti->has_probes)
		return calibrate_unprobed(ir, ti, progress, arg);
	if ((ret = ir_engine_domains(ir, ir->topo_arg, ti, &topo, &dom, &topo_source)))
		goto out;
	if (!strcmp(topo_source, "flat")) {
		ret = ir_engine_fail(ir, IR_ERR_USAGE, "%s: the trace records no topology, so the probed levels "
				     "sd0..sd2 cannot be named: give --topology FILE|SPEC of the machine that recorded it",
				     ir->path);
		goto out;
	}
	if ((ret = level_kinds(ir, dom, ti->nr_cpus)))
		goto out;
	run.cal = ir_calib_new(ti->nr_cpus);
	if (!run.cal) {
		ret = ir_engine_fail(ir, IR_ERR_INPUT, "out of memory");
		goto out;
	}
	if ((ret = ir_trace_run(ir->tr, feed, &run, ir->err, sizeof(ir->err))))
		goto out;
	if (ir_calib_result(run.cal, st, &calls)) {
		ret = ir_engine_fail(ir, IR_ERR_INPUT, "%s: out of memory keeping probe samples", ir->path);
		goto out;
	}
	ir->doc = calib_doc(ir->path, ti, dom, st, calls, ir->topo_arg);
	ret = ir->json_path ? idlereplay_write(ir, "json", ir->json_path) : IR_OK;
out:
	ir_calib_free(run.cal);
	ir_domains_free(dom);
	ir_topology_free(topo);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one place that builds the JSON report (schema idlereplay.report/1,
 * described by report/schema.json).  Keys are stable; additions bump
 * schema_minor.  Numbers are integers in nanoseconds unless named otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "report/util.h"

static json_object *trace_obj(const struct ir_report_input *in)
{
	const struct ir_trace_info *ti = in->trace;
	json_object *t = json_object_new_object(), *ev = json_object_new_object();
	json_object *lost = json_object_new_array();
	uint64_t total_lost = 0;

	json_object_object_add(t, "path", json_object_new_string(ti->path));
	json_object_object_add(t, "kernel", json_object_new_string(ti->kernel));
	json_object_object_add(t, "hostname", json_object_new_string(ti->hostname));	/* "" unknown */
	json_object_object_add(t, "clock", json_object_new_string(ti->clock));
	json_object_object_add(t, "file_version", json_object_new_int(ti->file_version));
	json_object_object_add(t, "cpus", json_object_new_int(ti->nr_cpus));
	for (int i = 0; i < in->nr_events; i++)
		json_object_object_add(ev, in->events[i].name, u64(in->events[i].count));
	json_object_object_add(t, "events", ev);
	json_object_object_add(t, "events_total", u64(ti->events_total));
	json_object_object_add(t, "window_ns", u64(in->obs->window_end - in->obs->window_start));
	json_object_object_add(t, "first_ts", u64(in->obs->window_start));
	json_object_object_add(t, "last_ts", u64(in->obs->window_end));
	for (int i = 0; i < ti->nr_cpus && ti->loss; i++) {
		const struct ir_cpu_loss *l = &ti->loss[i];
		json_object *o;

		if (!l->overrun && !l->dropped && !l->missed && !l->missed_unknown)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "cpu", json_object_new_int(l->cpu));
		json_object_object_add(o, "overrun", u64(l->overrun));
		json_object_object_add(o, "dropped", u64(l->dropped));
		json_object_object_add(o, "missed", u64(l->missed));
		json_object_object_add(o, "missed_unknown_count", u64(l->missed_unknown));
		json_object_object_add(o, "first_ts", u64(l->first_ts));
		json_object_object_add(o, "last_ts", u64(l->last_ts));
		json_object_array_add(lost, o);
		for (int k = 0; k < 3; k++) {	/* saturating: the counts come from the file */
			uint64_t a = k == 0 ? l->overrun : k == 1 ? l->dropped : l->missed;

			total_lost = a > UINT64_MAX - total_lost ? UINT64_MAX : total_lost + a;
		}
	}
	json_object_object_add(t, "lost_events", u64(total_lost));
	json_object_object_add(t, "lost_by_cpu", lost);
	json_object_object_add(t, "has_waking", json_object_new_boolean(ti->has_waking));
	json_object_object_add(t, "has_probes", json_object_new_boolean(ti->has_probes));
	return t;
}

static json_object *observed_obj(const struct ir_report_input *in)
{
	const struct ir_observed *ob = in->obs;
	json_object *o = json_object_new_object(), *cpus = json_object_new_array();
	json_object *mig = json_object_new_object(), *by = json_object_new_object();
	json_object *an = json_object_new_object();

	for (int c = 0; c < ob->nr_cpus; c++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "cpu", json_object_new_int(c));
		json_object_object_add(x, "idle_ns", u64(ob->cpu[c].idle_ns));
		json_object_object_add(x, "busy_ns", u64(ob->cpu[c].busy_ns));
		json_object_object_add(x, "idle_entries", u64(ob->cpu[c].idle_entries));
		json_object_object_add(x, "newidle_points", u64(ob->cpu[c].newidle_points));
		json_object_object_add(x, "newidle_pulls", u64(ob->cpu[c].newidle_pulls));
		json_object_array_add(cpus, x);
	}
	json_object_object_add(o, "cpus", cpus);
	json_object_object_add(o, "idle_while_waiting_ns", u64(ob->idle_while_waiting_ns));
	json_object_object_add(mig, "total", u64(ob->migrations));
	for (int i = 0; i < IR_MIG__COUNT; i++)
		json_object_object_add(by, ir_mig_cause_name[i], u64(ob->mig_by_cause[i]));
	json_object_object_add(mig, "by_cause", by);
	json_object_object_add(o, "migrations", mig);
	json_object_object_add(o, "newidle_points", u64(ob->newidle_points));
	json_object_object_add(o, "newidle_pulls", u64(ob->newidle_pulls));
	json_object_object_add(o, "ttwu_pending_points", u64(ob->ttwu_pending_points));
	for (int i = 0; i < IR_ANOM__COUNT; i++)
		json_object_object_add(an, ir_anomaly_name[i], u64(ob->anomalies[i]));
	json_object_object_add(o, "anomalies", an);
	return o;
}

static json_object *assumptions_obj(const struct ir_state_params *p)
{
	json_object *a = json_object_new_object();

	json_object_object_add(a, "sched_migration_cost_ns", u64(p->sched_migration_cost));
	json_object_object_add(a, "max_idle_balance_cost_ns", u64(p->max_idle_balance_cost));
	json_object_object_add(a, "avg_idle_init_ns", u64(p->avg_idle_init));
	json_object_object_add(a, "jiffy_ns", u64(p->tick_ns));
	/* Deprecated alias, kept so readers of schema_minor <= 4 still find it:
	 * it always held this value.  Removing it is a schema major change. */
	json_object_object_add(a, "overload_tick_ns", u64(p->tick_ns));
	json_object_object_add(a, "overload_balance_interval_ns", u64(p->balance_interval_ns));
	json_object_object_add(a, "overload_busy_factor", u64(p->busy_factor));
	json_object_object_add(a, "avg_idle_shift", json_object_new_boolean(p->avg_idle_shift));
	json_object_object_add(a, "probe_seed", json_object_new_boolean(p->probe_seed));
	json_object_object_add(a, "load_balance_inputs", json_object_new_string(IR_LB_ASSUMPTIONS));
	return a;
}

static json_object *levels_obj(const struct ir_tally *t, int what, const struct ir_tally *ref)
{
	json_object *o = json_object_new_object();

	for (int l = 0; l < IR_LVL__COUNT; l++) {
		const struct ir_tally_level *x = &t->level[l];
		int64_t v;

		if (!x->attempts && !x->pulls && !(ref && ref->level[l].pulls))
			continue;
		v = what == 0 ? (int64_t)x->attempts : what == 1 ? (int64_t)x->pulls :
			what == 2 ? (int64_t)x->cost_ns : what == 4 ? (int64_t)x->moved :
			(int64_t)ref->level[l].pulls - (int64_t)x->pulls;
		json_object_object_add(o, ir_level_name[l], json_object_new_int64(v));
	}
	return o;
}

/* "k=v,k=v" from ir_policy_params_format() as an object of numbers. */
static json_object *params_obj(const char *s)
{
	json_object *o = json_object_new_object();
	char buf[1024], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		char *end;
		long long v;

		if (!eq)
			continue;
		*eq = 0;
		v = strtoll(eq + 1, &end, 10);
		json_object_object_add(o, kv, *end ? json_object_new_string(eq + 1) : json_object_new_int64(v));
	}
	return o;
}

static json_object *spread_obj(const struct ir_spread *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "mean", json_object_new_double(s->mean));
	json_object_object_add(o, "p5", json_object_new_double(s->p5));
	json_object_object_add(o, "p95", json_object_new_double(s->p95));
	return o;
}

/* A randomised policy: expected values and their 5-95 % spread over seeds. */
static json_object *seeds_obj(const struct ir_tally *t)
{
	json_object *o = json_object_new_object();
	static const char *const key[3] = { "attempts_by_level", "pulls_by_level", "moved_by_level" };

	json_object_object_add(o, "n", json_object_new_int(t->nr_seeds));
	json_object_object_add(o, "attempts", spread_obj(&t->s_attempts));
	json_object_object_add(o, "pulls", spread_obj(&t->s_pulls));
	json_object_object_add(o, "moved", spread_obj(&t->s_moved));
	for (int i = 0; i < 3; i++) {
		json_object *x = json_object_new_object();

		for (int l = 0; l < IR_LVL__COUNT; l++) {
			const struct ir_spread *sp = i == 0 ? &t->s_level_attempts[l] : i == 1 ?
				&t->s_level_pulls[l] : &t->s_level_moved[l];

			if (t->level[l].attempts || t->s_level_attempts[l].p95 > 0)
				json_object_object_add(x, ir_level_name[l], spread_obj(sp));
		}
		json_object_object_add(o, key[i], x);
	}
	return o;
}

static json_object *policy_obj(const struct ir_tally *t, const struct ir_tally *ref)
{
	json_object *o = json_object_new_object(), *x, *cpus = json_object_new_array();

	json_object_object_add(o, "name", json_object_new_string(t->name));
	json_object_object_add(o, "label", json_object_new_string(t->label));
	json_object_object_add(o, "params", params_obj(t->params));
	json_object_object_add(o, "newidle_points", u64(t->points));
	x = json_object_new_object();
	json_object_object_add(x, "total", u64(t->attempts));
	json_object_object_add(x, "by_level", levels_obj(t, 0, NULL));
	json_object_object_add(o, "attempts", x);
	x = json_object_new_object();
	for (int b = 1; b < IR_BAIL__COUNT; b++)
		json_object_object_add(x, ir_bail_name[b], u64(t->bails[b]));
	json_object_object_add(o, "bails", x);
	x = json_object_new_object();
	json_object_object_add(x, "total", u64(t->pulls));
	json_object_object_add(x, "by_level", levels_obj(t, 1, NULL));
	json_object_object_add(o, "pulls", x);
	x = json_object_new_object();
	json_object_object_add(x, "total", u64(t->moved));
	json_object_object_add(x, "by_level", levels_obj(t, 4, NULL));
	json_object_object_add(o, "moved", x);
	if (t->nr_seeds > 1)
		json_object_object_add(o, "seeds", seeds_obj(t));
	json_object_object_add(o, "idle_recovered_ns", u64(t->idle_recovered_ns));
	json_object_object_add(o, "idle_lost_ns", u64(t->idle_lost_ns));
	json_object_object_add(o, "balance_cost_ns", u64(t->cost_ns));
	json_object_object_add(o, "balance_cost_by_level", levels_obj(t, 2, NULL));
	if (ref) {
		x = json_object_new_object();
		json_object_object_add(x, "total", json_object_new_int64((int64_t)ref->pulls - (int64_t)t->pulls));
		json_object_object_add(x, "by_level", levels_obj(t, 3, ref));
		json_object_object_add(o, "migrations_avoided", x);
		json_object_object_add(o, "idle_traded_ns",
				       json_object_new_int64((int64_t)t->idle_lost_ns - (int64_t)ref->idle_lost_ns));
	}
	for (int c = 0; c < t->nr_cpus; c++) {
		const struct ir_tally_cpu *tc = &t->cpu[c];

		x = json_object_new_object();
		json_object_object_add(x, "cpu", json_object_new_int(c));
		json_object_object_add(x, "pulls", u64(tc->pulls));
		json_object_object_add(x, "attempts", u64(tc->attempts));
		json_object_object_add(x, "idle_recovered_ns", u64(tc->idle_recovered_ns));
		json_object_object_add(x, "idle_lost_ns", u64(tc->idle_lost_ns));
		json_object_object_add(x, "balance_cost_ns", u64(tc->cost_ns));
		json_object_array_add(cpus, x);
	}
	json_object_object_add(o, "per_cpu", cpus);
	return o;
}

static json_object *ratio(uint64_t a, uint64_t b)
{
	return b ? json_object_new_double((double)a / (double)b) : NULL;
}

static void add_policies(json_object *doc, const struct ir_tallies *ts)
{
	const struct ir_tally *ref = ts->reference >= 0 ? &ts->t[ts->reference] : NULL;
	json_object *pols = json_object_new_array(), *sweeps = json_object_new_array();

	json_object_object_add(doc, "reference", ref ? json_object_new_string(ref->label) : NULL);
	for (int i = 0; i < ts->n; i++)
		if (ts->t[i].sweep < 0)
			json_object_array_add(pols, policy_obj(&ts->t[i], ref));
	json_object_object_add(doc, "policies", pols);
	for (int s = 0; s < ts->nr_sweeps; s++) {
		const struct ir_sweep *sw = &ts->sweeps[s];
		json_object *o = json_object_new_object(), *pts = json_object_new_array();

		json_object_object_add(o, "policy", json_object_new_string(sw->policy));
		json_object_object_add(o, "param", json_object_new_string(sw->param));
		for (int i = sw->first; i < sw->first + sw->n; i++) {
			const struct ir_tally *t = &ts->t[i];
			json_object *p = json_object_new_object();

			json_object_object_add(p, "value", u64(t->sweep_value));
			json_object_object_add(p, "pulls", u64(t->pulls));
			json_object_object_add(p, "idle_lost_ns", u64(t->idle_lost_ns));
			json_object_object_add(p, "idle_recovered_ns", u64(t->idle_recovered_ns));
			json_object_object_add(p, "balance_cost_ns", u64(t->cost_ns));
			json_object_object_add(p, "attempts", u64(t->attempts));
			json_object_array_add(pts, p);
		}
		json_object_object_add(o, "points", pts);
		json_object_array_add(sweeps, o);
	}
	json_object_object_add(doc, "sweeps", sweeps);
	if (ts->fidelity >= 0) {
		const struct ir_tally *t = &ts->t[ts->fidelity];
		json_object *f = json_object_new_object();

		json_object_object_add(f, "policy", json_object_new_string(t->label));
		json_object_object_add(f, "points", u64(t->points));
		json_object_object_add(f, "observed_pulls", u64(t->observed));
		json_object_object_add(f, "predicted_pulls", u64(t->predicted));
		json_object_object_add(f, "true_positives", u64(t->true_pos));
		json_object_object_add(f, "precision", ratio(t->true_pos, t->predicted));
		json_object_object_add(f, "recall", ratio(t->true_pos, t->observed));
		json_object_object_add(f, "costs", json_object_new_string(ts->costs ? ts->costs : "assumed"));
		if (t->nr_seeds > 1)
			json_object_object_add(f, "expected_pulls", spread_obj(&t->s_pulls));
		json_object_object_add(f, "verdict", json_object_new_string(
			!t->observed && !t->predicted ? "cannot judge: no newidle pull observed or predicted" :
			!t->observed ? "cannot judge precision: the kernel made no newidle pull here" :
			"judged"));
		json_object_object_add(doc, "fidelity", f);
	}
}

static json_object *domains_obj(const struct ir_domains *d, const char *source)
{
	json_object *o = json_object_new_object(), *levels = json_object_new_array();
	json_object *cpus = json_object_new_array();
	bool seen[IR_LVL__COUNT] = { false };
	int n = ir_domains_nr_cpus(d);

	json_object_object_add(o, "source", json_object_new_string(source ? source : "unknown"));
	for (int c = 0; c < n; c++) {
		json_object *x = json_object_new_object(), *ls = json_object_new_array();

		json_object_object_add(x, "cpu", json_object_new_int(c));
		for (int l = 0; l < ir_domains_nr_levels(d, c); l++) {
			const struct ir_sched_domain *sd = ir_domains_level(d, c, l);
			json_object *y = json_object_new_object();
			char span[1024];

			seen[sd->kind] = true;
			ir_cpulist_format(sd->span, n, span, sizeof(span));
			json_object_object_add(y, "name", json_object_new_string(sd->name));
			json_object_object_add(y, "span", json_object_new_string(span));
			json_object_array_add(ls, y);
		}
		json_object_object_add(x, "levels", ls);
		json_object_array_add(cpus, x);
	}
	for (int l = 0; l < IR_LVL__COUNT; l++)
		if (seen[l])
			json_object_array_add(levels, json_object_new_string(ir_level_name[l]));
	json_object_object_add(o, "levels", levels);
	json_object_object_add(o, "cpus", cpus);
	return o;
}

static json_object *num_or_null(double v)
{
	return v < 0 ? NULL : json_object_new_double(v);
}

static json_object *truth_obj(const struct ir_truth *t, const struct ir_observed *ob)
{
	json_object *o = json_object_new_object(), *e = json_object_new_object();
	json_object *exp = json_object_new_object(), *act = json_object_new_object();

	json_object_object_add(o, "mode", json_object_new_string(t->probed ? "probed" : "assumed"));
	json_object_object_add(o, "policy", json_object_new_string(t->policy));
	json_object_object_add(o, "calls", u64(ob->probe_calls));
	json_object_object_add(o, "matched_points", u64(ob->probe_matched));
	json_object_object_add(o, "point_precision", ratio(ob->probe_matched, ob->newidle_points));
	json_object_object_add(o, "point_recall", ratio(ob->probe_matched, ob->probe_calls));
	json_object_object_add(o, "probe_only_points", u64(ob->probe_only_points));
	json_object_object_add(e, "median", num_or_null(ir_truth_err_quantile(t, 0.5)));
	json_object_object_add(e, "p90", num_or_null(ir_truth_err_quantile(t, 0.9)));
	json_object_object_add(e, "samples", u64(t->err_n));
	json_object_object_add(o, "avg_idle_rel_error", e);
	json_object_object_add(o, "overload_agreement", ratio(t->ovl_agree, t->ovl_n));
	json_object_object_add(o, "early_bail_agreement", ratio(t->bail_agree, t->bail_n));
	if (t->randomised) {
		/* expected values: ratios of the means over seeds, not of seed 0's draw */
		json_object_object_add(o, "pull_precision", t->pull_pred_seeds.mean > 0 ?
			json_object_new_double(t->pull_tp_mean / t->pull_pred_seeds.mean) : NULL);
		json_object_object_add(o, "pull_recall", t->pull_obs ?
			json_object_new_double(t->pull_tp_mean / (double)t->pull_obs) : NULL);
	} else {
		json_object_object_add(o, "pull_precision", ratio(t->pull_tp, t->pull_pred));
		json_object_object_add(o, "pull_recall", ratio(t->pull_tp, t->pull_obs));
	}
	/* every call that pulled, as the kretprobe says; pull recall above is
	 * over the calls matched to a point */
	json_object_object_add(o, "kernel_pulls", u64(ob->probe_pulls));
	json_object_object_add(o, "predicted_pulls", u64(t->pull_pred));
	if (t->randomised)	/* predicted_pulls above is this mean, rounded */
		json_object_object_add(o, "expected_pulls", spread_obj(&t->pull_pred_seeds));
	for (int l = 0; l < IR_LVL__COUNT; l++) {
		if (t->expected[l] > 0 || t->actual[l]) {
			json_object_object_add(exp, ir_level_name[l], json_object_new_double(t->expected[l]));
			json_object_object_add(act, ir_level_name[l], u64(t->actual[l]));
		}
	}
	json_object_object_add(o, "expected_pulls_by_level", exp);
	json_object_object_add(o, "actual_pulls_by_level", act);
	return o;
}

/* Each lane's pulls per bucket, named by its policy's label. */
static json_object *lanes_obj(const struct ir_timeline_view *v, const struct ir_tallies *ts)
{
	json_object *a = json_object_new_array();

	for (int i = 0; ts && i < ts->n; i++) {
		int l = ir_tallies_lane(ts, i);
		json_object *x, *pu;
		size_t base;

		if (l < 0 || l >= v->nr_lanes)
			continue;
		x = json_object_new_object();
		pu = json_object_new_array();
		base = (size_t)(v->nr_cpus + l) * (size_t)v->stride;
		for (int b = 0; b < v->n; b++)
			json_object_array_add(pu, u64(v->pulls[base + b]));
		json_object_object_add(x, "label", json_object_new_string(ts->t[i].label));
		json_object_object_add(x, "pulls", pu);
		json_object_array_add(a, x);
	}
	return a;
}

/* The anomalies a timeline marks: the repairs and losses (SPEC 9). */
static const enum ir_anomaly marked[] = { IR_ANOM_MISSING_IDLE_EXIT, IR_ANOM_MISSING_IDLE_ENTRY,
					  IR_ANOM_LOST_EVENTS, IR_ANOM_QUEUED_NOT_PICKED };

static json_object *marks_obj(const struct ir_timeline *tl)
{
	json_object *o = json_object_new_object();

	for (size_t k = 0; k < sizeof(marked) / sizeof(marked[0]); k++) {
		json_object *x = json_object_new_object(), *l = json_object_new_array();
		uint64_t total;
		int n;
		const struct ir_timeline_mark *m = ir_timeline_marks(tl, marked[k], &n, &total);

		for (int i = 0; i < n; i++) {
			json_object *e = json_object_new_object();

			json_object_object_add(e, "ts_ns", u64(m[i].ts));
			json_object_object_add(e, "cpu", json_object_new_int(m[i].cpu));
			json_object_array_add(l, e);
		}
		json_object_object_add(x, "total", u64(total));
		json_object_object_add(x, "not_listed", u64(total - (uint64_t)n));
		json_object_object_add(x, "listed", l);
		json_object_object_add(o, ir_anomaly_name[marked[k]], x);
	}
	return o;
}

static json_object *series_obj(const struct ir_timeline_view *v, const struct ir_tallies *ts)
{
	json_object *o = json_object_new_object(), *cpus = json_object_new_array();

	json_object_object_add(o, "start_ns", u64(v->start));
	json_object_object_add(o, "end_ns", u64(v->end));
	json_object_object_add(o, "bucket_ns", u64(v->bucket));
	for (int c = 0; c < v->nr_cpus; c++) {
		json_object *x = json_object_new_object(), *busy = json_object_new_array();
		json_object *ni = json_object_new_array(), *pu = json_object_new_array();
		size_t base = (size_t)c * (size_t)v->stride;

		for (int b = 0; b < v->n; b++) {
			double f = v->busy[base + b] / (double)v->bucket;
			char txt[16];

			f = f < 0 ? 0 : f > 1 ? 1 : f;
			snprintf(txt, sizeof(txt), "%.3f", f);	/* short JSON: 3 digits are plenty for a picture */
			json_object_array_add(busy, json_object_new_double_s(f, txt));
			json_object_array_add(ni, u64(v->newidle[base + b]));
			json_object_array_add(pu, u64(v->pulls[base + b]));
		}
		json_object_object_add(x, "cpu", json_object_new_int(c));
		json_object_object_add(x, "busy", busy);
		json_object_object_add(x, "newidle", ni);
		json_object_object_add(x, "pulls", pu);
		json_object_array_add(cpus, x);
	}
	json_object_object_add(o, "cpus", cpus);
	json_object_object_add(o, "policies", lanes_obj(v, ts));
	return o;
}

static json_object *timeline_obj(const struct ir_timeline *tl, uint64_t end, const struct ir_tallies *ts)
{
	struct ir_timeline_view v;
	json_object *o;

	if (ir_timeline_get(tl, false, end, &v))
		return NULL;
	o = series_obj(&v, ts);
	if (!ir_timeline_get(tl, true, end, &v))
		json_object_object_add(o, "detail", series_obj(&v, ts));
	json_object_object_add(o, "anomalies", marks_obj(tl));
	return o;
}

json_object *ir_report_json(const struct ir_report_input *in)
{
	json_object *doc = json_object_new_object();

	if (!doc)
		return NULL;
	json_object_object_add(doc, "schema", json_object_new_string(IR_REPORT_SCHEMA));
	json_object_object_add(doc, "schema_minor", json_object_new_int(IR_REPORT_SCHEMA_MINOR));
	json_object_object_add(doc, "generator", json_object_new_string("idlereplay " IDLEREPLAY_VERSION));
	json_object_object_add(doc, "trace", trace_obj(in));
	json_object_object_add(doc, "assumptions", assumptions_obj(in->params));
	json_object_object_add(doc, "observed", observed_obj(in));
	if (in->domains)
		json_object_object_add(doc, "domains", domains_obj(in->domains, in->topology_source));
	if (in->tallies) {
		json_object_object_add(doc, "open_loop", json_object_new_string(
			"Policy figures are open-loop estimates: each policy is asked at the newidle points of "
			"the recorded schedule, which is assumed to stay as recorded; they are not a re-run."));
		add_policies(doc, in->tallies);
	}
	if (in->truth)
		json_object_object_add(doc, "ground_truth", truth_obj(in->truth, in->obs));
	if (in->timeline) {
		json_object *tl = timeline_obj(in->timeline, in->obs->window_end, in->tallies);

		if (tl)
			json_object_object_add(doc, "timeline", tl);
	}
	return doc;
}

int ir_report_write_json(json_object *doc, const char *path)
{
	const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	struct ir_out o;

	if (ir_out_open(&o, path))
		return -1;
	return ir_out_close(&o, fputs(s, o.f) != EOF && fputc('\n', o.f) != EOF);
}

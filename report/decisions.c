/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --decisions: one JSON line per newidle point, for auditing a surprising
 * number: the reconstructed state, every policy's decision and outcome,
 * and the probed truth where there is one.
 */
#include <stdio.h>

#include "report/report.h"

static const char *const kind_name[] = { "idle", "pulled", "late" };

static json_object *i64(int64_t v)
{
	return json_object_new_int64(v);
}

int ir_decisions_line(FILE *f, const struct ir_point *pt, const struct ir_decision_ctx *ctx,
		      const struct ir_tally *tallies, const struct ir_decision *d,
		      const struct ir_outcome *o, int n)
{
	json_object *l = json_object_new_object(), *cands = json_object_new_array();
	json_object *pols = json_object_new_array();
	int ret;

	json_object_object_add(l, "ts", i64((int64_t)pt->ts));
	json_object_object_add(l, "cpu", json_object_new_int(pt->cpu));
	json_object_object_add(l, "kind", json_object_new_string(kind_name[pt->kind]));
	json_object_object_add(l, "avg_idle", i64((int64_t)pt->avg_idle));
	json_object_object_add(l, "max_idle_balance_cost", i64((int64_t)pt->max_idle_balance_cost));
	json_object_object_add(l, "overload", json_object_new_boolean(pt->overload));
	json_object_object_add(l, "overload_why", json_object_new_string(ir_overload_why_name[pt->overload_why]));
	/* the probability the reconstruction gives the flag (docs/fidelity-replay.md) */
	json_object_object_add(l, "overload_p", json_object_new_double(pt->overload_p));
	json_object_object_add(l, "idle_ns", i64((int64_t)pt->idle_ns));
	/* what stops or skips a walk besides the policy's own tests: a task
	 * queued this long after newidle entry, a pending wake-list wakeup */
	json_object_object_add(l, "arrival_ns", i64((int64_t)pt->arrival_ns));
	json_object_object_add(l, "ttwu_pending", json_object_new_boolean(pt->ttwu_pending));
	if (pt->kind == IR_PT_PULLED) {
		json_object_object_add(l, "pulled_pid", json_object_new_int(pt->pulled_pid));
		json_object_object_add(l, "pulled_from", json_object_new_int(pt->pulled_from));
	}
	for (int r = 0; r < pt->nr_levels && r < ctx->nr_levels; r++) {
		json_object *c;

		if (pt->ring[r].pid < 0)
			continue;
		c = json_object_new_object();
		json_object_object_add(c, "level", json_object_new_string(ir_level_name[ctx->kind[r]]));
		json_object_object_add(c, "pid", json_object_new_int(pt->ring[r].pid));
		json_object_object_add(c, "cpu", json_object_new_int(pt->ring[r].cpu));
		json_object_object_add(c, "nr_running", json_object_new_int((int)pt->ring[r].src_nr_running));
		json_object_object_add(c, "gain_ns", i64((int64_t)pt->ring[r].gain_ns));
		json_object_array_add(cands, c);
	}
	json_object_object_add(l, "candidates", cands);
	for (int i = 0; i < n; i++) {
		json_object *p, *tried;

		if (tallies[i].sweep >= 0)
			continue;
		p = json_object_new_object();
		tried = json_object_new_array();
		json_object_object_add(p, "policy", json_object_new_string(tallies[i].label));
		json_object_object_add(p, "bail", json_object_new_string(ir_bail_name[d[i].bail]));
		for (int k = 0; k < d[i].nr_tried; k++)
			json_object_array_add(tried, json_object_new_string(ir_level_name[d[i].kind[k]]));
		json_object_object_add(p, "tried", tried);
		json_object_object_add(p, "stop_level", d[i].stop_level >= 0 && d[i].stop_level < ctx->nr_levels ?
				       json_object_new_string(ir_level_name[ctx->kind[d[i].stop_level]]) : NULL);
		json_object_object_add(p, "pulled", json_object_new_boolean(o[i].pulled));
		if (o[i].pulled) {
			json_object_object_add(p, "level", json_object_new_string(ir_level_name[o[i].level_kind]));
			json_object_object_add(p, "pid", json_object_new_int(o[i].pid));
			json_object_object_add(p, "from_cpu", json_object_new_int(o[i].from_cpu));
			json_object_object_add(p, "moved", json_object_new_int(o[i].moved));
		}
		json_object_object_add(p, "attempts", json_object_new_int(o[i].attempts));
		json_object_object_add(p, "cost_ns", i64((int64_t)o[i].cost_ns));
		json_object_object_add(p, "idle_recovered_ns", i64((int64_t)o[i].idle_recovered_ns));
		json_object_object_add(p, "idle_lost_ns", i64((int64_t)o[i].idle_lost_ns));
		json_object_array_add(pols, p);
	}
	json_object_object_add(l, "policies", pols);
	if (pt->has_probe) {
		const struct ir_probe_entry *v = &pt->probe;
		json_object *pr = json_object_new_object(), *c = json_object_new_array(), *r = json_object_new_array();

		json_object_object_add(pr, "avg_idle", i64(v->avg_idle));
		json_object_object_add(pr, "max_idle_balance_cost", i64(v->max_idle_balance_cost));
		json_object_object_add(pr, "rd_overload", i64(v->rd_overload));
		json_object_object_add(pr, "nr_running", i64(v->nr_running));
		for (int k = 0; k < 3; k++) {
			json_object_array_add(c, i64(v->sd_max_newidle_lb_cost[k]));
			json_object_array_add(r, i64(v->sd_newidle_ratio[k]));
		}
		json_object_object_add(pr, "sd_max_newidle_lb_cost", c);
		json_object_object_add(pr, "sd_newidle_ratio", r);
		json_object_object_add(pr, "early_bail", json_object_new_boolean(ir_probe_early_bail(v)));
		json_object_object_add(pr, "ret", i64(pt->probe_ret));
		json_object_object_add(l, "probe", pr);
	}
	ret = fprintf(f, "%s\n", json_object_to_json_string_ext(l, JSON_C_TO_STRING_PLAIN)) < 0 ? -1 : 0;
	json_object_put(l);
	return ret;
}

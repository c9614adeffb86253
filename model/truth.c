/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the recording kernel did at a probed newidle call (SPEC 6, 8), in
 * the terms of our models, so the replay can be checked against it.
 *
 * v5.16+ newidle_balance() / v6.10+ sched_balance_newidle() bail out early
 * when !rd->overload or this_rq->avg_idle < this_rq->sd->max_newidle_lb_cost
 * (the lowest domain); the probe records both, so the kernel's early bail
 * is known exactly at every call.  ret > 0 means it pulled.
 */
#include <string.h>

#include "model/model.h"

bool ir_probe_early_bail(const struct ir_probe_entry *v)
{
	if (v->rd_overload == 0)
		return true;
	return v->sd_max_newidle_lb_cost[0] >= 0 && v->avg_idle >= 0 &&
		v->avg_idle < v->sd_max_newidle_lb_cost[0];
}

void ir_params_from_probe(const struct ir_point *pt, const struct ir_decision_ctx *ctx,
			  struct ir_policy_params *p)
{
	for (int l = 0; l < ctx->nr_levels && l < 3; l++)
		if (pt->probe.sd_max_newidle_lb_cost[l] >= 0)
			p->max_newidle_lb_cost[ctx->kind[l]] = (uint64_t)pt->probe.sd_max_newidle_lb_cost[l];
}

/*
 * Expected pulls per level kind under NI_RANDOM (v6.19 33cf66d88306): a level
 * is balanced when the die d1k = rng % 1024 is <= 1 + sd->newidle_ratio,
 * i.e. with probability (2 + ratio) / 1024, using the probed ratios.  The
 * first balanced level with a waiting task pulls.
 */
void ir_expected_pulls(const struct ir_point *pt, const struct ir_decision_ctx *ctx,
		       double expected[IR_LVL__COUNT])
{
	double p_none = 1.0;	/* probability nothing was pulled yet */
	bool cand = false;

	if (ir_probe_early_bail(&pt->probe))
		return;
	for (int l = 0; l < ctx->nr_levels && l < IR_MAX_LEVELS; l++) {
		int64_t ratio = l < 3 ? pt->probe.sd_newidle_ratio[l] : -1;
		double p_try = ratio < 0 ? 1.0 : (double)(2 + ratio) / 1024.0;

		if (p_try > 1.0)
			p_try = 1.0;
		cand |= pt->ring[l].pid >= 0;
		if (!cand)
			continue;
		expected[ctx->kind[l]] += p_none * p_try;
		p_none *= 1.0 - p_try;
	}
}

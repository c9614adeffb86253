/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The newidle decision of each policy (SPEC sections 1 and 2):
 *  baseline      v4.15 idle_balance() (kernel/sched/fair.c)
 *  domain-cost   Feb 2018 RFC "sched: Make idle_balance smarter about topology"
 *  no-check      Feb 2018 [PATCH v2] "sched/fair: Remove check in idle_balance
 *                against migration_cost"
 *  mainline      v5.16+ newidle_balance(), v6.10+ sched_balance_newidle()
 *  bump          v6.17 155213a2aed4 (state kept in ir_policy_state)
 *  proportional  v6.19 33cf66d88306, sched_feat(NI_RANDOM)
 * ir_decide() walks the domains assuming nothing is pulled; ir_outcome()
 * cuts the walk where a pull happens.  Pure: no I/O, globals or allocation.
 */
#include <stdlib.h>
#include <string.h>

#include "model/cpumask.h"

void ir_decision_ctx_init(struct ir_decision_ctx *ctx, const struct ir_point *pt,
			  const struct ir_domains *d)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->cpu = pt->cpu;
	ctx->now = pt->ts;
	ctx->avg_idle = pt->avg_idle;
	ctx->overload = pt->overload;
	ctx->ttwu_pending = pt->ttwu_pending;
	ctx->arrival_ns = pt->arrival_ns;
	ctx->dom = d;
	ctx->pt = pt;
	ctx->nr_levels = d ? ir_domains_nr_levels(d, pt->cpu) : pt->nr_levels;
	if (ctx->nr_levels > IR_MAX_LEVELS)
		ctx->nr_levels = IR_MAX_LEVELS;
	for (int l = 0; l < ctx->nr_levels; l++) {
		const struct ir_sched_domain *sd = d ? ir_domains_level(d, pt->cpu, l) : NULL;

		ctx->kind[l] = sd ? sd->kind : IR_LVL_MC;
	}
	for (int l = 0; l < IR_MAX_LEVELS; l++)
		ctx->probe_cost[l] = ctx->probe_ratio[l] = -1;
}

void ir_decision_ctx_probe(struct ir_decision_ctx *ctx, const struct ir_point *pt)
{
	if (!pt->has_probe)
		return;
	ctx->probed = true;
	for (int l = 0; l < ctx->nr_levels && l < 3; l++) {
		ctx->probe_cost[l] = pt->probe.sd_max_newidle_lb_cost[l];
		ctx->probe_ratio[l] = pt->probe.sd_newidle_ratio[l];
	}
	ctx->probe_dur = pt->probe_dur;
}

/* sd->max_newidle_lb_cost the policy sees at level l: probed where the
 * kernel's own value is known (bump keeps its own, bumped, state: its cap
 * at sysctl_sched_migration_cost + 200 is bump's, 155213a2aed4). */
static uint64_t level_cost(const struct ir_decision_ctx *ctx, const struct ir_policy_params *p,
			   const struct ir_policy_state *st, int l)
{
	uint64_t v = ir_level_lb_cost(p, st, ctx->cpu, l, ctx->kind[l]);

	if (ctx->probed && ctx->probe_cost[l] >= 0 && p->kind != IR_POL_BUMP) {
		v = (uint64_t)ctx->probe_cost[l];
	}
	return v;
}

int ir_policy_state_init(struct ir_policy_state *st, const struct ir_policy_params *p, int nr_cpus)
{
	size_t n = (size_t)(nr_cpus > 0 ? nr_cpus : 0) * IR_MAX_LEVELS;

	memset(st, 0, sizeof(*st));
	st->nr_cpus = nr_cpus;
	st->rng = p->seed;
	if (p->kind == IR_POL_BUMP) {
		st->max_newidle_lb_cost = malloc(n * sizeof(uint64_t));
		st->last_decay_max_lb_cost = calloc(n, sizeof(uint64_t));
		if (!st->max_newidle_lb_cost || !st->last_decay_max_lb_cost)
			goto fail;
		for (size_t i = 0; i < n; i++)
			st->max_newidle_lb_cost[i] = IR_COST_UNSET;
	} else if (p->kind == IR_POL_PROPORTIONAL) {
		st->newidle_call = malloc(n * sizeof(uint32_t));
		st->newidle_success = malloc(n * sizeof(uint32_t));
		st->newidle_ratio = malloc(n * sizeof(uint32_t));
		if (!st->newidle_call || !st->newidle_success || !st->newidle_ratio)
			goto fail;
		/* sd_init() since 33cf66d88306: "50% success rate" (512 of
		 * 1024); parameter newidle_ratio: the state at the trace's
		 * start, with newidle_success in proportion */
		uint32_t ratio = (uint32_t)(p->newidle_ratio < 1024 ? p->newidle_ratio : 1024);

		for (size_t i = 0; i < n; i++) {
			st->newidle_call[i] = 512;
			st->newidle_success[i] = ratio / 2;
			st->newidle_ratio[i] = ratio;
		}
	}
	return 0;
fail:
	ir_policy_state_free(st);
	return -1;
}

void ir_policy_state_free(struct ir_policy_state *st)
{
	free(st->max_newidle_lb_cost);
	free(st->last_decay_max_lb_cost);
	free(st->newidle_call);
	free(st->newidle_success);
	free(st->newidle_ratio);
	memset(st, 0, sizeof(*st));
}

static enum ir_bail early_bail(const struct ir_decision_ctx *ctx, const struct ir_policy_params *p,
			       const struct ir_policy_state *st)
{
	/* v5.13+ (e5e678e4fea2): a queued remote wakeup is on its way; the
	 * mainline family returns before anything else */
	if (ctx->ttwu_pending && (p->kind == IR_POL_MAINLINE || p->kind == IR_POL_BUMP ||
				  p->kind == IR_POL_PROPORTIONAL))
		return IR_BAIL_TTWU_PENDING;
	/* every policy: nothing to pull when no rq has two tasks */
	if (!ctx->overload)
		return IR_BAIL_NOT_OVERLOADED;
	switch (p->kind) {
	case IR_POL_BASELINE:
		/* 4.15: this_rq->avg_idle < sysctl_sched_migration_cost */
		if (ctx->avg_idle < p->sysctl_sched_migration_cost)
			return IR_BAIL_MIGRATION_COST;
		break;
	case IR_POL_MAINLINE:
	case IR_POL_BUMP:
	case IR_POL_PROPORTIONAL:
		/* 5.16+ (c5b0a7eefc70): this_rq->sd, the lowest domain */
		if (ctx->nr_levels > 0 && ctx->avg_idle < level_cost(ctx, p, st, 0))
			return IR_BAIL_LOWEST_COST;
		break;
	default:	/* domain-cost, no-check: the RFC/v2 dropped the avg_idle bail */
		break;
	}
	return IR_BAIL_NONE;
}

static uint32_t ratio_of(const struct ir_decision_ctx *ctx, const struct ir_policy_state *st,
			 int cpu, int level)
{
	if (ctx->probed && ctx->probe_ratio[level] >= 0)
		return (uint32_t)ctx->probe_ratio[level];	/* the kernel's own */
	if (!st || !st->newidle_ratio || cpu < 0 || cpu >= st->nr_cpus)
		return 512;
	return st->newidle_ratio[cpu * IR_MAX_LEVELS + level];
}

void ir_decide(const struct ir_decision_ctx *ctx, const struct ir_policy_params *p,
	       struct ir_policy_state *st, struct ir_decision *d)
{
	uint64_t curr_cost = 0, rng = st ? st->rng : p->seed;
	int nr_levels = ctx->nr_levels < IR_MAX_LEVELS ? ctx->nr_levels : IR_MAX_LEVELS;

	memset(d, 0, sizeof(*d));
	d->stop_level = -1;
	d->bail = early_bail(ctx, p, st);
	if (d->bail != IR_BAIL_NONE)
		return;
	for (int l = 0; l < nr_levels; l++) {
		enum ir_level_kind kind = ctx->kind[l];
		uint64_t max_cost = level_cost(ctx, p, st, l);
		uint64_t limit = curr_cost + max_cost, cost;

		/* RFC: the domain's own sd->sched_migration_cost joins the check */
		if (p->kind == IR_POL_DOMAIN_COST)
			limit += p->sd_migration_cost[kind];
		if (ctx->avg_idle < limit) {
			d->stop_level = l;
			break;
		}
		if (p->kind == IR_POL_PROPORTIONAL && p->ni_random) {
			/* "Throw a 1k sided dice": d1k = sched_rng() % 1024,
			 * skip the level when d1k > 1 + sd->newidle_ratio */
			uint32_t d1k = ir_rng_next(&rng) % 1024;

			if (d1k > 1 + ratio_of(ctx, st, ctx->cpu, l)) {
				d->skipped[d->nr_skipped++] = (uint8_t)l;
				continue;
			}
		}
		/* load_balance(CPU_NEWLY_IDLE): its duration is modelled by the
		 * level's cost (assumed, or probed), not the (bumped) max; in
		 * probed mode the walk never costs more than the call measured */
		cost = ctx->probed && ctx->probe_cost[l] >= 0 ? (uint64_t)ctx->probe_cost[l] :
			p->max_newidle_lb_cost[kind] * p->cost_scale / 1000;
		if (ctx->probed && ctx->probe_dur)
			cost = curr_cost >= ctx->probe_dur ? 0 :
				cost < ctx->probe_dur - curr_cost ? cost : ctx->probe_dur - curr_cost;
		d->tried[d->nr_tried] = (uint8_t)l;
		d->kind[d->nr_tried] = kind;
		d->cost[d->nr_tried] = cost;
		curr_cost += d->cost[d->nr_tried];
		d->nr_tried++;
		/* v4.15 idle_balance(), v6.1 newidle_balance(): "Stop searching for
		 * tasks to pull if there are now runnable tasks on this rq": a
		 * wakeup that landed while this level was balanced */
		if (ctx->arrival_ns && curr_cost >= ctx->arrival_ns) {
			d->stop_level = l + 1 < nr_levels ? l + 1 : -1;
			break;
		}
	}
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A decision evaluated against the trace (SPEC section 7), and the learning
 * policies' state updates after it:
 *  bump          v6.17 155213a2aed4: sched_balance_newidle() records a failed
 *                domain's cost as 3/2 of sd->max_newidle_lb_cost;
 *                update_newidle_cost() caps the max at
 *                sysctl_sched_migration_cost + 200 and decays it x253/256
 *                at most once per second (HZ).
 *  proportional  v6.19 33cf66d88306: update_newidle_stats() per domain.
 */
#include <string.h>

#include "model/cpumask.h"

/* Best waiting task in rings 0..upto: busiest source rq, then nearest ring,
 * then lowest ring (replay/ already picked one per ring, lowest CPU on ties). */
static int best_candidate(const struct ir_point *pt, int upto)
{
	int best = -1;

	for (int r = 0; r <= upto && r < pt->nr_levels && r < IR_MAX_LEVELS; r++) {
		const struct ir_cand *c = &pt->ring[r];

		if (c->pid < 0)
			continue;
		/* one candidate per ring, rings ascending: strictly busier wins */
		if (best < 0 || c->src_nr_running > pt->ring[best].src_nr_running)
			best = r;
	}
	return best;
}

void ir_outcome(const struct ir_point *pt, const struct ir_decision *d, struct ir_outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->level = -1;
	o->pid = -1;
	o->from_cpu = -1;
	for (int i = 0; i < d->nr_tried; i++) {
		int lvl = d->tried[i], best;

		o->attempts++;
		o->cost_ns += d->cost[i];
		o->attempt_cost[lvl] = d->cost[i];
		best = best_candidate(pt, lvl);
		if (best >= 0) {
			/* load_balance() pulled: the walk stops here */
			o->pulled = true;
			o->moved = 1;
			o->level = lvl;
			o->level_kind = d->kind[i];
			o->pid = o->moved_pid[0] = pt->ring[best].pid;
			o->from_cpu = pt->ring[best].cpu;
			o->idle_recovered_ns = pt->ring[best].gain_ns;
			return;
		}
	}
	/* nothing pulled: the nearest waiting task is the idle time lost */
	for (int r = 0; r < pt->nr_levels && r < IR_MAX_LEVELS; r++)
		if (pt->ring[r].pid >= 0) {
			o->idle_lost_ns = pt->ring[r].gain_ns;
			return;
		}
}

/* The candidate of rings 0..upto that pid is, for the idle time it gains. */
static uint64_t gain_of(const struct ir_point *pt, int32_t pid, int upto)
{
	for (int r = 0; r <= upto && r < pt->nr_levels && r < IR_MAX_LEVELS; r++)
		if (pt->ring[r].pid == pid)
			return pt->ring[r].gain_ns;
	/* not the ring's best waiting task: it gains at most the idle time */
	return pt->idle_ns;
}

void ir_outcome_lb(const struct ir_decision_ctx *ctx, const struct ir_policy_params *p,
		   const struct ir_decision *d, struct ir_outcome *o)
{
	const struct ir_point *pt = ctx->pt;
	struct ir_lb_env env;

	if (!ctx->dom || !pt || !pt->rq || pt->nr_rq != ir_domains_nr_cpus(ctx->dom)) {
		ir_outcome(pt, d, o);
		return;
	}
	memset(o, 0, sizeof(*o));
	o->level = -1;
	o->pid = -1;
	o->from_cpu = -1;
	ir_lb_env_init(&env, p, ctx->dom, pt, IR_CPU_NEWLY_IDLE);
	for (int i = 0; i < d->nr_tried; i++) {
		int lvl = d->tried[i];
		struct ir_lb_result r;

		o->attempts++;
		o->cost_ns += d->cost[i];
		o->attempt_cost[lvl] = d->cost[i];
		ir_lb_env_level(&env, p, lvl);
		/* the level's own time in the walk (replay/lookahead.h): task_hot() */
		env.now = lvl < IR_MAX_LEVELS && pt->rq_level_ts[lvl] ? pt->rq_level_ts[lvl] :
			pt->rq_ts ? pt->rq_ts : pt->ts;
		ir_load_balance(&env, &r);
		if (lvl >= 0 && lvl < IR_MAX_LEVELS)
			o->lb_failed[lvl] = r.failed;
		if (r.moved) {
			/* sched_balance_newidle(): "if (pulled_task ...) break" */
			o->pulled = true;
			o->moved = r.moved;
			memcpy(o->moved_pid, r.moved_pid, (size_t)r.moved * sizeof(r.moved_pid[0]));
			o->level = lvl;
			o->level_kind = d->kind[i];
			o->pid = r.moved_pid[0];
			o->from_cpu = r.from_cpu;
			o->idle_recovered_ns = gain_of(pt, r.moved_pid[0], lvl);
			return;
		}
	}
	for (int r = 0; r < pt->nr_levels && r < IR_MAX_LEVELS; r++)
		if (pt->ring[r].pid >= 0) {
			o->idle_lost_ns = pt->ring[r].gain_ns;
			return;
		}
}

/* update_newidle_cost() as 155213a2aed4 left it (without the stats). */
static void update_newidle_cost(uint64_t *max, uint64_t *last_decay, uint64_t cost,
				uint64_t now, uint64_t sysctl_sched_migration_cost)
{
	const uint64_t hz = 1000000000ull;	/* one second of jiffies */

	if (cost > *max) {
		uint64_t cap = sysctl_sched_migration_cost + 200;

		*max = cost < cap ? cost : cap;
		*last_decay = now;
	} else if (now > *last_decay + hz) {
		*max = *max * 253 / 256;
		*last_decay = now;
	}
}

/* update_newidle_stats() (33cf66d88306) */
static void update_newidle_stats(struct ir_policy_state *st, size_t i, uint32_t success)
{
	st->newidle_call[i]++;
	st->newidle_success[i] += success;
	if (st->newidle_call[i] >= 1024) {
		st->newidle_ratio[i] = st->newidle_success[i];
		st->newidle_call[i] /= 2;
		st->newidle_success[i] /= 2;
	}
}

static bool was_tried(const struct ir_decision *d, int level, int *idx)
{
	for (int i = 0; i < d->nr_tried; i++)
		if (d->tried[i] == level) {
			*idx = i;
			return true;
		}
	return false;
}

void ir_policy_update(const struct ir_decision_ctx *ctx, const struct ir_policy_params *p,
		      const struct ir_decision *d, const struct ir_outcome *o,
		      struct ir_policy_state *st)
{
	int cpu = ctx->cpu, nr_levels = ctx->nr_levels < IR_MAX_LEVELS ? ctx->nr_levels : IR_MAX_LEVELS;
	/* levels the walk reached: up to the pull, else up to the cost stop */
	int walked = o->pulled ? o->level + 1 : d->stop_level >= 0 ? d->stop_level : nr_levels;

	if (!st || cpu < 0 || cpu >= st->nr_cpus || d->bail != IR_BAIL_NONE)
		walked = 0;
	if (!st || cpu < 0 || cpu >= st->nr_cpus)
		return;
	if (p->kind == IR_POL_BUMP) {
		for (int l = 0; l < nr_levels; l++) {
			size_t i = (size_t)cpu * IR_MAX_LEVELS + l;
			uint64_t *max = &st->max_newidle_lb_cost[i], cost = 0;
			int idx;

			if (*max == IR_COST_UNSET) {
				/* the kernel's own value where probed, else assumed */
				*max = ctx->probed && l < IR_MAX_LEVELS && ctx->probe_cost[l] >= 0 ?
					(uint64_t)ctx->probe_cost[l] :
					p->max_newidle_lb_cost[ctx->kind[l]] * p->cost_scale / 1000;
				st->last_decay_max_lb_cost[i] = ctx->now;
			}
			if (l < walked && was_tried(d, l, &idx))
				/* "Failing newidle means it is not effective;
				 * bump the cost so we end up doing less of it." */
				cost = o->pulled && o->level == l ? d->cost[idx] : 3 * *max / 2;
			/* cost 0: sched_balance_domains()' periodic decay visit */
			update_newidle_cost(max, &st->last_decay_max_lb_cost[i], cost, ctx->now,
					    p->sysctl_sched_migration_cost);
		}
	} else if (p->kind == IR_POL_PROPORTIONAL) {
		for (int l = 0; l < walked; l++) {
			size_t i = (size_t)cpu * IR_MAX_LEVELS + l;
			int idx;

			ir_rng_next(&st->rng);	/* the die thrown at this level */
			if (!was_tried(d, l, &idx)) {
				update_newidle_stats(st, i, 0);	/* skipped by the die */
				continue;
			}
			if (!d->cost[idx])
				continue;	/* update_newidle_cost(): "if (cost)" */
			uint32_t weight = 1;

			/* a success counts 1024/weight, rounded: 1-in-4 tries
			 * weigh 4 so a full success rate can climb back;
			 * NO_NI_RANDOM leaves weight 1 */
			if (p->ni_random) {
				weight = 1 + st->newidle_ratio[i];
				weight = (1024 + weight / 2) / weight;
			}
			update_newidle_stats(st, i, o->pulled && o->level == l ? weight : 0);
		}
	}
}

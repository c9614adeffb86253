/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * All policies at one newidle point, and which policy models the kernel
 * that recorded a trace.  The loop is the hot path of the decision replay:
 * it allocates nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

int ir_policy_run_init(struct ir_policy_run *r, int nr_cpus)
{
	int n = r->p.kind == IR_POL_PROPORTIONAL && r->p.seeds > 1 ?
		(r->p.seeds > 1024 ? 1024 : (int)r->p.seeds) : 1;

	r->nr_seeds = n;
	r->seed_st = NULL;
	r->seed_tot = calloc((size_t)n, sizeof(*r->seed_tot));
	if (!r->seed_tot || ir_policy_state_init(&r->st, &r->p, nr_cpus))
		goto fail;
	if (n > 1) {
		r->seed_st = calloc((size_t)n, sizeof(*r->seed_st));
		if (!r->seed_st)
			goto fail;
		for (int s = 1; s < n; s++) {
			struct ir_policy_params p = r->p;

			p.seed = r->p.seed + (uint64_t)s;
			if (ir_policy_state_init(&r->seed_st[s], &p, nr_cpus))
				goto fail;
		}
	}
	return 0;
fail:
	ir_policy_run_free(r);
	return -1;
}

void ir_policy_run_free(struct ir_policy_run *r)
{
	ir_policy_state_free(&r->st);
	for (int s = 1; r->seed_st && s < r->nr_seeds; s++)
		ir_policy_state_free(&r->seed_st[s]);
	free(r->seed_st);
	free(r->seed_tot);
	r->seed_st = NULL;
	r->seed_tot = NULL;
	r->nr_seeds = 0;
}

static void seed_add(struct ir_seed_totals *t, const struct ir_point *pt, const struct ir_decision *d,
		     const struct ir_outcome *o)
{
	if (o->pulled && pt->has_probe && pt->probe_ret >= 0) {
		t->probed_pulls++;
		t->probed_both += pt->probe_ret > 0;
	}
	t->attempts += (uint64_t)o->attempts;
	t->cost_ns += o->cost_ns;
	for (int i = 0; i < o->attempts && i < d->nr_tried; i++) {
		t->level_attempts[d->kind[i]]++;
		t->level_cost_ns[d->kind[i]] += d->cost[i];
	}
	if (o->pulled) {
		t->pulls++;
		t->moved += (uint64_t)o->moved;
		t->level_pulls[o->level_kind]++;
		t->level_moved[o->level_kind] += (uint64_t)o->moved;
	}
	t->idle_recovered_ns += o->idle_recovered_ns;
	t->idle_lost_ns += o->idle_lost_ns;
}

void ir_evaluate(const struct ir_point *pt, const struct ir_domains *dom, bool probed,
		 struct ir_policy_run *runs, int n, struct ir_decision *d, struct ir_outcome *o)
{
	struct ir_decision_ctx ctx;

	ir_decision_ctx_init(&ctx, pt, dom);
	if (probed)
		ir_decision_ctx_probe(&ctx, pt);
	for (int i = 0; i < n; i++) {
		struct ir_policy_run *r = &runs[i];

		ir_decide(&ctx, &r->p, &r->st, &d[i]);
		ir_outcome_lb(&ctx, &r->p, &d[i], &o[i]);
		ir_policy_update(&ctx, &r->p, &d[i], &o[i], &r->st);
		if (r->seed_tot)
			seed_add(&r->seed_tot[0], pt, &d[i], &o[i]);
		for (int s = 1; s < r->nr_seeds && r->seed_st; s++) {
			struct ir_decision ds;
			struct ir_outcome os;

			ir_decide(&ctx, &r->p, &r->seed_st[s], &ds);
			ir_outcome_lb(&ctx, &r->p, &ds, &os);
			ir_policy_update(&ctx, &r->p, &ds, &os, &r->seed_st[s]);
			seed_add(&r->seed_tot[s], pt, &ds, &os);
		}
	}
}

static bool has_feature(const char *features, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = features; p && (p = strstr(p, name)); p += n) {
		bool start = p == features || p[-1] == ' ' || p[-1] == '\t';
		bool end = p[n] == 0 || p[n] == ' ' || p[n] == '\n' || p[n] == '\t';

		if (start && end)
			return true;
	}
	return false;
}

enum ir_policy_kind ir_policy_for_trace(int major, int minor, int patch, const char *sched_features,
					bool probes_have_newidle_ratio)
{
	if (probes_have_newidle_ratio && !(sched_features && has_feature(sched_features, "NO_NI_RANDOM")))
		return IR_POL_PROPORTIONAL;
	return ir_policy_for_kernel(major, minor, patch, sched_features);
}

enum ir_policy_kind ir_policy_for_kernel(int major, int minor, int patch, const char *sched_features)
{
	/* NI_RANDOM (33cf66d88306, v6.19) and its backports */
	if (sched_features && has_feature(sched_features, "NI_RANDOM"))
		return IR_POL_PROPORTIONAL;
	if (sched_features && has_feature(sched_features, "NO_NI_RANDOM"))
		return major > 6 || (major == 6 && minor >= 17) ? IR_POL_BUMP : IR_POL_MAINLINE;
	if (major < 0 || major < 5 || (major == 5 && minor < 16))
		return major < 0 ? IR_POL_MAINLINE : IR_POL_BASELINE;
	/* 6.18.y from 6.18.5 carries the stable backport of 33cf66d88306
	 * "sched/fair: Proportional newidle balance" (163ed1e69934 in
	 * linux-stable-rc, between the v6.18.4 and v6.18.5-rc1 tags), after
	 * the revert of the bump (d206fbad9328) went to the stable trees; an
	 * unknown patch level (-1) takes the newest 6.18.y */
	if (major == 6 && minor == 18 && (patch < 0 || patch >= 5))
		return IR_POL_PROPORTIONAL;
	if (major == 6 && (minor == 17 || minor == 18))
		return IR_POL_BUMP;	/* 155213a2aed4 in v6.17, reverted in v6.19 */
	if (major > 6 || (major == 6 && minor >= 19))
		return IR_POL_PROPORTIONAL;
	return IR_POL_MAINLINE;
}

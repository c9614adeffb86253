/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The figures the reports print, from hand-built points: report/tally.c
 * (per-policy, per-level, per-CPU totals), report/truth.c and model/truth.c
 * (ground truth against probes) and the keys report/json.c gives them.
 * Every pair of counts a swap could confuse (matched, calls, points;
 * true positives, predicted, observed) differs, so a swap cannot pass.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "report/report.h"

#define US 1000ull

/* A point on CPU cpu with candidates on rings 0..2 (pid < 0: none). */
static struct ir_point pt_of(int cpu, enum ir_point_kind kind, int p0, int p1, int p2)
{
	struct ir_point pt = { .ts = 1000, .cpu = cpu, .kind = kind, .avg_idle = 300 * US,
			       .overload = true, .nr_levels = 3, .pulled_pid = -1, .pulled_from = -1,
			       .probe_ret = -1 };
	int pid[3] = { p0, p1, p2 };

	for (int r = 0; r < 3; r++)
		pt.ring[r] = (struct ir_cand){ .pid = pid[r], .cpu = pid[r] < 0 ? -1 : 4 + r,
					       .src_nr_running = 2, .gain_ns = 1000 * (uint64_t)(r + 1) };
	return pt;
}

static struct ir_decision dec_of(enum ir_bail bail, int nr, const enum ir_level_kind *kinds)
{
	struct ir_decision d = { .bail = bail, .nr_tried = nr, .stop_level = -1 };

	for (int i = 0; i < nr; i++) {
		d.tried[i] = (uint8_t)i;
		d.kind[i] = kinds[i];
		d.cost[i] = (uint64_t)(i + 1) * 10 * US;
	}
	return d;
}

static const enum ir_level_kind K3[3] = { IR_LVL_SMT, IR_LVL_MC, IR_LVL_NUMA };

/* Three points: a pull at MC (2 attempts), a bail, an unproductive walk of
 * all three levels with an observed kernel pull the model missed. */
static void fill(struct ir_tally *t)
{
	struct ir_point pt;
	struct ir_decision d;
	struct ir_outcome o;

	/* 1: pulled at MC, level index 1, from CPU 5; observed pull too */
	pt = pt_of(1, IR_PT_PULLED, -1, 11, 12);
	d = dec_of(IR_BAIL_NONE, 3, K3);
	ir_outcome(&pt, &d, &o);
	assert_true(o.pulled);
	assert_int_equal(o.level_kind, IR_LVL_MC);
	ir_tally_add(t, &pt, &d, &o);
	/* 2: bail (migration cost); a task was waiting at NUMA */
	pt = pt_of(2, IR_PT_IDLE, -1, -1, 13);
	d = dec_of(IR_BAIL_MIGRATION_COST, 0, K3);
	ir_outcome(&pt, &d, &o);
	ir_tally_add(t, &pt, &d, &o);
	/* 3: walk SMT only, nothing there; observed pull the model misses */
	pt = pt_of(2, IR_PT_PULLED, -1, 14, -1);
	d = dec_of(IR_BAIL_NONE, 1, K3);
	ir_outcome(&pt, &d, &o);
	assert_false(o.pulled);
	ir_tally_add(t, &pt, &d, &o);
	/* 4: pulled at SMT on CPU 1, not observed */
	pt = pt_of(1, IR_PT_IDLE, 15, 16, -1);
	d = dec_of(IR_BAIL_NONE, 2, K3);
	ir_outcome(&pt, &d, &o);
	ir_tally_add(t, &pt, &d, &o);
}

static void test_tally(void **state)
{
	struct ir_policy_params p;
	struct ir_tally t;

	(void)state;
	ir_policy_defaults(IR_POL_NO_CHECK, &p);
	assert_int_equal(ir_tally_init(&t, &p, 4), 0);
	assert_string_equal(t.name, "no-check");
	assert_int_equal(t.sweep, -1);
	fill(&t);
	assert_int_equal(t.points, 4);
	assert_int_equal(t.bails[IR_BAIL_NONE], 3);
	assert_int_equal(t.bails[IR_BAIL_MIGRATION_COST], 1);
	assert_int_equal(t.bails[IR_BAIL_NOT_OVERLOADED], 0);
	/* attempts: point 1 stops after MC (2), point 3 one, point 4 one (SMT pulls) */
	assert_int_equal(t.attempts, 4);
	assert_int_equal(t.level[IR_LVL_SMT].attempts, 3);
	assert_int_equal(t.level[IR_LVL_MC].attempts, 1);
	assert_int_equal(t.level[IR_LVL_NUMA].attempts, 0);
	assert_int_equal(t.level[IR_LVL_SMT].cost_ns, 30 * US);
	assert_int_equal(t.level[IR_LVL_MC].cost_ns, 20 * US);
	assert_int_equal(t.cost_ns, 50 * US);
	/* pulls credited to the level that pulled, not the first tried */
	assert_int_equal(t.pulls, 2);
	assert_int_equal(t.level[IR_LVL_MC].pulls, 1);
	assert_int_equal(t.level[IR_LVL_SMT].pulls, 1);
	assert_int_equal(t.level[IR_LVL_NUMA].pulls, 0);
	/* recovered: ring 1's gain (2000) + ring 0's (1000); lost: the nearest
	 * waiting task of the points that pulled nothing: 3000 + 2000 */
	assert_int_equal(t.idle_recovered_ns, 3000);
	assert_int_equal(t.idle_lost_ns, 5000);
	/* fidelity: 2 predicted, 2 observed, 1 both: precision = recall would
	 * hide a swap, so check the three counts */
	assert_int_equal(t.predicted, 2);
	assert_int_equal(t.observed, 2);
	assert_int_equal(t.true_pos, 1);
	/* per CPU */
	assert_int_equal(t.cpu[1].pulls, 2);
	assert_int_equal(t.cpu[1].attempts, 3);
	assert_int_equal(t.cpu[1].idle_recovered_ns, 3000);
	assert_int_equal(t.cpu[1].idle_lost_ns, 0);
	assert_int_equal(t.cpu[1].cost_ns, 40 * US);
	assert_int_equal(t.cpu[2].pulls, 0);
	assert_int_equal(t.cpu[2].attempts, 1);
	assert_int_equal(t.cpu[2].idle_lost_ns, 5000);
	assert_int_equal(t.cpu[2].cost_ns, 10 * US);
	assert_int_equal(t.cpu[0].attempts, 0);
	/* a fifth point, a bail at a switch with no observed pull: the
	 * observed pulls and true positives stay (fill()'s points have as
	 * many observed as unobserved pulls, and as many matched) */
	{
		struct ir_point pt = pt_of(3, IR_PT_IDLE, -1, -1, -1);
		struct ir_decision d = dec_of(IR_BAIL_MIGRATION_COST, 0, K3);
		struct ir_outcome o;

		ir_outcome(&pt, &d, &o);
		ir_tally_add(&t, &pt, &d, &o);
	}
	assert_int_equal(t.points, 5);
	assert_int_equal(t.predicted, 2);
	assert_int_equal(t.observed, 2);
	assert_int_equal(t.true_pos, 1);
	ir_tally_free(&t);
	assert_null(t.cpu);
	ir_tally_free(&t);	/* freeing again is harmless */
}

/* Per-CPU totals reach every CPU the tally was sized for, CPU 0 and the
 * last one included; a point on a CPU beyond them (a trace naming more CPUs
 * than its topology) counts in the totals only. */
static void test_tally_cpus(void **state)
{
	struct ir_policy_params p;
	struct ir_tally t;
	struct ir_point pt;
	struct ir_decision d;
	struct ir_outcome o;

	(void)state;
	ir_policy_defaults(IR_POL_NO_CHECK, &p);
	assert_int_equal(ir_tally_init(&t, &p, 2), 0);
	for (int cpu = 0; cpu < 3; cpu++) {
		/* each pulls at SMT after one attempt (10 us), gaining 1000 ns */
		pt = pt_of(cpu, IR_PT_IDLE, 15 + cpu, -1, -1);
		d = dec_of(IR_BAIL_NONE, 3, K3);
		ir_outcome(&pt, &d, &o);
		assert_true(o.pulled);
		ir_tally_add(&t, &pt, &d, &o);
	}
	assert_int_equal(t.points, 3);
	assert_int_equal(t.pulls, 3);
	assert_int_equal(t.attempts, 3);
	for (int cpu = 0; cpu < 2; cpu++) {
		assert_int_equal(t.cpu[cpu].pulls, 1);
		assert_int_equal(t.cpu[cpu].attempts, 1);
		assert_int_equal(t.cpu[cpu].idle_recovered_ns, 1000);
		assert_int_equal(t.cpu[cpu].cost_ns, 10 * US);
	}
	ir_tally_free(&t);
}

static struct ir_point probed(int64_t avg_idle, int64_t ovl, int64_t cost0, int64_t ret, int kind_pulled)
{
	struct ir_point pt = pt_of(0, kind_pulled ? IR_PT_PULLED : IR_PT_IDLE, -1, 21, -1);

	pt.has_probe = true;
	pt.probe = (struct ir_probe_entry){ .avg_idle = avg_idle, .rd_overload = ovl,
		.sd_max_newidle_lb_cost = { cost0, 40 * US, 90 * US }, .sd_newidle_ratio = { 510, 254, -1 } };
	pt.probe_ret = ret;
	pt.pulled_pid = kind_pulled ? 21 : -1;
	return pt;
}

/* model/truth.c and model/decide.c: the kernel's early bail, probed costs. */
static void test_model_truth(void **state)
{
	struct ir_probe_entry v = { .avg_idle = 50 * US, .rd_overload = 1,
				    .sd_max_newidle_lb_cost = { 50 * US, 1, 1 } };
	struct ir_decision_ctx ctx = { .nr_levels = 3, .kind = { IR_LVL_SMT, IR_LVL_MC, IR_LVL_NUMA } };
	struct ir_point pt;

	(void)state;
	/* avg_idle == the lowest domain's cost: the kernel's '<' does not bail */
	assert_false(ir_probe_early_bail(&v));
	v.avg_idle--;
	assert_true(ir_probe_early_bail(&v));
	v.avg_idle += 10;
	v.rd_overload = 0;
	assert_true(ir_probe_early_bail(&v));
	v.rd_overload = 1;
	/* the lowest level's cost decides, whatever the others say */
	v.sd_max_newidle_lb_cost[1] = v.sd_max_newidle_lb_cost[2] = -1;
	v.avg_idle = 49 * US;
	assert_true(ir_probe_early_bail(&v));
	v.sd_max_newidle_lb_cost[0] = -1;	/* not probed: no bail known */
	v.sd_max_newidle_lb_cost[1] = 1000 * US;
	assert_false(ir_probe_early_bail(&v));
	/* avg_idle 0 is a value: below any positive cost */
	v.sd_max_newidle_lb_cost[0] = 5;
	v.avg_idle = 0;
	assert_true(ir_probe_early_bail(&v));
	/* avg_idle not probed (-1): no bail known */
	v.avg_idle = -1;
	assert_false(ir_probe_early_bail(&v));
	/* v5.13+: a pending wake-list wakeup returns first, whatever the rest
	 * says; -1 is "not probed" */
	v.avg_idle = 1000 * US;
	v.ttwu_pending = 1;
	assert_true(ir_probe_early_bail(&v));
	v.ttwu_pending = -1;
	assert_false(ir_probe_early_bail(&v));
	v.ttwu_pending = 0;
	assert_false(ir_probe_early_bail(&v));

	/* probed mode: the context takes the kernel's own per-level costs,
	 * ratios and the call's duration (levels 0..2, as the probes carry them) */
	pt = probed(100 * US, 1, 7 * US, 1, 1);
	pt.probe_dur = 12 * US;
	ir_decision_ctx_init(&ctx, &pt, NULL);
	ctx.nr_levels = 4;
	assert_false(ctx.probed);
	assert_int_equal(ctx.probe_cost[0], -1);
	ir_decision_ctx_probe(&ctx, &pt);
	assert_true(ctx.probed);
	assert_int_equal(ctx.probe_cost[0], 7 * US);
	assert_int_equal(ctx.probe_cost[1], 40 * US);
	assert_int_equal(ctx.probe_cost[2], 90 * US);
	assert_int_equal(ctx.probe_cost[3], -1);	/* a fourth level: not probed */
	assert_int_equal(ctx.probe_ratio[0], 510);
	assert_int_equal(ctx.probe_ratio[1], 254);
	assert_int_equal(ctx.probe_ratio[2], -1);
	assert_int_equal(ctx.probe_dur, 12 * US);
	/* a probed 0 (sd->max_newidle_lb_cost starts at 0) is a value; -1 is none */
	pt.probe.sd_max_newidle_lb_cost[0] = 0;
	pt.probe.sd_max_newidle_lb_cost[1] = -1;
	ir_decision_ctx_probe(&ctx, &pt);
	assert_int_equal(ctx.probe_cost[0], 0);
	assert_int_equal(ctx.probe_cost[1], -1);
	/* no probe at the point: nothing taken */
	pt.has_probe = false;
	ir_decision_ctx_init(&ctx, &pt, NULL);
	ir_decision_ctx_probe(&ctx, &pt);
	assert_false(ctx.probed);
	assert_int_equal(ctx.probe_cost[0], -1);
}

/* report/tally.c and report/truth.c: a randomised policy (NI_RANDOM) is
 * reported by its expected values over seeds, with the 5-95 % spread
 * (nearest rank), and ground truth compares those expected pulls. */
static void test_seeds(void **state)
{
	struct ir_seed_totals tot[4];
	struct ir_policy_run r = { .nr_seeds = 4, .seed_tot = tot };
	const uint64_t pulls[4] = { 6, 1, 3, 2 }, mc[4] = { 4, 0, 2, 1 };
	/* at probed calls: seed 0 pulls at 5, the mean is 2 */
	const uint64_t probed[4] = { 5, 1, 2, 0 }, both[4] = { 3, 1, 1, 0 };
	/* by level, each seed's levels adding up to its total */
	const uint64_t smt_att[4] = { 7, 2, 5, 1 }, mc_att[4] = { 40, 5, 20, 14 };
	const uint64_t mc_mv[4] = { 5, 0, 3, 1 }, numa_mv[4] = { 2, 1, 2, 1 };
	const uint64_t smt_cost[4] = { 1000, 0, 1000, 2000 };
	struct ir_tally t;
	struct ir_truth tr;

	(void)state;
	memset(tot, 0, sizeof(tot));
	memset(&t, 0, sizeof(t));
	memset(&tr, 0, sizeof(tr));
	for (int i = 0; i < 4; i++) {
		tot[i].pulls = pulls[i];
		tot[i].attempts = 10 * pulls[i];
		tot[i].level_pulls[IR_LVL_MC] = mc[i];
		tot[i].level_pulls[IR_LVL_NUMA] = pulls[i] - mc[i];
		tot[i].cost_ns = (uint64_t)(i + 1) * US;
		tot[i].probed_pulls = probed[i];
		tot[i].probed_both = both[i];
		tot[i].level_attempts[IR_LVL_SMT] = smt_att[i];
		tot[i].level_attempts[IR_LVL_MC] = mc_att[i];
		tot[i].level_attempts[IR_LVL_NUMA] = 10 * pulls[i] - smt_att[i] - mc_att[i];
		tot[i].moved = mc_mv[i] + numa_mv[i];
		tot[i].level_moved[IR_LVL_MC] = mc_mv[i];
		tot[i].level_moved[IR_LVL_NUMA] = numa_mv[i];
		tot[i].level_cost_ns[IR_LVL_SMT] = smt_cost[i];
		tot[i].level_cost_ns[IR_LVL_MC] = tot[i].cost_ns - smt_cost[i];
	}
	t.pulls = 6;	/* seed 0's draw: replaced by the mean */
	ir_tally_seeds(&t, &r);
	assert_int_equal(t.nr_seeds, 4);
	assert_float_equal(t.s_pulls.mean, 3.0, 1e-12);
	assert_float_equal(t.s_pulls.p5, 1.0, 1e-12);
	assert_float_equal(t.s_pulls.p95, 6.0, 1e-12);
	assert_int_equal(t.pulls, 3);
	assert_int_equal(t.predicted, 3);
	assert_int_equal(t.attempts, 30);
	assert_float_equal(t.s_level_pulls[IR_LVL_MC].mean, 1.75, 1e-12);
	assert_int_equal(t.level[IR_LVL_MC].pulls, 2);	/* 1.75 rounded */
	assert_int_equal(t.cost_ns, 2500);		/* (1 + 2 + 3 + 4) us / 4, rounded */
	/* by level: the means rounded by largest remainder to the total.
	 * attempts: means 3.75, 19.75, 6.5 -> 3 + 19 + 6 = 28, the two .75
	 * get the 2 left: 4, 20, 6 */
	assert_int_equal(t.level[IR_LVL_SMT].attempts, 4);
	assert_int_equal(t.level[IR_LVL_MC].attempts, 20);
	assert_int_equal(t.level[IR_LVL_NUMA].attempts, 6);
	/* pulls: 1.75, 1.25 of 3 -> 2, 1 */
	assert_int_equal(t.level[IR_LVL_NUMA].pulls, 1);
	assert_int_equal(t.level[IR_LVL_SMT].pulls, 0);
	/* moved: totals 7, 1, 5, 2: mean 3.75 -> 4; by level 2.25 and 1.5 ->
	 * 2 + 1, the larger remainder (NUMA's .5) gets the last: 2, 2 */
	assert_float_equal(t.s_moved.mean, 3.75, 1e-12);
	assert_float_equal(t.s_moved.p95, 7.0, 1e-12);
	assert_int_equal(t.moved, 4);
	assert_float_equal(t.s_level_moved[IR_LVL_MC].mean, 2.25, 1e-12);
	assert_int_equal(t.level[IR_LVL_MC].moved, 2);
	assert_int_equal(t.level[IR_LVL_NUMA].moved, 2);
	/* cost: 1000 and 1500 ns exactly */
	assert_int_equal(t.level[IR_LVL_SMT].cost_ns, 1000);
	assert_int_equal(t.level[IR_LVL_MC].cost_ns, 1500);
	assert_int_equal(t.level[IR_LVL_NUMA].cost_ns, 0);
	assert_float_equal(t.s_level_attempts[IR_LVL_NUMA].mean, 6.5, 1e-12);
	assert_float_equal(t.s_attempts.p5, 10.0, 1e-12);
	ir_truth_seeds(&tr, &t);
	assert_true(tr.randomised);
	tr.pull_pred = 5;	/* seed 0's draw at probed calls: replaced by the mean */
	tr.pull_tp = 3;
	ir_truth_seeds(&tr, &t);
	assert_float_equal(tr.pull_pred_seeds.mean, 2.0, 1e-12);
	assert_float_equal(tr.pull_pred_seeds.p5, 0.0, 1e-12);
	assert_float_equal(tr.pull_pred_seeds.p95, 5.0, 1e-12);
	assert_int_equal(tr.pull_pred, 2);
	assert_float_equal(tr.pull_tp_mean, 1.25, 1e-12);
	assert_int_equal(tr.pull_tp, 1);	/* 1.25 rounded */
	assert_float_equal(tr.expected[IR_LVL_MC], 1.75, 1e-12);
	assert_float_equal(tr.expected[IR_LVL_NUMA], 1.25, 1e-12);
	assert_float_equal(tr.expected[IR_LVL_SMT], 0.0, 1e-12);
	/* every level's expected pulls are its seeds' mean, the first (SMT)
	 * and the last included */
	t.s_level_pulls[IR_LVL_SMT].mean = 0.5;
	t.s_level_pulls[IR_LVL__COUNT - 1].mean = 0.25;
	ir_truth_seeds(&tr, &t);
	assert_float_equal(tr.expected[IR_LVL_SMT], 0.5, 1e-12);
	assert_float_equal(tr.expected[IR_LVL__COUNT - 1], 0.25, 1e-12);
	assert_float_equal(tr.expected[IR_LVL_MC], 1.75, 1e-12);
	/* one seed: not randomised, nothing replaced */
	memset(&t, 0, sizeof(t));
	memset(&tr, 0, sizeof(tr));
	t.pulls = 6;
	r.nr_seeds = 1;
	ir_tally_seeds(&t, &r);
	assert_int_equal(t.nr_seeds, 0);
	assert_int_equal(t.pulls, 6);
	ir_truth_seeds(&tr, &t);
	assert_false(tr.randomised);
	assert_float_equal(tr.expected[IR_LVL_MC], 0.0, 1e-12);
}

/* report/truth.c: agreement counts and the avg_idle error quantiles. */
static void test_report_truth(void **state)
{
	struct ir_decision_ctx ctx = { .nr_levels = 3, .kind = { IR_LVL_SMT, IR_LVL_MC, IR_LVL_NUMA } };
	struct ir_truth t;
	struct ir_point pt;
	struct ir_decision d;
	struct ir_outcome o;

	(void)state;
	memset(&t, 0, sizeof(t));
	/* 1: kernel pulled (ret 1, observed from MC), model pulled: tp */
	pt = probed(300 * US, 1, 5 * US, 1, 1);		/* our avg_idle 300 us: error 0 */
	d = dec_of(IR_BAIL_NONE, 3, K3);
	ir_outcome(&pt, &d, &o);
	ir_truth_add(&t, &pt, &ctx, &d, &o);
	/* 2: kernel pulled, model bailed (kernel did not: bail disagreement) */
	pt = probed(200 * US, 1, 5 * US, 2, 1);		/* error 50 % */
	d = dec_of(IR_BAIL_MIGRATION_COST, 0, K3);
	ir_outcome(&pt, &d, &o);
	ir_truth_add(&t, &pt, &ctx, &d, &o);
	/* 3: kernel did not pull (ret 0), model pulled; overload disagrees */
	pt = probed(150 * US, 0, 5 * US, 0, 0);		/* error 100 %: last bin */
	d = dec_of(IR_BAIL_NONE, 3, K3);
	ir_outcome(&pt, &d, &o);
	ir_truth_add(&t, &pt, &ctx, &d, &o);
	/* 4: no exit probe (ret -1), model pulled: no pull figures */
	pt = probed(300 * US, 1, 5 * US, -1, 0);
	ir_outcome(&pt, &d, &o);
	ir_truth_add(&t, &pt, &ctx, &d, &o);
	/* 5: no probe at all: ignored */
	pt = pt_of(0, IR_PT_IDLE, -1, 21, -1);
	ir_truth_add(&t, &pt, &ctx, &d, &o);
	/* 6: kernel bailed (!overload) and so did the model: agree on the bail,
	 * not on overload (ours set) */
	pt = probed(300 * US, 0, 5 * US, 0, 0);
	d = dec_of(IR_BAIL_NOT_OVERLOADED, 0, K3);
	ir_outcome(&pt, &d, &o);
	ir_truth_add(&t, &pt, &ctx, &d, &o);
	/* 7: kernel pulled the task waiting on ring 0 (SMT); the model too */
	pt = probed(300 * US, 1, 5 * US, 1, 1);
	pt.ring[0] = (struct ir_cand){ .pid = 21, .cpu = 1, .src_nr_running = 2, .gain_ns = 10 };
	pt.ring[1].pid = -1;
	d = dec_of(IR_BAIL_NONE, 3, K3);
	ir_outcome(&pt, &d, &o);
	ir_truth_add(&t, &pt, &ctx, &d, &o);
	/* 8: the probe's avg_idle is 0: no relative error; below the cost, the
	 * kernel bailed, the model did not */
	pt = probed(0, 1, 5 * US, -1, 0);
	ir_outcome(&pt, &d, &o);
	ir_truth_add(&t, &pt, &ctx, &d, &o);

	assert_int_equal(t.err_n, 6);
	assert_int_equal(t.ovl_n, 7);
	assert_int_equal(t.ovl_agree, 5);	/* 3 and 6 disagree */
	assert_int_equal(t.bail_n, 7);
	assert_int_equal(t.bail_agree, 4);	/* 2, 3 and 8 disagree */
	assert_int_equal(t.pull_obs, 3);
	assert_int_equal(t.pull_pred, 3);
	assert_int_equal(t.pull_tp, 2);
	assert_int_equal(t.actual[IR_LVL_MC], 2);
	assert_int_equal(t.actual[IR_LVL_SMT], 1);
	/* errors 0, 0, 0, 0, 0.5, 1.0: median in the first bin, p90 the last */
	assert_float_equal(ir_truth_err_quantile(&t, 0.5), 1.0 / IR_TRUTH_BINS, 1e-12);
	assert_float_equal(ir_truth_err_quantile(&t, 0.75), 0.5 + 1.0 / IR_TRUTH_BINS, 1e-9);
	assert_true(ir_truth_err_quantile(&t, 0.9) >= 1.0);	/* the ">= 100 %" bin */
	/* q = 0 is the smallest sample's bin, not an empty one below it */
	memset(&t, 0, sizeof(t));
	t.err_bins[IR_TRUTH_BINS / 2] = 1;
	t.err_n = 1;
	assert_float_equal(ir_truth_err_quantile(&t, 0.0), 0.5 + 1.0 / IR_TRUTH_BINS, 1e-9);
	/* the last regular bin (99.99 % to 100 %) ends at 1.0; the ">= 100 %"
	 * bin must not read the same: it is reported beyond 1.0 */
	memset(&t, 0, sizeof(t));
	t.err_bins[IR_TRUTH_BINS - 1] = 1;
	t.err_n = 1;
	assert_float_equal(ir_truth_err_quantile(&t, 0.5), 1.0, 1e-12);
	memset(&t, 0, sizeof(t));
	t.err_bins[IR_TRUTH_BINS] = 1;
	t.err_n = 1;
	assert_true(ir_truth_err_quantile(&t, 0.5) > 1.0);
	memset(&t, 0, sizeof(t));
	assert_float_equal(ir_truth_err_quantile(&t, 0.5), -1, 0);
	/* a probed avg_idle of 1 ns is a value like any other (only 0 has no
	 * relative error): one sample */
	pt = probed(1, 1, 5 * US, -1, 0);
	ir_outcome(&pt, &d, &o);
	ir_truth_add(&t, &pt, &ctx, &d, &o);
	assert_int_equal(t.err_n, 1);
	memset(&t, 0, sizeof(t));
	/* the level a kernel pull came from is the ring holding the task, among
	 * the point's levels only */
	pt = probed(300 * US, 1, 5 * US, 1, 1);
	pt.ring[1].pid = 22;
	pt.ring[2] = (struct ir_cand){ .pid = 21, .cpu = 6, .src_nr_running = 2, .gain_ns = 10 };
	d = dec_of(IR_BAIL_NONE, 3, K3);
	ir_outcome(&pt, &d, &o);
	ctx.nr_levels = 2;
	ir_truth_add(&t, &pt, &ctx, &d, &o);
	assert_int_equal(t.pull_obs, 1);
	for (int k = 0; k < IR_LVL__COUNT; k++)
		assert_int_equal(t.actual[k], 0);
	ctx.nr_levels = 3;
	ir_truth_add(&t, &pt, &ctx, &d, &o);
	assert_int_equal(t.actual[IR_LVL_NUMA], 1);
	assert_int_equal(t.actual[IR_LVL_MC], 0);
}

static double num(json_object *o, const char *key)
{
	json_object *v = json_object_object_get(o, key);

	if (!v)
		fail_msg("key %s missing", key);
	return json_object_get_double(v);
}

static json_object *obj(json_object *o, const char *key)
{
	json_object *v = json_object_object_get(o, key);

	if (!v)
		fail_msg("key %s missing", key);
	return v;
}

/* report/json.c: each figure under its key, ratios the right way round,
 * and the renderers show what the document holds. */
static void test_json(void **state)
{
	struct ir_trace_info ti = { .path = "t.dat", .kernel = "6.1.0", .clock = "local", .nr_cpus = 4,
				    .file_version = 7, .events_total = 9 };
	struct ir_cpu_obs cpus[4] = { { .idle_ns = 10, .busy_ns = 90, .idle_entries = 3, .newidle_points = 2,
					.newidle_pulls = 1 } };
	struct ir_observed ob = { .nr_cpus = 4, .cpu = cpus, .window_start = 100, .window_end = 200,
				  .migrations = 7, .newidle_points = 10, .newidle_pulls = 3,
				  .probe_calls = 8, .probe_matched = 6,
				  .probe_pulls = 7 };
	struct ir_state_params sp;
	struct ir_policy_params pb, pn;
	struct ir_tally tt[3];
	/* tt[2]: the one point of a sweep of baseline's threshold (sweep 0):
	 * under "sweeps", never under "policies" */
	struct ir_sweep sws[1] = { { "baseline", "sysctl_sched_migration_cost", 2, 1 } };
	struct ir_tallies ts = { .n = 3, .t = tt, .reference = 0, .fidelity = 1, .nr_sweeps = 1, .sweeps = sws };
	struct ir_truth tr;
	struct ir_report_input in = { .trace = &ti, .obs = &ob, .params = &sp, .tallies = &ts, .truth = &tr };
	json_object *doc, *gt, *pols, *nc, *f;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	/* CPU 1 lost events three ways, CPU 3 only by markers without a count;
	 * CPUs 0 and 2 lost nothing and get no entry */
	struct ir_cpu_loss loss[4] = {
		{ .cpu = 0 },
		{ .cpu = 1, .overrun = 11, .dropped = 13, .missed = 17, .missed_unknown = 2,
		  .first_ts = 120, .last_ts = 150 },
		{ .cpu = 2 },
		{ .cpu = 3, .missed_unknown = 5, .first_ts = 130, .last_ts = 131 },
	};
	json_object *lost, *l1, *l3;

	(void)state;
	ti.loss = loss;
	ti.nr_loss = 2;
	ob.mig_by_cause[IR_MIG_WAKEUP] = 5;
	ob.mig_by_cause[IR_MIG_ACTIVE] = 2;
	ir_state_params_default(&sp);
	/* distinct values: a key holding another's figure shows */
	sp.sched_migration_cost = 111, sp.max_idle_balance_cost = 222, sp.avg_idle_init = 333;
	sp.tick_ns = 444, sp.balance_interval_ns = 555, sp.busy_factor = 66;
	ir_policy_defaults(IR_POL_BASELINE, &pb);
	ir_policy_defaults(IR_POL_NO_CHECK, &pn);
	assert_int_equal(ir_tally_init(&tt[0], &pb, 4), 0);
	assert_int_equal(ir_tally_init(&tt[1], &pn, 4), 0);
	assert_int_equal(ir_tally_init(&tt[2], &pb, 4), 0);
	tt[2].sweep = 0;
	tt[2].sweep_value = 300000;
	tt[2].pulls = 9;
	tt[0].idle_lost_ns = 7000;
	tt[0].pulls = 1;
	tt[0].level[IR_LVL_NUMA].pulls = 1;
	tt[0].level[IR_LVL_NUMA].attempts = 1;
	fill(&tt[1]);
	/* every bail kind under its own key (the schema's names) */
	tt[1].bails[IR_BAIL_LOWEST_COST] = 4;
	tt[1].bails[IR_BAIL_TTWU_PENDING] = 5;
	memset(&tr, 0, sizeof(tr));
	tr.pull_tp = 1;
	tr.pull_pred = 4;
	tr.pull_obs = 5;
	tr.ovl_agree = 3;
	tr.ovl_n = 6;
	tr.bail_agree = 9;
	tr.bail_n = 10;
	snprintf(tr.policy, sizeof(tr.policy), "mainline");
	/* per level: expected and actual (MC), expected only (SMT), actual
	 * only (NUMA), neither (the others: left out of both) */
	tr.probed = true;
	tr.expected[IR_LVL_MC] = 1.75, tr.actual[IR_LVL_MC] = 2;
	tr.expected[IR_LVL_SMT] = 0.5;
	tr.actual[IR_LVL_NUMA] = 1;
	tr.err_n = 3;
	ob.probe_only_points = 11;

	doc = ir_report_json(&in);
	assert_non_null(doc);
	gt = obj(doc, "ground_truth");
	assert_float_equal(num(gt, "point_precision"), 6.0 / 10.0, 1e-12);
	assert_float_equal(num(gt, "point_recall"), 6.0 / 8.0, 1e-12);
	assert_float_equal(num(gt, "pull_precision"), 1.0 / 4.0, 1e-12);
	assert_float_equal(num(gt, "pull_recall"), 1.0 / 5.0, 1e-12);
	assert_float_equal(num(gt, "overload_agreement"), 0.5, 1e-12);
	assert_float_equal(num(gt, "early_bail_agreement"), 0.9, 1e-12);
	assert_int_equal(num(gt, "calls"), 8);
	assert_int_equal(num(gt, "matched_points"), 6);
	/* every probed call that pulled (7), not only the matched ones (5) */
	assert_int_equal(num(gt, "kernel_pulls"), 7);
	assert_int_equal(num(gt, "predicted_pulls"), 4);
	assert_string_equal(json_object_get_string(obj(gt, "mode")), "probed");
	assert_string_equal(json_object_get_string(obj(gt, "policy")), "mainline");
	assert_int_equal(num(gt, "probe_only_points"), 11);
	assert_int_equal(num(obj(gt, "avg_idle_rel_error"), "samples"), 3);
	{
		json_object *e = obj(gt, "expected_pulls_by_level"), *a = obj(gt, "actual_pulls_by_level");

		assert_int_equal(json_object_object_length(e), 3);
		assert_int_equal(json_object_object_length(a), 3);
		assert_float_equal(num(e, "MC"), 1.75, 1e-12);
		assert_float_equal(num(e, "SMT"), 0.5, 1e-12);
		assert_float_equal(num(e, "NUMA"), 0.0, 1e-12);
		assert_int_equal(num(a, "MC"), 2);
		assert_int_equal(num(a, "SMT"), 0);
		assert_int_equal(num(a, "NUMA"), 1);
	}

	pols = obj(doc, "policies");
	assert_int_equal(json_object_array_length(pols), 2);
	/* a policy's parameters, as ir_policy_params_format() spells them */
	assert_int_equal(num(obj(json_object_array_get_idx(pols, 0), "params"), "sysctl_sched_migration_cost"),
			 500000);
	assert_int_equal(num(obj(json_object_array_get_idx(pols, 0), "params"), "mc.max_newidle_lb_cost"),
			 20000);
	{
		json_object *sw = json_object_array_get_idx(obj(doc, "sweeps"), 0), *pt0;

		assert_int_equal(json_object_array_length(obj(doc, "sweeps")), 1);
		assert_string_equal(json_object_get_string(obj(sw, "param")), "sysctl_sched_migration_cost");
		assert_int_equal(json_object_array_length(obj(sw, "points")), 1);
		pt0 = json_object_array_get_idx(obj(sw, "points"), 0);
		assert_int_equal(num(pt0, "value"), 300000);
		assert_int_equal(num(pt0, "pulls"), 9);
	}
	nc = json_object_array_get_idx(pols, 1);
	assert_string_equal(json_object_get_string(obj(nc, "name")), "no-check");
	assert_int_equal(num(nc, "newidle_points"), 4);
	assert_int_equal(num(obj(nc, "attempts"), "total"), 4);
	assert_int_equal(num(obj(obj(nc, "attempts"), "by_level"), "SMT"), 3);
	assert_int_equal(num(obj(obj(nc, "pulls"), "by_level"), "MC"), 1);
	assert_int_equal(num(obj(obj(nc, "pulls"), "by_level"), "SMT"), 1);
	assert_int_equal(num(obj(nc, "bails"), "migration_cost"), 1);
	assert_int_equal(num(nc, "idle_recovered_ns"), 3000);
	assert_int_equal(num(nc, "idle_lost_ns"), 5000);
	assert_int_equal(num(nc, "balance_cost_ns"), 50 * US);
	assert_int_equal(num(obj(nc, "balance_cost_by_level"), "MC"), 20 * US);
	/* against the reference (baseline): 1 - 2 pulls avoided, 5000 - 7000 traded */
	assert_int_equal(num(obj(nc, "migrations_avoided"), "total"), -1);
	assert_int_equal(num(obj(obj(nc, "migrations_avoided"), "by_level"), "NUMA"), 1);
	assert_int_equal(num(obj(obj(nc, "migrations_avoided"), "by_level"), "MC"), -1);
	assert_int_equal(num(nc, "idle_traded_ns"), -2000);
	assert_int_equal(num(json_object_array_get_idx(obj(nc, "per_cpu"), 2), "idle_lost_ns"), 5000);
	/* every figure under its own key: the values of fill() worked out in
	 * test_tally (tasks moved: one per pull) */
	assert_string_equal(json_object_get_string(obj(nc, "label")), "no-check");
	assert_string_equal(json_object_get_string(obj(doc, "reference")), "baseline");
	assert_int_equal(num(obj(nc, "moved"), "total"), 2);
	assert_int_equal(num(obj(obj(nc, "moved"), "by_level"), "MC"), 1);
	assert_int_equal(num(obj(obj(nc, "moved"), "by_level"), "SMT"), 1);
	assert_int_equal(num(obj(nc, "pulls"), "total"), 2);
	assert_int_equal(num(obj(obj(nc, "attempts"), "by_level"), "MC"), 1);
	assert_int_equal(num(obj(nc, "bails"), "not_overloaded"), 0);
	assert_int_equal(num(obj(nc, "bails"), "lowest_cost"), 4);
	assert_int_equal(num(obj(nc, "bails"), "ttwu_pending"), 5);
	assert_int_equal(json_object_object_length(obj(nc, "bails")), IR_BAIL__COUNT - 1);
	assert_null(json_object_object_get(obj(nc, "bails"), "none"));	/* not a bail */
	/* a level nobody tried or pulled at is left out */
	assert_null(json_object_object_get(obj(obj(nc, "attempts"), "by_level"), "NUMA"));
	assert_null(json_object_object_get(obj(obj(nc, "pulls"), "by_level"), "NUMA"));
	assert_null(json_object_object_get(nc, "seeds"));	/* one seed: no spread */
	{
		json_object *pc = obj(nc, "per_cpu"), *c1 = json_object_array_get_idx(pc, 1);

		assert_int_equal(json_object_array_length(pc), 4);
		assert_int_equal(num(c1, "cpu"), 1);
		assert_int_equal(num(c1, "pulls"), 2);
		assert_int_equal(num(c1, "attempts"), 3);
		assert_int_equal(num(c1, "idle_recovered_ns"), 3000);
		assert_int_equal(num(c1, "idle_lost_ns"), 0);
		assert_int_equal(num(c1, "balance_cost_ns"), 40 * US);
		assert_int_equal(num(json_object_array_get_idx(pc, 3), "cpu"), 3);
	}
	{
		json_object *tr_ = obj(doc, "trace"), *ob_ = obj(doc, "observed"), *c0, *as = obj(doc, "assumptions");

		assert_string_equal(json_object_get_string(obj(tr_, "kernel")), "6.1.0");
		assert_string_equal(json_object_get_string(obj(tr_, "clock")), "local");
		assert_int_equal(num(tr_, "cpus"), 4);
		assert_int_equal(num(tr_, "file_version"), 7);
		assert_int_equal(num(tr_, "events_total"), 9);
		assert_int_equal(num(tr_, "first_ts"), 100);
		assert_int_equal(num(tr_, "last_ts"), 200);
		assert_int_equal(json_object_array_length(obj(ob_, "cpus")), 4);
		c0 = json_object_array_get_idx(obj(ob_, "cpus"), 0);
		assert_int_equal(num(c0, "idle_ns"), 10);
		assert_int_equal(num(c0, "busy_ns"), 90);
		assert_int_equal(num(c0, "idle_entries"), 3);
		assert_int_equal(num(c0, "newidle_points"), 2);
		assert_int_equal(num(c0, "newidle_pulls"), 1);
		assert_int_equal(num(ob_, "newidle_points"), 10);
		assert_int_equal(num(ob_, "newidle_pulls"), 3);
		assert_int_equal(num(obj(obj(ob_, "migrations"), "by_cause"), "wakeup"), 5);
		assert_int_equal(num(as, "sched_migration_cost_ns"), 111);
		assert_int_equal(num(as, "max_idle_balance_cost_ns"), 222);
		assert_int_equal(num(as, "avg_idle_init_ns"), 333);
		assert_int_equal(num(as, "jiffy_ns"), 444);
		/* deprecated alias of jiffy_ns, written until a schema major change */
		assert_int_equal(num(as, "overload_tick_ns"), 444);
		assert_int_equal(num(as, "overload_balance_interval_ns"), 555);
		assert_int_equal(num(as, "overload_busy_factor"), 66);
	}
	f = obj(doc, "fidelity");
	assert_string_equal(json_object_get_string(obj(f, "policy")), "no-check");
	assert_int_equal(num(f, "predicted_pulls"), 2);
	assert_int_equal(num(f, "observed_pulls"), 2);
	assert_int_equal(num(f, "true_positives"), 1);
	assert_float_equal(num(f, "precision"), 0.5, 1e-12);
	assert_int_equal(num(obj(obj(doc, "observed"), "migrations"), "total"), 7);
	assert_int_equal(num(obj(obj(obj(doc, "observed"), "migrations"), "by_cause"), "active"), 2);
	assert_int_equal(num(obj(doc, "trace"), "window_ns"), 100);
	/* lost events: each CPU's counts under its own key, the total their sum */
	assert_int_equal(num(obj(doc, "trace"), "lost_events"), 11 + 13 + 17);
	lost = obj(obj(doc, "trace"), "lost_by_cpu");
	assert_int_equal(json_object_array_length(lost), 2);
	l1 = json_object_array_get_idx(lost, 0);
	l3 = json_object_array_get_idx(lost, 1);
	assert_int_equal(num(l1, "cpu"), 1);
	assert_int_equal(num(l1, "overrun"), 11);
	assert_int_equal(num(l1, "dropped"), 13);
	assert_int_equal(num(l1, "missed"), 17);
	assert_int_equal(num(l1, "missed_unknown_count"), 2);
	assert_int_equal(num(l1, "first_ts"), 120);
	assert_int_equal(num(l1, "last_ts"), 150);
	assert_int_equal(num(l3, "cpu"), 3);
	assert_int_equal(num(l3, "missed"), 0);
	assert_int_equal(num(l3, "missed_unknown_count"), 5);
	assert_int_equal(num(l3, "last_ts"), 131);

	/* CSV: the idle_traded_ns column holds -2000 for no-check */
	mem = open_memstream(&buf, &len);
	assert_int_equal(ir_report_csv(doc, mem), 0);
	fclose(mem);
	assert_non_null(strstr(buf, ",idle_traded_ns,"));
	{
		char *row = strstr(buf, "\nt.dat,6.1.0,4,100,no-check,");
		char *field;
		int col = 0, want = 0;

		assert_non_null(row);
		/* the column's index in the header */
		for (char *h = buf; h < strstr(buf, "idle_traded_ns"); h++)
			want += *h == ',';
		field = row + 1;
		for (; col < want; field++)
			col += *field == ',';
		assert_int_equal(strtoll(field, NULL, 10), -2000);
	}
	free(buf);
	buf = NULL;
	/* text: the traded idle shows as a signed duration */
	mem = open_memstream(&buf, &len);
	assert_int_equal(ir_report_text(doc, mem), 0);
	fclose(mem);
	assert_non_null(strstr(buf, "-2.0 us"));
	/* one deterministic model: no spread over seeds */
	assert_null(strstr(buf, "pulls at probed calls"));
	assert_null(json_object_object_get(gt, "expected_pulls"));
	free(buf);
	buf = NULL;
	json_object_put(doc);

	/* a randomised model (NI_RANDOM): ground truth gives the expected pulls
	 * over seeds with their 5-95 % spread, and precision and recall of the
	 * means, never seed 0's draw (4 pulls, 1 shared with the kernel) */
	{
		struct ir_seed_totals tot[4];
		struct ir_policy_run r = { .nr_seeds = 4, .seed_tot = tot };
		const uint64_t probed[4] = { 4, 1, 2, 1 }, both[4] = { 1, 0, 2, 0 };
		struct ir_tally k;

		memset(tot, 0, sizeof(tot));
		memset(&k, 0, sizeof(k));
		for (int i = 0; i < 4; i++) {
			tot[i].probed_pulls = probed[i];
			tot[i].probed_both = both[i];
		}
		ir_tally_seeds(&k, &r);
		ir_truth_seeds(&tr, &k);
	}
	/* a policy over seeds: its spread under "seeds" */
	tt[1].nr_seeds = 4;
	tt[1].s_attempts = (struct ir_spread){ 2.5, 1, 4 };
	tt[1].s_pulls = (struct ir_spread){ 1.25, 0, 3 };
	tt[1].s_level_attempts[IR_LVL_SMT] = (struct ir_spread){ 1.5, 1, 2 };
	tt[1].s_level_moved[IR_LVL_MC] = (struct ir_spread){ 0.75, 0, 1 };
	doc = ir_report_json(&in);
	assert_non_null(doc);
	{
		json_object *sd = obj(json_object_array_get_idx(obj(doc, "policies"), 1), "seeds");

		assert_int_equal(num(sd, "n"), 4);
		assert_float_equal(num(obj(sd, "attempts"), "mean"), 2.5, 1e-12);
		assert_float_equal(num(obj(sd, "attempts"), "p5"), 1, 1e-12);
		assert_float_equal(num(obj(sd, "attempts"), "p95"), 4, 1e-12);
		assert_float_equal(num(obj(sd, "pulls"), "mean"), 1.25, 1e-12);
		assert_float_equal(num(obj(obj(sd, "attempts_by_level"), "SMT"), "mean"), 1.5, 1e-12);
		assert_float_equal(num(obj(obj(sd, "moved_by_level"), "MC"), "mean"), 0.75, 1e-12);
		/* levels tried by the policy (SMT, MC) only */
		assert_null(json_object_object_get(obj(sd, "pulls_by_level"), "NUMA"));
		assert_float_equal(num(obj(obj(sd, "pulls_by_level"), "SMT"), "mean"), 0, 1e-12);
	}
	gt = obj(doc, "ground_truth");
	assert_int_equal(num(gt, "predicted_pulls"), 2);
	assert_float_equal(num(obj(gt, "expected_pulls"), "mean"), 2.0, 1e-12);
	assert_float_equal(num(obj(gt, "expected_pulls"), "p5"), 1.0, 1e-12);
	assert_float_equal(num(obj(gt, "expected_pulls"), "p95"), 4.0, 1e-12);
	assert_float_equal(num(gt, "pull_precision"), 0.75 / 2.0, 1e-12);
	assert_float_equal(num(gt, "pull_recall"), 0.75 / 5.0, 1e-12);
	mem = open_memstream(&buf, &len);
	assert_int_equal(ir_report_text(doc, mem), 0);
	fclose(mem);
	assert_non_null(strstr(buf, "pulls at probed calls: kernel 7, model expected 2.0 over seeds (5-95 %: 1-4)"));
	free(buf);
	json_object_put(doc);
	ir_tally_free(&tt[0]);
	ir_tally_free(&tt[1]);
	ir_tally_free(&tt[2]);
}

/* The timeline under "timeline" (report/json.c): each series (overview
 * and detail) carries replay/timeline.c's view bucket by bucket, per CPU
 * (busy share of the bucket, newidle points, pulls) and per policy lane,
 * named by its policy's label; anomaly positions with their counts.  The
 * hand-placed events land where they were put: at the trace's first ns
 * CPU 0 busy for the whole first bucket, CPU 1 a pulled newidle point,
 * lane 0 (baseline) a pull; lane 1 (no-check) pulls at the last ns. */
static void check_series(json_object *se, const struct ir_timeline_view *v)
{
	json_object *cpus = obj(se, "cpus"), *lanes = obj(se, "policies");

	assert_int_equal(json_object_get_int64(obj(se, "start_ns")), (int64_t)v->start);
	assert_int_equal(json_object_get_int64(obj(se, "end_ns")), (int64_t)v->end);
	assert_int_equal(json_object_get_int64(obj(se, "bucket_ns")), (int64_t)v->bucket);
	assert_int_equal(json_object_array_length(cpus), v->nr_cpus);
	assert_int_equal(json_object_array_length(lanes), v->nr_lanes);
	for (int c = 0; c < v->nr_cpus; c++) {
		json_object *x = json_object_array_get_idx(cpus, (size_t)c);
		json_object *busy = obj(x, "busy"), *ni = obj(x, "newidle"), *pu = obj(x, "pulls");

		assert_int_equal(num(x, "cpu"), c);
		assert_int_equal(json_object_array_length(busy), v->n);
		assert_int_equal(json_object_array_length(ni), v->n);
		assert_int_equal(json_object_array_length(pu), v->n);
		for (int b = 0; b < v->n; b++) {
			double f = v->busy[c * v->stride + b] / (double)v->bucket;
			char txt[16];

			/* a share of the bucket, at most 1, printed with 3 digits */
			f = f > 1 ? 1 : f;
			snprintf(txt, sizeof(txt), "%.3f", f);
			assert_float_equal(json_object_get_double(json_object_array_get_idx(busy, (size_t)b)),
					   f, 0.0005);
			assert_string_equal(json_object_to_json_string(json_object_array_get_idx(busy, (size_t)b)),
					    txt);
			assert_int_equal(json_object_get_int64(json_object_array_get_idx(ni, (size_t)b)),
					 v->newidle[c * v->stride + b]);
			assert_int_equal(json_object_get_int64(json_object_array_get_idx(pu, (size_t)b)),
					 v->pulls[c * v->stride + b]);
		}
	}
	for (int l = 0; l < v->nr_lanes; l++) {
		json_object *x = json_object_array_get_idx(lanes, (size_t)l), *pu = obj(x, "pulls");

		assert_string_equal(json_object_get_string(obj(x, "label")), l ? "no-check" : "baseline");
		assert_int_equal(json_object_array_length(pu), v->n);
		for (int b = 0; b < v->n; b++)
			assert_int_equal(json_object_get_int64(json_object_array_get_idx(pu, (size_t)b)),
					 v->pulls[(v->nr_cpus + l) * v->stride + b]);
	}
}

static uint64_t at(json_object *a, int i)
{
	return (uint64_t)json_object_get_int64(json_object_array_get_idx(a, (size_t)(i < 0 ? (int)json_object_array_length(a) + i : i)));
}

static void test_json_timeline(void **state)
{
	const uint64_t t0 = 1000000000ull, end = t0 + 40000000ull;	/* 40 ms */
	struct ir_trace_info ti = { .path = "t.dat", .kernel = "6.1.0", .clock = "local", .nr_cpus = 2,
				    .file_version = 7 };
	struct ir_cpu_obs cpus[2] = { { .busy_ns = 1 }, { .idle_ns = 1 } };
	struct ir_observed ob = { .nr_cpus = 2, .cpu = cpus, .window_start = t0, .window_end = end };
	struct ir_state_params sp;
	struct ir_policy_params pb, pn;
	/* three policies, two lanes kept: the third has no lane */
	struct ir_tally tt[3];
	struct ir_tallies ts = { .n = 3, .t = tt, .reference = 0, .fidelity = -1 };
	struct ir_timeline *tl = ir_timeline_new(2, 0, 0);
	struct ir_report_input in = { .trace = &ti, .obs = &ob, .params = &sp, .tallies = &ts };
	struct ir_timeline_view v;
	json_object *doc, *tj, *x, *m;

	(void)state;
	assert_non_null(tl);
	ir_state_params_default(&sp);
	ir_policy_defaults(IR_POL_BASELINE, &pb);
	ir_policy_defaults(IR_POL_NO_CHECK, &pn);
	assert_int_equal(ir_tally_init(&tt[0], &pb, 2), 0);
	assert_int_equal(ir_tally_init(&tt[1], &pn, 2), 0);
	assert_int_equal(ir_tally_init(&tt[2], &pn, 2), 0);
	assert_int_equal(ir_timeline_set_lanes(tl, 2), 0);
	ir_timeline_start(tl, t0);
	ir_timeline_busy(tl, 0, t0, end);
	/* CPU 0 busy twice over (no replay does that): still a share of 1 */
	ir_timeline_busy(tl, 0, t0, end);
	/* CPU 1 busy 10 us from an odd ns: shares between 0 and 1 */
	ir_timeline_busy(tl, 1, t0 + 30000001ull, t0 + 30010001ull);
	ir_timeline_point(tl, 1, t0, true);
	ir_timeline_point(tl, 1, t0 + 20000000ull, false);
	ir_timeline_lane_pull(tl, 0, t0);
	ir_timeline_lane_pull(tl, 1, end - 1);
	ir_timeline_lane_pull(tl, 1, end - 1);
	ir_timeline_mark(tl, IR_ANOM_MISSING_IDLE_EXIT, 1, t0 + 5);
	ir_timeline_finish(tl);
	in.timeline = tl;
	doc = ir_report_json(&in);
	assert_non_null(doc);
	tj = obj(doc, "timeline");
	assert_int_equal(ir_timeline_get(tl, false, end, &v), 0);
	check_series(tj, &v);
	assert_int_equal(ir_timeline_get(tl, true, end, &v), 0);
	check_series(obj(tj, "detail"), &v);
	/* the hand-placed events, in the overview */
	x = json_object_array_get_idx(obj(tj, "cpus"), 0);
	assert_float_equal(json_object_get_double(json_object_array_get_idx(obj(x, "busy"), 0)), 1.0, 1e-9);
	x = json_object_array_get_idx(obj(tj, "cpus"), 1);
	assert_int_equal(at(obj(x, "newidle"), 0), 1);
	assert_int_equal(at(obj(x, "pulls"), 0), 1);
	{
		json_object *b1 = obj(x, "busy");
		double sum = 0;
		bool part = false;

		for (size_t b = 0; b < json_object_array_length(b1); b++) {
			double f = json_object_get_double(json_object_array_get_idx(b1, b));

			assert_true(f >= 0 && f <= 1);
			part |= f > 0 && f < 1;
			sum += f;
		}
		/* the shares times the bucket width: the 10 us */
		assert_true(part);
		assert_float_equal(sum * num(tj, "bucket_ns"), 10000.0, 1e-3);
	}
	x = json_object_array_get_idx(obj(tj, "policies"), 0);
	assert_int_equal(at(obj(x, "pulls"), 0), 1);
	x = json_object_array_get_idx(obj(tj, "policies"), 1);
	assert_int_equal(at(obj(x, "pulls"), 0), 0);
	assert_int_equal(at(obj(x, "pulls"), -1), 2);
	m = obj(obj(obj(tj, "anomalies"), "missing_idle_exit"), "listed");
	assert_int_equal(json_object_array_length(m), 1);
	assert_int_equal(num(json_object_array_get_idx(m, 0), "ts_ns"), t0 + 5);
	assert_int_equal(num(json_object_array_get_idx(m, 0), "cpu"), 1);
	assert_int_equal(num(obj(obj(tj, "anomalies"), "missing_idle_exit"), "total"), 1);
	assert_int_equal(num(obj(obj(tj, "anomalies"), "missing_idle_exit"), "not_listed"), 0);
	assert_int_equal(num(obj(obj(tj, "anomalies"), "lost_events"), "total"), 0);
	json_object_put(doc);
	ir_timeline_free(tl);
	ir_tally_free(&tt[0]);
	ir_tally_free(&tt[1]);
	ir_tally_free(&tt[2]);
}

/* A randomised policy's per-level cost is each level's mean over seeds,
 * rounded so that the levels add up to the (rounded) mean total; a level
 * no seed used stays 0.  Two seeds: SMT 3 and 4 ns (mean 3.5), MC 1 and
 * 2 ns (1.5); totals 4 and 6, mean 5.  Whichever half gets the last ns,
 * each level is its mean's floor or ceiling and the two add up to 5. */
static void test_seeds_level_cost(void **state)
{
	struct ir_seed_totals tot[2];
	struct ir_policy_run r = { .nr_seeds = 2, .seed_tot = tot };
	struct ir_tally t;
	uint64_t sum = 0;

	(void)state;
	memset(tot, 0, sizeof(tot));
	memset(&t, 0, sizeof(t));
	for (int i = 0; i < 2; i++) {
		tot[i].level_cost_ns[IR_LVL_SMT] = 3 + (uint64_t)i;
		tot[i].level_cost_ns[IR_LVL_MC] = 1 + (uint64_t)i;
		tot[i].cost_ns = 4 + 2 * (uint64_t)i;
		/* idle recovered 2 and 4 ns (mean 3), lost 0 and 0 (mean 0):
		 * exact means, so a sum started off by one shows in the rounding */
		tot[i].idle_recovered_ns = 2 + 2 * (uint64_t)i;
		tot[i].idle_lost_ns = 0;
	}
	t.idle_recovered_ns = 99, t.idle_lost_ns = 99;	/* seed 0's: replaced */
	ir_tally_seeds(&t, &r);
	assert_int_equal(t.cost_ns, 5);
	assert_int_equal(t.idle_recovered_ns, 3);
	assert_int_equal(t.idle_lost_ns, 0);
	assert_in_range(t.level[IR_LVL_SMT].cost_ns, 3, 4);
	assert_in_range(t.level[IR_LVL_MC].cost_ns, 1, 2);
	for (int l = 0; l < IR_LVL__COUNT; l++) {
		if (l != IR_LVL_SMT && l != IR_LVL_MC)
			assert_int_equal(t.level[l].cost_ns, 0);
		sum += t.level[l].cost_ns;
	}
	assert_int_equal(sum, 5);
	/* two seeds are a randomised policy's: ground truth takes their mean */
	{
		struct ir_truth tr;

		memset(&tr, 0, sizeof(tr));
		ir_truth_seeds(&tr, &t);
		assert_true(tr.randomised);
	}
}

/* ir_report_write_json(): success only when the document is in the file.
 * A path in a missing directory and a device that refuses the write (our
 * own full-device node, made in a temp dir) are errors; a new path gets the
 * document, which parses back to the same value. */
static void test_write_json(void **state)
{
	char dir[] = "/tmp/ir-figures-XXXXXX", path[256];
	json_object *doc = json_tokener_parse("{\"idle_traded_ns\": 12, \"k\": [1, 2]}"), *back;

	(void)state;
	assert_non_null(doc);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/missing/r.json", dir);
	assert_int_not_equal(ir_report_write_json(doc, path), 0);
	assert_int_not_equal(access(path, F_OK), 0);

	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(ir_report_write_json(doc, path), 0);
	back = json_object_from_file(path);
	assert_non_null(back);
	assert_true(json_object_equal(doc, back));
	json_object_put(back);
	assert_int_equal(unlink(path), 0);

	/* /dev/full's numbers (1, 7): every write fails with ENOSPC */
	snprintf(path, sizeof(path), "%s/full", dir);
	if (mknod(path, S_IFCHR | 0600, makedev(1, 7)) == 0) {
		assert_int_not_equal(ir_report_write_json(doc, path), 0);
		assert_int_equal(unlink(path), 0);
	} else {
		fprintf(stderr, "not checked: a full device (mknod: %s; needs root)\n", strerror(errno));
	}
	assert_int_equal(rmdir(dir), 0);
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tally),
		cmocka_unit_test(test_tally_cpus),
		cmocka_unit_test(test_model_truth),
		cmocka_unit_test(test_seeds),
		cmocka_unit_test(test_seeds_level_cost),
		cmocka_unit_test(test_report_truth),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_timeline),
		cmocka_unit_test(test_write_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

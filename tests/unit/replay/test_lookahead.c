/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runqueues each level of a newidle walk saw (replay/lookahead.h),
 * through load_balance() (model/lb.c): hand-built probed calls where another
 * CPU takes or brings a task while the call runs.  Expectations by hand:
 * four CPUs, one MC level of single-CPU groups; CPU 1 runs X with Y
 * waiting, so an idle CPU 0 balancing at entry pulls Y (migrate_task,
 * imbalance (2 - 0) >> 1 = 1, Y never ran so it is not cache hot).
 */
#include "ev.h"

#include "model/model.h"
#include "replay/lookahead.h"

#define A 10	/* CPU 0's task, blocks: the newidle call is its */
#define X 20
#define Y 21
#define Z 30

struct lat {
	struct ir_domains *dom;
	int calls;
	bool pulled;
	int32_t pid;
};

/* The model of the recording kernel's walk at its first level. */
static void eval(void *arg, const struct ir_point *pt)
{
	struct lat *l = arg;
	struct ir_decision_ctx ctx;
	struct ir_policy_params p;
	struct ir_decision d = { .nr_tried = 1, .tried = { 0 }, .kind = { IR_LVL_MC }, .stop_level = -1 };
	struct ir_outcome o;

	if (pt->cpu != 0)
		return;
	ir_policy_defaults(IR_POL_MAINLINE, &p);
	ir_decision_ctx_init(&ctx, pt, l->dom);
	ir_outcome_lb(&ctx, &p, &d, &o);
	l->calls++;
	l->pulled = o.pulled;
	l->pid = o.pid;
}

static void probe(struct ir_state *s, uint64_t ts, int64_t cost0)
{
	struct ir_event ev = { .ts = ts, .cpu = 0, .common_pid = A, .type = IR_EV_PROBE_ENTRY };

	ev.probe_entry.cpu = 0;
	ev.probe_entry.v = (struct ir_probe_entry){ .nr_running = 0, .avg_idle = 10 * (int64_t)MS,
		.max_idle_balance_cost = -1, .rd_overload = 1, .ttwu_pending = 0,
		.sd_max_newidle_lb_cost = { cost0, -1, -1 }, .sd_newidle_ratio = { -1, -1, -1 } };
	ir_state_feed(s, &ev);
}

/* CPU 0 runs A, CPU 1 runs X with Y queued, CPUs 2 and 3 idle; A blocks
 * with a newidle call from T0+100us to its exit at T0+160us, level 0's
 * max_newidle_lb_cost 50 us: level 0 reads the runqueues at T0+150us.
 * While it runs CPU 2 takes Y at `take` (0: never) and Z wakes onto
 * CPU 3 behind a running task at `wake_z` (0: never). */
static struct lat run(uint64_t lookahead, uint64_t take, uint64_t wake_z)
{
	struct ir_state_params prm;
	struct ir_topology *t;
	struct lat l = { 0 };
	struct ir_rings rings;
	struct ir_state *s;

	assert_int_equal(ir_topology_from_arg("sockets=1,cores=4,threads=1", &t, NULL, 0), 0);
	l.dom = ir_domains_build(t, NULL, 0);
	assert_non_null(l.dom);
	rings = ir_domains_rings(l.dom);
	ir_state_params_default(&prm);
	prm.probe_seed = true;
	prm.lookahead_max_ns = lookahead;
	s = ir_state_new(4, &prm, &rings, eval, &l);
	assert_non_null(s);

	sw(s, T0, 0, 0, S_RUN, A);
	sw(s, T0 + 1 * US, 1, 0, S_RUN, X);
	wake(s, T0 + 2 * US, 1, X, Y, 1);		/* Y waits behind X */
	other(s, T0 + 3 * US, 2, 0);
	other(s, T0 + 4 * US, 3, 0);
	if (wake_z) {
		sw(s, T0 + 5 * US, 3, 0, S_RUN, 40);	/* CPU 3 runs a task */
	}
	probe(s, T0 + 100 * US, 50 * (int64_t)US);
	if (take) {
		mig(s, take, 2, 0, Y, 1, 2);		/* CPU 2's own balance takes Y */
		sw(s, take + 5 * US, 2, 0, S_RUN, Y);
	}
	if (wake_z)
		wake(s, wake_z, 3, 40, Z, 3);		/* Z waits behind task 40 */
	probe_out(s, T0 + 160 * US, 0, A, 0);
	sw(s, T0 + 170 * US, 0, A, S_SLEEP, 0);
	ir_state_finish(s, T0 + 1 * MS);
	ir_state_free(s);
	ir_domains_free(l.dom);
	ir_topology_free(t);
	assert_int_equal(l.calls, 1);
	return l;
}

/* Y is taken by CPU 2 before level 0 balances: nothing to pull. */
static void test_taken_inside_window(void **state)
{
	struct lat l;

	(void)state;
	l = run(100 * MS, T0 + 120 * US, 0);
	assert_false(l.pulled);
	/* the rule off: every level at entry, where Y still waits */
	l = run(0, T0 + 120 * US, 0);
	assert_true(l.pulled);
	assert_int_equal(l.pid, Y);
}

/* Taken after level 0's time (entry + 50 us), still inside the call: the
 * level saw Y and pulls it. */
static void test_taken_after_level(void **state)
{
	struct lat l;

	(void)state;
	l = run(100 * MS, T0 + 155 * US, 0);
	assert_true(l.pulled);
	assert_int_equal(l.pid, Y);
	/* a cap below the level's cost brings it back to before the take */
	l = run(10 * US, T0 + 120 * US, 0);
	assert_true(l.pulled);
}

/* A task woken onto CPU 3 inside the window, with Y gone: CPU 3 now has
 * two tasks, the level pulls Z (at entry there was nothing to pull). */
static void test_woken_inside_window(void **state)
{
	struct lat l;

	(void)state;
	l = run(100 * MS, T0 + 120 * US, T0 + 130 * US);
	assert_true(l.pulled);
	assert_int_equal(l.pid, Z);
	l = run(0, T0 + 120 * US, T0 + 130 * US);
	assert_true(l.pulled);
	assert_int_equal(l.pid, Y);
}

/* The walk's bound: the median position of the pulls measured, once
 * IR_LA_SHARE_MIN were seen; before, the exit; a given share wins. */
static void test_share(void **state)
{
	struct ir_la_log log = { 0 };

	(void)state;
	assert_int_equal(ir_la_share(&log, 0), 100);
	for (int i = 0; i < IR_LA_SHARE_MIN - 1; i++)
		ir_la_share_add(&log, 70 + (uint64_t)i, 100);	/* 70 .. 76 % */
	assert_int_equal(ir_la_share(&log, 0), 100);
	ir_la_share_add(&log, 770, 1000);			/* 77 % */
	assert_int_equal(ir_la_share(&log, 0), 73);		/* 4th of 8 */
	ir_la_share_add(&log, 5, 4);				/* after the exit: ignored */
	assert_int_equal(log.share_n, IR_LA_SHARE_MIN);
	assert_int_equal(ir_la_share(&log, 90), 90);
	assert_int_equal(ir_la_share(&log, 150), 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taken_inside_window),
		cmocka_unit_test(test_taken_after_level),
		cmocka_unit_test(test_woken_inside_window),
		cmocka_unit_test(test_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

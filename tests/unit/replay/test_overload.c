/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rd->overload as the replay keeps it (replay/state.c): set by
 * add_nr_running() when an rq reaches 2; rewritten by a newidle walk that
 * reaches the top level (probed), by periodic/NOHZ top-level balances once
 * per get_sd_balance_interval() at an unknown phase; prev does not count
 * during its own newidle call.  Expectations are worked out here from the
 * parameters, not taken from the replay.
 */
#include <math.h>

#include "ev.h"

/* 4 CPUs, one flat level: the top level's groups are the 4 CPUs. */
static struct ir_state_params prm(bool probed)
{
	struct ir_state_params p;

	ir_state_params_default(&p);
	p.balance_interval_ns = 8 * MS;
	p.busy_factor = 16;
	p.tick_ns = 4 * MS;
	p.probe_seed = probed;
	return p;
}

/* CPUs 1-3 idle, CPU 0 runs 100 and gets 101 queued (rq at 2: the flag is
 * set), then 100 blocks and 101 runs (rq at 1).  Returns that time. */
static uint64_t overload_then_one(struct ir_state *s)
{
	for (int c = 1; c < 4; c++)
		other(s, T0, c, 0);
	sw(s, T0, 0, 0, S_RUN, 100);
	wake(s, T0 + 10 * US, 0, 100, 101, 0);
	assert_true(ir_state_overload(s, T0 + 10 * US));
	sw(s, T0 + 20 * US, 0, 100, S_SLEEP, 101);
	return T0 + 20 * US;
}

/* probe entry with avg_idle, the one level's max_newidle_lb_cost and
 * newidle_ratio, and the kernel's flag */
static void probe_walk(struct ir_state *s, uint64_t ts, int cpu, int pid, int64_t avg_idle, int64_t cost,
		       int64_t ratio, int ovl)
{
	struct ir_event ev = { .ts = ts, .cpu = cpu, .common_pid = pid, .type = IR_EV_PROBE_ENTRY };

	ev.probe_entry.cpu = cpu;
	ev.probe_entry.v = (struct ir_probe_entry){ .nr_running = 0, .avg_idle = avg_idle,
		.max_idle_balance_cost = -1, .rd_overload = ovl, .ttwu_pending = 0,
		.sd_max_newidle_lb_cost = { cost, -1, -1 }, .sd_newidle_ratio = { ratio, -1, -1 } };
	ir_state_feed(s, &ev);
}

/* No rq at 2 any more: the flag stays while a periodic/NOHZ rewrite is less
 * likely than not.  CPU 0 is busy (its group balances every 8 ms * 16 less
 * one 4 ms jiffy), CPUs 1-3 idle (every 8 ms), each once per interval at an
 * unknown phase: the flag survives (1 - t/8)^3 (1 - t/124) (t in ms;
 * periodic_half_ns()).  A Poisson rate would give ln 2 / (3/8 + 1/124) ms,
 * 1.81 ms against 1.62. */
static void test_periodic_rate(void **state)
{
	struct ir_state_params p = prm(false);
	struct ir_state *s = mk(4, &p, NULL, NULL);
	uint64_t t = overload_then_one(s);
	static const double iv[] = { 124, 8, 8, 8 };
	double d = periodic_half_ns(iv, 4);

	(void)state;
	assert_true(ir_state_overload(s, t + (uint64_t)d - 2 * US));
	assert_false(ir_state_overload(s, t + (uint64_t)d + 2 * US));
	/* the same from an event after that time: the flag is gone for good */
	other(s, t + (uint64_t)d + 2 * US, 1, 0);
	assert_false(ir_state_overload(s, t + (uint64_t)d + 3 * US));
	/* a new rq at 2 sets it again */
	wake(s, t + 3 * MS, 0, 101, 102, 0);
	assert_true(ir_state_overload(s, t + 3 * MS));
	ir_state_free(s);
}

/* --busy-factor 1: CPU 0's group balances as often as the idle ones:
 * (1 - t/8)^4 = 1/2, t = 8 (1 - 2^-1/4) ms. */
static void test_busy_factor(void **state)
{
	struct ir_state_params p = prm(false);
	struct ir_state *s;
	uint64_t t;
	double d = 8.0 * (1.0 - pow(2.0, -0.25)) * (double)MS;

	(void)state;
	p.busy_factor = 1;
	s = mk(4, &p, NULL, NULL);
	t = overload_then_one(s);
	assert_true(ir_state_overload(s, t + (uint64_t)d - 2 * US));
	assert_false(ir_state_overload(s, t + (uint64_t)d + 2 * US));
	ir_state_free(s);
}

/* A group's interval changes while the flag waits: CPU 1 goes busy 0.5 ms
 * after the rq left 2, so its group has covered 0.5/8 of its interval by
 * then and covers the rest at 1/124 per ms (rebalance_domains() compares
 * jiffies with sd->last_balance + the interval it computes at that tick).
 * The test's own model of the survival, solved by bisection. */
static double busy_after_surv(double t)
{
	double x1 = t <= 0.5 ? t / 8 : 0.5 / 8 + (t - 0.5) / 124;

	return (1 - t / 124) * (1 - x1) * (1 - t / 8) * (1 - t / 8);
}

static void test_periodic_interval_changes(void **state)
{
	struct ir_state_params p = prm(false);
	struct ir_state *s = mk(4, &p, NULL, NULL);
	uint64_t t = overload_then_one(s);
	double lo = 0.5, hi = 8, d;

	(void)state;
	for (int k = 0; k < 200; k++) {
		double m = (lo + hi) / 2;

		if (busy_after_surv(m) > 0.5)
			lo = m;
		else
			hi = m;
	}
	d = lo * (double)MS;
	sw(s, t + 500 * US, 1, 0, S_RUN, 201);
	assert_true(ir_state_overload(s, t + (uint64_t)d - 2 * US));
	assert_false(ir_state_overload(s, t + (uint64_t)d + 2 * US));
	ir_state_free(s);
}

/* overload_then_one() on a new state, then 200 runs on CPU 1: its newidle
 * call is the walk the cases below probe.  Returns the state, *t the time. */
static struct ir_state *walk_start(const struct ir_state_params *p, struct pts *pts, uint64_t *t)
{
	struct ir_state *s = mk(4, p, NULL, pts);

	*t = overload_then_one(s);
	sw(s, *t + 10 * US, 1, 0, S_RUN, 200);
	return s;
}

/*
 * A probed newidle call by 200 on CPU 1 that reaches the top level (avg_idle
 * >= the level's max_newidle_lb_cost, nothing pulled) rewrites the flag from
 * the rqs: none at 2, so 0.  The call itself read it set (its point says so).
 */
static int walk_case(int64_t avg_idle, int64_t cost, int ret, bool other_rq_at_2, bool ni_random,
		     int64_t ratio, bool *point_overload)
{
	struct ir_state_params p = prm(true);
	struct pts pts;
	struct ir_state *s;
	uint64_t t, e;
	int after;

	p.ni_random = ni_random;
	s = walk_start(&p, &pts, &t);
	if (other_rq_at_2) {
		sw(s, t + 20 * US, 2, 0, S_RUN, 300);
		wake(s, t + 30 * US, 2, 300, 301, 2);
	}
	e = t + 100 * US;
	probe_walk(s, e, 1, 200, avg_idle, cost, ratio, 1);
	probe_out(s, e + 10 * US, 1, 200, ret);
	sw(s, e + 20 * US, 1, 200, S_SLEEP, 0);
	after = ir_state_overload(s, e + 30 * US);
	assert_int_equal(pts.n, 0);	/* still open: the CPU is idle */
	ir_state_finish(s, e + 40 * US);
	assert_int_equal(pts.n, 1);
	*point_overload = pts.p[0].overload;
	ir_state_free(s);
	return after;
}

static void test_walk_rewrite(void **state)
{
	bool po;

	(void)state;
	/* reaches the top: cleared; the call's own point read it set */
	assert_false(walk_case(1 * MS, 50 * US, 0, false, false, -1, &po));
	assert_true(po);
	/* avg_idle < the level's cost: the walk stopped before it */
	assert_true(walk_case(40 * US, 50 * US, 0, false, false, -1, &po));
	/* it pulled: not known to have reached the top */
	assert_true(walk_case(1 * MS, 50 * US, 1, false, false, -1, &po));
	/* another rq at 2: the rewrite keeps it */
	assert_true(walk_case(1 * MS, 50 * US, 0, true, false, -1, &po));
	/* NI_RANDOM: balanced with probability (2 + ratio) / 1024; cleared when
	 * that is more likely than not (ratio 512: 514/1024), kept otherwise */
	assert_false(walk_case(1 * MS, 50 * US, 0, false, true, 512, &po));
	assert_true(walk_case(1 * MS, 50 * US, 0, false, true, 100, &po));
}

/* The top level's scan comes at an unknown time within the walk: CPU 2's rq
 * leaves 2 a quarter (or three quarters) into CPU 1's walk, so the scan came
 * after that with probability 3/4 (1/4): an expected rewrite of -ln(1/4) >
 * ln 2, cleared (-ln(3/4) < ln 2, kept).  The call's own point read the flag
 * with CPU 2 at 2; CPU 0's later point says why the flag is what it is. */
static void scan_in_walk(uint64_t leave, bool *after, enum ir_overload_why *why_entry,
			 enum ir_overload_why *why_later)
{
	struct ir_state_params p = prm(true);
	struct pts pts;
	struct ir_state *s = mk(4, &p, NULL, &pts);
	uint64_t t = overload_then_one(s), e = t + 100 * US;

	sw(s, t + 10 * US, 1, 0, S_RUN, 200);
	sw(s, t + 20 * US, 2, 0, S_RUN, 300);
	wake(s, t + 30 * US, 2, 300, 301, 2);
	probe_walk(s, e, 1, 200, 1 * MS, 50 * US, -1, 1);
	sw(s, e + leave, 2, 300, S_SLEEP, 301);
	probe_out(s, e + 100 * US, 1, 200, 0);
	*after = ir_state_overload(s, e + 101 * US);
	sw(s, e + 110 * US, 1, 200, S_SLEEP, 0);
	sw(s, e + 200 * US, 0, 101, S_SLEEP, 0);
	ir_state_finish(s, e + 300 * US);
	assert_int_equal(pts.n, 2);
	*why_entry = pts.p[pts.p[0].cpu == 1 ? 0 : 1].overload_why;
	*why_later = pts.p[pts.p[0].cpu == 0 ? 0 : 1].overload_why;
	ir_state_free(s);
}

static void test_scan_within_walk(void **state)
{
	enum ir_overload_why entry, later;
	bool after;

	(void)state;
	scan_in_walk(25 * US, &after, &entry, &later);
	assert_false(after);
	assert_int_equal(entry, IR_OVL_RQ_AT_2);
	assert_int_equal(later, IR_OVL_CLEARED_WALK);
	scan_in_walk(75 * US, &after, &entry, &later);
	assert_true(after);
	assert_int_equal(later, IR_OVL_KEPT);
}

/* prev is dequeued before its own newidle call: 201 arriving on CPU 1 during
 * 200's probed call makes that rq 1, not 2.  Without probes the call is not
 * seen and the rq counts 2 (prev still current in the events). */
static void test_prev_dequeued(void **state)
{
	(void)state;
	for (int probed = 0; probed < 2; probed++) {
		struct ir_state_params p = prm(probed);
		struct ir_state *s = mk(4, &p, NULL, NULL);

		for (int c = 0; c < 4; c++)
			other(s, T0, c, 0);
		sw(s, T0 + 10 * US, 1, 0, S_RUN, 200);
		probe_walk(s, T0 + 100 * US, 1, 200, 10 * US, 50 * US, -1, 0);
		wake(s, T0 + 110 * US, 0, 0, 201, 1);		/* lands in the lock drop */
		assert_int_equal(ir_state_overload(s, T0 + 110 * US), !probed);
		probe_out(s, T0 + 120 * US, 1, 200, 1);
		sw(s, T0 + 130 * US, 1, 200, S_SLEEP, 201);
		assert_int_equal(ir_state_nr_running(s, 1), 1);
		ir_state_free(s);
	}
}

/*
 * A wake-list wakeup queued during a walk stops it after the level in
 * progress (sched_balance_newidle(), newidle_balance() from v5.13,
 * e5e678e4fea2: "if (pulled_task || this_rq->nr_running > 0 ||
 * this_rq->ttwu_pending) break;").  CPU 3 (idle) wakes 400 at stop_at into
 * CPU 1's deterministic walk of 100 us; after the call CPU 1's idle task
 * runs its wake list (sched_wakeup of 400 emitted on CPU 1).  The top
 * level's scan, uniform over the walk, came before stop_at with probability
 * stop_at / 100 us: the flag survives with 1 - that (ln 2 threshold: kept
 * at 25 us, cleared at 75 us).  Before v5.13 nothing stops the walk.
 * Returns the flag after the wakeup; *p the probability it gives.
 */
static bool ttwu_stop_case(uint64_t stop_at, int kmajor, int kminor, bool wake_list, double *p)
{
	struct ir_state_params prm_ = prm(true);
	struct ir_state *s;
	uint64_t t, e;
	bool after;

	prm_.kernel_major = kmajor;
	prm_.kernel_minor = kminor;
	s = walk_start(&prm_, NULL, &t);
	e = t + 100 * US;
	probe_walk(s, e, 1, 200, 1 * MS, 50 * US, -1, 1);
	waking(s, e + stop_at, 3, 0, 400, 1);
	probe_out(s, e + 100 * US, 1, 200, 0);
	sw(s, e + 110 * US, 1, 200, S_SLEEP, 0);
	if (wake_list)
		wake(s, e + 120 * US, 1, 0, 400, 1);	/* sched_ttwu_pending() on CPU 1 */
	else
		wake(s, e + 120 * US, 3, 0, 400, 1);	/* an ordinary remote wakeup */
	after = ir_state_overload(s, e + 130 * US);
	*p = ir_state_overload_p(s, e + 130 * US);
	ir_state_free(s);
	return after;
}

static void test_ttwu_pending_stop(void **state)
{
	double p;

	(void)state;
	assert_true(ttwu_stop_case(25 * US, 6, 1, true, &p));
	assert_float_equal(p, 0.75, 1e-9);
	assert_false(ttwu_stop_case(75 * US, 6, 1, true, &p));
	assert_float_equal(p, 0.25, 1e-9);
	/* v5.12: the walk goes on to the top whatever is queued */
	assert_false(ttwu_stop_case(25 * US, 5, 12, true, &p));
	assert_float_equal(p, 0.0, 1e-12);
	/* the wakeup was not c's wake list: nothing stopped the walk */
	assert_false(ttwu_stop_case(25 * US, 6, 1, false, &p));
	assert_float_equal(p, 0.0, 1e-12);
}

/*
 * The probability the reconstruction gives the flag, what the fidelity page
 * judges the NI_RANDOM die by: a walk balances the top level with
 * probability (2 + ratio) / 1024, so the flag survives it with 1 - that:
 * 510/1024 (ratio 512: reads clear), 922/1024 (ratio 100: reads set).  The
 * periodic/NOHZ rate is an assumption, not a die: once a rewrite is more
 * likely than not the flag reads clear with probability 1.
 */
static void test_overload_p(void **state)
{
	static const struct { int64_t ratio; double p; bool set; } want[] = {
		{ 512, 510.0 / 1024.0, false }, { 100, 922.0 / 1024.0, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct ir_state_params p = prm(true);
		struct pts pts;
		uint64_t t, e;
		struct ir_state *s = (p.ni_random = true, walk_start(&p, &pts, &t));
		int k;

		e = t + 100 * US;
		probe_walk(s, e, 1, 200, 1 * MS, 50 * US, want[i].ratio, 1);
		probe_out(s, e + 10 * US, 1, 200, 0);
		sw(s, e + 20 * US, 1, 200, S_SLEEP, 0);
		sw(s, e + 30 * US, 0, 101, S_SLEEP, 0);	/* CPU 0's point reads the flag */
		/* the periodic balances then surely came (test_periodic_rate) */
		assert_float_equal(ir_state_overload_p(s, e + 1000 * MS), 0.0, 1e-12);
		ir_state_finish(s, e + 50 * US);
		assert_int_equal(pts.n, 2);
		k = pts.p[0].cpu == 0 ? 0 : 1;
		assert_int_equal(pts.p[k].cpu, 0);
		assert_float_equal(pts.p[k].overload_p, want[i].p, 1e-9);
		assert_int_equal(pts.p[k].overload, want[i].set);
		assert_int_equal(pts.p[k].overload_why, want[i].set ? IR_OVL_KEPT : IR_OVL_CLEARED_WALK);
		ir_state_free(s);
	}
}

/*
 * try_to_wake_up() enqueues before it emits sched_wakeup (v6.1
 * ttwu_do_activate(): activate_task(), add_nr_running() setting the flag at
 * 2, then ttwu_do_wakeup()'s trace_sched_wakeup()), after the waker's
 * sched_waking.  CPU 0 (running 100) emits sched_waking of 101 at tw and its
 * sched_wakeup onto CPU 0 (rq 1 -> 2) at tw + 100 us; CPU 1's probed call
 * entered at tw + at, with the flag clear before (seeded 0 by CPU 2's
 * probe).  The enqueue, uniform over the window, came before that entry with
 * probability at / 100 us: the call read the flag set with that probability
 * (reads set from 1/2, why rq_at_2).  An entry before the waking reads what
 * it read; a wake-list wakeup (its sched_waking on idle CPU 3, the
 * sched_wakeup emitted on CPU 0 by sched_ttwu_pending()) is enqueued right
 * before its event: nothing earlier read it.  Returns CPU 1's point.
 */
static struct ir_point enqueue_case(int64_t at, bool wake_list)
{
	struct ir_state_params p = prm(true);
	struct pts pts;
	struct ir_state *s = mk(4, &p, NULL, &pts);
	uint64_t tw = T0 + 100 * US;
	struct ir_point pt;

	other(s, T0, 3, 0);
	sw(s, T0, 0, 0, S_RUN, 100);
	sw(s, T0 + 1 * US, 1, 0, S_RUN, 200);
	sw(s, T0 + 2 * US, 2, 0, S_RUN, 300);
	probe_walk(s, T0 + 10 * US, 2, 300, 10 * US, 50 * US, -1, 0);	/* seeds the flag: 0 */
	probe_out(s, T0 + 11 * US, 2, 300, 0);
	sw(s, T0 + 12 * US, 2, 300, S_SLEEP, 0);
	/* CPU 1's call: avg_idle under the level's cost, so no walk of its own */
	if (at < 0)
		probe_walk(s, (uint64_t)((int64_t)tw + at), 1, 200, 10 * US, 50 * US, -1, 0);
	if (wake_list)
		waking(s, tw, 3, 0, 101, 0);
	else
		waking(s, tw, 0, 100, 101, 0);
	if (at >= 0)
		probe_walk(s, tw + (uint64_t)at, 1, 200, 10 * US, 50 * US, -1, 0);
	wake(s, tw + 100 * US, 0, 100, 101, 0);
	assert_int_equal(ir_state_nr_running(s, 0), 2);
	probe_out(s, tw + 110 * US, 1, 200, 0);
	sw(s, tw + 120 * US, 1, 200, S_SLEEP, 0);
	ir_state_finish(s, tw + 200 * US);
	assert_int_equal(pts.n, 2);
	pt = pts.p[pts.p[0].cpu == 1 ? 0 : 1];
	assert_int_equal(pt.cpu, 1);
	ir_state_free(s);
	return pt;
}

static void test_enqueue_before_wakeup(void **state)
{
	struct ir_point pt;

	(void)state;
	pt = enqueue_case(25 * US, false);
	assert_float_equal(pt.overload_p, 0.25, 1e-9);
	assert_false(pt.overload);
	pt = enqueue_case(75 * US, false);
	assert_float_equal(pt.overload_p, 0.75, 1e-9);
	assert_true(pt.overload);
	assert_int_equal(pt.overload_why, IR_OVL_RQ_AT_2);
	/* entered before the waking: the enqueue came after it */
	pt = enqueue_case(-10 * (int64_t)US, false);
	assert_float_equal(pt.overload_p, 0.0, 1e-12);
	assert_false(pt.overload);
	/* a wake-list wakeup: enqueued at its event */
	pt = enqueue_case(75 * US, true);
	assert_float_equal(pt.overload_p, 0.0, 1e-12);
	assert_false(pt.overload);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_periodic_rate),
		cmocka_unit_test(test_busy_factor),
		cmocka_unit_test(test_periodic_interval_changes),
		cmocka_unit_test(test_walk_rewrite),
		cmocka_unit_test(test_prev_dequeued),
		cmocka_unit_test(test_scan_within_walk),
		cmocka_unit_test(test_ttwu_pending_stop),
		cmocka_unit_test(test_overload_p),
		cmocka_unit_test(test_enqueue_before_wakeup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

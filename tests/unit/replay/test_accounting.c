/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-CPU accounting: idle/busy time, avg_idle (SPEC 3, 8), overload,
 * nr_running, idle while waiting, with exact numbers. */
#include <math.h>

#include "ev.h"

/* CPU 0 runs, blocks, idles 4.5 us, runs again; CPU 1 is first seen late. */
static void test_idle_busy_entries(void **state)
{
	struct pts pts;
	struct ir_state *s = mk(2, NULL, NULL, &pts);
	const struct ir_observed *o;

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);			/* window opens; CPU 0 idle before */
	/* CPU 1's first event comes from pid 200: it was running 200 all along */
	wake(s, T0 + 1 * US, 1, 200, 201, 1);
	sw(s, T0 + 3 * US, 0, 100, S_SLEEP, 0);		/* busy 3 us */
	wake(s, T0 + 7 * US, 0, 0, 100, 0);
	sw(s, T0 + 7500, 0, 0, S_RUN, 100);		/* idle 4.5 us */
	sw(s, T0 + 8 * US, 1, 200, S_SLEEP, 201);	/* CPU 1 stays busy */
	ir_state_finish(s, T0 + 10 * US);

	o = ir_state_observed(s);
	assert_int_equal(o->window_start, T0);
	assert_int_equal(o->window_end, T0 + 10 * US);
	assert_int_equal(o->cpu[0].idle_ns, 4500);
	assert_int_equal(o->cpu[0].busy_ns, 5500);
	assert_int_equal(o->cpu[0].idle_entries, 1);
	/* inferred busy from the window start, not from its first event */
	assert_int_equal(o->cpu[1].idle_ns, 0);
	assert_int_equal(o->cpu[1].busy_ns, 10 * US);
	assert_int_equal(o->cpu[1].idle_entries, 0);
	assert_int_equal(ir_state_curr(s, 0), 100);
	assert_int_equal(ir_state_curr(s, 1), 201);
	/* a CPU the state does not have: no task (-1), nothing running, no
	 * avg_idle; never a read past the per-CPU array */
	for (int c = -1; c <= 2; c += 3) {
		assert_int_equal(ir_state_curr(s, c), -1);
		assert_int_equal(ir_state_nr_running(s, c), 0);
		assert_int_equal(ir_state_avg_idle(s, c), 0);
	}
	assert_int_equal(ir_state_nr_running(s, 1), 1);
	ir_state_free(s);
}

/* One CPU: 100 blocks at b, is woken at b + d, runs again.  Returns the next free ts. */
static uint64_t idle_period(struct ir_state *s, uint64_t b, uint64_t d)
{
	sw(s, b, 0, 100, S_SLEEP, 0);
	wake(s, b + d, 0, 0, 100, 0);
	sw(s, b + d + 1 * US, 0, 0, S_RUN, 100);
	return b + d + 10 * US;
}

static void test_avg_idle_sequence(void **state)
{
	struct ir_state *s = mk(1, NULL, NULL, NULL);
	uint64_t t;

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	/* initial 2 * sysctl_sched_migration_cost */
	assert_int_equal(ir_state_avg_idle(s, 0), 1000000);
	t = idle_period(s, T0 + 100 * US, 200 * US);
	/* 1e6 + (200000 - 1e6) / 8 */
	assert_int_equal(ir_state_avg_idle(s, 0), 900000);
	t = idle_period(s, t, 500 * US);
	/* 900000 + (500000 - 900000) / 8 */
	assert_int_equal(ir_state_avg_idle(s, 0), 850000);
	/* a second wakeup with no new idle period takes no sample */
	sw(s, t, 0, 100, S_PRE, 101);
	wake(s, t + 1 * US, 0, 101, 102, 0);
	assert_int_equal(ir_state_avg_idle(s, 0), 850000);
	ir_state_free(s);
}

/* diff = -100001: / 8 truncates to -12500, >> 3 floors to -12501. */
static void test_avg_idle_shift_negative(void **state)
{
	struct ir_state_params p;
	struct ir_state *a, *b;

	(void)state;
	ir_state_params_default(&p);
	a = mk(1, &p, NULL, NULL);
	p.avg_idle_shift = true;
	b = mk(1, &p, NULL, NULL);
	sw(a, T0, 0, 0, S_RUN, 100);
	sw(b, T0, 0, 0, S_RUN, 100);
	idle_period(a, T0 + 100 * US, 899999);
	idle_period(b, T0 + 100 * US, 899999);
	assert_int_equal(ir_state_avg_idle(a, 0), 987500);
	assert_int_equal(ir_state_avg_idle(b, 0), 987499);
	ir_state_free(a);
	ir_state_free(b);
}

/* Capped at 2 * max_idle_balance_cost after the update. */
static void test_avg_idle_cap(void **state)
{
	struct ir_state_params p;
	struct ir_state *s;

	(void)state;
	ir_state_params_default(&p);
	p.max_idle_balance_cost = 600000;
	s = mk(1, &p, NULL, NULL);
	sw(s, T0, 0, 0, S_RUN, 100);
	idle_period(s, T0 + 100 * US, 5 * MS);	/* 1e6 + 4e6/8 = 1.5e6 > 1.2e6 */
	assert_int_equal(ir_state_avg_idle(s, 0), 1200000);
	ir_state_free(s);
}

/* sched_wakeup_new samples nothing and leaves idle_stamp set, so the next
 * wakeup samples the whole span since the newidle entry (SPEC 3, 8). */
static void test_avg_idle_fork_inflated(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);
	uint64_t b = T0 + 100 * US;

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 500);				/* CPU 1 runs 500 */
	sw(s, b, 0, 100, S_SLEEP, 0);			/* idle_stamp = b */
	wake_new(s, b + 100 * US, 1, 500, 300, 0);	/* fork placed on CPU 0 */
	assert_int_equal(ir_state_avg_idle(s, 0), 1000000);
	sw(s, b + 110 * US, 0, 0, S_RUN, 300);
	assert_int_equal(ir_state_avg_idle(s, 0), 1000000);
	wake(s, b + 600 * US, 1, 500, 100, 0);		/* delta 600 us, not 490 */
	assert_int_equal(ir_state_avg_idle(s, 0), 1000000 - 50000);
	ir_state_free(s);
}

/* A LATE point (a task arrived during the probed balance's lock drop)
 * clears idle_stamp: the following wakeup takes no sample. */
static void test_avg_idle_late_clears_stamp(void **state)
{
	struct pts pts;
	struct ir_state_params p;
	struct ir_state *s;
	uint64_t b = T0 + 100 * US, c;

	(void)state;
	ir_state_params_default(&p);
	p.probe_seed = true;
	s = mk(2, &p, NULL, &pts);
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 500);
	sw(s, b, 0, 100, S_SLEEP, 0);			/* IDLE point, idle_stamp live */
	wake_new(s, b + 10 * US, 1, 500, 300, 0);
	sw(s, b + 20 * US, 0, 0, S_RUN, 300);
	c = b + 1 * MS;
	probe_in(s, c - 30 * US, 0, 300, 0, 1);
	wake_new(s, c - 10 * US, 1, 500, 400, 0);	/* arrives inside the call */
	probe_out(s, c - 5 * US, 0, 300, 1);
	sw(s, c, 0, 300, S_SLEEP, 400);			/* LATE point */
	assert_int_equal(pts.n, 2);
	assert_int_equal(pts.p[0].kind, IR_PT_IDLE);
	assert_int_equal(pts.p[1].kind, IR_PT_LATE);
	assert_int_equal(pts.p[1].idle_ns, 0);
	wake(s, c + 300 * US, 1, 500, 100, 0);
	assert_int_equal(ir_state_avg_idle(s, 0), 1000000);
	ir_state_free(s);
}

/* An observed newidle pull clears idle_stamp too. */
static void test_avg_idle_pull_clears_stamp(void **state)
{
	struct pts pts;
	struct ir_state *s = mk(2, NULL, NULL, &pts);
	uint64_t b = T0 + 100 * US, c;

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 200);
	sw(s, b, 0, 100, S_SLEEP, 0);			/* idle_stamp live */
	wake_new(s, b + 10 * US, 1, 200, 300, 0);
	sw(s, b + 20 * US, 0, 0, S_RUN, 300);
	wake(s, b + 30 * US, 1, 200, 201, 1);		/* idle_stamp of CPU 0 untouched */
	assert_int_equal(ir_state_avg_idle(s, 0), 1000000);
	c = b + 2 * MS;
	mig(s, c, 0, 300, 201, 1, 0);			/* CPU 0 pulls 201 ... */
	sw(s, c + 5 * US, 0, 300, S_SLEEP, 201);	/* ... as its current task blocks */
	assert_int_equal(ir_state_observed(s)->newidle_pulls, 1);
	wake(s, c + 500 * US, 1, 200, 300, 0);
	assert_int_equal(ir_state_avg_idle(s, 0), 1000000);
	ir_state_free(s);
}

/* rd->overload: set at 2 runnable, persists one tick after, then false. */
/* SPEC 9, ttwu_pending (v5.13+): 100 is woken by CPU 1 (sched_waking there)
 * before CPU 0's blocking switch, and CPU 0's idle task emits its
 * sched_wakeup after it: a wake-list wakeup, so newidle returned before
 * stamping.  idle_stamp keeps its old value: 0 here, so no sample. */
static void ttwu_case(int major, int minor, bool probed, uint64_t *avg, bool *pending)
{
	struct pts pts;
	struct ir_state_params p;
	struct ir_state *s;
	uint64_t b = T0 + 1 * MS;

	ir_state_params_default(&p);
	p.kernel_major = major;
	p.kernel_minor = minor;
	p.probe_seed = probed;
	s = mk(2, &p, NULL, &pts);
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 500);
	waking(s, b - 20 * US, 1, 500, 100, 0);
	other(s, b - 10 * US, 0, 100);			/* 100 still ran after the waking */
	if (probed)
		probe_in(s, b - 5 * US, 0, 100, 1, 0);
	if (probed)
		probe_out(s, b - 4 * US, 0, 100, 0);
	sw(s, b, 0, 100, S_SLEEP, 0);
	*avg = ir_state_avg_idle(s, 0);
	wake(s, b + 30 * US, 0, 0, 100, 0);		/* by CPU 0's idle task */
	sw(s, b + 40 * US, 0, 0, S_RUN, 100);
	assert_true(pts.n >= 1);
	*pending = pts.p[pts.n - 1].ttwu_pending;
	*avg = ir_state_avg_idle(s, 0) - *avg;	/* what the wakeup changed */
	ir_state_free(s);
}

static void test_ttwu_pending(void **state)
{
	uint64_t d;
	bool pending;

	(void)state;
	/* 6.1, from the events: no stamp, no sample */
	ttwu_case(6, 1, false, &d, &pending);
	assert_true(pending);
	assert_int_equal(d, 0);
	/* 5.12 has no such bail: the stamp at the switch, a 30 us sample */
	ttwu_case(5, 12, false, &d, &pending);
	assert_false(pending);
	assert_int_not_equal(d, 0);
	/* the probe says so too */
	ttwu_case(6, 1, true, &d, &pending);
	assert_true(pending);
	assert_int_equal(d, 0);
}

/* Where avg_idle is sampled (SPEC 9): a wakeup of a task still on its rq
 * (ttwu_runnable()) samples up to v6.2, not from v6.3 (160fb0d83f20). */
static void runnable_case(int major, int minor, uint64_t *before, uint64_t *after)
{
	struct ir_state_params p;
	struct ir_state *s;
	uint64_t b = T0 + 1 * MS;

	ir_state_params_default(&p);
	p.kernel_major = major;
	p.kernel_minor = minor;
	s = mk(2, &p, NULL, NULL);
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 500);
	wake_new(s, T0 + 1 * US, 1, 500, 101, 0);	/* 101 waits on CPU 0 */
	mig(s, T0 + 2 * US, 1, 500, 101, 0, 1);		/* ... moved to CPU 1's queue */
	sw(s, b, 0, 100, S_SLEEP, 0);			/* CPU 0 idle, stamp b */
	mig(s, b + 10 * US, 0, 0, 101, 1, 0);		/* nohz pull: stamp stays */
	*before = ir_state_avg_idle(s, 0);
	wake(s, b + 100 * US, 1, 500, 101, 0);		/* 101 still queued: ttwu_runnable() */
	*after = ir_state_avg_idle(s, 0);
	ir_state_free(s);
}

static void test_sample_site_by_release(void **state)
{
	uint64_t a, b;

	(void)state;
	runnable_case(6, 2, &a, &b);
	assert_int_equal(b, a + (100000 - (int64_t)a) / 8);
	runnable_case(6, 3, &a, &b);
	assert_int_equal(b, a);
	runnable_case(-1, -1, &a, &b);			/* unknown: the newest rule */
	assert_int_equal(b, a);
}

static void test_overload(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);
	uint64_t t1 = T0 + 1 * MS, t2 = T0 + 2 * MS;
	double d;

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 0);
	assert_false(ir_state_overload(s, T0));
	wake(s, t1 - 1, 1, 0, 101, 1);			/* CPU 1: one runnable */
	assert_false(ir_state_overload(s, t1 - 1));
	wake(s, t1, 0, 100, 102, 0);			/* CPU 0: two */
	assert_true(ir_state_overload(s, t1));
	assert_int_equal(ir_state_nr_running(s, 0), 2);
	sw(s, t2, 0, 100, S_SLEEP, 102);		/* back to one */
	assert_int_equal(ir_state_nr_running(s, 0), 1);
	assert_true(ir_state_overload(s, t2));
	/* sticky until a periodic/NOHZ top-level rewrite is more likely than
	 * not: default interval 2 ms per CPU (4 ms), CPU 1 idle, CPU 0 busy
	 * (x16 less one 4 ms jiffy), each once per interval at an unknown
	 * phase: (1 - t/4) (1 - t/60) = 1/2 (test_overload.c) */
	{
		static const double iv[] = { 60, 4 };

		d = periodic_half_ns(iv, 2);
	}
	assert_true(ir_state_overload(s, t2 + (uint64_t)d - 1 * US));
	assert_false(ir_state_overload(s, t2 + (uint64_t)d + 1 * US));
	ir_state_free(s);
}

/* nr_running through wakeups, preemption, blocks, migrations and exit. */
static void test_nr_running(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);
	uint64_t t = T0;

	(void)state;
	sw(s, t, 0, 0, S_RUN, 100);
	other(s, t, 1, 0);
	assert_int_equal(ir_state_nr_running(s, 0), 1);
	assert_int_equal(ir_state_nr_running(s, 1), 0);
	wake(s, t += US, 0, 100, 101, 0);
	wake(s, t += US, 0, 100, 102, 0);
	assert_int_equal(ir_state_nr_running(s, 0), 3);
	sw(s, t += US, 0, 100, S_PRE, 101);		/* preempted: still runnable */
	assert_int_equal(ir_state_nr_running(s, 0), 3);
	assert_int_equal(ir_state_curr(s, 0), 101);
	sw(s, t += US, 0, 101, S_SLEEP, 102);		/* blocks */
	assert_int_equal(ir_state_nr_running(s, 0), 2);
	mig(s, t += US, 1, 0, 100, 0, 1);		/* CPU 1 (idle) pulls 100 */
	assert_int_equal(ir_state_nr_running(s, 0), 1);
	assert_int_equal(ir_state_nr_running(s, 1), 1);
	sw(s, t += US, 1, 0, S_RUN, 100);
	assert_int_equal(ir_state_nr_running(s, 1), 1);
	assert_int_equal(ir_state_curr(s, 1), 100);
	/* a wakeup of an already queued/running task changes nothing */
	wake(s, t += US, 1, 100, 100, 1);
	assert_int_equal(ir_state_nr_running(s, 1), 1);
	sw(s, t += US, 0, 102, S_DEAD, 0);		/* exits */
	assert_int_equal(ir_state_nr_running(s, 0), 0);
	assert_int_equal(ir_state_curr(s, 0), 0);
	sw(s, t += US, 1, 100, S_SLEEP, 0);
	assert_int_equal(ir_state_nr_running(s, 1), 0);
	ir_state_free(s);
}

/* Idle while waiting: CPU 0 idle while 201 waits on CPU 1 for 4 us; a task
 * waiting on the idle CPU itself does not count. */
static void test_idle_while_waiting(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);

	(void)state;
	other(s, T0, 0, 0);				/* CPU 0 idle */
	other(s, T0, 1, 200);				/* CPU 1 runs 200 */
	wake(s, T0 + 1 * US, 1, 200, 201, 1);		/* 201 waits on CPU 1 */
	sw(s, T0 + 5 * US, 1, 200, S_SLEEP, 201);	/* waits no more */
	/* a task queued on idle CPU 0 only: no other idle CPU, nothing counts */
	wake(s, T0 + 6 * US, 1, 201, 202, 0);
	sw(s, T0 + 9 * US, 0, 0, S_RUN, 202);
	ir_state_finish(s, T0 + 10 * US);
	assert_int_equal(ir_state_observed(s)->idle_while_waiting_ns, 4 * US);
	ir_state_free(s);
}

/* Thousands of tasks (the task table grows and its chains are shared):
 * each is woken onto CPU 1's queue, then runs there and blocks.  Every one
 * must be found again, so the queue ends empty. */
static void test_many_tasks(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);
	const int n = 3000;
	uint64_t ts = T0;

	(void)state;
	sw(s, ts, 1, 0, S_RUN, 100);
	other(s, ts, 0, 0);
	for (int i = 0; i < n; i++)
		wake(s, ++ts, 0, 0, 1000 + 7 * i, 1);
	assert_int_equal(ir_state_nr_running(s, 1), n + 1);
	for (int i = 0; i < n; i++) {
		int prev = i ? 1000 + 7 * (i - 1) : 100;

		sw(s, ++ts, 1, prev, S_SLEEP, 1000 + 7 * i);
		assert_int_equal(ir_state_nr_running(s, 1), n - i);
	}
	assert_int_equal(ir_state_curr(s, 1), 1000 + 7 * (n - 1));
	ir_state_free(s);
}

/*
 * The cap after a probed call that walked (v6.1 newidle_balance():
 * max_idle_balance_cost = max(itself, curr_cost) at its end).  CPU 0's call
 * reads max_idle_balance_cost 100 us and avg_idle 1 ms (the seed), lasts
 * 1.5 ms; 100 then sleeps and is woken ~20 ms later: the sample takes
 * avg_idle to 1 ms + (~20 - 1) / 8 ms > 3 ms, capped at 2 x 1.5 ms = 3 ms.
 * A call that bailed early (flag clear, avg_idle under the first level's
 * cost) leaves the cap at 2 x 100 us.
 */
static uint64_t walked_cap_case(int ovl, int64_t cost0, int ttwu)
{
	struct ir_state_params p;
	struct ir_state *s;
	struct ir_event ev = { .ts = T0 + 1 * MS, .cpu = 0, .common_pid = 100, .type = IR_EV_PROBE_ENTRY };
	uint64_t a;

	ir_state_params_default(&p);
	p.probe_seed = true;
	s = mk(2, &p, NULL, NULL);
	sw(s, T0, 0, 0, S_RUN, 100);
	sw(s, T0, 1, 0, S_RUN, 500);
	ev.probe_entry.cpu = 0;
	ev.probe_entry.v = (struct ir_probe_entry){ .nr_running = 0, .avg_idle = 1 * MS,
		.max_idle_balance_cost = 100 * US, .rd_overload = ovl, .ttwu_pending = ttwu,
		.sd_max_newidle_lb_cost = { cost0, -1, -1 }, .sd_newidle_ratio = { -1, -1, -1 } };
	ir_state_feed(s, &ev);
	probe_out(s, T0 + 2500 * US, 0, 100, 0);
	sw(s, T0 + 2510 * US, 0, 100, S_SLEEP, 0);
	wake(s, T0 + 22 * MS, 1, 500, 100, 0);
	a = ir_state_avg_idle(s, 0);
	ir_state_free(s);
	return a;
}

static void test_avg_idle_cap_after_walk(void **state)
{
	(void)state;
	assert_int_equal(walked_cap_case(1, 50 * US, 0), 2 * 1500 * US);
	assert_int_equal(walked_cap_case(0, 50 * US, 0), 2 * 100 * US);	/* !rd->overload */
	assert_int_equal(walked_cap_case(1, 2 * MS, 0), 2 * 100 * US);	/* avg_idle < cost */
	/* ttwu_pending: returns before idle_stamp too, so no sample follows */
	assert_int_equal(walked_cap_case(1, 50 * US, 1), 1 * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_busy_entries),
		cmocka_unit_test(test_avg_idle_sequence),
		cmocka_unit_test(test_avg_idle_shift_negative),
		cmocka_unit_test(test_avg_idle_cap),
		cmocka_unit_test(test_avg_idle_cap_after_walk),
		cmocka_unit_test(test_avg_idle_fork_inflated),
		cmocka_unit_test(test_avg_idle_late_clears_stamp),
		cmocka_unit_test(test_avg_idle_pull_clears_stamp),
		cmocka_unit_test(test_ttwu_pending),
		cmocka_unit_test(test_sample_site_by_release),
		cmocka_unit_test(test_overload),
		cmocka_unit_test(test_nr_running),
		cmocka_unit_test(test_idle_while_waiting),
		cmocka_unit_test(test_many_tasks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

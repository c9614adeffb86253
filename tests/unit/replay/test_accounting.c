/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-CPU accounting: idle/busy time, avg_idle (SPEC 3, 8), overload,
 * nr_running, idle while waiting, with exact numbers. */
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

/* A LATE point (a task arrived during the balance) clears idle_stamp: the
 * following wakeup takes no sample. */
static void test_avg_idle_late_clears_stamp(void **state)
{
	struct pts pts;
	struct ir_state *s = mk(2, NULL, NULL, &pts);
	uint64_t b = T0 + 100 * US, c;

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 500);
	sw(s, b, 0, 100, S_SLEEP, 0);			/* IDLE point, idle_stamp live */
	wake_new(s, b + 10 * US, 1, 500, 300, 0);
	sw(s, b + 20 * US, 0, 0, S_RUN, 300);
	c = b + 1 * MS;
	wake_new(s, c - 10 * US, 1, 500, 400, 0);	/* arrives within late_window */
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
static void test_overload(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);
	uint64_t t1 = T0 + 1 * MS, t2 = T0 + 2 * MS;

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
	assert_true(ir_state_overload(s, t2 + 4 * MS - 1));
	assert_false(ir_state_overload(s, t2 + 4 * MS));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_busy_entries),
		cmocka_unit_test(test_avg_idle_sequence),
		cmocka_unit_test(test_avg_idle_shift_negative),
		cmocka_unit_test(test_avg_idle_cap),
		cmocka_unit_test(test_avg_idle_fork_inflated),
		cmocka_unit_test(test_avg_idle_late_clears_stamp),
		cmocka_unit_test(test_avg_idle_pull_clears_stamp),
		cmocka_unit_test(test_overload),
		cmocka_unit_test(test_nr_running),
		cmocka_unit_test(test_idle_while_waiting),
		cmocka_unit_test(test_many_tasks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

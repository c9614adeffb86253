/* SPDX-License-Identifier: GPL-2.0-only */
/* Each anomaly of the replay, alone: the replay counts it and carries on. */
#include "ev.h"

enum { MIE = IR_ANOM_MISSING_IDLE_EXIT, PNC = IR_ANOM_PREV_NOT_CURRENT, TB = IR_ANOM_TIME_BACKWARDS,
       PR = IR_ANOM_PID_REUSE, NNR = IR_ANOM_NEXT_NOT_RUNNABLE, LOST = IR_ANOM_LOST_EVENTS,
       OOR = IR_ANOM_CPU_OUT_OF_RANGE, MIN = IR_ANOM_MISSING_IDLE_ENTRY };

#define ONLY(a, n) ((const uint64_t[IR_ANOM__COUNT]){ [a] = n })

/* The reference sequence has no anomaly at all. */
static void test_clean(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 0);
	wake(s, T0 + 1 * US, 0, 100, 101, 0);
	sw(s, T0 + 2 * US, 0, 100, S_SLEEP, 101);
	sw(s, T0 + 3 * US, 0, 101, S_SLEEP, 0);
	wake(s, T0 + 4 * US, 1, 0, 100, 1);
	sw(s, T0 + 5 * US, 1, 0, S_RUN, 100);
	ir_state_finish(s, T0 + 10 * US);
	expect_anoms(s, (const uint64_t[IR_ANOM__COUNT]){ 0 });
	ir_state_free(s);
}

/* An event from pid 300 on a CPU thought idle ends the idle period there
 * (this machine kind's CPU 1 never records its switch out of idle). */
static void test_missing_idle_exit(void **state)
{
	struct ir_state *s = mk(1, NULL, NULL, NULL);
	const struct ir_observed *o;

	(void)state;
	sw(s, T0, 0, 100, S_SLEEP, 0);			/* busy 0, idle from T0 */
	wake(s, T0 + 2 * US, 0, 0, 300, 0);		/* from idle: fine */
	other(s, T0 + 5 * US, 0, 300);			/* 300 runs: the switch was lost */
	assert_int_equal(ir_state_curr(s, 0), 300);
	assert_int_equal(ir_state_nr_running(s, 0), 1);
	sw(s, T0 + 7 * US, 0, 300, S_SLEEP, 0);		/* consistent again */
	ir_state_finish(s, T0 + 10 * US);
	expect_anoms(s, ONLY(MIE, 1));
	o = ir_state_observed(s);
	assert_int_equal(o->cpu[0].idle_ns, 5 * US + 3 * US);
	assert_int_equal(o->cpu[0].busy_ns, 2 * US);
	assert_int_equal(o->cpu[0].idle_entries, 2);
	ir_state_free(s);
}

static void test_prev_not_current(void **state)
{
	struct ir_state *s = mk(1, NULL, NULL, NULL);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	sw(s, T0 + 1 * US, 0, 101, S_SLEEP, 0);
	assert_int_equal(ir_state_curr(s, 0), 0);
	ir_state_finish(s, T0 + 10 * US);
	expect_anoms(s, ONLY(PNC, 1));
	ir_state_free(s);

	/* the task we thought ran there did not: when it is switched in on
	 * another CPU later, that is no sign of a missed switch into idle
	 * (it is not "running elsewhere"), and CPU 0 was busy until the
	 * switch (1 us), idle after */
	s = mk(2, NULL, NULL, NULL);
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 0);
	sw(s, T0 + 1 * US, 0, 101, S_SLEEP, 0);
	sw(s, T0 + 2 * US, 1, 0, S_RUN, 100);
	assert_int_equal(ir_state_curr(s, 1), 100);
	ir_state_finish(s, T0 + 10 * US);
	expect_anoms(s, ONLY(PNC, 1));
	assert_int_equal(ir_state_observed(s)->cpu[0].busy_ns, 1 * US);
	assert_int_equal(ir_state_observed(s)->cpu[0].idle_ns, 9 * US);
	ir_state_free(s);
	/* a damaged switch record (common_pid 0, not its prev) on a CPU idle
	 * since T0: no other event says anything ran, so the CPU stays idle
	 * in the figures (10 us idle, none busy), a second idle entry */
	s = mk(1, NULL, NULL, NULL);
	sw(s, T0, 0, 100, S_SLEEP, 0);
	{
		struct ir_event ev = { .ts = T0 + 5 * US, .cpu = 0, .common_pid = 0, .type = IR_EV_SWITCH,
			.sw.prev_pid = 101, .sw.prev_prio = 120, .sw.next_pid = 0, .sw.next_prio = 120,
			.sw.prev_state = S_SLEEP, .sw.prev_comm = "task", .sw.next_comm = "swapper",
			.sw.prev_comm_len = 4, .sw.next_comm_len = 7 };

		ir_state_feed(s, &ev);
	}
	ir_state_finish(s, T0 + 10 * US);
	expect_anoms(s, ONLY(PNC, 1));
	assert_int_equal(ir_state_observed(s)->cpu[0].busy_ns, 0);
	assert_int_equal(ir_state_observed(s)->cpu[0].idle_ns, 10 * US);
	assert_int_equal(ir_state_observed(s)->cpu[0].idle_entries, 2);
	ir_state_free(s);
}

/* An event older than the last one is counted and dropped. */
static void test_time_backwards(void **state)
{
	struct ir_state *s = mk(1, NULL, NULL, NULL);
	const struct ir_observed *o;

	(void)state;
	sw(s, T0 + 10 * US, 0, 0, S_RUN, 100);
	sw(s, T0 + 5 * US, 0, 100, S_SLEEP, 0);
	assert_int_equal(ir_state_curr(s, 0), 100);
	ir_state_finish(s, T0 + 20 * US);
	expect_anoms(s, ONLY(TB, 1));
	o = ir_state_observed(s);
	assert_int_equal(o->cpu[0].busy_ns, 10 * US);
	assert_int_equal(o->cpu[0].idle_entries, 0);
	ir_state_free(s);
}

/* sched_wakeup_new for a pid that is still asleep: the pid was reused. */
static void test_pid_reuse(void **state)
{
	struct ir_state *s = mk(1, NULL, NULL, NULL);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	sw(s, T0 + 1 * US, 0, 100, S_SLEEP, 101);
	wake_new(s, T0 + 2 * US, 0, 101, 100, 0);
	assert_int_equal(ir_state_nr_running(s, 0), 2);
	ir_state_finish(s, T0 + 10 * US);
	expect_anoms(s, ONLY(PR, 1));
	ir_state_free(s);
}

/* Switching in a task we saw block (no wakeup between). */
static void test_next_not_runnable(void **state)
{
	struct ir_state *s = mk(1, NULL, NULL, NULL);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	sw(s, T0 + 1 * US, 0, 100, S_SLEEP, 101);
	sw(s, T0 + 2 * US, 0, 101, S_PRE, 100);
	assert_int_equal(ir_state_curr(s, 0), 100);
	ir_state_finish(s, T0 + 10 * US);
	expect_anoms(s, ONLY(NNR, 1));
	ir_state_free(s);
}

/* Switching in a task still running elsewhere: that CPU's switch-out was lost. */
static void test_next_running_elsewhere(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 0);
	sw(s, T0 + 1 * US, 1, 0, S_RUN, 100);
	assert_int_equal(ir_state_curr(s, 0), 0);
	assert_int_equal(ir_state_curr(s, 1), 100);
	ir_state_finish(s, T0 + 10 * US);
	/* CPU 0's switch into idle was missed: repaired at this evidence */
	expect_anoms(s, ONLY(MIN, 1));
	assert_int_equal(ir_state_observed(s)->cpu[0].busy_ns, 1 * US);
	assert_int_equal(ir_state_observed(s)->cpu[0].idle_ns, 9 * US);
	ir_state_free(s);
}

/* SPEC 9, symmetric repair: the idle task emitting an event on a CPU we
 * think busy is the first evidence that its switch into idle was missed:
 * busy up to it, idle from it. */
static void test_idle_task_event_on_busy_cpu(void **state)
{
	struct ir_state *s = mk(1, NULL, NULL, NULL);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	waking(s, T0 + 30 * US, 0, 0, 200, 0);		/* common_pid 0 on CPU 0 */
	assert_int_equal(ir_state_curr(s, 0), 0);
	ir_state_finish(s, T0 + 100 * US);
	expect_anoms(s, ONLY(MIN, 1));
	assert_int_equal(ir_state_observed(s)->cpu[0].busy_ns, 30 * US);
	assert_int_equal(ir_state_observed(s)->cpu[0].idle_ns, 70 * US);
	ir_state_free(s);
}

static void test_lost_events(void **state)
{
	struct ir_state *s = mk(1, NULL, NULL, NULL);
	struct ir_event ev = { .ts = T0 + 1 * US, .cpu = 0, .common_pid = 100, .type = IR_EV_OTHER,
			       .missed = 12 };

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	ir_state_feed(s, &ev);
	ev.ts += US;
	ev.missed = -1;				/* a marker that does not say how many */
	ir_state_feed(s, &ev);
	ir_state_finish(s, T0 + 10 * US);
	expect_anoms(s, ONLY(LOST, 2));
	ir_state_free(s);
}

/* Event CPU, wakeup target and migration CPUs out of range: counted, ignored. */
static void test_cpu_out_of_range(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 0);
	other(s, T0 + 1 * US, 2, 0);
	other(s, T0 + 1 * US, -1, 0);
	wake(s, T0 + 2 * US, 0, 100, 101, 7);
	mig(s, T0 + 3 * US, 0, 100, 101, 0, 9);
	ir_state_finish(s, T0 + 10 * US);
	expect_anoms(s, ONLY(OOR, 4));
	assert_int_equal(ir_state_observed(s)->migrations, 0);
	assert_int_equal(ir_state_nr_running(s, 0), 1);
	ir_state_free(s);
}

/* A million short-lived tasks: the table keeps live ones and a bounded
 * number of recently dead (the task table is never freed otherwise: 10 M
 * pids took 1 GB); a dead pid woken soon after is still pid reuse. */
static void test_dead_tasks_dropped(void **state)
{
	struct ir_state *s = mk(1, NULL, NULL, NULL);
	uint64_t t = T0;

	(void)state;
	for (int i = 0; i < 1000000; i++, t += 10 * US) {
		int pid = 1000 + i;

		wake_new(s, t, 0, 0, pid, 0);
		sw(s, t + 1 * US, 0, 0, S_RUN, pid);
		sw(s, t + 2 * US, 0, pid, S_DEAD, 0);
	}
	assert_true(ir_state_nr_tasks(s) <= 4096 + 2);
	wake(s, t, 0, 0, 1000 + 999999, 0);	/* the last one to die: remembered */
	ir_state_finish(s, t + 10 * US);
	assert_int_equal(ir_state_observed(s)->anomalies[PR], 1);
	ir_state_free(s);
}

/* With a timeline attached (the HTML report's), each repaired anomaly is
 * marked where it was found, and a repaired busy span is drawn as busy:
 * hand-placed, CPU 0 busy [T0, T0+1] (its idle entry missed, found when
 * 100 runs on CPU 1) and [T0+4, T0+6] (its idle exit missed: pid 300
 * runs), CPU 1 busy [T0+1, T0+10] (us). */
static void test_anomalies_on_timeline(void **state)
{
	static const struct { enum ir_anomaly kind; int cpu; uint64_t ts; } want[] = {
		{ IR_ANOM_MISSING_IDLE_ENTRY, 0, T0 + 1 * US },
		{ IR_ANOM_LOST_EVENTS, 1, T0 + 2 * US },
		{ IR_ANOM_MISSING_IDLE_EXIT, 0, T0 + 4 * US },
		{ IR_ANOM_QUEUED_NOT_PICKED, 0, T0 + 6 * US },
	};
	struct ir_state *s = mk(2, NULL, NULL, NULL);
	struct ir_timeline *tl = ir_timeline_new(2, 0, 0);
	struct ir_event lost = { .ts = T0 + 2 * US, .cpu = 1, .common_pid = 100, .type = IR_EV_OTHER,
				 .missed = 3 };
	struct ir_timeline_view v;
	double busy[2] = { 0, 0 };

	(void)state;
	assert_non_null(tl);
	ir_state_set_timeline(s, tl);
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 0);
	sw(s, T0 + 1 * US, 1, 0, S_RUN, 100);		/* 100 still "running" on CPU 0 */
	ir_state_feed(s, &lost);
	other(s, T0 + 4 * US, 0, 300);			/* CPU 0 thought idle */
	wake(s, T0 + 5 * US, 0, 300, 301, 0);		/* 301 queued behind 300 */
	sw(s, T0 + 6 * US, 0, 300, S_SLEEP, 0);		/* idle with 301 queued */
	ir_state_finish(s, T0 + 10 * US);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct ir_timeline_mark *m;
		uint64_t total;
		int n;

		assert_int_equal(ir_state_observed(s)->anomalies[want[i].kind], 1);
		m = ir_timeline_marks(tl, want[i].kind, &n, &total);
		assert_int_equal(n, 1);
		assert_int_equal(total, 1);
		assert_int_equal(m[0].cpu, want[i].cpu);
		assert_int_equal(m[0].ts, want[i].ts);
	}
	ir_timeline_finish(tl);
	assert_int_equal(ir_timeline_get(tl, false, T0 + 10 * US, &v), 0);
	for (int c = 0; c < 2; c++)
		for (int b = 0; b < v.n; b++)
			busy[c] += v.busy[c * v.stride + b];
	assert_true(busy[0] > 3 * US - 0.5 && busy[0] < 3 * US + 0.5);
	assert_true(busy[1] > 9 * US - 0.5 && busy[1] < 9 * US + 0.5);
	assert_int_equal(ir_state_observed(s)->cpu[0].busy_ns, 3 * US);
	assert_int_equal(ir_state_observed(s)->cpu[1].busy_ns, 9 * US);
	ir_state_free(s);
	ir_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_missing_idle_exit),
		cmocka_unit_test(test_prev_not_current),
		cmocka_unit_test(test_time_backwards),
		cmocka_unit_test(test_pid_reuse),
		cmocka_unit_test(test_next_not_runnable),
		cmocka_unit_test(test_next_running_elsewhere),
		cmocka_unit_test(test_idle_task_event_on_busy_cpu),
		cmocka_unit_test(test_lost_events),
		cmocka_unit_test(test_cpu_out_of_range),
		cmocka_unit_test(test_dead_tasks_dropped),
		cmocka_unit_test(test_anomalies_on_timeline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

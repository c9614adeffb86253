/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/capture.c (sim/capture.h contract): a simulated schedule kept as
 * records.  Frozen to a hand-built two-CPU schedule the slices are that
 * schedule (derived by hand from the events below); in closed loop every
 * migration, newidle call, idle and balance nanosecond the simulation counts
 * is one record, each task's slices add up to its run plus the cache refill
 * of its migrations; the bound keeps the first max records and counts the
 * rest; and a capture changes no figure.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim/sim.h"

#define US 1000ull
#define MS 1000000ull
#define T0 1000000000ull

/* Events as a table: a switch (prev, its state, next) or a wakeup of pid
 * onto target by common (SW_WAKING then SW_WAKEUP). */
enum { SW, WAKING, WAKEUP };
struct ev {
	uint64_t us;
	int cpu, what, a, st, b;
};

static void feed_all(struct ir_wl_builder *bld, const struct ev *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *pc = e[i].a ? "task" : "swapper", *nc = e[i].b ? "task" : "swapper";
		struct ir_event ev = { .ts = T0 + e[i].us * US, .cpu = e[i].cpu, .common_pid = e[i].a };

		if (e[i].what == SW) {
			ev.type = IR_EV_SWITCH;
			ev.sw.prev_pid = e[i].a;
			ev.sw.prev_state = (uint32_t)e[i].st;
			ev.sw.next_pid = e[i].b;
			ev.sw.prev_prio = ev.sw.next_prio = 120;
			ev.sw.prev_comm = pc;
			ev.sw.next_comm = nc;
			ev.sw.prev_comm_len = (uint16_t)strlen(pc);
			ev.sw.next_comm_len = (uint16_t)strlen(nc);
		} else {
			ev.type = e[i].what == WAKING ? IR_EV_WAKING : IR_EV_WAKEUP;
			ev.wake.pid = e[i].b;
			ev.wake.prio = 120;
			ev.wake.target_cpu = e[i].st;
			ev.wake.comm = "task";
			ev.wake.comm_len = 4;
		}
		assert_int_equal(ir_wl_feed(bld, &ev), 0);
	}
}

/* A (10) on CPU 0 wakes B (11) onto idle CPU 1 and blocks at 150 us; B
 * wakes A back (A runs again at 260 us) and blocks at 300 us; a timer wakes
 * B, which runs from 410 us; the trace ends at 800 us. */
static struct ir_workload *schedule(void)
{
	static const struct ev e[] = {
		{ 0, 0, SW, 0, 0, 10 },
		{ 100, 0, WAKING, 10, 1, 11 }, { 101, 0, WAKEUP, 10, 1, 11 },
		{ 120, 1, SW, 0, 0, 11 },
		{ 150, 0, SW, 10, IR_TASK_INTERRUPTIBLE, 0 },
		{ 250, 1, WAKING, 11, 0, 10 }, { 251, 1, WAKEUP, 11, 0, 10 },
		{ 260, 0, SW, 0, 0, 10 },
		{ 300, 1, SW, 11, IR_TASK_INTERRUPTIBLE, 0 },
		{ 400, 1, WAKING, 0, 1, 11 }, { 400, 1, WAKEUP, 0, 1, 11 },
		{ 410, 1, SW, 0, 0, 11 },
	};
	struct ir_wl_builder *b = ir_wl_new(2);

	assert_non_null(b);
	feed_all(b, e, sizeof(e) / sizeof(e[0]));
	return ir_wl_finish(b, T0 + 800 * US);
}

/* n tasks runnable at 0 on CPU 0, each running run_ns and exiting. */
static struct ir_workload *cpu_bound(int nr_cpus, int n, uint64_t run_ns)
{
	struct ir_wl_builder *b = ir_wl_new(nr_cpus);
	struct ir_workload *w;

	assert_non_null(b);
	for (int i = 0; i < n; i++) {
		struct ev e[2] = {
			{ (uint64_t)i * run_ns / US, 0, SW, 0, 0, 100 + i },
			{ (uint64_t)(i + 1) * run_ns / US, 0, SW, 100 + i, IR_EXIT_DEAD, 0 },
		};

		feed_all(b, e, 2);
	}
	w = ir_wl_finish(b, T0 + (uint64_t)n * run_ns);
	assert_non_null(w);
	for (uint32_t i = 0; i < w->nr_tasks; i++)
		w->task[i].start_ns = 0;
	return w;
}

static int32_t pid_of(const struct ir_workload *w, int32_t task)
{
	return task >= 0 ? w->task[task].pid : task;
}

/* Frozen: CPU 0 runs A 0-150 us, idles 150-260 us, runs A to 800 us; CPU 1
 * idles 0-120 us, runs B 120-300 us, idles 300-410 us, runs B to 800 us. */
static void test_frozen_slices(void **state)
{
	static const struct { int cpu; uint64_t ts, dur; int32_t pid; } want[] = {
		{ 0, 0, 150 * US, 10 }, { 0, 150 * US, 110 * US, IR_CAP_IDLE }, { 0, 260 * US, 540 * US, 10 },
		{ 1, 0, 120 * US, IR_CAP_IDLE }, { 1, 120 * US, 180 * US, 11 }, { 1, 300 * US, 110 * US, IR_CAP_IDLE },
		{ 1, 410 * US, 390 * US, 11 },
	};
	struct ir_workload *w = schedule();
	struct ir_capture *cap = ir_capture_new(2, 100);
	struct ir_sim_params sp;
	struct ir_sim_result r;
	bool seen[sizeof(want) / sizeof(want[0])] = { false };

	(void)state;
	assert_non_null(cap);
	ir_sim_params_default(&sp, 2);
	sp.frozen = true;
	sp.capture = cap;
	assert_int_equal(ir_simulate(w, NULL, NULL, &sp, &r), 0);
	ir_capture_finish(cap, r.completion_ns);
	assert_int_equal(cap->kept[IR_CAP_SLICE], sizeof(want) / sizeof(want[0]));
	assert_int_equal(cap->kept[IR_CAP_MIGRATE] + cap->kept[IR_CAP_NEWIDLE], 0);
	for (uint64_t k = 0; k < cap->n; k++) {
		const struct ir_cap_rec *rec = &cap->rec[k];
		bool found = false;

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]) && !found; i++)
			if (!seen[i] && want[i].cpu == rec->cpu && want[i].ts == rec->ts && want[i].dur == rec->dur &&
			    want[i].pid == pid_of(w, rec->task))
				seen[i] = found = true;
		if (!found)
			fail_msg("unexpected slice cpu %u at %llu for %llu of %d", rec->cpu,
				 (unsigned long long)rec->ts, (unsigned long long)rec->dur, pid_of(w, rec->task));
	}
	ir_capture_free(cap);
	ir_workload_free(w);
}

/* Closed loop, three CPU-bound tasks of 10 ms entering on CPU 0 of two:
 * the records are what the figures count. */
static void test_closed_loop_counts(void **state)
{
	struct ir_workload *w = cpu_bound(2, 3, 10 * MS);
	struct ir_capture *cap = ir_capture_new(2, 100000);
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r, plain;
	uint64_t mig[IR_CAP__CAUSES] = { 0 }, calls = 0, pulls = 0, idle = 0, balance = 0;
	uint64_t run[3] = { 0 }, moved[3] = { 0 }, end[2] = { 0 };

	(void)state;
	assert_non_null(cap);
	ir_policy_defaults(IR_POL_NO_CHECK, &pol);
	ir_sim_params_default(&sp, 2);
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &plain), 0);
	sp.capture = cap;
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	assert_memory_equal(&r, &plain, sizeof(r));	/* capturing changes nothing */
	ir_capture_finish(cap, r.completion_ns);
	for (uint64_t k = 0; k < cap->n; k++) {
		const struct ir_cap_rec *rec = &cap->rec[k];

		assert_true(rec->cpu < 2);
		if (rec->kind == IR_CAP_MIGRATE) {
			assert_true(rec->arg < IR_CAP__CAUSES);
			assert_int_not_equal(rec->from, rec->cpu);
			mig[rec->arg]++;
			moved[rec->task]++;
		} else if (rec->kind == IR_CAP_NEWIDLE) {
			calls++;
			pulls += rec->task >= 0;
		} else {
			/* one CPU's slices follow each other, never overlapping */
			assert_true(rec->ts >= end[rec->cpu]);
			end[rec->cpu] = rec->ts + rec->dur;
			if (rec->task == IR_CAP_IDLE)
				idle += rec->dur;
			else if (rec->task == IR_CAP_BALANCE)
				balance += rec->dur;
			else
				run[rec->task] += rec->dur;
		}
	}
	assert_int_equal(cap->n, cap->kept[IR_CAP_SLICE] + cap->kept[IR_CAP_NEWIDLE] + cap->kept[IR_CAP_MIGRATE]);
	assert_int_equal(mig[IR_CAP_WAKEUP] + mig[IR_CAP_NEWIDLE_PULL] + mig[IR_CAP_PERIODIC], r.migrations);
	assert_int_equal(mig[IR_CAP_WAKEUP], r.mig_wakeup);
	assert_int_equal(mig[IR_CAP_NEWIDLE_PULL], r.mig_newidle);
	assert_int_equal(mig[IR_CAP_PERIODIC], r.mig_periodic);
	assert_int_equal(calls, r.newidle_calls);
	assert_int_equal(pulls, r.newidle_pulls);
	assert_int_equal(idle, r.idle_ns);
	assert_int_equal(balance, r.balance_cpu_ns);
	/* 30 ms of work on two CPUs: someone moves, and each task runs its
	 * 10 ms plus the 5 us refill (one level boundary) per migration */
	assert_true(r.migrations > 0);
	for (int t = 0; t < 3; t++)
		assert_int_equal(run[t], 10 * MS + moved[t] * sp.refill_ns);
	ir_capture_free(cap);
	ir_workload_free(w);
}

/* A newidle balance that pulls a task which leaves at once (it had nothing
 * left to run): the CPU balances again at the same instant, though busy with
 * the first balance until its cost has passed.  Hand-built: CPU 1's X (200)
 * exits at 1 ms while B (101) and C (102), with no run left, wait on CPU 0
 * behind A (100).  Every idle and balance nanosecond counted is one slice,
 * and one CPU's slices never overlap: the second balance follows the first. */
static void test_back_to_back_newidle(void **state)
{
	static const struct ev e[] = {
		{ 0, 0, SW, 0, 0, 100 }, { 0, 1, SW, 0, 0, 200 },
		{ 1000, 1, SW, 200, IR_EXIT_DEAD, 0 },
		{ 10000, 0, SW, 100, IR_EXIT_DEAD, 101 }, { 10000, 0, SW, 101, IR_EXIT_DEAD, 102 },
		{ 10000, 0, SW, 102, IR_EXIT_DEAD, 0 },
	};
	struct ir_wl_builder *b = ir_wl_new(2);
	struct ir_workload *w;
	struct ir_capture *cap = ir_capture_new(2, 100000);
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;
	uint64_t idle = 0, balance = 0, end[2] = { 0 };

	(void)state;
	assert_non_null(b);
	assert_non_null(cap);
	feed_all(b, e, sizeof(e) / sizeof(e[0]));
	w = ir_wl_finish(b, T0 + 10 * MS);
	assert_non_null(w);
	for (uint32_t i = 0; i < w->nr_tasks; i++)
		w->task[i].start_ns = 0;
	ir_policy_defaults(IR_POL_NO_CHECK, &pol);
	ir_sim_params_default(&sp, 2);
	sp.capture = cap;
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	ir_capture_finish(cap, r.completion_ns);
	assert_true(r.newidle_pulls >= 2);	/* the path: back-to-back pulls */
	for (uint64_t k = 0; k < cap->n; k++) {
		const struct ir_cap_rec *rec = &cap->rec[k];

		if (rec->kind != IR_CAP_SLICE)
			continue;
		assert_true(rec->ts >= end[rec->cpu]);
		end[rec->cpu] = rec->ts + rec->dur;
		idle += rec->task == IR_CAP_IDLE ? rec->dur : 0;
		balance += rec->task == IR_CAP_BALANCE ? rec->dur : 0;
	}
	assert_int_equal(balance, r.balance_cpu_ns);
	assert_int_equal(idle, r.idle_ns);
	ir_capture_free(cap);
	ir_workload_free(w);
}

/* Whether ts lies inside one of cap's slices on cpu. */
static bool enclosed(const struct ir_capture *cap, int cpu, uint64_t ts)
{
	for (uint64_t i = 0; i < cap->n; i++) {
		const struct ir_cap_rec *r = &cap->rec[i];

		if (r->kind == IR_CAP_SLICE && r->cpu == cpu && r->ts <= ts && ts <= r->ts + r->dur)
			return true;
	}
	return false;
}

/* The bound: the first max records are kept, the rest counted by kind; a
 * kept migration whose slices (recorded when they end, after it) fell
 * beyond the bound is counted as left out too, so that every migration the
 * export draws starts and ends inside slices. */
static void test_bound(void **state)
{
	struct ir_workload *w = cpu_bound(2, 3, 10 * MS);
	struct ir_capture *all = ir_capture_new(2, 100000), *few = ir_capture_new(2, 3);
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;

	(void)state;
	assert_non_null(all);
	assert_non_null(few);
	ir_policy_defaults(IR_POL_NO_CHECK, &pol);
	ir_sim_params_default(&sp, 2);
	sp.capture = all;
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	ir_capture_finish(all, r.completion_ns);
	sp.capture = few;
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	ir_capture_finish(few, r.completion_ns);
	assert_true(all->n > 3);
	assert_true(few->n <= 3);
	assert_true(few->cap <= 3);
	{
		/* the first 3 of all, less the migrations cut from their slices */
		uint64_t j = 0;

		for (uint64_t i = 0; i < 3; i++) {
			const struct ir_cap_rec *r = &all->rec[i];

			if (j < few->n && !memcmp(&few->rec[j], r, sizeof(*r)))
				j++;
			else
				assert_int_equal(r->kind, IR_CAP_MIGRATE);
		}
		assert_int_equal(j, few->n);
	}
	for (uint64_t i = 0; i < few->n; i++)
		if (few->rec[i].kind == IR_CAP_MIGRATE) {
			assert_true(enclosed(few, few->rec[i].from, few->rec[i].ts));
			assert_true(enclosed(few, few->rec[i].cpu, few->rec[i].ts));
		}
	for (uint64_t i = 0; i < all->n; i++)
		if (all->rec[i].kind == IR_CAP_MIGRATE) {
			assert_true(enclosed(all, all->rec[i].from, all->rec[i].ts));
			assert_true(enclosed(all, all->rec[i].cpu, all->rec[i].ts));
		}
	for (int k = 0; k < IR_CAP__KINDS; k++) {
		assert_int_equal(all->left_out[k], 0);
		assert_int_equal(few->kept[k] + few->left_out[k], all->kept[k]);
	}
	ir_capture_free(all);
	ir_capture_free(few);
	ir_workload_free(w);
}

/* Switches: a negative or empty slice is never made, the same state twice
 * is one slice, NONE shows nothing, out-of-range CPUs are ignored. */
static void test_switch_rules(void **state)
{
	struct ir_capture *c = ir_capture_new(1, 10);

	(void)state;
	assert_non_null(c);
	ir_capture_switch(c, 0, 100, IR_CAP_IDLE);
	ir_capture_switch(c, 0, 150, IR_CAP_IDLE);	/* still idle */
	ir_capture_switch(c, 0, 200, 7);
	ir_capture_switch(c, 0, 190, IR_CAP_NONE);	/* earlier than its start: empty */
	ir_capture_switch(c, 0, 300, IR_CAP_BALANCE);
	ir_capture_switch(c, 5, 300, 1);
	ir_capture_migrate(c, 1, 0, 5, 300, IR_CAP_WAKEUP);
	ir_capture_finish(c, 350);
	assert_int_equal(c->n, 2);
	assert_int_equal(c->rec[0].ts, 100);
	assert_int_equal(c->rec[0].dur, 100);
	assert_int_equal(c->rec[0].task, IR_CAP_IDLE);
	assert_int_equal(c->rec[1].ts, 300);
	assert_int_equal(c->rec[1].dur, 50);
	assert_int_equal(c->rec[1].task, IR_CAP_BALANCE);
	ir_capture_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frozen_slices),
		cmocka_unit_test(test_closed_loop_counts),
		cmocka_unit_test(test_back_to_back_newidle),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_switch_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

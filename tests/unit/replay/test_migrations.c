/* SPDX-License-Identifier: GPL-2.0-only */
/* Every migration cause of SPEC 5, each alone, with all other causes 0. */
#include "ev.h"

enum { W = IR_MIG_WAKEUP, NI = IR_MIG_NEWIDLE, PER = IR_MIG_PERIODIC, NOHZ = IR_MIG_NOHZ,
       ACT = IR_MIG_ACTIVE, EXE = IR_MIG_EXEC, NUMA = IR_MIG_NUMA, RT = IR_MIG_RT,
       UNK = IR_MIG_UNKNOWN };

#define ONE(cause) ((const uint64_t[IR_MIG__COUNT]){ [cause] = 1 })

/* CPU 0 runs 100; CPU 1 runs 200 with 201 (never ran: not cache hot) queued. */
static struct ir_state *busy2(struct pts *pts, int ncpu)
{
	struct ir_state *s = mk(ncpu, NULL, NULL, pts);

	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 200);
	for (int c = 2; c < ncpu; c++)
		other(s, T0, c, 0);
	wake(s, T0 + 1 * US, 1, 200, 201, 1);
	return s;
}

/* sched_waking on c then the migration on c: select_task_rq() in ttwu.
 * 201 was never seen blocking, so only the waking rule can say "wakeup". */
static void test_wakeup_with_waking(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 0);
	waking(s, T0 + 1 * US, 0, 100, 201, 0);
	mig(s, T0 + 2 * US, 0, 100, 201, 1, 0);
	wake(s, T0 + 3 * US, 0, 100, 201, 0);
	assert_int_equal(ir_state_nr_running(s, 0), 2);	/* 100 running, 201 queued */
	sw(s, T0 + 4 * US, 0, 100, S_SLEEP, 201);
	ir_state_finish(s, T0 + 10 * US);
	expect_causes(s, ONE(W));
	assert_int_equal(ir_state_nr_running(s, 0), 1);
	ir_state_free(s);
}

/* A sched_waking explains one migration, its wakeup's placement: once the
 * task is woken, a later move of it recorded on the same CPU (before that
 * CPU switches) is not a wakeup.  Here CPU 0 moves its queued 201 to CPU 1
 * while running 100 (not a stopper, not a pull): unknown. */
static void test_waking_used_once(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 0);
	waking(s, T0 + 1 * US, 0, 100, 201, 0);
	mig(s, T0 + 2 * US, 0, 100, 201, 1, 0);
	wake(s, T0 + 3 * US, 0, 100, 201, 0);
	mig(s, T0 + 4 * US, 0, 100, 201, 0, 1);
	ir_state_finish(s, T0 + 10 * US);
	expect_causes(s, (const uint64_t[IR_MIG__COUNT]){ [W] = 1, [UNK] = 1 });
	ir_state_free(s);
}

/* Without sched_waking: the task was seen blocking, so a migration of it
 * can only be its wakeup placement. */
static void test_wakeup_without_waking(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 201);
	sw(s, T0 + 1 * US, 1, 201, S_SLEEP, 0);
	mig(s, T0 + 2 * US, 0, 100, 201, 1, 0);
	wake(s, T0 + 3 * US, 0, 100, 201, 0);
	/* and CPU 0's blocking switch must not turn it into a newidle pull */
	sw(s, T0 + 4 * US, 0, 100, S_SLEEP, 201);
	ir_state_finish(s, T0 + 10 * US);
	expect_causes(s, ONE(W));
	ir_state_free(s);
}

/* A waking on c before c's last switch is stale: not a wakeup. */
static void test_stale_waking_not_wakeup(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 0);
	waking(s, T0 + 1 * US, 0, 100, 201, 0);
	sw(s, T0 + 2 * US, 0, 100, S_PRE, 101);
	mig(s, T0 + 3 * US, 0, 101, 201, 1, 0);
	other(s, T0 + 4 * US, 0, 101);			/* no blocking switch: periodic */
	ir_state_finish(s, T0 + 10 * US);
	expect_causes(s, ONE(PER));
	ir_state_free(s);
}

/* dest == c between curr's last event and its blocking switch, with
 * nothing else runnable: observed newidle pull. */
static void test_newidle_pull(void **state)
{
	struct pts pts;
	struct ir_state *s = busy2(&pts, 2);
	const struct ir_observed *o;

	(void)state;
	mig(s, T0 + 10 * US, 0, 100, 201, 1, 0);
	assert_int_equal(ir_state_nr_running(s, 0), 2);
	assert_int_equal(ir_state_nr_running(s, 1), 1);
	sw(s, T0 + 11 * US, 0, 100, S_SLEEP, 201);
	assert_int_equal(pts.n, 0);			/* open until CPU 1 switches */
	ir_state_finish(s, T0 + 20 * US);
	assert_int_equal(pts.n, 1);
	assert_int_equal(pts.p[0].kind, IR_PT_PULLED);
	assert_int_equal(pts.p[0].cpu, 0);
	assert_int_equal(pts.p[0].ts, T0 + 11 * US);
	assert_int_equal(pts.p[0].pulled_pid, 201);
	assert_int_equal(pts.p[0].pulled_from, 1);
	expect_causes(s, ONE(NI));
	o = ir_state_observed(s);
	assert_int_equal(o->newidle_pulls, 1);
	assert_int_equal(o->cpu[0].newidle_pulls, 1);
	assert_int_equal(o->newidle_points, 1);
	ir_state_free(s);
}

static void probe(struct ir_state *s, uint64_t ts, int cpu, int common, bool entry)
{
	struct ir_event ev = { .ts = ts, .cpu = cpu, .common_pid = common,
			       .type = entry ? IR_EV_PROBE_ENTRY : IR_EV_PROBE_EXIT };

	if (entry) {
		ev.probe_entry.cpu = cpu;
		memset(&ev.probe_entry.v, 0xff, sizeof(ev.probe_entry.v));	/* all -1: absent */
	} else {
		ev.probe_exit.ret = 1;
	}
	ir_state_feed(s, &ev);
}

/* As the vm-numa traces show it: newidle_entry, the pull, newidle_exit, then
 * the switch.  The probes run inside __schedule(): they do not end the
 * window in which a dest == c migration is a newidle pull. */
static void test_newidle_pull_between_probes(void **state)
{
	struct pts pts;
	struct ir_state *s = busy2(&pts, 2);

	(void)state;
	probe(s, T0 + 9 * US, 0, 100, true);
	mig(s, T0 + 10 * US, 0, 100, 201, 1, 0);
	probe(s, T0 + 11 * US, 0, 100, false);
	sw(s, T0 + 12 * US, 0, 100, S_SLEEP, 201);
	ir_state_finish(s, T0 + 20 * US);
	expect_causes(s, ONE(NI));
	assert_int_equal(pts.n, 1);
	assert_int_equal(pts.p[0].kind, IR_PT_PULLED);
	assert_true(pts.p[0].has_probe);
	assert_int_equal(pts.p[0].probe_ret, 1);
	assert_int_equal(ir_state_observed(s)->probe_matched, 1);
	ir_state_free(s);
}

/* A probe belongs to one newidle call: the next point on that CPU, with no
 * probe of its own, does not reuse it. */
static void test_probe_used_once(void **state)
{
	struct pts pts;
	struct ir_state *s = busy2(&pts, 2);

	(void)state;
	probe(s, T0 + 9 * US, 0, 100, true);
	probe(s, T0 + 11 * US, 0, 100, false);
	sw(s, T0 + 12 * US, 0, 100, S_SLEEP, 0);
	wake(s, T0 + 50 * US, 0, 0, 100, 0);
	sw(s, T0 + 51 * US, 0, 0, S_RUN, 100);
	sw(s, T0 + 80 * US, 0, 100, S_SLEEP, 0);
	ir_state_finish(s, T0 + 100 * US);
	assert_int_equal(pts.n, 2);
	assert_true(pts.p[0].has_probe);
	assert_false(pts.p[1].has_probe);
	assert_int_equal(pts.p[1].probe_ret, -1);
	assert_int_equal(ir_state_observed(s)->probe_matched, 1);
	ir_state_free(s);
}

/* c's task woke 201 onto CPU 1 (no migration), later c pulls it as its task
 * blocks: the earlier sched_waking on c must not make the pull a wakeup. */
static void test_newidle_pull_after_waking(void **state)
{
	struct pts pts;
	struct ir_state *s = mk(2, NULL, NULL, &pts);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 200);
	waking(s, T0 + 1 * US, 0, 100, 201, 1);
	wake(s, T0 + 2 * US, 0, 100, 201, 1);
	mig(s, T0 + 10 * US, 0, 100, 201, 1, 0);
	sw(s, T0 + 11 * US, 0, 100, S_SLEEP, 201);
	ir_state_finish(s, T0 + 20 * US);
	expect_causes(s, ONE(NI));
	ir_state_free(s);
}

/* A task active-balanced twice without blocking: two active migrations. */
static void test_active_twice(void **state)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 0);
	swc(s, T0 + 2 * US, 0, 100, "task", S_PRE, 15, "migration/0");
	mig(s, T0 + 3 * US, 0, 15, 100, 0, 1);
	swc(s, T0 + 4 * US, 0, 15, "migration/0", S_SLEEP, 0, "swapper/0");
	sw(s, T0 + 5 * US, 1, 0, S_RUN, 100);
	swc(s, T0 + 6 * US, 1, 100, "task", S_PRE, 16, "migration/1");
	mig(s, T0 + 7 * US, 1, 16, 100, 1, 0);
	swc(s, T0 + 8 * US, 1, 16, "migration/1", S_SLEEP, 0, "swapper/1");
	sw(s, T0 + 9 * US, 0, 0, S_RUN, 100);
	ir_state_finish(s, T0 + 30 * US);
	expect_causes(s, ((const uint64_t[IR_MIG__COUNT]){ [ACT] = 2 }));
	ir_state_free(s);
}

/* One migration event on the busy2() set-up, by the CPU that emits it and
 * the CPUs it names: the cause, and the runqueue the task ends on. */
static void test_lone_migrations(void **state)
{
	static const struct {
		const char *why;
		int ncpu, cpu, orig, dest;
		int32_t common_pid;
		int cause;		/* -1: not a migration */
		int check_cpu, nr;	/* ir_state_nr_running(check_cpu) */
		int check_cpu2, nr2;	/* and another (-1: none) */
	} rows[] = {
		/* dest == c while c idle (its own idle balance): periodic */
		{ "periodic idle", 3, 2, 1, 2, 0, PER, 2, 1, -1, 0 },
		/* dest != c while c runs swapper: nohz idle balance on behalf of dest */
		{ "nohz", 3, 2, 1, 0, 0, NOHZ, 0, 2, 1, 1 },
		/* dest != c on a busy c, not the stopper, not a wakeup: unknown */
		{ "unknown", 3, 0, 1, 2, 100, UNK, 2, 1, -1, 0 },
		/* set_task_cpu() emits orig == dest too: not a migration */
		{ "same cpu", 2, 1, 1, 1, 200, -1, 1, 2, -1, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t want[IR_MIG__COUNT] = { 0 };
		struct ir_state *s = busy2(NULL, rows[i].ncpu);

		if (rows[i].cause >= 0)
			want[rows[i].cause] = 1;
		mig(s, T0 + 10 * US, rows[i].cpu, rows[i].common_pid, 201, rows[i].orig, rows[i].dest);
		ir_state_finish(s, T0 + 20 * US);
		print_message("%s\n", rows[i].why);
		expect_causes(s, want);
		assert_int_equal(ir_state_nr_running(s, rows[i].check_cpu), rows[i].nr);
		if (rows[i].check_cpu2 >= 0)
			assert_int_equal(ir_state_nr_running(s, rows[i].check_cpu2), rows[i].nr2);
		ir_state_free(s);
	}
}

/* dest == c, then c's task carries on (preempted, not blocked): periodic. */
static void test_periodic_busy(void **state)
{
	struct pts pts;
	struct ir_state *s = busy2(&pts, 2);

	(void)state;
	mig(s, T0 + 10 * US, 0, 100, 201, 1, 0);
	sw(s, T0 + 11 * US, 0, 100, S_PRE, 201);
	ir_state_finish(s, T0 + 20 * US);
	expect_causes(s, ONE(PER));
	assert_int_equal(pts.n, 0);
	ir_state_free(s);
}

/* dest == c, then another event of c's current task: periodic. */
static void test_periodic_busy_event(void **state)
{
	struct pts pts;
	struct ir_state *s = busy2(&pts, 2);

	(void)state;
	mig(s, T0 + 10 * US, 0, 100, 201, 1, 0);
	other(s, T0 + 11 * US, 0, 100);
	sw(s, T0 + 200 * US, 0, 100, S_SLEEP, 201);	/* 201 queued long before: no point */
	ir_state_finish(s, T0 + 300 * US);
	expect_causes(s, ONE(PER));
	assert_int_equal(pts.n, 0);
	ir_state_free(s);
}

/* Stopper sequence: 100 preempted by migration/0, moved to CPU 1, runs there. */
static struct ir_state *stopper_move(bool numa)
{
	struct ir_state *s = mk(2, NULL, NULL, NULL);

	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 0);
	if (numa)
		move_numa(s, T0 + 1 * US, 0, 100, 0, 1);
	swc(s, T0 + 2 * US, 0, 100, "task", S_PRE, 15, "migration/0");
	mig(s, T0 + 3 * US, 0, 15, 100, 0, 1);
	swc(s, T0 + 4 * US, 0, 15, "migration/0", S_SLEEP, 0, "swapper/0");
	sw(s, T0 + 5 * US, 1, 0, S_RUN, 100);
	return s;
}

static void test_active(void **state)
{
	struct ir_state *s = stopper_move(false);

	(void)state;
	sw(s, T0 + 20 * US, 1, 100, S_SLEEP, 0);
	ir_state_finish(s, T0 + 30 * US);
	expect_causes(s, ONE(ACT));
	ir_state_free(s);
}

/* sched_exec() balances through the stopper; the exec event comes from the
 * task once it runs on its new CPU. */
static void test_exec(void **state)
{
	struct ir_state *s = stopper_move(false);

	(void)state;
	exec_ev(s, T0 + 10 * US, 1, 100);
	ir_state_finish(s, T0 + 30 * US);
	expect_causes(s, ONE(EXE));
	ir_state_free(s);
}

static void test_numa(void **state)
{
	struct ir_state *s = stopper_move(true);

	(void)state;
	ir_state_finish(s, T0 + 30 * US);
	expect_causes(s, ONE(NUMA));
	ir_state_free(s);
}

/* prio < 100 (MAX_RT_PRIO): RT/DL push/pull, whatever else the sequence
 * looks like; prio 100 (nice -20) is CFS: this one a newidle pull. */
static void test_rt(void **state)
{
	for (int prio = 98; prio <= 100; prio++) {
		struct pts pts;
		struct ir_state *s = busy2(&pts, 2);

		(void)state;
		migp(s, T0 + 10 * US, 0, 100, 201, prio == 98 ? 49 : prio, 1, 0);
		sw(s, T0 + 11 * US, 0, 100, S_SLEEP, 201);
		ir_state_finish(s, T0 + 20 * US);
		expect_causes(s, prio < 100 ? ONE(RT) : ONE(NI));
		ir_state_free(s);
	}
}

/* A switch with explicit priorities (sched_switch's prev_prio, next_prio) */
static void swp(struct ir_state *s, uint64_t ts, int cpu, int prev, int prev_prio, uint32_t pstate,
		int next, int next_prio)
{
	struct ir_event ev = {
		.ts = ts, .cpu = cpu, .common_pid = prev, .type = IR_EV_SWITCH,
		.sw.prev_pid = prev, .sw.prev_prio = prev_prio, .sw.next_pid = next, .sw.next_prio = next_prio,
		.sw.prev_state = pstate, .sw.prev_comm = "task", .sw.next_comm = "task",
		.sw.prev_comm_len = 4, .sw.next_comm_len = 4,
	};
	ir_state_feed(s, &ev);
}

/* A task's class also shows in sched_switch: prio 99 (the lowest RT
 * priority, MAX_RT_PRIO - 1) switched out or in is RT, and a later
 * migration of it, whose own event gives no priority (-1), is RT's
 * push/pull; prio 100 is CFS (then CPU 0's pull before its blocking
 * switch is newidle). */
static void test_rt_from_switch(void **state)
{
	(void)state;
	for (int prio = 99; prio <= 100; prio++)
		for (int side = 0; side < 2; side++) {
			struct pts pts;
			struct ir_state *s = mk(2, NULL, NULL, &pts);

			sw(s, T0, 0, 0, S_RUN, 100);
			other(s, T0, 1, 200);
			/* CPU 1: 200 preempted by 202 (200 stays queued), or 202
			 * switched in first, then preempted by 200 */
			if (side == 0) {
				swp(s, T0 + 1 * US, 1, 200, prio, S_RUN, 202, 120);
			} else {
				swp(s, T0 + 1 * US, 1, 200, 120, S_RUN, 202, prio);
				swp(s, T0 + 2 * US, 1, 202, 120, S_RUN, 200, 120);
			}
			migp(s, T0 + 10 * US, 0, 100, side == 0 ? 200 : 202, -1, 1, 0);
			sw(s, T0 + 11 * US, 0, 100, S_SLEEP, side == 0 ? 200 : 202);
			ir_state_finish(s, T0 + 20 * US);
			expect_causes(s, prio < 100 ? ONE(RT) : ONE(NI));
			ir_state_free(s);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wakeup_with_waking),
		cmocka_unit_test(test_waking_used_once),
		cmocka_unit_test(test_wakeup_without_waking),
		cmocka_unit_test(test_stale_waking_not_wakeup),
		cmocka_unit_test(test_newidle_pull),
		cmocka_unit_test(test_newidle_pull_between_probes),
		cmocka_unit_test(test_probe_used_once),
		cmocka_unit_test(test_newidle_pull_after_waking),
		cmocka_unit_test(test_active_twice),
		cmocka_unit_test(test_periodic_busy),
		cmocka_unit_test(test_periodic_busy_event),
		cmocka_unit_test(test_lone_migrations),
		cmocka_unit_test(test_active),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_numa),
		cmocka_unit_test(test_rt),
		cmocka_unit_test(test_rt_from_switch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

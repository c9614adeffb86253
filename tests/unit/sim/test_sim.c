/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/ (sim/sim.h contract) on hand-built events: the workload extraction
 * against a program derived by hand from a two-CPU schedule, the frozen
 * simulation against that schedule's figures, and small closed-loop cases
 * whose outcome follows from the kernel rule the model cites.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/capture.h"
#include "sim/sim.h"
#include "tests/unit/domains.h"

#define US 1000ull
#define MS 1000000ull
#define T0 1000000000ull

static void feed(struct ir_wl_builder *b, const struct ir_event *ev)
{
	assert_int_equal(ir_wl_feed(b, ev), 0);
}

static void sw(struct ir_wl_builder *b, uint64_t ts, int cpu, int prev, uint32_t st, int next)
{
	const char *pc = prev ? "task" : "swapper", *nc = next ? "task" : "swapper";
	struct ir_event ev = {
		.ts = ts, .cpu = cpu, .common_pid = prev, .type = IR_EV_SWITCH,
		.sw.prev_pid = prev, .sw.prev_prio = 120, .sw.next_pid = next, .sw.next_prio = 120,
		.sw.prev_state = st, .sw.prev_comm = pc, .sw.next_comm = nc,
		.sw.prev_comm_len = (uint16_t)strlen(pc), .sw.next_comm_len = (uint16_t)strlen(nc),
	};
	feed(b, &ev);
}

static void wk(struct ir_wl_builder *b, enum ir_ev_type type, uint64_t ts, int cpu, int common, int pid, int target)
{
	struct ir_event ev = {
		.ts = ts, .cpu = cpu, .common_pid = common, .type = type,
		.wake.pid = pid, .wake.prio = 120, .wake.target_cpu = target, .wake.comm = "task", .wake.comm_len = 4,
	};
	feed(b, &ev);
}

static void fork_ev(struct ir_wl_builder *b, uint64_t ts, int cpu, int parent, int child)
{
	struct ir_event ev = {
		.ts = ts, .cpu = cpu, .common_pid = parent, .type = IR_EV_FORK,
		.fork.parent_pid = parent, .fork.child_pid = child, .fork.child_comm = "task", .fork.child_comm_len = 4,
	};
	feed(b, &ev);
}

static void exit_ev(struct ir_wl_builder *b, uint64_t ts, int cpu, int pid)
{
	struct ir_event ev = { .ts = ts, .cpu = cpu, .common_pid = pid, .type = IR_EV_EXIT, .exit.pid = pid };

	feed(b, &ev);
}

/*
 * A (10) on CPU 0 wakes B (11) onto idle CPU 1, blocks; B wakes A back and
 * blocks; a timer (the idle task) wakes B; A forks C (12) onto CPU 1, where
 * C preempts B and exits.  Ends at 800 us with A and B running.
 */
static struct ir_workload *schedule_into(struct ir_wl_builder *b)
{
	assert_non_null(b);
	sw(b, T0, 0, 0, 0, 10);
	wk(b, IR_EV_WAKING, T0 + 100 * US, 0, 10, 11, 1);
	wk(b, IR_EV_WAKEUP, T0 + 101 * US, 0, 10, 11, 1);
	sw(b, T0 + 120 * US, 1, 0, 0, 11);
	sw(b, T0 + 150 * US, 0, 10, IR_TASK_INTERRUPTIBLE, 0);
	wk(b, IR_EV_WAKING, T0 + 250 * US, 1, 11, 10, 0);
	wk(b, IR_EV_WAKEUP, T0 + 251 * US, 1, 11, 10, 0);
	sw(b, T0 + 260 * US, 0, 0, 0, 10);
	sw(b, T0 + 300 * US, 1, 11, IR_TASK_INTERRUPTIBLE, 0);
	wk(b, IR_EV_WAKING, T0 + 400 * US, 1, 0, 11, 1);
	wk(b, IR_EV_WAKEUP, T0 + 400 * US, 1, 0, 11, 1);
	sw(b, T0 + 410 * US, 1, 0, 0, 11);
	fork_ev(b, T0 + 500 * US, 0, 10, 12);
	wk(b, IR_EV_WAKEUP_NEW, T0 + 501 * US, 0, 10, 12, 1);
	sw(b, T0 + 600 * US, 1, 11, IR_TASK_PREEMPTED, 12);
	exit_ev(b, T0 + 700 * US, 1, 12);
	sw(b, T0 + 700 * US, 1, 12, IR_EXIT_DEAD, 11);
	return ir_wl_finish(b, T0 + 800 * US);
}

static struct ir_workload *schedule(void)
{
	return schedule_into(ir_wl_new(2));
}

static const struct ir_sim_task *task(const struct ir_workload *w, int pid)
{
	for (uint32_t i = 0; i < w->nr_tasks; i++)
		if (w->task[i].pid == pid)
			return &w->task[i];
	fail_msg("no task %d", pid);
	return NULL;
}

static uint32_t idx(const struct ir_workload *w, int pid)
{
	return (uint32_t)(task(w, pid) - w->task);
}

static void op_is(const struct ir_op *op, enum ir_op_kind kind, uint64_t ns)
{
	assert_int_equal(op->kind, kind);
	assert_int_equal(op->ns, ns);
}

/* The program of schedule(), derived by hand. */
static void check_schedule(const struct ir_workload *w)
{
	const struct ir_sim_task *a, *b, *c;

	assert_non_null(w);
	assert_int_equal(w->nr_tasks, 3);
	a = task(w, 10);
	b = task(w, 11);
	c = task(w, 12);
	/* A: runs 100 us, wakes B (placed on CPU 1), runs 50 us, blocks until
	 * B wakes it, runs 240 us, forks C (placed on CPU 1), runs to the end */
	assert_int_equal(a->start, IR_START_RUNNABLE);
	assert_int_equal(a->start_ns, 0);
	assert_int_equal(a->nr_ops, 8);
	op_is(&a->ops[0], IR_OP_RUN, 100 * US);
	assert_int_equal(a->ops[1].kind, IR_OP_WAKE);
	assert_int_equal(a->ops[1].arg, idx(w, 11));
	assert_int_equal(a->ops[1].cpu, 1);
	assert_int_equal(a->ops[1].ns, 1 * US);	/* sched_waking to sched_wakeup */
	op_is(&a->ops[2], IR_OP_RUN, 50 * US);
	assert_int_equal(a->ops[3].kind, IR_OP_BLOCK_TASK);
	op_is(&a->ops[4], IR_OP_RUN, 240 * US);
	assert_int_equal(a->ops[5].kind, IR_OP_FORK);
	assert_int_equal(a->ops[5].arg, idx(w, 12));
	assert_int_equal(a->ops[5].cpu, 1);
	assert_int_equal(a->ops[5].ns, 1 * US);	/* fork to sched_wakeup_new */
	op_is(&a->ops[6], IR_OP_RUN, 300 * US);
	assert_int_equal(a->ops[7].kind, IR_OP_END);
	/* B: asleep from the start until A wakes it; runs 130 us, wakes A onto
	 * CPU 0, runs 50 us; a timer wakes it 100 us after it blocked; preempted
	 * by C after 190 us; runs the last 100 us */
	assert_int_equal(b->start, IR_START_BLOCKED);
	assert_int_equal(b->nr_ops, 8);
	assert_int_equal(b->ops[0].kind, IR_OP_BLOCK_TASK);
	op_is(&b->ops[1], IR_OP_RUN, 130 * US);
	assert_int_equal(b->ops[2].kind, IR_OP_WAKE);
	assert_int_equal(b->ops[2].arg, idx(w, 10));
	assert_int_equal(b->ops[2].cpu, 0);
	assert_int_equal(b->ops[2].ns, 1 * US);
	op_is(&b->ops[3], IR_OP_RUN, 50 * US);
	op_is(&b->ops[4], IR_OP_BLOCK_DELAY, 100 * US);
	assert_int_equal(b->ops[4].cpu, 1);
	op_is(&b->ops[5], IR_OP_RUN, 190 * US);
	assert_true(b->ops[5].flags & IR_OP_F_PREEMPTED);
	op_is(&b->ops[6], IR_OP_RUN, 100 * US);
	assert_int_equal(b->ops[7].kind, IR_OP_END);
	/* C: placed on CPU 1 by wake_up_new_task(), runs 100 us, exits */
	assert_int_equal(c->start, IR_START_FORKED);
	assert_int_equal(c->start_cpu, 1);
	assert_int_equal(c->nr_ops, 2);
	op_is(&c->ops[0], IR_OP_RUN, 100 * US);
	assert_int_equal(c->ops[1].kind, IR_OP_EXIT);
	/* two task wakeups, one from the idle task, one fork */
	assert_int_equal(w->wakes[IR_WK_TASK], 2);
	assert_int_equal(w->wakes[IR_WK_IRQ], 1);
	assert_int_equal(w->wakes[IR_WK_FORK], 1);
	assert_int_equal(w->wakes[IR_WK_UNEXPLAINED], 0);
	/* waits: B 20 us, A 10 us, B 10 us, C 99 us */
	assert_int_equal(w->wait->n, 4);
	assert_in_range(ir_hist_quantile(w->wait, 0.5), 10 * US - 100, 10 * US + 100);
	assert_in_range(ir_hist_quantile(w->wait, 0.99), 99 * US - 1000, 99 * US + 1000);
	assert_int_equal(w->completion_ns, 800 * US);
	/* the idle CPU's wakeup latency: 20, 10, 10 us */
	assert_in_range(w->idle_wake_ns, 10 * US - 100, 10 * US + 100);
}

static void test_extraction(void **state)
{
	struct ir_workload *w = schedule();

	(void)state;
	check_schedule(w);
	ir_workload_free(w);
}

/* ------------------------------------------------ streaming extraction */

#define CL_TASKS 8
#define CL_OPS 32
#define CL_SW 64

/* A sink that puts the sealed records back together, checking that each
 * task's (and CPU's) records come in index order, each once. */
struct collect {
	struct ir_op ops[CL_TASKS][CL_OPS];
	uint64_t nr_ops[CL_TASKS];
	struct ir_sw_rec sw[2][CL_SW];
	uint64_t nr_sw[2];
	unsigned calls;
};

static int c_ops(void *arg, uint32_t task, uint64_t first, const struct ir_op *op, uint32_t n)
{
	struct collect *c = arg;

	assert_true(task < CL_TASKS);
	assert_int_equal(first, c->nr_ops[task]);	/* nothing lost, nothing twice */
	assert_true(first + n <= CL_OPS);
	memcpy(&c->ops[task][first], op, n * sizeof(*op));
	c->nr_ops[task] += n;
	c->calls++;
	return 0;
}

static int c_sw(void *arg, int cpu, uint64_t first, const struct ir_sw_rec *rec, uint64_t n)
{
	struct collect *c = arg;

	assert_true(cpu >= 0 && cpu < 2);
	assert_int_equal(first, c->nr_sw[cpu]);
	assert_true(first + n <= CL_SW);
	memcpy(&c->sw[cpu][first], rec, n * sizeof(*rec));
	c->nr_sw[cpu] += n;
	return 0;
}

/* The streamed workload with the sink's records put back in. */
static struct ir_workload *streamed(struct ir_workload *w, struct collect *c)
{
	assert_non_null(w);
	assert_true(w->streamed);
	assert_int_equal(w->pins_released, 0);
	assert_true(w->nr_tasks <= CL_TASKS);
	for (uint32_t i = 0; i < w->nr_tasks; i++) {
		assert_null(w->task[i].ops);
		assert_int_equal(c->nr_ops[i], w->task[i].nr_ops);
		w->task[i].ops = malloc(CL_OPS * sizeof(struct ir_op));
		assert_non_null(w->task[i].ops);
		memcpy(w->task[i].ops, c->ops[i], sizeof(c->ops[i]));
	}
	for (int k = 0; k < 2; k++) {
		assert_int_equal(c->nr_sw[k], w->nr_sw[k]);
		w->sw[k] = malloc(CL_SW * sizeof(struct ir_sw_rec));
		assert_non_null(w->sw[k]);
		memcpy(w->sw[k], c->sw[k], sizeof(c->sw[k]));
	}
	return w;
}

/*
 * A wakeup chain cut by window boundaries: with a 1 ns window a boundary
 * falls between every two instants, so between each sched_waking and the
 * sched_wakeup that places it (A wakes B at 100/101 us, B wakes A at
 * 250/251 us, A forks C at 500/501 us).  The sealed ops, put back together,
 * must be the hand-derived program (a patch lost at a boundary leaves a
 * wakeup's lag at 0; a reordered or lost op breaks the sink's order check
 * or the program), and must simulate frozen exactly as the whole-trace
 * workload does.  Larger windows cut the chain elsewhere.
 */
static void test_stream_window_boundary(void **state)
{
	static const uint64_t window[] = { 1, 30 * US, 101 * US, 10 * MS };

	(void)state;
	for (unsigned k = 0; k < sizeof(window) / sizeof(window[0]); k++) {
		struct collect *c = calloc(1, sizeof(*c));
		struct ir_wl_sink sink = { .arg = c, .ops = c_ops, .sw = c_sw };
		struct ir_workload *w, *whole = schedule();
		struct ir_sim_params sp;
		struct ir_sim_result r1, r2;

		assert_non_null(c);
		w = streamed(schedule_into(ir_wl_new_stream(2, window[k], &sink)), c);
		if (window[k] == 1)
			assert_true(c->calls >= 8);	/* the boundaries did cut the chain */
		check_schedule(w);
		for (uint32_t i = 0; i < w->nr_tasks; i++)
			assert_memory_equal(w->task[i].ops, whole->task[i].ops,
					    whole->task[i].nr_ops * sizeof(struct ir_op));
		ir_sim_params_default(&sp, 2);
		sp.frozen = true;
		assert_int_equal(ir_simulate(w, NULL, NULL, &sp, &r1), 0);
		assert_int_equal(ir_simulate(whole, NULL, NULL, &sp, &r2), 0);
		assert_memory_equal(&r1, &r2, sizeof(r1));
		assert_int_equal(r1.forced, 0);
		ir_workload_free(w);
		ir_workload_free(whole);
		free(c);
	}
}

/*
 * References held across boundaries (2 us windows: one between every two
 * events).  A wakes B while B still runs on the other CPU (the wake-list
 * race: sched_waking, then B's blocking switch, then sched_wakeup), and
 * before B blocks, wakes C, so A's IR_OP_WAKE of B is no longer A's last
 * op.  B's switch turns the early wakeup into B's block, ended by that op,
 * which sched_wakeup places 8 us after sched_waking, two windows later.
 * Sealing A's op before then loses the placement (its lag stays 0).
 */
static void test_stream_early_wakeup(void **state)
{
	struct collect *c = calloc(1, sizeof(*c));
	struct ir_wl_sink sink = { .arg = c, .ops = c_ops, .sw = c_sw };
	struct ir_wl_builder *b = ir_wl_new_stream(2, 2 * US, &sink);
	struct ir_workload *w;
	const struct ir_sim_task *a, *bb, *cc;

	(void)state;
	assert_non_null(c);
	sw(b, T0, 0, 0, 0, 10);
	sw(b, T0 + 1 * US, 1, 0, 0, 11);
	wk(b, IR_EV_WAKING, T0 + 100 * US, 0, 10, 11, 1);	/* B still runs */
	wk(b, IR_EV_WAKING, T0 + 102 * US, 0, 10, 12, 1);
	wk(b, IR_EV_WAKEUP, T0 + 103 * US, 0, 10, 12, 1);
	sw(b, T0 + 105 * US, 1, 11, IR_TASK_INTERRUPTIBLE, 12);
	wk(b, IR_EV_WAKEUP, T0 + 108 * US, 1, 12, 11, 1);
	sw(b, T0 + 120 * US, 1, 12, IR_TASK_INTERRUPTIBLE, 11);
	w = streamed(ir_wl_finish(b, T0 + 200 * US), c);
	a = task(w, 10);
	bb = task(w, 11);
	cc = task(w, 12);
	/* A: runs 100 us, wakes B (queued 8 us later), runs 2 us, wakes C
	 * (queued 1 us later), runs to the end */
	assert_int_equal(a->nr_ops, 6);
	op_is(&a->ops[0], IR_OP_RUN, 100 * US);
	assert_int_equal(a->ops[1].kind, IR_OP_WAKE);
	assert_int_equal(a->ops[1].arg, idx(w, 11));
	assert_int_equal(a->ops[1].ns, 8 * US);
	op_is(&a->ops[2], IR_OP_RUN, 2 * US);
	assert_int_equal(a->ops[3].kind, IR_OP_WAKE);
	assert_int_equal(a->ops[3].arg, idx(w, 12));
	assert_int_equal(a->ops[3].ns, 1 * US);
	op_is(&a->ops[4], IR_OP_RUN, 98 * US);
	assert_int_equal(a->ops[5].kind, IR_OP_END);
	/* B: runs 104 us, blocks until A's wakeup, runs the last 80 us */
	assert_int_equal(bb->nr_ops, 4);
	op_is(&bb->ops[0], IR_OP_RUN, 104 * US);
	assert_int_equal(bb->ops[1].kind, IR_OP_BLOCK_TASK);
	op_is(&bb->ops[2], IR_OP_RUN, 80 * US);
	assert_int_equal(bb->ops[3].kind, IR_OP_END);
	/* C: asleep until A's wakeup, runs 15 us, blocks to the end */
	assert_int_equal(cc->nr_ops, 3);
	assert_int_equal(cc->ops[0].kind, IR_OP_BLOCK_TASK);
	op_is(&cc->ops[1], IR_OP_RUN, 15 * US);
	assert_int_equal(cc->ops[2].kind, IR_OP_END);
	assert_int_equal(w->wakes[IR_WK_TASK], 2);
	ir_workload_free(w);
	free(c);
}

/* Frozen to the recorded decisions, the simulation is the schedule above:
 * CPU 0 idle 150-260 us, CPU 1 idle 0-120 and 300-410 us. */
static void test_frozen(void **state)
{
	struct ir_workload *w = schedule();
	struct ir_sim_params sp;
	struct ir_sim_result r;

	(void)state;
	ir_sim_params_default(&sp, 2);
	sp.frozen = true;
	assert_int_equal(ir_simulate(w, NULL, NULL, &sp, &r), 0);
	assert_int_equal(r.completion_ns, 800 * US);
	assert_int_equal(r.idle_ns, 110 * US + 120 * US + 110 * US);
	assert_int_equal(r.migrations, 0);
	assert_in_range(r.wait_p50, 10 * US - 100, 10 * US + 100);
	assert_false(r.stalled);
	ir_workload_free(w);
}

/*
 * A (10) on CPU 0 wakes B (11) onto CPU 1, where C (12) runs; C blocks and
 * CPU 1 switches to the idle task with B thought queued there.  The kernel
 * picks the idle task only when nothing is queued (__pick_next_task()), so
 * B left by events the trace lost, as the replay decides (queued_not_picked):
 * A's wakeup is taken back and B sleeps on until a timer wakes it at 100 us;
 * it runs at 110 us.  Its one wait is 10 us, not 100.
 */
static void queued_not_picked(bool stream)
{
	struct collect *c = calloc(1, sizeof(*c));
	struct ir_wl_sink sink = { .arg = c, .ops = c_ops, .sw = c_sw };
	struct ir_wl_builder *b = stream ? ir_wl_new_stream(2, 1, &sink) : ir_wl_new(2);
	struct ir_workload *w;
	const struct ir_sim_task *a, *bt;
	struct ir_sim_params sp;
	struct ir_sim_result r;

	assert_non_null(c);
	assert_non_null(b);
	sw(b, T0, 0, 0, 0, 10);
	sw(b, T0, 1, 0, 0, 12);
	wk(b, IR_EV_WAKING, T0 + 10 * US, 0, 10, 11, 1);
	wk(b, IR_EV_WAKEUP, T0 + 10 * US, 0, 10, 11, 1);
	sw(b, T0 + 50 * US, 1, 12, IR_TASK_INTERRUPTIBLE, 0);
	wk(b, IR_EV_WAKING, T0 + 100 * US, 1, 0, 11, 1);
	wk(b, IR_EV_WAKEUP, T0 + 100 * US, 1, 0, 11, 1);
	sw(b, T0 + 110 * US, 1, 0, 0, 11);
	w = ir_wl_finish(b, T0 + 200 * US);
	if (stream)
		w = streamed(w, c);	/* B's block, popped at 50 us, must still be staged then */
	assert_non_null(w);
	a = task(w, 10);
	bt = task(w, 11);
	/* A: its wake of B is a no-op (a run of 0 ns) */
	assert_int_equal(a->nr_ops, 4);
	op_is(&a->ops[0], IR_OP_RUN, 10 * US);
	op_is(&a->ops[1], IR_OP_RUN, 0);
	op_is(&a->ops[2], IR_OP_RUN, 190 * US);
	/* B: asleep from the start until the timer, then runs to the end */
	assert_int_equal(bt->start, IR_START_BLOCKED);
	assert_int_equal(bt->nr_ops, 3);
	op_is(&bt->ops[0], IR_OP_BLOCK_DELAY, 100 * US);
	op_is(&bt->ops[1], IR_OP_RUN, 90 * US);
	assert_int_equal(w->wakes[IR_WK_TASK], 0);
	assert_int_equal(w->wakes[IR_WK_IRQ], 1);
	assert_int_equal(w->wakes[IR_WK_UNEXPLAINED], 1);
	assert_int_equal(w->wait->n, 1);
	assert_in_range(ir_hist_quantile(w->wait, 0.5), 10 * US - 100, 10 * US + 100);
	/* frozen, the schedule is the recorded one and B waits its 10 us */
	ir_sim_params_default(&sp, 2);
	sp.frozen = true;
	assert_int_equal(ir_simulate(w, NULL, NULL, &sp, &r), 0);
	assert_int_equal(r.completion_ns, 200 * US);
	assert_int_equal(r.idle_ns, 60 * US);
	assert_in_range(r.wait_p50, 10 * US - 100, 10 * US + 100);
	assert_false(r.stalled);
	assert_int_equal(r.forced, 0);
	ir_workload_free(w);
	free(c);
}

static void test_queued_not_picked(void **state)
{
	(void)state;
	queued_not_picked(false);
	queued_not_picked(true);
}

/*
 * A wakeup taken back after its sched_wakeup, across boundaries: A wakes B
 * onto CPU 1 behind D at 10 us, then wakes C at 20 us (so A's IR_OP_WAKE
 * of B is no longer A's last op); at 50 us CPU 1 goes idle with B still
 * thought queued there, so not_queued() takes B's wakeup back and turns
 * A's op into a no-op.  A 1 ns window seals between every two instants:
 * A's op must still be staged at 50 us.
 */
static void taken_back(bool stream)
{
	struct collect *c = calloc(1, sizeof(*c));
	struct ir_wl_sink sink = { .arg = c, .ops = c_ops, .sw = c_sw };
	struct ir_wl_builder *b = stream ? ir_wl_new_stream(2, 1, &sink) : ir_wl_new(2);
	struct ir_workload *w;
	const struct ir_sim_task *a, *bb;

	assert_non_null(c);
	sw(b, T0, 0, 0, 0, 10);
	sw(b, T0, 1, 0, 0, 12);
	wk(b, IR_EV_WAKING, T0 + 10 * US, 0, 10, 11, 1);
	wk(b, IR_EV_WAKEUP, T0 + 10 * US, 0, 10, 11, 1);
	wk(b, IR_EV_WAKING, T0 + 20 * US, 0, 10, 13, 0);
	wk(b, IR_EV_WAKEUP, T0 + 20 * US, 0, 10, 13, 0);
	sw(b, T0 + 50 * US, 1, 12, IR_TASK_INTERRUPTIBLE, 0);
	wk(b, IR_EV_WAKING, T0 + 100 * US, 1, 0, 11, 1);
	wk(b, IR_EV_WAKEUP, T0 + 100 * US, 1, 0, 11, 1);
	sw(b, T0 + 110 * US, 1, 0, 0, 11);
	w = ir_wl_finish(b, T0 + 200 * US);
	if (stream)
		w = streamed(w, c);
	assert_non_null(w);
	a = task(w, 10);
	bb = task(w, 11);
	/* A: runs 10 us, its wake of B a no-op, runs 10 us, wakes C, runs on */
	assert_int_equal(a->nr_ops, 6);
	op_is(&a->ops[0], IR_OP_RUN, 10 * US);
	op_is(&a->ops[1], IR_OP_RUN, 0);
	op_is(&a->ops[2], IR_OP_RUN, 10 * US);
	assert_int_equal(a->ops[3].kind, IR_OP_WAKE);
	assert_int_equal(a->ops[3].arg, idx(w, 13));
	op_is(&a->ops[4], IR_OP_RUN, 180 * US);
	/* B: asleep until the timer at 100 us, then runs to the end */
	assert_int_equal(bb->nr_ops, 3);
	op_is(&bb->ops[0], IR_OP_BLOCK_DELAY, 100 * US);
	op_is(&bb->ops[1], IR_OP_RUN, 90 * US);
	assert_int_equal(w->wakes[IR_WK_TASK], 1);
	assert_int_equal(w->wakes[IR_WK_UNEXPLAINED], 1);
	ir_workload_free(w);
	free(c);
}

static void test_stream_taken_back(void **state)
{
	(void)state;
	taken_back(false);
	taken_back(true);
}

/* A workload built directly: n tasks runnable at 0 on CPU 0, each running
 * run_ns and ending. */
static struct ir_workload *cpu_bound(int nr_cpus, int n, uint64_t run_ns, const int *prio)
{
	struct ir_wl_builder *b = ir_wl_new(nr_cpus);
	uint64_t t = T0;

	assert_non_null(b);
	for (int i = 0; i < n; i++) {
		struct ir_event ev = {
			.ts = t, .cpu = 0, .common_pid = 0, .type = IR_EV_SWITCH,
			.sw.prev_pid = 0, .sw.next_pid = 100 + i, .sw.prev_prio = 120,
			.sw.next_prio = prio ? prio[i] : 120, .sw.prev_comm = "swapper", .sw.next_comm = "task",
			.sw.prev_comm_len = 7, .sw.next_comm_len = 4,
		};
		struct ir_event out = ev;

		feed(b, &ev);
		out.ts = t + run_ns;
		out.common_pid = 100 + i;
		out.sw.prev_pid = 100 + i;
		out.sw.prev_state = IR_EXIT_DEAD;
		out.sw.next_pid = 0;
		out.sw.prev_comm = "task";
		out.sw.next_comm = "swapper";
		out.sw.prev_comm_len = 4;
		out.sw.next_comm_len = 7;
		feed(b, &out);
	}
	{
		struct ir_workload *w = ir_wl_finish(b, t + n * run_ns);

		assert_non_null(w);
		/* every task enters at 0, whatever its recorded start */
		for (uint32_t i = 0; i < w->nr_tasks; i++)
			w->task[i].start_ns = 0;
		return w;
	}
}

/* Two CPU-bound tasks entering on one CPU of two: select_idle_sibling()
 * places the second on the idle CPU, so both finish after their own run. */
static void test_idle_sibling(void **state)
{
	struct ir_workload *w = cpu_bound(2, 2, 10 * MS, NULL);
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;

	(void)state;
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	ir_sim_params_default(&sp, 2);
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	assert_int_equal(r.completion_ns, 10 * MS);
	assert_int_equal(r.idle_ns, 0);
	ir_workload_free(w);
}

/* Three on one CPU: they share it (pick_next_entity(), sched_slice()), so
 * the last ends after all three runs, and some are preempted: the slice
 * (sysctl_sched_latency 6 ms on one CPU over 3 tasks) is below a run. */
static void test_fair_share(void **state)
{
	struct ir_workload *w = cpu_bound(1, 3, 10 * MS, NULL);
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;

	(void)state;
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	ir_sim_params_default(&sp, 1);
	assert_int_equal(sp.sysctl_sched_latency, 6 * MS);
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	assert_int_equal(r.completion_ns, 30 * MS);
	assert_int_equal(r.idle_ns, 0);
	assert_true(r.events > 3 + 30 / 2);	/* slices of 2 ms: preemptions */
	ir_workload_free(w);
}

/* A workload built op by op: n tasks (pids 100 + i) on nr_cpus CPUs, task i
 * with program ops[i] of nr[i] ops, starting as start[i] on cpu[i]. */
static struct ir_workload *programs(int nr_cpus, int n, const struct ir_op *const *ops, const uint32_t *nr,
				    const uint8_t *start, const uint16_t *cpu)
{
	struct ir_workload *w = calloc(1, sizeof(*w));

	assert_non_null(w);
	w->nr_cpus = nr_cpus;
	w->nr_tasks = (uint32_t)n;
	w->task = calloc((size_t)n, sizeof(*w->task));
	w->nr_sw = calloc((size_t)nr_cpus, sizeof(*w->nr_sw));
	w->sw = calloc((size_t)nr_cpus, sizeof(*w->sw));
	w->wait = calloc(1, sizeof(*w->wait));
	assert_true(w->task && w->nr_sw && w->sw && w->wait);
	for (int i = 0; i < n; i++) {
		w->task[i].pid = 100 + i;
		w->task[i].prio = 120;
		w->task[i].start = start[i];
		w->task[i].start_cpu = cpu[i];
		w->task[i].nr_ops = nr[i];
		w->task[i].ops = calloc(nr[i], sizeof(struct ir_op));
		assert_non_null(w->task[i].ops);
		memcpy(w->task[i].ops, ops[i], nr[i] * sizeof(struct ir_op));
	}
	return w;
}

/*
 * A workload built op by op on two CPUs of one LLC: A (runnable on CPU 0)
 * runs wake_ms, wakes C, runs rest_ms and exits; B (runnable on CPU 1)
 * runs 200 ms and exits; C (asleep, last on CPU 0) runs c_ms once woken.
 */
static struct ir_workload *three(uint64_t wake_ms, uint64_t rest_ms, uint64_t c_ms)
{
	const struct ir_op a[] = {
		{ .kind = IR_OP_RUN, .ns = wake_ms * MS }, { .kind = IR_OP_WAKE, .arg = 2 },
		{ .kind = IR_OP_RUN, .ns = rest_ms * MS }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op b[] = { { .kind = IR_OP_RUN, .ns = 200 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op c[] = { { .kind = IR_OP_BLOCK_TASK }, { .kind = IR_OP_RUN, .ns = c_ms * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op *ops[] = { a, b, c };
	const uint32_t nr[] = { 4, 2, 3 };
	const uint8_t start[] = { IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_BLOCKED };
	const uint16_t cpu[] = { 0, 1, 0 };

	return programs(2, 3, ops, nr, start, cpu);
}

/* mainline on three(): SIS_UTIL and recent_used_cpu as the release has them */
static void run_three(struct ir_workload *w, bool sis_util, struct ir_sim_result *r)
{
	struct ir_policy_params pol;
	struct ir_sim_params sp;

	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	ir_sim_params_default(&sp, 2);
	sp.recent_used_cpu = true;
	sp.sis_util = sis_util;
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, r), 0);
	assert_false(r->stalled);
}

/*
 * SIS_UTIL (select_idle_cpu(), v5.19): A and B keep both CPUs busy for
 * 200 ms (PELT util near 1024 each: x = sum_util / 2 > 85 % of 1024, so
 * update_idle_cpu_scan() sets nr_idle_scan 0); B exits and CPU 1 idles;
 * at 210 ms A wakes C, last on CPU 0.  No wake_affine() (waker and prev
 * share CPU 0), target 0 is busy, prev is target, recent_used_cpu is prev:
 * only the idle scan could find CPU 1, and SIS_UTIL skips it, so C stays
 * on CPU 0 (no wakeup migration).  Without SIS_UTIL the scan finds idle
 * CPU 1: one wakeup migration.
 */
static void test_sis_util(void **state)
{
	struct ir_workload *w = three(210, 20, 1);
	struct ir_sim_result r;

	(void)state;
	run_three(w, true, &r);
	assert_int_equal(r.mig_wakeup, 0);
	run_three(w, false, &r);
	assert_int_equal(r.mig_wakeup, 1);
	ir_workload_free(w);
}

/*
 * An idle CPU balances at its idle interval (rebalance_domains() takes the
 * interval by the CPU's state at the check; update_next_balance() in the
 * newidle path).  A wakes C at 209 ms, C runs 5 ms: CPU 1 balanced last
 * while busy at 194 ms (every 2 ms x busy_factor 16 from 2 ms), so busy its
 * next would be 226 ms.  It idles at 200 ms; C wakes onto CPU 0 (SIS_UTIL)
 * at 209 ms and preempts A (place_entity() puts C 6 ms behind, more than
 * the 2 ms wakeup_gran()); A waits.  Due every 2 ms while idle (200, 202,
 * ... ms), CPU 1 pulls A at 210 ms (one periodic migration; A stopped 1 ms
 * before: not task_hot()), and A's 21 ms left end at 231 ms plus one 5 us
 * cache refill.  At the busy interval CPU 1 would look at 226 ms, after A
 * resumed on CPU 0 at 214 ms: no migration, the end at 235 ms.  That is
 * with sd->balance_interval fixed at sd->min_interval (balance_feedback
 * off).  With load_balance()'s feedback (the default) every balance of CPU
 * 1 finds one task per CPU, balanced ("out_balanced": interval doubled to
 * max_interval, 2 x sd_weight = 4 ms): it balances busy at 2 ms, then every
 * 4 x 16 = 64 ms (66, 130, 194 ms); idle at 200 ms (194 + 4 ms is past, so
 * at once) it balances at 200, 204, 208 and 212 ms, and pulls A at 212 ms:
 * 21 ms left, the end at 233 ms plus the refill.
 */
static void test_idle_interval(void **state)
{
	struct ir_workload *w = three(209, 21, 5);
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;

	(void)state;
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	for (int k = 0; k < 2; k++) {
		ir_sim_params_default(&sp, 2);
		assert_true(sp.balance_feedback);	/* the default */
		sp.recent_used_cpu = true;
		sp.sis_util = true;
		sp.balance_feedback = k == 0;
		assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
		assert_false(r.stalled);
		assert_int_equal(r.mig_wakeup, 0);
		assert_int_equal(r.mig_newidle, 0);
		assert_int_equal(r.mig_periodic, 1);
		assert_int_equal(r.completion_ns, (k == 0 ? 233 : 231) * MS + 5 * US);
	}
	ir_workload_free(w);
}

/* The first n slices of CPU 0 in a capture: task and [start, end) */
static void slices(const struct ir_capture *cap, int n, int32_t *task, uint64_t *start, uint64_t *end)
{
	int k = 0;

	for (uint64_t i = 0; i < cap->n && k < n; i++) {
		const struct ir_cap_rec *rc = &cap->rec[i];

		if (rc->kind != IR_CAP_SLICE || rc->cpu != 0 || rc->task < 0)
			continue;
		task[k] = rc->task;
		start[k] = rc->ts;
		end[k++] = rc->ts + rc->dur;
	}
	assert_int_equal(k, n);
}

/* mainline on one CPU (sysctl_sched_latency 6 ms, wakeup granularity
 * 1 ms) with a jiffy of tick_ns (0: none): the figures and the first n
 * slices of the schedule */
static void run_one_cpu(struct ir_workload *w, uint64_t tick_ns, struct ir_sim_result *r, int n, int32_t *task,
			uint64_t *start, uint64_t *end)
{
	struct ir_policy_params pol;
	struct ir_sim_params sp;

	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	ir_sim_params_default(&sp, 1);
	assert_int_equal(sp.sysctl_sched_latency, 6 * MS);
	assert_int_equal(sp.sysctl_sched_wakeup_granularity, 1 * MS);
	sp.tick_ns = tick_ns;
	sp.capture = ir_capture_new(1, 1000);
	assert_non_null(sp.capture);
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, r), 0);
	assert_false(r->stalled);
	slices(sp.capture, n, task, start, end);
	ir_capture_free(sp.capture);
}

/*
 * check_preempt_tick() runs from scheduler_tick() (v6.1 CFS; HRTICK off):
 * two CPU-bound tasks of 10 ms on one CPU, sched_slice() 3 ms each
 * (sysctl_sched_latency 6 ms over 2).  With a 4 ms jiffy the first is
 * preempted at the first tick past its slice, 4 ms, and so is the second
 * at 8 ms (ran 4 ms > 3 ms); without ticks they would switch every 3 ms.
 */
static void test_tick_preempt(void **state)
{
	struct ir_workload *w = cpu_bound(1, 2, 10 * MS, NULL);
	struct ir_sim_result r;
	int32_t task[3];
	uint64_t start[3], end[3];

	(void)state;
	run_one_cpu(w, 4 * MS, &r, 3, task, start, end);
	assert_int_equal(start[0], 0);
	assert_int_equal(end[0], 4 * MS);
	assert_int_equal(start[1], 4 * MS);
	assert_int_equal(end[1], 8 * MS);
	assert_int_not_equal(task[0], task[1]);
	assert_int_equal(task[2], task[0]);
	assert_int_equal(r.completion_ns, 20 * MS);
	ir_workload_free(w);
}

/*
 * The next buddy (check_preempt_wakeup() sets cfs_rq->next to the wakee
 * it preempts for; pick_next_entity() up to v6.5 runs it unless it lags
 * the leftmost by more than wakeup_gran()).  One CPU (sysctl_sched_latency
 * 6 ms, wakeup granularity 1 ms); W, A, X runnable at 0, vruntimes 0:
 * W runs first (ties by index) 1 ms and sleeps (vruntime 1 ms); A runs
 * from 1 ms and at 3.5 ms (vruntime 2.5 ms) wakes W.  W is 1.5 ms behind A
 * (more than 1 ms: preemption) but X, never run, is the leftmost; W is
 * within 1 ms of X, so W runs at once (wait 0), then X.  Picking the
 * leftmost instead, X would run its 2 ms slice (3 runnable) first and W
 * wait 2 ms.
 */
static void test_next_buddy(void **state)
{
	const struct ir_op w_ops[] = {
		{ .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_BLOCK_TASK },
		{ .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op a_ops[] = {
		{ .kind = IR_OP_RUN, .ns = 2500 * US }, { .kind = IR_OP_WAKE, .arg = 0 },
		{ .kind = IR_OP_RUN, .ns = 5 * MS }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op x_ops[] = { { .kind = IR_OP_RUN, .ns = 5 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op *ops[] = { w_ops, a_ops, x_ops };
	const uint32_t nr[] = { 4, 4, 2 };
	const uint8_t start[] = { IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE };
	const uint16_t cpu[] = { 0, 0, 0 };
	struct ir_workload *w = programs(1, 3, ops, nr, start, cpu);
	struct ir_sim_result r;
	int32_t task[4];
	uint64_t st[4], end[4];

	(void)state;
	run_one_cpu(w, 0, &r, 4, task, st, end);
	assert_int_equal(task[0], 0);
	assert_int_equal(end[0], 1 * MS);
	assert_int_equal(task[1], 1);
	assert_int_equal(end[1], 3500 * US);
	assert_int_equal(task[2], 0);		/* W, the next buddy, before X */
	assert_int_equal(st[2], 3500 * US);
	assert_int_equal(end[2], 4500 * US);
	assert_int_equal(task[3], 2);
	assert_int_equal(r.wakeups, 1);
	assert_true(r.wait_p99 < 10 * US);
	assert_int_equal(r.completion_ns, 14500 * US);
	ir_workload_free(w);
}

/*
 * select_idle_smt() of prev (c722f35b513f, v5.18; select_idle_sibling()
 * v6.1): one LLC of two SMT cores, {0, 1} and {2, 3}.  A (CPU 0), E
 * (CPU 1), B (CPU 2) and D (CPU 3) keep all four busy; at 1 ms A wakes F
 * (last on CPU 0): has_idle_cores, set when the idle machine started, sends
 * select_idle_cpu() over the cores, none idle, so set_idle_cores(false) and
 * F stays on CPU 0.  E exits at 200 ms: CPU 1 idles beside busy CPU 0, no
 * idle core.  At 210 ms A wakes C (last on CPU 0): target = prev = 0 (no
 * wake_affine() from prev's own CPU), busy; SIS_UTIL has nr_idle_scan 0
 * (the LLC near 100 % busy), so select_idle_cpu() would scan nothing, but
 * select_idle_smt() finds prev's idle sibling, CPU 1: one wakeup migration.
 * Without the rule, none.
 */
static void test_select_idle_smt(void **state)
{
	const struct ir_op a[] = {
		{ .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_WAKE, .arg = 4 },
		{ .kind = IR_OP_RUN, .ns = 209 * MS }, { .kind = IR_OP_WAKE, .arg = 5 },
		{ .kind = IR_OP_RUN, .ns = 20 * MS }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op e[] = { { .kind = IR_OP_RUN, .ns = 200 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op bd[] = { { .kind = IR_OP_RUN, .ns = 250 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op f[] = { { .kind = IR_OP_BLOCK_TASK }, { .kind = IR_OP_RUN, .ns = 100 * US }, { .kind = IR_OP_EXIT } };
	const struct ir_op c[] = { { .kind = IR_OP_BLOCK_TASK }, { .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op *ops[] = { a, e, bd, bd, f, c };
	const uint32_t nr[] = { 6, 2, 2, 2, 3, 3 };
	const uint8_t start[] = { IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE,
				  IR_START_BLOCKED, IR_START_BLOCKED };
	const uint16_t cpu[] = { 0, 1, 2, 3, 0, 0 };
	struct ir_workload *w = programs(4, 6, ops, nr, start, cpu);
	struct ir_domains *d;
	const struct ir_sched_domain *smt, *llc;
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;

	(void)state;
	d = ut_domains("sockets=1,cores=2,threads=2");
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	ir_sim_params_default(&sp, 4);
	smt = ir_domains_level(d, 0, 0);
	llc = ir_domains_level(d, 0, ir_domains_nr_levels(d, 0) - 1);
	assert_true(smt->flags & SD_SHARE_CPUCAPACITY);
	assert_true(smt->span[0] & 2);			/* CPU 1 is CPU 0's sibling */
	assert_true(llc->flags & SD_SHARE_PKG_RESOURCES);
	assert_int_equal(llc->span_weight, 4);
	sp.recent_used_cpu = true;
	sp.sis_util = true;
	sp.select_idle_smt = true;
	assert_int_equal(ir_simulate(w, d, &pol, &sp, &r), 0);
	assert_false(r.stalled);
	assert_int_equal(r.mig_wakeup, 1);
	sp.select_idle_smt = false;
	assert_int_equal(ir_simulate(w, d, &pol, &sp, &r), 0);
	assert_int_equal(r.mig_wakeup, 0);
	ir_domains_free(d);
	ir_workload_free(w);
}

/*
 * A migrated task is no longer cache hot (se->exec_start = 0:
 * migrate_task_rq_fair() in v6.1, enqueue_entity() with ENQUEUE_MIGRATED
 * from v6.3 and 6.1.y, through v6.18), so task_hot() lets a newidle
 * balance take it at once.  Two CPUs, one LLC; mainline, migration cost
 * 500 us.  A runs on CPU 0; P, B and C are runnable on CPU 1 at 0 and run
 * there in index order: P 1 ms (then blocks), B 0.3 ms (then sleeps),
 * C 0.1 ms (then exits).  At 1.1 ms A wakes P: CPU 1 is busy (B), so
 * wake_affine_weight() compares PELT loads (32 ms half-life,
 * f(t) = 1 - 2^(-t / 32 ms)): this = (1024 f(1.1) + 1024 f(1)) x 100 =
 * (24.1 + 21.9) x 100 = 4605 against prev = (3072 f(1) 2^(-0.1/32) +
 * 2048 f(0.1) - 21.9) x 108 = (65.7 + 4.4 - 21.9) x 108 = 5200: P goes to
 * the waker's CPU 0 (select_idle_sibling() finds no idle CPU), queued
 * behind A (its vruntime, 1 ms, is not 2 ms behind A's 1.1 ms: no
 * preemption).  At 1.4 ms C exits and CPU 1 runs newly idle: P last ran
 * 0.4 ms ago, under the 500 us migration cost, so without the rule it is
 * hot and stays queued until A's run ends; with it the newidle balance
 * pulls it (one newidle migration).
 */
static void test_migrated_not_hot(void **state)
{
	const struct ir_op a[] = {
		{ .kind = IR_OP_RUN, .ns = 1100 * US }, { .kind = IR_OP_WAKE, .arg = 1 },
		{ .kind = IR_OP_RUN, .ns = 20 * MS }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op p[] = {
		{ .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_BLOCK_TASK },
		{ .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op b[] = {
		{ .kind = IR_OP_RUN, .ns = 300 * US }, { .kind = IR_OP_BLOCK_DELAY, .ns = 50 * MS },
		{ .kind = IR_OP_RUN, .ns = 100 * US }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op c[] = { { .kind = IR_OP_RUN, .ns = 100 * US }, { .kind = IR_OP_EXIT } };
	const struct ir_op *ops[] = { a, p, b, c };
	const uint32_t nr[] = { 4, 4, 4, 2 };
	const uint8_t start[] = { IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE };
	const uint16_t cpu[] = { 0, 1, 1, 1 };
	struct ir_workload *w = programs(2, 4, ops, nr, start, cpu);
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;

	(void)state;
	w->task[2].ops[1].arg = 1;	/* the delay's waker: CPU 1's idle task */
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	assert_int_equal(pol.sysctl_sched_migration_cost, 500 * US);
	ir_sim_params_default(&sp, 2);
	sp.sync_wakeups = false;	/* wake_affine_weight() decides, as above */
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	assert_false(r.stalled);
	assert_int_equal(r.mig_wakeup, 1);	/* P to the waker's CPU */
	assert_int_equal(r.mig_newidle, 1);	/* and pulled back at 1.4 ms */
	assert_int_equal(r.newidle_pulls, 1);
	/* P runs its last 1 ms from the pull on CPU 1, not after A's 20 ms */
	assert_true(r.wait_p99 < 1 * MS);
	ir_workload_free(w);
}

/*
 * DELAY_DEQUEUE (152e11f6df29, v6.12; EEVDF): a task that sleeps while not
 * eligible stays queued, and a wakeup before it is picked is ttwu_runnable():
 * it stays on its CPU, with no select_task_rq().  Three CPUs, one LLC
 * (base slice 0.75 ms x 2 = 1.5 ms).  W (CPU 1) and X (CPU 2) start first;
 * P and A start on CPU 0 (no idle CPU for A), both at vruntime 0 with a
 * deadline half a slice on (0.75 ms).  P runs to it (0.75 ms), A to its
 * own (1.5 ms), P again (ties by index) and sleeps at 1.75 ms after 1 ms
 * of CPU: vruntime 1 ms against A's 0.75 ms, above their mean 0.875 ms:
 * not eligible, so delayed.  X exits at 1.2 ms (CPU 2 idle: P, preempted
 * 0.45 ms earlier, is cache hot for its newidle balance).  At 2 ms W wakes
 * P: delayed, it is requeued on CPU 0 (no wakeup migration), behind A
 * (RUN_TO_PARITY), until CPU 2's idle balance (interval 3 ms) takes it at
 * 3 ms.  Without the rule P was dequeued at 1.75 ms and
 * select_idle_sibling() sends it to idle CPU 2 at its wakeup.
 */
static void test_delay_dequeue(void **state)
{
	const struct ir_op wk_ops[] = {
		{ .kind = IR_OP_RUN, .ns = 2 * MS }, { .kind = IR_OP_WAKE, .arg = 2 },
		{ .kind = IR_OP_RUN, .ns = 10 * MS }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op x[] = { { .kind = IR_OP_RUN, .ns = 1200 * US }, { .kind = IR_OP_EXIT } };
	const struct ir_op p[] = {
		{ .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_BLOCK_TASK },
		{ .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op a[] = { { .kind = IR_OP_RUN, .ns = 10 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op *ops[] = { wk_ops, x, p, a };
	const uint32_t nr[] = { 4, 2, 4, 2 };
	const uint8_t start[] = { IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE };
	const uint16_t cpu[] = { 1, 2, 0, 0 };
	struct ir_workload *w = programs(3, 4, ops, nr, start, cpu);
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;

	(void)state;
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	ir_sim_params_default(&sp, 3);
	assert_int_equal(sp.sysctl_sched_base_slice, 1500 * US);
	sp.eevdf = true;
	sp.delay_dequeue = true;
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	assert_false(r.stalled);
	assert_int_equal(r.wakeups, 1);
	assert_int_equal(r.mig_wakeup, 0);
	assert_int_equal(r.mig_periodic, 1);	/* CPU 2's idle balance at 3 ms takes it */
	sp.delay_dequeue = false;
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	assert_false(r.stalled);
	assert_int_equal(r.wakeups, 1);
	assert_int_equal(r.mig_wakeup, 1);
	assert_int_equal(r.mig_periodic, 0);
	ir_workload_free(w);
}

/*
 * WF_SYNC (wake_affine_idle(), v6.1 and v6.18): "sync && nr_running == 1":
 * a waker alone on its CPU takes the wakee, whatever the loads.  Two CPUs,
 * one LLC, CFS, no tick.  W and Z share CPU 0: W, picked alone, runs its
 * 12 ms slice (sysctl_sched_latency), Z 12-16 ms, then Z sleeps 100 ms;
 * P runs 1 ms on CPU 1 and sleeps, B keeps CPU 1 busy.  At 18 ms W (alone
 * on CPU 0) wakes P.  Not sync, wake_affine_weight() on the PELT loads
 * (f(t) = 1 - 2^(-t / 32 ms)): CPU 0 holds W's 1024 f(18) = 330.6 and Z's
 * blocked 1024 f(16) 2^(-2/32) = 287.2, CPU 1 B's 330.6 and P's 1024 f(1)
 * 2^(-17/32) = 15.2, so this = (617.8 + 15.2) x 100 = 63300 against prev
 * = (345.8 - 15.2) x 108 = 35705: P stays on CPU 1.  Sync, it goes to
 * CPU 0 (select_idle_sibling() finds no idle CPU): one wakeup migration.
 * The same wakeup issued after W's sched_process_exit (IR_OP_F_EXITING) is
 * not sync (select_task_rq_fair(): !(current->flags & PF_EXITING)).
 */
static void test_sync_wakeup(void **state)
{
	const struct ir_op wk_ops[] = {
		{ .kind = IR_OP_RUN, .ns = 14 * MS }, { .kind = IR_OP_WAKE, .arg = 1 },
		{ .kind = IR_OP_RUN, .ns = 5 * MS }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op p[] = {
		{ .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_BLOCK_TASK },
		{ .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op b[] = { { .kind = IR_OP_RUN, .ns = 30 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op z[] = {
		{ .kind = IR_OP_RUN, .ns = 4 * MS }, { .kind = IR_OP_BLOCK_DELAY, .ns = 100 * MS },
		{ .kind = IR_OP_RUN, .ns = 100 * US }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op *ops[] = { wk_ops, p, b, z };
	const uint32_t nr[] = { 4, 4, 2, 4 };
	const uint8_t start[] = { IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE };
	const uint16_t cpu[] = { 0, 1, 1, 0 };
	struct ir_workload *w = programs(2, 4, ops, nr, start, cpu);
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;

	(void)state;
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	ir_sim_params_default(&sp, 2);
	assert_true(sp.sync_wakeups);		/* the default */
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	assert_false(r.stalled);
	assert_int_equal(r.mig_wakeup, 1);
	w->task[0].ops[1].flags |= IR_OP_F_EXITING;
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	assert_int_equal(r.mig_wakeup, 0);
	w->task[0].ops[1].flags = 0;
	sp.sync_wakeups = false;
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	assert_false(r.stalled);
	assert_int_equal(r.mig_wakeup, 0);
	ir_workload_free(w);
}

/* A wakeup issued after the waker's sched_process_exit (do_exit() sets
 * PF_EXITING before exit_notify() wakes the parent) is marked
 * IR_OP_F_EXITING; one issued before is not. */
static void test_exiting_waker(void **state)
{
	struct ir_wl_builder *b = ir_wl_new(2);
	struct ir_workload *w;
	const struct ir_sim_task *a;

	(void)state;
	assert_non_null(b);
	sw(b, T0, 0, 0, 0, 10);
	sw(b, T0, 1, 0, 0, 11);
	sw(b, T0 + 10 * US, 1, 11, IR_TASK_INTERRUPTIBLE, 0);
	sw(b, T0 + 10 * US, 1, 0, 0, 12);
	sw(b, T0 + 20 * US, 1, 12, IR_TASK_INTERRUPTIBLE, 0);
	wk(b, IR_EV_WAKING, T0 + 100 * US, 0, 10, 11, 1);
	wk(b, IR_EV_WAKEUP, T0 + 101 * US, 0, 10, 11, 1);
	exit_ev(b, T0 + 200 * US, 0, 10);
	wk(b, IR_EV_WAKING, T0 + 210 * US, 0, 10, 12, 1);
	wk(b, IR_EV_WAKEUP, T0 + 211 * US, 0, 10, 12, 1);
	sw(b, T0 + 220 * US, 0, 10, IR_EXIT_DEAD, 0);
	w = ir_wl_finish(b, T0 + 300 * US);
	assert_non_null(w);
	a = task(w, 10);
	/* runs 100 us, wakes 11, runs 110 us (exit at 200 us), wakes 12,
	 * runs 10 us, exits */
	assert_int_equal(a->nr_ops, 6);
	op_is(&a->ops[0], IR_OP_RUN, 100 * US);
	assert_int_equal(a->ops[1].kind, IR_OP_WAKE);
	assert_int_equal(a->ops[1].arg, idx(w, 11));
	assert_false(a->ops[1].flags & IR_OP_F_EXITING);
	op_is(&a->ops[2], IR_OP_RUN, 110 * US);
	assert_int_equal(a->ops[3].kind, IR_OP_WAKE);
	assert_int_equal(a->ops[3].arg, idx(w, 12));
	assert_true(a->ops[3].flags & IR_OP_F_EXITING);
	op_is(&a->ops[4], IR_OP_RUN, 10 * US);
	assert_int_equal(a->ops[5].kind, IR_OP_EXIT);
	ir_workload_free(w);
}

/*
 * A task's PELT load follows it (migrate_task_rq_fair() ->
 * remove_entity_load_avg(); attach_entity_load_avg() on the new CPU; v3.8+
 * through v6.18): cpu_load() is the sum of the attached tasks' load_avg.
 * Two CPUs, one LLC, CFS, not sync, no periodic balance (busy_factor 1000).
 * A (nice -3, weight 1991) runs alone on CPU 0; P runs 10 ms on CPU 1 and
 * sleeps, B (nice -3) keeps CPU 1 busy.  With f(t) = 1 - 2^(-t / 32 ms),
 * d(t) = 2^(-t / 32 ms) (times in ms):
 *  62: A wakes P.  load(0) = 1991 f(62) = 1471.2, load(1) = 1471.2 + l,
 *      P's load l = 1024 f(10) d(52) = 64.7: this = (1471.2 + 64.7) x 100
 *      = 153587 against prev = 1471.2 x 108 = 158891: P to CPU 0 (no idle
 *      CPU), where it preempts A (placed 6 ms behind it), runs 0.505 ms
 *      (with its 5 us refill) and sleeps.
 *  68.5: B wakes P (prev CPU 0, busy).  P's load is l' = 64.7 d(6.5) +
 *      1024 (1 - d(0.505)) d(5.995) = 56.2 + 9.8 = 65.9.  With the rule
 *      load(1) = 1991 f(68.5) = 1539.5 and load(0) = 1539.5 + 65.9: this =
 *      (1539.5 + 65.9) x 100 = 160543 against prev = 1539.5 x 108 =
 *      166264: P goes back to CPU 1, a second wakeup migration.  Without
 *      it P's CPU 1 history (56.2) stayed on CPU 1 and CPU 0 held only its
 *      9.8: this = (1539.5 + 56.2 + 65.9) x 100 = 166159 against prev =
 *      (1539.5 + 9.8 - 65.9) x 108 = 160198: P stays.
 * (Each decision is 3.5 % from flipping.)
 */
static void test_load_follows_task(void **state)
{
	const struct ir_op a[] = {
		{ .kind = IR_OP_RUN, .ns = 62 * MS }, { .kind = IR_OP_WAKE, .arg = 1 },
		{ .kind = IR_OP_RUN, .ns = 40 * MS }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op p[] = {
		{ .kind = IR_OP_RUN, .ns = 10 * MS }, { .kind = IR_OP_BLOCK_TASK },
		{ .kind = IR_OP_RUN, .ns = 500 * US }, { .kind = IR_OP_BLOCK_TASK },
		{ .kind = IR_OP_RUN, .ns = 500 * US }, { .kind = IR_OP_EXIT },
	};
	/* B's first run ends at 61.9 ms: update_curr() there keeps CPU 1's
	 * min_vruntime current for P's renormalisation at 62 ms */
	const struct ir_op b[] = {
		{ .kind = IR_OP_RUN, .ns = 51900 * US }, { .kind = IR_OP_RUN, .ns = 6600 * US },
		{ .kind = IR_OP_WAKE, .arg = 1 }, { .kind = IR_OP_RUN, .ns = 30 * MS }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op *ops[] = { a, p, b };
	const uint32_t nr[] = { 4, 6, 5 };
	const uint8_t start[] = { IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE };
	const uint16_t cpu[] = { 0, 1, 1 };
	struct ir_workload *w = programs(2, 3, ops, nr, start, cpu);
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;

	(void)state;
	w->task[0].prio = w->task[2].prio = 117;	/* nice -3: 1991 */
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	ir_sim_params_default(&sp, 2);
	sp.sync_wakeups = false;
	sp.busy_factor = 1000;
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	assert_false(r.stalled);
	assert_int_equal(r.wakeups, 2);
	assert_int_equal(r.mig_wakeup, 2);
	assert_int_equal(r.migrations, 2);
	ir_workload_free(w);
}

/* ------------------------------------------------ spilled workload */

static void mig_ev(struct ir_wl_builder *b, uint64_t ts, int cpu, int pid, int from, int to)
{
	struct ir_event ev = {
		.ts = ts, .cpu = cpu, .common_pid = 0, .type = IR_EV_MIGRATE,
		.mig.pid = pid, .mig.prio = 120, .mig.orig_cpu = from, .mig.dest_cpu = to,
	};

	feed(b, &ev);
}

/*
 * A long ping-pong chain on two CPUs, so every task has far more ops than a
 * reader buffer holds (IR_WL_READ_RECS) and windows cut it everywhere:
 * per 100 us round A (10, CPU 0) wakes B (11, CPU 1) and blocks, B wakes A
 * and blocks; every 7th round the idle task wakes C (12) onto busy CPU 0, a
 * balance moves it to CPU 1 (a move record) where it runs and blocks; every
 * 11th round A forks a child that runs on CPU 1 and exits.
 */
#define PP_ROUNDS 400
static struct ir_workload *pingpong_into(struct ir_wl_builder *b)
{
	assert_non_null(b);
	sw(b, T0, 0, 0, 0, 10);
	for (int i = 0; i < PP_ROUNDS; i++) {
		uint64_t t = T0 + (uint64_t)i * 100 * US;

		wk(b, IR_EV_WAKING, t + 10 * US, 0, 10, 11, 1);
		wk(b, IR_EV_WAKEUP, t + 11 * US, 0, 10, 11, 1);
		sw(b, t + 15 * US, 1, 0, 0, 11);
		sw(b, t + 20 * US, 0, 10, IR_TASK_INTERRUPTIBLE, 0);
		wk(b, IR_EV_WAKING, t + 40 * US, 1, 11, 10, 0);
		wk(b, IR_EV_WAKEUP, t + 41 * US, 1, 11, 10, 0);
		sw(b, t + 45 * US, 0, 0, 0, 10);
		sw(b, t + 50 * US, 1, 11, IR_TASK_INTERRUPTIBLE, 0);
		if (i % 11 == 5) {
			fork_ev(b, t + 55 * US, 0, 10, 100 + i);
			wk(b, IR_EV_WAKEUP_NEW, t + 56 * US, 0, 10, 100 + i, 1);
			sw(b, t + 57 * US, 1, 0, 0, 100 + i);
			exit_ev(b, t + 58 * US, 1, 100 + i);
			sw(b, t + 59 * US, 1, 100 + i, IR_EXIT_DEAD, 0);
		}
		if (i % 7 == 3) {
			wk(b, IR_EV_WAKING, t + 60 * US, 0, 0, 12, 0);
			wk(b, IR_EV_WAKEUP, t + 60 * US, 0, 0, 12, 0);
			mig_ev(b, t + 65 * US, 1, 12, 0, 1);
			sw(b, t + 66 * US, 1, 0, 0, 12);
			sw(b, t + 80 * US, 1, 12, IR_TASK_INTERRUPTIBLE, 0);
		}
	}
	return ir_wl_finish(b, T0 + (uint64_t)PP_ROUNDS * 100 * US);
}

/* Every record the reader gives for w, against the whole-trace workload's arrays. */
static void same_records(const struct ir_workload *w, const struct ir_workload *whole)
{
	struct ir_wl_reader *r = ir_wl_reader_new(w);

	assert_non_null(r);
	assert_int_equal(w->nr_tasks, whole->nr_tasks);
	assert_int_equal(w->nr_moves, whole->nr_moves);
	for (uint32_t i = 0; i < w->nr_tasks; i++) {
		assert_int_equal(w->task[i].nr_ops, whole->task[i].nr_ops);
		for (uint64_t j = 0; j < w->task[i].nr_ops; j++)
			assert_memory_equal(ir_wl_op(r, i, j), &whole->task[i].ops[j], sizeof(struct ir_op));
	}
	/* an index behind both buffers rereads the stream from its start */
	if (whole->task[0].nr_ops > 3 * IR_WL_READ_RECS)
		assert_memory_equal(ir_wl_op(r, 0, 1), &whole->task[0].ops[1], sizeof(struct ir_op));
	for (int c = 0; c < w->nr_cpus; c++) {
		assert_int_equal(w->nr_sw[c], whole->nr_sw[c]);
		for (uint64_t j = 0; j < w->nr_sw[c]; j++) {
			assert_int_equal(ir_wl_sw(r, c, j)->ns, whole->sw[c][j].ns);
			assert_int_equal(ir_wl_sw(r, c, j)->task, whole->sw[c][j].task);
		}
	}
	for (uint64_t j = 0; j < w->nr_moves; j++) {
		assert_int_equal(ir_wl_move(r, j)->ns, whole->moves[j].ns);
		assert_int_equal(ir_wl_move(r, j)->task, whole->moves[j].task);
		assert_int_equal(ir_wl_move(r, j)->dest, whole->moves[j].dest);
	}
	assert_int_equal(r->err, 0);
	ir_wl_reader_free(r);
}

/*
 * The spilled workload (what simulate uses) against the whole-trace one on
 * the ping-pong chain: windows of 1 ns (a seal between every two instants,
 * so every wakeup's sched_waking and sched_wakeup, and every op and its
 * successor, lie in different windows and chunks), 7 us, 1 ms and 10 s
 * (one window).  The records must be the same one by one, and every
 * policy's simulation and the frozen one must give the same figures,
 * field for field.
 */
static void test_spill_same_results(void **state)
{
	static const uint64_t window[] = { 1, 7 * US, 1 * MS, 10000 * MS };
	struct ir_workload *whole = pingpong_into(ir_wl_new(2));

	(void)state;
	assert_true(whole->task[0].nr_ops > 4 * IR_WL_READ_RECS);	/* several buffers per task */
	assert_true(whole->nr_moves >= 40 && whole->nr_tasks > 20);
	for (unsigned k = 0; k < sizeof(window) / sizeof(window[0]); k++) {
		struct ir_workload *w = pingpong_into(ir_wl_new_spill(2, window[k], "."));
		struct ir_sim_params sp;
		struct ir_sim_result r1, r2;

		assert_true(w->streamed && w->spill);
		assert_null(w->task[0].ops);
		assert_int_equal(w->pins_released, 0);
		assert_int_equal(w->bytes, whole->bytes);	/* the report's figure is the whole workload's */
		if (window[k] == 1)	/* a chunk per op at least for A: header + record */
			assert_true(w->spill_bytes >= 32 * whole->task[0].nr_ops);
		same_records(w, whole);
		ir_sim_params_default(&sp, 2);
		for (int p = 0; p <= IR_POL__COUNT; p++) {
			struct ir_policy_params pol;

			sp.frozen = p == IR_POL__COUNT;
			if (!sp.frozen)
				ir_policy_defaults((enum ir_policy_kind)p, &pol);
			assert_int_equal(ir_simulate(w, NULL, sp.frozen ? NULL : &pol, &sp, &r1), 0);
			assert_int_equal(ir_simulate(whole, NULL, sp.frozen ? NULL : &pol, &sp, &r2), 0);
			assert_true(r1.events > 1000);
			assert_memory_equal(&r1, &r2, sizeof(r1));
		}
		assert_int_equal(r1.forced, 0);	/* frozen followed the record */
		ir_workload_free(w);
	}
	ir_workload_free(whole);
}

/* A spill directory that cannot take the file: NULL with errno, nothing made. */
static void test_spill_no_dir(void **state)
{
	(void)state;
	assert_null(ir_wl_new_spill(2, MS, "./no-such-directory-for-the-spill"));
	assert_int_equal(errno, ENOENT);
}

/*
 * The newidle walk drops the rq lock and balances one level after another,
 * each over its cost; after each, "Stop searching for tasks to pull if
 * there are now runnable tasks on this rq" (v6.1 newidle_balance(), v6.18
 * sched_balance_newidle(): pulled_task || this_rq->nr_running > 0 ||
 * this_rq->ttwu_pending).  Four CPUs, two sockets of two cores: CPU 0's
 * levels are MC {0, 1} (cost 20 us under mainline's defaults) and the
 * level of both sockets {0..3}.  A runs 1 ms on CPU 0 and exits; B and E
 * run 30 ms alone on CPUs 1 and 3; C runs 10 ms on CPU 2, where D (1 ms)
 * is queued behind it from 0.1 ms (no CPU idle then, D never ran: not
 * cache hot).  At 1 ms CPU 0 runs newly idle (avg_idle 1 ms, twice the
 * 500 us migration cost, passes both levels' cost checks; rd->overload is
 * set by CPU 2): MC finds CPU 1 with one task, nothing to pull; only the
 * package level would take D.  W, pinned to CPU 0, is woken by an
 * interrupt at 1.01 ms, while MC is being balanced: the walk stops when MC
 * ends, at 1.02 ms (the top level, 50 us, is not tried), W runs from then, and D is never pulled (it runs on
 * CPU 2 after C, at 10 ms).  With the whole walk decided at its entry D was
 * pulled at 1 ms (one newidle migration) and W queued behind it.
 */
static void test_newidle_lock_drop(void **state)
{
	const struct ir_op a[] = { { .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op be[] = { { .kind = IR_OP_RUN, .ns = 30 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op c[] = { { .kind = IR_OP_RUN, .ns = 10 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op d_ops[] = { { .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op wo[] = {
		{ .kind = IR_OP_BLOCK_DELAY, .ns = 1 * MS + 10 * US }, { .kind = IR_OP_RUN, .ns = 20 * MS },
		{ .kind = IR_OP_EXIT },
	};
	const struct ir_op *ops[] = { a, be, c, d_ops, be, wo };
	const uint32_t nr[] = { 2, 2, 2, 2, 2, 3 };
	const uint8_t start[] = { IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE,
				  IR_START_RUNNABLE, IR_START_BLOCKED };
	const uint16_t cpu[] = { 0, 1, 2, 2, 3, 0 };
	struct ir_workload *w = programs(4, 6, ops, nr, start, cpu);
	struct ir_domains *dom;
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;
	int32_t task[2];
	uint64_t st[2], en[2];

	(void)state;
	w->task[3].start_ns = 100 * US;
	w->task[5].pinned = true;
	dom = ut_domains("sockets=2,cores=2,threads=1");
	assert_int_equal(ir_domains_nr_levels(dom, 0), 2);
	assert_int_equal(ir_domains_level(dom, 0, 0)->span_weight, 2);
	assert_int_equal(ir_domains_level(dom, 0, 1)->span_weight, 4);
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	ir_sim_params_default(&sp, 4);
	assert_true(sp.newidle_lock_drop);	/* the default */
	sp.capture = ir_capture_new(4, 1000);
	assert_non_null(sp.capture);
	assert_int_equal(ir_simulate(w, dom, &pol, &sp, &r), 0);
	assert_false(r.stalled);
	assert_int_equal(r.newidle_pulls, 0);
	assert_int_equal(r.mig_newidle, 0);
	slices(sp.capture, 2, task, st, en);
	assert_int_equal(task[0], 0);
	assert_int_equal(en[0], 1 * MS);
	assert_int_equal(task[1], 5);		/* W from the end of MC's balance */
	assert_int_equal(st[1], 1 * MS + 20 * US);
	ir_capture_free(sp.capture);
	sp.capture = NULL;
	sp.newidle_lock_drop = false;
	assert_int_equal(ir_simulate(w, dom, &pol, &sp, &r), 0);
	assert_false(r.stalled);
	assert_int_equal(r.newidle_pulls, 1);
	assert_int_equal(r.mig_newidle, 1);
	ir_domains_free(dom);
	ir_workload_free(w);
}

/*
 * The newidle walk takes curr_cost, the time its load_balance() calls took
 * (t1 - t0 per domain, v6.1 newidle_balance(), v6.18
 * sched_balance_newidle()), not sd->max_newidle_lb_cost, the decaying
 * maximum it only checks avg_idle against.  With probes the workload gives
 * the median duration of the calls that walked (probed_walk_ns), and no
 * walk costs more (ir_decide()'s probed rule).  The workload of
 * test_newidle_lock_drop without W: at 1 ms CPU 0 balances MC (20 us under
 * mainline's defaults, nothing to pull), then the level spanning both
 * sockets (a node level: 50 us), which pulls D: D runs from 1.07 ms.  With
 * walks of 8 us measured, MC takes 8 us and the top level what is left, 0:
 * D runs from 1.008 ms.  Either way D runs its 1 ms and two 5 us cache
 * refills (the smallest level holding CPUs 2 and 0 is level 1).
 */
static void test_newidle_walk_duration(void **state)
{
	const struct ir_op a[] = { { .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op be[] = { { .kind = IR_OP_RUN, .ns = 30 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op c[] = { { .kind = IR_OP_RUN, .ns = 10 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op d_ops[] = { { .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op *ops[] = { a, be, c, d_ops, be };
	const uint32_t nr[] = { 2, 2, 2, 2, 2 };
	const uint8_t start[] = { IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE, IR_START_RUNNABLE,
				  IR_START_RUNNABLE };
	const uint16_t cpu[] = { 0, 1, 2, 2, 3 };
	struct ir_workload *w = programs(4, 5, ops, nr, start, cpu);
	struct ir_domains *dom;
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;
	const uint64_t walk[] = { 0, 8 * US }, from[] = { 1 * MS + 70 * US, 1 * MS + 8 * US };

	(void)state;
	w->task[3].start_ns = 100 * US;
	dom = ut_domains("sockets=2,cores=2,threads=1");
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	assert_int_equal(pol.max_newidle_lb_cost[ir_domains_level(dom, 0, 0)->kind], 20 * US);
	assert_int_equal(pol.max_newidle_lb_cost[ir_domains_level(dom, 0, 1)->kind], 50 * US);
	for (int k = 0; k < 2; k++) {
		int32_t task[2];
		uint64_t st[2], en[2];

		w->probed_walk_ns = walk[k];
		ir_sim_params_default(&sp, 4);
		sp.capture = ir_capture_new(4, 1000);
		assert_non_null(sp.capture);
		assert_int_equal(ir_simulate(w, dom, &pol, &sp, &r), 0);
		assert_false(r.stalled);
		assert_int_equal(r.mig_newidle, 1);
		slices(sp.capture, 2, task, st, en);
		assert_int_equal(task[1], 3);		/* D, pulled */
		assert_int_equal(st[1], from[k]);
		assert_int_equal(en[1], from[k] + 1 * MS + 10 * US);	/* + 2 levels' refill */
		ir_capture_free(sp.capture);
	}
	ir_domains_free(dom);
	ir_workload_free(w);
}

/* A probed newidle call: entry at ts with rd->overload, avg_idle and the
 * lowest level's sd->max_newidle_lb_cost, its kretprobe dur later. */
static void probed_call(struct ir_wl_builder *b, uint64_t ts, int cpu, int overload, int64_t avg_idle,
			int64_t sd0, uint64_t dur)
{
	struct ir_event in = { .ts = ts, .cpu = cpu, .type = IR_EV_PROBE_ENTRY };
	struct ir_event out = { .ts = ts + dur, .cpu = cpu, .type = IR_EV_PROBE_EXIT };

	in.probe_entry.cpu = cpu;
	in.probe_entry.v = (struct ir_probe_entry){
		.nr_running = 0, .avg_idle = avg_idle, .max_idle_balance_cost = 500000, .rd_overload = overload,
		.ttwu_pending = 0, .sd_max_newidle_lb_cost = { sd0, sd0, sd0 }, .sd_newidle_ratio = { -1, -1, -1 },
	};
	feed(b, &in);
	feed(b, &out);
}

/*
 * probed_walk_ns is the median duration of the probed calls past the entry
 * checks (v6.1 newidle_balance(), v6.18 sched_balance_newidle(): out when
 * !rd->overload or avg_idle < the lowest sd->max_newidle_lb_cost), which
 * walk the domains: of five calls, 20, 30 and 40 us walked (median 30 us);
 * one of 1 us found rd->overload clear and one of 2 us avg_idle (50 us)
 * under the cost (100 us).  Over all five the median would be 20 us.
 */
static void test_probed_walk(void **state)
{
	struct ir_wl_builder *b = ir_wl_new(2);
	struct ir_workload *w;

	(void)state;
	assert_non_null(b);
	sw(b, T0, 0, 0, 0, 10);
	probed_call(b, T0 + 1 * MS, 1, 1, 1 * MS, 100 * US, 20 * US);
	probed_call(b, T0 + 2 * MS, 1, 0, 1 * MS, 100 * US, 1 * US);
	probed_call(b, T0 + 3 * MS, 1, 1, 1 * MS, 100 * US, 40 * US);
	probed_call(b, T0 + 4 * MS, 1, 1, 50 * US, 100 * US, 2 * US);
	probed_call(b, T0 + 5 * MS, 1, 1, 1 * MS, 100 * US, 30 * US);
	w = ir_wl_finish(b, T0 + 10 * MS);
	assert_non_null(w);
	assert_int_equal(w->probe_calls, 5);
	assert_true(w->probed_walk_ns >= 30 * US * 99 / 100 && w->probed_walk_ns <= 30 * US * 101 / 100);
	ir_workload_free(w);
}

/*
 * Balance intervals in jiffies, balances on ticks (get_sd_balance_interval()
 * and rebalance_domains(), v6.1 through v6.18): with a 4 ms jiffy the 2 ms
 * idle interval is msecs_to_jiffies(2) = 1 jiffy (rounded up), the busy one
 * 2 x 16 = 32 ms = 8 jiffies less one, 28 ms.  three(209, 21, 5) as in
 * test_idle_interval: CPU 1 balances busy at 28, 56, ..., 196 ms, idles at
 * 200 ms and, due every jiffy, balances at 200, 204, 208 and 212 ms; C
 * preempts A on CPU 0 at 209 ms (SIS_UTIL keeps it there), so CPU 1 pulls
 * A at 212 ms (not 210 ms, the next 2 ms step), and A's 21 ms left end at
 * 233 ms plus one 5 us cache refill.  Without the jiffy, as
 * test_idle_interval: 231 ms.  (sd->balance_interval fixed here; with
 * load_balance()'s feedback see test_idle_interval.)
 */
static void test_balance_jiffies(void **state)
{
	struct ir_workload *w = three(209, 21, 5);
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;

	(void)state;
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	for (int k = 0; k < 2; k++) {
		ir_sim_params_default(&sp, 2);
		assert_true(sp.balance_jiffies);	/* the default */
		sp.recent_used_cpu = true;
		sp.sis_util = true;
		sp.tick_ns = 4 * MS;
		sp.balance_jiffies = k == 0;
		sp.balance_feedback = false;
		assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
		assert_false(r.stalled);
		assert_int_equal(r.mig_wakeup, 0);
		assert_int_equal(r.mig_newidle, 0);
		assert_int_equal(r.mig_periodic, 1);
		assert_int_equal(r.completion_ns, (k == 0 ? 233 : 231) * MS + 5 * US);
	}
	ir_workload_free(w);
}

/*
 * The recording stops with a task woken but not yet switched in: A (10) runs
 * on CPU 0 throughout; B (11) runs on CPU 1 until it blocks at 100 us; at
 * 700 us A wakes B onto idle CPU 1 (sched_waking, with or without its
 * sched_wakeup) and the trace ends at 800 us before CPU 1's switch.  B's
 * last op is IR_OP_END: the frozen run, which has no recorded switch to run
 * it, leaves it queued where the trace left it, and that is no stall (a
 * held-out hackbench trace ended on such a sched_waking of rcu_preempt).
 */
static void test_end_queued_not_stalled(void **state)
{
	(void)state;
	for (int with_wakeup = 0; with_wakeup < 2; with_wakeup++) {
		struct ir_wl_builder *b = ir_wl_new(2);
		struct ir_workload *w;
		struct ir_sim_params sp;
		struct ir_sim_result r;
		const struct ir_sim_task *bt;

		assert_non_null(b);
		sw(b, T0, 0, 0, 0, 10);
		sw(b, T0, 1, 0, 0, 11);
		sw(b, T0 + 100 * US, 1, 11, IR_TASK_INTERRUPTIBLE, 0);
		wk(b, IR_EV_WAKING, T0 + 700 * US, 0, 10, 11, 1);
		if (with_wakeup)
			wk(b, IR_EV_WAKEUP, T0 + 701 * US, 0, 10, 11, 1);
		w = ir_wl_finish(b, T0 + 800 * US);
		assert_non_null(w);
		bt = task(w, 11);
		assert_int_equal(bt->ops[bt->nr_ops - 1].kind, IR_OP_END);
		ir_sim_params_default(&sp, 2);
		sp.frozen = true;
		assert_int_equal(ir_simulate(w, NULL, NULL, &sp, &r), 0);
		assert_false(r.stalled);
		assert_int_equal(r.forced, 0);
		ir_workload_free(w);
	}
}

/*
 * An idle CPU's wakeup latency is the trace's distribution, not its median.
 * One task on one CPU, N times: runs 100 us, sleeps, a timer (the idle
 * task) wakes it 1 ms later onto its idle CPU, which switches it in after
 * 20 us three times in four and after 1 ms the fourth time.  The trace's
 * quantiles: least 20 us, median 20 us, greatest 1 ms.  Simulated (one
 * task, one CPU: every wait is the idle CPU's latency alone), the waits
 * are draws from that distribution: p50 20 us, p99 1 ms, and their sum
 * (completion less the runs and sleeps) near N x (3 x 20 us + 1 ms) / 4,
 * where the median for every wakeup (--idle-exit median) gives p99 20 us
 * and N x 20 us.
 */
#define IDLE_EXIT_N 400
static struct ir_workload *idle_exit_workload(void)
{
	struct ir_wl_builder *b = ir_wl_new(1);
	uint64_t t = T0;

	assert_non_null(b);
	sw(b, t, 0, 0, 0, 10);
	for (int i = 0; i < IDLE_EXIT_N; i++) {
		uint64_t lat = i % 4 == 3 ? 1 * MS : 20 * US;

		t += 100 * US;
		sw(b, t, 0, 10, IR_TASK_INTERRUPTIBLE, 0);
		t += 1 * MS;
		wk(b, IR_EV_WAKING, t, 0, 0, 10, 0);
		wk(b, IR_EV_WAKEUP, t, 0, 0, 10, 0);
		t += lat;
		sw(b, t, 0, 0, 0, 10);
	}
	t += 100 * US;
	exit_ev(b, t, 0, 10);
	sw(b, t, 0, 10, IR_EXIT_DEAD, 0);
	return ir_wl_finish(b, t);
}

/* |v - want| within pct % of want */
static void near(uint64_t v, uint64_t want, unsigned pct)
{
	uint64_t d = v > want ? v - want : want - v;

	if (d * 100 > want * pct)
		fail_msg("%llu is not within %u %% of %llu", (unsigned long long)v, pct, (unsigned long long)want);
}

static void test_idle_exit_distribution(void **state)
{
	struct ir_workload *w = idle_exit_workload();
	const uint64_t fixed = (IDLE_EXIT_N + 1) * 100 * US + IDLE_EXIT_N * 1 * MS;
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r, r2;

	(void)state;
	assert_non_null(w);
	/* the extraction's table (histogram midpoints: within 1 %): the
	 * timer fires on the idle CPU itself, so the local one */
	near(w->idle_wake_local_q[0], 20 * US, 1);
	near(w->idle_wake_local_q[IR_IDLE_WAKE_Q / 2], 20 * US, 1);
	near(w->idle_wake_local_q[IR_IDLE_WAKE_Q], 1 * MS, 1);
	assert_int_equal(w->idle_wake_q[IR_IDLE_WAKE_Q], 0);	/* none from another CPU */
	near(w->idle_wake_ns, 20 * US, 1);
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	ir_sim_params_default(&sp, 1);
	assert_false(sp.idle_exit_median);	/* the distribution is the default */
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
	assert_false(r.stalled);
	assert_int_equal(r.wakeups, IDLE_EXIT_N);
	near(r.wait_p50, 20 * US, 2);
	near(r.wait_p99, 1 * MS, 2);
	/* the waits' sum: the mean of the draws, 265 us, within 25 % (3
	 * standard deviations of N draws of a 1-in-4 event) */
	assert_true(r.completion_ns > fixed);
	near(r.completion_ns - fixed, IDLE_EXIT_N * (3 * 20 * US + 1 * MS) / 4, 25);
	/* seeded: the same seed, the same draws; another seed, others */
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r2), 0);
	assert_memory_equal(&r, &r2, sizeof(r));
	sp.seed = 2;
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r2), 0);
	assert_int_not_equal(r.completion_ns, r2.completion_ns);
	near(r2.wait_p99, 1 * MS, 2);
	/* the median for every wakeup: the earlier model, still reachable */
	sp.seed = 1;
	sp.idle_exit_median = true;
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r2), 0);
	assert_int_equal(r2.wait_p99, r2.wait_p50);
	near(r2.wait_p99, 20 * US, 2);
	near(r2.completion_ns - fixed, IDLE_EXIT_N * 20 * US, 2);
	ir_workload_free(w);
}

/*
 * What the table measures: the first wakee of an idle period, run from
 * idle.  One CPU; a timer wakes A at 1 ms and B 5 us later while the CPU
 * is still idle; A runs 50 us after its wakeup (the CPU's exit from idle),
 * B only after A blocks, 295 us after its own: B waited behind A, not for
 * the CPU to leave idle, so the table holds 50 us alone (both are waits of
 * wakeups onto an idle CPU, and both make the median of before).
 */
static void test_idle_exit_first_wakee(void **state)
{
	struct ir_wl_builder *b = ir_wl_new(1);
	struct ir_workload *w;

	(void)state;
	assert_non_null(b);
	sw(b, T0, 0, 0, 0, 10);
	sw(b, T0 + 10 * US, 0, 10, IR_TASK_INTERRUPTIBLE, 11);
	sw(b, T0 + 20 * US, 0, 11, IR_TASK_INTERRUPTIBLE, 0);
	wk(b, IR_EV_WAKING, T0 + 1 * MS, 0, 0, 10, 0);
	wk(b, IR_EV_WAKEUP, T0 + 1 * MS, 0, 0, 10, 0);
	wk(b, IR_EV_WAKING, T0 + 1 * MS + 5 * US, 0, 0, 11, 0);
	wk(b, IR_EV_WAKEUP, T0 + 1 * MS + 5 * US, 0, 0, 11, 0);
	sw(b, T0 + 1 * MS + 50 * US, 0, 0, 0, 10);
	sw(b, T0 + 1 * MS + 300 * US, 0, 10, IR_TASK_INTERRUPTIBLE, 11);
	w = ir_wl_finish(b, T0 + 2 * MS);
	assert_non_null(w);
	near(w->idle_wake_local_q[0], 50 * US, 1);
	near(w->idle_wake_local_q[IR_IDLE_WAKE_Q], 50 * US, 1);
	near(ir_hist_quantile(w->wait, 1.0), 295 * US, 1);	/* B's wait, recorded */
	ir_workload_free(w);
}

/*
 * A task's own timer fires on the CPU it slept on in the simulation
 * (hrtimer_start_range_ns() -> switch_hrtimer_base() -> get_target_base():
 * the arming CPU; v6.1, v6.18).  T starts on CPU 1 of two, runs 1 ms and
 * sleeps 5 ms; the recorded interrupt came on CPU 0, the CPU it slept on
 * in the trace (IR_OP_F_OWN_CPU).  Simulated, it slept on CPU 1, so its
 * timer fires there: a local wakeup of idle CPU 1, which takes the local
 * latency (10 us), not the remote one (1 ms) a wakeup from CPU 0 would.
 * Without the flag the recorded CPU 0 wakes it: 1 ms.
 */
static void test_own_timer_cpu(void **state)
{
	struct ir_op t_ops[] = {
		{ .kind = IR_OP_RUN, .ns = 1 * MS, .cpu = 1 },
		{ .kind = IR_OP_BLOCK_DELAY, .ns = 5 * MS, .cpu = 0, .arg = 0, .flags = IR_OP_F_OWN_CPU },
		{ .kind = IR_OP_RUN, .ns = 1 * MS, .cpu = 0 }, { .kind = IR_OP_EXIT },
	};
	const struct ir_op *ops[] = { t_ops };
	const uint32_t nr[] = { 4 };
	const uint8_t start[] = { IR_START_RUNNABLE };
	const uint16_t cpu[] = { 1 };
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;

	(void)state;
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	ir_sim_params_default(&sp, 2);
	for (int own = 1; own >= 0; own--) {
		struct ir_workload *w;

		t_ops[1].flags = own ? IR_OP_F_OWN_CPU : 0;
		w = programs(2, 1, ops, nr, start, cpu);
		for (int k = 0; k <= IR_IDLE_WAKE_Q; k++) {
			w->idle_wake_local_q[k] = 10 * US;
			w->idle_wake_q[k] = 1 * MS;
		}
		assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
		assert_false(r.stalled);
		assert_int_equal(r.wakeups, 1);
		near(r.wait_p50, own ? 10 * US : 1 * MS, 2);
		/* its start on idle CPU 1 is a local wakeup too (10 us) */
		assert_int_equal(r.completion_ns, 7 * MS + 10 * US + (own ? 10 * US : 1 * MS));
		ir_workload_free(w);
	}
}

/* Seeded: the same inputs give the same figures. */
static void test_deterministic(void **state)
{
	struct ir_workload *w = schedule();
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r1, r2;

	(void)state;
	ir_policy_defaults(IR_POL_PROPORTIONAL, &pol);
	ir_sim_params_default(&sp, 2);
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r1), 0);
	assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r2), 0);
	assert_memory_equal(&r1, &r2, sizeof(r1));
	ir_workload_free(w);
}

/*
 * rd->overload as the kernel keeps it: set when a runqueue reaches two
 * tasks (add_nr_running()), cleared only by a top-level
 * update_sd_lb_stats() that finds none at two.  Two CPUs, one level: A
 * (CPU 0) runs 10 ms, wakes B (pinned to CPU 0, so queued behind A: CPU 0
 * at two, the flag set; a wakeup granularity of 1 s keeps B from
 * preempting A) and exits; B then runs 200 ms alone; C (CPU 1) runs
 * c_ms and exits, and CPU 1's newidle balance (mainline: "if
 * (this_rq->avg_idle < sysctl_sched_migration_cost || !rd->overload)"
 * bails) reads the flag.  At 12 ms no balance has come since 10 ms (the
 * busy interval is 2 ms x 16): the flag is still set, avg_idle is its
 * initial 1 ms, so the walk runs its one level (finding nothing to pull:
 * B runs alone).  At 100 ms a periodic balance has rewritten it from the
 * runqueues, one task each: clear, and the call bails without an attempt.
 * (A count of overloaded runqueues kept by the queue operations alone
 * missed A's exit and kept the flag set.)
 */
static void test_overload_rewrite(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		uint64_t c_ms = k == 0 ? 12 : 100;
		const struct ir_op a[] = { { .kind = IR_OP_RUN, .ns = 10 * MS }, { .kind = IR_OP_WAKE, .arg = 1 },
					   { .kind = IR_OP_EXIT } };
		const struct ir_op b[] = { { .kind = IR_OP_BLOCK_TASK }, { .kind = IR_OP_RUN, .ns = 200 * MS },
					   { .kind = IR_OP_EXIT } };
		const struct ir_op c[] = { { .kind = IR_OP_RUN, .ns = c_ms * MS }, { .kind = IR_OP_EXIT } };
		const struct ir_op *ops[] = { a, b, c };
		const uint32_t nr[] = { 3, 3, 2 };
		const uint8_t start[] = { IR_START_RUNNABLE, IR_START_BLOCKED, IR_START_RUNNABLE };
		const uint16_t cpu[] = { 0, 0, 1 };
		struct ir_workload *w = programs(2, 3, ops, nr, start, cpu);
		struct ir_policy_params pol;
		struct ir_sim_params sp;
		struct ir_sim_result r;

		w->task[1].pinned = true;
		ir_policy_defaults(IR_POL_MAINLINE, &pol);
		ir_sim_params_default(&sp, 2);
		sp.sysctl_sched_wakeup_granularity = 1000 * MS;	/* B does not preempt A */
		assert_int_equal(ir_simulate(w, NULL, &pol, &sp, &r), 0);
		assert_false(r.stalled);
		assert_int_equal(r.completion_ns, 210 * MS);
		assert_int_equal(r.newidle_pulls, 0);
		assert_int_equal(r.newidle_attempts, k == 0 ? 1 : 0);
		ir_workload_free(w);
	}
}

/*
 * Active balance (v6.1 load_balance(): need_active_balance()'s
 * imbalanced_active_balance()).  One package of two cores of two threads;
 * A runs on CPU 2 and B on CPU 3 (core {2,3}) for 100 ms and never block;
 * core {0,1} is idle.  At MC, CPU 0 (should_we_balance(): the first idle
 * CPU of its core) finds the other core busier (SD_PREFER_SIBLING: two
 * tasks against none) and asks for one task, migrate_task; the busiest
 * runqueue holds only its running task ("if (busiest->nr_running > 1)"
 * fails), so nothing moves and sd->nr_balance_failed rises, balance after
 * balance, until it passes cache_nice_tries + 2 (MC: 1 + 2): the stopper
 * then pushes the running task to CPU 0.  Exactly one periodic migration
 * (afterwards one task per core: balanced); none without the feedback
 * (sd->nr_balance_failed stays 0), when both tasks share core {2,3} to
 * the end.
 */
static void test_active_balance(void **state)
{
	const struct ir_op a[] = { { .kind = IR_OP_RUN, .ns = 100 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op *ops[] = { a, a };
	const uint32_t nr[] = { 2, 2 };
	const uint8_t start[] = { IR_START_RUNNABLE, IR_START_RUNNABLE };
	const uint16_t cpu[] = { 2, 3 };
	struct ir_workload *w = programs(4, 2, ops, nr, start, cpu);
	struct ir_domains *d;
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;

	(void)state;
	d = ut_domains("sockets=1,cores=2,threads=2");
	assert_int_equal(ir_domains_level(d, 0, 1)->cache_nice_tries, 1);
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	for (int k = 0; k < 2; k++) {
		ir_sim_params_default(&sp, 4);
		sp.balance_feedback = k == 0;
		assert_int_equal(ir_simulate(w, d, &pol, &sp, &r), 0);
		assert_false(r.stalled);
		assert_int_equal(r.mig_wakeup, 0);
		assert_int_equal(r.mig_newidle, 0);
		assert_int_equal(r.mig_periodic, k == 0 ? 1 : 0);
	}
	ir_domains_free(d);
	ir_workload_free(w);
}

/* The first burst of `cause` migrations: 21 tasks of 100 ms start runnable
 * on CPU 1 of two CPUs of one LLC (MC: groups of one CPU); with cpu0_task,
 * one of them is a 1 ms task on CPU 0 instead.  Returns how many moved at
 * the earliest time one of `cause` did, checking each went from CPU 1 to
 * CPU 0; *before: the migrations of any other cause up to then. */
static int first_burst(bool cpu0_task, bool preemption, uint8_t cause, uint64_t *before)
{
	enum { N = 21 };
	const struct ir_op a[] = { { .kind = IR_OP_RUN, .ns = 100 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op b[] = { { .kind = IR_OP_RUN, .ns = 1 * MS }, { .kind = IR_OP_EXIT } };
	const struct ir_op *ops[N];
	uint32_t nr[N];
	uint8_t start[N];
	uint16_t cpu[N];
	struct ir_workload *w;
	struct ir_domains *d;
	struct ir_policy_params pol;
	struct ir_sim_params sp;
	struct ir_sim_result r;
	uint64_t first = UINT64_MAX;
	int burst = 0;

	for (int i = 0; i < N; i++) {
		bool on0 = cpu0_task && i == 0;

		ops[i] = on0 ? b : a;
		nr[i] = 2;
		start[i] = IR_START_RUNNABLE;
		cpu[i] = on0 ? 0 : 1;
	}
	w = programs(2, N, ops, nr, start, cpu);
	d = ut_domains("sockets=1,cores=2,threads=1");
	ir_policy_defaults(IR_POL_MAINLINE, &pol);
	pol.preemption = preemption;
	ir_sim_params_default(&sp, 2);
	sp.capture = ir_capture_new(2, 100000);
	assert_non_null(sp.capture);
	assert_int_equal(ir_simulate(w, d, &pol, &sp, &r), 0);
	assert_false(r.stalled);
	assert_int_equal(r.mig_wakeup, 0);
	for (uint64_t i = 0; i < sp.capture->n; i++) {
		const struct ir_cap_rec *c = &sp.capture->rec[i];

		if (c->kind == IR_CAP_MIGRATE && c->arg == cause && c->ts < first)
			first = c->ts;
	}
	assert_true(first != UINT64_MAX);
	*before = 0;
	for (uint64_t i = 0; i < sp.capture->n; i++) {
		const struct ir_cap_rec *c = &sp.capture->rec[i];

		if (c->kind != IR_CAP_MIGRATE || c->ts > first)
			continue;
		if (c->arg != cause) {
			(*before)++;
		} else if (c->ts == first) {
			assert_int_equal(c->from, 1);
			assert_int_equal(c->cpu, 0);
			burst++;
		}
	}
	ir_capture_free(sp.capture);
	ir_domains_free(d);
	ir_workload_free(w);
	return burst;
}

/*
 * A periodic balance moves as many tasks as the imbalance asks, in one
 * balance: detach_tasks() looks at up to loop_max = min(sysctl_sched_nr_migrate
 * = 32, busiest->nr_running) of them.  Two CPUs of one LLC; 21 tasks start
 * runnable on CPU 1 and each runs 100 ms, never blocking.  Placed as they
 * start (select_task_rq_fair()): the first on CPU 1 (prev, idle), the second
 * on idle CPU 0 (select_idle_sibling()), the other 19 on CPU 1 (no idle CPU
 * left): 1 against 20.  The first balance that moves anything is CPU 0's
 * once CPU 1's group is overloaded (CPU_NOT_IDLE: "if (busiest->group_type
 * != group_overloaded) ... goto out_balanced" before): v6.1
 * calculate_imbalance() with local having spare capacity, groups of one
 * CPU: migrate_task, (20 - 1) >> 1 = 9, all at that one time, from CPU 1 to
 * CPU 0 (the queued tasks ran well before; a window of 8 tasks moved 8).
 * Counted from the capture: the migrations of the earliest periodic balance.
 */
static void test_balance_burst(void **state)
{
	uint64_t before;

	(void)state;
	assert_int_equal(first_burst(false, true, IR_CAP_PERIODIC, &before), 9);
}

/* Newidle without CONFIG_PREEMPTION (v6.1 detach_tasks(): the one-task stop
 * is "#ifdef CONFIG_PREEMPTION ... if (env->idle == CPU_NEWLY_IDLE) break"):
 * CPU 0's only task exits after 1 ms while CPU 1 holds 20.  Worked out by
 * hand from calculate_imbalance() (local has spare, groups of one CPU,
 * migrate_task): (20 - 0) >> 1 = 10 tasks move in that newidle balance, all
 * at once, and no periodic balance came first; with the stop
 * (preemption=1) one does. */
static void test_newidle_no_preemption(void **state)
{
	uint64_t before;

	(void)state;
	assert_int_equal(first_burst(true, false, IR_CAP_NEWIDLE_PULL, &before), 10);
	assert_int_equal(before, 0);
	assert_int_equal(first_burst(true, true, IR_CAP_NEWIDLE_PULL, &before), 1);
	assert_int_equal(before, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extraction),
		cmocka_unit_test(test_stream_window_boundary),
		cmocka_unit_test(test_stream_early_wakeup),
		cmocka_unit_test(test_stream_taken_back),
		cmocka_unit_test(test_spill_same_results),
		cmocka_unit_test(test_spill_no_dir),
		cmocka_unit_test(test_frozen),
		cmocka_unit_test(test_end_queued_not_stalled),
		cmocka_unit_test(test_queued_not_picked),
		cmocka_unit_test(test_idle_sibling),
		cmocka_unit_test(test_fair_share),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_sis_util),
		cmocka_unit_test(test_idle_interval),
		cmocka_unit_test(test_tick_preempt),
		cmocka_unit_test(test_next_buddy),
		cmocka_unit_test(test_select_idle_smt),
		cmocka_unit_test(test_migrated_not_hot),
		cmocka_unit_test(test_delay_dequeue),
		cmocka_unit_test(test_sync_wakeup),
		cmocka_unit_test(test_exiting_waker),
		cmocka_unit_test(test_load_follows_task),
		cmocka_unit_test(test_newidle_lock_drop),
		cmocka_unit_test(test_newidle_walk_duration),
		cmocka_unit_test(test_probed_walk),
		cmocka_unit_test(test_balance_jiffies),
		cmocka_unit_test(test_idle_exit_distribution),
		cmocka_unit_test(test_idle_exit_first_wakee),
		cmocka_unit_test(test_own_timer_cpu),
		cmocka_unit_test(test_overload_rewrite),
		cmocka_unit_test(test_active_balance),
		cmocka_unit_test(test_balance_burst),
		cmocka_unit_test(test_newidle_no_preemption),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

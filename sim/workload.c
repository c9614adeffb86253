/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Workload extraction: one pass over the events turns the trace into a
 * program per task (struct ir_op): CPU bursts, and inside them the wakeups
 * and forks the task issued at the point where it issued them, then a block
 * and what ended it.  A wakeup whose waker (common_pid of sched_waking, or of
 * sched_wakeup when the trace lacks sched_waking) was a running task becomes
 * an IR_OP_WAKE in the waker's burst, so chains (pipes, futexes) keep their
 * order when the schedule changes.  A wakeup from the idle task or a kthread
 * (interrupts, timers, softirqs, workqueues) cannot follow a changed
 * schedule: it is kept as a delay after the block.  Kernel sources of each
 * event: try_to_wake_up() emits sched_waking on the waker's CPU (v4.3+),
 * wake_up_new_task() sched_wakeup_new, __schedule() sched_switch.
 *
 * Memory, and the streaming design (issue 13, "memory flat in trace length")
 * ---------------------------------------------------------------------------
 * ir_wl_new() keeps every op (16 bytes each, ~27 bytes per trace event with
 * the frozen mode's records): linear in the trace.  It stays as the test
 * oracle (and IDLEREPLAY_SIM_WHOLE=1).  ir_wl_new_stream() cuts the
 * recorded time into windows of window_ns and, at each window boundary,
 * *seals* what can no longer change, hands it to a sink in order, and drops
 * it.  ir_wl_new_spill() (what simulate uses) is a stream whose sink
 * appends to an unlinked file; the simulations read it back.
 *
 *  - What may still change.  Extraction patches ops after emitting them:
 *    sched_wakeup places the wakeup sched_waking announced (pending_op),
 *    a sched_waking on a still-running task is cancelled or turned into a
 *    block at its next switch (early_op), a wakeup taken back by
 *    not_queued() turns its waker's IR_OP_WAKE into a no-op (wake_op, while
 *    woken_ts is set), and each task's last op may get its PREEMPTED flag or
 *    be popped.  So task i's ops are sealed up to, not including, the lowest
 *    of: its last op, and every live reference into its ops held by any
 *    task.  A reference that would hold a task's ops back more than
 *    IR_WL_PIN_MAX ops is released (counted in pins_released; the later
 *    patch is then not applied): that bounds what one lost sched_wakeup can
 *    keep.  Switch and move records (frozen mode) never change after the
 *    event that made them: they are sealed whole.
 *  - Order.  A wakeup taken at a point of the waker's burst is an op of the
 *    waker at a fixed index; the wakee's block op refers to it only through
 *    the waker's op stream, so a boundary between them changes nothing:
 *    each task's ops reach the sink in index order, once, unchanged
 *    (unit-sim test_stream_window_boundary builds a chain across a 1 ns
 *    window and checks it op by op against the unwindowed build).
 *  - Whole-trace figures (completion, the recorded wait histogram, the
 *    share of wakeups explained, idle-wake and resched latencies, probed
 *    costs, nr_ops per task, each task's final prio and start) are counters
 *    in struct ir_workload; ir_wl_finish() of a stream gives them with no
 *    ops.  The extraction's memory is the tasks, the staged (unsealed) ops
 *    and one window, not the trace.
 *  - The spill file (below): each sealed window appends one chunk per
 *    stream that has records in it (a task's ops, a CPU's switch records,
 *    the moves), a chunk naming its stream's next, so the only index is a
 *    stream's first chunk: nothing in memory grows with the trace.  A
 *    simulation reads through its own reader (sim/sim.h, ir_wl_op()): per
 *    stream two buffers (8 records first, doubling to 256), pread() from
 *    the file, no lock, nothing shared but the read-only file; the records
 *    are the whole-trace path's, so the results are identical (unit-sim
 *    test_spill_same_results, integration-sim-spill).
 *
 * Why a file and not windows shared in memory.  The design first planned
 * (a second read of the trace sealing into per-task segment lists, every
 * simulation on its own thread pulling the next window when a task's next
 * op is not sealed, segments freed once every simulation passed them) is
 * not flat for this simulator: it reads a task's next op when the task
 * reaches the op before (advance()), and for a block it reads the op after
 * it at once, but that op is sealed only when the trace shows the wakeup
 * and the run after it.  A task asleep from the trace's start until t (a
 * daemon, a timer sleeper) makes setup() read ops that are sealed at t, so
 * every simulation would have to wait for the extraction to reach t while
 * every other task's windows since the start stay in memory: for a task
 * asleep until the end, the whole trace.  The file has no such look-ahead
 * (the extraction is done before any simulation starts), needs no producer
 * thread, lead bound or deadlock rule, lets the simulations run in any
 * order on any number of threads, and reads the trace once.  Its cost is
 * disk: about 16 bytes per op (bench/results-sim.md gives the file's size),
 * in TMPDIR, else /var/tmp (a directory on disk by convention; /tmp may be
 * a tmpfs, which would put the file back in memory).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/sim.h"

const char *const ir_wake_kind_name[IR_WK__COUNT] = {
	"task", "interrupt", "fork", "runnable", "unexplained",
};

enum tstate { T_NEW, T_RUNNING, T_RUNNABLE, T_BLOCKED, T_DEAD };

struct btask {
	uint8_t state, exiting, kthread;
	uint16_t cpu;
	uint64_t run_since;	/* start of the run not yet emitted */
	uint64_t block_ts;
	uint64_t woken_ts;	/* 0: no wakeup waiting to be switched in */
	uint8_t woken_idle;	/* that wakeup targeted an idle CPU */
	uint16_t woken_on;	/* the CPU its waker ran on (sched_waking's, else sched_wakeup's) */
	uint64_t wake_base_ts;	/* its last sched_waking (or fork) */
	uint8_t in_wakeup;	/* between sched_waking and sched_wakeup: a migration is its placement */
	int64_t pending_op;	/* op of a wake/fork whose placement sched_wakeup gives, -1 */
	uint32_t pending_owner;
	/* sched_waking while it still ran: either ttwu_runnable() (sched_wakeup
	 * follows at once, nothing to end) or the wake-list race, where the
	 * blocking switch follows and the wakeup is delivered after it
	 * (ttwu_queue_wakelist(), sched_wakeup on its CPU later) */
	uint8_t early, early_task;
	uint16_t early_target, early_irq_cpu;
	int64_t early_op;	/* the waker's IR_OP_WAKE, -1 */
	uint32_t early_owner;
	/* the block its last wakeup ended: the waker's IR_OP_WAKE (-1: none, or
	 * woken by an interrupt), and its own block op */
	int64_t wake_op;
	uint32_t wake_owner;
	uint64_t off_ts;	/* when it was last switched out runnable */
	uint32_t mark;		/* arrivals compaction: already kept */
	uint32_t cap;		/* of its staged ops */
	uint64_t base;		/* global index of ops[0]: ops before it were sealed and dropped (stream) */
};

struct ir_wl_builder {
	struct ir_workload *w;
	struct btask *bt;
	uint32_t cap;
	/* pid -> task index, open addressing */
	int32_t *hkey;
	uint32_t *hval;
	uint32_t hcap, hused;
	int32_t *cur;		/* per CPU: current task index, -1 idle */
	bool *cpu_seen;
	uint64_t *sw_cap;
	uint64_t moves_cap;
	/* per CPU, the tasks queued there since its last switch to idle (a
	 * superset of those still queued; kept under 2 * nr_tasks + 64) */
	uint32_t **arr;
	uint32_t *nr_arr, *arr_cap;
	uint32_t arr_mark;
	int nr_cpus;
	bool has_waking, started;
	struct ir_hist *idle_wait;	/* waits of wakeups onto idle CPUs */
	struct ir_hist *idle_exit;	/* [2]: idle CPUs' wakeup-to-run latencies (exit_mark()),
					 * woken from another CPU, from the CPU itself */
	uint64_t *exit_ts;		/* per CPU: the first wakeup queued on it while idle, 0 none */
	uint32_t *exit_task;		/* and its wakee */
	uint8_t *exit_local;		/* and whether its waker ran on that CPU */
	bool from_idle;			/* the switch being handled is from the idle task */
	struct ir_hist *preempt_wait;	/* waits of wakeups that preempted the running task */
	struct ir_hist *probe_cost;	/* [5]: probed per-level costs, max_idle_balance_cost,
					 * the durations of the calls that walked */
	uint64_t *probe_walk_ts;	/* per CPU: entry of a probed call that walks, 0 none */
	bool preempting;		/* this switch preempts its prev */
	uint64_t last_run_end;
	int oom;
	/* streaming (ir_wl_new_stream): windows of recorded time, sealed to a sink */
	bool stream;
	uint64_t window_ns, next_seal;
	struct ir_wl_sink sink;
	uint64_t *lim;			/* per task: seal below this index */
	uint32_t lim_cap;
	uint64_t *sw_base;		/* per CPU: global index of sw[c][0] */
	uint64_t moves_base;
	uint64_t staged, staged_peak;	/* records held unsealed (ops, switches, moves) */
	struct ir_wl_spill *spill;	/* ir_wl_new_spill(): the sink's file, handed to the workload */
};

/* Global op j of task i while it is staged (not sealed), else NULL. */
static struct ir_op *op_at(const struct ir_wl_builder *b, uint32_t i, int64_t j)
{
	const struct ir_sim_task *t = &b->w->task[i];

	if (j < 0 || (uint64_t)j >= t->nr_ops || (uint64_t)j < b->bt[i].base)
		return NULL;
	return &t->ops[(uint64_t)j - b->bt[i].base];
}

/* ---------------------------------------------------------------- hist */

static unsigned hist_bucket(uint64_t v)
{
	unsigned e, sub;

	if (v < IR_HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);		/* >= 7 */
	sub = (unsigned)(v >> (e - 7)) & (IR_HIST_SUB - 1);
	return (e - 6) * IR_HIST_SUB + sub;
}

static uint64_t hist_mid(unsigned b)
{
	unsigned e = b / IR_HIST_SUB, sub = b % IR_HIST_SUB;
	uint64_t lo, w;

	if (e == 0)
		return sub;
	e += 6;
	lo = ((uint64_t)(IR_HIST_SUB + sub)) << (e - 7);
	w = 1ull << (e - 7);
	return lo + w / 2;
}

void ir_hist_add(struct ir_hist *h, uint64_t v)
{
	h->b[hist_bucket(v)]++;
	h->n++;
}

uint64_t ir_hist_quantile(const struct ir_hist *h, double q)
{
	uint64_t want, acc = 0;

	if (!h->n)
		return 0;
	want = (uint64_t)ceil(q * (double)h->n);	/* nearest rank */
	if (!want)
		want = 1;
	for (unsigned b = 0; b < 64 * IR_HIST_SUB; b++) {
		acc += h->b[b];
		if (acc >= want)
			return hist_mid(b);
	}
	return 0;
}

/* ------------------------------------------------------------ pid map */

static uint32_t hslot(const struct ir_wl_builder *b, int32_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (b->hcap - 1);
}

static int64_t lookup(const struct ir_wl_builder *b, int32_t pid)
{
	if (!b->hcap)
		return -1;
	for (uint32_t i = hslot(b, pid);; i = (i + 1) & (b->hcap - 1)) {
		if (b->hkey[i] == pid)
			return b->hval[i];
		if (b->hkey[i] == -1)
			return -1;
	}
}

static int map_put(struct ir_wl_builder *b, int32_t pid, uint32_t idx)
{
	if (2 * (b->hused + 1) > b->hcap) {
		uint32_t ocap = b->hcap, ncap = ocap ? ocap * 2 : 1024;
		int32_t *ok = b->hkey;
		uint32_t *ov = b->hval;

		b->hkey = malloc(ncap * sizeof(*b->hkey));
		b->hval = malloc(ncap * sizeof(*b->hval));
		if (!b->hkey || !b->hval) {
			free(b->hkey);
			free(b->hval);
			b->hkey = ok;
			b->hval = ov;
			return -1;
		}
		memset(b->hkey, 0xff, ncap * sizeof(*b->hkey));
		b->hcap = ncap;
		b->hused = 0;
		for (uint32_t i = 0; i < ocap; i++)
			if (ok[i] != -1)
				map_put(b, ok[i], ov[i]);
		free(ok);
		free(ov);
	}
	for (uint32_t i = hslot(b, pid);; i = (i + 1) & (b->hcap - 1)) {
		if (b->hkey[i] == pid) {
			b->hval[i] = idx;
			return 0;
		}
		if (b->hkey[i] == -1) {
			b->hkey[i] = pid;
			b->hval[i] = idx;
			b->hused++;
			return 0;
		}
	}
}

/* -------------------------------------------------------------- tasks */

static bool comm_is(const char *c, const char *prefix)
{
	return !strncmp(c, prefix, strlen(prefix));
}

/* Per-CPU kthreads are pinned (as replay/state.c decides); kthreads at large
 * wake from interrupt-like context (timers, workqueues, softirqs). */
static void set_comm(struct ir_wl_builder *b, uint32_t i, const char *c, uint16_t len)
{
	struct ir_sim_task *t = &b->w->task[i];

	if (t->comm[0] || !c)
		return;
	len = (uint16_t)strnlen(c, len);
	memcpy(t->comm, c, len < IR_COMM_LEN - 1 ? len : IR_COMM_LEN - 1);
	t->pinned = comm_is(t->comm, "migration/") || comm_is(t->comm, "ksoftirqd/") ||
		    comm_is(t->comm, "cpuhp/") || comm_is(t->comm, "watchdog/") ||
		    comm_is(t->comm, "rcuc/") || comm_is(t->comm, "idle_inject/") ||
		    (comm_is(t->comm, "kworker/") && t->comm[8] >= '0' && t->comm[8] <= '9');
	if (t->pinned || comm_is(t->comm, "kworker/") || comm_is(t->comm, "kthreadd") ||
	    comm_is(t->comm, "rcu_") || comm_is(t->comm, "irq/") || comm_is(t->comm, "kcompactd") ||
	    comm_is(t->comm, "kswapd") || comm_is(t->comm, "khugepaged") || comm_is(t->comm, "jbd2/"))
		b->bt[i].kthread = 1;
}

static int64_t new_task(struct ir_wl_builder *b, int32_t pid, int cpu, enum ir_start_kind start, uint64_t ts)
{
	struct ir_workload *w = b->w;
	uint32_t i = w->nr_tasks;

	if (i == b->cap) {
		uint32_t ncap = b->cap ? b->cap * 2 : 256;
		struct ir_sim_task *nt = realloc(w->task, ncap * sizeof(*nt));
		struct btask *nb;

		if (!nt)
			return -1;
		w->task = nt;
		nb = realloc(b->bt, ncap * sizeof(*nb));
		if (!nb)
			return -1;
		b->bt = nb;
		b->cap = ncap;
	}
	memset(&w->task[i], 0, sizeof(w->task[i]));
	memset(&b->bt[i], 0, sizeof(b->bt[i]));
	w->task[i].pid = pid;
	w->task[i].prio = 120;
	w->task[i].start = (uint8_t)start;
	w->task[i].start_cpu = (uint16_t)(cpu >= 0 ? cpu : 0);
	w->task[i].start_ns = ts - w->first_ts;
	b->bt[i].pending_op = -1;
	b->bt[i].early_op = -1;
	b->bt[i].wake_op = -1;
	b->bt[i].cpu = (uint16_t)(cpu >= 0 ? cpu : 0);
	b->bt[i].kthread = pid == 2;
	if (map_put(b, pid, i))
		return -1;
	w->nr_tasks++;
	return i;
}

static struct ir_op *push(struct ir_wl_builder *b, uint32_t i, enum ir_op_kind kind)
{
	struct ir_sim_task *t = &b->w->task[i];
	struct btask *bt = &b->bt[i];
	struct ir_op *op;

	if (t->nr_ops - bt->base == bt->cap) {
		uint32_t ncap = bt->cap ? bt->cap * 2 : 8;
		struct ir_op *n = realloc(t->ops, ncap * sizeof(*n));

		if (!n) {
			b->oom = 1;
			return NULL;
		}
		t->ops = n;
		bt->cap = ncap;
	}
	op = &t->ops[t->nr_ops++ - bt->base];
	memset(op, 0, sizeof(*op));
	op->kind = (uint8_t)kind;
	b->w->nr_ops++;
	b->staged++;
	return op;
}

static bool queued_on(const struct ir_wl_builder *b, uint32_t i, int c)
{
	const struct btask *bt = &b->bt[i];

	return bt->state == T_RUNNABLE && bt->cpu == c && !bt->in_wakeup && !bt->early;
}

/* Task i may be queued on its CPU from now: remember it there. */
static void arrive(struct ir_wl_builder *b, uint32_t i)
{
	int c = b->bt[i].cpu;

	if (c >= b->w->nr_cpus)
		return;
	if (b->nr_arr[c] >= 2 * b->w->nr_tasks + 64) {
		/* compact: each task still queued there, once */
		uint32_t n = 0;

		b->arr_mark++;
		for (uint32_t k = 0; k < b->nr_arr[c]; k++) {
			uint32_t t = b->arr[c][k];

			if (queued_on(b, t, c) && b->bt[t].mark != b->arr_mark) {
				b->bt[t].mark = b->arr_mark;
				b->arr[c][n++] = t;
			}
		}
		b->nr_arr[c] = n;
	}
	if (b->nr_arr[c] == b->arr_cap[c]) {
		uint32_t ncap = b->arr_cap[c] ? b->arr_cap[c] * 2 : 16;
		uint32_t *na = realloc(b->arr[c], ncap * sizeof(*na));

		if (!na) {
			b->oom = 1;
			return;
		}
		b->arr[c] = na;
		b->arr_cap[c] = ncap;
	}
	b->arr[c][b->nr_arr[c]++] = i;
}

/* The run of a running task up to ts, as one RUN op. */
static struct ir_op *emit_run(struct ir_wl_builder *b, uint32_t i, uint64_t ts)
{
	struct btask *bt = &b->bt[i];
	struct ir_op *op;

	if (bt->state != T_RUNNING || ts <= bt->run_since) {
		bt->run_since = ts > bt->run_since ? ts : bt->run_since;
		return NULL;
	}
	if (!(op = push(b, i, IR_OP_RUN)))
		return NULL;
	op->ns = ts - bt->run_since;
	op->cpu = bt->cpu;
	bt->run_since = ts;
	return op;
}

static void sw_rec(struct ir_wl_builder *b, int cpu, uint64_t ts, int32_t task)
{
	struct ir_workload *w = b->w;

	if (w->nr_sw[cpu] - b->sw_base[cpu] == b->sw_cap[cpu]) {
		uint64_t ncap = b->sw_cap[cpu] ? b->sw_cap[cpu] * 2 : 64;
		struct ir_sw_rec *n = realloc(w->sw[cpu], ncap * sizeof(*n));

		if (!n) {
			b->oom = 1;
			return;
		}
		w->sw[cpu] = n;
		b->sw_cap[cpu] = ncap;
	}
	w->sw[cpu][w->nr_sw[cpu]++ - b->sw_base[cpu]] = (struct ir_sw_rec){ ts - w->first_ts, task };
	b->staged++;
}

/* The task we thought ran on cpu left unseen (a switch the trace lost, or
 * a task whose own events were filtered out), as the replay repairs it
 * (SPEC 9, symmetric idle accounting): it is taken as blocked from ts. */
static void lost_switch_out(struct ir_wl_builder *b, int cpu, uint64_t ts)
{
	uint32_t o = (uint32_t)b->cur[cpu];

	if (b->bt[o].state == T_RUNNING && b->bt[o].cpu == cpu) {
		emit_run(b, o, ts);
		b->bt[o].state = T_BLOCKED;
		b->bt[o].block_ts = ts;
	}
	b->cur[cpu] = -1;
}

/* The task starts running on cpu at ts. */
static void run_on(struct ir_wl_builder *b, uint32_t i, int cpu, uint64_t ts)
{
	struct btask *bt = &b->bt[i];

	if (bt->state == T_BLOCKED) {
		/* switched in without a wakeup we saw: lost or unrecorded */
		struct ir_op *op = push(b, i, IR_OP_BLOCK_DELAY);

		if (op) {
			op->ns = ts - bt->block_ts;
			op->cpu = (uint16_t)cpu;
			op->arg = (uint32_t)cpu;
			op->flags = IR_OP_F_NOWAIT;
		}
		b->w->wakes[IR_WK_UNEXPLAINED]++;
	}
	if (b->exit_ts[cpu]) {
		/* the idle CPU's first switch-in since a wakeup queued on it:
		 * its wakeup latency, when a recorded switch from the idle
		 * task runs that wakee (not a switch the trace lost, repaired
		 * at the task's next event: host CPU 1's quirk) */
		if (b->exit_task[cpu] == i && b->cur[cpu] < 0 && b->from_idle)
			ir_hist_add(&b->idle_exit[b->exit_local[cpu]], ts - b->exit_ts[cpu]);
		b->exit_ts[cpu] = 0;
	}
	if (b->cur[cpu] >= 0 && (uint32_t)b->cur[cpu] != i)
		lost_switch_out(b, cpu, ts);
	if (bt->woken_ts) {
		ir_hist_add(b->w->wait, ts - bt->woken_ts);
		if (bt->woken_idle)
			ir_hist_add(b->idle_wait, ts - bt->woken_ts);
		else if (b->preempting)
			ir_hist_add(b->preempt_wait, ts - bt->woken_ts);
		bt->woken_ts = 0;
	}
	bt->state = T_RUNNING;
	bt->cpu = (uint16_t)cpu;
	bt->run_since = ts;
	b->cur[cpu] = (int32_t)i;
	sw_rec(b, cpu, ts, (int32_t)i);
}

/* A live task for pid, first seen at ts on cpu (running there if running). */
static int64_t task_of(struct ir_wl_builder *b, int32_t pid, int cpu, uint64_t ts, bool running,
		       const char *comm, uint16_t len, int32_t prio)
{
	int64_t i = lookup(b, pid);

	if (i < 0 || b->bt[i].state == T_DEAD) {
		i = new_task(b, pid, cpu, running ? IR_START_RUNNABLE : IR_START_BLOCKED,
			     b->w->first_ts);
		if (i < 0)
			return -1;
		if (running) {
			b->bt[i].state = T_RUNNABLE;
			run_on(b, (uint32_t)i, cpu, ts);
			b->bt[i].run_since = b->cpu_seen[cpu] ? ts : b->w->first_ts;
			if (!b->cpu_seen[cpu])
				b->w->sw[cpu][b->w->nr_sw[cpu] - 1 - b->sw_base[cpu]].ns = 0;
		} else {
			b->bt[i].state = T_BLOCKED;
			b->bt[i].block_ts = b->w->first_ts;
		}
	}
	set_comm(b, (uint32_t)i, comm, len);
	if (prio >= 0)
		b->w->task[i].prio = prio;
	return i;
}

/* ------------------------------------------------------------- events */

static int64_t waker_running(struct ir_wl_builder *b, const struct ir_event *ev);

/* The early wakeup was ttwu_runnable(): its IR_OP_WAKE does nothing. */
static void early_cancel(struct ir_wl_builder *b, uint32_t i)
{
	struct btask *bt = &b->bt[i];

	if (bt->early_op >= 0) {
		struct ir_op *o = op_at(b, bt->early_owner, bt->early_op);

		if (o) {
			o->kind = IR_OP_RUN;	/* a run of 0 ns: no-op */
			o->ns = 0;
			o->arg = 0;
		}
	}
	bt->early = 0;
	bt->early_op = -1;
	b->w->wakes[IR_WK_RUNNABLE]++;
}

/* The early wakeup ends the block that starts at ts. */
static void early_block(struct ir_wl_builder *b, uint32_t i, uint64_t ts)
{
	struct btask *bt = &b->bt[i];
	struct ir_op *op = push(b, i, bt->early_task ? IR_OP_BLOCK_TASK : IR_OP_BLOCK_DELAY);

	if (!op)
		return;
	bt->wake_op = -1;
	if (bt->early_task) {
		bt->pending_op = bt->early_op;
		bt->pending_owner = bt->early_owner;
		bt->wake_op = bt->early_op;
		bt->wake_owner = bt->early_owner;
		b->w->wakes[IR_WK_TASK]++;
	} else {
		op->cpu = bt->early_target;
		op->arg = bt->early_irq_cpu;
		/* it blocks now with no delay (its sched_waking came while it
		 * ran), so it is queued the sched_waking -> sched_wakeup time
		 * after this block, not after that sched_waking */
		bt->wake_base_ts = ts;
		bt->pending_op = b->w->task[i].nr_ops - 1;
		bt->pending_owner = i;
		b->w->wakes[IR_WK_IRQ]++;
	}
	bt->early = 0;
	bt->early_op = -1;
	bt->state = T_RUNNABLE;
	bt->cpu = bt->early_target;
	bt->woken_ts = ts;
	bt->woken_idle = 0;
	bt->woken_on = bt->early_irq_cpu;
	bt->in_wakeup = b->has_waking;	/* its sched_wakeup comes later, on its CPU */
	arrive(b, i);
}

/*
 * cpu switched to the idle task while i was queued there.  pick_next_task()
 * takes the idle task only when no class has a task (v4.15+
 * __pick_next_task()), so i left that queue by events the trace lost (a CPU
 * that does not record its switches out of idle), as the replay decides
 * (replay/state.c, queued_not_picked).  Both stages keep one schedule: i is
 * not waiting from here.  If a wakeup queued it, that wakeup is taken back
 * (it stays blocked from its block, its wait is not measured, and the
 * wakeup counts as unexplained); if it was preempted, that run is its last
 * before a block instead.
 */
static void not_queued(struct ir_wl_builder *b, uint32_t i)
{
	struct btask *bt = &b->bt[i];
	struct ir_sim_task *t = &b->w->task[i];
	struct ir_op *last = t->nr_ops ? op_at(b, i, (int64_t)t->nr_ops - 1) : NULL;

	if (bt->woken_ts && last && (last->kind == IR_OP_BLOCK_TASK || last->kind == IR_OP_BLOCK_DELAY)) {
		if (last->kind == IR_OP_BLOCK_TASK) {
			struct ir_op *o = op_at(b, bt->wake_owner, bt->wake_op);

			if (!o || o->kind != IR_OP_WAKE || o->arg != i)
				return;
			o->kind = IR_OP_RUN;	/* a run of 0 ns: no-op */
			o->ns = 0;
			o->arg = 0;
			b->w->wakes[IR_WK_TASK]--;
		} else {
			b->w->wakes[IR_WK_IRQ]--;
		}
		b->w->wakes[IR_WK_UNEXPLAINED]++;
		t->nr_ops--;
		b->w->nr_ops--;
		b->staged--;
		bt->woken_ts = 0;
		bt->wake_op = -1;
	} else if (!bt->woken_ts && last && last->kind == IR_OP_RUN && (last->flags & IR_OP_F_PREEMPTED)) {
		last->flags &= (uint8_t)~IR_OP_F_PREEMPTED;
		bt->block_ts = bt->off_ts;
	} else if (!bt->woken_ts && !last && t->start == IR_START_RUNNABLE) {
		t->start = IR_START_BLOCKED;
		bt->block_ts = b->w->first_ts + t->start_ns;
	} else {
		return;		/* a new task: left queued */
	}
	bt->state = T_BLOCKED;
}

static void on_switch(struct ir_wl_builder *b, const struct ir_event *ev)
{
	int c = ev->cpu;
	uint64_t ts = ev->ts;

	if (ev->sw.next_pid == 0) {
		for (uint32_t k = 0; k < b->nr_arr[c]; k++) {
			uint32_t i = b->arr[c][k];

			if (queued_on(b, i, c) && b->w->task[i].pid != ev->sw.prev_pid)
				not_queued(b, i);
		}
		b->nr_arr[c] = 0;
	}

	if (ev->sw.prev_pid > 0) {
		int64_t p = task_of(b, ev->sw.prev_pid, c, ts, true, ev->sw.prev_comm,
				    ev->sw.prev_comm_len, ev->sw.prev_prio);
		struct btask *bt;

		if (p < 0)
			return;
		bt = &b->bt[p];
		if (bt->state != T_RUNNING || bt->cpu != c) {
			/* switched out where we did not see it switched in */
			bt->state = T_RUNNABLE;
			run_on(b, (uint32_t)p, c, ts);
		}
		{
			struct ir_op *op = emit_run(b, (uint32_t)p, ts);
			uint32_t st = ev->sw.prev_state;

			if (bt->early && (bt->exiting || ir_state_runnable(st) || (st & (IR_EXIT_DEAD | IR_EXIT_ZOMBIE))))
				early_cancel(b, (uint32_t)p);
			if (bt->exiting || (st & (IR_EXIT_DEAD | IR_EXIT_ZOMBIE))) {
				push(b, (uint32_t)p, IR_OP_EXIT);
				bt->state = T_DEAD;
			} else if (bt->early) {
				early_block(b, (uint32_t)p, ts);
			} else if (ir_state_runnable(st)) {
				struct ir_sim_task *t = &b->w->task[p];

				if (op)
					op->flags |= IR_OP_F_PREEMPTED;
				else if (t->nr_ops && op_at(b, (uint32_t)p, (int64_t)t->nr_ops - 1)->kind == IR_OP_RUN)
					op_at(b, (uint32_t)p, (int64_t)t->nr_ops - 1)->flags |= IR_OP_F_PREEMPTED;
				else if ((op = push(b, (uint32_t)p, IR_OP_RUN)))
					op->flags = IR_OP_F_PREEMPTED, op->cpu = (uint16_t)c;
				bt->state = T_RUNNABLE;
				bt->off_ts = ts;
				arrive(b, (uint32_t)p);
			} else {
				bt->state = T_BLOCKED;
				bt->block_ts = ts;
			}
			b->last_run_end = ts;
		}
	}
	b->cpu_seen[c] = true;
	b->cur[c] = -1;
	if (ev->sw.next_pid > 0) {
		int64_t n = lookup(b, ev->sw.next_pid);

		if (n < 0 || b->bt[n].state == T_DEAD) {
			/* runnable before we saw it: it enters here */
			n = new_task(b, ev->sw.next_pid, c, IR_START_RUNNABLE, ts);
			if (n < 0)
				return;
			b->bt[n].state = T_RUNNABLE;
		}
		set_comm(b, (uint32_t)n, ev->sw.next_comm, ev->sw.next_comm_len);
		b->w->task[n].prio = ev->sw.next_prio;
		if (b->bt[n].state == T_RUNNING && b->cur[b->bt[n].cpu] == n)
			b->cur[b->bt[n].cpu] = -1;	/* its switch out elsewhere was lost */
		if (b->bt[n].state == T_RUNNING)
			emit_run(b, (uint32_t)n, ts);
		b->bt[n].state = b->bt[n].state == T_RUNNING ? T_RUNNABLE : b->bt[n].state;
		b->preempting = ev->sw.prev_pid > 0 && ir_state_runnable(ev->sw.prev_state);
		b->from_idle = ev->sw.prev_pid == 0;
		run_on(b, (uint32_t)n, c, ts);
		b->preempting = false;
		b->from_idle = false;
	} else {
		sw_rec(b, c, ts, -1);
	}
}

/* A task event on cpu from common_pid: the task runs there (repairs a
 * switch into it the trace did not record). */
static int64_t waker_running(struct ir_wl_builder *b, const struct ir_event *ev)
{
	int64_t w;

	if (ev->common_pid <= 0)
		return -1;
	w = lookup(b, ev->common_pid);
	if (w < 0 || b->bt[w].state == T_DEAD)
		return -1;
	if (b->bt[w].state == T_RUNNING && b->bt[w].cpu == ev->cpu)
		return w;
	if (b->bt[w].state == T_RUNNABLE && b->cur[ev->cpu] < 0) {
		run_on(b, (uint32_t)w, ev->cpu, ev->ts);
		return w;
	}
	return -1;
}

/* sched_wakeup(_new) gives the placement of a wakeup or fork op, and when
 * the task was queued (frozen mode queues it then). */
static void placed(struct ir_op *op, const struct ir_event *ev, uint64_t base)
{
	uint64_t lag = ev->ts > base ? ev->ts - base : 0;

	op->cpu = (uint16_t)ev->wake.target_cpu;
	if (op->kind == IR_OP_BLOCK_DELAY)
		op->arg = (op->arg & 0xffff) | (uint32_t)ir_lag_pack(lag) << 16;
	else if (op->kind == IR_OP_WAKE || op->kind == IR_OP_FORK)
		op->ns = lag;
}

/* The waker w's burst so far, then its IR_OP_WAKE of p: the op's index, -1. */
static int64_t emit_wake(struct ir_wl_builder *b, uint32_t w, uint32_t p, const struct ir_event *ev)
{
	struct ir_op *op;

	emit_run(b, w, ev->ts);
	if (!(op = push(b, w, IR_OP_WAKE)))
		return -1;
	op->arg = p;
	op->cpu = (uint16_t)ev->wake.target_cpu;
	if (b->bt[w].exiting)
		op->flags |= IR_OP_F_EXITING;	/* PF_EXITING, set before sched_process_exit */
	return b->w->task[w].nr_ops - 1;
}

/*
 * Task p queued on cpu (sched_wakeup, sched_wakeup_new), woken at ts (its
 * sched_waking, as its wait is measured and the sim wakes it): when the CPU
 * is idle and no earlier wakee is waiting for it to leave idle, its next
 * switch-in, if to p, measures how long this machine takes to run a task
 * woken onto an idle CPU (run_on(): the wakeup IPI, the idle state's exit,
 * a vCPU's wakeup by its host): the sim draws from these (idle_wake_q).
 * Later wakees of the same idle period queue behind the first, and a CPU
 * that switches in another task first measures no latency.  Kept apart by
 * where the waker ran: on another CPU, ttwu_queue() must reach the idle
 * one (ttwu_queue_wakelist()'s IPI, or resched_curr()'s, unless the idle
 * loop polls TIF_NEED_RESCHED); on the idle CPU itself (its own interrupt
 * or timer woke the task) the CPU is already out of its idle state.
 */
static void exit_mark(struct ir_wl_builder *b, uint32_t p, int cpu, uint64_t ts)
{
	if (cpu < 0 || cpu >= b->nr_cpus || b->cur[cpu] >= 0 || b->exit_ts[cpu] || !ts)
		return;
	b->exit_ts[cpu] = ts;
	b->exit_task[cpu] = p;
	b->exit_local[cpu] = b->bt[p].woken_on == cpu;
}

static void on_wake(struct ir_wl_builder *b, const struct ir_event *ev)
{
	int64_t p, w;
	struct btask *bt;

	if (ev->wake.pid <= 0)
		return;
	p = task_of(b, ev->wake.pid, ev->wake.target_cpu, ev->ts, false, ev->wake.comm,
		    ev->wake.comm_len, ev->wake.prio);
	if (p < 0)
		return;
	bt = &b->bt[p];
	if (ev->type == IR_EV_WAKING && !bt->early)
		bt->wake_base_ts = ev->ts;
	if (ev->type == IR_EV_WAKEUP && b->has_waking) {
		bt->in_wakeup = 0;
		if (bt->early) {
			early_cancel(b, (uint32_t)p);	/* ttwu_runnable(): it never slept */
			return;
		}
		if (bt->state == T_RUNNABLE) {
			bt->cpu = (uint16_t)ev->wake.target_cpu;	/* queued here (after any move) */
			arrive(b, (uint32_t)p);
			exit_mark(b, (uint32_t)p, ev->wake.target_cpu, bt->woken_ts);
		}
		/* the placement of the wakeup sched_waking announced */
		if (bt->pending_op >= 0) {
			struct ir_op *o = op_at(b, bt->pending_owner, bt->pending_op);

			if (o)
				placed(o, ev, bt->wake_base_ts);
			bt->pending_op = -1;
		}
		return;
	}
	if (bt->state == T_NEW || bt->early || (bt->state != T_BLOCKED && !b->has_waking)) {
		b->w->wakes[IR_WK_RUNNABLE]++;
		return;
	}
	w = waker_running(b, ev);
	if (bt->state != T_BLOCKED) {
		/* it still runs: decided by what comes first, its sched_wakeup
		 * or its blocking switch */
		bt->early = 1;
		bt->early_target = (uint16_t)ev->wake.target_cpu;
		bt->early_irq_cpu = (uint16_t)ev->cpu;
		bt->early_task = w >= 0 && w != p && !b->bt[w].kthread;
		bt->early_op = -1;
		if (bt->early_task) {
			bt->early_op = emit_wake(b, (uint32_t)w, (uint32_t)p, ev);
			bt->early_owner = (uint32_t)w;
		}
		return;
	}
	if (w >= 0 && w != p && !b->bt[w].kthread) {
		if ((bt->pending_op = emit_wake(b, (uint32_t)w, (uint32_t)p, ev)) < 0)
			return;
		bt->pending_owner = (uint32_t)w;
		bt->wake_op = bt->pending_op;
		bt->wake_owner = (uint32_t)w;
		push(b, (uint32_t)p, IR_OP_BLOCK_TASK);
		b->w->wakes[IR_WK_TASK]++;
	} else {
		struct ir_op *op = push(b, (uint32_t)p, IR_OP_BLOCK_DELAY);

		if (!op)
			return;
		op->ns = ev->ts - bt->block_ts;
		op->cpu = (uint16_t)ev->wake.target_cpu;
		op->arg = (uint32_t)ev->cpu;
		if (ev->cpu == bt->cpu)
			op->flags |= IR_OP_F_OWN_CPU;	/* where it slept: its own timer */
		bt->pending_op = b->w->task[p].nr_ops - 1;
		bt->pending_owner = (uint32_t)p;
		bt->wake_op = -1;
		b->w->wakes[IR_WK_IRQ]++;
	}
	bt->state = T_RUNNABLE;
	bt->cpu = (uint16_t)ev->wake.target_cpu;
	bt->woken_ts = ev->ts;
	bt->woken_on = (uint16_t)ev->cpu;
	bt->woken_idle = ev->wake.target_cpu >= 0 && ev->wake.target_cpu < b->w->nr_cpus &&
			 b->cur[ev->wake.target_cpu] < 0;
	bt->in_wakeup = b->has_waking;
	arrive(b, (uint32_t)p);
	if (!b->has_waking)
		exit_mark(b, (uint32_t)p, ev->wake.target_cpu, bt->woken_ts);	/* sched_wakeup alone */
}

/* A waiting task moved by a balance: frozen mode moves it at the same time. */
static void on_migrate(struct ir_wl_builder *b, const struct ir_event *ev)
{
	int64_t i = ev->mig.pid > 0 ? lookup(b, ev->mig.pid) : -1;
	struct ir_workload *w = b->w;

	if (i < 0 || ev->mig.orig_cpu == ev->mig.dest_cpu || ev->mig.dest_cpu < 0 ||
	    ev->mig.dest_cpu >= w->nr_cpus || b->bt[i].state != T_RUNNABLE || b->bt[i].in_wakeup)
		return;
	if (w->nr_moves - b->moves_base == b->moves_cap) {
		uint64_t ncap = b->moves_cap ? b->moves_cap * 2 : 64;
		struct ir_move_rec *n = realloc(w->moves, ncap * sizeof(*n));

		if (!n) {
			b->oom = 1;
			return;
		}
		w->moves = n;
		b->moves_cap = ncap;
	}
	b->staged++;
	w->moves[w->nr_moves++ - b->moves_base] = (struct ir_move_rec){ ev->ts - w->first_ts, (uint32_t)i, (uint16_t)ev->mig.dest_cpu };
	b->bt[i].cpu = (uint16_t)ev->mig.dest_cpu;
	arrive(b, (uint32_t)i);
}

static void on_fork(struct ir_wl_builder *b, const struct ir_event *ev, int32_t parent, int32_t child,
		    const char *comm, uint16_t len)
{
	int64_t w = waker_running(b, ev), c;

	if (child <= 0)
		return;
	c = lookup(b, child);
	if (c >= 0 && b->bt[c].state == T_NEW)
		return;		/* sched_process_fork made it already */
	if (w >= 0 && b->w->task[w].pid == parent) {
		struct ir_op *op;

		c = new_task(b, child, ev->cpu, IR_START_FORKED, ev->ts);
		if (c < 0)
			return;
		emit_run(b, (uint32_t)w, ev->ts);
		if (!(op = push(b, (uint32_t)w, IR_OP_FORK)))
			return;
		op->arg = (uint32_t)c;
		op->cpu = (uint16_t)ev->cpu;
		b->bt[c].pending_op = b->w->task[w].nr_ops - 1;
		b->bt[c].pending_owner = (uint32_t)w;
	} else {
		c = new_task(b, child, ev->cpu, IR_START_RUNNABLE, ev->ts);
		if (c < 0)
			return;
	}
	b->bt[c].state = T_NEW;
	b->bt[c].wake_base_ts = ev->ts;
	b->bt[c].kthread = b->bt[c].kthread || parent == 2;
	set_comm(b, (uint32_t)c, comm, len);
}

static void on_wakeup_new(struct ir_wl_builder *b, const struct ir_event *ev)
{
	int64_t c = lookup(b, ev->wake.pid);
	struct btask *bt;

	if (c < 0 || b->bt[c].state != T_NEW) {
		on_fork(b, ev, ev->common_pid, ev->wake.pid, ev->wake.comm, ev->wake.comm_len);
		c = lookup(b, ev->wake.pid);
		if (c < 0 || b->bt[c].state != T_NEW)
			return;
	}
	bt = &b->bt[c];
	if (bt->pending_op >= 0) {
		struct ir_op *o = op_at(b, bt->pending_owner, bt->pending_op);

		if (o)
			placed(o, ev, bt->wake_base_ts);
		bt->pending_op = -1;
	}
	b->w->task[c].start_cpu = (uint16_t)ev->wake.target_cpu;
	b->w->task[c].start_ns = ev->ts - b->w->first_ts;
	b->w->task[c].prio = ev->wake.prio;
	bt->cpu = (uint16_t)ev->wake.target_cpu;
	bt->state = T_RUNNABLE;
	bt->woken_ts = ev->ts;
	bt->woken_on = (uint16_t)ev->cpu;
	b->w->wakes[IR_WK_FORK]++;
	arrive(b, (uint32_t)c);
	exit_mark(b, (uint32_t)c, ev->wake.target_cpu, bt->woken_ts);
}

/* A reference into task o's op j keeps it (and what follows) staged, unless
 * it holds more than IR_WL_PIN_MAX ops back: then it is released. */
static bool pin(struct ir_wl_builder *b, uint32_t o, int64_t j)
{
	uint64_t n = b->w->task[o].nr_ops;

	if (j < 0 || (uint64_t)j >= n || (uint64_t)j < b->bt[o].base)
		return true;	/* nothing left to patch there */
	if (n - (uint64_t)j > IR_WL_PIN_MAX) {
		if (b->w->pins_released != UINT32_MAX)
			b->w->pins_released++;
		return false;
	}
	if ((uint64_t)j < b->lim[o])
		b->lim[o] = (uint64_t)j;
	return true;
}

/* Hand what can no longer change to the sink and drop it (all: everything,
 * at the end).  Allocation-free once lim has grown to the task count. */
static void seal(struct ir_wl_builder *b, bool all)
{
	struct ir_workload *w = b->w;
	const struct ir_wl_sink *k = &b->sink;

	if (w->nr_tasks > b->lim_cap) {
		uint32_t ncap = w->nr_tasks * 2;
		uint64_t *n = realloc(b->lim, ncap * sizeof(*n));

		if (!n) {
			b->oom = 1;
			return;
		}
		b->lim = n;
		b->lim_cap = ncap;
	}
	for (uint32_t i = 0; i < w->nr_tasks; i++)
		b->lim[i] = all || !w->task[i].nr_ops ? w->task[i].nr_ops : w->task[i].nr_ops - 1;
	for (uint32_t i = 0; i < w->nr_tasks && !all; i++) {
		struct btask *bt = &b->bt[i];

		if (bt->state == T_DEAD)
			continue;	/* a pid seen again is a new task: its references are never used */
		if (bt->pending_op >= 0 && !pin(b, bt->pending_owner, bt->pending_op))
			bt->pending_op = -1;
		if (bt->early_op >= 0 && !pin(b, bt->early_owner, bt->early_op))
			bt->early_op = -1;
		if (bt->woken_ts && bt->wake_op >= 0 && !pin(b, bt->wake_owner, bt->wake_op))
			bt->wake_op = -1;
	}
	for (uint32_t i = 0; i < w->nr_tasks; i++) {
		struct ir_sim_task *t = &w->task[i];
		struct btask *bt = &b->bt[i];
		uint64_t n = b->lim[i] > bt->base ? b->lim[i] - bt->base : 0;

		if (!n)
			continue;
		if (k->ops && k->ops(k->arg, i, bt->base, t->ops, (uint32_t)n))
			b->oom = 1;
		memmove(t->ops, t->ops + n, (t->nr_ops - b->lim[i]) * sizeof(*t->ops));
		bt->base = b->lim[i];
		b->staged -= n;
	}
	for (int c = 0; c < w->nr_cpus; c++) {
		uint64_t n = w->nr_sw[c] - b->sw_base[c];

		if (!n)
			continue;
		if (k->sw && k->sw(k->arg, c, b->sw_base[c], w->sw[c], n))
			b->oom = 1;
		b->sw_base[c] = w->nr_sw[c];
		b->staged -= n;
	}
	if (w->nr_moves > b->moves_base) {
		uint64_t n = w->nr_moves - b->moves_base;

		if (k->moves && k->moves(k->arg, b->moves_base, w->moves, n))
			b->oom = 1;
		b->moves_base = w->nr_moves;
		b->staged -= n;
	}
}

/* ------------------------------------------------------------- spill */

/*
 * The spill file.  Offset 0 holds a 16-byte tag (so 0 names no chunk); then
 * chunks, each a 16-byte header { next chunk of the same stream (0: last),
 * records } and its 16-byte records.  Chunks are appended through a write
 * buffer; a stream's previous chunk gets its next offset patched in the
 * buffer, or with pwrite() once it is written out.  Streams: every task's
 * ops, every CPU's switch records, the moves.
 */
_Static_assert(sizeof(struct ir_op) == 16, "ops are 16-byte records");
_Static_assert(sizeof(struct ir_sw_rec) == 16, "switch records are 16 bytes");
_Static_assert(sizeof(struct ir_move_rec) == 16, "move records are 16 bytes");

#define SPILL_REC 16
#define SPILL_BUF (1u << 20)

struct spill_stream {
	uint64_t head, tail;	/* first and last chunk (0: none yet) */
};

struct ir_wl_spill {
	int fd;
	struct spill_stream *task, *sw, moves;
	uint32_t cap_task;
	int nr_cpus;
	unsigned char *out;	/* write buffer: file bytes out_off .. out_off + out_len */
	size_t out_len;
	uint64_t out_off;
	uint64_t size;		/* the file's size, the buffer included */
	int err;
};

static int spill_flush(struct ir_wl_spill *sp)
{
	size_t done = 0;

	while (done < sp->out_len) {
		ssize_t k = pwrite(sp->fd, sp->out + done, sp->out_len - done, (off_t)(sp->out_off + done));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			sp->err = 1;
			return -1;
		}
		done += (size_t)k;
	}
	sp->out_off += sp->out_len;
	sp->out_len = 0;
	return 0;
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Room for len bytes at the buffer's end; NULL on a write error. */
static unsigned char *spill_room(struct ir_wl_spill *sp, size_t len)
{
	if (sp->out_len + len > SPILL_BUF && spill_flush(sp))
		return NULL;
	return sp->out + sp->out_len;
}

/* Stream st's next chunk header, for n records appended right after it. */
static int spill_chunk(struct ir_wl_spill *sp, struct spill_stream *st, uint32_t n)
{
	uint64_t at = sp->size;
	unsigned char *h = spill_room(sp, SPILL_REC);
	uint32_t hdr[2] = { n, 0 };

	if (!h)
		return -1;
	put64(h, 0);
	memcpy(h + 8, hdr, sizeof(hdr));
	sp->out_len += SPILL_REC;
	sp->size += SPILL_REC;
	if (st->tail) {
		if (st->tail >= sp->out_off) {
			put64(sp->out + (st->tail - sp->out_off), at);
		} else {
			unsigned char v[8];

			put64(v, at);
			if (pwrite(sp->fd, v, sizeof(v), (off_t)st->tail) != (ssize_t)sizeof(v)) {
				sp->err = 1;
				return -1;
			}
		}
	} else {
		st->head = at;
	}
	st->tail = at;
	return 0;
}

/* The next record of the chunk being written, zeroed (padding included). */
static unsigned char *spill_rec(struct ir_wl_spill *sp)
{
	unsigned char *r = spill_room(sp, SPILL_REC);

	if (!r)
		return NULL;
	memset(r, 0, SPILL_REC);
	sp->out_len += SPILL_REC;
	sp->size += SPILL_REC;
	return r;
}

static int spill_ops(void *arg, uint32_t task, uint64_t first, const struct ir_op *op, uint32_t n)
{
	struct ir_wl_spill *sp = arg;

	(void)first;	/* sealed in index order: chunks follow one another */
	if (task >= sp->cap_task) {
		uint32_t ncap = (task + 1) * 2;
		struct spill_stream *t = realloc(sp->task, ncap * sizeof(*t));

		if (!t)
			return -1;
		memset(t + sp->cap_task, 0, (ncap - sp->cap_task) * sizeof(*t));
		sp->task = t;
		sp->cap_task = ncap;
	}
	if (spill_chunk(sp, &sp->task[task], n))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *r = spill_rec(sp);

		if (!r)
			return -1;
		memcpy(r, &op[i], SPILL_REC);	/* no padding in an ir_op */
	}
	return 0;
}

static int spill_sw(void *arg, int cpu, uint64_t first, const struct ir_sw_rec *rec, uint64_t n)
{
	struct ir_wl_spill *sp = arg;

	(void)first;
	for (uint64_t done = 0; done < n;) {
		uint32_t k = n - done > UINT32_MAX ? UINT32_MAX : (uint32_t)(n - done);

		if (spill_chunk(sp, &sp->sw[cpu], k))
			return -1;
		for (uint32_t i = 0; i < k; i++, done++) {
			unsigned char *r = spill_rec(sp);
			struct ir_sw_rec *x = (struct ir_sw_rec *)(void *)r;

			if (!r)
				return -1;
			x->ns = rec[done].ns;	/* field by field: the padding stays zero */
			x->task = rec[done].task;
		}
	}
	return 0;
}

static int spill_moves(void *arg, uint64_t first, const struct ir_move_rec *m, uint64_t n)
{
	struct ir_wl_spill *sp = arg;

	(void)first;
	for (uint64_t done = 0; done < n;) {
		uint32_t k = n - done > UINT32_MAX ? UINT32_MAX : (uint32_t)(n - done);

		if (spill_chunk(sp, &sp->moves, k))
			return -1;
		for (uint32_t i = 0; i < k; i++, done++) {
			unsigned char *r = spill_rec(sp);
			struct ir_move_rec *x = (struct ir_move_rec *)(void *)r;

			if (!r)
				return -1;
			x->ns = m[done].ns;
			x->task = m[done].task;
			x->dest = m[done].dest;
		}
	}
	return 0;
}

static void spill_free(struct ir_wl_spill *sp)
{
	if (!sp)
		return;
	if (sp->fd >= 0)
		close(sp->fd);
	free(sp->task);
	free(sp->sw);
	free(sp->out);
	free(sp);
}

/* An unlinked file in dir: nothing is left behind, whatever happens. */
static int spill_open(const char *dir)
{
	char path[4096];
	int fd;

#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	if ((size_t)snprintf(path, sizeof(path), "%s/idlereplay-wl-XXXXXX", dir) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemp(path);
	if (fd >= 0) {
		unlink(path);
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	return fd;
}

static struct ir_wl_spill *spill_new(int nr_cpus, const char *dir)
{
	struct ir_wl_spill *sp = calloc(1, sizeof(*sp));
	int e;

	if (!sp)
		return NULL;
	sp->fd = -1;
	sp->nr_cpus = nr_cpus;
	sp->sw = calloc((size_t)nr_cpus, sizeof(*sp->sw));
	sp->out = malloc(SPILL_BUF);
	if (!sp->sw || !sp->out) {
		spill_free(sp);
		errno = ENOMEM;
		return NULL;
	}
	if ((sp->fd = spill_open(dir)) < 0) {
		e = errno;
		spill_free(sp);
		errno = e;
		return NULL;
	}
	memcpy(sp->out, "idlereplay-wl\n\0\0", SPILL_REC);
	sp->out_len = sp->size = SPILL_REC;
	return sp;
}

struct ir_wl_builder *ir_wl_new_spill(int nr_cpus, uint64_t window_ns, const char *dir)
{
	struct ir_wl_spill *sp = nr_cpus > 0 ? spill_new(nr_cpus, dir && *dir ? dir : "/var/tmp") : NULL;
	struct ir_wl_sink sink = { .arg = sp, .ops = spill_ops, .sw = spill_sw, .moves = spill_moves };
	struct ir_wl_builder *b;

	if (!sp) {
		if (nr_cpus <= 0)
			errno = EINVAL;
		return NULL;
	}
	if (!(b = ir_wl_new_stream(nr_cpus, window_ns, &sink))) {
		spill_free(sp);
		errno = ENOMEM;
		return NULL;
	}
	b->spill = sp;
	return b;
}

/* ------------------------------------------------------------ reader */

static const unsigned char end_rec[SPILL_REC] = { IR_OP_END };

struct ir_wl_reader *ir_wl_reader_new(const struct ir_workload *w)
{
	struct ir_wl_reader *r;

	for (uint32_t i = 0; i < w->nr_tasks && !w->spill; i++)
		if (w->task[i].nr_ops && !w->task[i].ops)
			return NULL;	/* the records went to a sink: nothing to read */
	if (!(r = calloc(1, sizeof(*r))))
		return NULL;
	r->w = w;
	r->fd = w->spill ? w->spill->fd : -1;
	r->task = calloc(w->nr_tasks ? w->nr_tasks : 1, sizeof(*r->task));
	r->sw = calloc((size_t)w->nr_cpus, sizeof(*r->sw));
	if (!r->task || !r->sw) {
		ir_wl_reader_free(r);
		return NULL;
	}
	for (uint32_t i = 0; i < w->nr_tasks; i++) {
		struct ir_wl_view *v = &r->task[i];

		if (w->spill)
			v->head = i < w->spill->cap_task ? w->spill->task[i].head : 0;
		else
			v->rec = (const unsigned char *)w->task[i].ops, v->n = w->task[i].nr_ops;
	}
	for (int c = 0; c < w->nr_cpus; c++) {
		if (w->spill)
			r->sw[c].head = w->spill->sw[c].head;
		else
			r->sw[c].rec = (const unsigned char *)w->sw[c], r->sw[c].n = w->nr_sw[c];
	}
	if (w->spill)
		r->moves.head = w->spill->moves.head;
	else
		r->moves.rec = (const unsigned char *)w->moves, r->moves.n = w->nr_moves;
	for (uint32_t i = 0; i < w->nr_tasks && w->spill; i++)
		r->task[i].cnext = r->task[i].head;
	for (int c = 0; c < w->nr_cpus && w->spill; c++)
		r->sw[c].cnext = r->sw[c].head;
	r->moves.cnext = r->moves.head;
	return r;
}

static void view_free(struct ir_wl_view *v)
{
	free(v->buf[0]);
	free(v->buf[1]);
}

void ir_wl_reader_free(struct ir_wl_reader *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; r->task && i < r->w->nr_tasks; i++)
		view_free(&r->task[i]);
	for (int c = 0; r->sw && c < r->w->nr_cpus; c++)
		view_free(&r->sw[c]);
	view_free(&r->moves);
	free(r->task);
	free(r->sw);
	free(r);
}

static int read_full(int fd, unsigned char *p, size_t len, uint64_t off, size_t *got)
{
	*got = 0;
	while (*got < len) {
		ssize_t k = pread(fd, p + *got, len - *got, (off_t)(off + *got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (!k)
			break;	/* end of file: the last chunk is shorter than a buffer */
		*got += (size_t)k;
	}
	return 0;
}

/* The stream's next buffer of records (the current one becomes the old). */
static int view_load(struct ir_wl_reader *r, struct ir_wl_view *v)
{
	uint64_t nfirst = v->first + v->n, off;
	unsigned char *b;
	size_t got, want;
	uint32_t k, cap;
	bool hdr;

	v->cpos += (uint32_t)v->n;
	hdr = v->cpos >= v->cn;
	if (hdr) {
		if (!v->cnext)
			return -1;	/* past the stream's end */
		v->coff = v->cnext;
		v->cpos = 0;
	}
	/* this buffer: twice the last one's records, IR_WL_READ_FIRST to start */
	cap = v->bcap[v->cur] ? 2 * v->bcap[v->cur] : IR_WL_READ_FIRST;
	if (cap > IR_WL_READ_RECS)
		cap = IR_WL_READ_RECS;
	v->cur ^= 1;
	if (v->bcap[v->cur] < cap) {
		unsigned char *nb = realloc(v->buf[v->cur], (cap + 1) * SPILL_REC);

		if (!nb)
			return -1;
		v->buf[v->cur] = nb;
		v->bcap[v->cur] = cap;
	}
	cap = v->bcap[v->cur];
	b = v->buf[v->cur];
	/* entering a chunk: its header and first records in one read */
	off = hdr ? v->coff : v->coff + SPILL_REC * (1 + (uint64_t)v->cpos);
	want = hdr ? (cap + 1) * SPILL_REC : 0;
	if (hdr) {
		uint32_t h[2];

		if (read_full(r->fd, b, want, off, &got) || got < SPILL_REC)
			return -1;
		memcpy(&v->cnext, b, sizeof(v->cnext));
		memcpy(h, b + 8, sizeof(h));
		v->cn = h[0];
		k = v->cn < cap ? v->cn : cap;
		if (!k || got < SPILL_REC * (1 + (size_t)k))
			return -1;
		b += SPILL_REC;
	} else {
		k = v->cn - v->cpos < cap ? v->cn - v->cpos : cap;
		want = SPILL_REC * (size_t)k;
		if (read_full(r->fd, b, want, off, &got) || got < want)
			return -1;
	}
	r->loads++;
	v->orec = v->rec;
	v->ofirst = v->first;
	v->on = v->n;
	v->rec = b;
	v->first = nfirst;
	v->n = k;
	return 0;
}

const unsigned char *ir_wl_rec_slow(struct ir_wl_reader *r, struct ir_wl_view *v, uint64_t j)
{
	if (j - v->ofirst < v->on)
		return v->orec + (j - v->ofirst) * SPILL_REC;
	if (r->fd < 0) {
		r->err = 1;	/* past a whole-trace array's end */
		return end_rec;
	}
	if (j < v->first) {
		/* behind both buffers: reread from the stream's start */
		v->first = v->n = v->ofirst = v->on = 0;
		v->cn = v->cpos = 0;
		v->cnext = v->head;
	}
	while (j - v->first >= v->n)
		if (view_load(r, v)) {
			r->err = 1;
			return end_rec;
		}
	return v->rec + (j - v->first) * SPILL_REC;
}

struct ir_wl_builder *ir_wl_new_stream(int nr_cpus, uint64_t window_ns, const struct ir_wl_sink *sink)
{
	struct ir_wl_builder *b = ir_wl_new(nr_cpus);

	if (!b)
		return NULL;
	b->stream = true;
	b->window_ns = window_ns ? window_ns : 1;
	if (sink)
		b->sink = *sink;
	b->w->streamed = true;
	return b;
}

struct ir_wl_builder *ir_wl_new(int nr_cpus)
{
	struct ir_wl_builder *b = calloc(1, sizeof(*b));

	if (!b || nr_cpus <= 0)
		goto fail;
	b->w = calloc(1, sizeof(*b->w));
	if (!b->w)
		goto fail;
	b->w->nr_cpus = nr_cpus;
	b->nr_cpus = nr_cpus;
	b->w->wait = calloc(1, sizeof(*b->w->wait));
	b->idle_wait = calloc(1, sizeof(*b->idle_wait));
	b->idle_exit = calloc(2, sizeof(*b->idle_exit));
	b->exit_ts = calloc((size_t)nr_cpus, sizeof(*b->exit_ts));
	b->exit_task = calloc((size_t)nr_cpus, sizeof(*b->exit_task));
	b->exit_local = calloc((size_t)nr_cpus, sizeof(*b->exit_local));
	b->preempt_wait = calloc(1, sizeof(*b->preempt_wait));
	b->probe_cost = calloc(5, sizeof(*b->probe_cost));
	b->probe_walk_ts = calloc((size_t)nr_cpus, sizeof(*b->probe_walk_ts));
	b->w->nr_sw = calloc((size_t)nr_cpus, sizeof(*b->w->nr_sw));
	b->w->sw = calloc((size_t)nr_cpus, sizeof(*b->w->sw));
	b->sw_cap = calloc((size_t)nr_cpus, sizeof(*b->sw_cap));
	b->sw_base = calloc((size_t)nr_cpus, sizeof(*b->sw_base));
	b->cur = malloc((size_t)nr_cpus * sizeof(*b->cur));
	b->cpu_seen = calloc((size_t)nr_cpus, sizeof(*b->cpu_seen));
	b->arr = calloc((size_t)nr_cpus, sizeof(*b->arr));
	b->nr_arr = calloc((size_t)nr_cpus, sizeof(*b->nr_arr));
	b->arr_cap = calloc((size_t)nr_cpus, sizeof(*b->arr_cap));
	if (!b->w->wait || !b->idle_wait || !b->idle_exit || !b->exit_ts || !b->exit_task || !b->exit_local || !b->preempt_wait || !b->probe_cost || !b->probe_walk_ts || !b->w->nr_sw || !b->w->sw || !b->sw_cap || !b->sw_base || !b->cur || !b->cpu_seen ||
	    !b->arr || !b->nr_arr || !b->arr_cap)
		goto fail;
	for (int c = 0; c < nr_cpus; c++)
		b->cur[c] = -1;
	return b;
fail:
	ir_wl_abort(b);
	return NULL;
}

int ir_wl_feed(struct ir_wl_builder *b, const struct ir_event *ev)
{
	if (b->oom)
		return -1;
	if (ev->cpu < 0 || ev->cpu >= b->w->nr_cpus)
		return 0;
	if (!b->started) {
		b->started = true;
		b->w->first_ts = ev->ts;
		b->next_seal = ev->ts + b->window_ns;
	}
	if (b->stream && ev->ts >= b->next_seal) {
		/* a window boundary: between two events, nothing half-made */
		seal(b, false);
		b->next_seal = ev->ts + b->window_ns - (ev->ts - b->w->first_ts) % b->window_ns;
	}
	if (b->staged > b->staged_peak)
		b->staged_peak = b->staged;
	if (ev->common_pid == 0 && b->cur[ev->cpu] >= 0 &&
	    !(ev->type == IR_EV_SWITCH && ev->sw.prev_pid > 0))
		lost_switch_out(b, ev->cpu, ev->ts);	/* the idle task runs there */
	else if (ev->type != IR_EV_SWITCH && ev->common_pid > 0)
		waker_running(b, ev);	/* a task's event: it runs there (missing_idle_exit) */
	switch (ev->type) {
	case IR_EV_SWITCH:
		on_switch(b, ev);
		break;
	case IR_EV_WAKING:
		b->has_waking = true;
		on_wake(b, ev);
		break;
	case IR_EV_WAKEUP:
		on_wake(b, ev);
		break;
	case IR_EV_WAKEUP_NEW:
		on_wakeup_new(b, ev);
		break;
	case IR_EV_MIGRATE:
		on_migrate(b, ev);
		break;
	case IR_EV_PROBE_ENTRY:
		/* the kernel's own costs at each newidle call (SPEC 6) */
		b->w->probe_calls++;
		for (int l = 0; l < 3; l++)
			if (ev->probe_entry.v.sd_max_newidle_lb_cost[l] > 0)
				ir_hist_add(&b->probe_cost[l], (uint64_t)ev->probe_entry.v.sd_max_newidle_lb_cost[l]);
		if (ev->probe_entry.v.max_idle_balance_cost > 0)
			ir_hist_add(&b->probe_cost[3], (uint64_t)ev->probe_entry.v.max_idle_balance_cost);
		/* a call past the entry checks walks the domains (v6.1
		 * newidle_balance(), v6.18 sched_balance_newidle(): out when
		 * "!rd->overload || (sd && this_rq->avg_idle <
		 * sd->max_newidle_lb_cost)"): its duration is the walk's */
		if (ev->cpu >= 0 && ev->cpu < b->nr_cpus)
			b->probe_walk_ts[ev->cpu] = ev->probe_entry.v.rd_overload > 0 &&
				ev->probe_entry.v.avg_idle >= 0 &&
				ev->probe_entry.v.avg_idle >= ev->probe_entry.v.sd_max_newidle_lb_cost[0] ? ev->ts : 0;
		break;
	case IR_EV_PROBE_EXIT:
		if (ev->cpu >= 0 && ev->cpu < b->nr_cpus && b->probe_walk_ts[ev->cpu]) {
			if (ev->ts > b->probe_walk_ts[ev->cpu])
				ir_hist_add(&b->probe_cost[4], ev->ts - b->probe_walk_ts[ev->cpu]);
			b->probe_walk_ts[ev->cpu] = 0;
		}
		break;
	case IR_EV_FORK:
		on_fork(b, ev, ev->fork.parent_pid, ev->fork.child_pid, ev->fork.child_comm,
			ev->fork.child_comm_len);
		break;
	case IR_EV_EXIT: {
		int64_t i = ev->exit.pid > 0 ? lookup(b, ev->exit.pid) : -1;

		if (i >= 0)
			b->bt[i].exiting = 1;
		break;
	}
	default:
		break;
	}
	return b->oom ? -1 : 0;
}

struct ir_workload *ir_wl_finish(struct ir_wl_builder *b, uint64_t last_ts)
{
	struct ir_workload *w = b->w;
	bool running = false;

	if (b->oom) {
		ir_wl_abort(b);
		return NULL;
	}
	if (last_ts < w->first_ts)
		last_ts = w->first_ts;
	w->last_ts = last_ts;
	for (uint32_t i = 0; i < w->nr_tasks; i++) {
		if (b->bt[i].state == T_DEAD)
			continue;
		if (b->bt[i].state == T_RUNNING) {
			emit_run(b, i, last_ts);
			running = true;
		}
		push(b, i, IR_OP_END);
	}
	w->completion_ns = (running ? last_ts : b->last_run_end) - w->first_ts;
	w->idle_wake_ns = ir_hist_quantile(b->idle_wait, 0.5);
	for (int k = 0; k <= IR_IDLE_WAKE_Q; k++) {
		w->idle_wake_q[k] = ir_hist_quantile(&b->idle_exit[0], (double)k / IR_IDLE_WAKE_Q);
		w->idle_wake_local_q[k] = ir_hist_quantile(&b->idle_exit[1], (double)k / IR_IDLE_WAKE_Q);
	}
	for (int k = 0; k < 2; k++) {
		static const double at[4] = { 0.5, 0.9, 0.99, 1.0 };

		w->idle_wake_n[k] = b->idle_exit[k].n;
		for (int j = 0; j < 4; j++)
			w->idle_wake_p[k][j] = ir_hist_quantile(&b->idle_exit[k], at[j]);
	}
	w->resched_ns = ir_hist_quantile(b->preempt_wait, 0.5);
	for (int l = 0; l < 3; l++)
		w->probed_lb_cost[l] = ir_hist_quantile(&b->probe_cost[l], 0.5);
	w->probed_max_idle_balance_cost = ir_hist_quantile(&b->probe_cost[3], 0.5);
	w->probed_walk_ns = ir_hist_quantile(&b->probe_cost[4], 0.5);
	w->bytes = offsetof(struct ir_workload, spill) + sizeof(*w->wait) + (uint64_t)w->nr_tasks * sizeof(*w->task) +
		   w->nr_ops * sizeof(struct ir_op);
	for (int c = 0; c < w->nr_cpus; c++)
		w->bytes += w->nr_sw[c] * sizeof(struct ir_sw_rec);
	w->bytes += w->nr_moves * sizeof(struct ir_move_rec);
	w->held_bytes = w->bytes;
	if (b->stream) {
		/* the rest is sealed; what it held at most instead of everything
		 * (ops, switch and move records are 16 bytes each) */
		seal(b, true);
		if (b->staged > b->staged_peak)
			b->staged_peak = b->staged;
		w->held_bytes = offsetof(struct ir_workload, spill) + sizeof(*w->wait) + (uint64_t)w->nr_tasks * sizeof(*w->task) +
				b->staged_peak * sizeof(struct ir_op);
		if (b->spill && !b->spill->err && spill_flush(b->spill))
			b->oom = 1;
		if (b->spill && b->spill->err)
			b->oom = 1;
		if (b->spill) {
			w->spill_bytes = b->spill->size;
			w->spill = b->spill;	/* the workload owns the file now */
			b->spill = NULL;
		}
		for (uint32_t i = 0; i < w->nr_tasks; i++) {
			free(w->task[i].ops);
			w->task[i].ops = NULL;
		}
		for (int c = 0; c < w->nr_cpus; c++) {
			free(w->sw[c]);
			w->sw[c] = NULL;
		}
		free(w->moves);
		w->moves = NULL;
	}
	if (b->oom) {
		ir_wl_abort(b);
		return NULL;
	}
	b->w = NULL;
	ir_wl_abort(b);
	return w;
}

void ir_wl_abort(struct ir_wl_builder *b)
{
	if (!b)
		return;
	ir_workload_free(b->w);
	free(b->bt);
	free(b->hkey);
	free(b->hval);
	free(b->cur);
	free(b->cpu_seen);
	for (int c = 0; b->arr && b->nr_cpus > c; c++)
		free(b->arr[c]);
	free(b->arr);
	free(b->nr_arr);
	free(b->arr_cap);
	free(b->sw_cap);
	free(b->sw_base);
	free(b->lim);
	free(b->idle_wait);
	free(b->idle_exit);
	free(b->exit_ts);
	free(b->exit_task);
	free(b->exit_local);
	free(b->preempt_wait);
	free(b->probe_cost);
	spill_free(b->spill);
	free(b->probe_walk_ts);
	free(b);
}

void ir_workload_free(struct ir_workload *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->nr_tasks; i++)
		free(w->task[i].ops);
	for (int c = 0; w->sw && c < w->nr_cpus; c++)
		free(w->sw[c]);
	free(w->sw);
	free(w->nr_sw);
	free(w->moves);
	free(w->task);
	free(w->wait);
	spill_free(w->spill);
	free(w);
}

double ir_workload_explained(const struct ir_workload *w)
{
	uint64_t all = 0;

	for (int k = 0; k < IR_WK__COUNT; k++)
		all += w->wakes[k];
	return all ? 1.0 - (double)w->wakes[IR_WK_UNEXPLAINED] / (double)all : 1.0;
}

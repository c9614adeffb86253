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
 * the frozen mode's records): linear in the trace.  ir_wl_new_stream() is
 * the first half of a flat design and is built: it cuts the recorded time
 * into windows of window_ns and, at each window boundary, *seals* what can
 * no longer change, hands it to a sink in order, and drops it.
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
 *    ops.  That is the first pass of the flat design: its memory is the
 *    tasks, the staged (unsealed) ops and one window, not the trace
 *    (bench/sim.sh measures it at 1x, 4x and 9x).
 *
 * Not built yet (the second half): simulations that consume sealed windows.
 * The design chosen for it: one shared extraction over a second read of the
 * trace, sealing into per-task segment lists; every simulation (policy,
 * sweep point, frozen) runs on its own thread and reads ops through an
 * accessor that, when a task's next op is not sealed yet, pulls the next
 * window (a producer thread feeding the builder, since ir_trace_run() is a
 * push reader); a segment is freed once every simulation's cursor for that
 * task has passed it, and a simulation more than K windows ahead of the
 * oldest live segment waits unless every other one waits too (so it cannot
 * deadlock).  Memory is then the tasks, K windows and the policies' drift
 * behind one another.  Results are those of the whole-trace workload, as
 * the sealed ops are the same ops (the task table and nr_ops come from the
 * first pass).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
		run_on(b, (uint32_t)n, c, ts);
		b->preempting = false;
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
		op->arg = (op->arg & 0xffff) | (uint32_t)(lag < 0xffff ? lag : 0xffff) << 16;
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
		bt->pending_op = b->w->task[p].nr_ops - 1;
		bt->pending_owner = (uint32_t)p;
		bt->wake_op = -1;
		b->w->wakes[IR_WK_IRQ]++;
	}
	bt->state = T_RUNNABLE;
	bt->cpu = (uint16_t)ev->wake.target_cpu;
	bt->woken_ts = ev->ts;
	bt->woken_idle = ev->wake.target_cpu >= 0 && ev->wake.target_cpu < b->w->nr_cpus &&
			 b->cur[ev->wake.target_cpu] < 0;
	bt->in_wakeup = b->has_waking;
	arrive(b, (uint32_t)p);
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
	b->w->wakes[IR_WK_FORK]++;
	arrive(b, (uint32_t)c);
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
	if (!b->w->wait || !b->idle_wait || !b->preempt_wait || !b->probe_cost || !b->probe_walk_ts || !b->w->nr_sw || !b->w->sw || !b->sw_cap || !b->sw_base || !b->cur || !b->cpu_seen ||
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
	w->resched_ns = ir_hist_quantile(b->preempt_wait, 0.5);
	for (int l = 0; l < 3; l++)
		w->probed_lb_cost[l] = ir_hist_quantile(&b->probe_cost[l], 0.5);
	w->probed_max_idle_balance_cost = ir_hist_quantile(&b->probe_cost[3], 0.5);
	w->probed_walk_ns = ir_hist_quantile(&b->probe_cost[4], 0.5);
	w->bytes = sizeof(*w) + sizeof(*w->wait) + (uint64_t)w->nr_tasks * sizeof(*w->task) +
		   w->nr_ops * sizeof(struct ir_op);
	for (int c = 0; c < w->nr_cpus; c++)
		w->bytes += w->nr_sw[c] * sizeof(struct ir_sw_rec);
	w->bytes += w->nr_moves * sizeof(struct ir_move_rec);
	if (b->stream) {
		/* the rest is sealed; what it held at most instead of everything
		 * (ops, switch and move records are 16 bytes each) */
		seal(b, true);
		if (b->staged > b->staged_peak)
			b->staged_peak = b->staged;
		w->bytes = sizeof(*w) + sizeof(*w->wait) + (uint64_t)w->nr_tasks * sizeof(*w->task) +
			   b->staged_peak * sizeof(struct ir_op);
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
	free(b->preempt_wait);
	free(b->probe_cost);
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
	free(w);
}

double ir_workload_explained(const struct ir_workload *w)
{
	uint64_t all = 0;

	for (int k = 0; k < IR_WK__COUNT; k++)
		all += w->wakes[k];
	return all ? 1.0 - (double)w->wakes[IR_WK_UNEXPLAINED] / (double)all : 1.0;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/: the closed-loop stage's contract.
 *
 * In:  decoded events (replay/replay.h), sched domains and policies (model/).
 * Out: a workload (workload.c: per task its CPU bursts, the wakeups and forks
 *      it issues at their point in its bursts, and how each of its blocks
 *      ended), the same workload re-scheduled under a policy (sched.c: a
 *      discrete-event model of the kernel's fair class, placement and
 *      balancing), and the figures both give (results.c).
 *
 * The workload is extracted once and shared read-only by every simulation
 * (one per policy and sweep point, on as many threads as there are CPUs).
 * By default (ir_wl_new_spill(), what `simulate` uses) it is extracted as a
 * stream: windows of recorded time are sealed (what no later event can
 * patch) and appended to an unlinked spill file, chained per task and per
 * CPU; the workload in memory is the tasks and the whole-trace figures.  A
 * simulation reads its records through a reader (struct ir_wl_reader, one
 * per simulation: ir_wl_op(), ir_wl_sw(), ir_wl_move()), which keeps a
 * small buffer per stream, so memory is flat in trace length (workload.c's
 * header says why a file, not windows shared in memory).  ir_wl_new() keeps
 * every record in memory instead (the test oracle; same records, so the
 * same results).  ir_wl_new_stream() hands sealed windows to any sink.
 * Times are nanoseconds; simulated time starts at 0 = the trace's first event.
 */
#ifndef IDLEREPLAY_SIM_H
#define IDLEREPLAY_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"
#include "sim/capture.h"
#include "replay/replay.h"

/* ------------------------------------------------------------ workload */

/* One step of a task's program. */
enum ir_op_kind {
	IR_OP_RUN,		/* ns of CPU; cpu: where it ran; flags: how the chunk ended */
	IR_OP_WAKE,		/* wake task arg (ends its pending task-woken block);
				 * cpu: where the recording kernel placed it; ns: from
				 * sched_waking to sched_wakeup (when it was queued) */
	IR_OP_FORK,		/* start task arg; cpu: where it was placed; ns: to
				 * sched_wakeup_new */
	IR_OP_BLOCK_TASK,	/* sleep until another task's IR_OP_WAKE */
	IR_OP_BLOCK_DELAY,	/* sleep ns, then an interrupt/timer wakes it (the idle
				 * task or a kthread woke it); arg: that CPU (bits 0-15)
				 * and the time from sched_waking to sched_wakeup (bits
				 * 16-31, ir_lag_pack()); cpu: placement */
	IR_OP_EXIT,		/* the task exits */
	IR_OP_END,		/* the trace ends here for this task */
};
#define IR_OP_F_PREEMPTED 0x1	/* RUN: the recording kernel preempted it here */
#define IR_OP_F_NOWAIT 0x2	/* BLOCK_DELAY: its end is not a wakeup the trace saw
				 * (no runqueue wait is measured after it) */
#define IR_OP_F_OWN_CPU 0x8	/* BLOCK_DELAY: the interrupt came on the CPU the task
				 * blocked on (its own timer), so the simulation takes it
				 * on the CPU the task blocked on there (sched.c) */
#define IR_OP_F_EXITING 0x4	/* WAKE: issued after the waker's sched_process_exit
				 * (PF_EXITING: do_exit() -> exit_notify() waking
				 * its parent), so never WF_SYNC */

struct ir_op {
	uint8_t kind;
	uint8_t flags;
	uint16_t cpu;
	uint32_t arg;
	uint64_t ns;
};

/*
 * The time from a wakeup's sched_waking to its sched_wakeup (a wake-list
 * wakeup is queued by the target's sched_ttwu_pending(), after the IPI:
 * under emulation often more than 1 ms) in 16 bits: a 5-bit exponent and an
 * 11-bit mantissa, exact below 2048 ns, rounded down by less than 1/2048
 * above, up to 4398 s.  A plain 16-bit count of ns capped it at 65.5 us, so
 * the frozen run queued such a task early and counted it waiting.
 */
static inline uint16_t ir_lag_pack(uint64_t ns)
{
	unsigned e = 0;

	if (ns < 2048)
		return (uint16_t)ns;
	while (e < 30 && (ns >> e) >= 4096)
		e++;
	if ((ns >> e) >= 4096)
		return 0xffff;				/* beyond the range: its top */
	return (uint16_t)((e + 1) << 11 | ((ns >> e) & 2047));
}

static inline uint64_t ir_lag_unpack(uint16_t v)
{
	unsigned e = v >> 11;

	return e ? (uint64_t)(2048 | (v & 2047)) << (e - 1) : v;
}

/* How a task enters the simulation. */
enum ir_start_kind {
	IR_START_RUNNABLE,	/* runnable (or running) when first seen, at start_ns */
	IR_START_BLOCKED,	/* asleep from the trace start; its first op is a block */
	IR_START_FORKED,	/* created by its parent's IR_OP_FORK */
};

struct ir_sim_task {
	int32_t pid;
	int32_t prio;		/* kernel prio (120 = nice 0); < 100 RT */
	char comm[IR_COMM_LEN];
	bool pinned;		/* per-CPU kthread: stays on start_cpu */
	uint8_t start;		/* enum ir_start_kind */
	uint16_t start_cpu;
	uint64_t start_ns;
	uint32_t nr_ops;
	struct ir_op *ops;
};

/* What ended the blocks (and what the wakeups did), by kind. */
enum ir_wake_kind {
	IR_WK_TASK,		/* another task woke it, at a known point of its burst */
	IR_WK_IRQ,		/* the idle task or a kthread: a delay after the block */
	IR_WK_FORK,		/* sched_wakeup_new */
	IR_WK_RUNNABLE,		/* woke a task that had not blocked (ttwu_runnable) */
	IR_WK_UNEXPLAINED,	/* a block whose end the trace does not show */
	IR_WK__COUNT
};
extern const char *const ir_wake_kind_name[IR_WK__COUNT];

/* Log-bucketed histogram of durations, < 1 % relative error. */
#define IR_HIST_SUB 128
struct ir_hist {
	uint64_t n;
	uint64_t b[64 * IR_HIST_SUB];
};
void ir_hist_add(struct ir_hist *h, uint64_t v);
/* Quantile q in 0..1 (the bucket's midpoint), 0 if empty. */
uint64_t ir_hist_quantile(const struct ir_hist *h, double q);

/* One recorded switch-in, for the frozen (open-loop) mode. */
struct ir_sw_rec {
	uint64_t ns;		/* simulated time of the switch */
	int32_t task;		/* task index, -1 idle */
};

/* A recorded migration of a waiting task (not its wakeup placement). */
struct ir_move_rec {
	uint64_t ns;
	uint32_t task;
	uint16_t dest;
};

struct ir_wl_spill;

/* Quantiles kept of the wakeup-to-run latency of an idle CPU (a bounded
 * table: 129 values, whatever the trace's length). */
#define IR_IDLE_WAKE_Q 128

struct ir_workload {
	int nr_cpus;
	uint32_t pins_released;	/* streamed: patches given up (workload.c, IR_WL_PIN_MAX;
				 * saturates) */
	uint64_t first_ts, last_ts;
	uint32_t nr_tasks;
	bool streamed;		/* from ir_wl_new_stream() or ir_wl_new_spill(): counts and
				 * figures only; ops, sw and moves NULL (they went to the
				 * sink, or to the spill file: read them with a reader) */
	struct ir_sim_task *task;
	uint64_t nr_ops;
	uint64_t wakes[IR_WK__COUNT];
	/* per CPU, the recorded switch-ins in order (frozen mode) */
	uint64_t *nr_sw;
	struct ir_sw_rec **sw;
	uint64_t nr_moves;	/* and the moves of waiting tasks, in time order */
	struct ir_move_rec *moves;
	/* figures measured from the trace itself */
	uint64_t completion_ns;	/* from the first event to the end of the last burst */
	struct ir_hist *wait;	/* runqueue wait per wakeup, as recorded */
	uint64_t idle_wake_ns;	/* median wait of a wakeup onto an idle CPU: the recording
				 * machine's IPI and idle-exit latency (idle_exit_median) */
	uint64_t idle_wake_q[IR_IDLE_WAKE_Q + 1];	/* the distribution of an idle CPU's
				 * wakeup-to-run latency (workload.c exit_mark(): its
				 * first wakee of an idle period, run from idle), woken
				 * from another CPU: quantile k / IR_IDLE_WAKE_Q at k (0:
				 * the least, last: the greatest; all 0 if none), which
				 * the model draws from for a wakeup of an idle CPU */
	uint64_t idle_wake_local_q[IR_IDLE_WAKE_Q + 1];	/* the same, woken from the idle
				 * CPU itself (its interrupt or timer) */
	uint64_t idle_wake_n[2];	/* the latencies each table holds: remote, local */
	uint64_t idle_wake_p[2][4];	/* and their p50, p90, p99, greatest (for the report) */
	uint64_t resched_ns;	/* median wait of a wakeup that preempted the running task:
				 * how long after check_preempt_wakeup()'s resched_curr()
				 * the switch came (IPI, the next preemption point) */
	/* newidle probes (record --probe-newidle), when the trace has them:
	 * the kernel's own sd->max_newidle_lb_cost per level (0..2) and
	 * rq->max_idle_balance_cost, medians over its calls; 0 none */
	uint64_t probe_calls;
	uint64_t probed_lb_cost[3];
	uint64_t probed_max_idle_balance_cost;
	uint64_t probed_walk_ns;	/* median duration of the probed calls that walked the
					 * domains (kretprobe - kprobe; past the entry checks):
					 * the kernel's curr_cost, which the simulated walk takes;
					 * 0 none */
	uint64_t bytes;		/* memory the whole-trace workload holds (ir_wl_new()): the
				 * fields above, the tasks and the records; the same
				 * figure for a streamed one (what it would hold) */
	/* the records' storage, not counted in bytes */
	struct ir_wl_spill *spill;	/* ir_wl_new_spill(): the records' file, else NULL */
	uint64_t held_bytes;	/* memory the records took at most (whole: bytes; streamed:
				 * the staged records at their peak) */
	uint64_t spill_bytes;	/* the spill file's size (0: none) */
};

struct ir_wl_builder;
struct ir_wl_builder *ir_wl_new(int nr_cpus);
/* Feed one event (time order); 0, or -1 out of memory. */
int ir_wl_feed(struct ir_wl_builder *b, const struct ir_event *ev);
/* End at last_ts and hand over the workload (the builder is freed). */
struct ir_workload *ir_wl_finish(struct ir_wl_builder *b, uint64_t last_ts);
void ir_wl_abort(struct ir_wl_builder *b);

/*
 * Streaming extraction (workload.c's header has the design): at each
 * boundary of window_ns of recorded time, what can no longer change is
 * handed to the sink, in index order per task and per CPU, and dropped.
 * ir_wl_finish() seals the rest and gives the whole-trace counts and
 * figures without ops.  A callback returns 0, or non-zero to fail the
 * extraction (ir_wl_feed() then returns -1); NULL callbacks discard.
 */
struct ir_wl_sink {
	void *arg;
	int (*ops)(void *arg, uint32_t task, uint64_t first, const struct ir_op *op, uint32_t n);
	int (*sw)(void *arg, int cpu, uint64_t first, const struct ir_sw_rec *rec, uint64_t n);
	int (*moves)(void *arg, uint64_t first, const struct ir_move_rec *m, uint64_t n);
};
/* A reference (a wakeup's placement still to come) holds a task's ops back
 * at most this many ops; beyond it the patch is given up (pins_released). */
#define IR_WL_PIN_MAX 65536
struct ir_wl_builder *ir_wl_new_stream(int nr_cpus, uint64_t window_ns, const struct ir_wl_sink *sink);
/*
 * Streaming extraction into a spill file: a file created unlinked
 * (O_TMPFILE, else mkstemp() and unlink()) in dir, so nothing is left
 * behind; the sealed records of each window are appended as one chunk per
 * task (per CPU for switch records, one for moves), each chunk naming the
 * next of its stream.  NULL, with errno, when the file cannot be made.
 * window_ns as ir_wl_new_stream(); IR_WL_SPILL_WINDOW_NS is simulate's.
 */
#define IR_WL_SPILL_WINDOW_NS 100000000ull	/* 100 ms of recorded time */
struct ir_wl_builder *ir_wl_new_spill(int nr_cpus, uint64_t window_ns, const char *dir);
void ir_workload_free(struct ir_workload *w);

/*
 * Reading a workload's records (one reader per simulation, not shared
 * between threads).  For a whole-trace workload a view is the task's op
 * array; for a spilled one it is a buffer of records read from the file
 * (two per stream: a pointer the reader returned stays valid until that
 * stream's buffer is loaded twice more), growing from IR_WL_READ_FIRST to
 * IR_WL_READ_RECS records as the stream is read, so a task that runs
 * rarely holds little and a busy one reads a chunk in few calls.  Records are read in
 * index order; an index behind the buffers rereads the stream from its
 * start (correct, slow; the simulation never does).  A read that fails
 * (the file, or an index past the stream's end) sets err and returns an
 * IR_OP_END (an empty record for switches and moves).
 */
#define IR_WL_READ_RECS 256	/* records per buffer at most: a stream's first holds
				 * IR_WL_READ_FIRST, each next twice the last */
#define IR_WL_READ_FIRST 8
struct ir_wl_view {
	const unsigned char *rec;	/* records first .. first + n - 1 (16 bytes each) */
	uint64_t first, n;
	const unsigned char *orec;	/* the buffer before it */
	uint64_t ofirst, on;
	/* spilled only */
	unsigned char *buf[2];
	uint32_t bcap[2];		/* their records (a header's room besides) */
	int cur;
	uint32_t cn, cpos;		/* the chunk's records, buffer's first record in it */
	uint64_t coff, cnext;		/* the chunk's offset, the next one's (0: none) */
	uint64_t head;			/* the stream's first chunk (0: empty) */
};
struct ir_wl_reader {
	const struct ir_workload *w;
	int fd;				/* the spill file, -1: whole-trace */
	struct ir_wl_view *task;	/* [nr_tasks] */
	struct ir_wl_view *sw;		/* [nr_cpus] */
	struct ir_wl_view moves;
	uint64_t loads;			/* buffers read from the file */
	int err;
};
struct ir_wl_reader *ir_wl_reader_new(const struct ir_workload *w);
void ir_wl_reader_free(struct ir_wl_reader *r);
const unsigned char *ir_wl_rec_slow(struct ir_wl_reader *r, struct ir_wl_view *v, uint64_t j);

static inline const unsigned char *ir_wl_rec(struct ir_wl_reader *r, struct ir_wl_view *v, uint64_t j)
{
	if (j - v->first < v->n)
		return v->rec + (j - v->first) * 16;
	return ir_wl_rec_slow(r, v, j);
}
/* Op j of task i (j < its nr_ops). */
static inline const struct ir_op *ir_wl_op(struct ir_wl_reader *r, uint32_t i, uint64_t j)
{
	return (const struct ir_op *)(const void *)ir_wl_rec(r, &r->task[i], j);
}
/* Switch record j of CPU c (j < nr_sw[c]), for the frozen mode. */
static inline const struct ir_sw_rec *ir_wl_sw(struct ir_wl_reader *r, int c, uint64_t j)
{
	return (const struct ir_sw_rec *)(const void *)ir_wl_rec(r, &r->sw[c], j);
}
/* Move record j (j < nr_moves), for the frozen mode. */
static inline const struct ir_move_rec *ir_wl_move(struct ir_wl_reader *r, uint64_t j)
{
	return (const struct ir_move_rec *)(const void *)ir_wl_rec(r, &r->moves, j);
}
/* Share of wakeups the workload reproduces (everything but unexplained). */
double ir_workload_explained(const struct ir_workload *w);

/* ------------------------------------------------------------ simulate */

struct ir_sim_params {
	uint64_t seed;
	bool frozen;			/* placement, picking and preemption as recorded */
	uint64_t refill_ns;		/* cache refill per level boundary a migrated task crosses */
	uint64_t sysctl_sched_latency;	/* 6 ms x (1 + ilog2(min(ncpus, 8))) */
	uint64_t sysctl_sched_min_granularity;	/* 0.75 ms x the same */
	uint64_t sysctl_sched_wakeup_granularity;	/* 1 ms x the same */
	uint64_t tick_ns;		/* one jiffy: CFS checks the slice at each tick
					 * (check_preempt_tick()); 0: at the slice's exact end */
	uint64_t sysctl_sched_migration_cost;	/* task_hot(), 500 us */
	uint64_t max_idle_balance_cost;	/* initial rq->max_idle_balance_cost, 500 us */
	unsigned busy_factor;		/* sd->busy_factor, 16 (v5.12+ 32 since 6.? see sched.c) */
	bool sync_wakeups;		/* WF_SYNC on a task's wakeups of tasks (default true:
					 * pipe_write()/pipe_read() and the socket data and
					 * write-space wakeups, sock_def_readable(),
					 * unix_write_space(), are wake_up_interruptible_
					 * sync_poll(); futex and signal wakeups are not;
					 * a trace does not say which a wakeup was) */
	bool eevdf;			/* v6.6+ (147f3efaa241): EEVDF picking and placement */
	bool delay_dequeue;		/* v6.12+ (152e11f6df29): EEVDF's DELAY_DEQUEUE and
					 * DELAY_ZERO: a sleeper that is not eligible stays
					 * queued until picked or woken in place */
	uint64_t sysctl_sched_base_slice;	/* EEVDF slice, 0.75 ms x the CFS factor */
	bool sis_util;			/* v5.19+ (70fb5ccf2ebb): SIS_UTIL limits the idle scan */
	bool recent_used_cpu;		/* v4.16+ (32e839dda3ba): p->recent_used_cpu candidate */
	bool select_idle_smt;		/* v5.18+ (c722f35b513f): an idle SMT sibling of prev
					 * when the LLC has no idle core */
	bool newidle_lock_drop;		/* default true (every release): the newidle walk
					 * balances one level at a time, over its cost, with
					 * the rq lock dropped, and stops after the level in
					 * progress when a task arrived ("if (pulled_task ||
					 * this_rq->nr_running > 0 || this_rq->ttwu_pending)
					 * break"); false: the whole walk at its entry */
	bool idle_exit_median;		/* the wakeup of an idle CPU takes the trace's median
					 * wakeup-to-run latency (idle_wake_ns); default false:
					 * a draw from its measured distribution (idle_wake_q)
					 * with the simulation's seeded dice.  A property of
					 * the recording machine (IPI, idle-state exit, the
					 * hypervisor's vCPU wakeup), not of the scheduler */
	bool balance_feedback;		/* default true (every release): load_balance() keeps
					 * sd->balance_interval (min .. max_interval) and
					 * sd->nr_balance_failed (task_hot()'s cache_nice_tries) */
	bool swb_idle_core;		/* v6.6+ (b1bfeab9b002): should_we_balance() prefers
					 * an idle CPU of an idle core */
	bool balance_jiffies;		/* default true (every release): with tick_ns, balance
					 * intervals in jiffies and balances on ticks
					 * (get_sd_balance_interval(), rebalance_domains()) */
	struct ir_capture *capture;	/* the schedule, for the Perfetto export (sim/capture.h); NULL: none */
};
void ir_sim_params_default(struct ir_sim_params *p, int nr_cpus);

/* The figures of one simulation, and of the trace. */
struct ir_sim_result {
	uint64_t completion_ns;
	uint64_t idle_ns;
	uint64_t idle_while_waiting_ns;
	uint64_t wait_p50, wait_p99;
	uint64_t migrations;
	uint64_t mig_wakeup, mig_newidle, mig_periodic, mig_fork;
	uint64_t newidle_calls, newidle_attempts, newidle_pulls;
	uint64_t balance_cpu_ns;
	uint64_t events;		/* simulated events handled */
	uint64_t wakeups;
	bool stalled;			/* a task waited on a wakeup that never came */
	uint64_t forced;		/* frozen: recorded switches to a task the simulation had
					 * not woken, forced to stay on the record (0: exact) */
};

/*
 * Simulate the workload under policy pol (ignored when frozen) on domains
 * dom (NULL: one flat LLC).  Thread-safe: w and dom are only read.
 * 0, or -1 out of memory.
 */
int ir_simulate(const struct ir_workload *w, const struct ir_domains *dom,
		const struct ir_policy_params *pol, const struct ir_sim_params *sp,
		struct ir_sim_result *res);

#endif

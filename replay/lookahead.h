/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * replay/lookahead: the runqueues as each level of a newidle walk saw them
 * (internal to replay/; state.c hooks it, model/lb.c reads the result
 * through ir_point.rq_level[]).
 *
 * sched_balance_newidle() (newidle_balance() v5.16-v6.9, kernel/sched/fair.c)
 * balances its levels one after the other, with the runqueue lock dropped:
 *
 *	t0 = sched_clock_cpu(this_cpu);
 *	update_blocked_averages(this_cpu);
 *	for_each_domain(this_cpu, sd) {
 *		...
 *		pulled_task = load_balance(this_cpu, this_rq, sd, CPU_NEWLY_IDLE, ...);
 *		t1 = sched_clock_cpu(this_cpu);
 *		domain_cost = t1 - t0;
 *		update_newidle_cost(sd, domain_cost);
 *		curr_cost += domain_cost;
 *		t0 = t1;
 *	}
 *
 * so level l's load_balance() ends at entry + the sum of the domain costs of
 * levels 0..l (the first includes update_blocked_averages()).  The kernel's
 * own estimate of a level's domain_cost is sd->max_newidle_lb_cost, which
 * the newidle probe carries; the call's duration (entry to exit probe)
 * bounds the walk.  Rule: level l reads the runqueues at
 *
 *	t_l = entry + min(call duration, lookahead cap, sum_{k<=l} max_newidle_lb_cost[k])
 *
 * i.e. at the end of its domain_cost window, where detach_tasks() runs
 * (after update_sd_lb_stats() and find_busiest_queue(), right before
 * attach_tasks() and t1).  The call's duration also holds what follows the
 * walk (attach_tasks(), re-locking this_rq, the return): the bound is the
 * share of the duration before the detach, which a probed trace shows in
 * its pulling calls (the pull's sched_migrate_task between entry and exit:
 * the median so far, ir_la_share()), else the exit; `--lookahead-share`
 * sets it.  Meanwhile other CPUs switch tasks in, balance
 * and migrate them, wake tasks onto queues: a task one of them took is not
 * there to pull.
 *
 * How: every change of a runqueue (a task joins or leaves a queue, a CPU's
 * curr turns idle or busy) is noted in one ring (bounded: sized by the CPUs
 * at setup, no allocation after), each with a sequence number.  At a probed
 * call's entry the snapshot is taken (state.c) and the ring's sequence
 * noted; when its point opens (at the switch, after the call's exit) the
 * ring's records since then up to the last level's time are copied into
 * the point (bounded, IR_LA_WIN records; beyond them the later levels read
 * the runqueues as of the last record kept); when the point is delivered,
 * each level's runqueues are the entry snapshot patched by the records up
 * to its time, into one scratch shared by every policy.  The CPU's own
 * runqueue stays as at entry (empty; arrivals end the walk through
 * ir_point.arrival_ns), and the CPU's own pulls in the call are not
 * applied (each policy decides its own).  Deterministic: records are in
 * event order.
 */
#ifndef IDLEREPLAY_LOOKAHEAD_H
#define IDLEREPLAY_LOOKAHEAD_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/replay.h"

enum ir_la_kind {
	IR_LA_ENQ,	/* a task joins cpu's queue (at its head) */
	IR_LA_DEQ,	/* a task leaves cpu's queue */
	IR_LA_IDLE,	/* cpu's curr becomes the idle task */
	IR_LA_BUSY,	/* cpu's curr becomes a task */
};

struct ir_la_rec {
	uint64_t seq, ts;
	uint64_t exec_start;	/* ENQ: the task's last_ran */
	int32_t cpu, pid;
	float util;		/* ENQ: its util_avg at ts */
	float util_est;		/* ENQ: its _task_util_est() (0 for RT) */
	float load;		/* ENQ: its load_avg */
	uint8_t kind;		/* enum ir_la_kind */
	uint8_t pos;		/* ENQ: its index from the queue's tail among CFS tasks
				 * (IR_SNAP_TASKS or more: beyond the snapshot) */
	uint8_t rt, pinned;
};

/* The ring of recent records, and where in its call each probed pull
 * came: the share of the call's duration before the pull's
 * sched_migrate_task (detach_tasks() of the level that pulled). */
#define IR_LA_SHARE_MIN 8	/* pulls measured before their median is used */
struct ir_la_log {
	struct ir_la_rec *rec;
	uint32_t cap;		/* a power of two */
	uint64_t seq;		/* records noted so far: the next one's seq */
	uint32_t share_hist[101];	/* percent */
	uint32_t share_n;
};

/* A pulling call's pull came `at` ns into a call of `dur` ns. */
void ir_la_share_add(struct ir_la_log *log, uint64_t at, uint64_t dur);
/* The share (percent) of a call's duration the walk's reads are bounded
 * by: `given` (1-100) if set, else the median of the pulls measured so far
 * (from IR_LA_SHARE_MIN of them), else 100 (the call's exit). */
unsigned ir_la_share(const struct ir_la_log *log, unsigned given);

int ir_la_log_init(struct ir_la_log *log, int nr_cpus);
void ir_la_log_free(struct ir_la_log *log);

static inline struct ir_la_rec *ir_la_note(struct ir_la_log *log, enum ir_la_kind kind, uint64_t ts,
					   int cpu, int32_t pid)
{
	struct ir_la_rec *r = &log->rec[log->seq & (log->cap - 1)];

	*r = (struct ir_la_rec){ .seq = log->seq++, .ts = ts, .cpu = cpu, .pid = pid, .kind = (uint8_t)kind };
	return r;
}

/* A point's records: those of other CPUs' runqueues from the call's entry
 * to its last level's time. */
#define IR_LA_WIN 512
struct ir_la_win {
	int n, nr_levels;
	bool truncated;		/* more records than IR_LA_WIN, or older than the ring */
	uint64_t level_ts[IR_MAX_LEVELS];
	struct ir_la_rec rec[IR_LA_WIN];
};

/* Level times by the rule above: cost[l] (< 0 unknown: that level adds
 * nothing), dur the call's duration (0 unknown), cap the look-ahead bound. */
void ir_la_level_times(uint64_t entry, const int64_t *cost, int nr_levels, uint64_t dur, uint64_t cap,
		       uint64_t *level_ts);
/* Copy into w the records from seq `from` on with ts <= w->level_ts[last],
 * leaving out cpu c's own runqueue and the tasks c pulled (a DEQ followed by
 * c's ENQ of the same task at the same time).  Levels past what could be
 * kept are brought back to the last record kept. */
void ir_la_capture(const struct ir_la_log *log, struct ir_la_win *w, uint64_t from, int c);
/* out = base patched by w's records up to level_ts[level] (from `done` on:
 * records already applied to out by an earlier call); returns the index of
 * the first record not applied. */
int ir_la_apply(const struct ir_la_win *w, int level, int done, struct ir_rq_snap *out, int nr_cpus);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * replay/: the replay stage's contract.
 *
 * In:  a trace.dat file (ours or trace-cmd's), or synthetic ir_events.
 * Out: decoded events, rebuilt per-CPU scheduler state, the observed
 *      figures of SPEC section 7, and one ir_point per newidle point,
 *      resolved (idle and wait durations known) when it is delivered.
 *
 * Names follow kernel/sched/: avg_idle, idle_stamp, max_idle_balance_cost,
 * nr_running, overload.  Times are nanoseconds of the trace clock.
 * Nothing here knows about policies: model/ consumes ir_point.
 */
#ifndef IDLEREPLAY_REPLAY_H
#define IDLEREPLAY_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/status.h"	/* IR_OK, IR_ERR_*: exit statuses of every stage */

#define IR_COMM_LEN 16
#define IR_MAX_LEVELS 8		/* sched domain levels per CPU */
#define IR_NO_LEVEL 0xff

/* ---------------------------------------------------------------- events */

enum ir_ev_type {
	IR_EV_SWITCH,
	IR_EV_WAKING,
	IR_EV_WAKEUP,
	IR_EV_WAKEUP_NEW,
	IR_EV_MIGRATE,
	IR_EV_FORK,
	IR_EV_EXIT,
	IR_EV_EXEC,
	IR_EV_MOVE_NUMA,
	IR_EV_SWAP_NUMA,
	IR_EV_PROBE_ENTRY,	/* newidle function entry kprobe (SPEC 6) */
	IR_EV_PROBE_EXIT,	/* its kretprobe */
	IR_EV_OTHER,
	IR_EV__COUNT
};

/* prev_state as modern kernels report it (SPEC 5), after undoing the
 * 4.15/4.16 one-bit shift.  0 means TASK_RUNNING without preemption. */
#define IR_TASK_INTERRUPTIBLE	0x0001
#define IR_TASK_UNINTERRUPTIBLE	0x0002
#define IR_TASK_STOPPED		0x0004
#define IR_TASK_TRACED		0x0008
#define IR_EXIT_DEAD		0x0010
#define IR_EXIT_ZOMBIE		0x0020
#define IR_TASK_PARKED		0x0040
#define IR_TASK_IDLE		0x0080
#define IR_TASK_PREEMPTED	0x0100	/* TASK_REPORT_MAX: still runnable */

static inline bool ir_state_runnable(uint32_t prev_state)
{
	return prev_state == 0 || (prev_state & IR_TASK_PREEMPTED);
}

/* Probe fields (SPEC 6; tests/data/README.md).  Absent ones are -1. */
struct ir_probe_entry {
	int64_t nr_running;
	int64_t avg_idle;
	int64_t max_idle_balance_cost;
	int64_t rd_overload;
	int64_t ttwu_pending;
	int64_t sd_max_newidle_lb_cost[3];
	int64_t sd_newidle_ratio[3];
};

/*
 * One decoded event.  Strings point into the record and live only for the
 * duration of the callback; *_comm_len is the room they have, and they are
 * NUL-terminated within it when shorter (strnlen() them).
 */
struct ir_event {
	uint64_t ts;
	int32_t cpu;
	int32_t common_pid;
	enum ir_ev_type type;
	int64_t missed;		/* events lost on this CPU just before; -1 unknown count */
	union {
		struct {
			int32_t prev_pid, prev_prio, next_pid, next_prio;
			uint32_t prev_state;	/* normalised, see above */
			const char *prev_comm, *next_comm;
			uint16_t prev_comm_len, next_comm_len;
		} sw;
		struct {		/* waking, wakeup, wakeup_new */
			int32_t pid, prio, target_cpu;
			const char *comm;
			uint16_t comm_len;
		} wake;
		struct {
			int32_t pid, prio, orig_cpu, dest_cpu;
			const char *comm;
			uint16_t comm_len;
		} mig;
		struct {
			int32_t parent_pid, child_pid;
			const char *child_comm;
			uint16_t child_comm_len;
		} fork;
		struct {
			int32_t pid;
		} exit;
		struct {
			int32_t pid, old_pid;
		} exec;
		struct {		/* move_numa, swap_numa: the moved task */
			int32_t pid, src_cpu, dst_cpu;
		} numa;
		struct {
			int32_t cpu;	/* the probed rq's CPU; -1 if absent */
			struct ir_probe_entry v;
		} probe_entry;
		struct {
			int64_t ret;
		} probe_exit;
	};
};

/* ----------------------------------------------------------- trace input */

#define IR_MAX_CPUSTAT_CPUS 4096

struct ir_cpu_loss {
	int32_t cpu;
	uint64_t overrun, dropped;	/* from the per-CPU stats option */
	uint64_t missed;		/* from in-data missed-event markers */
	uint64_t missed_unknown;	/* markers that did not say how many */
	uint64_t first_ts, last_ts;	/* span of the affected region */
};

/* What the trace says about itself, besides its events. */
struct ir_trace_info {
	char path[4096];
	char kernel[128];		/* release from the uname option; "" unknown */
	char hostname[65];		/* nodename from the uname option; "" unknown or "(none)" */
	int kernel_major, kernel_minor, kernel_patch;	/* -1 unknown */
	char clock[32];
	int nr_cpus;			/* up to the highest CPU id with data */
	int file_cpus;			/* the CPU count the file states (0 unknown): the recording machine's */
	int file_version;
	char *meta;			/* idlereplay metadata option text (NUL-terminated) or NULL */
	uint64_t first_ts, last_ts;
	uint64_t events[IR_EV__COUNT];
	uint64_t events_total;
	uint64_t data_bytes;		/* per-CPU data in the file (compressed size if compressed) */
	int has_waking, has_probes;
	int probes_have_ratio;		/* newidle probes carry sd->newidle_ratio (NI_RANDOM code) */
	int nr_loss;			/* CPUs with any loss */
	struct ir_cpu_loss *loss;	/* nr_cpus entries, one per CPU */
};

struct ir_trace;

/* Open and check a trace; on error return IR_ERR_INPUT and fill err with
 * one line naming the file and the problem. */
int ir_trace_open(const char *path, struct ir_trace **out, char *err, size_t errlen);
/* The same, reading the events of one buffer: NULL the only buffer that
 * holds data (trace-cmd instances included), "top" the top one, or an
 * instance's name (`trace-cmd record/extract -B NAME`). */
int ir_trace_open_buffer(const char *path, const char *buffer, struct ir_trace **out,
			 char *err, size_t errlen);
const struct ir_trace_info *ir_trace_info(const struct ir_trace *t);
/* Walk all events in time order.  fn returns non-zero to stop. */
typedef int (*ir_event_fn)(void *arg, const struct ir_event *ev);
int ir_trace_run(struct ir_trace *t, ir_event_fn fn, void *arg, char *err, size_t errlen);
/* File bytes read so far: may be called from fn, while the trace is read
 * on another thread. */
uint64_t ir_trace_bytes_read(const struct ir_trace *t);
/* After ir_trace_run: fn(arg, event name, count) for each event seen. */
void ir_trace_event_counts(const struct ir_trace *t,
			   void (*fn)(void *arg, const char *name, uint64_t count), void *arg);
void ir_trace_close(struct ir_trace *t);

/* Kernel-release helpers (replay/kver.c). */
int ir_kver_parse(const char *release, int *major, int *minor, int *patch);
bool ir_kver_state_shifted(int major, int minor, int patch);
/* Release-keyed kernel rules the replay follows (kver.c cites each);
 * an unknown release (-1) takes the newest rule. */
bool ir_kver_at_least(int major, int minor, int want_major, int want_minor);

/* ---------------------------------------------------------------- state */

enum ir_mig_cause {
	IR_MIG_WAKEUP,
	IR_MIG_NEWIDLE,
	IR_MIG_PERIODIC,
	IR_MIG_NOHZ,
	IR_MIG_ACTIVE,
	IR_MIG_EXEC,
	IR_MIG_NUMA,
	IR_MIG_RT,
	IR_MIG_UNKNOWN,
	IR_MIG__COUNT
};
extern const char *const ir_mig_cause_name[IR_MIG__COUNT];

enum ir_anomaly {
	IR_ANOM_MISSING_IDLE_EXIT,
	IR_ANOM_PREV_NOT_CURRENT,	/* switch whose prev is not the CPU's current task */
	IR_ANOM_TIME_BACKWARDS,
	IR_ANOM_PID_REUSE,
	IR_ANOM_NEXT_NOT_RUNNABLE,	/* switched in a task we thought asleep or elsewhere */
	IR_ANOM_LOST_EVENTS,
	IR_ANOM_CPU_OUT_OF_RANGE,
	IR_ANOM_MISSING_IDLE_ENTRY,	/* a task's switch into idle was not recorded (SPEC 9) */
	IR_ANOM_QUEUED_NOT_PICKED,	/* a task thought queued on a CPU that switched to idle */
	IR_ANOM__COUNT
};
extern const char *const ir_anomaly_name[IR_ANOM__COUNT];

struct ir_state_params {
	uint64_t sched_migration_cost;	/* task_hot() threshold; default 500 us */
	uint64_t max_idle_balance_cost;	/* avg_idle cap is twice this; default 500 us */
	uint64_t avg_idle_init;		/* default 2 * sched_migration_cost */
	uint64_t tick_ns;		/* one jiffy (HZ); default 4 ms (HZ=250) */
	uint64_t balance_interval_ns;	/* assumed: the top domain's sd->balance_interval for
					 * periodic and NOHZ idle balance, which rewrite
					 * rd->overload; 0: its max_interval, 2 ms per CPU
					 * of its span (sd_init()) */
	uint32_t busy_factor;		/* sd->busy_factor: a busy balancer waits
					 * interval * busy_factor - 1 jiffy; default 16 */
	bool ni_random;			/* NI_RANDOM (v6.19 33cf66d88306): a newidle walk
					 * balances the top level with probability
					 * (2 + sd->newidle_ratio) / 1024 */
	bool avg_idle_shift;		/* 4.15 update_avg(): diff >> 3 instead of diff / 8 */
	int kernel_major, kernel_minor;	/* recording kernel's release; -1 unknown (newest rules) */
	uint64_t newidle_lead_ns;	/* newidle entry (idle_stamp) this long before its
					 * switch, bounded by prev's last event */
	bool probe_seed;		/* probed mode: take the avg_idle cap, each CPU's first
					 * avg_idle, the first rd->overload, idle_stamp and
					 * ttwu_pending from newidle probes when present, and
					 * make the idle task's re-entries (no switch) points */
	uint64_t lookahead_max_ns;	/* probed mode: a newidle walk's level reads the
					 * runqueues as of entry + the levels' costs so far,
					 * bounded by the call's duration and by this
					 * (replay/lookahead.h); 0: all levels at entry */
	unsigned lookahead_share;	/* percent of a call's duration its walk's reads are
					 * bounded by; 0: the median share before the pull in
					 * the trace's probed pulling calls so far (from 8 of
					 * them; before, 100: the call's exit) */
};
void ir_state_params_default(struct ir_state_params *p);

/* Per-CPU observed figures. */
struct ir_cpu_obs {
	uint64_t idle_ns, busy_ns, idle_entries;
	uint64_t newidle_points, newidle_pulls;
};

struct ir_observed {
	int nr_cpus;
	struct ir_cpu_obs *cpu;		/* nr_cpus entries */
	uint64_t window_start, window_end;
	uint64_t idle_while_waiting_ns;
	uint64_t migrations, mig_by_cause[IR_MIG__COUNT];
	uint64_t newidle_points, newidle_pulls;
	uint64_t anomalies[IR_ANOM__COUNT];
	uint64_t probe_calls, probe_matched;	/* newidle probes; those matched to a point */
	uint64_t probe_pulls;		/* newidle calls that returned > 0 (kretprobe), matched or not */
	uint64_t probe_only_points;	/* points only a probe shows (idle task re-entry, SPEC 9) */
	uint64_t ttwu_pending_points;	/* points entered with rq->ttwu_pending set */
	uint64_t lookahead_truncated;	/* points whose levels' runqueue changes were more
					 * than kept: later levels read an earlier state */
	uint32_t lookahead_share;	/* at the end: the share (percent) of a call's
					 * duration its walk's reads were bounded by; 0 none */
};

/* Kinds of newidle point. */
enum ir_point_kind {
	IR_PT_IDLE,	/* the CPU went idle */
	IR_PT_PULLED,	/* the kernel pulled a task (observed newidle pull) */
	IR_PT_LATE,	/* a task that arrived during the balance ran instead */
};

/* Why the reconstructed rd->overload is what it is at a point (the
 * decisions file's overload_why; docs/fidelity-replay.md tallies the
 * disagreements with the probes by it). */
enum ir_overload_why {
	IR_OVL_NEVER_SET,	/* no rq reached 2 since the start (or the probe's seed) */
	IR_OVL_RQ_AT_2,		/* an rq holds 2 now: add_nr_running() set it */
	IR_OVL_KEPT,		/* set, no rq at 2 now, no top-level rewrite more likely than not since */
	IR_OVL_CLEARED_WALK,	/* a probed newidle walk that reached the top rewrote it to 0 */
	IR_OVL_CLEARED_PERIODIC,	/* periodic/NOHZ top-level balances, at their assumed rate */
	IR_OVL__COUNT
};
extern const char *const ir_overload_why_name[IR_OVL__COUNT];

/* Best pullable waiting task in one ring of a CPU's domains: CPUs in level
 * i's span but not in level i-1's. */
struct ir_cand {
	int32_t pid;		/* -1: none */
	int32_t cpu;		/* where it waits */
	uint32_t src_nr_running;	/* that CPU's nr_running: busiest wins */
	uint64_t gain_ns;	/* min(idle from ts, its wait from ts), resolved */
};

/*
 * The runqueues as a newidle call on a point's CPU found them (the kernel's
 * rq->nr_running and the tail of rq->cfs_tasks, which detach_tasks() walks:
 * enqueue adds at the head, so the tail holds the tasks queued longest).
 * The point's own CPU is empty (prev is already dequeued); tasks the kernel
 * pulled in this call are back on their source runqueue, at its tail.
 * Kept only for traces of at most IR_SNAP_MAX_CPUS CPUs (memory: one
 * snapshot per CPU's open point); above that ir_point.rq is NULL and the
 * models fall back to the per-ring candidates.  IR_SNAP_TASKS queued tasks
 * per runqueue: detach_tasks() visits at most env->loop_max =
 * min(sysctl_sched_nr_migrate, busiest->nr_running), and
 * sysctl_sched_nr_migrate is 32 (v2.6.23 through v6.18; 8 only under
 * PREEMPT_RT from v6.0, whose SCHED_NR_MIGRATE_BREAK is 32 otherwise, so
 * the "take a breather" break never comes before loop_max).  32 holds every
 * task one load_balance() can look at, and so the up to 16 an idle CPU's
 * periodic balance moves at once from a queue of 33.  Memory: nr_cpus
 * snapshots of about 1 KB per CPU (two with probes).
 */
#define IR_SNAP_TASKS 32
#define IR_SNAP_MAX_CPUS 256
struct ir_snap_task {
	int32_t pid;
	int32_t prio;			/* -1 unknown (nice 0 assumed) */
	uint64_t exec_start;		/* when it last ran (switched out); 0 never seen run */
	bool pinned;			/* per-CPU kthread: cpus_ptr excludes other CPUs */
	float util;			/* PELT util_avg rebuilt from its run times */
	float util_est;			/* _task_util_est(): max(util_est.ewma, .enqueued), v4.17+
					 * (ir_util_est_update() at each sleep); 0 unknown */
	float load;			/* se.avg.load_avg: PELT of its runnable time x 1024
					 * (nice 0), task_h_load() of a root task; 0 unknown */
};
struct ir_rq_snap {
	uint16_t nr_running;		/* rq->nr_running: queued CFS and RT tasks, plus curr */
	uint16_t nr_tasks;		/* task[] entries kept: queued CFS tasks, tail first */
	bool curr_idle;			/* the idle task runs (idle_cpu()) */
	uint64_t idle_since;		/* curr_idle: when that idle period began */
	float util;			/* PELT util_avg of the CPU rebuilt from busy/idle times */
	float runnable;			/* cpu_runnable(): cfs_rq->avg.runnable_avg, PELT of
					 * nr_running x 1024 (v5.7+); 0 unknown */
	float util_est;			/* cfs_rq->avg.util_est.enqueued: the sum of the enqueued
					 * CFS tasks' _task_util_est(), curr included; 0 unknown */
	struct ir_snap_task task[IR_SNAP_TASKS];
};

/*
 * util_est_update() (kernel/sched/fair.c, v6.1; UTIL_EST v4.17 7f65ea42eb00,
 * UTIL_EST_FASTUP v5.5 b8c96361402a), at a task's dequeue for sleep with its
 * util_avg then: enqueued takes util; an increase resets the EWMA
 * (FASTUP); within UTIL_EST_MARGIN (SCHED_CAPACITY_SCALE / 100) of the EWMA
 * nothing changes unless enqueued itself moved by that much; a util above
 * the CPU's capacity_orig (1024) is not sampled; else
 * ewma += (enqueued - ewma) / 4 (UTIL_EST_WEIGHT_SHIFT 2).
 */
static inline void ir_util_est_update(float *ewma, float *enqueued, float util)
{
	const float margin = 1024.0f / 100;
	float last_enqueued_diff = *enqueued - util, last_ewma_diff = util - *ewma;

	if (*ewma < util) {
		*ewma = *enqueued = util;
		return;
	}
	if (last_ewma_diff > -margin && last_ewma_diff < margin) {
		if (!(last_enqueued_diff > -margin && last_enqueued_diff < margin))
			*enqueued = util;
		return;
	}
	if (util > 1024.0f)
		return;
	*enqueued = util;
	*ewma += last_ewma_diff / 4;
}

/* A resolved newidle point: everything a policy may look at. */
struct ir_point {
	uint64_t ts;
	int32_t cpu;
	enum ir_point_kind kind;
	uint64_t avg_idle;		/* reconstructed, at entry */
	uint64_t max_idle_balance_cost;	/* in force for the cap */
	bool overload;			/* rd->overload as reconstructed */
	double overload_p;		/* the probability it was set (overload: >= 1/2) */
	enum ir_overload_why overload_why;
	bool ttwu_pending;		/* this_rq->ttwu_pending at entry: v5.13+ (e5e678e4fea2)
					 * newidle returns 0 before anything else (SPEC 9); from
					 * the probe in probed mode, else from wake-list wakeups */
	uint64_t idle_ns;		/* how long cpu stayed idle from ts (estimate for PULLED) */
	int32_t pulled_pid, pulled_from;	/* PULLED only, else -1 */
	int nr_levels;			/* of cpu's domains, from the ring table */
	struct ir_cand ring[IR_MAX_LEVELS];
	bool has_probe;			/* a probed newidle call matched this point */
	struct ir_probe_entry probe;
	int64_t probe_ret;		/* -1 if no exit probe */
	uint64_t probe_dur;		/* probed call's duration (curr_cost walk), 0 unknown */
	const struct ir_rq_snap *rq;	/* nr_cpus entries, valid during the callback; NULL: none */
	uint64_t rq_ts;			/* when rq was taken (newidle entry) */
	uint64_t arrival_ns;		/* first task enqueued on cpu, from rq_ts; 0 none */
	int nr_rq;
	/* the runqueues as level l's load_balance() read them (probed mode,
	 * replay/lookahead.h) and when; NULL: rq, at rq_ts */
	const struct ir_rq_snap *rq_level[IR_MAX_LEVELS];
	uint64_t rq_level_ts[IR_MAX_LEVELS];
	/* sd->nr_balance_failed per level where the simulator keeps it (sim/);
	 * NULL: not in a trace (the policy's nr_balance_failed parameter) */
	const uint16_t *nr_balance_failed;
};

/*
 * Domain rings, given by model/: ring[c * nr_cpus + o] is the index of the
 * smallest level of c's domains whose span holds o, IR_NO_LEVEL if none.
 * NULL means one flat level holding every CPU.
 */
struct ir_rings {
	int nr_cpus;
	const uint8_t *ring;
	const uint8_t *nr_levels;	/* per CPU */
};

typedef void (*ir_point_fn)(void *arg, const struct ir_point *pt);

struct ir_state;

struct ir_state *ir_state_new(int nr_cpus, const struct ir_state_params *p,
			      const struct ir_rings *rings,
			      ir_point_fn on_point, void *arg);
/* Feed one event; events must come in time order per trace. */
void ir_state_feed(struct ir_state *s, const struct ir_event *ev);
/* Close the window at end_ts: accounts the tail, resolves open points. */
void ir_state_finish(struct ir_state *s, uint64_t end_ts);
const struct ir_observed *ir_state_observed(const struct ir_state *s);
/* Introspection for tests and ground truth; a CPU out of range has avg_idle
 * 0, nr_running 0 and curr -1. */
uint64_t ir_state_avg_idle(const struct ir_state *s, int cpu);
/* The look-ahead's share of a call's duration now (percent; see
 * ir_state_params.lookahead_share), 0 without a look-ahead. */
unsigned ir_state_lookahead_share(const struct ir_state *s);
unsigned ir_state_nr_running(const struct ir_state *s, int cpu);
bool ir_state_overload(const struct ir_state *s, uint64_t now);
double ir_state_overload_p(const struct ir_state *s, uint64_t now);
int32_t ir_state_curr(const struct ir_state *s, int cpu);
/* Tasks in the table (live ones and up to 4096 recently dead). */
uint32_t ir_state_nr_tasks(const struct ir_state *s);
void ir_state_free(struct ir_state *s);

/* ------------------------------------------------------ timeline (timeline.c) */

#define IR_TL_BUCKETS 2048		/* overview buckets per CPU */
#define IR_TL_DETAIL_BUCKETS 1000	/* detail window buckets per CPU */
#define IR_TL_DEFAULT_DETAIL 20000000ull	/* ns: the busiest window's length without --detail */
#define IR_TL_MAX_LANES 16		/* policies whose pulls a timeline keeps */
#define IR_TL_MARKS 128			/* anomaly positions kept per kind (thinned evenly) */

struct ir_timeline;

/* A series as stored: bucket b of CPU c is at [c * stride + b]; lane l's
 * pulls (a policy's, all CPUs) at pulls[(nr_cpus + l) * stride + b]. */
struct ir_timeline_view {
	int nr_cpus, nr_lanes, n, stride;
	uint64_t start, end, bucket;
	const double *busy;		/* ns busy */
	const uint32_t *newidle, *pulls;
};

/* detail_len 0: the busiest IR_TL_DEFAULT_DETAIL of newidle points (timeline.c
 * states the rule), known once ir_timeline_finish() ran. */
struct ir_timeline *ir_timeline_new(int nr_cpus, uint64_t detail_off, uint64_t detail_len);
void ir_timeline_start(struct ir_timeline *t, uint64_t ts);
void ir_timeline_busy(struct ir_timeline *t, int cpu, uint64_t start, uint64_t end);
void ir_timeline_point(struct ir_timeline *t, int cpu, uint64_t ts, bool pulled);
/* Lanes: per policy pulls, set before ir_timeline_start(); -1 on error. */
int ir_timeline_set_lanes(struct ir_timeline *t, int nr_lanes);
void ir_timeline_lane_pull(struct ir_timeline *t, int lane, uint64_t ts);
/* An anomaly at (cpu, ts): counted; its position kept in a bounded list. */
struct ir_timeline_mark {
	uint64_t ts;
	int cpu;
};
void ir_timeline_mark(struct ir_timeline *t, enum ir_anomaly kind, int cpu, uint64_t ts);
const struct ir_timeline_mark *ir_timeline_marks(const struct ir_timeline *t, enum ir_anomaly kind, int *n,
						 uint64_t *total);
void ir_timeline_finish(struct ir_timeline *t);
int ir_timeline_get(const struct ir_timeline *t, bool detail, uint64_t end, struct ir_timeline_view *v);
void ir_timeline_free(struct ir_timeline *t);
/* Let the state machine feed a timeline (NULL: none). */
void ir_state_set_timeline(struct ir_state *s, struct ir_timeline *t);

/* ------------------------------------------------- calibration (calibrate.c) */

enum ir_calib_kind {
	IR_CALIB_SD0,			/* sd->max_newidle_lb_cost, lowest level */
	IR_CALIB_SD1,
	IR_CALIB_SD2,
	IR_CALIB_MAX_IDLE_BALANCE_COST,
	IR_CALIB_AVG_IDLE,
	IR_CALIB_DURATION,		/* newidle call, entry to return */
	IR_CALIB_LEAD,			/* newidle entry to the switch that follows */
	IR_CALIB__COUNT
};
extern const char *const ir_calib_name[IR_CALIB__COUNT];

struct ir_calib_stats {
	uint64_t n, min, p10, p50, p90, max;
};

struct ir_calib;
struct ir_calib *ir_calib_new(int nr_cpus);
void ir_calib_feed(struct ir_calib *c, const struct ir_event *ev);
/* Sorts the samples; -1 if some were dropped for lack of memory. */
int ir_calib_result(struct ir_calib *c, struct ir_calib_stats out[IR_CALIB__COUNT], uint64_t *calls);
void ir_calib_free(struct ir_calib *c);

#endif

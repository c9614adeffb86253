/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The replay state machine: per-CPU runqueues rebuilt from sched events,
 * avg_idle and idle_stamp as the kernel keeps them, overload, idle
 * periods, migration causes, anomalies, and newidle points (SPEC 3, 5, 7, 8).
 *
 * Kernel references (kernel/sched/):
 *  - avg_idle: a wakeup onto an rq whose idle_stamp is set samples
 *    rq_clock - idle_stamp, update_avg() (diff / 8; 4.15: diff >> 3), caps
 *    at 2 * max_idle_balance_cost, clears idle_stamp.  Where: up to v6.2 in
 *    ttwu_do_wakeup(), reached from ttwu_do_activate() and ttwu_runnable()
 *    (a task still on its rq samples too); from v6.3 (160fb0d83f20
 *    "sched/core: Reorganize ttwu_do_wakeup() and ttwu_do_activate()") only
 *    in ttwu_do_activate().  From v5.4 (aacedf26fb76) try_to_wake_up() of
 *    p == current takes neither path.  sched_wakeup_new takes no sample
 *    (wake_up_new_task() has no such block).
 *  - idle_stamp: set on entry to idle_balance()/newidle_balance()/
 *    sched_balance_newidle(), cleared when that pulled a task or a task
 *    arrived meanwhile (pulled_task != 0).  v5.13+ (e5e678e4fea2) returns 0
 *    before setting it when this_rq->ttwu_pending: it keeps its old value.
 *  - newidle points: __schedule() holds the rq lock from deactivate_task(prev)
 *    through pick_next_task(), so a task queued on the CPU before the blocking
 *    switch was queued when pick_next_task() ran: no point.  Only c's own
 *    pulls (and, with probes, arrivals inside newidle's lock drop) count.
 *  - overload: rd->overload (rd->overloaded, set_rd_overloaded() since v6.9)
 *    is set by add_nr_running() when an rq reaches 2 and rewritten only by
 *    update_sd_lb_stats() at the top domain (!env->sd->parent) from the rqs
 *    it scanned (update_sg_lb_stats(): rq->nr_running > 1).  prev is
 *    dequeued (deactivate_task()) before its own newidle call, so while a
 *    probed call runs its rq counts without prev.  Newidle walks that reach
 *    the top rewrite it (probed: see newidle_walk_rewrite()); periodic and
 *    NOHZ idle balance do too but leave no event (see periodic_survive()).
 *    The top level's scan comes at an unknown time within the walk: an rq
 *    that left 2 during the walk was seen by a scan before that; a
 *    wake-list wakeup queued during the walk stops it (v5.13).  What the
 *    replay knows is a probability (ir_state_overload_p()): the NI_RANDOM
 *    die is a chance, the periodic rate an assumption applied as a time.
 *
 * Hot path: no allocation except the first time a pid is seen, no string
 * work except the first time a task's comm is seen.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "replay/lookahead.h"
#include "replay/replay.h"

const char *const ir_mig_cause_name[IR_MIG__COUNT] = {
	"wakeup", "newidle", "periodic", "nohz", "active", "exec", "numa", "rt", "unknown",
};

const char *const ir_overload_why_name[IR_OVL__COUNT] = {
	"never_set", "rq_at_2", "kept", "cleared_by_walk", "cleared_by_periodic",
};

const char *const ir_anomaly_name[IR_ANOM__COUNT] = {
	"missing_idle_exit", "prev_not_current", "time_backwards", "pid_reuse",
	"next_not_runnable", "lost_events", "cpu_out_of_range", "missing_idle_entry",
	"queued_not_picked",
};

enum tstate { T_UNKNOWN, T_NEW, T_SLEEPING, T_QUEUED, T_RUNNING, T_DEAD };

struct task {
	int32_t pid;
	uint8_t state;		/* enum tstate */
	uint8_t comm_known, pinned, stopper, rt;
	uint8_t numa_pending;	/* a move/swap_numa just named it */
	uint8_t stopper_pending;	/* migrated by the stopper: exec or active? */
	int32_t cpu;		/* where queued/running, or last CPU */
	uint64_t enq_ts;	/* when it became runnable on cpu */
	uint64_t q_ts;		/* when it joined cpu's queue (> enq_ts if it migrated) */
	uint64_t last_ran;	/* switched out: approximates p->se.exec_start */
	float util;		/* PELT util_avg while it runs, at util_ts */
	float ue_ewma, ue_enq;	/* p->se.avg.util_est (ir_util_est_update()) */
	float ue_inq;		/* _task_util_est() it added to its CPU's ue_q when queued */
	float load;		/* PELT load_avg (runnable: queued or running), at load_ts */
	uint64_t load_ts;
	bool load_runnable;	/* on a runqueue since load_ts */
	uint64_t util_ts, run_ts;
	uint64_t waking_ts;
	int32_t waking_cpu;
	uint64_t wl_waking_ts;	/* last sched_waking, kept across its migration */
	int32_t wl_waking_cpu;
	uint32_t watch;		/* open points that hold it as a candidate */
	bool in_dead;		/* in the ring of recently dead tasks */
	struct task *qnext, *qprev;	/* cpu's wait queue (runnable, not running) */
	struct task *hnext;	/* hash chain */
};

/* _task_util_est() */
static inline float task_ue(const struct task *t)
{
	return t->ue_ewma > t->ue_enq ? t->ue_ewma : t->ue_enq;
}

static double pelt(double util, uint64_t from, uint64_t to, bool running);

/* se.avg.load_avg accumulates while the task is on a runqueue (queued or
 * running), weight 1024 for nice 0 (kernel/sched/pelt.c __update_load_avg_se) */
static void task_load_set(struct task *t, uint64_t now, bool runnable)
{
	t->load = (float)pelt(t->load, t->load_ts, now, t->load_runnable);
	t->load_ts = now;
	t->load_runnable = runnable;
}

static inline float task_load_now(const struct task *t, uint64_t now)
{
	return (float)pelt(t->load, t->load_ts, now, t->load_runnable);
}

#define MAX_PEND_MIG 16

struct open_point {
	bool active;
	struct ir_point pt;
	struct ir_rq_snap *snap;	/* nr_cpus entries, or NULL (IR_SNAP_MAX_CPUS) */
	struct ir_rq_snap *probe_snap;	/* the same, taken at a newidle probe's entry */
	uint64_t ran[IR_MAX_LEVELS];	/* when ring candidate first ran after ts, 0 not yet */
	uint64_t arrival_ts;		/* first task enqueued on the CPU after ts, 0 none yet */
	uint64_t probe_ts;		/* entry of the probed call behind pt, 0 none */
	struct ir_la_win *la;		/* the runqueue changes its levels saw (lookahead.h), or NULL */
};

struct cpu {
	bool seen;
	int32_t curr;		/* pid; 0 idle */
	uint32_t nr_queued;	/* runnable, not running */
	struct task *qhead;	/* newest; the queue runs in joining order, q_ts */
	struct task *qtail;	/* oldest */
	uint32_t nr_q_moved;	/* queued tasks with enq_ts < q_ts (migrated in) */
	uint64_t since;		/* start of the current idle or busy period */
	uint64_t last_switch_ts;
	uint64_t last_own_ts;	/* last event on this CPU emitted by curr */
	uint64_t last_ev_ts;	/* last event on this CPU, whoever emitted it */
	uint64_t avg_idle, idle_stamp, max_idle_balance_cost;
	double util;		/* PELT util_avg of the CPU (busy = running a task), at util_ts */
	uint64_t util_ts;
	double runnable;	/* PELT runnable_avg of the CPU (nr_running x 1024), at runnable_ts */
	uint64_t runnable_ts;
	double ue_q;		/* sum of the queued CFS tasks' _task_util_est() */
	bool probe_seeded;
	bool prev_out;		/* prev dequeued for its own probed newidle call */
	bool probe_overload;	/* the reconstructed flag at that call's entry */
	double probe_overload_p;	/* and the probability it was set */
	enum ir_overload_why probe_ovl_why;	/* and why */
	/* sched_migrate_task with dest == this CPU, awaiting the next event here */
	int nr_pend;
	/* a pull this call made, and the task's exec_start before the move
	 * reset it (what load_balance() saw on the source rq) */
	struct { int32_t pid, orig; uint64_t ts, last_ran; } pend[MAX_PEND_MIG];
	struct open_point op;
	uint32_t pulled_watchers;	/* open PULLED points waiting on our next switch */
	uint64_t stamp_before;	/* idle_stamp before the last point stamped it */
	uint64_t stamp_set;	/* what that point set it to (0: nothing) */
	uint64_t point_prev_last;	/* prev's last own event before that point */
	/* probe of a newidle call on this CPU, until its point */
	bool probe_valid;
	bool reentry;		/* that call is the idle task's, with no switch */
	int32_t probe_pid;
	uint64_t probe_ts, probe_exit_ts;
	struct ir_probe_entry probe;
	int64_t probe_ret;
	/* that call's walk reached the top level with probability walk_p
	 * (newidle_walk_rewrite()), unless a wake-list wakeup queued during it
	 * stopped it: known only when c processes its wake list (walk_stop()) */
	bool walk_pending;
	double walk_p;			/* the die's odds of balancing the top level */
	uint64_t walk_from, walk_entry, walk_exit;	/* scans from walk_from count */
	uint64_t probe_seq;	/* the look-ahead ring's position at that entry */
};

struct ir_state {
	struct ir_state_params p;
	int nr_cpus;
	struct cpu *cpu;
	struct ir_rings rings;
	ir_point_fn on_point;
	void *arg;
	struct ir_observed obs;
	struct ir_timeline *tl;		/* optional */
	bool started;
	uint64_t now;
	/* for idle_while_waiting and overload */
	uint32_t nr_idle, total_queued, nr_cpus_queued;
	uint64_t sum_cpus_queued;	/* sum of ids of CPUs with queued tasks */
	uint64_t waiting_ns;		/* time some seen CPU had a waiting task (first_sight()) */
	uint32_t nr_overloaded;		/* CPUs with nr_running >= 2 */
	uint64_t overload_end;		/* when nr_overloaded last dropped to 0 */
	uint64_t enq_from;		/* the wakeup being fed: its enqueue came after this (0: none) */
	bool rd_overload;		/* the flag may be set: false once surely clear */
	bool overload_seeded;
	enum ir_overload_why cleared_by;	/* why it is clear, when it is */
	/* newidle walks' top-level rewrites expected since nr_overloaded last
	 * dropped to 0 (periodic/NOHZ ones: grp_x, periodic_survive()) */
	double walk_r;
	/* the top domain's groups (should_we_balance(): one balancer each) */
	int *grp;			/* per CPU */
	uint32_t *grp_idle;		/* idle CPUs per group */
	int nr_grps, nr_busy_grps;	/* groups, and those without an idle CPU */
	double idle_rate, busy_rate;	/* periodic top-level balances per ns per group */
	double *grp_x;			/* per group: the share of its balance interval
					 * elapsed since nr_overloaded last dropped to 0 */
	/* tasks: hash of pid -> task, slab-allocated */
	struct task **hash;
	uint32_t hash_mask, nr_tasks;
	struct task *slab;
	uint32_t slab_used, slab_size;
	struct task **slabs;
	uint32_t nr_slabs;
	/* dead tasks are kept a while (a wakeup of a dead pid is pid reuse),
	 * then their slots are reused: the table holds live tasks and at most
	 * DEAD_KEEP dead ones, however many tasks the trace saw */
	struct task *free_tasks;	/* chained by hnext */
	struct task *dead[4096];
	uint32_t dead_head, dead_n;
	/* per-event work visits only the CPUs concerned, not all nr_cpus:
	 * CPUs with queued tasks, CPUs with an open newidle point */
	struct cpuset { int *id, *pos, n; } queued, open, walks;
	int *scratch;
	/* the look-ahead (lookahead.h): probed mode with snapshots only */
	struct ir_la_log la;
	struct ir_rq_snap *la_snap;	/* IR_MAX_LEVELS * nr_cpus: the delivered point's levels */
};

#define DEAD_KEEP 4096

/* ------------------------------------------------------------- tasks */

static uint32_t pid_hash(int32_t pid)
{
	return (uint32_t)pid * 2654435761u;
}

static int hash_grow(struct ir_state *s)
{
	uint32_t n = s->hash_mask ? (s->hash_mask + 1) * 2 : 1024;
	struct task **h = calloc(n, sizeof(*h));

	if (!h)
		return -1;
	for (uint32_t i = 0; s->hash && i <= s->hash_mask; i++) {
		struct task *t = s->hash[i], *nx;

		for (; t; t = nx) {
			uint32_t b = pid_hash(t->pid) & (n - 1);

			nx = t->hnext;
			t->hnext = h[b];
			h[b] = t;
		}
	}
	free(s->hash);
	s->hash = h;
	s->hash_mask = n - 1;
	return 0;
}

static struct task *task_find(struct ir_state *s, int32_t pid)
{
	struct task *t = s->hash[pid_hash(pid) & s->hash_mask];

	while (t && t->pid != pid)
		t = t->hnext;
	return t;
}

/* Find or create; NULL only on allocation failure (then the event is ignored). */
static struct task *task_get(struct ir_state *s, int32_t pid)
{
	struct task *t = task_find(s, pid);

	if (t)
		return t;
	if (s->nr_tasks >= s->hash_mask && hash_grow(s))
		return NULL;
	if (s->free_tasks) {
		t = s->free_tasks;
		s->free_tasks = t->hnext;
		memset(t, 0, sizeof(*t));
		goto fill;
	}
	if (s->slab_used == s->slab_size) {
		struct task **ns = realloc(s->slabs, (s->nr_slabs + 1) * sizeof(*ns));

		if (!ns)
			return NULL;
		s->slabs = ns;
		s->slab = calloc(4096, sizeof(struct task));
		if (!s->slab) {
			s->slab_size = s->slab_used = 0;
			return NULL;
		}
		s->slabs[s->nr_slabs++] = s->slab;
		s->slab_size = 4096;
		s->slab_used = 0;
	}
	t = &s->slab[s->slab_used++];
fill:
	t->pid = pid;
	t->cpu = -1;
	t->waking_cpu = -1;
	t->wl_waking_cpu = -1;
	t->hnext = s->hash[pid_hash(pid) & s->hash_mask];
	s->hash[pid_hash(pid) & s->hash_mask] = t;
	s->nr_tasks++;
	return t;
}

/* Unhash a dead task nothing refers to and keep its slot for the next one. */
static void task_free(struct ir_state *s, struct task *t)
{
	struct task **pp = &s->hash[pid_hash(t->pid) & s->hash_mask];

	while (*pp && *pp != t)
		pp = &(*pp)->hnext;
	if (!*pp)
		return;
	*pp = t->hnext;
	memset(t, 0, sizeof(*t));
	t->pid = -1;
	t->hnext = s->free_tasks;
	s->free_tasks = t;
	s->nr_tasks--;
}

/* t just died (switched out as EXIT_DEAD/EXIT_ZOMBIE): the oldest of the
 * DEAD_KEEP recently dead goes, if it is still dead and no open point
 * holds it. */
static void task_died(struct ir_state *s, struct task *t)
{
	if (t->in_dead)
		return;
	if (s->dead_n == DEAD_KEEP) {
		struct task *x = s->dead[s->dead_head];

		s->dead_head = (s->dead_head + 1) % DEAD_KEEP;
		s->dead_n--;
		x->in_dead = false;
		if (x->state == T_DEAD && !x->watch && !x->stopper_pending)
			task_free(s, x);
	}
	s->dead[(s->dead_head + s->dead_n) % DEAD_KEEP] = t;
	s->dead_n++;
	t->in_dead = true;
}

uint32_t ir_state_nr_tasks(const struct ir_state *s)
{
	return s->nr_tasks;
}

static bool comm_is(const char *c, uint16_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(c, prefix, n);
}

/* Per-CPU kthreads cannot be pulled; migration/N is the stopper (SPEC 3, 5). */
static void task_comm(struct task *t, const char *c, uint16_t len)
{
	if (t->comm_known || !c)
		return;
	len = (uint16_t)strnlen(c, len);
	t->comm_known = 1;
	t->stopper = comm_is(c, len, "migration/");
	t->pinned = t->stopper || comm_is(c, len, "ksoftirqd/") || comm_is(c, len, "cpuhp/") ||
		(comm_is(c, len, "kworker/") && len > 8 && c[8] >= '0' && c[8] <= '9') ||
		comm_is(c, len, "watchdog/") || comm_is(c, len, "rcuc/") ||
		comm_is(c, len, "idle_inject/");
}

/* ------------------------------------------------------ runqueue sums */

static inline unsigned nr_running(const struct ir_state *s, int c)
{
	return s->cpu[c].nr_queued + (s->cpu[c].curr != 0 ? 1u : 0u);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void set_add(struct cpuset *set, int c)
{
	if (set->pos[c] < 0) {
		set->pos[c] = set->n;
		set->id[set->n++] = c;
	}
}

static void set_del(struct cpuset *set, int c)
{
	int i = set->pos[c], last;

	if (i < 0)
		return;
	last = set->id[--set->n];
	set->id[i] = last;
	set->pos[last] = i;
	set->pos[c] = -1;
}

static int set_init(struct cpuset *set, int nr_cpus)
{
	set->id = calloc((size_t)nr_cpus, sizeof(*set->id));
	set->pos = malloc((size_t)nr_cpus * sizeof(*set->pos));
	if (!set->id || !set->pos)
		return -1;
	for (int c = 0; c < nr_cpus; c++)
		set->pos[c] = -1;
	return 0;
}

/* rq->nr_running as add_nr_running() and update_sg_lb_stats() see it:
 * without prev while its own newidle call runs (deactivate_task() came first) */
static inline unsigned rq_nr_running(const struct ir_state *s, int c)
{
	return nr_running(s, c) - (s->cpu[c].prev_out && s->cpu[c].curr ? 1u : 0u);
}

/*
 * A probed walk's expected top-level rewrites to 0 (HUGE_VAL: surely), the
 * walk stopped at stop.  The top level's scan comes at a time within the
 * walk the probe does not give (the lower levels' share of its duration is
 * not in it): taken uniform between entry and exit.  A scan before the last
 * rq left 2 (walk_from) saw it and wrote 1.  sched_balance_newidle()
 * (newidle_balance() v5.13-v6.9, e5e678e4fea2) breaks out of its domain
 * loop after the level in progress once this_rq->ttwu_pending is set: a
 * wake-list wakeup queued at stop leaves the top unbalanced unless its scan
 * had begun, so only scans in [walk_from, stop) count.
 */
static double walk_rewrites(const struct cpu *cp, uint64_t stop)
{
	double p = cp->walk_p;

	if (stop > cp->walk_exit)
		stop = cp->walk_exit;
	if (cp->walk_from > cp->walk_entry || stop < cp->walk_exit) {
		if (stop <= cp->walk_from || cp->walk_exit <= cp->walk_entry)
			return 0;
		p *= (double)(stop - cp->walk_from) / (double)(cp->walk_exit - cp->walk_entry);
	}
	return p >= 1.0 ? HUGE_VAL : -log(1.0 - p);
}

/* Expected rewrites of the walks whose stop is not known yet. */
static double walks_pending(const struct ir_state *s)
{
	double r = 0;

	for (int i = 0; i < s->walks.n; i++)
		r += walk_rewrites(&s->cpu[s->walks.id[i]], s->cpu[s->walks.id[i]].walk_exit);
	return r;
}

/* An rq reached 2 after those walks: whatever they wrote, the flag is set. */
static void walks_drop(struct ir_state *s)
{
	while (s->walks.n) {
		s->cpu[s->walks.id[0]].walk_pending = false;
		set_del(&s->walks, s->walks.id[0]);
	}
}

/* Call before and after changing a CPU's queue or curr. */
static double pelt_runnable(double avg, uint64_t from, uint64_t to, unsigned nr);

static inline void rq_before(struct ir_state *s, int c, unsigned *nr)
{
	struct cpu *cp = &s->cpu[c];

	*nr = rq_nr_running(s, c);
	cp->runnable = pelt_runnable(cp->runnable, cp->runnable_ts, s->now, nr_running(s, c));
	cp->runnable_ts = s->now;
}

/*
 * try_to_wake_up() enqueues the task before it emits sched_wakeup: v6.1
 * ttwu_do_activate() calls activate_task() (add_nr_running(), which sets
 * rd->overload when the rq reaches 2) and then ttwu_do_wakeup(), whose
 * trace_sched_wakeup() is the event (kernel/sched/core.c; v6.3's
 * 160fb0d83f20 keeps that order); wake_up_new_task() likewise calls
 * activate_task() before trace_sched_wakeup_new().  The enqueue comes after
 * the emitting CPU's previous event (its sched_waking or sched_migrate_task)
 * and after the task's sched_waking (on_wakeup() leaves out wake-list
 * wakeups: sched_ttwu_pending() enqueues right before the event).  A probed
 * newidle call on another CPU that entered inside that window (enq_from,
 * now) may have read the flag set already.  When within the window is not
 * in the trace: taken uniform, as the top level's scan within a walk
 * (walk_rewrites()), so that call read it set with probability
 * f = (entry - enq_from) / (now - enq_from), or as it was, 1 - f.
 */
static void backdate_one(uint64_t e, uint64_t from, uint64_t to, bool *set, double *p,
			 enum ir_overload_why *why)
{
	double f;

	if (!e || e <= from || e >= to || *p >= 1.0)
		return;
	f = (double)(e - from) / (double)(to - from);
	*p = f + (1.0 - f) * *p;
	if (!*set && *p >= 0.5) {
		*set = true;
		*why = IR_OVL_RQ_AT_2;
	}
}

static void enqueue_backdate(struct ir_state *s)
{
	uint64_t from = s->enq_from, to = s->now;

	if (!from || from >= to || !s->p.probe_seed)
		return;
	for (int y = 0; y < s->nr_cpus; y++) {
		struct cpu *cp = &s->cpu[y];

		if (cp->probe_valid)	/* its point not opened yet */
			backdate_one(cp->probe_ts, from, to, &cp->probe_overload, &cp->probe_overload_p,
				     &cp->probe_ovl_why);
		if (cp->op.active)	/* opened, not delivered */
			backdate_one(cp->op.probe_ts, from, to, &cp->op.pt.overload, &cp->op.pt.overload_p,
				     &cp->op.pt.overload_why);
	}
}

static void rq_after(struct ir_state *s, int c, unsigned before, uint32_t queued_before)
{
	unsigned after = rq_nr_running(s, c);
	uint32_t q = s->cpu[c].nr_queued;

	if (before < 2 && after >= 2) {
		/* add_nr_running(): prev_nr < 2 && nr_running >= 2 sets the flag */
		s->nr_overloaded++;
		s->rd_overload = true;
		walks_drop(s);	/* their scans came before: the flag is set again */
		enqueue_backdate(s);
	} else if (before >= 2 && after < 2) {
		if (--s->nr_overloaded == 0) {
			s->overload_end = s->now;
			s->walk_r = 0;	/* earlier rewrites saw this rq at 2 */
			for (int g = 0; g < s->nr_grps; g++)
				s->grp_x[g] = 0;
		}
	}
	if (!queued_before && q) {
		s->nr_cpus_queued++;
		s->sum_cpus_queued += (uint64_t)c;
		set_add(&s->queued, c);
	} else if (queued_before && !q) {
		s->nr_cpus_queued--;
		s->sum_cpus_queued -= (uint64_t)c;
		set_del(&s->queued, c);
	}
	s->total_queued += q;
	s->total_queued -= queued_before;
}

static void dequeue(struct ir_state *s, struct task *t);
static double pelt(double util, uint64_t from, uint64_t to, bool running);

/* t joined c's queue at its head: its place from the tail among the CFS
 * tasks the snapshots keep (bounded walk) */
static void la_note_enq(struct ir_state *s, int c, const struct task *t)
{
	struct ir_la_rec *r = ir_la_note(&s->la, IR_LA_ENQ, s->now, c, t->pid);
	unsigned pos = 0, steps = 0;

	for (const struct task *q = s->cpu[c].qtail; q && q != t && pos < IR_SNAP_TASKS && steps < 64;
	     q = q->qprev, steps++)
		pos += !q->rt;
	r->pos = (uint8_t)(steps < 64 ? pos : IR_SNAP_TASKS);
	r->exec_start = t->last_ran;
	r->util = (float)pelt(t->util, t->util_ts, s->now, false);
	r->util_est = t->rt ? 0.0f : task_ue(t);
	r->load = task_load_now(t, s->now);
	r->rt = t->rt;
	r->pinned = t->pinned;
}

static void enqueue(struct ir_state *s, int c, struct task *t, uint64_t ts)
{
	struct cpu *cp = &s->cpu[c];
	unsigned before;
	uint32_t qb;

	if (t->state == T_QUEUED)
		dequeue(s, t);	/* never on two queues, whatever the trace says */
	qb = cp->nr_queued;
	rq_before(s, c, &before);
	if (cp->op.active && !cp->op.arrival_ts)
		cp->op.arrival_ts = s->now;
	if (!t->load_runnable)
		task_load_set(t, s->now, true);
	t->state = T_QUEUED;
	t->cpu = c;
	t->enq_ts = ts;
	t->q_ts = s->now;
	if (t->enq_ts != t->q_ts)
		cp->nr_q_moved++;
	t->qprev = NULL;
	t->qnext = cp->qhead;
	if (cp->qhead)
		cp->qhead->qprev = t;
	else
		cp->qtail = t;
	cp->qhead = t;
	cp->nr_queued++;
	/* util_est_enqueue(): the queued CFS tasks' estimates add up */
	t->ue_inq = t->rt ? 0.0f : task_ue(t);
	cp->ue_q += t->ue_inq;
	rq_after(s, c, before, qb);
	if (s->la.rec)
		la_note_enq(s, c, t);
}

static void dequeue(struct ir_state *s, struct task *t)
{
	struct cpu *cp = &s->cpu[t->cpu];
	unsigned before;
	uint32_t qb = cp->nr_queued;

	if (s->la.rec)
		ir_la_note(&s->la, IR_LA_DEQ, s->now, t->cpu, t->pid);
	rq_before(s, t->cpu, &before);
	if (t->qprev)
		t->qprev->qnext = t->qnext;
	else
		cp->qhead = t->qnext;
	if (t->qnext)
		t->qnext->qprev = t->qprev;
	else
		cp->qtail = t->qprev;
	if (t->enq_ts != t->q_ts)
		cp->nr_q_moved--;
	t->qnext = t->qprev = NULL;
	t->state = T_UNKNOWN;	/* the caller says what it is now */
	cp->nr_queued--;
	cp->ue_q = cp->nr_queued ? cp->ue_q - t->ue_inq : 0.0;
	if (cp->ue_q < 0)
		cp->ue_q = 0;
	t->ue_inq = 0;
	rq_after(s, t->cpu, before, qb);
}

/* One more (or one fewer) idle CPU: nr_idle, and the top-level groups
 * that have an idle CPU to balance for them. */
static void idle_count(struct ir_state *s, int c, bool idle)
{
	uint32_t *gi = &s->grp_idle[s->grp[c]];

	if (idle) {
		s->nr_idle++;
		if ((*gi)++ == 0)
			s->nr_busy_grps--;
	} else {
		s->nr_idle--;
		if (--(*gi) == 0)
			s->nr_busy_grps++;
	}
}

/*
 * PELT (kernel/sched/pelt.c): util_avg accumulates running time in 1024 us
 * periods decaying by y, y^32 = 1/2 (LOAD_AVG_PERIOD), towards 1024 while
 * running and towards 0 otherwise.  Continuous form of the same series.
 */
static double pelt(double util, uint64_t from, uint64_t to, bool running)
{
	double y;

	if (to <= from)
		return util;
	y = exp2(-(double)(to - from) / (1024000.0 * 32.0));
	return util * y + (running ? 1024.0 * (1.0 - y) : 0.0);
}

/* The same series for cfs_rq->avg.runnable_avg: each runnable entity adds
 * 1024 while runnable (v5.7 9f68395333ad "sched/pelt: Add a new runnable
 * average signal"), so it moves towards nr_running x 1024. */
static double pelt_runnable(double avg, uint64_t from, uint64_t to, unsigned nr)
{
	double y;

	if (to <= from)
		return avg;
	y = exp2(-(double)(to - from) / (1024000.0 * 32.0));
	return avg * y + 1024.0 * nr * (1.0 - y);
}


static void cpu_util_update(struct ir_state *s, int c)
{
	struct cpu *cp = &s->cpu[c];

	cp->util = pelt(cp->util, cp->util_ts, s->now, cp->curr != 0);
	cp->util_ts = s->now;
}

static void set_curr(struct ir_state *s, int c, int32_t pid)
{
	struct cpu *cp = &s->cpu[c];
	unsigned before;

	cpu_util_update(s, c);
	rq_before(s, c, &before);
	if ((cp->curr == 0) != (pid == 0)) {
		idle_count(s, c, pid == 0);
		if (s->la.rec)
			ir_la_note(&s->la, pid == 0 ? IR_LA_IDLE : IR_LA_BUSY, s->now, c, pid);
	}
	if (cp->curr != pid)
		cp->prev_out = false;	/* prev left: the switch is done */
	cp->curr = pid;
	rq_after(s, c, before, cp->nr_queued);
}

/* ------------------------------------------------------------ time */

/*
 * Periodic and NOHZ idle balance at the top domain, per ns: they rewrite
 * rd->overload but leave no event.  An assumption, with the kernel's
 * defaults as parameters: each top-level group has one balancer
 * (should_we_balance()), balancing every get_sd_balance_interval():
 * sd->balance_interval (default max_interval = 2 * span weight ms, sd_init();
 * a balanced domain doubles its interval up to it), times sd->busy_factor
 * minus one jiffy when no CPU of the group is idle.  The share of its
 * interval group g's balancer covers per ns; see periodic_survive().
 */
static inline double grp_rate(const struct ir_state *s, int g)
{
	return s->grp_idle[g] ? s->idle_rate : s->busy_rate;
}

/* Integrate time-weighted figures up to ts (SPEC 7, idle while waiting). */
static void advance(struct ir_state *s, uint64_t ts)
{
	uint64_t dt = ts - s->now;
	uint32_t n = 0;

	if (s->total_queued && s->nr_idle) {
		n = s->nr_idle;
		if (s->nr_cpus_queued == 1) {
			/* all waiting tasks sit on one CPU: it does not count if idle */
			int w = (int)s->sum_cpus_queued;

			if (w < s->nr_cpus && s->cpu[w].seen && s->cpu[w].curr == 0)
				n--;
		}
	}
	s->obs.idle_while_waiting_ns += dt * n;
	if (s->total_queued && !(s->nr_cpus_queued == 1 && s->sum_cpus_queued < (uint64_t)s->nr_cpus &&
				 !s->cpu[s->sum_cpus_queued].seen))
		s->waiting_ns += dt;
	if (s->rd_overload && !s->nr_overloaded) {
		for (int g = 0; g < s->nr_grps; g++)
			s->grp_x[g] += (double)dt * grp_rate(s, g);
	}
	s->now = ts;
}

/*
 * The chance that no periodic/NOHZ top-level balance came since the last rq
 * left 2 (such a rewrite then finds no rq at 2 and writes 0).  v6.1
 * rebalance_domains() balances a domain at the first tick with
 * time_after_eq(jiffies, sd->last_balance + interval) and then sets
 * sd->last_balance = jiffies: strictly periodic, one balance per interval,
 * not a Poisson process.  Where in its period each group's balancer was when
 * the rq left 2 (sd->last_balance, the jiffy's phase) is not in the trace:
 * taken uniform and independent per group, so group g's balance has come
 * with probability x_g, the share of its interval elapsed (grp_x), and the
 * flag survives them all with probability prod (1 - x_g).  An interval that
 * changes meanwhile (a CPU of the group going idle or busy) adds its share
 * at the new rate.
 */
static double periodic_survive(const struct ir_state *s, uint64_t now)
{
	double dt = now > s->now ? (double)(now - s->now) : 0, surv = 1;

	for (int g = 0; g < s->nr_grps; g++) {
		double x = s->grp_x[g] + dt * grp_rate(s, g);

		surv *= x >= 1 ? 0 : 1 - x;
	}
	return surv;
}

/*
 * rd->overload now, from the top-level rewrites since the last rq left 2:
 *  - periodic and NOHZ idle balances (periodic_survive()): an assumption
 *    standing for tick times the trace does not show; the flag reads clear
 *    from when one is more likely than not (survival < 1/2), a time, not a
 *    chance;
 *  - probed newidle walks: with NI_RANDOM a die decides whether the top
 *    level is balanced, a chance no event shows.  The flag survives them
 *    with probability exp(-sum of -ln(1 - p)), the product of (1 - p).
 * ir_state_overload_p() is the probability the flag is set; the flag reads
 * set when that is at least 1/2.
 */
static double overload_walks(const struct ir_state *s)
{
	return s->walk_r + walks_pending(s);
}

double ir_state_overload_p(const struct ir_state *s, uint64_t now)
{
	if (!s->rd_overload)
		return 0;
	if (s->nr_overloaded)
		return 1;
	return periodic_survive(s, now) < 0.5 ? 0 : exp(-overload_walks(s));
}

bool ir_state_overload(const struct ir_state *s, uint64_t now)
{
	return ir_state_overload_p(s, now) >= 0.5;
}

/* Why ir_state_overload() says what it says at now. */
static enum ir_overload_why overload_why(const struct ir_state *s, uint64_t now)
{
	if (!s->rd_overload)
		return s->cleared_by;
	if (s->nr_overloaded)
		return IR_OVL_RQ_AT_2;
	if (ir_state_overload(s, now))
		return IR_OVL_KEPT;
	return periodic_survive(s, now) < 0.5 ? IR_OVL_CLEARED_PERIODIC : IR_OVL_CLEARED_WALK;
}

/* 4.15 update_avg(): avg += (sample - avg) >> 3; v5.x+: diff / 8. */
static void update_avg(uint64_t *avg, uint64_t sample, bool shift)
{
	int64_t diff = (int64_t)sample - (int64_t)*avg;

	*avg += (uint64_t)(shift ? diff >> 3 : diff / 8);
}

/* ------------------------------------------------------- newidle points */

/* n runqueue snapshots, each up to its nr_tasks: the window of
 * IR_SNAP_TASKS is mostly empty, and no reader looks past nr_tasks. */
static void snaps_copy(struct ir_rq_snap *dst, const struct ir_rq_snap *src, int n)
{
	for (int o = 0; o < n; o++)
		memcpy(&dst[o], &src[o], offsetof(struct ir_rq_snap, task) +
		       (size_t)src[o].nr_tasks * sizeof(src[o].task[0]));
}

/* Each level's runqueues: the entry snapshot patched up to its time
 * (lookahead.h), in the scratch every policy reads during the callback. */
static void la_levels(struct ir_state *s, struct open_point *op)
{
	struct ir_point *pt = &op->pt;
	const struct ir_rq_snap *prev = pt->rq;
	int done = 0;

	for (int l = 0; l < op->la->nr_levels && l < IR_MAX_LEVELS; l++) {
		struct ir_rq_snap *out = &s->la_snap[(size_t)l * (size_t)s->nr_cpus];

		pt->rq_level_ts[l] = op->la->level_ts[l];
		if (done < op->la->n && op->la->rec[done].ts <= op->la->level_ts[l]) {
			snaps_copy(out, prev, s->nr_cpus);
			done = ir_la_apply(op->la, l, done, out, s->nr_cpus);
			prev = out;
		}
		pt->rq_level[l] = prev;
	}
}

static void deliver(struct ir_state *s, struct open_point *op)
{
	if (op->la && op->la->nr_levels > 0 && op->pt.rq)
		la_levels(s, op);
	op->active = false;
	/* op is some CPU's: &s->cpu[c].op */
	set_del(&s->open, (int)(((const char *)op - (const char *)&s->cpu[0].op) / (ptrdiff_t)sizeof(struct cpu)));
	s->on_point(s->arg, &op->pt);
}

static void unwatch(struct ir_state *s, struct open_point *op)
{
	for (int l = 0; l < op->pt.nr_levels; l++) {
		struct task *t;

		if (op->pt.ring[l].pid < 0)
			continue;
		t = task_find(s, op->pt.ring[l].pid);
		if (t && t->watch)
			t->watch--;
	}
}

/* Close c's open point at end (the CPU's idle end, or a bound). */
static void close_point(struct ir_state *s, int c, uint64_t end)
{
	struct open_point *op = &s->cpu[c].op;
	struct ir_point *pt = &op->pt;
	uint64_t span = end > pt->ts ? end - pt->ts : 0;

	if (!op->active)
		return;
	/* the walk's window: a task arriving here ends it (nr_running > 0) */
	if (pt->kind == IR_PT_LATE)
		pt->arrival_ns = pt->ts > pt->rq_ts ? pt->ts - pt->rq_ts : 1;
	else if (op->arrival_ts)
		pt->arrival_ns = op->arrival_ts > pt->rq_ts ? op->arrival_ts - pt->rq_ts : 1;
	if (pt->kind == IR_PT_PULLED) {
		s->cpu[pt->pulled_from].pulled_watchers--;
		pt->idle_ns = span;
		for (int l = 0; l < pt->nr_levels; l++)
			if (pt->ring[l].pid >= 0)
				pt->ring[l].gain_ns = span;
	} else {
		pt->idle_ns = pt->kind == IR_PT_IDLE ? span : 0;
		for (int l = 0; l < pt->nr_levels; l++) {
			uint64_t w;

			if (pt->ring[l].pid < 0)
				continue;
			w = op->ran[l] && op->ran[l] < end ? op->ran[l] - pt->ts : span;
			pt->ring[l].gain_ns = w < pt->idle_ns ? w : pt->idle_ns;
		}
	}
	unwatch(s, op);
	deliver(s, op);
}

static int ring_of(const struct ir_state *s, int c, int o)
{
	if (!s->rings.ring)
		return o == c ? IR_NO_LEVEL : 0;
	return s->rings.ring[(size_t)c * (size_t)s->nr_cpus + (size_t)o];
}

static int nr_levels_of(const struct ir_state *s, int c)
{
	return s->rings.nr_levels ? s->rings.nr_levels[c] : 1;
}

static bool pullable(const struct ir_state *s, const struct task *t, uint64_t now)
{
	if (t->pinned || t->rt)
		return false;
	/* task_hot(): exec_start within sysctl_sched_migration_cost */
	if (t->last_ran && now - t->last_ran < s->p.sched_migration_cost)
		return false;
	return true;
}

/* Best pullable waiting task per ring of c's domains (SPEC 7). */
static void find_candidates(struct ir_state *s, int c, struct ir_point *pt, uint64_t now)
{
	pt->nr_levels = nr_levels_of(s, c);
	if (pt->nr_levels > IR_MAX_LEVELS)
		pt->nr_levels = IR_MAX_LEVELS;
	for (int l = 0; l < IR_MAX_LEVELS; l++)
		pt->ring[l] = (struct ir_cand){ .pid = -1, .cpu = -1 };
	for (int i = 0; i < s->queued.n; i++) {
		int o = s->queued.id[i];
		struct cpu *oc = &s->cpu[o];
		struct task *best = NULL;
		unsigned nr;
		int l;

		if (o == c || !oc->nr_queued || (nr = nr_running(s, o)) < 2)
			continue;
		l = ring_of(s, c, o);
		if (l == IR_NO_LEVEL || l >= pt->nr_levels)
			continue;
		if (pt->ring[l].pid >= 0 && (pt->ring[l].src_nr_running > nr ||
					     (pt->ring[l].src_nr_running == nr && pt->ring[l].cpu < o)))
			continue;	/* busiest CPU wins; ties go to the lower id */
		for (struct task *t = oc->qhead; t; t = t->qnext)
			if (pullable(s, t, now) && (!best || t->enq_ts < best->enq_ts))
				best = t;
		if (best)
			pt->ring[l] = (struct ir_cand){ .pid = best->pid, .cpu = o, .src_nr_running = nr };
	}
}

static void watch_candidates(struct ir_state *s, struct open_point *op)
{
	for (int l = 0; l < op->pt.nr_levels; l++) {
		struct task *t;

		op->ran[l] = 0;
		if (op->pt.ring[l].pid >= 0 && (t = task_find(s, op->pt.ring[l].pid)))
			t->watch++;
	}
}

/* A watched task runs: its wait ends for the points that hold it. */
static void candidate_ran(struct ir_state *s, int32_t pid, uint64_t ts)
{
	for (int i = 0; i < s->open.n; i++) {
		struct open_point *op = &s->cpu[s->open.id[i]].op;

		if (!op->active)
			continue;
		for (int l = 0; l < op->pt.nr_levels; l++)
			if (op->pt.ring[l].pid == pid && !op->ran[l])
				op->ran[l] = ts;
	}
}

/* PULLED points end at the first arrival on their CPU. */
static void arrival(struct ir_state *s, int c, uint64_t ts)
{
	struct open_point *op = &s->cpu[c].op;

	if (op->active && op->pt.kind == IR_PT_PULLED)
		close_point(s, c, ts);
}

/* ------------------------------------------------------ migrations */

static void count_migration(struct ir_state *s, enum ir_mig_cause cause)
{
	s->obs.mig_by_cause[cause]++;
}

/* Settle c's pending dest==c migrations: those from `since` on were newidle
 * pulls if newidle (a blocking switch or probed call follows), the rest
 * periodic.  The newidle ones stay in pend, in order, for the point. */
static int settle_pending(struct ir_state *s, int c, bool newidle, uint64_t since)
{
	struct cpu *cp = &s->cpu[c];
	int n = 0;

	for (int i = 0; i < cp->nr_pend; i++) {
		bool ni = newidle && cp->pend[i].ts >= since;

		count_migration(s, ni ? IR_MIG_NEWIDLE : IR_MIG_PERIODIC);
		if (ni)
			cp->pend[n++] = cp->pend[i];
	}
	cp->nr_pend = n;
	return n;
}

static void settle_stopper(struct ir_state *s, struct task *t, bool exec)
{
	if (!t->stopper_pending)
		return;
	t->stopper_pending = 0;
	count_migration(s, exec ? IR_MIG_EXEC : IR_MIG_ACTIVE);
}

/*
 * A task's PELT sums move with it (v6.1): migrate_task_rq_fair() ->
 * remove_entity_load_avg() takes its util_avg and load_avg (= runnable_avg
 * for nice 0) out of the source CPU's cfs_rq (dequeue_entity()'s DO_DETACH
 * for a queued task), and the enqueue on the destination attaches them
 * (update_load_avg() with DO_ATTACH: last_update_time 0).
 */
static void pelt_move(struct ir_state *s, const struct task *t, int from, int to)
{
	double u = pelt(t->util, t->util_ts, s->now, false), l = task_load_now(t, s->now);
	int cpus[2] = { from, to };

	for (int i = 0; i < 2; i++) {
		struct cpu *cp = &s->cpu[cpus[i]];

		cpu_util_update(s, cpus[i]);
		cp->runnable = pelt_runnable(cp->runnable, cp->runnable_ts, s->now, nr_running(s, cpus[i]));
		cp->runnable_ts = s->now;
	}
	s->cpu[from].util = s->cpu[from].util > u ? s->cpu[from].util - u : 0;
	s->cpu[from].runnable = s->cpu[from].runnable > l ? s->cpu[from].runnable - l : 0;
	s->cpu[to].util += u;
	s->cpu[to].runnable += l;
}

static void on_migrate(struct ir_state *s, const struct ir_event *ev)
{
	int c = ev->cpu, orig = ev->mig.orig_cpu, dest = ev->mig.dest_cpu;
	struct cpu *cp = &s->cpu[c];
	struct task *t;
	struct task *cur;
	enum ir_mig_cause cause;
	bool defer = false;

	if (orig == dest)
		return;	/* set_task_cpu() emits it unconditionally */
	if (orig < 0 || dest < 0 || orig >= s->nr_cpus || dest >= s->nr_cpus) {
		s->obs.anomalies[IR_ANOM_CPU_OUT_OF_RANGE]++;
		return;
	}
	t = task_get(s, ev->mig.pid);
	if (!t)
		return;
	settle_stopper(s, t, false);	/* moved again without an exec: that was active */
	s->obs.migrations++;
	/* a stopper migration still awaiting its exec: the task moved on, so it was active */
	settle_stopper(s, t, false);
	if (ev->mig.prio >= 0 && ev->mig.prio < 100)
		t->rt = 1;
	cur = cp->curr ? task_find(s, cp->curr) : NULL;

	if (t->rt) {
		cause = IR_MIG_RT;
	} else if (t->state == T_SLEEPING || t->state == T_NEW ||
		   (t->waking_cpu == c && t->waking_ts >= cp->last_switch_ts && t->waking_ts)) {
		cause = IR_MIG_WAKEUP;	/* select_task_rq() in try_to_wake_up() */
	} else if (cur && cur->stopper && orig == c) {
		if (t->numa_pending) {
			cause = IR_MIG_NUMA;
		} else {
			t->stopper_pending = 1;	/* exec if sched_process_exec follows */
			defer = true;
			cause = IR_MIG_ACTIVE;
		}
	} else if (dest == c) {
		if ((cp->curr != 0 || cp->reentry) && cp->nr_pend < MAX_PEND_MIG) {
			cp->pend[cp->nr_pend].pid = t->pid;
			cp->pend[cp->nr_pend].orig = orig;
			cp->pend[cp->nr_pend].ts = ev->ts;
			cp->pend[cp->nr_pend].last_ran = t->last_ran;
			cp->nr_pend++;
			defer = true;
		}
		cause = IR_MIG_PERIODIC;
	} else if (cp->curr == 0) {
		cause = IR_MIG_NOHZ;
	} else {
		cause = IR_MIG_UNKNOWN;
	}
	t->numa_pending = 0;
	if (!defer)
		count_migration(s, cause);
	/* migrate_task_rq_fair() (v6.1; set_task_cpu() for every move of a
	 * fair task): "We have migrated, no longer consider this task hot",
	 * se->exec_start = 0 until it runs again */
	if (!t->rt)
		t->last_ran = 0;
	if (!t->rt && t->state != T_RUNNING)
		pelt_move(s, t, orig, dest);

	/* move it */
	if (t->state == T_QUEUED) {
		dequeue(s, t);
		enqueue(s, dest, t, t->enq_ts);
		arrival(s, dest, ev->ts);
	} else if (t->state == T_RUNNING) {
		/* a running task cannot move: our view missed its switch-out */
		t->cpu = dest;
	} else {
		t->cpu = dest;
	}
	t->waking_ts = 0;
}

/* --------------------------------------------------------- first sight */

/* A CPU's state before its first event is inferred from that event. */
static void first_sight(struct ir_state *s, const struct ir_event *ev)
{
	struct cpu *cp = &s->cpu[ev->cpu];
	int32_t pid = ev->type == IR_EV_SWITCH ? ev->sw.prev_pid : ev->common_pid;

	cp->seen = true;
	cp->since = s->obs.window_start;
	cp->curr = 0;
	idle_count(s, ev->cpu, true);
	/* Idle since the window's start (its idle time is counted from there),
	 * so idle while another CPU had a waiting task all that time too: the
	 * waiting time advance() integrated before this CPU was seen. */
	if (pid <= 0)
		s->obs.idle_while_waiting_ns += s->waiting_ns;
	if (pid > 0) {
		struct task *t = task_get(s, pid);

		if (t) {
			if (t->state == T_QUEUED)
				dequeue(s, t);
			t->state = T_RUNNING;
			t->cpu = ev->cpu;
			set_curr(s, ev->cpu, pid);
		}
	}
}

/* The CPU leaves idle (a switch from swapper, or a missed one). */
static void idle_exit(struct ir_state *s, int c, uint64_t ts)
{
	struct cpu *cp = &s->cpu[c];

	s->obs.cpu[c].idle_ns += ts - cp->since;
	cp->since = ts;
	if (cp->op.active && cp->op.pt.kind == IR_PT_IDLE)
		close_point(s, c, ts);
}

/* The CPU was idle from ts on, though its switch into idle was not recorded:
 * busy up to the first evidence, idle from it (SPEC 9, symmetric repair). */
static void missing_idle_entry(struct ir_state *s, int c, uint64_t ts)
{
	struct cpu *cp = &s->cpu[c];
	struct task *old = task_find(s, cp->curr);

	s->obs.anomalies[IR_ANOM_MISSING_IDLE_ENTRY]++;
	if (s->tl)
		ir_timeline_mark(s->tl, IR_ANOM_MISSING_IDLE_ENTRY, c, ts);
	s->obs.cpu[c].busy_ns += ts - cp->since;
	if (s->tl)
		ir_timeline_busy(s->tl, c, cp->since, ts);
	cp->since = ts;	/* idle_entries counts recorded switches; this one is an anomaly */
	if (old && old->state == T_RUNNING && old->cpu == c)
		old->state = T_UNKNOWN;
	set_curr(s, c, 0);
}

static void run_task(struct ir_state *s, int c, struct task *t, uint64_t ts)
{
	t->util = (float)pelt(t->util, t->util_ts, ts, false);
	t->util_ts = ts;
	if (!t->load_runnable)
		task_load_set(t, s->now, true);
	if (t->state == T_QUEUED) {
		if (t->cpu != c)
			s->obs.anomalies[IR_ANOM_NEXT_NOT_RUNNABLE]++;
		dequeue(s, t);
	} else if (t->state == T_RUNNING && t->cpu != c) {
		/* still "running" elsewhere: that CPU's switch into idle was
		 * missed; this is the first evidence of it (SPEC 9) */
		if (s->cpu[t->cpu].curr == t->pid)
			missing_idle_entry(s, t->cpu, ts);
		else
			s->obs.anomalies[IR_ANOM_NEXT_NOT_RUNNABLE]++;
	} else if (t->state == T_SLEEPING || t->state == T_DEAD) {
		s->obs.anomalies[IR_ANOM_NEXT_NOT_RUNNABLE]++;
	}
	t->state = T_RUNNING;
	t->cpu = c;
	if (t->watch)
		candidate_ran(s, t->pid, ts);
	/* no settle_stopper() here: after a sched_exec() balance the task runs
	 * on its new CPU before it emits sched_process_exec */
}

/* An event from a task on a CPU we think idle: the switch out of idle was
 * not recorded (this machine kind's CPU 1 never records it). */
static void missing_idle_exit(struct ir_state *s, const struct ir_event *ev)
{
	struct task *t = task_get(s, ev->common_pid);

	s->obs.anomalies[IR_ANOM_MISSING_IDLE_EXIT]++;
	if (s->tl)
		ir_timeline_mark(s->tl, IR_ANOM_MISSING_IDLE_EXIT, ev->cpu, ev->ts);
	idle_exit(s, ev->cpu, ev->ts);
	if (t) {
		run_task(s, ev->cpu, t, ev->ts);
		set_curr(s, ev->cpu, t->pid);
	}
}

/* ----------------------------------------------------------- switch */

static bool ttwu_pending_rule(const struct ir_state *s)
{
	/* newidle_balance(): "if (this_rq->ttwu_pending) return 0;" before
	 * idle_stamp is set, since v5.13 (e5e678e4fea2) */
	return ir_kver_at_least(s->p.kernel_major, s->p.kernel_minor, 5, 13);
}

static void snap_task(struct ir_snap_task *st, const struct task *t, int32_t prio, uint64_t now)
{
	st->pid = t->pid;
	st->prio = prio;
	st->exec_start = t->last_ran;
	st->pinned = t->pinned;
	st->util_est = task_ue(t);
	st->load = task_load_now(t, now);
}

/* The runqueues now, as c's newidle call finds them: c itself empty. */
static void snap_fill(struct ir_state *s, int c, struct ir_rq_snap *snap)
{
	for (int o = 0; o < s->nr_cpus; o++) {
		struct ir_rq_snap *r = &snap[o];
		const struct task *t;

		/* a CPU inside its own newidle call has prev dequeued
		 * (__schedule(): deactivate_task() before pick_next_task()),
		 * though rq->curr is still prev (so not idle_cpu()): its
		 * nr_running and util_est are its arrivals' alone (v6.1) */
		unsigned nr = rq_nr_running(s, o);
		bool prev_out = s->cpu[o].prev_out && s->cpu[o].curr;

		r->nr_running = (uint16_t)(nr > 0xffff ? 0xffff : nr);
		r->curr_idle = s->cpu[o].curr == 0;
		r->idle_since = r->curr_idle ? s->cpu[o].since : 0;
		r->util = (float)pelt(s->cpu[o].util, s->cpu[o].util_ts, s->now, s->cpu[o].curr != 0);
		r->runnable = (float)pelt_runnable(s->cpu[o].runnable, s->cpu[o].runnable_ts, s->now,
						   nr_running(s, o));
		r->util_est = (float)s->cpu[o].ue_q;
		if (s->cpu[o].curr > 0 && !prev_out) {
			const struct task *ct = task_find(s, s->cpu[o].curr);

			if (ct && !ct->rt)
				r->util_est += task_ue(ct);	/* curr stays enqueued */
		}
		r->nr_tasks = 0;
		for (t = s->cpu[o].qtail; t && r->nr_tasks < IR_SNAP_TASKS; t = t->qprev)
			if (!t->rt) {
				snap_task(&r->task[r->nr_tasks], t, -1, s->now);
				r->task[r->nr_tasks++].util = (float)pelt(t->util, t->util_ts, s->now, false);
			}
	}
	/* this CPU: prev is dequeued, nothing queued yet */
	snap[c].nr_running = 0;
	snap[c].nr_tasks = 0;
	snap[c].curr_idle = true;
	snap[c].idle_since = s->now;
	snap[c].util = (float)pelt(s->cpu[c].util, s->cpu[c].util_ts, s->now, true);
	snap[c].util_est = 0;	/* prev dequeued: util_est_dequeue() took its estimate */
}

/* The runqueues at c's newidle entry (struct ir_rq_snap): in probed mode as
 * they were at the probe (newidle entry precedes the switch by tens of us,
 * SPEC 8, and other CPUs change meanwhile); else now, with what this call
 * pulled put back on its source rq, at the tail. */
static void snapshot(struct ir_state *s, int c, struct open_point *op, bool at_probe)
{
	struct cpu *cp = &s->cpu[c];

	if (!op->snap)
		return;
	op->pt.rq = op->snap;
	op->pt.nr_rq = s->nr_cpus;
	op->pt.rq_ts = s->now;
	if (op->la)
		op->la->nr_levels = 0;
	if (at_probe && op->probe_snap) {
		snaps_copy(op->snap, op->probe_snap, s->nr_cpus);
		op->pt.rq_ts = cp->probe_ts;
		if (op->la) {
			/* the call ended before its switch (now) or at its exit probe */
			uint64_t dur = cp->probe_ret >= 0 && cp->probe_exit_ts > cp->probe_ts ?
				cp->probe_exit_ts - cp->probe_ts : s->now - cp->probe_ts;
			unsigned share = ir_la_share(&s->la, s->p.lookahead_share);
			int64_t cost[IR_MAX_LEVELS];

			for (int l = 0; l < IR_MAX_LEVELS; l++)
				cost[l] = l < 3 ? cp->probe.sd_max_newidle_lb_cost[l] : -1;
			op->la->nr_levels = op->pt.nr_levels;
			ir_la_level_times(cp->probe_ts, cost, op->pt.nr_levels, dur * share / 100,
					  s->p.lookahead_max_ns, op->la->level_ts);
			ir_la_capture(&s->la, op->la, cp->probe_seq, c);
			if (op->la->truncated)
				s->obs.lookahead_truncated++;
		}
		return;
	}
	snap_fill(s, c, op->snap);
	/* what this call pulled was still on its source rq, at the tail */
	for (int i = 0; i < cp->nr_pend; i++) {
		int o = cp->pend[i].orig;
		struct ir_rq_snap *r = &op->snap[o];
		const struct task *t = task_find(s, cp->pend[i].pid);

		if (!t)
			continue;
		if (r->nr_running < 0xffff)
			r->nr_running++;
		r->curr_idle = false;
		memmove(&r->task[1], &r->task[0], sizeof(r->task[0]) *
			(size_t)(r->nr_tasks < IR_SNAP_TASKS ? r->nr_tasks : IR_SNAP_TASKS - 1));
		snap_task(&r->task[0], t, -1, s->now);
		r->task[0].exec_start = cp->pend[i].last_ran;	/* before the move */
		r->task[0].util = (float)pelt(t->util, t->util_ts, s->now, false);
		if (!t->rt) {
			r->util_est += task_ue(t);
			/* and its PELT sums, which pelt_move() took to this CPU
			 * at the pull (after load_balance() had looked) */
			r->util += r->task[0].util;
			r->runnable += (float)r->task[0].load;
			op->snap[c].util = op->snap[c].util > r->task[0].util ?
				op->snap[c].util - r->task[0].util : 0;
			op->snap[c].runnable = op->snap[c].runnable > r->task[0].load ?
				op->snap[c].runnable - (float)r->task[0].load : 0;
		}
		if (r->nr_tasks < IR_SNAP_TASKS)
			r->nr_tasks++;
	}
}

/* Open c's newidle point at ts (the blocking switch, or a probed re-entry). */
static void open_point(struct ir_state *s, int c, uint64_t ts, enum ir_point_kind kind)
{
	struct cpu *cp = &s->cpu[c];
	struct open_point *op = &cp->op;
	struct ir_point *pt = &op->pt;
	bool probed = false;

	if (op->active)
		close_point(s, c, ts);
	memset(pt, 0, sizeof(*pt));
	op->probe_ts = 0;
	pt->ts = ts;
	pt->cpu = c;
	pt->kind = kind;
	pt->avg_idle = cp->avg_idle;
	pt->max_idle_balance_cost = cp->max_idle_balance_cost;
	pt->overload = ir_state_overload(s, ts);
	pt->overload_p = ir_state_overload_p(s, ts);
	pt->overload_why = overload_why(s, ts);
	pt->pulled_pid = pt->pulled_from = -1;
	pt->probe_ret = -1;
	find_candidates(s, c, pt, ts);
	snapshot(s, c, op, cp->probe_valid && s->p.probe_seed);
	if (kind == IR_PT_PULLED) {
		int l = ring_of(s, c, cp->pend[0].orig);

		pt->pulled_pid = cp->pend[0].pid;
		pt->pulled_from = cp->pend[0].orig;
		/* the kernel took this one: it wins its own ring and those above
		 * whose candidate sits no nearer */
		for (int k = l; l != IR_NO_LEVEL && k < pt->nr_levels; k++)
			if (pt->ring[k].pid < 0 || k == l)
				pt->ring[k] = (struct ir_cand){ .pid = pt->pulled_pid, .cpu = pt->pulled_from,
					.src_nr_running = nr_running(s, pt->pulled_from) + 1 };
		s->cpu[pt->pulled_from].pulled_watchers++;
	}
	if (cp->probe_valid) {
		pt->has_probe = true;
		pt->probe = cp->probe;
		pt->probe_ret = cp->probe_ret;
		if (cp->probe_ret >= 0 && cp->probe_exit_ts > cp->probe_ts)
			pt->probe_dur = cp->probe_exit_ts - cp->probe_ts;
		cp->probe_valid = false;
		s->obs.probe_matched++;
		probed = s->p.probe_seed;
		if (probed) {	/* the call read rd->overload at its entry, before its own rewrite */
			op->probe_ts = cp->probe_ts;
			pt->overload = cp->probe_overload;
			pt->overload_p = cp->probe_overload_p;
			pt->overload_why = cp->probe_ovl_why;
		}
	}
	if (probed && pt->probe.ttwu_pending >= 0)
		pt->ttwu_pending = pt->probe.ttwu_pending != 0 && ttwu_pending_rule(s);
	if (pt->ttwu_pending)
		s->obs.ttwu_pending_points++;
	s->obs.newidle_points++;
	s->obs.cpu[c].newidle_points++;
	if (s->tl)
		ir_timeline_point(s->tl, c, ts, kind == IR_PT_PULLED);
	if (kind == IR_PT_PULLED) {
		s->obs.newidle_pulls++;
		s->obs.cpu[c].newidle_pulls++;
	}
	op->active = true;
	set_add(&s->open, c);
	op->arrival_ts = 0;
	watch_candidates(s, op);
	/* sched_balance_newidle(): idle_stamp set on entry (not when ttwu_pending),
	 * cleared if pulled_task */
	cp->stamp_before = cp->idle_stamp;
	cp->stamp_set = 0;
	cp->point_prev_last = cp->last_own_ts;
	if (!pt->ttwu_pending) {
		cp->idle_stamp = 0;
		if (kind == IR_PT_IDLE) {
			/* rq_clock at newidle entry, which precedes the switch (SPEC 8:
			 * a median 33-44 us in the vm-numa guest) and follows prev's
			 * last event here; a probe gives it exactly */
			uint64_t lead = ts > s->p.newidle_lead_ns ? ts - s->p.newidle_lead_ns : 0;

			cp->idle_stamp = cp->last_own_ts > lead ? cp->last_own_ts : lead;
			if (probed)
				cp->idle_stamp = cp->probe_ts;
			cp->stamp_set = cp->idle_stamp;
		}
	}
	if (kind == IR_PT_LATE)
		close_point(s, c, ts);
}

/* Is a task queued on c when prev blocks that c did not pull itself from
 * `since` on?  Such a task was queued when pick_next_task() ran: the rq lock
 * is held from deactivate_task(prev) on, so nothing arrives before the
 * switch except inside newidle's own lock drop (SPEC 9).
 *
 * Hot: runs on every blocking switch, and under hackbench dozens of tasks
 * wait per CPU; the oldest is rarely a pull, so this returns at once. */
static bool has_unpulled_queued(const struct ir_state *s, int c, uint64_t since)
{
	const struct cpu *cp = &s->cpu[c];

	for (const struct task *t = cp->qtail; t; t = t->qprev) {
		bool pulled = false;

		for (int i = 0; i < cp->nr_pend && !pulled; i++)
			pulled = cp->pend[i].pid == t->pid && cp->pend[i].ts >= since;
		if (!pulled)
			return true;
	}
	return false;
}

/* c itself pulled pid since its last event of another kind. */
static bool pending_pull(const struct cpu *cp, int32_t pid)
{
	for (int i = 0; i < cp->nr_pend; i++)
		if (cp->pend[i].pid == pid)
			return true;
	return false;
}

/* With probes: a newidle call by prev on c is under way (its entry came
 * after prev's switch-in). */
static bool probed_call(const struct ir_state *s, const struct cpu *cp, int32_t prev)
{
	return s->p.probe_seed && cp->probe_valid && !cp->reentry && cp->probe_pid == prev &&
		cp->probe_ts >= cp->last_switch_ts;
}

static void on_switch(struct ir_state *s, const struct ir_event *ev)
{
	int c = ev->cpu;
	struct cpu *cp = &s->cpu[c];
	int32_t prev = ev->sw.prev_pid, next = ev->sw.next_pid;
	bool blocked = !ir_state_runnable(ev->sw.prev_state);
	struct task *pt = NULL, *nt;
	bool point = false, probed;
	uint64_t since = 0;
	int pulls;

	if (prev != cp->curr) {
		s->obs.anomalies[IR_ANOM_PREV_NOT_CURRENT]++;
		if (cp->curr) {
			struct task *old = task_find(s, cp->curr);

			if (old && old->state == T_RUNNING && old->cpu == c)
				old->state = T_UNKNOWN;
		} else {
			idle_exit(s, c, ev->ts);
		}
		set_curr(s, c, prev);
	}
	if (prev) {
		pt = task_get(s, prev);
		if (pt) {
			if (pt->state == T_QUEUED)
				dequeue(s, pt);
			pt->state = T_RUNNING;
			pt->cpu = c;
			task_comm(pt, ev->sw.prev_comm, ev->sw.prev_comm_len);
			if (ev->sw.prev_prio >= 0 && ev->sw.prev_prio < 100)
				pt->rt = 1;
		}
	}

	/* A newidle point: prev blocks with nothing else runnable here but what
	 * c itself pulls; those pulls were newidle pulls (SPEC 5 rule 3, SPEC 9),
	 * otherwise periodic.  A probed call settles it: the kernel did call
	 * newidle, and pulls before its entry were periodic. */
	/* pick_next_task() takes the idle task only when no class has a task
	 * (v4.15-v7.0 __pick_next_task()): a task still queued on c in our
	 * state left it by events we did not see (this machine kind's CPU 1
	 * loses its wake-ups from idle).  Counted, and dropped from the queue. */
	if (next == 0)
		while (cp->qtail) {
			s->obs.anomalies[IR_ANOM_QUEUED_NOT_PICKED]++;
			if (s->tl)
				ir_timeline_mark(s->tl, IR_ANOM_QUEUED_NOT_PICKED, c, ev->ts);
			dequeue(s, cp->qtail);
		}
	probed = prev && blocked && probed_call(s, cp, prev);
	if (probed) {
		since = cp->probe_ts;
		point = true;
	} else if (prev && blocked) {
		/* SPEC 9: nothing lands before the blocking switch but what c
		 * pulls itself, so a task switched in that c did not pull was
		 * queued when pick_next_task() ran (its arrival not seen): no
		 * newidle balance ran */
		point = !has_unpulled_queued(s, c, 0) && (next == 0 || pending_pull(cp, next));
	}
	/* the idle task switched in: nothing was pulled, whatever moved here
	 * before was a periodic pull that left again */
	pulls = settle_pending(s, c, point && next != 0, since);

	/* prev leaves the CPU */
	set_curr(s, c, 0);
	if (pt) {
		pt->last_ran = ev->ts;
		pt->util = (float)pelt(pt->util, pt->util_ts, ev->ts, true);
		pt->util_ts = ev->ts;
		if (!blocked) {
			enqueue(s, c, pt, ev->ts);
		} else {
			pt->state = (ev->sw.prev_state & (IR_EXIT_DEAD | IR_EXIT_ZOMBIE)) ? T_DEAD : T_SLEEPING;
			/* dequeue_task_fair(): util_est_update() for a task going to sleep */
			ir_util_est_update(&pt->ue_ewma, &pt->ue_enq, pt->util);
			task_load_set(pt, ev->ts, false);
			settle_stopper(s, pt, false);
			if (pt->state == T_DEAD)
				task_died(s, pt);
		}
	}
	if (point) {
		enum ir_point_kind kind = pulls ? IR_PT_PULLED : next ? IR_PT_LATE : IR_PT_IDLE;

		open_point(s, c, ev->ts, kind);
	}
	cp->nr_pend = 0;
	cp->probe_valid = false;

	if (prev == 0 && next != 0)
		idle_exit(s, c, ev->ts);
	else if (prev != 0 && next == 0) {
		s->obs.cpu[c].busy_ns += ev->ts - cp->since;
		if (s->tl)
			ir_timeline_busy(s->tl, c, cp->since, ev->ts);
		cp->since = ev->ts;
	}
	if (next == 0) {
		s->obs.cpu[c].idle_entries++;
	} else {
		nt = task_get(s, next);
		if (nt) {
			task_comm(nt, ev->sw.next_comm, ev->sw.next_comm_len);
			if (ev->sw.next_prio >= 0 && ev->sw.next_prio < 100)
				nt->rt = 1;
			run_task(s, c, nt, ev->ts);
		}
	}
	set_curr(s, c, next);
	cp->last_switch_ts = ev->ts;
	cp->last_own_ts = ev->ts;
	if (cp->pulled_watchers) {
		int n = 0;

		for (int i = 0; i < s->open.n; i++) {
			int o = s->open.id[i];
			struct open_point *op = &s->cpu[o].op;

			if (op->active && op->pt.kind == IR_PT_PULLED && op->pt.pulled_from == c)
				s->scratch[n++] = o;
		}
		qsort(s->scratch, (size_t)n, sizeof(*s->scratch), cmp_int);	/* in CPU order, as before */
		for (int i = 0; i < n; i++)
			close_point(s, s->scratch[i], ev->ts);
	}
}

/* ----------------------------------------------------------- wakeups */

/*
 * A wake-list wakeup (ttwu_queue_wakelist(): rq->ttwu_pending set by the
 * waker, the task enqueued by sched_ttwu_pending() on the target): its
 * sched_waking comes from another CPU before c's blocking switch, its
 * sched_wakeup from c's idle task after it.  Then ttwu_pending was set at
 * that newidle entry: no idle_stamp was taken (SPEC 9), and this sample
 * measures from the stamp that was there before.  A probe that carries the
 * flag has already said so.
 */
static void wake_list_wakeup(struct ir_state *s, const struct ir_event *ev, struct task *t)
{
	int c = ev->wake.target_cpu;
	struct cpu *cp = &s->cpu[c];
	struct ir_point *pt = &cp->op.pt;
	uint64_t entry;

	if (ev->common_pid != 0 || ev->cpu != c || cp->curr != 0 || !cp->op.active ||
	    pt->kind != IR_PT_IDLE || pt->ttwu_pending || !t->wl_waking_ts ||
	    t->wl_waking_cpu == c || !ttwu_pending_rule(s))
		return;
	if (pt->has_probe && s->p.probe_seed && pt->probe.ttwu_pending >= 0)
		return;
	/* the waking must precede newidle entry: without a probe, the only
	 * sure bound is prev's last event before it */
	entry = cp->point_prev_last;
	if (t->wl_waking_ts >= entry || cp->idle_stamp != cp->stamp_set)
		return;
	pt->ttwu_pending = true;
	cp->idle_stamp = cp->stamp_before;
	cp->stamp_set = 0;
	s->obs.ttwu_pending_points++;
}

static void on_wakeup(struct ir_state *s, const struct ir_event *ev)
{
	int tc = ev->wake.target_cpu;
	struct task *t;

	if (tc < 0 || tc >= s->nr_cpus) {
		s->obs.anomalies[IR_ANOM_CPU_OUT_OF_RANGE]++;
		return;
	}
	t = task_get(s, ev->wake.pid);
	if (!t)
		return;
	if (ev->wake.prio >= 0 && ev->wake.prio < 100)
		t->rt = 1;
	if (ev->type == IR_EV_WAKEUP_NEW) {
		if (t->state != T_NEW && t->state != T_UNKNOWN && t->state != T_DEAD)
			s->obs.anomalies[IR_ANOM_PID_REUSE]++;
		if (t->state == T_QUEUED)
			dequeue(s, t);
		t->comm_known = 0;
		t->state = T_NEW;
		t->last_ran = 0;
		/* init_entity_runnable_average(): a new task starts at its weight */
		t->load = 1024;
		t->load_ts = s->now;
		t->load_runnable = false;
	}
	/* a kthread may be woken long before it first switches in: learn
	 * pinned-ness from the wakeup's comm too */
	task_comm(t, ev->wake.comm, ev->wake.comm_len);
	if (ev->type != IR_EV_WAKEUP_NEW) {
		struct cpu *cp = &s->cpu[tc];
		bool on_rq = t->state == T_QUEUED || t->state == T_RUNNING;
		bool self = t->state == T_RUNNING && t->cpu == ev->cpu && ev->common_pid == t->pid;
		bool sample;

		/* this wakeup is done: a later migration of t is not its placement */
		t->waking_ts = 0;
		wake_list_wakeup(s, ev, t);
		/* up to v6.2 ttwu_do_wakeup() samples, also from ttwu_runnable() (t
		 * still on its rq); v6.3+ only ttwu_do_activate() does (160fb0d83f20);
		 * v5.4+ wakes p == current without either (aacedf26fb76) */
		sample = !(self && ir_kver_at_least(s->p.kernel_major, s->p.kernel_minor, 5, 4)) &&
			!(on_rq && ir_kver_at_least(s->p.kernel_major, s->p.kernel_minor, 6, 3));
		if (sample && cp->idle_stamp) {
			uint64_t delta = ev->ts - cp->idle_stamp;
			uint64_t max = 2 * cp->max_idle_balance_cost;

			update_avg(&cp->avg_idle, delta, s->p.avg_idle_shift);
			if (cp->avg_idle > max)
				cp->avg_idle = max;
			cp->idle_stamp = 0;
		}
	}
	if (t->state == T_QUEUED || t->state == T_RUNNING)
		return;	/* ttwu_runnable(): already on a runqueue */
	if (t->state == T_DEAD)
		s->obs.anomalies[IR_ANOM_PID_REUSE]++;
	/* the enqueue came after ev->cpu's previous event and t's sched_waking
	 * (enqueue_backdate()); a wake-list wakeup (its sched_waking on another
	 * CPU) is enqueued by sched_ttwu_pending() on the target, in its IPI,
	 * right before this event: the target's previous event bounds the IPI's
	 * arrival, not the enqueue, so it is taken at the event */
	if (!(t->wl_waking_ts && t->wl_waking_cpu >= 0 && t->wl_waking_cpu != ev->cpu)) {
		s->enq_from = s->cpu[ev->cpu].last_ev_ts;
		if (t->wl_waking_ts > s->enq_from && t->wl_waking_ts <= ev->ts)
			s->enq_from = t->wl_waking_ts;
	}
	enqueue(s, tc, t, ev->ts);
	s->enq_from = 0;
	arrival(s, tc, ev->ts);
}

/* ------------------------------------------------------------- feed */

/*
 * A probed newidle call that balanced the top level rewrote rd->overload
 * (update_sd_lb_stats(), !env->sd->parent) from the rqs it scanned.  Its
 * walk, sched_balance_newidle() (newidle_balance() before v6.10): no early
 * bail (ttwu_pending, !overload, avg_idle < the first level's
 * max_newidle_lb_cost), then per level it stops when avg_idle < curr_cost +
 * sd->max_newidle_lb_cost, or after a level that pulled.  The probe gives
 * avg_idle and each level's cost at entry and whether the call pulled, not
 * the per-level split of curr_cost: it is taken as 0 (a lower bound), and a
 * call that pulled is not known to have reached the top.  Under NI_RANDOM
 * (33cf66d88306) the top level is balanced with probability
 * (2 + sd->newidle_ratio) / 1024: an expected rewrite of -ln(1 - p).  From
 * v5.13 a wake-list wakeup queued during the walk stops it (walk_rewrites()):
 * the walk stays pending until c shows whether one came (walk_stop()).
 */
static void walk_stop(struct ir_state *s, int c, uint64_t stop);

/*
 * The cap of avg_idle after a probed call that walked: v6.1
 * newidle_balance() ends with `if (curr_cost > this_rq->max_idle_balance_cost)
 * this_rq->max_idle_balance_cost = curr_cost`, curr_cost the levels'
 * load_balance() time from the lock drop (sched_clock_cpu() before
 * update_blocked_averages()) to the last level's end, so a wakeup after the
 * call caps avg_idle at twice that (ttwu_do_wakeup()), not at twice the
 * value the call's entry probe read.  The probe does not split the call:
 * curr_cost is taken as its duration, entry to exit (an upper bound by the
 * lock and probe overhead, microseconds).  No walk, no update: the early
 * bail (`!rd->overload`, `avg_idle < sd->max_newidle_lb_cost` at the first
 * level; v5.13+ `ttwu_pending`, which returns before) jumps past it.  The
 * next call's probe gives the kernel's value again.
 */
static void walk_cost(struct ir_state *s, int c)
{
	struct cpu *cp = &s->cpu[c];
	const struct ir_probe_entry *v = &cp->probe;

	if (!s->p.probe_seed || cp->probe_exit_ts <= cp->probe_ts || v->rd_overload <= 0 ||
	    v->ttwu_pending > 0 || v->avg_idle < 0 ||
	    (v->sd_max_newidle_lb_cost[0] >= 0 && v->avg_idle < v->sd_max_newidle_lb_cost[0]))
		return;
	if (cp->probe_exit_ts - cp->probe_ts > cp->max_idle_balance_cost)
		cp->max_idle_balance_cost = cp->probe_exit_ts - cp->probe_ts;
}

static void newidle_walk_rewrite(struct ir_state *s, int c)
{
	struct cpu *cp = &s->cpu[c];
	const struct ir_probe_entry *v = &cp->probe;
	int top = nr_levels_of(s, c) - 1;
	double p = 1.0;

	/* a call that read the flag clear did not walk: its rewrite counts all
	 * the same, since it changes nothing then (see ir_state_overload_p()) */
	if (!s->p.probe_seed || !s->rd_overload || s->nr_overloaded || cp->probe_ret != 0 ||
	    v->ttwu_pending > 0 || v->avg_idle < 0 || top < 0 || top >= 3)
		return;
	for (int l = 0; l <= top; l++)
		if (v->sd_max_newidle_lb_cost[l] < 0 || v->avg_idle < v->sd_max_newidle_lb_cost[l])
			return;
	if (s->p.ni_random && v->sd_newidle_ratio[top] >= 0)
		p = (2.0 + (double)v->sd_newidle_ratio[top]) / 1024.0;
	cp->walk_p = p;
	cp->walk_entry = cp->probe_ts;
	cp->walk_exit = cp->probe_exit_ts > cp->probe_ts ? cp->probe_exit_ts : cp->probe_ts;
	cp->walk_from = s->overload_end > cp->walk_entry ? s->overload_end : cp->walk_entry;
	cp->walk_pending = true;
	set_add(&s->walks, c);
	if (!ttwu_pending_rule(s))
		walk_stop(s, c, cp->walk_exit);	/* nothing stops it before v5.13 */
}

/* c's pending walk ends: stopped at stop by a wake-list wakeup, or at its exit. */
static void walk_stop(struct ir_state *s, int c, uint64_t stop)
{
	struct cpu *cp = &s->cpu[c];
	double r;

	if (!cp->walk_pending)
		return;
	r = walk_rewrites(cp, stop);
	cp->walk_pending = false;
	set_del(&s->walks, c);
	if (r == HUGE_VAL) {
		s->rd_overload = false;	/* no rq at 2: the scan wrote 0 */
		s->cleared_by = IR_OVL_CLEARED_WALK;
	} else {
		s->walk_r += r;
	}
}

/*
 * After a probed walk that pulled nothing, c picks its idle task and then
 * runs its wake list (sched_ttwu_pending()): a sched_wakeup emitted on c for
 * a task whose sched_waking came from another CPU during the walk was queued
 * there (ttwu_queue_wakelist(): c's rq was empty), setting ttwu_pending at
 * that sched_waking.  Any other event on c first means none came.
 */
static void walk_evidence(struct ir_state *s, const struct ir_event *ev)
{
	int c = ev->cpu;
	struct cpu *cp = &s->cpu[c];
	const struct task *t;

	if (!cp->walk_pending || ev->type == IR_EV_PROBE_EXIT)
		return;
	if (ev->type == IR_EV_SWITCH && ev->sw.next_pid == 0 && ev->sw.prev_pid != 0)
		return;	/* the switch to idle after the call */
	if (ev->type == IR_EV_WAKEUP && ev->wake.target_cpu == c &&
	    (t = task_find(s, ev->wake.pid)) && t->wl_waking_ts >= cp->walk_entry &&
	    t->wl_waking_ts < cp->walk_exit && t->wl_waking_cpu >= 0 && t->wl_waking_cpu != c) {
		walk_stop(s, c, t->wl_waking_ts);
		return;
	}
	walk_stop(s, c, cp->walk_exit);
}

static void probe_exit(struct ir_state *s, int c)
{
	struct cpu *cp = &s->cpu[c];

	if (!s->p.probe_seed)
		return;
	if (cp->reentry) {
		int pulls = settle_pending(s, c, true, cp->probe_ts);

		cp->reentry = false;
		s->obs.probe_only_points++;
		open_point(s, c, cp->probe_ts, pulls ? IR_PT_PULLED : IR_PT_IDLE);
		cp->nr_pend = 0;
	}
}

void ir_state_feed(struct ir_state *s, const struct ir_event *ev)
{
	int c = ev->cpu;
	struct cpu *cp;

	if (c < 0 || c >= s->nr_cpus) {
		s->obs.anomalies[IR_ANOM_CPU_OUT_OF_RANGE]++;
		return;
	}
	cp = &s->cpu[c];
	if (!s->started) {
		s->started = true;
		s->now = ev->ts;
		s->obs.window_start = ev->ts;
		if (s->tl)
			ir_timeline_start(s->tl, ev->ts);
	}
	if (ev->ts < s->now) {
		s->obs.anomalies[IR_ANOM_TIME_BACKWARDS]++;
		return;	/* the state cannot be rewound */
	}
	advance(s, ev->ts);
	if (ev->missed) {
		s->obs.anomalies[IR_ANOM_LOST_EVENTS]++;
		if (s->tl)
			ir_timeline_mark(s->tl, IR_ANOM_LOST_EVENTS, c, ev->ts);
	}
	if (!cp->seen)
		first_sight(s, ev);
	if (ev->common_pid > 0 && cp->curr == 0)
		missing_idle_exit(s, ev);
	else if (ev->common_pid == 0 && cp->curr != 0)
		missing_idle_entry(s, c, ev->ts);	/* the idle task runs here */
	walk_evidence(s, ev);

	/* pulls by c that no blocking switch follows were periodic; the newidle
	 * probes fire inside __schedule() around the pull, so they do not count */
	if (cp->nr_pend && !(ev->type == IR_EV_MIGRATE && ev->mig.dest_cpu == c) &&
	    ev->type != IR_EV_SWITCH && ev->type != IR_EV_PROBE_ENTRY &&
	    ev->type != IR_EV_PROBE_EXIT)
		settle_pending(s, c, false, 0);

	switch (ev->type) {
	case IR_EV_SWITCH:
		on_switch(s, ev);
		break;
	case IR_EV_WAKING: {
		struct task *t = task_get(s, ev->wake.pid);

		if (t) {
			t->waking_ts = t->wl_waking_ts = ev->ts;
			t->waking_cpu = t->wl_waking_cpu = c;
		}
		break;
	}
	case IR_EV_WAKEUP:
	case IR_EV_WAKEUP_NEW:
		on_wakeup(s, ev);
		break;
	case IR_EV_MIGRATE:
		on_migrate(s, ev);
		break;
	case IR_EV_FORK: {
		struct task *t = task_get(s, ev->fork.child_pid);

		if (t) {
			if (t->state != T_UNKNOWN && t->state != T_DEAD)
				s->obs.anomalies[IR_ANOM_PID_REUSE]++;
			if (t->state == T_QUEUED)
				dequeue(s, t);
			t->state = T_NEW;
			t->comm_known = 0;
			t->rt = 0;
			t->last_ran = 0;
			task_comm(t, ev->fork.child_comm, ev->fork.child_comm_len);
		}
		break;
	}
	case IR_EV_EXEC: {
		struct task *t = task_get(s, ev->exec.pid);

		if (t) {
			settle_stopper(s, t, true);
			t->comm_known = 0;
		}
		break;
	}
	case IR_EV_MOVE_NUMA:
	case IR_EV_SWAP_NUMA: {
		struct task *t = task_get(s, ev->numa.pid);

		if (t)
			t->numa_pending = 1;
		break;
	}
	case IR_EV_PROBE_ENTRY: {
		int pc = ev->probe_entry.cpu >= 0 && ev->probe_entry.cpu < s->nr_cpus ? ev->probe_entry.cpu : c;
		struct cpu *pcp = &s->cpu[pc];

		s->obs.probe_calls++;
		pcp->probe_valid = true;
		pcp->probe_ts = ev->ts;
		pcp->probe_pid = ev->common_pid;
		pcp->probe = ev->probe_entry.v;
		pcp->probe_ret = -1;
		/* the idle task re-entering newidle balance (schedule_idle() with
		 * nothing to run): no switch follows, so only the probe shows it */
		pcp->reentry = s->p.probe_seed && ev->common_pid == 0 && pcp->curr == 0 && pc == c;
		if (s->p.probe_seed && ev->common_pid != 0 && pcp->curr == ev->common_pid && pc == c &&
		    !pcp->prev_out) {
			unsigned before;

			/* __schedule(): deactivate_task(prev) before pick_next_task()
			 * calls newidle balance */
			rq_before(s, pc, &before);
			pcp->prev_out = true;
			rq_after(s, pc, before, pcp->nr_queued);
		}
		if (s->p.probe_seed && pcp->op.probe_snap)
			snap_fill(s, pc, pcp->op.probe_snap);
		pcp->probe_seq = s->la.seq;
		if (s->p.probe_seed) {
			if (!s->overload_seeded && ev->probe_entry.v.rd_overload >= 0) {
				/* the flag before the trace began: once, as avg_idle */
				s->overload_seeded = true;
				s->rd_overload = ev->probe_entry.v.rd_overload != 0;
				s->cleared_by = IR_OVL_NEVER_SET;
				if (!s->nr_overloaded) {
					s->overload_end = ev->ts;
					s->walk_r = 0;
					for (int g = 0; g < s->nr_grps; g++)
						s->grp_x[g] = 0;
				}
			}
			pcp->probe_overload = ir_state_overload(s, ev->ts);
			pcp->probe_overload_p = ir_state_overload_p(s, ev->ts);
			pcp->probe_ovl_why = overload_why(s, ev->ts);
			/* use what the kernel had: the cap always, avg_idle once as a seed */
			if (ev->probe_entry.v.max_idle_balance_cost > 0)
				pcp->max_idle_balance_cost = (uint64_t)ev->probe_entry.v.max_idle_balance_cost;
			if (!pcp->probe_seeded && ev->probe_entry.v.avg_idle >= 0) {
				pcp->avg_idle = (uint64_t)ev->probe_entry.v.avg_idle;
				pcp->probe_seeded = true;
			}
		}
		break;
	}
	case IR_EV_PROBE_EXIT:
		if (ev->probe_exit.ret > 0)
			s->obs.probe_pulls++;
		/* where in the call its pull came (lookahead.h) */
		if (cp->probe_valid && s->la.rec && ev->probe_exit.ret > 0 && cp->nr_pend &&
		    cp->pend[0].ts >= cp->probe_ts && ev->ts > cp->probe_ts)
			ir_la_share_add(&s->la, cp->pend[0].ts - cp->probe_ts, ev->ts - cp->probe_ts);
		if (cp->probe_valid) {
			cp->probe_ret = ev->probe_exit.ret;
			cp->probe_exit_ts = ev->ts;
			walk_cost(s, c);
			newidle_walk_rewrite(s, c);
			probe_exit(s, c);
		}
		break;
	default:
		break;
	}
	s->cpu[c].last_ev_ts = ev->ts;
	if (ev->common_pid == s->cpu[c].curr && ev->type != IR_EV_SWITCH &&
	    !(ev->type == IR_EV_MIGRATE && ev->mig.dest_cpu == c) &&
	    ev->type != IR_EV_PROBE_ENTRY && ev->type != IR_EV_PROBE_EXIT)
		s->cpu[c].last_own_ts = ev->ts;
}

void ir_state_finish(struct ir_state *s, uint64_t end)
{
	if (!s->started)
		return;
	if (end < s->now)
		end = s->now;
	advance(s, end);
	s->obs.window_end = end;
	s->obs.lookahead_share = ir_state_lookahead_share(s);
	for (int c = 0; c < s->nr_cpus; c++) {
		struct cpu *cp = &s->cpu[c];

		if (cp->nr_pend)
			settle_pending(s, c, false, 0);
		if (!cp->seen)
			continue;
		if (cp->curr == 0)
			s->obs.cpu[c].idle_ns += end - cp->since;
		else {
			s->obs.cpu[c].busy_ns += end - cp->since;
			if (s->tl)
				ir_timeline_busy(s->tl, c, cp->since, end);
		}
		cp->since = end;
		if (cp->op.active)
			close_point(s, c, end);
	}
	/* stopper migrations never followed by exec were active balance */
	for (uint32_t i = 0; i < s->nr_slabs; i++) {
		uint32_t n = (i + 1 == s->nr_slabs) ? s->slab_used : 4096;

		for (uint32_t j = 0; j < n; j++)
			settle_stopper(s, &s->slabs[i][j], false);
	}
	s->started = false;
}

/* ------------------------------------------------------------ setup */

void ir_state_params_default(struct ir_state_params *p)
{
	memset(p, 0, sizeof(*p));
	p->sched_migration_cost = 500000;
	p->max_idle_balance_cost = 500000;
	p->avg_idle_init = 2 * p->sched_migration_cost;
	p->tick_ns = 4000000;		/* HZ=250 */
	p->balance_interval_ns = 0;	/* the top domain's max_interval */
	p->busy_factor = 16;		/* sd_init() */
	p->kernel_major = p->kernel_minor = -1;
	p->newidle_lead_ns = 0;		/* where that is known, e.g. from `idlereplay calibrate` */
	p->lookahead_max_ns = 100000000;	/* 100 ms: longer than any call seen (lookahead.h) */
}

/* The top domain's groups: o is in c's group when a lower level of c's
 * domains spans it.  Their balancers' rates: see grp_rate(). */
static int top_groups(struct ir_state *s)
{
	int n = s->nr_cpus;
	double interval = (double)(s->p.balance_interval_ns ? s->p.balance_interval_ns : 2000000ull * (uint64_t)n);
	double busy = interval * (s->p.busy_factor ? s->p.busy_factor : 1) - (double)s->p.tick_ns;

	s->grp = malloc((size_t)n * sizeof(*s->grp));
	s->grp_idle = calloc((size_t)n, sizeof(*s->grp_idle));
	if (!s->grp || !s->grp_idle)
		return -1;
	for (int c = 0; c < n; c++)
		s->grp[c] = -1;
	for (int c = 0; c < n; c++) {
		int top = nr_levels_of(s, c) - 1;

		if (s->grp[c] >= 0)
			continue;
		for (int o = 0; o < n; o++) {
			int r = ring_of(s, c, o);

			if (o == c || (r != IR_NO_LEVEL && r < top && s->grp[o] < 0))
				s->grp[o] = s->nr_grps;
		}
		s->nr_grps++;
	}
	s->nr_busy_grps = s->nr_grps;	/* no CPU seen idle yet */
	s->grp_x = calloc((size_t)(s->nr_grps ? s->nr_grps : 1), sizeof(*s->grp_x));
	if (!s->grp_x)
		return -1;
	s->idle_rate = 1.0 / interval;
	s->busy_rate = 1.0 / (busy >= interval ? busy : interval);
	return 0;
}

struct ir_state *ir_state_new(int nr_cpus, const struct ir_state_params *p,
			      const struct ir_rings *rings, ir_point_fn on_point, void *arg)
{
	struct ir_state *s;

	if (nr_cpus < 1 || (rings && rings->ring && rings->nr_cpus != nr_cpus))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->p = *p;
	s->nr_cpus = nr_cpus;
	s->on_point = on_point;
	s->arg = arg;
	if (rings)
		s->rings = *rings;
	s->cpu = calloc((size_t)nr_cpus, sizeof(*s->cpu));
	s->obs.cpu = calloc((size_t)nr_cpus, sizeof(*s->obs.cpu));
	s->obs.nr_cpus = nr_cpus;
	s->scratch = calloc((size_t)nr_cpus, sizeof(*s->scratch));
	if (!s->cpu || !s->obs.cpu || !s->scratch || set_init(&s->queued, nr_cpus) ||
	    set_init(&s->open, nr_cpus) || set_init(&s->walks, nr_cpus) || hash_grow(s)) {
		ir_state_free(s);
		return NULL;
	}
	for (int c = 0; c < nr_cpus && nr_cpus <= IR_SNAP_MAX_CPUS; c++) {
		s->cpu[c].op.snap = calloc((size_t)nr_cpus, sizeof(struct ir_rq_snap));
		if (p->probe_seed)
			s->cpu[c].op.probe_snap = calloc((size_t)nr_cpus, sizeof(struct ir_rq_snap));
		if (p->probe_seed && p->lookahead_max_ns)
			s->cpu[c].op.la = malloc(sizeof(struct ir_la_win));
		if (!s->cpu[c].op.snap || (p->probe_seed && !s->cpu[c].op.probe_snap) ||
		    (p->probe_seed && p->lookahead_max_ns && !s->cpu[c].op.la)) {
			ir_state_free(s);
			return NULL;
		}
	}
	if (p->probe_seed && p->lookahead_max_ns && nr_cpus <= IR_SNAP_MAX_CPUS) {
		s->la_snap = calloc((size_t)IR_MAX_LEVELS * (size_t)nr_cpus, sizeof(*s->la_snap));
		if (!s->la_snap || ir_la_log_init(&s->la, nr_cpus)) {
			ir_state_free(s);
			return NULL;
		}
	}
	for (int c = 0; c < nr_cpus; c++) {
		s->cpu[c].avg_idle = p->avg_idle_init;
		s->cpu[c].max_idle_balance_cost = p->max_idle_balance_cost;
	}
	if (top_groups(s)) {
		ir_state_free(s);
		return NULL;
	}
	return s;
}

void ir_state_set_timeline(struct ir_state *s, struct ir_timeline *t)
{
	s->tl = t;
}

const struct ir_observed *ir_state_observed(const struct ir_state *s)
{
	return &s->obs;
}

uint64_t ir_state_avg_idle(const struct ir_state *s, int cpu)
{
	return cpu >= 0 && cpu < s->nr_cpus ? s->cpu[cpu].avg_idle : 0;
}

unsigned ir_state_nr_running(const struct ir_state *s, int cpu)
{
	return cpu >= 0 && cpu < s->nr_cpus ? nr_running(s, cpu) : 0;
}

unsigned ir_state_lookahead_share(const struct ir_state *s)
{
	return s->la.rec ? ir_la_share(&s->la, s->p.lookahead_share) : 0;
}

int32_t ir_state_curr(const struct ir_state *s, int cpu)
{
	return cpu >= 0 && cpu < s->nr_cpus ? s->cpu[cpu].curr : -1;
}

void ir_state_free(struct ir_state *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nr_slabs; i++)
		free(s->slabs[i]);
	free(s->slabs);
	free(s->hash);
	for (int c = 0; s->cpu && c < s->nr_cpus; c++)
		free(s->cpu[c].op.snap), free(s->cpu[c].op.probe_snap), free(s->cpu[c].op.la);
	free(s->la_snap);
	ir_la_log_free(&s->la);
	free(s->cpu);
	free(s->obs.cpu);
	free(s->scratch);
	free(s->grp);
	free(s->grp_x);
	free(s->grp_idle);
	free(s->queued.id);
	free(s->queued.pos);
	free(s->open.id);
	free(s->open.pos);
	free(s->walks.id);
	free(s->walks.pos);
	free(s);
}

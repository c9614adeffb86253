/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The scheduler model: a discrete-event simulation of the workload's tasks on
 * per-CPU runqueues, after the kernel's fair class as of v6.1 (the CFS of
 * the recorded guests; kernel/sched/fair.c unless named):
 *
 *  pick_next_entity()       the queued task of least vruntime runs;
 *  update_curr()            vruntime += delta_exec x NICE_0_LOAD / weight,
 *                           weight = sched_prio_to_weight[prio - 100]
 *                           (core.c; RT prio < 100 taken as nice -20);
 *  place_entity()           a woken task's vruntime is at least min_vruntime
 *                           - sysctl_sched_latency / 2 (GENTLE_FAIR_SLEEPERS),
 *                           a forked one starts at min_vruntime + its slice
 *                           (START_DEBIT); migrate_task_rq_fair() renormalises;
 *  check_preempt_wakeup()   the wakee preempts curr when curr's vruntime is
 *                           ahead by more than wakeup_gran() (scaled by weight);
 *                           the wakee becomes cfs_rq->next and, with
 *                           sched_nr_latency (8) or more runnable (LAST_BUDDY),
 *                           the preempted curr cfs_rq->last;
 *  pick_next_entity()       (up to v6.5) the next buddy, else the last buddy,
 *                           runs instead of the leftmost unless its vruntime
 *                           leads the leftmost's by more than wakeup_gran()
 *                           (wakeup_preempt_entity()); clear_buddies() when a
 *                           buddy is picked or dequeued;
 *  check_preempt_tick()     run from scheduler_tick() only, once a jiffy
 *                           (tick_ns; HRTICK is off by default): curr is
 *                           preempted at the first tick where it ran more than
 *                           sched_slice() = __sched_period(nr) x weight / load
 *                           since it was picked, or, after
 *                           sysctl_sched_min_granularity, where its vruntime
 *                           leads the leftmost's by more than that slice
 *                           (tick_ns 0: at the exact end of the slice);
 *  select_task_rq_fair()    wakeups: record_wakee() and wake_wide() (v4.3),
 *                           then wake_affine() (wake_affine_idle(), then
 *                           wake_affine_weight() on PELT load; WF_SYNC for a
 *                           task's wakeups, sp->sync_wakeups) when the
 *                           waker's domains span prev_cpu, then
 *                           select_idle_sibling() in the target's LLC (target,
 *                           prev, recent_used_cpu (v4.16); with SMT and no
 *                           idle core (has_idle_cores) an idle SMT sibling of
 *                           prev (select_idle_smt(), v5.18); then, unless
 *                           SIS_UTIL's nr_idle_scan is 0 (v5.19), an idle core
 *                           while has_idle_cores, else an idle CPU wrapping
 *                           from target + 1, at most nr_idle_scan of them);
 *                           forks:
 *                           find_idlest_cpu() over the top domain (fewest
 *                           running, the parent's CPU first);
 *  rebalance_domains()      each level when its interval has passed since
 *                           sd->last_balance, the interval by the CPU's state
 *                           at the check (x busy_factor while busy; an idle
 *                           CPU is due at its idle interval: NOHZ kick,
 *                           update_next_balance()), in jiffies on the tick
 *                           (get_sd_balance_interval()); update_idle_cpu_scan()
 *                           at the LLC level;
 *  sched_balance_newidle()  (newidle_balance() before v6.10) when a CPU's
 *                           queue runs empty: the policy (model/ ir_decide())
 *                           picks the levels and model/'s load_balance()
 *                           (ir_outcome_lb(), model/lb.c: find_busiest_group(),
 *                           calculate_imbalance(), detach_tasks(), task_hot())
 *                           runs at each on a snapshot of the simulated
 *                           runqueues; each attempt costs its per-level cost
 *                           on this CPU (with probes, the walk at most the
 *                           probed calls' median curr_cost); the levels run
 *                           one after another with the rq lock dropped, and
 *                           a task enqueued meanwhile stops the walk after
 *                           the level in progress; idle_stamp / avg_idle /
 *                           max_idle_balance_cost as ttwu_do_wakeup() and the
 *                           newidle code keep them;
 *  rebalance_domains()'s load_balance()  model/'s load_balance() too
 *                           (CPU_IDLE or CPU_NOT_IDLE, ir_lb_env_init()), this
 *                           CPU's own runqueue included, moving as many tasks
 *                           as its first call detaches (lb_gained); one CPU
 *                           per group balances (should_we_balance(), v6.6+
 *                           idle cores first); sd->balance_interval and
 *                           sd->nr_balance_failed follow each balance, and
 *                           active balance after cache_nice_tries + 2 failures;
 *  add_nr_running()         sets rd->overload at 2 runnable; a top-level
 *                           balance rewrites it from the runqueues.
 *  dequeue_entity()         (EEVDF, v6.12+ DELAY_DEQUEUE, DELAY_ZERO) a task
 *                           that sleeps while not eligible stays queued until
 *                           picked (then dequeued) or woken in place
 *                           (ttwu_runnable(), no select_task_rq());
 *  remove_entity_load_avg() a migrating or exiting task's PELT load leaves
 *                           its CPU's cpu_load() (attach_entity_load_avg() on
 *                           the new one), so wake_affine_weight() sees it
 *                           where the task is;
 *  migrate_task_rq_fair()   a migrated task's se->exec_start is 0: not
 *                           task_hot() until it runs again (v6.1; from v6.3
 *                           and in 6.1.y enqueue_entity(ENQUEUE_MIGRATED));
 * A migrated task pays refill_ns of extra CPU time per level boundary
 * crossed (the level index of the smallest domain holding both CPUs, + 1).
 *
 * Frozen mode replays the recorded decisions instead: wakeups go where the
 * kernel put them, each CPU switches to the task it switched to, at the
 * recorded preemptions; no balancing.  Its figures must equal the trace's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/cpumask.h"
#include "sim/sim.h"

/* kernel/sched/core.c sched_prio_to_weight[], nice -20 .. 19 */
static const uint32_t sched_prio_to_weight[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
	110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
};
#define NICE_0_LOAD 1024u

/* record_wakee() state of a waker: p->wakee_flips, p->last_wakee,
 * p->wakee_flip_decay_ts */
struct flips {
	uint32_t wakee_flips;
	int32_t last_wakee;
	uint64_t decay_ts;
};

enum sstate { S_UNSTARTED, S_QUEUED, S_RUNNING, S_BLOCKED, S_DONE };
enum evkind { E_CPU, E_WAKE, E_START, E_BALANCE, E_FROZEN, E_MOVE, E_QUEUE, E_NEWIDLE };

struct stask {
	uint32_t pc;
	uint8_t state;
	int16_t cpu;		/* runqueue (queued, running) or last one */
	int16_t ran_cpu;	/* where it last ran, -1 never */
	uint32_t tokens;	/* task wakeups that came before their block */
	uint8_t blocked_on;	/* IR_OP_BLOCK_TASK or IR_OP_BLOCK_DELAY */
	uint32_t weight;
	int32_t qpos;
	uint64_t left;		/* ns left of the RUN op at pc (0: not started) */
	uint64_t vruntime;
	uint64_t last_ran;	/* p->se.exec_start when it stopped */
	uint64_t enq;		/* when it was queued (detach order) */
	uint64_t woken;		/* wakeup time, for the wait figure; 0 none */
	uint64_t blocked_at;	/* when it last blocked */
	uint64_t waking;	/* frozen: its sched_waking, queued at sched_wakeup */
	uint64_t penalty;	/* cache refill owed */
	double avg;		/* PELT: runnable share, decaying with a 32 ms half-life;
				 * weight x avg is its se->avg.load_avg, attached to
				 * the cfs_rq of cpu (load_attach()) */
	uint64_t deadline;	/* EEVDF: se->deadline */
	int64_t vlag;		/* EEVDF: se->vlag, kept while it sleeps */
	uint64_t avg_ts;
	struct flips flips;	/* record_wakee(): as a waker */
	int16_t recent_used_cpu;	/* p->recent_used_cpu */
	bool delayed;		/* se->sched_delayed (DELAY_DEQUEUE, v6.12+): blocked
				 * (blocked_on) but still queued on cpu */
};

struct srq {
	int32_t curr;		/* -1 idle */
	uint64_t curr_start, slice_end;
	uint64_t pick_start;	/* set_next_entity(): prev_sum_exec_runtime, as a time */
	int32_t next_buddy, last_buddy;	/* CFS cfs_rq->next, cfs_rq->last; -1 none */
	uint32_t nr_queued, cap;
	uint32_t nr_delayed;	/* of them sched_delayed: cfs_h_nr_delayed() */
	int32_t *q;
	uint64_t load;		/* weights queued + curr */
	double load_avg;	/* PELT of load: cfs_rq->avg.load_avg */
	double util_avg;	/* PELT of running: util_avg, 0..1024 */
	uint64_t util_ts;
	uint64_t load_ts;
	uint64_t min_vruntime;
	uint64_t avail;		/* busy balancing until then */
	bool idle;		/* the idle task runs (from idle_since) */
	uint64_t idle_since;
	uint64_t idle_stamp, avg_idle, max_idle_balance_cost;
	uint64_t gen;		/* E_CPU events of older generations are stale */
	uint64_t resched_at;	/* resched_curr() takes effect then; 0 none */
	uint64_t last_balance[IR_MAX_LEVELS];	/* sd->last_balance */
	uint64_t bal_at, bal_gen;	/* the pending E_BALANCE: its time, generation */
	uint64_t swpos;		/* frozen: next recorded switch */
	int32_t frozen_want;	/* frozen: waiting for this task to be runnable */
	int nr_levels, llc;	/* llc: highest SD_SHARE_PKG_RESOURCES level, -1 */
	unsigned llc_size;	/* per_cpu(sd_llc_size): CPUs in that level's span, 1 none */
	int llc_id;		/* per_cpu(sd_llc_id): the first CPU of that span */
	int nr_idle_scan;	/* sd_llc_shared->nr_idle_scan, kept at the llc_id's rq */
	bool has_idle_cores;	/* sd_llc_shared->has_idle_cores, kept at the llc_id's rq */
	struct flips irq_flips;	/* the CPU's idle task and kthreads as wakers */
	uint8_t kind[IR_MAX_LEVELS];
	/* sd->balance_interval (ms) between sd->min_interval and max_interval,
	 * and sd->nr_balance_failed: load_balance() keeps both (balance_tune()) */
	unsigned interval[IR_MAX_LEVELS], cache_nice_tries[IR_MAX_LEVELS];
	unsigned min_interval[IR_MAX_LEVELS], max_interval[IR_MAX_LEVELS];
	uint16_t nr_balance_failed[IR_MAX_LEVELS];
	bool smt[IR_MAX_LEVELS];
	unsigned imbalance_pct[IR_MAX_LEVELS];
	/* sched_balance_newidle()'s domain walk in progress (nb_active): the
	 * policy's decision at entry, the index in it of the level being
	 * balanced, the outcome so far; E_NEWIDLE of nb_gen ends the level */
	bool nb_active;
	int nb_i;
	uint64_t nb_gen, nb_start;
	struct ir_decision nb_d;
	struct ir_decision_ctx nb_ctx;
	struct ir_outcome nb_o;
};

struct hev {
	uint64_t t, seq;
	uint32_t id;
	uint8_t kind;
	uint64_t gen;
};

struct sim {
	const struct ir_workload *w;
	struct ir_wl_reader *rd;	/* w's records (sim/sim.h: ir_wl_op(), ir_wl_sw(), ir_wl_move()) */
	const struct ir_policy_params *pol;
	struct ir_policy_state pst;
	const struct ir_sim_params *sp;
	struct ir_sim_result *res;
	int n;
	const uint8_t *ring;	/* ring[c * n + o]: smallest level of c holding o */
	const struct ir_domains *dom;
	struct ir_domains *own_dom;	/* built when none is given: one flat LLC */
	struct ir_rq_snap *snap;	/* n entries: load_balance()'s view */
	bool *swb_idle;			/* n entries: idle_cpu() for should_we_balance() */
	struct stask *t;
	struct srq *rq;
	struct hev *heap;
	uint64_t nh, hcap, seq;
	uint64_t now, last_acct;
	uint64_t nr_waiting, nr_idle, live, pending;	/* pending: non-balance events */
	uint64_t nr_cpus_queued, sum_cpus_queued;	/* CPUs with waiting tasks, the sum of their ids */
	bool overload;
	struct ir_hist *wait;
	uint64_t done_at;
	int oom;
	bool waker_exiting;	/* the wakeup being placed comes from an exiting task */
	uint64_t exit_rng;	/* the dice of the idle CPUs' wakeup latency (idle_exit_draw()) */
};

/* ---------------------------------------------------------------- heap */

static bool hless(const struct hev *a, const struct hev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void hpush(struct sim *s, uint64_t t, enum evkind kind, uint32_t id, uint64_t gen)
{
	uint64_t i;

	if (s->nh == s->hcap) {
		uint64_t ncap = s->hcap ? s->hcap * 2 : 256;
		struct hev *h = realloc(s->heap, ncap * sizeof(*h));

		if (!h) {
			s->oom = 1;
			return;
		}
		s->heap = h;
		s->hcap = ncap;
	}
	if (kind != E_BALANCE)
		s->pending++;
	i = s->nh++;
	s->heap[i] = (struct hev){ t, s->seq++, id, (uint8_t)kind, gen };
	while (i && hless(&s->heap[i], &s->heap[(i - 1) / 2])) {
		struct hev x = s->heap[i];

		s->heap[i] = s->heap[(i - 1) / 2];
		s->heap[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

static struct hev hpop(struct sim *s)
{
	struct hev top = s->heap[0];
	uint64_t i = 0;

	s->heap[0] = s->heap[--s->nh];
	for (;;) {
		uint64_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < s->nh && hless(&s->heap[l], &s->heap[m]))
			m = l;
		if (r < s->nh && hless(&s->heap[r], &s->heap[m]))
			m = r;
		if (m == i)
			break;
		struct hev x = s->heap[i];

		s->heap[i] = s->heap[m];
		s->heap[m] = x;
		i = m;
	}
	if (top.kind != E_BALANCE)
		s->pending--;
	return top;
}

/* ------------------------------------------------------------ helpers */

static inline unsigned level_of(const struct sim *s, int c, int o)
{
	return s->ring ? s->ring[(size_t)c * (size_t)s->n + (size_t)o] : 0;
}

static inline bool in_level(const struct sim *s, int c, int l, int o)
{
	unsigned r = level_of(s, c, o);

	return r != IR_NO_LEVEL && (int)r <= l;
}

static inline unsigned nr_running(const struct sim *s, int c)
{
	return s->rq[c].nr_queued + (s->rq[c].curr >= 0);
}

/* blocked in its program: asleep, or sleeping while its se is still queued
 * (DELAY_DEQUEUE) */
static inline bool blocked(const struct stask *t)
{
	return t->state == S_BLOCKED || t->delayed;
}

static inline bool cpu_idle(const struct sim *s, int c)
{
	return s->rq[c].curr < 0 && !s->rq[c].nr_queued;
}

static uint32_t weight_of(int prio)
{
	if (prio < 100)
		return sched_prio_to_weight[0];
	if (prio > 139)
		return sched_prio_to_weight[39];
	return sched_prio_to_weight[prio - 100];
}

/* ___update_load_avg(): a geometric series whose weight halves every
 * 32 ms (LOAD_AVG_PERIOD), over a signal that was `value` since *ts. */
static double pelt(double avg, uint64_t *ts, uint64_t now, double value)
{
	if (now > *ts) {
		double y = exp2(-(double)(now - *ts) / 32e6);

		avg = avg * y + value * (1 - y);
		*ts = now;
	}
	return avg;
}

static void cpu_util_update(struct sim *s, int c);

static void rq_load_update(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];

	r->load_avg = pelt(r->load_avg, &r->load_ts, s->now, (double)r->load);
}

/* The task's runnable average up to now; active: runnable until now. */
static void task_avg_update(struct sim *s, int32_t ti, bool active)
{
	struct stask *t = &s->t[ti];

	t->avg = pelt(t->avg, &t->avg_ts, s->now, active ? 1.0 : 0.0);
}

/* Per-entity load tracking (v3.8+, unchanged through v6.18): cpu_load() is
 * cfs_rq->avg.load_avg, the sum of the attached entities' load_avg, blocked
 * ones included, so a task's load leaves with it: migrate_task_rq_fair() ->
 * remove_entity_load_avg() on the old CPU, and the enqueue on the new one
 * attaches it (update_load_avg(DO_ATTACH) -> attach_entity_load_avg(), as
 * last_update_time is 0 after a migration); an exiting task's goes with
 * task_dead_fair() -> remove_entity_load_avg().  r->load_avg, the PELT of
 * the runqueue's runnable weight, equals that sum while tasks stay put;
 * these two keep it so when they move. */
static void load_detach(struct sim *s, int32_t ti, int c)
{
	struct srq *r = &s->rq[c];
	double l = s->t[ti].weight * s->t[ti].avg;

	rq_load_update(s, c);
	r->load_avg = r->load_avg > l ? r->load_avg - l : 0;
}

static void load_attach(struct sim *s, int32_t ti, int c)
{
	rq_load_update(s, c);
	s->rq[c].load_avg += s->t[ti].weight * s->t[ti].avg;
}

/* Integrate, before any change, the idle time of CPUs while another CPU
 * has a waiting task (SPEC 7, as replay/ measures it). */
static void account(struct sim *s)
{
	if (s->now > s->last_acct && s->nr_waiting && s->nr_idle) {
		uint64_t n = s->nr_idle;

		if (s->nr_cpus_queued == 1 && s->rq[s->sum_cpus_queued].idle)
			n--;	/* its waiting tasks are its own */
		s->res->idle_while_waiting_ns += (s->now - s->last_acct) * n;
	}
	s->last_acct = s->now;
}

/* add_nr_running(): "if (prev_nr < 2 && rq->nr_running >= 2)" sets
 * rd->overload.  Only a crossing sets it; it is cleared only by a top-level
 * rewrite (rewrite_overload()).  The kernel's nr_running counts curr and
 * changes only at enqueue and dequeue; here a preempted curr is put back
 * as queued, a transient crossing with the rq at 2 already, when the flag
 * can only be set (no rewrite came between). */
static void set_overload(struct sim *s, int c, unsigned before)
{
	if (before < 2 && nr_running(s, c) >= 2)
		s->overload = true;
}

static void q_add(struct sim *s, int c, int32_t ti)
{
	struct srq *r = &s->rq[c];
	unsigned before = nr_running(s, c);

	if (r->nr_queued == r->cap) {
		uint32_t ncap = r->cap ? r->cap * 2 : 16;
		int32_t *q = realloc(r->q, ncap * sizeof(*q));

		if (!q) {
			s->oom = 1;
			return;
		}
		r->q = q;
		r->cap = ncap;
	}
	rq_load_update(s, c);
	s->t[ti].qpos = (int32_t)r->nr_queued;
	if (!r->nr_queued) {
		s->nr_cpus_queued++;
		s->sum_cpus_queued += (uint64_t)c;
	}
	r->q[r->nr_queued++] = ti;
	r->load += s->t[ti].weight;
	s->t[ti].state = S_QUEUED;
	s->t[ti].cpu = (int16_t)c;
	s->t[ti].enq = s->now;
	s->nr_waiting++;
	set_overload(s, c, before);
}

/* clear_buddies(): ti leaves the cfs_rq or is picked */
static inline void clear_buddies(struct srq *r, int32_t ti)
{
	if (r->next_buddy == ti)
		r->next_buddy = -1;
	if (r->last_buddy == ti)
		r->last_buddy = -1;
}

static void q_del(struct sim *s, int32_t ti)
{
	struct stask *t = &s->t[ti];
	struct srq *r = &s->rq[t->cpu];
	unsigned before = nr_running(s, t->cpu);
	int32_t last;

	rq_load_update(s, t->cpu);
	last = r->q[--r->nr_queued];

	r->q[t->qpos] = last;
	s->t[last].qpos = t->qpos;
	t->qpos = -1;
	if (!r->nr_queued) {
		s->nr_cpus_queued--;
		s->sum_cpus_queued -= (uint64_t)t->cpu;
	}
	r->load -= t->weight;
	s->nr_waiting--;
	set_overload(s, t->cpu, before);
	clear_buddies(r, ti);	/* picked, or dequeued by a migration */
}

/* entity_before(): vruntimes compare by their signed difference, so that
 * renormalising a sleeper (migrate_task_rq_fair()) may wrap, as in the kernel */
static inline bool vbefore(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

/* update_min_vruntime(): never backwards; follows the leftmost of curr and queue. */
static void update_min_vruntime(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];
	uint64_t v = 0;
	bool any = r->curr >= 0;

	if (any)
		v = s->t[r->curr].vruntime;
	for (uint32_t i = 0; i < r->nr_queued; i++)
		if (!any || vbefore(s->t[r->q[i]].vruntime, v)) {
			v = s->t[r->q[i]].vruntime;
			any = true;
		}
	if (any && vbefore(r->min_vruntime, v))
		r->min_vruntime = v;
}

/* update_curr(): charge curr's run since curr_start (the cache refill first). */
static void update_curr(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];
	struct stask *t;
	uint64_t d;

	if (r->curr < 0 || s->now <= r->curr_start)
		return;
	t = &s->t[r->curr];
	d = s->now - r->curr_start;
	r->curr_start = s->now;
	t->vruntime += d * NICE_0_LOAD / t->weight;
	if (t->penalty) {
		uint64_t p = d < t->penalty ? d : t->penalty;

		t->penalty -= p;
		d -= p;
	}
	t->left = d < t->left ? t->left - d : 0;
	update_min_vruntime(s, c);
}

static int32_t leftmost(const struct sim *s, int c)
{
	const struct srq *r = &s->rq[c];
	int32_t who = -1;

	for (uint32_t i = 0; i < r->nr_queued; i++) {
		int32_t x = r->q[i];

		if (who < 0 || vbefore(s->t[x].vruntime, s->t[who].vruntime) ||
		    (s->t[x].vruntime == s->t[who].vruntime && x < who))
			who = x;
	}
	return who;
}

/* wakeup_preempt_entity(buddy, left) < 1 (CFS): the buddy's vruntime leads
 * the leftmost's by at most wakeup_gran(left) */
static bool buddy_fair(const struct sim *s, int32_t buddy, const struct stask *left)
{
	int64_t vdiff = (int64_t)(s->t[buddy].vruntime - left->vruntime);

	return vdiff <= 0 || vdiff <= (int64_t)(s->sp->sysctl_sched_wakeup_granularity * NICE_0_LOAD / left->weight);
}

/* pick_next_entity() (CFS, up to v6.5): the leftmost of the queue and curr
 * (with_curr: curr still runnable), unless the next buddy, else the last
 * buddy, is not too far behind it (NEXT_BUDDY off and LAST_BUDDY on, the
 * defaults; buddies are only set by check_preempt_wakeup()).  Returns the
 * task, curr's index when curr stays. */
static int32_t cfs_pick(const struct sim *s, int c, bool with_curr)
{
	const struct srq *r = &s->rq[c];
	int32_t left = leftmost(s, c);

	if (with_curr && r->curr >= 0 && (left < 0 || vbefore(s->t[r->curr].vruntime, s->t[left].vruntime)))
		left = r->curr;
	if (left < 0)
		return -1;
	if (r->next_buddy >= 0 && buddy_fair(s, r->next_buddy, &s->t[left]))
		return r->next_buddy;
	if (r->last_buddy >= 0 && buddy_fair(s, r->last_buddy, &s->t[left]) &&
	    (r->last_buddy != r->curr || with_curr))
		return r->last_buddy;
	return left;
}

/* ------------------------------------------------ EEVDF (v6.6+) */

/* calc_delta_fair(sysctl_sched_base_slice, se) */
static uint64_t vslice(const struct sim *s, const struct stask *t)
{
	return s->sp->sysctl_sched_base_slice * NICE_0_LOAD / t->weight;
}

/* avg_vruntime(): the load-weighted mean vruntime of curr and the queue,
 * relative to min_vruntime so that it never overflows */
static uint64_t avg_vruntime(const struct sim *s, int c)
{
	const struct srq *r = &s->rq[c];
	double sum = 0, w = 0;

	if (r->curr >= 0) {
		sum += (double)(int64_t)(s->t[r->curr].vruntime - r->min_vruntime) * s->t[r->curr].weight;
		w += s->t[r->curr].weight;
	}
	for (uint32_t i = 0; i < r->nr_queued; i++) {
		const struct stask *t = &s->t[r->q[i]];

		sum += (double)(int64_t)(t->vruntime - r->min_vruntime) * t->weight;
		w += t->weight;
	}
	return w ? r->min_vruntime + (uint64_t)(int64_t)(sum / w) : r->min_vruntime;
}

/* pick_eevdf(): of the eligible (vruntime <= avg_vruntime), the earliest
 * deadline; curr competes while runnable */
static int32_t pick_eevdf(const struct sim *s, int c, bool with_curr)
{
	const struct srq *r = &s->rq[c];
	uint64_t v = avg_vruntime(s, c);
	int32_t best = -1, least = -1;

	for (int64_t i = with_curr && r->curr >= 0 ? -1 : 0; i < (int64_t)r->nr_queued; i++) {
		int32_t x = i < 0 ? r->curr : r->q[i];
		const struct stask *t = &s->t[x];

		if (least < 0 || vbefore(t->vruntime, s->t[least].vruntime))
			least = x;
		if ((int64_t)(t->vruntime - v) > 0)
			continue;
		if (best < 0 || vbefore(t->deadline, s->t[best].deadline) ||
		    (t->deadline == s->t[best].deadline && x < best))
			best = x;
	}
	return best >= 0 ? best : least;
}

/* place_entity() (v6.6): at avg_vruntime minus the lag it slept with,
 * deadline one vslice later (half for a new task: PLACE_DEADLINE_INITIAL) */
static void place_eevdf(struct sim *s, int c, struct stask *t, bool initial)
{
	uint64_t v = avg_vruntime(s, c);
	int64_t limit = (int64_t)(2 * vslice(s, t));
	int64_t lag = initial ? 0 : t->vlag;

	if (lag > limit)
		lag = limit;
	if (lag < -limit)
		lag = -limit;
	t->vruntime = v - (uint64_t)lag;
	t->deadline = t->vruntime + (initial ? vslice(s, t) / 2 : vslice(s, t));
}

/* __sched_period() and sched_slice() */
static uint64_t sched_slice(const struct sim *s, int c, const struct stask *t)
{
	unsigned nr = nr_running(s, c);
	uint64_t period = s->sp->sysctl_sched_latency, load = s->rq[c].load;
	uint64_t gran = s->sp->sysctl_sched_min_granularity ? s->sp->sysctl_sched_min_granularity : 1;

	if (nr > s->sp->sysctl_sched_latency / gran)
		period = nr * gran;
	if (load < t->weight)
		load = t->weight;
	return period * t->weight / load;
}

/* set_task_cpu(): renormalise vruntime (migrate_task_rq_fair()), owe the
 * cache refill, count the migration. */
static void migrate(struct sim *s, int32_t ti, int from, int to, uint64_t *counter)
{
	struct stask *t = &s->t[ti];
	unsigned lvl;

	if (from < 0 || from == to)
		return;
	t->vruntime = t->vruntime - s->rq[from].min_vruntime + s->rq[to].min_vruntime;
	/* its PELT load moves with it; a waking task's avg was brought to
	 * now, asleep, by wake_task() */
	task_avg_update(s, ti, t->state == S_QUEUED || t->state == S_RUNNING);
	load_detach(s, ti, from);
	load_attach(s, ti, to);
	/* "We have migrated, no longer consider this task hot": se->exec_start
	 * = 0 (migrate_task_rq_fair() in v6.1; enqueue_entity() with
	 * ENQUEUE_MIGRATED from a53ce18cacb4, v6.3, and in 6.1.y stable, and
	 * through v6.18): task_hot() is false for it until it runs again */
	t->last_ran = 0;
	lvl = level_of(s, from, to);
	if (!s->sp->frozen)
		t->penalty += s->sp->refill_ns * ((lvl == IR_NO_LEVEL ? (unsigned)s->rq[from].nr_levels : lvl) + 1);
	s->res->migrations++;
	if (counter)
		(*counter)++;
	if (s->sp->capture)
		ir_capture_migrate(s->sp->capture, ti, from, to, s->now, counter == &s->res->mig_wakeup ? IR_CAP_WAKEUP :
				   counter == &s->res->mig_newidle ? IR_CAP_NEWIDLE_PULL : IR_CAP_PERIODIC);
}

/*
 * How long an idle CPU takes to run the task woken onto it: a property of
 * the recording machine, not of the fair class (the wakeup IPI or the
 * polling idle loop's TIF_NEED_RESCHED, the idle state's exit latency,
 * under emulation the host's wakeup of the vCPU thread), so it is taken
 * from the trace: a draw from the recorded latencies of wakeups onto idle
 * CPUs (workload.c exit_mark(): the first wakee's sched_waking, else its
 * sched_wakeup, to the idle CPU's switch-in of it),
 * the inverse of their quantile table, linear between its
 * IR_IDLE_WAKE_Q + 1 points, with the simulation's seeded dice; the table
 * of wakeups from another CPU (an IPI to reach it) or the one of wakeups
 * from the idle CPU itself (local: its own interrupt, already awake).  With
 * idle_exit_median, their median for every wakeup (the earlier model).
 */
static uint64_t idle_exit_draw(struct sim *s, bool local)
{
	const uint64_t *q = local ? s->w->idle_wake_local_q : s->w->idle_wake_q;
	uint64_t x, k, frac;

	if (q[IR_IDLE_WAKE_Q] == 0)	/* none of this kind in the trace: the other's */
		q = local ? s->w->idle_wake_q : s->w->idle_wake_local_q;
	if (s->sp->idle_exit_median || q[IR_IDLE_WAKE_Q] == 0)
		return s->w->idle_wake_ns;
	x = (uint64_t)ir_rng_next(&s->exit_rng) * IR_IDLE_WAKE_Q;	/* 32.32 fixed point */
	k = x >> 32;
	frac = x & 0xffffffffull;
	return q[k] + (uint64_t)((double)(q[k + 1] - q[k]) * ((double)frac / 4294967296.0));
}
/* ------------------------------------------------------ running tasks */

static void pick_next(struct sim *s, int c);
static void run_curr(struct sim *s, int c);
static void frozen_check(struct sim *s, int32_t ti);
enum wake_how { W_TASK, W_IRQ, W_FORK, W_START };
static void wake_task(struct sim *s, int32_t ti, int waker_cpu, int rec_cpu, enum wake_how how);

static void idle_balance_due(struct sim *s, int c, uint64_t from);

static void go_idle(struct sim *s, int c, uint64_t from)
{
	struct srq *r = &s->rq[c];

	if (r->idle)
		return;
	r->idle = true;
	r->idle_since = from;
	s->nr_idle++;
	if (r->smt[0] && r->llc >= 0) {
		/* __update_idle_core() (set_next_task_idle()): a CPU going idle
		 * with all its SMT siblings idle sets has_idle_cores */
		bool all = true;

		for (int x = 0; x < s->n && all; x++)
			if (x != c && in_level(s, c, 0, x) && !cpu_idle(s, x))
				all = false;
		if (all)
			s->rq[r->llc_id].has_idle_cores = true;
	}
	idle_balance_due(s, c, from);
	if (s->sp->capture)
		ir_capture_switch(s->sp->capture, c, from, IR_CAP_IDLE);
}

static void leave_idle(struct sim *s, int c, uint64_t at)
{
	struct srq *r = &s->rq[c];

	if (!r->idle)
		return;
	if (at > r->idle_since)
		s->res->idle_ns += at - r->idle_since;
	r->idle = false;
	s->nr_idle--;
}

/* CFS (before v6.6) with a jiffy: check_preempt_tick() runs from the tick */
static inline bool cfs_tick(const struct sim *s)
{
	return !s->sp->eevdf && s->sp->tick_ns;
}

/* The first tick after now at which check_preempt_tick() can preempt curr:
 * not before sysctl_sched_min_granularity (or its slice, if shorter) since
 * it was picked.  Ticks fall on multiples of tick_ns on the trace's clock:
 * every CPU's tick_sched_timer expires on the same jiffy grid (no
 * skew_tick); its phase is not in a trace, so the grid starts at 0. */
static uint64_t next_tick(const struct sim *s, const struct srq *r)
{
	uint64_t tick = s->sp->tick_ns, from = s->now, gran = s->sp->sysctl_sched_min_granularity;

	if (r->slice_end - r->pick_start < gran)
		gran = r->slice_end - r->pick_start;
	if (r->pick_start + gran > from)
		from = r->pick_start + gran;
	return (from / tick + 1) * tick;
}

/* The next E_CPU of c: curr's run op ends, or its slice with others queued. */
static void arm(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];
	const struct stask *t = &s->t[r->curr];
	uint64_t start = r->curr_start > s->now ? r->curr_start : s->now;
	uint64_t end = start + t->left + t->penalty;

	if (!s->sp->frozen && r->nr_queued) {
		uint64_t due = cfs_tick(s) ? next_tick(s, r) : r->slice_end;

		if (due < end)
			end = due > s->now ? due : s->now;
	}
	if (r->resched_at && r->resched_at < end)
		end = r->resched_at > s->now ? r->resched_at : s->now;
	hpush(s, end, E_CPU, (uint32_t)c, ++r->gen);
}

/* Make ti c's curr from max(now, the end of a balance in progress). */
static void set_curr(struct sim *s, int c, int32_t ti)
{
	struct srq *r = &s->rq[c];
	struct stask *t = &s->t[ti];
	uint64_t at = s->now > r->avail ? s->now : r->avail;

	leave_idle(s, c, at);
	if (t->state == S_QUEUED) {
		int from = t->cpu;

		q_del(s, ti);
		if (from != c)
			migrate(s, ti, from, c, s->sp->frozen ? NULL : &s->res->mig_newidle);
	}
	rq_load_update(s, c);
	cpu_util_update(s, c);
	r->curr = ti;
	r->load += t->weight;
	r->curr_start = at;
	r->pick_start = at;
	if (s->sp->capture)
		ir_capture_switch(s->sp->capture, c, at, ti);
	t->state = S_RUNNING;
	t->cpu = (int16_t)c;
	if (t->woken) {
		ir_hist_add(s->wait, at - t->woken);
		t->woken = 0;
	}
	if (s->sp->eevdf) {
		/* update_deadline(): it runs to its deadline, then is picked again */
		if (!vbefore(t->vruntime, t->deadline))
			t->deadline = t->vruntime + vslice(s, t);
		r->slice_end = at + (t->deadline - t->vruntime) * t->weight / NICE_0_LOAD;
	} else {
		r->slice_end = at + sched_slice(s, c, t);
	}
	update_min_vruntime(s, c);
}

/* curr leaves the CPU (blocked, done or preempted); the caller sets its state. */
static void put_curr(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];
	struct stask *t = &s->t[r->curr];

	update_curr(s, c);
	rq_load_update(s, c);
	cpu_util_update(s, c);
	r->load -= t->weight;
	t->last_ran = s->now;
	r->curr = -1;
	if (s->sp->capture)
		ir_capture_switch(s->sp->capture, c, s->now, IR_CAP_NONE);
	r->resched_at = 0;
	r->gen++;
}

static void preempt_curr(struct sim *s, int c)
{
	int32_t ti = s->rq[c].curr;

	put_curr(s, c);
	q_add(s, c, ti);
	if (s->sp->frozen)
		frozen_check(s, ti);	/* a CPU the trace moved it to waits for it */
	pick_next(s, c);
}

static void task_done(struct sim *s, int32_t ti)
{
	clear_buddies(&s->rq[s->t[ti].cpu], ti);
	task_avg_update(s, ti, true);		/* it ran until now */
	load_detach(s, ti, s->t[ti].cpu);	/* task_dead_fair() */
	s->t[ti].state = S_DONE;
	s->live--;
	if (s->now > s->done_at)
		s->done_at = s->now;
}

/* pc moves to the next op; a RUN op starts with its whole length. */
static void advance(struct sim *s, int32_t ti)
{
	struct stask *t = &s->t[ti];
	const struct ir_sim_task *wt = &s->w->task[ti];

	t->pc++;
	const struct ir_op *op = t->pc < wt->nr_ops ? ir_wl_op(s->rd, (uint32_t)ti, t->pc) : NULL;

	t->left = op && op->kind == IR_OP_RUN ? op->ns : 0;
}

/*
 * DELAY_DEQUEUE (152e11f6df29, v6.12; on through v6.18, with DELAY_ZERO):
 * dequeue_entity() of a task going to sleep that is not entity_eligible()
 * (its vruntime past avg_vruntime(), curr included) leaves it queued,
 * se->sched_delayed, competing until it is eligible: pick_next_entity()
 * that picks it dequeues it then (DEQUEUE_DELAYED, lag zeroed, DELAY_ZERO)
 * and picks again; a wakeup before that is ttwu_runnable(): it is requeued
 * where it is (requeue_delayed_entity(), placed at lag 0 if eligible by
 * then), with no select_task_rq().  Its weight stays in the load; it is
 * not waiting (no wait is measured, it counts in no idle-while-waiting)
 * and load_balance() leaves it (can_migrate_task(): a delayed task moves
 * only with migrate_load; the snapshot shows it pinned).
 */
static void delayed_dequeue(struct sim *s, int32_t ti)
{
	struct stask *t = &s->t[ti];

	s->rq[t->cpu].nr_delayed--;
	s->nr_waiting++;	/* q_del() counts it out */
	q_del(s, ti);
	task_avg_update(s, ti, true);	/* runnable while queued */
	t->delayed = false;
	t->state = S_BLOCKED;
	t->vlag = 0;		/* picked, so eligible: lag >= 0, DELAY_ZERO */
}

static void block(struct sim *s, int c, int32_t ti, uint8_t on)
{
	struct stask *t = &s->t[ti];
	bool delay = false;

	clear_buddies(&s->rq[c], ti);	/* dequeue_entity() */
	if (s->sp->eevdf && s->sp->delay_dequeue && !s->sp->frozen) {
		update_curr(s, c);
		delay = (int64_t)(t->vruntime - avg_vruntime(s, c)) > 0;	/* !entity_eligible() */
	}
	put_curr(s, c);
	task_avg_update(s, ti, true);
	if (s->sp->eevdf)	/* update_entity_lag(): what it was owed when it left */
		t->vlag = (int64_t)(avg_vruntime(s, c) - t->vruntime);
	t->state = S_BLOCKED;
	t->blocked_on = on;
	t->blocked_at = s->now;
	if (delay) {
		q_add(s, c, ti);
		s->nr_waiting--;	/* queued, but asleep */
		s->rq[c].nr_delayed++;
		t->delayed = true;
	}
	pick_next(s, c);
}

/* Execute curr's program at now until it needs CPU time or leaves. */
static void run_curr(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];

	for (;;) {
		int32_t ti = r->curr;
		struct stask *t;
		const struct ir_sim_task *wt;
		const struct ir_op *op;

		if (ti < 0)
			return;
		t = &s->t[ti];
		wt = &s->w->task[ti];
		if (t->pc >= wt->nr_ops) {
			put_curr(s, c);
			task_done(s, ti);
			pick_next(s, c);
			return;
		}
		op = ir_wl_op(s->rd, (uint32_t)ti, t->pc);
		switch (op->kind) {
		case IR_OP_RUN:
			if (t->left || t->penalty) {
				arm(s, c);
				return;
			}
			advance(s, ti);
			if (s->sp->frozen && (op->flags & IR_OP_F_PREEMPTED)) {
				preempt_curr(s, c);
				return;
			}
			continue;
		case IR_OP_WAKE:
		case IR_OP_FORK:
			advance(s, ti);
			if (s->sp->frozen && op->ns) {
				/* queued at its recorded sched_wakeup */
				s->t[op->arg].waking = s->now;
				hpush(s, s->now + op->ns, E_QUEUE, op->arg,
				      (uint64_t)op->cpu | (uint64_t)(op->kind == IR_OP_FORK ? W_FORK : W_TASK) << 16);
				continue;
			}
			s->t[op->arg].waking = s->now;
			s->waker_exiting = op->flags & IR_OP_F_EXITING;
			wake_task(s, (int32_t)op->arg, c, op->cpu, op->kind == IR_OP_FORK ? W_FORK : W_TASK);
			s->waker_exiting = false;
			if (r->curr != ti)
				return;		/* preempted by its wakee */
			continue;
		case IR_OP_BLOCK_TASK:
			advance(s, ti);
			if (t->tokens) {
				t->tokens--;	/* woken before it got here */
				if (!s->sp->frozen)
					continue;
				/* frozen: the recorded switch out, then runnable again */
				put_curr(s, c);
				q_add(s, c, ti);
				t->woken = s->now;
				frozen_check(s, ti);
				pick_next(s, c);
				return;
			}
			block(s, c, ti, IR_OP_BLOCK_TASK);
			return;
		case IR_OP_BLOCK_DELAY:
			advance(s, ti);
			hpush(s, s->now + op->ns, E_WAKE, (uint32_t)ti, t->pc);
			block(s, c, ti, IR_OP_BLOCK_DELAY);
			return;
		default:	/* IR_OP_EXIT, IR_OP_END */
			t->pc = wt->nr_ops;
			put_curr(s, c);
			task_done(s, ti);
			pick_next(s, c);
			return;
		}
	}
}

/* ------------------------------------------------------------ balance */

/* load_balance()'s bookkeeping of c's sd at level l after a balance of
 * kind idle (v6.1 load_balance(); unchanged through v6.18's
 * sched_balance_rq()):
 *  - sd->nr_balance_failed: "if (!ld_moved)" with an imbalance found, a
 *    periodic balance raises it ("Increment the failure counter only on
 *    periodic balance"); a move, out_balanced and out_all_pinned reset it;
 *  - sd->balance_interval: an imbalance found (moved or not) resets it to
 *    sd->min_interval ("We were unbalanced"); out_balanced doubles it up to
 *    sd->max_interval (MAX_PINNED_INTERVAL, 512 ms, under LBF_ALL_PINNED),
 *    except after a newidle balance ("newidle_balance() disregards balance
 *    intervals ... Skip the balance_interval increase logic").
 * Active balance: active_balance(). */
static void balance_tune(struct sim *s, int c, int l, enum ir_lb_idle idle, bool moved, bool failed,
			 bool all_pinned)
{
	struct srq *r = &s->rq[c];

	if (!s->sp->balance_feedback || l < 0 || l >= r->nr_levels)
		return;
	if (failed) {
		if (idle != IR_CPU_NEWLY_IDLE && r->nr_balance_failed[l] < UINT16_MAX)
			r->nr_balance_failed[l]++;
	} else {
		r->nr_balance_failed[l] = 0;
	}
	if (moved || failed) {
		r->interval[l] = r->min_interval[l];
		return;
	}
	if (idle == IR_CPU_NEWLY_IDLE)
		return;
	if ((all_pinned && r->interval[l] < 512) || r->interval[l] < r->max_interval[l])
		r->interval[l] *= 2;
}

/* update_sd_lb_stats() at the top level (v6.1): "WRITE_ONCE(rd->overload,
 * sg_status & SG_OVERLOAD)", SG_OVERLOAD where some rq has nr_running > 1
 * (update_sg_lb_stats(); misfit tasks are not modelled).  Read from the
 * runqueues as they are: a count kept by the queue operations drifted, as
 * curr's block, exit and pick change nr_running without them. */
static void rewrite_overload(struct sim *s)
{
	bool o = false;

	for (int c = 0; c < s->n && !o; c++)
		o = nr_running(s, c) >= 2;
	s->overload = o;
}

/* CPU utilisation (PELT util_avg, 0..1024) up to now. */
static void cpu_util_update(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];

	r->util_avg = pelt(r->util_avg, &r->util_ts, s->now, r->curr >= 0 ? 1024.0 : 0.0);
}

/* The runqueues as load_balance() finds them from c (struct ir_rq_snap,
 * replay/replay.h): per CPU nr_running, whether idle, its utilisation, and
 * up to IR_SNAP_TASKS queued tasks from the tail of cfs_tasks (queued
 * longest first); c itself is empty at a newidle balance (prev is
 * dequeued), as it is at a periodic one (own).  Task "pids" are
 * the simulation's task indices. */
static void snapshot(struct sim *s, int c, struct ir_point *pt, bool own)
{
	memset(pt, 0, sizeof(*pt));
	pt->ts = pt->rq_ts = s->now;
	pt->cpu = c;
	pt->avg_idle = s->rq[c].avg_idle;
	pt->max_idle_balance_cost = s->rq[c].max_idle_balance_cost;
	pt->overload = s->overload;
	pt->pulled_pid = pt->pulled_from = -1;
	pt->probe_ret = -1;
	pt->nr_levels = s->rq[c].nr_levels;
	if (s->sp->balance_feedback)
		pt->nr_balance_failed = s->rq[c].nr_balance_failed;
	for (int l = 0; l < IR_MAX_LEVELS; l++)
		pt->ring[l] = (struct ir_cand){ .pid = -1, .cpu = -1 };
	pt->rq = s->snap;
	pt->nr_rq = s->n;
	for (int o = 0; o < s->n; o++) {
		const struct srq *r = &s->rq[o];
		struct ir_rq_snap *q = &s->snap[o];

		cpu_util_update(s, o);
		memset(q, 0, sizeof(*q));
		q->util = (float)r->util_avg;
		q->curr_idle = r->curr < 0;
		q->idle_since = r->idle ? r->idle_since : 0;
		if (o == c && !own)
			continue;
		q->nr_running = (uint16_t)nr_running(s, o);
		/* detach_tasks() walks from the tail: the longest queued first */
		for (uint32_t i = 0; i < r->nr_queued; i++) {
			int32_t ti = r->q[i];
			const struct stask *t = &s->t[ti];
			int k = q->nr_tasks < IR_SNAP_TASKS ? q->nr_tasks : IR_SNAP_TASKS;

			while (k > 0 && (s->t[q->task[k - 1].pid].enq > t->enq ||
					 (s->t[q->task[k - 1].pid].enq == t->enq && q->task[k - 1].pid > ti))) {
				if (k < IR_SNAP_TASKS)
					q->task[k] = q->task[k - 1];
				k--;
			}
			if (k >= IR_SNAP_TASKS)
				continue;
			q->task[k] = (struct ir_snap_task){
				.pid = ti, .prio = s->w->task[ti].prio, .exec_start = t->last_ran,
				.pinned = s->w->task[ti].pinned || t->delayed, .util = (float)(t->avg * 1024.0),
			};
			if (q->nr_tasks < IR_SNAP_TASKS)
				q->nr_tasks++;
		}
	}
}

/* attach_tasks(): the tasks detach_tasks() took from `from` in one pass
 * (pid[first..n), in detach order) are enqueued on c in that order.  It
 * stops at one no longer queued on `from`.  Returns the tasks moved. */
static unsigned attach_tasks(struct sim *s, int c, int from, const int32_t *pid, int first, int n,
			     uint64_t *counter)
{
	unsigned moved = 0;

	for (int i = first; i < n && i < IR_SNAP_TASKS; i++) {
		int32_t ti = pid[i];

		if (ti < 0 || (uint32_t)ti >= s->w->nr_tasks || s->t[ti].state != S_QUEUED ||
		    s->t[ti].cpu != from)
			break;
		q_del(s, ti);
		migrate(s, ti, from, c, counter);
		q_add(s, c, ti);
		moved++;
	}
	return moved;
}

/* A newidle load_balance() that detached more than one task (no
 * CONFIG_PREEMPTION: v6.1 detach_tasks() breaks after the first only
 * "#ifdef CONFIG_PREEMPTION ... if (env->idle == CPU_NEWLY_IDLE)"):
 * attach_tasks() enqueues the others on c now; the first is c's next curr,
 * moved when it is picked (set_curr()). */
static void newidle_attach_rest(struct sim *s, int c, const struct ir_outcome *o)
{
	if (o->moved > 1)
		attach_tasks(s, c, o->from_cpu, o->moved_pid, 1, o->moved,
			     s->sp->frozen ? NULL : &s->res->mig_newidle);
}

/* The end of a newidle walk: the policy learns its outcome, and the
 * figures and the capture take it.  broke: a task arrived on c during the
 * level in progress, so the walk stopped after it (the decision is cut
 * there, as ir_decide() cuts it at an arrival). */
static void newidle_end(struct sim *s, int c, const struct ir_decision_ctx *ctx, const struct ir_decision *dd,
			const struct ir_outcome *o, uint64_t start, bool broke)
{
	struct srq *r = &s->rq[c];
	struct ir_decision d = *dd;

	if (broke && r->nb_i + 1 < d.nr_tried) {
		d.nr_tried = r->nb_i + 1;
		d.stop_level = d.tried[r->nb_i] + 1 < r->nr_levels ? d.tried[r->nb_i] + 1 : -1;
	}
	ir_policy_update(ctx, s->pol, &d, o, &s->pst);
	/* "if (curr_cost > this_rq->max_idle_balance_cost)" after the walk */
	if (o->cost_ns > r->max_idle_balance_cost)
		r->max_idle_balance_cost = o->cost_ns;
	if (o->pulled) {
		s->res->newidle_pulls++;
		r->idle_stamp = 0;
	} else if (broke) {
		/* "While browsing the domains, we released the rq lock, a task
		 * could have been enqueued in the meantime.  Since we're not
		 * going idle, pretend we pulled a task": idle_stamp = 0 */
		r->idle_stamp = 0;
	}
	if (s->sp->capture) {
		ir_capture_newidle(s->sp->capture, c, start, o->cost_ns, o->pulled ? o->pid : -1, o->from_cpu,
				   o->attempts);
		ir_capture_switch(s->sp->capture, c, start, o->cost_ns ? IR_CAP_BALANCE : IR_CAP_NONE);
	}
}

/* The walk's level r->nb_i, load_balance(CPU_NEWLY_IDLE) on the runqueues
 * as they are now (pt: their snapshot, NULL to take one).  The task pulled,
 * which ends the walk, else -2: E_NEWIDLE ends the level at its cost. */
static int32_t newidle_level(struct sim *s, int c, struct ir_point *pt)
{
	struct srq *r = &s->rq[c];
	const struct ir_decision *d = &r->nb_d;
	struct ir_decision one = { .bail = IR_BAIL_NONE, .nr_tried = 1, .stop_level = -1 };
	struct ir_decision_ctx ctx;
	struct ir_outcome o1;
	struct ir_point own;
	int i = r->nb_i, lvl = d->tried[i];

	if (!pt) {
		snapshot(s, c, &own, false);
		pt = &own;
	}
	one.tried[0] = d->tried[i];
	one.cost[0] = d->cost[i];
	one.kind[0] = d->kind[i];
	ir_decision_ctx_init(&ctx, pt, s->dom);
	ir_outcome_lb(&ctx, s->pol, &one, &o1);
	balance_tune(s, c, lvl, IR_CPU_NEWLY_IDLE, o1.pulled, o1.lb_failed[lvl], false);
	r->nb_o.attempts++;
	r->nb_o.cost_ns += d->cost[i];
	r->nb_o.attempt_cost[lvl] = d->cost[i];
	s->res->newidle_attempts++;
	s->res->balance_cpu_ns += d->cost[i];
	if (lvl == r->nr_levels - 1)
		rewrite_overload(s);	/* the walk reached the top level */
	/* a CPU still busy with a balance (a task it pulled left at once)
	 * balances after it, not over it: idle and balance never overlap */
	r->avail = (r->avail > s->now ? r->avail : s->now) + d->cost[i];
	if (o1.pulled && o1.pid >= 0 && (uint32_t)o1.pid < s->w->nr_tasks &&
	    s->t[o1.pid].state == S_QUEUED && s->t[o1.pid].cpu == o1.from_cpu) {
		r->nb_o.pulled = true;
		r->nb_o.moved = o1.moved;
		r->nb_o.level = lvl;
		r->nb_o.level_kind = d->kind[i];
		r->nb_o.pid = o1.pid;
		r->nb_o.from_cpu = o1.from_cpu;
		r->nb_active = false;
		newidle_attach_rest(s, c, &o1);
		newidle_end(s, c, &r->nb_ctx, d, &r->nb_o, r->nb_start, false);
		return o1.pid;
	}
	hpush(s, r->avail, E_NEWIDLE, (uint32_t)c, ++r->nb_gen);
	return -2;
}

/* sched_balance_newidle(): c's queue ran empty at now.  The policy decides
 * (ir_decide()) which levels the walk tries, and model/'s load_balance()
 * (ir_outcome_lb()) runs at each on the simulated runqueues.  The kernel
 * drops the rq lock for the walk ("raw_spin_rq_unlock(this_rq)", v6.1
 * newidle_balance(), v6.18 sched_balance_newidle()) and balances one level
 * after another, each taking its cost; after each: "Stop searching for
 * tasks to pull if there are now runnable tasks on this rq" (pulled_task
 * || this_rq->nr_running > 0 || this_rq->ttwu_pending, v5.13+).  So each
 * level is balanced at its own time, on the runqueues as they are then
 * (newidle_level()), and a task enqueued on c meanwhile (a wakeup, a
 * periodic pull) ends the walk after the level in progress: it runs at that
 * level's end, and the later levels are not tried.  The task pulled, -1
 * (go idle, after r->avail), or -2: the walk goes on (E_NEWIDLE). */
static int32_t newidle(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];
	struct ir_decision_ctx ctx;
	struct ir_decision d;
	struct ir_outcome o;
	struct ir_point pt;
	int32_t pulled = -1;

	r->idle_stamp = s->now;
	snapshot(s, c, &pt, false);
	ir_decision_ctx_init(&ctx, &pt, s->dom);
	if (s->w->probed_walk_ns) {
		/* The walk takes curr_cost, what its load_balance() calls took
		 * ("t1 = sched_clock_cpu(this_cpu); domain_cost = t1 - t0;
		 * curr_cost += domain_cost", v6.1 newidle_balance(), v6.18
		 * sched_balance_newidle()); sd->max_newidle_lb_cost is only the
		 * bound the walk checks avg_idle against, a maximum decaying by
		 * 1 % a second.  With probes the trace measures curr_cost (the
		 * median walking call): the walk never costs more, as
		 * ir_decide() does for a probed call of the open loop. */
		ctx.probed = true;
		ctx.probe_dur = s->w->probed_walk_ns;
	}
	ir_decide(&ctx, s->pol, &s->pst, &d);
	s->res->newidle_calls++;
	if (s->sp->newidle_lock_drop && d.nr_tried) {
		r->nb_active = true;
		r->nb_i = 0;
		r->nb_d = d;
		r->nb_ctx = ctx;
		r->nb_ctx.pt = NULL;	/* ir_policy_update() reads no point */
		r->nb_start = r->avail > s->now ? r->avail : s->now;
		memset(&r->nb_o, 0, sizeof(r->nb_o));
		r->nb_o.level = -1;
		r->nb_o.pid = r->nb_o.from_cpu = -1;
		return newidle_level(s, c, &pt);
	}
	/* the whole walk at its entry (newidle_lock_drop off, or no level) */
	ir_outcome_lb(&ctx, s->pol, &d, &o);
	for (int i = 0; i < o.attempts && i < d.nr_tried; i++)
		balance_tune(s, c, d.tried[i], IR_CPU_NEWLY_IDLE, o.pulled && o.level == d.tried[i],
			     o.lb_failed[d.tried[i]], false);
	for (int i = 0; i < d.nr_tried; i++)
		if (d.tried[i] == r->nr_levels - 1 && (!o.pulled || o.level == d.tried[i]))
			rewrite_overload(s);	/* the walk reached the top level */
	if (o.pulled && o.pid >= 0 && (uint32_t)o.pid < s->w->nr_tasks &&
	    s->t[o.pid].state == S_QUEUED && s->t[o.pid].cpu == o.from_cpu) {
		pulled = o.pid;
		newidle_attach_rest(s, c, &o);
	} else
		o.pulled = false;
	s->res->newidle_attempts += (uint64_t)o.attempts;
	s->res->balance_cpu_ns += o.cost_ns;
	r->avail = (r->avail > s->now ? r->avail : s->now) + o.cost_ns;
	newidle_end(s, c, &ctx, &d, &o, r->avail - o.cost_ns, false);
	return pulled;
}

/* E_NEWIDLE: the walk's level ended.  A task enqueued meanwhile stops the
 * walk; else the next level, or idle after the last. */

static void newidle_next(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];
	int32_t who;

	if (r->nr_queued) {
		pick_next(s, c);	/* ends the walk (broke) and picks */
		return;
	}
	if (r->nb_i + 1 < r->nb_d.nr_tried) {
		r->nb_i++;
		who = newidle_level(s, c, NULL);
		if (who >= 0) {
			set_curr(s, c, who);
			run_curr(s, c);
		}
		return;
	}
	r->nb_active = false;
	newidle_end(s, c, &r->nb_ctx, &r->nb_d, &r->nb_o, r->nb_start, false);
	go_idle(s, c, s->now);
}

/* Active balance (v6.1 load_balance(), need_active_balance()'s
 * imbalanced_active_balance(): migrate_task and sd->nr_balance_failed >
 * sd->cache_nice_tries + 2; asym packing, misfit and reduced capacity are
 * not modelled).  Unless the busiest CPU's curr may not run on c ("Don't
 * kick the active_load_balance_cpu_stop, if the curr task on busiest CPU
 * can't be moved to this_cpu": out_one_pinned), its stopper preempts curr
 * and active_load_balance_cpu_stop()'s detach_one_task() moves the first
 * task from the tail of cfs_tasks that can_migrate_task() allows, cache
 * hot or not (LBF_ACTIVE_LB): the longest queued, else the preempted curr
 * (cfs_tasks is MRU: pick_next_task_fair() moves the picked task to its
 * head).  The stopper is taken to run at once.  "We've kicked active
 * balancing, force task migration": sd->nr_balance_failed =
 * sd->cache_nice_tries + 1.  Returns whether a task moved. */
static bool active_balance(struct sim *s, int c, int l, int src)
{
	struct srq *b;
	int32_t ti = -1;

	if (src < 0 || src >= s->n || src == c)
		return false;
	b = &s->rq[src];
	if (b->curr < 0 || s->w->task[b->curr].pinned)
		return false;
	for (uint32_t i = 0; i < b->nr_queued; i++) {
		int32_t q = b->q[i];

		if (s->w->task[q].pinned || s->t[q].delayed)
			continue;
		if (ti < 0 || s->t[q].enq < s->t[ti].enq || (s->t[q].enq == s->t[ti].enq && q < ti))
			ti = q;
	}
	if (ti < 0) {
		ti = b->curr;
		put_curr(s, src);
		q_add(s, src, ti);
	}
	q_del(s, ti);
	migrate(s, ti, src, c, &s->res->mig_periodic);
	q_add(s, c, ti);
	if (b->curr < 0)
		pick_next(s, src);
	s->rq[c].nr_balance_failed[l] = (uint16_t)(s->rq[c].cache_nice_tries[l] + 1);
	return true;
}

/* Periodic load_balance() at level l of c (rebalance_domains() v6.1,
 * sched_balance_domains() v6.10+; CPU_IDLE or CPU_NOT_IDLE): model/'s
 * load_balance() on the simulated runqueues, c's own included.  The kernel
 * detaches up to the imbalance in one call (detach_tasks(), no
 * CONFIG_PREEMPTION stop outside newidle, up to loop_max tasks looked at),
 * and so does this: every task the one call detached moves.  Returns the
 * tasks moved. */
static unsigned periodic_balance(struct sim *s, int c, int l, enum ir_lb_idle idle)
{
	struct ir_point pt;
	struct ir_lb_env env;
	struct ir_lb_result r;

	snapshot(s, c, &pt, true);
	ir_lb_env_init(&env, s->pol, s->dom, &pt, idle);
	ir_lb_env_level(&env, s->pol, l);
	env.now = s->now;
	ir_load_balance(&env, &r);
	balance_tune(s, c, l, idle, r.moved > 0, r.failed, r.all_pinned > 0);
	if (s->sp->balance_feedback && r.failed && !r.moved && r.migrate_task &&
	    s->rq[c].nr_balance_failed[l] > s->rq[c].cache_nice_tries[l] + 2)
		return active_balance(s, c, l, r.busiest_cpu) ? 1 : 0;
	return attach_tasks(s, c, r.from_cpu, r.moved_pid, 0, r.moved, &s->res->mig_periodic);
}

static void frozen_pick(struct sim *s, int c);

static void pick_next(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];
	int32_t who;

	if (s->sp->frozen) {
		frozen_pick(s, c);
		return;
	}
	if (r->nb_active) {
		if (!r->nr_queued)
			return;		/* the newidle walk goes on (E_NEWIDLE) */
		/* a task arrived during the walk's level in progress: the walk
		 * stops after it, and the task runs at its end (r->avail) */
		r->nb_active = false;
		newidle_end(s, c, &r->nb_ctx, &r->nb_d, &r->nb_o, r->nb_start, true);
	}
	for (;;) {
		if (!r->nr_queued) {
			who = s->pol ? newidle(s, c) : -1;
			if (who == -2)
				return;		/* the walk goes on (E_NEWIDLE) */
			if (who < 0) {
				go_idle(s, c, r->avail > s->now ? r->avail : s->now);
				return;
			}
			break;
		}
		who = s->sp->eevdf ? pick_eevdf(s, c, false) : cfs_pick(s, c, false);
		if (!s->t[who].delayed)
			break;
		delayed_dequeue(s, who);	/* pick_next_entity(): dequeue, pick again */
	}
	set_curr(s, c, who);
	run_curr(s, c);
}

/* ------------------------------------------------------------ frozen */

/* The CPU switches to the task it switched to in the trace, no earlier than
 * the trace did and once the task is runnable. */
static void frozen_pick(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];
	const struct ir_workload *w = s->w;

	go_idle(s, c, s->now);
	r->frozen_want = -1;
	while (r->swpos < w->nr_sw[c]) {
		const struct ir_sw_rec *rec = ir_wl_sw(s->rd, c, r->swpos);

		if (rec->task < 0 || s->t[rec->task].state == S_DONE) {
			r->swpos++;
			continue;
		}
		if (rec->ns > s->now) {
			hpush(s, rec->ns, E_FROZEN, (uint32_t)c, r->swpos);
			return;
		}
		if (s->t[rec->task].state == S_QUEUED) {
			r->swpos++;
			set_curr(s, c, rec->task);
			run_curr(s, c);
			return;
		}
		r->frozen_want = rec->task;	/* not runnable yet here */
		return;
	}
}

static void frozen_check(struct sim *s, int32_t ti)
{
	for (int c = 0; c < s->n; c++)
		if (s->rq[c].curr < 0 && s->rq[c].frozen_want == ti) {
			frozen_pick(s, c);
			return;
		}
}

/* ------------------------------------------------------------- wakeup */

static bool share_cache(const struct sim *s, int a, int b)
{
	int l = s->rq[a].llc;

	return a == b || (l >= 0 && in_level(s, a, l, b));
}

/* update_idle_cpu_scan() (v5.19, 70fb5ccf2ebb; unchanged through v6.18),
 * from update_sd_lb_stats() at the LLC level of a periodic balance (never
 * CPU_NEWLY_IDLE): the share of the LLC to scan falls with the square of
 * its utilisation, reaching 0 at 100 / imbalance_pct (85 %):
 * x = sum_util / llc_weight, y = 1024 - min(1024, x^2 pct^2 / (10000 x 1024)),
 * nr_idle_scan = y x llc_weight / 1024. */
static void update_idle_cpu_scan(struct sim *s, int c, int l)
{
	struct srq *r = &s->rq[c];
	uint64_t sum_util = 0, x, tmp, y;
	uint64_t pct = r->imbalance_pct[l];

	if (!s->sp->sis_util || l != r->llc || !r->llc_size)
		return;
	for (int o = 0; o < s->n; o++) {
		if (o != c && !in_level(s, c, l, o))
			continue;
		cpu_util_update(s, o);
		sum_util += s->rq[o].util_avg < 1024.0 ? (uint64_t)s->rq[o].util_avg : 1024;
	}
	x = sum_util / r->llc_size;
	tmp = x * x * pct * pct / (10000 * 1024);
	if (tmp > 1024)
		tmp = 1024;
	y = (1024 - tmp) * r->llc_size / 1024;
	s->rq[r->llc_id].nr_idle_scan = (int)y;
}

/* select_idle_sibling() (v6.1 and v6.18 alike here; no asymmetric
 * capacity, no per-CPU kthread waker case) */
static int select_idle_sibling(struct sim *s, struct stask *p, int prev, int target)
{
	int l = s->rq[target].llc, nr = INT32_MAX;
	int recent_used_cpu = p->recent_used_cpu;
	bool has_idle_core = false;

	if (cpu_idle(s, target))
		return target;
	if (prev != target && share_cache(s, prev, target) && cpu_idle(s, prev))
		return prev;
	if (s->sp->recent_used_cpu) {
		/* a recently used CPU as a potential idle candidate */
		p->recent_used_cpu = (int16_t)prev;
		if (recent_used_cpu >= 0 && recent_used_cpu < s->n && recent_used_cpu != prev &&
		    recent_used_cpu != target && share_cache(s, recent_used_cpu, target) &&
		    cpu_idle(s, recent_used_cpu) && !s->w->task[p - s->t].pinned)
			return recent_used_cpu;
	}
	if (l < 0)
		return target;
	if (s->rq[target].smt[0]) {
		/* sched_smt_active(): test_idle_cores(); without an idle core,
		 * select_idle_smt() of prev (c722f35b513f, v5.18): an idle SMT
		 * sibling of prev, not limited by SIS_UTIL */
		has_idle_core = s->rq[s->rq[target].llc_id].has_idle_cores;
		if (s->sp->select_idle_smt && !has_idle_core && share_cache(s, prev, target))
			for (int o = 0; o < s->n; o++)
				if (o != prev && in_level(s, prev, 0, o) && cpu_idle(s, o))
					return o;
	}
	if (s->sp->sis_util) {
		/* select_idle_cpu(): "overloaded LLC is unlikely to have idle
		 * cpu/core": no scan at all when nr_idle_scan is 0 */
		nr = s->rq[s->rq[target].llc_id].nr_idle_scan + 1;
		if (nr == 1)
			return target;
	}
	if (has_idle_core) {
		/* select_idle_core() over the LLC from target + 1, each core
		 * once: a core whose siblings are all idle, else the first idle
		 * CPU seen; none: set_idle_cores(target, false) */
		int idle_cpu = -1;

		for (int k = 1; k <= s->n; k++) {
			int o = (target + k) % s->n;
			bool seen = false, all = true;

			if (!in_level(s, target, l, o))
				continue;
			for (int j = 1; j < k && !seen; j++)
				seen = in_level(s, o, 0, (target + j) % s->n);
			if (seen)
				continue;	/* its core was checked */
			for (int x = 0; x < s->n; x++) {
				if (!in_level(s, o, 0, x))
					continue;
				if (!cpu_idle(s, x))
					all = false;
				else if (idle_cpu < 0)
					idle_cpu = x;
			}
			if (all)
				return o;
		}
		s->rq[s->rq[target].llc_id].has_idle_cores = false;
		return idle_cpu >= 0 ? idle_cpu : target;
	}
	for (int k = 1; k <= s->n; k++) {
		int o = (target + k) % s->n;

		if (!in_level(s, target, l, o))
			continue;
		if (!--nr)
			return target;	/* scanned nr_idle_scan CPUs */
		if (cpu_idle(s, o))
			return o;
	}
	return target;
}

/* wake_affine(): wake_affine_idle(), then wake_affine_weight() on the
 * instantaneous load (sum of runnable weights) instead of PELT's. */
static int wake_affine(struct sim *s, int l, const struct stask *t, int this_cpu, int prev, bool sync)
{
	double this_load, prev_load, task_load = t->weight * t->avg;
	unsigned pct = s->rq[this_cpu].imbalance_pct[l];

	if (cpu_idle(s, this_cpu) && share_cache(s, this_cpu, prev))
		return cpu_idle(s, prev) ? prev : this_cpu;
	if (sync && nr_running(s, this_cpu) - s->rq[this_cpu].nr_delayed == 1)
		return this_cpu;	/* v6.12+: less cfs_h_nr_delayed() */
	if (cpu_idle(s, prev))
		return prev;
	/* wake_affine_weight() on PELT averages of the runnable weight */
	rq_load_update(s, this_cpu);
	rq_load_update(s, prev);
	this_load = s->rq[this_cpu].load_avg;
	prev_load = s->rq[prev].load_avg;
	if (sync && s->rq[this_cpu].curr >= 0) {
		/* task_h_load(current): the waker's load, as its last
		 * update_load_avg() (the tick, at most a jiffy old) left it;
		 * a waker heavier than its CPU's load takes the wakee */
		int32_t ci = s->rq[this_cpu].curr;
		double cl;

		task_avg_update(s, ci, true);
		cl = s->t[ci].weight * s->t[ci].avg;
		if (cl > this_load)
			return this_cpu;
		this_load -= cl;
	}
	/* s64 in the kernel: prev_eff_load may go below 0 */
	this_load = (this_load + task_load) * 100;
	prev_load = (prev_load - task_load) * (100 + (pct - 100) / 2);
	if (sync)
		prev_load += 1;	/* equal loads: stack the wakee on the waker */
	return this_load < prev_load ? this_cpu : prev;
}

/* record_wakee() (c58d25f371f5, v4.7: called from select_task_rq_fair()
 * for every wakeup): the waker's flips halve once a second (HZ jiffies)
 * and count each change of wakee. */
static void record_wakee(struct sim *s, struct flips *waker, int32_t wakee)
{
	if (s->now > waker->decay_ts + 1000000000ull) {
		waker->wakee_flips >>= 1;
		waker->decay_ts = s->now;
	}
	if (waker->last_wakee != wakee) {
		waker->last_wakee = wakee;
		waker->wakee_flips++;
	}
}

/* wake_wide() (63b0e9edceec, v4.3; unchanged through v6.18): a waker and
 * wakee that each switch partners more often than the LLC has CPUs, one
 * llc_size times more than the other, are a 1:N pattern: no wake_affine(),
 * the wakee stays with prev_cpu (select_idle_sibling() from there). */
static bool wake_wide(const struct sim *s, const struct flips *waker, const struct stask *p, int this_cpu)
{
	unsigned master = waker->wakee_flips, slave = p->flips.wakee_flips;
	unsigned factor = s->rq[this_cpu].llc_size;

	if (master < slave) {
		unsigned x = master;

		master = slave;
		slave = x;
	}
	return !(slave < factor || master < slave * factor);
}

/* waker: the task (or the CPU's idle task and kthreads) that wakes ti,
 * NULL for a fork (WF_FORK: no record_wakee()); sync: WF_SYNC. */
static int select_task_rq_fair(struct sim *s, int32_t ti, int this_cpu, struct flips *waker, bool sync)
{
	struct stask *t = &s->t[ti];
	int prev = t->cpu, target = prev;
	bool fork = !waker;

	if (s->w->task[ti].pinned)
		return s->w->task[ti].start_cpu < s->n ? s->w->task[ti].start_cpu : 0;
	if (fork) {
		/* find_idlest_cpu() over the top domain: fewest running, the parent's first */
		int best = this_cpu;
		unsigned bn = nr_running(s, this_cpu);

		for (int o = 0; o < s->n; o++)
			if (nr_running(s, o) < bn) {
				bn = nr_running(s, o);
				best = o;
			}
		return best;
	}
	record_wakee(s, waker, ti);
	if (this_cpu != prev && !wake_wide(s, waker, t, this_cpu)) {
		unsigned lv = level_of(s, this_cpu, prev);

		if (lv != IR_NO_LEVEL)
			target = wake_affine(s, (int)lv, t, this_cpu, prev, sync);
	}
	return select_idle_sibling(s, &s->t[ti], prev, target);
}

/* ttwu_do_wakeup() (v6.1): update_avg(&rq->avg_idle, now - idle_stamp),
 * capped at 2 * max_idle_balance_cost. */
static void sample_avg_idle(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];

	if (r->idle_stamp) {
		uint64_t delta = s->now - r->idle_stamp, cap = 2 * r->max_idle_balance_cost;
		int64_t diff = (int64_t)delta - (int64_t)r->avg_idle;

		r->avg_idle = (uint64_t)((int64_t)r->avg_idle + diff / 8);
		if (r->avg_idle > cap)
			r->avg_idle = cap;
		r->idle_stamp = 0;
	}
}

static void wake_task(struct sim *s, int32_t ti, int waker_cpu, int rec_cpu, enum wake_how how)
{
	struct stask *t = &s->t[ti];
	struct srq *r;
	int c;

	if (how == W_FORK ? t->state != S_UNSTARTED :
	    how == W_TASK ? !(blocked(t) && t->blocked_on == IR_OP_BLOCK_TASK) :
	    !blocked(t)) {
		if (how == W_TASK)
			t->tokens++;	/* it has not reached the block this wakeup ends */
		return;
	}
	if (waker_cpu >= s->n)
		waker_cpu = 0;
	if (t->delayed) {
		/* ttwu_runnable() -> requeue_delayed_entity(): where it is */
		uint64_t v;

		c = t->cpu;
		r = &s->rq[c];
		update_curr(s, c);
		v = avg_vruntime(s, c);
		r->nr_delayed--;
		s->nr_waiting++;
		t->delayed = false;
		t->state = S_QUEUED;
		t->enq = s->now;
		s->res->wakeups++;
		t->woken = how == W_IRQ ? s->now : (t->waking > t->blocked_at ? t->waking : t->blocked_at);
		if ((int64_t)(t->vruntime - v) < 0) {
			/* DELAY_ZERO: eligible by now, lag > 0: placed at lag 0 */
			t->vruntime = v;
			t->deadline = v + vslice(s, t);
		}
		if (r->curr < 0) {
			/* not reached: a delayed task's CPU runs another */
			hpush(s, r->avail > s->now ? r->avail : s->now, E_CPU, (uint32_t)c, ++r->gen);
			return;
		}
		goto preempt;
	}
	task_avg_update(s, ti, false);		/* it slept until now */
	if (s->sp->frozen) {
		c = rec_cpu < s->n ? rec_cpu : 0;
	} else {
		struct flips *waker = NULL;
		bool sync = false;

		if (how == W_TASK && s->rq[waker_cpu].curr >= 0) {
			waker = &s->t[s->rq[waker_cpu].curr].flips;
			/* WF_SYNC: a task's wakeup of a task, taken as the
			 * pipe or socket wakeup it most often is (parameter);
			 * select_task_rq_fair(): "sync = (wake_flags & WF_SYNC)
			 * && !(current->flags & PF_EXITING)" (v6.1, v6.18) */
			sync = s->sp->sync_wakeups && !s->waker_exiting;
		} else if (how != W_FORK) {
			waker = &s->rq[waker_cpu].irq_flips;
		}
		c = select_task_rq_fair(s, ti, waker_cpu, waker, sync);
	}
	if (how != W_START) {
		s->res->wakeups++;
		/* from its sched_waking, or its block if the wakeup came first */
		t->woken = how == W_IRQ ? s->now : (t->waking > t->blocked_at ? t->waking : t->blocked_at);
	}
	r = &s->rq[c];
	if (s->sp->eevdf) {
		if (how == W_START)
			t->cpu = (int16_t)c;
		else if (how != W_FORK)
			migrate(s, ti, t->cpu, c, &s->res->mig_wakeup);
		place_eevdf(s, c, t, how == W_FORK || how == W_START);
	} else if (how == W_FORK) {
		t->vruntime = r->min_vruntime + sched_slice(s, c, t);	/* place_entity(): START_DEBIT */
	} else {
		uint64_t half = s->sp->sysctl_sched_latency / 2;
		uint64_t floor;

		if (how == W_START)
			t->cpu = (int16_t)c;	/* it enters there: no migration */
		else
			migrate(s, ti, t->cpu, c, &s->res->mig_wakeup);
		floor = r->min_vruntime - half;
		if (vbefore(t->vruntime, floor))
			t->vruntime = floor;	/* place_entity(): GENTLE_FAIR_SLEEPERS */
	}
	if (how == W_FORK) {
		s->res->mig_fork += c != waker_cpu;
		t->recent_used_cpu = (int16_t)c;	/* wake_up_new_task() */
	}
	sample_avg_idle(s, c);
	q_add(s, c, ti);
	if (s->sp->frozen) {
		frozen_check(s, ti);
		return;
	}
	if (r->curr < 0 && r->nb_active)
		return;		/* in its newidle walk, not idle: it takes the
				 * task at the end of the level in progress */
	if (r->curr < 0) {
		/* the idle CPU runs it after the machine's wakeup latency
		 * (IPI, idle exit), or after the balance it is doing; drawn
		 * from the trace, a CPU already leaving idle (or balancing)
		 * leaves it once: this wakee queues behind the first, as the
		 * latencies drawn were measured (workload.c exit_mark()) */
		if (s->sp->idle_exit_median || r->avail <= s->now) {
			uint64_t at = s->now + idle_exit_draw(s, waker_cpu == c);

			if (r->avail < at)
				r->avail = at;
		}
		if (r->avail > s->now)
			hpush(s, r->avail, E_CPU, (uint32_t)c, ++r->gen);
		else
			pick_next(s, c);
		return;
	}
	/* check_preempt_wakeup() */
	update_curr(s, c);
preempt:
	{
		const struct stask *cur = &s->t[r->curr];
		uint64_t gran = s->sp->sysctl_sched_wakeup_granularity * NICE_0_LOAD / t->weight;

		bool preempt;

		if (s->sp->eevdf) {
			/* check_preempt_wakeup_fair() (v6.6+): pick_eevdf() with
			 * RUN_TO_PARITY: an eligible curr keeps the CPU until its
			 * deadline; else the wakee if it is the pick */
			uint64_t v = avg_vruntime(s, c);

			preempt = !((int64_t)(cur->vruntime - v) <= 0 && vbefore(cur->vruntime, cur->deadline)) &&
				  pick_eevdf(s, c, true) == ti;
		} else if (r->resched_at) {
			preempt = false;	/* test_tsk_need_resched(curr): nothing more */
		} else {
			preempt = (int64_t)(cur->vruntime - t->vruntime) > (int64_t)gran;
			if (preempt) {
				/* set_next_buddy(pse); LAST_BUDDY with
				 * nr_running >= sched_nr_latency (scale) */
				unsigned nr_latency = (unsigned)(s->sp->sysctl_sched_latency /
								 s->sp->sysctl_sched_min_granularity);

				r->next_buddy = ti;
				if (nr_running(s, c) >= nr_latency)
					r->last_buddy = r->curr;
			}
		}
		if (preempt) {
			/* resched_curr(): the switch comes after the machine's
			 * measured rescheduling latency */
			if (!s->w->resched_ns) {
				preempt_curr(s, c);
				return;
			}
			if (!r->resched_at)
				r->resched_at = s->now + s->w->resched_ns;
		}
	}
	arm(s, c);	/* its slice now counts */
}

/* ------------------------------------------------------------ periodic */

/* get_sd_balance_interval() (v6.1; unchanged through v6.18): the level's
 * sd->balance_interval in ms, x busy_factor while busy, "scale ms to
 * jiffies" (msecs_to_jiffies() rounds up), one jiffy less while busy
 * ("Reduce likelihood of busy balancing at higher domains racing with
 * balancing at lower domains by preventing their balancing periods from
 * being multiples of each other"), clamped to [1, max_load_balance_interval
 * = HZ x num_online_cpus() / 10] (update_max_interval()).  In ns; without a
 * jiffy (tick_ns 0) the milliseconds as they are. */
static uint64_t balance_interval(const struct sim *s, int c, int l, bool busy)
{
	uint64_t ns = (uint64_t)s->rq[c].interval[l] * 1000000ull * (busy ? s->sp->busy_factor : 1);
	uint64_t tick = s->sp->tick_ns, j, max_j;

	if (!tick || !s->sp->balance_jiffies)
		return ns;
	j = (ns + tick - 1) / tick;
	if (busy && j)
		j--;
	max_j = 1000000000ull / tick * (uint64_t)s->n / 10;
	if (j > max_j)
		j = max_j;
	if (j < 1)
		j = 1;
	return j * tick;
}

/* rebalance_domains() runs from the SCHED_SOFTIRQ that the tick raises
 * (trigger_load_balance(): jiffies past rq->next_balance; an idle CPU's by
 * the NOHZ kick from a busy CPU's tick) and sets sd->last_balance =
 * jiffies: a balance falls on a tick, the first at or after t. */
static uint64_t on_tick(const struct sim *s, uint64_t t)
{
	uint64_t tick = s->sp->tick_ns;

	if (!tick || !s->sp->balance_jiffies)
		return t;
	return (t + tick - 1) / tick * tick;
}

static void push_balance(struct sim *s, int c, uint64_t at)
{
	struct srq *r = &s->rq[c];

	r->bal_at = at;
	hpush(s, at, E_BALANCE, (uint32_t)c, ++r->bal_gen);
}

/* idle_cpu() (v6.1 kernel/sched/core.c): rq->curr is the idle task and
 * nothing is queued.  A CPU inside its newidle walk (or still paying for
 * one) is not: rq->curr is still prev until context_switch(). */
static bool sim_idle_cpu(const struct sim *s, int o)
{
	const struct srq *r = &s->rq[o];

	return r->curr < 0 && !r->nr_queued && !r->nb_active && r->avail <= s->now;
}

/* should_we_balance() (model/lb.c) on the simulated CPUs */
static bool should_we_balance(struct sim *s, int c, int l)
{
	if (!s->dom)
		return true;
	for (int o = 0; o < s->n; o++)
		s->swb_idle[o] = sim_idle_cpu(s, o);
	return ir_should_we_balance(s->dom, c, l, s->swb_idle, s->sp->swb_idle_core);
}

/* rebalance_domains() (v6.1; sched_balance_domains() from v6.10): a level
 * balances once jiffies pass sd->last_balance + get_sd_balance_interval(sd,
 * busy), busy as the CPU is at the check (recomputed after a balance that
 * moved tasks), so a CPU that went idle balances at the short interval.
 * load_balance() returns at once where should_we_balance() says another CPU
 * of the group balances ("*continue_balancing = 0; goto out_balanced",
 * before update_sd_lb_stats(): no rd->overload rewrite, no SIS_UTIL
 * update); the level's sd->last_balance is still set, and the levels above
 * are not visited ("if (!continue_balancing) break"). */
static void periodic(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];
	uint64_t next = UINT64_MAX;
	bool busy = r->curr >= 0;

	for (int l = 0; l < r->nr_levels; l++) {
		bool cont = true;

		if (s->now >= r->last_balance[l] + balance_interval(s, c, l, busy)) {
			enum ir_lb_idle idle = busy ? IR_CPU_NOT_IDLE : IR_CPU_IDLE;

			cont = should_we_balance(s, c, l);
			if (!cont) {
				balance_tune(s, c, l, idle, false, false, false);	/* out_balanced */
			} else {
				unsigned moved = periodic_balance(s, c, l, idle);

				update_idle_cpu_scan(s, c, l);
				if (l == r->nr_levels - 1)
					rewrite_overload(s);
				if (moved) {
					if (r->curr < 0 && r->avail <= s->now)
						pick_next(s, c);
					else if (r->curr >= 0)
						arm(s, c);
					busy = r->curr >= 0 || r->nr_queued;
				}
			}
			r->last_balance[l] = s->now;
		}
		if (r->last_balance[l] + balance_interval(s, c, l, busy) < next)
			next = r->last_balance[l] + balance_interval(s, c, l, busy);
		if (!cont)
			break;
	}
	if (next != UINT64_MAX && s->live)
		push_balance(s, c, next);
}

/* A CPU going idle: its levels are due at their idle interval, which
 * newidle_balance()'s update_next_balance() (v6.1; sched_balance_newidle()
 * from v6.10) brings into rq->next_balance, and the NOHZ idle balance
 * (nohz_balancer_kick(), kick_ilb()) runs for a tickless idle CPU: taken
 * here as the CPU's own balance at that time. */
static void idle_balance_due(struct sim *s, int c, uint64_t from)
{
	struct srq *r = &s->rq[c];
	uint64_t next = UINT64_MAX;

	if (!s->pol || s->sp->frozen || !s->live)
		return;
	for (int l = 0; l < r->nr_levels; l++)
		if (r->last_balance[l] + balance_interval(s, c, l, false) < next)
			next = r->last_balance[l] + balance_interval(s, c, l, false);
	if (next < from)
		next = on_tick(s, from);
	if (next < r->bal_at)
		push_balance(s, c, next);
}

/* ------------------------------------------------------------ the loop */

void ir_sim_params_default(struct ir_sim_params *p, int nr_cpus)
{
	unsigned factor = 1;	/* SCHED_TUNABLESCALING_LOG: 1 + ilog2(min(ncpus, 8)) */

	for (int n = nr_cpus < 8 ? nr_cpus : 8; n > 1; n >>= 1)
		factor++;
	memset(p, 0, sizeof(*p));
	p->seed = 1;
	p->refill_ns = 5000;
	p->sysctl_sched_latency = 6000000ull * factor;
	p->sysctl_sched_min_granularity = 750000ull * factor;
	p->sysctl_sched_wakeup_granularity = 1000000ull * factor;
	p->sysctl_sched_base_slice = 750000ull * factor;
	p->sysctl_sched_migration_cost = 500000;
	p->max_idle_balance_cost = 500000;
	p->busy_factor = 16;
	p->sync_wakeups = true;
	p->newidle_lock_drop = true;
	p->balance_jiffies = true;
	p->balance_feedback = true;
}

static void setup_rq(struct sim *s, const struct ir_domains *dom, int c)
{
	struct srq *r = &s->rq[c];

	r->curr = -1;
	r->frozen_want = -1;
	r->next_buddy = r->last_buddy = -1;
	r->llc = -1;
	r->llc_size = 1;
	r->llc_id = c;
	r->irq_flips.last_wakee = -1;
	r->avg_idle = 2 * (s->pol ? s->pol->sysctl_sched_migration_cost : s->sp->sysctl_sched_migration_cost);
	r->max_idle_balance_cost = s->sp->max_idle_balance_cost;
	r->nr_levels = s->ring ? ir_domains_nr_levels(dom, c) : 0;
	if (r->nr_levels > IR_MAX_LEVELS)
		r->nr_levels = IR_MAX_LEVELS;
	for (int l = 0; l < r->nr_levels; l++) {
		const struct ir_sched_domain *sd = ir_domains_level(dom, c, l);

		r->kind[l] = (uint8_t)sd->kind;
		r->interval[l] = sd->balance_interval ? sd->balance_interval : 1;
		/* sd_init(): min_interval = sd_weight, max_interval = 2 * sd_weight,
		 * balance_interval = sd_weight (model/domains.c's) */
		r->min_interval[l] = r->interval[l];
		r->max_interval[l] = 2 * r->interval[l];
		r->imbalance_pct[l] = sd->imbalance_pct ? sd->imbalance_pct : 117;
		r->cache_nice_tries[l] = sd->cache_nice_tries;
		r->smt[l] = sd->flags & SD_SHARE_CPUCAPACITY;
		if (sd->flags & SD_SHARE_PKG_RESOURCES) {
			r->llc = l;
			r->llc_size = sd->span_weight;
			r->llc_id = c;
			for (int o = c - 1; o >= 0; o--)
				if (in_level(s, c, l, o))
					r->llc_id = o;
		}
	}
	if (!s->ring) {
		/* no domains: one flat LLC */
		r->nr_levels = 1;
		r->kind[0] = IR_LVL_MC;
		r->interval[0] = r->min_interval[0] = (unsigned)s->n;
		r->max_interval[0] = 2 * (unsigned)s->n;
		r->imbalance_pct[0] = 117;
		r->llc = 0;
		r->llc_size = (unsigned)s->n;
		r->llc_id = 0;
	}
	/* ASSUMED: before the trace the LLC was idle (scan it all); the first
	 * periodic balance at the LLC level sets it from utilisation */
	r->nr_idle_scan = (int)r->llc_size;
	go_idle(s, c, 0);
}

static int setup(struct sim *s, const struct ir_domains *dom)
{
	const struct ir_workload *w = s->w;

	s->t = calloc(w->nr_tasks ? w->nr_tasks : 1, sizeof(*s->t));
	s->rq = calloc((size_t)s->n, sizeof(*s->rq));
	s->swb_idle = calloc((size_t)s->n, sizeof(*s->swb_idle));
	s->wait = calloc(1, sizeof(*s->wait));
	if (!s->t || !s->rq || !s->swb_idle || !s->wait)
		return -1;
	if (!dom) {
		/* the contract's default: one flat LLC */
		struct ir_topology *flat = ir_topology_flat(s->n);
		char err[256];

		s->own_dom = flat ? ir_domains_build(flat, err, sizeof(err)) : NULL;
		ir_topology_free(flat);
		dom = s->own_dom;
	}
	s->dom = dom;
	s->snap = calloc((size_t)s->n, sizeof(*s->snap));
	if (!s->snap)
		return -1;
	if (dom) {
		struct ir_rings rings = ir_domains_rings(dom);

		if (rings.nr_cpus == s->n && rings.ring)
			s->ring = rings.ring;
	}
	for (int c = 0; c < s->n; c++)
		setup_rq(s, dom, c);
	for (uint32_t i = 0; i < w->nr_tasks; i++) {
		const struct ir_sim_task *wt = &w->task[i];
		struct stask *t = &s->t[i];

		t->qpos = -1;
		t->flips.last_wakee = -1;
		t->cpu = (int16_t)(wt->start_cpu < s->n ? wt->start_cpu : 0);
		t->weight = weight_of(wt->prio);
		t->recent_used_cpu = t->cpu;	/* wake_up_new_task(): task_cpu(p) */
		const struct ir_op op0 = wt->nr_ops ? *ir_wl_op(s->rd, i, 0) : (struct ir_op){ .kind = IR_OP_END };

		t->left = wt->nr_ops && op0.kind == IR_OP_RUN ? op0.ns : 0;
		s->live++;
		if (wt->start == IR_START_RUNNABLE) {
			hpush(s, wt->start_ns, E_START, i, 0);
		} else if (wt->start == IR_START_BLOCKED && wt->nr_ops &&
			   (op0.kind == IR_OP_BLOCK_TASK || op0.kind == IR_OP_BLOCK_DELAY)) {
			/* asleep since before the trace: its first op is that block */
			t->state = S_BLOCKED;
			t->blocked_on = op0.kind;
			advance(s, (int32_t)i);
			if (op0.kind == IR_OP_BLOCK_DELAY)
				hpush(s, op0.ns, E_WAKE, i, t->pc);
		} else if (wt->start == IR_START_BLOCKED) {
			t->state = S_DONE;	/* never woken in the trace */
			s->live--;
		}
	}
	for (int c = 0; c < s->n; c++) {
		if (s->sp->frozen)
			hpush(s, 0, E_FROZEN, (uint32_t)c, 0);	/* each CPU follows its record */
		if (s->sp->frozen && c == 0 && w->nr_moves)
			hpush(s, ir_wl_move(s->rd, 0)->ns, E_MOVE, 0, 0);
		else if (s->pol)
			push_balance(s, c, balance_interval(s, c, 0, false));
	}
	return s->oom ? -1 : 0;
}

/* check_preempt_tick() (v6.1, fair.c) at a tick: curr ran more than its
 * ideal_runtime (sched_slice() now) since it was picked; or, past
 * sysctl_sched_min_granularity, it leads the leftmost by more than that.
 * A resched whose pick would be curr again (it is still leftmost) only
 * restarts its slice, as set_next_entity() does. */
static bool tick_resched(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];
	const struct stask *cur = &s->t[r->curr];
	uint64_t ideal = sched_slice(s, c, cur), ran = s->now - r->pick_start;
	int32_t who = leftmost(s, c);
	bool resched;

	if (ran > ideal)
		resched = true;
	else if (ran < s->sp->sysctl_sched_min_granularity || who < 0)
		resched = false;
	else
		resched = (int64_t)(cur->vruntime - s->t[who].vruntime) > (int64_t)ideal;
	if (!resched)
		return false;
	if (cfs_pick(s, c, true) != r->curr)
		return true;
	r->pick_start = s->now;
	r->slice_end = s->now + sched_slice(s, c, cur);
	return false;
}

static void on_cpu_event(struct sim *s, int c)
{
	struct srq *r = &s->rq[c];

	if (r->curr < 0) {
		if (r->nr_queued)
			pick_next(s, c);
		return;
	}
	update_curr(s, c);
	if (r->resched_at && s->now >= r->resched_at) {
		preempt_curr(s, c);	/* the wakeup's resched_curr() */
		return;
	}
	if (!cfs_tick(s) && (s->t[r->curr].left || s->t[r->curr].penalty) && !s->sp->frozen &&
	    r->nr_queued && s->now >= r->slice_end) {
		/* check_preempt_tick() (CFS): the slice is used up;
		 * update_deadline() (EEVDF): the deadline is reached */
		struct stask *cur = &s->t[r->curr];
		int32_t who = s->sp->eevdf ? -1 : leftmost(s, c);

		if (s->sp->eevdf) {
			cur->deadline = cur->vruntime + vslice(s, cur);
			preempt_curr(s, c);	/* pick_eevdf() again, curr among them */
			return;
		}
		if (who >= 0 && cfs_pick(s, c, true) != r->curr) {
			preempt_curr(s, c);
			return;
		}
		r->slice_end = s->now + sched_slice(s, c, cur);
	} else if (cfs_tick(s) && (s->t[r->curr].left || s->t[r->curr].penalty) && !s->sp->frozen &&
		   r->nr_queued && s->now % s->sp->tick_ns == 0 && tick_resched(s, c)) {
		preempt_curr(s, c);
		return;
	}
	run_curr(s, c);
}

/* Frozen: every CPU waits for a task the simulation never woke (a wakeup
 * the trace lost or the workload misread).  The earliest such record
 * wakes its task, counted as forced; false when none waits. */
static bool frozen_unstick(struct sim *s)
{
	int best = -1;

	for (int c = 0; c < s->n; c++) {
		const struct srq *r = &s->rq[c];

		if (r->curr >= 0 || r->frozen_want < 0 || s->t[r->frozen_want].state != S_BLOCKED)
			continue;
		if (best < 0 || ir_wl_sw(s->rd, c, r->swpos)->ns < ir_wl_sw(s->rd, best, s->rq[best].swpos)->ns)
			best = c;
	}
	if (best < 0)
		return false;
	{
		int32_t ti = s->rq[best].frozen_want;
		uint64_t at = ir_wl_sw(s->rd, best, s->rq[best].swpos)->ns;

		if (at > s->now)
			s->now = at;
		account(s);
		s->res->forced++;
		s->t[ti].blocked_on = IR_OP_BLOCK_DELAY;
		wake_task(s, ti, best, best, W_START);
	}
	return true;
}

int ir_simulate(const struct ir_workload *w, const struct ir_domains *dom,
		const struct ir_policy_params *pol, const struct ir_sim_params *sp,
		struct ir_sim_result *res)
{
	struct sim s = { .w = w, .sp = sp, .res = res, .n = w->nr_cpus, .pol = sp->frozen ? NULL : pol };
	int ret = -1;

	memset(res, 0, sizeof(*res));
	/* its own stream, seeded by the run's seeds (each seed of a randomised
	 * policy draws its own latencies), apart from the policy's dice */
	s.exit_rng = (sp->seed ^ (pol && !sp->frozen ? pol->seed : 0)) * 0x9e3779b97f4a7c15ull ^ 0x1d1e0e817ull;
	if (dom && ir_domains_nr_cpus(dom) > s.n)
		s.n = ir_domains_nr_cpus(dom);
	if (s.pol) {
		struct ir_policy_params p = *s.pol;

		p.seed ^= sp->seed;
		if (ir_policy_state_init(&s.pst, &p, s.n))
			return -1;
		s.pol = pol;
	}
	if (!(s.rd = ir_wl_reader_new(w)) || setup(&s, dom))
		goto out;
	for (;;) {
	while (s.nh && s.pending && !s.oom) {
		struct hev e = hpop(&s);

		s.now = e.t;
		account(&s);
		res->events++;
		switch (e.kind) {
		case E_CPU:
			if (e.gen == s.rq[e.id].gen)
				on_cpu_event(&s, (int)e.id);
			break;
		case E_WAKE: {
			struct stask *t = &s.t[e.id];
			const struct ir_op *op;
			uint64_t lag;

			if (!(blocked(t) && t->blocked_on == IR_OP_BLOCK_DELAY && t->pc == e.gen))
				break;
			op = ir_wl_op(s.rd, e.id, e.gen - 1);	/* its block (read once current) */
			lag = ir_lag_unpack((uint16_t)(op->arg >> 16));
			if (sp->frozen && lag) {
				/* queued at its recorded sched_wakeup, waiting from now */
				t->blocked_on = 0;
				t->waking = s.now;
				hpush(&s, s.now + lag, E_QUEUE, e.id, (uint64_t)op->cpu |
				      (uint64_t)(op->flags & IR_OP_F_NOWAIT ? W_START : W_TASK) << 16);
				break;
			}
			/* a task's own timer fires on the CPU it slept on:
			 * hrtimer_start_range_ns() -> switch_hrtimer_base()
			 * -> get_target_base() queues the timer on the arming
			 * CPU, which get_nohz_timer_target() keeps while it is
			 * not idle (it runs the task); v6.1 and v6.18
			 * kernel/time/hrtimer.c, kernel/sched/core.c */
			wake_task(&s, (int32_t)e.id,
				  !sp->frozen && (op->flags & IR_OP_F_OWN_CPU) && t->cpu >= 0 ? t->cpu : (int)(op->arg & 0xffff),
				  op->cpu, op->flags & IR_OP_F_NOWAIT ? W_START : W_IRQ);
			break;
		}
		case E_QUEUE: {
			/* frozen: a wakeup queues the task at its sched_wakeup */
			struct stask *t = &s.t[e.id];
			enum wake_how how = (enum wake_how)(e.gen >> 16);

			if (how == W_TASK && t->state == S_BLOCKED && !t->blocked_on)
				t->blocked_on = IR_OP_BLOCK_TASK;	/* a delayed block, queued as one */
			wake_task(&s, (int32_t)e.id, (int)(e.gen & 0xffff), (int)(e.gen & 0xffff), how);
			break;
		}
		case E_START:
			if (s.t[e.id].state == S_UNSTARTED) {
				s.t[e.id].state = S_BLOCKED;
				wake_task(&s, (int32_t)e.id, s.t[e.id].cpu, s.t[e.id].cpu, W_START);
			}
			break;
		case E_BALANCE:
			if (e.gen == s.rq[e.id].bal_gen)
				periodic(&s, (int)e.id);
			break;
		case E_MOVE: {
			/* frozen: a recorded balance moves a waiting task */
			const struct ir_move_rec *m = ir_wl_move(s.rd, e.gen);
			struct stask *t = &s.t[m->task];

			if (t->state == S_QUEUED && t->cpu != m->dest && m->dest < s.n) {
				int from = t->cpu;

				q_del(&s, (int32_t)m->task);
				migrate(&s, (int32_t)m->task, from, m->dest, &res->mig_periodic);
				q_add(&s, m->dest, (int32_t)m->task);
				frozen_check(&s, (int32_t)m->task);
			}
			if (e.gen + 1 < w->nr_moves)
				hpush(&s, ir_wl_move(s.rd, e.gen + 1)->ns, E_MOVE, 0, e.gen + 1);
			break;
		}
		case E_NEWIDLE:
			if (s.rq[e.id].nb_active && e.gen == s.rq[e.id].nb_gen)
				newidle_next(&s, (int)e.id);
			break;
		case E_FROZEN:
			if (s.rq[e.id].curr < 0 && s.rq[e.id].swpos == e.gen)
				frozen_pick(&s, (int)e.id);
			break;
		}
	}
	if (!s.oom && sp->frozen && frozen_unstick(&s))
		continue;
	break;
	}
	if (s.oom || s.rd->err)
		goto out;	/* out of memory, or the workload's records unreadable */
	/* close the idle periods at the end of the workload */
	s.now = s.done_at;
	account(&s);
	for (int c = 0; c < s.n; c++)
		leave_idle(&s, c, s.done_at);
	res->completion_ns = s.done_at;
	/* stalled: a task the simulation left with work the trace recorded for
	 * it.  One whose next op is IR_OP_END is where the trace left it: asleep,
	 * or woken (a last sched_waking) but not yet switched in when the
	 * recording stopped; the frozen run has no recorded switch to run it. */
	for (uint32_t i = 0; i < w->nr_tasks && !res->stalled; i++)
		if (s.t[i].state != S_DONE)
			res->stalled = s.t[i].pc >= w->task[i].nr_ops ||
				       ir_wl_op(s.rd, i, s.t[i].pc)->kind != IR_OP_END;
	if (s.rd->err)
		goto out;
	res->wait_p50 = ir_hist_quantile(s.wait, 0.5);
	res->wait_p99 = ir_hist_quantile(s.wait, 0.99);
	ret = 0;
out:
	if (s.pol)
		ir_policy_state_free(&s.pst);
	for (int c = 0; s.rq && c < s.n; c++)
		free(s.rq[c].q);
	free(s.rq);
	free(s.swb_idle);
	free(s.t);
	free(s.heap);
	free(s.wait);
	free(s.snap);
	ir_domains_free(s.own_dom);
	ir_wl_reader_free(s.rd);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model/: the model stage's contract.
 *
 * In:  a topology (text, see ir_topology_parse) and resolved newidle points
 *      (struct ir_point, replay/replay.h).
 * Out: sched domains, the ring table replay/ needs, and for each policy a
 *      decision and an outcome at each point.
 *
 * Policies are pure: ir_decide() reads a context, parameters and (for the
 * policies that learn: bump, proportional) a state, and writes a decision.
 * No I/O, no globals, no allocation in ir_decide() or ir_outcome().
 * Each policy cites the kernel function it mirrors (SPEC section 1).
 * Costs and avg_idle are nanoseconds.
 */
#ifndef IDLEREPLAY_MODEL_H
#define IDLEREPLAY_MODEL_H

#include <stdio.h>

#include "replay/replay.h"

/* ------------------------------------------------------------ topology */

/* Level kinds, smallest span first (SPEC section 4). */
enum ir_level_kind {
	IR_LVL_SMT,
	IR_LVL_CLS,
	IR_LVL_MC,
	IR_LVL_PKG,
	IR_LVL_NODE,
	IR_LVL_NUMA,
	IR_LVL__COUNT
};
extern const char *const ir_level_name[IR_LVL__COUNT];	/* "SMT", "CLS", "MC", "PKG", "NODE", "NUMA" */
/* The level as policy parameters spell it: "smt", ..., "numa". */
const char *ir_level_key(enum ir_level_kind kind);

/* A CPU set as an array of 64-bit words, sized for the topology. */
typedef uint64_t ir_cpumask_word;

struct ir_topology;	/* opaque; see model/topology.c */

/*
 * Topology text (what `idlereplay topology` prints and the recorder stores):
 *   idlereplay-topology 1
 *   online 0-7
 *   cpu 0 core_cpus=0-1 cluster_cpus=0-1 package_cpus=0-3 die_cpus=0-3 node=0 cache=L1d:0,L1i:0,L2:0-1,L3:0-3
 *   node 0 cpus=0-3 distance=10,20
 * Unknown keys are ignored; '#' starts a comment.
 */
int ir_topology_parse(const char *text, struct ir_topology **out, char *err, size_t errlen);
/* SPEC: "sockets=2,cores=2,threads=2,nodes=2[,llc=cores|socket][,clusters=N]"
 * or explicit levels "smt=0-1,2-3;mc=0-3;numa=0-7"; or a file path. */
int ir_topology_from_arg(const char *arg, struct ir_topology **out, char *err, size_t errlen);
/* One flat package of nr_cpus CPUs sharing an LLC: used when a trace has none. */
struct ir_topology *ir_topology_flat(int nr_cpus);
int ir_topology_nr_cpus(const struct ir_topology *t);
void ir_topology_free(struct ir_topology *t);
/* Read a machine's topology from sysfs under sysroot ("" or "/" for the live
 * machine) and print it in the text format above into *text (malloc'd). */
int ir_topology_capture(const char *sysroot, char **text, char *err, size_t errlen);

/* cpulists as sysfs prints them ("0-3,8-11").  parse sets bits < nr_cpus in
 * mask (cleared first) and ignores higher CPUs; returns 0 or -1 on bad syntax. */
int ir_cpulist_parse(const char *s, size_t len, ir_cpumask_word *mask, int nr_cpus);
int ir_cpulist_format(const ir_cpumask_word *mask, int nr_cpus, char *buf, size_t len);

/* -------------------------------------------------------- sched domains */

struct ir_sched_domain {
	enum ir_level_kind kind;
	char name[8];
	unsigned flags;			/* SD_* as the kernel names them, below */
	unsigned span_weight;
	unsigned imbalance_pct, cache_nice_tries, balance_interval;
	unsigned imb_numa_nr;		/* build_sched_domains() v5.19+, over the domains
					 * before degeneration (model/domains.c) */
	const ir_cpumask_word *span;	/* into ir_domains storage */
};

#define SD_BALANCE_NEWIDLE	0x0001
#define SD_SHARE_CPUCAPACITY	0x0080
#define SD_SHARE_PKG_RESOURCES	0x0200	/* SD_SHARE_LLC since 6.9 */
#define SD_NUMA			0x4000

struct ir_domains;	/* opaque; see model/domains.c */

struct ir_domains *ir_domains_build(const struct ir_topology *t, char *err, size_t errlen);
int ir_domains_nr_cpus(const struct ir_domains *d);
int ir_domains_nr_levels(const struct ir_domains *d, int cpu);
const struct ir_sched_domain *ir_domains_level(const struct ir_domains *d, int cpu, int level);
/* Ring table for replay/ (struct ir_rings); valid while d lives. */
struct ir_rings ir_domains_rings(const struct ir_domains *d);
/* Human-readable listing for `idlereplay topology --domains`. */
int ir_domains_print(const struct ir_domains *d, FILE *out);
void ir_domains_free(struct ir_domains *d);

/* ------------------------------------------------------------ policies */

enum ir_policy_kind {
	IR_POL_BASELINE,	/* v4.15 idle_balance() */
	IR_POL_DOMAIN_COST,	/* Feb 2018 RFC, per-domain sched_migration_cost */
	IR_POL_NO_CHECK,	/* Feb 2018 [PATCH v2] remove avg_idle check */
	IR_POL_MAINLINE,	/* v5.16+ newidle_balance(), v6.10+ sched_balance_newidle() */
	IR_POL_BUMP,		/* v6.17 155213a2aed4 */
	IR_POL_PROPORTIONAL,	/* v6.19 33cf66d88306 NI_RANDOM */
	IR_POL__COUNT
};

struct ir_policy_params {
	enum ir_policy_kind kind;
	char label[128];				/* name as given, e.g. "domain-cost:preset=cover" */
	uint64_t sysctl_sched_migration_cost;		/* 500 us */
	uint64_t max_newidle_lb_cost[IR_LVL__COUNT];	/* assumed per level */
	uint64_t sd_migration_cost[IR_LVL__COUNT];	/* domain-cost only */
	uint64_t seed;					/* proportional only */
	/* load_balance() (model/lb.c) */
	uint64_t lb_release;		/* rules by release: 415 (v4.15), 516 (v5.16-5.18
					 * NUMA allowance), 519 (v5.19+); default by policy */
	uint64_t preemption;		/* CONFIG_PREEMPTION: a newidle detach_tasks() stops
					 * after one task (default 1) */
	uint64_t smt_never_hot;		/* task_hot() exempts SD_SHARE_CPUCAPACITY levels */
	uint64_t nr_balance_failed;	/* sd->nr_balance_failed (raised only by periodic
					 * balance failures the trace does not show; default 0) */
	uint64_t ni_random;		/* proportional: sched_feat(NI_RANDOM) (default 1) */
	uint64_t seeds;			/* proportional: seeds replayed in the same pass for
					 * the expected value and its spread (default 32) */
	uint64_t newidle_ratio;		/* proportional: each sd->newidle_ratio when the trace
					 * starts (0-1024; default 512, sd_init()'s "50%
					 * success rate": the kernel's state before the
					 * trace is not in it) */
	uint64_t cost_scale;		/* assumed per-level costs x cost_scale / 1000
					 * (default 1000; `idlereplay calibrate` fits it) */
};

/* A duration: "500us", "0.5ms", "2s" or plain nanoseconds; 0, or -1 if bad. */
int ir_parse_ns(const char *s, uint64_t *out);
/* The same parser where a bare number counts in unit_ns (record --duration:
 * seconds).  The valid range, for error messages: */
int ir_parse_duration(const char *s, uint64_t unit_ns, uint64_t *out);
#define IR_DURATION_RANGE "0 to 1000000000s; a number with ns, us, ms or s"
/* Parse "NAME[:key=value,...]"; fills defaults first. */
int ir_policy_parse(const char *arg, struct ir_policy_params *p, char *err, size_t errlen);
void ir_policy_defaults(enum ir_policy_kind kind, struct ir_policy_params *p);
const char *ir_policy_name(enum ir_policy_kind kind);
/* Set one parameter by name ("sysctl_sched_migration_cost", "mc.max_newidle_lb_cost",
 * "numa.migration_cost", ...): used by --policy and --sweep. */
int ir_policy_set(struct ir_policy_params *p, const char *key, uint64_t value, char *err, size_t errlen);
int ir_policy_get(const struct ir_policy_params *p, const char *key, uint64_t *value);
/* Print "key=value" pairs, stable order, for reports. */
int ir_policy_params_format(const struct ir_policy_params *p, char *buf, size_t len);

enum ir_bail {
	IR_BAIL_NONE,
	IR_BAIL_NOT_OVERLOADED,		/* !rd->overload */
	IR_BAIL_MIGRATION_COST,		/* avg_idle < sysctl_sched_migration_cost */
	IR_BAIL_LOWEST_COST,		/* avg_idle < lowest sd->max_newidle_lb_cost (v5.16+) */
	IR_BAIL_TTWU_PENDING,		/* this_rq->ttwu_pending (v5.13 e5e678e4fea2) */
	IR_BAIL__COUNT
};
extern const char *const ir_bail_name[IR_BAIL__COUNT];

/* What a policy sees at a newidle point. */
struct ir_decision_ctx {
	int32_t cpu;
	uint64_t now;
	uint64_t avg_idle;
	bool overload;
	bool ttwu_pending;
	uint64_t arrival_ns;		/* a task arrived this long after entry; 0 none */
	int nr_levels;
	enum ir_level_kind kind[IR_MAX_LEVELS];
	/* probed mode (ir_decision_ctx_probe()): the kernel's own per-level
	 * sd->max_newidle_lb_cost and newidle_ratio at this call, -1 absent,
	 * and the call's measured duration (its curr_cost walk), 0 unknown */
	bool probed;
	int64_t probe_cost[IR_MAX_LEVELS];
	int64_t probe_ratio[IR_MAX_LEVELS];
	uint64_t probe_dur;
	const struct ir_domains *dom;	/* for load_balance(); NULL: ring candidates */
	const struct ir_point *pt;
};

/* Fill a context from a point and the domains it was resolved with
 * (d NULL: one flat MC level, as ir_rings NULL means). */
void ir_decision_ctx_init(struct ir_decision_ctx *ctx, const struct ir_point *pt,
			  const struct ir_domains *d);
/* Probed mode: take the per-level costs and ratios from the point's probe
 * (levels 0..2, as the probes carry them); no effect without one. */
void ir_decision_ctx_probe(struct ir_decision_ctx *ctx, const struct ir_point *pt);

/* Per-CPU, per-level state of the policies that learn.  ir_decide() only
 * reads it; ir_policy_update() advances it, so call it once per decision. */
struct ir_policy_state {
	int nr_cpus;
	uint64_t *max_newidle_lb_cost;	/* [cpu * IR_MAX_LEVELS + level]; bump */
	uint64_t *last_decay_max_lb_cost;	/* same index; bump */
	uint32_t *newidle_call, *newidle_success;	/* proportional */
	uint32_t *newidle_ratio;		/* proportional */
	uint64_t rng;
};
int ir_policy_state_init(struct ir_policy_state *st, const struct ir_policy_params *p, int nr_cpus);
void ir_policy_state_free(struct ir_policy_state *st);

/* The levels a policy would try, in order, assuming nothing is pulled. */
struct ir_decision {
	enum ir_bail bail;
	int nr_tried;
	uint8_t tried[IR_MAX_LEVELS];		/* level indices, ascending */
	uint64_t cost[IR_MAX_LEVELS];		/* modelled domain_cost of each try */
	enum ir_level_kind kind[IR_MAX_LEVELS];	/* kind of each tried level */
	int stop_level;				/* level whose cost check stopped the walk, -1 none */
	int nr_skipped;				/* proportional: levels its die skipped */
	uint8_t skipped[IR_MAX_LEVELS];
};

void ir_decide(const struct ir_decision_ctx *ctx, const struct ir_policy_params *p,
	       struct ir_policy_state *st, struct ir_decision *d);

/* The decision evaluated against what the trace says happened (SPEC 7). */
struct ir_outcome {
	bool pulled;
	int level;			/* index of the level that pulled, -1 */
	enum ir_level_kind level_kind;
	int32_t pid, from_cpu;		/* pid: moved_pid[0] */
	int32_t moved_pid[IR_SNAP_TASKS];	/* the first `moved` tasks, in detach order */
	uint64_t idle_recovered_ns;
	uint64_t idle_lost_ns;
	int attempts;			/* load_balance() calls made */
	int moved;			/* tasks pulled (lb_gained), 0 or more */
	uint64_t cost_ns;		/* their modelled cost */
	uint64_t attempt_cost[IR_MAX_LEVELS];
	bool lb_failed[IR_MAX_LEVELS];	/* per tried level: struct ir_lb_result's failed */
};

void ir_outcome(const struct ir_point *pt, const struct ir_decision *d, struct ir_outcome *o);
/* The same with load_balance() per tried level (model/lb.c) when the context
 * has domains and the point a runqueue snapshot; else ir_outcome(). */
void ir_outcome_lb(const struct ir_decision_ctx *ctx, const struct ir_policy_params *p,
		   const struct ir_decision *d, struct ir_outcome *o);

/* ---------------------------------------------------- load_balance (lb.c) */

enum ir_lb_rules { IR_LB_V415, IR_LB_V516, IR_LB_V519 };
enum ir_lb_verdict {
	IR_LB_PULLED,
	IR_LB_NO_BUSIEST,		/* no other group with a task */
	IR_LB_BALANCED,			/* find_busiest_group(): balanced */
	IR_LB_NO_QUEUE,			/* find_busiest_queue(): none */
	IR_LB_NOTHING_MOVABLE,		/* detach_tasks(): pinned, running or cache hot */
};
/* load_balance()'s env->idle (enum cpu_idle_type, v6.1 include/linux/sched/idle.h):
 * a newidle balance (the zero value), or a periodic one of an idle or a busy CPU */
enum ir_lb_idle { IR_CPU_NEWLY_IDLE, IR_CPU_IDLE, IR_CPU_NOT_IDLE };
struct ir_lb_env {
	const struct ir_domains *dom;
	const struct ir_point *pt;	/* pt->rq: the runqueues */
	int level;			/* index into pt->cpu's domains */
	enum ir_lb_idle idle;
	enum ir_lb_rules rules;
	uint64_t now, sysctl_sched_migration_cost;
	unsigned nr_balance_failed;
	bool preemption, smt_never_hot;
	bool llc_spread;		/* v5.10+: no migrate_util inside an LLC */
	bool load_shift;		/* v5.10+: detach_tasks() moves load >> nr_balance_failed */
	bool imbalance_pct_117;		/* v5.10+: sd_init()'s default imbalance_pct 117, not 125 */
	bool numa_allow_inclusive;	/* v5.19+: allow_numa_imbalance() is running <= imb_numa_nr */
	bool this_cpu_busy;		/* idle_cpu(this CPU) is false: rq->curr is still prev */
	bool runnable_classify;		/* v5.7+: group_runnable in group_is_overloaded()/_has_capacity() */
	bool util_est;			/* v4.17+: cpu_util()/task_util_est() include util_est */
	bool pelt_load;			/* v5.7+: cpu_load() = load_avg, task_h_load() = the task's */
	bool all_pinned_redo;		/* load_balance(): LBF_ALL_PINNED drops the runqueue from
					 * env->cpus and redoes the balance (every release) */
};
struct ir_lb_result {
	enum ir_lb_verdict why;
	int moved;			/* tasks detached (schedstat lb_gained) */
	int32_t from_cpu;		/* their runqueue (find_busiest_queue()'s) */
	int32_t moved_pid[IR_SNAP_TASKS];	/* the first `moved` are the tasks, in detach
					 * order (one pass of detach_tasks(): at most loop_max) */
	int hot_skipped;
	int all_pinned;			/* runqueues dropped by LBF_ALL_PINNED before the verdict */
	bool failed;			/* an imbalance found and nothing moved ("if (!ld_moved)":
					 * a periodic balance raises sd->nr_balance_failed);
					 * false: moved, or out_balanced / out_all_pinned (reset) */
	int32_t busiest_cpu;		/* find_busiest_queue()'s, -1 none */
	bool migrate_task;		/* env->migration_type == migrate_task */
};
void ir_load_balance(const struct ir_lb_env *env, struct ir_lb_result *res);
/* should_we_balance() of a periodic balance of cpu at level: whether cpu
 * is the CPU of its local group that balances it.  idle[o]: idle_cpu(o),
 * for every CPU; idle_cores: v6.6+ (b1bfeab9b002) rule.  A newidle balance
 * needs no such test (v6.1: "In the newly idle case, we will allow all
 * the CPUs to do the newly idle load balance"). */
bool ir_should_we_balance(const struct ir_domains *dom, int cpu, int level, const bool *idle, bool idle_cores);
/* The environment of policy p's load_balance() at pt, by p's release
 * rules, for a balance of kind idle: newidle (model/outcome.c) and the
 * simulator's periodic balance (sim/sched.c) share it.  env->level and
 * env->now are the caller's. */
void ir_lb_env_init(struct ir_lb_env *env, const struct ir_policy_params *p, const struct ir_domains *dom,
		    const struct ir_point *pt, enum ir_lb_idle idle);
/* env at level l: sd->nr_balance_failed from the point where the simulator
 * keeps it (pt->nr_balance_failed), else the policy's parameter */
void ir_lb_env_level(struct ir_lb_env *env, const struct ir_policy_params *p, int level);
/* What load_balance() needs and a trace lacks, as the model assumes it. */
#define IR_LB_ASSUMPTIONS "load weight: every task nice 0 (1024; prio is not kept); capacity 1024 per CPU; " \
	"utilisation and load: PELT util_avg, util_est, runnable_avg and load_avg rebuilt from run times and queue lengths; affinity: only per-CPU " \
	"kthreads pinned; nr_balance_failed 0 (periodic balance failures are not in a trace); no asym " \
	"capacity, misfit or group_imbalanced"
enum ir_lb_rules ir_lb_rules_of(const struct ir_policy_params *p);
/* Let a learning policy see what its decision led to. */
void ir_policy_update(const struct ir_decision_ctx *ctx, const struct ir_policy_params *p,
		      const struct ir_decision *d, const struct ir_outcome *o,
		      struct ir_policy_state *st);

/* ------------------------------------------------------------ evaluate */

/* Totals of one seed of a randomised policy (SPEC 9: NI_RANDOM is a die,
 * so it is compared on expected counts). */
struct ir_seed_totals {
	uint64_t attempts, pulls, moved, cost_ns, idle_recovered_ns, idle_lost_ns;
	uint64_t level_attempts[IR_LVL__COUNT], level_pulls[IR_LVL__COUNT], level_moved[IR_LVL__COUNT];
	uint64_t level_cost_ns[IR_LVL__COUNT];
	/* at probed calls with an exit probe (ground truth's population): the
	 * model's pulls, and those where the kernel pulled too */
	uint64_t probed_pulls, probed_both;
};

/* One policy instance being replayed: its parameters and learning state.
 * A randomised policy (proportional with seeds > 1) also replays seeds
 * seed+1 .. seed+seeds-1 in the same pass; seed_tot[0] is st's own. */
struct ir_policy_run {
	struct ir_policy_params p;
	struct ir_policy_state st;
	int nr_seeds;
	struct ir_policy_state *seed_st;	/* [1 .. nr_seeds - 1] used */
	struct ir_seed_totals *seed_tot;	/* nr_seeds */
};
int ir_policy_run_init(struct ir_policy_run *r, int nr_cpus);
void ir_policy_run_free(struct ir_policy_run *r);

/* At one resolved point, every policy decides and is evaluated, in order;
 * d and o have n entries (seed 0's, for randomised policies).  probed:
 * every policy takes the kernel's own per-level costs from the point's
 * probe.  Allocation-free. */
void ir_evaluate(const struct ir_point *pt, const struct ir_domains *dom, bool probed,
		 struct ir_policy_run *runs, int n, struct ir_decision *d, struct ir_outcome *o);

/* The policy that models the kernel that recorded a trace: from its release
 * (< 5.16 baseline, 5.16+ mainline, 6.17-6.18.4 bump, 6.18.5+ and 6.19+
 * proportional; patch -1 unknown) and,
 * when known, its sched_features (NI_RANDOM means proportional). */
enum ir_policy_kind ir_policy_for_kernel(int major, int minor, int patch, const char *sched_features);
/* The same, and a trace whose newidle probes carry sd->newidle_ratio was
 * recorded under NI_RANDOM code (33cf66d88306 or a backport): proportional. */
enum ir_policy_kind ir_policy_for_trace(int major, int minor, int patch, const char *sched_features,
					bool probes_have_newidle_ratio);

/* ------------------------------------------- cost calibration (costfit.c) */

/* Fit of cost_scale to a trace's observed newidle pulls: the model's pulls
 * at n increasing scales (pred[], non-increasing in expectation). */
struct ir_cost_fit {
	int status;		/* 0 fitted; 1 lower bound only (nothing observed);
				 * 2 the model pulls too few even at the lowest scale;
				 * 3 nothing observed and nothing predicted: no information;
				 * 4 the model pulls too many even at the highest scale */
	double scale, lo, hi;	/* estimate and 1-sigma (Poisson) range, permille; hi < 0: unbounded */
};
void ir_cost_fit(const uint64_t *scale, const double *pred, int n, double observed,
		 struct ir_cost_fit *out);

/* ---------------------------------------------------- ground truth (truth.c) */

/* Did the kernel bail out before any domain at this probed call? */
bool ir_probe_early_bail(const struct ir_probe_entry *v);

#endif

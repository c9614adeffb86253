/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * load_balance() at one sched domain level (SPEC 9): what a newidle balance
 * (CPU_NEWLY_IDLE), or a periodic one (CPU_IDLE, CPU_NOT_IDLE: the closed
 * loop's, sim/), there pulls, from the runqueues the point's snapshot holds
 * (struct ir_rq_snap).  Shared by every policy.  Kernel functions, all in
 * kernel/sched/fair.c:
 *
 *  update_sd_lb_stats() / update_sg_lb_stats()  per group of the level (the
 *      child domain's spans); the local group is never the busiest.
 *  group_classify()  v5.5+ (0b0695f2b34a "sched/fair: Rework load_balance()"):
 *      group_overloaded > [imbalanced, asym, misfit: not modelled] >
 *      group_fully_busy > group_has_spare.  v4.15: group_overloaded >
 *      group_other (group_no_capacity kept as a flag).
 *  update_sd_pick_busiest()  type first; overloaded: higher avg_load;
 *      has_spare: fewer idle CPUs, then more tasks.
 *  find_busiest_group()  v5.5+ decision matrix: local busier -> balanced;
 *      SD_PREFER_SIBLING (child flag) with more than one task more -> force;
 *      busiest not overloaded: a busy CPU (CPU_NOT_IDLE) -> balanced,
 *      local->idle_cpus <= busiest->idle_cpus + 1 (groups of more than one
 *      CPU) -> balanced, a single task -> balanced.
 *      v4.15: SD_BALANCE_NEWIDLE with local capacity against a busiest
 *      group_no_capacity -> force (not CPU_NOT_IDLE); else avg_load tests,
 *      then CPU_IDLE the idle-CPU test, the others imbalance_pct.
 *  calculate_imbalance()  local has_spare: busiest overloaded -> migrate_util
 *      (local spare capacity; 1 task if none and this CPU is idle); else
 *      migrate_task, the task difference (prefer_sibling or single-CPU groups) or the idle-CPU
 *      difference; NUMA allowance: v5.19+ adjust_numa_imbalance(imbalance,
 *      local->sum_nr_running + 1, sd->imb_numa_nr) then >>= 1 (7d2b5dd0bcc4);
 *      v5.16-5.18: halve first, no move while busiest->sum_nr_running is
 *      below a quarter of the domain (NUMA_IMBALANCE_MIN 2).  Otherwise
 *      migrate_load.
 *  find_busiest_queue()  one runqueue: migrate_task the longest,
 *      migrate_util the highest utilisation of those with two or more tasks
 *      (v5.7), load the most loaded.  calculate_imbalance() fills spare
 *      capacity by utilisation only above the LLC (v5.10 16b0a7a1a0af).
 *  detach_tasks()  from the tail of cfs_tasks, while the source keeps more
 *      than one task (an idle destination only), until the imbalance is
 *      met; CONFIG_PREEMPTION stops a newidle balance after the first task (parameter "preemption");
 *      migrate_load skips a task whose load exceeds what the imbalance
 *      allows (load_too_big(): v4.15, v5.5 and v5.10 rules).
 *  can_migrate_task()  skips tasks whose cpus_ptr excludes this CPU
 *      (pinned per-CPU kthreads), the running task, and cache-hot tasks
 *      unless sd->nr_balance_failed > sd->cache_nice_tries.
 *  load_balance() LBF_ALL_PINNED (v6.1 and every release modelled): when
 *      every task detach_tasks() visited failed the affinity test, the
 *      busiest runqueue leaves env->cpus and the balance is redone ("goto
 *      redo") while a CPU outside the local group is left; env->cpus also
 *      bounds update_sg_lb_stats() and find_busiest_queue().
 *  should_we_balance()  a periodic balance's one CPU per local group: the
 *      first idle CPU, else the group's first; v6.6+ (b1bfeab9b002) the
 *      first idle CPU of an idle core first (ir_should_we_balance()).
 *  sd->imbalance_pct  as sd_init() (kernel/sched/topology.c) sets it: SMT
 *      110, LLC levels (SD_SHARE_PKG_RESOURCES) 117, the others (DIE, NUMA)
 *      the default, 125 up to v5.9 and 117 from v5.10 (2208cdaa56c9
 *      "sched/fair: Reduce minimal imbalance threshold"; the Debian 6.1
 *      guest's debugfs shows NUMA imbalance_pct=117): imbalance_pct().
 *  group_is_overloaded(), group_has_capacity()  v5.7+ (070f5e860ee2
 *      "sched/fair: Take into account runnable_avg to classify group"):
 *      group_runnable above capacity by imbalance_pct also overloads a group
 *      with more tasks than CPUs, and takes its spare capacity away.
 *  cpu_util(), task_util_est()  UTIL_EST (v4.17 7f65ea42eb00): the CPU's
 *      max(util_avg, util_est.enqueued) and the task's max(util_avg,
 *      util_est) in find_busiest_queue()/detach_tasks() (migrate_util).
 *  cpu_load(), task_h_load()  v5.7 ("sched/fair: Replace runnable_load_avg
 *      by load_avg"): PELT load_avg (nice 0, root cfs_rq: the runnable_avg)
 *      for group loads, find_busiest_queue()'s migrate_load pick and
 *      detach_tasks()' load test.
 *  task_hot()  exec_start within sysctl_sched_migration_cost (0: never hot);
 *      never hot where the domain shares CPU capacity (SMT) from v5.10
 *      (ec73240b1627 "sched/fair: Ignore cache hotness for SMT migration"):
 *      parameter "smt_never_hot".
 *
 * Not in a trace, so ASSUMED (printed by the report): every task has nice 0
 * (load weight 1024, as prio 120 maps in sched_prio_to_weight[]); every CPU
 * has capacity 1024; utilisation is PELT's util_avg rebuilt by replay/ from
 * the trace's run times (CPU: busy or idle; task: running or not), util_est
 * (UTIL_EST, v4.17+) from the task's util_avg at each sleep
 * (ir_util_est_update()), the CPU's runnable_avg (v5.7+) from its
 * nr_running over time, as of the point's entry for every level;
 * no asymmetric capacity, no misfit, no group_imbalanced history; affinity
 * only as the pinned per-CPU kthreads show it.
 */
#include <string.h>

#include "model/cpumask.h"

#define SCHED_CAPACITY_SCALE 1024u
#define NICE_0_LOAD 1024u

enum group_type {			/* v5.5+ order; v4.15 uses other/overloaded */
	group_has_spare,
	group_fully_busy,
	group_overloaded,
};

struct sg_lb_stats {
	int first;			/* lowest CPU of the group: its id */
	unsigned long group_load, group_util, group_runnable, group_capacity, avg_load;
	unsigned sum_nr_running, sum_h_nr_running, idle_cpus, group_weight;
	enum group_type group_type;
	bool group_no_capacity;		/* v4.15 */
};

/* The group of CPU o in the domain being balanced, sd (CPU pt->cpu's level
 * env->level).  build_sched_groups() (kernel/sched/topology.c, v4.15 and
 * since) builds sd's groups from the child topology level's masks, taken
 * before sd_degenerate() removed any level: o's group is o's widest domain
 * that sd's span strictly contains, or o alone when it has none (a core
 * whose SMT sibling is offline keeps no SMT domain, and its MC domain may
 * be its level 0 while it is level 1 of the balancing CPU).  In symmetric
 * topologies this is o's level env->level - 1.  Overlapping NUMA domains
 * (build_overlap_sched_groups()): since v5.13 (585b6d2723dc "sched/topology:
 * fix the issue groups don't span domain->span for NUMA diameter > 2")
 * find_descended_sibling() goes down o's domains until the group lies
 * inside sd, which the containment test below does; before v5.13 the
 * sibling's child could span out of sd (not modelled: every release takes
 * the v5.13 rule).  Identified by its lowest CPU. */
static int group_id(const struct ir_lb_env *env, int o)
{
	const struct ir_sched_domain *sd = ir_domains_level(env->dom, env->pt->cpu, env->level);
	const struct ir_sched_domain *child = NULL;
	int n = ir_domains_nr_cpus(env->dom);
	size_t nw = ir_cpumask_words(n);

	for (int l = 0; sd && l < ir_domains_nr_levels(env->dom, o); l++) {
		const struct ir_sched_domain *c = ir_domains_level(env->dom, o, l);
		bool inside = c->span_weight < sd->span_weight;

		for (size_t w = 0; inside && w < nw; w++)
			inside = !(c->span[w] & ~sd->span[w]);
		if (!inside)
			break;
		child = c;
	}
	if (!child)
		return o;
	for (int c = 0; c < n; c++)
		if (ir_cpumask_test(child->span, c))
			return c;
	return o;
}

/* The runqueues this level's balance read: as of its time in the walk
 * (replay/lookahead.h), else the point's entry snapshot. */
static const struct ir_rq_snap *rqs(const struct ir_lb_env *env)
{
	const struct ir_rq_snap *r = env->level >= 0 && env->level < IR_MAX_LEVELS ?
		env->pt->rq_level[env->level] : NULL;

	return r ? r : env->pt->rq;
}

/* sd->imbalance_pct for this release: sd_init()'s default, the one DIE and
 * NUMA levels keep, went from 125 to 117 in v5.10 (2208cdaa56c9 "sched/fair:
 * Reduce minimal imbalance threshold"); SMT (110) and LLC (117) levels set
 * their own.  model/domains.c builds the v4.15 values. */
static unsigned imbalance_pct(const struct ir_lb_env *env, const struct ir_sched_domain *sd)
{
	if (env->imbalance_pct_117 && sd->imbalance_pct == 125 &&
	    !(sd->flags & (SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES)))
		return 117;
	return sd->imbalance_pct;
}

/* cpu_load(): from v5.7 cfs_rq->avg.load_avg ("sched/fair: Replace
 * runnable_load_avg by load_avg"), for nice-0 tasks of the root cfs_rq
 * equal to its runnable_avg (both sum 1024 per runnable entity over PELT
 * time); earlier rules, or a runqueue without it, count nice-0 weights. */
static unsigned long cpu_load(const struct ir_lb_env *env, const struct ir_rq_snap *r)
{
	if (env->pelt_load && r->runnable > 0)
		return (unsigned long)r->runnable;
	return (unsigned long)r->nr_running * NICE_0_LOAD;
}

/* task_h_load(): a root task's se.avg.load_avg (PELT of its runnable
 * time, weight 1024), at least 1 (detach_tasks()' max_t(..., 1)) */
static unsigned long task_h_load(const struct ir_lb_env *env, const struct ir_snap_task *p)
{
	if (env->pelt_load && p->load > 0)
		return p->load >= 1 ? (unsigned long)p->load : 1;
	return NICE_0_LOAD;
}

/* cpu_util(): the CPU's PELT util_avg as replay/ rebuilt it from its busy
 * and idle times, capped at its capacity (cpu_util() min()s with
 * capacity_orig). */
static unsigned long cpu_util(const struct ir_lb_env *env, const struct ir_rq_snap *r)
{
	float f = r->util;
	unsigned long u;

	/* cpu_util() v4.17+ (7f65ea42eb00, UTIL_EST): max(util_avg,
	 * cfs_rq->avg.util_est.enqueued), then capped */
	if (env->util_est && r->util_est > f)
		f = r->util_est;
	u = f > 0 ? (unsigned long)f : 0;
	return u < SCHED_CAPACITY_SCALE ? u : SCHED_CAPACITY_SCALE;
}

/* cpu_runnable(): cfs_rq->avg.runnable_avg (v5.7), as replay/ rebuilt it */
static unsigned long cpu_runnable(const struct ir_rq_snap *r)
{
	return r->runnable > 0 ? (unsigned long)r->runnable : 0;
}

/* task_util_est() (v4.17+, 7f65ea42eb00): max(task_util(p),
 * _task_util_est(p)), the PELT util_avg rebuilt from its run times and the
 * estimate its last sleeps left (ir_util_est_update()); without UTIL_EST
 * rules the util_avg alone. */
static unsigned long task_util(const struct ir_lb_env *env, const struct ir_snap_task *p)
{
	float f = p->util;

	if (env->util_est && p->util_est > f)
		f = p->util_est;
	return f > 0 ? (unsigned long)f : 0;
}

/* env->cpus: the CPUs load_balance() still considers.  It starts as the
 * domain's span (cpu_active_mask: every CPU of a trace); a runqueue whose
 * tasks were all pinned leaves it (LBF_ALL_PINNED, below).  out[] holds the
 * CPUs taken out, at most IR_SNAP_MAX_CPUS (snapshots exist only up to it). */
#define LB_CPUS_WORDS ((IR_SNAP_MAX_CPUS + IR_CPUMASK_BITS - 1) / IR_CPUMASK_BITS)
struct lb_cpus {
	ir_cpumask_word out[LB_CPUS_WORDS];
};

static bool lb_cpu_out(const struct lb_cpus *cpus, int o)
{
	return cpus && o >= 0 && o < IR_SNAP_MAX_CPUS && ir_cpumask_test(cpus->out, o);
}

/* update_sg_lb_stats() for the group whose lowest CPU is g, over
 * for_each_cpu_and(i, sched_group_span(group), env->cpus): a CPU taken out
 * of env->cpus adds nothing, while group_weight and group_capacity stay the
 * group's own (group->group_weight, group->sgc->capacity; v6.1) */
static void sg_stats(const struct ir_lb_env *env, const struct ir_sched_domain *sd, int g,
		     struct sg_lb_stats *sgs, const struct lb_cpus *cpus)
{
	int n = env->pt->nr_rq;
	const struct ir_rq_snap *rq = rqs(env);

	memset(sgs, 0, sizeof(*sgs));
	sgs->first = g;
	for (int o = 0; o < n; o++) {
		const struct ir_rq_snap *r = &rq[o];

		if (!ir_cpumask_test(sd->span, o) || group_id(env, o) != g)
			continue;
		sgs->group_weight++;
		if (lb_cpu_out(cpus, o))
			continue;
		sgs->group_load += cpu_load(env, r);
		sgs->group_util += cpu_util(env, r);
		sgs->group_runnable += cpu_runnable(r);
		sgs->sum_nr_running += r->nr_running;
		sgs->sum_h_nr_running += r->nr_running;
		/* idle_cpu(): rq->curr is the idle task.  The balancing CPU's
		 * curr is still prev: newidle_balance() runs inside
		 * __schedule()'s pick_next_task(), before context_switch(), so
		 * it never counts as idle in its own local group */
		if (!r->nr_running && r->curr_idle && !(env->this_cpu_busy && o == env->pt->cpu))
			sgs->idle_cpus++;
	}
	sgs->group_capacity = (unsigned long)sgs->group_weight * SCHED_CAPACITY_SCALE;
	if (env->rules == IR_LB_V415) {
		/* 4.15 group_is_overloaded() and group_classify() */
		sgs->group_no_capacity = sgs->sum_nr_running > sgs->group_weight &&
			sgs->group_capacity * 100 < sgs->group_util * imbalance_pct(env, sd);
		sgs->group_type = sgs->group_no_capacity ? group_overloaded : group_has_spare;
		sgs->avg_load = sgs->group_load * SCHED_CAPACITY_SCALE / sgs->group_capacity;
		return;
	}
	/* v5.5+ group_is_overloaded(), group_has_capacity(), group_classify();
	 * from v5.7 (070f5e860ee2 "sched/fair: Take into account runnable_avg
	 * to classify group") a group whose runnable_avg exceeds its capacity
	 * by imbalance_pct is overloaded (with more tasks than CPUs) and has
	 * no spare capacity */
	{
		unsigned pct = imbalance_pct(env, sd);
		bool runnable_over = env->runnable_classify &&
			sgs->group_capacity * pct < sgs->group_runnable * 100;

		if (sgs->sum_nr_running > sgs->group_weight &&
		    (sgs->group_capacity * 100 < sgs->group_util * pct || runnable_over))
			sgs->group_type = group_overloaded;
		else if (sgs->sum_nr_running < sgs->group_weight ||
			 (!runnable_over && sgs->group_capacity * 100 > sgs->group_util * pct))
			sgs->group_type = group_has_spare;
		else
			sgs->group_type = group_fully_busy;
	}
	if (sgs->group_type == group_overloaded)
		sgs->avg_load = sgs->group_load * SCHED_CAPACITY_SCALE / sgs->group_capacity;
}

/* update_sd_pick_busiest() */
static bool pick_busiest(const struct ir_lb_env *env, const struct sg_lb_stats *sgs,
			 const struct sg_lb_stats *busiest, bool have)
{
	if (!sgs->sum_h_nr_running)
		return false;
	if (!have)
		return true;
	if (env->rules == IR_LB_V415) {
		if (sgs->group_type != busiest->group_type)
			return sgs->group_type > busiest->group_type;
		return sgs->avg_load > busiest->avg_load;
	}
	if (sgs->group_type != busiest->group_type)
		return sgs->group_type > busiest->group_type;
	switch (sgs->group_type) {
	case group_overloaded:
	case group_fully_busy:
		return sgs->avg_load > busiest->avg_load;
	case group_has_spare:
		if (sgs->idle_cpus > busiest->idle_cpus)
			return false;
		if (sgs->idle_cpus == busiest->idle_cpus && sgs->sum_nr_running <= busiest->sum_nr_running)
			return false;
		return true;
	}
	return false;
}

/* sd->imb_numa_nr: build_sched_domains() sets it over the domains before
 * degeneration (v5.18 e496132ebedd; v5.19 026b98a93bbd: a single LLC an
 * eighth of its span, at least 1), model/domains.c imb_numa_nrs() */
static unsigned imb_numa_nr(const struct ir_domains *dom, int cpu, int level)
{
	const struct ir_sched_domain *sd = ir_domains_level(dom, cpu, level);

	return sd && sd->imb_numa_nr ? sd->imb_numa_nr : 1;
}

enum migration_type { migrate_load, migrate_util, migrate_task };

/* find_busiest_group() with calculate_imbalance(); 0: balanced */
static long busiest_group(const struct ir_lb_env *env, const struct ir_sched_domain *sd,
			  struct sg_lb_stats *busiest, enum migration_type *mt, enum ir_lb_verdict *why,
			  const struct lb_cpus *cpus)
{
	struct sg_lb_stats local = { 0 }, sgs;
	unsigned long total_load = 0, total_capacity = 0, avg_load;
	bool have = false, prefer_sibling;
	const struct ir_sched_domain *child = env->level > 0 ?
		ir_domains_level(env->dom, env->pt->cpu, env->level - 1) : NULL;
	int n = env->pt->nr_rq, local_id = group_id(env, env->pt->cpu);
	long imbalance;

	/* sds->prefer_sibling = child && child->flags & SD_PREFER_SIBLING;
	 * sd_init() sets SD_PREFER_SIBLING on every level but NUMA ones */
	prefer_sibling = child && !(child->flags & SD_NUMA);
	/* sd->groups starts with the local group: its stats come first */
	sg_stats(env, sd, local_id, &local, cpus);
	for (int g = 0; g < n; g++) {
		if (!ir_cpumask_test(sd->span, g) || group_id(env, g) != g)
			continue;
		sg_stats(env, sd, g, &sgs, cpus);
		total_load += sgs.group_load;
		total_capacity += sgs.group_capacity;
		if (g == local_id)
			continue;	/* the local group is never the busiest */
		/* 4.15 update_sd_lb_stats(): with prefer_sibling, a group more than
		 * one task above a local group with capacity counts as full */
		if (env->rules == IR_LB_V415 && prefer_sibling &&
		    (local.sum_nr_running < local.group_weight ||
		     local.group_capacity * 100 > local.group_util * imbalance_pct(env, sd)) &&
		    sgs.sum_nr_running > local.sum_nr_running + 1) {
			sgs.group_no_capacity = true;
			sgs.group_type = group_overloaded;
		}
		if (pick_busiest(env, &sgs, busiest, have)) {
			*busiest = sgs;
			have = true;
		}
	}
	*why = IR_LB_BALANCED;
	if (!have) {
		*why = IR_LB_NO_BUSIEST;
		return 0;
	}
	avg_load = total_capacity ? total_load * SCHED_CAPACITY_SCALE / total_capacity : 0;

	if (env->rules == IR_LB_V415) {
		/* 4.15 find_busiest_group() */
		if (!busiest->sum_nr_running)
			return 0;
		bool local_capacity = local.sum_nr_running < local.group_weight ||
			local.group_capacity * 100 > local.group_util * imbalance_pct(env, sd);

		/* "SD_BALANCE_NEWIDLE trumps SMP nice when underutilized": not
		 * for a busy CPU (env->idle != CPU_NOT_IDLE); an idle CPU's
		 * periodic balance tests idle CPUs, the others imbalance_pct */
		if (!(env->idle != IR_CPU_NOT_IDLE && local_capacity && busiest->group_no_capacity)) {
			if (local.avg_load >= busiest->avg_load || local.avg_load >= avg_load)
				return 0;
			if (env->idle == IR_CPU_IDLE) {
				if (busiest->group_type != group_overloaded &&
				    local.idle_cpus <= busiest->idle_cpus + 1)
					return 0;
			} else if (100 * busiest->avg_load <= imbalance_pct(env, sd) * local.avg_load) {
				return 0;
			}
		}
		/* 4.15 calculate_imbalance(), load units; fix_small_imbalance()
		 * moves one task's load when the gap is below it */
		*mt = migrate_load;
		{
			unsigned long max_pull = busiest->avg_load > avg_load ? busiest->avg_load - avg_load : 0;
			unsigned long room = avg_load > local.avg_load ? avg_load - local.avg_load : 0;
			unsigned long a = max_pull * busiest->group_capacity, b = room * local.group_capacity;

			imbalance = (long)((a < b ? a : b) / SCHED_CAPACITY_SCALE);
			if (imbalance < (long)NICE_0_LOAD)
				imbalance = NICE_0_LOAD;
		}
		return imbalance;
	}

	/* v5.5+ find_busiest_group() */
	if (local.group_type > busiest->group_type)
		return 0;
	if (local.group_type == group_overloaded) {
		if (local.avg_load >= busiest->avg_load || local.avg_load >= avg_load)
			return 0;
		if (100 * busiest->avg_load <= imbalance_pct(env, sd) * local.avg_load)
			return 0;
	}
	if (!(prefer_sibling && local.group_type == group_has_spare &&
	      busiest->sum_nr_running > local.sum_nr_running + 1) &&
	    busiest->group_type != group_overloaded) {
		/* "If the busiest group is not overloaded (and as a result the
		 * local one too) but this CPU is already busy, let another idle
		 * CPU try to pull task" (v5.5+, v6.1 find_busiest_group()) */
		if (env->idle == IR_CPU_NOT_IDLE)
			return 0;
		if (busiest->group_weight > 1 && local.idle_cpus <= busiest->idle_cpus + 1)
			return 0;
		if (busiest->sum_h_nr_running == 1)
			return 0;
	}

	/* calculate_imbalance() */
	if (local.group_type == group_has_spare) {
		/* v5.10+: filling spare capacity by utilisation only between LLCs;
		 * inside one (SMT, MC) tasks are spread by count (16b0a7a1a0af
		 * "sched/fair: Ensure tasks spreading in LLC during LB") */
		if (busiest->group_type > group_fully_busy &&
		    !(env->llc_spread && (sd->flags & SD_SHARE_PKG_RESOURCES))) {
			*mt = migrate_util;
			imbalance = (long)((local.group_capacity > local.group_util ? local.group_capacity :
					    local.group_util) - local.group_util);
			if (imbalance == 0 && env->idle != IR_CPU_NOT_IDLE) {
				*mt = migrate_task;	/* "the local CPU is (newly) idle": pull one waiting task */
				imbalance = 1;
			}
			return imbalance;
		}
		*mt = migrate_task;
		if (busiest->group_weight == 1 || prefer_sibling)
			imbalance = busiest->sum_nr_running > local.sum_nr_running ?
				busiest->sum_nr_running - local.sum_nr_running : 0;
		else
			imbalance = local.idle_cpus > busiest->idle_cpus ?
				(long)(local.idle_cpus - busiest->idle_cpus) : 0;
		if (env->rules == IR_LB_V519) {
			if (sd->flags & SD_NUMA) {
				/* adjust_numa_imbalance(): allow_numa_imbalance(running,
				 * imb_numa_nr) is running <= imb_numa_nr (v5.19 and
				 * 6.1 kernel/sched/fair.c: the destination may take
				 * up to imb_numa_nr tasks); then
				 * imbalance <= NUMA_IMBALANCE_MIN (2) -> 0 */
				unsigned dst_running = local.sum_nr_running + 1;
				unsigned imb = imb_numa_nr(env->dom, env->pt->cpu, env->level);

				if ((env->numa_allow_inclusive ? dst_running <= imb : dst_running < imb) && imbalance <= 2)
					imbalance = 0;
			}
			imbalance >>= 1;
		} else {
			imbalance >>= 1;
			/* v5.16-5.18 adjust_numa_imbalance(imbalance, busiest->sum_nr_running,
			 * sd->span_weight): allowed while below a quarter of the domain */
			if ((sd->flags & SD_NUMA) && busiest->sum_nr_running < (sd->span_weight >> 2) &&
			    imbalance <= 2)
				imbalance = 0;
		}
		return imbalance;
	}
	*mt = migrate_load;
	{
		unsigned long la = local.group_load * SCHED_CAPACITY_SCALE / (local.group_capacity ? local.group_capacity : 1);
		unsigned long a = busiest->avg_load > avg_load ? (busiest->avg_load - avg_load) * busiest->group_capacity : 0;
		unsigned long b = avg_load > la ? (avg_load - la) * local.group_capacity : 0;

		imbalance = (long)((a < b ? a : b) / SCHED_CAPACITY_SCALE);
	}
	return imbalance;
}

/* detach_tasks(), migrate_load: "Make sure that we don't migrate too much
 * load".  v4.15: load / 2 > imbalance.  v5.5 (0b0695f2b34a): relaxed once
 * nr_balance_failed > cache_nice_tries.  v5.10 (5a7f55590467 "sched/fair:
 * Relax constraint on task's load during load balance"): (load >>
 * nr_balance_failed) > imbalance, the shift capped by shr_bound() since
 * v5.13: a newidle balance (nr_balance_failed 0) moves a task only when
 * the imbalance holds its whole load. */
static bool load_too_big(const struct ir_lb_env *env, const struct ir_sched_domain *sd,
			 unsigned long load, long imbalance)
{
	if (env->load_shift)
		return (load >> (env->nr_balance_failed < 63 ? env->nr_balance_failed : 63)) >
			(unsigned long)imbalance;
	if (env->rules == IR_LB_V415)
		return load / 2 > (unsigned long)imbalance;
	return load / 2 > (unsigned long)imbalance && env->nr_balance_failed <= sd->cache_nice_tries;
}

/* task_hot() */
static bool task_hot(const struct ir_lb_env *env, const struct ir_sched_domain *sd,
		     const struct ir_snap_task *p)
{
	if (env->smt_never_hot && (sd->flags & SD_SHARE_CPUCAPACITY))
		return false;	/* SMT siblings share cache */
	if (env->sysctl_sched_migration_cost == 0)
		return false;
	if (!p->exec_start)
		return false;	/* never seen run: its exec_start is old */
	/* delta = rq_clock_task(src) - exec_start is signed in the kernel: a
	 * task that ran at this very instant (delta 0) is hot */
	return (int64_t)(env->now - p->exec_start) < (int64_t)env->sysctl_sched_migration_cost;
}

/* find_busiest_queue(): one runqueue of the busiest group, the first of
 * the highest by the migration type (v5.5 0b0695f2b34a): migrate_task the
 * most tasks; migrate_util the highest cpu_util_cfs() among those with more
 * than one task (v5.7 "sched/fair: Improve spreading of utilization": one
 * task cannot be detached); over the group's CPUs still in env->cpus */
static int busiest_queue(const struct ir_lb_env *env, const struct ir_sched_domain *sd,
			 const struct sg_lb_stats *busiest, enum migration_type mt, long imbalance,
			 const struct lb_cpus *cpus)
{
	unsigned nr, busiest_nr = 0;
	unsigned long busiest_util = 0, busiest_load = 0;
	int src_cpu = -1;

	for (int o = 0; o < env->pt->nr_rq; o++) {
		const struct ir_rq_snap *r = &rqs(env)[o];

		if (!ir_cpumask_test(sd->span, o) || group_id(env, o) != busiest->first ||
		    lb_cpu_out(cpus, o))
			continue;
		nr = r->nr_running;
		if (!nr)
			continue;
		if (mt == migrate_load && env->pelt_load) {
			/* v5.5+ migrate_load: "nr_running == 1 && load >
			 * env->imbalance && !check_cpu_capacity()" skips the rq
			 * (full capacity here); else the highest cpu_load() */
			unsigned long load = cpu_load(env, r);

			if (nr == 1 && load > (unsigned long)imbalance)
				continue;
			if (load > busiest_load) {
				busiest_load = load;
				src_cpu = o;
			}
			continue;
		}
		if (mt == migrate_load && nr == 1)
			continue;	/* a single task heavier than the imbalance stays */
		if (mt == migrate_util) {
			if (nr <= 1)
				continue;
			if (busiest_util < cpu_util(env, r)) {
				busiest_util = cpu_util(env, r);
				src_cpu = o;
			}
			continue;
		}
		if (nr > busiest_nr) {
			busiest_nr = nr;
			src_cpu = o;
		}
	}
	return src_cpu;
}

/* detach_tasks() on src (CPU src_cpu); *all_pinned: LBF_ALL_PINNED was still
 * set after it */
static void detach(const struct ir_lb_env *env, const struct ir_sched_domain *sd,
		   const struct ir_rq_snap *src, int src_cpu, enum migration_type mt, long imbalance,
		   struct ir_lb_result *res, bool *all_pinned)
{
	unsigned nr_running = src->nr_running;
	unsigned loop_max = nr_running < 32 ? nr_running : 32;	/* sysctl_sched_nr_migrate */

	/* can_migrate_task() clears LBF_ALL_PINNED for the first task whose
	 * cpus_ptr holds dst_cpu, before its task_running() and task_hot()
	 * tests; per-CPU kthreads return earlier ("Disregard pcpu kthreads",
	 * v5.12 9bcb959d05ee) and leave it set.  cfs_tasks holds the running
	 * task too, and with loop_max = nr_running every entry is visited: a
	 * CPU running a task clears it (ASSUMED: the snapshot does not say
	 * whether curr is a CFS task or pinned; it is taken as a CFS task
	 * allowed here), so the flag stays only on a runqueue whose curr is
	 * the idle task and whose queued tasks are all pinned */
	*all_pinned = src->curr_idle;
	for (unsigned i = 0; i < src->nr_tasks && i < loop_max; i++) {
		const struct ir_snap_task *p = &src->task[i];
		unsigned long util;

		if (env->idle != IR_CPU_NOT_IDLE && nr_running <= 1)
			break;	/* "We don't want to steal all" (an idle destination) */
		if (p->pinned)
			continue;	/* cpus_ptr excludes dst_cpu */
		*all_pinned = false;
		if (task_hot(env, sd, p) && env->nr_balance_failed <= sd->cache_nice_tries) {
			res->hot_skipped++;
			continue;
		}
		switch (mt) {
		case migrate_load:
			if (load_too_big(env, sd, task_h_load(env, p), imbalance))
				continue;
			imbalance -= (long)task_h_load(env, p);
			break;
		case migrate_util:
			util = task_util(env, p);
			if (util > (unsigned long)imbalance)
				continue;
			imbalance -= (long)util;
			break;
		case migrate_task:
			imbalance--;
			break;
		}
		if (!res->moved)
			res->from_cpu = src_cpu;
		res->moved_pid[res->moved++] = p->pid;	/* moved <= i < IR_SNAP_TASKS */
		nr_running--;
		if (env->preemption || imbalance <= 0)
			break;	/* CONFIG_PREEMPTION: newidle stops after one */
	}
}

/* is_core_idle(): every SMT sibling of o (the lowest level's span when it
 * is SD_SHARE_CPUCAPACITY) but o itself is idle_cpu() */
static bool core_idle(const struct ir_domains *dom, int o, const bool *idle)
{
	const struct ir_sched_domain *smt = ir_domains_nr_levels(dom, o) > 0 ? ir_domains_level(dom, o, 0) : NULL;
	int n = ir_domains_nr_cpus(dom);

	if (!smt || !(smt->flags & SD_SHARE_CPUCAPACITY))
		return true;
	for (int x = 0; x < n; x++)
		if (x != o && ir_cpumask_test(smt->span, x) && !idle[x])
			return false;
	return true;
}

/* should_we_balance() (v6.1): the local group is sd->groups, the child
 * domain's span ({cpu} at the lowest level); "Try to find first idle CPU"
 * of group_balance_mask(sg), else "Are we the first CPU of this group ?"
 * (group_balance_cpu()).  v6.6+ outside SD_SHARE_CPUCAPACITY levels:
 * "Don't balance to idle SMT in busy core right away when balancing
 * cores, but remember the first idle SMT CPU for later consideration",
 * then "Are we the first idle CPU with busy siblings?".  CPUs in
 * ascending order, as for_each_cpu_and() walks them; the siblings of a
 * busy core that cpumask_andnot() drops are busy-core CPUs too, which the
 * walk skips alike. */
bool ir_should_we_balance(const struct ir_domains *dom, int cpu, int level, const bool *idle, bool idle_cores)
{
	const struct ir_sched_domain *sd = ir_domains_level(dom, cpu, level);
	const struct ir_sched_domain *child = level > 0 ? ir_domains_level(dom, cpu, level - 1) : NULL;
	bool cores = idle_cores && sd && !(sd->flags & SD_SHARE_CPUCAPACITY);
	int n = ir_domains_nr_cpus(dom), first = -1, idle_smt = -1;

	if (!sd)
		return true;
	for (int o = 0; o < n; o++) {
		if (o != cpu && (!child || !ir_cpumask_test(child->span, o)))
			continue;
		if (first < 0)
			first = o;
		if (!idle[o])
			continue;
		if (cores && !core_idle(dom, o, idle)) {
			if (idle_smt < 0)
				idle_smt = o;
			continue;
		}
		return o == cpu;
	}
	if (idle_smt >= 0)
		return idle_smt == cpu;
	return first == cpu;
}

void ir_load_balance(const struct ir_lb_env *env, struct ir_lb_result *res)
{
	const struct ir_sched_domain *sd = ir_domains_level(env->dom, env->pt->cpu, env->level);
	struct lb_cpus cpus;
	int local_id = group_id(env, env->pt->cpu);

	memset(res, 0, sizeof(*res));
	memset(&cpus, 0, sizeof(cpus));
	res->from_cpu = -1;
	res->busiest_cpu = -1;
	/* load_balance() "redo:" loop (v6.1; LBF_ALL_PINNED since v2.6) */
	for (;;) {
		struct sg_lb_stats busiest = { 0 };
		enum migration_type mt = migrate_task;
		const struct ir_rq_snap *src;
		long imbalance;
		int src_cpu;
		bool all_pinned = false, others = false;

		imbalance = busiest_group(env, sd, &busiest, &mt, &res->why, &cpus);
		if (imbalance <= 0)
			return;
		src_cpu = busiest_queue(env, sd, &busiest, mt, imbalance, &cpus);
		if (src_cpu < 0) {
			res->why = IR_LB_NO_QUEUE;
			return;
		}
		src = &rqs(env)[src_cpu];
		res->busiest_cpu = src_cpu;
		res->migrate_task = mt == migrate_task;
		res->why = IR_LB_NOTHING_MOVABLE;
		/* "if (busiest->nr_running > 1)": detach_tasks() */
		if (src->nr_running > 1)
			detach(env, sd, src, src_cpu, mt, imbalance, res, &all_pinned);
		if (res->moved) {
			res->why = IR_LB_PULLED;
			return;
		}
		if (!env->all_pinned_redo || !all_pinned || src_cpu >= IR_SNAP_MAX_CPUS) {
			res->failed = true;	/* "if (!ld_moved)" */
			return;
		}
		/* load_balance(): "All tasks on this runqueue were pinned by CPU
		 * affinity": __cpumask_clear_cpu(cpu_of(busiest), cpus), and
		 * "goto redo" while !cpumask_subset(cpus, env.dst_grpmask) (some
		 * CPU outside the local group is left), else out_all_pinned */
		ir_cpumask_set(cpus.out, src_cpu);
		res->all_pinned++;
		for (int o = 0; o < env->pt->nr_rq && !others; o++)
			others = ir_cpumask_test(sd->span, o) && !lb_cpu_out(&cpus, o) &&
				group_id(env, o) != local_id;
		if (!others)
			return;
	}
}

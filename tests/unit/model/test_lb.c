/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * load_balance() per level (model/lb.c) on hand-built runqueues.  Each
 * expectation is worked out from the kernel code cited in lb.c, not from the
 * tool's output.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/cpumask.h"
#include "tests/unit/domains.h"

#define US 1000ull
#define NOW 100000000ull	/* 100 ms */

/* rq o with nr tasks: one running, nr - 1 queued, last run `ago` before NOW */
static void busy(struct ir_rq_snap *rq, int o, int nr, uint64_t ago, float util)
{
	rq[o].nr_running = (uint16_t)nr;
	rq[o].curr_idle = nr == 0;
	rq[o].util = util;
	rq[o].nr_tasks = (uint16_t)(nr > 1 ? nr - 1 : 0);
	for (int i = 0; i + 1 < nr; i++)
		rq[o].task[i] = (struct ir_snap_task){ .pid = 100 * o + i, .prio = 120,
			.exec_start = NOW - ago, .util = 100 };
}

/* every rq idle: the idle task runs, nothing queued */
static void idle_all(struct ir_rq_snap *rq, int n)
{
	for (int o = 0; o < n; o++)
		busy(rq, o, 0, 0, 0);
}

/* every rq at once: nr[o] tasks (cold: last run 10 ms ago), utilisation util[o] */
static void loads(struct ir_rq_snap *rq, int n, const int *nr, const float *util)
{
	for (int o = 0; o < n; o++)
		busy(rq, o, nr[o], nr[o] ? 10 * 1000 * US : 0, util[o]);
}

/* one load_balance() case: the domains, n runqueues (all idle to start
 * with) and CPU 0's newidle point over them */
struct lbt {
	struct ir_domains *d;
	struct ir_rq_snap rq[28];
	struct ir_point pt;
};

static void lbt_init(struct lbt *t, struct ir_domains *d, int n)
{
	memset(t, 0, sizeof(*t));
	t->d = d;
	idle_all(t->rq, n);
	t->pt = (struct ir_point){ .cpu = 0, .ts = NOW, .rq = t->rq, .nr_rq = n };
}

static struct ir_lb_result lb_llc(const struct ir_domains *d, const struct ir_point *pt, int level,
				  uint64_t migration_cost, bool preemption, bool llc_spread)
{
	struct ir_lb_env env = {
		.dom = d, .pt = pt, .level = level, .rules = IR_LB_V519, .now = NOW,
		.sysctl_sched_migration_cost = migration_cost, .preemption = preemption,
		.smt_never_hot = true, .llc_spread = llc_spread, .numa_allow_inclusive = true,
		.this_cpu_busy = true,
	};
	struct ir_lb_result r;

	ir_load_balance(&env, &r);
	return r;
}

/* a v5.19+ kernel */
static struct ir_lb_result lb(const struct ir_domains *d, const struct ir_point *pt, int level,
			      uint64_t migration_cost, bool preemption)
{
	return lb_llc(d, pt, level, migration_cost, preemption, true);
}

static struct ir_lb_result lb_rules(const struct ir_domains *d, const struct ir_point *pt, int level,
				    enum ir_lb_rules rules, bool preemption)
{
	struct ir_lb_env env = {
		.dom = d, .pt = pt, .level = level, .rules = rules, .now = NOW,
		.sysctl_sched_migration_cost = 500 * US, .preemption = preemption,
		.smt_never_hot = true, .llc_spread = true, .numa_allow_inclusive = true,
		.this_cpu_busy = true,
	};
	struct ir_lb_result r;

	ir_load_balance(&env, &r);
	return r;
}

/* load_balance() at a level of case t: moved tasks, the first from CPU
 * `from` (-1: nothing moved; -2: any CPU) */
static struct ir_lb_result expect_lb(struct lbt *t, int level, enum ir_lb_rules rules, bool preemption,
				     int moved, int from)
{
	struct ir_lb_result r = lb_rules(t->d, &t->pt, level, rules, preemption);

	assert_int_equal(r.moved, moved);
	if (from != -2)
		assert_int_equal(r.from_cpu, from);
	return r;
}

/* The known bug: a task on an SMT sibling moves only at the SMT level.  At
 * MC the sibling is in the local group, which is never the busiest. */
static void test_sibling_only_at_smt(void **state)
{
	struct lbt t;
	struct ir_lb_result r;

	(void)state;
	lbt_init(&t, ut_domains("sockets=1,cores=2,threads=2"), 4);
	busy(t.rq, 0, 0, 0, 1024);
	busy(t.rq, 1, 3, 2 * 1000 * US, 1024);	/* sibling: 2 waiting, cold */
	busy(t.rq, 2, 1, 0, 1024);
	busy(t.rq, 3, 1, 0, 1024);
	r = lb(t.d, &t.pt, 0, 500 * US, true);	/* SMT: groups are CPUs 0 and 1 */
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 1);
	assert_int_equal(r.moved_pid[0], 100);		/* the tail of cfs_tasks */
	/* MC: groups {0,1} (local: 3 tasks on 2 CPUs, util 2048 * 117 > 2048 *
	 * 100: group_overloaded) and {2,3} (2 tasks on 2 CPUs: group_fully_busy).
	 * The local group is never the busiest, and it is busier: balanced */
	r = lb(t.d, &t.pt, 1, 500 * US, true);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.why, IR_LB_BALANCED);
	ir_domains_free(t.d);
}

/* task_hot(): exec_start within sysctl_sched_migration_cost stops a pull at
 * MC unless the sysctl is 0; never at the SMT level (SD_SHARE_CPUCAPACITY). */
static void test_cache_hot(void **state)
{
	struct lbt t;
	struct ir_lb_result r;

	(void)state;
	lbt_init(&t, ut_domains("sockets=1,cores=2,threads=2"), 4);
	busy(t.rq, 0, 0, 0, 0);
	busy(t.rq, 1, 0, 0, 0);
	busy(t.rq, 2, 4, 100 * US, 400);		/* 3 waiting, ran 100 us ago */
	busy(t.rq, 3, 0, 0, 0);
	/* MC: local {0,1} has_spare with 0 tasks, {2,3} 4 tasks on 2 CPUs with
	 * util 400: not overloaded (2048 * 100 > 400 * 117), has_spare; prefer
	 * sibling (child SMT) and 4 > 0 + 1: force; imbalance (4 - 0) >> 1 = 2 */
	r = lb(t.d, &t.pt, 1, 500 * US, true);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.why, IR_LB_NOTHING_MOVABLE);
	assert_int_equal(r.hot_skipped, 3);
	r = lb(t.d, &t.pt, 1, 0, true);		/* migration_cost 0: never hot */
	assert_int_equal(r.moved, 1);		/* CONFIG_PREEMPTION: one, then stop */
	assert_int_equal(r.from_cpu, 2);
	r = lb(t.d, &t.pt, 1, 0, false);		/* no PREEMPTION: the imbalance, 2 */
	assert_int_equal(r.moved, 2);
	r = lb(t.d, &t.pt, 1, 50 * US, false);	/* ran 100 us ago: cold at 50 us */
	assert_int_equal(r.moved, 2);
	/* delta is signed in task_hot(): a task whose exec_start is this very
	 * instant (delta 0 < cost) is hot, so is one stamped after it */
	busy(t.rq, 2, 4, 0, 400);
	r = lb(t.d, &t.pt, 1, 500 * US, false);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.hot_skipped, 3);
	for (int i = 0; i < 3; i++)
		t.rq[2].task[i].exec_start = NOW + US;
	r = lb(t.d, &t.pt, 1, 500 * US, false);
	assert_int_equal(r.moved, 0);
	ir_domains_free(t.d);
}

/* v5.19+ calculate_imbalance(): NUMA allowance through imb_numa_nr.  Two
 * nodes of one LLC (4 CPUs) each: build_sched_domains() computes
 * imb_numa_nr at the DIE level (= the node, one LLC: max(1, 4 >> 3) = 1)
 * before it degenerates, and NUMA takes 1 x max(1, 8 / 8) = 1. */
static void test_numa_allowance(void **state)
{
	struct lbt t;
	struct ir_lb_result r;
	int numa;

	(void)state;
	lbt_init(&t, ut_domains("sockets=2,cores=2,threads=2,nodes=2"), 8);
	numa = ir_domains_nr_levels(t.d, 0) - 1;
	assert_int_equal(ir_domains_level(t.d, 0, numa)->kind, IR_LVL_NUMA);
	busy(t.rq, 4, 2, 10 * 1000 * US, 300);
	/* node 1 has 2 tasks, node 0 none: prefer_sibling forces, imbalance 2 - 0
	 * = 2; local sum 0 + 1 <= imb_numa_nr 1 and 2 <= NUMA_IMBALANCE_MIN: 0 */
	r = lb(t.d, &t.pt, numa, 500 * US, true);
	assert_int_equal(r.moved, 0);
	busy(t.rq, 4, 4, 10 * 1000 * US, 300);
	/* 4 tasks: imbalance 4 > 2 is kept, >> 1 = 2; one moves (PREEMPTION) */
	r = lb(t.d, &t.pt, numa, 500 * US, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 4);
	ir_domains_free(t.d);
}

/* A pinned per-CPU kthread never moves; detach_tasks() goes on to the next. */
/* v5.10+ calculate_imbalance() (16b0a7a1a0af): inside an LLC (MC here) an
 * overloaded busiest group is balanced by task count, not by filling the
 * local group's spare capacity. */
static void test_llc_spread(void **state)
{
	struct lbt t;
	struct ir_lb_result r;

	(void)state;
	lbt_init(&t, ut_domains("sockets=1,cores=2,threads=2"), 4);
	busy(t.rq, 0, 0, 0, 0);
	busy(t.rq, 1, 1, 0, 1024);
	busy(t.rq, 2, 3, 10 * 1000 * US, 1024);	/* 2 waiting, cold, util 100 each */
	busy(t.rq, 3, 1, 0, 1024);
	/* local {0,1}: 1 task on 2 CPUs, has_spare, util 1024; busiest {2,3}: 4
	 * tasks on 2 CPUs, 2048 * 100 < 2048 * 117: group_overloaded.
	 * Before v5.10: migrate_util, imbalance 2048 - 1024; both waiting tasks
	 * (util 100) fit, and detach_tasks() leaves rq 2 its last: 2 move. */
	r = lb_llc(t.d, &t.pt, 1, 500 * US, false, false);
	assert_int_equal(r.moved, 2);
	/* v5.10+: migrate_task; prefer_sibling (child SMT): (4 - 1) >> 1 = 1 */
	r = lb_llc(t.d, &t.pt, 1, 500 * US, false, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 2);
	/* Before v5.10, CPU 0 newly idle with its util still 1024: local util
	 * 2048 = capacity, max(2048, 2048) - 2048 = 0.  calculate_imbalance()
	 * (v5.5): "the local CPU is (newly) idle. There is at least one
	 * waiting task in this overloaded busiest group. Let's try to pull
	 * it": migrate_task, imbalance 1: one task (util 100, which
	 * migrate_util with imbalance 1 would not move) from the longest queue */
	busy(t.rq, 0, 0, 0, 1024);
	r = lb_llc(t.d, &t.pt, 1, 500 * US, false, false);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 2);
	ir_domains_free(t.d);
}

/* find_busiest_queue() for migrate_util (NUMA: above the LLC): the highest
 * utilisation among runqueues with more than one task, not the longest. */
static void test_busiest_queue_util(void **state)
{
	struct lbt t;
	struct ir_lb_result r;
	int numa;

	(void)state;
	lbt_init(&t, ut_domains("sockets=2,cores=2,threads=2,nodes=2"), 8);
	numa = ir_domains_nr_levels(t.d, 0) - 1;
	busy(t.rq, 4, 3, 10 * 1000 * US, 1000);	/* the longest queue */
	busy(t.rq, 5, 2, 10 * 1000 * US, 1010);	/* the busiest of those with 2+ */
	busy(t.rq, 6, 1, 0, 1024);		/* the busiest, but one task: skipped */
	busy(t.rq, 7, 1, 0, 1024);
	/* node 1: 7 tasks on 4 CPUs, util 4058: 4096 * 100 < 4058 * 117,
	 * group_overloaded; node 0 idle, has_spare: migrate_util, imbalance 4096 */
	r = lb(t.d, &t.pt, numa, 500 * US, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 5);
	assert_int_equal(r.moved_pid[0], 500);
	/* Node 1 fully busy, not overloaded: 4 tasks on 4 CPUs (CPUs 6 and 7
	 * just went idle, util still 1024), 4096 * 100 < 3972 * 117.
	 * calculate_imbalance() gives migrate_util only for a busiest group
	 * above group_fully_busy; here migrate_task, prefer_sibling (child MC):
	 * (4 - 0) >> 1 = 2 (above NUMA_IMBALANCE_MIN), and find_busiest_queue()
	 * takes the first of the longest queues, CPU 4, not the busiest by
	 * utilisation (CPU 5); CPU 4 keeps its running task: 1 moves */
	busy(t.rq, 4, 2, 10 * 1000 * US, 900);
	busy(t.rq, 5, 2, 10 * 1000 * US, 1024);
	busy(t.rq, 6, 0, 0, 1024);
	busy(t.rq, 7, 0, 0, 1024);
	r = lb(t.d, &t.pt, numa, 500 * US, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 4);
	assert_int_equal(r.moved_pid[0], 400);
	ir_domains_free(t.d);
}

/* find_busiest_queue(), migrate_util (v5.7+): busiest_util starts at 0 and
 * a runqueue is taken only when "busiest_util < util", so a queue whose
 * utilisation is 0 is never the busiest, even the only one with 2+ tasks:
 * nothing moves; at util 1 it is taken.  Node 1 (8 CPUs): 7 single tasks
 * at util 1024 and CPU 15 with 3 tasks: 9 tasks on 8 CPUs, 8192 * 100 <
 * 7168 * 117: group_overloaded; node 0 idle, has_spare; NUMA has no
 * SD_SHARE_PKG_RESOURCES: migrate_util. */
static void test_busiest_queue_util_zero(void **state)
{
	struct lbt t;
	struct ir_lb_result r;
	int numa;

	(void)state;
	lbt_init(&t, ut_domains("sockets=2,cores=8,nodes=2"), 16);
	numa = ir_domains_nr_levels(t.d, 0) - 1;
	for (int o = 8; o < 15; o++)
		busy(t.rq, o, 1, 0, 1024);
	busy(t.rq, 15, 3, 10 * 1000 * US, 0);
	r = lb(t.d, &t.pt, numa, 500 * US, true);
	assert_int_equal(r.moved, 0);
	busy(t.rq, 15, 3, 10 * 1000 * US, 1);
	r = lb(t.d, &t.pt, numa, 500 * US, true);
	assert_true(r.moved >= 1);
	assert_int_equal(r.from_cpu, 15);
	ir_domains_free(t.d);
}

/* detach_tasks(), migrate_load: both groups of MC overloaded.  Local {0,1}:
 * 3 tasks on 2 CPUs, load 3072, avg_load 1536; busiest {2,3}: 4 tasks,
 * avg_load 2048; the domain's avg_load 7168 * 1024 / 4096 = 1792; 100 * 2048
 * > 117 * 1536, so not balanced.  calculate_imbalance(): migrate_load,
 * min((2048 - 1792) * 2048, (1792 - 1536) * 2048) / 1024 = 512, half a
 * nice-0 task's load. */
static void test_migrate_load(void **state)
{
	struct ir_domains *d = ut_domains("sockets=1,cores=2,threads=2");
	struct ir_rq_snap rq[4] = { 0 };
	struct ir_point pt = { .cpu = 0, .ts = NOW, .rq = rq, .nr_rq = 4 };
	struct ir_lb_env env = {
		.dom = d, .pt = &pt, .level = 1, .rules = IR_LB_V519, .now = NOW,
		.sysctl_sched_migration_cost = 500 * US, .preemption = true,
		.smt_never_hot = true, .llc_spread = true,
	};
	struct ir_lb_result r;

	(void)state;
	busy(rq, 0, 0, 0, 1024);
	busy(rq, 1, 3, 10 * 1000 * US, 1024);
	busy(rq, 2, 2, 10 * 1000 * US, 1024);
	busy(rq, 3, 2, 10 * 1000 * US, 1024);
	/* v5.5-v5.9: load / 2 (512) > imbalance (512) is false: a task moves */
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 2);
	/* v5.10+ (5a7f55590467): load >> nr_balance_failed (1024) > 512: none */
	env.load_shift = true;
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.why, IR_LB_NOTHING_MOVABLE);
	/* one failed periodic balance halves the load compared: 512 moves */
	env.nr_balance_failed = 1;
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 1);
	ir_domains_free(d);
}

static void test_pinned(void **state)
{
	struct lbt t;
	struct ir_lb_result r;

	(void)state;
	lbt_init(&t, ut_domains("sockets=1,cores=2,threads=2"), 4);
	busy(t.rq, 1, 3, 2 * 1000 * US, 1024);
	t.rq[1].task[0].pinned = true;
	r = lb(t.d, &t.pt, 0, 500 * US, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.moved_pid[0], 101);
	t.rq[1].task[1].pinned = true;
	r = lb(t.d, &t.pt, 0, 500 * US, true);
	assert_int_equal(r.moved, 0);
	ir_domains_free(t.d);
}

/* Three cores of two threads: MC (imbalance_pct 117, cache_nice_tries 1)
 * has three groups, so the average load differs from both sides' and
 * calculate_imbalance()'s min() of the two sides is not symmetric.  Tasks
 * are cold (ran 10 ms ago) and weigh NICE_0_LOAD. */
static struct ir_domains *three_cores(void)
{
	struct ir_domains *d = ut_domains("sockets=1,cores=3,threads=2");

	assert_int_equal(ir_domains_level(d, 0, 1)->kind, IR_LVL_MC);
	assert_int_equal(ir_domains_level(d, 0, 1)->span_weight, 6);
	return d;
}

/* MC of three_cores() (imbalance_pct 117, cache_nice_tries 1), CPU 0
 * newly idle: each case's runqueues (tasks, utilisation per CPU; a task
 * weighs NICE_0_LOAD, cold: ran 10 ms ago), rules, CONFIG_PREEMPTION, and
 * what load_balance() does, worked out by hand from the kernel code cited
 * in lb.c.  Three groups, so calculate_imbalance()'s min() of the two
 * sides is not symmetric.  pid -1, why -1: not checked. */
static const struct mc_case {
	enum ir_lb_rules rules;
	bool preemption;
	int nr[6];
	float util[6];
	int moved, from, pid, why;
} mc_cases[] = {
	/* 4.15, load units.  Local {0,1} 1 task (avg_load 512, capacity
	 * left); {2,3} 4 tasks (2048 * 100 < 2048 * 117: no capacity, 2048);
	 * {4,5} 1024.  Domain 7168 * 1024 / 6144 = 1194.  Local has capacity,
	 * busiest none: no avg_load test.  imbalance min(854 * 2048, 682 *
	 * 2048) / 1024 = 1364; the first task leaves 340, below half a task's
	 * load: one moves, from the longest queue. */
	{ IR_LB_V415, false, { 0, 1, 3, 1, 1, 1 }, { 0, 1024, 1024, 1024, 1024, 1024 }, 1, 2, 200, IR_LB_PULLED },
	/* local empty: {4,5} counts as full (prefer_sibling), {2,3} has the
	 * higher avg_load; domain 1024; min(1024 * 2048, 1024 * 2048) / 1024 =
	 * 2048: two tasks, one with CONFIG_PREEMPTION */
	{ IR_LB_V415, false, { 0, 0, 3, 1, 1, 1 }, { 0, 0, 1024, 1024, 1024, 1024 }, 2, 2, -1, -1 },
	{ IR_LB_V415, true, { 0, 0, 3, 1, 1, 1 }, { 0, 0, 1024, 1024, 1024, 1024 }, 1, 2, -1, -1 },
	/* 4.15, a full local group (6 tasks, avg_load 3072): {2,3}, {4,5} 7
	 * each (3584, the first found stays the busiest), domain 3413; local
	 * is below both but 100 * 3584 <= 117 * 3072: balanced.  {2,3} with 8
	 * (4096, domain 3584): min(512 * 2048, 512 * 2048) / 1024 = 1024 */
	{ IR_LB_V415, false, { 0, 6, 6, 1, 6, 1 }, { 1024, 1024, 1024, 1024, 1024, 1024 }, 0, -1, -1, IR_LB_BALANCED },
	{ IR_LB_V415, false, { 0, 6, 7, 1, 6, 1 }, { 1024, 1024, 1024, 1024, 1024, 1024 }, 1, 2, -1, -1 },
	/* 4.15 group_has_capacity() of that local group at the boundary: util
	 * 880 per CPU (1760 * 117 = 205920 > 204800) none, balanced as above;
	 * 870 (203580) some, and the busiest has none: no avg_load tests,
	 * min(171 * 2048, 341 * 2048) / 1024 = 342, raised to a task's load */
	{ IR_LB_V415, true, { 0, 6, 6, 1, 6, 1 }, { 880, 880, 1024, 1024, 1024, 1024 }, 0, -1, -1, IR_LB_BALANCED },
	{ IR_LB_V415, true, { 0, 6, 6, 1, 6, 1 }, { 870, 870, 1024, 1024, 1024, 1024 }, 1, 2, -1, -1 },
	/* 4.15 prefer_sibling: a group more than one task above a local group
	 * with capacity counts as having none (ranks as overloaded).  Local 2
	 * tasks, util 2048: no capacity, so {2,3} (4 tasks, util 300) is not
	 * forced and {4,5} (3 tasks, util 2048: none) is the busiest; domain
	 * 1536, local 1024, 100 * 1536 > 117 * 1024: min(0, ...) raised to a
	 * task's load, from {4,5}'s longest queue (one task is never taken
	 * for load) */
	{ IR_LB_V415, true, { 0, 2, 4, 0, 2, 1 }, { 1024, 1024, 300, 0, 1024, 1024 }, 1, 4, 400, -1 },
	/* the threshold: local 1 task with capacity; {2,3} 3 tasks (util 300)
	 * is two above it, forced, and found first with the same avg_load
	 * (1536) as {4,5} (3 tasks, util 2048): the busiest; rq 2 gives */
	{ IR_LB_V415, true, { 0, 1, 3, 0, 2, 1 }, { 0, 1024, 300, 0, 1024, 1024 }, 1, 2, -1, -1 },
	/* v5.5+ migrate_load: local 2 tasks on 2 CPUs, util 2048: fully
	 * busy; {2,3} 7 tasks, overloaded, avg_load 3584; {4,5} fully busy;
	 * domain 11264 * 1024 / 6144 = 1877, local 1024: min(1707 * 2048, 853 *
	 * 2048) / 1024 = 1706; 1706 - 1024 = 682 is at least half a task's load:
	 * a second task goes without PREEMPTION */
	{ IR_LB_V519, false, { 0, 2, 6, 1, 1, 1 }, { 1024, 1024, 1024, 1024, 1024, 1024 }, 2, 2, 200, -1 },
	{ IR_LB_V519, true, { 0, 2, 6, 1, 1, 1 }, { 1024, 1024, 1024, 1024, 1024, 1024 }, 1, 2, -1, -1 },
	/* v5.5+ update_sd_pick_busiest() among group_has_spare groups (util
	 * 300 per busy CPU): fewer idle CPUs first ({4,5} none, {2,3} one);
	 * prefer_sibling forces (3 > 0 + 1); migrate_task (3 - 0) >> 1 = 1 */
	{ IR_LB_V519, true, { 0, 0, 1, 0, 2, 1 }, { 0, 0, 300, 0, 300, 300 }, 1, 4, 400, -1 },
	/* the same idle CPUs: more tasks wins, whichever group comes first */
	{ IR_LB_V519, true, { 0, 0, 2, 0, 3, 0 }, { 0, 0, 300, 0, 300, 0 }, 1, 4, 400, -1 },
	{ IR_LB_V519, true, { 0, 0, 3, 0, 2, 0 }, { 0, 0, 300, 0, 300, 0 }, 1, 2, -1, -1 },
	/* a later group with more idle CPUs does not replace the busiest */
	{ IR_LB_V519, true, { 0, 0, 3, 1, 2, 0 }, { 0, 0, 300, 300, 300, 0 }, 1, 2, -1, -1 },
	/* group_classify() at the capacity boundary: as many tasks as CPUs,
	 * util 880 each: fully busy (1760 * 117 > 204800), busier than {4,5}
	 * (3 tasks, util 300: spare); (2 - 0) >> 1 = 1 from rq 2.  At 870:
	 * spare too, the same idle CPUs, {4,5} more tasks */
	{ IR_LB_V519, true, { 0, 0, 2, 0, 3, 0 }, { 0, 0, 880, 880, 300, 0 }, 1, 2, -1, -1 },
	{ IR_LB_V519, true, { 0, 0, 2, 0, 3, 0 }, { 0, 0, 870, 870, 300, 0 }, 1, 4, -1, -1 },
	/* find_busiest_queue() takes a queue of one task for migrate_task;
	 * detach_tasks() leaves it its last: nothing movable, not "no queue"
	 * ({2,3} one task each, util 1024: fully busy, forced, imbalance 1) */
	{ IR_LB_V519, true, { 0, 0, 1, 1, 0, 0 }, { 0, 0, 1024, 1024, 0, 0 }, 0, -1, -1, IR_LB_NOTHING_MOVABLE },
};

static void test_three_cores(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(mc_cases) / sizeof(mc_cases[0]); i++) {
		const struct mc_case *c = &mc_cases[i];
		struct ir_lb_result r;
		struct lbt t;

		print_message("case %zu\n", i);
		lbt_init(&t, three_cores(), 6);
		loads(t.rq, 6, c->nr, c->util);
		r = expect_lb(&t, 1, c->rules, c->preemption, c->moved, c->from);
		if (c->pid >= 0)
			assert_int_equal(r.moved_pid[0], c->pid);
		if (c->why >= 0)
			assert_int_equal(r.why, c->why);
		ir_domains_free(t.d);
	}
}

/* v5.16-5.18 calculate_imbalance(): halve first, then the NUMA allowance
 * holds only while the busiest node runs fewer than a quarter of the
 * domain's CPUs (span 8: 2).  The v5.19 rule keeps the same case (see
 * test_numa_allowance). */
static void test_numa_v516(void **state)
{
	struct lbt t;
	int numa;

	(void)state;
	lbt_init(&t, ut_domains("sockets=2,cores=2,threads=2,nodes=2"), 8);
	numa = ir_domains_nr_levels(t.d, 0) - 1;
	busy(t.rq, 4, 2, 10 * 1000 * US, 300);
	/* (2 - 0) >> 1 = 1; busiest 2 tasks, not below 8 >> 2: pulled */
	expect_lb(&t, numa, IR_LB_V516, true, 1, 4);
	expect_lb(&t, numa, IR_LB_V519, true, 0, -1);
	ir_domains_free(t.d);
}

/* ir_outcome_lb(): a decision's walk through load_balance() per level.
 * The runqueues of test_cache_hot (rq 2: three tasks waiting, ran 100 us
 * before the snapshot, util 400); the walk tries SMT (10 us: CPU 1 is
 * idle, no busiest) then MC (20 us). */
static void test_outcome_lb(void **state)
{
	struct ir_domains *d = ut_domains("sockets=1,cores=2,threads=2");
	struct ir_rq_snap rq[4] = { 0 };
	/* the point is handled a second after the snapshot: task_hot() is
	 * measured at the snapshot (rq_ts), where the runqueues were */
	struct ir_point pt = { .cpu = 0, .ts = NOW + 1000 * 1000 * US, .rq_ts = NOW, .rq = rq,
			       .nr_rq = 4, .nr_levels = 2, .idle_ns = 9000, .avg_idle = 1000 * US,
			       .overload = true, .pulled_pid = -1, .pulled_from = -1 };
	struct ir_decision dec = { .nr_tried = 2, .tried = { 0, 1 }, .kind = { IR_LVL_SMT, IR_LVL_MC },
				   .cost = { 10 * US, 20 * US }, .stop_level = -1 };
	struct ir_decision_ctx ctx;
	struct ir_policy_params p;
	struct ir_outcome o;

	(void)state;
	idle_all(rq, 4);
	busy(rq, 0, 0, 0, 0);
	busy(rq, 1, 0, 0, 0);
	busy(rq, 2, 4, 100 * US, 400);
	busy(rq, 3, 0, 0, 0);
	pt.ring[0] = (struct ir_cand){ .pid = -1, .cpu = -1 };
	pt.ring[1] = (struct ir_cand){ .pid = 200, .cpu = 2, .src_nr_running = 4, .gain_ns = 6000 };
	ir_decision_ctx_init(&ctx, &pt, d);
	assert_int_equal(ctx.nr_levels, 2);
	assert_int_equal(ir_policy_parse("mainline", &p, NULL, 0), 0);
	p.preemption = 0;
	p.sysctl_sched_migration_cost = 0;	/* never hot: MC moves 2 (test_cache_hot) */
	ir_outcome_lb(&ctx, &p, &dec, &o);
	assert_true(o.pulled);
	assert_int_equal(o.attempts, 2);
	assert_int_equal(o.cost_ns, 30 * US);
	assert_int_equal(o.attempt_cost[0], 10 * US);
	assert_int_equal(o.attempt_cost[1], 20 * US);
	assert_int_equal(o.moved, 2);
	assert_int_equal(o.level, 1);
	assert_int_equal(o.level_kind, IR_LVL_MC);
	assert_int_equal(o.pid, 200);
	assert_int_equal(o.from_cpu, 2);
	assert_int_equal(o.idle_recovered_ns, 6000);	/* ring 1's gain: it is that task */
	assert_int_equal(o.idle_lost_ns, 0);
	/* the task pulled is not the ring's best waiting one: it gains at most
	 * the idle time */
	pt.ring[1].pid = 201;
	ir_outcome_lb(&ctx, &p, &dec, &o);
	assert_int_equal(o.pid, 200);
	assert_int_equal(o.idle_recovered_ns, 9000);
	/* 500 us: the tasks ran 100 us before the snapshot, hot: nothing moves,
	 * and the nearest waiting task is the idle time lost */
	p.sysctl_sched_migration_cost = 500 * US;
	ir_outcome_lb(&ctx, &p, &dec, &o);
	assert_false(o.pulled);
	assert_int_equal(o.moved, 0);
	assert_int_equal(o.attempts, 2);
	assert_int_equal(o.level, -1);
	assert_int_equal(o.pid, -1);
	assert_int_equal(o.idle_recovered_ns, 0);
	assert_int_equal(o.idle_lost_ns, 6000);
	assert_int_equal(o.from_cpu, -1);
	/* the task pulled waits on ring 0: its gain is ring 0's */
	pt.ring[0] = (struct ir_cand){ .pid = 200, .cpu = 2, .src_nr_running = 4, .gain_ns = 4000 };
	p.sysctl_sched_migration_cost = 0;
	ir_outcome_lb(&ctx, &p, &dec, &o);
	assert_int_equal(o.pid, 200);
	assert_int_equal(o.idle_recovered_ns, 4000);
	pt.ring[0] = (struct ir_cand){ .pid = -1, .cpu = -1 };
	p.sysctl_sched_migration_cost = 500 * US;
	/* a snapshot that does not cover the domains' CPUs: the ring
	 * candidates decide (one task, ring 1 at MC); none: nothing */
	pt.nr_rq = 3;
	pt.ring[1].pid = -1;
	ir_outcome_lb(&ctx, &p, &dec, &o);
	assert_false(o.pulled);
	assert_int_equal(o.from_cpu, -1);
	assert_int_equal(o.pid, -1);
	assert_int_equal(o.level, -1);
	assert_int_equal(o.attempts, 2);
	pt.ring[1].pid = 201;
	ir_outcome_lb(&ctx, &p, &dec, &o);
	assert_true(o.pulled);
	assert_int_equal(o.moved, 1);
	assert_int_equal(o.level, 1);
	assert_int_equal(o.pid, 201);
	assert_int_equal(o.idle_recovered_ns, 6000);
	ir_domains_free(d);
}

/* ir_outcome_lb() at MC of sockets=1,cores=2,threads=2 for a policy whose
 * lb_release is rel: tasks moved */
static int moved_at_release(const struct ir_point *pt0, unsigned rel)
{
	struct ir_domains *d = ut_domains("sockets=1,cores=2,threads=2");
	struct ir_point pt = *pt0;
	struct ir_decision dec = { .nr_tried = 1, .tried = { 1 }, .kind = { IR_LVL_MC },
				   .cost = { 20 * US }, .stop_level = -1 };
	struct ir_decision_ctx ctx;
	struct ir_policy_params p;
	struct ir_outcome o;

	pt.nr_levels = 2;
	pt.rq_ts = NOW;
	for (int l = 0; l < IR_MAX_LEVELS; l++)
		pt.ring[l] = (struct ir_cand){ .pid = -1, .cpu = -1 };
	ir_decision_ctx_init(&ctx, &pt, d);
	assert_int_equal(ir_policy_parse("mainline", &p, NULL, 0), 0);
	p.lb_release = rel;
	p.preemption = 0;
	p.smt_never_hot = 1;
	ir_outcome_lb(&ctx, &p, &dec, &o);
	ir_domains_free(d);
	return o.moved;
}

/* The two v5.10 rules a policy's lb_release switches on at 510:
 * calculate_imbalance()'s task-count spread inside an LLC (16b0a7a1a0af)
 * and detach_tasks()' load >> nr_balance_failed (5a7f55590467).  The
 * runqueues and counts are test_llc_spread's and test_migrate_load's, whose
 * comments derive them: 2 tasks then 1; 1 task then none. */
static void test_outcome_lb_release(void **state)
{
	struct lbt t;

	(void)state;
	lbt_init(&t, NULL, 4);
	busy(t.rq, 0, 0, 0, 0);
	busy(t.rq, 1, 1, 0, 1024);
	busy(t.rq, 2, 3, 10 * 1000 * US, 1024);
	busy(t.rq, 3, 1, 0, 1024);
	assert_int_equal(moved_at_release(&t.pt, 509), 2);
	assert_int_equal(moved_at_release(&t.pt, 510), 1);
	busy(t.rq, 0, 0, 0, 1024);
	busy(t.rq, 1, 3, 10 * 1000 * US, 1024);
	busy(t.rq, 2, 2, 10 * 1000 * US, 1024);
	busy(t.rq, 3, 2, 10 * 1000 * US, 1024);
	assert_int_equal(moved_at_release(&t.pt, 509), 1);
	assert_int_equal(moved_at_release(&t.pt, 510), 0);
}

/* find_busiest_group() v5.5+, a busiest group that is not overloaded: of a
 * group of one CPU (SMT) only a single task is balanced; more move.  The
 * idle-CPU comparison is for groups of more than one CPU. */
static void test_single_cpu_groups(void **state)
{
	struct lbt t;
	struct ir_lb_result r;

	(void)state;
	lbt_init(&t, ut_domains("sockets=1,cores=2,threads=2"), 4);
	/* CPU 1: 2 tasks, util 300: 1024 * 100 > 300 * 110, spare.  No
	 * prefer_sibling at the lowest level.  migrate_task, a group of one
	 * CPU: 2 - 0, >> 1 = 1 */
	busy(t.rq, 1, 2, 10 * 1000 * US, 300);
	r = expect_lb(&t, 0, IR_LB_V519, true, 1, 1);
	assert_int_equal(r.moved_pid[0], 100);
	busy(t.rq, 1, 1, 10 * 1000 * US, 300);
	r = expect_lb(&t, 0, IR_LB_V519, true, 0, -1);
	assert_int_equal(r.why, IR_LB_BALANCED);
	ir_domains_free(t.d);
}

/* The NUMA allowance at its edges.  v5.16-5.18: after halving, an
 * imbalance of at most 2 stays while the busiest node runs fewer tasks
 * than a quarter of the domain (28 CPUs: 7).  v5.19+: before halving, at
 * most 2 while the local node's tasks + 1 are below imb_numa_nr. */
static void test_numa_edges(void **state)
{
	struct ir_domains *d = ut_domains("sockets=2,cores=7,threads=2,nodes=2");
	struct ir_domains *d8 = ut_domains("sockets=2,cores=2,threads=2,nodes=2");
	struct ir_rq_snap rq[28] = { 0 };
	struct ir_point pt = { .cpu = 0, .ts = NOW, .rq = rq, .nr_rq = 28 };
	struct ir_lb_result r;
	int numa = ir_domains_nr_levels(d, 0) - 1;

	(void)state;
	idle_all(rq, 28);
	assert_int_equal(ir_domains_level(d, 0, numa)->kind, IR_LVL_NUMA);
	assert_int_equal(ir_domains_level(d, 0, numa)->span_weight, 28);
	assert_false(ir_cpumask_test(ir_domains_level(d, 0, numa - 1)->span, 14));
	/* node 1 (CPUs 14-27): 4 tasks, 4 >> 1 = 2, 4 < 7: kept local */
	busy(rq, 14, 4, 10 * 1000 * US, 300);
	r = lb_rules(d, &pt, numa, IR_LB_V516, true);
	assert_int_equal(r.moved, 0);
	/* 6 tasks: 3 is more than 2 */
	busy(rq, 14, 6, 10 * 1000 * US, 300);
	r = lb_rules(d, &pt, numa, IR_LB_V516, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 14);
	/* 7 tasks against 3 local: (7 - 3) >> 1 = 2, but 7 is not below 7 */
	busy(rq, 14, 7, 10 * 1000 * US, 300);
	busy(rq, 1, 3, 10 * 1000 * US, 300);
	r = lb_rules(d, &pt, numa, IR_LB_V516, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 14);
	/* v5.19, 8 CPUs (imb_numa_nr 1): 3 tasks on node 1 is more than 2 */
	idle_all(rq, 28);
	pt.nr_rq = 8;
	busy(rq, 4, 3, 10 * 1000 * US, 300);
	r = lb_rules(d8, &pt, ir_domains_nr_levels(d8, 0) - 1, IR_LB_V519, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 4);
	ir_domains_free(d);
	ir_domains_free(d8);
}

/* rq o with nr tasks (any number), the snapshot's task list capped */
static void many(struct ir_rq_snap *rq, int o, int nr, float util)
{
	busy(rq, o, nr < IR_SNAP_TASKS + 1 ? nr : IR_SNAP_TASKS + 1, 10 * 1000 * US, util);
	rq[o].nr_running = (uint16_t)nr;
}

/* find_busiest_group() v5.5+ with an overloaded local group: balanced
 * while 100 * busiest->avg_load <= imbalance_pct * local->avg_load (MC:
 * 117).  Local 100 tasks (avg_load 51200), {2,3} 117 (59904: exactly
 * 117 %), {4,5} 100; domain avg_load 317 * 1048576 / 6144 = 54101.  One
 * task more on {2,3} (60416) passes: migrate_load from its longest rq. */
static void test_overloaded_local(void **state)
{
	struct lbt t;
	struct ir_lb_result r;

	(void)state;
	lbt_init(&t, three_cores(), 6);
	busy(t.rq, 0, 0, 0, 1024);
	many(t.rq, 1, 100, 1024);
	many(t.rq, 2, 116, 1024);
	many(t.rq, 3, 1, 1024);
	many(t.rq, 4, 99, 1024);
	many(t.rq, 5, 1, 1024);
	r = expect_lb(&t, 1, IR_LB_V519, true, 0, -1);
	assert_int_equal(r.why, IR_LB_BALANCED);
	many(t.rq, 2, 117, 1024);
	r = expect_lb(&t, 1, IR_LB_V519, true, 1, 2);
	ir_domains_free(t.d);
}

/* Four nodes of two CPUs (each its own LLC and package), node distances
 * 10 / 12 (pairs) / 20: levels MC (2), NUMA (4), NUMA (8). */
static struct ir_domains *four_nodes(void)
{
	static const char *const text =
		"idlereplay-topology 1\n"
		"online 0-7\n"
		"cpu 0 core_cpus=0 package_cpus=0-1 node=0 cache=L3:0-1\n"
		"cpu 1 core_cpus=1 package_cpus=0-1 node=0 cache=L3:0-1\n"
		"cpu 2 core_cpus=2 package_cpus=2-3 node=1 cache=L3:2-3\n"
		"cpu 3 core_cpus=3 package_cpus=2-3 node=1 cache=L3:2-3\n"
		"cpu 4 core_cpus=4 package_cpus=4-5 node=2 cache=L3:4-5\n"
		"cpu 5 core_cpus=5 package_cpus=4-5 node=2 cache=L3:4-5\n"
		"cpu 6 core_cpus=6 package_cpus=6-7 node=3 cache=L3:6-7\n"
		"cpu 7 core_cpus=7 package_cpus=6-7 node=3 cache=L3:6-7\n"
		"node 0 cpus=0-1 distance=10,12,20,20\n"
		"node 1 cpus=2-3 distance=12,10,20,20\n"
		"node 2 cpus=4-5 distance=20,20,10,12\n"
		"node 3 cpus=6-7 distance=20,20,12,10\n";
	struct ir_topology *t = NULL;
	struct ir_domains *d;
	char err[256] = "";

	assert_int_equal(ir_topology_parse(text, &t, err, sizeof(err)), 0);
	d = ir_domains_build(t, err, sizeof(err));
	ir_topology_free(t);
	assert_non_null(d);
	return d;
}

/* imb_numa_nr (build_sched_domains(), v5.18 e496132ebedd; v5.19
 * 026b98a93bbd) over the domains before degeneration.  four_nodes(): each
 * CPU's chain is SMT {c}, MC {pair} (the LLC), DIE {pair} (the package), NODE
 * {pair}, NUMA(12) {0-3}, NUMA(20) {0-7}.  The first domain without
 * SD_SHARE_PKG_RESOURCES above the LLC is DIE, one LLC: max(1, 2 >> 3) =
 * 1, imb_span the first NUMA domain's 4; NUMA(12) 1 x 4 / 4 = 1, NUMA(20)
 * 1 x 8 / 4 = 2 (counting LLCs over the surviving MC child gave 2 and 4).
 * At NUMA(20) from CPU 0: local CPUs 0-3 with CPU 1 running one task (CPUs
 * 2, 3 idle; CPU 0, the balancing one, is not idle_cpu()), CPUs 4-7 five
 * (none idle, util 300: spare; no prefer_sibling, the child is NUMA):
 * migrate_task by idle CPUs, 2 - 0 = 2; dst_running 1 + 1 <= 2 and 2 <= 2:
 * allowed, nothing moves.  CPU 1 at two tasks: 3 > 2, (2 - 0) >> 1 = 1
 * moves, from the longest queue (CPU 4).  At NUMA(12), groups {0,1} and
 * {2,3}, prefer_sibling (the child is MC): CPU 1 one task, CPU 2 three
 * (3 > 1 + 1 forces), imbalance 3 - 1 = 2, dst_running 2 > 1: one moves
 * from CPU 2 (with imb_numa_nr 2 it stayed); CPU 1 idle and CPU 2 two:
 * 2 - 0 = 2, dst_running 1 <= 1: nothing moves. */
static void test_imb_numa_nr_levels(void **state)
{
	struct ir_domains *d = four_nodes();
	struct ir_rq_snap rq[8] = { 0 };
	struct ir_point pt = { .cpu = 0, .ts = NOW, .rq = rq, .nr_rq = 8 };
	struct ir_lb_result r;

	(void)state;
	idle_all(rq, 8);
	assert_int_equal(ir_domains_nr_levels(d, 0), 3);
	assert_int_equal(ir_domains_level(d, 0, 0)->span_weight, 2);
	assert_int_equal(ir_domains_level(d, 0, 1)->kind, IR_LVL_NUMA);
	assert_int_equal(ir_domains_level(d, 0, 1)->span_weight, 4);
	assert_int_equal(ir_domains_level(d, 0, 2)->span_weight, 8);
	assert_int_equal(ir_domains_level(d, 0, 1)->imb_numa_nr, 1);
	assert_int_equal(ir_domains_level(d, 0, 2)->imb_numa_nr, 2);
	busy(rq, 0, 0, 0, 0);
	busy(rq, 1, 1, 10 * 1000 * US, 300);
	busy(rq, 2, 0, 0, 0);
	busy(rq, 3, 0, 0, 0);
	busy(rq, 4, 2, 10 * 1000 * US, 300);
	busy(rq, 5, 1, 10 * 1000 * US, 300);
	busy(rq, 6, 1, 10 * 1000 * US, 300);
	busy(rq, 7, 1, 10 * 1000 * US, 300);
	r = lb_rules(d, &pt, 2, IR_LB_V519, true);
	assert_int_equal(r.moved, 0);
	busy(rq, 1, 2, 10 * 1000 * US, 300);
	r = lb_rules(d, &pt, 2, IR_LB_V519, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 4);
	/* the same seen from CPU 7, runqueues mirrored (CPU o as 7 - o) */
	{
		struct ir_rq_snap m[8];

		for (int o = 0; o < 8; o++)
			m[7 - o] = rq[o];
		pt.cpu = 7;
		pt.rq = m;
		r = lb_rules(d, &pt, 2, IR_LB_V519, true);
		assert_int_equal(r.moved, 1);
		assert_int_equal(r.from_cpu, 3);
		m[6].nr_running = 1, m[6].nr_tasks = 0;	/* CPU 1 down to one task */
		r = lb_rules(d, &pt, 2, IR_LB_V519, true);
		assert_int_equal(r.moved, 0);
	}
	/* NUMA(12) from CPU 0: CPU 1 one task, CPU 2 three, CPU 3 idle */
	idle_all(rq, 8);
	pt.cpu = 0;
	pt.rq = rq;
	busy(rq, 1, 1, 10 * 1000 * US, 300);
	busy(rq, 2, 3, 10 * 1000 * US, 300);
	r = lb_rules(d, &pt, 1, IR_LB_V519, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 2);
	/* CPU 1 idle, CPU 2 two tasks: dst_running 1 <= 1, allowed */
	busy(rq, 1, 0, 0, 0);
	busy(rq, 2, 2, 10 * 1000 * US, 300);
	r = lb_rules(d, &pt, 1, IR_LB_V519, true);
	assert_int_equal(r.moved, 0);
	ir_domains_free(d);
}

/* imb_numa_nr with two LLCs per node (build_sched_domains() v5.19): 8
 * CPUs, nodes {0-3} {4-7} (distance 20), each node one package of two LLCs
 * of 2 CPUs.  DIE {0-3} above MC {pair}: nr_llcs 4 / 2 = 2, imb_span the
 * NUMA domain's 8; NUMA: 2 x max(1, 8 / 8) = 2 (scaling by DIE's own span
 * would give 2 x 8 / 4 = 4).  The guest's topology (one LLC per node):
 * DIE = MC = the node, max(1, 4 >> 3) = 1, NUMA 1. */
static void test_imb_numa_nr_domains(void **state)
{
	static const char *const text =
		"idlereplay-topology 1\n"
		"online 0-7\n"
		"cpu 0 core_cpus=0 package_cpus=0-3 node=0 cache=L3:0-1\n"
		"cpu 1 core_cpus=1 package_cpus=0-3 node=0 cache=L3:0-1\n"
		"cpu 2 core_cpus=2 package_cpus=0-3 node=0 cache=L3:2-3\n"
		"cpu 3 core_cpus=3 package_cpus=0-3 node=0 cache=L3:2-3\n"
		"cpu 4 core_cpus=4 package_cpus=4-7 node=1 cache=L3:4-5\n"
		"cpu 5 core_cpus=5 package_cpus=4-7 node=1 cache=L3:4-5\n"
		"cpu 6 core_cpus=6 package_cpus=4-7 node=1 cache=L3:6-7\n"
		"cpu 7 core_cpus=7 package_cpus=4-7 node=1 cache=L3:6-7\n"
		"node 0 cpus=0-3 distance=10,20\n"
		"node 1 cpus=4-7 distance=20,10\n";
	struct ir_topology *t = NULL;
	struct ir_domains *d;
	char err[256] = "";

	(void)state;
	assert_int_equal(ir_topology_parse(text, &t, err, sizeof(err)), 0);
	d = ir_domains_build(t, err, sizeof(err));
	ir_topology_free(t);
	assert_non_null(d);
	for (int c = 0; c < 8; c++) {
		assert_int_equal(ir_domains_nr_levels(d, c), 3);
		assert_int_equal(ir_domains_level(d, c, 1)->span_weight, 4);
		assert_int_equal(ir_domains_level(d, c, 1)->imb_numa_nr, 2);
		assert_int_equal(ir_domains_level(d, c, 2)->kind, IR_LVL_NUMA);
		assert_int_equal(ir_domains_level(d, c, 2)->imb_numa_nr, 2);
	}
	ir_domains_free(d);
	d = ut_domains("sockets=2,cores=2,threads=2,nodes=2");
	for (int c = 0; c < 8; c++) {
		assert_int_equal(ir_domains_level(d, c, 2)->kind, IR_LVL_NUMA);
		assert_int_equal(ir_domains_level(d, c, 2)->imb_numa_nr, 1);
	}
	ir_domains_free(d);
}

/* A core without its SMT sibling (CPU 3 offline): CPU 2 keeps only the MC
 * level, CPUs 0-1 have SMT and MC.  build_sched_groups() builds CPU 0's MC
 * groups from the SMT topology level's masks, so CPU 2 is a group of its own,
 * {0-1} {2}, however many domain levels CPU 2 kept after sd_degenerate().
 * CPU 2 runs 2 tasks (util 300: spare), CPUs 0-1 idle: a single-CPU busiest
 * group, migrate_task, (2 - 0) >> 1 = 1 task from CPU 2.
 * Seen from CPU 2 (its level 0 is MC), with 2 tasks on CPU 1: the groups
 * are {0-1} and {2}, not three single CPUs.  cpu_attach_domain() cleared the
 * MC domain's child when CPU 2's SMT domain degenerated: no prefer_sibling.
 * The busiest group {0-1} (one idle CPU, not overloaded) has more than one
 * CPU and local.idle_cpus 1 <= 1 + 1: balanced, nothing moves (as single-CPU
 * groups, CPU 1 would give one task). */
static void test_asymmetric_levels(void **state)
{
	static const char *const text =
		"idlereplay-topology 1\n"
		"online 0-2\n"
		"cpu 0 core_cpus=0-1 package_cpus=0-2 node=0 cache=L3:0-2\n"
		"cpu 1 core_cpus=0-1 package_cpus=0-2 node=0 cache=L3:0-2\n"
		"cpu 2 core_cpus=2 package_cpus=0-2 node=0 cache=L3:0-2\n"
		"node 0 cpus=0-2 distance=10\n";
	struct ir_topology *t = NULL;
	struct lbt c;
	struct ir_lb_result r;
	char err[256] = "";

	(void)state;
	assert_int_equal(ir_topology_parse(text, &t, err, sizeof(err)), 0);
	lbt_init(&c, ir_domains_build(t, err, sizeof(err)), 3);
	ir_topology_free(t);
	assert_non_null(c.d);
	assert_int_equal(ir_domains_nr_levels(c.d, 0), 2);
	assert_int_equal(ir_domains_nr_levels(c.d, 2), 1);
	busy(c.rq, 2, 2, 10 * 1000 * US, 300);
	r = expect_lb(&c, 1, IR_LB_V519, true, 1, 2);
	assert_int_equal(r.moved_pid[0], 200);
	/* from CPU 2: CPU 1 with 2 tasks, CPU 0 idle */
	idle_all(c.rq, 3);
	busy(c.rq, 1, 2, 10 * 1000 * US, 300);
	c.pt.cpu = 2;
	r = expect_lb(&c, 0, IR_LB_V519, true, 0, -1);
	assert_int_equal(r.why, IR_LB_BALANCED);
	ir_domains_free(c.d);
}

/* Overlapping NUMA groups on a node graph of diameter 3 (a line, node 2 -
 * node 1 - node 0, distances 15 and 20, 30 end to end): CPU 0 is node 2,
 * CPUs 1-4 node 0, CPU 5 node 1.  CPU 1's domains: MC {1-4}, NUMA(20)
 * {1-5}, NUMA(30) {0-5}; CPU 5's: NUMA(15) {0,5}, NUMA(20) {0-5}.
 * build_overlap_sched_groups() (kernel/sched/topology.c) for CPU 1's
 * NUMA(20) domain, span {1-5}: CPU 1's group is its child, {1-4}; for CPU 5
 * the sibling (its NUMA(20) domain) has the child {0,5}, which spans out of
 * {1-5}: since v5.13 (585b6d2723dc "sched/topology: fix the issue groups
 * don't span domain->span for NUMA diameter > 2") find_descended_sibling()
 * goes down to the NUMA(15) domain, whose child is CPU 5's node, {5}.  The
 * groups are {1-4} and {5}; before v5.13 the second was {0,5} (weight 2,
 * capacity 2048, its statistics over the balanced span: CPU 5 only).
 * CPU 5 runs 2 tasks at util 1024: {5} is overloaded (2 > 1 CPU, 1024 x 117
 * > 1024 x 100); local {1-4} idle has spare; above the LLC migrate_util,
 * imbalance max(4096, 0) - 0 = 4096 >= the task's 100: one task moves from
 * CPU 5.  A group taken from a domain that is not inside the span ({0,5},
 * lowest CPU 0, outside it) is never visited and nothing would move. */
static void test_overlap_group_inside(void **state)
{
	static const char *const text =
		"idlereplay-topology 1\n"
		"online 0-5\n"
		"cpu 0 core_cpus=0 package_cpus=0 node=2 cache=L3:0\n"
		"cpu 1 core_cpus=1 package_cpus=1-4 node=0 cache=L3:1-4\n"
		"cpu 2 core_cpus=2 package_cpus=1-4 node=0 cache=L3:1-4\n"
		"cpu 3 core_cpus=3 package_cpus=1-4 node=0 cache=L3:1-4\n"
		"cpu 4 core_cpus=4 package_cpus=1-4 node=0 cache=L3:1-4\n"
		"cpu 5 core_cpus=5 package_cpus=5 node=1 cache=L3:5\n"
		"node 0 cpus=1-4 distance=10,20,30\n"
		"node 1 cpus=5 distance=20,10,15\n"
		"node 2 cpus=0 distance=30,15,10\n";
	struct ir_topology *t = NULL;
	struct lbt c;
	struct ir_lb_result r;
	char err[256] = "";
	const struct ir_sched_domain *sd;

	(void)state;
	assert_int_equal(ir_topology_parse(text, &t, err, sizeof(err)), 0);
	lbt_init(&c, ir_domains_build(t, err, sizeof(err)), 6);
	ir_topology_free(t);
	assert_non_null(c.d);
	/* the domains as worked out above */
	assert_int_equal(ir_domains_nr_levels(c.d, 1), 3);
	assert_int_equal(ir_domains_level(c.d, 1, 1)->span_weight, 5);
	assert_int_equal(ir_domains_nr_levels(c.d, 5), 2);
	sd = ir_domains_level(c.d, 5, 0);
	assert_int_equal(sd->span_weight, 2);
	assert_true(ir_cpumask_test(sd->span, 0) && ir_cpumask_test(sd->span, 5));
	busy(c.rq, 5, 2, 10 * 1000 * US, 1024);
	c.pt.cpu = 1;
	r = expect_lb(&c, 1, IR_LB_V519, true, 1, 5);
	assert_int_equal(r.moved_pid[0], 500);
	ir_domains_free(c.d);
}

/* No other group with a task: nothing to balance, even with tasks waiting
 * in the local group (a sibling's queue is the SMT level's business). */
static void test_no_busiest(void **state)
{
	struct lbt t;
	struct ir_lb_result r;

	(void)state;
	lbt_init(&t, ut_domains("sockets=1,cores=2,threads=2"), 4);
	busy(t.rq, 1, 3, 10 * 1000 * US, 1024);
	r = lb(t.d, &t.pt, 1, 500 * US, true);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.why, IR_LB_NO_BUSIEST);
	ir_domains_free(t.d);
}

/* find_busiest_queue() for migrate_util: of equally busy runqueues, the
 * first (lowest CPU). */
static void test_busiest_queue_tie(void **state)
{
	struct lbt t;
	struct ir_lb_result r;
	int numa;

	(void)state;
	lbt_init(&t, ut_domains("sockets=2,cores=2,threads=2,nodes=2"), 8);
	numa = ir_domains_nr_levels(t.d, 0) - 1;
	loads(t.rq, 8, (const int[]){ 0, 0, 0, 0, 3, 2, 3, 1 }, (const float[]){ 0, 0, 0, 0, 1010, 1010, 1010, 1010 });
	/* node 1: 9 tasks, util 4040 * 125 > 4096 * 100: overloaded;
	 * migrate_util from the first of rqs 4-6 */
	r = lb(t.d, &t.pt, numa, 500 * US, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 4);
	ir_domains_free(t.d);
}

/* allow_numa_imbalance(running, imb_numa_nr) is running <= imb_numa_nr
 * (v5.19, 6.1): the guest's topology (imb_numa_nr 1, test_imb_numa_nr_domains).
 * Local node idle (dst_running 0 + 1 = 1); node 1: CPU 4 two tasks (2 > 0 +
 * 1: prefer_sibling forces).  Imbalance 2 - 0 = 2 <= NUMA_IMBALANCE_MIN and
 * 1 <= 1: allowed, nothing moves (with "<" one task would).  CPU 1 running
 * one task and CPU 4 three: 3 - 1 = 2 but dst_running 2 > 1: (2 >> 1) = 1
 * moves; the local node idle and CPU 4 three: 3 > 2 is kept, one moves. */
static void test_numa_allowance_inclusive(void **state)
{
	struct lbt t;
	int numa;

	(void)state;
	lbt_init(&t, ut_domains("sockets=2,cores=2,threads=2,nodes=2"), 8);
	numa = ir_domains_nr_levels(t.d, 0) - 1;
	busy(t.rq, 4, 2, 10 * 1000 * US, 300);
	expect_lb(&t, numa, IR_LB_V519, true, 0, -1);
	busy(t.rq, 1, 1, 10 * 1000 * US, 300);
	busy(t.rq, 4, 3, 10 * 1000 * US, 300);
	expect_lb(&t, numa, IR_LB_V519, true, 1, 4);
	/* the local node idle: dst_running 1, imbalance 3 > 2 is kept */
	busy(t.rq, 1, 0, 0, 0);
	expect_lb(&t, numa, IR_LB_V519, true, 1, 4);
	ir_domains_free(t.d);
}

/* sd->imbalance_pct of a NUMA level: sd_init()'s default, 125 up to v5.9,
 * 117 from v5.10 (2208cdaa56c9).  Both nodes overloaded (util 1024 per
 * CPU): local 102 tasks (avg_load 102 * 256 = 26112), node 1 122 (31232,
 * 119.6 % of it); domain avg_load 224 * 128 = 28672.  125: 100 * 31232 <=
 * 125 * 26112, balanced.  117: not; migrate_load, imbalance min(31232 -
 * 28672, 28672 - 26112) * 4096 / 1024 = 10240 >= a nice-0 task: CPU 4's
 * moves. */
static void test_numa_imbalance_pct(void **state)
{
	struct lbt t;
	struct ir_lb_env env;
	struct ir_lb_result r;
	int numa;

	(void)state;
	lbt_init(&t, ut_domains("sockets=2,cores=2,threads=2,nodes=2"), 8);
	numa = ir_domains_nr_levels(t.d, 0) - 1;
	assert_int_equal(ir_domains_level(t.d, 0, numa)->imbalance_pct, 125);
	busy(t.rq, 0, 0, 0, 1024);
	many(t.rq, 1, 100, 1024);
	many(t.rq, 2, 1, 1024);
	many(t.rq, 3, 1, 1024);
	many(t.rq, 4, 119, 1024);
	for (int o = 5; o < 8; o++)
		many(t.rq, o, 1, 1024);
	env = (struct ir_lb_env){
		.dom = t.d, .pt = &t.pt, .level = numa, .rules = IR_LB_V519, .now = NOW,
		.sysctl_sched_migration_cost = 500 * US, .preemption = true,
		.smt_never_hot = true, .llc_spread = true, .load_shift = true,
	};
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.why, IR_LB_BALANCED);
	env.imbalance_pct_117 = true;
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 4);
	ir_domains_free(t.d);
}

/* find_busiest_group(): "if (100 * busiest->avg_load <= env->sd->imbalance_pct
 * * local->avg_load) goto out_balanced" (v4.15 with !(local_capacity &&
 * group_no_capacity); v5.5+ with the local group overloaded), at every
 * imbalance_pct a level can have: SMT 110 and MC 117 (sd_init()), DIE/NODE
 * and NUMA 125 up to v5.9 and 117 from v5.10 (2208cdaa56c9).  Both groups
 * overloaded (util 1024 per CPU, more tasks than CPUs) and of the same
 * size, so the avg_load ratio is the task ratio: local 100 tasks, busiest
 * pct tasks is exactly pct % (balanced), pct + 1 is not (a task moves from
 * the busiest group's longest runqueue).  The domain's avg_load lies
 * between the two, so only the imbalance_pct test decides. */
static void test_imbalance_pct_edges(void **state)
{
	static const struct {
		const char *spec;
		int level;
		enum ir_lb_rules rules;
		bool v510;
		unsigned pct;
		int local_cpu, busiest_cpu, other_cpu;	/* other_cpu: -1 none */
	} c[] = {
		{ "sockets=1,cores=2,threads=2", 0, IR_LB_V519, true, 110, 0, 1, -1 },
		{ "sockets=1,cores=2,threads=2", 1, IR_LB_V519, true, 117, 1, 2, 3 },
		{ "sockets=2,cores=2,threads=1", 1, IR_LB_V519, false, 125, 1, 2, 3 },
		{ "sockets=2,cores=2,threads=1", 1, IR_LB_V519, true, 117, 1, 2, 3 },
		{ "sockets=2,cores=2,threads=1,nodes=2", 1, IR_LB_V516, false, 125, 1, 2, 3 },
		{ "sockets=2,cores=2,threads=1,nodes=2", 1, IR_LB_V519, true, 117, 1, 2, 3 },
		{ "sockets=2,cores=2,threads=1,nodes=2", 1, IR_LB_V415, false, 125, 1, 2, 3 },
		{ "sockets=1,cores=2,threads=2", 1, IR_LB_V415, false, 117, 1, 2, 3 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct lbt t;

		lbt_init(&t, ut_domains(c[i].spec), 4);
		for (unsigned extra = 0; extra <= 1; extra++) {
			struct ir_lb_env env = {
				.dom = t.d, .pt = &t.pt, .level = c[i].level, .rules = c[i].rules, .now = NOW,
				.sysctl_sched_migration_cost = 500 * US, .preemption = true,
				.smt_never_hot = true, .llc_spread = c[i].v510, .load_shift = c[i].v510,
				.imbalance_pct_117 = c[i].v510, .numa_allow_inclusive = c[i].rules == IR_LB_V519,
				.this_cpu_busy = true,
			};
			struct ir_lb_result r;
			/* the other CPU of each two-CPU group runs one task */
			int others = c[i].other_cpu >= 0 ? 1 : 0;

			idle_all(t.rq, 4);
			if (c[i].local_cpu != 0)
				busy(t.rq, 0, 0, 0, 1024);
			many(t.rq, c[i].local_cpu, 100, 1024);
			many(t.rq, c[i].busiest_cpu, (int)(c[i].pct + extra) - others, 1024);
			if (others)
				many(t.rq, c[i].other_cpu, 1, 1024);
			ir_load_balance(&env, &r);
			if (!extra) {
				if (r.moved || r.why != IR_LB_BALANCED)
					fail_msg("%s level %d rules %d: %u %% of the local load moved %d (why %d)",
						 c[i].spec, c[i].level, c[i].rules, c[i].pct, r.moved, r.why);
			} else if (!r.moved || r.from_cpu != c[i].busiest_cpu) {
				fail_msg("%s level %d rules %d: %u %% + 1 task moved %d from CPU %d",
					 c[i].spec, c[i].level, c[i].rules, c[i].pct, r.moved, r.from_cpu);
			}
		}
		ir_domains_free(t.d);
	}
}

/* idle_cpu() of the balancing CPU: rq->curr is still prev inside
 * newidle_balance() (called from __schedule()'s pick_next_task()), so it
 * is not one of its local group's idle CPUs.  Top level of four_nodes()
 * (child NUMA: no prefer_sibling): local CPUs 0-3, CPU 1 four tasks,
 * CPUs 2, 3 idle; CPUs 4-7: CPU 4 two tasks, 5 and 6 one, 7 idle (both
 * has_spare, util 300).  find_busiest_group(): local->idle_cpus 2 <=
 * busiest->idle_cpus 1 + 1: balanced.  Counting CPU 0 idle would give 3,
 * imbalance (3 - 1) >> 1 = 1 (dst_running 5 > imb_numa_nr 4) and CPU 4's
 * queued task would move. */
static void test_this_cpu_not_idle(void **state)
{
	struct lbt t;
	struct ir_lb_result r;

	(void)state;
	lbt_init(&t, four_nodes(), 8);
	busy(t.rq, 1, 4, 10 * 1000 * US, 300);
	busy(t.rq, 4, 2, 10 * 1000 * US, 300);
	busy(t.rq, 5, 1, 10 * 1000 * US, 300);
	busy(t.rq, 6, 1, 10 * 1000 * US, 300);
	r = expect_lb(&t, 2, IR_LB_V519, true, 0, -1);
	assert_int_equal(r.why, IR_LB_BALANCED);
	/* CPU 3 no longer idle: local 1 <= 2 still balanced; CPU 7 busy
	 * too (busiest idle 0): 2 > 1, (2 - 0) >> 1 = 1 moves from CPU 4 */
	busy(t.rq, 7, 1, 10 * 1000 * US, 300);
	expect_lb(&t, 2, IR_LB_V519, true, 1, 4);
	ir_domains_free(t.d);
}

/* group_classify() v5.7+ (070f5e860ee2 "sched/fair: Take into account
 * runnable_avg to classify group"): group_is_overloaded() is also true
 * when group_capacity * imbalance_pct < group_runnable * 100 (with more
 * tasks than CPUs), group_has_capacity() false then.  Two nodes (SMT, MC,
 * NUMA), CPU 0 balancing at NUMA: local CPUs 0-3 (CPU 0 util 1000, no
 * task; CPUs 1-3 one task each, util 1000): 3 tasks on 4 CPUs, has_spare,
 * group_util 4000.  Node 1: CPU 4 three tasks, CPUs 5-7 one, util 500 each
 * (2000 * 117 < 4096 * 100: not overloaded by util, has_spare).
 * Without runnable_avg: prefer_sibling (child MC) with 6 > 3 + 1 forces;
 * migrate_task, nr_diff 6 - 3 = 3, dst_running 4 > imb_numa_nr 2, 3 >> 1 =
 * 1: CPU 4's queued task moves.  With runnable_avg 3072 + 3 * 1024 = 6144:
 * 4096 * 117 = 479232 < 614400, node 1 is overloaded: migrate_util
 * (above the LLC), imbalance max(4096, 4000) - 4000 = 96, and each of CPU
 * 4's queued tasks (util 100) is above it: nothing moves.  A runnable_avg
 * below the bound (4096 * 117 / 100 = 4792.3: 4700) changes nothing. */
static void test_runnable_overloaded(void **state)
{
	struct lbt t;
	struct ir_lb_env env;
	struct ir_lb_result r;

	(void)state;
	lbt_init(&t, ut_domains("sockets=2,cores=2,threads=2,nodes=2"), 8);
	busy(t.rq, 0, 0, 0, 1000);
	for (int o = 1; o < 4; o++)
		busy(t.rq, o, 1, 10 * 1000 * US, 1000);
	busy(t.rq, 4, 3, 10 * 1000 * US, 500);
	for (int o = 5; o < 8; o++)
		busy(t.rq, o, 1, 10 * 1000 * US, 500);
	env = (struct ir_lb_env){
		.dom = t.d, .pt = &t.pt, .level = 2, .rules = IR_LB_V519, .now = NOW,
		.sysctl_sched_migration_cost = 500 * US, .preemption = true,
		.smt_never_hot = true, .llc_spread = true, .load_shift = true,
		.imbalance_pct_117 = true, .numa_allow_inclusive = true, .this_cpu_busy = true,
		.runnable_classify = true,
	};
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 4);
	t.rq[4].runnable = 3072;
	for (int o = 5; o < 8; o++)
		t.rq[o].runnable = 1024;
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.why, IR_LB_NOTHING_MOVABLE);
	/* the same runqueues under pre-v5.7 rules: util alone classifies */
	env.runnable_classify = false;
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 1);
	env.runnable_classify = true;
	t.rq[4].runnable = 3072 - 1444;	/* group_runnable 4700 */
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 1);
	t.rq[4].runnable = 3072 - 1444 + 93;	/* 4793: above 4792.3 */
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 0);
	ir_domains_free(t.d);
}

/* group_has_capacity() v5.7+: runnable_avg above capacity by imbalance_pct
 * leaves a group without spare capacity even when its util_avg has room.
 * CPU 0 at MC (one socket, 2 cores x 2 threads): local {0, 1}, CPU 0 no
 * task (util 900), CPU 1 two tasks (util 600): 2 tasks on 2 CPUs, util
 * 1500 * 117 < 2048 * 100: has_spare.  Busiest {2, 3}: CPU 2 three tasks,
 * CPU 3 one, util 300 each: has_spare (4 > 2 but util 600 is far below).
 * prefer_sibling (child SMT) with 4 > 2 + 1: migrate_task (inside the
 * LLC), (4 - 2) >> 1 = 1 from CPU 2.  With CPU 0's runnable_avg 900 (prev
 * ran until now) and CPU 1's 2048: 2048 * 117 = 239616 < 294800, the local
 * group is fully_busy; busiest's 1200 + 300 keeps it has_spare: local
 * busier than busiest, balanced. */
static void test_runnable_fully_busy(void **state)
{
	struct lbt t;
	struct ir_lb_env env;
	struct ir_lb_result r;

	(void)state;
	lbt_init(&t, ut_domains("sockets=1,cores=2,threads=2"), 4);
	busy(t.rq, 0, 0, 0, 900);
	busy(t.rq, 1, 2, 10 * 1000 * US, 600);
	busy(t.rq, 2, 3, 10 * 1000 * US, 300);
	busy(t.rq, 3, 1, 10 * 1000 * US, 300);
	env = (struct ir_lb_env){
		.dom = t.d, .pt = &t.pt, .level = 1, .rules = IR_LB_V519, .now = NOW,
		.sysctl_sched_migration_cost = 500 * US, .preemption = true,
		.smt_never_hot = true, .llc_spread = true, .load_shift = true,
		.imbalance_pct_117 = true, .numa_allow_inclusive = true, .this_cpu_busy = true,
		.runnable_classify = true,
	};
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 2);
	t.rq[0].runnable = 900;
	t.rq[1].runnable = 2048;
	t.rq[2].runnable = 1200;
	t.rq[3].runnable = 300;
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.why, IR_LB_BALANCED);
	env.runnable_classify = false;
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 1);
	ir_domains_free(t.d);
}

/* UTIL_EST (v4.17 7f65ea42eb00): cpu_util() is max(util_avg,
 * util_est.enqueued) and detach_tasks()' migrate_util compares
 * task_util_est() = max(util_avg, _task_util_est()) with the imbalance.
 * test_runnable_overloaded()'s overloaded node 1, the local CPUs' util_avg
 * 950 (group 3800 on CPUs 1-3 and CPU 0's 950): imbalance 4096 - 3800 =
 * 296, a queued task of util_avg 100 moves.  Its estimate 400 (its last
 * sleeps) is above 296: it stays, and so does the one behind it (the same);
 * a third of estimate 250 moves (after two skips the loop reaches it:
 * loop_max = nr_running 4).  Without UTIL_EST rules util_avg decides.
 * CPU 1's util_est.enqueued 1250 (capped at 1024) raises the local group to
 * 3874: imbalance 222 < 250: nothing moves. */
static void test_util_est(void **state)
{
	struct lbt t;
	struct ir_lb_env env;
	struct ir_lb_result r;

	(void)state;
	lbt_init(&t, ut_domains("sockets=2,cores=2,threads=2,nodes=2"), 8);
	busy(t.rq, 0, 0, 0, 950);
	for (int o = 1; o < 4; o++)
		busy(t.rq, o, 1, 10 * 1000 * US, 950);
	busy(t.rq, 4, 4, 10 * 1000 * US, 500);
	for (int o = 5; o < 8; o++)
		busy(t.rq, o, 1, 10 * 1000 * US, 500);
	t.rq[4].runnable = 4096;
	for (int o = 5; o < 8; o++)
		t.rq[o].runnable = 1024;
	env = (struct ir_lb_env){
		.dom = t.d, .pt = &t.pt, .level = 2, .rules = IR_LB_V519, .now = NOW,
		.sysctl_sched_migration_cost = 500 * US, .preemption = true,
		.smt_never_hot = true, .llc_spread = true, .load_shift = true,
		.imbalance_pct_117 = true, .numa_allow_inclusive = true, .this_cpu_busy = true,
		.runnable_classify = true, .util_est = true,
	};
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.moved_pid[0], 400);
	t.rq[4].task[0].util_est = 400;
	t.rq[4].task[1].util_est = 400;
	t.rq[4].task[2].util_est = 250;
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.moved_pid[0], 402);
	env.util_est = false;
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved_pid[0], 400);
	env.util_est = true;
	t.rq[1].util_est = 1250;
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.why, IR_LB_NOTHING_MOVABLE);
	ir_domains_free(t.d);
}

/* util_est_update() (v6.1, UTIL_EST_FASTUP): worked by hand. */
static void test_util_est_update(void **state)
{
	float ewma = 0, enq = 0;

	(void)state;
	ir_util_est_update(&ewma, &enq, 400);	/* an increase resets the EWMA */
	assert_true(ewma == 400 && enq == 400);
	ir_util_est_update(&ewma, &enq, 200);	/* 400 + (200 - 400) / 4 */
	assert_true(ewma == 350 && enq == 200);
	ir_util_est_update(&ewma, &enq, 345);	/* within 10.24 of the EWMA, enqueued moved by 145 */
	assert_true(ewma == 350 && enq == 345);
	ir_util_est_update(&ewma, &enq, 341);	/* both within the margin: nothing */
	assert_true(ewma == 350 && enq == 345);
	ir_util_est_update(&ewma, &enq, 500);	/* up again: reset */
	assert_true(ewma == 500 && enq == 500);
}

/* PELT load (v5.7 "sched/fair: Replace runnable_load_avg by load_avg"):
 * cpu_load() is the CPU's load_avg (nice 0, root: its runnable_avg),
 * find_busiest_queue() takes the highest for migrate_load and
 * detach_tasks() compares task_h_load() (the task's load_avg) with the
 * imbalance.  CPU 0 at MC (one socket, 2 cores x 2 threads), both groups
 * overloaded (util 1024 everywhere): local {0, 1} 3 tasks (on CPU 1),
 * busiest {2, 3} 4 + 2.  By nice-0 weights: avg_load 1536 and 3072, domain
 * 2304; migrate_load, imbalance min(768, 768) * 2048 / 1024 = 1536; the
 * rq with the most load is CPU 2 (4 tasks): one 1024 task moves from it.
 * By PELT: runnable_avg 200, 1500 | 1400, 2400: avg_load 1700 * 1024 /
 * 2048 = 850 and 1900, domain 5500 / 4 = 1375; 100 * 1900 > 117 * 850;
 * imbalance min(525, 525) * 2048 / 1024 = 1050; the highest cpu_load() is
 * CPU 3 (2400), its queued task (load_avg 300 <= 1050) moves.  At
 * load_avg 1100 > 1050 it stays: nothing movable. */
static void test_pelt_load(void **state)
{
	struct lbt t;
	struct ir_lb_env env;
	struct ir_lb_result r;
	static const float runnable[4] = { 200, 1500, 1400, 2400 };

	(void)state;
	lbt_init(&t, ut_domains("sockets=1,cores=2,threads=2"), 4);
	busy(t.rq, 0, 0, 0, 1024);
	busy(t.rq, 1, 3, 10 * 1000 * US, 1024);
	busy(t.rq, 2, 4, 10 * 1000 * US, 1024);
	busy(t.rq, 3, 2, 10 * 1000 * US, 1024);
	env = (struct ir_lb_env){
		.dom = t.d, .pt = &t.pt, .level = 1, .rules = IR_LB_V519, .now = NOW,
		.sysctl_sched_migration_cost = 500 * US, .preemption = true,
		.smt_never_hot = true, .llc_spread = true, .load_shift = true,
		.imbalance_pct_117 = true, .numa_allow_inclusive = true, .this_cpu_busy = true,
		.runnable_classify = true, .util_est = true, .pelt_load = true,
	};
	/* no load_avg known (0): nice-0 weights */
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 2);
	for (int o = 0; o < 4; o++)
		t.rq[o].runnable = runnable[o];
	for (int i = 0; i < 3; i++)
		t.rq[2].task[i].load = 900;
	t.rq[3].task[0].load = 300;
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 3);
	assert_int_equal(r.moved_pid[0], 300);
	env.pelt_load = false;	/* before v5.7: weights, CPU 2 */
	ir_load_balance(&env, &r);
	assert_int_equal(r.from_cpu, 2);
	env.pelt_load = true;
	t.rq[3].task[0].load = 1100;
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.why, IR_LB_NOTHING_MOVABLE);
	ir_domains_free(t.d);
}

/* load_balance()'s LBF_ALL_PINNED redo (v6.1 kernel/sched/fair.c): MC of
 * one socket of two cores (groups {0,1} local, {2,3}), CPU 0 newly idle,
 * CPU 1 idle.  CPU 2's curr is the idle task and its three queued tasks
 * are per-CPU kthreads; CPU 3 runs one task and has one queued (cold),
 * utilisation 300 per busy CPU.  By hand: {2,3} holds 5 tasks on 2 CPUs
 * but util 600 * 117 < 2048 * 100 (runnable unknown): has_spare, as is
 * local (0 tasks); prefer_sibling (SMT child) forces, 5 > 0 + 1;
 * calculate_imbalance() (5 - 0) >> 1 = 2, migrate_task;
 * find_busiest_queue() takes CPU 2 (3 tasks against 2); detach_tasks()
 * visits its three tasks, each a per-CPU kthread ("Disregard pcpu
 * kthreads"), so LBF_ALL_PINNED stays: CPU 2 leaves env->cpus, {0,1,3} is
 * not inside the local group: redo.  Now {2,3} counts CPU 3 only (2 tasks,
 * group_weight still 2): has_spare, forced (2 > 0 + 1), (2 - 0) >> 1 = 1,
 * and CPU 3's queued task (pid 300) moves.  With CPU 3 idle the redo finds
 * no group with a task: no busiest.  With a running task on CPU 2 the
 * flag is cleared by it (assumed a CFS task allowed on CPU 0): no redo,
 * nothing movable. */
static void test_all_pinned_redo(void **state)
{
	struct lbt t;
	struct ir_lb_env env;
	struct ir_lb_result r;

	(void)state;
	lbt_init(&t, ut_domains("sockets=1,cores=2,threads=2"), 4);
	env = (struct ir_lb_env){
		.dom = t.d, .pt = &t.pt, .level = 1, .rules = IR_LB_V519, .now = NOW,
		.sysctl_sched_migration_cost = 500 * US, .preemption = true,
		.smt_never_hot = true, .llc_spread = true, .numa_allow_inclusive = true,
		.this_cpu_busy = true, .all_pinned_redo = true,
	};
	busy(t.rq, 2, 4, 10 * 1000 * US, 300);
	t.rq[2].nr_running = 3;
	t.rq[2].nr_tasks = 3;
	t.rq[2].curr_idle = true;
	for (int i = 0; i < 3; i++)
		t.rq[2].task[i].pinned = true;
	busy(t.rq, 3, 2, 10 * 1000 * US, 300);
	ir_load_balance(&env, &r);
	assert_int_equal(r.why, IR_LB_PULLED);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 3);
	assert_int_equal(r.moved_pid[0], 300);
	assert_int_equal(r.all_pinned, 1);
	/* the rule off: the pinned runqueue ends the balance */
	env.all_pinned_redo = false;
	ir_load_balance(&env, &r);
	assert_int_equal(r.why, IR_LB_NOTHING_MOVABLE);
	assert_int_equal(r.moved, 0);
	env.all_pinned_redo = true;
	/* CPU 3 idle: the redo finds no busiest group */
	busy(t.rq, 3, 0, 0, 0);
	ir_load_balance(&env, &r);
	assert_int_equal(r.why, IR_LB_NO_BUSIEST);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.all_pinned, 1);
	/* CPU 2 runs a task: it clears LBF_ALL_PINNED, no redo */
	busy(t.rq, 3, 2, 10 * 1000 * US, 300);
	t.rq[2].curr_idle = false;
	t.rq[2].nr_tasks = 2;
	ir_load_balance(&env, &r);
	assert_int_equal(r.why, IR_LB_NOTHING_MOVABLE);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.all_pinned, 0);
	ir_domains_free(t.d);
}

/* env->idle, through ir_lb_env_init() with a v5.19+ policy's defaults
 * (CONFIG_PREEMPTION on).  Two CPUs of one LLC (MC: groups {0} and {1});
 * CPU 1 runs one task and queues four, cold, at low utilisation, so its
 * group has spare capacity and is not overloaded (sum_nr_running 5 >
 * weight 1, but util and runnable are under capacity / imbalance_pct).
 * find_busiest_group(): weight 1, five tasks -> calculate_imbalance():
 * migrate_task, busiest->sum_nr_running - local's = 5 - 0, >>= 1 -> 2.
 *  - CPU_NEWLY_IDLE: detach_tasks() stops after the first task
 *    ("#ifdef CONFIG_PREEMPTION ... if (env->idle == CPU_NEWLY_IDLE) break");
 *  - CPU_IDLE (a periodic balance of idle CPU 0): both tasks;
 *  - CPU_NOT_IDLE (CPU 0 runs a task): "If the busiest group is not
 *    overloaded (and as a result the local one too) but this CPU is already
 *    busy, let another idle CPU try to pull task": nothing. */
static void test_balance_kinds(void **state)
{
	struct lbt t;
	struct ir_policy_params p;
	struct ir_lb_env env;
	struct ir_lb_result r;

	(void)state;
	ir_policy_defaults(IR_POL_PROPORTIONAL, &p);
	assert_true(p.preemption && p.lb_release >= 519);
	lbt_init(&t, ut_domains("sockets=1,cores=2,threads=1"), 2);
	busy(t.rq, 1, 5, 10 * 1000 * US, 100);
	ir_lb_env_init(&env, &p, t.d, &t.pt, IR_CPU_NEWLY_IDLE);
	assert_int_equal(env.now, NOW);
	ir_load_balance(&env, &r);
	assert_int_equal(r.why, IR_LB_PULLED);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 1);
	ir_lb_env_init(&env, &p, t.d, &t.pt, IR_CPU_IDLE);
	ir_load_balance(&env, &r);
	assert_int_equal(r.why, IR_LB_PULLED);
	assert_int_equal(r.moved, 2);
	assert_int_equal(r.from_cpu, 1);
	busy(t.rq, 0, 1, 10 * 1000 * US, 100);
	ir_lb_env_init(&env, &p, t.d, &t.pt, IR_CPU_NOT_IDLE);
	ir_load_balance(&env, &r);
	assert_int_equal(r.why, IR_LB_BALANCED);
	assert_int_equal(r.moved, 0);
	/* the same busy CPU under a newidle env (a model without the rule)
	 * would pull: the rule, not the runqueues, says no */
	ir_lb_env_init(&env, &p, t.d, &t.pt, IR_CPU_NEWLY_IDLE);
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 1);
	ir_domains_free(t.d);
}

/* detach_tasks() looks at up to env->loop_max = min(sysctl_sched_nr_migrate
 * = 32, busiest->nr_running) tasks in one pass (SCHED_NR_MIGRATE_BREAK is
 * 32 too, v6.0+ !PREEMPT_RT): a periodic balance of an idle CPU moves as
 * many as the imbalance asks, beyond any shorter window.  Two CPUs of one
 * LLC; CPU 1 runs one task and queues 40 cold ones (nr_running 41), CPU 0
 * is idle.  By hand from v6.1 calculate_imbalance(): local has spare, MC
 * is SD_SHARE_PKG_RESOURCES (no migrate_util), busiest->group_weight 1:
 * migrate_task, imbalance (41 - 0) >> 1 = 20, detached from the tail of
 * cfs_tasks (pid 100 first).  With 81 tasks the imbalance is 40 but the
 * pass stops at loop_max: "if (env->loop > env->loop_max ...) break" after
 * 32 tasks, all movable: 32. */
static void test_detach_window(void **state)
{
	struct lbt t;
	struct ir_policy_params p;
	struct ir_lb_env env;
	struct ir_lb_result r;

	(void)state;
	ir_policy_defaults(IR_POL_PROPORTIONAL, &p);
	lbt_init(&t, ut_domains("sockets=1,cores=2,threads=1"), 2);
	many(t.rq, 1, 41, 100);
	ir_lb_env_init(&env, &p, t.d, &t.pt, IR_CPU_IDLE);
	ir_load_balance(&env, &r);
	assert_int_equal(r.why, IR_LB_PULLED);
	assert_int_equal(r.moved, 20);
	assert_int_equal(r.from_cpu, 1);
	assert_int_equal(r.moved_pid[0], 100);
	many(t.rq, 1, 81, 100);
	ir_load_balance(&env, &r);
	assert_int_equal(r.moved, 32);
	ir_domains_free(t.d);
}

/* should_we_balance() (v6.1; v6.6+ b1bfeab9b002), by hand from the kernel
 * code: two packages of two cores of two threads, no NUMA nodes: SMT
 * {0,1} .., MC {0-3} {4-7}, a top level over all 8.  At the top level
 * CPU c's local group is its package (the MC span). */
static void test_should_we_balance(void **state)
{
	struct ir_domains *d = ut_domains("sockets=2,cores=2,threads=2");
	bool idle[8] = { false };

	(void)state;
	assert_int_equal(ir_domains_nr_levels(d, 0), 3);
	/* all busy: "Are we the first CPU of this group ?" */
	for (int c = 0; c < 8; c++)
		assert_int_equal(ir_should_we_balance(d, c, 2, idle, false), c == 0 || c == 4);
	/* the lowest level's group is the CPU itself: always */
	for (int c = 0; c < 8; c++)
		assert_true(ir_should_we_balance(d, c, 0, idle, true));
	/* CPU 1 idle beside busy CPU 0, core {2,3} idle: v6.1 takes the first
	 * idle CPU, 1; v6.6 skips 1 (its core is busy) for 2, the first idle
	 * CPU of an idle core */
	idle[1] = idle[2] = idle[3] = true;
	for (int c = 0; c < 4; c++) {
		assert_int_equal(ir_should_we_balance(d, c, 2, idle, false), c == 1);
		assert_int_equal(ir_should_we_balance(d, c, 2, idle, true), c == 2);
	}
	/* at MC (level 1) the local group is the core: CPU 1 for {0,1} under
	 * both rules (v6.6: no idle core, so the first idle SMT CPU) */
	assert_true(ir_should_we_balance(d, 1, 1, idle, false));
	assert_true(ir_should_we_balance(d, 1, 1, idle, true));
	assert_false(ir_should_we_balance(d, 0, 1, idle, true));
	/* only CPU 3 idle, its sibling 2 busy: both rules pick 3 (v6.6 by
	 * "the first idle CPU with busy siblings") */
	idle[1] = idle[2] = false;
	for (int c = 0; c < 4; c++) {
		assert_int_equal(ir_should_we_balance(d, c, 2, idle, false), c == 3);
		assert_int_equal(ir_should_we_balance(d, c, 2, idle, true), c == 3);
	}
	/* the other package is all busy: its first CPU, whatever CPU 3 does */
	assert_true(ir_should_we_balance(d, 4, 2, idle, true));
	assert_false(ir_should_we_balance(d, 5, 2, idle, true));
	ir_domains_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sibling_only_at_smt),
		cmocka_unit_test(test_cache_hot),
		cmocka_unit_test(test_numa_allowance),
		cmocka_unit_test(test_pinned),
		cmocka_unit_test(test_llc_spread),
		cmocka_unit_test(test_outcome_lb_release),
		cmocka_unit_test(test_busiest_queue_util),
		cmocka_unit_test(test_busiest_queue_util_zero),
		cmocka_unit_test(test_three_cores),
		cmocka_unit_test(test_numa_v516),
		cmocka_unit_test(test_outcome_lb),
		cmocka_unit_test(test_single_cpu_groups),
		cmocka_unit_test(test_numa_edges),
		cmocka_unit_test(test_overloaded_local),
		cmocka_unit_test(test_imb_numa_nr_levels),
		cmocka_unit_test(test_imb_numa_nr_domains),
		cmocka_unit_test(test_no_busiest),
		cmocka_unit_test(test_busiest_queue_tie),
		cmocka_unit_test(test_migrate_load),
		cmocka_unit_test(test_asymmetric_levels),
		cmocka_unit_test(test_overlap_group_inside),
		cmocka_unit_test(test_numa_allowance_inclusive),
		cmocka_unit_test(test_numa_imbalance_pct),
		cmocka_unit_test(test_imbalance_pct_edges),
		cmocka_unit_test(test_this_cpu_not_idle),
		cmocka_unit_test(test_runnable_overloaded),
		cmocka_unit_test(test_runnable_fully_busy),
		cmocka_unit_test(test_util_est),
		cmocka_unit_test(test_util_est_update),
		cmocka_unit_test(test_pelt_load),
		cmocka_unit_test(test_all_pinned_redo),
		cmocka_unit_test(test_balance_kinds),
		cmocka_unit_test(test_should_we_balance),
		cmocka_unit_test(test_detach_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

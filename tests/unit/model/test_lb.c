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

#include "model/model.h"

#define US 1000ull
#define NOW 100000000ull	/* 100 ms */

static struct ir_domains *domains(const char *spec)
{
	struct ir_topology *t = NULL;
	struct ir_domains *d;

	assert_int_equal(ir_topology_from_arg(spec, &t, NULL, 0), 0);
	d = ir_domains_build(t, NULL, 0);
	ir_topology_free(t);
	assert_non_null(d);
	return d;
}

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

static struct ir_lb_result lb_llc(const struct ir_domains *d, const struct ir_point *pt, int level,
				  uint64_t migration_cost, bool preemption, bool llc_spread)
{
	struct ir_lb_env env = {
		.dom = d, .pt = pt, .level = level, .rules = IR_LB_V519, .now = NOW,
		.sysctl_sched_migration_cost = migration_cost, .preemption = preemption,
		.smt_never_hot = true, .llc_spread = llc_spread,
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


/* The known bug: a task on an SMT sibling moves only at the SMT level.  At
 * MC the sibling is in the local group, which is never the busiest. */
static void test_sibling_only_at_smt(void **state)
{
	struct ir_domains *d = domains("sockets=1,cores=2,threads=2");
	struct ir_rq_snap rq[4] = { 0 };
	struct ir_point pt = { .cpu = 0, .ts = NOW, .rq = rq, .nr_rq = 4 };
	struct ir_lb_result r;

	(void)state;
	busy(rq, 0, 0, 0, 1024);
	busy(rq, 1, 3, 2 * 1000 * US, 1024);	/* sibling: 2 waiting, cold */
	busy(rq, 2, 1, 0, 1024);
	busy(rq, 3, 1, 0, 1024);
	r = lb(d, &pt, 0, 500 * US, true);	/* SMT: groups are CPUs 0 and 1 */
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 1);
	assert_int_equal(r.pid, 100);		/* the tail of cfs_tasks */
	/* MC: groups {0,1} (local: 3 tasks on 2 CPUs, util 2048 * 117 > 2048 *
	 * 100: group_overloaded) and {2,3} (2 tasks on 2 CPUs: group_fully_busy).
	 * The local group is never the busiest, and it is busier: balanced */
	r = lb(d, &pt, 1, 500 * US, true);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.why, IR_LB_BALANCED);
	ir_domains_free(d);
}

/* task_hot(): exec_start within sysctl_sched_migration_cost stops a pull at
 * MC unless the sysctl is 0; never at the SMT level (SD_SHARE_CPUCAPACITY). */
static void test_cache_hot(void **state)
{
	struct ir_domains *d = domains("sockets=1,cores=2,threads=2");
	struct ir_rq_snap rq[4] = { 0 };
	struct ir_point pt = { .cpu = 0, .ts = NOW, .rq = rq, .nr_rq = 4 };
	struct ir_lb_result r;

	(void)state;
	busy(rq, 0, 0, 0, 0);
	busy(rq, 1, 0, 0, 0);
	busy(rq, 2, 4, 100 * US, 400);		/* 3 waiting, ran 100 us ago */
	busy(rq, 3, 0, 0, 0);
	/* MC: local {0,1} has_spare with 0 tasks, {2,3} 4 tasks on 2 CPUs with
	 * util 400: not overloaded (2048 * 100 > 400 * 117), has_spare; prefer
	 * sibling (child SMT) and 4 > 0 + 1: force; imbalance (4 - 0) >> 1 = 2 */
	r = lb(d, &pt, 1, 500 * US, true);
	assert_int_equal(r.moved, 0);
	assert_int_equal(r.why, IR_LB_NOTHING_MOVABLE);
	assert_int_equal(r.hot_skipped, 3);
	r = lb(d, &pt, 1, 0, true);		/* migration_cost 0: never hot */
	assert_int_equal(r.moved, 1);		/* CONFIG_PREEMPTION: one, then stop */
	assert_int_equal(r.from_cpu, 2);
	r = lb(d, &pt, 1, 0, false);		/* no PREEMPTION: the imbalance, 2 */
	assert_int_equal(r.moved, 2);
	r = lb(d, &pt, 1, 50 * US, false);	/* ran 100 us ago: cold at 50 us */
	assert_int_equal(r.moved, 2);
	ir_domains_free(d);
}

/* v5.19+ calculate_imbalance(): NUMA allowance through imb_numa_nr.  Two
 * nodes of one LLC (4 CPUs) each: imb_numa_nr = nr_llcs = 2. */
static void test_numa_allowance(void **state)
{
	struct ir_domains *d = domains("sockets=2,cores=2,threads=2,nodes=2");
	struct ir_rq_snap rq[8] = { 0 };
	struct ir_point pt = { .cpu = 0, .ts = NOW, .rq = rq, .nr_rq = 8 };
	struct ir_lb_result r;
	int numa = ir_domains_nr_levels(d, 0) - 1;

	(void)state;
	assert_int_equal(ir_domains_level(d, 0, numa)->kind, IR_LVL_NUMA);
	busy(rq, 4, 2, 10 * 1000 * US, 300);
	/* node 1 has 2 tasks, node 0 none: prefer_sibling forces, imbalance 2 - 0
	 * = 2; local sum 0 + 1 < imb_numa_nr 2 and 2 <= NUMA_IMBALANCE_MIN: 0 */
	r = lb(d, &pt, numa, 500 * US, true);
	assert_int_equal(r.moved, 0);
	busy(rq, 4, 4, 10 * 1000 * US, 300);
	/* 4 tasks: imbalance 4 > 2 is kept, >> 1 = 2; one moves (PREEMPTION) */
	r = lb(d, &pt, numa, 500 * US, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 4);
	ir_domains_free(d);
}

/* A pinned per-CPU kthread never moves; detach_tasks() goes on to the next. */
/* v5.10+ calculate_imbalance() (16b0a7a1a0af): inside an LLC (MC here) an
 * overloaded busiest group is balanced by task count, not by filling the
 * local group's spare capacity. */
static void test_llc_spread(void **state)
{
	struct ir_domains *d = domains("sockets=1,cores=2,threads=2");
	struct ir_rq_snap rq[4] = { 0 };
	struct ir_point pt = { .cpu = 0, .ts = NOW, .rq = rq, .nr_rq = 4 };
	struct ir_lb_result r;

	(void)state;
	busy(rq, 0, 0, 0, 0);
	busy(rq, 1, 1, 0, 1024);
	busy(rq, 2, 3, 10 * 1000 * US, 1024);	/* 2 waiting, cold, util 100 each */
	busy(rq, 3, 1, 0, 1024);
	/* local {0,1}: 1 task on 2 CPUs, has_spare, util 1024; busiest {2,3}: 4
	 * tasks on 2 CPUs, 2048 * 100 < 2048 * 117: group_overloaded.
	 * Before v5.10: migrate_util, imbalance 2048 - 1024; both waiting tasks
	 * (util 100) fit, and detach_tasks() leaves rq 2 its last: 2 move. */
	r = lb_llc(d, &pt, 1, 500 * US, false, false);
	assert_int_equal(r.moved, 2);
	/* v5.10+: migrate_task; prefer_sibling (child SMT): (4 - 1) >> 1 = 1 */
	r = lb_llc(d, &pt, 1, 500 * US, false, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 2);
	ir_domains_free(d);
}

/* find_busiest_queue() for migrate_util (NUMA: above the LLC): the highest
 * utilisation among runqueues with more than one task, not the longest. */
static void test_busiest_queue_util(void **state)
{
	struct ir_domains *d = domains("sockets=2,cores=2,threads=2,nodes=2");
	struct ir_rq_snap rq[8] = { 0 };
	struct ir_point pt = { .cpu = 0, .ts = NOW, .rq = rq, .nr_rq = 8 };
	struct ir_lb_result r;
	int numa = ir_domains_nr_levels(d, 0) - 1;

	(void)state;
	busy(rq, 4, 3, 10 * 1000 * US, 1000);	/* the longest queue */
	busy(rq, 5, 2, 10 * 1000 * US, 1010);	/* the busiest of those with 2+ */
	busy(rq, 6, 1, 0, 1024);		/* the busiest, but one task: skipped */
	busy(rq, 7, 1, 0, 1024);
	/* node 1: 7 tasks on 4 CPUs, util 4058: 4096 * 100 < 4058 * 117,
	 * group_overloaded; node 0 idle, has_spare: migrate_util, imbalance 4096 */
	r = lb(d, &pt, numa, 500 * US, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.from_cpu, 5);
	assert_int_equal(r.pid, 500);
	ir_domains_free(d);
}

/* detach_tasks(), migrate_load: both groups of MC overloaded.  Local {0,1}:
 * 3 tasks on 2 CPUs, load 3072, avg_load 1536; busiest {2,3}: 4 tasks,
 * avg_load 2048; the domain's avg_load 7168 * 1024 / 4096 = 1792; 100 * 2048
 * > 117 * 1536, so not balanced.  calculate_imbalance(): migrate_load,
 * min((2048 - 1792) * 2048, (1792 - 1536) * 2048) / 1024 = 512, half a
 * nice-0 task's load. */
static void test_migrate_load(void **state)
{
	struct ir_domains *d = domains("sockets=1,cores=2,threads=2");
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
	struct ir_domains *d = domains("sockets=1,cores=2,threads=2");
	struct ir_rq_snap rq[4] = { 0 };
	struct ir_point pt = { .cpu = 0, .ts = NOW, .rq = rq, .nr_rq = 4 };
	struct ir_lb_result r;

	(void)state;
	busy(rq, 1, 3, 2 * 1000 * US, 1024);
	rq[1].task[0].pinned = true;
	r = lb(d, &pt, 0, 500 * US, true);
	assert_int_equal(r.moved, 1);
	assert_int_equal(r.pid, 101);
	rq[1].task[1].pinned = true;
	r = lb(d, &pt, 0, 500 * US, true);
	assert_int_equal(r.moved, 0);
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
		cmocka_unit_test(test_busiest_queue_util),
		cmocka_unit_test(test_migrate_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

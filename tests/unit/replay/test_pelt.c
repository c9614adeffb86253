/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The PELT signals a newidle point's runqueue snapshot carries for
 * load_balance() (model/lb.c): a CPU's runnable_avg and util_est.enqueued,
 * a queued task's util_est, load_avg and exec_start.  Expectations from a
 * reference PELT written here (continuous form: y^32 = 1/2 per 1024 us
 * period) and the kernel rules each field follows:
 *  - cfs_rq runnable_avg: 1024 per runnable task (v5.7 9f68395333ad);
 *  - util_est_update() at a sleep: an increase resets ewma = enqueued;
 *  - se.avg.load_avg: accumulates while on a runqueue, decays asleep;
 *  - migrate_task_rq_fair(): exec_start = 0 ("no longer consider this task
 *    hot"), and the task's util_avg and load_avg leave the source CPU
 *    (remove_entity_load_avg()) for the destination (attach at enqueue).
 * Three CPUs: Y runs on CPU 2 for 1 ms from T0 and sleeps; X runs on CPU 1
 * from T0 + 2 ms; at T0 + 3 ms Y is woken onto CPU 1 (sched_migrate_task
 * 2 -> 1, then sched_wakeup) behind X; at T0 + 5 ms CPU 0's task A blocks:
 * CPU 0's newidle point sees CPU 1 with X running and Y queued.
 */
#include <math.h>

#include "ev.h"

#include "model/model.h"

#define A 10
#define X 20
#define Y 21

struct seen {
	int n;
	struct ir_rq_snap rq1, rq2;
};

static void grab(void *arg, const struct ir_point *pt)
{
	struct seen *s = arg;

	if (pt->cpu != 0 || !pt->rq)
		return;
	s->n++;
	s->rq1 = pt->rq[1];
	s->rq2 = pt->rq[2];
}

/* reference PELT: the average after dt ns at a constant input (0..n x 1024) */
static double decay(double dt_ns)
{
	return exp2(-dt_ns / (1024000.0 * 32.0));
}

static double step(double v, double dt_ns, double input)
{
	return v * decay(dt_ns) + input * (1.0 - decay(dt_ns));
}

static void close_to(double got, double want)
{
	if (fabs(got - want) > 0.01 * (fabs(want) > 1 ? fabs(want) : 1))
		fail_msg("got %f, want %f", got, want);
}

static void test_snapshot_pelt(void **state)
{
	struct ir_state_params prm;
	struct ir_topology *t;
	struct ir_domains *dom;
	struct ir_rings rings;
	struct ir_state *s;
	struct seen seen = { 0 };
	const struct ir_snap_task *y;
	double util_y, runnable, load;

	(void)state;
	assert_int_equal(ir_topology_from_arg("sockets=1,cores=3,threads=1", &t, NULL, 0), 0);
	dom = ir_domains_build(t, NULL, 0);
	assert_non_null(dom);
	rings = ir_domains_rings(dom);
	ir_state_params_default(&prm);
	s = ir_state_new(3, &prm, &rings, grab, &seen);
	assert_non_null(s);

	sw(s, T0, 0, 0, S_RUN, A);
	sw(s, T0, 2, 0, S_RUN, Y);
	sw(s, T0 + 1 * MS, 2, Y, S_SLEEP, 0);
	sw(s, T0 + 2 * MS, 1, 0, S_RUN, X);
	mig(s, T0 + 3 * MS, 1, X, Y, 2, 1);
	wake(s, T0 + 3 * MS + 1 * US, 1, X, Y, 1);
	sw(s, T0 + 5 * MS, 0, A, S_SLEEP, 0);
	ir_state_finish(s, T0 + 10 * MS);
	ir_state_free(s);
	ir_domains_free(dom);
	ir_topology_free(t);

	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.rq1.nr_running, 2);
	assert_int_equal(seen.rq1.nr_tasks, 1);
	y = &seen.rq1.task[0];
	assert_int_equal(y->pid, Y);
	/* Y's util_avg after 1 ms of running from 0, and its estimate then */
	util_y = step(0, 1 * MS, 1024);
	close_to(y->util_est, util_y);
	/* CPU 1: util_est.enqueued is the queued tasks' estimates and curr's
	 * (X never slept: 0) */
	close_to(seen.rq1.util_est, util_y);
	/* runnable_avg: 0 until X at T0 + 2 ms, one task to T0 + 3 ms, where
	 * Y's load_avg (1 ms runnable, 2 ms asleep) joins it, one task to
	 * T0 + 3.001 ms, two to T0 + 5 ms */
	runnable = step(step(step(0, 1 * MS, 1024) + step(step(0, 1 * MS, 1024), 2 * MS, 0), 1 * US, 1024),
			2 * MS - 1 * US, 2048);
	close_to(seen.rq1.runnable, runnable);
	/* CPU 2: busy 1 ms (Y), idle since; Y's util_avg and load_avg left it
	 * at T0 + 3 ms: nothing remains */
	close_to(seen.rq2.util, 0);
	close_to(seen.rq2.runnable, 0);
	/* CPU 1: X's 3 ms of running plus Y's util_avg from T0 + 3 ms */
	close_to(seen.rq1.util, step(step(0, 1 * MS, 1024) + step(util_y, 2 * MS, 0), 2 * MS, 1024));
	/* Y's load_avg: runnable 1 ms, asleep 2.001 ms, queued 1.999 ms */
	load = step(step(step(0, 1 * MS, 1024), 2 * MS + 1 * US, 0), 2 * MS - 1 * US, 1024);
	close_to(y->load, load);
	/* migrated: no longer cache hot */
	assert_int_equal(y->exec_start, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_pelt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

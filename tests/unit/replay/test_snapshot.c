/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runqueues a newidle point carries (replay/replay.h struct ir_rq_snap,
 * SPEC 3): every field of every CPU's entry, the point's own CPU, a task it
 * pulled put back on its source, and in probed mode each level's runqueues
 * and time (replay/lookahead.h).  Expectations by hand:
 *
 *  PELT (kernel/sched/pelt.c): util_avg moves towards 1024 while running
 *  and towards 0 otherwise, halving every LOAD_AVG_PERIOD (32) periods of
 *  1024 us, H = 32.768 ms.  From 0, running for H gives 512, for 2H 768;
 *  512 left for H gives 256.  A task's util_avg accumulates only while it
 *  runs (update_load_avg() with se->on_rq but cfs_rq->curr != se: running
 *  0), so a queued task's decays like a sleeping one's.  A CPU's is its
 *  busy time's (the root cfs_rq: running whenever a task runs).
 *
 *  A level of a probed walk reads the runqueues at entry + the sum of the
 *  levels' sd->max_newidle_lb_cost up to it, at most the call's duration
 *  (lookahead.h's rule; load_balance() of a level runs after the ones
 *  below it).
 */
#include <math.h>

#include "ev.h"

#include "model/model.h"

#define H 32768000ull	/* LOAD_AVG_PERIOD * 1024 us */

static double decayed(double util, uint64_t dt)
{
	return util * exp2(-(double)dt / (double)H);
}

static void near(double got, double want, const char *what)
{
	if (fabs(got - want) > 0.5)
		fail_msg("%s: util %.3f, want %.3f", what, got, want);
}

/* What the callback saw at the first points on CPU `cpu`. */
struct shot {
	struct ir_point pt;
	struct ir_rq_snap rq[16];
	struct ir_rq_snap lvl[IR_MAX_LEVELS][16];
	bool has_lvl[IR_MAX_LEVELS];
};
struct seen {
	int cpu, n;
	struct shot s[3];
};

static void keep(void *arg, const struct ir_point *pt)
{
	struct seen *w = arg;
	struct shot *k;

	if (pt->cpu != w->cpu)
		return;
	assert_true(w->n < 3);
	k = &w->s[w->n++];
	k->pt = *pt;
	assert_non_null(pt->rq);
	assert_true(pt->nr_rq <= 16);
	memcpy(k->rq, pt->rq, (size_t)pt->nr_rq * sizeof(*pt->rq));
	for (int l = 0; l < IR_MAX_LEVELS; l++) {
		k->has_lvl[l] = pt->rq_level[l] != NULL;
		if (pt->rq_level[l])
			memcpy(k->lvl[l], pt->rq_level[l], (size_t)pt->nr_rq * sizeof(*pt->rq));
	}
}

/* Three CPUs from T0: CPU 1 runs Y for H, then X preempts it (Y queued,
 * util 512); CPU 2 runs Z for H, then idles; CPU 0 idles for H, runs A for
 * H and A blocks at T0 + 2H with nothing runnable: an IDLE point whose
 * snapshot is taken then.
 *   CPU 0: nothing runs, idle since the point, util 512 (busy H from 0).
 *   CPU 1: X running and Y queued (nr_running 2), busy since T0: util 768;
 *          Y: its last run ended at T0 + H (exec_start), util 512 left
 *          for H: 256 (running it as if it ran: 768).
 *   CPU 2: idle since T0 + H, util 512 decayed for H: 256. */
static void test_snapshot_fields(void **state)
{
	struct ir_state_params prm;
	struct seen w = { .cpu = 0 };
	struct ir_state *s;
	const uint64_t p = T0 + 2 * H;

	(void)state;
	ir_state_params_default(&prm);
	s = ir_state_new(3, &prm, NULL, keep, &w);
	assert_non_null(s);
	sw(s, T0, 1, 0, S_RUN, 11);		/* Y */
	sw(s, T0, 2, 0, S_RUN, 12);		/* Z */
	sw(s, T0 + H, 1, 11, S_PRE, 10);	/* X preempts Y */
	sw(s, T0 + H, 2, 12, S_SLEEP, 0);
	sw(s, T0 + H, 0, 0, S_RUN, 13);		/* A */
	sw(s, p, 0, 13, S_SLEEP, 0);
	ir_state_finish(s, p + 1 * MS);
	assert_int_equal(ir_state_observed(s)->anomalies[IR_ANOM_TIME_BACKWARDS], 0);
	ir_state_free(s);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.s[0].pt.kind, IR_PT_IDLE);
	assert_int_equal(w.s[0].pt.nr_rq, 3);
	assert_int_equal(w.s[0].pt.rq_ts, p);

	assert_int_equal(w.s[0].rq[0].nr_running, 0);
	assert_int_equal(w.s[0].rq[0].nr_tasks, 0);
	assert_true(w.s[0].rq[0].curr_idle);
	assert_int_equal(w.s[0].rq[0].idle_since, p);
	near(w.s[0].rq[0].util, 512, "CPU 0 (busy H from 0)");

	assert_int_equal(w.s[0].rq[1].nr_running, 2);
	assert_false(w.s[0].rq[1].curr_idle);
	assert_int_equal(w.s[0].rq[1].idle_since, 0);
	near(w.s[0].rq[1].util, 768, "CPU 1 (busy 2H)");
	assert_int_equal(w.s[0].rq[1].nr_tasks, 1);
	assert_int_equal(w.s[0].rq[1].task[0].pid, 11);
	assert_int_equal(w.s[0].rq[1].task[0].exec_start, T0 + H);
	assert_false(w.s[0].rq[1].task[0].pinned);
	near(w.s[0].rq[1].task[0].util, 256, "Y queued for H after running H");

	assert_int_equal(w.s[0].rq[2].nr_running, 0);
	assert_int_equal(w.s[0].rq[2].nr_tasks, 0);
	assert_true(w.s[0].rq[2].curr_idle);
	assert_int_equal(w.s[0].rq[2].idle_since, T0 + H);
	near(w.s[0].rq[2].util, 256, "CPU 2 (busy H, idle H)");
}

/* CPU 1 runs Y (201) for H, X (200) preempts it; CPU 0 runs A (100) from
 * T0 + H and at T0 + 2H pulls Y (sched_migrate_task in A's context), then
 * switches to it 5 us later: a PULLED point.  Its snapshot shows CPU 1 as
 * load_balance() found it: Y back at the tail of its queue (nr_running 2,
 * exec_start T0 + H), its util 512 left for H + 5 us. */
static void test_snapshot_pulled_back(void **state)
{
	struct ir_state_params prm;
	struct seen w = { .cpu = 0 };
	struct ir_state *s;
	const uint64_t p = T0 + 2 * H;

	(void)state;
	ir_state_params_default(&prm);
	s = ir_state_new(2, &prm, NULL, keep, &w);
	assert_non_null(s);
	sw(s, T0, 1, 0, S_RUN, 201);
	sw(s, T0 + H, 1, 201, S_PRE, 200);
	sw(s, T0 + H, 0, 0, S_RUN, 100);
	mig(s, p, 0, 100, 201, 1, 0);
	sw(s, p + 5 * US, 0, 100, S_SLEEP, 201);
	ir_state_finish(s, p + 1 * MS);
	assert_int_equal(ir_state_observed(s)->anomalies[IR_ANOM_TIME_BACKWARDS], 0);
	ir_state_free(s);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.s[0].pt.kind, IR_PT_PULLED);
	assert_int_equal(w.s[0].pt.pulled_pid, 201);
	assert_int_equal(w.s[0].rq[1].nr_running, 2);
	assert_false(w.s[0].rq[1].curr_idle);
	assert_int_equal(w.s[0].rq[1].nr_tasks, 1);
	assert_int_equal(w.s[0].rq[1].task[0].pid, 201);
	assert_int_equal(w.s[0].rq[1].task[0].exec_start, T0 + H);
	near(w.s[0].rq[1].task[0].util, decayed(512, H + 5 * US), "Y put back");
	/* CPU 0 ran A for H + 5 us from 0 */
	near(w.s[0].rq[0].util, 1024 - decayed(1024, H + 5 * US), "CPU 0");
	assert_int_equal(w.s[0].rq[0].nr_running, 0);
}

/* A probed call in probed mode with the look-ahead: CPU 0's levels SMT,
 * MC, NUMA (and a fourth, NODE, on the 16-CPU machine) with probed costs
 * 10, 20 and 40 us (the probe records three levels: a fourth adds
 * nothing).  CPU 3 ran W (util 512) until T0 + H; the call enters at
 * e = T0 + 2H, W wakes onto CPU 3 at e + 30 us.
 *   exit at e + 100 us: levels at e + 10, e + 30, e + 70 (, e + 70) us;
 *   exit at e + 50 us: the last level is bounded by the exit: e + 50 us;
 *   exit at the entry's very ns (no duration measured), switch at e + 25:
 *     the call lasted until its switch, levels at e + 10, e + 25, e + 25;
 *   no exit probe, switch at e + 60: the same, e + 10, e + 30, e + 60.
 * A level at e + 30 us or later (the very ns included) reads CPU 3 with W
 * queued (nr_running 1, the idle task still its curr), W's util 512 left
 * for H + 30 us, its exec_start T0 + H; an earlier one without.  CPU 4,
 * idle as far as we saw, switches from a task we never saw switch in to
 * idle at e + 15 us: a level from then on reads it idle since e + 15 us;
 * so does CPU 2 from e + 12 us, where a damaged switch record (common_pid
 * 0, not its prev) says the same.
 * A task woken onto CPU 0 just before the entry (a wakeup we saw, its
 * enqueue there not: the kernel called newidle) is not in CPU 0's entry.  CPU 5 runs V with C queued; before
 * level 0 an RT task, ksoftirqd/5 (pinned) and U wake onto it: every level
 * has them queued (nr_running 5), the CFS ones tail first: C, ksoftirqd, U
 * (the RT task is no CFS task: not in the list).  CPU 6 runs a task with
 * IR_SNAP_TASKS - 1 CFS tasks queued (600, 601, ...) and one more wakes at
 * exactly level 0's time: every level has it, the last of the window.
 * CPU 7 has IR_SNAP_TASKS queued (700, ...) and one more wakes at e + 8 us:
 * nr_running IR_SNAP_TASKS + 2, the list still the IR_SNAP_TASKS oldest.  Where the call lasts past
 * e + 70 us, a task wakes onto CPU 1 at e + 70, the first record after
 * e + 30: a level read at e + 70 has it (the very ns included).
 * A's next block (at e + 2 ms, no probe) is a point of its own without the
 * probed call's levels. */
static void walk(const char *spec, int nr_cpus, int nr_levels, int64_t exit_us, uint64_t switch_us,
		 const uint64_t want_us[4])
{
	struct ir_state_params prm;
	struct ir_topology *t = NULL;
	struct ir_domains *dom;
	struct ir_rings rings;
	struct seen w = { .cpu = 0 };
	struct shot *k = &w.s[0];
	struct ir_state *s;
	const uint64_t e = T0 + 2 * H;
	struct ir_event ev = { .ts = e, .cpu = 0, .common_pid = 13, .type = IR_EV_PROBE_ENTRY };

	assert_int_equal(ir_topology_from_arg(spec, &t, NULL, 0), 0);
	dom = ir_domains_build(t, NULL, 0);
	assert_non_null(dom);
	rings = ir_domains_rings(dom);
	ir_state_params_default(&prm);
	prm.probe_seed = true;
	assert_true(prm.lookahead_max_ns >= 1 * MS);
	s = ir_state_new(nr_cpus, &prm, &rings, keep, &w);
	assert_non_null(s);
	sw(s, T0, 3, 0, S_RUN, 30);		/* W */
	sw(s, T0, 5, 0, S_RUN, 50);		/* V, with C queued */
	sw(s, T0, 6, 0, S_RUN, 60);
	sw(s, T0, 7, 0, S_RUN, 70);
	other(s, T0, 2, 0);			/* CPUs 2 and 4 seen idle */
	other(s, T0, 4, 0);
	wake(s, T0 + 1 * US, 5, 50, 51, 5);
	for (int i = 0; i < IR_SNAP_TASKS; i++) {
		if (i < IR_SNAP_TASKS - 1)
			wake(s, T0 + (2 + (uint64_t)i) * US, 6, 60, 600 + i, 6);
		wake(s, T0 + (2 + (uint64_t)i) * US, 7, 70, 700 + i, 7);
	}
	sw(s, T0 + H, 3, 30, S_SLEEP, 0);
	sw(s, T0 + H, 0, 0, S_RUN, 13);		/* A */
	ev.probe_entry.cpu = 0;
	ev.probe_entry.v = (struct ir_probe_entry){ .nr_running = 0, .avg_idle = 10 * (int64_t)MS,
		.max_idle_balance_cost = -1, .rd_overload = 1, .ttwu_pending = 0,
		.sd_max_newidle_lb_cost = { 10 * (int64_t)US, 20 * (int64_t)US, 40 * (int64_t)US },
		.sd_newidle_ratio = { -1, -1, -1 } };
	wake(s, e - 1 * US, 0, 13, 90, 0);	/* queued on CPU 0 as far as we saw */
	ir_state_feed(s, &ev);
	if (exit_us == 0)
		probe_out(s, e, 0, 13, 0);
	wakec(s, IR_EV_WAKEUP, e + 5 * US, 5, 50, 52, 50, 5, "rt");
	wakec(s, IR_EV_WAKEUP, e + 6 * US, 5, 50, 53, 120, 5, "ksoftirqd/5");
	wake(s, e + 7 * US, 5, 50, 54, 5);
	wake(s, e + 8 * US, 7, 70, 700 + IR_SNAP_TASKS, 7);
	wake(s, e + 10 * US, 6, 60, 600 + IR_SNAP_TASKS - 1, 6);
	{
		/* the same from a damaged record (common_pid 0, not its prev) */
		struct ir_event d = { .ts = e + 12 * US, .cpu = 2, .common_pid = 0, .type = IR_EV_SWITCH,
			.sw.prev_pid = 42, .sw.prev_prio = 120, .sw.next_pid = 0, .sw.next_prio = 120,
			.sw.prev_state = S_SLEEP, .sw.prev_comm = "task", .sw.next_comm = "swapper",
			.sw.prev_comm_len = 4, .sw.next_comm_len = 7 };

		ir_state_feed(s, &d);
	}
	sw(s, e + 15 * US, 4, 44, S_SLEEP, 0);	/* a task we never saw switch in */
	if (switch_us < 30)
		sw(s, e + switch_us * US, 0, 13, S_SLEEP, 0);
	wake(s, e + 30 * US, 3, 0, 30, 3);
	if (switch_us > 70)
		wake(s, e + 70 * US, 1, 0, 19, 1);	/* the only record after e + 30 */
	if (exit_us > 0)
		probe_out(s, e + (uint64_t)exit_us * US, 0, 13, 0);
	if (switch_us >= 30)
		sw(s, e + switch_us * US, 0, 13, S_SLEEP, 0);
	sw(s, e + 1 * MS, 0, 0, S_RUN, 13);
	sw(s, e + 2 * MS, 0, 13, S_SLEEP, 0);
	ir_state_finish(s, e + 10 * MS);
	assert_int_equal(ir_state_observed(s)->anomalies[IR_ANOM_TIME_BACKWARDS], 0);
	ir_state_free(s);
	ir_domains_free(dom);
	ir_topology_free(t);

	assert_int_equal(w.n, 2);
	assert_true(k->pt.has_probe);
	assert_int_equal(k->pt.rq_ts, e);
	assert_int_equal(k->pt.nr_levels, nr_levels);
	for (int l = 0; l < nr_levels; l++) {
		const struct ir_rq_snap *q = &k->lvl[l][3];
		bool has_w = want_us[l] >= 30;

		assert_true(k->has_lvl[l]);
		if (k->pt.rq_level_ts[l] != e + want_us[l] * US)
			fail_msg("%s level %d read at e + %lld ns, want e + %llu us", spec, l,
				 (long long)(k->pt.rq_level_ts[l] - e), (unsigned long long)want_us[l]);
		assert_int_equal(k->lvl[l][5].nr_running, 5);
		assert_false(k->lvl[l][5].curr_idle);
		assert_int_equal(k->lvl[l][5].nr_tasks, 3);
		assert_int_equal(k->lvl[l][5].task[0].pid, 51);
		assert_int_equal(k->lvl[l][5].task[1].pid, 53);
		assert_true(k->lvl[l][5].task[1].pinned);
		assert_int_equal(k->lvl[l][5].task[2].pid, 54);
		assert_false(k->lvl[l][5].task[2].pinned);
		assert_int_equal(k->lvl[l][6].nr_running, IR_SNAP_TASKS + 1);
		assert_int_equal(k->lvl[l][6].nr_tasks, IR_SNAP_TASKS);
		for (int i = 0; i < IR_SNAP_TASKS; i++)
			assert_int_equal(k->lvl[l][6].task[i].pid, 600 + i);
		assert_int_equal(k->lvl[l][7].nr_running, IR_SNAP_TASKS + 2);
		assert_int_equal(k->lvl[l][7].nr_tasks, IR_SNAP_TASKS);
		for (int i = 0; i < IR_SNAP_TASKS; i++)
			assert_int_equal(k->lvl[l][7].task[i].pid, 700 + i);
		/* task 19 woken onto CPU 1 at e + 70 us, nothing between it and
		 * e + 30: a level at e + 70 has it */
		assert_int_equal(k->lvl[l][1].nr_running, want_us[l] >= 70 ? 1 : 0);
		/* CPU 2 from e + 12 us, CPU 4 from e + 15 us: idle since then */
		assert_true(k->lvl[l][2].curr_idle);
		assert_int_equal(k->lvl[l][2].nr_running, 0);
		assert_int_equal(k->lvl[l][2].idle_since,
				 want_us[l] >= 12 ? e + 12 * US : k->rq[2].idle_since);
		assert_true(k->lvl[l][4].curr_idle);
		assert_int_equal(k->lvl[l][4].nr_running, 0);
		assert_int_equal(k->lvl[l][4].idle_since,
				 want_us[l] >= 15 ? e + 15 * US : k->rq[4].idle_since);
		assert_true(q->curr_idle);
		if (!has_w) {
			assert_int_equal(q->nr_running, 0);
			assert_int_equal(q->nr_tasks, 0);
			continue;
		}
		assert_int_equal(q->nr_running, 1);
		assert_int_equal(q->nr_tasks, 1);
		assert_int_equal(q->task[0].pid, 30);
		assert_int_equal(q->task[0].exec_start, T0 + H);
		near(q->task[0].util, decayed(512, H + 30 * US), "W at its wakeup");
	}
	/* the entry snapshot: CPU 3 idle, empty; CPU 0 as its newidle call
	 * finds it, A dequeued (nothing runs, nothing queued, idle from the
	 * entry), its util A's run of H from 0 */
	assert_int_equal(k->rq[3].nr_running, 0);
	assert_true(k->rq[3].curr_idle);
	assert_int_equal(k->rq[5].nr_running, 2);
	assert_int_equal(k->rq[5].nr_tasks, 1);
	assert_int_equal(k->rq[6].nr_tasks, IR_SNAP_TASKS - 1);
	assert_int_equal(k->rq[7].nr_tasks, IR_SNAP_TASKS);
	assert_int_equal(k->rq[0].nr_running, 0);
	assert_int_equal(k->rq[0].nr_tasks, 0);
	assert_true(k->rq[0].curr_idle);
	assert_int_equal(k->rq[0].idle_since, e);
	near(k->rq[0].util, 512, "CPU 0 at the entry (A ran H)");
	/* the next, unprobed point: its runqueues at its own entry only */
	assert_false(w.s[1].pt.has_probe);
	assert_int_equal(w.s[1].pt.rq_ts, e + 2 * MS);
	for (int l = 0; l < IR_MAX_LEVELS; l++) {
		assert_false(w.s[1].has_lvl[l]);
		assert_int_equal(w.s[1].pt.rq_level_ts[l], 0);
	}
}

static void test_level_times(void **state)
{
	static const char *const numa = "sockets=2,cores=2,threads=2,nodes=2";
	static const char *const node = "sockets=2,cores=4,threads=2,clusters=2";
	static const uint64_t full[4] = { 10, 30, 70, 70 }, cut[4] = { 10, 30, 50, 50 };
	static const uint64_t at_entry[4] = { 10, 25, 25, 25 }, no_exit[4] = { 10, 30, 60, 60 };

	(void)state;
	walk(numa, 8, 3, 100, 110, full);
	walk(numa, 8, 3, 50, 60, cut);
	walk(numa, 8, 3, 0, 25, at_entry);
	walk(numa, 8, 3, -1, 60, no_exit);
	walk(node, 16, 4, 100, 110, full);
	walk(node, 16, 4, 50, 60, cut);
}

static void expect_task(const struct ir_rq_snap *q, int i, int32_t pid, uint64_t exec_start, bool pinned)
{
	if (q->task[i].pid != pid || q->task[i].exec_start != exec_start || q->task[i].pinned != pinned ||
	    q->task[i].prio != -1)
		fail_msg("task[%d]: pid %d exec_start %llu pinned %d prio %d, want pid %d exec_start %llu "
			 "pinned %d prio -1", i, q->task[i].pid, (unsigned long long)q->task[i].exec_start,
			 q->task[i].pinned, q->task[i].prio, pid, (unsigned long long)exec_start, pinned);
}

/* A CPU's queue as load_balance() walks it (detach_tasks() from the tail of
 * cfs_tasks, the longest queued first): CPU 0 runs X and has, in the order
 * they woke, ksoftirqd/0 (a per-CPU kthread: pinned), an RT task (prio 50:
 * counted in nr_running, not a CFS task) and IR_SNAP_TASKS + 1 CFS tasks
 * 1000, 1001, ....  The snapshot keeps IR_SNAP_TASKS CFS tasks tail first:
 * ksoftirqd, 1000 .. 1000 + IR_SNAP_TASKS - 2, none ever run (exec_start 0),
 * priority unknown (-1); nr_running 3 + IR_SNAP_TASKS + 1.  The point is
 * CPU 2's (A blocks), so CPU 0 is one of the others.  A second point on
 * CPU 2 after all of them ran and left, with one task 40 woken:
 * ksoftirqd, 40 (the buffer is reused: nothing of the first stays). */
static void test_snapshot_queue(void **state)
{
	struct ir_state_params prm;
	struct seen w = { .cpu = 2 };
	struct ir_state *s;
	const uint64_t b = T0 + 1 * MS;

	(void)state;
	ir_state_params_default(&prm);
	s = ir_state_new(3, &prm, NULL, keep, &w);
	assert_non_null(s);
	sw(s, T0, 0, 0, S_RUN, 20);		/* X */
	wakec(s, IR_EV_WAKEUP, T0 + 1 * US, 0, 20, 21, 120, 0, "ksoftirqd/0");
	wakec(s, IR_EV_WAKEUP, T0 + 2 * US, 0, 20, 22, 50, 0, "rt");
	for (int i = 0; i < IR_SNAP_TASKS + 1; i++)
		wake(s, T0 + (3 + (uint64_t)i) * US, 0, 20, 1000 + i, 0);
	sw(s, T0 + 100 * US, 2, 0, S_RUN, 13);
	sw(s, b, 2, 13, S_SLEEP, 0);
	sw(s, b + 100 * US, 2, 0, S_RUN, 14);	/* CPU 2's idle ends: the point is delivered */
	assert_int_equal(w.n, 1);
	assert_int_equal(w.s[0].rq[0].nr_running, 3 + IR_SNAP_TASKS + 1);
	assert_false(w.s[0].rq[0].curr_idle);
	assert_int_equal(w.s[0].rq[0].nr_tasks, IR_SNAP_TASKS);
	expect_task(&w.s[0].rq[0], 0, 21, 0, true);
	for (int i = 1; i < IR_SNAP_TASKS; i++)
		expect_task(&w.s[0].rq[0], i, 999 + i, 0, false);
	assert_int_equal(w.s[0].rq[1].nr_tasks, 0);
	/* 1000 .. 1000 + IR_SNAP_TASKS each run 2 us on CPU 0 and block */
	for (int i = 0; i < IR_SNAP_TASKS + 1; i++) {
		uint64_t t = b + 200 * US + (uint64_t)i * 2 * US;

		sw(s, t, 0, i ? 999 + i : 20, i ? S_SLEEP : S_PRE, 1000 + i);
	}
	sw(s, b + 300 * US, 0, 1000 + IR_SNAP_TASKS, S_SLEEP, 22);	/* the RT task; X, 21 still queued */
	wake(s, b + 310 * US, 0, 22, 40, 0);
	sw(s, b + 400 * US, 2, 14, S_SLEEP, 0);
	sw(s, b + 500 * US, 2, 0, S_RUN, 15);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.s[1].rq[0].nr_running, 4);	/* the RT task, X, 21, 40 */
	assert_int_equal(w.s[1].rq[0].nr_tasks, 3);
	expect_task(&w.s[1].rq[0], 0, 21, 0, true);
	expect_task(&w.s[1].rq[0], 1, 20, b + 200 * US, false);
	expect_task(&w.s[1].rq[0], 2, 40, 0, false);
	ir_state_finish(s, b + 1 * MS);
	assert_int_equal(ir_state_observed(s)->anomalies[IR_ANOM_TIME_BACKWARDS], 0);
	ir_state_free(s);
}

/* The task a newidle call pulled, put back on its source as the call
 * found it (detach_tasks() took it from the tail):
 *  - the source idle, Y woken onto it and not yet switched in: nr_running 1
 *    and so not idle_cpu(), Y its only task (and Y's own block later is an
 *    IDLE point on CPU 0 whose CPU 1 is idle and empty: the earlier pull is
 *    not put back);
 *  - the source running X with Y (oldest) and IR_SNAP_TASKS others
 *    queued (1041, 1042, ...): Y back at the tail, then the
 *    IR_SNAP_TASKS - 1 oldest of the others (the snapshot's window),
 *    nr_running IR_SNAP_TASKS + 2. */
static void test_snapshot_pulled_from_queue(void **state)
{
	struct ir_state_params prm;
	struct seen w = { .cpu = 0 };
	struct ir_state *s;
	const uint64_t b = T0 + 1 * MS;

	(void)state;
	ir_state_params_default(&prm);
	s = ir_state_new(2, &prm, NULL, keep, &w);
	assert_non_null(s);
	sw(s, T0, 0, 0, S_RUN, 100);
	wake(s, b - 10 * US, 0, 100, 201, 1);	/* onto idle CPU 1 */
	mig(s, b, 0, 100, 201, 1, 0);
	sw(s, b + 5 * US, 0, 100, S_SLEEP, 201);
	sw(s, b + 50 * US, 0, 201, S_SLEEP, 0);	/* an IDLE point: nothing pulled */
	ir_state_finish(s, b + 100 * US);
	assert_int_equal(ir_state_observed(s)->anomalies[IR_ANOM_TIME_BACKWARDS], 0);
	ir_state_free(s);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.s[0].pt.kind, IR_PT_PULLED);
	assert_int_equal(w.s[0].rq[1].nr_running, 1);
	assert_false(w.s[0].rq[1].curr_idle);
	assert_int_equal(w.s[0].rq[1].nr_tasks, 1);
	expect_task(&w.s[0].rq[1], 0, 201, 0, false);
	/* the next call pulled nothing: the earlier pull is not put back */
	assert_int_equal(w.s[1].pt.kind, IR_PT_IDLE);
	assert_int_equal(w.s[1].rq[1].nr_running, 0);
	assert_true(w.s[1].rq[1].curr_idle);
	assert_int_equal(w.s[1].rq[1].nr_tasks, 0);

	w = (struct seen){ .cpu = 0 };
	s = ir_state_new(2, &prm, NULL, keep, &w);
	assert_non_null(s);
	sw(s, T0, 0, 0, S_RUN, 100);
	sw(s, T0, 1, 0, S_RUN, 200);		/* X */
	wake(s, T0 + 1 * US, 1, 200, 201, 1);	/* Y, the oldest */
	for (int i = 0; i < IR_SNAP_TASKS; i++)
		wake(s, T0 + (2 + (uint64_t)i) * US, 1, 200, 1041 + i, 1);
	mig(s, b, 0, 100, 201, 1, 0);
	sw(s, b + 5 * US, 0, 100, S_SLEEP, 201);
	ir_state_finish(s, b + 100 * US);
	assert_int_equal(ir_state_observed(s)->anomalies[IR_ANOM_TIME_BACKWARDS], 0);
	ir_state_free(s);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.s[0].pt.kind, IR_PT_PULLED);
	assert_int_equal(w.s[0].rq[1].nr_running, IR_SNAP_TASKS + 2);
	assert_false(w.s[0].rq[1].curr_idle);
	assert_int_equal(w.s[0].rq[1].nr_tasks, IR_SNAP_TASKS);
	expect_task(&w.s[0].rq[1], 0, 201, 0, false);
	for (int i = 1; i < IR_SNAP_TASKS; i++)
		expect_task(&w.s[0].rq[1], i, 1040 + i, 0, false);
}

/* Another CPU inside its own probed newidle call (v6.1 __schedule():
 * deactivate_task(prev) before pick_next_task()): rq->curr is still prev,
 * so not idle_cpu(), but prev is off the runqueue: a level of CPU 2's
 * balance reads CPU 0 with nr_running 1 (the one arrival, 21, queued
 * during the call) and no runnable task besides it, not 2. */
static void test_snapshot_prev_dequeued(void **state)
{
	struct ir_state_params prm;
	struct seen w = { .cpu = 2 };
	struct ir_state *s;
	const uint64_t e = T0 + 1 * MS;

	(void)state;
	ir_state_params_default(&prm);
	prm.probe_seed = true;
	s = ir_state_new(3, &prm, NULL, keep, &w);
	assert_non_null(s);
	sw(s, T0, 0, 0, S_RUN, 20);
	sw(s, T0, 1, 0, S_RUN, 30);
	sw(s, T0 + 10 * US, 2, 0, S_RUN, 13);
	probe_in(s, e, 0, 20, 0, 1);		/* CPU 0: 20 is going to sleep */
	wake(s, e + 2 * US, 1, 30, 21, 0);	/* 21 queued on CPU 0 meanwhile */
	sw(s, e + 5 * US, 2, 13, S_SLEEP, 0);	/* CPU 2 goes idle: its point */
	sw(s, e + 300 * US, 2, 0, S_RUN, 14);	/* delivered */
	assert_int_equal(w.n, 1);
	assert_int_equal(w.s[0].rq[0].nr_running, 1);
	assert_false(w.s[0].rq[0].curr_idle);
	assert_int_equal(w.s[0].rq[0].nr_tasks, 1);
	expect_task(&w.s[0].rq[0], 0, 21, 0, false);
	ir_state_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_fields),
		cmocka_unit_test(test_snapshot_pulled_back),
		cmocka_unit_test(test_level_times),
		cmocka_unit_test(test_snapshot_queue),
		cmocka_unit_test(test_snapshot_pulled_from_queue),
		cmocka_unit_test(test_snapshot_prev_dequeued),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

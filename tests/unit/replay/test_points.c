/* SPDX-License-Identifier: GPL-2.0-only */
/* Newidle points (SPEC 7, 8, 9): kinds, no late arrival, re-entry, candidate rings,
 * gain_ns = min(idle, wait), and what is not a candidate. */
#include "ev.h"

static void test_idle_point(void **state)
{
	struct pts pts;
	struct ir_state *s = mk(1, NULL, NULL, &pts);
	uint64_t b = T0 + 100 * US;

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	sw(s, b, 0, 100, S_SLEEP, 0);
	assert_int_equal(pts.n, 0);			/* delivered once resolved */
	wake(s, b + 200 * US, 0, 0, 100, 0);
	sw(s, b + 201 * US, 0, 0, S_RUN, 100);
	assert_int_equal(pts.n, 1);
	assert_int_equal(pts.p[0].kind, IR_PT_IDLE);
	assert_int_equal(pts.p[0].ts, b);
	assert_int_equal(pts.p[0].cpu, 0);
	assert_int_equal(pts.p[0].idle_ns, 201 * US);
	assert_int_equal(pts.p[0].avg_idle, 1000000);
	assert_int_equal(pts.p[0].max_idle_balance_cost, 500000);
	assert_false(pts.p[0].overload);
	assert_int_equal(pts.p[0].pulled_pid, -1);
	assert_int_equal(pts.p[0].pulled_from, -1);
	assert_int_equal(pts.p[0].nr_levels, 1);
	assert_int_equal(pts.p[0].ring[0].pid, -1);
	/* a preempted prev is no point; neither is a block with work queued */
	wake(s, b + 300 * US, 0, 100, 101, 0);
	sw(s, b + 500 * US, 0, 100, S_PRE, 101);
	sw(s, b + 600 * US, 0, 101, S_SLEEP, 100);
	ir_state_finish(s, b + 1 * MS);
	assert_int_equal(pts.n, 1);
	assert_int_equal(ir_state_observed(s)->newidle_points, 1);
	ir_state_free(s);
}

/* The point stays open to the end of the window and is resolved there. */
static void test_point_resolved_at_finish(void **state)
{
	struct pts pts;
	struct ir_state *s = mk(1, NULL, NULL, &pts);

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	sw(s, T0 + 10 * US, 0, 100, S_SLEEP, 0);
	ir_state_finish(s, T0 + 1 * MS);
	assert_int_equal(pts.n, 1);
	assert_int_equal(pts.p[0].idle_ns, 990 * US);
	ir_state_free(s);
}

/* 101 is woken onto CPU 0 `ago` before 100 blocks and runs next; if own_ago,
 * 100 itself emitted an event that long before the switch; if probe_ago, a
 * newidle probe by 100 entered that long before it.  Returns the number of
 * points and their kind. */
static int late_case(uint64_t ago, uint64_t own_ago, uint64_t probe_ago, enum ir_point_kind *kind)
{
	struct pts pts;
	struct ir_state_params p;
	struct ir_state *s;
	uint64_t c = T0 + 5 * MS;
	int n;

	ir_state_params_default(&p);
	p.probe_seed = probe_ago != 0;
	s = mk(2, &p, NULL, &pts);
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 500);
	if (probe_ago && probe_ago > ago)
		probe_in(s, c - probe_ago, 0, 100, 0, 1);
	wake(s, c - ago, 1, 500, 101, 0);
	if (probe_ago && probe_ago <= ago)
		probe_in(s, c - probe_ago, 0, 100, 0, 1);
	if (own_ago)
		other(s, c - own_ago, 0, 100);
	if (probe_ago)
		probe_out(s, c - 1 * US, 0, 100, 1);
	sw(s, c, 0, 100, S_SLEEP, 101);
	ir_state_finish(s, c + 1 * MS);
	n = pts.n;
	if (n)
		*kind = pts.p[0].kind;
	if (n)
		assert_int_equal(pts.p[0].idle_ns, 0);
	ir_state_free(s);
	return n;
}

/* SPEC 9: __schedule() holds the rq lock from deactivate_task(prev) through
 * pick_next_task(), so a task queued before the blocking switch was there
 * when newidle would have run: no point, however close to the switch.  Only
 * an arrival inside a probed call's lock drop makes one (returning > 0). */
static void test_no_late_arrival(void **state)
{
	enum ir_point_kind k = IR_PT_IDLE;

	(void)state;
	assert_int_equal(late_case(1 * US, 0, 0, &k), 0);
	assert_int_equal(late_case(50 * US, 0, 0, &k), 0);
	assert_int_equal(late_case(50 * US, 80 * US, 0, &k), 0);
	assert_int_equal(late_case(200 * US, 0, 0, &k), 0);
	/* probed: the call entered 100 us before the switch, 101 arrived 50 us
	 * before it, inside the call: a point, and 101 ran instead */
	assert_int_equal(late_case(50 * US, 0, 100 * US, &k), 1);
	assert_int_equal(k, IR_PT_LATE);
}

/* A probed call is one whose entry came after prev's switch-in, in the
 * trace's order: an entry stamped with the very ns of the switch-in (a
 * coarse trace clock; the events are read in order) belongs to this run of
 * 100, so 101's arrival inside the call makes a late point, as in
 * test_no_late_arrival's probed case. */
static void test_probe_at_switch_in(void **state)
{
	struct pts pts;
	struct ir_state_params p;
	struct ir_state *s;

	(void)state;
	ir_state_params_default(&p);
	p.probe_seed = 1;
	s = mk(2, &p, NULL, &pts);
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 500);
	probe_in(s, T0, 0, 100, 0, 1);
	wake(s, T0 + 50 * US, 1, 500, 101, 0);
	probe_out(s, T0 + 99 * US, 0, 100, 1);
	sw(s, T0 + 100 * US, 0, 100, S_SLEEP, 101);
	ir_state_finish(s, T0 + 1 * MS);
	assert_int_equal(pts.n, 1);
	assert_int_equal(pts.p[0].kind, IR_PT_LATE);
	ir_state_free(s);
}

/* Probed mode: the idle task re-entering newidle balance (no switch) is a
 * point of its own and re-stamps idle_stamp; without probes nothing shows it. */
static void test_reentry_point(void **state)
{
	for (int probed = 0; probed < 2; probed++) {
		struct pts pts;
		struct ir_state_params p;
		struct ir_state *s;
		uint64_t b = T0 + 100 * US, r = b + 200 * US;

		(void)state;
		ir_state_params_default(&p);
		p.probe_seed = probed;
		s = mk(1, &p, NULL, &pts);
		sw(s, T0, 0, 0, S_RUN, 100);
		sw(s, b, 0, 100, S_SLEEP, 0);		/* point 1, idle_stamp b */
		probe_in(s, r, 0, 0, 0, 0);		/* the idle task re-enters */
		probe_out(s, r + 10 * US, 0, 0, 0);
		wake(s, r + 500 * US, 0, 0, 100, 0);	/* samples from r (probed) or b */
		sw(s, r + 501 * US, 0, 0, S_RUN, 100);
		ir_state_finish(s, r + 1 * MS);
		assert_int_equal(pts.n, probed ? 2 : 1);
		assert_int_equal(ir_state_observed(s)->probe_only_points, probed ? 1 : 0);
		if (probed) {
			assert_int_equal(pts.p[1].ts, r);
			assert_int_equal(pts.p[1].kind, IR_PT_IDLE);
			assert_int_equal(pts.p[0].idle_ns, 200 * US);	/* until the re-entry */
			/* avg_idle 1 ms + (500 us - 1 ms) / 8 */
			assert_int_equal(ir_state_avg_idle(s, 0), 1000000 - 500000 / 8);
		} else {
			/* from b: 700 us */
			assert_int_equal(ir_state_avg_idle(s, 0), 1000000 - 300000 / 8);
		}
		ir_state_free(s);
	}
}

/* CPU 1 runs 200 with 201 waiting; CPU 0's 100 blocks at b.  CPU 0 leaves
 * idle at b + idle, 201 runs at b + wait. */
static struct ir_point flat_case(uint64_t idle, uint64_t wait)
{
	struct pts pts;
	struct ir_state *s = mk(2, NULL, NULL, &pts);
	uint64_t b = T0 + 1 * MS;
	struct ir_point pt;

	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 200);
	wake(s, T0 + 1 * US, 1, 200, 201, 1);
	sw(s, b, 0, 100, S_SLEEP, 0);
	for (int i = 0; i < 2; i++) {
		if ((i == 0) == (idle < wait)) {
			wake(s, b + idle - 1 * US, 0, 0, 100, 0);
			sw(s, b + idle, 0, 0, S_RUN, 100);
		} else {
			sw(s, b + wait, 1, 200, S_SLEEP, 201);
		}
	}
	ir_state_finish(s, b + 10 * MS);
	assert_int_equal(pts.n, 1);
	pt = pts.p[0];
	ir_state_free(s);
	return pt;
}

static void test_ring_flat_gain(void **state)
{
	struct ir_point pt;

	(void)state;
	pt = flat_case(81 * US, 30 * US);
	assert_int_equal(pt.kind, IR_PT_IDLE);
	assert_int_equal(pt.nr_levels, 1);
	assert_int_equal(pt.ring[0].pid, 201);
	assert_int_equal(pt.ring[0].cpu, 1);
	assert_int_equal(pt.ring[0].src_nr_running, 2);
	assert_int_equal(pt.idle_ns, 81 * US);
	assert_int_equal(pt.ring[0].gain_ns, 30 * US);
	pt = flat_case(20 * US, 50 * US);
	assert_int_equal(pt.idle_ns, 20 * US);
	assert_int_equal(pt.ring[0].gain_ns, 20 * US);
	assert_int_equal(pt.ring[0].pid, 201);
}

/* 4 CPUs, pairs {0,1} {2,3} at level 0, all four at level 1. */
static const uint8_t ring2[16] = {
	0, 0, 1, 1,
	0, 0, 1, 1,
	1, 1, 0, 0,
	1, 1, 0, 0,
};
static const uint8_t nlev2[4] = { 2, 2, 2, 2 };

static void test_ring_two_levels(void **state)
{
	struct ir_rings r = { .nr_cpus = 4, .ring = ring2, .nr_levels = nlev2 };
	struct pts pts;
	struct ir_state *s = mk(4, NULL, &r, &pts);
	uint64_t b = T0 + 1 * MS;

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 210);
	other(s, T0, 2, 220);
	other(s, T0, 3, 230);
	wake(s, T0 + 1 * US, 1, 210, 211, 1);
	wake(s, T0 + 2 * US, 2, 220, 221, 2);
	wake(s, T0 + 3 * US, 3, 230, 231, 3);		/* oldest on the busiest CPU */
	wake(s, T0 + 4 * US, 3, 230, 232, 3);
	sw(s, b, 0, 100, S_SLEEP, 0);
	sw(s, b + 10 * US, 3, 230, S_SLEEP, 231);
	sw(s, b + 20 * US, 1, 210, S_SLEEP, 211);
	ir_state_finish(s, b + 100 * US);
	assert_int_equal(pts.n, 1);
	assert_int_equal(pts.p[0].nr_levels, 2);
	assert_int_equal(pts.p[0].ring[0].pid, 211);
	assert_int_equal(pts.p[0].ring[0].cpu, 1);
	assert_int_equal(pts.p[0].ring[0].src_nr_running, 2);
	assert_int_equal(pts.p[0].ring[0].gain_ns, 20 * US);
	assert_int_equal(pts.p[0].ring[1].pid, 231);
	assert_int_equal(pts.p[0].ring[1].cpu, 3);
	assert_int_equal(pts.p[0].ring[1].src_nr_running, 3);
	assert_int_equal(pts.p[0].ring[1].gain_ns, 10 * US);
	assert_int_equal(pts.p[0].idle_ns, 100 * US);
	ir_state_free(s);
}

/*
 * 201 (comm) waits on CPU 1 when CPU 0 goes idle at T0 + 1 ms.  If
 * ran_at, it ran on CPU 1 until then (so its comm is known from the switch
 * and it may be cache hot); otherwise it is only known from its wakeup.
 */
static int32_t cand_case(const char *comm, int prio, uint64_t ran_at)
{
	struct pts pts;
	struct ir_state *s = mk(2, NULL, NULL, &pts);
	uint64_t b = T0 + 1 * MS;
	int32_t pid;

	sw(s, T0, 0, 0, S_RUN, 100);
	if (ran_at) {
		other(s, T0, 1, 200);
		swc(s, T0 + 1 * US, 1, 200, "task", S_PRE, 201, comm);
		swc(s, ran_at, 1, 201, comm, S_PRE, 200, "task");
	} else {
		other(s, T0, 1, 200);
		wakec(s, IR_EV_WAKEUP, T0 + 1 * US, 1, 200, 201, prio, 1, comm);
	}
	assert_int_equal(ir_state_nr_running(s, 1), 2);
	sw(s, b, 0, 100, S_SLEEP, 0);
	ir_state_finish(s, b + 1 * MS);
	assert_int_equal(pts.n, 1);
	pid = pts.p[0].ring[0].pid;
	ir_state_free(s);
	return pid;
}

/* 201 (comm) is first seen as the preempted prev of CPU 1's first switch,
 * long before CPU 0 goes idle: its comm is known from that switch only. */
static int32_t cand_prev_only(const char *comm)
{
	struct pts pts;
	struct ir_state *s = mk(2, NULL, NULL, &pts);
	uint64_t b = T0 + 1 * MS;
	int32_t pid;

	sw(s, T0, 0, 0, S_RUN, 100);
	swc(s, T0 + 1 * US, 1, 201, comm, S_PRE, 200, "task");
	assert_int_equal(ir_state_nr_running(s, 1), 2);
	sw(s, b, 0, 100, S_SLEEP, 0);
	ir_state_finish(s, b + 1 * MS);
	assert_int_equal(pts.n, 1);
	pid = pts.p[0].ring[0].pid;
	ir_state_free(s);
	return pid;
}

static void test_not_candidates(void **state)
{
	uint64_t b = T0 + 1 * MS;

	(void)state;
	/* controls: an ordinary task is a candidate either way */
	assert_int_equal(cand_case("task", 120, 0), 201);
	assert_int_equal(cand_case("task", 120, b - 600 * US), 201);
	/* pinned per-CPU kthreads */
	assert_int_equal(cand_case("ksoftirqd/1", 120, b - 600 * US), -1);
	assert_int_equal(cand_case("ksoftirqd/1", 120, 0), -1);
	assert_int_equal(cand_case("kworker/1:2", 120, 0), -1);
	/* known only as a switch's prev: still pinned */
	assert_int_equal(cand_prev_only("kworker/1:2"), -1);
	assert_int_equal(cand_prev_only("task"), 201);
	/* an unbound kworker is not pinned */
	assert_int_equal(cand_case("kworker/u8:1", 120, 0), 201);
	/* cache hot: ran less than sched_migration_cost (500 us) before */
	assert_int_equal(cand_case("task", 120, b - 100 * US), -1);
	assert_int_equal(cand_case("task", 120, b - 500 * US), 201);
	/* RT tasks are not CFS pulls: prio 0-99 is RT/DL (MAX_RT_PRIO 100),
	 * 100 is a CFS task at nice -20 */
	assert_int_equal(cand_case("task", 50, 0), -1);
	assert_int_equal(cand_case("task", 99, 0), -1);
	assert_int_equal(cand_case("task", 100, 0), 201);
}

/* Observed pull: CPU 0 pulls 201 from CPU 1; the point lasts until CPU 1
 * next switches (when 201 would have run there). */
static void test_pulled_point(void **state)
{
	struct pts pts;
	struct ir_state *s = mk(2, NULL, NULL, &pts);
	uint64_t c = T0 + 1 * MS;

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 200);
	wake(s, T0 + 1 * US, 1, 200, 201, 1);
	mig(s, c, 0, 100, 201, 1, 0);
	sw(s, c + 5 * US, 0, 100, S_SLEEP, 201);
	assert_int_equal(pts.n, 0);
	sw(s, c + 45 * US, 1, 200, S_SLEEP, 0);
	assert_int_equal(pts.n, 1);
	assert_int_equal(pts.p[0].kind, IR_PT_PULLED);
	assert_int_equal(pts.p[0].ts, c + 5 * US);
	assert_int_equal(pts.p[0].pulled_pid, 201);
	assert_int_equal(pts.p[0].pulled_from, 1);
	assert_int_equal(pts.p[0].idle_ns, 40 * US);
	assert_int_equal(pts.p[0].ring[0].pid, 201);
	assert_int_equal(pts.p[0].ring[0].cpu, 1);
	assert_int_equal(pts.p[0].ring[0].gain_ns, 40 * US);
	/* the source as load_balance() saw it, before the pull: 200 running,
	 * 201 queued (the migrate event has already dequeued 201) */
	assert_int_equal(pts.p[0].ring[0].src_nr_running, 2);
	assert_int_equal(ir_state_curr(s, 0), 201);
	ir_state_finish(s, c + 100 * US);
	/* and CPU 1's own block with an empty queue is an IDLE point */
	assert_int_equal(pts.n, 2);
	assert_int_equal(pts.p[1].cpu, 1);
	assert_int_equal(pts.p[1].kind, IR_PT_IDLE);
	assert_int_equal(pts.p[1].idle_ns, 55 * US);
	ir_state_free(s);
}

/* pick_next_task() takes the idle task only with nothing runnable: a task
 * still queued in our state (its switch-in lost) is dropped and counted,
 * and the block to idle is an IDLE point; the next block, with the queue
 * now empty, is one too; a switch to a task not pulled is none. */
static void test_switch_to_idle_empties_queue(void **state)
{
	struct pts pts;
	struct ir_state *s = mk(2, NULL, NULL, &pts);
	uint64_t b = T0 + 100 * US;
	uint64_t want[IR_ANOM__COUNT] = { 0 };

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 200);
	wake(s, b, 1, 200, 101, 0);			/* 101 queued on CPU 0 ... */
	wake(s, b + 10 * US, 1, 200, 102, 0);		/* ... and 102 */
	sw(s, b + 50 * US, 0, 100, S_SLEEP, 0);		/* yet CPU 0 goes idle */
	want[IR_ANOM_QUEUED_NOT_PICKED] = 2;
	expect_anoms(s, want);
	wake(s, b + 200 * US, 0, 0, 100, 0);
	sw(s, b + 201 * US, 0, 0, S_RUN, 100);
	sw(s, b + 300 * US, 0, 100, S_SLEEP, 0);
	/* no probes: a task switched in that CPU 0 did not pull was queued when
	 * pick_next_task() ran, its arrival unseen (a wake-list wakeup whose
	 * sched_wakeup this machine kind's CPU 1 loses): no point of any kind */
	waking(s, b + 400 * US, 1, 200, 101, 0);
	sw(s, b + 410 * US, 0, 0, S_RUN, 100);
	sw(s, b + 500 * US, 0, 100, S_SLEEP, 101);
	ir_state_finish(s, b + 1 * MS);
	assert_int_equal(pts.n, 2);
	assert_int_equal(ir_state_observed(s)->newidle_points, 2);
	assert_int_equal(pts.p[0].kind, IR_PT_IDLE);
	assert_int_equal(pts.p[0].ts, b + 50 * US);
	assert_int_equal(pts.p[1].kind, IR_PT_IDLE);
	assert_int_equal(pts.p[1].ts, b + 300 * US);
	want[IR_ANOM_NEXT_NOT_RUNNABLE] = 1;		/* 101, its wakeup unseen */
	expect_anoms(s, want);
	ir_state_free(s);
}

/* The point carries avg_idle and overload as they were at entry. */
static void test_point_state(void **state)
{
	struct pts pts;
	struct ir_state *s = mk(2, NULL, NULL, &pts);
	uint64_t b = T0 + 100 * US;

	(void)state;
	sw(s, T0, 0, 0, S_RUN, 100);
	other(s, T0, 1, 200);
	sw(s, b, 0, 100, S_SLEEP, 0);
	wake(s, b + 200 * US, 0, 0, 100, 0);		/* avg 900000 */
	sw(s, b + 201 * US, 0, 0, S_RUN, 100);
	wake(s, b + 300 * US, 1, 200, 201, 1);		/* CPU 1 at 2: overload */
	sw(s, b + 400 * US, 0, 100, S_SLEEP, 0);
	ir_state_finish(s, b + 500 * US);
	assert_int_equal(pts.n, 2);
	assert_int_equal(pts.p[1].avg_idle, 900000);
	assert_true(pts.p[1].overload);
	assert_false(pts.p[0].overload);
	ir_state_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_point),
		cmocka_unit_test(test_point_resolved_at_finish),
		cmocka_unit_test(test_no_late_arrival),
		cmocka_unit_test(test_probe_at_switch_in),
		cmocka_unit_test(test_reentry_point),
		cmocka_unit_test(test_ring_flat_gain),
		cmocka_unit_test(test_ring_two_levels),
		cmocka_unit_test(test_not_candidates),
		cmocka_unit_test(test_pulled_point),
		cmocka_unit_test(test_point_state),
		cmocka_unit_test(test_switch_to_idle_empties_queue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

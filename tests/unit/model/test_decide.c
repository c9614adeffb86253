/* SPDX-License-Identifier: GPL-2.0-only */
/* Decisions, outcomes and the learning policies, with exact numbers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/cpumask.h"
#include "model/model.h"

#define US 1000ull

/* SMT / MC / NUMA, as on the vm-numa guest */
static struct ir_decision_ctx ctx3(uint64_t avg_idle, bool overload)
{
	struct ir_decision_ctx c = {
		.cpu = 0, .now = 1000, .avg_idle = avg_idle, .overload = overload, .nr_levels = 3,
		.kind = { IR_LVL_SMT, IR_LVL_MC, IR_LVL_NUMA },
	};
	return c;
}

static struct ir_decision decide(const char *policy, const struct ir_decision_ctx *c)
{
	struct ir_policy_params p;
	struct ir_decision d;

	assert_int_equal(ir_policy_parse(policy, &p, NULL, 0), 0);
	ir_decide(c, &p, NULL, &d);
	return d;
}

static void expect_tried(const struct ir_decision *d, int n, const int *levels, int stop)
{
	assert_int_equal(d->bail, IR_BAIL_NONE);
	assert_int_equal(d->nr_tried, n);
	for (int i = 0; i < n; i++)
		assert_int_equal(d->tried[i], levels[i]);
	assert_int_equal(d->stop_level, stop);
}

/* The scenario: avg_idle 300 us, overload set. */
static void test_scenario_300us(void **state)
{
	struct ir_decision_ctx c = ctx3(300 * US, true);
	struct ir_decision d;
	static const int all[3] = { 0, 1, 2 };

	(void)state;
	d = decide("baseline", &c);
	assert_int_equal(d.bail, IR_BAIL_MIGRATION_COST);
	assert_int_equal(d.nr_tried, 0);
	d = decide("no-check", &c);
	expect_tried(&d, 3, all, -1);
	assert_int_equal(d.cost[0], 5 * US);
	assert_int_equal(d.cost[1], 20 * US);
	assert_int_equal(d.cost[2], 100 * US);
	assert_int_equal(d.kind[2], IR_LVL_NUMA);
	/* cover: SMT 300 >= 0+5+0; MC 300 >= 5+20+50; NUMA 300 < 25+100+500 */
	d = decide("domain-cost:preset=cover", &c);
	expect_tried(&d, 2, all, 2);
	/* re-tested default: MC 300 < 5+20+500 */
	d = decide("domain-cost", &c);
	expect_tried(&d, 1, all, 1);
	d = decide("mainline", &c);
	expect_tried(&d, 3, all, -1);
	d = decide("bump", &c);
	expect_tried(&d, 3, all, -1);
}

static void test_bails(void **state)
{
	struct ir_decision_ctx c = ctx3(300 * US, false);
	static const char *const all[] = { "baseline", "domain-cost", "no-check", "mainline", "bump", "proportional" };
	static const int lv[3] = { 0, 1, 2 };
	struct ir_decision d;

	(void)state;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		d = decide(all[i], &c);
		assert_int_equal(d.bail, IR_BAIL_NOT_OVERLOADED);
		assert_int_equal(d.stop_level, -1);
	}
	c = ctx3(4 * US, true);
	d = decide("mainline", &c);
	assert_int_equal(d.bail, IR_BAIL_LOWEST_COST);
	d = decide("no-check", &c);
	expect_tried(&d, 0, lv, 0);
	/* baseline past the bail: 600 >= 5, 25, 125 */
	c = ctx3(600 * US, true);
	d = decide("baseline", &c);
	expect_tried(&d, 3, lv, -1);
	/* sysctl 0: NUMA stops at 100 < 25 + 100 */
	c = ctx3(100 * US, true);
	d = decide("baseline:sysctl_sched_migration_cost=0", &c);
	expect_tried(&d, 2, lv, 2);
}

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static struct ir_decision_ctx random_ctx(uint64_t *s)
{
	struct ir_decision_ctx c = { .cpu = (int32_t)(rnd(s) % 4), .now = rnd(s) };
	int kind = 0;

	c.avg_idle = rnd(s) % (2000 * US);
	c.overload = rnd(s) % 4 != 0;
	c.nr_levels = 1 + (int)(rnd(s) % 4);
	for (int l = 0; l < c.nr_levels; l++) {
		kind += (int)(rnd(s) % 2);
		c.kind[l] = (enum ir_level_kind)(kind < IR_LVL__COUNT ? kind : IR_LVL_NUMA);
		kind++;
	}
	return c;
}

static void random_costs(struct ir_policy_params *p, uint64_t *s)
{
	for (int l = 0; l < IR_LVL__COUNT; l++)
		p->max_newidle_lb_cost[l] = rnd(s) % (400 * US);
}

static void test_invariants(void **state)
{
	uint64_t s = 12345;
	int differ_sysctl = 0, differ_cost = 0;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		struct ir_decision_ctx c = random_ctx(&s);
		struct ir_policy_params base, nocheck, dc;
		struct ir_decision a, b;

		ir_policy_defaults(IR_POL_BASELINE, &base);
		random_costs(&base, &s);
		nocheck = base;
		nocheck.kind = IR_POL_NO_CHECK;
		dc = base;
		dc.kind = IR_POL_DOMAIN_COST;
		ir_decide(&c, &nocheck, NULL, &b);
		/* with the default sysctl they do differ sometimes */
		ir_decide(&c, &base, NULL, &a);
		differ_sysctl += memcmp(&a, &b, sizeof(a)) != 0;
		base.sysctl_sched_migration_cost = 0;
		ir_decide(&c, &base, NULL, &a);
		assert_memory_equal(&a, &b, sizeof(a));
		ir_decide(&c, &dc, NULL, &a);
		differ_cost += memcmp(&a, &b, sizeof(a)) != 0;
		memset(dc.sd_migration_cost, 0, sizeof(dc.sd_migration_cost));
		ir_decide(&c, &dc, NULL, &a);
		assert_memory_equal(&a, &b, sizeof(a));
	}
	assert_true(differ_sysctl > 1000);
	assert_true(differ_cost > 1000);
}

/* Candidates: none in ring 0, pid 10 one ring out, pid 20 two rings out. */
static struct ir_point point3(void)
{
	struct ir_point pt = { .ts = 1000, .cpu = 0, .avg_idle = 300 * US, .overload = true, .nr_levels = 3 };

	pt.ring[0] = (struct ir_cand){ .pid = -1, .cpu = -1 };
	pt.ring[1] = (struct ir_cand){ .pid = 10, .cpu = 2, .src_nr_running = 2, .gain_ns = 40000 };
	pt.ring[2] = (struct ir_cand){ .pid = 20, .cpu = 5, .src_nr_running = 3, .gain_ns = 90000 };
	return pt;
}

static void test_outcome(void **state)
{
	struct ir_point pt = point3();
	struct ir_decision_ctx c;
	struct ir_decision d;
	struct ir_outcome o;

	(void)state;
	ir_decision_ctx_init(&c, &pt, NULL);
	c.kind[0] = IR_LVL_SMT;
	c.kind[1] = IR_LVL_MC;
	c.kind[2] = IR_LVL_NUMA;
	d = decide("no-check", &c);
	ir_outcome(&pt, &d, &o);
	assert_true(o.pulled);
	assert_int_equal(o.level, 1);
	assert_int_equal(o.level_kind, IR_LVL_MC);
	assert_int_equal(o.pid, 10);
	assert_int_equal(o.from_cpu, 2);
	assert_int_equal(o.attempts, 2);
	assert_int_equal(o.cost_ns, 25 * US);
	assert_int_equal(o.attempt_cost[1], 20 * US);
	assert_int_equal(o.attempt_cost[2], 0);
	assert_int_equal(o.idle_recovered_ns, 40000);
	assert_int_equal(o.idle_lost_ns, 0);
	/* domain-cost tries SMT only: nothing pulled, the nearest task is lost */
	d = decide("domain-cost", &c);
	ir_outcome(&pt, &d, &o);
	assert_false(o.pulled);
	assert_int_equal(o.level, -1);
	assert_int_equal(o.pid, -1);
	assert_int_equal(o.attempts, 1);
	assert_int_equal(o.cost_ns, 5 * US);
	assert_int_equal(o.idle_lost_ns, 40000);
	/* a level that holds two rings pulls from the busier one */
	pt.ring[1].pid = -1;
	pt.ring[0] = (struct ir_cand){ .pid = 7, .cpu = 1, .src_nr_running = 2, .gain_ns = 1000 };
	d.nr_tried = 1;
	d.tried[0] = 2;
	d.kind[0] = IR_LVL_NUMA;
	d.cost[0] = 100 * US;
	ir_outcome(&pt, &d, &o);
	assert_int_equal(o.pid, 20);
	assert_int_equal(o.level, 2);
	assert_int_equal(o.idle_recovered_ns, 90000);
	/* bail: nothing tried, nothing pulled, the nearest one lost */
	d = decide("baseline", &c);
	ir_outcome(&pt, &d, &o);
	assert_int_equal(o.attempts, 0);
	assert_int_equal(o.idle_lost_ns, 1000);
	/* a CPU with one level: rings beyond it are not its candidates */
	pt.nr_levels = 1;
	pt.ring[0].pid = -1;
	pt.ring[1] = (struct ir_cand){ .pid = 10, .cpu = 2, .src_nr_running = 2, .gain_ns = 40000 };
	ir_outcome(&pt, &d, &o);
	assert_int_equal(o.idle_lost_ns, 0);
	/* nor can a walk over more levels than the point has pull from them */
	d = decide("no-check", &c);
	assert_int_equal(d.nr_tried, 3);
	ir_outcome(&pt, &d, &o);
	assert_false(o.pulled);
}

/* NI_RANDOM: a success at a level counts (1024 + w / 2) / w with
 * w = 1 + sd->newidle_ratio (33cf66d88306): 1024/3 = 341.33 -> 341,
 * 1024/23 = 44.52 -> 45, 1024/1 = 1024. */
static void test_proportional_weight(void **state)
{
	static const struct { uint32_t ratio, weight; } want[] = { { 2, 341 }, { 22, 45 }, { 0, 1024 }, { 1023, 1 } };
	struct ir_policy_params p;
	struct ir_policy_state st;
	struct ir_decision_ctx c = { .cpu = 0, .avg_idle = 1000 * US, .overload = true, .nr_levels = 1,
				     .kind = { IR_LVL_MC } };
	struct ir_decision d = { .bail = IR_BAIL_NONE, .nr_tried = 1, .tried = { 0 }, .kind = { IR_LVL_MC },
				 .cost = { 1000 }, .stop_level = -1 };
	struct ir_outcome o = { .pulled = true, .level = 0, .level_kind = IR_LVL_MC };

	(void)state;
	assert_int_equal(ir_policy_parse("proportional:seed=3", &p, NULL, 0), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint32_t before;

		assert_int_equal(ir_policy_state_init(&st, &p, 1), 0);
		st.newidle_ratio[0] = want[i].ratio;
		before = st.newidle_success[0];
		ir_policy_update(&c, &p, &d, &o, &st);
		assert_int_equal(st.newidle_success[0] - before, want[i].weight);
		ir_policy_state_free(&st);
	}
	/* NO_NI_RANDOM: every success counts 1, whatever the ratio */
	p.ni_random = 0;
	assert_int_equal(ir_policy_state_init(&st, &p, 1), 0);
	st.newidle_ratio[0] = 22;
	{
		uint32_t s0 = st.newidle_success[0], c0 = st.newidle_call[0];

		ir_policy_update(&c, &p, &d, &o, &st);
		assert_int_equal(st.newidle_success[0] - s0, 1);
		assert_int_equal(st.newidle_call[0] - c0, 1);
	}
	ir_policy_state_free(&st);
}

static uint32_t splitmix(uint64_t *x);

/* Without a state, or for a CPU the state does not cover, a level's
 * newidle_ratio is sd_init()'s initial 512 (33cf66d88306): a first die of
 * exactly 1 + 512 = 513 still balances the level, 514 skips it. */
static void test_proportional_initial_ratio(void **state)
{
	struct ir_policy_params p;
	struct ir_policy_state st;
	struct ir_decision_ctx c = ctx3(10000 * US, true);
	char arg[64];

	(void)state;
	for (uint32_t die = 513; die <= 514; die++) {
		uint64_t seed = 0, x;

		do {	/* the first seed whose first die is `die` */
			x = ++seed;
		} while (splitmix(&x) % 1024 != die);
		snprintf(arg, sizeof(arg), "proportional:seed=%llu", (unsigned long long)seed);
		assert_int_equal(ir_policy_parse(arg, &p, NULL, 0), 0);
		for (int with_state = 0; with_state < 2; with_state++) {
			struct ir_decision d;

			assert_int_equal(ir_policy_state_init(&st, &p, 1), 0);
			c.cpu = with_state ? 7 : 0;	/* CPU 7: beyond the state's one CPU */
			ir_decide(&c, &p, with_state ? &st : NULL, &d);
			if (die == 513)
				assert_true(d.nr_tried >= 1 && d.tried[0] == 0);
			else
				assert_true(d.nr_skipped >= 1 && d.skipped[0] == 0);
			ir_policy_state_free(&st);
		}
	}
}

/* A walk stopped by the cost check before its first level reached no
 * level: proportional throws no die and counts no call. */
static void test_proportional_stop_at_first(void **state)
{
	struct ir_policy_params p;
	struct ir_policy_state st;
	struct ir_decision_ctx c = { .cpu = 0, .avg_idle = 1000 * US, .overload = true, .nr_levels = 2,
				     .kind = { IR_LVL_SMT, IR_LVL_MC } };
	struct ir_point pt = { .cpu = 0, .nr_levels = 2, .ring = { { .pid = -1 }, { .pid = -1 } } };
	struct ir_decision d = { .bail = IR_BAIL_NONE, .nr_tried = 0, .stop_level = 0 };
	struct ir_outcome o;
	uint64_t rng;
	uint32_t call0, call1;

	(void)state;
	assert_int_equal(ir_policy_parse("proportional:seed=3", &p, NULL, 0), 0);
	assert_int_equal(ir_policy_state_init(&st, &p, 1), 0);
	rng = st.rng;
	call0 = st.newidle_call[0];
	call1 = st.newidle_call[1];
	ir_outcome(&pt, &d, &o);
	ir_policy_update(&c, &p, &d, &o, &st);
	assert_true(st.rng == rng);
	assert_int_equal(st.newidle_call[0], call0);
	assert_int_equal(st.newidle_call[1], call1);
	/* a bail (here !overload) walks no level either, whatever stop_level says */
	d.bail = IR_BAIL_NOT_OVERLOADED;
	d.stop_level = -1;
	ir_policy_update(&c, &p, &d, &o, &st);
	assert_true(st.rng == rng);
	assert_int_equal(st.newidle_call[0], call0);
	d.bail = IR_BAIL_NONE;
	d.stop_level = 0;
	/* stopped before the second level: one die, one call at the first */
	d.stop_level = 1;
	ir_policy_update(&c, &p, &d, &o, &st);
	assert_true(st.rng != rng);
	assert_int_equal(st.newidle_call[0], call0 + 1);
	assert_int_equal(st.newidle_call[1], call1);
	ir_policy_state_free(&st);
}

/* Along a sweep of one cost, pulls never increase. */
static void test_sweep_monotone(void **state)
{
	static const char *const sweeps[][2] = {
		{ "domain-cost", "mc.migration_cost" }, { "domain-cost", "numa.migration_cost" },
		{ "baseline", "sysctl_sched_migration_cost" }, { "no-check", "mc.max_newidle_lb_cost" },
		{ "mainline", "smt.max_newidle_lb_cost" },
	};
	struct ir_point pts[300];
	uint64_t s = 99;

	(void)state;
	for (int i = 0; i < 300; i++) {
		pts[i] = point3();
		pts[i].avg_idle = rnd(&s) % (1500 * US);
		pts[i].overload = rnd(&s) % 5 != 0;
		for (int r = 0; r < 3; r++) {
			pts[i].ring[r].pid = rnd(&s) % 3 ? -1 : 100 + r;
			pts[i].ring[r].src_nr_running = 2 + (uint32_t)(rnd(&s) % 3);
		}
	}
	for (size_t w = 0; w < sizeof(sweeps) / sizeof(sweeps[0]); w++) {
		uint64_t prev = UINT64_MAX, first = 0, pulls = 0;

		for (uint64_t v = 0; v <= 1500 * US; v += 50 * US) {
			struct ir_policy_params p;

			assert_int_equal(ir_policy_parse(sweeps[w][0], &p, NULL, 0), 0);
			assert_int_equal(ir_policy_set(&p, sweeps[w][1], v, NULL, 0), 0);
			pulls = 0;
			for (int i = 0; i < 300; i++) {
				struct ir_decision_ctx c;
				struct ir_decision d;
				struct ir_outcome o;

				ir_decision_ctx_init(&c, &pts[i], NULL);
				c.kind[0] = IR_LVL_SMT;
				c.kind[1] = IR_LVL_MC;
				c.kind[2] = IR_LVL_NUMA;
				ir_decide(&c, &p, NULL, &d);
				ir_outcome(&pts[i], &d, &o);
				pulls += o.pulled;
			}
			assert_true(pulls <= prev);
			if (prev == UINT64_MAX)
				first = pulls;
			prev = pulls;
		}
		/* the sweep does move the count */
		assert_true(pulls < first);
	}
}

static void run_proportional(uint64_t seed, struct ir_decision *out, int n, struct ir_policy_state *st)
{
	struct ir_policy_params p;
	struct ir_point pt = point3();

	assert_int_equal(ir_policy_parse("proportional", &p, NULL, 0), 0);
	p.seed = seed;
	assert_int_equal(ir_policy_state_init(st, &p, 2), 0);
	pt.avg_idle = 10000 * US;
	for (int i = 0; i < n; i++) {
		struct ir_decision_ctx c;
		struct ir_outcome o;

		pt.ring[1].pid = i % 3 ? -1 : 10;	/* MC pulls one time in three */
		ir_decision_ctx_init(&c, &pt, NULL);
		c.now = (uint64_t)i * 1000;
		ir_decide(&c, &p, st, &out[i]);
		ir_outcome(&pt, &out[i], &o);
		ir_policy_update(&c, &p, &out[i], &o, st);
	}
}

static void test_proportional(void **state)
{
	static struct ir_decision a[3000], b[3000];
	struct ir_policy_state sa, sb;
	int skips = 0;

	(void)state;
	run_proportional(7, a, 3000, &sa);
	run_proportional(7, b, 3000, &sb);
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(sa.rng, sb.rng);
	for (int i = 0; i < 3000; i++)
		skips += a[i].nr_skipped;
	/* ring 0 never pulls: its ratio falls and the die skips it */
	assert_true(sa.newidle_ratio[0] < 64);
	assert_true(skips > 1000);
	ir_policy_state_free(&sb);
	run_proportional(8, b, 3000, &sb);
	assert_memory_not_equal(a, b, sizeof(a));
	ir_policy_state_free(&sa);
	ir_policy_state_free(&sb);
}

/* Exact counters: 512 failing walks of one level halve the ratio once. */
static void test_proportional_counters(void **state)
{
	struct ir_policy_params p;
	struct ir_policy_state st;
	struct ir_decision_ctx c = { .cpu = 1, .avg_idle = 1000 * US, .overload = true, .nr_levels = 1,
				     .kind = { IR_LVL_MC } };
	struct ir_point pt = { .cpu = 1, .nr_levels = 1, .ring = { { .pid = -1 } } };

	(void)state;
	assert_int_equal(ir_policy_parse("proportional:seed=3", &p, NULL, 0), 0);
	assert_int_equal(ir_policy_state_init(&st, &p, 2), 0);
	for (int i = 0; i < 511; i++) {
		struct ir_decision d;
		struct ir_outcome o;

		ir_decide(&c, &p, &st, &d);
		ir_outcome(&pt, &d, &o);
		ir_policy_update(&c, &p, &d, &o, &st);
	}
	assert_int_equal(st.newidle_call[1 * IR_MAX_LEVELS], 1023);
	assert_int_equal(st.newidle_ratio[1 * IR_MAX_LEVELS], 512);
	{
		struct ir_decision d;
		struct ir_outcome o;

		ir_decide(&c, &p, &st, &d);
		ir_outcome(&pt, &d, &o);
		ir_policy_update(&c, &p, &d, &o, &st);
	}
	assert_int_equal(st.newidle_ratio[1 * IR_MAX_LEVELS], 256);
	assert_int_equal(st.newidle_call[1 * IR_MAX_LEVELS], 512);
	assert_int_equal(st.newidle_success[1 * IR_MAX_LEVELS], 128);
	assert_int_equal(st.newidle_call[0], 512);	/* CPU 0 untouched */
	ir_policy_state_free(&st);
}

/* bump: each failure records 3/2 of the max, capped at sysctl + 200; a
 * success a second later lets it decay x253/256. */
static void test_bump(void **state)
{
	static const uint64_t want[] = { 30000, 45000, 67500, 101250, 151875, 227812, 341718, 500200, 500200 };
	struct ir_policy_params p;
	struct ir_policy_state st;
	struct ir_decision_ctx c = { .cpu = 0, .now = 5, .avg_idle = 2000 * US, .overload = true, .nr_levels = 1,
				     .kind = { IR_LVL_MC } };
	struct ir_point pt = { .cpu = 0, .nr_levels = 1, .ring = { { .pid = -1 } } };
	struct ir_decision d;
	struct ir_outcome o;

	(void)state;
	assert_int_equal(ir_policy_parse("bump", &p, NULL, 0), 0);
	assert_int_equal(ir_policy_state_init(&st, &p, 1), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ir_decide(&c, &p, &st, &d);
		assert_int_equal(d.nr_tried, 1);
		assert_int_equal(d.cost[0], 20000);	/* the balance itself costs the same */
		ir_outcome(&pt, &d, &o);
		ir_policy_update(&c, &p, &d, &o, &st);
		assert_int_equal(st.max_newidle_lb_cost[0], want[i]);
	}
	/* priced out: mainline's early bail now triggers at 300 us */
	c.avg_idle = 300 * US;
	ir_decide(&c, &p, &st, &d);
	assert_int_equal(d.bail, IR_BAIL_LOWEST_COST);
	/* a success more than a second later: decay, not a raise */
	c.avg_idle = 2000 * US;
	c.now += 1000000001ull;
	pt.ring[0] = (struct ir_cand){ .pid = 3, .cpu = 1, .src_nr_running = 2, .gain_ns = 5 };
	ir_decide(&c, &p, &st, &d);
	ir_outcome(&pt, &d, &o);
	assert_true(o.pulled);
	ir_policy_update(&c, &p, &d, &o, &st);
	assert_int_equal(st.max_newidle_lb_cost[0], 494338);
	ir_policy_state_free(&st);
	/* update_newidle_cost() raises only on cost > max: a success costing
	 * exactly the max, more than a second after the last decay, decays it
	 * (20000 * 253 / 256) */
	assert_int_equal(ir_policy_state_init(&st, &p, 1), 0);
	c.now = 5;
	ir_decide(&c, &p, &st, &d);
	assert_int_equal(d.cost[0], 20000);
	ir_outcome(&pt, &d, &o);
	assert_true(o.pulled);
	ir_policy_update(&c, &p, &d, &o, &st);
	assert_int_equal(st.max_newidle_lb_cost[0], 20000);
	/* time_after(jiffies, last_decay + HZ): exactly a second later is
	 * not after */
	c.now += 1000000000ull;
	ir_decide(&c, &p, &st, &d);
	ir_outcome(&pt, &d, &o);
	ir_policy_update(&c, &p, &d, &o, &st);
	assert_int_equal(st.max_newidle_lb_cost[0], 20000);
	c.now += 1;
	ir_decide(&c, &p, &st, &d);
	ir_outcome(&pt, &d, &o);
	ir_policy_update(&c, &p, &d, &o, &st);
	assert_int_equal(st.max_newidle_lb_cost[0], 19765);
	/* a CPU the state does not cover learns nothing (and writes nothing) */
	c.cpu = 1;
	c.now += 2000000000ull;
	ir_policy_update(&c, &p, &d, &o, &st);
	assert_int_equal(st.max_newidle_lb_cost[0], 19765);
	c.cpu = 0;
	ir_policy_state_free(&st);
	/* mainline keeps no state: at 300 us the same point never bails, and
	 * tries every level each time, however often it is asked */
	assert_int_equal(ir_policy_parse("mainline", &p, NULL, 0), 0);
	assert_int_equal(ir_policy_state_init(&st, &p, 1), 0);
	c.avg_idle = 300 * US;
	pt.ring[0].pid = -1;
	for (int i = 0; i < 20; i++) {
		ir_decide(&c, &p, &st, &d);
		assert_int_equal(d.bail, IR_BAIL_NONE);
		assert_int_equal(d.nr_tried, 1);
		ir_outcome(&pt, &d, &o);
		ir_policy_update(&c, &p, &d, &o, &st);
	}
	ir_policy_state_free(&st);
}

/* update_newidle_cost() (155213a2aed4): a raise restarts the decay clock
 * ("sd->last_decay_max_lb_cost = jiffies" in the raising branch), so the
 * raised cost decays a full second after the raise, not a second after the
 * previous decay.  Hand-computed: max 20000 (bump's MC default) at 5 ns; a
 * failed walk at 0.6 s raises it to 3/2 of that, 30000; a success at 1.2 s
 * (cost 20000, below the max) is within a second of the raise: no decay;
 * at 1.6 s + 1 ns it decays to 30000 * 253 / 256 = 29648. */
static void test_bump_decay_after_raise(void **state)
{
	struct ir_policy_params p;
	struct ir_policy_state st;
	struct ir_decision_ctx c = { .cpu = 0, .now = 5, .avg_idle = 2000 * US, .overload = true, .nr_levels = 1,
				     .kind = { IR_LVL_MC } };
	struct ir_point pt = { .cpu = 0, .nr_levels = 1,
			       .ring = { { .pid = 3, .cpu = 1, .src_nr_running = 2, .gain_ns = 5 } } };
	static const struct { uint64_t now; bool pulls; uint64_t max; } step[] = {
		{ 5, true, 20000 },
		{ 5 + 600000000ull, false, 30000 },
		{ 5 + 1200000000ull, true, 30000 },
		{ 5 + 1600000000ull, true, 30000 },	/* exactly a second: not after */
		{ 5 + 1600000001ull, true, 29648 },
	};
	struct ir_decision d;
	struct ir_outcome o;

	(void)state;
	assert_int_equal(ir_policy_parse("bump", &p, NULL, 0), 0);
	assert_int_equal(ir_policy_state_init(&st, &p, 1), 0);
	for (size_t i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
		c.now = step[i].now;
		pt.ring[0].pid = step[i].pulls ? 3 : -1;
		ir_decide(&c, &p, &st, &d);
		assert_int_equal(d.bail, IR_BAIL_NONE);
		assert_int_equal(d.cost[0], 20000);
		ir_outcome(&pt, &d, &o);
		assert_int_equal(o.pulled, step[i].pulls);
		ir_policy_update(&c, &p, &d, &o, &st);
		assert_int_equal(st.max_newidle_lb_cost[0], step[i].max);
	}
	assert_int_equal(st.last_decay_max_lb_cost[0], 5 + 1600000001ull);
	ir_policy_state_free(&st);
}

/* ir_evaluate(): every policy decides, is evaluated, and the learning ones
 * learn, in one call per point.  bump's failed walks raise its costs until
 * it bails where mainline, with the same parameters, still tries. */
static void test_evaluate(void **state)
{
	struct ir_policy_run runs[2];
	struct ir_point pt = { .ts = 10, .cpu = 1, .avg_idle = 60 * US, .overload = true, .nr_levels = 1,
			       .ring = { { .pid = -1, .cpu = -1 } } };
	struct ir_decision d[2];
	struct ir_outcome o[2];

	(void)state;
	assert_int_equal(ir_policy_parse("mainline", &runs[0].p, NULL, 0), 0);
	assert_int_equal(ir_policy_parse("bump", &runs[1].p, NULL, 0), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(ir_policy_run_init(&runs[i], 2), 0);
	/* flat (no domains): one MC level at 20 us; 60 us of avg_idle pays
	 * for it until bump has raised it twice: 20, 30, 45, 67.5 */
	for (int i = 0; i < 3; i++) {
		ir_evaluate(&pt, NULL, false, runs, 2, d, o);
		assert_int_equal(d[0].bail, IR_BAIL_NONE);
		assert_int_equal(d[1].bail, IR_BAIL_NONE);
		assert_int_equal(o[1].attempts, 1);
		pt.ts += 10;
	}
	ir_evaluate(&pt, NULL, false, runs, 2, d, o);
	assert_int_equal(d[0].bail, IR_BAIL_NONE);
	assert_int_equal(d[1].bail, IR_BAIL_LOWEST_COST);
	assert_int_equal(runs[1].st.max_newidle_lb_cost[1 * IR_MAX_LEVELS], 67500);
	for (int i = 0; i < 2; i++)
		ir_policy_run_free(&runs[i]);
}

/* A randomised policy's per-seed totals (ir_evaluate()): every seed's
 * walk counted, and ground truth's population, the model's pulls at calls
 * with an exit probe (probe_ret 0: the kernel pulled nothing; 1: it pulled;
 * -1: no exit probe, not counted).  NO_NI_RANDOM: no die, so all three
 * seeds walk alike and each total is worked out here. */
static void test_evaluate_seeds(void **state)
{
	struct ir_policy_run run;
	struct ir_point pt = { .ts = 10, .cpu = 0, .avg_idle = 1000 * US, .overload = true, .nr_levels = 1,
			       .pulled_pid = -1, .pulled_from = -1 };
	const int64_t ret[5] = { 0, 1, -1, 1, 0 };
	const bool has_probe[5] = { true, true, true, false, false };
	struct ir_decision d;
	struct ir_outcome o;

	(void)state;
	assert_int_equal(ir_policy_parse("proportional", &run.p, NULL, 0), 0);
	run.p.ni_random = 0;
	run.p.seeds = 3;
	run.p.max_newidle_lb_cost[IR_LVL_MC] = 20 * US;
	assert_int_equal(ir_policy_run_init(&run, 1), 0);
	assert_int_equal(run.nr_seeds, 3);
	for (int i = 0; i < 5; i++) {
		/* a waiting task on ring 0 except at the last point */
		pt.ring[0] = i < 4 ? (struct ir_cand){ .pid = 7, .cpu = 1, .src_nr_running = 2, .gain_ns = 3000 } :
			(struct ir_cand){ .pid = -1, .cpu = -1 };
		pt.has_probe = has_probe[i];
		pt.probe_ret = ret[i];
		pt.probe = (struct ir_probe_entry){ .avg_idle = 1000 * US, .rd_overload = 1,
			.sd_max_newidle_lb_cost = { 15 * US, -1, -1 }, .sd_newidle_ratio = { -1, -1, -1 } };
		ir_evaluate(&pt, NULL, true, &run, 1, &d, &o);
		pt.ts += 10;
	}
	/* a sixth point: avg_idle 1 us below the probed 15 us cost, so
	 * sched_balance_newidle() bails before the walk; the waiting task
	 * (5 us of idle) is idle lost, in every seed */
	pt.ring[0] = (struct ir_cand){ .pid = 7, .cpu = 1, .src_nr_running = 2, .gain_ns = 5000 };
	pt.avg_idle = 1 * US;
	pt.probe.avg_idle = 1 * US;
	pt.has_probe = false;
	ir_evaluate(&pt, NULL, true, &run, 1, &d, &o);
	assert_int_not_equal(d.bail, IR_BAIL_NONE);
	for (int s = 0; s < 3; s++) {
		const struct ir_seed_totals *t = &run.seed_tot[s];

		assert_int_equal(t->attempts, 5);
		assert_int_equal(t->pulls, 4);
		assert_int_equal(t->moved, 4);
		assert_int_equal(t->cost_ns, 3 * 15 * US + 2 * 20 * US);	/* probed where probed */
		assert_int_equal(t->idle_recovered_ns, 4 * 3000);
		assert_int_equal(t->idle_lost_ns, 5000);
		assert_int_equal(t->level_attempts[IR_LVL_MC], 5);
		assert_int_equal(t->level_pulls[IR_LVL_MC], 4);
		assert_int_equal(t->level_moved[IR_LVL_MC], 4);
		assert_int_equal(t->level_cost_ns[IR_LVL_MC], 85 * US);
		assert_int_equal(t->level_attempts[IR_LVL_SMT], 0);
		assert_int_equal(t->probed_pulls, 2);
		assert_int_equal(t->probed_both, 1);
	}
	ir_policy_run_free(&run);
	assert_null(run.seed_tot);
	/* at most 1024 seeds are replayed (the tally's spread holds 1024) */
	run.p.seeds = 5000;
	assert_int_equal(ir_policy_run_init(&run, 1), 0);
	assert_int_equal(run.nr_seeds, 1024);
	ir_policy_run_free(&run);
	run.p.seeds = 1024;
	assert_int_equal(ir_policy_run_init(&run, 1), 0);
	assert_int_equal(run.nr_seeds, 1024);
	ir_policy_run_free(&run);
}

/* Boundaries: the kernel's tests are strict '<', so a value exactly at the
 * threshold passes (v4.15 idle_balance(): "this_rq->avg_idle <
 * sysctl_sched_migration_cost" bails; "avg_idle < curr_cost +
 * sd->max_newidle_lb_cost" stops the walk). */
static void test_thresholds(void **state)
{
	static const int lv[3] = { 0, 1, 2 };
	struct ir_decision_ctx c = ctx3(500 * US, true);
	struct ir_decision d;

	(void)state;
	d = decide("baseline", &c);
	expect_tried(&d, 3, lv, -1);
	c.avg_idle = 500 * US - 1;
	d = decide("baseline", &c);
	assert_int_equal(d.bail, IR_BAIL_MIGRATION_COST);
	/* the walk: SMT 5 + MC 20 + NUMA 100 = 125 us exactly reaches NUMA */
	c.avg_idle = 125 * US;
	d = decide("no-check", &c);
	expect_tried(&d, 3, lv, -1);
	c.avg_idle = 125 * US - 1;
	d = decide("no-check", &c);
	expect_tried(&d, 2, lv, 2);
	/* mainline's bail: avg_idle < the lowest domain's cost (5 us) */
	c.avg_idle = 5 * US;
	d = decide("mainline", &c);
	assert_int_equal(d.bail, IR_BAIL_NONE);
	c.avg_idle = 5 * US - 1;
	d = decide("mainline", &c);
	assert_int_equal(d.bail, IR_BAIL_LOWEST_COST);
	/* no domains at all (this_rq->sd NULL): v5.16 newidle_balance() tests
	 * "sd && avg_idle < sd->max_newidle_lb_cost": no cost bail */
	c.nr_levels = 0;
	c.avg_idle = 1;
	d = decide("mainline", &c);
	assert_int_equal(d.bail, IR_BAIL_NONE);
	assert_int_equal(d.nr_tried, 0);
	c.nr_levels = 3;
	/* domain-cost adds the level's own cost: SMT 5 + 0, MC 25 + 500 */
	c.avg_idle = 525 * US;
	d = decide("domain-cost", &c);
	assert_int_equal(d.nr_tried, 2);
	c.avg_idle = 525 * US - 1;
	d = decide("domain-cost", &c);
	assert_int_equal(d.nr_tried, 1);
	assert_int_equal(d.stop_level, 1);
}

/* Equally busy candidates on two rings: the nearer one is pulled
 * (find_busiest_group() scans the child groups of the level; the task on
 * the nearer CPU is also in the level's span: our rule is "busiest source
 * rq, then nearest ring"), and the pull counts at the level that tried. */
static void test_equal_candidates(void **state)
{
	struct ir_point pt = point3();
	struct ir_decision d = { .nr_tried = 1, .tried = { 2 }, .kind = { IR_LVL_NUMA },
				 .cost = { 100 * US }, .stop_level = -1 };
	struct ir_outcome o;

	(void)state;
	pt.ring[0] = (struct ir_cand){ .pid = 7, .cpu = 1, .src_nr_running = 3, .gain_ns = 1000 };
	pt.ring[1] = (struct ir_cand){ .pid = 10, .cpu = 2, .src_nr_running = 3, .gain_ns = 40000 };
	pt.ring[2] = (struct ir_cand){ .pid = 20, .cpu = 5, .src_nr_running = 3, .gain_ns = 90000 };
	ir_outcome(&pt, &d, &o);
	assert_true(o.pulled);
	assert_int_equal(o.pid, 7);
	assert_int_equal(o.from_cpu, 1);
	assert_int_equal(o.level, 2);
	assert_int_equal(o.level_kind, IR_LVL_NUMA);
	assert_int_equal(o.idle_recovered_ns, 1000);
	/* one more task on ring 1's CPU: it is busier, it wins */
	pt.ring[1].src_nr_running = 4;
	ir_outcome(&pt, &d, &o);
	assert_int_equal(o.pid, 10);
	assert_int_equal(o.idle_recovered_ns, 40000);
	/* tried SMT (nothing) then MC: pulled at MC, two attempts */
	pt.ring[0].pid = -1;
	d = (struct ir_decision){ .nr_tried = 3, .tried = { 0, 1, 2 },
				  .kind = { IR_LVL_SMT, IR_LVL_MC, IR_LVL_NUMA },
				  .cost = { 5 * US, 20 * US, 100 * US }, .stop_level = -1 };
	ir_outcome(&pt, &d, &o);
	assert_int_equal(o.level, 1);
	assert_int_equal(o.level_kind, IR_LVL_MC);
	assert_int_equal(o.attempts, 2);
	assert_int_equal(o.cost_ns, 25 * US);
	assert_int_equal(o.attempt_cost[0], 5 * US);
}

/* The die of v6.19 33cf66d88306 sched_balance_newidle(), thrown at each
 * level in turn: "d1k = sched_rng() % 1024; if (d1k > (1 + sd->newidle_ratio))
 * continue;" -- a level is balanced when the die is <= 1 + ratio.  The
 * sequence of dice for seed 42 is computed here by its own splitmix64
 * (cpumask.h's generator, written out again), and the ratio is set to the
 * die minus one (balanced: equal) or minus two (skipped: one over). */
static uint32_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static void test_ni_random_dice(void **state)
{
	/* the first dice of seed 42 (worked out separately, in Python) */
	static const uint32_t want[6] = { 550, 819, 855, 511, 90, 506 };
	struct ir_policy_params p;
	struct ir_policy_state st;
	struct ir_decision_ctx c = ctx3(10000 * US, true);
	uint64_t x = 42;

	(void)state;
	assert_int_equal(ir_policy_parse("proportional:seed=42", &p, NULL, 0), 0);
	assert_int_equal(ir_policy_state_init(&st, &p, 1), 0);
	for (int i = 0; i < 6; i++)
		assert_int_equal(splitmix(&x) % 1024, want[i]);
	for (int round = 0; round < 2; round++) {
		struct ir_decision d;
		const uint32_t *die = want + 3 * round;

		/* round 0: SMT equal (balanced), MC one over (skipped), NUMA equal;
		 * round 1: the reverse */
		for (int l = 0; l < 3; l++)
			st.newidle_ratio[l] = die[l] - ((l == 1) == (round == 0) ? 2 : 1);
		ir_decide(&c, &p, &st, &d);
		if (round == 0) {
			assert_int_equal(d.nr_tried, 2);
			assert_int_equal(d.tried[0], 0);
			assert_int_equal(d.tried[1], 2);
			assert_int_equal(d.nr_skipped, 1);
			assert_int_equal(d.skipped[0], 1);
		} else {
			assert_int_equal(d.nr_tried, 1);
			assert_int_equal(d.tried[0], 1);
			assert_int_equal(d.nr_skipped, 2);
			assert_int_equal(d.skipped[0], 0);
			assert_int_equal(d.skipped[1], 2);
		}
		/* the update advances the generator by the dice thrown: 3 */
		{
			struct ir_point pt = point3();
			struct ir_outcome o;

			pt.ring[1].pid = pt.ring[2].pid = -1;
			ir_outcome(&pt, &d, &o);
			ir_policy_update(&c, &p, &d, &o, &st);
		}
	}
	assert_int_equal(st.rng, x);
	ir_policy_state_free(&st);
}

/* A point with the kernel's own per-level costs (a newidle probe): the
 * mainline family's checks and every walk's durations use them where
 * known (-1: the probe lacks the level, the policy's own cost stands), and
 * a walk never costs more than the call the probe measured. */
static void test_probed_costs(void **state)
{
	struct ir_decision_ctx c = ctx3(300 * US, true);
	struct ir_policy_params p;
	struct ir_decision d;

	(void)state;
	c.probed = true;
	for (int l = 0; l < 3; l++)
		c.probe_ratio[l] = -1;
	assert_int_equal(ir_policy_parse("mainline", &p, NULL, 0), 0);
	for (int k = 0; k < IR_LVL__COUNT; k++)
		p.max_newidle_lb_cost[k] = 1 * US;	/* the policy's own: tiny */
	p.max_newidle_lb_cost[IR_LVL_MC] = 100 * US;
	/* 5 us at SMT, then 5 + 400 > 300 at MC: stop there */
	c.probe_cost[0] = 5 * US, c.probe_cost[1] = 400 * US, c.probe_cost[2] = 10 * US;
	ir_decide(&c, &p, NULL, &d);
	expect_tried(&d, 1, (const int[]){ 0 }, 1);
	assert_int_equal(d.cost[0], 5 * US);
	/* the lowest level's probed cost above avg_idle: the 5.16+ bail */
	c.probe_cost[0] = 350 * US;
	ir_decide(&c, &p, NULL, &d);
	assert_int_equal(d.bail, IR_BAIL_LOWEST_COST);
	/* MC unknown to the probe: the policy's 100 us; 5 + 100 + 10 < 300 */
	c.probe_cost[0] = 5 * US, c.probe_cost[1] = -1;
	ir_decide(&c, &p, NULL, &d);
	expect_tried(&d, 3, (const int[]){ 0, 1, 2 }, -1);
	assert_int_equal(d.cost[0], 5 * US);
	assert_int_equal(d.cost[1], 100 * US);
	assert_int_equal(d.cost[2], 10 * US);
	/* a probed cost of 0 is the kernel's value (a domain whose
	 * max_newidle_lb_cost was never raised since sd_init()), not "unknown":
	 * the walk costs 0 there, not the policy's 1 us */
	c.probe_cost[0] = 0;
	ir_decide(&c, &p, NULL, &d);
	expect_tried(&d, 3, (const int[]){ 0, 1, 2 }, -1);
	assert_int_equal(d.cost[0], 0);
	assert_int_equal(d.cost[1], 100 * US);
	c.probe_cost[0] = 5 * US;
	/* the call took 50 us: 5, then the 45 left, then nothing */
	c.probe_dur = 50 * US;
	ir_decide(&c, &p, NULL, &d);
	expect_tried(&d, 3, (const int[]){ 0, 1, 2 }, -1);
	assert_int_equal(d.cost[0], 5 * US);
	assert_int_equal(d.cost[1], 45 * US);
	assert_int_equal(d.cost[2], 0);
	/* not probed: the policy's own costs throughout (1, 100, 1 us) */
	c.probed = false, c.probe_dur = 0;
	c.probe_cost[1] = 400 * US;
	ir_decide(&c, &p, NULL, &d);
	expect_tried(&d, 3, (const int[]){ 0, 1, 2 }, -1);
	assert_int_equal(d.cost[0], 1 * US);
	assert_int_equal(d.cost[1], 100 * US);
}

/* "Stop searching for tasks to pull if there are now runnable tasks on
 * this rq" (v4.15 idle_balance(), v6.1 newidle_balance()): a task queued
 * arrival_ns after entry ends the walk once the levels balanced so far have
 * taken that long; the next level is where it stopped (-1: none left). */
static void test_arrival(void **state)
{
	struct ir_decision_ctx c = ctx3(1000 * US, true);
	struct ir_policy_params p;
	struct ir_decision d;

	(void)state;
	assert_int_equal(ir_policy_parse("no-check", &p, NULL, 0), 0);
	for (int k = 0; k < IR_LVL__COUNT; k++)
		p.max_newidle_lb_cost[k] = 10 * US;
	c.arrival_ns = 15 * US;		/* after SMT (10), during MC (20) */
	ir_decide(&c, &p, NULL, &d);
	expect_tried(&d, 2, (const int[]){ 0, 1 }, 2);
	c.arrival_ns = 20 * US;		/* exactly when MC is done */
	ir_decide(&c, &p, NULL, &d);
	expect_tried(&d, 2, (const int[]){ 0, 1 }, 2);
	c.arrival_ns = 25 * US;		/* during NUMA, the last level */
	ir_decide(&c, &p, NULL, &d);
	expect_tried(&d, 3, (const int[]){ 0, 1, 2 }, -1);
	c.arrival_ns = 5 * US;		/* during SMT */
	ir_decide(&c, &p, NULL, &d);
	expect_tried(&d, 1, (const int[]){ 0 }, 1);
	c.arrival_ns = 0;		/* nothing arrived */
	ir_decide(&c, &p, NULL, &d);
	expect_tried(&d, 3, (const int[]){ 0, 1, 2 }, -1);
}

/* v5.13+ (e5e678e4fea2): a pending wake-list wakeup returns before any
 * check in the mainline family; the 4.15-based policies predate it. */
static void test_ttwu_pending(void **state)
{
	static const char *const family[] = { "mainline", "bump", "proportional" };
	static const char *const old[] = { "baseline", "domain-cost", "no-check" };
	struct ir_decision_ctx c = ctx3(10000 * US, true);
	struct ir_decision d;

	(void)state;
	c.ttwu_pending = true;
	for (int i = 0; i < 3; i++) {
		d = decide(family[i], &c);
		assert_int_equal(d.bail, IR_BAIL_TTWU_PENDING);
		d = decide(old[i], &c);
		assert_int_equal(d.bail, IR_BAIL_NONE);
	}
	/* before the overload check too */
	c.overload = false;
	d = decide("mainline", &c);
	assert_int_equal(d.bail, IR_BAIL_TTWU_PENDING);
	d = decide("baseline", &c);
	assert_int_equal(d.bail, IR_BAIL_NOT_OVERLOADED);
	/* the context takes it from the point (replay's probe or wake list) */
	{
		struct ir_point pt = { .ts = 10, .cpu = 0, .avg_idle = 10000 * US, .overload = true, .nr_levels = 1,
				       .ttwu_pending = true, .pulled_pid = -1, .pulled_from = -1 };
		struct ir_decision_ctx c2;

		ir_decision_ctx_init(&c2, &pt, NULL);
		assert_true(c2.ttwu_pending);
		d = decide("mainline", &c2);
		assert_int_equal(d.bail, IR_BAIL_TTWU_PENDING);
	}
}

/* baseline (v4.15) has no lowest-domain cost bail: a lowest level dearer
 * than avg_idle stops its walk there, with no bail. */
static void test_baseline_no_cost_bail(void **state)
{
	struct ir_decision_ctx c = ctx3(600 * US, true);
	struct ir_policy_params p;
	struct ir_decision d;

	(void)state;
	assert_int_equal(ir_policy_parse("baseline", &p, NULL, 0), 0);
	p.max_newidle_lb_cost[IR_LVL_SMT] = 800 * US;
	ir_decide(&c, &p, NULL, &d);
	assert_int_equal(d.bail, IR_BAIL_NONE);
	assert_int_equal(d.nr_tried, 0);
	assert_int_equal(d.stop_level, 0);
	assert_int_equal(ir_policy_parse("mainline", &p, NULL, 0), 0);
	p.max_newidle_lb_cost[IR_LVL_SMT] = 800 * US;
	ir_decide(&c, &p, NULL, &d);
	assert_int_equal(d.bail, IR_BAIL_LOWEST_COST);
}

/* A probed sd->newidle_ratio of 0 is the kernel's value (nothing pulled
 * lately): the die skips the level unless it shows 0 or 1; the model's
 * own initial 512 would have tried it. */
static void test_probed_ratio_zero(void **state)
{
	struct ir_decision_ctx c = ctx3(10000 * US, true);
	struct ir_policy_params p;
	struct ir_decision d;
	uint64_t seed = 0, x;
	char arg[64];

	(void)state;
	do {	/* a seed whose first die is 100 */
		x = ++seed;
	} while (splitmix(&x) % 1024 != 100);
	snprintf(arg, sizeof(arg), "proportional:seed=%llu", (unsigned long long)seed);
	assert_int_equal(ir_policy_parse(arg, &p, NULL, 0), 0);
	c.probed = true;
	for (int l = 0; l < 3; l++)
		c.probe_cost[l] = 1 * US, c.probe_ratio[l] = -1;
	c.probe_ratio[0] = 0;
	ir_decide(&c, &p, NULL, &d);
	assert_int_equal(d.nr_skipped, 1);
	assert_int_equal(d.skipped[0], 0);
	c.probe_ratio[0] = -1;	/* not probed: 512, 100 <= 513 */
	ir_decide(&c, &p, NULL, &d);
	assert_true(d.nr_tried >= 1);
	assert_int_equal(d.tried[0], 0);
}

/* Per-seed level attempts count the levels a walk reached, not the ones it
 * planned: a pull at SMT ends sched_balance_newidle()'s walk ("if
 * (pulled_task ...) break") before MC.  Two SMT siblings of four CPUs;
 * CPU 1 runs one task and queues one (cold): CPU 0's SMT load_balance()
 * pulls it (migrate_task, (2 - 0) >> 1 = 1). */
static void test_evaluate_seeds_levels(void **state)
{
	struct ir_topology *t = NULL;
	struct ir_domains *dom;
	struct ir_policy_run run;
	struct ir_rq_snap rq[4];
	struct ir_point pt = { .ts = 100000 * US, .cpu = 0, .avg_idle = 1000 * US, .overload = true, .nr_levels = 2,
			       .pulled_pid = -1, .pulled_from = -1, .rq = rq, .nr_rq = 4 };
	struct ir_decision d;
	struct ir_outcome o;

	(void)state;
	assert_int_equal(ir_topology_from_arg("sockets=1,cores=2,threads=2", &t, NULL, 0), 0);
	dom = ir_domains_build(t, NULL, 0);
	ir_topology_free(t);
	assert_non_null(dom);
	memset(rq, 0, sizeof(rq));
	for (int c = 0; c < 4; c++)
		rq[c].curr_idle = true;
	rq[1] = (struct ir_rq_snap){ .nr_running = 2, .nr_tasks = 1, .util = 300,
		.task = { { .pid = 100, .prio = 120, .exec_start = pt.ts - 10000 * US, .util = 100 } } };
	pt.ring[0] = (struct ir_cand){ .pid = 100, .cpu = 1, .src_nr_running = 2, .gain_ns = 3000 };
	pt.ring[1] = (struct ir_cand){ .pid = -1, .cpu = -1 };
	assert_int_equal(ir_policy_parse("proportional", &run.p, NULL, 0), 0);
	run.p.ni_random = 0;
	run.p.seeds = 3;
	run.p.max_newidle_lb_cost[IR_LVL_SMT] = 5 * US;
	run.p.max_newidle_lb_cost[IR_LVL_MC] = 20 * US;
	assert_int_equal(ir_policy_run_init(&run, 4), 0);
	ir_evaluate(&pt, dom, false, &run, 1, &d, &o);
	assert_int_equal(d.nr_tried, 2);	/* MC was affordable too */
	assert_true(o.pulled);
	assert_int_equal(o.level, 0);
	for (int s = 0; s < 3; s++) {
		assert_int_equal(run.seed_tot[s].attempts, 1);
		assert_int_equal(run.seed_tot[s].level_attempts[IR_LVL_SMT], 1);
		assert_int_equal(run.seed_tot[s].level_attempts[IR_LVL_MC], 0);
		assert_int_equal(run.seed_tot[s].level_cost_ns[IR_LVL_MC], 0);
		assert_int_equal(run.seed_tot[s].level_pulls[IR_LVL_SMT], 1);
	}
	ir_policy_run_free(&run);
	ir_domains_free(dom);
}

/* bump's learned costs are per CPU and level (update_newidle_cost() on
 * each sd of this_rq): a walk over all IR_MAX_LEVELS levels of CPU 1 sets
 * CPU 1's, and leaves its neighbours' unset. */
static void test_bump_all_levels(void **state)
{
	struct ir_point pt = { .ts = 10, .cpu = 1, .avg_idle = 10000 * US, .overload = true, .nr_levels = 1,
			       .pulled_pid = -1, .pulled_from = -1 };
	struct ir_decision_ctx c;
	struct ir_policy_params p;
	struct ir_policy_state st;
	struct ir_decision d;
	struct ir_outcome o;

	(void)state;
	for (int l = 0; l < IR_MAX_LEVELS; l++)
		pt.ring[l] = (struct ir_cand){ .pid = -1, .cpu = -1 };
	assert_int_equal(ir_policy_parse("bump", &p, NULL, 0), 0);
	assert_int_equal(ir_policy_state_init(&st, &p, 3), 0);
	ir_decision_ctx_init(&c, &pt, NULL);
	c.nr_levels = IR_MAX_LEVELS;
	for (int l = 0; l < IR_MAX_LEVELS; l++)
		c.kind[l] = IR_LVL_MC;
	ir_decide(&c, &p, &st, &d);
	ir_outcome(&pt, &d, &o);
	assert_false(o.pulled);
	ir_policy_update(&c, &p, &d, &o, &st);
	for (int l = 0; l < IR_MAX_LEVELS; l++) {
		assert_int_equal(st.max_newidle_lb_cost[0 * IR_MAX_LEVELS + l], IR_COST_UNSET);
		assert_int_not_equal(st.max_newidle_lb_cost[1 * IR_MAX_LEVELS + l], IR_COST_UNSET);
		assert_int_equal(st.max_newidle_lb_cost[2 * IR_MAX_LEVELS + l], IR_COST_UNSET);
	}
	ir_policy_state_free(&st);
	/* a level not walked gets update_newidle_cost(sd, 0), the periodic
	 * visit: "cost > max" is false and the decay keeps 0 at 0, so an
	 * assumed cost of 0 stays 0 (no overload: bump bails, walks nothing) */
	assert_int_equal(ir_policy_set(&p, "mc.max_newidle_lb_cost", 0, NULL, 0), 0);
	assert_int_equal(ir_policy_state_init(&st, &p, 3), 0);
	c.overload = false;
	for (int i = 0; i < 3; i++) {
		ir_decide(&c, &p, &st, &d);
		assert_int_not_equal(d.bail, IR_BAIL_NONE);
		ir_outcome(&pt, &d, &o);
		ir_policy_update(&c, &p, &d, &o, &st);
		c.now += 2000000000ull;
	}
	for (int l = 0; l < IR_MAX_LEVELS; l++)
		assert_int_equal(st.max_newidle_lb_cost[1 * IR_MAX_LEVELS + l], 0);
	ir_policy_state_free(&st);
}

/* ir_decision_ctx_init() / ir_decision_ctx_probe(): every field a policy
 * reads comes from the point (its CPU, time, avg_idle, rd->overload,
 * ttwu_pending, arrival), the levels and their kinds from the CPU's own
 * domains (one flat MC level per ring level without domains, at most
 * IR_MAX_LEVELS), and in probed mode the kernel's per-level costs and
 * ratios for the three levels the probe records, -1 beyond and without a
 * probe.  Distinct values everywhere, so a field left out or taken from a
 * neighbour shows. */
static void test_ctx_from_point(void **state)
{
	struct ir_topology *t = NULL;
	struct ir_domains *dom;
	struct ir_decision_ctx c;
	struct ir_point pt = {
		.ts = 123456789, .cpu = 5, .avg_idle = 4321, .overload = true, .ttwu_pending = true,
		.arrival_ns = 777, .nr_levels = 2, .has_probe = false, .probe_dur = 999,
		.probe = { .sd_max_newidle_lb_cost = { 11, 12, 13 }, .sd_newidle_ratio = { 21, 22, 23 } },
	};

	(void)state;
	assert_int_equal(ir_topology_from_arg("sockets=2,cores=2,threads=2,nodes=2", &t, NULL, 0), 0);
	dom = ir_domains_build(t, NULL, 0);
	assert_non_null(dom);
	memset(&c, 0x5a, sizeof(c));
	ir_decision_ctx_init(&c, &pt, dom);
	assert_int_equal(c.cpu, 5);
	assert_int_equal(c.now, 123456789);
	assert_int_equal(c.avg_idle, 4321);
	assert_true(c.overload);
	assert_true(c.ttwu_pending);
	assert_int_equal(c.arrival_ns, 777);
	assert_ptr_equal(c.dom, dom);
	assert_ptr_equal(c.pt, &pt);
	assert_int_equal(c.nr_levels, 3);	/* CPU 5's SMT, MC, NUMA; not pt.nr_levels */
	assert_int_equal(c.kind[0], IR_LVL_SMT);
	assert_int_equal(c.kind[1], IR_LVL_MC);
	assert_int_equal(c.kind[2], IR_LVL_NUMA);
	assert_false(c.probed);
	assert_int_equal(c.probe_dur, 0);
	for (int l = 0; l < IR_MAX_LEVELS; l++) {
		assert_int_equal(c.probe_cost[l], -1);
		assert_int_equal(c.probe_ratio[l], -1);
	}
	/* no probe matched: probed mode changes nothing */
	ir_decision_ctx_probe(&c, &pt);
	assert_false(c.probed);
	assert_int_equal(c.probe_cost[0], -1);
	pt.has_probe = true;
	ir_decision_ctx_probe(&c, &pt);
	assert_true(c.probed);
	assert_int_equal(c.probe_dur, 999);
	for (int l = 0; l < 3; l++) {
		assert_int_equal(c.probe_cost[l], 11 + l);
		assert_int_equal(c.probe_ratio[l], 21 + l);
	}
	for (int l = 3; l < IR_MAX_LEVELS; l++)
		assert_int_equal(c.probe_cost[l], -1);

	/* the other fields false / 0 come through as such */
	pt.overload = false;
	pt.ttwu_pending = false;
	pt.arrival_ns = 0;
	pt.cpu = 0;
	ir_decision_ctx_init(&c, &pt, dom);
	assert_int_equal(c.cpu, 0);
	assert_false(c.overload);
	assert_false(c.ttwu_pending);
	assert_int_equal(c.arrival_ns, 0);

	/* no domains: the point's ring levels, flat MC, capped */
	pt.nr_levels = 2;
	ir_decision_ctx_init(&c, &pt, NULL);
	assert_null(c.dom);
	assert_int_equal(c.nr_levels, 2);
	assert_int_equal(c.kind[0], IR_LVL_MC);
	assert_int_equal(c.kind[1], IR_LVL_MC);
	/* a level this CPU lacks has no probed cost, though the probe has one */
	ir_decision_ctx_probe(&c, &pt);
	assert_int_equal(c.probe_cost[1], 12);
	assert_int_equal(c.probe_cost[2], -1);
	assert_int_equal(c.probe_ratio[2], -1);
	pt.nr_levels = 5;
	ir_decision_ctx_init(&c, &pt, NULL);
	pt.has_probe = true;
	ir_decision_ctx_probe(&c, &pt);
	assert_int_equal(c.nr_levels, 5 < IR_MAX_LEVELS ? 5 : IR_MAX_LEVELS);
	for (int l = 0; l < c.nr_levels; l++)
		assert_int_equal(c.probe_cost[l], l < 3 ? 11 + l : -1);
	pt.nr_levels = IR_MAX_LEVELS + 3;
	ir_decision_ctx_init(&c, &pt, NULL);
	assert_int_equal(c.nr_levels, IR_MAX_LEVELS);
	for (int l = 0; l < IR_MAX_LEVELS; l++)
		assert_int_equal(c.kind[l], IR_LVL_MC);
	ir_domains_free(dom);
	ir_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_300us),
		cmocka_unit_test(test_bails),
		cmocka_unit_test(test_probed_costs),
		cmocka_unit_test(test_arrival),
		cmocka_unit_test(test_evaluate_seeds),
		cmocka_unit_test(test_evaluate_seeds_levels),
		cmocka_unit_test(test_bump_all_levels),
		cmocka_unit_test(test_ctx_from_point),
		cmocka_unit_test(test_ttwu_pending),
		cmocka_unit_test(test_baseline_no_cost_bail),
		cmocka_unit_test(test_probed_ratio_zero),
		cmocka_unit_test(test_invariants),
		cmocka_unit_test(test_outcome),
		cmocka_unit_test(test_proportional_stop_at_first),
		cmocka_unit_test(test_proportional_weight),
		cmocka_unit_test(test_proportional_initial_ratio),
		cmocka_unit_test(test_sweep_monotone),
		cmocka_unit_test(test_proportional),
		cmocka_unit_test(test_proportional_counters),
		cmocka_unit_test(test_bump),
		cmocka_unit_test(test_bump_decay_after_raise),
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_evaluate),
		cmocka_unit_test(test_equal_candidates),
		cmocka_unit_test(test_ni_random_dice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

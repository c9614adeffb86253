/* SPDX-License-Identifier: GPL-2.0-only */
/* Policy names, parameters, presets and their formatting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"

static void test_defaults(void **state)
{
	struct ir_policy_params p;
	char buf[1024];

	(void)state;
	ir_policy_defaults(IR_POL_DOMAIN_COST, &p);
	assert_int_equal(p.sysctl_sched_migration_cost, 500000);
	assert_int_equal(ir_policy_params_format(&p, buf, sizeof(buf)), 0);
	assert_string_equal(buf,
		"sysctl_sched_migration_cost=500000,smt.max_newidle_lb_cost=5000,cls.max_newidle_lb_cost=10000,"
		"mc.max_newidle_lb_cost=20000,pkg.max_newidle_lb_cost=30000,node.max_newidle_lb_cost=50000,"
		"numa.max_newidle_lb_cost=100000,smt.migration_cost=0,cls.migration_cost=500000,"
		"mc.migration_cost=500000,pkg.migration_cost=500000,node.migration_cost=500000,"
		"numa.migration_cost=500000,lb_release=415,preemption=1,smt_never_hot=0,nr_balance_failed=0");
	for (int k = 0; k < IR_POL__COUNT; k++) {
		assert_int_equal(ir_policy_parse(ir_policy_name((enum ir_policy_kind)k), &p, NULL, 0), 0);
		assert_int_equal(p.kind, k);
	}
	assert_string_equal(ir_policy_name(IR_POL_PROPORTIONAL), "proportional");
	assert_string_equal(ir_bail_name[IR_BAIL_LOWEST_COST], "lowest_cost");
}

static void test_parse(void **state)
{
	struct ir_policy_params p;
	char err[256];

	(void)state;
	assert_int_equal(ir_policy_parse("domain-cost:preset=cover,mc.migration_cost=50000", &p, err, sizeof(err)), 0);
	assert_string_equal(p.label, "domain-cost:preset=cover,mc.migration_cost=50000");
	assert_int_equal(p.sd_migration_cost[IR_LVL_SMT], 0);
	assert_int_equal(p.sd_migration_cost[IR_LVL_CLS], 50000);
	assert_int_equal(p.sd_migration_cost[IR_LVL_PKG], 500000);
	/* explicit values win over a preset given after them */
	assert_int_equal(ir_policy_parse("domain-cost:mc.migration_cost=7us,preset=rfc1", &p, err, sizeof(err)), 0);
	assert_int_equal(p.sd_migration_cost[IR_LVL_MC], 7000);
	assert_int_equal(p.sd_migration_cost[IR_LVL_NUMA], 5000000);
	/* preset=sysctl: others follow the sysctl */
	assert_int_equal(ir_policy_parse("domain-cost:preset=sysctl,sysctl_sched_migration_cost=2ms", &p, err, sizeof(err)), 0);
	assert_int_equal(p.sd_migration_cost[IR_LVL_MC], 500000);
	assert_int_equal(p.sd_migration_cost[IR_LVL_NUMA], 2000000);
	assert_int_equal(p.sd_migration_cost[IR_LVL_SMT], 0);
	/* every preset, every level, as the RFC states them (SMT, CLS, MC,
	 * PKG, NODE, NUMA; us): the re-test 0/500, the cover letter 0 within
	 * a core, 50 across cores, 500 across sockets, patch 1/2 as coded
	 * 0/500/5000, patch 2/2 0/500 and the sysctl (500 us by default) */
	{
		static const struct { const char *arg; uint64_t us[IR_LVL__COUNT]; } want[] = {
			{ "domain-cost", { 0, 500, 500, 500, 500, 500 } },
			{ "domain-cost:preset=retest", { 0, 500, 500, 500, 500, 500 } },
			{ "domain-cost:preset=cover", { 0, 50, 50, 500, 500, 500 } },
			{ "domain-cost:preset=rfc1", { 0, 500, 500, 5000, 5000, 5000 } },
			{ "domain-cost:preset=sysctl", { 0, 500, 500, 500, 500, 500 } },
		};

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			assert_int_equal(ir_policy_parse(want[i].arg, &p, err, sizeof(err)), 0);
			for (int l = 0; l < IR_LVL__COUNT; l++)
				if (p.sd_migration_cost[l] != want[i].us[l] * 1000)
					fail_msg("%s: %s.migration_cost %llu, want %llu us", want[i].arg,
						 ir_level_key(l), (unsigned long long)p.sd_migration_cost[l],
						 (unsigned long long)want[i].us[l]);
		}
	}
	assert_int_equal(ir_policy_parse("bump:numa.max_newidle_lb_cost=1s,smt.max_newidle_lb_cost=3ns", &p, err, sizeof(err)), 0);
	assert_int_equal(p.max_newidle_lb_cost[IR_LVL_NUMA], 1000000000ull);
	assert_int_equal(p.max_newidle_lb_cost[IR_LVL_SMT], 3);
	assert_int_equal(ir_policy_parse("proportional:seed=42", &p, err, sizeof(err)), 0);
	assert_int_equal(p.seed, 42);
	assert_int_equal(ir_policy_set(&p, "MC.max_newidle_lb_cost", 9, err, sizeof(err)), 0);
	assert_int_equal(p.max_newidle_lb_cost[IR_LVL_MC], 9);
}

static void expect_error(const char *arg, const char *msg)
{
	struct ir_policy_params p;
	char err[512] = "";

	assert_int_equal(ir_policy_parse(arg, &p, err, sizeof(err)), IR_ERR_USAGE);
	assert_string_equal(err, msg);
}

/* A preset given to a policy other than domain-cost is refused as such,
 * whatever its name: not reported as an unknown preset. */
static void test_first_error(void **state)
{
	struct ir_policy_params p;
	char err[512] = "";

	(void)state;
	assert_int_equal(ir_policy_parse("baseline:preset=bogus", &p, err, sizeof(err)), IR_ERR_USAGE);
	assert_non_null(strstr(err, "policy baseline: no parameter 'preset'"));
}

/* Every plain parameter under its documented key (docs/report.md), each
 * to a value unlike its default; a parsed policy is labelled as given, a
 * default one by its name. */
static void test_param_keys(void **state)
{
	struct ir_policy_params p;

	(void)state;
	assert_int_equal(ir_policy_parse("proportional:seed=9,seeds=7,ni_random=0", &p, NULL, 0), 0);
	assert_int_equal(p.seed, 9);
	assert_int_equal(p.seeds, 7);
	assert_int_equal(p.ni_random, 0);
	assert_string_equal(p.label, "proportional:seed=9,seeds=7,ni_random=0");	/* as given */
	assert_int_equal(ir_policy_parse("mainline:lb_release=415,preemption=0,smt_never_hot=0,"
					 "nr_balance_failed=3,cost_scale=2000", &p, NULL, 0), 0);
	assert_int_equal(p.lb_release, 415);
	assert_int_equal(p.preemption, 0);
	assert_int_equal(p.smt_never_hot, 0);
	assert_int_equal(p.nr_balance_failed, 3);
	assert_int_equal(p.cost_scale, 2000);
	ir_policy_defaults(IR_POL_BUMP, &p);
	assert_string_equal(p.label, "bump");
	/* sd->newidle_ratio at the trace's start: sd_init()'s 512 unless given,
	 * newidle_success in proportion over newidle_call's 512 */
	{
		struct ir_policy_state st;

		assert_int_equal(ir_policy_parse("proportional", &p, NULL, 0), 0);
		assert_int_equal(p.newidle_ratio, 512);
		assert_int_equal(ir_policy_state_init(&st, &p, 2), 0);
		assert_int_equal(st.newidle_ratio[IR_MAX_LEVELS + 1], 512);
		assert_int_equal(st.newidle_success[IR_MAX_LEVELS + 1], 256);
		ir_policy_state_free(&st);
		assert_int_equal(ir_policy_parse("proportional:newidle_ratio=0", &p, NULL, 0), 0);
		assert_int_equal(ir_policy_state_init(&st, &p, 2), 0);
		assert_int_equal(st.newidle_ratio[1], 0);
		assert_int_equal(st.newidle_success[1], 0);
		assert_int_equal(st.newidle_call[1], 512);
		ir_policy_state_free(&st);
	}
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("fastest", "unknown policy 'fastest' (baseline, domain-cost, no-check, mainline, bump, proportional)");
	expect_error("baseline:foo=1", "policy baseline: unknown parameter 'foo' (baseline takes "
		     "sysctl_sched_migration_cost, LEVEL.max_newidle_lb_cost, cost_scale, lb_release, preemption, smt_never_hot, nr_balance_failed; LEVEL is smt, cls, mc, pkg, node or numa)");
	/* parameters that exist but that the policy does not read (issue 11) */
	expect_error("baseline:preset=cover", "policy baseline: no parameter 'preset' (baseline takes "
		     "sysctl_sched_migration_cost, LEVEL.max_newidle_lb_cost, cost_scale, lb_release, preemption, smt_never_hot, nr_balance_failed; presets are domain-cost's)");
	expect_error("baseline:ni_random=0", "policy baseline: no parameter 'ni_random' (baseline takes "
		     "sysctl_sched_migration_cost, LEVEL.max_newidle_lb_cost, cost_scale, lb_release, preemption, smt_never_hot, nr_balance_failed; LEVEL is smt, cls, mc, pkg, node or numa)");
	expect_error("baseline:seed=3", "policy baseline: no parameter 'seed' (baseline takes "
		     "sysctl_sched_migration_cost, LEVEL.max_newidle_lb_cost, cost_scale, lb_release, preemption, smt_never_hot, nr_balance_failed; LEVEL is smt, cls, mc, pkg, node or numa)");
	expect_error("baseline:mc.migration_cost=1us", "policy baseline: no parameter 'mc.migration_cost' (baseline "
		     "takes sysctl_sched_migration_cost, LEVEL.max_newidle_lb_cost, cost_scale, lb_release, preemption, smt_never_hot, nr_balance_failed; LEVEL is smt, cls, mc, pkg, node or numa)");
	expect_error("mainline:mc.migration_cost=1us", "policy mainline: no parameter "
		     "'mc.migration_cost' (mainline takes sysctl_sched_migration_cost, LEVEL.max_newidle_lb_cost, cost_scale, lb_release, preemption, smt_never_hot, nr_balance_failed; LEVEL is smt, cls, mc, pkg, node or numa)");
	expect_error("proportional:mc.migration_cost=1us", "policy proportional: no parameter 'mc.migration_cost' "
		     "(proportional takes sysctl_sched_migration_cost, LEVEL.max_newidle_lb_cost, seed, seeds, ni_random, newidle_ratio, cost_scale, lb_release, preemption, smt_never_hot, nr_balance_failed; LEVEL is smt, cls, mc, pkg, node or numa)");
	expect_error("baseline:mc.max_newidle_lb_cost=5min",
		     "policy baseline: bad value '5min' for mc.max_newidle_lb_cost (ns, or with ns/us/ms/s)");
	expect_error("baseline:mc.max_newidle_lb_cost=-5",
		     "policy baseline: bad value '-5' for mc.max_newidle_lb_cost (ns, or with ns/us/ms/s)");
	expect_error("domain-cost:preset=best", "policy domain-cost: unknown preset 'best' (retest, cover, rfc1, sysctl)");
	expect_error("no-check:x", "policy no-check: expected key=value, got 'x'");
	/* a bad preset after a good one is still an error */
	expect_error("domain-cost:preset=cover,preset=best",
		     "policy domain-cost: unknown preset 'best' (retest, cover, rfc1, sysctl)");
}

/* One parser for every duration, options and policy parameters alike. */
static void test_durations(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(ir_parse_ns("1500", &v), 0);
	assert_int_equal(v, 1500);
	assert_int_equal(ir_parse_ns("500us", &v), 0);
	assert_int_equal(v, 500000);
	assert_int_equal(ir_parse_ns("0.5ms", &v), 0);
	assert_int_equal(v, 500000);
	assert_int_equal(ir_parse_ns("2s", &v), 0);
	assert_int_equal(v, 2000000000ull);
	assert_int_equal(ir_parse_ns("-5us", &v), -1);
	assert_int_equal(ir_parse_ns("5 us", &v), -1);
	assert_int_equal(ir_parse_ns("5h", &v), -1);
	assert_int_equal(ir_parse_ns("", &v), -1);
	assert_int_equal(ir_parse_ns("1e30s", &v), -1);
	/* record --duration: the same parser, a bare number in seconds */
	assert_int_equal(ir_parse_duration("500ms", 1000000000ull, &v), 0);
	assert_int_equal(v, 500000000ull);
	assert_int_equal(ir_parse_duration("3", 1000000000ull, &v), 0);
	assert_int_equal(v, 3000000000ull);
	assert_int_equal(ir_parse_duration("1.5", 1000000000ull, &v), 0);
	assert_int_equal(v, 1500000000ull);
	assert_int_equal(ir_parse_duration("5min", 1000000000ull, &v), -1);
}

/* The recording kernel's policy: from its release (c5b0a7eefc70 in v5.16,
 * 155213a2aed4 in v6.17, 33cf66d88306 in v6.19) and, when the metadata has
 * it, the sched_features line (a whole word NI_RANDOM or NO_NI_RANDOM). */
static void test_policy_for_kernel(void **state)
{
	(void)state;
	assert_int_equal(ir_policy_for_kernel(4, 15, -1, NULL), IR_POL_BASELINE);
	assert_int_equal(ir_policy_for_kernel(5, 15, -1, NULL), IR_POL_BASELINE);
	assert_int_equal(ir_policy_for_kernel(5, 16, -1, NULL), IR_POL_MAINLINE);
	assert_int_equal(ir_policy_for_kernel(6, 16, -1, NULL), IR_POL_MAINLINE);
	assert_int_equal(ir_policy_for_kernel(6, 17, -1, NULL), IR_POL_BUMP);
	/* 6.18.y: bump up to 6.18.4; from 6.18.5 the stable backports of the
	 * revert (d206fbad9328) and of 33cf66d88306; unknown patch: newest */
	assert_int_equal(ir_policy_for_kernel(6, 18, 0, NULL), IR_POL_BUMP);
	assert_int_equal(ir_policy_for_kernel(6, 18, 4, NULL), IR_POL_BUMP);
	assert_int_equal(ir_policy_for_kernel(6, 18, 5, NULL), IR_POL_PROPORTIONAL);
	assert_int_equal(ir_policy_for_kernel(6, 18, 44, NULL), IR_POL_PROPORTIONAL);
	assert_int_equal(ir_policy_for_kernel(6, 18, -1, NULL), IR_POL_PROPORTIONAL);
	assert_int_equal(ir_policy_for_kernel(6, 17, 13, NULL), IR_POL_BUMP);
	assert_int_equal(ir_policy_for_kernel(6, 19, -1, NULL), IR_POL_PROPORTIONAL);
	assert_int_equal(ir_policy_for_kernel(7, 0, -1, NULL), IR_POL_PROPORTIONAL);
	assert_int_equal(ir_policy_for_kernel(-1, -1, -1, NULL), IR_POL_MAINLINE);
	/* a backport: 6.1 with NI_RANDOM on */
	assert_int_equal(ir_policy_for_kernel(6, 1, -1, "GENTLE_FAIR_SLEEPERS NI_RANDOM WA_BIAS"),
			 IR_POL_PROPORTIONAL);
	assert_int_equal(ir_policy_for_kernel(6, 1, -1, "NI_RANDOM"), IR_POL_PROPORTIONAL);
	/* the feature off: the release decides between bump and mainline */
	assert_int_equal(ir_policy_for_kernel(6, 19, -1, "WA_BIAS NO_NI_RANDOM"), IR_POL_BUMP);
	assert_int_equal(ir_policy_for_kernel(6, 1, -1, "NO_NI_RANDOM UTIL_EST"), IR_POL_MAINLINE);
	/* the release boundaries with the feature off: bump from 6.17 (155213a2aed4) */
	assert_int_equal(ir_policy_for_kernel(6, 16, -1, "NO_NI_RANDOM"), IR_POL_MAINLINE);
	assert_int_equal(ir_policy_for_kernel(6, 17, -1, "NO_NI_RANDOM"), IR_POL_BUMP);
	assert_int_equal(ir_policy_for_kernel(7, 0, -1, "NO_NI_RANDOM"), IR_POL_BUMP);
	/* only whole words count */
	assert_int_equal(ir_policy_for_kernel(6, 1, -1, "XNI_RANDOM NI_RANDOMX"), IR_POL_MAINLINE);
	assert_int_equal(ir_policy_for_kernel(4, 15, -1, "UTIL_EST"), IR_POL_BASELINE);
}

/* The load_balance() rules by release (model/lb.c's header): the rework of
 * 0b0695f2b34a from 5.5, the NUMA allowance of adjust_numa_imbalance() in
 * 5.16-5.18, and its 5.19 form.  Releases are major * 100 + minor. */
static void test_lb_rules_of(void **state)
{
	static const struct { unsigned rel; enum ir_lb_rules rules; } want[] = {
		{ 415, IR_LB_V415 }, { 504, IR_LB_V415 }, { 505, IR_LB_V516 }, { 515, IR_LB_V516 },
		{ 516, IR_LB_V516 }, { 518, IR_LB_V516 }, { 519, IR_LB_V519 }, { 618, IR_LB_V519 },
	};
	struct ir_policy_params p;

	(void)state;
	ir_policy_defaults(IR_POL_MAINLINE, &p);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		p.lb_release = want[i].rel;
		assert_int_equal(ir_lb_rules_of(&p), want[i].rules);
	}
	/* each policy's default: the 2018 policies patch v4.15, the others
	 * follow v5.19+ (policy.c's defaults) */
	for (int k = 0; k < IR_POL__COUNT; k++) {
		ir_policy_defaults((enum ir_policy_kind)k, &p);
		assert_int_equal(p.lb_release, k == IR_POL_BASELINE || k == IR_POL_DOMAIN_COST ||
				 k == IR_POL_NO_CHECK ? 415 : 519);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lb_rules_of),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_param_keys),
		cmocka_unit_test(test_first_error),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_policy_for_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cost_scale fit (model/costfit.c) on hand-built predictions.  Each expected
 * value is worked out here from the estimator's definition (the crossing of
 * the observed count, interpolated in log(scale); the range where the
 * prediction is within sqrt(observed) of it, at least 1), not from the tool.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "model/model.h"

static const uint64_t scale[3] = { 100, 1000, 10000 };	/* permille: a decade apart */

static void near(double got, double want)
{
	if (fabs(got - want) > 1e-9 * fabs(want) + 1e-12)
		fail_msg("got %.12g, want %.12g", got, want);
}

/* The observed count between two predictions: the estimate is the decade
 * fraction (pred_i - obs) / (pred_i - pred_i+1) past scale i. */
static void test_fitted(void **state)
{
	const double pred[3] = { 50, 20, 5 };
	struct ir_cost_fit f;

	(void)state;
	ir_cost_fit(scale, pred, 3, 16, &f);	/* sd = 4 */
	assert_int_equal(f.status, 0);
	near(f.scale, 1000 * pow(10, 4.0 / 15));	/* 16 between 20 and 5 */
	near(f.lo, 1000);	/* obs + sd = 20: the prediction at 1000 is already there */
	near(f.hi, 1000 * pow(10, 8.0 / 15));	/* obs - sd = 12 */

	/* the observed count equals the lowest scale's prediction: fitted there */
	ir_cost_fit(scale, pred, 3, 50, &f);	/* sd = sqrt(50) */
	assert_int_equal(f.status, 0);
	near(f.scale, 100);
	near(f.lo, 100);	/* 50 + 7.07 is above every prediction */
	near(f.hi, 100 * pow(10, sqrt(50) / 30));	/* 50 - 7.07 between 50 and 20 */
}

/* Fewer than one pull observed: the range is still one pull wide (sd is at
 * least 1), not sqrt(observed). */
static void test_small_count(void **state)
{
	const double pred[3] = { 2, 1, 0 };
	struct ir_cost_fit f;

	(void)state;
	ir_cost_fit(scale, pred, 3, 0.25, &f);
	assert_int_equal(f.status, 0);
	near(f.scale, 1000 * pow(10, 0.75));	/* 0.25 between 1 and 0 */
	near(f.lo, 100 * pow(10, 0.75));	/* 1.25 between 2 and 1 */
	assert_true(f.hi < 0);			/* -0.75: never reached */
}

/* Nothing observed, a prediction only at the lowest scale, or below one
 * pull at every scale: still a lower bound where it drops to half a pull
 * (any scale predicting a pull counts, the first included).  One scale
 * only: fitted there when it predicts the observed count. */
static void test_nothing_observed_edges(void **state)
{
	const double first[3] = { 2, 0, 0 }, small[3] = { 0.8, 0.3, 0 }, one[1] = { 3 };
	struct ir_cost_fit f;

	(void)state;
	ir_cost_fit(scale, first, 3, 0, &f);
	assert_int_equal(f.status, 1);
	near(f.scale, 100 * pow(10, 0.75));	/* 0.5 between 2 and 0 */
	near(f.lo, f.scale);
	ir_cost_fit(scale, small, 3, 0, &f);
	assert_int_equal(f.status, 1);
	near(f.scale, 100 * pow(10, 0.6));	/* 0.5 between 0.8 and 0.3 */
	ir_cost_fit(scale, one, 1, 3, &f);
	assert_int_equal(f.status, 0);
	near(f.scale, 100);
	near(f.lo, 100);			/* 3 + 1.73: at or below already */
	assert_true(f.hi < 0);			/* 3 - 1.73: never reached */
}

/* Between one and two pulls observed: sd is sqrt(observed) already (1.5:
 * 1.2247), not the floor of 1. */
static void test_count_above_one(void **state)
{
	const double pred[3] = { 4, 2, 0 };
	const double sd = sqrt(1.5);
	struct ir_cost_fit f;

	(void)state;
	ir_cost_fit(scale, pred, 3, 1.5, &f);
	assert_int_equal(f.status, 0);
	near(f.scale, 1000 * pow(10, 0.25));			/* 1.5 between 2 and 0 */
	near(f.lo, 100 * pow(10, (4 - (1.5 + sd)) / 2));	/* 2.72 between 4 and 2 */
	near(f.hi, 1000 * pow(10, (2 - (1.5 - sd)) / 2));	/* 0.28 between 2 and 0 */
}

/* Nothing observed: a lower bound where the prediction drops to half a pull;
 * nothing observed and nothing predicted: no information. */
static void test_nothing_observed(void **state)
{
	const double some[3] = { 3, 1, 0 }, none[3] = { 0, 0, 0 };
	struct ir_cost_fit f;

	(void)state;
	ir_cost_fit(scale, some, 3, 0, &f);
	assert_int_equal(f.status, 1);
	near(f.scale, 1000 * pow(10, 0.5));
	near(f.lo, f.scale);
	assert_true(f.hi < 0);
	ir_cost_fit(scale, none, 3, 0, &f);
	assert_int_equal(f.status, 3);
	assert_true(f.scale < 0 && f.lo < 0 && f.hi < 0);
}

/* Bounds: the model pulls too few at the lowest scale (an upper bound there),
 * or too many at the highest (a lower bound there). */
static void test_bounds(void **state)
{
	const double few[3] = { 49, 20, 5 }, many[3] = { 9, 8, 7 };
	struct ir_cost_fit f;

	(void)state;
	ir_cost_fit(scale, few, 3, 50, &f);
	assert_int_equal(f.status, 2);
	near(f.scale, 100);
	near(f.hi, 100);
	assert_true(f.lo < 0);
	ir_cost_fit(scale, many, 3, 2, &f);
	assert_int_equal(f.status, 4);
	near(f.scale, 10000);
	near(f.lo, 10000);
	assert_true(f.hi < 0);
	ir_cost_fit(scale, many, 0, 2, &f);	/* no scale at all */
	assert_int_equal(f.status, 0);
	assert_true(f.scale < 0 && f.lo < 0 && f.hi < 0);
}

/* A prediction that is not monotone (the model is sampled): the first
 * crossing counts. */
static void test_first_crossing(void **state)
{
	const uint64_t s4[4] = { 100, 1000, 10000, 100000 };
	const double pred[4] = { 30, 10, 30, 0 };
	struct ir_cost_fit f;

	(void)state;
	ir_cost_fit(s4, pred, 4, 20, &f);	/* sd = sqrt(20) */
	assert_int_equal(f.status, 0);
	near(f.scale, 100 * pow(10, 0.5));	/* 20 between 30 and 10 */
	near(f.lo, 100 * pow(10, (10 - sqrt(20)) / 20));
	near(f.hi, 100 * pow(10, (10 + sqrt(20)) / 20));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fitted),
		cmocka_unit_test(test_small_count),
		cmocka_unit_test(test_count_above_one),
		cmocka_unit_test(test_nothing_observed),
		cmocka_unit_test(test_nothing_observed_edges),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_first_crossing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

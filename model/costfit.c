/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Calibrating the per-level costs of a trace without probes from its own
 * observed newidle pulls (issue 15).
 *
 * Estimator: the model of the recording kernel is replayed at a geometric
 * grid of cost_scale values (every level's sd->max_newidle_lb_cost scaled
 * together, the default ratios between levels kept: one parameter, since
 * the pulls of one trace cannot separate the levels' costs).  Its predicted
 * pulls fall as the costs rise (more early bails and cost stops).  The
 * estimate is where the prediction crosses the observed count, interpolated
 * in log(scale); the range is where the prediction stays within one Poisson
 * standard deviation, sqrt(observed), of it.  No pull observed gives only a
 * lower bound (the lowest scale predicting none); no pull observed and none
 * predicted at any scale gives no information; a model that pulls too few
 * at the lowest scale, or too many at the highest, gives a bound.
 */
#include <math.h>

#include "model/model.h"

/* log-interpolated scale where pred crosses target, between i and i + 1 */
static double cross(const uint64_t *scale, const double *pred, int i, double target)
{
	double a = log((double)scale[i]), b = log((double)scale[i + 1]);
	double f = pred[i] == pred[i + 1] ? 0.5 : (pred[i] - target) / (pred[i] - pred[i + 1]);

	return exp(a + f * (b - a));
}

/* the scale where the prediction first drops to target or below; -1 never */
static double first_at_or_below(const uint64_t *scale, const double *pred, int n, double target)
{
	if (pred[0] <= target)
		return (double)scale[0];
	for (int i = 0; i + 1 < n; i++)
		if (pred[i] > target && pred[i + 1] <= target)
			return cross(scale, pred, i, target);
	return -1;
}

void ir_cost_fit(const uint64_t *scale, const double *pred, int n, double observed,
		 struct ir_cost_fit *out)
{
	double sd = sqrt(observed > 1 ? observed : 1);
	bool any = false;

	out->status = 0;
	out->scale = out->lo = out->hi = -1;
	if (n <= 0)
		return;
	for (int i = 0; i < n; i++)
		any |= pred[i] > 0;
	if (observed <= 0) {
		out->status = any ? 1 : 3;
		if (any)
			out->scale = out->lo = first_at_or_below(scale, pred, n, 0.5);
		return;
	}
	if (pred[0] < observed) {
		out->status = 2;
		out->scale = out->hi = (double)scale[0];
		return;
	}
	out->scale = first_at_or_below(scale, pred, n, observed);
	if (out->scale < 0) {
		out->status = 4;	/* too many pulls even at the highest scale */
		out->scale = out->lo = (double)scale[n - 1];
		out->hi = -1;
		return;
	}
	out->lo = first_at_or_below(scale, pred, n, observed + sd);
	out->hi = first_at_or_below(scale, pred, n, observed - sd);
	if (out->lo < 0)
		out->lo = (double)scale[0];
}

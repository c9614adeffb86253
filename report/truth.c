/* SPDX-License-Identifier: GPL-2.0-only */
/* Ground-truth tallies: our reconstruction and model against newidle probes. */
#include <math.h>

#include "report/report.h"

void ir_truth_add(struct ir_truth *t, const struct ir_point *pt, const struct ir_decision_ctx *ctx,
		  const struct ir_decision *d, const struct ir_outcome *o)
{
	const struct ir_probe_entry *v = &pt->probe;
	bool kernel_bail, kernel_pulled;

	if (!pt->has_probe)
		return;
	if (v->avg_idle > 0) {
		double e = fabs((double)pt->avg_idle - (double)v->avg_idle) / (double)v->avg_idle;
		size_t b = e >= 1.0 ? IR_TRUTH_BINS : (size_t)(e * IR_TRUTH_BINS);

		t->err_bins[b]++;
		t->err_n++;
	}
	if (v->rd_overload >= 0) {
		t->ovl_n++;
		t->ovl_agree += pt->overload == (v->rd_overload != 0);
	}
	/* v5.13+ newidle_balance() returns before any policy check when
	 * this_rq->ttwu_pending (e5e678e4fea2): ir_probe_early_bail() counts the
	 * probed flag, and the reconstructed one is an early bail whichever
	 * policy decides the rest */
	kernel_bail = ir_probe_early_bail(v);
	t->bail_n++;
	t->bail_agree += kernel_bail == (d->bail != IR_BAIL_NONE || pt->ttwu_pending);
	if (pt->probe_ret >= 0) {
		kernel_pulled = pt->probe_ret > 0;
		t->pull_obs += kernel_pulled;
		t->pull_pred += o->pulled;
		t->pull_tp += kernel_pulled && o->pulled;
		if (kernel_pulled && pt->kind == IR_PT_PULLED) {
			for (int l = 0; l < ctx->nr_levels; l++)
				if (pt->ring[l].pid == pt->pulled_pid) {
					t->actual[ctx->kind[l]]++;
					break;
				}
		}
	}
}

void ir_truth_seeds(struct ir_truth *t, const struct ir_tally *k)
{
	if (k->nr_seeds <= 1)
		return;
	t->randomised = true;
	/* the expected value over seeds replaces seed 0's draw, over the same
	 * calls ir_truth_add() counted (probed, with an exit probe) */
	t->pull_pred_seeds = k->s_probed_pulls;
	t->pull_tp_mean = k->s_probed_both.mean;
	t->pull_pred = (uint64_t)(k->s_probed_pulls.mean + 0.5);
	t->pull_tp = (uint64_t)(k->s_probed_both.mean + 0.5);
	for (int l = 0; l < IR_LVL__COUNT; l++)
		t->expected[l] = k->s_level_pulls[l].mean;
}

double ir_truth_err_quantile(const struct ir_truth *t, double q)
{
	uint64_t want, seen = 0;

	if (!t->err_n)
		return -1;
	want = (uint64_t)ceil(q * (double)t->err_n);
	if (!want)
		want = 1;
	for (size_t b = 0; b <= IR_TRUTH_BINS; b++) {
		seen += t->err_bins[b];
		if (seen >= want)
			return (double)(b + 1) / IR_TRUTH_BINS;	/* upper edge of the bin */
	}
	return 1.0;
}

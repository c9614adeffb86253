/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-policy, per-level and per-CPU totals of decisions and outcomes (SPEC 7). */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

int ir_tally_init(struct ir_tally *t, const struct ir_policy_params *p, int nr_cpus)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", ir_policy_name(p->kind));
	snprintf(t->label, sizeof(t->label), "%s", p->label[0] ? p->label : t->name);
	ir_policy_params_format(p, t->params, sizeof(t->params));
	t->sweep = -1;
	t->nr_cpus = nr_cpus;
	t->cpu = calloc((size_t)nr_cpus, sizeof(*t->cpu));
	return t->cpu ? 0 : -1;
}

void ir_tally_add(struct ir_tally *t, const struct ir_point *pt,
		  const struct ir_decision *d, const struct ir_outcome *o)
{
	struct ir_tally_cpu *c = pt->cpu >= 0 && pt->cpu < t->nr_cpus ? &t->cpu[pt->cpu] : NULL;

	t->points++;
	t->bails[d->bail]++;
	t->attempts += (uint64_t)o->attempts;
	t->cost_ns += o->cost_ns;
	for (int i = 0; i < o->attempts && i < d->nr_tried; i++) {
		t->level[d->kind[i]].attempts++;
		t->level[d->kind[i]].cost_ns += d->cost[i];
	}
	if (o->pulled) {
		t->pulls++;
		t->moved += (uint64_t)o->moved;
		t->level[o->level_kind].moved += (uint64_t)o->moved;
		t->level[o->level_kind].pulls++;
		t->predicted++;
	}
	t->idle_recovered_ns += o->idle_recovered_ns;
	t->idle_lost_ns += o->idle_lost_ns;
	if (pt->kind == IR_PT_PULLED) {
		t->observed++;
		if (o->pulled)
			t->true_pos++;
	}
	if (c) {
		c->pulls += o->pulled;
		c->attempts += (uint64_t)o->attempts;
		c->idle_recovered_ns += o->idle_recovered_ns;
		c->idle_lost_ns += o->idle_lost_ns;
		c->cost_ns += o->cost_ns;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* mean and the 5th/95th percentiles (nearest rank) of n values; sorts v */
static struct ir_spread spread(uint64_t *v, int n)
{
	struct ir_spread s = { 0, 0, 0 };
	double sum = 0;

	if (n <= 0)
		return s;
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	for (int i = 0; i < n; i++)
		sum += (double)v[i];
	s.mean = sum / n;
	s.p5 = (double)v[(int)(0.05 * (n - 1) + 0.5)];
	s.p95 = (double)v[(int)(0.95 * (n - 1) + 0.5)];
	return s;
}

/* Round per-level means so that they add up to the rounded total (largest
 * remainder): a report's by-level figures always sum to its total. */
static void apportion(const double *mean, uint64_t total, uint64_t *out)
{
	uint64_t sum = 0;

	for (int l = 0; l < IR_LVL__COUNT; l++) {
		out[l] = (uint64_t)mean[l];
		sum += out[l];
	}
	while (sum < total) {
		int best = -1;
		double frac = -1;

		for (int l = 0; l < IR_LVL__COUNT; l++) {
			double f = mean[l] - (double)out[l];

			if (mean[l] > 0 && f > frac) {
				frac = f;
				best = l;
			}
		}
		if (best < 0)
			break;
		out[best]++;
		sum++;
	}
}

void ir_tally_seeds(struct ir_tally *t, const struct ir_policy_run *r)
{
	uint64_t v[1024];
	int n = r->nr_seeds < 1024 ? r->nr_seeds : 1024;

	if (n <= 1 || !r->seed_tot)
		return;
	t->nr_seeds = n;
	for (int i = 0; i < 3; i++) {
		struct ir_spread *out = i == 0 ? &t->s_attempts : i == 1 ? &t->s_pulls : &t->s_moved;

		for (int s = 0; s < n; s++)
			v[s] = i == 0 ? r->seed_tot[s].attempts : i == 1 ? r->seed_tot[s].pulls : r->seed_tot[s].moved;
		*out = spread(v, n);
	}
	for (int l = 0; l < IR_LVL__COUNT; l++)
		for (int i = 0; i < 3; i++) {
			struct ir_spread *out = i == 0 ? &t->s_level_attempts[l] : i == 1 ? &t->s_level_pulls[l] :
				&t->s_level_moved[l];

			for (int s = 0; s < n; s++)
				v[s] = i == 0 ? r->seed_tot[s].level_attempts[l] : i == 1 ?
					r->seed_tot[s].level_pulls[l] : r->seed_tot[s].level_moved[l];
			*out = spread(v, n);
		}
	for (int i = 0; i < 2; i++) {
		for (int s = 0; s < n; s++)
			v[s] = i == 0 ? r->seed_tot[s].probed_pulls : r->seed_tot[s].probed_both;
		*(i == 0 ? &t->s_probed_pulls : &t->s_probed_both) = spread(v, n);
	}
	/* the headline figures are the expected values, not seed 0's draw */
	t->attempts = (uint64_t)(t->s_attempts.mean + 0.5);
	t->pulls = (uint64_t)(t->s_pulls.mean + 0.5);
	t->predicted = t->pulls;
	t->moved = (uint64_t)(t->s_moved.mean + 0.5);
	{
		double c = 0, rec = 0, lost = 0;

		for (int s = 0; s < n; s++) {
			c += (double)r->seed_tot[s].cost_ns;
			rec += (double)r->seed_tot[s].idle_recovered_ns;
			lost += (double)r->seed_tot[s].idle_lost_ns;
		}
		t->cost_ns = (uint64_t)(c / n + 0.5);
		t->idle_recovered_ns = (uint64_t)(rec / n + 0.5);
		t->idle_lost_ns = (uint64_t)(lost / n + 0.5);
	}
	{
		double m[4][IR_LVL__COUNT];
		uint64_t out[4][IR_LVL__COUNT];
		const uint64_t tot[4] = { t->attempts, t->pulls, t->moved, t->cost_ns };

		for (int l = 0; l < IR_LVL__COUNT; l++) {
			double c = 0;

			for (int s = 0; s < n; s++)
				c += (double)r->seed_tot[s].level_cost_ns[l];
			m[0][l] = t->s_level_attempts[l].mean;
			m[1][l] = t->s_level_pulls[l].mean;
			m[2][l] = t->s_level_moved[l].mean;
			m[3][l] = c / n;
		}
		for (int i = 0; i < 4; i++)
			apportion(m[i], tot[i], out[i]);
		for (int l = 0; l < IR_LVL__COUNT; l++) {
			t->level[l].attempts = out[0][l];
			t->level[l].pulls = out[1][l];
			t->level[l].moved = out[2][l];
			t->level[l].cost_ns = out[3][l];
		}
	}
}

void ir_tally_free(struct ir_tally *t)
{
	free(t->cpu);
	t->cpu = NULL;
}

int ir_tallies_lane(const struct ir_tallies *ts, int i)
{
	int lane = 0;

	if (i < 0 || i >= ts->n || ts->t[i].sweep >= 0)
		return -1;
	for (int j = 0; j < i; j++)
		lane += ts->t[j].sweep < 0;
	return lane < IR_TL_MAX_LANES ? lane : -1;
}

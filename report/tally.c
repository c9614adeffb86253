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

void ir_tally_free(struct ir_tally *t)
{
	free(t->cpu);
	t->cpu = NULL;
}

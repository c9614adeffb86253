/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Calibration from newidle probes (SPEC 6, 8): what the kernel's own
 * numbers were at every sched_balance_newidle() call, so traces without
 * probes can be replayed with measured instead of assumed parameters.
 *
 *  - per domain level, sd->max_newidle_lb_cost as the probe saw it;
 *  - this_rq->max_idle_balance_cost (the avg_idle cap is twice it);
 *  - the call's duration (kretprobe ts - kprobe ts), i.e. curr_cost plus
 *    the probe overhead;
 *  - the lead of newidle entry over the sched_switch that follows it
 *    (idle_stamp is taken at entry, the trace shows the switch).
 *
 * Samples are kept (probed traces hold thousands of calls, not millions);
 * quantiles are exact.
 */
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

struct vec {
	uint64_t *v;
	size_t n, cap;
};

struct ir_calib {
	int nr_cpus;
	struct vec s[IR_CALIB__COUNT];
	uint64_t *entry_ts;	/* per CPU: open call, 0 none */
	uint64_t *lead_from;	/* per CPU: entry awaiting its switch */
	int32_t *entry_pid;
	uint64_t calls;
	int oom;
};

const char *const ir_calib_name[IR_CALIB__COUNT] = {
	"sd0_max_newidle_lb_cost", "sd1_max_newidle_lb_cost", "sd2_max_newidle_lb_cost",
	"max_idle_balance_cost", "avg_idle", "call_duration", "entry_lead",
};

static void push(struct ir_calib *c, int k, int64_t v)
{
	struct vec *x = &c->s[k];

	if (v < 0)
		return;
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 1024;
		uint64_t *nv = realloc(x->v, cap * sizeof(*nv));

		if (!nv) {
			c->oom = 1;
			return;
		}
		x->v = nv;
		x->cap = cap;
	}
	x->v[x->n++] = (uint64_t)v;
}

struct ir_calib *ir_calib_new(int nr_cpus)
{
	struct ir_calib *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->nr_cpus = nr_cpus;
	c->entry_ts = calloc((size_t)nr_cpus, sizeof(*c->entry_ts));
	c->lead_from = calloc((size_t)nr_cpus, sizeof(*c->lead_from));
	c->entry_pid = calloc((size_t)nr_cpus, sizeof(*c->entry_pid));
	if (!c->entry_ts || !c->lead_from || !c->entry_pid) {
		ir_calib_free(c);
		return NULL;
	}
	return c;
}

void ir_calib_feed(struct ir_calib *c, const struct ir_event *ev)
{
	int cpu = ev->cpu;

	if (cpu < 0 || cpu >= c->nr_cpus)
		return;
	switch (ev->type) {
	case IR_EV_PROBE_ENTRY:
		c->calls++;
		for (int l = 0; l < 3; l++)
			push(c, IR_CALIB_SD0 + l, ev->probe_entry.v.sd_max_newidle_lb_cost[l]);
		push(c, IR_CALIB_MAX_IDLE_BALANCE_COST, ev->probe_entry.v.max_idle_balance_cost);
		push(c, IR_CALIB_AVG_IDLE, ev->probe_entry.v.avg_idle);
		c->entry_ts[cpu] = ev->ts;
		c->lead_from[cpu] = ev->ts;
		c->entry_pid[cpu] = ev->common_pid;
		break;
	case IR_EV_PROBE_EXIT:
		if (c->entry_ts[cpu])
			push(c, IR_CALIB_DURATION, (int64_t)(ev->ts - c->entry_ts[cpu]));
		c->entry_ts[cpu] = 0;
		break;
	case IR_EV_SWITCH:
		/* the switch out of the task that entered newidle balance */
		if (c->lead_from[cpu] && ev->sw.prev_pid == c->entry_pid[cpu] && ev->sw.prev_pid)
			push(c, IR_CALIB_LEAD, (int64_t)(ev->ts - c->lead_from[cpu]));
		c->lead_from[cpu] = 0;
		break;
	default:
		break;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int ir_calib_result(struct ir_calib *c, struct ir_calib_stats out[IR_CALIB__COUNT], uint64_t *calls)
{
	*calls = c->calls;
	for (int k = 0; k < IR_CALIB__COUNT; k++) {
		struct vec *x = &c->s[k];
		struct ir_calib_stats *o = &out[k];

		memset(o, 0, sizeof(*o));
		o->n = x->n;
		if (!x->n)
			continue;
		qsort(x->v, x->n, sizeof(*x->v), cmp_u64);
		/* nearest-rank quantiles */
		o->min = x->v[0];
		o->p10 = x->v[(x->n - 1) / 10];
		o->p50 = x->v[(x->n - 1) / 2];
		o->p90 = x->v[(x->n - 1) * 9 / 10];
		o->max = x->v[x->n - 1];
	}
	return c->oom ? -1 : 0;
}

void ir_calib_free(struct ir_calib *c)
{
	if (!c)
		return;
	for (int k = 0; k < IR_CALIB__COUNT; k++)
		free(c->s[k].v);
	free(c->entry_ts);
	free(c->lead_from);
	free(c->entry_pid);
	free(c);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/* A simulated schedule as closed records, bounded (sim/capture.h). */
#include <stdlib.h>
#include <string.h>

#include "sim/capture.h"

const char *const ir_cap_cause_name[IR_CAP__CAUSES] = { "wakeup", "newidle", "periodic" };

struct ir_capture *ir_capture_new(int nr_cpus, uint64_t max)
{
	struct ir_capture *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->max = max;
	c->nr_cpus = nr_cpus > 0 ? nr_cpus : 0;
	c->cpu = calloc((size_t)c->nr_cpus + 1, sizeof(*c->cpu));
	if (!c->cpu) {
		free(c);
		return NULL;
	}
	for (int i = 0; i < c->nr_cpus; i++)
		c->cpu[i].task = IR_CAP_NONE;
	return c;
}

/* Keep r if there is room (grown by doubling, never past max). */
static void add(struct ir_capture *c, const struct ir_cap_rec *r)
{
	if (c->n == c->max) {
		c->left_out[r->kind]++;
		return;
	}
	if (c->n == c->cap) {
		uint64_t ncap = c->cap ? c->cap * 2 : 1024;
		struct ir_cap_rec *v;

		if (ncap > c->max)
			ncap = c->max;
		v = realloc(c->rec, ncap * sizeof(*v));
		if (!v) {
			c->oom = true;
			c->left_out[r->kind]++;
			return;
		}
		c->rec = v;
		c->cap = ncap;
	}
	/* field by field over zeroes: a record's padding is never stack garbage
	 * (records compare with memcmp) */
	memset(&c->rec[c->n], 0, sizeof(*r));
	c->rec[c->n].ts = r->ts;
	c->rec[c->n].dur = r->dur;
	c->rec[c->n].task = r->task;
	c->rec[c->n].cpu = r->cpu;
	c->rec[c->n].from = r->from;
	c->rec[c->n].kind = r->kind;
	c->rec[c->n].arg = r->arg;
	c->n++;
	c->kept[r->kind]++;
}

void ir_capture_switch(struct ir_capture *c, int cpu, uint64_t ts, int32_t task)
{
	struct ir_cap_cpu *s;

	if (cpu < 0 || cpu >= c->nr_cpus)
		return;
	s = &c->cpu[cpu];
	if (s->task == task && task != IR_CAP_NONE)
		return;		/* still the same */
	if (ts < s->start)
		ts = s->start;	/* never a slice of negative length */
	if (s->task != IR_CAP_NONE && ts > s->start)
		add(c, &(struct ir_cap_rec){ .ts = s->start, .dur = ts - s->start, .task = s->task,
					     .cpu = (uint16_t)cpu, .kind = IR_CAP_SLICE });
	s->task = task;
	s->start = ts;
}

void ir_capture_newidle(struct ir_capture *c, int cpu, uint64_t ts, uint64_t cost_ns, int32_t pulled,
			int from, int attempts)
{
	if (cpu < 0 || cpu >= c->nr_cpus)
		return;
	add(c, &(struct ir_cap_rec){ .ts = ts, .dur = cost_ns, .task = pulled, .cpu = (uint16_t)cpu,
				     .from = (uint16_t)(pulled >= 0 && from >= 0 ? from : cpu),
				     .kind = IR_CAP_NEWIDLE,
				     .arg = (uint8_t)(attempts < 0 ? 0 : attempts > 255 ? 255 : attempts) });
}

void ir_capture_migrate(struct ir_capture *c, int32_t task, int from, int to, uint64_t ts,
			enum ir_cap_cause cause)
{
	if (from < 0 || from >= c->nr_cpus || to < 0 || to >= c->nr_cpus)
		return;
	add(c, &(struct ir_cap_rec){ .ts = ts, .task = task, .cpu = (uint16_t)to, .from = (uint16_t)from,
				     .kind = IR_CAP_MIGRATE, .arg = (uint8_t)cause });
}

/* Is ts inside a kept slice of cpu?  at[cpu] .. at[cpu + 1] index that
 * CPU's slices in slice, in time order (a CPU's slices never overlap). */
static bool in_slice(const struct ir_capture *c, const uint64_t *at, const uint64_t *slice, int cpu, uint64_t ts)
{
	uint64_t lo = at[cpu], hi = at[cpu + 1];

	while (lo < hi) {	/* the last slice starting at or before ts */
		uint64_t mid = lo + (hi - lo) / 2;

		if (c->rec[slice[mid]].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == at[cpu])
		return false;
	{
		const struct ir_cap_rec *r = &c->rec[slice[lo - 1]];

		return ts <= r->ts + r->dur;
	}
}

/* With slices left out, a kept migration may fall where its CPUs' slices
 * were cut (a slice is recorded when it ends, after the migration in it):
 * such migrations are counted as left out too, so that every kept one
 * starts and ends inside kept slices. */
static void drop_cut_migrations(struct ir_capture *c)
{
	uint64_t *at = calloc((size_t)c->nr_cpus + 1, sizeof(*at));
	uint64_t *slice = malloc((c->n ? c->n : 1) * sizeof(*slice)), *fill = NULL, k = 0;
	bool *cut = calloc(c->n ? c->n : 1, sizeof(*cut));

	if (at)
		fill = calloc((size_t)c->nr_cpus + 1, sizeof(*fill));
	if (!at || !slice || !fill || !cut) {
		c->oom = true;
		goto out;
	}
	for (uint64_t i = 0; i < c->n; i++)
		if (c->rec[i].kind == IR_CAP_SLICE && c->rec[i].cpu < c->nr_cpus)
			at[c->rec[i].cpu + 1]++;
	for (int cpu = 0; cpu < c->nr_cpus; cpu++)
		at[cpu + 1] += at[cpu];
	for (uint64_t i = 0; i < c->n; i++)
		if (c->rec[i].kind == IR_CAP_SLICE && c->rec[i].cpu < c->nr_cpus)
			slice[at[c->rec[i].cpu] + fill[c->rec[i].cpu]++] = i;
	for (uint64_t i = 0; i < c->n; i++) {
		const struct ir_cap_rec *r = &c->rec[i];

		cut[i] = r->kind == IR_CAP_MIGRATE &&
			 !(in_slice(c, at, slice, r->from, r->ts) && in_slice(c, at, slice, r->cpu, r->ts));
	}
	for (uint64_t i = 0; i < c->n; i++) {
		if (cut[i]) {
			c->kept[IR_CAP_MIGRATE]--;
			c->left_out[IR_CAP_MIGRATE]++;
			continue;
		}
		c->rec[k++] = c->rec[i];
	}
	c->n = k;
out:
	free(at);
	free(slice);
	free(fill);
	free(cut);
}

void ir_capture_finish(struct ir_capture *c, uint64_t end)
{
	for (int i = 0; i < c->nr_cpus; i++)
		ir_capture_switch(c, i, end, IR_CAP_NONE);
	if (c->left_out[IR_CAP_SLICE])
		drop_cut_migrations(c);
}

void ir_capture_free(struct ir_capture *c)
{
	if (!c)
		return;
	free(c->rec);
	free(c->cpu);
	free(c);
}

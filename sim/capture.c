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

void ir_capture_finish(struct ir_capture *c, uint64_t end)
{
	for (int i = 0; i < c->nr_cpus; i++)
		ir_capture_switch(c, i, end, IR_CAP_NONE);
}

void ir_capture_free(struct ir_capture *c)
{
	if (!c)
		return;
	free(c->rec);
	free(c->cpu);
	free(c);
}

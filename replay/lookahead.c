/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runqueues as each level of a newidle walk saw them: the rule, the
 * ring of runqueue changes, and the per-level patching of a point's entry
 * snapshot.  lookahead.h states the kernel code it follows.
 */
#include <stdlib.h>
#include <string.h>

#include "replay/lookahead.h"

/* Records a busy 8-CPU guest makes in tens of ms, per CPU: the ring holds
 * the window of the longest calls; a point whose records it no longer
 * holds has no look-ahead (counted, see ir_la_capture()). */
#define LA_PER_CPU 2048u
#define LA_MAX (1u << 20)

int ir_la_log_init(struct ir_la_log *log, int nr_cpus)
{
	uint32_t want = (uint32_t)(nr_cpus > 0 ? nr_cpus : 1) * LA_PER_CPU, cap = 1;

	if (want > LA_MAX || nr_cpus > (int)(LA_MAX / LA_PER_CPU))
		want = LA_MAX;
	while (cap < want)
		cap <<= 1;
	log->rec = calloc(cap, sizeof(*log->rec));
	log->cap = cap;
	log->seq = 0;
	return log->rec ? 0 : -1;
}

void ir_la_log_free(struct ir_la_log *log)
{
	free(log->rec);
	log->rec = NULL;
}

void ir_la_share_add(struct ir_la_log *log, uint64_t at, uint64_t dur)
{
	if (!dur || at > dur)
		return;
	log->share_hist[at * 100 / dur]++;
	log->share_n++;
}

unsigned ir_la_share(const struct ir_la_log *log, unsigned given)
{
	uint32_t half, n = 0;

	if (given)
		return given < 100 ? given : 100;
	if (log->share_n < IR_LA_SHARE_MIN)
		return 100;
	half = (log->share_n + 1) / 2;
	for (unsigned s = 0; s <= 100; s++)
		if ((n += log->share_hist[s]) >= half)
			return s ? s : 1;
	return 100;
}

void ir_la_level_times(uint64_t entry, const int64_t *cost, int nr_levels, uint64_t dur, uint64_t cap,
		       uint64_t *level_ts)
{
	uint64_t sum = 0, bound = dur && dur < cap ? dur : cap;

	for (int l = 0; l < nr_levels && l < IR_MAX_LEVELS; l++) {
		if (cost[l] > 0)
			sum += (uint64_t)cost[l];
		level_ts[l] = entry + (sum < bound ? sum : bound);
	}
}

void ir_la_capture(const struct ir_la_log *log, struct ir_la_win *w, uint64_t from, int c)
{
	uint64_t last = w->nr_levels > 0 ? w->level_ts[w->nr_levels - 1] : 0;

	w->n = 0;
	w->truncated = false;
	if (w->nr_levels <= 0)
		return;
	if (log->seq - from > log->cap) {
		/* the ring no longer holds the call's first records: levels read
		 * the entry snapshot */
		w->truncated = true;
		return;
	}
	for (uint64_t q = from; q < log->seq; q++) {
		const struct ir_la_rec *r = &log->rec[q & (log->cap - 1)];

		if (r->ts > last)
			break;
		if (r->cpu == c) {
			/* c's own pull (on_migrate(): dequeue from the source, then
			 * enqueue here at once): the source keeps it, for every
			 * policy decides its own pulls */
			if (r->kind == IR_LA_ENQ && w->n && w->rec[w->n - 1].kind == IR_LA_DEQ &&
			    w->rec[w->n - 1].pid == r->pid && w->rec[w->n - 1].ts == r->ts)
				w->n--;
			continue;
		}
		if (w->n == IR_LA_WIN) {
			/* more changes than kept: later levels read the runqueues
			 * as of the last record kept */
			uint64_t upto = w->rec[w->n - 1].ts;

			w->truncated = true;
			for (int l = 0; l < w->nr_levels; l++)
				if (w->level_ts[l] > upto)
					w->level_ts[l] = upto;
			/* records at upto beyond the window are not applied: drop
			 * the kept ones at that same time so each level sees a
			 * whole instant */
			while (w->n && w->rec[w->n - 1].ts == upto)
				w->n--;
			return;
		}
		w->rec[w->n++] = *r;
	}
}

static void apply_one(const struct ir_la_rec *r, struct ir_rq_snap *q)
{
	switch (r->kind) {
	case IR_LA_ENQ:
		if (q->nr_running < 0xffff)
			q->nr_running++;
		q->util_est += r->util_est;	/* util_est_enqueue() */
		if (!r->rt && r->pos < IR_SNAP_TASKS) {
			int pos = r->pos < q->nr_tasks ? r->pos : q->nr_tasks;
			int keep = q->nr_tasks < IR_SNAP_TASKS ? q->nr_tasks : IR_SNAP_TASKS - 1;

			memmove(&q->task[pos + 1], &q->task[pos], sizeof(q->task[0]) * (size_t)(keep - pos));
			q->task[pos] = (struct ir_snap_task){ .pid = r->pid, .prio = -1, .exec_start = r->exec_start,
				.pinned = r->pinned != 0, .util = r->util,
				.util_est = r->util_est, .load = r->load };
			q->nr_tasks = (uint16_t)(keep + 1);
		}
		break;
	case IR_LA_DEQ:
		if (q->nr_running)
			q->nr_running--;
		for (int i = 0; i < q->nr_tasks; i++)
			if (q->task[i].pid == r->pid) {
				/* util_est_dequeue(): of a task the snapshot holds */
				q->util_est = q->util_est > q->task[i].util_est ? q->util_est - q->task[i].util_est : 0;
				memmove(&q->task[i], &q->task[i + 1], sizeof(q->task[0]) * (size_t)(q->nr_tasks - i - 1));
				q->nr_tasks--;
				break;
			}
		break;
	case IR_LA_IDLE:
		if (!q->curr_idle) {
			q->curr_idle = true;
			q->idle_since = r->ts;
			if (q->nr_running)
				q->nr_running--;
			if (!q->nr_running)
				q->util_est = 0;	/* nothing enqueued */
		}
		break;
	case IR_LA_BUSY:
		if (q->curr_idle) {
			q->curr_idle = false;
			q->idle_since = 0;
			if (q->nr_running < 0xffff)
				q->nr_running++;
		}
		break;
	}
}

int ir_la_apply(const struct ir_la_win *w, int level, int done, struct ir_rq_snap *out, int nr_cpus)
{
	int i = done;

	for (; i < w->n && w->rec[i].ts <= w->level_ts[level]; i++)
		if (w->rec[i].cpu >= 0 && w->rec[i].cpu < nr_cpus)
			apply_one(&w->rec[i], &out[w->rec[i].cpu]);
	return i;
}

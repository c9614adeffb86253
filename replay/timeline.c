/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-CPU timeline for pictures: busy share, newidle points and observed
 * newidle pulls per time bucket, over the whole trace and over a detailed
 * window.  The trace's length is not known while streaming, so the
 * overview starts with fine buckets and merges neighbours in pairs when it
 * runs out of them: memory is fixed (nr_cpus x IR_TL_BUCKETS).
 *
 * Without --detail the detailed window is the busiest stretch: of the
 * windows of IR_TL_DEFAULT_DETAIL ns that start at the first newidle point
 * plus a whole number of detail columns, the one holding the most newidle
 * points.  On a tie, the first run of consecutive windows holding that most,
 * and its last window: a burst shorter than the window then begins at the
 * window's left edge.  Startup is rarely what a user wants to see.  A ring of 2 windows of columns follows the stream; the best window
 * so far is copied out before the ring overwrites it, so memory stays
 * nr_cpus x 3 x IR_TL_DETAIL_BUCKETS and each column is handled once.
 *
 * Lanes: per policy, the pulls it would make (summed over CPUs), kept as
 * extra rows after the CPUs' in every series and in the ring, so they follow
 * the same buckets, coarsening and busiest window.  Anomaly marks: per kind
 * the total and a bounded, evenly thinned list of (time, CPU): the list keeps
 * every stride-th event and, when full, drops every other one and doubles
 * the stride, so it spans the whole trace in IR_TL_MARKS entries.
 */
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

struct series {
	uint64_t origin, width, end;	/* buckets cover [origin, origin + n * width) */
	int n;
	double *busy;			/* [cpu * n + b], ns */
	uint32_t *newidle, *pulls;
	bool fixed;			/* the detail window does not grow */
};

/* The candidate windows' columns, bucket b (from origin) at slot b % size. */
struct busiest {
	bool on, any, copied, pending_set, run;	/* run: the last window judged was the best */
	uint64_t origin, width;		/* origin: the first newidle point */
	uint64_t r0;			/* first bucket the ring holds */
	uint64_t next;			/* next window (first bucket) to judge */
	uint64_t last;			/* last bucket with a point */
	uint64_t count, best, pending;	/* points in window next; best so far, at pending */
	int k, size;			/* k columns per window, 2k in the ring */
	double *busy;			/* [cpu * size + slot] */
	uint32_t *newidle, *pulls;
	uint64_t *points;		/* [slot], all CPUs */
};

struct marks {
	uint64_t total, stride;
	int n;
	struct ir_timeline_mark m[IR_TL_MARKS];
	uint64_t idx[IR_TL_MARKS];	/* the event's index among its kind's */
};

struct ir_timeline {
	int nr_cpus, nr_lanes, rows;	/* rows = nr_cpus + nr_lanes */
	struct marks marks[IR_ANOM__COUNT];
	struct series all, detail;
	struct busiest bz;
	uint64_t detail_off, detail_len;	/* 0 len: from the first newidle point */
	bool detail_set, started;
	uint64_t first_ts;
};

static int series_init(struct series *s, int rows, int n)
{
	s->n = n;
	s->busy = calloc((size_t)rows * (size_t)n, sizeof(*s->busy));
	s->newidle = calloc((size_t)rows * (size_t)n, sizeof(*s->newidle));
	s->pulls = calloc((size_t)rows * (size_t)n, sizeof(*s->pulls));
	return s->busy && s->newidle && s->pulls ? 0 : -1;
}

/* Double the bucket width: bucket b takes 2b and 2b+1. */
static void coarsen(struct series *s, int rows)
{
	for (int c = 0; c < rows; c++) {
		size_t o = (size_t)c * (size_t)s->n;

		for (int b = 0; b < s->n; b++) {
			int a = 2 * b, z = 2 * b + 1;

			s->busy[o + b] = (a < s->n ? s->busy[o + a] : 0) + (z < s->n ? s->busy[o + z] : 0);
			s->newidle[o + b] = (a < s->n ? s->newidle[o + a] : 0) + (z < s->n ? s->newidle[o + z] : 0);
			s->pulls[o + b] = (a < s->n ? s->pulls[o + a] : 0) + (z < s->n ? s->pulls[o + z] : 0);
		}
	}
	s->width *= 2;
}

/*
 * Everything relative to the origin, in 64 bits that cannot wrap: a trace's
 * time stamps may sit anywhere up to 2^64 - 1 (a crafted one does), and
 * origin + n * width would wrap there.  span() saturates.
 */
static uint64_t span(const struct series *s)
{
	return s->width > UINT64_MAX / (uint64_t)s->n ? UINT64_MAX : (uint64_t)s->n * s->width;
}

static bool fits(struct series *s, int rows, uint64_t ts)
{
	if (ts < s->origin || !s->width)
		return false;
	/* coarsening stops once the series covers all of 64 bits */
	while (!s->fixed && ts - s->origin >= span(s) && span(s) < UINT64_MAX)
		coarsen(s, rows);
	return ts - s->origin < span(s);
}

static void add_busy(struct series *s, int rows, int cpu, uint64_t a, uint64_t z)
{
	uint64_t lim;

	if (a < s->origin)
		a = s->origin;
	if (!s->width || z <= a)
		return;
	fits(s, rows, z - 1);	/* the overview grows to cover it */
	a -= s->origin;
	z -= s->origin;
	lim = span(s);
	if (a >= lim)
		return;
	if (z > lim)
		z = lim;
	while (a < z) {
		uint64_t b = a / s->width;
		uint64_t bend = b + 1 < (uint64_t)s->n && s->width <= UINT64_MAX / (b + 1) ? (b + 1) * s->width : lim;
		uint64_t e = z < bend ? z : bend;

		if (b >= (uint64_t)s->n || e <= a)
			break;
		s->busy[(size_t)cpu * (size_t)s->n + b] += (double)(e - a);
		a = e;
	}
	if (s->origin + z > s->end)
		s->end = s->origin + z;
}

/* rows: all of them (coarsening moves every row); row: the one counted */
static void add_point(struct series *s, int rows, int row, uint64_t ts, bool point, bool pulled)
{
	uint64_t b;

	if (!s->width || !fits(s, rows, ts))
		return;
	b = (ts - s->origin) / s->width;
	if (b >= (uint64_t)s->n)
		return;
	s->newidle[(size_t)row * (size_t)s->n + b] += point;
	s->pulls[(size_t)row * (size_t)s->n + b] += pulled;
	if (ts > s->end)
		s->end = ts;
}

static void free_rows(struct ir_timeline *t)
{
	free(t->all.busy);
	free(t->all.newidle);
	free(t->all.pulls);
	free(t->detail.busy);
	free(t->detail.newidle);
	free(t->detail.pulls);
	free(t->bz.busy);
	free(t->bz.newidle);
	free(t->bz.pulls);
	free(t->bz.points);
	t->all.busy = t->detail.busy = t->bz.busy = NULL;
	t->all.newidle = t->all.pulls = t->detail.newidle = t->detail.pulls = NULL;
	t->bz.newidle = t->bz.pulls = NULL;
	t->bz.points = NULL;
}

static int alloc_rows(struct ir_timeline *t)
{
	if (series_init(&t->all, t->rows, IR_TL_BUCKETS) || series_init(&t->detail, t->rows, IR_TL_DETAIL_BUCKETS))
		return -1;
	t->detail.fixed = true;
	if (!t->detail_len) {
		struct busiest *z = &t->bz;
		size_t n = (size_t)t->rows * 2 * IR_TL_DETAIL_BUCKETS;

		z->on = true;
		z->k = IR_TL_DETAIL_BUCKETS;
		z->size = 2 * IR_TL_DETAIL_BUCKETS;
		z->width = IR_TL_DEFAULT_DETAIL / IR_TL_DETAIL_BUCKETS;
		z->busy = calloc(n, sizeof(*z->busy));
		z->newidle = calloc(n, sizeof(*z->newidle));
		z->pulls = calloc(n, sizeof(*z->pulls));
		z->points = calloc((size_t)z->size, sizeof(*z->points));
		if (!z->busy || !z->newidle || !z->pulls || !z->points)
			return -1;
	}
	return 0;
}

struct ir_timeline *ir_timeline_new(int nr_cpus, uint64_t detail_off, uint64_t detail_len)
{
	struct ir_timeline *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nr_cpus = t->rows = nr_cpus;
	t->detail_off = detail_off;
	t->detail_len = detail_len;
	for (int k = 0; k < IR_ANOM__COUNT; k++)
		t->marks[k].stride = 1;
	if (alloc_rows(t)) {
		ir_timeline_free(t);
		return NULL;
	}
	return t;
}

int ir_timeline_set_lanes(struct ir_timeline *t, int nr_lanes)
{
	if (t->started || nr_lanes < 0 || nr_lanes > IR_TL_MAX_LANES)
		return -1;
	free_rows(t);
	t->nr_lanes = nr_lanes;
	t->rows = t->nr_cpus + nr_lanes;
	return alloc_rows(t);
}

static void start_detail(struct ir_timeline *t, uint64_t start, uint64_t len)
{
	if (len > UINT64_MAX - start)	/* a window past 2^64 ends there */
		len = UINT64_MAX - start;
	t->detail.origin = start;
	t->detail.width = len / IR_TL_DETAIL_BUCKETS ? len / IR_TL_DETAIL_BUCKETS : 1;
	t->detail_set = true;
}

void ir_timeline_start(struct ir_timeline *t, uint64_t ts)
{
	if (t->started)
		return;
	t->started = true;
	t->first_ts = ts;
	t->all.origin = ts;
	t->all.width = 1000;	/* 1 us buckets to begin with */
	if (t->detail_len)
		start_detail(t, t->detail_off > UINT64_MAX - ts ? UINT64_MAX : ts + t->detail_off, t->detail_len);
}

static size_t slot(const struct busiest *z, int cpu, uint64_t b)
{
	return (size_t)cpu * (size_t)z->size + (size_t)(b % (uint64_t)z->size);
}

/* Copy the best window into the detail series; later busy time still lands there. */
static void keep_best(struct ir_timeline *t)
{
	struct busiest *z = &t->bz;
	struct series *d = &t->detail;

	if (!z->pending_set || z->copied)
		return;
	for (int c = 0; c < t->rows; c++)
		for (int i = 0; i < z->k; i++) {
			size_t o = (size_t)c * (size_t)d->n + (size_t)i, r = slot(z, c, z->pending + (uint64_t)i);
			bool held = z->pending + (uint64_t)i < z->r0 + (uint64_t)z->size;	/* else not reached yet */

			d->busy[o] = held ? z->busy[r] : 0;
			d->newidle[o] = held ? z->newidle[r] : 0;
			d->pulls[o] = held ? z->pulls[r] : 0;
		}
	/* pending * width <= ts - origin: no wrap */
	d->origin = z->origin + z->pending * z->width;
	d->width = z->width;
	t->detail_set = true;
	z->copied = true;
}

/* Judge window `next`, then move on to the following one. */
static void judge(struct busiest *z)
{
	uint64_t in = z->next + (uint64_t)z->k;

	/* a tie right after the best moves it on: a burst starts at the left edge */
	if (z->count > z->best || (z->run && z->count == z->best)) {
		z->best = z->count;
		z->pending = z->next;
		z->pending_set = true;
		z->copied = false;
		z->run = true;
	} else {
		z->run = false;
	}
	if (z->next < z->r0 + (uint64_t)z->size)	/* else not reached: its slot holds an older column */
		z->count -= z->points[z->next % (uint64_t)z->size];
	z->next++;
	if (in < z->r0 + (uint64_t)z->size && in <= z->last)	/* the column entering the window */
		z->count += z->points[in % (uint64_t)z->size];
}

static void drop_first(struct ir_timeline *t)
{
	struct busiest *z = &t->bz;

	if (z->pending_set && !z->copied && z->pending == z->r0)
		keep_best(t);
	for (int c = 0; c < t->rows; c++) {
		size_t r = slot(z, c, z->r0);

		z->busy[r] = 0;
		z->newidle[r] = z->pulls[r] = 0;
	}
	z->points[z->r0 % (uint64_t)z->size] = 0;
	z->r0++;
}

/* Judge every window that ended before bucket cb and make room for cb. */
static void advance(struct ir_timeline *t, uint64_t cb)
{
	struct busiest *z = &t->bz;
	uint64_t k = (uint64_t)z->k, size = (uint64_t)z->size;

	if (cb >= z->r0 + 2 * size) {
		/* a gap: windows after the last point hold none, so they never win */
		while (z->any && z->next <= z->last)
			judge(z);
		keep_best(t);
		memset(z->busy, 0, (size_t)t->rows * (size_t)size * sizeof(*z->busy));
		memset(z->newidle, 0, (size_t)t->rows * (size_t)size * sizeof(*z->newidle));
		memset(z->pulls, 0, (size_t)t->rows * (size_t)size * sizeof(*z->pulls));
		memset(z->points, 0, (size_t)size * sizeof(*z->points));
		z->r0 = z->next = cb - k + 1;
		z->count = 0;
		return;
	}
	while (cb >= z->next + k)
		judge(z);
	while (cb >= z->r0 + size)
		drop_first(t);
}

static void ring_busy(struct ir_timeline *t, int cpu, uint64_t a, uint64_t e)
{
	struct busiest *z = &t->bz;
	uint64_t b;

	if (!z->any || e <= z->origin)
		return;
	advance(t, (e - 1 - z->origin) / z->width);
	if (a < z->origin + z->r0 * z->width)
		a = z->origin + z->r0 * z->width;
	for (b = (a - z->origin) / z->width; a < e && b < z->r0 + (uint64_t)z->size; b++) {
		uint64_t off = (b + 1) * z->width, bend = off > UINT64_MAX - z->origin ? UINT64_MAX : z->origin + off;
		uint64_t x = e < bend ? e : bend;

		z->busy[slot(z, cpu, b)] += (double)(x - a);
		a = x;
	}
}

/* point: a newidle point (judged for the busiest window); else a lane's pull */
static void ring_point(struct ir_timeline *t, int row, uint64_t ts, bool point, bool pulled)
{
	struct busiest *z = &t->bz;
	uint64_t b;

	if (!z->any && !point)	/* a lane's pull comes with its point */
		return;
	if (!z->any) {
		z->any = true;
		z->origin = ts;
	}
	if (ts < z->origin)
		return;
	b = (ts - z->origin) / z->width;
	advance(t, b);
	if (b < z->r0)		/* out of order: its window was judged */
		return;
	z->newidle[slot(z, row, b)] += point;
	z->pulls[slot(z, row, b)] += pulled;
	if (!point)
		return;
	z->points[b % (uint64_t)z->size]++;
	if (b >= z->next && b < z->next + (uint64_t)z->k)
		z->count++;
	if (b > z->last)
		z->last = b;
}

void ir_timeline_finish(struct ir_timeline *t)
{
	struct busiest *z = &t->bz;

	if (!z->on || !z->any)
		return;
	while (z->next <= z->last)	/* windows running past the end hold what there is */
		judge(z);
	keep_best(t);
}

void ir_timeline_busy(struct ir_timeline *t, int cpu, uint64_t start, uint64_t end)
{
	if (cpu < 0 || cpu >= t->nr_cpus)	/* CPUs without data have no timeline */
		return;
	if (t->bz.on)
		ring_busy(t, cpu, start, end);
	add_busy(&t->all, t->rows, cpu, start, end);
	if (t->detail_set)
		add_busy(&t->detail, t->rows, cpu, start, end);
}

void ir_timeline_point(struct ir_timeline *t, int cpu, uint64_t ts, bool pulled)
{
	if (cpu < 0 || cpu >= t->nr_cpus)
		return;
	add_point(&t->all, t->rows, cpu, ts, true, pulled);
	if (t->bz.on)	/* the busiest window: copied into detail when known */
		ring_point(t, cpu, ts, true, pulled);
	else
		add_point(&t->detail, t->rows, cpu, ts, true, pulled);
}

void ir_timeline_lane_pull(struct ir_timeline *t, int lane, uint64_t ts)
{
	int row = t->nr_cpus + lane;

	if (lane < 0 || lane >= t->nr_lanes || !t->started)
		return;
	add_point(&t->all, t->rows, row, ts, false, true);
	/* Decisions arrive when their point closes, after later events: like
	 * busy time, a pull lands in the ring and in a window already chosen. */
	if (t->bz.on)
		ring_point(t, row, ts, false, true);
	if (!t->bz.on || t->detail_set)
		add_point(&t->detail, t->rows, row, ts, false, true);
}

void ir_timeline_mark(struct ir_timeline *t, enum ir_anomaly kind, int cpu, uint64_t ts)
{
	struct marks *m;
	uint64_t i;

	if ((int)kind < 0 || kind >= IR_ANOM__COUNT)
		return;
	m = &t->marks[kind];
	i = m->total++;
	if (i % m->stride)
		return;
	if (m->n == IR_TL_MARKS) {	/* full: keep every other one */
		int k = 0;

		m->stride *= 2;
		for (int j = 0; j < m->n; j++)
			if (!(m->idx[j] % m->stride)) {
				m->m[k] = m->m[j];
				m->idx[k++] = m->idx[j];
			}
		m->n = k;
		if (i % m->stride)
			return;
	}
	m->m[m->n] = (struct ir_timeline_mark){ .ts = ts, .cpu = cpu };
	m->idx[m->n++] = i;
}

const struct ir_timeline_mark *ir_timeline_marks(const struct ir_timeline *t, enum ir_anomaly kind, int *n,
						 uint64_t *total)
{
	if ((int)kind < 0 || kind >= IR_ANOM__COUNT) {
		*n = 0;
		*total = 0;
		return NULL;
	}
	*n = t->marks[kind].n;
	*total = t->marks[kind].total;
	return t->marks[kind].m;
}

/* Buckets in use, up to the last one anything fell in (at least one). */
static int used(const struct series *s, uint64_t end)
{
	uint64_t n;

	if (!s->width || end <= s->origin)
		return 1;
	n = (end - s->origin) / s->width + ((end - s->origin) % s->width != 0);
	return n > (uint64_t)s->n ? s->n : n < 1 ? 1 : (int)n;
}

int ir_timeline_get(const struct ir_timeline *t, bool detail, uint64_t end, struct ir_timeline_view *v)
{
	const struct series *s = detail ? &t->detail : &t->all;

	if (!s->width || (detail && !t->detail_set))
		return -1;
	v->nr_cpus = t->nr_cpus;
	v->nr_lanes = t->nr_lanes;
	v->start = s->origin;
	v->bucket = s->width;
	v->n = s->fixed ? s->n : used(s, end);
	/* saturating: a series that reaches 2^64 ends there */
	v->end = s->width > (UINT64_MAX - s->origin) / (uint64_t)v->n ? UINT64_MAX :
		s->origin + (uint64_t)v->n * s->width;
	v->stride = s->n;
	v->busy = s->busy;
	v->newidle = s->newidle;
	v->pulls = s->pulls;
	return 0;
}

void ir_timeline_free(struct ir_timeline *t)
{
	if (!t)
		return;
	free_rows(t);
	free(t);
}

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

struct ir_timeline {
	int nr_cpus;
	struct series all, detail;
	struct busiest bz;
	uint64_t detail_off, detail_len;	/* 0 len: from the first newidle point */
	bool detail_set, started;
	uint64_t first_ts;
};

static int series_init(struct series *s, int nr_cpus, int n)
{
	s->n = n;
	s->busy = calloc((size_t)nr_cpus * (size_t)n, sizeof(*s->busy));
	s->newidle = calloc((size_t)nr_cpus * (size_t)n, sizeof(*s->newidle));
	s->pulls = calloc((size_t)nr_cpus * (size_t)n, sizeof(*s->pulls));
	return s->busy && s->newidle && s->pulls ? 0 : -1;
}

/* Double the bucket width: bucket b takes 2b and 2b+1. */
static void coarsen(struct series *s, int nr_cpus)
{
	for (int c = 0; c < nr_cpus; c++) {
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

static bool fits(struct series *s, int nr_cpus, uint64_t ts)
{
	if (ts < s->origin || !s->width)
		return false;
	/* coarsening stops once the series covers all of 64 bits */
	while (!s->fixed && ts - s->origin >= span(s) && span(s) < UINT64_MAX)
		coarsen(s, nr_cpus);
	return ts - s->origin < span(s);
}

static void add_busy(struct series *s, int nr_cpus, int cpu, uint64_t a, uint64_t z)
{
	uint64_t lim;

	if (a < s->origin)
		a = s->origin;
	if (!s->width || z <= a)
		return;
	fits(s, nr_cpus, z - 1);	/* the overview grows to cover it */
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

static void add_point(struct series *s, int nr_cpus, int cpu, uint64_t ts, bool pulled)
{
	uint64_t b;

	if (!s->width || !fits(s, nr_cpus, ts))
		return;
	b = (ts - s->origin) / s->width;
	if (b >= (uint64_t)s->n)
		return;
	s->newidle[(size_t)cpu * (size_t)s->n + b]++;
	s->pulls[(size_t)cpu * (size_t)s->n + b] += pulled;
	if (ts > s->end)
		s->end = ts;
}

struct ir_timeline *ir_timeline_new(int nr_cpus, uint64_t detail_off, uint64_t detail_len)
{
	struct ir_timeline *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nr_cpus = nr_cpus;
	t->detail_off = detail_off;
	t->detail_len = detail_len;
	if (series_init(&t->all, nr_cpus, IR_TL_BUCKETS) ||
	    series_init(&t->detail, nr_cpus, IR_TL_DETAIL_BUCKETS)) {
		ir_timeline_free(t);
		return NULL;
	}
	t->detail.fixed = true;
	if (!detail_len) {
		struct busiest *z = &t->bz;
		size_t n = (size_t)nr_cpus * 2 * IR_TL_DETAIL_BUCKETS;

		z->on = true;
		z->k = IR_TL_DETAIL_BUCKETS;
		z->size = 2 * IR_TL_DETAIL_BUCKETS;
		z->width = IR_TL_DEFAULT_DETAIL / IR_TL_DETAIL_BUCKETS;
		z->busy = calloc(n, sizeof(*z->busy));
		z->newidle = calloc(n, sizeof(*z->newidle));
		z->pulls = calloc(n, sizeof(*z->pulls));
		z->points = calloc((size_t)z->size, sizeof(*z->points));
		if (!z->busy || !z->newidle || !z->pulls || !z->points) {
			ir_timeline_free(t);
			return NULL;
		}
	}
	return t;
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
	for (int c = 0; c < t->nr_cpus; c++)
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
	for (int c = 0; c < t->nr_cpus; c++) {
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
		memset(z->busy, 0, (size_t)t->nr_cpus * (size_t)size * sizeof(*z->busy));
		memset(z->newidle, 0, (size_t)t->nr_cpus * (size_t)size * sizeof(*z->newidle));
		memset(z->pulls, 0, (size_t)t->nr_cpus * (size_t)size * sizeof(*z->pulls));
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

static void ring_point(struct ir_timeline *t, int cpu, uint64_t ts, bool pulled)
{
	struct busiest *z = &t->bz;
	uint64_t b;

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
	z->newidle[slot(z, cpu, b)]++;
	z->pulls[slot(z, cpu, b)] += pulled;
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
	add_busy(&t->all, t->nr_cpus, cpu, start, end);
	if (t->detail_set)
		add_busy(&t->detail, t->nr_cpus, cpu, start, end);
}

void ir_timeline_point(struct ir_timeline *t, int cpu, uint64_t ts, bool pulled)
{
	if (cpu < 0 || cpu >= t->nr_cpus)
		return;
	add_point(&t->all, t->nr_cpus, cpu, ts, pulled);
	if (t->bz.on)	/* the busiest window: copied into detail when known */
		ring_point(t, cpu, ts, pulled);
	else
		add_point(&t->detail, t->nr_cpus, cpu, ts, pulled);
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
	free(t);
}

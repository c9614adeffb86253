/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-CPU timeline for pictures: busy share, newidle points and observed
 * newidle pulls per time bucket, over the whole trace and over a detailed
 * window.  The trace's length is not known while streaming, so the
 * overview starts with fine buckets and merges neighbours in pairs when it
 * runs out of them: memory is fixed (nr_cpus x IR_TL_BUCKETS).
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

struct ir_timeline {
	int nr_cpus;
	struct series all, detail;
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

void ir_timeline_busy(struct ir_timeline *t, int cpu, uint64_t start, uint64_t end)
{
	if (cpu < 0 || cpu >= t->nr_cpus)	/* CPUs without data have no timeline */
		return;
	add_busy(&t->all, t->nr_cpus, cpu, start, end);
	if (t->detail_set)
		add_busy(&t->detail, t->nr_cpus, cpu, start, end);
}

void ir_timeline_point(struct ir_timeline *t, int cpu, uint64_t ts, bool pulled)
{
	if (cpu < 0 || cpu >= t->nr_cpus)
		return;
	/* by default the detail window is the 20 ms from the first newidle point */
	if (!t->detail_set)
		start_detail(t, ts, 20000000);
	add_point(&t->all, t->nr_cpus, cpu, ts, pulled);
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
	free(t);
}

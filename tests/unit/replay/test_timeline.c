/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The timeline's default detail window is the busiest stretch of newidle
 * points (replay/timeline.c): checked against a brute-force count over every
 * candidate window, on hand-built and random point sets.  Each policy's
 * pulls (lanes), delivered late as the replay delivers decisions, land in
 * their columns of both series; anomaly positions are thinned to every
 * stride-th event, stride the least power of two that fits the bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "replay/replay.h"

#define MS 1000000ull
#define T0 5000000000ull
#define W (IR_TL_DEFAULT_DETAIL / IR_TL_DETAIL_BUCKETS)	/* one column */

struct pt {
	uint64_t ts;
	int cpu;
};

/* Reference: windows start at pts[0] + j * W; the most points wins; on a tie the
 * first run of consecutive windows holding the most, and its last window. */
static uint64_t brute_start(const struct pt *p, int n, uint64_t *best)
{
	int nw = (int)((p[n - 1].ts - p[0].ts) / W) + 1, j = 0;
	uint64_t *c = calloc((size_t)nw + 1, sizeof(*c));

	assert_non_null(c);
	*best = 0;
	for (int w = 0; w < nw; w++) {
		uint64_t s = p[0].ts + (uint64_t)w * W;

		for (int i = 0; i < n; i++)
			c[w] += p[i].ts >= s && p[i].ts < s + IR_TL_DEFAULT_DETAIL;
		if (c[w] > *best)
			*best = c[w];
	}
	while (c[j] != *best)
		j++;
	while (j + 1 < nw && c[j + 1] == *best)
		j++;
	free(c);
	return p[0].ts + (uint64_t)j * W;
}

static void check(const struct pt *p, int n, int nr_cpus)
{
	struct ir_timeline *t = ir_timeline_new(nr_cpus, 0, 0);
	struct ir_timeline_view v;
	uint64_t best, start = brute_start(p, n, &best), got = 0;

	assert_non_null(t);
	ir_timeline_start(t, T0);
	for (int i = 0; i < n; i++)
		ir_timeline_point(t, p[i].cpu, p[i].ts, i % 3 == 0);
	ir_timeline_finish(t);
	assert_int_equal(ir_timeline_get(t, true, p[n - 1].ts, &v), 0);
	assert_int_equal(v.start, start);
	assert_int_equal(v.end - v.start, IR_TL_DEFAULT_DETAIL);
	for (int c = 0; c < nr_cpus; c++)
		for (int b = 0; b < v.n; b++)
			got += v.newidle[c * v.stride + b];
	assert_int_equal(got, best);
	/* each point in its column */
	for (int i = 0; i < n; i++)
		if (p[i].ts >= v.start && p[i].ts < v.end)
			assert_true(v.newidle[p[i].cpu * v.stride + (int)((p[i].ts - v.start) / v.bucket)] > 0);
	ir_timeline_free(t);
}

/* Startup points first, a dense burst 300 ms later: the burst is shown. */
static void test_burst_after_startup(void **state)
{
	struct pt p[64];
	int n = 0;

	(void)state;
	for (int i = 0; i < 8; i++)
		p[n++] = (struct pt){ T0 + 100 + i * 2 * MS, 0 };
	for (int i = 0; i < 40; i++)
		p[n++] = (struct pt){ T0 + 300 * MS + i * 100000ull, i & 1 };
	for (int i = 0; i < 16; i++)
		p[n++] = (struct pt){ T0 + 900 * MS + i * 5 * MS, 1 };
	check(p, n, 2);
}

/* Two equal bursts: the earlier one; a gap of 2 s (100 ring lengths) between them. */
static void test_tie_and_gap(void **state)
{
	struct pt p[20];
	int n = 0;

	(void)state;
	for (int i = 0; i < 10; i++)
		p[n++] = (struct pt){ T0 + 50 * MS + i * MS, 0 };
	for (int i = 0; i < 10; i++)
		p[n++] = (struct pt){ T0 + 2000 * MS + i * MS, 1 };
	check(p, n, 2);
}

/* Random sets against the brute force; sorted, as the replay emits them. */
static int cmp(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void test_random(void **state)
{
	static struct pt p[400];
	unsigned seed = 7;

	(void)state;
	for (int round = 0; round < 30; round++) {
		int n = 1 + (int)(rand_r(&seed) % 400);
		uint64_t spread = (1 + rand_r(&seed) % 200) * MS;

		for (int i = 0; i < n; i++)
			p[i] = (struct pt){ T0 + (uint64_t)rand_r(&seed) * 7919 % spread, (int)(rand_r(&seed) % 4) };
		qsort(p, (size_t)n, sizeof(*p), cmp);
		check(p, n, 4);
	}
}

/* Busy time of a task running across the window reaches the detail columns,
 * even though it is reported after the window was judged. */
static void test_busy_reported_late(void **state)
{
	struct ir_timeline *t = ir_timeline_new(1, 0, 0);
	struct ir_timeline_view v;
	double sum = 0;

	(void)state;
	ir_timeline_start(t, T0);
	ir_timeline_point(t, 0, T0 + MS, false);		/* alone */
	for (int i = 0; i < 5; i++)
		ir_timeline_point(t, 0, T0 + 100 * MS + i * 1000, false);
	ir_timeline_busy(t, 0, T0 + 100 * MS + 5000, T0 + 500 * MS);	/* ends long after */
	ir_timeline_finish(t);
	assert_int_equal(ir_timeline_get(t, true, T0 + 500 * MS, &v), 0);
	assert_int_equal(v.start, T0 + 100 * MS);	/* the burst's column: 99 ms / 20 us = 4950 columns */
	for (int b = 0; b < v.n; b++)
		sum += v.busy[b];
	assert_true(sum == (double)(v.end - (T0 + 100 * MS + 5000)));
	ir_timeline_free(t);
}

/* --detail still overrides: a fixed window from the trace start. */
static void test_detail_override(void **state)
{
	struct ir_timeline *t = ir_timeline_new(1, 10 * MS, 5 * MS);
	struct ir_timeline_view v;

	(void)state;
	ir_timeline_start(t, T0);
	ir_timeline_point(t, 0, T0 + 11 * MS, false);
	for (int i = 0; i < 9; i++)
		ir_timeline_point(t, 0, T0 + 100 * MS + i, false);
	ir_timeline_finish(t);
	assert_int_equal(ir_timeline_get(t, true, T0 + 200 * MS, &v), 0);
	assert_int_equal(v.start, T0 + 10 * MS);
	assert_int_equal(v.end, T0 + 15 * MS);
	ir_timeline_free(t);
}

/* Lane pulls reported some points late: every one in its column of the
 * overview, those inside the detail window there, and the window is still
 * chosen by newidle points alone. */
static void test_lanes(void **state)
{
	enum { NL = 3 };
	static struct pt p[300];
	unsigned seed = 11;

	(void)state;
	for (int round = 0; round < 10; round++) {
		int n = 50 + (int)(rand_r(&seed) % 250);
		uint64_t spread = (20 + rand_r(&seed) % 300) * MS, best;
		struct ir_timeline *t = ir_timeline_new(2, 0, 0);
		struct ir_timeline_view v;
		uint64_t want_all[NL] = { 0 }, got_all[NL] = { 0 }, want_d[NL] = { 0 }, got_d[NL] = { 0 }, start;
		bool pull[300][NL];

		assert_non_null(t);
		assert_int_equal(ir_timeline_set_lanes(t, NL), 0);
		for (int i = 0; i < n; i++)
			p[i] = (struct pt){ T0 + (uint64_t)rand_r(&seed) * 7919 % spread, (int)(rand_r(&seed) % 2) };
		qsort(p, (size_t)n, sizeof(*p), cmp);
		start = brute_start(p, n, &best);
		ir_timeline_start(t, T0);
		/* a point's decisions arrive once the trace is 45 ms further on:
		 * past the ring of 2 x 20 ms, so some land after their column left it */
		for (int i = 0, j = 0; i <= n; i++) {
			if (i < n) {
				ir_timeline_point(t, p[i].cpu, p[i].ts, false);
				for (int l = 0; l < NL; l++)
					pull[i][l] = rand_r(&seed) % (l + 2) == 0;
			}
			for (; j < i && (i == n || p[i].ts - p[j].ts > 45 * MS); j++)
				for (int l = 0; l < NL; l++)
					if (pull[j][l]) {
						ir_timeline_lane_pull(t, l, p[j].ts);
						want_all[l]++;
						want_d[l] += p[j].ts >= start && p[j].ts < start + IR_TL_DEFAULT_DETAIL;
					}
		}
		ir_timeline_finish(t);
		assert_int_equal(ir_timeline_get(t, false, p[n - 1].ts + 1, &v), 0);
		assert_int_equal(v.nr_lanes, NL);
		for (int l = 0; l < NL; l++)
			for (int b = 0; b < v.n; b++)
				got_all[l] += v.pulls[(v.nr_cpus + l) * v.stride + b];
		for (int i = 0; i < n; i++)	/* in its column */
			for (int l = 0; l < NL; l++)
				if (pull[i][l])
					assert_true(v.pulls[(v.nr_cpus + l) * v.stride + (int)((p[i].ts - v.start) / v.bucket)] > 0);
		assert_int_equal(ir_timeline_get(t, true, p[n - 1].ts, &v), 0);
		assert_int_equal(v.start, start);	/* lanes do not move the window */
		for (int l = 0; l < NL; l++) {
			for (int b = 0; b < v.n; b++)
				got_d[l] += v.pulls[(v.nr_cpus + l) * v.stride + b];
			assert_int_equal(got_all[l], want_all[l]);
			assert_int_equal(got_d[l], want_d[l]);
		}
		ir_timeline_free(t);
	}
}

/* No lanes once started; a lane out of range is ignored. */
static void test_lanes_bounds(void **state)
{
	struct ir_timeline *t = ir_timeline_new(1, 0, 0);

	(void)state;
	assert_int_equal(ir_timeline_set_lanes(t, IR_TL_MAX_LANES + 1), -1);
	assert_int_equal(ir_timeline_set_lanes(t, 1), 0);
	ir_timeline_start(t, T0);
	assert_int_equal(ir_timeline_set_lanes(t, 2), -1);
	ir_timeline_point(t, 0, T0 + 5, true);
	ir_timeline_lane_pull(t, 1, T0 + 5);
	ir_timeline_lane_pull(t, -1, T0 + 5);
	ir_timeline_free(t);
}

/* N marks of one kind: the list holds events 0, s, 2s, ... below N, s the
 * least power of two with ceil(N / s) <= IR_TL_MARKS; other kinds apart. */
static void test_marks_thinned(void **state)
{
	static const uint64_t ns[] = { 0, 1, 127, 128, 129, 256, 257, 1000, 100003 };

	(void)state;
	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		struct ir_timeline *t = ir_timeline_new(4, 0, 0);
		const struct ir_timeline_mark *m;
		uint64_t s = 1, total;
		int n;

		for (uint64_t i = 0; i < ns[k]; i++)
			ir_timeline_mark(t, IR_ANOM_MISSING_IDLE_EXIT, (int)(i % 4), T0 + 10 * i);
		ir_timeline_mark(t, IR_ANOM_LOST_EVENTS, 3, T0 + 7);
		while ((ns[k] + s - 1) / s > IR_TL_MARKS)
			s *= 2;
		m = ir_timeline_marks(t, IR_ANOM_MISSING_IDLE_EXIT, &n, &total);
		assert_int_equal(total, ns[k]);
		assert_int_equal(n, (ns[k] + s - 1) / s);
		for (int j = 0; j < n; j++) {
			assert_int_equal(m[j].ts, T0 + 10 * (uint64_t)j * s);
			assert_int_equal(m[j].cpu, (int)((uint64_t)j * s % 4));
		}
		m = ir_timeline_marks(t, IR_ANOM_LOST_EVENTS, &n, &total);
		assert_int_equal(n, 1);
		assert_int_equal(total, 1);
		assert_int_equal(m[0].cpu, 3);
		ir_timeline_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_after_startup),
		cmocka_unit_test(test_tie_and_gap),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_busy_reported_late),
		cmocka_unit_test(test_detail_override),
		cmocka_unit_test(test_lanes),
		cmocka_unit_test(test_lanes_bounds),
		cmocka_unit_test(test_marks_thinned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

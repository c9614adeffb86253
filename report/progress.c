/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Progress on stderr for long replays, only when stderr is a terminal.
 * One line redrawn in place ("\r...\033[K"), at most every 250 ms; the
 * finish call erases it so the report that follows starts clean.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "report/report.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *human(char *buf, size_t len, double v)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}

void ir_progress_start(struct ir_progress *p, const char *what, const char *unit, uint64_t total, int quiet)
{
	p->enabled = !quiet && isatty(STDERR_FILENO);
	p->what = what;
	p->unit = unit;
	p->total = total;
	p->done = 0;
	p->t0 = p->enabled ? now_s() : 0;
	p->last = p->t0;
	p->drawn = 0;
}

void ir_progress_update(struct ir_progress *p, uint64_t done)
{
	char b1[16], b2[16], b3[16];
	double t, el, rate;

	p->done = done;
	if (!p->enabled)
		return;
	t = now_s();
	if (t - p->last < 0.25)
		return;
	p->last = t;
	el = t - p->t0;
	rate = el > 0 ? (double)done / el : 0;
	fprintf(stderr, "\r%s: %s %s", p->what, human(b1, sizeof(b1), (double)done), p->unit);
	if (p->total && done <= p->total) {
		fprintf(stderr, " of %s (%.0f%%)", human(b2, sizeof(b2), (double)p->total),
			100.0 * (double)done / (double)p->total);
	}
	fprintf(stderr, ", %s %s/s", human(b3, sizeof(b3), rate), p->unit);
	if (p->total && rate > 0 && done <= p->total) {
		double left = (double)(p->total - done) / rate;

		if (left >= 60)
			fprintf(stderr, ", %dm%02ds left", (int)(left / 60), (int)left % 60);
		else
			fprintf(stderr, ", %.0fs left", left);
	}
	fputs("\033[K", stderr);
	fflush(stderr);
	p->drawn = 1;
}

void ir_progress_finish(struct ir_progress *p)
{
	if (p->enabled && p->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->drawn = 0;
}

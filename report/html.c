/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * HTML renderer: one self-contained static page from the JSON document.
 * Inline CSS and inline SVG written here; no script, nothing fetched (the
 * favicon is a data: URL so browsers do not ask for one).  Values show on
 * hover through SVG <title> elements.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/util.h"

#define MAX_LEVELS 8
#define MAX_ROWS 64
#define MAX_SERIES 10

static const char *const palette[] = { "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
				       "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac" };
#define NPAL (sizeof(palette) / sizeof(palette[0]))

/* ---- scales ---- */

struct unit {
	double div;
	const char *name;
};

static struct unit ns_unit(double max)
{
	if (max >= 1e9)
		return (struct unit){ 1e9, "s" };
	if (max >= 1e6)
		return (struct unit){ 1e6, "ms" };
	if (max >= 1e3)
		return (struct unit){ 1e3, "us" };
	return (struct unit){ 1, "ns" };
}

static double nice_step(double max, int n)
{
	double raw, p, f;

	if (!(max > 0))
		return 1;
	raw = max / n;
	p = pow(10, floor(log10(raw)));
	f = raw / p;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

static void tick_label(char *buf, size_t len, double v)
{
	if (fabs(v) >= 1e6 || (fabs(v) < 1e-3 && v != 0))
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "%.10g", v);
}

/* A bar's value label, in the axis' unit: two decimals, but at least two
 * significant digits, so that a small bar reads "0.0052", not "0.01" or
 * "0" (issue 14: small values visible). */
static void val_label(char *buf, size_t len, double v, bool ns)
{
	if (ns && v > 0 && v < 0.1)
		snprintf(buf, len, "%.2g", v);
	else
		tick_label(buf, len, ns ? round(v * 100) / 100 : v);
}

/* ---- horizontal bar chart (stacked or grouped) ---- */

struct bars {
	const char *id;			/* the figure's id, for readers of the page */
	const char *title, *xlabel;	/* xlabel without unit when ns */
	int ns;				/* values are nanoseconds */
	int stacked;
	int nrows, nseries;
	const char *rows[MAX_ROWS];
	const char *series[MAX_SERIES];
	const char *colors[MAX_SERIES];	/* NULL: the palette */
	double v[MAX_ROWS][MAX_SERIES];
};

/* cw: the width of a character of the legend's font */
static void legend_cw(FILE *out, int x, int y, const char *const *names, const char *const *colors, int n, int cw)
{
	for (int s = 0; s < n; s++) {
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%d\" class=\"lg\">", x, y - 10, colors[s], x + 16, y);
		ir_html_text(out, names[s]);
		fputs("</text>", out);
		x += 28 + cw * (int)strlen(names[s]);
	}
}

static void legend(FILE *out, int x, int y, const char *const *names, const char *const *colors, int n)
{
	legend_cw(out, x, y, names, colors, n, 7);
}

/* A log scale when the bars' non-zero values differ a hundredfold: on a
 * linear one the small ones are slivers.  Stacked bars then show each part
 * as its own bar (parts of a log-length bar would mislead). */
static bool wants_log(const struct bars *b, double *lo, double *hi)
{
	double mn = 0, mx = 0;

	for (int r = 0; r < b->nrows; r++) {
		double sum = 0;

		for (int s = 0; s < b->nseries; s++) {
			double v = b->v[r][s];

			sum += v;
			if (v > 0 && (!mn || v < mn))
				mn = v;
			if (v > mx)
				mx = v;
		}
		if (b->stacked && sum > mx)
			mx = sum;
	}
	*lo = mn;
	*hi = mx;
	return mn > 0 && mx >= 100 * mn;
}

static void bar_chart(FILE *out, const struct bars *b0)
{
	struct bars bl;
	const struct bars *b = b0;
	const int W = 580, L = 190, R = 40, T = 46, B = 48;
	int rowh, H, pw = W - L - R;
	double max = 0, step, top, lmin = 0, lmax = 0, llo = 0, lhi = 1;
	bool lg = wants_log(b0, &lmin, &lmax);
	struct unit u = { 1, "" };
	const char *colors[MAX_SERIES];
	char lab[32];

	if (lg && b0->stacked && b0->nseries > 1) {
		bl = *b0;
		bl.stacked = 0;
		b = &bl;
	}
	rowh = b->stacked ? 26 : 12 + 12 * b->nseries;
	H = T + B + rowh * b->nrows;
	for (int r = 0; r < b->nrows; r++) {
		double sum = 0;

		for (int s = 0; s < b->nseries; s++) {
			sum += b->v[r][s];
			if (!b->stacked && b->v[r][s] > max)
				max = b->v[r][s];
		}
		if (b->stacked && sum > max)
			max = sum;
	}
	if (b->ns)
		u = ns_unit(max);
	step = nice_step(max / u.div, 5);
	top = step * ceil((max / u.div) / step);
	if (!(top > 0))
		top = step;
	if (lg) {	/* whole decades; the smallest bar keeps some length */
		llo = floor(log10(lmin / u.div));
		if (pow(10, llo) >= lmin / u.div)
			llo -= 1;
		lhi = ceil(log10(lmax / u.div));
		if (lhi <= llo)
			lhi = llo + 1;
	}
	/* x of value v (in units) */
#define BX(v) (lg ? ((v) <= 0 ? 0 : pw * (log10(v) - llo) / (lhi - llo)) : pw * (v) / top)
	for (int s = 0; s < b->nseries; s++)
		colors[s] = b->colors[s] ? b->colors[s] : palette[s % NPAL];

	fprintf(out, "<figure class=\"chart\"");
	if (b->id)
		fprintf(out, " id=\"%s\" data-scale=\"%s\"", b->id, lg ? "log" : "linear");
	fprintf(out, "><svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"", W, H, W, H);
	ir_html_text(out, b->title);
	fprintf(out, "\"><text x=\"%d\" y=\"18\" class=\"ttl\">", 4);
	ir_html_text(out, b->title);
	fputs("</text>", out);
	if (b->nseries > 1)
		legend(out, L, 38, b->series, colors, b->nseries);
	/* grid and x axis */
	if (lg) {
		for (double e = llo; e <= lhi + 0.5; e += 1) {
			int x = L + (int)lround(pw * (e - llo) / (lhi - llo));

			tick_label(lab, sizeof(lab), pow(10, e));
			fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"grid\"/>"
				"<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>",
				x, T - 4, x, H - B, x, H - B + 16, lab);
		}
	} else {
		for (double t = 0; t <= top + step / 2; t += step) {
			int x = L + (int)lround(pw * t / top);

			tick_label(lab, sizeof(lab), t);
			fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"grid\"/>"
				"<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>",
				x, T - 4, x, H - B, x, H - B + 16, lab);
		}
	}
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>", L, H - B, L + pw, H - B);
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"axl\" text-anchor=\"middle\">", L + pw / 2, H - 10);
	ir_html_text(out, b->xlabel);
	if (b->ns)
		fprintf(out, " (%s)", u.name);
	if (lg)
		fputs(", log scale", out);
	fputs("</text>", out);
	for (int r = 0; r < b->nrows; r++) {
		int y = T + r * rowh;
		double acc = 0;

		fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"rl\" text-anchor=\"end\">", L - 6, y + rowh / 2 + 4);
		ir_html_text(out, b->rows[r]);
		fputs("</text>", out);
		for (int s = 0; s < b->nseries; s++) {
			double v = b->v[r][s] / u.div;
			double x0 = b->stacked ? acc : 0;
			int bx = L + (int)lround(BX(x0));
			int bw = (int)lround(BX(x0 + v)) - (int)lround(BX(x0));
			int by = b->stacked ? y + 4 : y + 6 + 12 * s, bh = b->stacked ? rowh - 8 : 11;

			acc += v;
			if (v <= 0)
				continue;
			if (bw < 1)
				bw = 1;
			fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" data-row=\"", bx, by, bw,
				bh, colors[s]);
			ir_html_text(out, b->rows[r]);
			fputs("\" data-series=\"", out);
			ir_html_text(out, b->series[s]);
			fprintf(out, "\" data-v=\"%.17g\"><title>", b->v[r][s]);
			ir_html_text(out, b->rows[r]);
			fputs(", ", out);
			ir_html_text(out, b->series[s]);
			if (b->ns)
				fprintf(out, ": %.4g %s</title></rect>", v, u.name);
			else
				fprintf(out, ": %.0f</title></rect>", v);
			val_label(lab, sizeof(lab), v, b->ns);
			if (!b->stacked) {
				/* every bar labelled: a value a hundred times smaller than the
				 * largest is a sliver, but still readable */
				fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"val\">%s</text>", bx + bw + 3, by + bh - 1, lab);
			} else if (b->nseries > 1 && bw >= 7 * (int)strlen(lab) + 6) {
				/* a part wide enough for its value carries it */
				fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"val in\" text-anchor=\"middle\">%s</text>",
					bx + bw / 2, by + bh / 2 + 4, lab);
			}
		}
		if (b->stacked) {
			int x = L + (int)lround(BX(acc));

			val_label(lab, sizeof(lab), acc, b->ns);
			fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"val\">%s</text>", x + 4, y + rowh / 2 + 4, lab);
		}
	}
#undef BX
	fputs("</svg></figure>\n", out);
}

/* ---- line chart (sweeps) ---- */

/* y on a symmetric log axis when its values differ a hundredfold
 * (ir_axis_init(), report/util.h), said on the axis and under the chart. */
static void line_chart(FILE *out, const char *id, const char *title, const char *xlabel, double xdiv,
		       const char *ylabel, int yns, const double *x, const double *y, int n, const char *color)
{
	const int W = 580, H = 300, L = 70, R = 24, T = 34, B = 50;
	int pw = W - L - R, ph = H - T - B;
	double xmax = 0, xmin = 0, ymax = 0, xs, ys, xtop, ytop, yt[24];
	struct unit u = { 1, "" };
	struct ir_axis ax;
	char lab[32];
	int nyt;

	for (int i = 0; i < n; i++) {
		if (i == 0 || x[i] < xmin)
			xmin = x[i];
		if (x[i] > xmax)
			xmax = x[i];
		if (y[i] > ymax)
			ymax = y[i];
	}
	if (xmin > 0)
		xmin = 0;
	if (yns)
		u = ns_unit(ymax);
	xs = nice_step((xmax - xmin) / xdiv, 5);
	xtop = xs * ceil((xmax / xdiv) / xs);
	if (!(xtop > xmin / xdiv))
		xtop = xmin / xdiv + xs;
	ys = nice_step(ymax / u.div, 5);
	ytop = ys * ceil((ymax / u.div) / ys);
	if (!(ytop > 0))
		ytop = ys;
	ir_axis_init(&ax, y, n);
	if (ax.symlog)
		ax.hi = ytop * u.div;
	nyt = ir_axis_ticks(&ax, yt, 24);
	if (!ax.symlog)
		for (double t = 0; t <= ytop + ys / 2 && nyt < 24; t += ys)
			yt[nyt++] = t * u.div;
#define PX(v) (L + pw * ((v) / xdiv - xmin / xdiv) / (xtop - xmin / xdiv))
#define PY(v) (ax.symlog ? T + ph - ph * ir_axis_pos(&ax, (v)) : T + ph - ph * ((v) / u.div) / ytop)
	fprintf(out, "<figure class=\"chart\" id=\"%s\" data-scale=\"%s\" data-c=\"%.17g\"><svg viewBox=\"0 0 %d %d\" "
		"width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"", id, ax.symlog ? "symlog" : "linear", ax.c,
		W, H, W, H);
	ir_html_text(out, title);
	fputs("\"><text x=\"4\" y=\"18\" class=\"ttl\">", out);
	ir_html_text(out, title);
	fputs("</text>", out);
	for (int i = 0; i < nyt; i++) {
		int py = (int)lround(PY(yt[i]));

		tick_label(lab, sizeof(lab), yt[i] / u.div);
		fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"grid\"/>"
			"<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"end\">%s</text>",
			L, py, L + pw, py, L - 6, py + 4, lab);
	}
	for (double t = xmin / xdiv; t <= xtop + xs / 2; t += xs) {
		int px = (int)lround(L + pw * (t - xmin / xdiv) / (xtop - xmin / xdiv));

		tick_label(lab, sizeof(lab), t);
		fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>"
			"<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>",
			px, T + ph, px, T + ph + 4, px, T + ph + 18, lab);
	}
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>", L, T + ph, L + pw, T + ph);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>", L, T, L, T + ph);
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"axl\" text-anchor=\"middle\">", L + pw / 2, H - 8);
	ir_html_text(out, xlabel);
	fprintf(out, "</text><text transform=\"translate(16 %d) rotate(-90)\" class=\"axl\" text-anchor=\"middle\">",
		T + ph / 2);
	ir_html_text(out, ylabel);
	if (yns)
		fprintf(out, " (%s)", u.name);
	if (ax.symlog)
		fputs(", symlog", out);
	fprintf(out, "</text><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\" points=\"", color);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%.1f,%.1f", i ? " " : "", PX(x[i]), PY(y[i]));
	fputs("\"/>", out);
	for (int i = 0; i < n; i++) {
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" data-x=\"%.17g\" data-y=\"%.17g\">"
			"<title>%.6g: ", PX(x[i]), PY(y[i]), color, x[i], y[i], x[i] / xdiv);
		if (yns)
			fprintf(out, "%.4g %s", y[i] / u.div, u.name);
		else
			fprintf(out, "%.0f", y[i]);
		fputs("</title></circle>", out);
	}
#undef PX
#undef PY
	fputs("</svg>", out);
	if (ax.symlog) {
		tick_label(lab, sizeof(lab), ax.c / u.div);
		fprintf(out, "<figcaption class=\"note\">y: symmetric log scale (the values differ a hundredfold): "
			"height log10(1 + y / C), C = %s%s%s, linear below C; ticks at 0 and C x 10^k</figcaption>",
			lab, yns ? " " : "", yns ? u.name : "");
	}
	fputs("</figure>\n", out);
}

/* ---- per-CPU timeline ---- */

static void busy_color(char *buf, size_t len, double f)
{
	/* idle #eef2f7 -> busy #2b5797 */
	int r = (int)lround(0xee + (0x2b - 0xee) * f), g = (int)lround(0xf2 + (0x57 - 0xf2) * f);
	int b = (int)lround(0xf7 + (0x97 - 0xf7) * f);

	snprintf(buf, len, "#%02x%02x%02x", r, g, b);
}

static int64_t arr_max(json_object *a)
{
	int64_t m = 0;

	for (size_t i = 0; i < jlen(a); i++)
		if (json_object_get_int64(jidx(a, i)) > m)
			m = json_object_get_int64(jidx(a, i));
	return m;
}

/* ---- timeline marks: each policy's pulls, anomalies ---- */

#define LANE_H 22

/*
 * Rows under the CPUs: the pulls observed (all CPUs), then per policy the
 * pulls it would make at the same newidle points; tick height is the count
 * against the largest in any of these rows.
 */
static void lane_rows(FILE *out, json_object *tl, json_object *cpus, int L, int y0, double bw)
{
	json_object *lanes = jget(tl, "policies");
	int nl = (int)jlen(lanes), n = (int)jlen(jget(jidx(cpus, 0), "pulls"));
	int64_t m = 1;

	for (int r = 0; r <= nl; r++)
		for (int i = 0; i < n; i++) {
			int64_t v = 0;

			if (r == 0)
				for (size_t c = 0; c < jlen(cpus); c++)
					v += json_object_get_int64(jidx(jget(jidx(cpus, c), "pulls"), (size_t)i));
			else
				v = json_object_get_int64(jidx(jget(jidx(lanes, (size_t)r - 1), "pulls"), (size_t)i));
			if (v > m)
				m = v;
		}
	for (int r = 0; r <= nl; r++) {
		json_object *pu = r ? jget(jidx(lanes, (size_t)r - 1), "pulls") : NULL;
		const char *label = r ? jstr(jidx(lanes, (size_t)r - 1), "label", "?") : "observed";
		const char *color = r ? palette[(r - 1) % NPAL] : "#2ca02c";
		int y = y0 + r * LANE_H, any = 0;
		int64_t total = 0;

		fprintf(out, "<g class=\"lane\" data-policy=\"");
		ir_html_text(out, label);
		fprintf(out, "\"><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%d\" class=\"rl\" text-anchor=\"end\">", L, y + 1, bw * n, LANE_H - 2,
			r % 2 ? "#f7f9fb" : "#fff", L - 6, y + LANE_H - 5);
		ir_html_text(out, label);
		fputs("</text>", out);
		for (int i = 0; i < n; i++) {
			int64_t v = 0;
			double h;

			if (r == 0)
				for (size_t c = 0; c < jlen(cpus); c++)
					v += json_object_get_int64(jidx(jget(jidx(cpus, c), "pulls"), (size_t)i));
			else
				v = json_object_get_int64(jidx(pu, (size_t)i));
			if (v <= 0)
				continue;
			total += v;
			h = (LANE_H - 3) * (double)v / (double)m;
			if (h < 3)
				h = 3;	/* a single pull stays visible */
			if (!any)
				fprintf(out, "<path stroke=\"%s\" stroke-width=\"%.2f\" d=\"", color,
					bw < 2 ? 1.5 : bw * 0.6 > 4 ? 4 : bw * 0.6);
			any = 1;
			fprintf(out, "M%.1f %dv-%.1f", L + bw * ((double)i + 0.5), y + LANE_H - 1, h);
		}
		if (any)
			fputs("\"/>", out);
		fprintf(out, "<title>%" PRId64 " pulls</title></g>", total);
		/* the count also as data, for tests and scripts reading the page */
		fprintf(out, "<desc class=\"lane-total\" data-policy=\"");
		ir_html_text(out, label);
		fprintf(out, "\" data-pulls=\"%" PRId64 "\"></desc>", total);
	}
}

static const char *const anom_color[] = { "#d62728", "#9467bd", "#000000", "#8c564b" };

/*
 * The listed anomaly positions inside [start, end) as small triangles on
 * their CPU's row; the legend below the chart gives each kind's count shown
 * and its total (the list is thinned evenly, so not every one is shown).
 */
static void anomaly_marks(FILE *out, json_object *an, int64_t start, int64_t end, int L, int T, int pw,
			  int rowh, int ncpu, int ly)
{
	int k = 0, lx = L;

	if (!an || !json_object_is_type(an, json_type_object))
		return;
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"lg\" text-anchor=\"end\">anomalies shown</text>", L - 6, ly);
	json_object_object_foreach(an, kind, v) {
		json_object *l = jget(v, "listed");
		int shown = 0;
		const char *col = anom_color[k++ % 4];
		char lab[160];

		fputs("<g class=\"anom\" data-kind=\"", out);
		ir_html_text(out, kind);
		fprintf(out, "\" fill=\"%s\">", col);
		for (size_t i = 0; i < jlen(l); i++) {
			int64_t ts = jint(jidx(l, i), "ts_ns"), c = jint(jidx(l, i), "cpu");
			double x;

			if (ts < start || ts >= end || c < 0 || c >= ncpu)
				continue;
			/* unsigned differences: exact, and no int64 wrap (start <= ts < end) */
			x = L + pw * (double)((uint64_t)ts - (uint64_t)start) / (double)((uint64_t)end - (uint64_t)start);
			fprintf(out, "<path d=\"M%.1f %dl-5 -9h10z\"/>", x, T + (int)c * rowh + rowh - 1);
			shown++;
		}
		fprintf(out, "</g><desc class=\"anom-count\" data-kind=\"");
		ir_html_text(out, kind);
		fprintf(out, "\" data-shown=\"%d\" data-total=\"%" PRId64 "\" data-listed=\"%zu\"></desc>", shown,
			jint(v, "total"), jlen(l));
		if (!jint(v, "total"))
			continue;
		snprintf(lab, sizeof(lab), "%s %d of %" PRId64, kind, shown, jint(v, "total"));
		if (lx > L && lx + 24 + 10 * (int)strlen(lab) > L + pw) {	/* next line */
			lx = L;
			ly += 26;
		}
		fprintf(out, "<path d=\"M%d %dl-6 -10h12z\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" class=\"lg\">", lx + 6,
			ly - 2, col, lx + 16, ly);
		ir_html_text(out, lab);
		fputs("</text>", out);
		lx += 24 + 10 * (int)strlen(lab);
	}
}

static void timeline_chart(FILE *out, const char *id, json_object *tl, int64_t origin, const char *title,
			   json_object *mark, json_object *anoms)
{
	json_object *cpus = jget(tl, "cpus");
	int ncpu = (int)jlen(cpus), nlane = ncpu ? 1 + (int)jlen(jget(tl, "policies")) : 0;
	/* drawn at 1180 wide with large type: scaled down to 800 px, text stays readable */
	const int W = 1180, L = 230, R = 16, T = 52, B = 112;
	int pw = W - L - R, rowh = ncpu > 0 ? 560 / ncpu : 28, H;
	int64_t start = jint(tl, "start_ns"), end = jint(tl, "end_ns"), bns = jint(tl, "bucket_ns");
	int64_t maxni = 1, maxpu = 1;
	double span, step, top0, t0;
	struct unit u;
	char lab[32], col[16];

	if (rowh > 30)
		rowh = 30;
	if (rowh < 6)
		rowh = 6;
	H = T + B + rowh * ncpu + LANE_H * nlane;
	if (end <= start || bns <= 0 || !ncpu)
		return;
	for (int c = 0; c < ncpu; c++) {
		int64_t a = arr_max(jget(jidx(cpus, c), "newidle")), b = arr_max(jget(jidx(cpus, c), "pulls"));

		if (a > maxni)
			maxni = a;
		if (b > maxpu)
			maxpu = b;
	}
	span = (double)(end - start);
	t0 = (double)start - (double)origin;
	u = ns_unit(t0 + span);
	if (span / u.div < 1)
		u = ns_unit(span);
	step = nice_step(span / u.div, 10);
	top0 = ceil((t0 / u.div) / step) * step;

	fprintf(out, "<figure class=\"chart wide\" id=\"%s\" data-start=\"%" PRId64 "\" data-end=\"%" PRId64 "\">"
		"<svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"", id, start, end, W, H, W, H);
	ir_html_text(out, title);
	fputs("\"><text x=\"4\" y=\"22\" class=\"ttl\">", out);
	ir_html_text(out, title);
	fputs("</text>", out);
	{
		const char *names[] = { "busy (darker = busier)", "idle", "newidle points (from below)",
					"newidle pulls (from above)" };
		const char *colors[] = { "#2b5797", "#eef2f7", "#f28e2b", "#2ca02c" };

		legend_cw(out, L, 42, names, colors, 4, 10);
	}
	for (int c = 0; c < ncpu; c++) {
		json_object *cp = jidx(cpus, c), *busy = jget(cp, "busy"), *ni = jget(cp, "newidle");
		json_object *pu = jget(cp, "pulls");
		int n = (int)jlen(busy), y = T + c * rowh;
		double bw = (double)pw * (double)bns / span;
		int q0 = -1, run = 0;

		fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"rl\" text-anchor=\"end\">cpu %" PRId64 "</text>", L - 6,
			y + rowh / 2 + 6, jint(cp, "cpu"));
		/* busy: runs of equal shade (10 levels) */
		for (int i = 0; i <= n; i++) {
			double f = i < n ? json_object_get_double(jidx(busy, i)) : -1;
			int q = i < n ? (int)lround((f < 0 ? 0 : f > 1 ? 1 : f) * 10) : -2;

			if (q != q0 && q0 >= 0) {
				busy_color(col, sizeof(col), q0 / 10.0);
				fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>",
					L + bw * run, y + 1, bw * (i - run) + 0.3, rowh - 2, col);
			}
			if (q != q0) {
				q0 = q;
				run = i;
			}
		}
		/* newidle points from below, pulls from above */
		for (int k = 0; k < 2; k++) {
			json_object *a = k ? pu : ni;
			int64_t m = k ? maxpu : maxni;
			int any = 0;

			for (size_t i = 0; i < jlen(a); i++) {
				int64_t v = json_object_get_int64(jidx(a, i));
				double x = L + bw * ((double)i + 0.5), h = (rowh - 2) * (k ? 0.45 : 0.55) * ((double)v / (double)m);

				if (v <= 0)
					continue;
				if (h < 2)
					h = 2;
				if (!any)
					fprintf(out, "<path stroke=\"%s\" stroke-width=\"%.2f\" d=\"", k ? "#2ca02c" : "#f28e2b",
						bw < 2 ? 1.2 : bw * 0.6 > 4 ? 4 : bw * 0.6);
				any = 1;
				if (k)
					fprintf(out, "M%.1f %dv%.1f", x, y + 1, h);
				else
					fprintf(out, "M%.1f %dv-%.1f", x, y + rowh - 1, h);
			}
			if (any)
				fputs("\"/>", out);
		}
	}
	lane_rows(out, tl, cpus, L, T + rowh * ncpu, (double)pw * (double)bns / span);
	anomaly_marks(out, anoms, start, end, L, T, pw, rowh, ncpu, H - 34);
	if (mark) {
		int64_t ms = jint(mark, "start_ns"), me = jint(mark, "end_ns");
		double x0 = L + pw * (double)(ms - start) / span, x1 = L + pw * (double)(me - start) / span;

		if (x1 - x0 < 3)
			x1 = x0 + 3;
		fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" class=\"mark\"><title>detailed window below"
			"</title></rect>", x0, T - 2, x1 - x0, rowh * ncpu + 4);
	}
	for (double t = top0; t * u.div <= t0 + span + 1e-9 * span; t += step) {
		int x = (int)lround(L + pw * (t * u.div - t0) / span), y = T + rowh * ncpu + LANE_H * nlane;

		tick_label(lab, sizeof(lab), round(t * 1e6) / 1e6);
		fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>"
			"<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>",
			x, y, x, y + 5, x, y + 24, lab);
	}
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>", L,
		T + rowh * ncpu + LANE_H * nlane, L + pw, T + rowh * ncpu + LANE_H * nlane);
	ir_fmt_ns(lab, sizeof(lab), bns);
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"axl\" text-anchor=\"middle\">time since trace start (%s); "
		"one column = %s</text>", L + pw / 2, H - 62, u.name, lab);
	fputs("</svg></figure>\n", out);
}

/* ---- page sections ---- */

static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;color:#1d2733;"
	"background:#fff;margin:0}main{max-width:1200px;margin:0 auto;padding:16px 20px 40px}"
	"h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:2px solid #dde3ea;"
	"padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}"
	".meta{color:#4a5866;margin:0 0 10px}.meta b{color:#1d2733}"
	".note{background:#eef5fc;border-left:4px solid #4e79a7;padding:8px 12px;margin:8px 0}"
	".warn{background:#fff5e0;border-left:4px solid #e8a317;padding:8px 12px;margin:8px 0}"
	".grid2{display:flex;flex-wrap:wrap;gap:8px 20px}figure.chart{margin:0}"
	"svg text{font-family:inherit;fill:#1d2733}.ttl{font-size:15px;font-weight:600}.lg{font-size:12px}"
	".tick{font-size:11px;fill:#4a5866}.axl{font-size:12px;fill:#333}.rl{font-size:12px}.val{font-size:11px;fill:#4a5866}"
	".val.in{fill:#fff}.wide text{font-size:18px}.wide .ttl{font-size:21px}.scroll{overflow-x:auto;max-width:100%}table{display:block;overflow-x:auto;max-width:100%}"
	".grid{stroke:#e3e8ee;stroke-width:1}.axis{stroke:#7a8794;stroke-width:1}"
	".mark{fill:none;stroke:#d62728;stroke-width:2}"
	"table{border-collapse:collapse;margin:6px 0 12px;font-variant-numeric:tabular-nums;font-size:13px}"
	"table.kv td{white-space:normal;text-align:left}table.kv td:first-child{white-space:nowrap}"
	"th,td{padding:3px 6px;border-bottom:1px solid #e3e8ee;text-align:right;white-space:nowrap}"
	"th{background:#f4f6f9;font-weight:600;white-space:normal;vertical-align:bottom}td:first-child,th:first-child{text-align:left}"
	".muted{color:#6b7886}"
	"body{overflow-wrap:break-word}svg{max-width:100%;height:auto}#headline li{margin:3px 0}\n";

static void td_ns(FILE *out, int64_t ns)
{
	char b[32];

	fprintf(out, "<td>%s</td>", ir_fmt_ns(b, sizeof(b), ns));
}

static void td_sns(FILE *out, int64_t ns)
{
	char b[32];

	fprintf(out, "<td>%s</td>", ir_fmt_sns(b, sizeof(b), ns));
}

static void td_ratio(FILE *out, double v)
{
	if (isnan(v))
		fputs("<td class=\"muted\">n/a</td>", out);
	else
		fprintf(out, "<td>%.3f</td>", v);
}

static const char *plabel(json_object *p)
{
	return jstr(p, "label", jstr(p, "name", "?"));
}

/* Early bails by reason, a table of its own so that the policy table fits
 * 800 px: a column per reason some policy took, none for reasons no policy
 * took. */
static void bails_table(FILE *out, json_object *pol, int np)
{
	const char *reason[IR_BAIL__COUNT];
	int nr = 0;

	for (int r = 0; r < np; r++) {
		json_object *b = jget(jidx(pol, r), "bails");

		if (!b || !json_object_is_type(b, json_type_object))
			continue;
		json_object_object_foreach(b, k, v) {
			int i = 0;

			while (i < nr && strcmp(reason[i], k))
				i++;
			if (i == nr && nr < IR_BAIL__COUNT && json_object_get_int64(v) > 0)
				reason[nr++] = k;
		}
	}
	if (!nr)
		return;
	fputs("<table id=\"bails\"><tr><th>early bails (points)</th>", out);
	for (int i = 0; i < nr; i++) {
		fputs("<th>", out);
		ir_html_text(out, reason[i]);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (int r = 0; r < np; r++) {
		json_object *p = jidx(pol, r);

		fputs("<tr><td>", out);
		ir_html_text(out, plabel(p));
		fputs("</td>", out);
		for (int i = 0; i < nr; i++)
			fprintf(out, "<td>%" PRId64 "</td>", jint(jget(p, "bails"), reason[i]));
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void section_header(FILE *out, json_object *doc)
{
	json_object *t = jget(doc, "trace"), *lost = jget(t, "lost_by_cpu");
	json_object *an = jget(jget(doc, "observed"), "anomalies");
	char b[32];

	fputs("<h1>idlereplay report</h1>\n<p class=\"meta\">trace <b>", out);
	ir_html_text(out, jstr(t, "path", "?"));
	fputs("</b> &middot; kernel <b>", out);
	ir_html_text(out, jstr(t, "kernel", "unknown"));
	fprintf(out, "</b> &middot; <b>%" PRId64 "</b> CPUs &middot; window <b>%s</b> &middot; <b>%" PRId64
		"</b> events &middot; clock ", jint(t, "cpus"), ir_fmt_ns(b, sizeof(b), jint(t, "window_ns")),
		jint(t, "events_total"));
	ir_html_text(out, jstr(t, "clock", "?"));
	fputs(" &middot; <span class=\"muted\">", out);
	ir_html_text(out, jstr(doc, "generator", ""));
	fputs(", schema ", out);
	ir_html_text(out, jstr(doc, "schema", "?"));
	fprintf(out, ".%" PRId64 "</span></p>\n", jint(doc, "schema_minor"));
	if (jget(doc, "open_loop")) {
		fputs("<p class=\"note\">", out);
		ir_html_text(out, jstr(doc, "open_loop", ""));
		fputs("</p>\n", out);
	}
	for (size_t i = 0; i < jlen(lost); i++) {
		/* what the text report says: where, and which figures it undercounts */
		fputs("<p class=\"warn\">", out);
		ir_lost_sentence(out, jidx(lost, i), t);
		fputs(".</p>\n", out);
	}
	if (an && json_object_is_type(an, json_type_object)) {
		int any = 0;

		json_object_object_foreach(an, k, v) {
			if (!json_object_get_int64(v))
				continue;
			fputs(any ? ", " : "<p class=\"warn\">State anomalies (events that "
			      "contradict the reconstructed state; figures near them are approximate): ", out);
			ir_html_text(out, k);
			fprintf(out, " %" PRId64, json_object_get_int64(v));
			any = 1;
		}
		if (any)
			fputs("</p>\n", out);
	}
}

/* Parameters once, with units: the values the policies share, then per
 * policy only what it sets differently (as the text report does). */
static void section_params(FILE *out, json_object *pol)
{
	json_object *seen = json_object_new_object();
	char v[64];

	fputs("<h3>Parameters</h3>\n<p>Every policy, unless its row below says otherwise (assumed defaults "
	      "included):</p>\n<div class=\"scroll\"><table class=\"params\"><tr><th>parameter</th><th>value</th></tr>\n",
	      out);
	for (size_t i = 0; i < jlen(pol); i++) {
		json_object *par = jget(jidx(pol, i), "params");

		if (!par || !json_object_is_type(par, json_type_object))
			continue;
		json_object_object_foreach(par, k, val) {
			json_object *c = ir_param_common(pol, k);

			(void)val;
			if (!c || jget(seen, k))
				continue;
			json_object_object_add(seen, k, json_object_new_boolean(1));
			fputs("<tr><td>", out);
			ir_html_text(out, k);
			fputs("</td><td>", out);
			ir_html_text(out, ir_fmt_param(v, sizeof(v), k, c));
			fputs("</td></tr>\n", out);
		}
	}
	fputs("</table></div>\n<div class=\"scroll\"><table class=\"params\"><tr><th>policy</th><th>its own "
	      "values</th></tr>\n", out);
	for (size_t i = 0; i < jlen(pol); i++) {
		json_object *par = jget(jidx(pol, i), "params");
		int own = 0;

		if (!par || !json_object_is_type(par, json_type_object))
			continue;
		json_object_object_foreach(par, k, val) {
			if (ir_param_shared(pol, k, val))
				continue;
			if (!own++) {
				fputs("<tr><td>", out);
				ir_html_text(out, plabel(jidx(pol, i)));
				fputs("</td><td style=\"text-align:left;white-space:normal\">", out);
			}
			ir_html_text(out, k);
			fputs(" ", out);
			ir_html_text(out, ir_fmt_param(v, sizeof(v), k, val));
			fputs("; ", out);
		}
		if (own)
			fputs("</td></tr>\n", out);
	}
	fputs("</table></div>\n", out);
	json_object_put(seen);
}

static void section_policies(FILE *out, json_object *doc)
{
	json_object *pol = jget(doc, "policies");
	const char *lv[MAX_LEVELS];
	int nl = ir_levels(doc, lv, MAX_LEVELS), np = (int)jlen(pol);
	struct bars b;

	if (!np)
		return;
	if (np > MAX_ROWS)
		np = MAX_ROWS;
	if (nl > MAX_SERIES)
		nl = MAX_SERIES;
	fputs("<h2>Policy comparison</h2>\n", out);
	if (jget(doc, "reference")) {
		fputs("<p>Reference policy: <b>", out);
		ir_html_text(out, jstr(doc, "reference", ""));
		fputs("</b>. Migrations avoided = reference pulls &minus; this policy's pulls; idle traded = this "
		      "policy's idle lost &minus; the reference's.</p>\n", out);
	}
	fputs("<div class=\"grid2\">\n", out);

	memset(&b, 0, sizeof(b));
	b.title = "Pulls (migrations) at newidle points, by domain level";
	b.id = "chart-pulls-by-level";
	b.xlabel = "migrations (count)";
	b.stacked = 1;
	b.nrows = np;
	b.nseries = nl;
	for (int l = 0; l < nl; l++)
		b.series[l] = lv[l];
	for (int r = 0; r < np; r++) {
		b.rows[r] = plabel(jidx(pol, r));
		for (int l = 0; l < nl; l++)
			b.v[r][l] = (double)jint(jget(jget(jidx(pol, r), "pulls"), "by_level"), lv[l]);
	}
	bar_chart(out, &b);

	b.title = "Idle time lost and recovered (CPU-time)";
	b.id = "chart-idle";
	b.xlabel = "idle time";
	b.ns = 1;
	b.stacked = 0;
	b.nseries = 2;
	b.series[0] = "idle lost";
	b.series[1] = "idle recovered";
	for (int r = 0; r < np; r++) {
		b.v[r][0] = (double)jint(jidx(pol, r), "idle_lost_ns");
		b.v[r][1] = (double)jint(jidx(pol, r), "idle_recovered_ns");
	}
	b.colors[0] = "#d62728";
	b.colors[1] = "#2ca02c";
	bar_chart(out, &b);
	b.colors[0] = b.colors[1] = NULL;

	b.title = "Modelled balance cost (max_newidle_lb_cost per attempt), by level";
	b.id = "chart-cost-by-level";
	b.xlabel = "balance cost";
	b.stacked = 1;
	b.nseries = nl;
	for (int l = 0; l < nl; l++)
		b.series[l] = lv[l];
	for (int r = 0; r < np; r++)
		for (int l = 0; l < nl; l++)
			b.v[r][l] = (double)jint(jget(jidx(pol, r), "balance_cost_by_level"), lv[l]);
	bar_chart(out, &b);

	b.title = "load_balance attempts, by level";
	b.id = "chart-attempts-by-level";
	b.xlabel = "attempts (count)";
	b.ns = 0;
	for (int r = 0; r < np; r++)
		for (int l = 0; l < nl; l++)
			b.v[r][l] = (double)jint(jget(jget(jidx(pol, r), "attempts"), "by_level"), lv[l]);
	bar_chart(out, &b);
	fputs("</div>\n<table><tr><th>policy</th><th>points</th><th>attempts</th><th>pulls</th>", out);
	for (int l = 0; l < nl; l++) {
		fputs("<th>", out);
		ir_html_text(out, lv[l]);
		fputs("</th>", out);
	}
	fputs("<th>avoided</th><th>idle lost</th><th>idle recovered</th><th>idle traded</th><th>balance cost</th>"
	      "</tr>\n", out);
	for (int r = 0; r < np; r++) {
		json_object *p = jidx(pol, r);

		fputs("<tr><td>", out);
		ir_html_text(out, plabel(p));
		fprintf(out, "</td><td>%" PRId64 "</td><td>%" PRId64 "</td><td>%" PRId64 "</td>", jint(p, "newidle_points"),
			jint(jget(p, "attempts"), "total"), jint(jget(p, "pulls"), "total"));
		for (int l = 0; l < nl; l++)
			fprintf(out, "<td>%" PRId64 "</td>", jint(jget(jget(p, "pulls"), "by_level"), lv[l]));
		if (jget(p, "migrations_avoided"))
			fprintf(out, "<td>%+" PRId64 "</td>", jint(jget(p, "migrations_avoided"), "total"));
		else
			fputs("<td></td>", out);
		td_ns(out, jint(p, "idle_lost_ns"));
		td_ns(out, jint(p, "idle_recovered_ns"));
		if (jget(p, "idle_traded_ns"))
			td_sns(out, jint(p, "idle_traded_ns"));
		else
			fputs("<td></td>", out);
		td_ns(out, jint(p, "balance_cost_ns"));
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	bails_table(out, pol, np);
	section_params(out, pol);
}

static void section_sweeps(FILE *out, json_object *doc)
{
	json_object *sw = jget(doc, "sweeps");

	if (!jlen(sw))
		return;
	fputs("<h2>Sweeps</h2>\n", out);
	for (size_t i = 0; i < jlen(sw); i++) {
		json_object *s = jidx(sw, i), *pts = jget(s, "points");
		int n = (int)jlen(pts);
		const char *param = jstr(s, "param", "?");
		int cost = strstr(param, "cost") || strstr(param, "_ns");
		double x[512], yp[512], yl[512];
		char title[256], xl[200], id[48];

		if (n > 512)
			n = 512;
		for (int k = 0; k < n; k++) {
			x[k] = jdbl(jidx(pts, k), "value");
			yp[k] = (double)jint(jidx(pts, k), "pulls");
			yl[k] = (double)jint(jidx(pts, k), "idle_lost_ns");
		}
		snprintf(xl, sizeof(xl), cost ? "%s (us)" : "%s", param);
		fputs("<div class=\"grid2\">\n", out);
		snprintf(title, sizeof(title), "%s: pulls as %s varies", jstr(s, "policy", "?"), param);
		snprintf(id, sizeof(id), "sweep-%zu-pulls", i);
		line_chart(out, id, title, xl, cost ? 1e3 : 1, "pulls (count)", 0, x, yp, n, palette[0]);
		snprintf(title, sizeof(title), "%s: idle lost as %s varies", jstr(s, "policy", "?"), param);
		snprintf(id, sizeof(id), "sweep-%zu-idle-lost", i);
		line_chart(out, id, title, xl, cost ? 1e3 : 1, "idle lost", 1, x, yl, n, palette[2]);
		fputs("</div>\n", out);
	}
}

static void section_timeline(FILE *out, json_object *doc)
{
	json_object *tl = jget(doc, "timeline"), *d = jget(tl, "detail");
	int64_t origin = jint(jget(doc, "trace"), "first_ts");
	char b1[32], b2[32];

	if (!tl || !jlen(jget(tl, "cpus")))
		return;
	if (!origin || origin > jint(tl, "start_ns"))
		origin = jint(tl, "start_ns");
	fputs("<h2>Per-CPU timeline</h2>\n<p>Each row is a CPU; shade is the fraction of each column the CPU was "
	      "running a task. Orange ticks rising from the bottom count newidle points (the CPU's queue ran "
	      "empty), green ticks hanging from the top count newidle pulls. Below the CPUs, one row per policy "
	      "shows where it would pull at the same points (all CPUs together), under the pulls observed. "
	      "Triangles mark anomalies the replay repaired or events lost, at their CPU and time (an evenly "
	      "thinned list: the legend says how many of each are shown). The detailed window is the busiest "
	      "20 ms of newidle points unless <code>--detail</code> chose it.</p>\n", out);
	timeline_chart(out, "timeline-whole", tl, origin, "Whole trace", d, jget(tl, "anomalies"));
	if (d && jlen(jget(d, "cpus"))) {
		char title[128];

		snprintf(title, sizeof(title), "Detailed window: %s to %s",
			 ir_fmt_dns(b1, sizeof(b1), (double)jint(d, "start_ns") - (double)origin),
			 ir_fmt_dns(b2, sizeof(b2), (double)jint(d, "end_ns") - (double)origin));
		timeline_chart(out, "timeline-detail", d, origin, title, NULL, jget(tl, "anomalies"));
	}
}

static void section_observed(FILE *out, json_object *doc)
{
	json_object *o = jget(doc, "observed"), *mig = jget(o, "migrations"), *by = jget(mig, "by_cause");
	json_object *cpus = jget(o, "cpus");
	int64_t window = jint(jget(doc, "trace"), "window_ns");
	struct bars b;
	char bb[32];

	fputs("<h2>Observed (straight from the trace)</h2>\n<div class=\"grid2\">\n", out);
	memset(&b, 0, sizeof(b));
	b.title = "Migrations by cause";
	b.id = "chart-migrations-by-cause";
	b.xlabel = "migrations (count)";
	b.stacked = 1;
	b.nseries = 1;
	b.series[0] = "migrations";
	if (by && json_object_is_type(by, json_type_object)) {
		json_object_object_foreach(by, k, v) {
			if (b.nrows < MAX_ROWS) {
				b.rows[b.nrows] = k;
				b.v[b.nrows++][0] = (double)json_object_get_int64(v);
			}
		}
	}
	if (b.nrows)
		bar_chart(out, &b);
	memset(&b, 0, sizeof(b));
	b.title = "Time per CPU";
	b.id = "chart-cpu-time";
	b.xlabel = "time";
	b.ns = 1;
	b.stacked = 1;
	b.nseries = 2;
	b.series[0] = "busy";
	b.series[1] = "idle";
	b.colors[0] = "#2b5797";
	b.colors[1] = "#c9d6e8";
	for (size_t i = 0; i < jlen(cpus) && b.nrows < 32; i++) {
		static char names[32][16];

		snprintf(names[b.nrows], sizeof(names[0]), "cpu %" PRId64, jint(jidx(cpus, i), "cpu"));
		b.rows[b.nrows] = names[b.nrows];
		b.v[b.nrows][0] = (double)jint(jidx(cpus, i), "busy_ns");
		b.v[b.nrows++][1] = (double)jint(jidx(cpus, i), "idle_ns");
	}
	if (b.nrows)
		bar_chart(out, &b);
	fputs("</div>\n<p>", out);
	fprintf(out, "Idle while another CPU had a waiting task: <b>%s</b> (CPU-time). Newidle points <b>%" PRId64
		"</b>, observed newidle pulls <b>%" PRId64 "</b>, migrations <b>%" PRId64 "</b>.</p>\n",
		ir_fmt_ns(bb, sizeof(bb), jint(o, "idle_while_waiting_ns")), jint(o, "newidle_points"),
		jint(o, "newidle_pulls"), jint(mig, "total"));
	fputs("<table><tr><th>cpu</th><th>idle</th><th>idle %</th><th>busy</th><th>idle entries</th>"
	      "<th>newidle points</th><th>newidle pulls</th></tr>\n", out);
	for (size_t i = 0; i < jlen(cpus); i++) {
		json_object *c = jidx(cpus, i);

		fprintf(out, "<tr><td>%" PRId64 "</td>", jint(c, "cpu"));
		td_ns(out, jint(c, "idle_ns"));
		fprintf(out, "<td>%.1f</td>", window > 0 ? 100.0 * (double)jint(c, "idle_ns") / (double)window : 0);
		td_ns(out, jint(c, "busy_ns"));
		fprintf(out, "<td>%" PRId64 "</td><td>%" PRId64 "</td><td>%" PRId64 "</td></tr>\n",
			jint(c, "idle_entries"), jint(c, "newidle_points"), jint(c, "newidle_pulls"));
	}
	fputs("</table>\n", out);
}

static void section_fidelity(FILE *out, json_object *doc)
{
	json_object *f = jget(doc, "fidelity"), *g = jget(doc, "ground_truth"), *a = jget(doc, "assumptions");
	json_object *d = jget(doc, "domains");

	if (f || g)
		fputs("<h2>Fidelity and ground truth</h2>\n", out);
	if (f) {
		fputs("<p>The model of the recording kernel (<b>", out);
		ir_html_text(out, jstr(f, "policy", "?"));
		fputs("</b>) against the pulls that kernel actually made at newidle points.</p>\n"
		      "<table><tr><th>points</th><th>observed pulls</th><th>predicted pulls</th><th>both</th>"
		      "<th>precision</th><th>recall</th></tr><tr>", out);
		fprintf(out, "<td>%" PRId64 "</td><td>%" PRId64 "</td><td>%" PRId64 "</td><td>%" PRId64 "</td>",
			jint(f, "points"), jint(f, "observed_pulls"), jint(f, "predicted_pulls"),
			jint(f, "true_positives"));
		td_ratio(out, jdbl(f, "precision"));
		td_ratio(out, jdbl(f, "recall"));
		fputs("</tr></table>\n", out);
	}
	if (g) {
		json_object *e = jget(g, "avg_idle_rel_error");

		fprintf(out, "<p>Kernel probes at <code>sched_balance_newidle</code>, %s parameters.</p>\n",
			!strcmp(jstr(g, "mode", "assumed"), "probed") ? "probed" : "assumed");
		fputs("<table><tr><th>probed calls</th><th>matched</th><th>point precision</th><th>point recall</th>"
		      "<th>avg_idle error median</th><th>p90</th><th>overload agreement</th><th>early-bail agreement"
		      "</th><th>pull precision</th><th>pull recall</th></tr><tr>", out);
		fprintf(out, "<td>%" PRId64 "</td><td>%" PRId64 "</td>", jint(g, "calls"), jint(g, "matched_points"));
		td_ratio(out, jdbl(g, "point_precision"));
		td_ratio(out, jdbl(g, "point_recall"));
		td_ratio(out, jdbl(e, "median"));
		td_ratio(out, jdbl(e, "p90"));
		td_ratio(out, jdbl(g, "overload_agreement"));
		td_ratio(out, jdbl(g, "early_bail_agreement"));
		td_ratio(out, jdbl(g, "pull_precision"));
		td_ratio(out, jdbl(g, "pull_recall"));
		fputs("</tr></table>\n", out);
	}
	fputs("<h2>Assumptions and topology</h2>\n", out);
	if (a && json_object_is_type(a, json_type_object)) {
		fputs("<table class=\"kv\"><tr><th>assumed (not visible in the trace)</th><th>value</th></tr>\n", out);
		json_object_object_foreach(a, k, v) {
			fputs("<tr><td>", out);
			ir_html_text(out, k);
			fputs("</td><td>", out);
			ir_html_text(out, jtext(v));
			fputs("</td></tr>\n", out);
		}
		fputs("</table>\n", out);
	}
	if (d) {
		json_object *lv = jget(d, "levels"), *cpus = jget(d, "cpus");

		fputs("<table><tr><th>cpu</th>", out);
		for (size_t l = 0; l < jlen(lv); l++) {
			fputs("<th>", out);
			ir_html_text(out, jtext(jidx(lv, l)));
			fputs(" span</th>", out);
		}
		fputs("</tr>\n", out);
		for (size_t c = 0; c < jlen(cpus); c++) {
			json_object *cl = jget(jidx(cpus, c), "levels");

			fprintf(out, "<tr><td>%" PRId64 "</td>", jint(jidx(cpus, c), "cpu"));
			for (size_t l = 0; l < jlen(lv); l++) {
				const char *span = "";

				for (size_t k = 0; k < jlen(cl); k++)
					if (!strcmp(jstr(jidx(cl, k), "name", ""), jtext(jidx(lv, l))))
						span = jstr(jidx(cl, k), "span", "");
				fputs("<td>", out);
				ir_html_text(out, span);
				fputs("</td>", out);
			}
			fputs("</tr>\n", out);
		}
		fputs("</table>\n", out);
	}
}

/* The closed loop (issue 13): figures per policy beside the trace's. */
static void cl_tr(FILE *out, const char *label, json_object *f)
{
	json_object *bal = jget(f, "balance_cpu_ns");

	fputs("<tr><td>", out);
	ir_html_text(out, label);
	fputs("</td>", out);
	td_ns(out, jint(f, "completion_ns"));
	td_ns(out, jint(f, "idle_ns"));
	td_ns(out, jint(f, "idle_while_waiting_ns"));
	td_ns(out, jint(jget(f, "wait_ns"), "p50"));
	td_ns(out, jint(jget(f, "wait_ns"), "p99"));
	fprintf(out, "<td>%lld</td><td>%lld</td>", (long long)jint(f, "migrations"), (long long)jint(f, "newidle_pulls"));
	if (bal && !json_object_is_type(bal, json_type_null))
		td_ns(out, json_object_get_int64(bal));
	else
		fputs("<td class=\"muted\">n/a</td>", out);
	fputs("</tr>\n", out);
}

/* A randomised policy's row is the mean over its seeds: a row of the
 * 5-95 % spread under it */
static void cl_spread_tr(FILE *out, json_object *f)
{
	json_object *sd = jget(f, "seeds"), *lo = jget(sd, "p5"), *hi = jget(sd, "p95");
	static const char *const ns[] = { "completion_ns", "idle_ns", "idle_while_waiting_ns" };
	char a[32], b[32];

	if (!sd || jint(sd, "n") <= 1)
		return;
	fprintf(out, "<tr class=\"muted\"><td>5-95 %% over %lld seeds</td>", (long long)jint(sd, "n"));
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		fprintf(out, "<td>%s&ndash;%s</td>", ir_fmt_ns(a, sizeof(a), jint(lo, ns[i])),
			ir_fmt_ns(b, sizeof(b), jint(hi, ns[i])));
	for (int q = 0; q < 2; q++)
		fprintf(out, "<td>%s&ndash;%s</td>", ir_fmt_ns(a, sizeof(a), jint(jget(lo, "wait_ns"), q ? "p99" : "p50")),
			ir_fmt_ns(b, sizeof(b), jint(jget(hi, "wait_ns"), q ? "p99" : "p50")));
	fprintf(out, "<td>%lld&ndash;%lld</td><td>%lld&ndash;%lld</td>", (long long)jint(lo, "migrations"),
		(long long)jint(hi, "migrations"), (long long)jint(lo, "newidle_pulls"), (long long)jint(hi, "newidle_pulls"));
	if (jget(lo, "balance_cpu_ns") && !json_object_is_type(jget(lo, "balance_cpu_ns"), json_type_null))
		fprintf(out, "<td>%s&ndash;%s</td>", ir_fmt_ns(a, sizeof(a), jint(lo, "balance_cpu_ns")),
			ir_fmt_ns(b, sizeof(b), jint(hi, "balance_cpu_ns")));
	else
		fputs("<td class=\"muted\">n/a</td>", out);
	fputs("</tr>\n", out);
}

static void section_closed_loop(FILE *out, json_object *doc)
{
	json_object *cl = jget(doc, "closed_loop"), *fit = jget(doc, "closed_loop_fit");
	const char *withheld;

	if (!cl || !fit)
		return;
	fprintf(out, "<h2>Closed loop</h2>\n<p>The trace's workload re-simulated under each policy; "
		"%.1f %% of its wakeups are explained (", 100 * jdbl(fit, "explained_share"));
	{
		int i = 0;

		json_object_object_foreach(jget(fit, "wakeups"), k, v) {
			fprintf(out, "%s", i++ ? ", " : "");
			ir_html_text(out, k);
			fprintf(out, " %.1f %%", 100 * jdbl(v, "share"));
		}
	}
	fputs(").</p>\n<table><tr><th></th><th>completion</th><th>idle</th><th>idle while others wait</th>"
	      "<th>wait p50</th><th>wait p99</th><th>migrations</th><th>newidle pulls</th><th>balance CPU</th></tr>\n", out);
	cl_tr(out, "trace (measured)", jget(fit, "measured"));
	cl_tr(out, "frozen to the trace", jget(fit, "frozen"));
	if (!(withheld = jstr(fit, "withheld", NULL))) {
		json_object_object_foreach(cl, label, f) {
			cl_tr(out, label, f);
			cl_spread_tr(out, f);
		}
	}
	fputs("</table>\n", out);
	if (!withheld)
		fputs("<p class=\"muted\">A randomised policy (NI_RANDOM) is simulated once per seed: its row is the "
		      "mean over the seeds, the row under it each figure's 5-95 % spread.</p>\n", out);
	if (!withheld && ir_cl_stalled_sentence(out, "<p class=\"warn\">Warning: ", fit, cl, ir_html_text))
		fputs(".</p>\n", out);
	if (withheld) {
		fputs("<p>Closed-loop figures withheld: ", out);
		ir_html_text(out, withheld);
		fputs("</p>\n", out);
	}
	fputs("<p class=\"muted\">Not modelled: ", out);
	for (size_t i = 0; i < jlen(jget(fit, "not_modelled")); i++) {
		fputs(i ? "; " : "", out);
		ir_html_text(out, jtext(jidx(jget(fit, "not_modelled"), i)));
	}
	fputs(".</p>\n", out);
}

int ir_report_html(json_object *doc, FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<link rel=\"icon\" href=\"data:,\">\n<title>idlereplay: ", out);
	ir_html_text(out, jstr(jget(doc, "trace"), "path", "report"));
	fprintf(out, "</title>\n<style>%s</style></head>\n<body><main>\n", css);
	section_header(out, doc);
	ir_headlines_html(doc, out);
	section_policies(out, doc);
	section_sweeps(out, doc);
	section_timeline(out, doc);
	section_observed(out, doc);
	section_fidelity(out, doc);
	section_closed_loop(out, doc);
	fputs("</main></body></html>\n", out);
	return ferror(out) ? -1 : 0;
}

int ir_report_write_html(json_object *doc, const char *path)
{
	struct ir_out o;

	if (ir_out_open(&o, path))
		return -1;
	return ir_out_close(&o, ir_report_html(doc, o.f) == 0);
}

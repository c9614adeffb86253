/* SPDX-License-Identifier: GPL-2.0-only */
/* report/: private helpers shared by the renderers (not part of the contract). */
#ifndef IDLEREPLAY_REPORT_UTIL_H
#define IDLEREPLAY_REPORT_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

/* Counts and nanoseconds are written as JSON integers (int64: a u64 above
 * INT64_MAX never occurs in a trace's span). */
static inline json_object *u64(uint64_t v)
{
	return json_object_new_int64((int64_t)v);
}

static inline json_object *jget(json_object *o, const char *k)
{
	json_object *v;

	return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static inline int64_t jint(json_object *o, const char *k)
{
	json_object *v = jget(o, k);

	return v ? json_object_get_int64(v) : 0;
}

/* Number or NaN when absent or null. */
static inline double jdbl(json_object *o, const char *k)
{
	json_object *v = jget(o, k);

	if (!v || json_object_is_type(v, json_type_null))
		return __builtin_nan("");
	return json_object_get_double(v);
}

static inline const char *jstr(json_object *o, const char *k, const char *dflt)
{
	json_object *v = jget(o, k);
	const char *s = v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;

	return s && *s ? s : dflt;
}

/* Any value as text, as json-c prints it ("null" for a JSON null, which
 * json_object_get_string() gives as NULL): for values from a document,
 * which may be anything (docs: reports from other machines are data). */
static inline const char *jtext(json_object *v)
{
	const char *s = json_object_get_string(v);

	return s ? s : "null";
}

static inline size_t jlen(json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* NULL unless a is an array holding an element i (json-c asserts the type). */
static inline json_object *jidx(json_object *a, size_t i)
{
	return i < jlen(a) ? json_object_array_get_idx(a, i) : NULL;
}

/* Domain level names in topology order: domains.levels, else the union of
 * the policies' pulls.by_level keys.  Returns how many (at most max). */
int ir_levels(json_object *doc, const char **names, int max);

/* One CSV field, quoted (RFC 4180) when it holds a comma, quote or newline;
 * one that starts with = + - @ TAB or CR is quoted with a ' first (OWASP). */
void ir_csv_field(FILE *out, const char *s);

/* "+1.20 ms" / "-300 ns": signed durations (any int64_t, INT64_MIN too). */
const char *ir_fmt_sns(char *buf, size_t len, int64_t ns);
/* The same for a double (a difference or sum that may not fit int64_t),
 * unsigned ("-" for negative, as ir_fmt_ns) and signed. */
const char *ir_fmt_dns(char *buf, size_t len, double ns);
const char *ir_fmt_dsns(char *buf, size_t len, double ns);

/* One CPU's lost events as the text and HTML reports state them: counts,
 * where in the trace (t: the report's "trace"), and what they undercount;
 * numbers only, so nothing to escape.  No newline. */
void ir_lost_sentence(FILE *out, json_object *l, json_object *t);

/* The closed-loop runs that did not finish (closed_loop_fit.frozen and
 * closed_loop.LABEL with "stalled", or a frozen run that forced wakeups), as
 * the text and HTML reports state them: the run names through put() (each
 * report escapes its own), the rest plain.  Nothing when every run finished;
 * prefix comes first, written only with the rest; returns whether it wrote.
 * No newline. */
bool ir_cl_stalled_sentence(FILE *out, const char *prefix, json_object *fit, json_object *cl,
			    void (*put)(FILE *, const char *));


/*
 * An axis over values that may differ a hundredfold and straddle 0.  When
 * the non-zero magnitudes differ a hundredfold (max >= 100 x min) it is a
 * symmetric log scale: position of v is sign(v) log10(1 + |v| / c), c the
 * smallest non-zero magnitude (linear near 0, logarithmic beyond, negative
 * values mirrored); else linear.  lo..hi is the span to show (0 included).
 */
struct ir_axis {
	bool symlog;
	double c;		/* symlog: the linear threshold */
	double lo, hi;		/* the span, in values */
};
void ir_axis_init(struct ir_axis *a, const double *v, int n);
/* v's position on the axis, 0 (lo) .. 1 (hi). */
double ir_axis_pos(const struct ir_axis *a, double v);
/* Tick values, at most max: symlog 0 and +-c x 10^k within the span. */
int ir_axis_ticks(const struct ir_axis *a, double *t, int max);

/* What identifies a recorded trace whatever its report's file name: its
 * first and last timestamps, events, CPUs and hostname (FNV-1a; never 0). */
uint64_t ir_trace_fingerprint(json_object *trace);

/* Policy parameters once (report/params.c): shared values, then each
 * policy's own; durations with units. */
const char *ir_fmt_param(char *buf, size_t len, const char *key, json_object *v);
json_object *ir_param_common(json_object *pol, const char *key);
bool ir_param_shared(json_object *pol, const char *key, json_object *v);
void ir_params_text(json_object *pol, FILE *out, int label_width);

/* Text for HTML content or a quoted attribute: markup characters as
 * entities, control bytes from data visible as \xNN (as in the text). */
void ir_html_text(FILE *out, const char *s);

/* Idle time summed over the observed CPUs, in double: a sum of int64_t
 * values from a file may not fit one. */
double ir_idle_total(json_object *doc);
/* The trace's hostname, NULL when it has none ("" in the report). */
const char *ir_hostname(json_object *trace);

/* Percentile (0..100) of n values by nearest rank; sorts v in place. */
double ir_percentile(double *v, int n, double pct);

#endif

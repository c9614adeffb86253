/* SPDX-License-Identifier: GPL-2.0-only */
/* Text renderer: reads only the JSON document, prints aligned tables. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"

static int64_t geti(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_int64(v) : 0;
}

static json_object *get(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* Durations a person can read: ns, us, ms, s. */
const char *ir_fmt_ns(char *buf, size_t len, int64_t ns)
{
	double v = (double)ns;

	if (ns < 0)
		snprintf(buf, len, "-");
	else if (ns < 1000)
		snprintf(buf, len, "%" PRId64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", v / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", v / 1e6);
	else
		snprintf(buf, len, "%.3f s", v / 1e9);
	return buf;
}

static double pct(int64_t a, int64_t b)
{
	return b > 0 ? 100.0 * (double)a / (double)b : 0.0;
}

static void print_trace(json_object *t, FILE *out)
{
	char b[32];
	json_object *ev = get(t, "events");

	fprintf(out, "trace     %s\n", json_object_get_string(get(t, "path")));
	fprintf(out, "kernel    %s   clock %s   cpus %" PRId64 "   file v%" PRId64 "\n",
		json_object_get_string(get(t, "kernel"))[0] ? json_object_get_string(get(t, "kernel")) : "unknown",
		json_object_get_string(get(t, "clock")), geti(t, "cpus"), geti(t, "file_version"));
	fprintf(out, "window    %s, %" PRId64 " events\n", ir_fmt_ns(b, sizeof(b), geti(t, "window_ns")),
		geti(t, "events_total"));
	if (ev) {
		fprintf(out, "events   ");
		json_object_object_foreach(ev, k, v)
			fprintf(out, " %s=%" PRId64, k, json_object_get_int64(v));
		fputc('\n', out);
	}
}

static void print_observed(json_object *o, int64_t window, FILE *out)
{
	char b1[32], b2[32];
	json_object *cpus = get(o, "cpus"), *mig = get(o, "migrations"), *an = get(o, "anomalies");
	size_t n = cpus ? json_object_array_length(cpus) : 0;

	fprintf(out, "\nObserved (straight from the trace)\n");
	fprintf(out, "  %4s %12s %7s %12s %12s %10s %8s\n", "cpu", "idle", "idle%", "busy", "idle entries",
		"newidle", "pulls");
	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(cpus, i);

		fprintf(out, "  %4" PRId64 " %12s %6.1f%% %12s %12" PRId64 " %10" PRId64 " %8" PRId64 "\n",
			geti(c, "cpu"), ir_fmt_ns(b1, sizeof(b1), geti(c, "idle_ns")),
			pct(geti(c, "idle_ns"), window), ir_fmt_ns(b2, sizeof(b2), geti(c, "busy_ns")),
			geti(c, "idle_entries"), geti(c, "newidle_points"), geti(c, "newidle_pulls"));
	}
	fprintf(out, "  idle while another CPU had a waiting task: %s (CPU-time)\n",
		ir_fmt_ns(b1, sizeof(b1), geti(o, "idle_while_waiting_ns")));
	fprintf(out, "  newidle points %" PRId64 ", observed newidle pulls %" PRId64 "\n",
		geti(o, "newidle_points"), geti(o, "newidle_pulls"));
	if (mig) {
		fprintf(out, "  migrations %" PRId64 ":", geti(mig, "total"));
		json_object_object_foreach(get(mig, "by_cause"), k, v)
			if (json_object_get_int64(v))
				fprintf(out, " %s %" PRId64, k, json_object_get_int64(v));
		fputc('\n', out);
	}
	if (an) {
		int any = 0;

		json_object_object_foreach(an, k, v) {
			if (!json_object_get_int64(v))
				continue;
			fprintf(out, "%s %s %" PRId64, any ? "," : "  anomalies:", k, json_object_get_int64(v));
			any = 1;
		}
		if (any)
			fputc('\n', out);
	}
}

static void print_warnings(json_object *doc, FILE *out)
{
	json_object *t = get(doc, "trace"), *lost = get(t, "lost_by_cpu");
	size_t n = lost ? json_object_array_length(lost) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *l = json_object_array_get_idx(lost, i);
		char b1[32], b2[32];

		fprintf(out, "WARNING: CPU %" PRId64 " lost events (overrun %" PRId64 ", dropped %" PRId64
			", missed %" PRId64 "%s)", geti(l, "cpu"), geti(l, "overrun"), geti(l, "dropped"),
			geti(l, "missed"), geti(l, "missed_unknown_count") ? ", some of unknown count" : "");
		if (geti(l, "first_ts"))
			fprintf(out, " between %s and %s into the trace",
				ir_fmt_ns(b1, sizeof(b1), geti(l, "first_ts") - geti(t, "first_ts")),
				ir_fmt_ns(b2, sizeof(b2), geti(l, "last_ts") - geti(t, "first_ts")));
		fprintf(out, ": figures for it are incomplete\n");
	}
}

int ir_report_text(json_object *doc, FILE *out)
{
	json_object *t = get(doc, "trace");

	print_trace(t, out);
	print_warnings(doc, out);
	print_observed(get(doc, "observed"), geti(t, "window_ns"), out);
	return ferror(out) ? -1 : 0;
}

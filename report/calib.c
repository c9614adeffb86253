/* SPDX-License-Identifier: GPL-2.0-only */
/* Text renderer for the calibration document (idlereplay.calibration/1). */
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/util.h"

/* Without probes: the cost_scale grid and its fit to the observed pulls. */
static int fit_text(json_object *doc, FILE *out)
{
	json_object *g = jget(doc, "grid"), *sc = jget(doc, "cost_scale");
	const char *status = jstr(doc, "status", "");

	fprintf(out, "trace   %s\nkernel  %s (modelled by %s)\nno newidle probes: costs fitted to the trace's own "
		"%.0f observed newidle pulls\n\n  cost_scale  predicted pulls\n", ir_tsafe(jstr(doc, "trace", "")),
		jstr(doc, "kernel", "unknown")[0] ? ir_tsafe(jstr(doc, "kernel", "unknown")) : "unknown",
		ir_tsafe(jstr(doc, "policy", "")), jdbl(doc, "observed_pulls"));
	for (size_t i = 0; i < json_object_array_length(g); i++) {
		json_object *x = json_object_array_get_idx(g, i);

		fprintf(out, "  %9.3fx  %.1f\n", (double)jint(x, "cost_scale") / 1000,
			jdbl(x, "predicted_pulls"));
	}
	fprintf(out, "\n%s", ir_tsafe(status));
	if (sc) {
		json_object *lo = jget(doc, "cost_scale_lo"), *hi = jget(doc, "cost_scale_hi");
		char a[32] = "?", b[32] = "unbounded";

		if (lo)
			snprintf(a, sizeof(a), "%.3gx", json_object_get_double(lo) / 1000);
		if (hi)
			snprintf(b, sizeof(b), "%.3gx", json_object_get_double(hi) / 1000);
		if (!strcmp(status, "fitted"))
			fprintf(out, ": cost_scale %.3gx the assumed defaults (1-sigma range %s to %s)\n",
				json_object_get_double(sc) / 1000, a, b);
		else
			fprintf(out, ": cost_scale %s %.3gx the assumed defaults\n",
				!strncmp(status, "upper", 5) ? "at most" : "at least", json_object_get_double(sc) / 1000);
		fprintf(out, "Suggested (costs calibrated on these pulls, not measured):\n  idlereplay replay TRACE %s\n",
			ir_tsafe(jstr(doc, "replay_options", "")));
	} else {
		fprintf(out, "\n");
	}
	return ferror(out) ? -1 : 0;
}

int ir_calib_text(json_object *doc, FILE *out)
{
	json_object *stats = jget(doc, "stats");
	char b[6][32];

	if (!strcmp(jstr(doc, "method", ""), "observed_pulls"))
		return fit_text(doc, out);

	fprintf(out, "trace   %s\nkernel  %s\nnewidle calls probed: %llu\n\n", ir_tsafe(jstr(doc, "trace", "")),
		ir_tsafe(jstr(doc, "kernel", "unknown")), (unsigned long long)jint(doc, "calls"));
	fprintf(out, "  %-26s %7s %10s %10s %10s %10s %10s\n", "", "n", "min", "p10", "median", "p90", "max");
	for (int k = 0; k < IR_CALIB__COUNT; k++) {
		json_object *s = jget(stats, ir_calib_name[k]);

		fprintf(out, "  %-26s %7llu %10s %10s %10s %10s %10s\n", ir_calib_name[k],
			(unsigned long long)jint(s, "n"),
			ir_fmt_ns(b[0], 32, jint(s, "min")), ir_fmt_ns(b[1], 32, jint(s, "p10")),
			ir_fmt_ns(b[2], 32, jint(s, "p50")), ir_fmt_ns(b[3], 32, jint(s, "p90")),
			ir_fmt_ns(b[4], 32, jint(s, "max")));
	}
	fprintf(out, "\nSuggested for replaying this machine's traces without probes (medians):\n"
		"  idlereplay replay TRACE %s\n", ir_tsafe(jstr(jget(doc, "suggested"), "replay_options", "")));
	return ferror(out) ? -1 : 0;
}

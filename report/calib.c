/* SPDX-License-Identifier: GPL-2.0-only */
/* Text renderer for the calibration document (idlereplay.calibration/1). */
#include <stdio.h>

#include "report/report.h"
#include "report/util.h"

int ir_calib_text(json_object *doc, FILE *out)
{
	json_object *stats = jget(doc, "stats");
	char b[6][32];

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

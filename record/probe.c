/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --probe-newidle (SPEC section 6): ground truth from a kprobe/kretprobe
 * pair on the kernel's newidle balance function.
 *
 * Path: needs CONFIG_KPROBE_EVENTS (tracefs "kprobe_events") and the
 * function name from /proc/kallsyms (sched_balance_newidle, newidle_balance
 * or idle_balance).  Then: libtracefs tracefs_kprobe_alloc() /
 * tracefs_kretprobe_alloc() ("ret=$retval") as kprobes/newidle_entry and
 * kprobes/newidle_exit, tracefs_dynevent_create(), enabled in our instance
 * only, their formats added to the trace.dat event list, and
 * tracefs_dynevent_destroy() on every exit path (kprobe_events is global,
 * so a killed recorder's probes must also be found and removed at start).
 *
 * Only detection is implemented: this machine kind has no kprobes, so the
 * creation path could not be tested and is left out rather than shipped
 * untested on production hosts.
 */
#include <string.h>

#include <tracefs.h>

#include "record/record_int.h"

void rec_probe_newidle_report(FILE *log)
{
	const char *func = rec_newidle_function();

	if (!tracefs_file_exists(NULL, "kprobe_events"))
		fprintf(log, "idlereplay: record: --probe-newidle: this kernel has no kprobe events "
			"(CONFIG_KPROBE_EVENTS); recording without probes\n");
	else if (!strcmp(func, "unknown"))
		fprintf(log, "idlereplay: record: --probe-newidle: no newidle balance function in "
			"/proc/kallsyms; recording without probes\n");
	else
		fprintf(log, "idlereplay: record: --probe-newidle: probing %s is not implemented yet; "
			"recording without probes\n", func);
}

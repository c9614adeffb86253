/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record/: the record stage's contract.
 *
 * In:  a live kernel (tracefs, /proc, /sys), options, optionally a command.
 * Out: one trace.dat (v7) that trace-cmd report/dump read as-is, holding the
 *      sched events of SPEC section 5, UNAME, TRACECLOCK, CPUCOUNT, VERSION,
 *      one CPUSTAT per CPU (overrun and dropped counts from
 *      per_cpu/cpuN/stats) and the idlereplay meta option below.
 *
 * Guarantees, on every path that returns: the tracefs instance
 * "idlereplay-<pid>" is disabled and removed, nothing at the top level of
 * tracefs was written, the output is either a complete trace (renamed into
 * place at the end) or absent.  Stale instances of dead recorders are
 * removed at start.  Knows nothing of replay, models or policies.
 */
#ifndef IDLEREPLAY_RECORD_H
#define IDLEREPLAY_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Option id (trace.dat v7 option) of the meta text: 'I' 'R'.  Payload is
 * NUL-terminated text starting with IR_META_MAGIC (see record/meta.c). */
#define IR_META_OPTION_ID 0x4952
#define IR_META_MAGIC "idlereplay-meta 1"

#define IR_RECORD_DEFAULT_OUTPUT "trace.dat"
/* Per CPU.  Measured: no loss for hackbench -g 2 -l 1000 on 2 CPUs. */
#define IR_RECORD_DEFAULT_BUFFER_KB 8192

/* Writes topology text ("idlereplay-topology 1 ...", owned by model/) into
 * a malloc'd *text.  sysroot "" or NULL means the live system. */
typedef int (*ir_topology_capture_fn)(const char *sysroot, char **text,
				      char *err, size_t errlen);

struct ir_record_opts {
	const char *output;		/* final path; NULL: IR_RECORD_DEFAULT_OUTPUT */
	double duration;		/* seconds; <= 0: until command exit or signal */
	unsigned long buffer_kb;	/* per CPU; 0: IR_RECORD_DEFAULT_BUFFER_KB */
	bool force;			/* replace an existing output */
	const char *user;		/* run the command as this user */
	bool probe_newidle;		/* kprobe the newidle function if possible */
	char *const *argv;		/* command to run, or NULL */
	ir_topology_capture_fn topology_capture;	/* NULL: "unknown" */
	unsigned long long max_bytes;	/* stop once this much is captured; 0: no cap */
	bool live;			/* redraw a live count on log (a terminal) */
	FILE *log;			/* summary and warnings; NULL: stderr */
};

struct ir_record_result {
	bool have_command;
	int command_status;		/* exit code, or 128+signal */
	unsigned long long bytes;	/* raw ring-buffer bytes captured */
	unsigned long long overrun;	/* summed over CPUs */
	unsigned long long dropped;
};

/*
 * Record until the command exits, the duration ends, max_bytes are
 * captured, or SIGINT/SIGTERM/SIGHUP arrives.  Returns 0, or IR_ERR_INPUT / IR_ERR_USAGE (common/status.h
 * numbering) with one line in err (no "idlereplay: " prefix).
 */
int ir_record(const struct ir_record_opts *opts, struct ir_record_result *res,
	      char *err, size_t errlen);


#endif

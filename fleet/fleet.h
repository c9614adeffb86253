/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fleet/: many traces or reports at once, on this machine.
 *  - jobs.c: run one command per trace, at most N at a time, each with its
 *    stderr in a log file of its own; a job that fails does not stop the
 *    others.  No scheduling beyond that, no network: fleets larger than one
 *    machine use engines they already have (contrib/, docs/fleet.md).
 *  - fleet.c: 'idlereplay fleet': one 'idlereplay replay' per trace into a
 *    directory, then the merged report (report/merge.c) beside them.
 *  - reports.c: 'report merge' and 'report --format jsonl|csv' over many
 *    report files, read one at a time (memory does not grow with them).
 * Every file written goes through ir_out (output/place.c): a regular file
 * or a new path is replaced atomically, a device, FIFO or link to our
 * stdout is written in place, never replaced or removed.
 */
#ifndef IDLEREPLAY_FLEET_H
#define IDLEREPLAY_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/report.h"

struct ir_job {
	char **argv;		/* argv[0]: the program's path; NULL-terminated */
	const char *log;	/* the job's stderr goes here (an ir_out: see above) */
	int status;		/* after the run: exit status, 128 + signal, or -1 not run */
	struct ir_out out;	/* the log while the job runs */
};

/* Run every job, at most jobs at a time; done(arg, i) as each ends.  An
 * empty log that was a new or regular file is removed.  0, or -1 with
 * errno when no process could be started at all. */
int ir_jobs_run(struct ir_job *job, int n, int jobs, void (*done)(void *arg, int i), void *arg);

/* The last non-empty line of a log that is a regular file, into buf ("" if
 * none; a device or FIFO is never read). */
void ir_job_last_line(const char *log, char *buf, size_t len);

/* idlereplay fleet: every trace replayed by self (the idlereplay binary)
 * with --json DIR/NAME.json (and --html), extra options after, jobs at a
 * time; then DIR/fleet.txt, fleet.csv and fleet.html. */
struct ir_fleet {
	const char *dir, *self;
	int jobs;
	bool html;
	char *const *traces;
	int ntraces;
	char *const *extra;		/* options for every replay */
	int nextra;
	void (*on_done)(void *arg, int done, int n);		/* as each replay ends */
	void (*on_failed)(void *arg, const char *trace, const char *error);
	/* a replay that wrote its report but lost more events than --max-lost
	 * allows (exit 3): merged all the same, said through this */
	void (*on_lost)(void *arg, const char *trace, const char *error);
	void *arg;
};
/* IR_OK with *failed traces that gave no report (listed through on_failed
 * and in the merged report) and *lost whose report was merged though they
 * lost too many events (on_lost), or an error status with one line in err. */
int ir_fleet_run(const struct ir_fleet *f, int *failed, int *lost, char *err, size_t errlen);

/* report merge of files (the first nnames named by names), streamed, written
 * as fmt to path (NULL or "-": stdout); CPU-count and topology warnings on
 * warn.  IR_OK, or a status with one line in err. */
int ir_fleet_merge_files(char *const *files, int n, const char *const *names, int nnames,
			 enum ir_merge_format fmt, const char *path, FILE *warn, char *err, size_t errlen);

/* Long-format rows (report/rows.c) of every file, one at a time, to path;
 * the first nnames hosts named by names; a trace given twice is refused. */
int ir_fleet_rows_files(char *const *files, int n, const char *const *names, int nnames,
			enum ir_rows_format fmt, const char *path, char *err, size_t errlen);

#endif

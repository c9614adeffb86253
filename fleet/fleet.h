/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fleet/: run one command per trace on this machine, at most N at a time,
 * each with its stderr in a log file of its own; a job that fails does not
 * stop the others.  No scheduling beyond that, no network: fleets larger
 * than one machine use engines they already have (contrib/, docs/fleet.md).
 */
#ifndef IDLEREPLAY_FLEET_H
#define IDLEREPLAY_FLEET_H

struct ir_job {
	char **argv;		/* argv[0]: the program's path; NULL-terminated */
	const char *log;	/* the job's stderr goes here (created or truncated) */
	int status;		/* after the run: exit status, 128 + signal, or -1 not run */
};

/* Run every job, at most jobs at a time; done(arg, i) as each ends.
 * 0, or -1 with errno when no process could be started at all. */
int ir_jobs_run(struct ir_job *job, int n, int jobs, void (*done)(void *arg, int i), void *arg);

/* The last non-empty line of a log file, into buf ("" if none). */
void ir_job_last_line(const char *log, char *buf, size_t len);

#endif

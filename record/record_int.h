/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal interfaces between the files of record/; other stages use
 * record.h only.  Each function returns 0 or -1 with one line in err.
 */
#ifndef IDLEREPLAY_RECORD_INT_H
#define IDLEREPLAY_RECORD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>

#include "record/probe_btf.h"
#include "record/record.h"

struct tracefs_instance;

#define REC_ERR(err, len, ...) snprintf((err), (len), __VA_ARGS__)

/* ------------------------------------------------------ instance.c */
/* Mount tracefs if it is missing (never unmounted: harmless, and another
 * tool may start using it while we record). */
int rec_tracefs_ready(char *err, size_t len);
/* Remove instances "idlereplay-<pid>" whose recorder is gone: those whose
 * lock (flock on the instance directory, held by every live recorder) can
 * be taken.  Never by process name or pid. */
int rec_instance_remove_stale(FILE *log);
/* Create "idlereplay-<getpid()>" with buffer_kb per CPU, tracing off, and
 * lock it until rec_instance_destroy(). */
struct tracefs_instance *rec_instance_create(unsigned long buffer_kb, char *err, size_t len);
/* Tracing off, every event off, rmdir, free.  Safe with NULL.  Returns
 * -1 if the directory is still there (reported on log). */
int rec_instance_destroy(struct tracefs_instance *ti, FILE *log);

struct rec_cpu_stat {
	unsigned long long overrun;	/* "overrun": overwritten, never read */
	unsigned long long dropped;	/* "dropped events": buffer full */
	unsigned long long read;	/* "read events" */
	unsigned long long entries;	/* "entries": still in the buffer */
	char *text;			/* stats file as read, for CPUSTAT */
};
int rec_instance_cpu_stat(struct tracefs_instance *ti, int cpu, struct rec_cpu_stat *st);

/* -------------------------------------------------------- events.c */
/* NULL-terminated "sched/<event>" names present on this kernel; all
 * required ones must exist.  Free with rec_events_free(). */
char **rec_events_select(char *err, size_t len);
int rec_events_enable(struct tracefs_instance *ti, char *const *names, char *err, size_t len);
/* Append "system/event" to the list (for the trace.dat formats only). */
int rec_events_add(char ***names, const char *name);
void rec_events_free(char **names);

/* -------------------------------------------------------- reader.c */
struct rec_reader;
struct rec_readers {
	int nr_cpus;
	struct rec_reader *r;
};
/* One reader per CPU, each with an anonymous temp file in dir. */
int rec_readers_open(struct rec_readers *rs, struct tracefs_instance *ti,
		     const char *dir, char *err, size_t len);
/* Move whole pages (splice) from every trace_pipe_raw; never blocks. */
int rec_readers_pump(struct rec_readers *rs, char *err, size_t len);
/* After tracing is off: pump, then read the last partial pages. */
int rec_readers_drain(struct rec_readers *rs, char *err, size_t len);
/* "/proc/self/fd/N" path of CPU cpu's data, for libtracecmd. */
const char *rec_readers_path(const struct rec_readers *rs, int cpu);
unsigned long long rec_readers_bytes(const struct rec_readers *rs);
/* Close the trace_pipe_raw files (an instance with open files cannot be
 * removed); the data files stay. */
void rec_readers_stop(struct rec_readers *rs);
void rec_readers_close(struct rec_readers *rs);

/* ---------------------------------------------------------- meta.c */
/* Newidle balance function found in /proc/kallsyms, or "unknown". */
const char *rec_newidle_function(void);
/* The IR_META_OPTION_ID payload (malloc'd). */
char *rec_meta_build(const char *clock, ir_topology_capture_fn topo, const char *extra, FILE *log);

/* --------------------------------------------------------- probe.c */
struct tracefs_dynevent;

#define REC_PROBE_ENTRY "newidle_entry"
#define REC_PROBE_EXIT "newidle_exit"
/* Holds the pid of the recorder whose kprobes exist (flock'ed while it runs). */
#define REC_PROBE_LOCK "/run/idlereplay-newidle-probe.lock"

struct rec_probe {
	bool wanted;			/* prepared: create at rec_probe_create() */
	bool levels_known;		/* sd_levels from /proc/schedstat */
	struct rec_probe_spec spec;
	struct tracefs_dynevent *entry, *exit;
	int lock_fd;
	bool owner;			/* REC_PROBE_LOCK is locked and holds our pid */
};
/* --probe-newidle, before anything is set up: kprobe_events, the newidle
 * function, the kernel's BTF and the fields; -1 with one line in err. */
int rec_probe_prepare(struct rec_probe *p, char *err, size_t len);
/* Remove a dead recorder's probes, create ours, enable them in ti. */
int rec_probe_create(struct rec_probe *p, struct tracefs_instance *ti, FILE *log,
		     char *err, size_t len);
/* Remove the probes (after ti is gone, which disables them).  Safe to
 * call again, and on a zeroed struct with lock_fd -1. */
int rec_probe_destroy(struct rec_probe *p, FILE *log);
/* The meta lines ("newidle_probe ...") or "" without probes; malloc'd. */
char *rec_probe_meta(const struct rec_probe *p);

/* ------------------------------------------------------- outfile.c */
int rec_outfile_check(const char *path, bool force, char *err, size_t len);
struct rec_outfile {
	int fd;
	char *name;		/* NULL while anonymous (O_TMPFILE) */
	char path[32];		/* "/proc/self/fd/N": opens it by any route */
};
/* A temp file in path's directory: O_TMPFILE, else O_EXCL|O_NOFOLLOW. */
int rec_outfile_open(struct rec_outfile *of, const char *path, char *err, size_t len);
/* Put it at path: link, or rename with force (never follows a symlink);
 * copied into stdout, a device or a FIFO (output/place.h). */
int rec_outfile_commit(struct rec_outfile *of, const char *path, bool force, char *err, size_t len);
/* Close; removes the temp name if it still has one. */
void rec_outfile_close(struct rec_outfile *of);
/* Where the temp files of output path go: its directory, or $TMPDIR
 * (default /var/tmp) when it is written in place (malloc'd). */
char *rec_outfile_dir(const char *path);
/* Directory part of path (malloc'd). */
char *rec_dirname(const char *path);

/* ------------------------------------------------------ tracedat.c */
struct rec_tracedat {
	int nr_cpus;
	char *const *events;		/* "sched/<event>" */
	const char *clocks;		/* trace_clock file: "[local] global ..." */
	const char *meta;		/* IR_META_OPTION_ID payload */
	struct rec_cpu_stat *stats;	/* nr_cpus entries */
	const struct rec_readers *data;
};
/* Write a v7 trace.dat to fd (which is consumed). */
int rec_tracedat_write(int fd, const struct rec_tracedat *td, char *err, size_t len);
/* Read the written file's headers back. */
int rec_tracedat_verify(const char *path, char *err, size_t len);

/* ------------------------------------------------------ workload.c */
struct rec_workload {
	pid_t pid;		/* 0: none */
	int go_fd;		/* write end: closing it lets the child exec */
	int err_fd;		/* read end: errno from a failed exec, or EOF */
};
/* Fork the child, stopped before exec until rec_workload_go(). */
int rec_workload_start(struct rec_workload *w, char *const *argv, const char *user,
		       const sigset_t *child_mask, char *err, size_t len);
/* Let it exec; fails with the child's reason if exec or --user failed. */
int rec_workload_go(struct rec_workload *w, char *const *argv, char *err, size_t len);
/* Wait (with WNOHANG unless block); returns 1 and *status when reaped. */
int rec_workload_reap(struct rec_workload *w, bool block, int *status);
void rec_workload_kill(struct rec_workload *w, int sig);

#endif

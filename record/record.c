/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ir_record(): set up, loop, tear down.  Every resource is released at
 * "out:" whatever the path; stop signals (SIGINT, SIGTERM, SIGHUP) and
 * SIGCHLD are blocked for the whole run and read from a signalfd in the
 * loop, so no signal cuts a path short before the instance is removed.
 * Only SIGKILL can, and the next run removes the stale instance.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "record/record_int.h"
#include "common/status.h"

/* Reader pacing: at a few MB/s per CPU the ring buffer (default 8 MB per
 * CPU) holds seconds, so 100 ms leaves a wide margin. */
#define POLL_MS 100
/* How long a command gets to exit after SIGTERM before SIGKILL. */
#define KILL_GRACE_MS 5000

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

enum stop_reason { RUNNING, STOP_COMMAND, STOP_DURATION, STOP_SIGNAL, STOP_SIZE };

struct loop {
	int sfd;
	struct rec_readers *rs;
	struct rec_workload *w;
	int status;		/* command's, once reaped */
	int signo;		/* stop signal received */
	const struct ir_record_opts *o;
	struct tracefs_instance *ti;
	FILE *log;
	long long start, drawn;	/* ms; last live count, 0 none */
};

/* "12 s, 345678 events, 20.1 MB": events from the per-CPU stats (read by
 * us + still in the buffer), redrawn in place once a second. */
static void live_count(struct loop *l)
{
	unsigned long long events = 0;
	long long t = now_ms();

	if (!l->o->live || (l->drawn && t - l->drawn < 1000))
		return;
	for (int cpu = 0; cpu < l->rs->nr_cpus; cpu++) {
		struct rec_cpu_stat st = { 0 };

		if (rec_instance_cpu_stat(l->ti, cpu, &st) == 0)
			events += st.read + st.entries;
		free(st.text);
	}
	fprintf(l->log, "\ridlereplay: record: %lld s, %llu events, %.1f MB", (t - l->start) / 1000, events,
		(double)rec_readers_bytes(l->rs) / 1e6);
	fflush(l->log);
	l->drawn = t;
}

/* Wait up to ms for a signal; returns the new stop reason. */
static enum stop_reason wait_event(struct loop *l, long long ms)
{
	struct pollfd pfd = { .fd = l->sfd, .events = POLLIN };
	struct signalfd_siginfo si;
	enum stop_reason why = RUNNING;

	if (poll(&pfd, 1, (int)(ms < 0 ? 0 : ms)) <= 0)
		return RUNNING;
	while (read(l->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (rec_workload_reap(l->w, false, &l->status))
				why = why == RUNNING ? STOP_COMMAND : why;
		} else if (!l->signo) {
			l->signo = (int)si.ssi_signo;
			why = STOP_SIGNAL;
		}
	}
	return why;
}

/* Pump pages until something says stop.  deadline < 0: none. */
static int run_loop(struct loop *l, long long deadline, enum stop_reason *why,
		    char *err, size_t len)
{
	*why = RUNNING;
	while (*why == RUNNING) {
		long long ms = POLL_MS;

		if (deadline >= 0 && deadline - now_ms() < ms)
			ms = deadline - now_ms();
		*why = wait_event(l, ms);
		if (rec_readers_pump(l->rs, err, len) < 0)
			return -1;
		if (*why == RUNNING && deadline >= 0 && now_ms() >= deadline)
			*why = STOP_DURATION;
		if (*why == RUNNING && l->o->max_bytes && rec_readers_bytes(l->rs) >= l->o->max_bytes)
			*why = STOP_SIZE;
		live_count(l);
	}
	if (l->drawn)
		fputc('\n', l->log);
	return 0;
}

/* Stop a command still running (duration or signal): SIGTERM, then SIGKILL
 * after a grace period, reading pages meanwhile so its exit is captured. */
static int end_command(struct loop *l, char *err, size_t len)
{
	long long deadline = now_ms() + KILL_GRACE_MS;

	if (!l->w->pid)
		return 0;
	rec_workload_kill(l->w, SIGTERM);
	while (l->w->pid && now_ms() < deadline) {
		wait_event(l, deadline - now_ms() < POLL_MS ? deadline - now_ms() : POLL_MS);
		if (rec_readers_pump(l->rs, err, len) < 0)
			return -1;
	}
	if (l->w->pid) {
		rec_workload_kill(l->w, SIGKILL);
		rec_workload_reap(l->w, true, &l->status);
	}
	return 0;
}

static void report(FILE *log, const char *output, int nr_cpus, const struct rec_cpu_stat *st,
		   struct ir_record_result *res, double secs)
{
	unsigned long long events = 0;

	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		events += st[cpu].read;
		res->overrun += st[cpu].overrun;
		res->dropped += st[cpu].dropped;
	}
	fprintf(log, "idlereplay: record: %s: %llu events, %llu KB from %d CPUs in %.1f s, "
		"lost %llu\n", output, events, res->bytes / 1024, nr_cpus, secs,
		res->overrun + res->dropped);
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		if (st[cpu].overrun || st[cpu].dropped)
			fprintf(log, "idlereplay: record: warning: CPU %d lost events "
				"(overrun %llu, dropped %llu): try a larger --buffer-kb\n",
				cpu, st[cpu].overrun, st[cpu].dropped);
}

int ir_record(const struct ir_record_opts *o, struct ir_record_result *res,
	      char *err, size_t len)
{
	const char *output = o->output ? o->output : IR_RECORD_DEFAULT_OUTPUT;
	unsigned long kb = o->buffer_kb ? o->buffer_kb : IR_RECORD_DEFAULT_BUFFER_KB;
	FILE *log = o->log ? o->log : stderr;
	struct tracefs_instance *ti = NULL;
	struct rec_readers rs = { 0 };
	struct rec_workload w = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	struct rec_cpu_stat *stats = NULL;
	struct loop l = { .sfd = -1, .rs = &rs, .w = &w };
	char **events = NULL;
	struct rec_outfile of = { .fd = -1 };
	char *dir = NULL, *meta = NULL, *clocks = NULL, *clock = NULL, *probe_meta = NULL;
	struct rec_probe probe = { .lock_fd = -1 };
	enum stop_reason why = RUNNING;
	sigset_t mask, old_mask;
	long long start;
	int ret = IR_ERR_INPUT;

	memset(res, 0, sizeof(*res));
	err[0] = '\0';
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	/* An ignored signal is discarded, never queued for the signalfd: a
	 * shell starts background jobs with SIGINT ignored, and then Ctrl-C or
	 * kill -INT could not stop the recording.  SIGHUP keeps what it was
	 * given (nohup). */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigprocmask(SIG_BLOCK, &mask, &old_mask);
	l.sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (l.sfd < 0) {
		REC_ERR(err, len, "signalfd: %s", strerror(errno));
		goto out;
	}
	if (geteuid() != 0) {
		REC_ERR(err, len, "must run as root (tracefs instances and events)");
		goto out;
	}
	if (rec_outfile_check(output, o->force, err, len) < 0)
		goto out;
	/* Fork first: the child then inherits none of the descriptors below. */
	if (o->argv && o->argv[0]) {
		res->have_command = true;
		if (rec_workload_start(&w, o->argv, o->user, &old_mask, err, len) < 0)
			goto out;
	}
	if (rec_tracefs_ready(err, len) < 0)
		goto out;
	if (o->probe_newidle && rec_probe_prepare(&probe, err, len) < 0)
		goto out;
	rec_instance_remove_stale(log);
	events = rec_events_select(err, len);
	if (!events)
		goto out;
	dir = rec_outfile_dir(output);
	if (!dir || rec_outfile_open(&of, output, err, len) < 0)
		goto out;
	ti = rec_instance_create(kb, err, len);
	if (!ti || rec_events_enable(ti, events, err, len) < 0)
		goto out;
	if (probe.wanted &&
	    (rec_probe_create(&probe, ti, log, err, len) < 0 ||
	     rec_events_add(&events, "kprobes/" REC_PROBE_ENTRY) < 0 ||
	     rec_events_add(&events, "kprobes/" REC_PROBE_EXIT) < 0)) {
		if (!err[0])
			REC_ERR(err, len, "out of memory");
		goto out;
	}
	if (rec_readers_open(&rs, ti, dir, err, len) < 0)
		goto out;
	stats = calloc((size_t)rs.nr_cpus, sizeof(*stats));
	if (!stats || tracefs_trace_on(ti) < 0) {
		REC_ERR(err, len, "cannot start tracing: %s", strerror(errno ? errno : ENOMEM));
		goto out;
	}
	start = now_ms();
	if (w.pid && rec_workload_go(&w, o->argv, err, len) < 0)
		goto out;
	if (!w.pid && o->duration <= 0)
		fprintf(log, "idlereplay: record: recording into %s until Ctrl-C%s\n", output,
			o->max_bytes ? " or the size cap" : "");
	l.o = o;
	l.ti = ti;
	l.log = log;
	l.start = start;

	if (run_loop(&l, o->duration > 0 ? start + (long long)(o->duration * 1000) : -1,
		     &why, err, len) < 0 || end_command(&l, err, len) < 0)
		goto out;
	if (tracefs_trace_off(ti) < 0) {
		REC_ERR(err, len, "cannot stop tracing: %s", strerror(errno));
		goto out;
	}
	if (rec_readers_drain(&rs, err, len) < 0)
		goto out;
	for (int cpu = 0; cpu < rs.nr_cpus; cpu++)
		if (rec_instance_cpu_stat(ti, cpu, &stats[cpu]) < 0) {
			REC_ERR(err, len, "cannot read per_cpu/cpu%d/stats: %s", cpu, strerror(errno));
			goto out;
		}
	clocks = tracefs_instance_file_read(ti, "trace_clock", NULL);
	clock = tracefs_get_clock(ti);
	/* Leave the kernel as we found it before the slow part. */
	rec_readers_stop(&rs);
	rec_instance_destroy(ti, log);
	ti = NULL;

	probe_meta = rec_probe_meta(&probe);
	meta = probe_meta ? rec_meta_build(clock, o->topology_capture, probe_meta, log) : NULL;
	if (!meta || !clocks) {
		REC_ERR(err, len, "out of memory");
		goto out;
	}
	res->bytes = rec_readers_bytes(&rs);
	{
		struct rec_tracedat td = {
			.nr_cpus = rs.nr_cpus, .events = events, .clocks = clocks,
			.meta = meta, .stats = stats, .data = &rs,
		};
		/* The writer closes what it gets; we keep of.fd to name it. */
		int fd = dup(of.fd);

		if (fd < 0) {
			REC_ERR(err, len, "dup: %s", strerror(errno));
			goto out;
		}
		if (rec_tracedat_write(fd, &td, err, len) < 0 ||
		    rec_tracedat_verify(of.path, err, len) < 0)
			goto out;
	}
	if (rec_outfile_commit(&of, output, o->force, err, len) < 0)
		goto out;
	report(log, output, rs.nr_cpus, stats, res, (double)(now_ms() - start) / 1000.0);
	if (why == STOP_SIGNAL)
		fprintf(log, "idlereplay: record: stopped by %s\n", strsignal(l.signo));
	else if (why == STOP_SIZE)
		fprintf(log, "idlereplay: record: stopped at the size cap (%llu bytes)\n", o->max_bytes);
	ret = IR_OK;
out:
	if (w.pid) {
		/* Error path with the command running or held: do not orphan it. */
		rec_workload_kill(&w, SIGKILL);
		rec_workload_reap(&w, true, &l.status);
	}
	res->command_status = l.status;
	for (int cpu = 0; stats && cpu < rs.nr_cpus; cpu++)
		free(stats[cpu].text);
	rec_readers_close(&rs);
	rec_instance_destroy(ti, log);
	/* After the instance (it disables them) and the writer (it copies
	 * their formats). */
	rec_probe_destroy(&probe, log);
	rec_outfile_close(&of);
	free(stats);
	rec_events_free(events);
	free(dir);
	free(meta);
	free(probe_meta);
	free(clocks);
	free(clock);
	if (l.sfd >= 0) {
		struct signalfd_siginfo si;

		/* Consume pending stop signals so unblocking does not kill us
		 * before the caller can return the command's status. */
		while (read(l.sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		close(l.sfd);
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return ret;
}

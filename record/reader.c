/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-CPU readers: move whole sub-buffer pages from the instance's
 * per_cpu/cpuN/trace_pipe_raw to one temp file per CPU with splice
 * (libtracefs tracefs_cpu_write), then read the last partial pages at the
 * end (tracefs_cpu_flush_write).  The temp files are anonymous (O_TMPFILE,
 * or unlinked right after creation), so no kill leaves them behind;
 * libtracecmd reopens them through /proc/self/fd/N.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "record/record_int.h"

/* Pages moved per CPU per pump at most, so one busy CPU cannot starve
 * the others' readers (the loop comes back within its poll interval). */
#define PUMP_MAX_SPLICES 64

struct rec_reader {
	struct tracefs_cpu *tcpu;
	int fd;
	char path[32];
	unsigned long long bytes;
};

static int open_anon(const char *dir, int cpu, char *err, size_t len)
{
	char name[4096];
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		goto out;
	/* File systems without O_TMPFILE: create exclusively, unlink at once. */
	snprintf(name, sizeof(name), "%s/.idlereplay-%d-cpu%d.tmp", dir, (int)getpid(), cpu);
	fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		unlink(name);
out:
	if (fd < 0)
		REC_ERR(err, len, "cannot create a temp file in %s: %s", dir, strerror(errno));
	return fd;
}

int rec_readers_open(struct rec_readers *rs, struct tracefs_instance *ti,
		     const char *dir, char *err, size_t len)
{
	int nr = (int)sysconf(_SC_NPROCESSORS_CONF);

	rs->nr_cpus = 0;
	rs->r = calloc(nr > 0 ? (size_t)nr : 1, sizeof(*rs->r));
	if (!rs->r || nr <= 0) {
		REC_ERR(err, len, "out of memory");
		return -1;
	}
	for (int cpu = 0; cpu < nr; cpu++) {
		struct rec_reader *r = &rs->r[cpu];

		r->fd = open_anon(dir, cpu, err, len);
		if (r->fd < 0)
			return -1;
		rs->nr_cpus = cpu + 1;
		snprintf(r->path, sizeof(r->path), "/proc/self/fd/%d", r->fd);
		/* Non-blocking: one loop serves all CPUs, paced by ppoll(). */
		r->tcpu = tracefs_cpu_open(ti, cpu, true);
		if (!r->tcpu) {
			REC_ERR(err, len, "cannot open per_cpu/cpu%d/trace_pipe_raw: %s",
				cpu, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int write_error(int cpu, char *err, size_t len)
{
	REC_ERR(err, len, "cannot save CPU %d trace data: %s", cpu, strerror(errno));
	return -1;
}

int rec_readers_pump(struct rec_readers *rs, char *err, size_t len)
{
	for (int cpu = 0; cpu < rs->nr_cpus; cpu++) {
		struct rec_reader *r = &rs->r[cpu];

		for (int i = 0; i < PUMP_MAX_SPLICES; i++) {
			int ret = tracefs_cpu_write(r->tcpu, r->fd, true);

			if (ret > 0) {
				r->bytes += (unsigned long long)ret;
				continue;
			}
			/* EAGAIN: no full page yet. */
			if (ret < 0 && errno != EAGAIN && errno != EINTR)
				return write_error(cpu, err, len);
			break;
		}
	}
	return 0;
}

int rec_readers_drain(struct rec_readers *rs, char *err, size_t len)
{
	for (int cpu = 0; cpu < rs->nr_cpus; cpu++) {
		struct rec_reader *r = &rs->r[cpu];
		int ret;

		while ((ret = tracefs_cpu_write(r->tcpu, r->fd, true)) > 0)
			r->bytes += (unsigned long long)ret;
		if (ret < 0 && errno != EAGAIN)
			return write_error(cpu, err, len);
		/* Partial pages: read() returns what the writer left. */
		while ((ret = tracefs_cpu_flush_write(r->tcpu, r->fd)) > 0)
			r->bytes += (unsigned long long)ret;
		if (ret < 0)
			return write_error(cpu, err, len);
	}
	return 0;
}

const char *rec_readers_path(const struct rec_readers *rs, int cpu)
{
	return rs->r[cpu].path;
}

unsigned long long rec_readers_bytes(const struct rec_readers *rs)
{
	unsigned long long sum = 0;

	for (int cpu = 0; cpu < rs->nr_cpus; cpu++)
		sum += rs->r[cpu].bytes;
	return sum;
}

void rec_readers_stop(struct rec_readers *rs)
{
	for (int cpu = 0; rs->r && cpu < rs->nr_cpus; cpu++) {
		tracefs_cpu_close(rs->r[cpu].tcpu);
		rs->r[cpu].tcpu = NULL;
	}
}

void rec_readers_close(struct rec_readers *rs)
{
	rec_readers_stop(rs);
	for (int cpu = 0; rs->r && cpu < rs->nr_cpus; cpu++) {
		if (rs->r[cpu].fd >= 0)
			close(rs->r[cpu].fd);
	}
	free(rs->r);
	rs->r = NULL;
	rs->nr_cpus = 0;
}

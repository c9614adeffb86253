/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Our tracefs instance: name "idlereplay-<pid>", created fresh, removed on
 * every path; stale ones left by a killed recorder are removed at start.
 * The top-level buffer is never written (its set_event, tracing_on and
 * buffer_size_kb stay as the user left them).
 *
 * Liveness is a lock, never a process name or pid: a recorder holds
 * flock(LOCK_EX) on its instance's directory from creation to removal (the
 * kernel drops it when the recorder dies, however it dies; tracefs is one
 * file system for every mount and pid namespace, so a recorder in another
 * container is seen too).  An instance is stale only if its lock can be
 * taken, and it is removed only if no file of it is open.  Creation and the stale sweep both hold flock(LOCK_EX) on the
 * "instances" directory, so no sweep sees a new instance before its lock.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <tracefs.h>

#include "record/record_int.h"

#define INSTANCE_PREFIX "idlereplay-"

int rec_tracefs_ready(char *err, size_t len)
{
	/* tracefs_tracing_dir() mounts tracefs at /sys/kernel/tracing if it
	 * finds none (tracefs_tracing_dir_is_mounted() would leak in 1.6.4). */
	if (!tracefs_tracing_dir()) {
		REC_ERR(err, len, "tracefs is not mounted and mounting it failed: %s",
			strerror(errno ? errno : ENODEV));
		return -1;
	}
	return 0;
}

/* Our instance's lock, held until rec_instance_destroy() removes it. */
static int own_lock = -1;
static char own_name[64];

/* The tracefs "instances" directory, locked: creation and the stale sweep
 * exclude each other.  -1 with errno if it cannot be opened. */
static int instances_lock(void)
{
	char *path = NULL;
	int fd;

	if (asprintf(&path, "%s/instances", tracefs_tracing_dir()) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(path);
	if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void instances_unlock(int fd)
{
	if (fd >= 0) {
		flock(fd, LOCK_UN);
		close(fd);
	}
}

int rec_instance_destroy(struct tracefs_instance *ti, FILE *log)
{
	int ret = 0;

	if (!ti)
		return 0;
	tracefs_trace_off(ti);
	/* NULL system and event: every event of the instance (events/enable). */
	tracefs_event_disable(ti, NULL, NULL);
	if (tracefs_instance_destroy(ti) < 0 &&
	    tracefs_instance_exists(tracefs_instance_get_name(ti))) {
		fprintf(log, "idlereplay: record: cannot remove tracefs instance %s: %s\n",
			tracefs_instance_get_name(ti), strerror(errno));
		ret = -1;
	}
	if (own_lock >= 0 && !strcmp(tracefs_instance_get_name(ti), own_name)) {
		close(own_lock);	/* after the rmdir: never seen unlocked while there */
		own_lock = -1;
	}
	tracefs_instance_free(ti);
	return ret;
}

/* "idlereplay-<digits>": the pid, else 0. */
static pid_t instance_pid(const char *name)
{
	const char *p = name + strlen(INSTANCE_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)) || !isdigit((unsigned char)*p))
		return 0;
	pid = strtol(p, &end, 10);
	return *end || pid <= 0 || pid > INT32_MAX ? 0 : (pid_t)pid;
}

int rec_instance_remove_stale(FILE *log)
{
	/* readdir rather than tracefs_instances(), whose regex 1.6.4 leaks. */
	int lock = instances_lock(), dfd = lock >= 0 ? dup(lock) : -1;
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;
	int removed = 0;

	if (!dir && dfd >= 0)
		close(dfd);
	while (dir && (de = readdir(dir))) {
		int fd;

		if (!instance_pid(de->d_name))
			continue;
		fd = openat(lock, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* held by a recorder, whatever its name or namespace: alive */
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);
			continue;
		}
		/* rmdir alone (it turns tracing and events off itself): it fails
		 * with EBUSY while any file of the instance is open, so the
		 * instance of a recorder that takes no lock (an older
		 * idlereplay) is left alone, not switched off. */
		if (unlinkat(lock, de->d_name, AT_REMOVEDIR) == 0) {
			fprintf(log, "idlereplay: record: removed stale tracefs instance %s\n", de->d_name);
			removed++;
		}
		close(fd);
	}
	if (dir)
		closedir(dir);
	instances_unlock(lock);
	return removed;
}

struct tracefs_instance *rec_instance_create(unsigned long buffer_kb, char *err, size_t len)
{
	char name[64];
	struct tracefs_instance *ti;

	int lock = instances_lock();

	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d", (int)getpid());
	if (lock < 0) {
		REC_ERR(err, len, "cannot lock %s/instances: %s", tracefs_tracing_dir(), strerror(errno));
		return NULL;
	}
	ti = tracefs_instance_create(name);
	if (!ti) {
		REC_ERR(err, len, "cannot create tracefs instance %s: %s", name, strerror(errno));
		instances_unlock(lock);
		return NULL;
	}
	if (!tracefs_instance_is_new(ti)) {
		/* Someone else's: never destroy what we did not create. */
		tracefs_instance_free(ti);
		REC_ERR(err, len, "tracefs instance %s already exists", name);
		instances_unlock(lock);
		return NULL;
	}
	/* our liveness, from before any sweep can see the instance */
	own_lock = openat(lock, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (own_lock < 0 || flock(own_lock, LOCK_EX) < 0) {
		REC_ERR(err, len, "cannot lock tracefs instance %s: %s", name, strerror(errno));
		instances_unlock(lock);
		if (own_lock >= 0)
			close(own_lock);
		own_lock = -1;
		rec_instance_destroy(ti, stderr);
		return NULL;
	}
	snprintf(own_name, sizeof(own_name), "%s", name);
	instances_unlock(lock);
	/* A new instance starts with tracing_on=1; keep it off until the
	 * readers are ready so nothing is overwritten before we read. */
	if (tracefs_trace_off(ti) < 0 ||
	    tracefs_instance_set_buffer_size(ti, (size_t)buffer_kb, -1) < 0) {
		REC_ERR(err, len, "cannot set up tracefs instance %s (buffer %lu KB per CPU): %s",
			name, buffer_kb, strerror(errno));
		rec_instance_destroy(ti, stderr);
		return NULL;
	}
	return ti;
}

static unsigned long long stat_field(const char *text, const char *key)
{
	const char *p = text;
	size_t klen = strlen(key);

	/* Lines are "<key>: <number>"; match at line starts only. */
	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return strtoull(p + klen + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

int rec_instance_cpu_stat(struct tracefs_instance *ti, int cpu, struct rec_cpu_stat *st)
{
	char file[64];
	char *raw;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	raw = tracefs_instance_file_read(ti, file, NULL);
	if (!raw)
		return -1;
	/* trace-cmd's CPUSTAT text starts with "CPU: N" (trace-cmd report --stat). */
	if (asprintf(&st->text, "CPU: %d\n%s", cpu, raw) < 0) {
		st->text = NULL;
		free(raw);
		return -1;
	}
	st->overrun = stat_field(raw, "overrun");
	st->dropped = stat_field(raw, "dropped events");
	st->read = stat_field(raw, "read events");
	st->entries = stat_field(raw, "entries");
	free(raw);
	return 0;
}

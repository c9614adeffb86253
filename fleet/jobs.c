/* SPDX-License-Identifier: GPL-2.0-only */
/* A bounded pool of child processes: fork, exec, wait; see fleet.h. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleet/fleet.h"

/* The log is opened here, in the parent, through ir_out (output/place.c):
 * the child only inherits it as its stderr. */
static pid_t start(struct ir_job *j)
{
	pid_t pid;

	if (ir_out_open(&j->out, j->log)) {
		j->out.f = NULL;	/* no log: the job's stderr stays ours */
	} else {
		fflush(j->out.f);
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid) {
		if (pid < 0 && j->out.f)
			ir_out_close(&j->out, 0);
		return pid;
	}
	if (j->out.f)
		dup2(fileno(j->out.f), 2);
	execv(j->argv[0], j->argv);
	dprintf(2, "idlereplay: cannot run %s: %s\n", j->argv[0], strerror(errno));
	_exit(127);
}

/* The job ended: its log in place; an empty one that we made or replace is
 * not kept (a device or FIFO is left as it is). */
static void finish_log(struct ir_job *j)
{
	struct stat st;
	bool empty;

	if (!j->out.f)
		return;
	empty = j->out.tmp[0] && !fstat(fileno(j->out.f), &st) && st.st_size == 0;
	if (ir_out_close(&j->out, 1) == 0 && empty)
		unlink(j->log);	/* the regular file we just renamed there */
	j->out.f = NULL;
}

int ir_jobs_run(struct ir_job *job, int n, int jobs, void (*done)(void *arg, int i), void *arg)
{
	pid_t *pid = calloc((size_t)(n ? n : 1), sizeof(*pid));
	int next = 0, running = 0, started = 0;

	if (!pid)
		return -1;
	if (jobs < 1)
		jobs = 1;
	for (int i = 0; i < n; i++)
		job[i].status = -1;
	while (next < n || running) {
		int st;
		pid_t p;

		while (running < jobs && next < n) {
			pid[next] = start(&job[next]);
			if (pid[next] < 0) {
				if (!running)
					break;	/* retry once a child ended */
				goto wait;
			}
			running++;
			started++;
			next++;
		}
		if (!running) {
			/* could not fork with nothing running: give up on the rest */
			free(pid);
			return started ? 0 : -1;
		}
wait:
		p = waitpid(-1, &st, 0);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < next; i++)
			if (pid[i] == p) {
				pid[i] = 0;
				job[i].status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
				finish_log(&job[i]);
				running--;
				if (done)
					done(arg, i);
				break;
			}
	}
	free(pid);
	return 0;
}

void ir_job_last_line(const char *log, char *buf, size_t len)
{
	int fd = open(log, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char line[1024];
	FILE *f;

	buf[0] = 0;
	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			snprintf(buf, len, "%s", line);
	}
	fclose(f);
}

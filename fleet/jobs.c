/* SPDX-License-Identifier: GPL-2.0-only */
/* A bounded pool of child processes: fork, exec, wait; see fleet.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleet/fleet.h"

static pid_t start(const struct ir_job *j)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	{
		int fd = open(j->log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);

		if (fd >= 0)
			dup2(fd, 2);
		execv(j->argv[0], j->argv);
		dprintf(2, "idlereplay: cannot run %s: %s\n", j->argv[0], strerror(errno));
		_exit(127);
	}
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
	FILE *f = fopen(log, "r");
	char line[1024];

	buf[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			snprintf(buf, len, "%s", line);
	}
	fclose(f);
}

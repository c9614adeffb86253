/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command to record: forked before tracing starts and held before
 * exec until the readers run, so its first events are captured.  A
 * CLOEXEC pipe carries the reason back if --user or exec fails (EOF means
 * exec succeeded).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/record_int.h"

enum child_stage { STAGE_USER = 1, STAGE_EXEC };

struct child_failure {
	int stage;
	int err;
};

static void child_fail(int fd, int stage)
{
	struct child_failure f = { stage, errno };

	if (write(fd, &f, sizeof(f)) < 0)
		_exit(127);
	_exit(127);
}

static void child_run(int go_fd, int err_fd, char *const *argv, const struct passwd *pw,
		      const sigset_t *mask)
{
	char c;

	/* EOF without "go": the recorder gave up or died; do not run. */
	if (read(go_fd, &c, 1) != 1)
		_exit(127);
	close(go_fd);
	if (pw) {
		/* Groups first: after setuid() we could no longer change them. */
		if (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 ||
		    setuid(pw->pw_uid) < 0)
			child_fail(err_fd, STAGE_USER);
		setenv("HOME", pw->pw_dir, 1);
		setenv("USER", pw->pw_name, 1);
		setenv("LOGNAME", pw->pw_name, 1);
	}
	sigprocmask(SIG_SETMASK, mask, NULL);
	execvp(argv[0], argv);
	child_fail(err_fd, STAGE_EXEC);
}

int rec_workload_start(struct rec_workload *w, char *const *argv, const char *user,
		       const sigset_t *child_mask, char *err, size_t len)
{
	struct passwd *pw = NULL;
	int go[2], ep[2];

	w->pid = 0;
	w->go_fd = w->err_fd = -1;
	if (user) {
		errno = 0;
		pw = getpwnam(user);
		if (!pw) {
			REC_ERR(err, len, "no user '%s'%s%s", user, errno ? ": " : "",
				errno ? strerror(errno) : "");
			return -1;
		}
	}
	if (pipe2(go, O_CLOEXEC) < 0)
		goto fail;
	if (pipe2(ep, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		goto fail;
	}
	fflush(NULL);
	w->pid = fork();
	if (w->pid == 0) {
		close(go[1]);
		close(ep[0]);
		child_run(go[0], ep[1], argv, pw, child_mask);
	}
	close(go[0]);
	close(ep[1]);
	if (w->pid < 0) {
		w->pid = 0;
		close(go[1]);
		close(ep[0]);
		goto fail;
	}
	w->go_fd = go[1];
	w->err_fd = ep[0];
	return 0;
fail:
	REC_ERR(err, len, "cannot start '%s': %s", argv[0], strerror(errno));
	return -1;
}

int rec_workload_go(struct rec_workload *w, char *const *argv, char *err, size_t len)
{
	struct child_failure f;
	ssize_t n;

	n = write(w->go_fd, "g", 1);
	close(w->go_fd);
	w->go_fd = -1;
	if (n != 1) {
		REC_ERR(err, len, "cannot start '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	do
		n = read(w->err_fd, &f, sizeof(f));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == 0)
		return 0;	/* exec succeeded: CLOEXEC closed the pipe */
	if (n != (ssize_t)sizeof(f))
		f.stage = STAGE_EXEC, f.err = EIO;
	if (f.stage == STAGE_USER)
		REC_ERR(err, len, "cannot run '%s' as the given user: %s", argv[0], strerror(f.err));
	else if (f.err == ENOENT)
		REC_ERR(err, len, "command not found: %s", argv[0]);
	else
		REC_ERR(err, len, "cannot run '%s': %s", argv[0], strerror(f.err));
	return -1;
}

int rec_workload_reap(struct rec_workload *w, bool block, int *status)
{
	int st;
	pid_t r;

	if (!w->pid)
		return 0;
	do
		r = waitpid(w->pid, &st, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return 0;
	w->pid = 0;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 1;
}

void rec_workload_kill(struct rec_workload *w, int sig)
{
	if (w->go_fd >= 0) {
		close(w->go_fd);	/* not started yet: it exits on EOF */
		w->go_fd = -1;
	}
	if (w->err_fd >= 0) {
		close(w->err_fd);
		w->err_fd = -1;
	}
	if (w->pid > 0)
		kill(w->pid, sig);
}

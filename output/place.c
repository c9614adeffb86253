/* SPDX-License-Identifier: GPL-2.0-only */
/* Where an output goes (see place.h): stdout, temp+rename, or in place. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "output/place.h"

/* include/uapi/linux/magic.h */
#define PROC_SUPER_MAGIC 0x9fa0
#define SYSFS_MAGIC 0x62656572

#define MAX_HOPS 40	/* the kernel's MAXSYMLINKS */

static int fail(int err, char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	errno = err;
	return -1;
}

/* The directory holding path's last component: "." when it has none. */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

static bool fs_is(const char *path, long magic)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == magic;
}

/* A link in /proc: /proc/self/fd/N and the like, whose text is no path. */
static bool magic_link(const char *link)
{
	char dir[PATH_MAX];

	dir_of(link, dir, sizeof(dir));
	return fs_is(dir, PROC_SUPER_MAGIC);
}

/*
 * fs/namei.c may_follow_link() with fs.protected_symlinks=1 (v3.6,
 * 800179c9b8a1): a symlink in a sticky world-writable directory is
 * followed only if its owner is the follower or the directory's owner.
 */
static bool may_follow(const char *link, const struct stat *lst)
{
	char dir[PATH_MAX];
	struct stat dst;

	dir_of(link, dir, sizeof(dir));
	if (stat(dir, &dst) < 0)
		return false;
	if (!(dst.st_mode & S_ISVTX) || !(dst.st_mode & S_IWOTH))
		return true;
	return lst->st_uid == geteuid() || lst->st_uid == dst.st_uid;
}

int ir_place_decide(const char *path, struct ir_place *pl, char *why, size_t len)
{
	char cur[PATH_MAX], next[PATH_MAX], dir[PATH_MAX];
	struct stat st, out;
	bool magic = false;
	ssize_t n;

	memset(pl, 0, sizeof(*pl));
	if (!path || !strcmp(path, "-")) {
		pl->kind = IR_PLACE_STDOUT;
		return 0;
	}
	if ((size_t)snprintf(cur, sizeof(cur), "%s", path) >= sizeof(cur))
		return fail(ENAMETOOLONG, why, len, "%s: path too long", path);
	for (int hops = 0;; hops++) {
		if (lstat(cur, &st) < 0) {
			if (errno != ENOENT)
				return fail(errno, why, len, "%s: %s", cur, strerror(errno));
			if (magic_link(cur))	/* /proc/self/fd/N of a closed N */
				return fail(EBADF, why, len, "%s: no such open file", cur);
			/* A new path, or a dangling link: replaced, never created through. */
			pl->kind = IR_PLACE_REPLACE;
			pl->exists = hops > 0;
			return 0;
		}
		if (!S_ISLNK(st.st_mode))
			break;
		if (hops == MAX_HOPS)
			return fail(ELOOP, why, len, "%s: too many levels of symbolic links", path);
		if (!may_follow(cur, &st)) {
			/* Planted by someone else: replaced, as any link to a file. */
			pl->kind = IR_PLACE_REPLACE;
			pl->exists = true;
			return 0;
		}
		pl->follow = true;
		if (magic_link(cur)) {
			if (stat(cur, &st) < 0)
				return fail(errno, why, len, "%s: %s", cur, strerror(errno));
			magic = true;
			break;
		}
		n = readlink(cur, next, sizeof(next) - 1);
		if (n < 0)
			return fail(errno, why, len, "%s: %s", cur, strerror(errno));
		next[n] = '\0';
		if (next[0] == '/') {
			memcpy(cur, next, (size_t)n + 1);
		} else {
			dir_of(cur, dir, sizeof(dir));
			if ((size_t)snprintf(cur, sizeof(cur), "%s/%s", dir, next) >= sizeof(cur))
				return fail(ENAMETOOLONG, why, len, "%s: path too long", path);
		}
	}
	/* st: the file at the end of the links */
	if (pl->follow && fstat(STDOUT_FILENO, &out) == 0 &&
	    out.st_dev == st.st_dev && out.st_ino == st.st_ino) {
		pl->kind = IR_PLACE_STDOUT;
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		return fail(EISDIR, why, len, "%s: is a directory", path);
	if (S_ISREG(st.st_mode) && !magic && !fs_is(cur, PROC_SUPER_MAGIC) && !fs_is(cur, SYSFS_MAGIC)) {
		pl->kind = IR_PLACE_REPLACE;
		pl->exists = true;
		return 0;
	}
	pl->kind = IR_PLACE_IN_PLACE;
	pl->dev = st.st_dev;
	pl->ino = st.st_ino;
	pl->mode = st.st_mode;
	return 0;
}

int ir_place_open(const char *path, const struct ir_place *pl)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (pl->follow ? 0 : O_NOFOLLOW));
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_dev != pl->dev || st.st_ino != pl->ino) {
		close(fd);
		errno = ESTALE;	/* swapped since it was looked at */
		return -1;
	}
	/* A regular file behind /proc/self/fd/N: the document replaces its content. */
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

bool ir_place_is_stdout(const char *path)
{
	struct ir_place pl;

	return ir_place_decide(path, &pl, NULL, 0) == 0 && pl.kind == IR_PLACE_STDOUT;
}

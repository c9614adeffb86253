/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Output placement, safe as root.  The trace is written to a temp file in
 * the output's directory (same file system, so the last step is atomic):
 * preferably O_TMPFILE, which has no name to plant a symlink at or to leave
 * behind after SIGKILL; otherwise a name created O_EXCL|O_NOFOLLOW.  Mode
 * 0644 (less if the umask says so).  At the end it gets the output name:
 * link (fails if the output appeared meanwhile), or rename with --force,
 * which replaces a symlink at the output path instead of following it.
 * An output that is not ours to replace (output/place.h: "-", /dev/stdout,
 * a device, a FIFO) is never renamed over: the finished trace is copied
 * into it, from a temp file in $TMPDIR (default /var/tmp).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/place.h"
#include "record/record_int.h"

char *rec_dirname(const char *path)
{
	char *copy = strdup(path);
	char *dir;

	if (!copy)
		return NULL;
	dir = strdup(dirname(copy));
	free(copy);
	return dir;
}

/* Temp files of an output written in place (stdout, a device, a FIFO). */
static char *copy_dir(void)
{
	const char *t = getenv("TMPDIR");

	return strdup(t && *t ? t : "/var/tmp");
}

char *rec_outfile_dir(const char *path)
{
	struct ir_place pl;

	if (ir_place_decide(path, &pl, NULL, 0) == 0 && pl.kind != IR_PLACE_REPLACE)
		return copy_dir();
	return rec_dirname(path);
}

int rec_outfile_check(const char *path, bool force, char *err, size_t len)
{
	struct ir_place pl;
	char why[512], *dir;
	int ret = 0;

	if (ir_place_decide(path, &pl, why, sizeof(why)) < 0) {
		REC_ERR(err, len, "cannot write %s", why);
		return -1;
	}
	if (pl.kind == IR_PLACE_REPLACE && pl.exists && !force) {
		REC_ERR(err, len, "%s exists (use --force to replace it)", path);
		return -1;
	}
	if (pl.kind == IR_PLACE_IN_PLACE && S_ISBLK(pl.mode) && !force) {
		REC_ERR(err, len, "%s is a block device (use --force to write into it)", path);
		return -1;
	}
	dir = rec_outfile_dir(path);
	if (!dir || access(dir, W_OK | X_OK) < 0) {
		REC_ERR(err, len, "cannot write in %s: %s", dir ? dir : path,
			strerror(dir ? errno : ENOMEM));
		ret = -1;
	}
	free(dir);
	return ret;
}

/* A name beside path for the temp file: ".<base>.idlereplay-<pid>.tmp". */
static char *temp_name(const char *path)
{
	char *dir = rec_outfile_dir(path);
	char *base = strdup(path);
	char *tmp = NULL;

	if (dir && base &&
	    asprintf(&tmp, "%s/.%s.idlereplay-%d.tmp", dir, basename(base), (int)getpid()) < 0)
		tmp = NULL;
	free(dir);
	free(base);
	return tmp;
}

int rec_outfile_open(struct rec_outfile *of, const char *path, char *err, size_t len)
{
	char *dir = rec_outfile_dir(path);

	of->name = NULL;
	of->fd = dir ? open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644) : -1;
	if (of->fd < 0 && dir && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		of->name = temp_name(path);
		if (of->name)
			of->fd = open(of->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	}
	if (of->fd < 0) {
		REC_ERR(err, len, "cannot create a file in %s: %s", dir ? dir : path,
			strerror(dir ? errno : ENOMEM));
		free(of->name);
		of->name = NULL;
	}
	snprintf(of->path, sizeof(of->path), "/proc/self/fd/%d", of->fd);
	free(dir);
	return of->fd < 0 ? -1 : 0;
}

/* Give the anonymous file a name: linkat through /proc/self/fd. */
static int name_it(struct rec_outfile *of, const char *name)
{
	return linkat(AT_FDCWD, of->path, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
}

/* Copy the finished trace into an output that is not ours to replace. */
static int copy_out(struct rec_outfile *of, const char *path, const struct ir_place *pl,
		    char *err, size_t len)
{
	int to = pl->kind == IR_PLACE_STDOUT ? dup(STDOUT_FILENO) : ir_place_open(path, pl);
	char buf[65536];
	off_t off = 0;
	ssize_t n = 0;

	if (to < 0) {
		REC_ERR(err, len, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	while ((n = pread(of->fd, buf, sizeof(buf), off)) > 0) {
		for (ssize_t done = 0, w; done < n; done += w) {
			w = write(to, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w <= 0)
				goto fail;
		}
		off += n;
	}
	if (n < 0)
		goto fail;
	if (close(to) < 0 && errno != EINTR) {
		to = -1;
		goto fail;
	}
	return 0;
fail:
	REC_ERR(err, len, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
	if (to >= 0)
		close(to);
	return -1;
}

int rec_outfile_commit(struct rec_outfile *of, const char *path, bool force, char *err, size_t len)
{
	struct ir_place pl;
	char why[512];
	int ret;

	if (ir_place_decide(path, &pl, why, sizeof(why)) < 0) {
		REC_ERR(err, len, "cannot write %s", why);
		return -1;
	}
	if (pl.kind != IR_PLACE_REPLACE)
		return copy_out(of, path, &pl, err, len);
	if (fsync(of->fd) < 0) {
		REC_ERR(err, len, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	if (!force) {
		ret = of->name ? link(of->name, path) : name_it(of, path);
	} else {
		if (!of->name) {
			of->name = temp_name(path);
			if (!of->name || name_it(of, of->name) < 0) {
				REC_ERR(err, len, "cannot create %s: %s", path, strerror(errno));
				free(of->name);
				of->name = NULL;
				return -1;
			}
		}
		ret = rename(of->name, path);
		if (!ret) {
			free(of->name);
			of->name = NULL;
		}
	}
	if (ret < 0) {
		if (errno == EEXIST)
			REC_ERR(err, len, "%s appeared while recording (use --force to replace it)", path);
		else
			REC_ERR(err, len, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void rec_outfile_close(struct rec_outfile *of)
{
	if (of->name)
		unlink(of->name);
	free(of->name);
	of->name = NULL;
	if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
}

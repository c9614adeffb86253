/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Output placement, safe as root: the trace is written to a temp file
 * beside the output (same file system, so the final step is atomic),
 * created exclusively without following symlinks, mode 0644 (less if the
 * umask says so), and put in
 * place at the end: link() when the output must not exist (fails if it
 * appeared meanwhile), rename() with --force.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int rec_outfile_check(const char *path, bool force, char *err, size_t len)
{
	struct stat st;
	char *dir;
	int ret = 0;

	if (lstat(path, &st) == 0) {
		if (!force) {
			REC_ERR(err, len, "%s exists (use --force to replace it)", path);
			return -1;
		}
		if (S_ISDIR(st.st_mode)) {
			REC_ERR(err, len, "%s is a directory", path);
			return -1;
		}
	}
	dir = rec_dirname(path);
	if (!dir || access(dir, W_OK | X_OK) < 0) {
		REC_ERR(err, len, "cannot write in %s: %s", dir ? dir : path,
			strerror(dir ? errno : ENOMEM));
		ret = -1;
	}
	free(dir);
	return ret;
}

int rec_outfile_open_temp(const char *path, char **tmp, char *err, size_t len)
{
	char *dir = rec_dirname(path);
	char *base = strdup(path);
	int fd = -1;

	*tmp = NULL;
	if (!dir || !base ||
	    asprintf(tmp, "%s/.%s.idlereplay-%d.tmp", dir, basename(base), (int)getpid()) < 0) {
		*tmp = NULL;
		REC_ERR(err, len, "out of memory");
		goto out;
	}
	fd = open(*tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		REC_ERR(err, len, "cannot create %s: %s", *tmp, strerror(errno));
		free(*tmp);
		*tmp = NULL;
		goto out;
	}
out:
	free(dir);
	free(base);
	return fd;
}

int rec_outfile_commit(const char *tmp, const char *path, bool force, char *err, size_t len)
{
	int ret = force ? rename(tmp, path) : link(tmp, path);

	if (ret < 0) {
		if (errno == EEXIST)
			REC_ERR(err, len, "%s appeared while recording (use --force to replace it)", path);
		else
			REC_ERR(err, len, "cannot create %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (!force)
		unlink(tmp);
	return 0;
}

void rec_outfile_abort(char *tmp)
{
	if (tmp)
		unlink(tmp);
	free(tmp);
}

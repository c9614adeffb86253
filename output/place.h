/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * output/: where an output file of idlereplay goes, safe as root.  Shared by
 * record/ (trace.dat) and report/ (JSON, HTML, CSV, text, decisions).
 *
 * Contract: an output never replaces what is not ours.
 *  - "-" is standard output; so is a symlink that resolves to the file our
 *    standard output is (/dev/stdout, /proc/self/fd/1, /dev/fd/1).
 *  - A new path, a regular file, a dangling symlink or a symlink to a
 *    regular file gets a temp file beside it renamed over it at the end
 *    (the symlink itself is replaced, never followed).
 *  - Anything else that exists (character or block device, FIFO, socket,
 *    /proc/self/fd/N) is opened and written where it is: no O_TRUNC on
 *    devices, never renamed over, never unlinked.
 *  - A symlink is followed only as fs/namei.c may_follow_link() allows with
 *    fs.protected_symlinks=1 (v3.6, 800179c9b8a1), whatever the sysctl
 *    says: not one planted by another user in a sticky world-writable
 *    directory.  A directory is refused.
 */
#ifndef IDLEREPLAY_OUTPUT_PLACE_H
#define IDLEREPLAY_OUTPUT_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum ir_place_kind {
	IR_PLACE_STDOUT,	/* write to standard output */
	IR_PLACE_REPLACE,	/* temp file + rename over path */
	IR_PLACE_IN_PLACE,	/* open path and write into it */
};

struct ir_place {
	enum ir_place_kind kind;
	/* IN_PLACE: the file vetted, re-checked after opening */
	dev_t dev;
	ino_t ino;
	mode_t mode;
	bool follow;		/* reached through symlinks */
	bool exists;		/* REPLACE: something (a file or a link) is at path */
};

/* Decide how path is written, without opening it.  0, or -1 with errno
 * (EISDIR, ELOOP, EACCES for a symlink not to follow, EBADF for a closed
 * descriptor behind /proc/self/fd) and a reason in why (may be NULL). */
int ir_place_decide(const char *path, struct ir_place *pl, char *why, size_t len);

/* Open an IN_PLACE output for writing (O_WRONLY|O_NOCTTY|O_CLOEXEC; O_TRUNC
 * only for a regular file reached through /proc/self/fd).  Fails with
 * ESTALE if path is no longer the file ir_place_decide() vetted.  An fd, or
 * -1 with errno. */
int ir_place_open(const char *path, const struct ir_place *pl);

/* True if path ("-" or a link to it) is our standard output. */
bool ir_place_is_stdout(const char *path);

#endif

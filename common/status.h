/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * common/: what every stage shares and nothing else: the exit statuses a
 * stage returns and the CLI exits with, and the one helper that formats an
 * error line.  No stage's types live here.
 */
#ifndef IDLEREPLAY_COMMON_STATUS_H
#define IDLEREPLAY_COMMON_STATUS_H

#include <stddef.h>

/* Exit statuses shared by every stage and the CLI. */
enum {
	IR_OK = 0,
	IR_ERR_USAGE = 1,
	IR_ERR_INPUT = 2,	/* bad input file or environment */
	IR_LOST_EVENTS = 3,	/* report written, but more events were lost than allowed */
};

/* Format one error line into err (NULL or 0 length: dropped). */
void ir_seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

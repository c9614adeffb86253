/* SPDX-License-Identifier: GPL-2.0-only */
/* The error-line helper every stage uses (common/status.h). */
#include <stdarg.h>
#include <stdio.h>

#include "common/status.h"

void ir_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

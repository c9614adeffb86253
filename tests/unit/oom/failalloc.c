/* SPDX-License-Identifier: GPL-2.0-only */
/* The --wrap allocators of failalloc.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "failalloc.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
FILE *__real_open_memstream(char **buf, size_t *size);

void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
char *__wrap_strdup(const char *s);
int __wrap_asprintf(char **out, const char *fmt, ...);
FILE *__wrap_open_memstream(char **buf, size_t *size);

static unsigned fail_at, calls;
static bool failed, once;

void failalloc_arm(unsigned n)
{
	fail_at = n;
	calls = 0;
	failed = false;
	once = false;
}

void failalloc_arm_once(unsigned n)
{
	failalloc_arm(n);
	once = true;
}

bool failalloc_disarm(void)
{
	fail_at = 0;
	return failed;
}

/* true: this call fails (errno ENOMEM, as the C library's do) */
static bool fail_now(void)
{
	if (!fail_at || ++calls < fail_at)
		return false;
	if (once && calls > fail_at)
		return false;
	failed = true;
	errno = ENOMEM;
	return true;
}

void *__wrap_malloc(size_t size)
{
	return fail_now() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	return fail_now() ? NULL : __real_realloc(p, size);
}

char *__wrap_strdup(const char *s)
{
	return fail_now() ? NULL : __real_strdup(s);
}

/* On failure *out is undefined (asprintf(3)): it gets a pointer no one may
 * use or free, so code that relies on it being NULL fails here. */
int __wrap_asprintf(char **out, const char *fmt, ...)
{
	static char poison;
	va_list ap;
	int r;

	if (fail_now()) {
		*out = &poison;
		return -1;
	}
	va_start(ap, fmt);
	r = vasprintf(out, fmt, ap);
	va_end(ap);
	return r;
}

FILE *__wrap_open_memstream(char **buf, size_t *size)
{
	return fail_now() ? NULL : __real_open_memstream(buf, size);
}

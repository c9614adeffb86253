/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test-only allocation failure injection.  The test binary is linked with
 * -Wl,--wrap=<fn> for malloc, calloc, realloc, strdup, asprintf and
 * open_memstream, so every such call made by the code linked into it (our
 * static libraries included; shared libraries such as libc or json-c not)
 * goes through failalloc.c.  Nothing in the production code changes.
 */
#ifndef IDLEREPLAY_FAILALLOC_H
#define IDLEREPLAY_FAILALLOC_H

#include <stdbool.h>

/* Fail the nth wrapped allocation from now (1 = the next one), and every
 * later one until failalloc_disarm(): code that goes on after a failure
 * meets another.  n = 0 disarms. */
void failalloc_arm(unsigned n);
/* Fail the nth only: code that ignored the failure would go on and succeed. */
void failalloc_arm_once(unsigned n);
/* Disarm; returns whether a failure was injected since failalloc_arm(). */
bool failalloc_disarm(void);

#endif

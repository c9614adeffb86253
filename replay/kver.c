/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel release parsing and the version quirks the decoder must know. */
#include <stdio.h>

#include "replay/replay.h"

int ir_kver_parse(const char *release, int *major, int *minor, int *patch)
{
	int a = -1, b = -1, c = 0, n;

	*major = *minor = *patch = -1;
	if (!release)
		return -1;
	n = sscanf(release, "%d.%d.%d", &a, &b, &c);
	if (n < 2 || a < 2 || b < 0)
		return -1;
	*major = a;
	*minor = b;
	*patch = n >= 3 ? c : 0;
	return 0;
}

/*
 * 4.15.0 and 4.16.y report prev_state shifted by one bit (running reads
 * 0x1, S reads 0x2): __trace_sched_switch_state() returned
 * 1 << __get_task_state(p) until 3f5fe9fef5b2 ("sched/debug: Fix task
 * state recording/printout") in 4.15.1 / 4.17.
 */
bool ir_kver_state_shifted(int major, int minor, int patch)
{
	if (major != 4)
		return false;
	return (minor == 15 && patch == 0) || minor == 16;
}

/* Is the release at least want_major.want_minor?  Unknown releases take the
 * newest rules. */
bool ir_kver_at_least(int major, int minor, int want_major, int want_minor)
{
	if (major < 0)
		return true;
	return major > want_major || (major == want_major && minor >= want_minor);
}

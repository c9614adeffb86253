/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record/events.c's list of event names: rec_events_add() appends to a
 * NULL-terminated list (the newidle kprobe's formats join the sched events
 * in the trace.dat), keeping what was there.  No tracefs needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "record/record_int.h"

static void test_add(void **state)
{
	char **names = calloc(2, sizeof(*names));

	(void)state;
	assert_non_null(names);
	names[0] = strdup("sched/sched_switch");
	assert_int_equal(rec_events_add(&names, "kprobes/ir_newidle"), 0);
	assert_int_equal(rec_events_add(&names, "kprobes/ir_newidle_ret"), 0);
	assert_string_equal(names[0], "sched/sched_switch");
	assert_string_equal(names[1], "kprobes/ir_newidle");
	assert_string_equal(names[2], "kprobes/ir_newidle_ret");
	assert_null(names[3]);
	rec_events_free(names);

	/* an empty list grows too */
	names = calloc(1, sizeof(*names));
	assert_non_null(names);
	assert_int_equal(rec_events_add(&names, "sched/sched_waking"), 0);
	assert_string_equal(names[0], "sched/sched_waking");
	assert_null(names[1]);
	rec_events_free(names);
	rec_events_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

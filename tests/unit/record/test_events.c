/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record/events.c's list of event names: rec_events_add() appends to a
 * NULL-terminated list (the newidle kprobe's formats join the sched events
 * in the trace.dat), keeping what was there.  No tracefs needed.
 * rec_events_enable() on a tracefs instance of its own (root).
 * rec_events_select() on hand-built tracing directories: the sched events
 * of SPEC section 5 (the list is written out here, not taken from
 * record/events.c), required and optional.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <unistd.h>
#include <tracefs.h>

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

/* Our own tracing directory holding the sched events named in has[] (an
 * events/sched/NAME/format file each), bound over the real one in this
 * process's private mount namespace (libtracefs reads the events of the
 * top instance there; tracefs_set_tracing_dir() does not redirect them). */
static void fake_tracefs(const char *dir, const char *real, const char *const *has, size_t n)
{
	char cmd[8192];
	size_t len;

	static bool bound;

	if (bound && umount2(real, MNT_DETACH))	/* the previous fake */
		fail_msg("umount %s: %s", real, strerror(errno));
	bound = false;
	len = (size_t)snprintf(cmd, sizeof(cmd), "rm -rf '%s/events' && mkdir -p '%s/events/sched'", dir, dir);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len,
					" && mkdir '%s/events/sched/%s' && touch '%s/events/sched/%s/format'",
					dir, has[i], dir, has[i]);
	assert_true(len < sizeof(cmd));
	assert_int_equal(system(cmd), 0);
	if (mount(dir, real, NULL, MS_BIND, NULL))
		fail_msg("bind %s over %s: %s", dir, real, strerror(errno));
	bound = true;
}

static bool listed(char **names, const char *event)
{
	char want[64];

	snprintf(want, sizeof(want), "sched/%s", event);
	for (size_t k = 0; names[k]; k++)
		if (!strcmp(names[k], want))
			return true;
	return false;
}

/* rec_events_select() against a hand-built tracefs: every sched event of
 * SPEC section 5 the kernel has, the 8 required ones refused by name when
 * missing, the NUMA moves (CONFIG_NUMA_BALANCING only) left out quietly. */
static void test_select(void **state)
{
	static const char *const spec[] = {
		"sched_switch", "sched_migrate_task", "sched_wakeup", "sched_wakeup_new", "sched_waking",
		"sched_process_fork", "sched_process_exit", "sched_process_exec",
		"sched_move_numa", "sched_swap_numa", "sched_stick_numa",
	};
	const size_t nr = sizeof(spec) / sizeof(spec[0]), required = 8;
	char dir[] = "/tmp/ir-events-XXXXXX", err[256], cmd[128];
	const char *has[11];
	char **names;
	const char *real = tracefs_tracing_dir();
	size_t n;

	(void)state;
	if (!real || geteuid() != 0) {
		fprintf(stderr, "skipped: needs root and a tracing directory (%s) to bind a fake one over\n",
			real ? real : "none found");
		skip();
	}
	/* a mount namespace of our own: nothing outside this process sees it */
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		fail_msg("private mount namespace: %s", strerror(errno));
	assert_non_null(mkdtemp(dir));
	/* all of them, and others the recorder does not want */
	{
		const char *more[13];

		for (size_t i = 0; i < nr; i++)
			more[i] = spec[i];
		more[nr] = "sched_stat_runtime";
		more[nr + 1] = "sched_pi_setprio";
		fake_tracefs(dir, real, more, nr + 2);
	}
	names = rec_events_select(err, sizeof(err));
	if (!names)
		fail_msg("%s", err);
	for (n = 0; names[n]; n++)
		;
	assert_int_equal(n, nr);
	for (size_t i = 0; i < nr; i++)
		assert_true(listed(names, spec[i]));
	rec_events_free(names);
	/* each event missing in turn */
	for (size_t miss = 0; miss < nr; miss++) {
		size_t k = 0;

		for (size_t i = 0; i < nr; i++)
			if (i != miss)
				has[k++] = spec[i];
		fake_tracefs(dir, real, has, k);
		err[0] = '\0';
		names = rec_events_select(err, sizeof(err));
		if (miss < required) {
			char want[128];

			assert_null(names);
			snprintf(want, sizeof(want), "kernel has no sched/%s trace event", spec[miss]);
			assert_string_equal(err, want);
			continue;
		}
		if (!names)
			fail_msg("%s missing: %s", spec[miss], err);
		for (n = 0; names[n]; n++)
			;
		assert_int_equal(n, nr - 1);
		assert_false(listed(names, spec[miss]));
		rec_events_free(names);
	}
	assert_int_equal(umount2(real, MNT_DETACH), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* rec_events_enable() on a tracefs instance of its own: the events named
 * are enabled in that instance only; a name the kernel has no event for
 * stops it with an error naming the event, and the caller's "< 0" test
 * sees it.  Runs before test_select, which binds a fake tracing directory
 * over the real one in this process. */
static void test_enable(void **state)
{
	char name[64], err[256] = "", *const good[] = { "sched/sched_switch", "sched/sched_waking", NULL };
	char *const bad[] = { "sched/sched_switch", "sched/sched_no_such_event_idlereplay", NULL };
	struct tracefs_instance *ti;

	(void)state;
	if (!tracefs_tracing_dir() || geteuid() != 0) {
		fprintf(stderr, "skipped: needs root and a tracing directory to create an instance\n");
		skip();
	}
	snprintf(name, sizeof(name), "idlereplay-test-events-%d", (int)getpid());
	ti = tracefs_instance_create(name);
	if (!ti)
		fail_msg("tracefs instance %s: %s", name, strerror(errno));
	assert_int_equal(rec_events_enable(ti, good, err, sizeof(err)), 0);
	assert_int_equal(tracefs_event_is_enabled(ti, "sched", "sched_switch"), TRACEFS_ALL_ENABLED);
	assert_int_equal(tracefs_event_is_enabled(ti, "sched", "sched_waking"), TRACEFS_ALL_ENABLED);
	assert_int_equal(tracefs_event_is_enabled(ti, "sched", "sched_wakeup"), TRACEFS_ALL_DISABLED);
	assert_true(rec_events_enable(ti, bad, err, sizeof(err)) < 0);
	assert_true(!strncmp(err, "cannot enable sched/sched_no_such_event_idlereplay: ", 52));
	tracefs_instance_destroy(ti);
	tracefs_instance_free(ti);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_enable),
		cmocka_unit_test(test_select),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

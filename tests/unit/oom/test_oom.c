/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Allocation failures in the files that carry rules: every allocation of
 * ir_domains_build(), ir_tally_init(), rec_events_select(),
 * rec_meta_build(), ir_policy_run_init() and ir_topology_from_arg() is made
 * to fail in turn (failalloc.c, linked with
 * --wrap; no hook in the code under test).  Each must give up cleanly: a
 * NULL or error return, one error line saying what failed where the
 * function has one, nothing half-built handed back, and nothing leaked
 * (the sanitizer build's leak check at exit, as scripts/test.sh runs it).
 * rec_meta_build() also leaves no file descriptor open.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <dirent.h>
#include <unistd.h>

#include "model/model.h"
#include "record/record_int.h"
#include "report/report.h"
#include "failalloc.h"

/* More allocations than any of these functions makes: the loops below end
 * at the first n that injected no failure. */
#define MAX_TRIES 200

static void test_domains(void **state)
{
	struct ir_topology *t = NULL;
	char err[256];
	unsigned n;

	(void)state;
	assert_int_equal(ir_topology_from_arg("sockets=2,cores=2,threads=2,nodes=2", &t, err, sizeof(err)), 0);
	for (n = 1; n < MAX_TRIES; n++) {
		struct ir_domains *d;

		err[0] = '\0';
		failalloc_arm(n);
		d = ir_domains_build(t, err, sizeof(err));
		if (!failalloc_disarm()) {
			/* every allocation succeeded: so did the build */
			assert_non_null(d);
			assert_int_equal(ir_domains_nr_levels(d, 0), 3);	/* SMT, MC, NUMA */
			ir_domains_free(d);
			break;
		}
		assert_null(d);
		/* no CPU is named: the allocation is for all of them */
		assert_string_equal(err, "domains: out of memory");
	}
	assert_true(n > 1 && n < MAX_TRIES);
	ir_topology_free(t);
}

static void test_tally(void **state)
{
	struct ir_policy_params p;
	unsigned n;

	(void)state;
	ir_policy_defaults(IR_POL_BASELINE, &p);
	for (n = 1; n < MAX_TRIES; n++) {
		struct ir_tally t;
		int r;

		failalloc_arm(n);
		r = ir_tally_init(&t, &p, 4);
		if (!failalloc_disarm()) {
			assert_int_equal(r, 0);
			assert_non_null(t.cpu);
			ir_tally_free(&t);
			break;
		}
		/* the per-CPU table is what failed (the caller says "out of
		 * memory"): an error, not a tally without its CPUs */
		assert_int_not_equal(r, 0);
		assert_null(t.cpu);
	}
	assert_true(n > 1 && n < MAX_TRIES);
}

static void test_events(void **state)
{
	char err[256] = "";
	char **names;
	unsigned n;

	(void)state;
	names = rec_events_select(err, sizeof(err));
	if (!names) {
		/* the environment: no tracefs, or a kernel without sched events */
		fprintf(stderr, "skipped: rec_events_select() without failures: %s\n", err);
		skip();
	}
	rec_events_free(names);
	for (n = 1; n < MAX_TRIES; n++) {
		err[0] = '\0';
		failalloc_arm(n);
		names = rec_events_select(err, sizeof(err));
		if (!failalloc_disarm()) {
			assert_non_null(names);
			assert_string_equal(names[0], "sched/sched_switch");
			rec_events_free(names);
			break;
		}
		assert_null(names);
		assert_string_equal(err, "out of memory");
	}
	/* the list, then one name per event: at least 8 required events */
	assert_true(n > 9 && n < MAX_TRIES);
}

/* open descriptors of this process */
static int nr_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void test_meta(void **state)
{
	unsigned n;
	int fds = nr_fds();

	(void)state;
	/* the files it reads (kallsyms, the config, sysctl) are closed again:
	 * a FILE left open is still reachable, so no leak check sees it */
	free(rec_meta_build("local", NULL, NULL, stderr));
	assert_int_equal(nr_fds(), fds);
	for (n = 1; n < MAX_TRIES; n++) {
		char *meta;

		failalloc_arm(n);
		meta = rec_meta_build("local", NULL, NULL, stderr);
		if (!failalloc_disarm()) {
			assert_non_null(meta);
			assert_non_null(strstr(meta, "\ntrace_clock local\n"));
			free(meta);
			break;
		}
		/* record.c reports "out of memory" for a NULL */
		assert_null(meta);
	}
	assert_true(n > 1 && n < MAX_TRIES);
}

/* ir_policy_run_init(): the learning policies' per-CPU state, and a
 * randomised policy's extra seeds, each allocation failing in turn: an
 * error, and the run left empty (ir_policy_run_free() already done). */
static void test_policy_run(void **state)
{
	static const char *const spec[] = { "bump", "proportional:seeds=3", "baseline" };

	(void)state;
	for (size_t i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
		unsigned n;

		for (n = 1; n < MAX_TRIES; n++) {
			struct ir_policy_run run = { .nr_seeds = 0 };
			int r;

			assert_int_equal(ir_policy_parse(spec[i], &run.p, NULL, 0), 0);
			failalloc_arm(n);
			r = ir_policy_run_init(&run, 4);
			if (!failalloc_disarm()) {
				assert_int_equal(r, 0);
				assert_int_equal(run.nr_seeds, i == 1 ? 3 : 1);
				assert_non_null(run.seed_tot);
				ir_policy_run_free(&run);
				break;
			}
			assert_int_equal(r, -1);
			assert_null(run.seed_tot);
			assert_null(run.seed_st);
		}
		/* bump: the totals, then two per-CPU tables; proportional with
		 * 3 seeds: totals, 3 tables, the seed array, 3 x 3 tables */
		assert_true(n > (i == 2 ? 1u : 3u) && n < MAX_TRIES);
	}
}

/* ir_topology_from_arg(): a spec of each grammar and a topology file, each
 * allocation failing in turn: an error with its text, no topology. */
static void test_topology(void **state)
{
	char path[] = "/tmp/ir-oom-topo-XXXXXX";
	const char *arg[] = { "sockets=2,cores=2,threads=2,nodes=2", "smt=0-1,2-3;mc=0-3", path };
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	static const char text[] = "idlereplay-topology 1\nonline 0-1\n"
		"cpu 0 core_cpus=0-1 package_cpus=0-1 node=0 cache=L2:0-1\n"
		"cpu 1 core_cpus=0-1 package_cpus=0-1 node=0 cache=L2:0-1\n";

	assert_true(write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1));
	assert_int_equal(close(fd), 0);
	/* every later allocation failing too, then only the nth: a failure
	 * the code ignored would show as a success */
	for (size_t i = 0; i < 2 * sizeof(arg) / sizeof(arg[0]); i++) {
		const size_t a = i % (sizeof(arg) / sizeof(arg[0]));
		unsigned n;

		for (n = 1; n < MAX_TRIES; n++) {
			struct ir_topology *t = NULL;
			char err[512] = "";
			int r;

			if (i < sizeof(arg) / sizeof(arg[0]))
				failalloc_arm(n);
			else
				failalloc_arm_once(n);
			r = ir_topology_from_arg(arg[a], &t, err, sizeof(err));
			if (!failalloc_disarm()) {
				assert_int_equal(r, IR_OK);
				assert_int_equal(ir_topology_nr_cpus(t), a == 2 ? 2 : 8 - 4 * (int)(a == 1));
				ir_topology_free(t);
				break;
			}
			assert_int_equal(r, IR_ERR_INPUT);
			assert_null(t);
			/* one line saying what failed, never an empty one */
			assert_non_null(strstr(err, "out of memory"));
		}
		assert_true(n > 1 && n < MAX_TRIES);
	}
	assert_int_equal(unlink(path), 0);
}

/* rec_events_add(): the grown list, then the name's copy, failing in
 * turn: an error each time (the caller then reports "out of memory"),
 * and the list as it was, still NULL-terminated. */
static void test_events_add(void **state)
{
	unsigned n;

	(void)state;
	for (n = 1; n < MAX_TRIES; n++) {
		char **names = calloc(2, sizeof(*names));
		int r;

		assert_non_null(names);
		names[0] = strdup("sched/sched_switch");
		assert_non_null(names[0]);
		failalloc_arm_once(n);
		r = rec_events_add(&names, "probe/newidle");
		if (!failalloc_disarm()) {
			assert_int_equal(r, 0);
			assert_string_equal(names[1], "probe/newidle");
			assert_null(names[2]);
			rec_events_free(names);
			break;
		}
		assert_true(r < 0);
		assert_string_equal(names[0], "sched/sched_switch");
		assert_null(names[1]);
		rec_events_free(names);
	}
	assert_int_equal(n, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_domains),
		cmocka_unit_test(test_tally),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_policy_run),
		cmocka_unit_test(test_topology),
		cmocka_unit_test(test_events_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

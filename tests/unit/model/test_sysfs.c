/* SPDX-License-Identifier: GPL-2.0-only */
/* ir_topology_capture() on fake sysfs trees built in a temp dir. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "model/model.h"

static char root[256];

/* Write root/path (creating directories) with text. */
static void put(const char *path, const char *text)
{
	char full[1024];
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (char *p = full + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(full, 0755);
		*p = '/';
	}
	f = fopen(full, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/idlereplay-sysfs-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

/* One cache: cpuN/cache/indexI/{level,type,shared_cpu_list} */
static void cache_files(int c, int index, const char *level, const char *type, const char *list)
{
	static const char *const names[3] = { "level", "type", "shared_cpu_list" };
	const char *vals[3] = { level, type, list };
	char p[256];

	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/cache/index%d/%s", c, index, names[i]);
		put(p, vals[i]);
	}
}

static void cpu_files(int c, const char *core, const char *pkg, const char *l2, const char *l3)
{
	char p[256];

	snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
	put(p, core);
	snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/topology/core_siblings_list", c);
	put(p, pkg);
	cache_files(c, 0, "1\n", "Data\n", core);
	cache_files(c, 2, "2\n", "Unified\n", l2);
	if (l3)
		cache_files(c, 3, "3\n", "Unified\n", l3);
}

/* Old-style names (thread_siblings_list, core_siblings_list), no cluster or
 * die files, a CPU without an L3, two nodes, CPU 4 offline. */
static void test_capture(void **state)
{
	char *text = NULL, err[256] = "";
	struct ir_topology *t = NULL;

	(void)state;
	put("sys/devices/system/cpu/online", "0-3,5\n");
	cpu_files(0, "0-1\n", "0-3\n", "0-1\n", "0-3\n");
	cpu_files(1, "0-1\n", "0-3\n", "0-1\n", "0-3\n");
	cpu_files(2, "2-3\n", "0-3\n", "2-3\n", "0-3\n");
	cpu_files(3, "2-3\n", "0-3\n", "2-3\n", NULL);
	cpu_files(5, "5\n", "5\n", "5\n", "5\n");
	put("sys/devices/system/cpu/cpu2/topology/core_cpus_list", "2-3\n");
	put("sys/devices/system/node/node0/cpulist", "0-3\n");
	put("sys/devices/system/node/node0/distance", "10 21\n");
	put("sys/devices/system/node/node1/cpulist", "5\n");
	put("sys/devices/system/node/node1/distance", "21 10\n");
	put("sys/devices/system/node/possible", "0-1\n");

	assert_int_equal(ir_topology_capture(root, &text, err, sizeof(err)), IR_OK);
	assert_string_equal(text,
		"idlereplay-topology 1\n"
		"online 0-3,5\n"
		"cpu 0 core_cpus=0-1 package_cpus=0-3 node=0 cache=L1d:0-1,L2:0-1,L3:0-3\n"
		"cpu 1 core_cpus=0-1 package_cpus=0-3 node=0 cache=L1d:0-1,L2:0-1,L3:0-3\n"
		"cpu 2 core_cpus=2-3 package_cpus=0-3 node=0 cache=L1d:2-3,L2:2-3,L3:0-3\n"
		"cpu 3 core_cpus=2-3 package_cpus=0-3 node=0 cache=L1d:2-3,L2:2-3\n"
		"cpu 5 core_cpus=5 package_cpus=5 node=1 cache=L1d:5,L2:5,L3:5\n"
		"node 0 cpus=0-3 distance=10,21\n"
		"node 1 cpus=5 distance=21,10\n");
	/* what we print, we parse */
	assert_int_equal(ir_topology_parse(text, &t, err, sizeof(err)), IR_OK);
	assert_int_equal(ir_topology_nr_cpus(t), 6);
	ir_topology_free(t);
	free(text);
}

/* Current names (core_cpus_list v5.3, cluster_cpus_list v5.16,
 * package_cpus_list and die_cpus_list v5.3) win over the old ones when both
 * are there; here the old files disagree, so the source shows.  No node, no
 * cache: no node= or cache= field. */
static void test_current_names(void **state)
{
	char saved[sizeof(root)], *text = NULL, err[256] = "";
	static const char *const files[][2] = {
		{ "core_cpus_list", "0-1\n" }, { "thread_siblings_list", "0\n" },
		{ "cluster_cpus_list", "0-1\n" },
		{ "package_cpus_list", "0-3\n" }, { "core_siblings_list", "0-1\n" },
		{ "die_cpus_list", "0-3\n" },
	};

	(void)state;
	memcpy(saved, root, sizeof(root));
	assert_int_equal(setup(NULL), 0);	/* a tree of its own */
	put("sys/devices/system/cpu/online", "0,3\n");
	for (int c = 0; c < 4; c += 3)
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			char p[256];

			snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/topology/%s", c, files[i][0]);
			put(p, files[i][1]);
		}
	assert_int_equal(ir_topology_capture(root, &text, err, sizeof(err)), IR_OK);
	assert_string_equal(text,
		"idlereplay-topology 1\n"
		"online 0,3\n"
		"cpu 0 core_cpus=0-1 cluster_cpus=0-1 package_cpus=0-3 die_cpus=0-3\n"
		"cpu 3 core_cpus=0-1 cluster_cpus=0-1 package_cpus=0-3 die_cpus=0-3\n");
	free(text);
	assert_int_equal(teardown(NULL), 0);
	memcpy(root, saved, sizeof(root));
}

static void test_missing_online(void **state)
{
	char *text = (char *)"x", err[512] = "", want[512];

	(void)state;
	assert_int_equal(ir_topology_capture("/nonexistent-idlereplay", &text, err, sizeof(err)), IR_ERR_INPUT);
	assert_null(text);
	snprintf(want, sizeof(want), "topology: /nonexistent-idlereplay/sys/devices/system/cpu/online: "
		 "No such file or directory");
	assert_string_equal(err, want);
	/* a sysroot given with a trailing '/' names the same files */
	assert_int_equal(ir_topology_capture("/nonexistent-idlereplay/", &text, err, sizeof(err)), IR_ERR_INPUT);
	assert_string_equal(err, want);
}

/* What a damaged sysfs gives: an online list that is not a cpulist (or
 * names no CPU) is refused with the file named; a node whose cpulist is
 * not one is left out, as is a distance row that is not numbers (its node
 * line keeps its CPUs). */
static void test_bad_sysfs(void **state)
{
	static const char *const bad_online[] = { "x-y\n", "\n", "3-1\n" };
	char saved[sizeof(root)], *text = NULL, err[512] = "", want[512];

	(void)state;
	memcpy(saved, root, sizeof(root));
	for (size_t i = 0; i < sizeof(bad_online) / sizeof(bad_online[0]); i++) {
		char shown[16];

		assert_int_equal(setup(NULL), 0);
		put("sys/devices/system/cpu/online", bad_online[i]);
		assert_int_equal(ir_topology_capture(root, &text, err, sizeof(err)), IR_ERR_INPUT);
		assert_null(text);
		snprintf(shown, sizeof(shown), "%s", bad_online[i]);
		shown[strcspn(shown, "\n")] = '\0';
		snprintf(want, sizeof(want), "topology: %s/sys/devices/system/cpu/online: bad cpulist '%s'",
			 root, shown);
		assert_string_equal(err, want);
		assert_int_equal(teardown(NULL), 0);
	}
	assert_int_equal(setup(NULL), 0);
	put("sys/devices/system/cpu/online", "0-1\n");
	put("sys/devices/system/cpu/cpu0/topology/core_cpus_list", "0\n");
	put("sys/devices/system/cpu/cpu1/topology/core_cpus_list", "1\n");
	put("sys/devices/system/node/node0/cpulist", "zero\n");
	put("sys/devices/system/node/node0/distance", "10 20\n");
	put("sys/devices/system/node/node1/cpulist", "0-1\n");
	put("sys/devices/system/node/node1/distance", "20 1O\n");	/* a letter O */
	assert_int_equal(ir_topology_capture(root, &text, err, sizeof(err)), IR_OK);
	assert_string_equal(text,
		"idlereplay-topology 1\n"
		"online 0-1\n"
		"cpu 0 core_cpus=0 node=1\n"
		"cpu 1 core_cpus=1 node=1\n"
		"node 1 cpus=0-1\n");
	free(text);
	assert_int_equal(teardown(NULL), 0);
	/* a machine of one CPU, CPU 0 */
	assert_int_equal(setup(NULL), 0);
	put("sys/devices/system/cpu/online", "0\n");
	put("sys/devices/system/cpu/cpu0/topology/core_cpus_list", "0\n");
	assert_int_equal(ir_topology_capture(root, &text, err, sizeof(err)), IR_OK);
	assert_string_equal(text, "idlereplay-topology 1\nonline 0\ncpu 0 core_cpus=0\n");
	free(text);
	assert_int_equal(teardown(NULL), 0);
	memcpy(root, saved, sizeof(root));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_missing_online),
		cmocka_unit_test(test_current_names),
		cmocka_unit_test(test_bad_sysfs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/* Topology text, cpulists, SPEC strings and the sched domains built from them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "model/model.h"

static const char *fixtures;

/* "SMT{0-1} MC{0-3} NUMA{0-7}" for one CPU */
static void levels_of(const struct ir_domains *d, int cpu, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int l = 0; l < ir_domains_nr_levels(d, cpu); l++) {
		const struct ir_sched_domain *sd = ir_domains_level(d, cpu, l);
		char span[256];

		ir_cpulist_format(sd->span, ir_domains_rings(d).nr_cpus, span, sizeof(span));
		n += (size_t)snprintf(buf + n, len - n, "%s%s{%s}", n ? " " : "", sd->name, span);
	}
}

/* the domains of a topology text (which must parse and build) */
static struct ir_domains *domains_of_text(const char *text)
{
	struct ir_topology *t = NULL;
	struct ir_domains *d;
	char err[256] = "";

	if (ir_topology_parse(text, &t, err, sizeof(err)) != IR_OK)
		fail_msg("%s", err);
	d = ir_domains_build(t, err, sizeof(err));
	ir_topology_free(t);
	if (!d)
		fail_msg("%s", err);
	return d;
}

static struct ir_domains *domains_of(const char *arg)
{
	struct ir_topology *t = NULL;
	struct ir_domains *d;
	char err[256] = "";

	if (ir_topology_from_arg(arg, &t, err, sizeof(err)))
		fail_msg("%s", err);
	d = ir_domains_build(t, err, sizeof(err));
	ir_topology_free(t);
	assert_non_null(d);
	return d;
}

static void test_cpulist(void **state)
{
	ir_cpumask_word m[2];
	char buf[64];

	(void)state;
	assert_int_equal(ir_cpulist_parse("0-3,8-11,70", 11, m, 128), 0);
	assert_int_equal(ir_cpulist_format(m, 128, buf, sizeof(buf)), 0);
	{
		/* too small a buffer: an error, and nothing written past it */
		char small[16];

		memset(small, 'x', sizeof(small));
		assert_int_equal(ir_cpulist_format(m, 128, small, 4), -1);
		for (size_t i = 4; i < sizeof(small); i++)
			assert_int_equal(small[i], 'x');
	}
	assert_string_equal(buf, "0-3,8-11,70");
	assert_int_equal(ir_cpulist_parse("5", 1, m, 128), 0);
	assert_int_equal(m[0], 1u << 5);
	assert_int_equal(ir_cpulist_parse("0-", 2, m, 128), -1);
	assert_int_equal(ir_cpulist_parse("3-1", 3, m, 128), -1);
	assert_int_equal(ir_cpulist_parse("1,,2", 4, m, 128), -1);
	assert_int_equal(ir_cpulist_parse("a", 1, m, 128), -1);
	/* CPUs beyond the mask are ignored, not an error */
	assert_int_equal(ir_cpulist_parse("0,200", 5, m, 128), 0);
	assert_int_equal(m[0], 1);
	assert_int_equal(m[1], 0);
}

static void expect_parse_error(const char *text, const char *msg)
{
	struct ir_topology *t = (struct ir_topology *)1;
	char err[256] = "";

	assert_int_equal(ir_topology_parse(text, &t, err, sizeof(err)), IR_ERR_INPUT);
	assert_null(t);
	assert_string_equal(err, msg);
}

static void test_parse_errors(void **state)
{
	(void)state;
	expect_parse_error("", "topology: empty");
	expect_parse_error("hello\n", "topology: line 1: expected 'idlereplay-topology 1'");
	expect_parse_error("idlereplay-topology 2\n", "topology: line 1: expected 'idlereplay-topology 1'");
	expect_parse_error("idlereplay-topology 1\n", "topology: no 'online' line");
	expect_parse_error("# c\nidlereplay-topology 1\ncpu 0 core_cpus=0\n",
			   "topology: line 3: 'cpu' before 'online'");
	expect_parse_error("idlereplay-topology 1\nonline 0-3\n\ncpu 0 core_cpus=0-\n",
			   "topology: line 4: bad cpulist '0-'");
	expect_parse_error("idlereplay-topology 1\nonline 0-\n", "topology: line 2: bad cpulist '0-'");
	expect_parse_error("idlereplay-topology 1\nonline 0-1\ncpu x\n", "topology: line 3: bad number 'x'");
	expect_parse_error("idlereplay-topology 1\nonline 0-1\ncpu 0 cache=L2:0-1,X\n",
			   "topology: line 3: bad cpulist '0-1,X'");
	expect_parse_error("idlereplay-topology 1\nonline 0-1\nnode 0 cpus=0-1 distance=10,,20\n",
			   "topology: line 3: bad distance '10,,20'");
	expect_parse_error("idlereplay-topology 1\nonline 0-1\ncpu 0 junk\n",
			   "topology: line 3: bad key=value 'junk'");
	/* a cache item is L<level 1-9>[d|i|u]:<cpulist> */
	expect_parse_error("idlereplay-topology 1\nonline 0-1\ncpu 0 cache=X2:0\n",
			   "topology: line 3: bad cache 'X2:0'");
	expect_parse_error("idlereplay-topology 1\nonline 0-1\ncpu 0 cache=L0:0\n",
			   "topology: line 3: bad cache 'L0:0'");
	expect_parse_error("idlereplay-topology 1\nonline 0-1\ncpu 0 cache=L3x0-1\n",
			   "topology: line 3: bad cache 'L3x0-1'");
}

static void test_spec_errors(void **state)
{
	struct ir_topology *t = NULL;
	char err[256] = "";

	(void)state;
	assert_int_equal(ir_topology_from_arg("sockets=2,cores=3,nodes=4", &t, err, sizeof(err)), IR_ERR_INPUT);
	assert_string_equal(err, "topology: 4 nodes do not divide 2 sockets of 3 CPUs");
	assert_int_equal(ir_topology_from_arg("sockets=0", &t, err, sizeof(err)), IR_ERR_INPUT);
	assert_string_equal(err, "topology: bad value '0' for sockets");
	assert_int_equal(ir_topology_from_arg("smt=0-1;bogus=0-3", &t, err, sizeof(err)), IR_ERR_INPUT);
	assert_string_equal(err, "topology: unknown level 'bogus'");
	assert_int_equal(ir_topology_from_arg("smt=0-1,1-2", &t, err, sizeof(err)), IR_ERR_INPUT);
	assert_string_equal(err, "topology: cpu 1 in two groups of level smt");
	assert_int_equal(ir_topology_from_arg("nonsense", &t, err, sizeof(err)), IR_ERR_INPUT);
	assert_string_equal(err, "topology: 'nonsense' is neither a file nor a spec");
	assert_null(t);
}

/* Every refusal of a SPEC string or a topology argument, each with its own
 * line (the spec grammar in topology.c's comments), and the edges of the
 * accepted values: a value of 4096 is taken, 4097 refused; 4096 CPUs are
 * taken, more are not. */
static void test_spec_every_error(void **state)
{
	static const struct { const char *arg; int rc; const char *err; } cases[] = {
		{ "", IR_ERR_USAGE, "topology: empty argument" },
		{ "sockets=2,bogus", IR_ERR_INPUT, "topology: bad spec item 'bogus'" },
		{ "sockets=2,llc=die", IR_ERR_INPUT, "topology: llc must be core or socket, not 'die'" },
		{ "sockets=2,dies=2", IR_ERR_INPUT, "topology: unknown spec key 'dies'" },
		{ "sockets=4097", IR_ERR_INPUT, "topology: bad value '4097' for sockets" },
		{ "cores=2x", IR_ERR_INPUT, "topology: bad value '2x' for cores" },
		{ "threads=", IR_ERR_INPUT, "topology: bad value '' for threads" },
		{ "nodes=-1", IR_ERR_INPUT, "topology: bad value '-1' for nodes" },
		{ "sockets=4096,cores=2", IR_ERR_INPUT, "topology: spec gives too many CPUs (8192)" },
		{ "sockets=2,cores=3,clusters=2", IR_ERR_INPUT, "topology: 2 clusters do not divide 3 cores" },
		{ "sockets=3,nodes=2", IR_ERR_INPUT, "topology: 2 nodes do not divide 3 sockets of 1 CPUs" },
		{ "smt=0-1;mc", IR_ERR_INPUT, "topology: bad level 'mc' (want NAME=CPUS,CPUS)" },
		{ "smt=0;smt=0;smt=0;smt=0;smt=0;smt=0;smt=0;smt=0;smt=0", IR_ERR_INPUT,
		  "topology: more than 8 levels" },
		{ "smt=a-b", IR_ERR_INPUT, "topology: no CPUs in 'smt=a-b'" },
		{ "smt=0-99999", IR_ERR_INPUT, "topology: CPU number too large in 'smt=0-99999'" },
		{ "smt=0-1,3-2", IR_ERR_INPUT, "topology: bad cpulist '3-2' in level smt" },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ir_topology *t = (struct ir_topology *)&err;	/* must be cleared */

		strcpy(err, "unset");
		assert_int_equal(ir_topology_from_arg(cases[i].arg, &t, err, sizeof(err)), cases[i].rc);
		assert_string_equal(err, cases[i].err);
		assert_null(t);
	}
}

static int nr_cpus_of(const char *arg)
{
	struct ir_topology *t = NULL;
	char err[256] = "";
	int n;

	if (ir_topology_from_arg(arg, &t, err, sizeof(err)))
		fail_msg("%s: %s", arg, err);
	n = ir_topology_nr_cpus(t);
	ir_topology_free(t);
	return n;
}

static void test_spec_edges(void **state)
{
	struct ir_domains *d;
	char buf[256];

	(void)state;
	assert_int_equal(nr_cpus_of("sockets=4096"), 4096);
	assert_int_equal(nr_cpus_of("sockets=1,cores=1,threads=4096"), 4096);
	assert_int_equal(nr_cpus_of("threads=2"), 2);	/* the others default to 1 */
	assert_int_equal(nr_cpus_of("nodes=1"), 1);
	/* llc=socket is the default; llc=cores is llc=core */
	d = domains_of("sockets=1,cores=4,llc=socket");
	levels_of(d, 0, buf, sizeof(buf));
	assert_string_equal(buf, "MC{0-3}");
	ir_domains_free(d);
	d = domains_of("sockets=1,cores=4,llc=cores");
	levels_of(d, 0, buf, sizeof(buf));
	assert_string_equal(buf, "PKG{0-3}");
	ir_domains_free(d);
	/* one cluster per core pair, two threads each: CLS spans 4 CPUs */
	d = domains_of("sockets=1,cores=4,threads=2,clusters=2");
	levels_of(d, 5, buf, sizeof(buf));
	assert_string_equal(buf, "SMT{4-5} CLS{4-7} MC{0-7}");
	ir_domains_free(d);
	/* eight levels are allowed */
	assert_int_equal(nr_cpus_of("smt=0;smt=0;smt=0;smt=0;smt=0;smt=0;smt=0;smt=0"), 1);
}

/* A topology file: read whole however long (a 30 kB file, past the first
 * 8 kB buffer), and a file's error names the file; a directory is a read
 * error, not a spec. */
static void test_topology_file(void **state)
{
	char dir[] = "/tmp/ir-topo-XXXXXX", path[64], err[512];
	struct ir_topology *t = NULL;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/topo", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "idlereplay-topology 1\nonline 0-15\n");
	for (int i = 0; i < 300; i++)
		fprintf(f, "# padding line %03d to take the file past two read buffers of 8 kB: "
			"xxxxxxxxxxxxxxxxxxxx\n", i);
	for (int c = 0; c < 16; c++)
		fprintf(f, "cpu %d core_cpus=%d-%d package_cpus=0-15 node=0\n", c, c & ~1, c | 1);
	assert_true(ftell(f) > 20000);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(ir_topology_from_arg(path, &t, err, sizeof(err)), IR_OK);
	assert_int_equal(ir_topology_nr_cpus(t), 16);
	ir_topology_free(t);
	t = NULL;
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "idlereplay-topology 2\n");
	assert_int_equal(fclose(f), 0);
	assert_int_equal(ir_topology_from_arg(path, &t, err, sizeof(err)), IR_ERR_INPUT);
	{
		char want[512];

		snprintf(want, sizeof(want), "topology: %s: line 1: expected 'idlereplay-topology 1'", path);
		assert_string_equal(err, want);
		assert_int_equal(ir_topology_from_arg(dir, &t, err, sizeof(err)), IR_ERR_INPUT);
		snprintf(want, sizeof(want), "topology: %s: read error", dir);
		assert_string_equal(err, want);
	}
	assert_null(t);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* The vm-numa guest: CLS equals SMT, PKG and NODE equal MC. */
static void test_vm_numa(void **state)
{
	char path[4096], buf[256];
	struct ir_domains *d;
	struct ir_rings r;

	(void)state;
	snprintf(path, sizeof(path), "%s/vm-numa.topology", fixtures);
	d = domains_of(path);
	for (int c = 0; c < 8; c++) {
		static const char *const want[8] = {
			"SMT{0-1} MC{0-3} NUMA{0-7}", "SMT{0-1} MC{0-3} NUMA{0-7}",
			"SMT{2-3} MC{0-3} NUMA{0-7}", "SMT{2-3} MC{0-3} NUMA{0-7}",
			"SMT{4-5} MC{4-7} NUMA{0-7}", "SMT{4-5} MC{4-7} NUMA{0-7}",
			"SMT{6-7} MC{4-7} NUMA{0-7}", "SMT{6-7} MC{4-7} NUMA{0-7}",
		};
		levels_of(d, c, buf, sizeof(buf));
		assert_string_equal(buf, want[c]);
	}
	const struct ir_sched_domain *smt = ir_domains_level(d, 0, 0), *mc = ir_domains_level(d, 0, 1),
				     *numa = ir_domains_level(d, 0, 2);
	assert_int_equal(smt->flags, SD_BALANCE_NEWIDLE | SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES);
	assert_int_equal(smt->imbalance_pct, 110);
	assert_int_equal(smt->cache_nice_tries, 0);
	assert_int_equal(mc->flags, SD_BALANCE_NEWIDLE | SD_SHARE_PKG_RESOURCES);
	assert_int_equal(mc->imbalance_pct, 117);
	assert_int_equal(mc->cache_nice_tries, 1);
	assert_int_equal(mc->balance_interval, 4);
	assert_int_equal(numa->flags, SD_BALANCE_NEWIDLE | SD_NUMA);
	assert_int_equal(numa->imbalance_pct, 125);
	assert_int_equal(numa->cache_nice_tries, 2);
	assert_int_equal(numa->span_weight, 8);
	assert_null(ir_domains_level(d, 0, 3));
	r = ir_domains_rings(d);
	assert_int_equal(r.nr_cpus, 8);
	assert_int_equal(r.nr_levels[5], 3);
	static const uint8_t ring2[8] = { 1, 1, IR_NO_LEVEL, 0, 2, 2, 2, 2 };
	assert_memory_equal(r.ring + 2 * 8, ring2, 8);
	ir_domains_free(d);
}

/* This 2-CPU machine: one LLC, no SMT, one node. */
static void test_two_cpus(void **state)
{
	static const char text[] =
		"idlereplay-topology 1\nonline 0-1\n"
		"cpu 0 core_cpus=0 cluster_cpus=0 package_cpus=0-1 die_cpus=0-1 node=0 cache=L1d:0,L1i:0,L2:0,L3:0-1\n"
		"cpu 1 core_cpus=1 cluster_cpus=1 package_cpus=0-1 die_cpus=0-1 node=0 cache=L1d:1,L1i:1,L2:1,L3:0-1\n"
		"node 0 cpus=0-1 distance=10\n";
	struct ir_topology *t = NULL;
	struct ir_domains *d;
	char err[256], buf[256];

	(void)state;
	assert_int_equal(ir_topology_parse(text, &t, err, sizeof(err)), IR_OK);
	assert_int_equal(ir_topology_nr_cpus(t), 2);
	d = ir_domains_build(t, err, sizeof(err));
	levels_of(d, 0, buf, sizeof(buf));
	assert_string_equal(buf, "MC{0-1}");
	levels_of(d, 1, buf, sizeof(buf));
	assert_string_equal(buf, "MC{0-1}");
	ir_domains_free(d);
	ir_topology_free(t);
}

static void test_spec_strings(void **state)
{
	struct ir_domains *d;
	char buf[256];

	(void)state;
	/* two sockets split into two nodes each, one LLC per socket: NODE
	 * and the distance-12 level are widened to the LLC and degenerate */
	d = domains_of("sockets=2,cores=4,threads=2,nodes=4");
	levels_of(d, 9, buf, sizeof(buf));
	assert_string_equal(buf, "SMT{8-9} MC{8-15} NUMA{0-15}");
	ir_domains_free(d);
	/* LLC per core without SMT: MC degenerates to one CPU, PKG stays */
	d = domains_of("sockets=1,cores=4,llc=core");
	levels_of(d, 0, buf, sizeof(buf));
	assert_string_equal(buf, "PKG{0-3}");
	ir_domains_free(d);
	/* clusters between SMT and MC */
	d = domains_of("sockets=1,cores=8,threads=2,clusters=2");
	levels_of(d, 3, buf, sizeof(buf));
	assert_string_equal(buf, "SMT{2-3} CLS{0-7} MC{0-15}");
	ir_domains_free(d);
	/* a cluster as wide as the LLC adds nothing: CLS goes, MC stays
	 * (x86 cpu_clustergroup_mask(): CLS only where it differs from MC) */
	d = domains_of("smt=0-1,2-3;cls=0-3;mc=0-3");
	levels_of(d, 2, buf, sizeof(buf));
	assert_string_equal(buf, "SMT{2-3} MC{0-3}");
	ir_domains_free(d);
	/* eight nodes: 64 distances, two distinct (10, 20): one NUMA level */
	d = domains_of("sockets=8,cores=2,nodes=8");
	levels_of(d, 5, buf, sizeof(buf));
	assert_string_equal(buf, "MC{4-5} NUMA{0-15}");
	ir_domains_free(d);
	/* explicit levels, '+' joins ranges of one group */
	d = domains_of("smt=0-1,2-3,4-5,6-7;mc=0-1+4-5,2-3+6-7;numa=0-7");
	levels_of(d, 4, buf, sizeof(buf));
	assert_string_equal(buf, "SMT{4-5} MC{0-1,4-5} NUMA{0-7}");
	ir_domains_free(d);
}

/* sched_init_numa() keeps at most a fixed number of distinct distances
 * (our table: 16): 18 single-CPU nodes with 34 distinct ones are refused
 * with a message naming no CPU. */
static void test_too_many_distances(void **state)
{
	char text[8192], err[256];
	size_t len;
	struct ir_topology *t = NULL;

	(void)state;
	len = (size_t)snprintf(text, sizeof(text), "idlereplay-topology 1\nonline 0-17\n");
	for (int c = 0; c < 18; c++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"cpu %d core_cpus=%d cluster_cpus=%d package_cpus=%d die_cpus=%d node=%d "
					"cache=L1d:%d,L2:%d,L3:%d\n", c, c, c, c, c, c, c, c, c);
	for (int n = 0; n < 18; n++) {
		len += (size_t)snprintf(text + len, sizeof(text) - len, "node %d cpus=%d distance=", n, n);
		for (int m = 0; m < 18; m++)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%d", m ? "," : "",
						m == n ? 10 : 20 + n + m);
		len += (size_t)snprintf(text + len, sizeof(text) - len, "\n");
	}
	assert_true(len < sizeof(text));
	assert_int_equal(ir_topology_parse(text, &t, err, sizeof(err)), IR_OK);
	err[0] = '\0';
	assert_null(ir_domains_build(t, err, sizeof(err)));
	assert_string_equal(err, "domains: more than 16 distinct node distances");
	ir_topology_free(t);
}

/* A spec makes exactly sockets x cores x threads CPUs, whatever the
 * parser would do with a line past them. */
static void test_spec_cpu_count(void **state)
{
	static const struct { const char *spec; int cpus; } cases[] = {
		{ "sockets=2,cores=4,threads=2,nodes=4", 16 },
		{ "sockets=1,cores=3", 3 },
		{ "sockets=3,cores=1,threads=2,nodes=3", 6 },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ir_topology *t = NULL;

		assert_int_equal(ir_topology_from_arg(cases[i].spec, &t, err, sizeof(err)), 0);
		assert_int_equal(ir_topology_nr_cpus(t), cases[i].cpus);
		ir_topology_free(t);
	}
}

/* sched_init_numa(): one level per distinct distance above the local one,
 * sorted, whatever order the nodes list them in; a node's level spans the
 * nodes within that distance.  Three single-CPU nodes, distances 0-1 20,
 * 1-2 15, 0-2 30 (15 first seen after 20 and 30), worked out by hand:
 * CPU 0: 15 {0} (degenerate), 20 {0,1}, 30 {0-2};
 * CPU 1: 15 {1,2}, 20 {0-2}, 30 {0-2} (same span: degenerate);
 * CPU 2: 15 {1,2}, 20 {1,2} (same: degenerate), 30 {0-2}. */
static void test_numa_distance_order(void **state)
{
	static const char text[] =
		"idlereplay-topology 1\nonline 0-2\n"
		"cpu 0 core_cpus=0 cluster_cpus=0 package_cpus=0 die_cpus=0 node=0 cache=L3:0\n"
		"cpu 1 core_cpus=1 cluster_cpus=1 package_cpus=1 die_cpus=1 node=1 cache=L3:1\n"
		"cpu 2 core_cpus=2 cluster_cpus=2 package_cpus=2 die_cpus=2 node=2 cache=L3:2\n"
		"node 0 cpus=0 distance=10,20,30\n"
		"node 1 cpus=1 distance=20,10,15\n"
		"node 2 cpus=2 distance=30,15,10\n";
	struct ir_domains *d = domains_of_text(text);
	char buf[256];

	(void)state;
	levels_of(d, 0, buf, sizeof(buf));
	assert_string_equal(buf, "NUMA{0-1} NUMA{0-2}");
	levels_of(d, 1, buf, sizeof(buf));
	assert_string_equal(buf, "NUMA{1-2} NUMA{0-2}");
	levels_of(d, 2, buf, sizeof(buf));
	assert_string_equal(buf, "NUMA{1-2} NUMA{0-2}");
	ir_domains_free(d);
}

/* A CPU whose node the topology does not give is in no NUMA domain (its
 * node is unknown, not node 0); the CPUs of the nodes given are. */
static void test_cpu_without_node(void **state)
{
	static const char text[] =
		"idlereplay-topology 1\nonline 0-2\n"
		"cpu 0 core_cpus=0 package_cpus=0 cache=L3:0\n"
		"cpu 1 core_cpus=1 package_cpus=1 node=0 cache=L3:1\n"
		"cpu 2 core_cpus=2 package_cpus=2 node=1 cache=L3:2\n"
		"node 0 cpus=1 distance=10,20\n"
		"node 1 cpus=2 distance=20,10\n";
	struct ir_domains *d = domains_of_text(text);
	char buf[256];

	(void)state;
	assert_int_equal(ir_domains_nr_levels(d, 0), 0);
	levels_of(d, 1, buf, sizeof(buf));
	assert_string_equal(buf, "NUMA{1-2}");
	levels_of(d, 2, buf, sizeof(buf));
	assert_string_equal(buf, "NUMA{1-2}");
	ir_domains_free(d);
}

static void test_flat(void **state)
{
	struct ir_topology *t = ir_topology_flat(3);
	struct ir_domains *d;
	char buf[256];

	(void)state;
	assert_non_null(t);
	assert_null(ir_topology_flat(0));
	d = ir_domains_build(t, NULL, 0);
	for (int c = 0; c < 3; c++) {	/* one LLC: every CPU, the same level */
		levels_of(d, c, buf, sizeof(buf));
		assert_string_equal(buf, "MC{0-2}");
	}
	/* CPUs the domains do not have: no levels, no domain */
	assert_int_equal(ir_domains_nr_levels(d, 2), 1);
	assert_int_equal(ir_domains_nr_levels(d, 3), 0);
	assert_int_equal(ir_domains_nr_levels(d, -1), 0);
	assert_int_equal(ir_domains_nr_levels(NULL, 0), 0);
	assert_null(ir_domains_level(d, 3, 0));
	assert_null(ir_domains_level(d, 0, 1));
	ir_domains_free(d);
	ir_topology_free(t);
	t = ir_topology_flat(1);
	d = ir_domains_build(t, NULL, 0);
	assert_int_equal(ir_domains_nr_levels(d, 0), 0);
	ir_domains_free(d);
	ir_topology_free(t);
}

static void test_print(void **state)
{
	struct ir_domains *d = domains_of("smt=0-1");
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	assert_int_equal(ir_domains_print(d, f), 0);
	fclose(f);
	assert_string_equal(out,
		"cpu0: SMT{0-1}\n"
		"  domain0 SMT weight=2 imbalance_pct=110 cache_nice_tries=0 balance_interval=2 "
		"flags=SD_BALANCE_NEWIDLE|SD_SHARE_CPUCAPACITY|SD_SHARE_PKG_RESOURCES\n"
		"cpu1: SMT{0-1}\n"
		"  domain0 SMT weight=2 imbalance_pct=110 cache_nice_tries=0 balance_interval=2 "
		"flags=SD_BALANCE_NEWIDLE|SD_SHARE_CPUCAPACITY|SD_SHARE_PKG_RESOURCES\n");
	free(out);
	ir_domains_free(d);
}

/* sd_init() (v4.15 kernel/sched/topology.c) for every level kind, on every
 * CPU: imbalance_pct 125 and cache_nice_tries 0 by default; SD_SHARE_CPUCAPACITY
 * (SMT, cpu_smt_flags()) imbalance_pct 110; SD_SHARE_PKG_RESOURCES (CLS
 * cpu_cluster_flags() v5.16, MC cpu_core_flags()) 117 and 1; SD_NUMA
 * cache_nice_tries 2; any other level (DIE, our NODE) 1.  balance_interval
 * starts at sd_weight (ms) and span_weight is the span's CPU count. */
static void test_sd_init_every_level(void **state)
{
	static const struct {
		const char *spec;
		int nr_cpus;
		struct { enum ir_level_kind kind; unsigned weight, flags, pct, nice; } l[4];
		int nr;
	} c[] = {
		{ "sockets=2,cores=4,threads=2,clusters=2", 16, {
			{ IR_LVL_SMT, 2, SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES, 110, 0 },
			{ IR_LVL_CLS, 4, SD_SHARE_PKG_RESOURCES, 117, 1 },
			{ IR_LVL_MC, 8, SD_SHARE_PKG_RESOURCES, 117, 1 },
			{ IR_LVL_NODE, 16, 0, 125, 1 } }, 4 },
		{ "sockets=2,cores=2,threads=1,nodes=2", 4, {
			{ IR_LVL_MC, 2, SD_SHARE_PKG_RESOURCES, 117, 1 },
			{ IR_LVL_NUMA, 4, SD_NUMA, 125, 2 } }, 2 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct ir_domains *d = domains_of(c[i].spec);

		for (int cpu = 0; cpu < c[i].nr_cpus; cpu++) {
			assert_int_equal(ir_domains_nr_levels(d, cpu), c[i].nr);
			for (int l = 0; l < c[i].nr; l++) {
				const struct ir_sched_domain *sd = ir_domains_level(d, cpu, l);

				assert_non_null(sd);
				if (sd->kind != c[i].l[l].kind || sd->span_weight != c[i].l[l].weight ||
				    sd->flags != (SD_BALANCE_NEWIDLE | c[i].l[l].flags) ||
				    sd->imbalance_pct != c[i].l[l].pct || sd->cache_nice_tries != c[i].l[l].nice ||
				    sd->balance_interval != c[i].l[l].weight)
					fail_msg("%s cpu %d level %d: kind %d weight %u flags %#x pct %u nice %u "
						 "interval %u", c[i].spec, cpu, l, sd->kind, sd->span_weight, sd->flags,
						 sd->imbalance_pct, sd->cache_nice_tries, sd->balance_interval);
			}
		}
		ir_domains_free(d);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_spec_errors),
		cmocka_unit_test(test_spec_every_error),
		cmocka_unit_test(test_spec_edges),
		cmocka_unit_test(test_topology_file),
		cmocka_unit_test(test_vm_numa),
		cmocka_unit_test(test_two_cpus),
		cmocka_unit_test(test_spec_strings),
		cmocka_unit_test(test_cpu_without_node),
		cmocka_unit_test(test_flat),
		cmocka_unit_test(test_numa_distance_order),
		cmocka_unit_test(test_spec_cpu_count),
		cmocka_unit_test(test_too_many_distances),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_sd_init_every_level),
	};

	fixtures = argc > 1 ? argv[1] : "tests/unit/model/fixtures";
	return cmocka_run_group_tests(tests, NULL, NULL);
}

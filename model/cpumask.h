/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model/ internals: cpumask helpers (like include/linux/cpumask.h) and the
 * topology representation shared by topology.c, topology_sysfs.c and
 * domains.c.  Not part of the stage contract: other stages use model.h.
 */
#ifndef IDLEREPLAY_MODEL_CPUMASK_H
#define IDLEREPLAY_MODEL_CPUMASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

#define IR_CPUMASK_BITS 64
/*
 * Bound on CPU numbers in topology text: the replay reads traces of at most
 * 4096 CPUs (IR_MAX_CPUSTAT_CPUS, replay/replay.h), so a larger topology
 * can match no trace.  Per-CPU masks and the domains' ring table are N^2:
 * 65536 CPUs took 2 GB and 14 s from a few KB of compressed metadata,
 * 8192 took 250 MB and 14 s; 4096 take 100 MB and 4 s.
 */
#define IR_TOPO_CPU_LIMIT 4096

static inline size_t ir_cpumask_words(int nr_cpus)
{
	return ((size_t)nr_cpus + IR_CPUMASK_BITS - 1) / IR_CPUMASK_BITS;
}
static inline bool ir_cpumask_test(const ir_cpumask_word *m, int cpu)
{
	return (m[cpu / IR_CPUMASK_BITS] >> (cpu % IR_CPUMASK_BITS)) & 1;
}
static inline void ir_cpumask_set(ir_cpumask_word *m, int cpu)
{
	m[cpu / IR_CPUMASK_BITS] |= (ir_cpumask_word)1 << (cpu % IR_CPUMASK_BITS);
}
int ir_cpumask_weight(const ir_cpumask_word *m, size_t nwords);
bool ir_cpumask_equal(const ir_cpumask_word *a, const ir_cpumask_word *b, size_t nwords);

/* Per-CPU masks read from sysfs (topology text keys). */
enum ir_topo_mask {
	IR_TM_CORE,		/* core_cpus (thread_siblings) */
	IR_TM_CLUSTER,		/* cluster_cpus */
	IR_TM_PACKAGE,		/* package_cpus (core_siblings) */
	IR_TM_DIE,		/* die_cpus */
	IR_TM_LLC,		/* highest-level unified cache shared_cpu_list */
	IR_TM__COUNT
};

struct ir_topo_cpu {
	ir_cpumask_word *mask[IR_TM__COUNT];	/* NULL: not given */
	int llc_level;				/* cache level of mask[IR_TM_LLC] */
	int node;				/* -1: unknown */
};

struct ir_topo_node {
	ir_cpumask_word *cpus;			/* NULL: node not given */
	int nr_distance;
	int *distance;				/* to node 0.. */
};

/* Explicit levels from a SPEC string ("smt=0-1,2-3;mc=0-3"). */
struct ir_topo_level {
	enum ir_level_kind kind;
	ir_cpumask_word *span;			/* nr_cpus masks, one per CPU */
};

struct ir_topology {
	int nr_cpus;				/* highest online CPU + 1 */
	size_t nwords;
	ir_cpumask_word *online;
	struct ir_topo_cpu *cpu;
	int nr_nodes;
	struct ir_topo_node *node;
	int nr_explicit;			/* > 0: use these levels as given */
	struct ir_topo_level explicit_lvl[IR_MAX_LEVELS];
};

struct ir_topology *ir_topology_alloc(int nr_cpus);

/* ------------------------------------------------ policy state helpers */

/* splitmix64: a seeded, deterministic stand-in for the kernel's per-CPU
 * prandom_u32_state(&sched_rnd_state) (v6.19 sched_rng()). */
static inline uint32_t ir_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

/* Not yet seen: the level starts at its assumed parameter value. */
#define IR_COST_UNSET UINT64_MAX

/* sd->max_newidle_lb_cost as the policy sees it at this level. */
static inline uint64_t ir_level_lb_cost(const struct ir_policy_params *p,
					const struct ir_policy_state *st,
					int cpu, int level, enum ir_level_kind kind)
{
	if (p->kind == IR_POL_BUMP && st && st->max_newidle_lb_cost && cpu >= 0 && cpu < st->nr_cpus) {
		uint64_t v = st->max_newidle_lb_cost[cpu * IR_MAX_LEVELS + level];

		if (v != IR_COST_UNSET)
			return v;
	}
	return p->max_newidle_lb_cost[kind] * p->cost_scale / 1000;
}

#endif

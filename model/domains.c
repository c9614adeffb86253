/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sched domains from a topology, as v4.15 kernel/sched/topology.c builds
 * them: the default_topology[] levels (SMT, CLS since 5.16, MC, DIE/PKG),
 * then sched_init_numa()'s NODE and NUMA levels (one per distinct node
 * distance), degenerate levels removed (sd_degenerate(),
 * sd_parent_degenerate()) and per-level parameters from sd_init().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cpumask.h"

struct ir_domains {
	int nr_cpus;
	size_t nwords;
	uint8_t *nr_levels;			/* per CPU */
	struct ir_sched_domain *sd;		/* [cpu * IR_MAX_LEVELS + level] */
	ir_cpumask_word *spans;			/* nwords per sd */
	uint8_t *ring;				/* [c * nr_cpus + o] */
};

static void seterr(char *err, size_t errlen, const char *msg, int cpu)
{
	if (err && errlen && cpu >= 0)
		snprintf(err, errlen, "domains: cpu %d: %s", cpu, msg);
	else if (err && errlen)
		snprintf(err, errlen, "domains: %s", msg);
}

/* sd_init() (4.15 topology.c): flags from the topology level, then the
 * behaviour they imply. */
static void sd_init(struct ir_sched_domain *sd, enum ir_level_kind kind, unsigned weight)
{
	sd->kind = kind;
	snprintf(sd->name, sizeof(sd->name), "%s", ir_level_name[kind]);
	sd->flags = SD_BALANCE_NEWIDLE;
	if (kind == IR_LVL_SMT)
		sd->flags |= SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES;	/* cpu_smt_flags() */
	else if (kind == IR_LVL_CLS || kind == IR_LVL_MC)
		sd->flags |= SD_SHARE_PKG_RESOURCES;			/* cpu_core_flags() */
	else if (kind == IR_LVL_NUMA)
		sd->flags |= SD_NUMA;					/* cpu_numa_flags() */
	sd->span_weight = weight;
	sd->imbalance_pct = 125;
	sd->cache_nice_tries = 0;
	sd->balance_interval = weight;	/* ms */
	if (sd->flags & SD_SHARE_CPUCAPACITY) {
		sd->imbalance_pct = 110;
	} else if (sd->flags & SD_SHARE_PKG_RESOURCES) {
		sd->imbalance_pct = 117;
		sd->cache_nice_tries = 1;
	} else if (sd->flags & SD_NUMA) {
		sd->cache_nice_tries = 2;
	} else {
		sd->cache_nice_tries = 1;	/* DIE, and the NODE level */
	}
}

/* The SD_* flags sd_init() gives a topology level, for imb_numa_nr(). */
static unsigned kind_flags(enum ir_level_kind kind)
{
	struct ir_sched_domain sd;

	sd_init(&sd, kind, 0);
	return sd.flags;
}

/*
 * sd->imb_numa_nr as build_sched_domains() (kernel/sched/topology.c) sets it
 * from v5.19 (e496132ebedd v5.18, 026b98a93bbd "sched/numa: Adjust
 * imb_numa_nr to a better approximation of memory channels" v5.19), over a
 * CPU's domains *before* cpu_attach_domain() removes the degenerate ones:
 * the first domain without SD_SHARE_PKG_RESOURCES above one with it (on
 * x86 the DIE level, cpu_cpu_mask(): the node) takes the LLCs it spans, or
 * for a single LLC an eighth of its span, at least 1; imb_span is the span
 * of the first SD_NUMA domain above it; every later domain takes imb x
 * max(1, span_weight / imb_span).  So a node of one LLC (DIE = MC, removed
 * later) gives max(1, node >> 3), not the two LLCs the surviving NUMA
 * level's child (MC) would count.  n candidates: their flags and weights;
 * out[i] for each.
 */
static void imb_numa_nrs(int n, const unsigned *flags, const unsigned *weight, unsigned *out)
{
	unsigned imb = 0, imb_span = 1;

	for (int i = 0; i < n; i++) {
		if (!(flags[i] & SD_SHARE_PKG_RESOURCES) && i > 0 && (flags[i - 1] & SD_SHARE_PKG_RESOURCES)) {
			unsigned nr_llcs = weight[i - 1] ? weight[i] / weight[i - 1] : 1;
			int top = i + 1;

			imb = nr_llcs == 1 ? weight[i] >> 3 : nr_llcs;
			if (imb < 1)
				imb = 1;
			out[i] = imb;
			/* Set span based on the first NUMA domain. */
			while (top < n && !(flags[top] & SD_NUMA))
				top++;
			imb_span = top < n ? weight[top] : weight[i];
		} else {
			unsigned factor = imb_span ? weight[i] / imb_span : 1;

			out[i] = imb * (factor > 1 ? factor : 1);
		}
	}
}

/* The sorted distinct node distances: sched_init_numa()'s levels. */
static int numa_distances(const struct ir_topology *t, int *dist, int max)
{
	int n = 0;

	for (int a = 0; a < t->nr_nodes; a++)
		for (int b = 0; b < t->node[a].nr_distance; b++) {
			int d = t->node[a].distance[b], i, j;

			for (i = 0; i < n && dist[i] < d; i++)
				;
			if (i < n && dist[i] == d)
				continue;
			if (n == max)
				return -1;
			for (j = n; j > i; j--)
				dist[j] = dist[j - 1];
			dist[i] = d;
			n++;
		}
	return n;
}

#define MAX_CANDIDATES (IR_TM__COUNT + 2 + 16)

struct cand {
	enum ir_level_kind kind;
	ir_cpumask_word *span;
};

/* The topology levels of one CPU, smallest first, before degenerate removal. */
static int candidates(const struct ir_topology *t, int cpu, struct cand *cd, ir_cpumask_word *store,
		      const int *dist, int nr_dist)
{
	static const struct { enum ir_topo_mask m; enum ir_level_kind k; } order[] = {
		{ IR_TM_CORE, IR_LVL_SMT }, { IR_TM_CLUSTER, IR_LVL_CLS },
		{ IR_TM_LLC, IR_LVL_MC }, { IR_TM_PACKAGE, IR_LVL_PKG },
	};
	const struct ir_topo_cpu *tc = &t->cpu[cpu];
	int n = 0;

	if (t->nr_explicit) {
		for (int l = 0; l < t->nr_explicit; l++) {
			cd[n].kind = t->explicit_lvl[l].kind;
			cd[n].span = store + (size_t)n * t->nwords;
			memcpy(cd[n].span, t->explicit_lvl[l].span + (size_t)cpu * t->nwords,
			       t->nwords * sizeof(*store));
			n++;
		}
		return n;
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const ir_cpumask_word *m = tc->mask[order[i].m];

		/* DIE: package_cpus, else die_cpus */
		if (!m && order[i].m == IR_TM_PACKAGE)
			m = tc->mask[IR_TM_DIE];
		if (!m)
			continue;
		cd[n].kind = order[i].k;
		cd[n].span = store + (size_t)n * t->nwords;
		memcpy(cd[n].span, m, t->nwords * sizeof(*store));
		n++;
	}
	if (tc->node >= 0 && tc->node < t->nr_nodes && t->node[tc->node].distance) {
		const struct ir_topo_node *me = &t->node[tc->node];

		for (int d = 0; d < nr_dist && n < MAX_CANDIDATES; d++) {
			cd[n].kind = d == 0 ? IR_LVL_NODE : IR_LVL_NUMA;
			cd[n].span = store + (size_t)n * t->nwords;
			memset(cd[n].span, 0, t->nwords * sizeof(*store));
			/* sched_domains_numa_masks: nodes within this distance */
			for (int o = 0; o < t->nr_nodes && o < me->nr_distance; o++)
				if (me->distance[o] <= dist[d] && t->node[o].cpus)
					for (size_t w = 0; w < t->nwords; w++)
						cd[n].span[w] |= t->node[o].cpus[w];
			n++;
		}
	}
	return n;
}

struct ir_domains *ir_domains_build(const struct ir_topology *t, char *err, size_t errlen)
{
	struct ir_domains *d;
	int dist[16], nr_dist;
	ir_cpumask_word *store = NULL;
	struct cand cd[MAX_CANDIDATES];

	if (!t) {
		seterr(err, errlen, "no topology", -1);
		return NULL;
	}
	nr_dist = numa_distances(t, dist, 16);
	if (nr_dist < 0) {
		seterr(err, errlen, "more than 16 distinct node distances", -1);
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		seterr(err, errlen, "out of memory", -1);
		return NULL;
	}
	d->nr_cpus = t->nr_cpus;
	d->nwords = t->nwords;
	d->nr_levels = calloc((size_t)t->nr_cpus, 1);
	d->sd = calloc((size_t)t->nr_cpus * IR_MAX_LEVELS, sizeof(*d->sd));
	d->spans = calloc((size_t)t->nr_cpus * IR_MAX_LEVELS * t->nwords, sizeof(*d->spans));
	d->ring = malloc((size_t)t->nr_cpus * (size_t)t->nr_cpus);
	store = calloc(MAX_CANDIDATES * t->nwords, sizeof(*store));
	if (!d->nr_levels || !d->sd || !d->spans || !d->ring || !store) {
		seterr(err, errlen, "out of memory", -1);
		goto fail;
	}
	memset(d->ring, IR_NO_LEVEL, (size_t)t->nr_cpus * (size_t)t->nr_cpus);
	for (int c = 0; c < t->nr_cpus; c++) {
		const ir_cpumask_word *prev = NULL;
		int n, kept = 0;
		unsigned cflags[MAX_CANDIDATES], cweight[MAX_CANDIDATES], cimb[MAX_CANDIDATES];
		int ckept[MAX_CANDIDATES];

		if (!ir_cpumask_test(t->online, c))
			continue;
		n = candidates(t, c, cd, store, dist, nr_dist);
		for (int i = 0; i < n; i++) {
			ir_cpumask_word *span = cd[i].span;
			unsigned weight;

			for (size_t w = 0; w < t->nwords; w++) {
				span[w] &= t->online[w];
				/* build_sched_domain(): a level that does not
				 * contain its child is widened to it */
				if (prev)
					span[w] |= prev[w];
			}
			ir_cpumask_set(span, c);
			weight = (unsigned)ir_cpumask_weight(span, t->nwords);
			/* build_sched_domain() builds every level; the chain
			 * imb_numa_nr is computed over (before degeneration) */
			cflags[i] = kind_flags(cd[i].kind);
			cweight[i] = weight;
			ckept[i] = -1;
			/* CLS only where it differs from both SMT and MC */
			if (cd[i].kind == IR_LVL_CLS && i + 1 < n && cd[i + 1].kind == IR_LVL_MC) {
				bool same_mc = true;

				for (size_t w = 0; w < t->nwords; w++)
					same_mc &= (span[w] | (cd[i + 1].span[w] & t->online[w])) == span[w];
				if (same_mc)
					continue;
			}
			/* sd_degenerate(): one CPU; sd_parent_degenerate(): same span as child */
			if (weight < 2 || (prev && ir_cpumask_equal(prev, span, t->nwords)))
				continue;
			if (kept == IR_MAX_LEVELS) {
				seterr(err, errlen, "more than IR_MAX_LEVELS sched domain levels", c);
				goto fail;
			}
			struct ir_sched_domain *sd = &d->sd[c * IR_MAX_LEVELS + kept];
			ir_cpumask_word *dst = d->spans + ((size_t)c * IR_MAX_LEVELS + kept) * t->nwords;

			memcpy(dst, span, t->nwords * sizeof(*span));
			sd_init(sd, cd[i].kind, weight);
			sd->span = dst;
			prev = dst;
			ckept[i] = kept;
			kept++;
		}
		imb_numa_nrs(n, cflags, cweight, cimb);
		for (int i = 0; i < n; i++)
			if (ckept[i] >= 0)
				d->sd[c * IR_MAX_LEVELS + ckept[i]].imb_numa_nr = cimb[i];
		d->nr_levels[c] = (uint8_t)kept;
		for (int l = kept - 1; l >= 0; l--)
			for (int o = 0; o < t->nr_cpus; o++)
				if (o != c && ir_cpumask_test(d->sd[c * IR_MAX_LEVELS + l].span, o))
					d->ring[(size_t)c * t->nr_cpus + o] = (uint8_t)l;
	}
	free(store);
	return d;
fail:
	free(store);
	ir_domains_free(d);
	return NULL;
}

int ir_domains_nr_cpus(const struct ir_domains *d)
{
	return d->nr_cpus;
}

int ir_domains_nr_levels(const struct ir_domains *d, int cpu)
{
	if (!d || cpu < 0 || cpu >= d->nr_cpus)
		return 0;
	return d->nr_levels[cpu];
}

const struct ir_sched_domain *ir_domains_level(const struct ir_domains *d, int cpu, int level)
{
	if (level < 0 || level >= ir_domains_nr_levels(d, cpu))
		return NULL;
	return &d->sd[cpu * IR_MAX_LEVELS + level];
}

struct ir_rings ir_domains_rings(const struct ir_domains *d)
{
	struct ir_rings r = { .nr_cpus = d->nr_cpus, .ring = d->ring, .nr_levels = d->nr_levels };

	return r;
}

static void print_flags(unsigned flags, FILE *out)
{
	static const struct { unsigned f; const char *name; } names[] = {
		{ SD_BALANCE_NEWIDLE, "SD_BALANCE_NEWIDLE" },
		{ SD_SHARE_CPUCAPACITY, "SD_SHARE_CPUCAPACITY" },
		{ SD_SHARE_PKG_RESOURCES, "SD_SHARE_PKG_RESOURCES" },
		{ SD_NUMA, "SD_NUMA" },
	};
	bool first = true;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & names[i].f) {
			fprintf(out, "%s%s", first ? "" : "|", names[i].name);
			first = false;
		}
}

int ir_domains_print(const struct ir_domains *d, FILE *out)
{
	size_t len = (size_t)d->nr_cpus * 8 + 16;
	char *buf = malloc(len);

	if (!buf)
		return -1;
	for (int c = 0; c < d->nr_cpus; c++) {
		if (!d->nr_levels[c])
			continue;
		fprintf(out, "cpu%d:", c);
		for (int l = 0; l < d->nr_levels[c]; l++) {
			const struct ir_sched_domain *sd = &d->sd[c * IR_MAX_LEVELS + l];

			ir_cpulist_format(sd->span, d->nr_cpus, buf, len);
			fprintf(out, " %s{%s}", sd->name, buf);
		}
		fputc('\n', out);
		for (int l = 0; l < d->nr_levels[c]; l++) {
			const struct ir_sched_domain *sd = &d->sd[c * IR_MAX_LEVELS + l];

			fprintf(out, "  domain%d %s weight=%u imbalance_pct=%u cache_nice_tries=%u "
				"balance_interval=%u flags=", l, sd->name, sd->span_weight,
				sd->imbalance_pct, sd->cache_nice_tries, sd->balance_interval);
			print_flags(sd->flags, out);
			fputc('\n', out);
		}
	}
	free(buf);
	return ferror(out) ? -1 : 0;
}

void ir_domains_free(struct ir_domains *d)
{
	if (!d)
		return;
	free(d->nr_levels);
	free(d->sd);
	free(d->spans);
	free(d->ring);
	free(d);
}

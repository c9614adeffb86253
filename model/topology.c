/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Topology text format, cpulists and SPEC strings.  Mirrors what the kernel
 * exports in sysfs (drivers/base/topology.c, drivers/base/cacheinfo.c,
 * drivers/base/node.c) and cpulist_parse()/bitmap_parselist() (lib/bitmap.c)
 * for the list syntax.  See model.h for the format.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/cpumask.h"

const char *const ir_level_name[IR_LVL__COUNT] = { "SMT", "CLS", "MC", "PKG", "NODE", "NUMA" };

int ir_cpumask_weight(const ir_cpumask_word *m, size_t nwords)
{
	int w = 0;

	for (size_t i = 0; i < nwords; i++)
		w += __builtin_popcountll(m[i]);
	return w;
}

bool ir_cpumask_equal(const ir_cpumask_word *a, const ir_cpumask_word *b, size_t nwords)
{
	return !memcmp(a, b, nwords * sizeof(*a));
}

/* Parse a non-negative decimal of at most 9 digits at *s; advances *s. */
static int parse_num(const char **s, const char *end, long *v)
{
	const char *p = *s;
	long n = 0;

	if (p >= end || !isdigit((unsigned char)*p))
		return -1;
	for (; p < end && isdigit((unsigned char)*p); p++) {
		n = n * 10 + (*p - '0');
		if (n > IR_TOPO_CPU_LIMIT)
			return -1;
	}
	*s = p;
	*v = n;
	return 0;
}

int ir_cpulist_parse(const char *s, size_t len, ir_cpumask_word *mask, int nr_cpus)
{
	const char *p = s, *end = s + len;

	if (mask)
		memset(mask, 0, ir_cpumask_words(nr_cpus) * sizeof(*mask));
	while (p < end && isspace((unsigned char)end[-1]))
		end--;
	if (p == end)
		return 0;	/* sysfs prints an empty line for an empty set */
	for (;;) {
		long a, b;

		if (parse_num(&p, end, &a))
			return -1;
		b = a;
		if (p < end && *p == '-') {
			p++;
			if (parse_num(&p, end, &b) || b < a)
				return -1;
		}
		for (long c = a; c <= b && c < nr_cpus; c++)
			if (mask)
				ir_cpumask_set(mask, (int)c);
		if (p == end)
			return 0;
		if (*p++ != ',')
			return -1;
	}
}

int ir_cpulist_format(const ir_cpumask_word *mask, int nr_cpus, char *buf, size_t len)
{
	size_t n = 0;
	int c = 0;

	if (len)
		buf[0] = '\0';
	while (c < nr_cpus) {
		int a, b;

		if (!ir_cpumask_test(mask, c)) {
			c++;
			continue;
		}
		a = b = c;
		while (b + 1 < nr_cpus && ir_cpumask_test(mask, b + 1))
			b++;
		int w = a == b ? snprintf(buf + n, len > n ? len - n : 0, "%s%d", n ? "," : "", a)
			       : snprintf(buf + n, len > n ? len - n : 0, "%s%d-%d", n ? "," : "", a, b);
		n += (size_t)w;
		c = b + 1;
	}
	return n < len ? 0 : -1;
}

struct ir_topology *ir_topology_alloc(int nr_cpus)
{
	struct ir_topology *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nr_cpus = nr_cpus;
	t->nwords = ir_cpumask_words(nr_cpus);
	t->online = calloc(t->nwords, sizeof(*t->online));
	t->cpu = calloc((size_t)nr_cpus, sizeof(*t->cpu));
	if (!t->online || !t->cpu) {
		ir_topology_free(t);
		return NULL;
	}
	for (int c = 0; c < nr_cpus; c++)
		t->cpu[c].node = -1;
	return t;
}

void ir_topology_free(struct ir_topology *t)
{
	if (!t)
		return;
	for (int c = 0; t->cpu && c < t->nr_cpus; c++)
		for (int m = 0; m < IR_TM__COUNT; m++)
			free(t->cpu[c].mask[m]);
	for (int n = 0; n < t->nr_nodes; n++) {
		free(t->node[n].cpus);
		free(t->node[n].distance);
	}
	for (int l = 0; l < t->nr_explicit; l++)
		free(t->explicit_lvl[l].span);
	free(t->node);
	free(t->cpu);
	free(t->online);
	free(t);
}

int ir_topology_nr_cpus(const struct ir_topology *t)
{
	return t ? t->nr_cpus : 0;
}

struct ir_topology *ir_topology_flat(int nr_cpus)
{
	struct ir_topology *t;

	if (nr_cpus <= 0 || nr_cpus > IR_TOPO_CPU_LIMIT)
		return NULL;
	t = ir_topology_alloc(nr_cpus);
	if (!t)
		return NULL;
	for (int c = 0; c < nr_cpus; c++)
		ir_cpumask_set(t->online, c);
	for (int c = 0; c < nr_cpus; c++) {
		t->cpu[c].mask[IR_TM_LLC] = malloc(t->nwords * sizeof(ir_cpumask_word));
		if (!t->cpu[c].mask[IR_TM_LLC]) {
			ir_topology_free(t);
			return NULL;
		}
		memcpy(t->cpu[c].mask[IR_TM_LLC], t->online, t->nwords * sizeof(ir_cpumask_word));
		t->cpu[c].llc_level = 3;
	}
	return t;
}

/* ------------------------------------------------------ text format */

struct parser {
	struct ir_topology *t;
	int line;
	char *err;
	size_t errlen;
};

/* Parse a cpulist value into a fresh mask stored at *dst. */
static int take_list(struct parser *ps, const char *v, size_t len, ir_cpumask_word **dst)
{
	ir_cpumask_word *m = calloc(ps->t->nwords, sizeof(*m));

	if (!m) {
		ir_seterr(ps->err, ps->errlen, "topology: out of memory");
		return -1;
	}
	if (ir_cpulist_parse(v, len, m, ps->t->nr_cpus)) {
		ir_seterr(ps->err, ps->errlen, "topology: line %d: bad cpulist '%.*s'", ps->line, (int)len, v);
		free(m);
		return -1;
	}
	free(*dst);
	*dst = m;
	return 0;
}

static int bad_value(struct parser *ps, const char *what, const char *v)
{
	ir_seterr(ps->err, ps->errlen, "topology: line %d: bad %s '%s'", ps->line, what, v);
	return -1;
}

/* "L1d:0,L1i:0,L2:0-1,L3:0-3": cpulists contain commas too, but an item
 * always starts with 'L', which a cpulist never contains. */
static int parse_caches(struct parser *ps, struct ir_topo_cpu *cpu, const char *v)
{
	const char *p = v;

	while (*p) {
		const char *colon, *next;
		long level;
		char type = 'u';

		if (*p != 'L')
			return bad_value(ps, "cache", v);
		p++;
		if (parse_num(&p, p + strlen(p), &level) || level < 1 || level > 9)
			return bad_value(ps, "cache", v);
		if (*p == 'd' || *p == 'i' || *p == 'u')
			type = *p++;
		if (*p != ':')
			return bad_value(ps, "cache", v);
		colon = p++;
		next = strstr(p, ",L");
		if (!next)
			next = p + strlen(p);
		if (type == 'u' && level >= cpu->llc_level) {
			if (take_list(ps, p, (size_t)(next - p), &cpu->mask[IR_TM_LLC]))
				return -1;
			cpu->llc_level = (int)level;
		} else if (ir_cpulist_parse(p, (size_t)(next - p), NULL, 0)) {
			ir_seterr(ps->err, ps->errlen, "topology: line %d: bad cpulist '%.*s'", ps->line,
			       (int)(next - p), p);
			return -1;
		}
		(void)colon;
		p = *next ? next + 1 : next;
	}
	return 0;
}

static int parse_index(struct parser *ps, const char *tok, long limit, long *v)
{
	const char *p = tok;

	if (parse_num(&p, tok + strlen(tok), v) || *p || *v >= limit)
		return bad_value(ps, "number", tok);
	return 0;
}

static int parse_cpu_line(struct parser *ps, char **tok, int ntok)
{
	static const char *const keys[IR_TM__COUNT] = {
		[IR_TM_CORE] = "core_cpus", [IR_TM_CLUSTER] = "cluster_cpus",
		[IR_TM_PACKAGE] = "package_cpus", [IR_TM_DIE] = "die_cpus",
	};
	struct ir_topo_cpu *cpu;
	long n;

	if (ntok < 2)
		return bad_value(ps, "cpu line", tok[0]);
	if (parse_index(ps, tok[1], IR_TOPO_CPU_LIMIT, &n))
		return -1;
	if (n >= ps->t->nr_cpus)
		return 0;	/* offline beyond the online range: ignore */
	cpu = &ps->t->cpu[n];
	for (int i = 2; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');

		if (!eq)
			return bad_value(ps, "key=value", tok[i]);
		*eq++ = '\0';
		if (!strcmp(tok[i], "node")) {
			long node;

			if (parse_index(ps, eq, 1 << 16, &node))
				return -1;
			cpu->node = (int)node;
		} else if (!strcmp(tok[i], "cache")) {
			if (parse_caches(ps, cpu, eq))
				return -1;
		} else {
			for (int m = 0; m < IR_TM__COUNT; m++)
				if (keys[m] && !strcmp(tok[i], keys[m]) &&
				    take_list(ps, eq, strlen(eq), &cpu->mask[m]))
					return -1;
		}
	}
	return 0;
}

static int parse_node_line(struct parser *ps, char **tok, int ntok)
{
	struct ir_topology *t = ps->t;
	struct ir_topo_node *node;
	long n;

	if (ntok < 2)
		return bad_value(ps, "node line", tok[0]);
	if (parse_index(ps, tok[1], 1 << 16, &n))
		return -1;
	if (n >= t->nr_nodes) {
		struct ir_topo_node *nn = realloc(t->node, (size_t)(n + 1) * sizeof(*nn));

		if (!nn) {
			ir_seterr(ps->err, ps->errlen, "topology: out of memory");
			return -1;
		}
		memset(nn + t->nr_nodes, 0, (size_t)(n + 1 - t->nr_nodes) * sizeof(*nn));
		t->node = nn;
		t->nr_nodes = (int)n + 1;
	}
	node = &t->node[n];
	for (int i = 2; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');

		if (!eq)
			return bad_value(ps, "key=value", tok[i]);
		*eq++ = '\0';
		if (!strcmp(tok[i], "cpus")) {
			if (take_list(ps, eq, strlen(eq), &node->cpus))
				return -1;
		} else if (!strcmp(tok[i], "distance")) {
			int cnt = 1;
			const char *p = eq, *end = eq + strlen(eq);

			for (const char *q = eq; *q; q++)
				cnt += *q == ',';
			free(node->distance);
			node->distance = calloc((size_t)cnt, sizeof(int));
			node->nr_distance = 0;
			if (!node->distance) {
				ir_seterr(ps->err, ps->errlen, "topology: out of memory");
				return -1;
			}
			for (;;) {
				long d;

				if (parse_num(&p, end, &d))
					return bad_value(ps, "distance", eq);
				node->distance[node->nr_distance++] = (int)d;
				if (p == end)
					break;
				if (*p++ != ',')
					return bad_value(ps, "distance", eq);
			}
		}
	}
	return 0;
}

#define MAX_TOKENS 64

int ir_topology_parse(const char *text, struct ir_topology **out, char *err, size_t errlen)
{
	struct parser ps = { .err = err, .errlen = errlen };
	char *buf = strdup(text ? text : ""), *line, *next;
	bool header = false;
	int rc = IR_ERR_INPUT;

	*out = NULL;
	if (!buf) {
		ir_seterr(err, errlen, "topology: out of memory");
		return IR_ERR_INPUT;
	}
	for (line = buf; line; line = next) {
		char *tok[MAX_TOKENS], *save = NULL, *hash;
		int ntok = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ps.line++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (char *w = strtok_r(line, " \t\r", &save); w && ntok < MAX_TOKENS;
		     w = strtok_r(NULL, " \t\r", &save))
			tok[ntok++] = w;
		if (!ntok)
			continue;
		if (!header) {
			if (strcmp(tok[0], "idlereplay-topology") || ntok != 2 || strcmp(tok[1], "1")) {
				ir_seterr(err, errlen, "topology: line %d: expected 'idlereplay-topology 1'", ps.line);
				goto out;
			}
			header = true;
		} else if (!strcmp(tok[0], "online")) {
			/* exactly the words the parser fills: no spare word to
			 * read uninitialised */
			ir_cpumask_word probe[(IR_TOPO_CPU_LIMIT + IR_CPUMASK_BITS - 1) / IR_CPUMASK_BITS];
			int max = -1;

			if (ps.t) {
				ir_seterr(err, errlen, "topology: line %d: second 'online' line", ps.line);
				goto out;
			}
			if (ntok != 2 || ir_cpulist_parse(tok[1], strlen(tok[1]), probe, IR_TOPO_CPU_LIMIT)) {
				ir_seterr(err, errlen, "topology: line %d: bad cpulist '%s'", ps.line,
				       ntok > 1 ? tok[1] : "");
				goto out;
			}
			for (int c = 0; c < IR_TOPO_CPU_LIMIT; c++)
				if (ir_cpumask_test(probe, c))
					max = c;
			if (max < 0) {
				ir_seterr(err, errlen, "topology: line %d: no online CPUs", ps.line);
				goto out;
			}
			ps.t = ir_topology_alloc(max + 1);
			if (!ps.t) {
				ir_seterr(err, errlen, "topology: out of memory");
				goto out;
			}
			memcpy(ps.t->online, probe, ps.t->nwords * sizeof(*probe));
		} else if (!strcmp(tok[0], "cpu") || !strcmp(tok[0], "node")) {
			if (!ps.t) {
				ir_seterr(err, errlen, "topology: line %d: '%s' before 'online'", ps.line, tok[0]);
				goto out;
			}
			if (tok[0][0] == 'c' ? parse_cpu_line(&ps, tok, ntok) : parse_node_line(&ps, tok, ntok))
				goto out;
		}
		/* other keys: ignored, so the format can grow */
	}
	if (!ps.t) {
		ir_seterr(err, errlen, header ? "topology: no 'online' line" : "topology: empty");
		goto out;
	}
	*out = ps.t;
	ps.t = NULL;
	rc = IR_OK;
out:
	ir_topology_free(ps.t);
	free(buf);
	return rc;
}

/* ------------------------------------------------------ SPEC strings */

/* "sockets=2,cores=2,threads=2,nodes=2[,clusters=N][,llc=core|socket]":
 * written as topology text (CPU numbers: socket, core, thread, threads
 * adjacent as on the vm-numa guest) and parsed like a captured machine. */
static int spec_shape(const char *arg, struct ir_topology **out, char *err, size_t errlen)
{
	long sockets = 1, cores = 1, threads = 1, nodes = 1, clusters = 0;
	bool llc_core = false;
	char *s = strdup(arg), *save = NULL, *text = NULL;
	size_t tlen = 0;
	FILE *f;
	int rc = IR_ERR_INPUT;

	if (!s) {
		ir_seterr(err, errlen, "topology: out of memory");
		return IR_ERR_INPUT;
	}
	for (char *kv = strtok_r(s, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '='), *end;
		long *dst = NULL, v;

		if (!eq) {
			ir_seterr(err, errlen, "topology: bad spec item '%s'", kv);
			goto out;
		}
		*eq++ = '\0';
		if (!strcmp(kv, "llc")) {
			if (!strcmp(eq, "core") || !strcmp(eq, "cores"))
				llc_core = true;
			else if (strcmp(eq, "socket")) {
				ir_seterr(err, errlen, "topology: llc must be core or socket, not '%s'", eq);
				goto out;
			}
			continue;
		}
		dst = !strcmp(kv, "sockets") ? &sockets : !strcmp(kv, "cores") ? &cores :
		      !strcmp(kv, "threads") ? &threads : !strcmp(kv, "nodes") ? &nodes :
		      !strcmp(kv, "clusters") ? &clusters : NULL;
		if (!dst) {
			ir_seterr(err, errlen, "topology: unknown spec key '%s'", kv);
			goto out;
		}
		errno = 0;
		v = strtol(eq, &end, 10);
		if (errno || end == eq || *end || v < 1 || v > 4096) {
			ir_seterr(err, errlen, "topology: bad value '%s' for %s", eq, kv);
			goto out;
		}
		*dst = v;
	}
	long total = sockets * cores * threads;
	if (total > IR_TOPO_CPU_LIMIT) {
		ir_seterr(err, errlen, "topology: spec gives too many CPUs (%ld)", total);
		goto out;
	}
	if (total % nodes || (nodes % sockets && sockets % nodes)) {
		ir_seterr(err, errlen, "topology: %ld nodes do not divide %ld sockets of %ld CPUs",
		       nodes, sockets, total / sockets);
		goto out;
	}
	if (clusters && cores % clusters) {
		ir_seterr(err, errlen, "topology: %ld clusters do not divide %ld cores", clusters, cores);
		goto out;
	}
	f = open_memstream(&text, &tlen);
	if (!f) {
		ir_seterr(err, errlen, "topology: out of memory");
		goto out;
	}
	long per_sock = cores * threads, per_node = total / nodes;
	long per_cls = clusters ? cores / clusters * threads : threads;
	fprintf(f, "idlereplay-topology 1\nonline 0-%ld\n", total - 1);
	for (long c = 0; c < total; c++) {
		long core0 = c / threads * threads, cls0 = c / per_cls * per_cls;
		long pkg0 = c / per_sock * per_sock, llc0 = llc_core ? core0 : pkg0;
		long llc1 = llc_core ? core0 + threads - 1 : pkg0 + per_sock - 1;

		fprintf(f, "cpu %ld core_cpus=%ld-%ld cluster_cpus=%ld-%ld package_cpus=%ld-%ld "
			"die_cpus=%ld-%ld node=%ld cache=L2:%ld-%ld,L3:%ld-%ld\n",
			c, core0, core0 + threads - 1, cls0, cls0 + per_cls - 1,
			pkg0, pkg0 + per_sock - 1, pkg0, pkg0 + per_sock - 1, c / per_node,
			cls0, cls0 + per_cls - 1, llc0, llc1);
	}
	for (long n = 0; n < nodes; n++) {
		fprintf(f, "node %ld cpus=%ld-%ld distance=", n, n * per_node, (n + 1) * per_node - 1);
		for (long m = 0; m < nodes; m++) {
			/* local 10; another node of the same socket 12; remote 20 */
			bool same_sock = n * per_node / per_sock == m * per_node / per_sock;
			fprintf(f, "%s%d", m ? "," : "", m == n ? 10 : same_sock ? 12 : 20);
		}
		fputc('\n', f);
	}
	if (fclose(f)) {
		ir_seterr(err, errlen, "topology: out of memory");
		goto out;
	}
	rc = ir_topology_parse(text, out, err, errlen);
out:
	free(text);
	free(s);
	return rc;
}

static int level_kind_of(const char *name, enum ir_level_kind *kind)
{
	for (int k = 0; k < IR_LVL__COUNT; k++)
		if (!strcasecmp(name, ir_level_name[k]) || (k == IR_LVL_PKG && !strcasecmp(name, "die"))) {
			*kind = (enum ir_level_kind)k;
			return 0;
		}
	return -1;
}

/* "smt=0-1,2-3;mc=0-3,4-7;numa=0-7": one level per ';' item, groups
 * separated by ',' and a group's ranges joined by '+' ("mc=0-1+4-5,2-3+6-7"). */
static int spec_levels(const char *arg, struct ir_topology **out, char *err, size_t errlen)
{
	char *s = strdup(arg), *save = NULL;
	struct ir_topology *t = NULL;
	int max = -1, rc = IR_ERR_INPUT;

	if (!s) {
		ir_seterr(err, errlen, "topology: out of memory");
		return IR_ERR_INPUT;
	}
	/* first pass: the highest CPU named anywhere sizes the masks */
	for (const char *p = arg; *p; ) {
		if (isdigit((unsigned char)*p)) {
			long v;

			if (parse_num(&p, p + strlen(p), &v)) {
				ir_seterr(err, errlen, "topology: CPU number too large in '%s'", arg);
				goto out;
			}
			if (v > max)
				max = (int)v;
		} else {
			p++;
		}
	}
	if (max < 0) {
		ir_seterr(err, errlen, "topology: no CPUs in '%s'", arg);
		goto out;
	}
	t = ir_topology_alloc(max + 1);
	if (!t) {
		ir_seterr(err, errlen, "topology: out of memory");
		goto out;
	}
	for (char *lv = strtok_r(s, ";", &save); lv; lv = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(lv, '='), *gsave = NULL;
		struct ir_topo_level *L;

		if (!eq) {
			ir_seterr(err, errlen, "topology: bad level '%s' (want NAME=CPUS,CPUS)", lv);
			goto out;
		}
		*eq++ = '\0';
		if (t->nr_explicit == IR_MAX_LEVELS) {
			ir_seterr(err, errlen, "topology: more than %d levels", IR_MAX_LEVELS);
			goto out;
		}
		L = &t->explicit_lvl[t->nr_explicit];
		if (level_kind_of(lv, &L->kind)) {
			ir_seterr(err, errlen, "topology: unknown level '%s'", lv);
			goto out;
		}
		L->span = calloc((size_t)t->nr_cpus * t->nwords, sizeof(ir_cpumask_word));
		if (!L->span) {
			ir_seterr(err, errlen, "topology: out of memory");
			goto out;
		}
		t->nr_explicit++;
		for (char *g = strtok_r(eq, ",", &gsave); g; g = strtok_r(NULL, ",", &gsave)) {
			ir_cpumask_word *grp = calloc(t->nwords, sizeof(*grp));
			int bad = !grp;

			if (bad)
				ir_seterr(err, errlen, "topology: out of memory");

			for (char *q = g; *q; q++)
				if (*q == '+')
					*q = ',';
			if (!bad && ir_cpulist_parse(g, strlen(g), grp, t->nr_cpus)) {
				ir_seterr(err, errlen, "topology: bad cpulist '%s' in level %s", g, lv);
				bad = 1;
			}
			for (int c = 0; !bad && c < t->nr_cpus; c++) {
				if (!ir_cpumask_test(grp, c))
					continue;
				ir_cpumask_word *span = L->span + (size_t)c * t->nwords;
				if (ir_cpumask_weight(span, t->nwords)) {
					ir_seterr(err, errlen, "topology: cpu %d in two groups of level %s", c, lv);
					bad = 1;
					break;
				}
				memcpy(span, grp, t->nwords * sizeof(*grp));
				ir_cpumask_set(t->online, c);
			}
			free(grp);
			if (bad)
				goto out;
		}
	}
	*out = t;
	t = NULL;
	rc = IR_OK;
out:
	ir_topology_free(t);
	free(s);
	return rc;
}

static char *slurp(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		ir_seterr(err, errlen, "topology: %s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap ? cap * 2 : 8192);

			if (!nb) {
				free(buf);
				fclose(f);
				ir_seterr(err, errlen, "topology: %s: out of memory", path);
				return NULL;
			}
			buf = nb;
			cap = cap ? cap * 2 : 8192;
		}
		size_t n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (!n)
			break;
	}
	buf[len] = '\0';
	if (ferror(f)) {
		ir_seterr(err, errlen, "topology: %s: read error", path);
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

int ir_topology_from_arg(const char *arg, struct ir_topology **out, char *err, size_t errlen)
{
	struct stat st;

	*out = NULL;
	if (!arg || !*arg) {
		ir_seterr(err, errlen, "topology: empty argument");
		return IR_ERR_USAGE;
	}
	if (!stat(arg, &st)) {
		char *text = slurp(arg, err, errlen);
		int rc;

		if (!text)
			return IR_ERR_INPUT;
		rc = ir_topology_parse(text, out, err, errlen);
		free(text);
		if (rc && err && errlen) {
			/* name the file: "topology: FILE: line 4: ..." */
			char tmp[512];

			snprintf(tmp, sizeof(tmp), "%s", err + (strncmp(err, "topology: ", 10) ? 0 : 10));
			ir_seterr(err, errlen, "topology: %s: %s", arg, tmp);
		}
		return rc;
	}
	if (strstr(arg, "sockets=") || strstr(arg, "cores=") || strstr(arg, "threads=") ||
	    strstr(arg, "nodes="))
		return spec_shape(arg, out, err, errlen);
	if (strchr(arg, '='))
		return spec_levels(arg, out, err, errlen);
	ir_seterr(err, errlen, "topology: '%s' is neither a file nor a spec", arg);
	return IR_ERR_INPUT;
}

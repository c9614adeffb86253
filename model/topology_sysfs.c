/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Capture a machine's topology from sysfs, as the kernel exports it
 * (drivers/base/topology.c: core_cpus_list / thread_siblings_list,
 * cluster_cpus_list, package_cpus_list / core_siblings_list,
 * die_cpus_list; drivers/base/cacheinfo.c: cache/indexN/{level,type,
 * shared_cpu_list}; drivers/base/node.c: nodeN/{cpulist,distance}), and
 * print it in the topology text format (model.h).  Missing files are
 * tolerated: older kernels lack core_cpus_list, cluster and die files.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cpumask.h"

/* Read a small sysfs file into buf, trailing whitespace stripped; -1 if absent. */
static int read_attr(const char *root, const char *path, char *buf, size_t len)
{
	char full[4096];
	FILE *f;
	size_t n;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

static bool valid_list(const char *s)
{
	return !ir_cpulist_parse(s, strlen(s), NULL, 0);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Node ids from the nodeN directories, sorted. */
static int list_nodes(const char *root, int **ids)
{
	char path[4096];
	DIR *dir;
	struct dirent *de;
	int n = 0, cap = 0;

	*ids = NULL;
	snprintf(path, sizeof(path), "%s/sys/devices/system/node", root);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		char *end;
		long id;

		if (strncmp(de->d_name, "node", 4) || !isdigit((unsigned char)de->d_name[4]))
			continue;
		id = strtol(de->d_name + 4, &end, 10);
		if (*end || id < 0 || id > 65535)
			continue;
		if (n == cap) {
			int *ni = realloc(*ids, (size_t)(cap = cap ? cap * 2 : 8) * sizeof(int));

			if (!ni)
				break;
			*ids = ni;
		}
		(*ids)[n++] = (int)id;
	}
	closedir(dir);
	qsort(*ids, (size_t)n, sizeof(int), cmp_int);
	return n;
}

static void print_caches(FILE *f, const char *root, int cpu)
{
	bool first = true;

	for (int i = 0; i < 32; i++) {
		char path[256], level[16], type[32], list[4096];

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, i);
		if (read_attr(root, path, level, sizeof(level)))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, i);
		if (read_attr(root, path, type, sizeof(type)))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, i);
		if (read_attr(root, path, list, sizeof(list)) || !valid_list(list) ||
		    strlen(level) != 1 || !isdigit((unsigned char)level[0]))
			continue;
		fprintf(f, "%sL%s%s:%s", first ? " cache=" : ",", level,
			!strcmp(type, "Data") ? "d" : !strcmp(type, "Instruction") ? "i" : "", list);
		first = false;
	}
}

int ir_topology_capture(const char *sysroot, char **text, char *err, size_t errlen)
{
	static const struct { const char *key; const char *file[2]; } keys[] = {
		{ "core_cpus", { "core_cpus_list", "thread_siblings_list" } },
		{ "cluster_cpus", { "cluster_cpus_list", NULL } },
		{ "package_cpus", { "package_cpus_list", "core_siblings_list" } },
		{ "die_cpus", { "die_cpus_list", NULL } },
	};
	char root[2048], online[8192];
	ir_cpumask_word *mask = NULL;
	int *nodes = NULL, nr_nodes, *cpu_node = NULL, nr_cpus, max = -1;
	size_t tlen = 0;
	FILE *f;

	*text = NULL;
	snprintf(root, sizeof(root), "%s", sysroot && strcmp(sysroot, "/") ? sysroot : "");
	if (strlen(root) && root[strlen(root) - 1] == '/')
		root[strlen(root) - 1] = '\0';
	if (read_attr(root, "/sys/devices/system/cpu/online", online, sizeof(online))) {
		snprintf(err, errlen, "topology: %s/sys/devices/system/cpu/online: %s", root, strerror(errno));
		return IR_ERR_INPUT;
	}
	/* size the mask from the highest CPU named */
	for (const char *p = online; *p; p++)
		if (isdigit((unsigned char)*p)) {
			long v = strtol(p, (char **)&p, 10);

			if (v > max && v < IR_TOPO_CPU_LIMIT)
				max = (int)v;
			p--;
		}
	nr_cpus = max + 1;
	mask = calloc(ir_cpumask_words(nr_cpus > 0 ? nr_cpus : 1), sizeof(*mask));
	cpu_node = malloc((size_t)(nr_cpus > 0 ? nr_cpus : 1) * sizeof(int));
	if (!mask || !cpu_node || max < 0 || ir_cpulist_parse(online, strlen(online), mask, nr_cpus)) {
		snprintf(err, errlen, "topology: %s/sys/devices/system/cpu/online: bad cpulist '%s'", root, online);
		free(mask);
		free(cpu_node);
		return IR_ERR_INPUT;
	}
	for (int c = 0; c < nr_cpus; c++)
		cpu_node[c] = -1;
	nr_nodes = list_nodes(root, &nodes);

	f = open_memstream(text, &tlen);
	if (!f) {
		snprintf(err, errlen, "topology: out of memory");
		free(mask);
		free(cpu_node);
		free(nodes);
		return IR_ERR_INPUT;
	}
	fprintf(f, "idlereplay-topology 1\nonline %s\n", online);
	/* node lines first in the data, printed last: learn each CPU's node */
	for (int i = 0; i < nr_nodes; i++) {
		char path[256], list[8192];
		ir_cpumask_word *nm;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", nodes[i]);
		if (read_attr(root, path, list, sizeof(list)) || !valid_list(list))
			continue;
		nm = calloc(ir_cpumask_words(nr_cpus), sizeof(*nm));
		if (!nm)
			continue;
		ir_cpulist_parse(list, strlen(list), nm, nr_cpus);
		for (int c = 0; c < nr_cpus; c++)
			if (ir_cpumask_test(nm, c))
				cpu_node[c] = nodes[i];
		free(nm);
	}
	for (int c = 0; c < nr_cpus; c++) {
		if (!ir_cpumask_test(mask, c))
			continue;
		fprintf(f, "cpu %d", c);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			for (int alt = 0; alt < 2 && keys[k].file[alt]; alt++) {
				char path[256], list[8192];

				snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", c,
					 keys[k].file[alt]);
				if (read_attr(root, path, list, sizeof(list)) || !valid_list(list) || !*list)
					continue;
				fprintf(f, " %s=%s", keys[k].key, list);
				break;
			}
		if (cpu_node[c] >= 0)
			fprintf(f, " node=%d", cpu_node[c]);
		print_caches(f, root, c);
		fputc('\n', f);
	}
	for (int i = 0; i < nr_nodes; i++) {
		char path[256], list[8192], dist[8192];

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", nodes[i]);
		if (read_attr(root, path, list, sizeof(list)) || !valid_list(list))
			continue;
		fprintf(f, "node %d cpus=%s", nodes[i], list);
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance", nodes[i]);
		if (!read_attr(root, path, dist, sizeof(dist)) && *dist) {
			/* "10 20" -> "10,20" */
			bool ok = true;

			for (char *p = dist; *p; p++)
				if (*p == ' ')
					*p = ',';
				else if (!isdigit((unsigned char)*p))
					ok = false;
			if (ok)
				fprintf(f, " distance=%s", dist);
		}
		fputc('\n', f);
	}
	free(mask);
	free(cpu_node);
	free(nodes);
	if (fclose(f)) {
		free(*text);
		*text = NULL;
		snprintf(err, errlen, "topology: out of memory");
		return IR_ERR_INPUT;
	}
	return IR_OK;
}

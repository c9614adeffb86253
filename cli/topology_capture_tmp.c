/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TEMPORARY: minimal ir_topology_capture() until model/ exports its own
 * (model/model.h, format owned by model/).  Delete this file and the
 * declaration in cmd_record.c when it is merged; a duplicate-symbol link
 * error says so if forgotten.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_line(const char *root, const char *fmt, int a, int b)
{
	char rel[256], path[512], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(rel, sizeof(rel), fmt, a, b);
	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (getline(&line, &cap, f) < 0) {
		free(line);
		line = NULL;
	} else {
		line[strcspn(line, "\n")] = '\0';
	}
	fclose(f);
	return line;
}

/* Print key=<file content> when the file exists. */
static void put(FILE *out, const char *key, char *val)
{
	if (val)
		fprintf(out, " %s=%s", key, val);
	free(val);
}

static int node_of(const char *root, int cpu)
{
	char path[512];
	struct dirent *de;
	DIR *d;
	int node = -1;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d", root, cpu);
	d = opendir(path);
	while (d && (de = readdir(d)))
		if (sscanf(de->d_name, "node%d", &node) == 1)
			break;
	if (d)
		closedir(d);
	return node;
}

int ir_topology_capture(const char *sysroot, char **text, char *err, size_t errlen)
{
	const char *root = sysroot ? sysroot : "";
	char *online = read_line(root, "/sys/devices/system/cpu/online", 0, 0);
	size_t size = 0;
	FILE *out;
	int last = -1;

	*text = NULL;
	if (!online) {
		snprintf(err, errlen, "cannot read %s/sys/devices/system/cpu/online", root);
		return -1;
	}
	out = open_memstream(text, &size);
	if (!out) {
		free(online);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fprintf(out, "idlereplay-topology 1\nonline %s\n", online);
	/* Highest CPU of "0-3,6-7": the last number. */
	for (char *p = online; *p; p++)
		if ((p == online || p[-1] == ',' || p[-1] == '-'))
			last = atoi(p);
	free(online);
	for (int cpu = 0; cpu <= last; cpu++) {
		char *core = read_line(root, "/sys/devices/system/cpu/cpu%d/topology/core_cpus_list", cpu, 0);

		if (!core)
			core = read_line(root, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu, 0);
		if (!core)
			continue;	/* offline */
		fprintf(out, "cpu %d", cpu);
		put(out, "core_cpus", core);
		put(out, "cluster_cpus", read_line(root, "/sys/devices/system/cpu/cpu%d/topology/cluster_cpus_list", cpu, 0));
		put(out, "package_cpus", read_line(root, "/sys/devices/system/cpu/cpu%d/topology/package_cpus_list", cpu, 0));
		put(out, "die_cpus", read_line(root, "/sys/devices/system/cpu/cpu%d/topology/die_cpus_list", cpu, 0));
		fprintf(out, " node=%d", node_of(root, cpu) < 0 ? 0 : node_of(root, cpu));
		for (int i = 0, n = 0;; i++) {
			char *level = read_line(root, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, i);
			char *type = read_line(root, "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, i);
			char *shared = read_line(root, "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, i);

			if (level && type && shared)
				fprintf(out, "%s%s%s%s:%s", n++ ? "," : " cache=", "L", level,
					!strcmp(type, "Data") ? "d" : !strcmp(type, "Instruction") ? "i" : "",
					shared);
			free(type);
			free(shared);
			if (!level)
				break;
			free(level);
		}
		fputc('\n', out);
	}
	for (int node = 0;; node++) {
		char *cpus = read_line(root, "/sys/devices/system/node/node%d/cpulist", node, 0);
		char *dist = read_line(root, "/sys/devices/system/node/node%d/distance", node, 0);

		if (!cpus) {
			free(dist);
			break;
		}
		for (char *p = dist; p && *p; p++)
			if (*p == ' ')
				*p = ',';
		fprintf(out, "node %d cpus=%s distance=%s\n", node, cpus, dist ? dist : "10");
		free(cpus);
		free(dist);
	}
	if (fclose(out)) {
		free(*text);
		*text = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

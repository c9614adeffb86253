/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The idlereplay meta option (IR_META_OPTION_ID): what replay needs about
 * the recording kernel that the events do not say.  Text, one key a line:
 *   idlereplay-meta 1
 *   kernel_release <uname -r>
 *   sched_migration_cost_ns <N|unknown>
 *   newidle_function <idle_balance|newidle_balance|sched_balance_newidle|unknown>
 *   trace_clock <clock>
 *   sched_features <features line|unknown>
 *   hz <N|unknown>
 *   [newidle_probe <function> this_rq=<register> sd_levels=<N>]   (--probe-newidle)
 *   [newidle_probe_fields <entry fields recorded>]
 *   [newidle_probe_missing <fields this kernel lacks|none>]
 *   refused_<key> <path: reason>   for each value above that is "unknown"
 *                                  because this host refused the read
 *   topology-begin
 *   <model/ topology text>
 *   topology-end
 * Values that cannot be read are "unknown", never guessed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <zlib.h>

#include "record/record_int.h"

#define DEBUGFS "/sys/kernel/debug"
#define DEBUGFS_MAGIC 0x64626720	/* include/uapi/linux/magic.h */

/* Why values could not be read: "path: reason; ..." per key, so the
 * metadata says the host refused rather than leaving a bare "unknown". */
struct refusals {
	char cost[512], hz[512], newidle[256];
};

static void refused(char *buf, size_t len, const char *path, int err)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s: %s", n ? "; " : "", path, strerror(err));
}

/* First line of a small file, without its newline; NULL (errno set) if unreadable. */
static char *read_line(const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "re");
	int err;

	if (!f)
		return NULL;
	if (getline(&line, &cap, f) < 0) {
		err = ferror(f) ? errno : ENODATA;
		free(line);
		line = NULL;
		errno = err;
	} else {
		line[strcspn(line, "\n")] = '\0';
	}
	fclose(f);
	return line;
}

static const char *newidle_function(struct refusals *why)
{
	/* Newest name first (SPEC section 6): 6.10+, 5.4-6.9, 4.15-5.3. */
	static const char *const names[] = {
		"sched_balance_newidle", "newidle_balance", "idle_balance",
	};
	const char *found = "unknown";
	int best = (int)(sizeof(names) / sizeof(names[0]));
	char line[512];
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f) {
		if (why)
			refused(why->newidle, sizeof(why->newidle), "/proc/kallsyms", errno);
		return found;
	}
	while (fgets(line, sizeof(line), f)) {
		char sym[256];

		/* "<addr> <type> <name>[\t[module]]": built-in text symbols only. */
		if (sscanf(line, "%*s %*1[tT] %255s", sym) != 1 || strchr(line, '['))
			continue;
		for (int i = 0; i < best; i++)
			if (!strcmp(sym, names[i])) {
				best = i;
				found = names[i];
			}
		if (best == 0)
			break;
	}
	fclose(f);
	return found;
}

const char *rec_newidle_function(void)
{
	return newidle_function(NULL);
}

/* CONFIG_HZ from the kernel's config: /boot/config-<release>, else
 * /proc/config.gz (CONFIG_IKCONFIG_PROC). */
static long config_hz(const char *release, struct refusals *why)
{
	char path[512], line[256];
	long hz = -1;
	gzFile gz;

	/* gzopen reads plain files too. */
	snprintf(path, sizeof(path), "/boot/config-%s", release);
	gz = gzopen(path, "rb");
	if (!gz) {
		refused(why->hz, sizeof(why->hz), path, errno);
		gz = gzopen("/proc/config.gz", "rb");
		if (!gz) {
			refused(why->hz, sizeof(why->hz), "/proc/config.gz", errno);
			return -1;
		}
		snprintf(path, sizeof(path), "/proc/config.gz");
	}
	while (gzgets(gz, line, sizeof(line)))
		if (sscanf(line, "CONFIG_HZ=%ld", &hz) == 1)
			break;
	gzclose(gz);
	if (hz <= 0)
		refused(why->hz, sizeof(why->hz), path, ENOENT);	/* no CONFIG_HZ line */
	return hz;
}

static bool is_debugfs(void)
{
	struct statfs sfs;

	return statfs(DEBUGFS, &sfs) == 0 && sfs.f_type == DEBUGFS_MAGIC;
}

/* sched_features and migration_cost_ns live in debugfs since 5.13. Mount
 * it only if needed, and unmount what we mounted. */
static void read_debugfs(char **features, char **migration_cost, struct refusals *why)
{
	bool mounted = false;

	if (!is_debugfs()) {
		if (mount("nodev", DEBUGFS, "debugfs", 0, NULL) < 0) {
			if (!*migration_cost)
				refused(why->cost, sizeof(why->cost), "mount debugfs " DEBUGFS, errno);
			return;
		}
		mounted = true;
	}
	*features = read_line(DEBUGFS "/sched/features");
	if (!*features)
		*features = read_line(DEBUGFS "/sched_features");	/* < 5.13 */
	if (!*migration_cost) {
		*migration_cost = read_line(DEBUGFS "/sched/migration_cost_ns");
		if (!*migration_cost)
			refused(why->cost, sizeof(why->cost), DEBUGFS "/sched/migration_cost_ns", errno);
	}
	if (mounted)
		umount(DEBUGFS);
}

#define OR_UNKNOWN(s) ((s) && *(s) ? (s) : "unknown")

char *rec_meta_build(const char *clock, ir_topology_capture_fn topo, const char *extra, FILE *log)
{
	struct utsname uts;
	char *features = NULL, *cost = NULL, *topology = NULL, *buf = NULL;
	char terr[256] = "", hz[32] = "unknown";
	struct refusals why = { "", "", "" };
	const char *newidle;
	size_t size = 0;
	FILE *out;
	long n;
	int ret = -1;

	if (uname(&uts) < 0)
		snprintf(uts.release, sizeof(uts.release), "unknown");
	/* sysctl kernel.sched_migration_cost_ns before 5.13, debugfs after. */
	cost = read_line("/proc/sys/kernel/sched_migration_cost_ns");
	if (!cost)
		refused(why.cost, sizeof(why.cost), "/proc/sys/kernel/sched_migration_cost_ns", errno);
	read_debugfs(&features, &cost, &why);
	n = config_hz(uts.release, &why);
	newidle = newidle_function(&why);
	if (n > 0)
		snprintf(hz, sizeof(hz), "%ld", n);
	if (topo && topo(NULL, &topology, terr, sizeof(terr)) < 0) {
		fprintf(log, "idlereplay: record: warning: topology not captured: %s\n", terr);
		free(topology);
		topology = NULL;
	}

	out = open_memstream(&buf, &size);
	if (out)
		ret = fprintf(out, IR_META_MAGIC "\n"
		     "kernel_release %s\n"
		     "sched_migration_cost_ns %s\n"
		     "newidle_function %s\n"
		     "trace_clock %s\n"
		     "sched_features %s\n"
		     "hz %s\n"
		     "%s%s%s%s%s%s%s%s%s%s"
		     "topology-begin\n%s%s"
		     "topology-end\n",
		     uts.release, OR_UNKNOWN(cost), newidle,
		     OR_UNKNOWN(clock), OR_UNKNOWN(features), hz,
		     cost && *cost ? "" : "refused_sched_migration_cost ",
		     cost && *cost ? "" : why.cost, cost && *cost ? "" : "\n",
		     n > 0 ? "" : "refused_hz ", n > 0 ? "" : why.hz, n > 0 ? "" : "\n",
		     why.newidle[0] ? "refused_newidle_function " : "", why.newidle,
		     why.newidle[0] ? "\n" : "", extra ? extra : "",
		     topology ? topology : "",
		     topology && *topology && topology[strlen(topology) - 1] != '\n' ? "\n" : "");
	if (out && fclose(out))
		ret = -1;
	free(features);
	free(cost);
	free(topology);
	if (ret < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

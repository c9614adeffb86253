/* SPDX-License-Identifier: GPL-2.0-only */
/* The sched domains a trace is replayed with (replay and calibrate). */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

/* The text between "topology-begin" and "topology-end" in our metadata. */
static char *meta_topology(const char *meta)
{
	const char *a = meta ? strstr(meta, "topology-begin\n") : NULL, *b;

	if (!a)
		return NULL;
	a += strlen("topology-begin\n");
	b = strstr(a, "topology-end");
	return b ? strndup(a, (size_t)(b - a)) : NULL;
}

int ir_engine_domains(struct idlereplay *ir, const char *arg, const struct ir_trace_info *ti,
		      struct ir_topology **topo, struct ir_domains **dom, const char **source)
{
	char err[1024];

	*topo = NULL;
	*dom = NULL;
	if (arg) {
		if (ir_topology_from_arg(arg, topo, err, sizeof(err)))
			return ir_engine_fail(ir, IR_ERR_USAGE, "--topology: %s", err);
		*source = "option";
	} else {
		char *text = meta_topology(ti->meta);
		int bad = text && ir_topology_parse(text, topo, err, sizeof(err));

		free(text);
		if (bad)
			return ir_engine_fail(ir, IR_ERR_INPUT, "%s: recorded topology: %s", ti->path, err);
		*source = *topo ? "trace" : "flat";
		if (!*topo)
			*topo = ir_topology_flat(ti->nr_cpus);
	}
	if (!*topo || !(*dom = ir_domains_build(*topo, err, sizeof(err))))
		return ir_engine_fail(ir, IR_ERR_INPUT, "%s: cannot build sched domains: %s", ti->path,
				      *topo ? err : "out of memory");
	/* Both ways: every CPU with data must be in the topology, and every CPU
	 * of the topology a CPU of the recording machine (the file's CPU count;
	 * CPUs without data were idle).  Replay state is sized by the topology. */
	int n = ir_domains_nr_cpus(*dom), most = ti->file_cpus > ti->nr_cpus ? ti->file_cpus : ti->nr_cpus;

	if (n < ti->nr_cpus || n > most) {
		int have = n < ti->nr_cpus ? ti->nr_cpus : most;

		if (arg)
			return ir_engine_fail(ir, IR_ERR_USAGE, "--topology %s describes %d CPUs (0-%d) but %s holds %d (0-%d): "
					      "give the topology of the machine that recorded it", arg, n, n - 1,
					      ti->path, have, have - 1);
		return ir_engine_fail(ir, IR_ERR_INPUT, "%s: the topology recorded in the trace describes %d CPUs (0-%d) but the trace holds %d (0-%d); "
				      "give the machine's with --topology", ti->path, n, n - 1, have, have - 1);
	}
	return IR_OK;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/* The sched domains a trace is replayed with (shared by replay and calibrate). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/model.h"
#include "replay/replay.h"

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

int cli_domains(const char *arg, const struct ir_trace_info *ti, struct ir_topology **topo,
		struct ir_domains **dom, const char **source)
{
	char err[1024];

	*topo = NULL;
	*dom = NULL;
	if (arg) {
		if (ir_topology_from_arg(arg, topo, err, sizeof(err)))
			return cli_fail(IR_ERR_USAGE, "--topology: %s", err);
		*source = "option";
	} else {
		char *text = meta_topology(ti->meta);
		int bad = text && ir_topology_parse(text, topo, err, sizeof(err));

		free(text);
		if (bad)
			return cli_fail(IR_ERR_INPUT, "%s: recorded topology: %s", ti->path, err);
		*source = *topo ? "trace" : "flat";
		if (!*topo)
			*topo = ir_topology_flat(ti->nr_cpus);
	}
	if (!*topo || !(*dom = ir_domains_build(*topo, err, sizeof(err))))
		return cli_fail(IR_ERR_INPUT, "%s: cannot build sched domains: %s", ti->path,
				*topo ? err : "out of memory");
	if (ir_domains_nr_cpus(*dom) < ti->nr_cpus)
		return cli_fail(IR_ERR_INPUT, "%s: the trace has %d CPUs but the topology only %d",
				ti->path, ti->nr_cpus, ir_domains_nr_cpus(*dom));
	return IR_OK;
}

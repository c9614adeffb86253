/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay export: a replay written for other tools (Perfetto), quietly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "replay/replay.h"

static const char usage[] =
	"usage: idlereplay export TRACE --perfetto OUT.json [--no-sim] [replay options]\n"
	"  --perfetto FILE|-   the replay as a Trace Event JSON trace that ui.perfetto.dev and\n"
	"                      chrome://tracing open: per CPU task and idle slices, newidle points\n"
	"                      with every policy's decision and outcome, observed pulls as flow\n"
	"                      arrows, anomalies the replay repaired or lost, nr_running/avg_idle\n"
	"                      counters, each policy's cumulative idle lost and where it would pull;\n"
	"                      then each policy's simulated schedule (closed loop, as `simulate`) as\n"
	"                      a process of its own: per CPU task, idle and newidle-balance slices,\n"
	"                      newidle calls, migrations as flow arrows by cause\n"
	"  --no-sim            leave the simulated schedules out (no closed loop: faster)\n"
	"  --perfetto-sim-max N  records (slices, newidle calls, migrations) per simulated schedule\n"
	"                      (default 100000); otherData.simulated counts those left out\n"
	"  --json FILE|-       also write the JSON report of the same replay\n"
	"  --policy NAME[:k=v,...]\n"
	"  --topology FILE|SPEC  and every other option of 'idlereplay replay' (see its --help)\n";

int cmd_export(int argc, char **argv)
{
	char **av;
	bool perfetto = false, sim = true, seeds = false;
	int ret, n = 0;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return IR_OK;
		}
		if (!strcmp(argv[i], "--perfetto") || !strncmp(argv[i], "--perfetto=", 11))
			perfetto = true;
		if (!strcmp(argv[i], "--no-sim"))
			sim = false;
		if (!strcmp(argv[i], "--sim-seeds") || !strncmp(argv[i], "--sim-seeds=", 12))
			seeds = true;
	}
	/* one line, as every usage error (never a usage dump) */
	if (!perfetto)
		return cli_fail(IR_ERR_USAGE, "export: --perfetto FILE is required (see 'idlereplay help export')");
	/* the same replay, without its text report; the closed loop unless --no-sim */
	av = calloc((size_t)argc + 5, sizeof(*av));
	if (!av)
		return cli_fail(IR_ERR_INPUT, "out of memory");
	av[n++] = "export";
	av[n++] = "--quiet";
	if (sim)
		av[n++] = "--closed-loop";
	/* the export shows one schedule per policy (its first seed's): one
	 * simulation each unless --sim-seeds asks for the spread too */
	if (sim && !seeds) {
		av[n++] = "--sim-seeds";
		av[n++] = "1";
	}
	for (int i = 1, opts = 1; i < argc; i++) {
		opts &= strcmp(argv[i], "--") != 0;
		if (!opts || strcmp(argv[i], "--no-sim"))
			av[n++] = argv[i];
	}
	/* errors name 'export' and point to its help, which lists the replay options */
	ret = cli_replay(n, av, "export", usage, false);
	free(av);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay export: a replay written for other tools (Perfetto), quietly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "replay/replay.h"

static const char usage[] =
	"usage: idlereplay export TRACE --perfetto OUT.json [replay options]\n"
	"  --perfetto FILE|-   the replay as a Trace Event JSON trace that ui.perfetto.dev and\n"
	"                      chrome://tracing open: per CPU task and idle slices, newidle points\n"
	"                      with every policy's decision and outcome, observed pulls as flow\n"
	"                      arrows, nr_running/avg_idle counters, each policy's cumulative idle lost\n"
	"  --json FILE|-       also write the JSON report of the same replay\n"
	"  --policy NAME[:k=v,...]\n"
	"  --topology FILE|SPEC  and every other option of 'idlereplay replay' (see its --help)\n";

int cmd_export(int argc, char **argv)
{
	char **av;
	bool perfetto = false;
	int ret;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return IR_OK;
		}
		if (!strcmp(argv[i], "--perfetto") || !strncmp(argv[i], "--perfetto=", 11))
			perfetto = true;
	}
	if (!perfetto) {
		fputs(usage, stderr);
		return cli_fail(IR_ERR_USAGE, "export: --perfetto FILE is required");
	}
	/* the same replay, without its text report */
	av = calloc((size_t)argc + 2, sizeof(*av));
	if (!av)
		return cli_fail(IR_ERR_INPUT, "out of memory");
	av[0] = "export";
	av[1] = "--quiet";
	memcpy(av + 2, argv + 1, (size_t)(argc - 1) * sizeof(*av));
	ret = cmd_replay(argc + 1, av);
	free(av);
	return ret;
}

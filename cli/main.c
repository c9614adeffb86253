/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay: dispatch to one subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "replay/replay.h"
#include "report/report.h"

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct subcommand subcommands[] = {
	{ "calibrate", cmd_calibrate, "measure replay parameters from a trace's newidle probes" },
	{ "export", cmd_export, "write a replay for Perfetto (Trace Event JSON)" },
	{ "fleet", cmd_fleet, "replay many traces, N at a time, and merge their reports" },
	{ "record", cmd_record, "record scheduler events into a trace.dat" },
	{ "report", cmd_report, "render, compare or merge saved JSON reports (text, HTML, CSV)" },
	{ "replay", cmd_replay, "replay a trace.dat through the newidle balance policies" },
	{ "simulate", cmd_simulate, "re-simulate a trace's workload under each policy (closed loop)" },
	{ "topology", cmd_topology, "print this machine's topology, or its sched domains" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: idlereplay COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-10s %s\n", subcommands[i].name, subcommands[i].help);
	fprintf(f, "\n'idlereplay help COMMAND' describes each command; 'idlereplay --version' prints the version.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return IR_ERR_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return IR_OK;
	}
	if (!strcmp(argv[1], "help")) {		/* help CMD: CMD --help */
		char help[] = "--help", *args[] = { argv[2], help, NULL };

		if (argc > 3)
			return cli_fail(IR_ERR_USAGE, "help: one COMMAND at a time, not '%s'", argv[3]);
		for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
			if (!strcmp(argv[2], subcommands[i].name))
				return subcommands[i].fn(2, args);
		return cli_fail(IR_ERR_USAGE, "help: unknown command '%s' (calibrate, export, fleet, record, report, replay, simulate, topology)",
				argv[2]);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("idlereplay %s\n", IDLEREPLAY_VERSION);
		return IR_OK;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].fn(argc - 1, argv + 1);
	return cli_fail(IR_ERR_USAGE, "unknown command '%s' (try 'idlereplay --help')", argv[1]);
}

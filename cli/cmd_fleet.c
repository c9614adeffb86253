/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay fleet: options -> fleet/ (replays, then the merge) -> a line per failure and a summary. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fleet/fleet.h"

static const char usage[] =
	"usage: idlereplay fleet -d DIR [--jobs N] [--html] TRACE... [-- REPLAY OPTIONS]\n"
	"Replays every TRACE (one 'idlereplay replay' each, N at a time), then merges the reports.\n"
	"  -d, --out-dir DIR   where everything goes (created): NAME.json per trace (NAME: the\n"
	"                      trace's file name without .dat, -2, -3... when names repeat),\n"
	"                      NAME.log (its warnings and errors), fleet.txt, fleet.csv, fleet.html\n"
	"  -j, --jobs N        at most N replays at a time (default: the CPUs online)\n"
	"      --html          also write NAME.html per trace\n"
	"Options after -- go to every replay (e.g. -- --topology sockets=2,cores=4).\n"
	"A trace that fails is listed with its error and the others go on; one whose replay\n"
	"lost more events than --max-lost allows is merged and listed (LOST EVENTS). Exit\n"
	"status 2 if any failed, else 3 if any lost too many events, else 0.\n";

static void on_done(void *arg, int done, int n)
{
	if (*(bool *)arg)
		fprintf(stderr, "\ridlereplay fleet: %d of %d traces replayed%s", done, n, done == n ? "\n" : "");
}

static void on_failed(void *arg, const char *trace, const char *error)
{
	(void)arg;
	printf("FAILED %s: %s\n", trace, error);
}

static void on_lost(void *arg, const char *trace, const char *error)
{
	(void)arg;
	printf("LOST EVENTS %s (merged): %s\n", trace, error);
}

int cmd_fleet(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out-dir", required_argument, NULL, 'd' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "html", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool progress = isatty(2);
	struct ir_fleet f = { .jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), .on_done = on_done,
			      .on_failed = on_failed, .on_lost = on_lost, .arg = &progress };
	char self[4096], err[1024], *end;
	int o, ret, failed, lost;
	ssize_t sl;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			f.extra = argv + i + 1;
			f.nextra = argc - i - 1;
			argc = i;
			break;
		}
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":d:j:h", opts, NULL)) != -1) {
		if (o == 'd') {
			f.dir = optarg;
		} else if (o == 'j') {
			long j = strtol(optarg, &end, 10);

			if (*end || j < 1 || j > 1024)
				return cli_fail(IR_ERR_USAGE, "fleet: bad --jobs '%s' (1 to 1024)", optarg);
			f.jobs = (int)j;
		} else if (o == 'H') {
			f.html = true;
		} else if (o == 'h') {
			fputs(usage, stdout);
			return IR_OK;
		} else {
			return cli_bad_option("fleet", o, argc, argv);
		}
	}
	f.traces = argv + optind;
	f.ntraces = argc - optind;
	if (!f.dir || f.ntraces < 1)
		return cli_fail(IR_ERR_USAGE, "fleet: need --out-dir and at least one TRACE (see 'idlereplay help fleet')");
	if (f.jobs < 1)
		f.jobs = 1;
	/* every replay runs this very binary */
	if ((sl = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return cli_fail(IR_ERR_INPUT, "cannot find my own binary");
	self[sl] = 0;
	f.self = self;
	if ((ret = ir_fleet_run(&f, &failed, &lost, err, sizeof(err))))
		return cli_fail(ret, "%s", err);
	printf("%d of %d traces replayed; reports in %s/, fleet report %s/fleet.txt, .csv, .html\n",
	       f.ntraces - failed, f.ntraces, f.dir, f.dir);
	/* as replay: 3 when every report is written but some lost too many events */
	return failed ? IR_ERR_INPUT : lost ? IR_LOST_EVENTS : IR_OK;
}

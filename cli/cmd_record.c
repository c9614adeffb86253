/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay record: options -> struct ir_record_opts -> ir_record(). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/model.h"
#include "record/record.h"
#include "replay/replay.h"
#include "report/report.h"


static void usage(FILE *f)
{
	fprintf(f,
		"usage: idlereplay record [-o FILE] [--duration SECONDS] [--buffer-kb N] [--force]\n"
		"                         [--user NAME] [--probe-newidle] [-- COMMAND [ARGS]]\n"
		"Record scheduler events into a trace.dat (default %s) in a private tracefs\n"
		"instance.  Stops when COMMAND exits (and exits with its status), after\n"
		"--duration, or on SIGINT/SIGTERM, keeping what was captured; a command\n"
		"still running then gets SIGTERM (SIGKILL 5 s later).\n"
		"  -o, --output FILE|-   output file ('-': stdout); a regular file is not replaced\n"
		"                        unless --force; a device or FIFO is written in place\n"
		"  -d, --duration SECS   stop after SECS seconds\n"
		"  -b, --buffer-kb N     ring buffer per CPU in KB (default %d)\n"
		"  -f, --force           replace an existing output file\n"
		"  -u, --user NAME       run COMMAND as user NAME\n"
		"      --probe-newidle   also probe the newidle balance function (kprobes)\n",
		IR_RECORD_DEFAULT_OUTPUT, IR_RECORD_DEFAULT_BUFFER_KB);
}

static bool parse_number(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return !errno && end != s && !*end && *out > 0;
}

int cmd_record(int argc, char **argv)
{
	enum { OPT_PROBE = 256 };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'f' },
		{ "user", required_argument, NULL, 'u' },
		{ "probe-newidle", no_argument, NULL, OPT_PROBE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ir_record_opts o = { .topology_capture = ir_topology_capture };
	struct ir_record_result res;
	char err[512];
	double v;
	int c, ret;

	/* '+': stop at the first non-option, the command's own argv[0]. */
	while ((c = getopt_long(argc, argv, "+o:d:b:fu:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'd':
			if (!parse_number(optarg, &v))
				return cli_fail(IR_ERR_USAGE, "record: bad --duration '%s'", optarg);
			o.duration = v;
			break;
		case 'b':
			if (!parse_number(optarg, &v) || v != (unsigned long)v || v > 1 << 22)
				return cli_fail(IR_ERR_USAGE, "record: bad --buffer-kb '%s'", optarg);
			o.buffer_kb = (unsigned long)v;
			break;
		case 'f':
			o.force = true;
			break;
		case 'u':
			o.user = optarg;
			break;
		case OPT_PROBE:
			o.probe_newidle = true;
			break;
		case 'h':
			usage(stdout);
			return IR_OK;
		default:
			usage(stderr);
			return IR_ERR_USAGE;
		}
	}
	if (optind < argc)
		o.argv = argv + optind;
	if (o.argv && o.output && ir_out_is_stdout(o.output))
		return cli_fail(IR_ERR_USAGE, "record: -o %s and COMMAND both write to standard output", o.output);
	if (o.user && !o.argv)
		return cli_fail(IR_ERR_USAGE, "record: --user needs a COMMAND");

	ret = ir_record(&o, &res, err, sizeof(err));
	if (ret != IR_OK)
		return cli_fail(ret, "record: %s", err);
	return res.have_command ? res.command_status : IR_OK;
}

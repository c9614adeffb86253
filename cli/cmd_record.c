/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay record: options -> struct ir_record_opts -> ir_record(). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "model/model.h"
#include "record/record.h"
#include "replay/replay.h"
#include "report/report.h"


static void usage(FILE *f)
{
	fprintf(f,
		"usage: idlereplay record [-o FILE] [--duration TIME] [--buffer-kb N] [--force]\n"
		"                         [--user NAME] [--probe-newidle] [--max-size SIZE] [-- COMMAND [ARGS]]\n"
		"Record scheduler events into a trace.dat (default %s) in a private tracefs\n"
		"instance.  Stops when COMMAND exits (and exits with its status), after\n"
		"--duration, or on SIGINT/SIGTERM, keeping what was captured; a command\n"
		"still running then gets SIGTERM (SIGKILL 5 s later).\n"
		"  -o, --output FILE|-   output file ('-': stdout); a regular file is not replaced\n"
		"                        unless --force; a device or FIFO is written in place\n"
		"  -d, --duration TIME   stop after TIME (seconds, or with ns, us, ms, s: 500ms)\n"
		"  -b, --buffer-kb N     ring buffer per CPU in KB (default %d)\n"
		"  -f, --force           replace an existing output file\n"
		"  -u, --user NAME       run COMMAND as user NAME\n"
		"      --probe-newidle   also probe the newidle balance function (kprobes)\n"
		"      --max-size SIZE   stop once SIZE of events is captured (512M, 2G; 1M to 1T)\n"
		"Without COMMAND or --duration it records until Ctrl-C (or --max-size), with a\n"
		"live count of events and bytes on a terminal.\n",
		IR_RECORD_DEFAULT_OUTPUT, IR_RECORD_DEFAULT_BUFFER_KB);
}

static bool parse_number(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return !errno && end != s && !*end && *out > 0;
}

/* "512M", "2G", "1048576": bytes, binary multiples. */
static int parse_size(const char *s, unsigned long long *out)
{
	static const char units[] = "KMGT";
	const char *u;
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return -1;
	if (*end && (!(u = strchr(units, *end)) || end[1]))
		return -1;
	for (int i = *end ? (int)(u - units) + 1 : 0; i > 0; i--)
		v *= 1024;
	if (v < 1024.0 * 1024 || v > 1024.0 * 1024 * 1024 * 1024)
		return -1;
	*out = (unsigned long long)v;
	return 0;
}

int cmd_record(int argc, char **argv)
{
	enum { OPT_PROBE = 256, OPT_MAX_SIZE };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'f' },
		{ "user", required_argument, NULL, 'u' },
		{ "probe-newidle", no_argument, NULL, OPT_PROBE },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ir_record_opts o = { .topology_capture = ir_topology_capture };
	struct ir_record_result res;
	char err[512];
	double v;
	uint64_t ns;
	int c, ret;

	/* '+': stop at the first non-option, the command's own argv[0]. */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:d:b:fu:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'd':	/* the duration parser of every option; a bare number is seconds */
			if (ir_parse_duration(optarg, 1000000000ull, &ns) || !ns)
				return cli_fail(IR_ERR_USAGE, "record: bad --duration '%s' (more than 0, up to 1000000000s; "
						"seconds, or a number with ns, us, ms or s)", optarg);
			o.duration = (double)ns / 1e9;
			break;
		case 'b':
			if (!parse_number(optarg, &v) || v != (unsigned long)v || v > 1 << 22)
				return cli_fail(IR_ERR_USAGE, "record: bad --buffer-kb '%s' (a whole number of KB, 1 to %d)",
						optarg, 1 << 22);
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
		case OPT_MAX_SIZE:
			if (parse_size(optarg, &o.max_bytes))
				return cli_fail(IR_ERR_USAGE, "record: bad --max-size '%s' (1M to 1T: bytes, "
						"or a number with K, M, G or T)", optarg);
			break;
		case 'h':
			usage(stdout);
			return IR_OK;
		default:
			return cli_bad_option("record", c, argc, argv);
		}
	}
	if (optind < argc)
		o.argv = argv + optind;
	if (o.argv && o.output && ir_out_is_stdout(o.output))
		return cli_fail(IR_ERR_USAGE, "record: -o %s and COMMAND both write to standard output", o.output);
	if (o.user && !o.argv)
		return cli_fail(IR_ERR_USAGE, "record: --user needs a COMMAND");

	o.live = isatty(STDERR_FILENO);
	ret = ir_record(&o, &res, err, sizeof(err));
	if (ret != IR_OK)
		return cli_fail(ret, "record: %s", err);
	return res.have_command ? res.command_status : IR_OK;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay calibrate: parameters measured from a trace's newidle probes,
 * or costs fitted to its observed pulls without them. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"
#include "include/idlereplay.h"

static const char usage[] =
	"usage: idlereplay calibrate TRACE [--topology FILE|SPEC] [--json FILE|-]\n"
	"From a trace with newidle probes (kprobe on sched_balance_newidle and its return),\n"
	"the distributions of per-level max_newidle_lb_cost, max_idle_balance_cost, newidle\n"
	"call durations and the entry-to-switch lead, and the replay options they suggest\n"
	"for traces of the same machine recorded without probes.\n"
	"Without probes: fits the per-level costs (one scale on the defaults) of the\n"
	"model of the recording kernel to the trace's own observed newidle pulls.\n";

static const struct option opts[] = {
	{ "topology", required_argument, NULL, 'T' },
	{ "json", required_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_calibrate(int argc, char **argv)
{
	const char *json = NULL;
	idlereplay *ir = idlereplay_new();
	int o, ret;

	if (!ir)
		return cli_fail(IR_ERR_INPUT, "out of memory");
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":j:h", opts, NULL)) != -1) {
		const struct option *opt = cli_option(opts, o);

		if (o == 'h') {
			idlereplay_free(ir);
			fputs(usage, stdout);
			return IR_OK;
		} else if (!opt) {
			idlereplay_free(ir);
			return cli_bad_option("calibrate", o, argc, argv);
		} else if (idlereplay_set(ir, opt->name, optarg)) {
			ret = cli_fail(IR_ERR_USAGE, "calibrate: %s", idlereplay_error(ir));
			idlereplay_free(ir);
			return ret;
		}
		json = o == 'j' ? optarg : json;
	}
	if ((ret = cli_trace_arg("calibrate", argc, argv))) {
		idlereplay_free(ir);
		return ret;
	}
	if (!(ret = idlereplay_open(ir, argv[optind])))
		ret = idlereplay_calibrate(ir, NULL, NULL);
	if (ret)
		cli_fail(ret, "%s", idlereplay_error(ir));
	else if (!ir_out_is_stdout(json))
		idlereplay_write(ir, "text", "-");
	idlereplay_free(ir);
	return ret;
}

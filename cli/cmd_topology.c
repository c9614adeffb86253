/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay topology: print the machine's topology text, or sched domains. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "model/model.h"

static void topology_usage(FILE *f)
{
	fprintf(f, "usage: idlereplay topology [--sysroot DIR] [--topology FILE|SPEC] [--domains]\n"
		"  prints this machine's topology (sysfs under DIR, default /);\n"
		"  --domains prints the sched domains built from it or from --topology.\n");
}

int cmd_topology(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysroot", required_argument, NULL, 's' },
		{ "topology", required_argument, NULL, 't' },
		{ "domains", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sysroot = "", *spec = NULL;
	bool domains = false;
	char err[512] = "", *text = NULL;
	struct ir_topology *t = NULL;
	struct ir_domains *d;
	int opt, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":s:t:dh", opts, NULL)) != -1) {
		switch (opt) {
		case 's': sysroot = optarg; break;
		case 't': spec = optarg; break;
		case 'd': domains = true; break;
		case 'h': topology_usage(stdout); return IR_OK;
		default: return cli_bad_option("topology", opt, argc, argv);
		}
	}
	if (optind < argc)
		return cli_fail(IR_ERR_USAGE, "topology: unexpected argument '%s'", argv[optind]);
	if (spec) {
		/* a given topology has only its domains to show */
		rc = ir_topology_from_arg(spec, &t, err, sizeof(err));
	} else {
		rc = ir_topology_capture(sysroot, &text, err, sizeof(err));
		if (!rc && !domains) {
			fputs(text, stdout);
			free(text);
			return IR_OK;
		}
		if (!rc)
			rc = ir_topology_parse(text, &t, err, sizeof(err));
		free(text);
	}
	if (rc)
		return cli_fail(rc, "%s", err);
	d = ir_domains_build(t, err, sizeof(err));
	ir_topology_free(t);
	if (!d)
		return cli_fail(IR_ERR_INPUT, "%s", err);
	rc = ir_domains_print(d, stdout) ? IR_ERR_INPUT : IR_OK;
	ir_domains_free(d);
	return rc;
}

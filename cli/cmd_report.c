/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay report: render, compare or merge saved JSON reports. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fleet/fleet.h"
#include "replay/replay.h"
#include "report/report.h"

static const char usage_text[] =
	"usage: idlereplay report REPORT.json [--format text|html|csv-wide] [-o FILE]\n"
	"       idlereplay report REPORT.json... --format jsonl|csv [--name NAME]... [-o FILE]\n"
	"       idlereplay report compare A.json B.json [--format text|csv|json] [-o FILE]\n"
	"       idlereplay report merge REPORT.json... [--format text|csv|html] [--name NAME]... [-o FILE]\n"
	"  REPORT.json is what 'idlereplay replay --json' wrote (schema " IR_REPORT_SCHEMA ").\n"
	"  compare: the same policies on two traces, with per-policy deltas (B - A) and rates per\n"
	"           second of trace; text, csv or json.\n"
	"  merge:   a fleet summary: per policy a headline, the distribution over hosts (median, p10,\n"
	"           p90 of migrations avoided, idle traded, net effect), outliers, one row per host.\n"
	"           Reports are read one at a time (10,000 fit in a few MB); the same trace twice is refused.\n"
	"  -n, --name NAME    merge and rows: name the next report's host (repeatable, in order;\n"
	"                     default: the trace's hostname, else (merge) the report's file name;\n"
	"                     merge adds the file name, or its path, to names that repeat)\n"
	"  Rows, like merge, refuse the same trace twice (SQL over them gives merge's totals).\n"
	"  -f, --format FMT   text (default), html (one self-contained page), csv-wide (one row\n"
	"                     per policy), or long-format rows, one per trace x policy x level:\n"
	"                     jsonl or csv (columns: docs/report.md)\n"
	"  -o, --output FILE  write there instead of stdout (replaced atomically)\n";

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum { RENDER, COMPARE, MERGE } mode = RENDER;
	const char *format = "text";
	struct ir_out out = { 0 };
	json_object *docs[2] = { NULL, NULL };	/* render: one, compare: two */
	int o, n, ret = IR_OK, rc = 0, nnames = 0;
	static const char *names[4096];
	bool rows;
	char err[1024];

	/* "compare" and "merge" are subcommands unless a file by that name is meant. */
	if (argc > 1 && !strcmp(argv[1], "compare") && access(argv[1], F_OK)) {
		mode = COMPARE;
		argc--;
		argv++;
	} else if (argc > 1 && !strcmp(argv[1], "merge") && access(argv[1], F_OK)) {
		mode = MERGE;
		argc--;
		argv++;
	}
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":f:o:n:h", opts, NULL)) != -1) {
		switch (o) {
		case 'f':
			format = optarg;
			break;
		case 'o':
			out.path = optarg;
			break;
		case 'n':
			if (nnames == (int)(sizeof(names) / sizeof(names[0])))
				return cli_fail(IR_ERR_USAGE, "report: too many --name options");
			names[nnames++] = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return IR_OK;
		default:
			return cli_bad_option("report", o, argc, argv);
		}
	}
	n = argc - optind;
	rows = mode == RENDER && (!strcmp(format, "jsonl") || !strcmp(format, "csv"));
	if ((mode == RENDER && !rows && n != 1) || n < 1 || (mode == COMPARE && n != 2))
		return cli_fail(IR_ERR_USAGE, "report%s: %s (see 'idlereplay help report')",
				mode == COMPARE ? " compare" : mode == MERGE ? " merge" : "",
				mode == COMPARE ? "expected two reports, A.json B.json" :
				n ? "one REPORT.json at a time (--format jsonl|csv, compare or merge take more)" :
				"no REPORT.json given");
	if (strcmp(format, "text") && strcmp(format, "html") && strcmp(format, "csv") &&
	    strcmp(format, "csv-wide") && strcmp(format, "jsonl") && strcmp(format, "json"))
		return cli_fail(IR_ERR_USAGE, "unknown format '%s' (text, html, csv, jsonl, json or csv-wide)", format);
	if ((mode == COMPARE && strcmp(format, "text") && strcmp(format, "csv") && strcmp(format, "json")) ||
	    (mode == RENDER && !strcmp(format, "json")) ||
	    (mode == MERGE && strcmp(format, "text") && strcmp(format, "csv") && strcmp(format, "html")))
		return cli_fail(IR_ERR_USAGE, "%s writes %s only", mode == COMPARE ? "compare" : mode == MERGE ? "merge" : "report",
				mode == COMPARE ? "text, csv or json" : mode == MERGE ? "text, csv or html" :
				"text, html, csv-wide, jsonl or csv");
	if (nnames && mode != MERGE && !rows)
		return cli_fail(IR_ERR_USAGE, "--name is for 'report merge' and the rows (--format jsonl|csv)");
	if (nnames > n)
		return cli_fail(IR_ERR_USAGE, "%s: %d --name options for %d reports", mode == MERGE ? "merge" : "report",
				nnames, n);
	if (mode == MERGE || rows) {
		ret = mode == MERGE ?
			ir_fleet_merge_files(argv + optind, n, names, nnames, !strcmp(format, "csv") ? IR_MERGE_CSV :
					     !strcmp(format, "html") ? IR_MERGE_HTML : IR_MERGE_TEXT, out.path, stderr,
					     err, sizeof(err)) :
			ir_fleet_rows_files(argv + optind, n, names, nnames,
					    !strcmp(format, "csv") ? IR_ROWS_CSV : IR_ROWS_JSONL, out.path, err, sizeof(err));
		return ret ? cli_fail(ret, "%s", err) : IR_OK;
	}

	for (int i = 0; i < n; i++)
		if (!(docs[i] = ir_report_load(argv[optind + i], err, sizeof(err)))) {
			ret = cli_fail(IR_ERR_INPUT, "%s: %s", argv[optind + i], err);
			goto out;
		}
	if (ir_out_open(&out, out.path)) {
		ret = cli_fail(IR_ERR_INPUT, "%s: cannot write: %s", out.path, strerror(errno));
		goto out;
	}
	if (mode == COMPARE)
		ir_report_fleet_check_pair(docs[0], argv[optind], docs[1], argv[optind + 1], stderr);
	switch (mode) {
	case COMPARE:
		rc = ir_report_compare(docs[0], argv[optind], docs[1], argv[optind + 1],
				       !strcmp(format, "csv") ? IR_COMPARE_CSV :
				       !strcmp(format, "json") ? IR_COMPARE_JSON : IR_COMPARE_TEXT, out.f);
		break;
	default:
		rc = !strcmp(format, "html") ? ir_report_html(docs[0], out.f) :
		     !strcmp(format, "csv-wide") ? ir_report_csv(docs[0], out.f) : ir_report_text(docs[0], out.f);
	}
	if (ir_out_close(&out, rc == 0))
		ret = cli_fail(IR_ERR_INPUT, "%s: cannot write: %s", out.path ? out.path : "stdout", strerror(errno));
out:
	json_object_put(docs[0]);
	json_object_put(docs[1]);
	return ret;
}

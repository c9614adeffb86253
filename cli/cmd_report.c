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
#include "replay/replay.h"
#include "report/report.h"

static const char usage_text[] =
	"usage: idlereplay report REPORT.json [--format text|html|csv-wide] [-o FILE]\n"
	"       idlereplay report REPORT.json... --format jsonl|csv [-o FILE]\n"
	"       idlereplay report compare A.json B.json [-o FILE]\n"
	"       idlereplay report merge REPORT.json... [--format text|csv] [-o FILE]\n"
	"  REPORT.json is what 'idlereplay replay --json' wrote (schema " IR_REPORT_SCHEMA ").\n"
	"  compare: the same policies on two traces, with per-policy deltas (B - A).\n"
	"  merge:   a fleet summary, one row per report plus totals, median and p90.\n"
	"  -f, --format FMT   text (default), html (one self-contained page), csv-wide (one row\n"
	"                     per policy), or long-format rows, one per trace x policy x level:\n"
	"                     jsonl or csv (columns: docs/report.md)\n"
	"  -o, --output FILE  write there instead of stdout (replaced atomically)\n";

static void free_docs(json_object **docs, int n)
{
	for (int i = 0; i < n; i++)
		json_object_put(docs[i]);
	free(docs);
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum { RENDER, COMPARE, MERGE } mode = RENDER;
	const char *format = "text";
	struct ir_out out = { 0 };
	json_object **docs;
	int o, n, ret = IR_OK, rc = 0;
	bool rows;
	char err[256];

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
	while ((o = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		switch (o) {
		case 'f':
			format = optarg;
			break;
		case 'o':
			out.path = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return IR_OK;
		default:
			fputs(usage_text, stderr);
			return IR_ERR_USAGE;
		}
	}
	n = argc - optind;
	rows = mode == RENDER && (!strcmp(format, "jsonl") || !strcmp(format, "csv"));
	if ((mode == RENDER && !rows && n != 1) || (mode == RENDER && n < 1) || (mode == COMPARE && n != 2) ||
	    (mode == MERGE && n < 1)) {
		fputs(usage_text, stderr);
		return IR_ERR_USAGE;
	}
	if (strcmp(format, "text") && strcmp(format, "html") && strcmp(format, "csv") &&
	    strcmp(format, "csv-wide") && strcmp(format, "jsonl"))
		return cli_fail(IR_ERR_USAGE, "unknown format '%s' (text, html, csv, jsonl or csv-wide)", format);
	if ((mode == COMPARE && strcmp(format, "text")) ||
	    (mode == MERGE && strcmp(format, "text") && strcmp(format, "csv")))
		return cli_fail(IR_ERR_USAGE, "%s writes %s only", mode == COMPARE ? "compare" : "merge",
				mode == COMPARE ? "text" : "text or csv");

	docs = calloc((size_t)n, sizeof(*docs));
	if (!docs)
		return cli_fail(IR_ERR_INPUT, "out of memory");
	for (int i = 0; i < n; i++) {
		docs[i] = ir_report_load(argv[optind + i], err, sizeof(err));
		if (!docs[i]) {
			free_docs(docs, i);
			return cli_fail(IR_ERR_INPUT, "%s: %s", argv[optind + i], err);
		}
	}
	if (ir_out_open(&out, out.path)) {
		ret = cli_fail(IR_ERR_INPUT, "%s: cannot write: %s", out.path, strerror(errno));
		free_docs(docs, n);
		return ret;
	}
	switch (mode) {
	case COMPARE:
		rc = ir_report_compare(docs[0], argv[optind], docs[1], argv[optind + 1], out.f);
		break;
	case MERGE:
		rc = ir_report_merge(docs, (const char *const *)&argv[optind], n,
				     strcmp(format, "csv") ? IR_MERGE_TEXT : IR_MERGE_CSV, out.f);
		break;
	default:
		if (rows) {
			enum ir_rows_format rf = !strcmp(format, "csv") ? IR_ROWS_CSV : IR_ROWS_JSONL;

			rc = ir_rows_header(rf, out.f);
			for (int i = 0; i < n && !rc; i++)
				rc = ir_report_rows(docs[i], NULL, rf, out.f);
			break;
		}
		rc = !strcmp(format, "html") ? ir_report_html(docs[0], out.f) :
		     !strcmp(format, "csv-wide") ? ir_report_csv(docs[0], out.f) : ir_report_text(docs[0], out.f);
	}
	if (ir_out_close(&out, rc == 0))
		ret = cli_fail(IR_ERR_INPUT, "%s: cannot write: %s", out.path ? out.path : "stdout", strerror(errno));
	free_docs(docs, n);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/* Test helper: print the idlereplay metadata of a trace.dat, as replay reads it. */
#include <stdio.h>

#include "replay/replay.h"

int main(int argc, char **argv)
{
	char err[1024];
	struct ir_trace *t;
	int ret = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: ir_meta TRACE.DAT\n");
		return 1;
	}
	if (ir_trace_open(argv[1], &t, err, sizeof(err))) {
		fprintf(stderr, "ir_meta: %s\n", err);
		return 2;
	}
	if (ir_trace_info(t)->meta) {
		fputs(ir_trace_info(t)->meta, stdout);
	} else {
		fprintf(stderr, "ir_meta: %s: no idlereplay metadata\n", argv[1]);
		ret = 2;
	}
	ir_trace_close(t);
	return ret;
}

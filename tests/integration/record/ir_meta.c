/* SPDX-License-Identifier: GPL-2.0-only */
/* Test helper: print the idlereplay meta option of a trace.dat. */
#include <stdio.h>
#include <stdlib.h>

#include "record/record.h"

int main(int argc, char **argv)
{
	char err[256], *text;

	if (argc != 2) {
		fprintf(stderr, "usage: ir_meta TRACE.DAT\n");
		return 1;
	}
	if (ir_record_meta_read(argv[1], &text, err, sizeof(err)) < 0) {
		fprintf(stderr, "ir_meta: %s\n", err);
		return 2;
	}
	fputs(text, stdout);
	free(text);
	return 0;
}

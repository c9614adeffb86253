/* SPDX-License-Identifier: GPL-2.0-only */
/* Test helper: the newidle probe's fetch-args for a BTF file, as
 * record/probe_btf.c builds them.  Usage: ir_probe_spec BTF FUNC LEVELS
 * Prints three lines: the this_rq register, the args, the missing fields. */
#include <stdio.h>
#include <stdlib.h>

#include <bpf/btf.h>

#include "record/probe_btf.h"

int main(int argc, char **argv)
{
	struct rec_probe_spec s;
	char err[256];
	struct btf *btf;
	int ret;

	if (argc != 4) {
		fprintf(stderr, "usage: ir_probe_spec BTF FUNC LEVELS\n");
		return 1;
	}
	btf = btf__parse(argv[1], NULL);
	if (!btf) {
		fprintf(stderr, "ir_probe_spec: %s: cannot read BTF\n", argv[1]);
		return 2;
	}
	ret = rec_probe_btf_spec(btf, argv[2], "x86_64", atoi(argv[3]), &s, err, sizeof(err));
	btf__free(btf);
	if (ret < 0) {
		fprintf(stderr, "ir_probe_spec: %s\n", err);
		return 2;
	}
	printf("%s\n%s\n%s\n", s.rq_reg, s.args, s.missing);
	return 0;
}

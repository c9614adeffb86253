/* SPDX-License-Identifier: GPL-2.0-only */
/* The newidle probe's fetch-args from BTF (record/probe_btf.c). */
#ifndef IDLEREPLAY_PROBE_BTF_H
#define IDLEREPLAY_PROBE_BTF_H

#include <stddef.h>

struct btf;

/* Domain levels fetched at most (sdN_*: N < this). */
#define REC_PROBE_MAX_LEVELS 8

struct rec_probe_spec {
	char func[64];		/* newidle function, as in /proc/kallsyms */
	char rq_reg[8];		/* "%di": the register holding this_rq */
	int rq_arg;		/* its parameter index */
	int sd_levels;		/* sdN_* fetched for N < sd_levels */
	char args[4096];	/* "name=fetch name=fetch ..." */
	char present[1024];	/* field names fetched, space separated */
	char missing[1024];	/* field names this kernel lacks */
};

/* Fill s for func on machine (uname -m) with sd_levels domain levels.
 * 0, or -1 with one line in err when the probe cannot be built (no such
 * function or struct rq, no struct rq * argument in a register, a field
 * the replay needs missing, unknown machine). */
int rec_probe_btf_spec(const struct btf *btf, const char *func, const char *machine,
		       int sd_levels, struct rec_probe_spec *s, char *err, size_t len);

#endif

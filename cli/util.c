/* SPDX-License-Identifier: GPL-2.0-only */
/* What every subcommand prints the same way: errors, warnings, progress. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"

int cli_fail(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("idlereplay: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

const struct option *cli_option(const struct option *opts, int o)
{
	for (; opts->name; opts++)
		if (opts->val == o)
			return opts;
	return NULL;
}

void cli_warning(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "idlereplay: %s\n", line);
}

void cli_progress_start(struct cli_progress *c, const char *what, int quiet)
{
	ir_progress_start(&c->p, what, "events", 0, quiet);
}

void cli_progress_update(void *arg, uint64_t events, uint64_t total)
{
	struct cli_progress *c = arg;

	if (!c->p.enabled)
		return;
	if (total)
		c->p.total = total;
	ir_progress_update(&c->p, events);
}

void cli_progress_finish(struct cli_progress *c)
{
	ir_progress_finish(&c->p);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/* What every subcommand prints the same way: errors, warnings, progress. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"

int cli_fail(int code, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* names and strings from a file may hold terminal escapes */
	fprintf(stderr, "idlereplay: %s\n", ir_tsafe(line));
	return code;
}

int cli_one_stdout(const char *cmd, const char *const *opt_file)
{
	const char *first = NULL, *first_file = NULL;

	for (; opt_file[0]; opt_file += 2) {
		if (!opt_file[1] || !ir_out_is_stdout(opt_file[1]))
			continue;
		if (first)
			return cli_fail(IR_ERR_USAGE, "%s: %s %s and %s %s both write to standard output",
					cmd, first, first_file, opt_file[0], opt_file[1]);
		first = opt_file[0];
		first_file = opt_file[1];
	}
	return IR_OK;
}

const struct option *cli_option(const struct option *opts, int o)
{
	for (; opts->name; opts++)
		if (opts->val == o)
			return opts;
	return NULL;
}

int cli_bad_option(const char *cmd, int o, int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
	char shortopt[3] = { '-', (char)optopt, 0 };

	if (o == ':')
		return cli_fail(IR_ERR_USAGE, "%s: %s needs a value (see 'idlereplay help %s')", cmd, arg, cmd);
	if (optopt && strncmp(arg, "--", 2))
		arg = shortopt;
	if (!strncmp(arg, "--", 2) && strchr(arg, '='))
		return cli_fail(IR_ERR_USAGE, "%s: %.*s takes no value (see 'idlereplay help %s')", cmd,
				(int)(strchr(arg, '=') - arg), arg, cmd);
	return cli_fail(IR_ERR_USAGE, "%s: unknown option '%s' (see 'idlereplay help %s')", cmd, arg, cmd);
}

int cli_trace_arg(const char *cmd, int argc, char **argv)
{
	if (optind == argc)
		return cli_fail(IR_ERR_USAGE, "%s: no TRACE given (see 'idlereplay help %s')", cmd, cmd);
	if (optind < argc - 1)
		return cli_fail(IR_ERR_USAGE, "%s: unexpected argument '%s' after TRACE '%s' (one trace at a time)",
				cmd, argv[optind + 1], argv[optind]);
	return IR_OK;
}

void cli_warning(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "idlereplay: %s\n", ir_tsafe(line));
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

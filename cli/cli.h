/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli/: the command line, one file per subcommand.  Each cmd_* parses its
 * options, calls the engine (include/idlereplay.h) or a stage, prints, and
 * turns a status into one error line and an exit code (0 ok, 1 usage,
 * 2 bad input).  No wiring and no logic of its own.
 */
#ifndef IDLEREPLAY_CLI_H
#define IDLEREPLAY_CLI_H

#include <stdint.h>

#include "common/status.h"
#include "report/report.h"

int cmd_replay(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
/* replay and simulate share their options (cmd_replay.c); simulate adds the closed loop. */
int cli_replay(int argc, char **argv, const char *cmd, const char *help, bool closed_loop);
int cmd_topology(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_fleet(int argc, char **argv);


struct option;
/* The entry of opts whose val is o, or NULL (an unknown option). */
const struct option *cli_option(const struct option *opts, int o);

/* Progress on stderr for the engine's callback (report/progress.c). */
struct cli_progress {
	struct ir_progress p;
};
void cli_progress_start(struct cli_progress *c, const char *what, int quiet);
void cli_progress_update(void *arg, uint64_t events, uint64_t total);
void cli_progress_finish(struct cli_progress *c);
/* After getopt_long returned o ('?' or ':', with opterr 0 and a ':' first in
 * the option string): one line naming the argument that is wrong; 1. */
int cli_bad_option(const char *cmd, int o, int argc, char **argv);
/* Exactly one TRACE after the options, else one line saying what is wrong. */
int cli_trace_arg(const char *cmd, int argc, char **argv);
/* The engine's warnings: "idlereplay: LINE" on stderr. */
void cli_warning(void *arg, const char *line);

/* Print "idlereplay: " + message to stderr; returns code. */
int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* opt_file: option name, its file (or NULL), ..., NULL.  A usage error
 * naming both if two of the files are standard output ("-", /dev/stdout). */
int cli_one_stdout(const char *cmd, const char *const *opt_file);

#endif

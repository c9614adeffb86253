/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli/: option parsing and wiring of the stages, one file per subcommand.
 * No logic of its own: each cmd_* turns a stage's status into one error
 * line naming the file and an exit code (0 ok, 1 usage, 2 bad input).
 */
#ifndef IDLEREPLAY_CLI_H
#define IDLEREPLAY_CLI_H

#include <stdint.h>

int cmd_replay(int argc, char **argv);
int cmd_topology(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_fleet(int argc, char **argv);


struct ir_trace_info;
struct ir_topology;
struct ir_domains;
/* Sched domains for a trace: from --topology ARG, else the topology the
 * trace recorded, else one flat LLC (*source says which).  IR_OK, or the
 * exit status after printing the error. */
int cli_domains(const char *arg, const struct ir_trace_info *ti, struct ir_topology **topo,
		struct ir_domains **dom, const char **source);

/* Print "idlereplay: " + message to stderr; returns code. */
int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libtracecmd's trace.dat writer.  The library (3.1.x) exports these but
 * its public header does not declare them; the prototypes below are those
 * of trace-cmd's lib/trace-cmd/include/private/trace-cmd-private.h.
 * meson.build checks that they link before building record/.
 */
#ifndef IDLEREPLAY_TRACECMD_OUT_H
#define IDLEREPLAY_TRACECMD_OUT_H

#include <stdbool.h>

struct tracecmd_output;
struct tracecmd_option;

struct tracecmd_event_list {
	struct tracecmd_event_list *next;
	const char *glob;		/* "system/event" */
};

/* enum tracecmd_option_id (file format: ids are fixed). */
enum {
	TRACECMD_OPTION_CPUSTAT = 2,
	TRACECMD_OPTION_TRACECLOCK = 4,
	TRACECMD_OPTION_UNAME = 5,
	TRACECMD_OPTION_VERSION = 9,
};

struct tracecmd_output *tracecmd_output_create_fd(int fd);
void tracecmd_set_quiet(struct tracecmd_output *handle, bool set_quiet);
int tracecmd_output_set_version(struct tracecmd_output *handle, int file_version);
int tracecmd_output_set_compression(struct tracecmd_output *handle, const char *compression);
int tracecmd_output_set_trace_dir(struct tracecmd_output *handle, const char *tracing_dir);
int tracecmd_output_set_kallsyms(struct tracecmd_output *handle, const char *kallsyms);
int tracecmd_output_write_headers(struct tracecmd_output *handle,
				  struct tracecmd_event_list *list);
struct tracecmd_option *tracecmd_add_option(struct tracecmd_output *handle,
					    unsigned short id, int size, const void *data);
int tracecmd_write_cmdlines(struct tracecmd_output *handle);
int tracecmd_append_cpu_data(struct tracecmd_output *handle,
			     int cpus, char *const *cpu_data_files);
void tracecmd_output_close(struct tracecmd_output *handle);

#endif

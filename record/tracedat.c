/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Write the trace.dat (v7, uncompressed) with
 * libtracecmd's writer, in the order its state machine requires:
 * headers (header_page, ftrace and our events' formats, kallsyms,
 * printk), options, cmdlines, then CPU data (which adds CPUCOUNT).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>
#include <tracefs.h>

#include "record/record_int.h"
#include "record/tracecmd_out.h"

#define FILE_VERSION 7

static int add_text_option(struct tracecmd_output *out, unsigned short id, const char *text)
{
	/* Text options carry their NUL (trace-cmd readers rely on it). */
	return tracecmd_add_option(out, id, (int)strlen(text) + 1, text) ? 0 : -1;
}

static int add_options(struct tracecmd_output *out, const struct rec_tracedat *td)
{
	struct utsname u;
	char uname_text[4 * sizeof(u.release) + 4];

	if (uname(&u) < 0)
		return -1;
	snprintf(uname_text, sizeof(uname_text), "%s %s %s %s",
		 u.sysname, u.nodename, u.release, u.machine);
	if (add_text_option(out, TRACECMD_OPTION_TRACECLOCK, td->clocks) ||
	    add_text_option(out, TRACECMD_OPTION_UNAME, uname_text) ||
	    add_text_option(out, TRACECMD_OPTION_VERSION, "idlereplay " IDLEREPLAY_VERSION))
		return -1;
	for (int cpu = 0; cpu < td->nr_cpus; cpu++)
		if (add_text_option(out, TRACECMD_OPTION_CPUSTAT, td->stats[cpu].text))
			return -1;
	return 0;
}

int rec_tracedat_write(int fd, const struct rec_tracedat *td, char *err, size_t len)
{
	struct tracecmd_event_list *list = NULL;
	struct tracecmd_output *out;
	char **files = NULL;
	size_t nr_events = 0;
	int ret = -1;

	/* Errors are reported by us, in one line; the library would add its
	 * own warnings (e.g. on a full disk) to stderr. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	out = tracecmd_output_create_fd(fd);
	if (out)
		tracecmd_set_quiet(out, true);	/* no "CPU0 data recorded at" lines */
	if (!out) {
		REC_ERR(err, len, "cannot start the trace file: %s", strerror(errno));
		close(fd);
		return -1;
	}
	while (td->events[nr_events])
		nr_events++;
	list = calloc(nr_events, sizeof(*list));
	files = calloc((size_t)td->nr_cpus, sizeof(*files));
	if (!list || !files) {
		errno = ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < nr_events; i++) {
		list[i].glob = td->events[i];
		list[i].next = i + 1 < nr_events ? &list[i + 1] : NULL;
	}
	for (int cpu = 0; cpu < td->nr_cpus; cpu++)
		files[cpu] = (char *)rec_readers_path(td->data, cpu);

	/* Kallsyms: an unreadable path stores none.  Any readable file makes
	 * libtracecmd set kernel.kptr_restrict to 0 while copying it, a
	 * system-wide setting we never touch (sched events need no symbols).
	 * No compression: libtracecmd 3.1.6 (and trace-cmd master) leaves its
	 * compressor running after an empty kallsyms section, which corrupts
	 * the file header; uncompressed v7 is read by every v7 reader. */
	if (tracecmd_output_set_version(out, FILE_VERSION) ||
	    tracecmd_output_set_compression(out, "none") ||
	    tracecmd_output_set_trace_dir(out, tracefs_tracing_dir()) ||
	    tracecmd_output_set_kallsyms(out, "") ||
	    tracecmd_output_write_headers(out, list) ||
	    add_options(out, td) ||
	    tracecmd_write_cmdlines(out) ||
	    tracecmd_append_cpu_data(out, td->nr_cpus, files) ||
	    /* Our option goes in the last options section, written at close:
	     * libtracecmd's reader warns ("unknown option") about unknown ids
	     * in the first section only. */
	    add_text_option(out, IR_META_OPTION_ID, td->meta))
		goto fail;
	ret = 0;
fail:
	if (ret)
		REC_ERR(err, len, "cannot write the trace file: %s",
			strerror(errno ? errno : EIO));
	tracecmd_output_close(out);
	free(list);
	free(files);
	return ret;
}

int rec_tracedat_verify(const char *path, char *err, size_t len)
{
	/* The writer's last steps (options and strings at close) report no
	 * errors, e.g. a full disk: read the headers and options back. */
	struct tracecmd_input *in;

	in = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!in) {
		REC_ERR(err, len, "the trace file written is unreadable (disk full?)");
		return -1;
	}
	tracecmd_close(in);
	return 0;
}

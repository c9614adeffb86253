/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: the trace reader.  Bytes -> a temporary file ->
 * ir_tdat_read() (our header and section walk, in this process, under
 * ASan/UBSan) -> ir_trace_open() + ir_trace_run() -> the state machine.
 * libtracecmd runs in the forked child as in production (its crashes are
 * the child's, and must come back as IR_ERR_INPUT, never take us down);
 * set IDLEREPLAY_IN_PROCESS=1 to fuzz it in-process instead.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "replay/replay.h"
#include "replay/tdat.h"

/*
 * The reader's child is a fork of this process, with libFuzzer's and the
 * sanitizers' crash handlers: without this, a crash of libtracecmd there
 * (contained, by design) would be written out as our crash artifact.  In
 * the child, crashes are plain signals and sanitizer deaths a plain exit,
 * both of which the parent must turn into one line.
 */
void __sanitizer_set_death_callback(void (*callback)(void));

static void child_died(void)
{
	_exit(66);
}

static void in_child(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	__sanitizer_set_death_callback(child_died);
}

static char path[64];
static int fd = -1;

static int feed(void *arg, const struct ir_event *ev)
{
	ir_state_feed(arg, ev);
	return 0;
}

static void on_point(void *arg, const struct ir_point *pt)
{
	(void)arg;
	(void)pt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ir_tdat td;
	struct ir_trace *t = NULL;
	char err[1024];

	if (fd < 0) {
		pthread_atfork(NULL, NULL, in_child);
		snprintf(path, sizeof(path), "/tmp/ir-fuzz-reader.%d", (int)getpid());
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			abort();
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();

	if (ir_tdat_read(path, &td, err, sizeof(err)) == 0)
		ir_tdat_free(&td);
	else if (!err[0] || strchr(err, '\n'))
		abort();	/* an error must be one non-empty line */

	if (ir_trace_open(path, &t, err, sizeof(err)) == IR_OK) {
		const struct ir_trace_info *ti = ir_trace_info(t);
		struct ir_state_params p;
		struct ir_state *s;

		ir_state_params_default(&p);
		s = ir_state_new(ti->nr_cpus, &p, NULL, on_point, NULL);
		if (s) {
			if (ir_trace_run(t, feed, s, err, sizeof(err)) == IR_OK)
				ir_state_finish(s, ti->last_ts);
			ir_state_free(s);
		}
		ir_trace_close(t);
	} else if (!err[0] || strchr(err, '\n') || !strstr(err, path)) {
		abort();	/* one line naming the file */
	}
	return 0;
}

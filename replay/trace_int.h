/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * replay/: private to the trace reader (decode.c: field decoding from the
 * trace's formats; child.c: the libtracecmd streaming child, the fallback
 * route).  Not part of the stage's contract (replay.h).
 */
#ifndef IDLEREPLAY_REPLAY_TRACE_INT_H
#define IDLEREPLAY_REPLAY_TRACE_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <trace-cmd/trace-cmd.h>

#include "replay/replay.h"
#include "replay/pages.h"
#include "replay/tdat.h"

struct name_count {
	const char *name;
	uint64_t count;
};

#define MAX_EVENT_ID 65536

struct fld {
	int off, size;		/* size 0: absent */
	bool is_signed, dataloc;
};

enum {
	F_PREV_PID, F_PREV_PRIO, F_PREV_STATE, F_PREV_COMM, F_NEXT_PID, F_NEXT_PRIO, F_NEXT_COMM,
	F__SWITCH
};
enum { F_PID, F_PRIO, F_TARGET_CPU, F_COMM, F__WAKE };
enum { F_MPID, F_MPRIO, F_ORIG, F_DEST, F_MCOMM, F__MIG };
enum { F_PPID, F_CPID, F_CCOMM, F__FORK };
enum { F_NPID, F_SRC, F_DST, F__NUMA };
enum {
	F_P_CPU, F_P_NR, F_P_AVG, F_P_MIBC, F_P_OVL, F_P_TTWU,
	F_P_SD0, F_P_SD1, F_P_SD2, F_P_R0, F_P_R1, F_P_R2, F__PROBE
};

struct evkind {
	enum ir_ev_type type;
	struct fld f[F__PROBE];
	int min_size;		/* a record shorter than its fields' end is damage */
};

struct ir_trace {
	struct ir_trace_info info;
	struct ir_tdat tdat;
	struct tracecmd_input *handle;
	struct tep_handle *tep;
	struct ir_pages *pages;	/* our own page reader, when the file allows it */
	_Atomic uint64_t progress_bytes;	/* file bytes read, for another thread's progress */
	bool swap;		/* file endianness differs from ours */
	bool state_shifted, state_pre414;
	int common_pid_off;
	uint8_t kind_of[MAX_EVENT_ID];	/* index into kinds[], 0 = not interesting */
	struct evkind kinds[32];
	int nr_kinds;
	uint64_t *count;	/* per event id */
	/* iteration */
	ir_event_fn fn;
	void *arg;
	int stopped;
	uint64_t *last_cpu_ts;	/* per CPU, to date lost-event spans */
	/* damage that decodes: a CPU's own events out of time order, records
	 * too short or of an event id the trace has no format for */
	uint8_t known_id[MAX_EVENT_ID / 8];
	uint64_t bad_order, bad_id;
	int32_t bad_cpu;
	uint64_t bad_ts;
	/* isolation: libtracecmd runs in a child that streams events to us */
	pid_t child;		/* 0: none (in-process, or reaped) */
	int rfd;
	unsigned char *rbuf;
	size_t rcap, rhead, rtail;
	struct name_count *names;	/* event counts sent by the child */
	int nr_names;
	char *names_blob;
	char bad_fld[160];	/* the first event field no record can hold */
};

/* decode.c, for the child: open libtracecmd on the trace (head_only: the
 * headers and formats only), and decode one record into t->fn. */
int ir_trace_open_lib(struct ir_trace *t, bool head_only, char *err, size_t errlen);
int ir_trace_on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data);

/* child.c: fork the reader child and read its first message (on failure t
 * is closed and err says why); stream its events into fn; kill (kill_it)
 * and reap it, saying in how how it ended; how long a silent child may
 * stall before it counts as hung (IDLEREPLAY_STALL_MS). */
int ir_child_start(struct ir_trace *t, char *err, size_t errlen);
int ir_child_run(struct ir_trace *t, ir_event_fn fn, void *arg, char *err, size_t errlen);
void ir_child_reap(struct ir_trace *t, bool kill_it, char *how, size_t howlen);
int ir_child_stall_ms(void);

#endif

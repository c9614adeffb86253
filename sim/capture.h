/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/capture.c: a simulated schedule, kept for the Perfetto export.
 *
 * Off unless ir_sim_params.capture points at one (simulate and replay pay a
 * NULL test per switch).  The simulation reports, in simulated time order,
 * each CPU's switches (a task, idle, or a newidle balance in progress), each
 * newidle call with its outcome, and each migration with its cause; the
 * capture keeps them as closed records in a buffer that grows up to `max`
 * records and counts, per kind, those it left out beyond that.  One capture
 * per simulation (not shared between threads).
 */
#ifndef IDLEREPLAY_SIM_CAPTURE_H
#define IDLEREPLAY_SIM_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#define IR_CAP_DEFAULT_MAX 100000	/* records kept per simulation by default */

/* What a CPU does from a switch on (ir_capture_switch()'s task, or >= 0). */
#define IR_CAP_NONE (-1)	/* nothing shown: between a task leaving and what follows */
#define IR_CAP_IDLE (-2)	/* the idle task */
#define IR_CAP_BALANCE (-3)	/* a newidle balance in progress (its modelled cost) */

enum ir_cap_kind {
	IR_CAP_SLICE,		/* cpu runs task (index, or IR_CAP_IDLE/BALANCE) over [ts, ts + dur) */
	IR_CAP_NEWIDLE,		/* a newidle call on cpu at ts: dur its cost, task the
				 * task pulled (-1 none) from cpu `from`, arg its attempts */
	IR_CAP_MIGRATE,		/* task moved from `from` to cpu at ts; arg its cause */
	IR_CAP__KINDS
};

/* Causes of a migration, as the simulation counts them (mig_*). */
enum ir_cap_cause { IR_CAP_WAKEUP, IR_CAP_NEWIDLE_PULL, IR_CAP_PERIODIC, IR_CAP__CAUSES };
extern const char *const ir_cap_cause_name[IR_CAP__CAUSES];

struct ir_cap_rec {
	uint64_t ts, dur;
	int32_t task;
	uint16_t cpu, from;
	uint8_t kind;		/* enum ir_cap_kind */
	uint8_t arg;
};

struct ir_cap_cpu {
	uint64_t start;
	int32_t task;		/* open since start; IR_CAP_NONE: nothing open */
};

struct ir_capture {
	uint64_t max;		/* records kept at most */
	uint64_t n, cap;
	struct ir_cap_rec *rec;
	uint64_t kept[IR_CAP__KINDS], left_out[IR_CAP__KINDS];
	int nr_cpus;
	struct ir_cap_cpu *cpu;
	bool oom;		/* a record was lost to memory, not to max */
};

/* A capture of nr_cpus CPUs keeping at most max records; NULL out of memory. */
struct ir_capture *ir_capture_new(int nr_cpus, uint64_t max);
/* From ts on, cpu does task (>= 0), IR_CAP_IDLE, IR_CAP_BALANCE or IR_CAP_NONE;
 * what it did since the last switch becomes a slice (empty ones are dropped). */
void ir_capture_switch(struct ir_capture *c, int cpu, uint64_t ts, int32_t task);
void ir_capture_newidle(struct ir_capture *c, int cpu, uint64_t ts, uint64_t cost_ns, int32_t pulled,
			int from, int attempts);
void ir_capture_migrate(struct ir_capture *c, int32_t task, int from, int to, uint64_t ts,
			enum ir_cap_cause cause);
/* Close what is open at end (the workload's completion). */
void ir_capture_finish(struct ir_capture *c, uint64_t end);
void ir_capture_free(struct ir_capture *c);

#endif

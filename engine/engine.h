/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * engine/: wires the stages for every front end (the CLI, the example, the
 * benchmarks): trace -> replay state -> newidle points -> each policy's
 * decision and outcome -> tallies -> the report document and its outputs.
 * It parses option values and prints nothing; include/idlereplay.h is its
 * contract.  This header is private to engine/.
 */
#ifndef IDLEREPLAY_ENGINE_H
#define IDLEREPLAY_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "include/idlereplay.h"
#include "model/model.h"
#include "replay/replay.h"
#include "report/report.h"
#include "sim/sim.h"

#define IR_MAX_RUNS 4096
#define IR_MAX_SWEEPS 64

/* One --sweep, parsed; expanded into runs after the --policy ones. */
struct ir_sweep_arg {
	struct ir_policy_params base;
	char param[64];
	uint64_t from, to, step;
};

struct idlereplay {
	char err[1024];
	/* options */
	struct ir_state_params sp;
	bool mc_set, tick_set, want_timeline, allow_lost;
	bool closed_loop, cl_refill_set;	/* simulate: the closed loop too */
	bool cl_no_sync;		/* --no-sync-wakeups: no wakeup is WF_SYNC */
	bool cl_idle_exit_median;	/* --idle-exit median: an idle CPU's wakeup latency is the
					 * trace's median (default trace: drawn from its distribution) */
	uint64_t cl_refill_ns;
	uint64_t pf_sim_max;	/* --perfetto-sim-max: records per simulated schedule exported */
	unsigned cl_sim_seeds;	/* --sim-seeds: seeds a randomised policy is simulated with (default 8) */
	double max_lost;	/* percent of all events; over it IR_LOST_EVENTS */
	uint64_t detail_off, detail_len;
	char *json_path, *html_path, *decisions_path, *perfetto_path, *topo_arg, *reference, *kernel_policy;
	char *buffer;		/* NULL: the only buffer with events */
	struct ir_policy_run *runs;	/* IR_MAX_RUNS: --policy ones, then sweep points */
	int nr_policy_args;
	struct ir_sweep_arg sweep_args[IR_MAX_SWEEPS];
	int nr_sweep_args;
	idlereplay_warning_fn *warn;
	void *warn_arg;
	/* the trace and what a run made of it */
	struct ir_trace *tr;
	char *path;
	bool ran;
	json_object *doc;
};

/* Sched domains for a trace: from arg (--topology), else the topology the
 * trace recorded, else one flat LLC (*source says which).  IR_OK, or a
 * status with ir->err set. */
int ir_engine_domains(struct idlereplay *ir, const char *arg, const struct ir_trace_info *ti,
		      struct ir_topology **topo, struct ir_domains **dom, const char **source);

/* Set ir->err; returns code. */
int ir_engine_fail(struct idlereplay *ir, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The value of "key value" in the trace's metadata (malloc'd), or NULL. */
char *ir_engine_meta_line(const char *meta, const char *key);

/* What the closed loop needs from a replay (engine/closed_loop.c). */
struct ir_closed_loop_input {
	const struct ir_workload *w;
	const struct ir_observed *obs;
	const struct ir_domains *dom;
	const struct ir_policy_run *runs;
	int n, fidelity;
	int kernel_major, kernel_minor;	/* the recording kernel's release, -1 unknown */
	uint64_t sched_migration_cost, max_idle_balance_cost;
	uint64_t tick_ns;	/* one jiffy (the trace's HZ, else 4 ms) */
	struct ir_perfetto *pf;		/* the Perfetto export, or NULL: simulated schedules go there */
};
/* Simulate every policy and the frozen schedule; add the closed-loop keys to doc. */
int ir_engine_closed_loop(struct idlereplay *ir, const struct ir_closed_loop_input *in, json_object *doc);

/* Write doc as the "json" / "html" options ask. */
int ir_engine_write_outputs(struct idlereplay *ir);

#endif

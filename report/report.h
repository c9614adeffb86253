/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/: the report stage's contract.
 *
 * In:  what replay/ observed (struct ir_observed, struct ir_trace_info) and,
 *      later, model/ tallies.
 * Out: the JSON document "idlereplay.report/1" (built in one place,
 *      report/json.c) and renderers that read only that document.
 */
#ifndef IDLEREPLAY_REPORT_H
#define IDLEREPLAY_REPORT_H

#include <stdio.h>
#include <json-c/json.h>

#include "model/model.h"
#include "replay/replay.h"

#define IR_REPORT_SCHEMA "idlereplay.report/1"
#define IR_REPORT_SCHEMA_MINOR 8
#define IR_CALIB_SCHEMA "idlereplay.calibration/1"

struct ir_event_count {
	const char *name;	/* without the system prefix */
	uint64_t count;
};

/* ---------------------------------------------------------------- tallies */

struct ir_tally_level {
	uint64_t attempts, pulls, cost_ns;
	uint64_t moved;			/* tasks pulled (schedstat lb_gained) */
};

/* Mean and 5-95 % spread of one figure over a randomised policy's seeds. */
struct ir_spread {
	double mean, p5, p95;
};

struct ir_tally_cpu {
	uint64_t pulls, attempts, idle_recovered_ns, idle_lost_ns, cost_ns;
};

/* One policy instance's totals over a replay (SPEC 7). */
struct ir_tally {
	char name[32];			/* "baseline" */
	char label[128];		/* as given: "domain-cost:preset=cover" */
	char params[1024];		/* ir_policy_params_format() */
	int sweep;			/* index into ir_tallies.sweeps, -1 none */
	uint64_t sweep_value;
	uint64_t points, attempts, pulls, idle_recovered_ns, idle_lost_ns, cost_ns;
	uint64_t bails[IR_BAIL__COUNT];
	struct ir_tally_level level[IR_LVL__COUNT];
	int nr_cpus;
	struct ir_tally_cpu *cpu;
	uint64_t moved;
	/* fidelity against observed newidle pulls */
	uint64_t predicted, observed, true_pos;
	/* randomised policies: over nr_seeds seeds (0: not randomised) */
	int nr_seeds;
	struct ir_spread s_attempts, s_pulls, s_moved;
	struct ir_spread s_level_attempts[IR_LVL__COUNT], s_level_pulls[IR_LVL__COUNT],
		s_level_moved[IR_LVL__COUNT];
	/* at probed calls with an exit probe: the model's pulls, and those the
	 * kernel made too (ground truth's expected values) */
	struct ir_spread s_probed_pulls, s_probed_both;
};

struct ir_sweep {
	char policy[32], param[64];
	int first, n;			/* tallies [first, first + n) */
};

struct ir_tallies {
	int n;
	struct ir_tally *t;
	int nr_sweeps;
	struct ir_sweep *sweeps;
	int reference;			/* index, -1 none */
	int fidelity;			/* index of the recording kernel's policy, -1 none */
	const char *costs;		/* its costs: "probed", "calibrated" (cost_scale set, as
					 * `idlereplay calibrate` suggests), "set", "assumed" */
};

int ir_tally_init(struct ir_tally *t, const struct ir_policy_params *p, int nr_cpus);
void ir_tally_add(struct ir_tally *t, const struct ir_point *pt,
		  const struct ir_decision *d, const struct ir_outcome *o);
void ir_tally_free(struct ir_tally *t);
/* After the replay: a randomised run's figures become the means over its
 * seeds (rounded), with their spread; per-CPU figures stay seed 0's. */
void ir_tally_seeds(struct ir_tally *t, const struct ir_policy_run *r);
/* The timeline lane (0..IR_TL_MAX_LANES-1) that keeps tally i's pulls: the
 * policies that are not sweep points, in order; -1 for the others. */
int ir_tallies_lane(const struct ir_tallies *ts, int i);

/* ------------------------------------------------------------ ground truth */

#define IR_TRUTH_BINS 10000	/* relative error, 0.01 % bins up to 100 % */

/* The replay and the recording kernel's model checked against newidle
 * probes, at every probed call (issue 8, SPEC 8). */
struct ir_truth {
	bool probed;			/* mode: probed values instead of assumed ones */
	char policy[128];		/* the recording kernel's policy */
	uint64_t calls, matched, points;
	uint64_t err_n;
	uint32_t err_bins[IR_TRUTH_BINS + 1];	/* last bin: >= 100 % */
	uint64_t ovl_n, ovl_agree, bail_n, bail_agree;
	uint64_t pull_pred, pull_obs, pull_tp;
	double expected[IR_LVL__COUNT];
	uint64_t actual[IR_LVL__COUNT];
	bool randomised;		/* pull figures are means over seeds */
	struct ir_spread pull_pred_seeds;	/* randomised: the model's pulls over seeds */
	double pull_tp_mean;		/* randomised: pulls both made, mean over seeds */
};

void ir_truth_add(struct ir_truth *t, const struct ir_point *pt, const struct ir_decision_ctx *ctx,
		  const struct ir_decision *d, const struct ir_outcome *o);
/* The kernel's policy was randomised: expected pulls per level from its seeds. */
void ir_truth_seeds(struct ir_truth *t, const struct ir_tally *k);
/* Quantile q (0..1) of the avg_idle relative error; -1 if none. */
double ir_truth_err_quantile(const struct ir_truth *t, double q);

/* One JSON line for a newidle point (--decisions); 0 or -1 on write error. */
int ir_decisions_line(FILE *f, const struct ir_point *pt, const struct ir_decision_ctx *ctx,
		      const struct ir_tally *tallies, const struct ir_decision *d,
		      const struct ir_outcome *o, int n);

struct ir_report_input {
	const struct ir_trace_info *trace;
	const struct ir_observed *obs;
	const struct ir_state_params *params;
	const struct ir_event_count *events;
	int nr_events;
	const struct ir_domains *domains;	/* NULL: none built */
	const char *topology_source;		/* "trace", "option", "flat" */
	const struct ir_tallies *tallies;	/* NULL: no policies */
	const struct ir_truth *truth;		/* NULL: the trace has no probes */
	const struct ir_timeline *timeline;	/* NULL: none kept */
};

/*
 * An output file (output/place.h says where it goes): "-", NULL or a link to
 * our stdout is stdout; a new path, a regular file or a symlink to one is
 * written to a new file created exclusively beside it (O_EXCL|O_NOFOLLOW,
 * 0644: no following a link planted there) and renamed over path at close;
 * a device, FIFO or /proc/self/fd/N is written in place, never replaced.
 */
struct ir_out {
	const char *path;
	char tmp[4096];		/* the temp name; empty when not renamed */
	FILE *f;
};
int ir_out_open(struct ir_out *o, const char *path);
/* ok: everything was written.  0, or -1 with errno (the temp file is gone). */
int ir_out_close(struct ir_out *o, int ok);
/* True if path is "-" or names our stdout (/dev/stdout): two such outputs
 * of one command would interleave. */
bool ir_out_is_stdout(const char *path);

/* ------------------------------------------------------- closed loop */

/* The figures a closed-loop simulation and the trace both give (issue 13). */
struct ir_cl_figures {
	uint64_t completion_ns, idle_ns, idle_while_waiting_ns, wait_p50, wait_p99;
	uint64_t migrations, newidle_pulls, balance_cpu_ns;
	bool has_balance;		/* balance_cpu_ns known (a trace shows it with probes only) */
};

/* A randomised policy (NI_RANDOM's dice) is simulated once per seed, seed ..
 * seed + N - 1 (--sim-seeds N): its figures are the means over the seeds
 * (rounded), with their 5-95 % spread; a deterministic one is simulated once. */
#define IR_CL_DEFAULT_SEEDS 8
#define IR_CL_MAX_SEEDS 1024

struct ir_cl_run {
	const char *label;
	struct ir_cl_figures f;		/* the mean over nr_seeds seeds (1: the one run) */
	int nr_seeds;
	struct ir_cl_figures p5, p95;	/* each figure's 5th and 95th percentile over the seeds */
	uint64_t newidle_calls, newidle_attempts, mig_wakeup, mig_newidle, mig_periodic, wakeups, events;
	uint64_t forced;		/* frozen only: wakeups it had to force */
	bool stalled;
};

#define IR_CL_WAKE_KINDS 5
struct ir_cl_input {
	int n;
	const struct ir_cl_run *runs;	/* one per policy instance */
	int fidelity;			/* the recording kernel's policy among runs, -1 none */
	struct ir_cl_figures measured;	/* from the trace */
	struct ir_cl_run frozen;	/* placement and balancing frozen to the trace's */
	const char *const *wake_names;	/* IR_CL_WAKE_KINDS */
	uint64_t wakes[IR_CL_WAKE_KINDS];
	double explained;		/* share of wakeups the workload reproduces */
	const char *withheld;		/* NULL, or why the figures are withheld */
	uint64_t refill_ns, seed;
	int sim_seeds;			/* --sim-seeds: seeds per randomised policy */
	uint64_t probed_walk_ns;	/* the probed calls' median duration (0: no probes) */
	bool sync_wakeups;		/* WF_SYNC on a task's wakeups (sim/sim.h) */
	bool eevdf;			/* the fair class simulated: EEVDF (v6.6+ traces), else CFS */
	uint64_t idle_wake_ns, resched_ns;	/* measured from the trace */
	bool idle_exit_median;		/* --idle-exit median (sim/sim.h idle_exit_median) */
	uint64_t idle_exit_n[2];	/* the idle CPUs' wakeup latencies measured: remote, local */
	uint64_t idle_exit_q[2][4];	/* and their p50, p90, p99, greatest */
	uint64_t probed_lb_cost[3], probed_max_idle_balance_cost;	/* 0: no probes */
	uint64_t tasks, ops, workload_bytes;
};
/* Add "closed_loop" and "closed_loop_fit" to a report document (schema
 * minor 8: the seeds' spread); 0, or -1 out of memory. */
int ir_report_closed_loop(json_object *doc, const struct ir_cl_input *in);

/* Build the document; NULL on allocation failure. */
json_object *ir_report_json(const struct ir_report_input *in);
/* Render a document as text for people. */
int ir_report_text(json_object *doc, FILE *out);
/* Write a document to path ("-" for stdout) atomically; 0 or -1 with errno. */
int ir_report_write_json(json_object *doc, const char *path);

/*
 * Renderers.  Each reads only the document (any idlereplay.report/1, keys it
 * does not know are ignored, optional keys it knows are rendered when
 * present) and returns 0, or -1 when writing failed.
 */
/* One self-contained HTML page: inline CSS and SVG, no script, no network. */
int ir_report_html(json_object *doc, FILE *out);
/* Write the HTML page to path ("-" for stdout), atomically: for
 * 'idlereplay replay ... --html FILE'.  0, or -1 with errno. */
int ir_report_write_html(json_object *doc, const char *path);
/* The calibration document (IR_CALIB_SCHEMA) as text for people. */
int ir_calib_text(json_object *doc, FILE *out);
/* CSV, one row per policy (header only when the document has none). */
int ir_report_csv(json_object *doc, FILE *out);

/*
 * Long-format rows (report/rows.c): one per trace x policy x level, the
 * columns of docs/report.md.  host NULL: the trace's hostname, if the
 * document has one.  The CSV header is written once, by ir_rows_header().
 */
enum ir_rows_format { IR_ROWS_JSONL, IR_ROWS_CSV };
int ir_rows_header(enum ir_rows_format fmt, FILE *out);
int ir_report_rows(json_object *doc, const char *host, enum ir_rows_format fmt, FILE *out);

/*
 * Read a saved report.  Returns the document, or NULL with a one-line reason
 * in err (without the path): unreadable, not JSON, not this schema, or
 * larger than IR_REPORT_MAX_BYTES, checked before parsing: json-c takes up
 * to ~26 bytes of memory per byte of a report (an 8 MiB report of 512 CPUs'
 * timelines peaks at 210 MB), so 32 MiB (2048 CPUs with timelines) stays
 * under ~1 GB.
 */
#define IR_REPORT_MAX_BYTES (32 << 20)
json_object *ir_report_load(const char *path, char *err, size_t errlen);

/* The same policies on two traces, with per-policy deltas (B - A) and rates
 * per second of trace, as text, CSV (section,metric,unit,a,b,delta,a_per_s,
 * b_per_s,delta_per_s) or JSON ("idlereplay.compare/1", the same rows). */
enum ir_compare_format { IR_COMPARE_TEXT, IR_COMPARE_CSV, IR_COMPARE_JSON };
int ir_report_compare(json_object *a, const char *name_a, json_object *b, const char *name_b,
		      enum ir_compare_format fmt, FILE *out);

/* Two policy objects are the same policy: the same name and resolved
 * parameters ("params"), or, without params, the same label; never by name
 * alone.  compare and merge pair policies with it. */
bool ir_same_policy(json_object *p, json_object *q);
/* A warning on warn when doc differs from first in CPU count or topology
 * (one line, naming both). */
int ir_report_fleet_check_pair(json_object *first, const char *name0, json_object *doc, const char *name,
			       FILE *warn);

/*
 * Headlines (report/headline.c): per policy, migrations avoided and idle
 * traded against the reference, and the net effect with the modelled
 * balancing cost, net = (idle_recovered - balance_cost) - the reference's.
 */
struct ir_headline {
	char label[128];
	bool reference, has_ref;
	/* in double: from a file (or summed over a fleet) they may not fit int64_t */
	double pulls, avoided, idle_traded_ns, idle_recovered_ns, idle_lost_ns, cost_ns, net_ns;
};
int ir_headlines(json_object *doc, struct ir_headline *h, int max);
/* "domain-cost: avoids 1 migration (+245.2 us idle) vs baseline; ..." */
const char *ir_headline_text(const struct ir_headline *h, const char *ref, char *buf, size_t len);
/* The block a text report starts with: headlines, then a one-line summary
 * of fidelity and ground truth (details further down). */
void ir_headlines_text(json_object *doc, FILE *out);
/* The same for the HTML page: <section id="headline">, one <li> per policy
 * with data-pulls, data-avoided, data-traded, data-net (ns). */
void ir_headlines_html(json_object *doc, FILE *out);

/*
 * Fleet merge (report/merge.c), streamed: add reports one at a time (each
 * may be freed right after), then write.  Memory grows with hosts x
 * policies (a few numbers each), never with the documents.  A report of a
 * trace already added is refused (same first and last timestamp, events,
 * CPUs): ir_merge_add returns -1 with a reason in err.  name: the host's
 * name (NULL: the trace's hostname, else the report's file name).
 */
enum ir_merge_format { IR_MERGE_TEXT, IR_MERGE_CSV, IR_MERGE_HTML };
struct ir_merge;
struct ir_merge *ir_merge_new(void);
int ir_merge_add(struct ir_merge *m, json_object *doc, const char *file, const char *name,
		 char *err, size_t errlen);
/* A trace that produced no report: listed, with its error, near the top. */
int ir_merge_failed(struct ir_merge *m, const char *name, const char *error);
int ir_merge_write(struct ir_merge *m, enum ir_merge_format fmt, FILE *out);
void ir_merge_free(struct ir_merge *m);
/* Warn there when a report differs from the first in CPU count or topology. */
void ir_merge_warn(struct ir_merge *m, FILE *warn);

/*
 * Perfetto export (report/perfetto.c): the replay as a Trace Event JSON
 * trace for ui.perfetto.dev / chrome://tracing, streamed to out while the
 * trace is replayed.  Feed every event after ir_state_feed(), and every
 * point with the decisions and outcomes of tallies' policy instances
 * (sweep points get their own rows and counters).  The trace info and tallies must outlive it.
 */
struct ir_perfetto;
struct ir_perfetto_counts {
	uint64_t task_slices, idle_slices, repaired_slices, points, flows, counters, pulls, anomalies;
};
struct ir_perfetto *ir_perfetto_new(FILE *out, const struct ir_trace_info *ti,
				    const struct ir_tally *tallies, int n);
void ir_perfetto_event(struct ir_perfetto *p, const struct ir_event *ev, const struct ir_state *st);
void ir_perfetto_point(struct ir_perfetto *p, const struct ir_point *pt, const struct ir_decision_ctx *ctx,
		       const struct ir_decision *d, const struct ir_outcome *o);
/*
 * A simulated schedule (sim/capture.h) of policy instance i beside the
 * recorded one: its own process (pid IR_PF_SIM_PID + i), one thread per CPU
 * with task, idle and newidle-balance slices, newidle calls as instants and
 * migrations as flows (by cause); what the capture left out is counted in
 * the document's otherData.  w names the tasks; note (NULL: none) is added
 * to the process name.  sim_wanted says which instances are exported.
 */
#define IR_PF_SIM_PID 100
struct ir_capture;
struct ir_workload;
bool ir_perfetto_sim_wanted(const struct ir_perfetto *p, int i);
void ir_perfetto_sim(struct ir_perfetto *p, int i, const struct ir_workload *w, const struct ir_capture *cap,
		     const char *note);
/* Close open slices at end_ts and the document; 0, or -1 if writing failed. */
int ir_perfetto_finish(struct ir_perfetto *p, uint64_t end_ts, struct ir_perfetto_counts *counts);
void ir_perfetto_free(struct ir_perfetto *p);

/* Durations a person can read ("-" for negative): ns, us, ms, s. */
const char *ir_fmt_ns(char *buf, size_t len, int64_t ns);
/* s for a terminal (a trace's uname, a file name, any string of a report):
 * control bytes (C0, DEL, C1) written as \xNN.  Points into one of 8
 * rotating buffers (valid for the next 7 calls); NULL for NULL; long
 * strings end in "...". */
const char *ir_tsafe(const char *s);

/*
 * Progress on stderr for long replays: "events done, rate, ETA", redrawn in
 * place at most 4 times a second, only when stderr is a terminal and not
 * quiet.  No allocation; call update as often as every 64k events.
 * total 0 means unknown (no ETA).  unit names what done counts ("events",
 * "bytes").
 */
struct ir_progress {
	int enabled;
	const char *what, *unit;
	uint64_t total, done;
	double t0, last;
	int drawn;
};
void ir_progress_start(struct ir_progress *p, const char *what, const char *unit, uint64_t total, int quiet);
void ir_progress_update(struct ir_progress *p, uint64_t done);
void ir_progress_finish(struct ir_progress *p);

#endif

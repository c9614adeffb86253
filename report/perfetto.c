/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A replay as a trace in the Trace Event JSON format ("JSON Object Format":
 * {"traceEvents": [...]}, timestamps in microseconds), which ui.perfetto.dev
 * and chrome://tracing open, to set beside the recorded trace.dat:
 *  - process 1, one thread per CPU: complete ("X") slices of each task and
 *    of idle, from the recorded sched_switch events, and the spans the
 *    replay reconstructed (SPEC 9 repairs of a missing idle exit or entry,
 *    each CPU's start before its first event) as slices of their own
 *    marked "repaired": so each CPU's idle slices add up to the replay's
 *    idle time;
 *    newidle points as thread-scoped instants ("i") whose args hold every
 *    policy's decision and outcome; observed newidle pulls as flow arrows
 *    ("s" on the source CPU, "f" on the puller, bound to the enclosing
 *    slices);
 *    the anomalies the replay counted (missing_idle_exit, lost_events, ...)
 *    as instants on the CPU where it found them (cat "anomaly");
 *  - counters ("C") per CPU: nr_running and avg_idle as rebuilt, written
 *    when they change;
 *  - process 2: one counter per policy, its cumulative idle lost (ns), and
 *    one thread per policy with an instant wherever it would pull (its
 *    first seed's draw for a randomised policy);
 *  - process 3 (with sweeps): the same rows and counters per sweep point;
 *  - processes 100 + i (closed loop only): policy instance i's simulated
 *    schedule (ir_perfetto_sim()), sweep points included.
 * Streamed: constant memory per CPU, nothing kept per event.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "sim/sim.h"

#define PID_CPUS 1
#define PID_POLICIES 2
#define PID_SWEEPS 3

/* How the open slice of a CPU began: a recorded sched_switch, or the
 * replay's reconstruction (the slice is then named and marked so). */
enum pf_how { PF_RECORDED, PF_INFERRED, PF_MISSING_IDLE_EXIT, PF_MISSING_IDLE_ENTRY };
static const char *const how_reason[] = {
	[PF_INFERRED] = "before_first_switch",	/* replay/state.c first_sight() */
	[PF_MISSING_IDLE_EXIT] = "missing_idle_exit",
	[PF_MISSING_IDLE_ENTRY] = "missing_idle_entry",
};
static const char *const how_suffix[] = {
	[PF_RECORDED] = "", [PF_INFERRED] = " (inferred)",
	[PF_MISSING_IDLE_EXIT] = " (repaired)", [PF_MISSING_IDLE_ENTRY] = " (repaired)",
};

struct pf_cpu {
	bool seen;			/* an event on this CPU was read */
	bool open;			/* a slice runs since start */
	enum pf_how how;
	int32_t pid;
	char comm[IR_COMM_LEN + 1];	/* empty: not known yet */
	uint64_t start;
	int64_t nr_running, avg_idle;	/* last written, -1 none */
};

struct ir_perfetto {
	FILE *f;
	const struct ir_trace_info *ti;
	int nr_cpus, n;
	const struct ir_tally *tallies;
	struct pf_cpu *cpu;
	uint64_t base;			/* first event's timestamp: time 0 */
	bool based;
	uint64_t *idle_lost;		/* cumulative, per policy instance */
	uint64_t flows;
	bool any;			/* an element written: the next needs a comma */
	struct ir_perfetto_counts counts;
	uint64_t anom[IR_ANOM__COUNT];	/* the replay's anomaly counts, as last seen */
	struct pf_sim {			/* per policy instance: its simulated schedule */
		bool done;
		uint64_t t0;		/* simulated time 0, on the trace's clock */
		uint64_t max, kept[IR_CAP__KINDS], left_out[IR_CAP__KINDS];
	} *sim;
};

/* A JSON string of at most len bytes (stops at NUL). */
static void put_str(FILE *f, const char *s, size_t len)
{
	fputc('"', f);
	for (size_t i = 0; i < len && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Microseconds since the first event, to the nanosecond. */
static void put_ts(struct ir_perfetto *p, uint64_t ts)
{
	uint64_t d = ts > p->base ? ts - p->base : 0;

	fprintf(p->f, "%" PRIu64 ".%03u", d / 1000, (unsigned)(d % 1000));
}

/* Elements of traceEvents are comma-separated: one before all but the first. */
static void sep(struct ir_perfetto *p)
{
	fputs(p->any ? ",\n" : "\n", p->f);
	p->any = true;
}

static void begin(struct ir_perfetto *p, const char *ph, int pid, int tid, uint64_t ts)
{
	sep(p);
	fprintf(p->f, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", ph, pid, tid);
	put_ts(p, ts);
}

static void meta(struct ir_perfetto *p, const char *what, int pid, int tid, const char *name, int sort)
{
	sep(p);
	fprintf(p->f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":",
		pid, tid, what);
	put_str(p->f, name, strlen(name));
	fputs("}}", p->f);
	sep(p);
	fprintf(p->f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s_sort_index\",\"args\":{\"sort_index\":%d}}",
		pid, tid, !strcmp(what, "process_name") ? "process" : "thread", sort);
}

struct ir_perfetto *ir_perfetto_new(FILE *out, const struct ir_trace_info *ti,
				    const struct ir_tally *tallies, int n)
{
	struct ir_perfetto *p = calloc(1, sizeof(*p));
	char name[256];

	if (!p)
		return NULL;
	p->f = out;
	p->ti = ti;
	p->nr_cpus = ti->nr_cpus > 0 ? ti->nr_cpus : 0;
	p->n = n;
	p->tallies = tallies;
	p->cpu = calloc((size_t)p->nr_cpus + 1, sizeof(*p->cpu));
	p->idle_lost = calloc((size_t)n + 1, sizeof(*p->idle_lost));
	p->sim = calloc((size_t)n + 1, sizeof(*p->sim));
	if (!p->cpu || !p->idle_lost || !p->sim) {
		ir_perfetto_free(p);
		return NULL;
	}
	for (int c = 0; c < p->nr_cpus; c++)
		p->cpu[c].nr_running = p->cpu[c].avg_idle = -1;

	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
	snprintf(name, sizeof(name), "CPUs (recorded%s%.128s)", ti->kernel[0] ? ", " : "", ti->kernel);
	meta(p, "process_name", PID_CPUS, 0, name, 1);
	meta(p, "process_name", PID_POLICIES, 0, "newidle policies (modelled, open-loop)", 2);
	for (int i = 0; i < n; i++)
		if (tallies[i].sweep >= 0) {
			meta(p, "process_name", PID_SWEEPS, 0, "sweep points (modelled, open-loop)", 3);
			break;
		}
	for (int c = 0; c < p->nr_cpus; c++) {
		snprintf(name, sizeof(name), "CPU %d", c);
		meta(p, "thread_name", PID_CPUS, c, name, c);
	}
	/* thread 0 holds the counters; policy instance i's pulls are thread
	 * i + 1, in process 2, or 3 for a sweep point */
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%.200s: would pull", tallies[i].label);
		meta(p, "thread_name", tallies[i].sweep < 0 ? PID_POLICIES : PID_SWEEPS, i + 1, name, i + 1);
	}
	return p;
}

/* The open slice of CPU c ends at end.  A task slice whose comm is not
 * known yet (a repaired or inferred one) takes it from the recorded switch
 * that ends it, when that switch names it as prev. */
static void close_slice(struct ir_perfetto *p, int c, uint64_t end, const struct ir_event *ev)
{
	struct pf_cpu *s = &p->cpu[c];

	if (!s->open)
		return;
	if (s->pid > 0 && !s->comm[0] && ev && ev->type == IR_EV_SWITCH && ev->sw.prev_pid == s->pid &&
	    ev->sw.prev_comm) {
		size_t len = strnlen(ev->sw.prev_comm, ev->sw.prev_comm_len);

		len = len > IR_COMM_LEN ? IR_COMM_LEN : len;
		memcpy(s->comm, ev->sw.prev_comm, len);
		s->comm[len] = 0;
	}
	begin(p, "X", PID_CPUS, c, s->start);
	fputs(",\"dur\":", p->f);
	fprintf(p->f, "%" PRIu64 ".%03u", (end - s->start) / 1000, (unsigned)((end - s->start) % 1000));
	if (s->pid == 0) {
		fprintf(p->f, ",\"name\":\"idle%s\",\"cat\":\"idle\",\"args\":{\"pid\":0", how_suffix[s->how]);
		p->counts.idle_slices++;
	} else {
		char name[IR_COMM_LEN + 32];

		if (s->comm[0])
			snprintf(name, sizeof(name), "%s%s", s->comm, how_suffix[s->how]);
		else
			snprintf(name, sizeof(name), "pid %" PRId32 "%s", s->pid, how_suffix[s->how]);
		fputs(",\"name\":", p->f);
		put_str(p->f, name, sizeof(name));
		fprintf(p->f, ",\"cat\":\"task\",\"args\":{\"pid\":%" PRId32, s->pid);
		p->counts.task_slices++;
	}
	if (s->how != PF_RECORDED) {
		fprintf(p->f, ",\"repaired\":true,\"reason\":\"%s\"", how_reason[s->how]);
		p->counts.repaired_slices++;
	}
	fputs("}}", p->f);
	s->open = false;
}

/* CPU c runs pid (0: idle) from ts on; comm may be NULL (not known). */
static void open_slice(struct ir_perfetto *p, int c, uint64_t ts, int32_t pid, const char *comm, size_t len,
		       enum pf_how how)
{
	struct pf_cpu *s = &p->cpu[c];

	s->open = true;
	s->how = how;
	s->start = ts;
	s->pid = pid > 0 ? pid : 0;
	len = comm ? strnlen(comm, len) : 0;
	if (len > IR_COMM_LEN)
		len = IR_COMM_LEN;
	memcpy(s->comm, comm ? comm : "", len);
	s->comm[len] = 0;
}

/* The replay rebuilt what CPU c ran from ts on (SPEC 9 repairs): the slice
 * so far ends there, a marked one begins. */
static void repair(struct ir_perfetto *p, int c, uint64_t ts, int32_t pid, enum pf_how how)
{
	close_slice(p, c, ts, NULL);
	open_slice(p, c, ts, pid, NULL, 0, how);
}

static void counter(struct ir_perfetto *p, int c, uint64_t ts, const char *what, int64_t v, int64_t *last)
{
	if (v == *last)
		return;
	*last = v;
	begin(p, "C", PID_CPUS, 0, ts);
	fprintf(p->f, ",\"name\":\"CPU %d %s\",\"args\":{\"%s\":%" PRId64 "}}", c, what, what, v);
	p->counts.counters++;
}

static void cpu_counters(struct ir_perfetto *p, const struct ir_state *st, int c, uint64_t ts)
{
	if (c < 0 || c >= p->nr_cpus)
		return;
	counter(p, c, ts, "nr_running", ir_state_nr_running(st, c), &p->cpu[c].nr_running);
	counter(p, c, ts, "avg_idle", (int64_t)ir_state_avg_idle(st, c), &p->cpu[c].avg_idle);
}

/* The CPU whose switch into idle the replay found missing at this event
 * (replay/state.c missing_idle_entry()), given the slices as they stand:
 * the idle task's own event on a CPU thought busy; else, for a switch, the
 * other CPU whose task it switches in, which the replay now has idle. */
static int idle_entry_cpu(struct ir_perfetto *p, const struct ir_event *ev, const struct ir_state *st)
{
	int c = ev->cpu;

	if (ev->common_pid == 0 && p->cpu[c].open && p->cpu[c].pid > 0)
		return c;
	if (ev->type == IR_EV_SWITCH && ev->sw.next_pid > 0)
		for (int o = 0; o < p->nr_cpus; o++)
			if (o != c && p->cpu[o].open && p->cpu[o].pid == ev->sw.next_pid && ir_state_curr(st, o) == 0)
				return o;
	return c;
}

/* The anomalies this event made the replay count, each an instant where it
 * was found; a missing idle exit or entry also ends the slice there and
 * opens a repaired one, so the CPU's idle slices add up to the replay's
 * idle time.  Called before the event's own switch is applied. */
static void anomalies(struct ir_perfetto *p, const struct ir_event *ev, const struct ir_state *st)
{
	const struct ir_observed *obs = ir_state_observed(st);
	bool in = ev->cpu >= 0 && ev->cpu < p->nr_cpus;

	for (int k = 0; k < IR_ANOM__COUNT; k++) {
		for (; p->anom[k] < obs->anomalies[k]; p->anom[k]++) {
			int c = ev->cpu;

			if (!in)
				continue;	/* cpu_out_of_range: no track to put it on */
			if (k == IR_ANOM_MISSING_IDLE_EXIT) {
				/* an event from a task on a CPU thought idle */
				if (!p->cpu[c].open || p->cpu[c].pid == 0)
					repair(p, c, ev->ts, ev->common_pid, PF_MISSING_IDLE_EXIT);
			} else if (k == IR_ANOM_MISSING_IDLE_ENTRY) {
				c = idle_entry_cpu(p, ev, st);
				if (p->cpu[c].open && p->cpu[c].pid > 0)
					repair(p, c, ev->ts, 0, PF_MISSING_IDLE_ENTRY);
			}
			begin(p, "i", PID_CPUS, c, ev->ts);
			fprintf(p->f, ",\"s\":\"t\",\"name\":\"%s\",\"cat\":\"anomaly\"}", ir_anomaly_name[k]);
			p->counts.anomalies++;
		}
	}
}

void ir_perfetto_event(struct ir_perfetto *p, const struct ir_event *ev, const struct ir_state *st)
{
	int c = ev->cpu;

	if (!p->based) {
		p->base = ev->ts;
		p->based = true;
	}
	if (c >= 0 && c < p->nr_cpus && !p->cpu[c].seen) {
		/* what ran before a CPU's first event is inferred from it, as the
		 * replay does (first_sight()): its task, or idle */
		bool sw = ev->type == IR_EV_SWITCH;

		p->cpu[c].seen = true;
		open_slice(p, c, p->base, sw ? ev->sw.prev_pid : ev->common_pid, sw ? ev->sw.prev_comm : NULL,
			   sw ? ev->sw.prev_comm_len : 0, PF_INFERRED);
	}
	anomalies(p, ev, st);
	if (c < 0 || c >= p->nr_cpus)
		return;
	if (ev->type == IR_EV_SWITCH) {
		close_slice(p, c, ev->ts, ev);
		open_slice(p, c, ev->ts, ev->sw.next_pid, ev->sw.next_comm, ev->sw.next_comm ? ev->sw.next_comm_len : 0,
			   PF_RECORDED);
	}
	/* the CPUs whose runqueue this event may have changed */
	cpu_counters(p, st, c, ev->ts);
	if (ev->type == IR_EV_WAKEUP || ev->type == IR_EV_WAKEUP_NEW || ev->type == IR_EV_WAKING) {
		if (ev->wake.target_cpu != c)
			cpu_counters(p, st, ev->wake.target_cpu, ev->ts);
	} else if (ev->type == IR_EV_MIGRATE) {
		if (ev->mig.orig_cpu != c)
			cpu_counters(p, st, ev->mig.orig_cpu, ev->ts);
		if (ev->mig.dest_cpu != c)
			cpu_counters(p, st, ev->mig.dest_cpu, ev->ts);
	}
}

static const char *const kind_name[] = { "idle", "pulled", "late" };

/* The next policy instance's key ("label":), comma-separated; sweep points
 * are left out of the newidle instants' args (the sweep rows and counters
 * hold theirs): false for them. */
static bool policy_key(struct ir_perfetto *p, int i, bool *first)
{
	if (p->tallies[i].sweep >= 0)
		return false;
	fputs(*first ? "" : ",", p->f);
	*first = false;
	put_str(p->f, p->tallies[i].label, sizeof(p->tallies[i].label));
	fputc(':', p->f);
	return true;
}

/* Cumulative idle lost of policy instances [i, j) (the policies, or one
 * sweep's points), one counter keyed by label, when one of them lost idle
 * at this point. */
static void idle_lost_counter(struct ir_perfetto *p, uint64_t ts, const struct ir_outcome *o, int i, int j)
{
	const struct ir_tally *t = &p->tallies[i];
	bool lost = false;

	for (int k = i; k < j; k++)
		lost |= o[k].idle_lost_ns > 0;
	if (!lost)
		return;
	begin(p, "C", t->sweep < 0 ? PID_POLICIES : PID_SWEEPS, 0, ts);
	if (t->sweep < 0) {
		fputs(",\"name\":\"idle lost (cumulative, ns)\",\"args\":{", p->f);
	} else {
		/* a sweep point's label is "policy.param=value" */
		fprintf(p->f, ",\"name\":\"%.*s idle lost (cumulative, ns)\",\"args\":{",
			(int)strcspn(t->label, "=\"\\"), t->label);
	}
	for (int k = i; k < j; k++) {
		fputs(k > i ? "," : "", p->f);
		put_str(p->f, p->tallies[k].label, sizeof(p->tallies[k].label));
		fprintf(p->f, ":%" PRIu64, p->idle_lost[k]);
	}
	fputs("}}", p->f);
	p->counts.counters++;
}

void ir_perfetto_point(struct ir_perfetto *p, const struct ir_point *pt, const struct ir_decision_ctx *ctx,
		       const struct ir_decision *d, const struct ir_outcome *o)
{
	FILE *f = p->f;
	bool first = true;

	if (pt->cpu < 0 || pt->cpu >= p->nr_cpus)
		return;
	begin(p, "i", PID_CPUS, pt->cpu, pt->ts);
	fprintf(f, ",\"s\":\"t\",\"name\":\"newidle\",\"cat\":\"newidle\",\"args\":{\"kind\":\"%s\","
		"\"avg_idle\":%" PRIu64 ",\"overload\":%s,\"idle_ns\":%" PRIu64 ",\"policies\":{",
		kind_name[pt->kind], pt->avg_idle, pt->overload ? "true" : "false", pt->idle_ns);
	for (int i = 0; i < p->n; i++) {
		if (!policy_key(p, i, &first))
			continue;
		fprintf(f, "{\"bail\":\"%s\",\"tried\":\"", ir_bail_name[d[i].bail]);
		for (int k = 0; k < d[i].nr_tried; k++)
			fprintf(f, "%s%s", k ? "," : "", ir_level_name[d[i].kind[k]]);
		fprintf(f, "\",\"stop_level\":\"%s\",\"pulled\":%s",
			d[i].stop_level >= 0 && d[i].stop_level < ctx->nr_levels ?
			ir_level_name[ctx->kind[d[i].stop_level]] : "",
			o[i].pulled ? "true" : "false");
		if (o[i].pulled)
			fprintf(f, ",\"level\":\"%s\",\"pid\":%" PRId32 ",\"from_cpu\":%" PRId32,
				ir_level_name[o[i].level_kind], o[i].pid, o[i].from_cpu);
		fprintf(f, ",\"attempts\":%d,\"cost_ns\":%" PRIu64 ",\"idle_recovered_ns\":%" PRIu64
			",\"idle_lost_ns\":%" PRIu64 "}",
			o[i].attempts, o[i].cost_ns, o[i].idle_recovered_ns, o[i].idle_lost_ns);
	}
	fputs("}}}", f);
	p->counts.points++;

	if (pt->kind == IR_PT_PULLED && pt->pulled_from >= 0 && pt->pulled_from < p->nr_cpus) {
		uint64_t id = ++p->flows;

		begin(p, "s", PID_CPUS, pt->pulled_from, pt->ts);
		fprintf(f, ",\"id\":%" PRIu64 ",\"name\":\"newidle pull\",\"cat\":\"pull\",\"args\":{\"pid\":%" PRId32 "}}",
			id, pt->pulled_pid);
		begin(p, "f", PID_CPUS, pt->cpu, pt->ts);
		fprintf(f, ",\"bp\":\"e\",\"id\":%" PRIu64 ",\"name\":\"newidle pull\",\"cat\":\"pull\"}", id);
		p->counts.flows++;
	}

	/* where each policy (or sweep point) would pull: its own row */
	for (int i = 0; i < p->n; i++) {
		bool sw = p->tallies[i].sweep >= 0;

		if (!o[i].pulled)
			continue;
		begin(p, "i", sw ? PID_SWEEPS : PID_POLICIES, i + 1, pt->ts);
		fprintf(f, ",\"s\":\"t\",\"name\":\"pull\",\"cat\":\"%s\",\"args\":{\"cpu\":%d,"
			"\"from_cpu\":%" PRId32 ",\"level\":\"%s\",\"pid\":%" PRId32 ",\"moved\":%d}}",
			sw ? "sweep_pull" : "policy_pull", pt->cpu, o[i].from_cpu, ir_level_name[o[i].level_kind],
			o[i].pid, o[i].moved);
		p->counts.pulls++;
	}

	for (int i = 0; i < p->n; i++)
		p->idle_lost[i] += o[i].idle_lost_ns;
	/* the tallies hold the policies, then each sweep's points in a run */
	for (int i = 0, j; i < p->n; i = j) {
		for (j = i + 1; j < p->n && p->tallies[j].sweep == p->tallies[i].sweep; j++)
			;
		idle_lost_counter(p, pt->ts, o, i, j);
	}
}

bool ir_perfetto_sim_wanted(const struct ir_perfetto *p, int i)
{
	return p && i >= 0 && i < p->n;
}

static void put_dur(FILE *f, uint64_t d)
{
	fprintf(f, ",\"dur\":%" PRIu64 ".%03u", d / 1000, (unsigned)(d % 1000));
}

/* A simulated task's name and pid (w's task index), or what the CPU did. */
static void sim_slice(struct ir_perfetto *p, int pid, const struct ir_workload *w, const struct ir_cap_rec *r,
		      uint64_t t0)
{
	begin(p, "X", pid, r->cpu, t0 + r->ts);
	put_dur(p->f, r->dur);
	if (r->task == IR_CAP_IDLE) {
		fputs(",\"name\":\"idle\",\"cat\":\"idle\",\"args\":{\"pid\":0}}", p->f);
	} else if (r->task == IR_CAP_BALANCE) {
		fputs(",\"name\":\"newidle balance\",\"cat\":\"balance\"}", p->f);
	} else if (r->task >= 0 && (uint32_t)r->task < w->nr_tasks) {
		const struct ir_sim_task *t = &w->task[r->task];

		fputs(",\"name\":", p->f);
		put_str(p->f, t->comm, sizeof(t->comm));
		fprintf(p->f, ",\"cat\":\"task\",\"args\":{\"pid\":%" PRId32 "}}", t->pid);
	} else {
		fputs(",\"name\":\"?\",\"cat\":\"task\"}", p->f);
	}
}

void ir_perfetto_sim(struct ir_perfetto *p, int i, const struct ir_workload *w, const struct ir_capture *cap,
		     const char *note)
{
	int pid = IR_PF_SIM_PID + i;
	char name[512];
	uint64_t t0 = w->first_ts;	/* simulated time 0 is the trace's first event */

	if (!ir_perfetto_sim_wanted(p, i) || !cap)
		return;
	snprintf(name, sizeof(name), "simulated: %.200s (closed loop%s%.200s)", p->tallies[i].label,
		 note ? "; " : "", note ? note : "");
	meta(p, "process_name", pid, 0, name, 10 + i);
	for (int c = 0; c < cap->nr_cpus; c++) {
		snprintf(name, sizeof(name), "CPU %d", c);
		meta(p, "thread_name", pid, c, name, c);
	}
	for (uint64_t k = 0; k < cap->n; k++) {
		const struct ir_cap_rec *r = &cap->rec[k];
		const struct ir_sim_task *t = r->task >= 0 && (uint32_t)r->task < w->nr_tasks ? &w->task[r->task] : NULL;

		if (r->kind == IR_CAP_SLICE) {
			sim_slice(p, pid, w, r, t0);
		} else if (r->kind == IR_CAP_NEWIDLE) {
			begin(p, "i", pid, r->cpu, t0 + r->ts);
			fprintf(p->f, ",\"s\":\"t\",\"name\":\"newidle\",\"cat\":\"sim_newidle\",\"args\":{"
				"\"pulled\":%s,\"attempts\":%u,\"cost_ns\":%" PRIu64,
				r->task >= 0 ? "true" : "false", r->arg, r->dur);
			if (t)
				fprintf(p->f, ",\"pid\":%" PRId32 ",\"from_cpu\":%u", t->pid, r->from);
			fputs("}}", p->f);
		} else {
			uint64_t id = ++p->flows;
			const char *cause = r->arg < IR_CAP__CAUSES ? ir_cap_cause_name[r->arg] : "?";

			begin(p, "s", pid, r->from, t0 + r->ts);
			fprintf(p->f, ",\"id\":%" PRIu64 ",\"name\":\"%s migration\",\"cat\":\"sim_migration\","
				"\"args\":{\"cause\":\"%s\",\"pid\":%" PRId32 "}}", id, cause, cause, t ? t->pid : -1);
			begin(p, "f", pid, r->cpu, t0 + r->ts);
			fprintf(p->f, ",\"bp\":\"e\",\"id\":%" PRIu64 ",\"name\":\"%s migration\",\"cat\":\"sim_migration\"}",
				id, cause);
		}
	}
	p->sim[i].done = true;
	p->sim[i].t0 = t0;
	p->sim[i].max = cap->max;
	for (int k = 0; k < IR_CAP__KINDS; k++) {
		p->sim[i].kept[k] = cap->kept[k];
		p->sim[i].left_out[k] = cap->left_out[k];
	}
}

/* otherData.simulated: per exported simulation, what it holds and what the
 * cap (or memory) left out. */
static void sim_meta(struct ir_perfetto *p)
{
	static const char *const kind[IR_CAP__KINDS] = { "slices", "newidle_calls", "migrations" };
	bool first = true;

	fputs(",\"simulated\":{", p->f);
	for (int i = 0; i < p->n; i++) {
		if (!p->sim[i].done)
			continue;
		fputs(first ? "" : ",", p->f);
		first = false;
		put_str(p->f, p->tallies[i].label, sizeof(p->tallies[i].label));
		fprintf(p->f, ":{\"pid\":%d,\"t0_us\":", IR_PF_SIM_PID + i);
		put_ts(p, p->sim[i].t0);
		fprintf(p->f, ",\"max_records\":%" PRIu64, p->sim[i].max);
		for (int k = 0; k < IR_CAP__KINDS; k++)
			fprintf(p->f, ",\"%s\":%" PRIu64, kind[k], p->sim[i].kept[k]);
		fputs(",\"left_out\":{", p->f);
		for (int k = 0; k < IR_CAP__KINDS; k++)
			fprintf(p->f, "%s\"%s\":%" PRIu64, k ? "," : "", kind[k], p->sim[i].left_out[k]);
		fputs("}}", p->f);
	}
	fputc('}', p->f);
}

int ir_perfetto_finish(struct ir_perfetto *p, uint64_t end_ts, struct ir_perfetto_counts *counts)
{
	for (int c = 0; c < p->nr_cpus; c++)
		close_slice(p, c, end_ts > p->cpu[c].start ? end_ts : p->cpu[c].start, NULL);
	fputs("\n],\"otherData\":{\"generator\":\"idlereplay " IDLEREPLAY_VERSION "\",\"trace\":", p->f);
	put_str(p->f, p->ti->path, sizeof(p->ti->path));
	fputs(",\"kernel\":", p->f);
	put_str(p->f, p->ti->kernel, sizeof(p->ti->kernel));
	fprintf(p->f, ",\"first_ts_ns\":%" PRIu64 ",\"note\":\"ts 0 is first_ts_ns; policy figures of "
		"processes 1-3 are open-loop estimates; processes %d+ are simulated schedules (closed loop)\"",
		p->base, IR_PF_SIM_PID);
	sim_meta(p);
	fputs("}}\n", p->f);
	if (counts)
		*counts = p->counts;
	return ferror(p->f) ? -1 : 0;
}

void ir_perfetto_free(struct ir_perfetto *p)
{
	if (!p)
		return;
	free(p->cpu);
	free(p->idle_lost);
	free(p->sim);
	free(p);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A replay as a trace in the Trace Event JSON format ("JSON Object Format":
 * {"traceEvents": [...]}, timestamps in microseconds), which ui.perfetto.dev
 * and chrome://tracing open, to set beside the recorded trace.dat:
 *  - process 1, one thread per CPU: complete ("X") slices of each task and
 *    of idle, from the recorded sched_switch events;
 *    newidle points as thread-scoped instants ("i") whose args hold every
 *    policy's decision and outcome; observed newidle pulls as flow arrows
 *    ("s" on the source CPU, "f" on the puller, bound to the enclosing
 *    slices);
 *  - counters ("C") per CPU: nr_running and avg_idle as rebuilt, written
 *    when they change;
 *  - process 2: one counter per policy, its cumulative idle lost (ns).
 * Streamed: constant memory per CPU, nothing kept per event.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

#define PID_CPUS 1
#define PID_POLICIES 2

struct pf_cpu {
	bool open;			/* a slice runs since start */
	int32_t pid;
	char comm[IR_COMM_LEN + 1];
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
	if (!p->cpu || !p->idle_lost) {
		ir_perfetto_free(p);
		return NULL;
	}
	for (int c = 0; c < p->nr_cpus; c++)
		p->cpu[c].nr_running = p->cpu[c].avg_idle = -1;

	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
	snprintf(name, sizeof(name), "CPUs (recorded%s%.128s)", ti->kernel[0] ? ", " : "", ti->kernel);
	meta(p, "process_name", PID_CPUS, 0, name, 1);
	meta(p, "process_name", PID_POLICIES, 0, "newidle policies (modelled, open-loop)", 2);
	for (int c = 0; c < p->nr_cpus; c++) {
		snprintf(name, sizeof(name), "CPU %d", c);
		meta(p, "thread_name", PID_CPUS, c, name, c);
	}
	return p;
}

static void close_slice(struct ir_perfetto *p, int c, uint64_t end)
{
	struct pf_cpu *s = &p->cpu[c];

	if (!s->open)
		return;
	begin(p, "X", PID_CPUS, c, s->start);
	fputs(",\"dur\":", p->f);
	fprintf(p->f, "%" PRIu64 ".%03u", (end - s->start) / 1000, (unsigned)((end - s->start) % 1000));
	if (s->pid == 0) {
		fputs(",\"name\":\"idle\",\"cat\":\"idle\",\"args\":{\"pid\":0}}", p->f);
		p->counts.idle_slices++;
	} else {
		fputs(",\"name\":", p->f);
		put_str(p->f, s->comm, sizeof(s->comm));
		fprintf(p->f, ",\"cat\":\"task\",\"args\":{\"pid\":%" PRId32 "}}", s->pid);
		p->counts.task_slices++;
	}
	s->open = false;
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

void ir_perfetto_event(struct ir_perfetto *p, const struct ir_event *ev, const struct ir_state *st)
{
	int c = ev->cpu;

	if (!p->based) {
		p->base = ev->ts;
		p->based = true;
	}
	if (c < 0 || c >= p->nr_cpus)
		return;
	if (ev->type == IR_EV_SWITCH) {
		struct pf_cpu *s = &p->cpu[c];
		size_t len = ev->sw.next_comm ? strnlen(ev->sw.next_comm, ev->sw.next_comm_len) : 0;

		close_slice(p, c, ev->ts);
		s->open = true;
		s->start = ev->ts;
		s->pid = ev->sw.next_pid;
		if (len > IR_COMM_LEN)
			len = IR_COMM_LEN;
		memcpy(s->comm, ev->sw.next_comm ? ev->sw.next_comm : "", len);
		s->comm[len] = 0;
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
 * are left out: false for them. */
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

void ir_perfetto_point(struct ir_perfetto *p, const struct ir_point *pt, const struct ir_decision_ctx *ctx,
		       const struct ir_decision *d, const struct ir_outcome *o)
{
	FILE *f = p->f;
	bool lost = false, first = true;

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

	for (int i = 0; i < p->n; i++)
		if (o[i].idle_lost_ns) {
			p->idle_lost[i] += o[i].idle_lost_ns;
			lost = true;
		}
	if (!lost)
		return;
	begin(p, "C", PID_POLICIES, 0, pt->ts);
	fputs(",\"name\":\"idle lost (cumulative, ns)\",\"args\":{", f);
	first = true;
	for (int i = 0; i < p->n; i++)
		if (policy_key(p, i, &first))
			fprintf(f, "%" PRIu64, p->idle_lost[i]);
	fputs("}}", f);
	p->counts.counters++;
}

int ir_perfetto_finish(struct ir_perfetto *p, uint64_t end_ts, struct ir_perfetto_counts *counts)
{
	for (int c = 0; c < p->nr_cpus; c++)
		close_slice(p, c, end_ts > p->cpu[c].start ? end_ts : p->cpu[c].start);
	fputs("\n],\"otherData\":{\"generator\":\"idlereplay " IDLEREPLAY_VERSION "\",\"trace\":", p->f);
	put_str(p->f, p->ti->path, sizeof(p->ti->path));
	fputs(",\"kernel\":", p->f);
	put_str(p->f, p->ti->kernel, sizeof(p->ti->kernel));
	fprintf(p->f, ",\"first_ts_ns\":%" PRIu64 ",\"note\":\"ts 0 is first_ts_ns; policy figures are "
		"open-loop estimates\"}}\n", p->base);
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
	free(p);
}

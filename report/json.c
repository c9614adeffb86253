/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one place that builds the JSON report (schema idlereplay.report/1,
 * described by report/schema.json).  Keys are stable; additions bump
 * schema_minor.  Numbers are integers in nanoseconds unless named otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"

static json_object *u64(uint64_t v)
{
	return json_object_new_int64((int64_t)v);
}

static json_object *trace_obj(const struct ir_report_input *in)
{
	const struct ir_trace_info *ti = in->trace;
	json_object *t = json_object_new_object(), *ev = json_object_new_object();
	json_object *lost = json_object_new_array();
	uint64_t total_lost = 0;

	json_object_object_add(t, "path", json_object_new_string(ti->path));
	json_object_object_add(t, "kernel", json_object_new_string(ti->kernel));
	json_object_object_add(t, "clock", json_object_new_string(ti->clock));
	json_object_object_add(t, "file_version", json_object_new_int(ti->file_version));
	json_object_object_add(t, "cpus", json_object_new_int(ti->nr_cpus));
	for (int i = 0; i < in->nr_events; i++)
		json_object_object_add(ev, in->events[i].name, u64(in->events[i].count));
	json_object_object_add(t, "events", ev);
	json_object_object_add(t, "events_total", u64(ti->events_total));
	json_object_object_add(t, "window_ns", u64(in->obs->window_end - in->obs->window_start));
	json_object_object_add(t, "first_ts", u64(in->obs->window_start));
	json_object_object_add(t, "last_ts", u64(in->obs->window_end));
	for (int i = 0; i < ti->nr_cpus && ti->loss; i++) {
		const struct ir_cpu_loss *l = &ti->loss[i];
		json_object *o;

		if (!l->overrun && !l->dropped && !l->missed && !l->missed_unknown)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "cpu", json_object_new_int(l->cpu));
		json_object_object_add(o, "overrun", u64(l->overrun));
		json_object_object_add(o, "dropped", u64(l->dropped));
		json_object_object_add(o, "missed", u64(l->missed));
		json_object_object_add(o, "missed_unknown_count", u64(l->missed_unknown));
		json_object_object_add(o, "first_ts", u64(l->first_ts));
		json_object_object_add(o, "last_ts", u64(l->last_ts));
		json_object_array_add(lost, o);
		total_lost += l->overrun + l->dropped + l->missed;
	}
	json_object_object_add(t, "lost_events", u64(total_lost));
	json_object_object_add(t, "lost_by_cpu", lost);
	json_object_object_add(t, "has_waking", json_object_new_boolean(ti->has_waking));
	json_object_object_add(t, "has_probes", json_object_new_boolean(ti->has_probes));
	return t;
}

static json_object *observed_obj(const struct ir_report_input *in)
{
	const struct ir_observed *ob = in->obs;
	json_object *o = json_object_new_object(), *cpus = json_object_new_array();
	json_object *mig = json_object_new_object(), *by = json_object_new_object();
	json_object *an = json_object_new_object();

	for (int c = 0; c < ob->nr_cpus; c++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "cpu", json_object_new_int(c));
		json_object_object_add(x, "idle_ns", u64(ob->cpu[c].idle_ns));
		json_object_object_add(x, "busy_ns", u64(ob->cpu[c].busy_ns));
		json_object_object_add(x, "idle_entries", u64(ob->cpu[c].idle_entries));
		json_object_object_add(x, "newidle_points", u64(ob->cpu[c].newidle_points));
		json_object_object_add(x, "newidle_pulls", u64(ob->cpu[c].newidle_pulls));
		json_object_array_add(cpus, x);
	}
	json_object_object_add(o, "cpus", cpus);
	json_object_object_add(o, "idle_while_waiting_ns", u64(ob->idle_while_waiting_ns));
	json_object_object_add(mig, "total", u64(ob->migrations));
	for (int i = 0; i < IR_MIG__COUNT; i++)
		json_object_object_add(by, ir_mig_cause_name[i], u64(ob->mig_by_cause[i]));
	json_object_object_add(mig, "by_cause", by);
	json_object_object_add(o, "migrations", mig);
	json_object_object_add(o, "newidle_points", u64(ob->newidle_points));
	json_object_object_add(o, "newidle_pulls", u64(ob->newidle_pulls));
	for (int i = 0; i < IR_ANOM__COUNT; i++)
		json_object_object_add(an, ir_anomaly_name[i], u64(ob->anomalies[i]));
	json_object_object_add(o, "anomalies", an);
	return o;
}

static json_object *assumptions_obj(const struct ir_state_params *p)
{
	json_object *a = json_object_new_object();

	json_object_object_add(a, "sched_migration_cost_ns", u64(p->sched_migration_cost));
	json_object_object_add(a, "max_idle_balance_cost_ns", u64(p->max_idle_balance_cost));
	json_object_object_add(a, "avg_idle_init_ns", u64(p->avg_idle_init));
	json_object_object_add(a, "overload_tick_ns", u64(p->tick_ns));
	json_object_object_add(a, "late_window_ns", u64(p->late_window_ns));
	json_object_object_add(a, "avg_idle_shift", json_object_new_boolean(p->avg_idle_shift));
	json_object_object_add(a, "probe_seed", json_object_new_boolean(p->probe_seed));
	return a;
}

json_object *ir_report_json(const struct ir_report_input *in)
{
	json_object *doc = json_object_new_object();

	if (!doc)
		return NULL;
	json_object_object_add(doc, "schema", json_object_new_string(IR_REPORT_SCHEMA));
	json_object_object_add(doc, "schema_minor", json_object_new_int(IR_REPORT_SCHEMA_MINOR));
	json_object_object_add(doc, "generator", json_object_new_string("idlereplay " IDLEREPLAY_VERSION));
	json_object_object_add(doc, "trace", trace_obj(in));
	json_object_object_add(doc, "assumptions", assumptions_obj(in->params));
	json_object_object_add(doc, "observed", observed_obj(in));
	return doc;
}

int ir_report_write_json(json_object *doc, const char *path)
{
	const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(s);
	char tmp[4096];
	FILE *f;

	if (!strcmp(path, "-")) {
		if (fwrite(s, 1, len, stdout) != len || fputc('\n', stdout) == EOF || fflush(stdout))
			return -1;
		return 0;
	}
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	{
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);

		if (fd < 0)
			return -1;
		f = fdopen(fd, "w");
		if (!f) {
			close(fd);
			unlink(tmp);
			return -1;
		}
	}
	if (fwrite(s, 1, len, f) != len || fputc('\n', f) == EOF) {
		fclose(f);
		unlink(tmp);
		return -1;
	}
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

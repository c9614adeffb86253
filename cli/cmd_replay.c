/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay replay: trace.dat -> replay state -> report. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "replay/replay.h"
#include "report/report.h"

static const char usage[] =
	"usage: idlereplay replay TRACE [options]\n"
	"  --json FILE|-            write the JSON report (schema " IR_REPORT_SCHEMA ")\n"
	"  --migration-cost NS      sysctl_sched_migration_cost for task_hot() (default: from the trace, else 500us)\n"
	"  --max-idle-balance-cost NS  rq->max_idle_balance_cost; avg_idle is capped at twice it (default 500us)\n"
	"  --tick NS                how long rd->overload outlives the last overloaded rq (default 4ms)\n"
	"  --late-window NS         arrivals this close before a blocking switch came after newidle entry (default 100us)\n"
	"  --probe-seed             take the avg_idle cap and seed from newidle probes in the trace\n"
	"  --quiet                  no text report on stdout\n"
	"Durations accept ns, us, ms, s suffixes.\n";

struct run {
	struct ir_state *st;
};

static int feed(void *arg, const struct ir_event *ev)
{
	ir_state_feed(((struct run *)arg)->st, ev);
	return 0;
}

static void no_point(void *arg, const struct ir_point *pt)
{
	(void)arg;
	(void)pt;
}

struct counts {
	struct ir_event_count *v;
	int n, cap;
};

static void add_count(void *arg, const char *name, uint64_t count)
{
	struct counts *c = arg;

	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 32;
		struct ir_event_count *v = realloc(c->v, (size_t)cap * sizeof(*v));

		if (!v)
			return;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n].name = name;
	c->v[c->n].count = count;
	c->n++;
}

/* "500us", "2ms", "1s", "1500" (ns). */
int cli_parse_ns(const char *s, uint64_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	if (!*end || !strcmp(end, "ns"))
		;
	else if (!strcmp(end, "us"))
		v *= 1e3;
	else if (!strcmp(end, "ms"))
		v *= 1e6;
	else if (!strcmp(end, "s"))
		v *= 1e9;
	else
		return -1;
	if (v > 1e18)
		return -1;
	*out = (uint64_t)(v + 0.5);
	return 0;
}

/* sched_migration_cost_ns recorded by `idlereplay record`, if any. */
static int meta_migration_cost(const struct ir_trace_info *ti, uint64_t *v)
{
	const char *m = ti->meta ? strstr(ti->meta, "sched_migration_cost_ns ") : NULL;
	char *end;
	unsigned long long x;

	if (!m)
		return -1;
	x = strtoull(m + 24, &end, 10);
	if (end == m + 24)
		return -1;
	*v = x;
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "migration-cost", required_argument, NULL, 'm' },
		{ "max-idle-balance-cost", required_argument, NULL, 'B' },
		{ "tick", required_argument, NULL, 't' },
		{ "late-window", required_argument, NULL, 'L' },
		{ "probe-seed", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *json_path = NULL, *path;
	struct ir_state_params sp;
	bool mc_set = false, quiet = false;
	struct ir_trace *tr = NULL;
	const struct ir_trace_info *ti;
	struct run run = { 0 };
	struct counts counts = { 0 };
	char err[1024];
	int o, ret;
	uint64_t v;
	json_object *doc = NULL;

	ir_state_params_default(&sp);
	optind = 1;
	while ((o = getopt_long(argc, argv, "j:qh", opts, NULL)) != -1) {
		switch (o) {
		case 'j':
			json_path = optarg;
			break;
		case 'm': case 'B': case 't': case 'L':
			if (cli_parse_ns(optarg, &v))
				return cli_fail(IR_ERR_USAGE, "replay: bad duration '%s' for --%s", optarg,
						o == 'm' ? "migration-cost" : o == 'B' ? "max-idle-balance-cost" :
						o == 't' ? "tick" : "late-window");
			if (o == 'm') {
				sp.sched_migration_cost = v;
				mc_set = true;
			} else if (o == 'B') {
				sp.max_idle_balance_cost = v;
			} else if (o == 't') {
				sp.tick_ns = v;
			} else {
				sp.late_window_ns = v;
			}
			break;
		case 'P':
			sp.probe_seed = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return IR_OK;
		default:
			fputs(usage, stderr);
			return IR_ERR_USAGE;
		}
	}
	if (optind != argc - 1) {
		fputs(usage, stderr);
		return cli_fail(IR_ERR_USAGE, "replay: expected one TRACE argument");
	}
	path = argv[optind];

	if ((ret = ir_trace_open(path, &tr, err, sizeof(err))))
		return cli_fail(ret, "%s", err);
	ti = ir_trace_info(tr);
	if (!mc_set)
		meta_migration_cost(ti, &sp.sched_migration_cost);
	sp.avg_idle_init = 2 * sp.sched_migration_cost;
	sp.avg_idle_shift = ti->kernel_major == 4 && ti->kernel_minor < 17;

	run.st = ir_state_new(ti->nr_cpus, &sp, NULL, no_point, NULL);
	if (!run.st) {
		ir_trace_close(tr);
		return cli_fail(IR_ERR_INPUT, "%s: out of memory", path);
	}
	if ((ret = ir_trace_run(tr, feed, &run, err, sizeof(err)))) {
		ret = cli_fail(ret, "%s", err);
		goto out;
	}
	if (!ti->events_total) {
		ret = cli_fail(IR_ERR_INPUT, "%s: the trace holds no events", path);
		goto out;
	}
	if (!ti->events[IR_EV_SWITCH]) {
		ret = cli_fail(IR_ERR_INPUT, "%s: no sched_switch events in the trace", path);
		goto out;
	}
	ir_state_finish(run.st, ti->last_ts);
	ir_trace_event_counts(tr, add_count, &counts);
	{
		struct ir_report_input in = {
			.trace = ti, .obs = ir_state_observed(run.st), .params = &sp,
			.events = counts.v, .nr_events = counts.n,
		};

		doc = ir_report_json(&in);
	}
	if (!doc) {
		ret = cli_fail(IR_ERR_INPUT, "%s: out of memory", path);
		goto out;
	}
	for (int c = 0; c < ti->nr_cpus; c++) {
		const struct ir_cpu_loss *l = &ti->loss[c];

		if (l->overrun || l->dropped || l->missed || l->missed_unknown)
			fprintf(stderr, "idlereplay: %s: warning: CPU %d lost events (overrun %llu, dropped %llu, missed %llu); its figures are incomplete\n",
				path, c, (unsigned long long)l->overrun, (unsigned long long)l->dropped,
				(unsigned long long)l->missed);
	}
	if (json_path && ir_report_write_json(doc, json_path)) {
		ret = cli_fail(IR_ERR_INPUT, "%s: cannot write JSON report: %s", json_path, strerror(errno));
		goto out;
	}
	if (!quiet && !(json_path && !strcmp(json_path, "-")))
		ir_report_text(doc, stdout);
	ret = IR_OK;
out:
	json_object_put(doc);
	free(counts.v);
	ir_state_free(run.st);
	ir_trace_close(tr);
	return ret;
}

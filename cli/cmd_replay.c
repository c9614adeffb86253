/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay replay: trace.dat -> replay state -> report. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/model.h"
#include "replay/replay.h"
#include "report/report.h"

#define MAX_RUNS 4096

static const char usage[] =
	"usage: idlereplay replay TRACE [options]\n"
	"  --json FILE|-            write the JSON report (schema " IR_REPORT_SCHEMA ")\n"
	"  --migration-cost NS      sysctl_sched_migration_cost for task_hot() (default: from the trace, else 500us)\n"
	"  --max-idle-balance-cost NS  rq->max_idle_balance_cost; avg_idle is capped at twice it (default 500us)\n"
	"  --tick NS                how long rd->overload outlives the last overloaded rq (default 4ms)\n"
	"  --late-window NS         arrivals this close before a blocking switch came after newidle entry (default 100us)\n"
	"  --newidle-lead NS        newidle entry (idle_stamp) precedes its switch by this much (default 0;\n"
	"                           `idlereplay calibrate` measures it where probes exist)\n"
	"  --probe-seed             probed mode: take the avg_idle cap, each CPU's first avg_idle, idle_stamp\n"
	"                           and per-level max_newidle_lb_cost from newidle probes in the trace\n"
	"  --decisions FILE.jsonl   one JSON line per newidle point: state, every policy's decision and\n"
	"                           outcome, and the probed truth where there is one\n"
	"  --topology FILE|SPEC     the machine's topology (default: the one recorded in the trace, else one flat LLC)\n"
	"  --policy NAME[:k=v,...]  replay this policy (repeatable; default: all): baseline, domain-cost,\n"
	"                           no-check, mainline, bump, proportional; e.g. domain-cost:preset=cover,\n"
	"                           mainline:mc.max_newidle_lb_cost=30us\n"
	"  --sweep POLICY.PARAM=FROM:TO:STEP  also replay POLICY at every value of PARAM, in the same pass\n"
	"                           e.g. baseline.sysctl_sched_migration_cost=0:1ms:100us\n"
	"  --reference NAME         the policy others are compared with (default baseline)\n"
	"  --kernel-policy NAME     the policy that models the recording kernel, for fidelity\n"
	"                           (default: from the trace's kernel release and sched features)\n"
	"  --html FILE|-            write the HTML report (one self-contained file, with timelines)\n"
	"  --perfetto FILE|-        write the replay as a Trace Event JSON trace (ui.perfetto.dev)\n"
	"  --timeline               keep per-CPU timelines in the JSON (busy share, newidle points, pulls)\n"
	"  --detail OFFSET:LENGTH   the timeline's detailed window, from the trace start\n"
	"                           (default: 20ms from the first newidle point)\n"
	"  --quiet                  no text report on stdout, no progress on stderr\n"
	"Durations accept ns, us, ms, s suffixes.\n";

struct run {
	struct ir_state *st;
	const struct ir_trace_info *ti;
	const struct ir_trace *tr;
	uint64_t events;
	struct ir_progress progress;
	const struct ir_domains *dom;
	struct ir_policy_run *runs;
	struct ir_tally *tallies;
	int n;
	struct ir_decision *d;
	struct ir_outcome *o;
	struct ir_truth *truth;		/* NULL without probes */
	FILE *decisions;		/* --decisions, or NULL */
	int decisions_err;
	int fidelity;			/* run index of the recording kernel's policy */
	struct ir_perfetto *pf;		/* --perfetto, or NULL */
};

static int feed(void *arg, const struct ir_event *ev)
{
	struct run *r = arg;

	ir_state_feed(r->st, ev);
	if (r->pf)
		ir_perfetto_event(r->pf, ev, r->st);
	if (!(++r->events & 0xffff) && r->progress.enabled) {
		/* ETA from the share of the file's event data read so far */
		uint64_t bytes = ir_trace_bytes_read(r->tr);

		if (bytes)
			r->progress.total = (uint64_t)((double)r->events * (double)r->ti->data_bytes / (double)bytes);
		ir_progress_update(&r->progress, r->events);
	}
	return 0;
}

/* Check the recording kernel's model against the probe at this point: with
 * the assumed parameters (its own run), or the probed ones (a scratch decision
 * that leaves the run's state alone). */
static void check_truth(struct run *r, const struct ir_point *pt, bool before)
{
	struct ir_policy_run *k = &r->runs[r->fidelity];
	struct ir_decision_ctx ctx;
	struct ir_decision dd;
	struct ir_outcome oo;

	if (before != r->truth->probed)
		return;
	ir_decision_ctx_init(&ctx, pt, r->dom);
	if (r->truth->probed) {
		struct ir_policy_params pp = k->p;

		ir_params_from_probe(pt, &ctx, &pp);
		ir_decide(&ctx, &pp, &k->st, &dd);
		ir_outcome(pt, &dd, &oo);
		ir_truth_add(r->truth, pt, &ctx, &dd, &oo, k->p.kind == IR_POL_PROPORTIONAL);
	} else {
		ir_truth_add(r->truth, pt, &ctx, &r->d[r->fidelity], &r->o[r->fidelity],
			     k->p.kind == IR_POL_PROPORTIONAL);
	}
}

static void on_point(void *arg, const struct ir_point *pt)
{
	struct run *r = arg;
	bool truth = r->truth && pt->has_probe && r->fidelity >= 0;

	if (truth)
		check_truth(r, pt, true);
	ir_evaluate(pt, r->dom, r->runs, r->n, r->d, r->o);
	for (int i = 0; i < r->n; i++)
		ir_tally_add(&r->tallies[i], pt, &r->d[i], &r->o[i]);
	if (truth)
		check_truth(r, pt, false);
	if (r->pf) {
		struct ir_decision_ctx ctx;

		ir_decision_ctx_init(&ctx, pt, r->dom);
		ir_perfetto_point(r->pf, pt, &ctx, r->d, r->o);
	}
	if (r->decisions && !r->decisions_err) {
		struct ir_decision_ctx ctx;

		ir_decision_ctx_init(&ctx, pt, r->dom);
		r->decisions_err = ir_decisions_line(r->decisions, pt, &ctx, r->tallies, r->d, r->o, r->n);
	}
}

static char *meta_line(const char *meta, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = meta; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strndup(p + n + 1, strcspn(p + n + 1, "\n"));
	return NULL;
}

/* --sweep POLICY.PARAM=FROM:TO:STEP */
static int parse_sweep(const char *arg, struct ir_policy_params *base, char *param, size_t plen,
		       uint64_t *from, uint64_t *to, uint64_t *step, char *err, size_t errlen)
{
	const char *dot = strchr(arg, '.'), *eq = strchr(arg, '=');
	char name[64], range[128], *c1, *c2;

	if (!dot || !eq || eq < dot || (size_t)(dot - arg) >= sizeof(name) ||
	    (size_t)(eq - dot - 1) >= plen || strlen(eq + 1) >= sizeof(range)) {
		snprintf(err, errlen, "bad --sweep '%s' (expected POLICY.PARAM=FROM:TO:STEP)", arg);
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(dot - arg), arg);
	snprintf(param, plen, "%.*s", (int)(eq - dot - 1), dot + 1);
	snprintf(range, sizeof(range), "%s", eq + 1);
	if (ir_policy_parse(name, base, err, errlen))
		return -1;
	c1 = strchr(range, ':');
	c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (!c2) {
		snprintf(err, errlen, "bad --sweep range '%s' (expected FROM:TO:STEP)", eq + 1);
		return -1;
	}
	*c1 = *c2 = 0;
	if (ir_parse_ns(range, from) || ir_parse_ns(c1 + 1, to) || ir_parse_ns(c2 + 1, step) ||
	    !*step || *to < *from) {
		snprintf(err, errlen, "bad --sweep range '%s' (FROM <= TO, STEP > 0)", eq + 1);
		return -1;
	}
	if ((*to - *from) / *step >= 1000) {
		snprintf(err, errlen, "--sweep '%s' has more than 1000 points", arg);
		return -1;
	}
	return ir_policy_set(base, param, *from, err, errlen);
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
		{ "newidle-lead", required_argument, NULL, 'N' },
		{ "decisions", required_argument, NULL, 'D' },
		{ "html", required_argument, NULL, 'H' },
		{ "perfetto", required_argument, NULL, 'F' },
		{ "timeline", no_argument, NULL, 'l' },
		{ "detail", required_argument, NULL, 'd' },
		{ "topology", required_argument, NULL, 'T' },
		{ "policy", required_argument, NULL, 'p' },
		{ "sweep", required_argument, NULL, 'S' },
		{ "reference", required_argument, NULL, 'r' },
		{ "kernel-policy", required_argument, NULL, 'K' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *json_path = NULL, *decisions_path = NULL, *html_path = NULL, *path;
	struct ir_out pf_out = { 0 };
	struct ir_state_params sp;
	bool mc_set = false, quiet = false, want_timeline = false;
	uint64_t detail_off = 0, detail_len = 0;
	struct ir_timeline *tl = NULL;
	struct ir_trace *tr = NULL;
	const struct ir_trace_info *ti;
	struct run run = { 0 };
	struct counts counts = { 0 };
	char err[1024];
	int o, ret;
	uint64_t v;
	json_object *doc = NULL;
	const char *topo_arg = NULL, *reference = "baseline", *kernel_policy = NULL;
	const char *policy_args[MAX_RUNS], *sweep_args[64];
	int nr_policy_args = 0, nr_sweep_args = 0;
	struct ir_topology *topo = NULL;
	struct ir_domains *dom = NULL;
	struct ir_rings rings;
	struct ir_tallies tallies = { .reference = -1, .fidelity = -1 };
	struct ir_sweep sweeps[64];
	const char *topo_source = "flat";
	int nr_runs = 0;

	ir_state_params_default(&sp);
	optind = 1;
	while ((o = getopt_long(argc, argv, "j:qh", opts, NULL)) != -1) {
		switch (o) {
		case 'j':
			json_path = optarg;
			break;
		case 'm': case 'B': case 't': case 'L': case 'N':
			if (ir_parse_ns(optarg, &v))
				return cli_fail(IR_ERR_USAGE, "replay: bad duration '%s' for --%s", optarg,
						o == 'm' ? "migration-cost" : o == 'B' ? "max-idle-balance-cost" :
						o == 't' ? "tick" : o == 'L' ? "late-window" : "newidle-lead");
			if (o == 'm') {
				sp.sched_migration_cost = v;
				mc_set = true;
			} else if (o == 'B') {
				sp.max_idle_balance_cost = v;
			} else if (o == 't') {
				sp.tick_ns = v;
			} else if (o == 'N') {
				sp.newidle_lead_ns = v;
			} else {
				sp.late_window_ns = v;
			}
			break;
		case 'P':
			sp.probe_seed = true;
			break;
		case 'D':
			decisions_path = optarg;
			break;
		case 'H':
			html_path = optarg;
			want_timeline = true;
			break;
		case 'F':
			pf_out.path = optarg;
			break;
		case 'l':
			want_timeline = true;
			break;
		case 'd': {
			char off[64], *colon = strchr(optarg, ':');

			if (!colon || (size_t)(colon - optarg) >= sizeof(off))
				return cli_fail(IR_ERR_USAGE, "replay: bad --detail '%s' (OFFSET:LENGTH)", optarg);
			snprintf(off, sizeof(off), "%.*s", (int)(colon - optarg), optarg);
			if (ir_parse_ns(off, &detail_off) || ir_parse_ns(colon + 1, &detail_len) || !detail_len)
				return cli_fail(IR_ERR_USAGE, "replay: bad --detail '%s' (OFFSET:LENGTH)", optarg);
			want_timeline = true;
			break;
		}
		case 'T':
			topo_arg = optarg;
			break;
		case 'p':
			if (nr_policy_args == MAX_RUNS)
				return cli_fail(IR_ERR_USAGE, "replay: too many --policy options");
			policy_args[nr_policy_args++] = optarg;
			break;
		case 'S':
			if (nr_sweep_args == 64)
				return cli_fail(IR_ERR_USAGE, "replay: too many --sweep options (64 at most)");
			sweep_args[nr_sweep_args++] = optarg;
			break;
		case 'r':
			reference = optarg;
			break;
		case 'K':
			kernel_policy = optarg;
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

	/* policies: as given, else all with their defaults; then sweep points */
	run.runs = calloc(MAX_RUNS, sizeof(*run.runs));
	if (!run.runs)
		return cli_fail(IR_ERR_INPUT, "out of memory");
	if (!nr_policy_args)
		for (int k = 0; k < IR_POL__COUNT; k++)
			ir_policy_defaults((enum ir_policy_kind)k, &run.runs[nr_runs++].p);
	for (int i = 0; i < nr_policy_args; i++)
		if (ir_policy_parse(policy_args[i], &run.runs[nr_runs++].p, err, sizeof(err))) {
			free(run.runs);
			return cli_fail(IR_ERR_USAGE, "replay: --policy %s: %s", policy_args[i], err);
		}
	for (int i = 0; i < nr_sweep_args; i++) {
		struct ir_policy_params base;
		uint64_t from, to, step;
		struct ir_sweep *sw = &sweeps[i];

		if (parse_sweep(sweep_args[i], &base, sw->param, sizeof(sw->param), &from, &to, &step,
				err, sizeof(err))) {
			free(run.runs);
			return cli_fail(IR_ERR_USAGE, "replay: %s", err);
		}
		snprintf(sw->policy, sizeof(sw->policy), "%s", ir_policy_name(base.kind));
		sw->first = nr_runs;
		sw->n = 0;
		for (uint64_t v = from; v <= to; v += step) {
			if (nr_runs == MAX_RUNS) {
				free(run.runs);
				return cli_fail(IR_ERR_USAGE, "replay: more than %d policy instances", MAX_RUNS);
			}
			run.runs[nr_runs].p = base;
			ir_policy_set(&run.runs[nr_runs].p, sw->param, v, err, sizeof(err));
			snprintf(run.runs[nr_runs].p.label, sizeof(run.runs[nr_runs].p.label), "%.31s.%.63s=%llu",
				 sw->policy, sw->param, (unsigned long long)v);
			nr_runs++;
			sw->n++;
			if (to - v < step)
				break;
		}
	}

	if ((ret = ir_trace_open(path, &tr, err, sizeof(err)))) {
		free(run.runs);
		return cli_fail(ret, "%s", err);
	}
	ti = ir_trace_info(tr);
	if (!mc_set)
		meta_migration_cost(ti, &sp.sched_migration_cost);
	sp.avg_idle_init = 2 * sp.sched_migration_cost;
	sp.avg_idle_shift = ti->kernel_major == 4 && ti->kernel_minor < 17;

	if ((ret = cli_domains(topo_arg, ti, &topo, &dom, &topo_source)))
		goto out;
	rings = ir_domains_rings(dom);

	/* one tally per policy instance; the reference and the kernel's policy */
	tallies.t = calloc((size_t)nr_runs, sizeof(*tallies.t));
	run.d = calloc((size_t)nr_runs, sizeof(*run.d));
	run.o = calloc((size_t)nr_runs, sizeof(*run.o));
	if (!tallies.t || !run.d || !run.o) {
		ret = cli_fail(IR_ERR_INPUT, "out of memory");
		goto out;
	}
	tallies.n = nr_runs;
	tallies.sweeps = sweeps;
	tallies.nr_sweeps = nr_sweep_args;
	for (int i = 0; i < nr_runs; i++) {
		if (ir_tally_init(&tallies.t[i], &run.runs[i].p, rings.nr_cpus) ||
		    ir_policy_state_init(&run.runs[i].st, &run.runs[i].p, rings.nr_cpus)) {
			ret = cli_fail(IR_ERR_INPUT, "out of memory");
			goto out;
		}
		run.n = i + 1;
	}
	for (int i = 0; i < nr_sweep_args; i++)
		for (int j = sweeps[i].first; j < sweeps[i].first + sweeps[i].n; j++) {
			tallies.t[j].sweep = i;
			if (ir_policy_get(&run.runs[j].p, sweeps[i].param, &tallies.t[j].sweep_value))
				tallies.t[j].sweep_value = 0;
		}
	for (int i = 0; i < nr_runs && tallies.reference < 0; i++)
		if (tallies.t[i].sweep < 0 && (!strcmp(tallies.t[i].label, reference) ||
					       !strcmp(tallies.t[i].name, reference)))
			tallies.reference = i;
	{
		struct ir_policy_params kp;
		char *features = meta_line(ti->meta, "sched_features");
		enum ir_policy_kind kind;

		if (kernel_policy) {
			if (ir_policy_parse(kernel_policy, &kp, err, sizeof(err))) {
				free(features);
				ret = cli_fail(IR_ERR_USAGE, "replay: --kernel-policy: %s", err);
				goto out;
			}
			kind = kp.kind;
		} else {
			kind = ir_policy_for_kernel(ti->kernel_major, ti->kernel_minor,
						    features && strcmp(features, "unknown") ? features : NULL);
		}
		free(features);
		for (int i = 0; i < nr_runs && tallies.fidelity < 0; i++)
			if (tallies.t[i].sweep < 0 && run.runs[i].p.kind == kind)
				tallies.fidelity = i;
	}
	run.tallies = tallies.t;
	run.dom = dom;
	run.fidelity = tallies.fidelity;
	if (ti->has_probes && tallies.fidelity >= 0) {
		run.truth = calloc(1, sizeof(*run.truth));
		if (!run.truth) {
			ret = cli_fail(IR_ERR_INPUT, "out of memory");
			goto out;
		}
		run.truth->probed = sp.probe_seed;
		snprintf(run.truth->policy, sizeof(run.truth->policy), "%s", tallies.t[tallies.fidelity].label);
	}

	if (decisions_path) {
		int fd = open(decisions_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);

		if (fd < 0 || !(run.decisions = fdopen(fd, "w"))) {
			ret = cli_fail(IR_ERR_INPUT, "%s: cannot write decisions: %s", decisions_path, strerror(errno));
			if (fd >= 0)
				close(fd);
			goto out;
		}
	}
	if (pf_out.path) {
		if (ir_out_open(&pf_out, pf_out.path)) {
			ret = cli_fail(IR_ERR_INPUT, "%s: cannot write: %s", pf_out.path, strerror(errno));
			pf_out.f = NULL;
			goto out;
		}
		run.pf = ir_perfetto_new(pf_out.f, ti, tallies.t, nr_runs);
		if (!run.pf) {
			ret = cli_fail(IR_ERR_INPUT, "out of memory");
			goto out;
		}
	}
	run.st = ir_state_new(ti->nr_cpus, &sp, &rings, on_point, &run);
	if (want_timeline)
		tl = ir_timeline_new(ti->nr_cpus, detail_off, detail_len);
	if (!run.st || (want_timeline && !tl)) {
		ret = cli_fail(IR_ERR_INPUT, "%s: out of memory", path);
		goto out;
	}
	ir_state_set_timeline(run.st, tl);
	run.ti = ti;
	run.tr = tr;
	ir_progress_start(&run.progress, path, "events", 0, quiet);
	ret = ir_trace_run(tr, feed, &run, err, sizeof(err));
	ir_progress_finish(&run.progress);
	if (ret) {
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
	if (run.decisions) {
		int bad = run.decisions_err | fclose(run.decisions);

		run.decisions = NULL;
		if (bad) {
			ret = cli_fail(IR_ERR_INPUT, "%s: cannot write decisions: %s", decisions_path, strerror(errno));
			goto out;
		}
	}
	if (run.pf) {
		int bad = ir_perfetto_finish(run.pf, ti->last_ts, NULL);

		ir_perfetto_free(run.pf);
		run.pf = NULL;
		bad = ir_out_close(&pf_out, !bad);
		pf_out.f = NULL;
		if (bad) {
			ret = cli_fail(IR_ERR_INPUT, "%s: cannot write: %s", pf_out.path, strerror(errno));
			goto out;
		}
	}
	ir_trace_event_counts(tr, add_count, &counts);
	{
		struct ir_report_input in = {
			.trace = ti, .obs = ir_state_observed(run.st), .params = &sp,
			.events = counts.v, .nr_events = counts.n,
			.domains = dom, .topology_source = topo_source, .tallies = &tallies,
			.truth = run.truth, .timeline = tl,
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
	if (html_path && ir_report_write_html(doc, html_path)) {
		ret = cli_fail(IR_ERR_INPUT, "%s: cannot write HTML report: %s", html_path, strerror(errno));
		goto out;
	}
	if (!quiet && !(json_path && !strcmp(json_path, "-")) && !(html_path && !strcmp(html_path, "-")) &&
	    !(pf_out.path && !strcmp(pf_out.path, "-")))
		ir_report_text(doc, stdout);
	ret = IR_OK;
out:
	if (run.decisions)
		fclose(run.decisions);
	ir_perfetto_free(run.pf);
	if (pf_out.f)
		ir_out_close(&pf_out, 0);	/* failed: no partial trace left behind */
	json_object_put(doc);
	free(counts.v);
	ir_state_free(run.st);
	ir_timeline_free(tl);
	for (int i = 0; i < run.n; i++) {
		ir_tally_free(&tallies.t[i]);
		ir_policy_state_free(&run.runs[i].st);
	}
	free(tallies.t);
	free(run.truth);
	free(run.d);
	free(run.o);
	free(run.runs);
	ir_domains_free(dom);
	ir_topology_free(topo);
	ir_trace_close(tr);
	return ret;
}

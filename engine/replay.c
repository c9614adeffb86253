/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One replay: the trace's events into the replay state, every newidle point
 * to every policy (decision, outcome, tally), ground truth where the trace
 * has probes, the decisions file, the Perfetto export, the timeline; then
 * the report document.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"

struct run {
	struct ir_state *st;
	const struct ir_trace_info *ti;
	const struct ir_trace *tr;
	uint64_t events;
	idlereplay_progress_fn *progress;
	void *progress_arg;
	const struct ir_domains *dom;
	struct ir_policy_run *runs;
	struct ir_tally *tallies;
	int n;
	struct ir_decision *d;
	struct ir_outcome *o;
	struct ir_truth *truth;		/* NULL without probes */
	FILE *decisions;		/* --decisions, or NULL */
	struct ir_out dec_out;		/* where it goes (report/report.h) */
	int decisions_err;
	int fidelity;			/* run index of the recording kernel's policy */
	bool probed;			/* every policy takes the probed costs */
	struct ir_perfetto *pf;		/* --perfetto, or NULL */
	struct ir_out pf_out;
	struct ir_wl_builder *wl;	/* closed loop: the workload, built in the same pass */
	int wl_err;
	struct ir_timeline *tl;		/* --timeline, or NULL */
	int lane[IR_TL_MAX_LANES];	/* the runs whose pulls it keeps */
	int nr_lanes;
};

static int feed(void *arg, const struct ir_event *ev)
{
	struct run *r = arg;

	ir_state_feed(r->st, ev);
	if (r->pf)
		ir_perfetto_event(r->pf, ev, r->st);
	if (r->wl && !r->wl_err)
		r->wl_err = ir_wl_feed(r->wl, ev);
	if (!(++r->events & 0xffff) && r->progress) {
		/* ETA from the share of the file's event data read so far */
		uint64_t bytes = ir_trace_bytes_read(r->tr), total = 0;

		if (bytes)
			total = (uint64_t)((double)r->events * (double)r->ti->data_bytes / (double)bytes);
		r->progress(r->progress_arg, r->events, total);
	}
	return 0;
}

static void on_point(void *arg, const struct ir_point *pt)
{
	struct run *r = arg;
	bool truth = r->truth && pt->has_probe && r->fidelity >= 0;

	ir_evaluate(pt, r->dom, r->probed, r->runs, r->n, r->d, r->o);
	for (int i = 0; i < r->n; i++)
		ir_tally_add(&r->tallies[i], pt, &r->d[i], &r->o[i]);
	for (int l = 0; l < r->nr_lanes; l++)	/* a randomised policy: its first seed's draw */
		if (r->o[r->lane[l]].pulled)
			ir_timeline_lane_pull(r->tl, l, pt->ts);
	if (!truth && !r->pf && !(r->decisions && !r->decisions_err))
		return;
	/* One context for the consumers of this point's decisions. */
	struct ir_decision_ctx ctx;

	ir_decision_ctx_init(&ctx, pt, r->dom);
	if (truth)
		ir_truth_add(r->truth, pt, &ctx, &r->d[r->fidelity], &r->o[r->fidelity]);
	if (r->pf)
		ir_perfetto_point(r->pf, pt, &ctx, r->d, r->o);
	if (r->decisions && !r->decisions_err)
		r->decisions_err = ir_decisions_line(r->decisions, pt, &ctx, r->tallies, r->d, r->o, r->n);
}

char *ir_engine_meta_line(const char *meta, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = meta; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strndup(p + n + 1, strcspn(p + n + 1, "\n"));
	return NULL;
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

/* One jiffy from the recorder's "hz" line (CONFIG_HZ), when it has one. */
static void meta_tick(const struct ir_trace_info *ti, uint64_t *tick_ns)
{
	char *hz = ir_engine_meta_line(ti->meta, "hz");
	unsigned long n = hz ? strtoul(hz, NULL, 10) : 0;

	if (n >= 10 && n <= 10000)
		*tick_ns = 1000000000ull / n;
	free(hz);
}

int idlereplay_open(idlereplay *ir, const char *path)
{
	int ret;

	ir->err[0] = 0;
	if (ir->tr)
		return ir_engine_fail(ir, IR_ERR_USAGE, "%s: a trace is open already", path);
	if (!(ir->path = strdup(path)))
		return ir_engine_fail(ir, IR_ERR_INPUT, "out of memory");
	ret = ir_trace_open_buffer(path, ir->buffer, &ir->tr, ir->err, sizeof(ir->err));
	return ret;
}

/* The policy instances: as given, else all with their defaults; then the
 * sweep points, in the order given. */
static int expand_runs(struct idlereplay *ir, struct ir_sweep *sweeps, int *nr_runs)
{
	struct ir_policy_run *runs = ir->runs;
	char err[1024];
	int n = ir->nr_policy_args;

	if (!n)
		for (int k = 0; k < IR_POL__COUNT; k++)
			ir_policy_defaults((enum ir_policy_kind)k, &runs[n++].p);
	for (int i = 0; i < ir->nr_sweep_args; i++) {
		const struct ir_sweep_arg *a = &ir->sweep_args[i];
		struct ir_sweep *sw = &sweeps[i];

		snprintf(sw->param, sizeof(sw->param), "%s", a->param);
		snprintf(sw->policy, sizeof(sw->policy), "%s", ir_policy_name(a->base.kind));
		sw->first = n;
		sw->n = 0;
		for (uint64_t v = a->from; v <= a->to; v += a->step) {
			if (n == IR_MAX_RUNS)
				return ir_engine_fail(ir, IR_ERR_USAGE, "more than %d policy instances", IR_MAX_RUNS);
			runs[n].p = a->base;
			ir_policy_set(&runs[n].p, sw->param, v, err, sizeof(err));
			snprintf(runs[n].p.label, sizeof(runs[n].p.label), "%.31s.%.63s=%llu",
				 sw->policy, sw->param, (unsigned long long)v);
			n++;
			sw->n++;
			if (a->to - v < a->step)
				break;
		}
	}
	*nr_runs = n;
	return IR_OK;
}

/* The policy that models the recording kernel: --kernel-policy, else from
 * its release, sched features and probes; -1 and the error set on a bad
 * --kernel-policy. */
static int kernel_kind(struct idlereplay *ir, const struct ir_trace_info *ti, enum ir_policy_kind *kind)
{
	struct ir_policy_params kp;
	char *features, err[1024];

	if (ir->kernel_policy) {
		if (ir_policy_parse(ir->kernel_policy, &kp, err, sizeof(err)))
			return ir_engine_fail(ir, IR_ERR_USAGE, "--kernel-policy: %s", err);
		*kind = kp.kind;
		return IR_OK;
	}
	features = ir_engine_meta_line(ti->meta, "sched_features");
	*kind = ir_policy_for_trace(ti->kernel_major, ti->kernel_minor, ti->kernel_patch,
				    features && strcmp(features, "unknown") ? features : NULL,
				    ti->probes_have_ratio);
	free(features);
	return IR_OK;
}

/* The run index of the policy that models the recording kernel, or -1. */
static int find_fidelity(struct idlereplay *ir, const struct ir_trace_info *ti,
			 const struct ir_tallies *tallies, int *fidelity)
{
	enum ir_policy_kind kind;
	int ret;

	*fidelity = -1;
	if ((ret = kernel_kind(ir, ti, &kind)))
		return ret;
	for (int i = 0; i < tallies->n && *fidelity < 0; i++)
		if (tallies->t[i].sweep < 0 && ir->runs[i].p.kind == kind)
			*fidelity = i;
	return IR_OK;
}

/* Where the kernel policy's per-level costs come from, for the fidelity
 * line: the probes, a cost_scale fitted by `idlereplay calibrate`, costs set
 * by hand, or the model's assumed defaults. */
static const char *costs_source(const struct ir_policy_params *kp, bool probed)
{
	struct ir_policy_params def;

	if (probed)
		return "probed";
	if (kp->cost_scale != 1000)
		return "calibrated";
	ir_policy_defaults(kp->kind, &def);
	return memcmp(kp->max_newidle_lb_cost, def.max_newidle_lb_cost, sizeof(def.max_newidle_lb_cost)) ?
		"set" : "assumed";
}

/* --reference NAME that no replayed policy answers to: say which do. */
static int unknown_reference(struct idlereplay *ir, const struct ir_tallies *tallies)
{
	char list[768] = "";
	size_t n = 0;

	for (int i = 0; i < tallies->n && n < sizeof(list); i++)
		if (tallies->t[i].sweep < 0)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", tallies->t[i].label);
	return ir_engine_fail(ir, IR_ERR_USAGE, "--reference %s is not among the replayed policies (%s)",
			      ir->reference, list);
}

/* A file, "-", a device or a FIFO: never replaces what is not ours. */
static int open_decisions(struct idlereplay *ir, struct ir_out *out)
{
	if (ir_out_open(out, ir->decisions_path))
		return ir_engine_fail(ir, IR_ERR_INPUT, "%s: cannot write decisions: %s",
				      ir->decisions_path, strerror(errno));
	return IR_OK;
}

/* --perfetto: streamed while the trace is replayed (report/perfetto.c). */
static int open_perfetto(struct idlereplay *ir, struct run *run, const struct ir_trace_info *ti,
			 const struct ir_tallies *tallies)
{
	if (ir_out_open(&run->pf_out, ir->perfetto_path)) {
		run->pf_out.f = NULL;
		return ir_engine_fail(ir, IR_ERR_INPUT, "%s: cannot write: %s", ir->perfetto_path, strerror(errno));
	}
	if (!(run->pf = ir_perfetto_new(run->pf_out.f, ti, tallies->t, tallies->n)))
		return ir_engine_fail(ir, IR_ERR_INPUT, "out of memory");
	return IR_OK;
}

static int close_perfetto(struct idlereplay *ir, struct run *run, uint64_t end_ts)
{
	int bad = ir_perfetto_finish(run->pf, end_ts, NULL);

	ir_perfetto_free(run->pf);
	run->pf = NULL;
	bad = ir_out_close(&run->pf_out, !bad);
	run->pf_out.f = NULL;
	if (bad)
		return ir_engine_fail(ir, IR_ERR_INPUT, "%s: cannot write: %s", ir->perfetto_path, strerror(errno));
	return IR_OK;
}

static void warn(struct idlereplay *ir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct idlereplay *ir, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!ir->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ir->warn(ir->warn_arg, line);
}

/* Options that would silently do nothing: timelines nobody shows, a
 * detailed window outside the trace. */
static void warn_unused(struct idlereplay *ir, const struct ir_observed *obs)
{
	char a[32], b[32];

	if (ir->want_timeline && !ir->json_path && !ir->html_path)
		warn(ir, "warning: --timeline and --detail fill the JSON and HTML reports only: "
		     "without --json or --html nothing shows them");
	if (obs && ir->detail_len && ir->detail_off >= obs->window_end - obs->window_start)
		warn(ir, "%s: warning: --detail starts %s after the trace start but the trace spans %s: "
		     "the detailed timeline is empty", ir->path, ir_fmt_ns(a, sizeof(a), (int64_t)ir->detail_off),
		     ir_fmt_ns(b, sizeof(b), (int64_t)(obs->window_end - obs->window_start)));
}

static void warn_losses(struct idlereplay *ir, const struct ir_trace_info *ti)
{
	char line[512];

	for (int c = 0; c < ti->nr_cpus && ir->warn; c++) {
		const struct ir_cpu_loss *l = &ti->loss[c];

		if (!(l->overrun || l->dropped || l->missed || l->missed_unknown))
			continue;
		snprintf(line, sizeof(line), "%s: warning: CPU %d lost events (overrun %llu, dropped %llu, missed %llu); its figures are incomplete",
			 ir->path, c, (unsigned long long)l->overrun, (unsigned long long)l->dropped,
			 (unsigned long long)l->missed);
		ir->warn(ir->warn_arg, line);
	}
}

/*
 * Lost events undercount everything on their CPUs: newidle points,
 * migrations, idle and busy time, every policy's counts.  Over max_lost % of
 * all events (recorded + lost) the report is still written, and the status
 * says it (IR_LOST_EVENTS) unless allow-lost.
 */
static int lost_status(struct idlereplay *ir, const struct ir_trace_info *ti)
{
	double lost = 0, share;
	char cpus[256] = "";
	size_t n = 0;

	for (int c = 0; c < ti->nr_cpus && ti->loss; c++) {
		const struct ir_cpu_loss *l = &ti->loss[c];

		if (!l->overrun && !l->dropped && !l->missed && !l->missed_unknown)
			continue;
		/* the stats and the in-data markers count the same losses two ways */
		lost += (double)l->overrun + (double)l->dropped > (double)l->missed ?
			(double)l->overrun + (double)l->dropped : (double)l->missed;
		if (n < sizeof(cpus) - 16)
			n += (size_t)snprintf(cpus + n, sizeof(cpus) - n, "%s%d", n ? "," : "", c);
	}
	share = lost > 0 ? 100.0 * lost / (lost + (double)ti->events_total) : 0;
	if (share <= ir->max_lost || ir->allow_lost)
		return IR_OK;
	return ir_engine_fail(ir, IR_LOST_EVENTS, "%s: %.0f events lost (%.2f %% of all, more than --max-lost %g %%): "
			      "newidle points, migrations, idle and busy time and every policy's counts on CPUs %s are undercounted; "
			      "exit 3 (--allow-lost accepts it)", ir->path, lost, share, ir->max_lost, cpus);
}

int idlereplay_run(idlereplay *ir, idlereplay_progress_fn *progress, void *arg)
{
	struct ir_state_params sp = ir->sp;
	struct ir_timeline *tl = NULL;
	const struct ir_trace_info *ti;
	struct run run = { .runs = ir->runs, .progress = progress, .progress_arg = arg };
	struct counts counts = { 0 };
	const char *topo_source = "flat", *reference = ir->reference ? ir->reference : "baseline";
	struct ir_topology *topo = NULL;
	struct ir_domains *dom = NULL;
	struct ir_rings rings;
	struct ir_tallies tallies = { .reference = -1, .fidelity = -1 };
	struct ir_sweep sweeps[IR_MAX_SWEEPS];
	int nr_runs = 0, ret;

	ir->err[0] = 0;
	if (!ir->tr)
		return ir_engine_fail(ir, IR_ERR_USAGE, "no trace open");
	if (ir->ran)
		return ir_engine_fail(ir, IR_ERR_USAGE, "%s: the trace was replayed already", ir->path);
	ir->ran = true;
	if ((ret = expand_runs(ir, sweeps, &nr_runs)))
		return ret;
	ti = ir_trace_info(ir->tr);
	if (!ir->mc_set)
		meta_migration_cost(ti, &sp.sched_migration_cost);
	sp.avg_idle_init = 2 * sp.sched_migration_cost;
	sp.avg_idle_shift = ti->kernel_major == 4 && ti->kernel_minor < 17;
	sp.kernel_major = ti->kernel_major;	/* release-keyed replay rules (replay/kver.c) */
	sp.kernel_minor = ti->kernel_minor;

	if ((ret = ir_engine_domains(ir, ir->topo_arg, ti, &topo, &dom, &topo_source)))
		goto out;
	rings = ir_domains_rings(dom);
	if (!sp.balance_interval_ns)	/* sd_init(): max_interval = 2 * sd_weight ms */
		sp.balance_interval_ns = 2000000ull * (uint64_t)(rings.ring ? rings.nr_cpus : ti->nr_cpus);
	{
		enum ir_policy_kind kk;

		/* NI_RANDOM as the model of the recording kernel has it */
		sp.ni_random = !kernel_kind(ir, ti, &kk) && kk == IR_POL_PROPORTIONAL;
	}
	if (!ir->tick_set)
		meta_tick(ti, &sp.tick_ns);

	/* one tally per policy instance; the reference and the kernel's policy */
	tallies.t = calloc((size_t)nr_runs, sizeof(*tallies.t));
	run.d = calloc((size_t)nr_runs, sizeof(*run.d));
	run.o = calloc((size_t)nr_runs, sizeof(*run.o));
	if (!tallies.t || !run.d || !run.o) {
		ret = ir_engine_fail(ir, IR_ERR_INPUT, "out of memory");
		goto out;
	}
	tallies.n = nr_runs;
	tallies.sweeps = sweeps;
	tallies.nr_sweeps = ir->nr_sweep_args;
	for (int i = 0; i < nr_runs; i++) {
		if (ir_tally_init(&tallies.t[i], &run.runs[i].p, rings.nr_cpus) ||
		    ir_policy_run_init(&run.runs[i], rings.nr_cpus)) {
			ret = ir_engine_fail(ir, IR_ERR_INPUT, "out of memory");
			goto out;
		}
		run.n = i + 1;
	}
	for (int i = 0; i < ir->nr_sweep_args; i++)
		for (int j = sweeps[i].first; j < sweeps[i].first + sweeps[i].n; j++) {
			tallies.t[j].sweep = i;
			if (ir_policy_get(&run.runs[j].p, sweeps[i].param, &tallies.t[j].sweep_value))
				tallies.t[j].sweep_value = 0;
		}
	for (int i = 0; i < nr_runs && tallies.reference < 0; i++)
		if (tallies.t[i].sweep < 0 && (!strcmp(tallies.t[i].label, reference) ||
					       !strcmp(tallies.t[i].name, reference)))
			tallies.reference = i;
	if (ir->reference && tallies.reference < 0) {
		ret = unknown_reference(ir, &tallies);
		goto out;
	}
	if ((ret = find_fidelity(ir, ti, &tallies, &tallies.fidelity)))
		goto out;
	run.tallies = tallies.t;
	run.dom = dom;
	run.fidelity = tallies.fidelity;
	run.probed = sp.probe_seed && ti->has_probes;
	if (tallies.fidelity >= 0)
		tallies.costs = costs_source(&run.runs[tallies.fidelity].p, run.probed);
	if (ti->has_probes && tallies.fidelity >= 0) {
		run.truth = calloc(1, sizeof(*run.truth));
		if (!run.truth) {
			ret = ir_engine_fail(ir, IR_ERR_INPUT, "out of memory");
			goto out;
		}
		run.truth->probed = sp.probe_seed;
		snprintf(run.truth->policy, sizeof(run.truth->policy), "%s", tallies.t[tallies.fidelity].label);
	}

	if (ir->decisions_path) {
		if ((ret = open_decisions(ir, &run.dec_out)))
			goto out;
		run.decisions = run.dec_out.f;
	}
	if (ir->perfetto_path && (ret = open_perfetto(ir, &run, ti, &tallies)))
		goto out;
	/* the topology's CPUs (at least the trace's: ir_engine_domains checks) */
	run.st = ir_state_new(rings.ring ? rings.nr_cpus : ti->nr_cpus, &sp, &rings, on_point, &run);
	if (ir->want_timeline)
		tl = ir_timeline_new(ti->nr_cpus, ir->detail_off, ir->detail_len);
	if (tl) {
		for (int i = 0; i < nr_runs; i++)
			if (ir_tallies_lane(&tallies, i) >= 0)
				run.lane[run.nr_lanes++] = i;
		if (ir_timeline_set_lanes(tl, run.nr_lanes)) {
			ir_timeline_free(tl);
			tl = NULL;
		}
		run.tl = tl;
	}
	if (!run.st || (ir->want_timeline && !tl)) {
		ret = ir_engine_fail(ir, IR_ERR_INPUT, "%s: out of memory", ir->path);
		goto out;
	}
	ir_state_set_timeline(run.st, tl);
	if (ir->closed_loop) {
		/* the workload streams into a spill file (flat in trace length,
		 * sim/workload.c); IDLEREPLAY_SIM_WHOLE=1 keeps it all in memory
		 * (the whole-trace path, for comparison: the same results) */
		int nc = rings.ring ? rings.nr_cpus : ti->nr_cpus;
		const char *whole = getenv("IDLEREPLAY_SIM_WHOLE"), *dir = getenv("TMPDIR");

		if (!dir || !*dir)
			dir = "/var/tmp";
		if (whole && *whole && strcmp(whole, "0"))
			run.wl = ir_wl_new(nc);
		else if (!(run.wl = ir_wl_new_spill(nc, IR_WL_SPILL_WINDOW_NS, dir)) && errno != ENOMEM) {
			ret = ir_engine_fail(ir, IR_ERR_INPUT, "%s: cannot create the simulation's workload file in %s: %s "
					     "(TMPDIR names the directory; IDLEREPLAY_SIM_WHOLE=1 keeps it in memory)",
					     ir->path, dir, strerror(errno));
			goto out;
		}
		if (!run.wl) {
			ret = ir_engine_fail(ir, IR_ERR_INPUT, "%s: out of memory", ir->path);
			goto out;
		}
	}
	run.ti = ti;
	run.tr = ir->tr;
	if ((ret = ir_trace_run(ir->tr, feed, &run, ir->err, sizeof(ir->err))))
		goto out;
	if (!ti->events_total) {
		ret = ir_engine_fail(ir, IR_ERR_INPUT, "%s: the trace holds no events", ir->path);
		goto out;
	}
	if (!ti->events[IR_EV_SWITCH]) {
		ret = ir_engine_fail(ir, IR_ERR_INPUT, "%s: no sched_switch events in the trace", ir->path);
		goto out;
	}
	ir_state_finish(run.st, ti->last_ts);
	if (tl)
		ir_timeline_finish(tl);
	if (run.decisions) {
		int bad = ir_out_close(&run.dec_out, !run.decisions_err);

		run.decisions = NULL;
		if (bad) {
			ret = ir_engine_fail(ir, IR_ERR_INPUT, "%s: cannot write decisions: %s",
					     ir->decisions_path, strerror(errno));
			goto out;
		}
	}
	for (int i = 0; i < run.n; i++)
		ir_tally_seeds(&tallies.t[i], &run.runs[i]);
	if (run.truth)
		ir_truth_seeds(run.truth, &tallies.t[tallies.fidelity]);
	ir_trace_event_counts(ir->tr, add_count, &counts);
	{
		struct ir_report_input in = {
			.trace = ti, .obs = ir_state_observed(run.st), .params = &sp,
			.events = counts.v, .nr_events = counts.n,
			.domains = dom, .topology_source = topo_source, .tallies = &tallies,
			.truth = run.truth, .timeline = tl,
		};

		ir->doc = ir_report_json(&in);
	}
	if (!ir->doc) {
		ret = ir_engine_fail(ir, IR_ERR_INPUT, "%s: out of memory", ir->path);
		goto out;
	}
	if (run.wl) {
		struct ir_workload *w = run.wl_err ? NULL : ir_wl_finish(run.wl, ti->last_ts);
		struct ir_closed_loop_input cin = {
			.w = w, .obs = ir_state_observed(run.st), .dom = dom, .runs = run.runs, .n = nr_runs,
			.fidelity = tallies.fidelity,
			.kernel_major = ti->kernel_major, .kernel_minor = ti->kernel_minor,
			.sched_migration_cost = sp.sched_migration_cost,
			.max_idle_balance_cost = sp.max_idle_balance_cost,
			.tick_ns = sp.tick_ns,
			.pf = run.pf,
		};

		if (run.wl_err)
			ir_wl_abort(run.wl);
		run.wl = NULL;
		if (!w)
			ret = ir_engine_fail(ir, IR_ERR_INPUT, "%s: out of memory extracting the workload", ir->path);
		else
			ret = ir_engine_closed_loop(ir, &cin, ir->doc);
		ir_workload_free(w);
		if (ret)
			goto out;
	}
	/* after the closed loop: its simulated schedules go in too */
	if (run.pf && (ret = close_perfetto(ir, &run, ti->last_ts)))
		goto out;
	warn_losses(ir, ti);
	warn_unused(ir, ir_state_observed(run.st));
	if (!(ret = ir_engine_write_outputs(ir)))
		ret = lost_status(ir, ti);
out:
	if (run.decisions)
		ir_out_close(&run.dec_out, 0);
	ir_perfetto_free(run.pf);
	if (run.pf_out.f)
		ir_out_close(&run.pf_out, 0);	/* failed: no partial trace left behind */
	free(counts.v);
	ir_wl_abort(run.wl);
	ir_state_free(run.st);
	ir_timeline_free(tl);
	for (int i = 0; i < run.n; i++) {
		ir_tally_free(&tallies.t[i]);
		ir_policy_run_free(&run.runs[i]);
	}
	free(tallies.t);
	free(run.truth);
	free(run.d);
	free(run.o);
	ir_domains_free(dom);
	ir_topology_free(topo);
	return ret;
}

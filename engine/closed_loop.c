/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Closed loop (issue 13): the workload extracted during the replay's pass is
 * simulated once per policy instance (sweep points included) and once frozen
 * to the recorded decisions, on as many threads as the machine has CPUs
 * (the workload and the domains are shared read-only), and the figures go
 * into the report document beside the open-loop ones.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"

/* Below this share of explained wakeups the figures are withheld. */
#define IR_CL_MIN_EXPLAINED 0.90

struct job {
	const struct ir_workload *w;
	struct ir_capture *cap;		/* its schedule, for the Perfetto export; NULL none */
	const struct ir_domains *dom;
	const struct ir_policy_params *pol;	/* NULL: frozen */
	struct ir_sim_params sp;
	struct ir_sim_result res;
	int ret;
};

struct pool {
	struct job *jobs;
	int n, next;
	pthread_mutex_t lock;
};

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		int i;

		pthread_mutex_lock(&p->lock);
		i = p->next < p->n ? p->next++ : -1;
		pthread_mutex_unlock(&p->lock);
		if (i < 0)
			return NULL;
		p->jobs[i].ret = ir_simulate(p->jobs[i].w, p->jobs[i].dom, p->jobs[i].pol, &p->jobs[i].sp,
					     &p->jobs[i].res);
	}
}

/* Run every job on up to nthreads threads (the calling one included). */
static void run_jobs(struct job *jobs, int n)
{
	struct pool p = { .jobs = jobs, .n = n };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int nt = cpus > 1 ? (int)(cpus < 64 ? cpus : 64) : 1, started = 0;
	pthread_t th[64];

	pthread_mutex_init(&p.lock, NULL);
	if (nt > n)
		nt = n;
	for (int i = 1; i < nt; i++)
		if (!pthread_create(&th[started], NULL, worker, &p))
			started++;
	worker(&p);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&p.lock);
}

static void figures(struct ir_cl_run *r, const struct ir_sim_result *s)
{
	r->f = (struct ir_cl_figures){
		.completion_ns = s->completion_ns, .idle_ns = s->idle_ns,
		.idle_while_waiting_ns = s->idle_while_waiting_ns,
		.wait_p50 = s->wait_p50, .wait_p99 = s->wait_p99, .migrations = s->migrations,
		.newidle_pulls = s->newidle_pulls, .balance_cpu_ns = s->balance_cpu_ns, .has_balance = true,
	};
	r->newidle_calls = s->newidle_calls;
	r->newidle_attempts = s->newidle_attempts;
	r->mig_wakeup = s->mig_wakeup;
	r->mig_newidle = s->mig_newidle;
	r->mig_periodic = s->mig_periodic;
	r->wakeups = s->wakeups;
	r->events = s->events;
	r->stalled = s->stalled;
	r->forced = s->forced;
	r->nr_seeds = 1;
	r->p5 = r->p95 = r->f;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * One figure over n seeds: the mean (rounded; the expected value, as the
 * open loop reports a randomised policy's, issue 15) and the 5th and 95th
 * percentiles (report/tally.c's nearest rank: with 8 seeds the least and
 * the greatest).  v is sorted in place.
 */
static uint64_t over_seeds(uint64_t *v, int n, uint64_t *p5, uint64_t *p95)
{
	uint64_t sum = 0;

	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	for (int i = 0; i < n; i++)
		sum += v[i];
	*p5 = v[(int)(0.05 * (n - 1) + 0.5)];
	*p95 = v[(int)(0.95 * (n - 1) + 0.5)];
	return (sum + (uint64_t)n / 2) / (uint64_t)n;
}

/* A randomised policy's n simulations (one per seed) as one run: every
 * figure the mean over the seeds, the figures' spread beside them. */
static void seeds_figures(struct ir_cl_run *r, const struct job *j, int n, uint64_t *v)
{
	uint64_t lo, hi;

	figures(r, &j[0].res);
	if (n <= 1)
		return;
	r->nr_seeds = n;
#define OVER(field, out)                                                       \
	do {                                                                   \
		for (int k = 0; k < n; k++)                                    \
			v[k] = j[k].res.field;                                 \
		out = over_seeds(v, n, &lo, &hi);                              \
	} while (0)
#define FIG(field)                                                             \
	do {                                                                   \
		OVER(field, r->f.field);                                       \
		r->p5.field = lo;                                              \
		r->p95.field = hi;                                             \
	} while (0)
	FIG(completion_ns);
	FIG(idle_ns);
	FIG(idle_while_waiting_ns);
	FIG(wait_p50);
	FIG(wait_p99);
	FIG(migrations);
	FIG(newidle_pulls);
	FIG(balance_cpu_ns);
	OVER(newidle_calls, r->newidle_calls);
	OVER(newidle_attempts, r->newidle_attempts);
	OVER(mig_wakeup, r->mig_wakeup);
	OVER(mig_newidle, r->mig_newidle);
	OVER(mig_periodic, r->mig_periodic);
	OVER(wakeups, r->wakeups);
	OVER(events, r->events);
#undef FIG
#undef OVER
	for (int k = 0; k < n; k++)
		r->stalled |= j[k].res.stalled;
}

/* NI_RANDOM's dice (model/decide.c: proportional with sched_feat(NI_RANDOM))
 * are the only randomness of a simulation */
static bool randomised(const struct ir_policy_params *p)
{
	return p->kind == IR_POL_PROPORTIONAL && p->ni_random;
}

int ir_engine_closed_loop(struct idlereplay *ir, const struct ir_closed_loop_input *cin, json_object *doc)
{
	const struct ir_workload *w = cin->w;
	const struct ir_observed *obs = cin->obs;
	int n = cin->n, ret = IR_OK, nj = 1, fz;
	int seeds = ir->cl_sim_seeds >= 1 ? (int)ir->cl_sim_seeds : 1;
	int *first = calloc((size_t)n + 1, sizeof(*first)), *nseeds = calloc((size_t)n + 1, sizeof(*nseeds));
	struct job *jobs = NULL;
	struct ir_cl_run *runs = calloc((size_t)n + 1, sizeof(*runs));
	struct ir_policy_params *pp = NULL;
	uint64_t *v = calloc((size_t)seeds, sizeof(*v));
	struct ir_cl_input in = { .n = n, .runs = runs, .fidelity = cin->fidelity, .wake_names = ir_wake_kind_name };
	char why[256];
	struct ir_sim_params sp;

	/* jobs: each run's seeds in a row (a deterministic run has one), then
	 * the frozen run */
	for (int i = 0; first && nseeds && i < n; i++) {
		first[i] = nj - 1;
		nseeds[i] = randomised(&cin->runs[i].p) ? seeds : 1;
		nj += nseeds[i];
	}
	fz = nj - 1;
	if (first && nseeds) {
		jobs = calloc((size_t)nj, sizeof(*jobs));
		pp = calloc((size_t)nj, sizeof(*pp));
	}
	if (!jobs || !runs || !pp || !v) {
		ret = ir_engine_fail(ir, IR_ERR_INPUT, "out of memory");
		goto out;
	}
	ir_sim_params_default(&sp, w->nr_cpus);
	sp.sysctl_sched_migration_cost = cin->sched_migration_cost;
	sp.max_idle_balance_cost = w->probed_max_idle_balance_cost ? w->probed_max_idle_balance_cost :
				   cin->max_idle_balance_cost;
	sp.tick_ns = cin->tick_ns;	/* check_preempt_tick() runs at each jiffy */
	if (ir->cl_refill_set)
		sp.refill_ns = ir->cl_refill_ns;
	if (ir->cl_no_sync)
		sp.sync_wakeups = false;	/* the workload's wakeups are not pipe/socket data */
	sp.idle_exit_median = ir->cl_idle_exit_median;
	/* EEVDF replaced CFS's picking in v6.6 (147f3efaa241); unknown: newest */
	sp.eevdf = cin->kernel_major < 0 || ir_kver_at_least(cin->kernel_major, cin->kernel_minor, 6, 6);
	/* DELAY_DEQUEUE and DELAY_ZERO (v6.12, 152e11f6df29) */
	sp.delay_dequeue = sp.eevdf && (cin->kernel_major < 0 || ir_kver_at_least(cin->kernel_major, cin->kernel_minor, 6, 12));
	/* select_idle_sibling(): the SIS_UTIL scan limit (v5.19, 70fb5ccf2ebb)
	 * and the recent_used_cpu candidate (v4.16, 32e839dda3ba) */
	sp.sis_util = cin->kernel_major < 0 || ir_kver_at_least(cin->kernel_major, cin->kernel_minor, 5, 19);
	sp.recent_used_cpu = cin->kernel_major < 0 || ir_kver_at_least(cin->kernel_major, cin->kernel_minor, 4, 16);
	sp.select_idle_smt = cin->kernel_major < 0 || ir_kver_at_least(cin->kernel_major, cin->kernel_minor, 5, 18);
	sp.swb_idle_core = cin->kernel_major < 0 || ir_kver_at_least(cin->kernel_major, cin->kernel_minor, 6, 6);
	for (int j = 0; j < nj; j++) {
		jobs[j].w = w;
		jobs[j].dom = cin->dom;
		jobs[j].sp = sp;
		if (j == fz)
			jobs[j].sp.frozen = true;
	}
	for (int i = 0; i < n; i++) {
		struct ir_policy_params def, *p = &pp[first[i]];

		*p = cin->runs[i].p;
		/* task_hot() reads the kernel's sysctl_sched_migration_cost:
		 * the trace's (or --migration-cost), unless this policy
		 * instance set its own */
		ir_policy_defaults(p->kind, &def);
		if (p->sysctl_sched_migration_cost == def.sysctl_sched_migration_cost)
			p->sysctl_sched_migration_cost = cin->sched_migration_cost;
		/* with newidle probes, the kernel's own per-level costs (their
		 * medians) replace the assumed ones the instance left alone */
		for (int l = 0; l < 3 && cin->dom && w->probe_calls; l++) {
			const struct ir_sched_domain *sd;

			if (l >= ir_domains_nr_levels(cin->dom, 0) || !w->probed_lb_cost[l])
				continue;
			sd = ir_domains_level(cin->dom, 0, l);
			if (p->max_newidle_lb_cost[sd->kind] == def.max_newidle_lb_cost[sd->kind])
				p->max_newidle_lb_cost[sd->kind] = w->probed_lb_cost[l];
		}
		/* seed .. seed + N - 1, as the open loop's seeds (model/evaluate.c) */
		for (int k = 0; k < nseeds[i]; k++) {
			pp[first[i] + k] = *p;
			pp[first[i] + k].seed = p->seed + (uint64_t)k;
			jobs[first[i] + k].pol = &pp[first[i] + k];
		}
		/* the Perfetto export shows the first seed's schedule */
		if (ir_perfetto_sim_wanted(cin->pf, i) &&
		    !(jobs[first[i]].cap = jobs[first[i]].sp.capture = ir_capture_new(w->nr_cpus, ir->pf_sim_max))) {
			ret = ir_engine_fail(ir, IR_ERR_INPUT, "out of memory");
			goto out;
		}
	}
	run_jobs(jobs, nj);
	for (int j = 0; j < nj; j++)
		if (jobs[j].ret) {
			ret = ir_engine_fail(ir, IR_ERR_INPUT, "%s: simulating: out of memory, or the workload file could not be read", ir->path);
			goto out;
		}
	for (int i = 0; i < n; i++) {
		runs[i].label = cin->runs[i].p.label;
		seeds_figures(&runs[i], &jobs[first[i]], nseeds[i], v);
	}
	in.frozen.label = "frozen";
	figures(&in.frozen, &jobs[fz].res);
	in.frozen.f.has_balance = false;	/* no balancing: the trace's own is not seen */
	in.frozen.p5.has_balance = in.frozen.p95.has_balance = false;
	in.measured = (struct ir_cl_figures){
		.completion_ns = w->completion_ns, .idle_while_waiting_ns = obs->idle_while_waiting_ns,
		.wait_p50 = ir_hist_quantile(w->wait, 0.5), .wait_p99 = ir_hist_quantile(w->wait, 0.99),
		.migrations = obs->migrations, .newidle_pulls = obs->newidle_pulls,
	};
	for (int c = 0; c < obs->nr_cpus; c++)
		in.measured.idle_ns += obs->cpu[c].idle_ns;
	for (int k = 0; k < IR_CL_WAKE_KINDS && k < IR_WK__COUNT; k++)
		in.wakes[k] = w->wakes[k];
	in.explained = ir_workload_explained(w);
	if (in.explained < IR_CL_MIN_EXPLAINED) {
		snprintf(why, sizeof(why), "only %.1f %% of the trace's wakeups are explained (at least %.0f %% "
			 "are needed to re-simulate it faithfully)", 100 * in.explained, 100 * IR_CL_MIN_EXPLAINED);
		in.withheld = why;
	}
	in.refill_ns = sp.refill_ns;
	in.sync_wakeups = sp.sync_wakeups;
	in.eevdf = sp.eevdf;
	in.seed = sp.seed;
	in.sim_seeds = seeds;
	in.probed_walk_ns = w->probed_walk_ns;
	in.idle_wake_ns = w->idle_wake_ns;
	in.idle_exit_median = sp.idle_exit_median;
	for (int k = 0; k < 2; k++) {
		in.idle_exit_n[k] = w->idle_wake_n[k];
		for (int j = 0; j < 4; j++)
			in.idle_exit_q[k][j] = w->idle_wake_p[k][j];
	}
	in.resched_ns = w->resched_ns;
	for (int l = 0; l < 3; l++)
		in.probed_lb_cost[l] = w->probed_lb_cost[l];
	in.probed_max_idle_balance_cost = w->probed_max_idle_balance_cost;
	in.tasks = w->nr_tasks;
	in.ops = w->nr_ops;
	in.workload_bytes = w->bytes;
	if (ir_report_closed_loop(doc, &in))
		ret = ir_engine_fail(ir, IR_ERR_INPUT, "out of memory");
	{
		uint64_t left = 0;
		int capped = 0;
		char line[512];

		for (int i = 0; i < n && !ret; i++) {
			const struct job *jb = &jobs[first[i]];

			if (jb->cap) {
				ir_capture_finish(jb->cap, jb->res.completion_ns);
				ir_perfetto_sim(cin->pf, i, w, jb->cap, in.withheld ? in.withheld : NULL);
				for (int k = 0; k < IR_CAP__KINDS; k++)
					left += jb->cap->left_out[k];
				capped += jb->cap->left_out[IR_CAP_SLICE] + jb->cap->left_out[IR_CAP_NEWIDLE] + jb->cap->left_out[IR_CAP_MIGRATE] > 0;
			}
		}
		if (left && ir->warn) {
			/* a truncated schedule must not pass for a whole one */
			snprintf(line, sizeof(line), "%s: warning: the Perfetto export keeps the first %llu records "
				 "(slices, newidle calls, migrations) of each simulated schedule: %llu more of %d "
				 "schedules left out (otherData.simulated counts them; --perfetto-sim-max N keeps more)",
				 ir->path, (unsigned long long)ir->pf_sim_max, (unsigned long long)left, capped);
			ir->warn(ir->warn_arg, line);
		}
	}
out:
	for (int j = 0; jobs && j < nj; j++)
		ir_capture_free(jobs[j].cap);
	free(jobs);
	free(runs);
	free(pp);
	free(first);
	free(nseeds);
	free(v);
	return ret;
}

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
}

int ir_engine_closed_loop(struct idlereplay *ir, const struct ir_closed_loop_input *cin, json_object *doc)
{
	const struct ir_workload *w = cin->w;
	const struct ir_observed *obs = cin->obs;
	int n = cin->n, ret = IR_OK;
	struct job *jobs = calloc((size_t)n + 1, sizeof(*jobs));
	struct ir_cl_run *runs = calloc((size_t)n + 1, sizeof(*runs));
	struct ir_policy_params *pp = calloc((size_t)n + 1, sizeof(*pp));
	struct ir_cl_input in = { .n = n, .runs = runs, .fidelity = cin->fidelity, .wake_names = ir_wake_kind_name };
	char why[256];
	struct ir_sim_params sp;

	if (!jobs || !runs || !pp) {
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
	/* EEVDF replaced CFS's picking in v6.6 (147f3efaa241); unknown: newest */
	sp.eevdf = cin->kernel_major < 0 || ir_kver_at_least(cin->kernel_major, cin->kernel_minor, 6, 6);
	/* DELAY_DEQUEUE and DELAY_ZERO (v6.12, 152e11f6df29) */
	sp.delay_dequeue = sp.eevdf && (cin->kernel_major < 0 || ir_kver_at_least(cin->kernel_major, cin->kernel_minor, 6, 12));
	/* select_idle_sibling(): the SIS_UTIL scan limit (v5.19, 70fb5ccf2ebb)
	 * and the recent_used_cpu candidate (v4.16, 32e839dda3ba) */
	sp.sis_util = cin->kernel_major < 0 || ir_kver_at_least(cin->kernel_major, cin->kernel_minor, 5, 19);
	sp.recent_used_cpu = cin->kernel_major < 0 || ir_kver_at_least(cin->kernel_major, cin->kernel_minor, 4, 16);
	sp.select_idle_smt = cin->kernel_major < 0 || ir_kver_at_least(cin->kernel_major, cin->kernel_minor, 5, 18);
	for (int i = 0; i <= n; i++) {
		jobs[i].w = w;
		jobs[i].dom = cin->dom;
		jobs[i].sp = sp;
		if (i < n) {
			struct ir_policy_params def;

			pp[i] = cin->runs[i].p;
			/* task_hot() reads the kernel's sysctl_sched_migration_cost:
			 * the trace's (or --migration-cost), unless this policy
			 * instance set its own */
			ir_policy_defaults(pp[i].kind, &def);
			if (pp[i].sysctl_sched_migration_cost == def.sysctl_sched_migration_cost)
				pp[i].sysctl_sched_migration_cost = cin->sched_migration_cost;
			/* with newidle probes, the kernel's own per-level costs (their
			 * medians) replace the assumed ones the instance left alone */
			for (int l = 0; l < 3 && cin->dom && w->probe_calls; l++) {
				const struct ir_sched_domain *sd;

				if (l >= ir_domains_nr_levels(cin->dom, 0) || !w->probed_lb_cost[l])
					continue;
				sd = ir_domains_level(cin->dom, 0, l);
				if (pp[i].max_newidle_lb_cost[sd->kind] == def.max_newidle_lb_cost[sd->kind])
					pp[i].max_newidle_lb_cost[sd->kind] = w->probed_lb_cost[l];
			}
			jobs[i].pol = &pp[i];
			if (ir_perfetto_sim_wanted(cin->pf, i) &&
			    !(jobs[i].cap = jobs[i].sp.capture = ir_capture_new(w->nr_cpus, ir->pf_sim_max))) {
				ret = ir_engine_fail(ir, IR_ERR_INPUT, "out of memory");
				goto out;
			}
		} else {
			jobs[i].sp.frozen = true;
		}
	}
	run_jobs(jobs, n + 1);
	for (int i = 0; i <= n; i++)
		if (jobs[i].ret) {
			ret = ir_engine_fail(ir, IR_ERR_INPUT, "%s: simulating: out of memory, or the workload file could not be read", ir->path);
			goto out;
		}
	for (int i = 0; i < n; i++) {
		runs[i].label = cin->runs[i].p.label;
		figures(&runs[i], &jobs[i].res);
	}
	in.frozen.label = "frozen";
	figures(&in.frozen, &jobs[n].res);
	in.frozen.f.has_balance = false;	/* no balancing: the trace's own is not seen */
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
	in.idle_wake_ns = w->idle_wake_ns;
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

		for (int i = 0; i < n && !ret; i++)
			if (jobs[i].cap) {
				ir_capture_finish(jobs[i].cap, jobs[i].res.completion_ns);
				ir_perfetto_sim(cin->pf, i, w, jobs[i].cap, in.withheld ? in.withheld : NULL);
				for (int k = 0; k < IR_CAP__KINDS; k++)
					left += jobs[i].cap->left_out[k];
				capped += jobs[i].cap->left_out[IR_CAP_SLICE] + jobs[i].cap->left_out[IR_CAP_NEWIDLE] + jobs[i].cap->left_out[IR_CAP_MIGRATE] > 0;
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
	for (int i = 0; jobs && i <= n; i++)
		ir_capture_free(jobs[i].cap);
	free(jobs);
	free(runs);
	free(pp);
	return ret;
}

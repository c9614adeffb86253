/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The closed-loop part of the report document (issue 13; schema minor 4):
 * "closed_loop", keyed by policy label, the figures of the workload
 * re-simulated under each policy; "closed_loop_fit", the same figures as the
 * trace measured them, the recording kernel's policy simulated against them
 * (relative error), the frozen simulation (placement and balancing as
 * recorded), what explained the wakeups, and the assumptions.  Built here
 * from plain numbers (struct ir_cl_input); report/json.c builds the rest.
 */
#include <math.h>
#include <stdio.h>

#include "report/report.h"
#include "report/util.h"

static json_object *figures_obj(const struct ir_cl_figures *f)
{
	json_object *o = json_object_new_object(), *w = json_object_new_object();

	json_object_object_add(o, "completion_ns", u64(f->completion_ns));
	json_object_object_add(o, "idle_ns", u64(f->idle_ns));
	json_object_object_add(o, "idle_while_waiting_ns", u64(f->idle_while_waiting_ns));
	json_object_object_add(w, "p50", u64(f->wait_p50));
	json_object_object_add(w, "p99", u64(f->wait_p99));
	json_object_object_add(o, "wait_ns", w);
	json_object_object_add(o, "migrations", u64(f->migrations));
	json_object_object_add(o, "newidle_pulls", u64(f->newidle_pulls));
	json_object_object_add(o, "balance_cpu_ns", f->has_balance ? u64(f->balance_cpu_ns) : NULL);
	return o;
}

/* The seeds a run's figures are the means over, and their 5-95 % spread
 * (schema minor 8): n 1 and p5 = p95 = the figures for a deterministic run */
static json_object *seeds_obj(const struct ir_cl_run *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "n", json_object_new_int(r->nr_seeds));
	json_object_object_add(o, "p5", figures_obj(&r->p5));
	json_object_object_add(o, "p95", figures_obj(&r->p95));
	return o;
}

static json_object *run_obj(const struct ir_cl_run *r)
{
	json_object *o = figures_obj(&r->f), *m = json_object_new_object();

	json_object_object_add(m, "wakeup", u64(r->mig_wakeup));
	json_object_object_add(m, "newidle", u64(r->mig_newidle));
	json_object_object_add(m, "periodic", u64(r->mig_periodic));
	json_object_object_add(o, "migrations_by_cause", m);
	json_object_object_add(o, "newidle_calls", u64(r->newidle_calls));
	json_object_object_add(o, "newidle_attempts", u64(r->newidle_attempts));
	json_object_object_add(o, "wakeups", u64(r->wakeups));
	json_object_object_add(o, "events", u64(r->events));
	json_object_object_add(o, "stalled", json_object_new_boolean(r->stalled));
	json_object_object_add(o, "forced_wakeups", u64(r->forced));
	json_object_object_add(o, "seeds", seeds_obj(r));
	return o;
}

/* (simulated - measured) / measured, null when measured is 0 or unknown */
static json_object *rel(uint64_t sim, uint64_t meas, bool known)
{
	if (!known || !meas)
		return NULL;
	return json_object_new_double(round(((double)sim - (double)meas) / (double)meas * 1e4) / 1e4);
}

static json_object *errors_obj(const struct ir_cl_figures *s, const struct ir_cl_figures *m)
{
	json_object *o = json_object_new_object(), *w = json_object_new_object();

	json_object_object_add(o, "completion_ns", rel(s->completion_ns, m->completion_ns, true));
	json_object_object_add(o, "idle_ns", rel(s->idle_ns, m->idle_ns, true));
	json_object_object_add(o, "idle_while_waiting_ns", rel(s->idle_while_waiting_ns, m->idle_while_waiting_ns, true));
	json_object_object_add(w, "p50", rel(s->wait_p50, m->wait_p50, true));
	json_object_object_add(w, "p99", rel(s->wait_p99, m->wait_p99, true));
	json_object_object_add(o, "wait_ns", w);
	json_object_object_add(o, "migrations", rel(s->migrations, m->migrations, true));
	json_object_object_add(o, "newidle_pulls", rel(s->newidle_pulls, m->newidle_pulls, true));
	json_object_object_add(o, "balance_cpu_ns", rel(s->balance_cpu_ns, m->balance_cpu_ns,
							   s->has_balance && m->has_balance));
	return o;
}

static json_object *strings(const char *const *v, int n)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static const char sync_on[] =
	"every wakeup a task issues is WF_SYNC (a parameter, off with --no-sync-wakeups: pipe and socket "
	"data wakeups are sync, futex and signal wakeups are not, and a trace does not say which a wakeup was)";
static const char sync_off[] =
	"no wakeup is WF_SYNC (--no-sync-wakeups: wake_affine() decides by idle CPUs and PELT load alone)";

static const char *const assumptions[] = {
	"the workload is the trace's: per task its CPU bursts, the wakeups and forks it issued at their point "
	"in its bursts, and its blocks; a block ended by the idle task or a kthread (interrupt, timer, "
	"workqueue) is kept as the recorded delay, and one ended on the CPU the task slept on is its own timer "
	"(hrtimers fire where armed), taken from the CPU it slept on in the simulation",
	"a wakeup issued while a task ran is taken as that task's (an interrupt taken during its burst is "
	"misattributed to it)",
	NULL,	/* the fair class: fair_cfs or fair_eevdf, by the trace's release */
	NULL,	/* WF_SYNC: sync_on or sync_off, by --no-sync-wakeups */
	"wake_affine_weight() compares PELT averages (32 ms half-life) of the runnable weight, a task's share "
	"moving with it when it migrates; newidle "
	"balance is model/'s load_balance() on the simulated runqueues, with its assumptions: "
	IR_LB_ASSUMPTIONS "; periodic balance moves one task per call when the busiest runqueue has two more",
	"each newidle load_balance() attempt costs the policy's per-level cost on the balancing CPU: with newidle "
	"probes in the trace, the medians of the kernel's own sd->max_newidle_lb_cost per level (and of "
	"max_idle_balance_cost) replace the assumed defaults a policy instance leaves alone, and a walk costs "
	"at most the probed calls' median duration (params.probed_walk_ns, the kernel's curr_cost)",
	"a migrated task pays refill_ns per sched domain level boundary crossed (level index + 1)",
	NULL,	/* an idle CPU's wakeup latency: idle_exit_trace or idle_exit_median, by --idle-exit */
	"no wake-up of a task that had not blocked is replayed; the first sighting of a task is its start",
};

static const char idle_exit_trace[] =
	"a wakeup onto an idle CPU takes effect after a latency drawn (seeded) from the trace's own "
	"wakeup-to-run latencies of wakeups onto idle CPUs (IPI and idle exit on the recording machine; "
	"a table of 129 quantiles, linear between them)";
static const char idle_exit_median[] =
	"a wakeup onto an idle CPU takes effect after the trace's own median wakeup-to-run latency of "
	"wakeups onto idle CPUs (IPI and idle exit on the recording machine; --idle-exit median)";

static const char *const not_modelled[] = {
	"interrupt and softirq load beyond the recorded kthread bursts",
	"CPU frequency; idle-state exit latency as a function of the idle state reached (it is drawn "
	"from the trace's distribution whatever the idle time)",
	"SMT contention (siblings run at full speed)",
	"NOHZ idle balance as the kicked CPU runs it for every idle CPU (each idle CPU balances "
	"itself at its idle interval); active balance for asym packing, misfit or reduced capacity",
	"the per-CPU kthread waker case of select_idle_sibling()",
	"the tick's phase (a trace does not record it: ticks fall on multiples of the jiffy)",
	"cgroups, affinity other than per-CPU kthreads, NUMA balancing, exec balancing",
};

/* The fair class the simulation ran, keyed on the trace's release as
 * engine/closed_loop.c keys it (EEVDF from v6.6, 147f3efaa241). */
static const char fair_cfs[] =
	"the fair class as of v6.1 CFS (the trace's kernel is older than v6.6): vruntime by "
	"sched_prio_to_weight, slices from sysctl_sched_latency checked only at the tick "
	"(check_preempt_tick()), wakeup preemption by wakeup_gran (check_preempt_wakeup()), "
	"the next and last buddies of pick_next_entity(); RT tasks weigh as nice -20";
static const char fair_eevdf[] =
	"the fair class as of v6.6 EEVDF (the trace's kernel is v6.6 or later, or unknown): pick_eevdf() "
	"takes the eligible task of the earliest deadline, place_entity() places a woken task at "
	"avg_vruntime() minus the lag it slept with, slices of sysctl_sched_base_slice, RUN_TO_PARITY, "
	"and from v6.12 DELAY_DEQUEUE (a sleeper that is not eligible stays queued, woken where it is); "
	"RT tasks weigh as nice -20";
static const char eevdf_later[] =
	"EEVDF's later refinements (PREEMPT_SHORT, the delayed dequeue of sleeping tasks, DELAY_DEQUEUE)";

int ir_report_closed_loop(json_object *doc, const struct ir_cl_input *in)
{
	const char *as[sizeof(assumptions) / sizeof(*assumptions) + 1];
	char seeds_line[320];
	const char *nm[sizeof(not_modelled) / sizeof(*not_modelled) + 1];
	int nas = 0, nnm = 0;
	json_object *cl = json_object_new_object(), *fit = json_object_new_object();
	json_object *wk = json_object_new_object(), *params = json_object_new_object();
	json_object *wl = json_object_new_object();
	uint64_t all = 0;

	if (!cl || !fit || !wk || !params || !wl)
		return -1;
	if (!in->withheld)
		for (int i = 0; i < in->n; i++)
			json_object_object_add(cl, in->runs[i].label, run_obj(&in->runs[i]));
	json_object_object_add(doc, "closed_loop", cl);

	json_object_object_add(fit, "withheld", in->withheld ? json_object_new_string(in->withheld) : NULL);
	for (int k = 0; k < IR_CL_WAKE_KINDS; k++)
		all += in->wakes[k];
	for (int k = 0; k < IR_CL_WAKE_KINDS; k++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "count", u64(in->wakes[k]));
		json_object_object_add(o, "share", json_object_new_double(
			all ? round((double)in->wakes[k] / (double)all * 1e4) / 1e4 : 0));
		json_object_object_add(wk, in->wake_names[k], o);
	}
	json_object_object_add(fit, "wakeups", wk);
	json_object_object_add(fit, "explained_share", json_object_new_double(round(in->explained * 1e4) / 1e4));
	json_object_object_add(fit, "measured", figures_obj(&in->measured));
	json_object_object_add(fit, "frozen", run_obj(&in->frozen));
	json_object_object_add(fit, "frozen_error", errors_obj(&in->frozen.f, &in->measured));
	if (in->fidelity >= 0 && !in->withheld) {
		json_object_object_add(fit, "policy", json_object_new_string(in->runs[in->fidelity].label));
		json_object_object_add(fit, "simulated", figures_obj(&in->runs[in->fidelity].f));
		json_object_object_add(fit, "simulated_seeds", seeds_obj(&in->runs[in->fidelity]));
		json_object_object_add(fit, "relative_error", errors_obj(&in->runs[in->fidelity].f, &in->measured));
	} else {
		json_object_object_add(fit, "policy", NULL);
		json_object_object_add(fit, "simulated", NULL);
		json_object_object_add(fit, "simulated_seeds", NULL);
		json_object_object_add(fit, "relative_error", NULL);
	}
	json_object_object_add(params, "refill_ns", u64(in->refill_ns));
	json_object_object_add(params, "sync_wakeups", json_object_new_boolean(in->sync_wakeups));
	json_object_object_add(params, "seed", u64(in->seed));
	json_object_object_add(params, "sim_seeds", json_object_new_int(in->sim_seeds));
	json_object_object_add(params, "idle_wake_ns", u64(in->idle_wake_ns));
	json_object_object_add(params, "resched_ns", u64(in->resched_ns));
	json_object_object_add(params, "idle_exit", json_object_new_string(in->idle_exit_median ? "median" : "trace"));
	{
		/* the measured distributions the simulation draws from */
		json_object *ie = json_object_new_object();

		for (int k = 0; k < 2; k++) {
			json_object *o = json_object_new_object(), *qs = json_object_new_array();

			json_object_object_add(o, "n", u64(in->idle_exit_n[k]));
			for (int j = 0; j < 4; j++)
				json_object_array_add(qs, u64(in->idle_exit_q[k][j]));
			json_object_object_add(o, "p50_p90_p99_max", qs);
			json_object_object_add(ie, k ? "local" : "remote", o);
		}
		json_object_object_add(params, "idle_exit_latency", ie);
	}
	{
		json_object *pc = json_object_new_array();

		for (int l = 0; l < 3; l++)
			json_object_array_add(pc, u64(in->probed_lb_cost[l]));
		json_object_object_add(params, "probed_max_newidle_lb_cost", pc);
		json_object_object_add(params, "probed_max_idle_balance_cost", u64(in->probed_max_idle_balance_cost));
		json_object_object_add(params, "probed_walk_ns", u64(in->probed_walk_ns));
	}
	json_object_object_add(fit, "params", params);
	json_object_object_add(wl, "tasks", u64(in->tasks));
	json_object_object_add(wl, "ops", u64(in->ops));
	json_object_object_add(wl, "bytes", u64(in->workload_bytes));
	json_object_object_add(fit, "workload", wl);
	for (size_t i = 0; i < sizeof(assumptions) / sizeof(*assumptions); i++)
		as[nas++] = assumptions[i] ? assumptions[i] :
			    i == 2 ? (in->eevdf ? fair_eevdf : fair_cfs) : i == 3 ? (in->sync_wakeups ? sync_on : sync_off) :
			    in->idle_exit_median ? idle_exit_median : idle_exit_trace;
	if (in->sim_seeds > 1)
		snprintf(seeds_line, sizeof(seeds_line), "a randomised policy (NI_RANDOM's dice) is simulated with %d "
			 "seeds (its seed .. seed + %d, --sim-seeds): its figures are the means over them, with each "
			 "figure's 5-95 %% spread under seeds; a deterministic policy is simulated once", in->sim_seeds,
			 in->sim_seeds - 1);
	else
		snprintf(seeds_line, sizeof(seeds_line), "a randomised policy (NI_RANDOM's dice) is simulated with "
			 "its seed alone (--sim-seeds 1): its figures are one draw of the dice");
	as[nas++] = seeds_line;
	for (size_t i = 0; i < sizeof(not_modelled) / sizeof(*not_modelled); i++)
		nm[nnm++] = not_modelled[i];
	if (in->eevdf)
		nm[nnm++] = eevdf_later;
	json_object_object_add(fit, "assumptions", strings(as, nas));
	json_object_object_add(fit, "not_modelled", strings(nm, nnm));
	json_object_object_add(doc, "closed_loop_fit", fit);
	return 0;
}

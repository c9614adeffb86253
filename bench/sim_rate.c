/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The closed-loop simulator's speed (issue 13): a trace's workload is
 * extracted once, then simulated under every policy and frozen; prints, per
 * simulation, the simulated events, the thread's CPU time and the rate, and
 * the workload's size against the trace's events (memory per event).
 *   build/bench/sim_rate TRACE [TOPOLOGY]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "sim/sim.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct feed {
	struct ir_wl_builder *b;
	uint64_t events;
	int err;
};

static int feed(void *arg, const struct ir_event *ev)
{
	struct feed *f = arg;

	f->events++;
	if (!f->err)
		f->err = ir_wl_feed(f->b, ev);
	return 0;
}

static void run(const char *label, const struct ir_workload *w, const struct ir_domains *dom,
		const struct ir_policy_params *pol, const struct ir_sim_params *sp)
{
	struct ir_sim_result r;
	double t0 = cpu_now(), dt;

	if (ir_simulate(w, dom, pol, sp, &r)) {
		fprintf(stderr, "sim_rate: out of memory\n");
		exit(2);
	}
	dt = cpu_now() - t0;
	printf("sim %-14s events %10llu cpu_s %8.3f rate %12.0f\n", label, (unsigned long long)r.events, dt,
	       dt > 0 ? (double)r.events / dt : 0);
}

int main(int argc, char **argv)
{
	struct ir_trace *t;
	struct ir_topology *topo = NULL;
	struct ir_domains *dom;
	struct ir_workload *w;
	struct ir_sim_params sp;
	struct feed f = { 0 };
	struct rusage ru;
	char err[1024];
	double t0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: sim_rate TRACE [TOPOLOGY]\n");
		return 1;
	}
	if (ir_trace_open(argv[1], &t, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	f.b = ir_wl_new(ir_trace_info(t)->nr_cpus);
	t0 = cpu_now();
	if (!f.b || ir_trace_run(t, feed, &f, err, sizeof(err)) || f.err) {
		fprintf(stderr, "sim_rate: %s\n", f.err ? "out of memory" : err);
		return 2;
	}
	w = ir_wl_finish(f.b, ir_trace_info(t)->last_ts);
	printf("extract events %llu cpu_s %.3f tasks %u ops %llu workload_bytes %llu bytes_per_event %.1f\n",
	       (unsigned long long)f.events, cpu_now() - t0, w->nr_tasks, (unsigned long long)w->nr_ops,
	       (unsigned long long)w->bytes, (double)w->bytes / (double)f.events);
	if (argc == 3 && ir_topology_from_arg(argv[2], &topo, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	if (!topo)
		topo = ir_topology_flat(w->nr_cpus);
	if (!(dom = ir_domains_build(topo, err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	ir_sim_params_default(&sp, w->nr_cpus);
	sp.eevdf = ir_kver_at_least(ir_trace_info(t)->kernel_major, ir_trace_info(t)->kernel_minor, 6, 6);
	for (int k = 0; k < IR_POL__COUNT; k++) {
		struct ir_policy_params p;

		ir_policy_defaults((enum ir_policy_kind)k, &p);
		run(ir_policy_name((enum ir_policy_kind)k), w, dom, &p, &sp);
	}
	sp.frozen = true;
	run("frozen", w, dom, NULL, &sp);
	getrusage(RUSAGE_SELF, &ru);
	printf("maxrss_kb %ld\n", ru.ru_maxrss);
	ir_workload_free(w);
	ir_domains_free(dom);
	ir_topology_free(topo);
	ir_trace_close(t);
	return 0;
}

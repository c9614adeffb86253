/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The closed-loop simulator's speed (issue 13): a trace's workload is
 * extracted once, then simulated under every policy and frozen; prints, per
 * simulation, the simulated events, the thread's CPU time and the rate, and
 * the workload's size against the trace's events (memory per event).
 *   build/bench/sim_rate TRACE [TOPOLOGY]
 * With --whole, only the whole-trace extraction and its check line.
 * With --spill, the workload as `simulate` extracts it (ir_wl_new_spill():
 * sealed windows in an unlinked file in TMPDIR, else /var/tmp; each
 * simulation reads it through its own reader), then the same simulations;
 * its check line hashes the records as a reader gives them.
 * With --stream WINDOW_NS, only the streaming extraction (sim/workload.c):
 * no simulation, the sealed records hashed and dropped; prints the peak of
 * what it held and the process's peak RSS.  Both modes print the same
 * "check" line (a hash of every op, switch and move record in order, and
 * the whole-trace figures), so the two extractions can be compared.
 */
#include <stdio.h>
#include <string.h>
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

/* FNV-1a, per task (per CPU for switches) in index order, then combined. */
#define FNV0 1469598103934665603ull
struct hash {
	uint64_t *task, *sw;	/* per task, per CPU */
	uint32_t nr, cap, nr_sw, cap_sw;
	uint64_t moves;
	int err;
};

/* Slot i of a per-task or per-CPU hash array, grown as needed; NULL: no memory. */
static uint64_t *slot(uint64_t **a, uint32_t *nr, uint32_t *cap, uint32_t i)
{
	if (i >= *cap) {
		uint32_t ncap = (i + 1) * 2;
		uint64_t *t = realloc(*a, ncap * sizeof(*t));

		if (!t)
			return NULL;
		for (uint32_t k = *cap; k < ncap; k++)
			t[k] = FNV0;
		*a = t;
		*cap = ncap;
	}
	if (i >= *nr)
		*nr = i + 1;
	return &(*a)[i];
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ull;
	return h;
}

static int h_ops(void *arg, uint32_t task, uint64_t first, const struct ir_op *op, uint32_t n)
{
	struct hash *h = arg;
	uint64_t *x = slot(&h->task, &h->nr, &h->cap, task);

	(void)first;
	if (!x)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		*x = fnv(fnv(*x, (uint64_t)op[i].kind | (uint64_t)op[i].flags << 8 | (uint64_t)op[i].cpu << 16 |
				 (uint64_t)op[i].arg << 32), op[i].ns);
	return 0;
}

static int h_sw(void *arg, int cpu, uint64_t first, const struct ir_sw_rec *r, uint64_t n)
{
	struct hash *h = arg;
	uint64_t *x = slot(&h->sw, &h->nr_sw, &h->cap_sw, (uint32_t)cpu);

	(void)first;
	if (!x)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		*x = fnv(fnv(*x, (uint32_t)r[i].task), r[i].ns);
	return 0;
}

static int h_moves(void *arg, uint64_t first, const struct ir_move_rec *m, uint64_t n)
{
	struct hash *h = arg;

	(void)first;
	for (uint64_t i = 0; i < n; i++)
		h->moves = fnv(fnv(h->moves, (uint64_t)m[i].task | (uint64_t)m[i].dest << 32), m[i].ns);
	return 0;
}

/* The check line: the records' hash and the whole-trace figures. */
static void check(const struct ir_workload *w, struct hash *h)
{
	uint64_t all = FNV0, sw = FNV0;

	for (uint32_t i = 0; i < w->nr_tasks; i++) {
		all = fnv(all, i < h->nr ? h->task[i] : FNV0);
		all = fnv(fnv(fnv(all, w->task[i].nr_ops), (uint64_t)(uint32_t)w->task[i].prio << 8 | w->task[i].start),
			  w->task[i].start_ns << 16 ^ w->task[i].start_cpu);
	}
	for (int c = 0; c < w->nr_cpus; c++)
		sw = fnv(sw, (uint32_t)c < h->nr_sw ? h->sw[c] : FNV0);
	printf("check hash %016llx-%016llx-%016llx tasks %u ops %llu wakes", (unsigned long long)all,
	       (unsigned long long)sw, (unsigned long long)h->moves, w->nr_tasks, (unsigned long long)w->nr_ops);
	for (int k = 0; k < IR_WK__COUNT; k++)
		printf(" %llu", (unsigned long long)w->wakes[k]);
	printf(" completion %llu wait %llu/%llu/%llu idle_wake %llu resched %llu probed %llu/%llu/%llu/%llu\n",
	       (unsigned long long)w->completion_ns, (unsigned long long)w->wait->n,
	       (unsigned long long)ir_hist_quantile(w->wait, 0.5), (unsigned long long)ir_hist_quantile(w->wait, 0.99),
	       (unsigned long long)w->idle_wake_ns, (unsigned long long)w->resched_ns,
	       (unsigned long long)w->probed_lb_cost[0], (unsigned long long)w->probed_lb_cost[1],
	       (unsigned long long)w->probed_lb_cost[2], (unsigned long long)w->probed_max_idle_balance_cost);
}

/* The spilled workload hashed as a simulation's reader gives it. */
static void hash_spilled(const struct ir_workload *w, struct hash *h)
{
	struct ir_wl_reader *r = ir_wl_reader_new(w);

	if (!r) {
		h->err = 1;
		return;
	}
	for (uint32_t i = 0; i < w->nr_tasks; i++)
		for (uint64_t j = 0; j < w->task[i].nr_ops; j++)
			if (h_ops(h, i, j, ir_wl_op(r, i, j), 1))
				h->err = 1;
	for (int c = 0; c < w->nr_cpus; c++)
		for (uint64_t j = 0; j < w->nr_sw[c]; j++)
			if (h_sw(h, c, j, ir_wl_sw(r, c, j), 1))
				h->err = 1;
	for (uint64_t j = 0; j < w->nr_moves; j++)
		h_moves(h, j, ir_wl_move(r, j), 1);
	if (r->err)
		h->err = 1;
	ir_wl_reader_free(r);
}

/* The whole-trace workload hashed as the sink would see it. */
static void hash_whole(const struct ir_workload *w, struct hash *h)
{
	for (uint32_t i = 0; i < w->nr_tasks; i++)
		if (w->task[i].nr_ops && h_ops(h, i, 0, w->task[i].ops, w->task[i].nr_ops))
			h->err = 1;
	for (int c = 0; c < w->nr_cpus; c++)
		if (h_sw(h, c, 0, w->sw[c], w->nr_sw[c]))
			h->err = 1;
	h_moves(h, 0, w->moves, w->nr_moves);
}

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
	struct hash h = { .moves = FNV0 };
	struct ir_wl_sink sink = { .arg = &h, .ops = h_ops, .sw = h_sw, .moves = h_moves };
	struct rusage ru;
	char err[1024];
	double t0;
	uint64_t window = 0;
	bool stream = argc >= 3 && !strcmp(argv[1], "--stream"), whole = argc >= 2 && !strcmp(argv[1], "--whole");
	bool spill = argc >= 2 && !strcmp(argv[1], "--spill");
	const char *dir = getenv("TMPDIR");

	if (whole || spill) {
		argc--;
		argv++;
	} else if (stream) {
		window = strtoull(argv[2], NULL, 10);
		argc -= 2;
		argv += 2;
	}
	if (argc < 2 || argc > 3 || (stream && !window)) {
		fprintf(stderr, "usage: sim_rate [--whole | --spill | --stream WINDOW_NS] TRACE [TOPOLOGY]\n");
		return 1;
	}
	if (ir_trace_open(argv[1], &t, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	f.b = window ? ir_wl_new_stream(ir_trace_info(t)->nr_cpus, window, &sink) :
	      spill ? ir_wl_new_spill(ir_trace_info(t)->nr_cpus, IR_WL_SPILL_WINDOW_NS, dir && *dir ? dir : "/var/tmp") :
	      ir_wl_new(ir_trace_info(t)->nr_cpus);
	t0 = cpu_now();
	if (!f.b || ir_trace_run(t, feed, &f, err, sizeof(err)) || f.err) {
		fprintf(stderr, "sim_rate: %s\n", f.err ? "out of memory" : err);
		return 2;
	}
	if (!(w = ir_wl_finish(f.b, ir_trace_info(t)->last_ts)) || h.err) {
		fprintf(stderr, "sim_rate: out of memory\n");
		return 2;
	}
	printf("extract events %llu cpu_s %.3f tasks %u ops %llu workload_bytes %llu bytes_per_event %.1f"
	       " held_bytes %llu spill_bytes %llu pins_released %u\n",
	       (unsigned long long)f.events, cpu_now() - t0, w->nr_tasks, (unsigned long long)w->nr_ops,
	       (unsigned long long)w->bytes, (double)w->bytes / (double)f.events,
	       (unsigned long long)w->held_bytes, (unsigned long long)w->spill_bytes, w->pins_released);
	if (spill)
		hash_spilled(w, &h);
	else if (!window)
		hash_whole(w, &h);
	if (h.err) {
		fprintf(stderr, "sim_rate: the spilled records could not be read\n");
		return 2;
	}
	check(w, &h);
	if (window || whole) {
		if (window)
			printf("stream window_ns %llu pins_released %llu\n", (unsigned long long)window,
			       (unsigned long long)w->pins_released);
		getrusage(RUSAGE_SELF, &ru);
		printf("maxrss_kb %ld\n", ru.ru_maxrss);
		ir_workload_free(w);
		ir_trace_close(t);
		free(h.task);
		free(h.sw);
		return 0;
	}
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
	free(h.task);
	free(h.sw);
	ir_domains_free(dom);
	ir_topology_free(topo);
	ir_trace_close(t);
	return 0;
}

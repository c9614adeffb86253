/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Synthetic event builders for the replay state-machine tests.  Each helper
 * builds one struct ir_event the way decode.c would and feeds it, so a test
 * reads like the trace it stands for.
 */
#ifndef IR_TEST_EV_H
#define IR_TEST_EV_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "replay/replay.h"

#define US 1000ull
#define MS 1000000ull
/* Far from 0: state.c treats ts 0 / idle_stamp 0 as "unset", as the kernel does. */
#define T0 1000000000ull

#define S_RUN 0u			/* TASK_RUNNING, not preempted */
#define S_PRE IR_TASK_PREEMPTED		/* R+ */
#define S_SLEEP IR_TASK_INTERRUPTIBLE	/* S */
#define S_DEAD IR_EXIT_DEAD

#define MAX_PTS 64
struct pts {
	int n;
	struct ir_point p[MAX_PTS];
};

static void collect(void *arg, const struct ir_point *pt)
{
	struct pts *p = arg;

	if (!p)
		return;		/* the test does not look at points */
	assert_true(p->n < MAX_PTS);
	p->p[p->n++] = *pt;
}

static inline struct ir_state *mk(int nr_cpus, const struct ir_state_params *prm,
				  const struct ir_rings *rings, struct pts *pts)
{
	struct ir_state_params d;
	struct ir_state *s;

	if (!prm) {
		ir_state_params_default(&d);
		prm = &d;
	}
	if (pts)
		memset(pts, 0, sizeof(*pts));
	s = ir_state_new(nr_cpus, prm, rings, collect, pts);
	assert_non_null(s);
	return s;
}

static inline uint16_t clen(const char *c)
{
	return (uint16_t)strlen(c);
}

/* prev_comm / next_comm for a switch; "swapper/N" for pid 0 */
static inline void swc(struct ir_state *s, uint64_t ts, int cpu, int prev, const char *pcomm,
		       uint32_t pstate, int next, const char *ncomm)
{
	struct ir_event ev = {
		.ts = ts, .cpu = cpu, .common_pid = prev, .type = IR_EV_SWITCH,
		.sw.prev_pid = prev, .sw.prev_prio = 120, .sw.next_pid = next, .sw.next_prio = 120,
		.sw.prev_state = pstate, .sw.prev_comm = pcomm, .sw.next_comm = ncomm,
		.sw.prev_comm_len = clen(pcomm), .sw.next_comm_len = clen(ncomm),
	};
	ir_state_feed(s, &ev);
}

static inline void sw(struct ir_state *s, uint64_t ts, int cpu, int prev, uint32_t pstate, int next)
{
	swc(s, ts, cpu, prev, prev ? "task" : "swapper", pstate, next, next ? "task" : "swapper");
}

static inline void wakec(struct ir_state *s, enum ir_ev_type type, uint64_t ts, int cpu, int common,
			 int pid, int prio, int target, const char *comm)
{
	struct ir_event ev = {
		.ts = ts, .cpu = cpu, .common_pid = common, .type = type,
		.wake.pid = pid, .wake.prio = prio, .wake.target_cpu = target,
		.wake.comm = comm, .wake.comm_len = clen(comm),
	};
	ir_state_feed(s, &ev);
}

static inline void wake(struct ir_state *s, uint64_t ts, int cpu, int common, int pid, int target)
{
	wakec(s, IR_EV_WAKEUP, ts, cpu, common, pid, 120, target, "task");
}

static inline void waking(struct ir_state *s, uint64_t ts, int cpu, int common, int pid, int target)
{
	wakec(s, IR_EV_WAKING, ts, cpu, common, pid, 120, target, "task");
}

static inline void wake_new(struct ir_state *s, uint64_t ts, int cpu, int common, int pid, int target)
{
	wakec(s, IR_EV_WAKEUP_NEW, ts, cpu, common, pid, 120, target, "task");
}

static inline void migp(struct ir_state *s, uint64_t ts, int cpu, int common, int pid, int prio,
			int orig, int dest)
{
	struct ir_event ev = {
		.ts = ts, .cpu = cpu, .common_pid = common, .type = IR_EV_MIGRATE,
		.mig.pid = pid, .mig.prio = prio, .mig.orig_cpu = orig, .mig.dest_cpu = dest,
		.mig.comm = "task", .mig.comm_len = 4,
	};
	ir_state_feed(s, &ev);
}

static inline void mig(struct ir_state *s, uint64_t ts, int cpu, int common, int pid, int orig, int dest)
{
	migp(s, ts, cpu, common, pid, 120, orig, dest);
}

static inline void other(struct ir_state *s, uint64_t ts, int cpu, int common)
{
	struct ir_event ev = { .ts = ts, .cpu = cpu, .common_pid = common, .type = IR_EV_OTHER };

	ir_state_feed(s, &ev);
}

static inline void exec_ev(struct ir_state *s, uint64_t ts, int cpu, int pid)
{
	struct ir_event ev = { .ts = ts, .cpu = cpu, .common_pid = pid, .type = IR_EV_EXEC,
			       .exec.pid = pid, .exec.old_pid = pid };

	ir_state_feed(s, &ev);
}

static inline void move_numa(struct ir_state *s, uint64_t ts, int cpu, int pid, int src, int dst)
{
	struct ir_event ev = { .ts = ts, .cpu = cpu, .common_pid = pid, .type = IR_EV_MOVE_NUMA,
			       .numa.pid = pid, .numa.src_cpu = src, .numa.dst_cpu = dst };

	ir_state_feed(s, &ev);
}

/* Every cause count, so a misclassification shows as both a miss and a hit. */
/* Newidle probes (SPEC 6): entry on cpu by common with the given ttwu_pending
 * and rd_overload; exit with ret. */
static inline void probe_in(struct ir_state *s, uint64_t ts, int cpu, int common, int ttwu, int ovl)
{
	struct ir_event ev = { .ts = ts, .cpu = cpu, .common_pid = common, .type = IR_EV_PROBE_ENTRY };

	ev.probe_entry.cpu = cpu;
	ev.probe_entry.v = (struct ir_probe_entry){ .nr_running = -1, .avg_idle = -1,
		.max_idle_balance_cost = -1, .rd_overload = ovl, .ttwu_pending = ttwu,
		.sd_max_newidle_lb_cost = { -1, -1, -1 }, .sd_newidle_ratio = { -1, -1, -1 } };
	ir_state_feed(s, &ev);
}

static inline void probe_out(struct ir_state *s, uint64_t ts, int cpu, int common, int ret)
{
	struct ir_event ev = { .ts = ts, .cpu = cpu, .common_pid = common, .type = IR_EV_PROBE_EXIT };

	ev.probe_exit.ret = ret;
	ir_state_feed(s, &ev);
}

/*
 * Periodic top-level balances as rebalance_domains() times them: group g's
 * balancer balances once every interval iv[g] ms, at a phase the trace does
 * not give (uniform), so by t ms after the last rq left 2 it has come with
 * probability min(1, t / iv[g]) and the flag survives them all with
 * prod (1 - t / iv[g]).  The time in ns where that falls to 1/2, by
 * bisection: the tests' own model, not the replay's code.
 */
static inline double periodic_half_ns(const double *iv, int n)
{
	double lo = 0, hi = iv[0];

	for (int g = 1; g < n; g++)
		hi = iv[g] < hi ? iv[g] : hi;
	for (int k = 0; k < 200; k++) {
		double t = (lo + hi) / 2, surv = 1;

		for (int g = 0; g < n; g++)
			surv *= 1 - t / iv[g];
		if (surv > 0.5)
			lo = t;
		else
			hi = t;
	}
	return lo * (double)MS;
}

static inline void expect_causes(const struct ir_state *s, const uint64_t want[IR_MIG__COUNT])
{
	const struct ir_observed *o = ir_state_observed(s);
	uint64_t total = 0;

	for (int i = 0; i < IR_MIG__COUNT; i++) {
		if (o->mig_by_cause[i] != want[i])
			fail_msg("cause %s: got %llu, want %llu", ir_mig_cause_name[i],
				 (unsigned long long)o->mig_by_cause[i], (unsigned long long)want[i]);
		total += want[i];
	}
	assert_int_equal(o->migrations, total);
}

static inline void expect_anoms(const struct ir_state *s, const uint64_t want[IR_ANOM__COUNT])
{
	const struct ir_observed *o = ir_state_observed(s);

	for (int i = 0; i < IR_ANOM__COUNT; i++)
		if (o->anomalies[i] != want[i])
			fail_msg("anomaly %s: got %llu, want %llu", ir_anomaly_name[i],
				 (unsigned long long)o->anomalies[i], (unsigned long long)want[i]);
}

#endif

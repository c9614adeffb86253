/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: the state machine.  Bytes -> a synthetic ir_event
 * sequence (few CPUs, few pids, time mostly forward, sometimes back,
 * every event type, comms that hit the pinned-task rules) -> ir_state_feed,
 * with and without domain rings; then checks the observed figures for
 * plain consistency.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

struct in {
	const uint8_t *p;
	size_t n;
};

static uint8_t u8(struct in *in)
{
	uint8_t v;

	if (!in->n)
		return 0;
	v = *in->p++;
	in->n--;
	return v;
}

static uint32_t u32(struct in *in)
{
	return (uint32_t)u8(in) | (uint32_t)u8(in) << 8 | (uint32_t)u8(in) << 16 | (uint32_t)u8(in) << 24;
}

static const char *const comms[] = {
	"bash", "migration/0", "ksoftirqd/1", "kworker/0:1", "kworker/u8:2", "cpuhp/3",
	"watchdog/0", "rcuc/1", "idle_inject/2", "hackbench", "", "kworker/",
};

static int32_t pid(struct in *in)
{
	uint8_t b = u8(in);

	return b == 255 ? -1 : b % 12;	/* 0 is idle */
}

static uint64_t points;

static void on_point(void *arg, const struct ir_point *pt)
{
	(void)arg;
	points += pt->idle_ns & 1;
	if (pt->nr_levels < 0 || pt->nr_levels > IR_MAX_LEVELS)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	struct ir_state_params p;
	struct ir_state *s;
	uint8_t mode = u8(&in);
	int nr_cpus = 1 + (mode & 7);
	uint8_t ring[64], levels[8];
	struct ir_rings rings = { .nr_cpus = nr_cpus, .ring = ring, .nr_levels = levels };
	uint64_t ts = 1000000;
	const struct ir_observed *o;

	ir_state_params_default(&p);
	p.probe_seed = mode & 8;
	p.avg_idle_shift = mode & 16;
	if (mode & 32)
		p.tick_ns = u8(&in) * 100000ull;
	/* two levels: pairs, then all */
	for (int c = 0; c < nr_cpus; c++) {
		levels[c] = 2;
		for (int d = 0; d < nr_cpus; d++)
			ring[c * nr_cpus + d] = (c / 2 == d / 2) ? 0 : 1;
	}
	s = ir_state_new(nr_cpus, &p, (mode & 64) ? &rings : NULL, on_point, NULL);
	if (!s)
		return 0;
	while (in.n >= 4) {
		struct ir_event ev;
		uint8_t h = u8(&in), dt = u8(&in);
		const char *c1 = comms[u8(&in) % 12], *c2 = comms[u8(&in) % 12];

		memset(&ev, 0, sizeof(ev));
		ev.type = (enum ir_ev_type)(h % IR_EV__COUNT);
		/* time: forward by a byte's worth of us, rarely backwards */
		if (dt == 0xff)
			ts -= u8(&in) * 1000ull;
		else
			ts += dt * 1000ull;
		ev.ts = ts;
		ev.cpu = (h >> 4) % (nr_cpus + 1) == (unsigned)nr_cpus && (h & 0x80) ? nr_cpus : (h >> 4) % nr_cpus;
		ev.common_pid = pid(&in);
		ev.missed = (h & 0x0f) == 0x0f ? (int64_t)u8(&in) - 1 : 0;
		switch (ev.type) {
		case IR_EV_SWITCH:
			ev.sw.prev_pid = pid(&in);
			ev.sw.next_pid = pid(&in);
			ev.sw.prev_prio = 120;
			ev.sw.next_prio = u8(&in) & 1 ? 50 : 120;
			{
				uint8_t st = u8(&in);

				ev.sw.prev_state = st & 0x80 ? IR_TASK_PREEMPTED : st & 0x3;
			}
			ev.sw.prev_comm = c1;
			ev.sw.prev_comm_len = (uint16_t)strlen(c1);
			ev.sw.next_comm = c2;
			ev.sw.next_comm_len = (uint16_t)strlen(c2);
			break;
		case IR_EV_WAKING:
		case IR_EV_WAKEUP:
		case IR_EV_WAKEUP_NEW:
			ev.wake.pid = pid(&in);
			ev.wake.prio = 120;
			ev.wake.target_cpu = (int32_t)(u8(&in) % (nr_cpus + 1)) - (u8(&in) == 7);
			ev.wake.comm = c1;
			ev.wake.comm_len = (uint16_t)strlen(c1);
			break;
		case IR_EV_MIGRATE:
			ev.mig.pid = pid(&in);
			ev.mig.prio = 120;
			ev.mig.orig_cpu = (int32_t)(u8(&in) % (nr_cpus + 1)) - 1;
			ev.mig.dest_cpu = (int32_t)(u8(&in) % (nr_cpus + 1)) - 1;
			ev.mig.comm = c1;
			ev.mig.comm_len = (uint16_t)strlen(c1);
			break;
		case IR_EV_FORK:
			ev.fork.parent_pid = pid(&in);
			ev.fork.child_pid = pid(&in);
			ev.fork.child_comm = u8(&in) & 1 ? NULL : c1;
			ev.fork.child_comm_len = ev.fork.child_comm ? (uint16_t)strlen(c1) : 0;
			break;
		case IR_EV_EXIT:
			ev.exit.pid = pid(&in);
			break;
		case IR_EV_EXEC:
			ev.exec.pid = pid(&in);
			ev.exec.old_pid = pid(&in);
			break;
		case IR_EV_MOVE_NUMA:
		case IR_EV_SWAP_NUMA:
			ev.numa.pid = pid(&in);
			ev.numa.src_cpu = u8(&in) % nr_cpus;
			ev.numa.dst_cpu = u8(&in) % nr_cpus;
			break;
		case IR_EV_PROBE_ENTRY:
			ev.probe_entry.cpu = (int32_t)(u8(&in) % (nr_cpus + 1)) - 1;
			ev.probe_entry.v.nr_running = u8(&in) % 4;
			ev.probe_entry.v.avg_idle = (int64_t)u32(&in) - 1;
			ev.probe_entry.v.max_idle_balance_cost = (int64_t)u32(&in) - 1;
			ev.probe_entry.v.rd_overload = u8(&in) & 1;
			ev.probe_entry.v.ttwu_pending = -1;
			for (int i = 0; i < 3; i++) {
				ev.probe_entry.v.sd_max_newidle_lb_cost[i] = -1;
				ev.probe_entry.v.sd_newidle_ratio[i] = -1;
			}
			break;
		case IR_EV_PROBE_EXIT:
			ev.probe_exit.ret = (int64_t)u8(&in) - 1;
			break;
		default:
			break;
		}
		ir_state_feed(s, &ev);
	}
	ir_state_finish(s, ts);
	o = ir_state_observed(s);
	if (o->nr_cpus != nr_cpus)
		abort();
	{
		uint64_t sum = 0;

		for (int i = 0; i < IR_MIG__COUNT; i++)
			sum += o->mig_by_cause[i];
		if (sum != o->migrations)
			abort();	/* every migration has one cause */
	}
	for (int c = 0; c < nr_cpus; c++) {
		(void)ir_state_avg_idle(s, c);
		(void)ir_state_nr_running(s, c);
		(void)ir_state_curr(s, c);
	}
	ir_state_free(s);
	return 0;
}

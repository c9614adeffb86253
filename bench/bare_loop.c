/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench/bare_loop: the ceiling of the libtracecmd route.
 *
 * Opens a trace.dat with tracecmd_open(), walks every record in time order
 * with tracecmd_iterate_events(), and for sched_switch, sched_waking,
 * sched_wakeup, sched_wakeup_new and sched_migrate_task reads the numeric
 * fields a replay needs at offsets resolved once with tep_find_field().
 * No state machine, no policies: whatever idlereplay replay does on top
 * of this is its overhead.  A checksum of the decoded fields is printed so
 * the compiler cannot drop the reads.
 *
 * usage: bare_loop TRACE   (prints "events N checksum X seconds S rate R")
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <trace-cmd/trace-cmd.h>

struct fld {
	int off, size;
};

enum { K_NONE, K_SWITCH, K_WAKE, K_MIGRATE };

struct bare {
	struct tep_handle *tep;
	uint8_t kind[65536];
	struct fld sw_prev_pid, sw_prev_prio, sw_prev_state, sw_next_pid, sw_next_prio;
	struct fld wk_pid[3], wk_prio[3], wk_target[3];
	int wk_slot[65536];
	struct fld mg_pid, mg_orig, mg_dest;
	uint64_t events, sum;
};

static struct fld field(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = ev ? tep_find_field(ev, name) : NULL;

	return f ? (struct fld){ f->offset, f->size } : (struct fld){ 0, 0 };
}

static inline uint64_t rd(const struct tep_record *r, struct fld f)
{
	const unsigned char *p = (const unsigned char *)r->data + f.off;

	switch (f.size) {
	case 1: return p[0];
	case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
	case 8: { uint64_t v; memcpy(&v, p, 8); return v; }
	default: return 0;
	}
}

static int on_record(struct tracecmd_input *h, struct tep_record *r, int cpu, void *data)
{
	struct bare *b = data;
	uint16_t id;

	(void)h;
	b->events++;
	if (r->size < 8)
		return 0;
	memcpy(&id, r->data, 2);
	switch (b->kind[id]) {
	case K_SWITCH:
		b->sum += rd(r, b->sw_prev_pid) ^ rd(r, b->sw_prev_prio) ^ rd(r, b->sw_prev_state) ^
			  rd(r, b->sw_next_pid) ^ rd(r, b->sw_next_prio);
		break;
	case K_WAKE: {
		int s = b->wk_slot[id];

		b->sum += rd(r, b->wk_pid[s]) ^ rd(r, b->wk_prio[s]) ^ rd(r, b->wk_target[s]);
		break;
	}
	case K_MIGRATE:
		b->sum += rd(r, b->mg_pid) ^ rd(r, b->mg_orig) ^ rd(r, b->mg_dest);
		break;
	default:
		break;
	}
	b->sum += r->ts + (uint64_t)cpu;
	return 0;
}

static void set_kind(struct bare *b, struct tep_event *ev, int kind)
{
	if (ev && ev->id >= 0 && ev->id < 65536)
		b->kind[ev->id] = (uint8_t)kind;
}

int main(int argc, char **argv)
{
	static struct bare b;
	struct tracecmd_input *h;
	struct tep_event *ev;
	static const char *const wake[3] = { "sched_waking", "sched_wakeup", "sched_wakeup_new" };
	struct timespec t0, t1;
	double s;

	if (argc != 2) {
		fprintf(stderr, "usage: bare_loop TRACE\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	h = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!h) {
		fprintf(stderr, "bare_loop: %s: cannot open\n", argv[1]);
		return 2;
	}
	b.tep = tracecmd_get_tep(h);
	if (tep_is_file_bigendian(b.tep) != tep_is_local_bigendian(b.tep)) {
		fprintf(stderr, "bare_loop: %s: foreign-endian traces not supported here\n", argv[1]);
		tracecmd_close(h);
		return 2;
	}
	ev = tep_find_event_by_name(b.tep, "sched", "sched_switch");
	set_kind(&b, ev, K_SWITCH);
	b.sw_prev_pid = field(ev, "prev_pid");
	b.sw_prev_prio = field(ev, "prev_prio");
	b.sw_prev_state = field(ev, "prev_state");
	b.sw_next_pid = field(ev, "next_pid");
	b.sw_next_prio = field(ev, "next_prio");
	for (int i = 0; i < 3; i++) {
		ev = tep_find_event_by_name(b.tep, "sched", wake[i]);
		set_kind(&b, ev, K_WAKE);
		if (ev)
			b.wk_slot[ev->id] = i;
		b.wk_pid[i] = field(ev, "pid");
		b.wk_prio[i] = field(ev, "prio");
		b.wk_target[i] = field(ev, "target_cpu");
	}
	ev = tep_find_event_by_name(b.tep, "sched", "sched_migrate_task");
	set_kind(&b, ev, K_MIGRATE);
	b.mg_pid = field(ev, "pid");
	b.mg_orig = field(ev, "orig_cpu");
	b.mg_dest = field(ev, "dest_cpu");

	if (tracecmd_iterate_events(h, NULL, 0, on_record, &b) < 0) {
		fprintf(stderr, "bare_loop: %s: error reading events\n", argv[1]);
		tracecmd_close(h);
		return 2;
	}
	tracecmd_close(h);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("events %llu checksum %llx seconds %.3f rate %.0f\n", (unsigned long long)b.events,
	       (unsigned long long)b.sum, s, s > 0 ? (double)b.events / s : 0.0);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Decode trace.dat events into struct ir_event.
 *
 * Field offsets come from the trace's own formats, resolved once per trace
 * (the KernelShark sched_events plugin does the same): old layouts (4.15:
 * fixed comm[16], `success` in wakeups) and new ones (6.16+: __data_loc
 * comm in sched_migrate_task) both decode.  The hot path reads numbers at
 * known offsets: no lookups, no allocation, no string work.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd/trace-cmd.h>

#include "replay/replay.h"
#include "replay/tdat.h"

#define MAX_EVENT_ID 65536

struct fld {
	int off, size;		/* size 0: absent */
	bool is_signed, dataloc;
};

enum {
	F_PREV_PID, F_PREV_PRIO, F_PREV_STATE, F_PREV_COMM, F_NEXT_PID, F_NEXT_PRIO, F_NEXT_COMM,
	F__SWITCH
};
enum { F_PID, F_PRIO, F_TARGET_CPU, F_COMM, F__WAKE };
enum { F_MPID, F_MPRIO, F_ORIG, F_DEST, F_MCOMM, F__MIG };
enum { F_PPID, F_CPID, F_CCOMM, F__FORK };
enum { F_NPID, F_SRC, F_DST, F__NUMA };
enum {
	F_P_CPU, F_P_NR, F_P_AVG, F_P_MIBC, F_P_OVL, F_P_TTWU,
	F_P_SD0, F_P_SD1, F_P_SD2, F_P_R0, F_P_R1, F_P_R2, F__PROBE
};

struct evkind {
	enum ir_ev_type type;
	struct fld f[F__PROBE];
};

struct ir_trace {
	struct ir_trace_info info;
	struct ir_tdat tdat;
	struct tracecmd_input *handle;
	struct tep_handle *tep;
	bool swap;		/* file endianness differs from ours */
	bool state_shifted, state_pre414;
	int common_pid_off;
	uint8_t kind_of[MAX_EVENT_ID];	/* index into kinds[], 0 = not interesting */
	struct evkind kinds[32];
	int nr_kinds;
	uint64_t *count;	/* per event id */
	/* iteration */
	ir_event_fn fn;
	void *arg;
	int stopped;
	uint64_t *last_cpu_ts;	/* per CPU, to date lost-event spans */
};

static void set_err(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static struct fld find_fld(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	struct fld r = { 0 };

	if (!f)
		return r;
	r.off = f->offset;
	r.size = f->size;
	r.is_signed = f->flags & TEP_FIELD_IS_SIGNED;
	r.dataloc = f->flags & TEP_FIELD_IS_DYNAMIC;
	if (r.dataloc)
		r.size = 4;
	return r;
}

static inline int64_t rd_num(const struct ir_trace *t, const struct tep_record *rec, const struct fld *f)
{
	const unsigned char *p = (const unsigned char *)rec->data + f->off;
	uint64_t v;

	if (!f->size || f->off + f->size > rec->size)
		return -1;
	if (t->swap)
		v = tep_read_number(t->tep, p, f->size);
	else {
		switch (f->size) {
		case 1: { uint8_t x; memcpy(&x, p, 1); v = x; break; }
		case 2: { uint16_t x; memcpy(&x, p, 2); v = x; break; }
		case 4: { uint32_t x; memcpy(&x, p, 4); v = x; break; }
		case 8: { uint64_t x; memcpy(&x, p, 8); v = x; break; }
		default: return -1;
		}
	}
	if (f->is_signed && f->size < 8) {
		unsigned sh = 64 - 8 * (unsigned)f->size;

		return (int64_t)(v << sh) >> sh;
	}
	return (int64_t)v;
}

/* Fixed char[N] or __data_loc string; not NUL-terminated past len. */
static inline const char *rd_str(const struct ir_trace *t, const struct tep_record *rec,
				 const struct fld *f, uint16_t *len)
{
	int off = f->off, n = f->size;

	*len = 0;
	if (!f->size)
		return NULL;
	if (f->dataloc) {
		int64_t v = rd_num(t, rec, f);

		if (v < 0)
			return NULL;
		off = (int)(v & 0xffff);
		n = (int)((v >> 16) & 0xffff);
	}
	if (off + n > rec->size)
		return NULL;
	*len = (uint16_t)strnlen((const char *)rec->data + off, (size_t)n);
	return (const char *)rec->data + off;
}

static int add_kind(struct ir_trace *t, struct tep_event *ev, enum ir_ev_type type)
{
	struct evkind *k;

	if (!ev || ev->id < 0 || ev->id >= MAX_EVENT_ID || t->nr_kinds >= 31)
		return -1;
	k = &t->kinds[++t->nr_kinds];
	memset(k, 0, sizeof(*k));
	k->type = type;
	t->kind_of[ev->id] = (uint8_t)t->nr_kinds;
	switch (type) {
	case IR_EV_SWITCH:
		k->f[F_PREV_PID] = find_fld(ev, "prev_pid");
		k->f[F_PREV_PRIO] = find_fld(ev, "prev_prio");
		k->f[F_PREV_STATE] = find_fld(ev, "prev_state");
		k->f[F_PREV_COMM] = find_fld(ev, "prev_comm");
		k->f[F_NEXT_PID] = find_fld(ev, "next_pid");
		k->f[F_NEXT_PRIO] = find_fld(ev, "next_prio");
		k->f[F_NEXT_COMM] = find_fld(ev, "next_comm");
		break;
	case IR_EV_WAKING:
	case IR_EV_WAKEUP:
	case IR_EV_WAKEUP_NEW:
		k->f[F_PID] = find_fld(ev, "pid");
		k->f[F_PRIO] = find_fld(ev, "prio");
		k->f[F_TARGET_CPU] = find_fld(ev, "target_cpu");
		k->f[F_COMM] = find_fld(ev, "comm");
		break;
	case IR_EV_MIGRATE:
		k->f[F_MPID] = find_fld(ev, "pid");
		k->f[F_MPRIO] = find_fld(ev, "prio");
		k->f[F_ORIG] = find_fld(ev, "orig_cpu");
		k->f[F_DEST] = find_fld(ev, "dest_cpu");
		k->f[F_MCOMM] = find_fld(ev, "comm");
		break;
	case IR_EV_FORK:
		k->f[F_PPID] = find_fld(ev, "parent_pid");
		k->f[F_CPID] = find_fld(ev, "child_pid");
		k->f[F_CCOMM] = find_fld(ev, "child_comm");
		break;
	case IR_EV_EXIT:
		k->f[F_PID] = find_fld(ev, "pid");
		break;
	case IR_EV_EXEC:
		k->f[F_PID] = find_fld(ev, "pid");
		k->f[F_PRIO] = find_fld(ev, "old_pid");
		break;
	case IR_EV_MOVE_NUMA:
	case IR_EV_SWAP_NUMA:
		k->f[F_NPID] = find_fld(ev, "pid");
		if (!k->f[F_NPID].size)
			k->f[F_NPID] = find_fld(ev, "src_pid");
		k->f[F_SRC] = find_fld(ev, "src_cpu");
		k->f[F_DST] = find_fld(ev, "dst_cpu");
		break;
	case IR_EV_PROBE_ENTRY:
		k->f[F_P_CPU] = find_fld(ev, "cpu");
		k->f[F_P_NR] = find_fld(ev, "nr_running");
		k->f[F_P_AVG] = find_fld(ev, "avg_idle");
		k->f[F_P_MIBC] = find_fld(ev, "max_idle_balance_cost");
		k->f[F_P_OVL] = find_fld(ev, "rd_overload");
		k->f[F_P_TTWU] = find_fld(ev, "ttwu_pending");
		k->f[F_P_SD0] = find_fld(ev, "sd0_max_newidle_lb_cost");
		k->f[F_P_SD1] = find_fld(ev, "sd1_max_newidle_lb_cost");
		k->f[F_P_SD2] = find_fld(ev, "sd2_max_newidle_lb_cost");
		k->f[F_P_R0] = find_fld(ev, "sd0_newidle_ratio");
		k->f[F_P_R1] = find_fld(ev, "sd1_newidle_ratio");
		k->f[F_P_R2] = find_fld(ev, "sd2_newidle_ratio");
		break;
	case IR_EV_PROBE_EXIT:
		k->f[0] = find_fld(ev, "ret");
		break;
	default:
		break;
	}
	return 0;
}

static const struct {
	const char *name;
	enum ir_ev_type type;
} sched_events[] = {
	{ "sched_switch", IR_EV_SWITCH },
	{ "sched_waking", IR_EV_WAKING },
	{ "sched_wakeup", IR_EV_WAKEUP },
	{ "sched_wakeup_new", IR_EV_WAKEUP_NEW },
	{ "sched_migrate_task", IR_EV_MIGRATE },
	{ "sched_process_fork", IR_EV_FORK },
	{ "sched_process_exit", IR_EV_EXIT },
	{ "sched_process_exec", IR_EV_EXEC },
	{ "sched_move_numa", IR_EV_MOVE_NUMA },
	{ "sched_swap_numa", IR_EV_SWAP_NUMA },
};

/* Newidle probes are recognised by their fields, whatever their names (SPEC 6). */
static void find_probes(struct ir_trace *t)
{
	struct tep_event **all = tep_list_events(t->tep, TEP_EVENT_SORT_ID);
	const char *sys = NULL;

	for (int i = 0; all && all[i]; i++) {
		struct tep_event *ev = all[i];

		if (tep_find_field(ev, "avg_idle") && tep_find_field(ev, "max_idle_balance_cost")) {
			if (!add_kind(t, ev, IR_EV_PROBE_ENTRY)) {
				t->info.has_probes = 1;
				sys = ev->system;
			}
		}
	}
	/* The return probe: a kretprobe (has __probe_ret_ip) with `ret`, in the same system. */
	for (int i = 0; sys && all && all[i]; i++) {
		struct tep_event *ev = all[i];

		if (!strcmp(ev->system, sys) && tep_find_field(ev, "__probe_ret_ip") &&
		    tep_find_field(ev, "ret"))
			add_kind(t, ev, IR_EV_PROBE_EXIT);
	}
}

int ir_trace_open(const char *path, struct ir_trace **out, char *err, size_t errlen)
{
	struct ir_trace *t;
	char why[512];
	struct tep_event *sw;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		set_err(err, errlen, "%s: out of memory", path);
		return IR_ERR_INPUT;
	}
	snprintf(t->info.path, sizeof(t->info.path), "%s", path);
	if (ir_tdat_read(path, &t->tdat, why, sizeof(why))) {
		set_err(err, errlen, "%s: %s", path, why);
		free(t);
		return IR_ERR_INPUT;
	}
	/* the libraries' own messages would add lines to ours: we say what is wrong */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	t->handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!t->handle) {
		set_err(err, errlen, "%s: libtracecmd cannot read it (corrupt headers or event formats)", path);
		ir_tdat_free(&t->tdat);
		free(t);
		return IR_ERR_INPUT;
	}
	t->tep = tracecmd_get_tep(t->handle);
	t->swap = tep_is_file_bigendian(t->tep) != tep_is_local_bigendian(t->tep);
	t->count = calloc(MAX_EVENT_ID, sizeof(*t->count));
	if (!t->count) {
		set_err(err, errlen, "%s: out of memory", path);
		ir_trace_close(t);
		return IR_ERR_INPUT;
	}

	/* metadata */
	{
		const char *u = t->tdat.uname, *rel;
		char buf[256];

		/* "Linux host 6.18.44-x x86_64": the release is the third word */
		snprintf(buf, sizeof(buf), "%s", u);
		rel = NULL;
		if (buf[0]) {
			char *save = NULL, *w = strtok_r(buf, " ", &save);

			for (int i = 0; w && i < 2; i++)
				w = strtok_r(NULL, " ", &save);
			rel = w;
		}
		snprintf(t->info.kernel, sizeof(t->info.kernel), "%s", rel ? rel : "");
		if (!t->info.kernel[0] && t->tdat.meta) {
			const char *m = strstr(t->tdat.meta, "kernel_release ");

			if (m)
				snprintf(t->info.kernel, sizeof(t->info.kernel), "%.*s",
					 (int)strcspn(m + 15, "\n"), m + 15);
		}
		ir_kver_parse(t->info.kernel, &t->info.kernel_major, &t->info.kernel_minor,
			      &t->info.kernel_patch);
		t->state_shifted = ir_kver_state_shifted(t->info.kernel_major, t->info.kernel_minor,
							 t->info.kernel_patch);
		t->state_pre414 = t->info.kernel_major >= 0 &&
			(t->info.kernel_major < 4 ||
			 (t->info.kernel_major == 4 && t->info.kernel_minor < 14));
		snprintf(t->info.clock, sizeof(t->info.clock), "%s",
			 t->tdat.clock[0] ? t->tdat.clock : "local");
		t->info.file_version = t->tdat.version;
		t->info.data_bytes = t->tdat.data_bytes;
		t->info.compressed = strcmp(t->tdat.compression, "none") != 0;
		t->info.meta = t->tdat.meta;
	}
	t->info.nr_cpus = t->tdat.cpucount > t->tdat.buffer_cpus ? t->tdat.cpucount : t->tdat.buffer_cpus;
	for (int i = 0; i < t->tdat.nr_cpustat; i++)
		if (t->tdat.cpustat[i].cpu >= t->info.nr_cpus)
			t->info.nr_cpus = t->tdat.cpustat[i].cpu + 1;
	if (t->info.nr_cpus < 1)
		t->info.nr_cpus = 1;
	t->info.loss = calloc((size_t)t->info.nr_cpus, sizeof(*t->info.loss));
	t->last_cpu_ts = calloc((size_t)t->info.nr_cpus, sizeof(*t->last_cpu_ts));
	if (!t->info.loss || !t->last_cpu_ts) {
		set_err(err, errlen, "%s: out of memory", path);
		ir_trace_close(t);
		return IR_ERR_INPUT;
	}
	for (int i = 0; i < t->info.nr_cpus; i++)
		t->info.loss[i].cpu = i;
	for (int i = 0; i < t->tdat.nr_cpustat; i++) {
		struct ir_cpu_loss *l = &t->info.loss[t->tdat.cpustat[i].cpu];

		l->overrun = t->tdat.cpustat[i].overrun;
		l->dropped = t->tdat.cpustat[i].dropped;
	}

	sw = tep_find_event_by_name(t->tep, "sched", "sched_switch");
	if (!sw) {
		set_err(err, errlen, "%s: no sched_switch event format in the trace (record sched:sched_switch)", path);
		ir_trace_close(t);
		return IR_ERR_INPUT;
	}
	for (size_t i = 0; i < sizeof(sched_events) / sizeof(sched_events[0]); i++) {
		struct tep_event *ev = tep_find_event_by_name(t->tep, "sched", sched_events[i].name);

		if (ev)
			add_kind(t, ev, sched_events[i].type);
	}
	{
		struct evkind *k = &t->kinds[t->kind_of[sw->id]];

		if (!k->f[F_PREV_PID].size || !k->f[F_NEXT_PID].size || !k->f[F_PREV_STATE].size) {
			set_err(err, errlen, "%s: sched_switch format lacks prev_pid/next_pid/prev_state", path);
			ir_trace_close(t);
			return IR_ERR_INPUT;
		}
	}
	find_probes(t);
	{
		struct tep_format_field *cp = tep_find_common_field(sw, "common_pid");

		t->common_pid_off = cp ? cp->offset : 4;
	}
	*out = t;
	return IR_OK;
}

const struct ir_trace_info *ir_trace_info(const struct ir_trace *t)
{
	return &t->info;
}

static uint32_t norm_state(const struct ir_trace *t, int64_t raw)
{
	uint64_t s = (uint64_t)raw;

	if (t->state_pre414)	/* p->state, with TASK_STATE_MAX (>= 0x400) marking preemption */
		return s >= 0x400 ? IR_TASK_PREEMPTED : (uint32_t)(s & 0xff);
	if (t->state_shifted && s != IR_TASK_PREEMPTED)
		return (uint32_t)(s >> 1);
	return (uint32_t)(s & 0x1ff);
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct ir_trace *t = data;
	struct ir_event ev;
	const struct evkind *k;
	int id;

	(void)h;
	if (rec->size < 8)
		return 0;
	id = (int)rd_num(t, rec, &(struct fld){ .off = 0, .size = 2 });
	if (id < 0 || id >= MAX_EVENT_ID)
		return 0;
	t->count[id]++;
	t->info.events_total++;
	t->info.bytes_read += (uint64_t)rec->record_size;
	if (!t->info.first_ts || rec->ts < t->info.first_ts)
		t->info.first_ts = rec->ts;
	if (rec->ts > t->info.last_ts)
		t->info.last_ts = rec->ts;
	if (cpu < 0 || cpu >= t->info.nr_cpus)
		return 0;	/* the BUFFER option names every CPU with data */
	if (rec->missed_events) {
		struct ir_cpu_loss *l = &t->info.loss[cpu];

		if (rec->missed_events > 0)
			l->missed += (uint64_t)rec->missed_events;
		else
			l->missed_unknown++;
		if (!l->first_ts)
			l->first_ts = t->last_cpu_ts[cpu] ? t->last_cpu_ts[cpu] : rec->ts;
		l->last_ts = rec->ts;
	}
	t->last_cpu_ts[cpu] = rec->ts;

	ev.ts = rec->ts;
	ev.cpu = cpu;
	ev.common_pid = (int32_t)rd_num(t, rec, &(struct fld){ .off = t->common_pid_off, .size = 4, .is_signed = true });
	ev.missed = rec->missed_events;
	k = &t->kinds[t->kind_of[id]];
	ev.type = t->kind_of[id] ? k->type : IR_EV_OTHER;
	t->info.events[ev.type]++;

	switch (ev.type) {
	case IR_EV_SWITCH:
		ev.sw.prev_pid = (int32_t)rd_num(t, rec, &k->f[F_PREV_PID]);
		ev.sw.prev_prio = (int32_t)rd_num(t, rec, &k->f[F_PREV_PRIO]);
		ev.sw.prev_state = norm_state(t, rd_num(t, rec, &k->f[F_PREV_STATE]));
		ev.sw.next_pid = (int32_t)rd_num(t, rec, &k->f[F_NEXT_PID]);
		ev.sw.next_prio = (int32_t)rd_num(t, rec, &k->f[F_NEXT_PRIO]);
		ev.sw.prev_comm = rd_str(t, rec, &k->f[F_PREV_COMM], &ev.sw.prev_comm_len);
		ev.sw.next_comm = rd_str(t, rec, &k->f[F_NEXT_COMM], &ev.sw.next_comm_len);
		break;
	case IR_EV_WAKING:
	case IR_EV_WAKEUP:
	case IR_EV_WAKEUP_NEW:
		ev.wake.pid = (int32_t)rd_num(t, rec, &k->f[F_PID]);
		ev.wake.prio = (int32_t)rd_num(t, rec, &k->f[F_PRIO]);
		ev.wake.target_cpu = k->f[F_TARGET_CPU].size ?
			(int32_t)rd_num(t, rec, &k->f[F_TARGET_CPU]) : cpu;
		ev.wake.comm = rd_str(t, rec, &k->f[F_COMM], &ev.wake.comm_len);
		break;
	case IR_EV_MIGRATE:
		ev.mig.pid = (int32_t)rd_num(t, rec, &k->f[F_MPID]);
		ev.mig.prio = (int32_t)rd_num(t, rec, &k->f[F_MPRIO]);
		ev.mig.orig_cpu = (int32_t)rd_num(t, rec, &k->f[F_ORIG]);
		ev.mig.dest_cpu = (int32_t)rd_num(t, rec, &k->f[F_DEST]);
		ev.mig.comm = rd_str(t, rec, &k->f[F_MCOMM], &ev.mig.comm_len);
		break;
	case IR_EV_FORK:
		ev.fork.parent_pid = (int32_t)rd_num(t, rec, &k->f[F_PPID]);
		ev.fork.child_pid = (int32_t)rd_num(t, rec, &k->f[F_CPID]);
		ev.fork.child_comm = rd_str(t, rec, &k->f[F_CCOMM], &ev.fork.child_comm_len);
		break;
	case IR_EV_EXIT:
		ev.exit.pid = (int32_t)rd_num(t, rec, &k->f[F_PID]);
		break;
	case IR_EV_EXEC:
		ev.exec.pid = (int32_t)rd_num(t, rec, &k->f[F_PID]);
		ev.exec.old_pid = (int32_t)rd_num(t, rec, &k->f[F_PRIO]);
		break;
	case IR_EV_MOVE_NUMA:
	case IR_EV_SWAP_NUMA:
		ev.numa.pid = (int32_t)rd_num(t, rec, &k->f[F_NPID]);
		ev.numa.src_cpu = (int32_t)rd_num(t, rec, &k->f[F_SRC]);
		ev.numa.dst_cpu = (int32_t)rd_num(t, rec, &k->f[F_DST]);
		break;
	case IR_EV_PROBE_ENTRY: {
		struct ir_probe_entry *v = &ev.probe_entry.v;

		ev.probe_entry.cpu = k->f[F_P_CPU].size ? (int32_t)rd_num(t, rec, &k->f[F_P_CPU]) : cpu;
#define P(dst, F) dst = k->f[F].size ? rd_num(t, rec, &k->f[F]) : -1
		P(v->nr_running, F_P_NR);
		P(v->avg_idle, F_P_AVG);
		P(v->max_idle_balance_cost, F_P_MIBC);
		P(v->rd_overload, F_P_OVL);
		P(v->ttwu_pending, F_P_TTWU);
		P(v->sd_max_newidle_lb_cost[0], F_P_SD0);
		P(v->sd_max_newidle_lb_cost[1], F_P_SD1);
		P(v->sd_max_newidle_lb_cost[2], F_P_SD2);
		P(v->sd_newidle_ratio[0], F_P_R0);
		P(v->sd_newidle_ratio[1], F_P_R1);
		P(v->sd_newidle_ratio[2], F_P_R2);
#undef P
		break;
	}
	case IR_EV_PROBE_EXIT:
		ev.probe_exit.ret = rd_num(t, rec, &k->f[0]);
		break;
	default:
		break;
	}
	if (t->fn(t->arg, &ev)) {
		t->stopped = 1;
		return 1;
	}
	return 0;
}

int ir_trace_run(struct ir_trace *t, ir_event_fn fn, void *arg, char *err, size_t errlen)
{
	t->fn = fn;
	t->arg = arg;
	if (tracecmd_iterate_events(t->handle, NULL, 0, on_record, t) < 0 && !t->stopped) {
		set_err(err, errlen, "%s: error while reading event data", t->info.path);
		return IR_ERR_INPUT;
	}
	t->info.has_waking = t->info.events[IR_EV_WAKING] > 0;	/* was never set */
	for (int i = 0; i < t->info.nr_cpus; i++) {
		const struct ir_cpu_loss *l = &t->info.loss[i];

		if (l->overrun || l->dropped || l->missed || l->missed_unknown)
			t->info.nr_loss++;
	}
	return IR_OK;
}

void ir_trace_event_counts(const struct ir_trace *t,
			   void (*fn)(void *arg, const char *name, uint64_t count), void *arg)
{
	struct tep_event **all = tep_list_events(t->tep, TEP_EVENT_SORT_NAME);

	for (int i = 0; all && all[i]; i++)
		if (all[i]->id >= 0 && all[i]->id < MAX_EVENT_ID && t->count[all[i]->id])
			fn(arg, all[i]->name, t->count[all[i]->id]);
}

void ir_trace_close(struct ir_trace *t)
{
	if (!t)
		return;
	if (t->handle)
		tracecmd_close(t->handle);
	free(t->count);
	free(t->last_cpu_ts);
	free(t->info.loss);
	ir_tdat_free(&t->tdat);
	free(t);
}

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
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <trace-cmd/trace-cmd.h>
#include <unistd.h>

#include "replay/replay.h"
#include "replay/pages.h"
#include "replay/pipeline.h"
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
	struct ir_pages *pages;	/* our own page reader, when the file allows it */
	_Atomic uint64_t progress_bytes;	/* file bytes read, for another thread's progress */
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
	/* damage that decodes: a CPU's own events out of time order, records
	 * too short or of an event id the trace has no format for */
	uint8_t known_id[MAX_EVENT_ID / 8];
	uint64_t bad_order, bad_id;
	int32_t bad_cpu;
	uint64_t bad_ts;
	/* isolation: libtracecmd runs in a child that streams events to us */
	pid_t child;		/* 0: none (in-process, or reaped) */
	int rfd;
	unsigned char *rbuf;
	size_t rcap, rhead, rtail;
	struct name_count *names;	/* event counts sent by the child */
	int nr_names;
	char *names_blob;
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

/* Fixed char[N] or __data_loc string: where it is and how many bytes it may
 * take; NUL-terminated within them when shorter.  Measuring it is left to
 * whoever needs it (the state machine, once per task). */
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
	*len = (uint16_t)n;
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

/* What the trace says about itself, from our own reading of its header. */
static int fill_info(struct ir_trace *t)
{
	const char *u = t->tdat.uname, *rel = NULL;
	char buf[256];

	/* "Linux host 6.18.44-x x86_64": the release is the third word */
	snprintf(buf, sizeof(buf), "%s", u);
	if (buf[0]) {
		char *save = NULL, *w = strtok_r(buf, " ", &save);

		w = strtok_r(NULL, " ", &save);
		/* "(none)": the kernel's nodename when none was set */
		if (w && strcmp(w, "(none)"))
			snprintf(t->info.hostname, sizeof(t->info.hostname), "%s", w);
		if (w)
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
	t->info.meta = t->tdat.meta;
	t->info.data_bytes = t->tdat.data_bytes;

	t->info.nr_cpus = t->tdat.cpucount > t->tdat.buffer_cpus ? t->tdat.cpucount : t->tdat.buffer_cpus;
	for (int i = 0; i < t->tdat.nr_cpustat; i++)
		if (t->tdat.cpustat[i].cpu >= t->info.nr_cpus)
			t->info.nr_cpus = t->tdat.cpustat[i].cpu + 1;
	if (t->info.nr_cpus < 1)
		t->info.nr_cpus = 1;
	if (t->info.nr_cpus > IR_MAX_CPUSTAT_CPUS)
		return -1;
	t->info.loss = calloc((size_t)t->info.nr_cpus, sizeof(*t->info.loss));
	t->last_cpu_ts = calloc((size_t)t->info.nr_cpus, sizeof(*t->last_cpu_ts));
	if (!t->info.loss || !t->last_cpu_ts)
		return -1;
	for (int i = 0; i < t->info.nr_cpus; i++)
		t->info.loss[i].cpu = i;
	for (int i = 0; i < t->tdat.nr_cpustat; i++) {
		struct ir_cpu_loss *l = &t->info.loss[t->tdat.cpustat[i].cpu];

		l->overrun = t->tdat.cpustat[i].overrun;
		l->dropped = t->tdat.cpustat[i].dropped;
	}
	return 0;
}

/* The libtracecmd part of opening: formats, field resolution. */
static int open_lib(struct ir_trace *t, bool head_only, char *err, size_t errlen)
{
	const char *path = t->info.path;
	const int flags = TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS;
	struct tep_event *sw;

	/* the libraries' own messages would add lines to ours: we say what is wrong */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	t->handle = head_only ? tracecmd_open_head(path, flags) : tracecmd_open(path, flags);
	if (!t->handle) {
		set_err(err, errlen, "%s: libtracecmd cannot read it (corrupt headers or event formats)", path);
		return IR_ERR_INPUT;
	}
	t->tep = tracecmd_get_tep(t->handle);
	t->swap = tep_is_file_bigendian(t->tep) != tep_is_local_bigendian(t->tep);
	t->count = calloc(MAX_EVENT_ID, sizeof(*t->count));
	if (!t->count) {
		set_err(err, errlen, "%s: out of memory", path);
		return IR_ERR_INPUT;
	}
	sw = tep_find_event_by_name(t->tep, "sched", "sched_switch");
	if (!sw) {
		set_err(err, errlen, "%s: no sched_switch event format in the trace (record sched:sched_switch)", path);
		return IR_ERR_INPUT;
	}
	for (size_t i = 0; i < sizeof(sched_events) / sizeof(sched_events[0]); i++) {
		struct tep_event *ev = tep_find_event_by_name(t->tep, "sched", sched_events[i].name);

		if (ev && !add_kind(t, ev, sched_events[i].type) && sched_events[i].type == IR_EV_WAKING)
			t->info.has_waking = 1;
	}
	if (sw->id < 0 || sw->id >= MAX_EVENT_ID) {
		set_err(err, errlen, "%s: sched_switch has a bad event id %d", path, sw->id);
		return IR_ERR_INPUT;
	}
	{
		struct evkind *k = &t->kinds[t->kind_of[sw->id]];

		if (!t->kind_of[sw->id] || !k->f[F_PREV_PID].size || !k->f[F_NEXT_PID].size ||
		    !k->f[F_PREV_STATE].size) {
			set_err(err, errlen, "%s: sched_switch format lacks prev_pid/next_pid/prev_state", path);
			return IR_ERR_INPUT;
		}
	}
	find_probes(t);
	{
		struct tep_event **all = tep_list_events(t->tep, TEP_EVENT_SORT_ID);

		for (int i = 0; all && all[i]; i++)
			if (all[i]->id >= 0 && all[i]->id < MAX_EVENT_ID)
				t->known_id[all[i]->id >> 3] |= (uint8_t)(1u << (all[i]->id & 7));
	}
	{
		struct tep_format_field *cp = tep_find_common_field(sw, "common_pid");

		t->common_pid_off = cp ? cp->offset : 4;
	}
	return IR_OK;
}

static int child_main(struct ir_trace *t, int wfd);
static int read_open_msg(struct ir_trace *t, char *err, size_t errlen);

/*
 * libtracecmd 3.1.6 crashes (SIGSEGV in tracecmd_close() from the error
 * path of tracecmd_open_fd()) and may crash or loop on corrupt data pages.
 * So by default it runs in a forked child that streams decoded events to
 * us in compact batched records; a crash there is one line and status 2
 * here.  IDLEREPLAY_IN_PROCESS=1 runs it in this process (debugging, fuzzing).
 */
static bool isolated(void)
{
	const char *e = getenv("IDLEREPLAY_IN_PROCESS");

	return !(e && *e && strcmp(e, "0"));
}

/* IDLEREPLAY_LIBTRACECMD=1: read event data through libtracecmd (as before
 * pages.c), for comparison and debugging. */
static bool libtracecmd_data(void)
{
	const char *e = getenv("IDLEREPLAY_LIBTRACECMD");

	return e && *e && strcmp(e, "0");
}

static int stall_ms(void);

/*
 * The fast route: our page reader for the data, libtracecmd only for the
 * headers and event formats.  Parsing those can crash libtracecmd 3.1.6
 * (damaged printk or format sections), so a child parses them first; only
 * if it survives do we parse them here.
 */
static int open_direct(struct ir_trace *t, char *err, size_t errlen)
{
	const char *path = t->info.path;
	int ret;

	if (isolated()) {
		pid_t pid;
		int st, p[2];
		char why[512] = "";
		ssize_t n;

		if (pipe2(p, O_CLOEXEC)) {
			set_err(err, errlen, "%s: cannot create a pipe: %s", path, strerror(errno));
			return IR_ERR_INPUT;
		}
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			set_err(err, errlen, "%s: cannot fork: %s", path, strerror(errno));
			close(p[0]);
			close(p[1]);
			return IR_ERR_INPUT;
		}
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY), rc;

			close(p[0]);
			if (fd >= 0)
				dup2(fd, 2);
			rc = open_lib(t, true, err, errlen);
			if (rc && write(p[1], err, strnlen(err, errlen)) < 0)
				rc = 4;
			ir_trace_close(t);	/* leak checkers follow the child too */
			_exit(rc ? 3 : 0);
		}
		close(p[1]);
		for (int waited = 0;; waited++) {
			pid_t w = waitpid(pid, &st, WNOHANG);

			if (w == pid || (w < 0 && errno != EINTR))
				break;
			if (waited >= stall_ms()) {
				kill(pid, SIGKILL);
				while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
					;
				close(p[0]);
				set_err(err, errlen, "%s: corrupt trace headers (the trace library stopped making progress reading them)",
					path);
				return IR_ERR_INPUT;
			}
			usleep(1000);
		}
		n = read(p[0], why, sizeof(why) - 1);
		close(p[0]);
		why[n > 0 ? n : 0] = 0;
		/* Only headers the library survived are parsed here: whatever else
		 * happened in the child (a crash, a sanitizer's exit) stays there. */
		if (WIFSIGNALED(st)) {
			set_err(err, errlen, "%s: corrupt trace headers (the trace library crashed reading them: %s)",
				path, strsignal(WTERMSIG(st)));
			return IR_ERR_INPUT;
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			if (WIFEXITED(st) && WEXITSTATUS(st) == 3 && why[0])
				set_err(err, errlen, "%s", why);
			else
				set_err(err, errlen, "%s: corrupt trace headers (the trace library failed reading them)", path);
			return IR_ERR_INPUT;
		}
	}
	ret = open_lib(t, true, err, errlen);
	if (ret)
		return ret;
	return ir_pages_open(path, &t->tdat, &t->pages, err, errlen) ? IR_ERR_INPUT : IR_OK;
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data);

struct direct_run {
	struct ir_trace *t;
	char *err;
	size_t errlen;
};

/* Pages -> raw records in time order -> emit (the reading thread). */
static int produce_direct(void *ctx, ir_record_fn emit, void *emit_arg)
{
	struct direct_run *d = ctx;
	struct ir_trace *t = d->t;
	struct tep_record *rec;
	uint64_t n = 0;
	int r;

	if (ir_pages_start(t->pages, d->err, d->errlen))
		return IR_ERR_INPUT;
	while (!(r = ir_pages_next(t->pages, &rec, d->err, d->errlen))) {
		if (!(++n & 0xfff))
			atomic_store_explicit(&t->progress_bytes, ir_pages_bytes(t->pages), memory_order_relaxed);
		if (emit(emit_arg, rec))
			return IR_OK;
	}
	atomic_store_explicit(&t->progress_bytes, ir_pages_bytes(t->pages), memory_order_relaxed);
	return r < 0 ? IR_ERR_INPUT : IR_OK;
}

/* Raw record -> decoded event -> the caller's fn (the decoding thread). */
static int decode_record(void *arg, const struct tep_record *rec)
{
	struct ir_trace *t = arg;

	on_record(NULL, (struct tep_record *)rec, rec->cpu, t);
	return t->stopped;
}

/* IDLEREPLAY_THREADS=0: read and replay on one thread (same results). */
static bool use_threads(void)
{
	const char *e = getenv("IDLEREPLAY_THREADS");

	return !(e && !strcmp(e, "0"));
}

static int run_direct(struct ir_trace *t, ir_event_fn fn, void *arg, char *err, size_t errlen)
{
	struct direct_run d = { .t = t, .err = err, .errlen = errlen };
	bool stopped = false;
	int ret;

	t->fn = fn;
	t->arg = arg;
	if (!use_threads())
		return produce_direct(&d, decode_record, t);
	ret = ir_pipeline_run(produce_direct, &d, decode_record, t, &stopped);
	if (stopped)
		t->stopped = 1;
	return ret;
}

uint64_t ir_trace_bytes_read(const struct ir_trace *t)
{
	return atomic_load_explicit(&t->progress_bytes, memory_order_relaxed);
}

int ir_trace_open(const char *path, struct ir_trace **out, char *err, size_t errlen)
{
	struct ir_trace *t;
	char why[512];
	int p[2];

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		set_err(err, errlen, "%s: out of memory", path);
		return IR_ERR_INPUT;
	}
	t->rfd = -1;
	snprintf(t->info.path, sizeof(t->info.path), "%s", path);
	if (ir_tdat_read_flags(path, &t->tdat, libtracecmd_data() ? IR_TDAT_CHECK_PAGES : 0, why, sizeof(why)) ||
	    (!libtracecmd_data() && !ir_pages_usable(&t->tdat) &&
	     (ir_tdat_free(&t->tdat), ir_tdat_read(path, &t->tdat, why, sizeof(why))))) {
		/* (libtracecmd reads what our reader cannot: then it walks the pages first) */
		set_err(err, errlen, "%s: %s", path, why);
		ir_tdat_free(&t->tdat);
		free(t);
		return IR_ERR_INPUT;
	}
	if (fill_info(t)) {
		set_err(err, errlen, "%s: out of memory (or %d CPUs)", path, t->info.nr_cpus);
		ir_trace_close(t);
		return IR_ERR_INPUT;
	}
	if (!libtracecmd_data() && ir_pages_usable(&t->tdat)) {
		int ret = open_direct(t, err, errlen);

		if (ret) {
			ir_trace_close(t);
			return ret;
		}
		*out = t;
		return IR_OK;
	}
	if (!isolated()) {
		int ret = open_lib(t, false, err, errlen);

		if (ret) {
			ir_trace_close(t);
			return ret;
		}
		*out = t;
		return IR_OK;
	}

	if (pipe2(p, O_CLOEXEC)) {
		set_err(err, errlen, "%s: cannot create a pipe: %s", path, strerror(errno));
		ir_trace_close(t);
		return IR_ERR_INPUT;
	}
	fflush(NULL);
	t->child = fork();
	if (t->child < 0) {
		set_err(err, errlen, "%s: cannot fork: %s", path, strerror(errno));
		t->child = 0;
		close(p[0]);
		close(p[1]);
		ir_trace_close(t);
		return IR_ERR_INPUT;
	}
	if (t->child == 0) {
		close(p[0]);
		_exit(child_main(t, p[1]));
	}
	close(p[1]);
	t->rfd = p[0];
	/* A bigger pipe means fewer wakeups; failure is harmless. */
	(void)fcntl(t->rfd, F_SETPIPE_SZ, 1 << 20);
	/* Non-blocking reads, so a stalled child is noticed by poll(). */
	(void)fcntl(t->rfd, F_SETFL, fcntl(t->rfd, F_GETFL) | O_NONBLOCK);
	if (read_open_msg(t, err, errlen)) {
		ir_trace_close(t);
		return IR_ERR_INPUT;
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
	id = rec->size < 8 ? -1 : (int)rd_num(t, rec, &(struct fld){ .off = 0, .size = 2 });
	if (id < 0 || id >= MAX_EVENT_ID || !(t->known_id[id >> 3] & (1u << (id & 7)))) {
		if (!t->bad_id++ && !t->bad_order) {
			t->bad_cpu = cpu;
			t->bad_ts = rec->ts;
		}
		return 0;
	}
	/* A CPU's ring buffer is in time order: going back means damaged pages. */
	if (cpu >= 0 && cpu < t->info.nr_cpus && rec->ts < t->last_cpu_ts[cpu]) {
		if (!t->bad_order++ && !t->bad_id) {
			t->bad_cpu = cpu;
			t->bad_ts = rec->ts;
		}
	}
	t->count[id]++;
	t->info.events_total++;
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

/* ------------------------------------------------------------ the wire */

/*
 * Child -> parent stream.  Events: a 20-byte header (type, flags, two
 * string lengths, cpu, common_pid, ts), an optional 8-byte missed count,
 * the type's numbers, then the strings.  Batched in WBUF-sized writes.
 * Control messages use types >= MSG_OPEN.  The parent checks every length:
 * a child whose memory libtracecmd scribbled on must not take it along.
 */
enum { MSG_OPEN = 0xf0, MSG_END = 0xf1, MSG_FAIL = 0xf2 };
#define EVH 20
#define STR_MAX 64		/* comm bytes carried; the kernel's are 16 */
#define STR_NULL 0xff		/* no string (field absent) */
#define WBUF (256u << 10)
#define MAX_REC 512		/* largest event record */
#define MAX_END (64u << 20)	/* largest end message */
#define END_BAD (8 * 3 + 4)	/* damage counters at the start of the end message */
#define STALL_MS_DEFAULT 20000	/* no byte from the child for this long: give up */

struct name_count {
	const char *name;
	uint64_t count;
};

struct wbuf {
	int fd;
	size_t len;
	unsigned char b[WBUF];
};

static int wflush(struct wbuf *w)
{
	size_t done = 0;

	while (done < w->len) {
		ssize_t n = write(w->fd, w->b + done, w->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	w->len = 0;
	return 0;
}

static int wput(struct wbuf *w, const void *p, size_t n)
{
	if (w->len + n > WBUF && wflush(w))
		return -1;
	if (n > WBUF) {	/* only the end message can be this big */
		size_t done = 0;

		while (done < n) {
			ssize_t k = write(w->fd, (const char *)p + done, n - done);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				return -1;
			done += (size_t)k;
		}
		return 0;
	}
	memcpy(w->b + w->len, p, n);
	w->len += n;
	return 0;
}

static unsigned char *put32(unsigned char *p, int32_t v) { memcpy(p, &v, 4); return p + 4; }
static unsigned char *put64(unsigned char *p, int64_t v) { memcpy(p, &v, 8); return p + 8; }
static const unsigned char *get32(const unsigned char *p, int32_t *v) { memcpy(v, p, 4); return p + 4; }
static const unsigned char *get64(const unsigned char *p, int64_t *v) { memcpy(v, p, 8); return p + 8; }

static uint8_t slen(const char *s, uint16_t len)
{
	size_t n = s ? strnlen(s, len) : 0;

	return !s ? STR_NULL : n > STR_MAX ? STR_MAX : (uint8_t)n;
}

/* Child: the ir_event_fn that encodes one event into the batch. */
static int emit(void *arg, const struct ir_event *ev)
{
	struct wbuf *w = arg;
	unsigned char rec[MAX_REC], *p = rec + EVH;
	const char *s1 = NULL, *s2 = NULL;
	uint8_t l1 = STR_NULL, l2 = STR_NULL;

	rec[0] = (uint8_t)ev->type;
	rec[1] = ev->missed != 0;
	memcpy(rec + 4, &ev->cpu, 4);
	memcpy(rec + 8, &ev->common_pid, 4);
	memcpy(rec + 12, &ev->ts, 8);
	if (ev->missed)
		p = put64(p, ev->missed);
	switch (ev->type) {
	case IR_EV_SWITCH:
		p = put32(p, ev->sw.prev_pid);
		p = put32(p, ev->sw.prev_prio);
		p = put32(p, ev->sw.next_pid);
		p = put32(p, ev->sw.next_prio);
		p = put32(p, (int32_t)ev->sw.prev_state);
		s1 = ev->sw.prev_comm;
		l1 = slen(s1, ev->sw.prev_comm_len);
		s2 = ev->sw.next_comm;
		l2 = slen(s2, ev->sw.next_comm_len);
		break;
	case IR_EV_WAKING:
	case IR_EV_WAKEUP:
	case IR_EV_WAKEUP_NEW:
		p = put32(p, ev->wake.pid);
		p = put32(p, ev->wake.prio);
		p = put32(p, ev->wake.target_cpu);
		s1 = ev->wake.comm;
		l1 = slen(s1, ev->wake.comm_len);
		break;
	case IR_EV_MIGRATE:
		p = put32(p, ev->mig.pid);
		p = put32(p, ev->mig.prio);
		p = put32(p, ev->mig.orig_cpu);
		p = put32(p, ev->mig.dest_cpu);
		s1 = ev->mig.comm;
		l1 = slen(s1, ev->mig.comm_len);
		break;
	case IR_EV_FORK:
		p = put32(p, ev->fork.parent_pid);
		p = put32(p, ev->fork.child_pid);
		s1 = ev->fork.child_comm;
		l1 = slen(s1, ev->fork.child_comm_len);
		break;
	case IR_EV_EXIT:
		p = put32(p, ev->exit.pid);
		break;
	case IR_EV_EXEC:
		p = put32(p, ev->exec.pid);
		p = put32(p, ev->exec.old_pid);
		break;
	case IR_EV_MOVE_NUMA:
	case IR_EV_SWAP_NUMA:
		p = put32(p, ev->numa.pid);
		p = put32(p, ev->numa.src_cpu);
		p = put32(p, ev->numa.dst_cpu);
		break;
	case IR_EV_PROBE_ENTRY: {
		const struct ir_probe_entry *v = &ev->probe_entry.v;

		p = put32(p, ev->probe_entry.cpu);
		p = put64(p, v->nr_running);
		p = put64(p, v->avg_idle);
		p = put64(p, v->max_idle_balance_cost);
		p = put64(p, v->rd_overload);
		p = put64(p, v->ttwu_pending);
		for (int i = 0; i < 3; i++)
			p = put64(p, v->sd_max_newidle_lb_cost[i]);
		for (int i = 0; i < 3; i++)
			p = put64(p, v->sd_newidle_ratio[i]);
		break;
	}
	case IR_EV_PROBE_EXIT:
		p = put64(p, ev->probe_exit.ret);
		break;
	default:
		break;
	}
	rec[2] = l1;
	rec[3] = l2;
	if (l1 != STR_NULL) {
		memcpy(p, s1, l1);
		p += l1;
	}
	if (l2 != STR_NULL) {
		memcpy(p, s2, l2);
		p += l2;
	}
	return wput(w, rec, (size_t)(p - rec)) ? 1 : 0;
}

static int emit_text(struct wbuf *w, uint8_t type, uint8_t status, const char *msg)
{
	size_t n = strlen(msg);
	unsigned char h[4] = { type, status };
	uint16_t len = n > 1000 ? 1000 : (uint16_t)n;

	memcpy(h + 2, &len, 2);
	return wput(w, h, 4) || wput(w, msg, len) ? -1 : 0;
}

static void count_name(void *arg, const char *name, uint64_t count);

struct endbuf {
	unsigned char *b;
	size_t len, cap;
	int nr;
};

static int eb_put(struct endbuf *e, const void *p, size_t n)
{
	if (e->len + n > e->cap) {
		size_t cap = (e->len + n) * 2 + 4096;
		unsigned char *b = realloc(e->b, cap);

		if (!b)
			return -1;
		e->b = b;
		e->cap = cap;
	}
	memcpy(e->b + e->len, p, n);
	e->len += n;
	return 0;
}

static void count_name(void *arg, const char *name, uint64_t count)
{
	struct endbuf *e = arg;
	uint16_t n = (uint16_t)strnlen(name, 255);

	if (eb_put(e, &n, 2) || eb_put(e, name, n) || eb_put(e, &count, 8))
		e->nr = -1;
	else if (e->nr >= 0)
		e->nr++;
}

/* End message: counters, per-CPU in-data loss, event counts by name. */
static int emit_end(struct ir_trace *t, struct wbuf *w)
{
	const struct ir_trace_info *i = &t->info;
	struct endbuf e = { 0 };
	unsigned char h[5] = { MSG_END };
	uint32_t len;
	int ret = -1, nr;

	if (eb_put(&e, &t->bad_order, 8) || eb_put(&e, &t->bad_id, 8) ||
	    eb_put(&e, &t->bad_ts, 8) || eb_put(&e, &t->bad_cpu, 4) ||
	    eb_put(&e, &i->first_ts, 8) || eb_put(&e, &i->last_ts, 8) ||
	    eb_put(&e, &i->events_total, 8) || eb_put(&e, i->events, sizeof(i->events)))
		goto out;
	for (int c = 0; c < i->nr_cpus; c++) {
		const struct ir_cpu_loss *l = &i->loss[c];

		if (eb_put(&e, &l->missed, 8) || eb_put(&e, &l->missed_unknown, 8) ||
		    eb_put(&e, &l->first_ts, 8) || eb_put(&e, &l->last_ts, 8))
			goto out;
	}
	nr = 0;
	if (eb_put(&e, &nr, 4))
		goto out;
	ir_trace_event_counts(t, count_name, &e);
	if (e.nr < 0)
		goto out;
	{
		size_t at = END_BAD + 8 * 3 + sizeof(i->events) + 32 * (size_t)i->nr_cpus;

		memcpy(e.b + at, &e.nr, 4);
	}
	len = (uint32_t)e.len;
	memcpy(h + 1, &len, 4);
	ret = wput(w, h, 5) || wput(w, e.b, e.len) ? -1 : 0;
out:
	free(e.b);
	return ret;
}

static int child_run(struct ir_trace *t, struct wbuf *w)
{
	char err[1024];
	int ret = open_lib(t, false, err, sizeof(err));

	if (ret) {
		emit_text(w, MSG_OPEN, 1, err);
		return wflush(w) ? 1 : 0;
	}
	{
		unsigned char h[2] = { MSG_OPEN, 0 };
		uint8_t probes = (uint8_t)t->info.has_probes, waking = (uint8_t)t->info.has_waking;

		if (wput(w, h, 2) || wput(w, &probes, 1) || wput(w, &waking, 1) || wflush(w))
			return 1;
	}
	t->fn = emit;
	t->arg = w;
	if (tracecmd_iterate_events(t->handle, NULL, 0, on_record, t) < 0 && !t->stopped) {
		set_err(err, sizeof(err), "%s: error while reading event data", t->info.path);
		emit_text(w, MSG_FAIL, 1, err);
		return wflush(w) ? 1 : 0;
	}
	if (t->stopped)		/* the pipe broke: the parent is gone or stopped */
		return 1;
	return emit_end(t, w) || wflush(w) ? 1 : 0;
}

static int child_main(struct ir_trace *t, int wfd)
{
	static struct wbuf w;
	int ret;

	signal(SIGPIPE, SIG_DFL);
	/* The library's own complaints ("unknown option 4098", mmap
	 * fallbacks) would break our one-line errors: what went wrong
	 * reaches the parent through the pipe.  IDLEREPLAY_DEBUG keeps them. */
	if (!getenv("IDLEREPLAY_DEBUG")) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
	}
	w.fd = wfd;
	w.len = 0;
	ret = child_run(t, &w);
	close(wfd);
	/* Free what we hold, so leak checkers that follow the fork (valgrind)
	 * see a clean child; tracecmd_close() only ever sees a handle that
	 * tracecmd_open() returned. */
	ir_trace_close(t);
	return ret;
}

/* ------------------------------------------------------ parent: reading */

static int stall_ms(void)
{
	const char *e = getenv("IDLEREPLAY_STALL_MS");
	long v = e ? strtol(e, NULL, 10) : 0;

	return v > 0 && v < 3600000 ? (int)v : STALL_MS_DEFAULT;
}

/* Kill (if needed) and reap the child; describe how it ended. */
static void reap(struct ir_trace *t, bool kill_it, char *how, size_t howlen)
{
	int st = 0;
	pid_t r;

	if (how)
		how[0] = 0;
	if (!t->child)
		return;
	if (kill_it)
		kill(t->child, SIGKILL);
	do
		r = waitpid(t->child, &st, 0);
	while (r < 0 && errno == EINTR);
	t->child = 0;
	if (!how || r < 0)
		return;
	if (WIFSIGNALED(st) && !kill_it)
		snprintf(how, howlen, "corrupt trace data (the trace library crashed reading it: %s)",
			 strsignal(WTERMSIG(st)));
	else if (WIFEXITED(st) && WEXITSTATUS(st))
		snprintf(how, howlen, "corrupt trace data (the trace reader failed, status %d)",
			 WEXITSTATUS(st));
}

/* Make n bytes available at rbuf + rhead.  0 ok, 1 EOF, -1 error (err set). */
static int need(struct ir_trace *t, size_t n, char *err, size_t errlen)
{
	while (t->rtail - t->rhead < n) {
		ssize_t k;

		if (t->rhead && t->rcap - t->rtail < WBUF) {
			memmove(t->rbuf, t->rbuf + t->rhead, t->rtail - t->rhead);
			t->rtail -= t->rhead;
			t->rhead = 0;
		}
		if (t->rcap - t->rtail < WBUF) {	/* only the end message grows it */
			size_t cap = t->rcap ? t->rcap * 2 : WBUF * 2;
			unsigned char *b;

			while (cap - t->rtail < WBUF || cap < n)
				cap *= 2;
			b = realloc(t->rbuf, cap);
			if (!b) {
				set_err(err, errlen, "%s: out of memory", t->info.path);
				return -1;
			}
			t->rbuf = b;
			t->rcap = cap;
		}
		k = read(t->rfd, t->rbuf + t->rtail, t->rcap - t->rtail);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = t->rfd, .events = POLLIN };
			int r = poll(&pfd, 1, stall_ms());

			if (r == 0) {
				reap(t, true, NULL, 0);
				set_err(err, errlen, "%s: corrupt trace data (the trace library stopped making progress reading it)",
					t->info.path);
				return -1;
			}
			continue;
		}
		if (k < 0) {
			set_err(err, errlen, "%s: reading from the trace reader: %s", t->info.path, strerror(errno));
			return -1;
		}
		if (k == 0)
			return 1;
		t->rtail += (size_t)k;
	}
	return 0;
}

/* EOF or garbage from the child: say why in one line. */
static int child_broke(struct ir_trace *t, int eof, char *err, size_t errlen)
{
	char how[200];

	reap(t, !eof, how, sizeof(how));
	set_err(err, errlen, "%s: %s", t->info.path,
		how[0] ? how : eof ? "corrupt trace data (the trace reader stopped early)"
				   : "corrupt trace data (the trace reader sent garbage)");
	return -1;
}

static int read_text(struct ir_trace *t, char *err, size_t errlen)
{
	uint16_t len;
	int r;

	if ((r = need(t, 4, err, errlen)))
		return r > 0 ? child_broke(t, 1, err, errlen) : -1;
	memcpy(&len, t->rbuf + t->rhead + 2, 2);
	if (len > 1000)
		return child_broke(t, 0, err, errlen);
	if ((r = need(t, 4u + len, err, errlen)))
		return r > 0 ? child_broke(t, 1, err, errlen) : -1;
	set_err(err, errlen, "%.*s", (int)len, (const char *)t->rbuf + t->rhead + 4);
	if (memchr(err, '\n', strlen(err)))
		*strchr(err, '\n') = 0;
	t->rhead += 4u + len;
	reap(t, false, NULL, 0);
	return -1;
}

static int read_open_msg(struct ir_trace *t, char *err, size_t errlen)
{
	const unsigned char *p;
	int r = need(t, 2, err, errlen);

	if (r)
		return r > 0 ? child_broke(t, 1, err, errlen) : -1;
	p = t->rbuf + t->rhead;
	if (p[0] != MSG_OPEN)
		return child_broke(t, 0, err, errlen);
	if (p[1])
		return read_text(t, err, errlen);
	if ((r = need(t, 4, err, errlen)))
		return r > 0 ? child_broke(t, 1, err, errlen) : -1;
	p = t->rbuf + t->rhead;
	t->info.has_probes = p[2] == 1;
	t->info.has_waking = p[3] == 1;
	t->rhead += 4;
	return 0;
}

static int read_end(struct ir_trace *t, char *err, size_t errlen)
{
	struct ir_trace_info *i = &t->info;
	const unsigned char *p, *end;
	size_t fixed = END_BAD + 8 * 3 + sizeof(i->events) + 32 * (size_t)i->nr_cpus + 4;
	uint32_t len;
	int32_t nr;
	int r;
	char *blob;

	if ((r = need(t, 5, err, errlen)))
		return r > 0 ? child_broke(t, 1, err, errlen) : -1;
	memcpy(&len, t->rbuf + t->rhead + 1, 4);
	if (len < fixed || len > MAX_END)
		return child_broke(t, 0, err, errlen);
	if ((r = need(t, 5u + len, err, errlen)))
		return r > 0 ? child_broke(t, 1, err, errlen) : -1;
	p = t->rbuf + t->rhead + 5;
	end = p + len;
	memcpy(&t->bad_order, p, 8);
	memcpy(&t->bad_id, p + 8, 8);
	memcpy(&t->bad_ts, p + 16, 8);
	memcpy(&t->bad_cpu, p + 24, 4);
	p += END_BAD;
	memcpy(&i->first_ts, p, 8);
	memcpy(&i->last_ts, p + 8, 8);
	memcpy(&i->events_total, p + 16, 8);
	memcpy(i->events, p + 24, sizeof(i->events));
	p += 24 + sizeof(i->events);
	for (int c = 0; c < i->nr_cpus; c++, p += 32) {
		struct ir_cpu_loss *l = &i->loss[c];

		memcpy(&l->missed, p, 8);
		memcpy(&l->missed_unknown, p + 8, 8);
		memcpy(&l->first_ts, p + 16, 8);
		memcpy(&l->last_ts, p + 24, 8);
	}
	memcpy(&nr, p, 4);
	p += 4;
	if (nr < 0 || (size_t)nr > (size_t)(end - p) / 10)
		return child_broke(t, 0, err, errlen);
	t->names = calloc((size_t)nr + 1, sizeof(*t->names));
	t->names_blob = blob = malloc((size_t)(end - p) + 1);
	if (!t->names || !blob) {
		set_err(err, errlen, "%s: out of memory", t->info.path);
		return -1;
	}
	for (int k = 0; k < nr; k++) {
		uint16_t n;

		if (end - p < 2)
			return child_broke(t, 0, err, errlen);
		memcpy(&n, p, 2);
		if ((size_t)(end - p) < 2u + n + 8u)
			return child_broke(t, 0, err, errlen);
		memcpy(blob, p + 2, n);
		blob[n] = 0;
		t->names[k].name = blob;
		memcpy(&t->names[k].count, p + 2 + n, 8);
		blob += n + 1;
		p += 2 + n + 8;
	}
	t->nr_names = nr;
	t->rhead += 5u + len;
	return 0;
}

/* Decode one event record at rbuf + rhead (type already known < IR_EV__COUNT). */
static int read_event(struct ir_trace *t, struct ir_event *ev, char *err, size_t errlen)
{
	static const uint8_t body[IR_EV__COUNT] = {
		[IR_EV_SWITCH] = 20, [IR_EV_WAKING] = 12, [IR_EV_WAKEUP] = 12,
		[IR_EV_WAKEUP_NEW] = 12, [IR_EV_MIGRATE] = 16, [IR_EV_FORK] = 8,
		[IR_EV_EXIT] = 4, [IR_EV_EXEC] = 8, [IR_EV_MOVE_NUMA] = 12,
		[IR_EV_SWAP_NUMA] = 12, [IR_EV_PROBE_ENTRY] = 4 + 11 * 8,
		[IR_EV_PROBE_EXIT] = 8, [IR_EV_OTHER] = 0,
	};
	const unsigned char *h = t->rbuf + t->rhead, *p;
	size_t len;
	uint8_t l1 = h[2], l2 = h[3];
	int r;
	int32_t x;

	if (h[1] > 1 || (l1 > STR_MAX && l1 != STR_NULL) || (l2 > STR_MAX && l2 != STR_NULL))
		return child_broke(t, 0, err, errlen);
	len = EVH + (h[1] ? 8 : 0) + body[h[0]] + (l1 == STR_NULL ? 0 : l1) + (l2 == STR_NULL ? 0 : l2);
	if ((r = need(t, len, err, errlen)))
		return r > 0 ? child_broke(t, 1, err, errlen) : -1;
	h = t->rbuf + t->rhead;
	ev->type = (enum ir_ev_type)h[0];
	memcpy(&ev->cpu, h + 4, 4);
	memcpy(&ev->common_pid, h + 8, 4);
	memcpy(&ev->ts, h + 12, 8);
	p = h + EVH;
	ev->missed = 0;
	if (h[1])
		p = get64(p, &ev->missed);
	switch (ev->type) {
	case IR_EV_SWITCH:
		p = get32(p, &ev->sw.prev_pid);
		p = get32(p, &ev->sw.prev_prio);
		p = get32(p, &ev->sw.next_pid);
		p = get32(p, &ev->sw.next_prio);
		p = get32(p, &x);
		ev->sw.prev_state = (uint32_t)x;
		break;
	case IR_EV_WAKING:
	case IR_EV_WAKEUP:
	case IR_EV_WAKEUP_NEW:
		p = get32(p, &ev->wake.pid);
		p = get32(p, &ev->wake.prio);
		p = get32(p, &ev->wake.target_cpu);
		break;
	case IR_EV_MIGRATE:
		p = get32(p, &ev->mig.pid);
		p = get32(p, &ev->mig.prio);
		p = get32(p, &ev->mig.orig_cpu);
		p = get32(p, &ev->mig.dest_cpu);
		break;
	case IR_EV_FORK:
		p = get32(p, &ev->fork.parent_pid);
		p = get32(p, &ev->fork.child_pid);
		break;
	case IR_EV_EXIT:
		p = get32(p, &ev->exit.pid);
		break;
	case IR_EV_EXEC:
		p = get32(p, &ev->exec.pid);
		p = get32(p, &ev->exec.old_pid);
		break;
	case IR_EV_MOVE_NUMA:
	case IR_EV_SWAP_NUMA:
		p = get32(p, &ev->numa.pid);
		p = get32(p, &ev->numa.src_cpu);
		p = get32(p, &ev->numa.dst_cpu);
		break;
	case IR_EV_PROBE_ENTRY: {
		struct ir_probe_entry *v = &ev->probe_entry.v;

		p = get32(p, &ev->probe_entry.cpu);
		p = get64(p, &v->nr_running);
		p = get64(p, &v->avg_idle);
		p = get64(p, &v->max_idle_balance_cost);
		p = get64(p, &v->rd_overload);
		p = get64(p, &v->ttwu_pending);
		for (int i = 0; i < 3; i++)
			p = get64(p, &v->sd_max_newidle_lb_cost[i]);
		for (int i = 0; i < 3; i++)
			p = get64(p, &v->sd_newidle_ratio[i]);
		break;
	}
	case IR_EV_PROBE_EXIT:
		p = get64(p, &ev->probe_exit.ret);
		break;
	default:
		break;
	}
	{
		const char *s1 = l1 == STR_NULL ? NULL : (const char *)p;
		const char *s2 = l2 == STR_NULL ? NULL : (const char *)p + (l1 == STR_NULL ? 0 : l1);
		uint16_t n1 = l1 == STR_NULL ? 0 : l1, n2 = l2 == STR_NULL ? 0 : l2;

		switch (ev->type) {
		case IR_EV_SWITCH:
			ev->sw.prev_comm = s1;
			ev->sw.prev_comm_len = n1;
			ev->sw.next_comm = s2;
			ev->sw.next_comm_len = n2;
			break;
		case IR_EV_WAKING:
		case IR_EV_WAKEUP:
		case IR_EV_WAKEUP_NEW:
			ev->wake.comm = s1;
			ev->wake.comm_len = n1;
			break;
		case IR_EV_MIGRATE:
			ev->mig.comm = s1;
			ev->mig.comm_len = n1;
			break;
		case IR_EV_FORK:
			ev->fork.child_comm = s1;
			ev->fork.child_comm_len = n1;
			break;
		default:
			break;
		}
	}
	/* The child only sends events of known CPUs; anything else is garbage. */
	if (ev->cpu < 0 || ev->cpu >= t->info.nr_cpus)
		return child_broke(t, 0, err, errlen);
	return (int)len;
}

static int run_isolated(struct ir_trace *t, ir_event_fn fn, void *arg, char *err, size_t errlen)
{
	struct ir_event ev;
	int r;
	/* Every event takes at least 8 bytes of ring buffer; compressed data
	 * expands by far less than 1024x.  More events than that: the library
	 * is looping on corrupt data. */
	uint64_t n = 0, limit = t->tdat.data_bytes / 8 + 1024;

	if (strcmp(t->tdat.compression, "none"))
		limit = limit > UINT64_MAX / 1024 ? UINT64_MAX : limit * 1024;

	if (t->rfd < 0) {
		set_err(err, errlen, "%s: the trace was already read", t->info.path);
		return IR_ERR_INPUT;
	}
	for (;;) {
		uint8_t type;

		if ((r = need(t, 1, err, errlen)))
			return r > 0 ? (child_broke(t, 1, err, errlen), IR_ERR_INPUT) : IR_ERR_INPUT;
		type = t->rbuf[t->rhead];
		if (type == MSG_END) {
			if (read_end(t, err, errlen))
				return IR_ERR_INPUT;
			break;
		}
		if (type == MSG_FAIL) {
			read_text(t, err, errlen);
			return IR_ERR_INPUT;
		}
		if (type >= IR_EV__COUNT) {
			child_broke(t, 0, err, errlen);
			return IR_ERR_INPUT;
		}
		if ((r = need(t, EVH, err, errlen)))
			return r > 0 ? (child_broke(t, 1, err, errlen), IR_ERR_INPUT) : IR_ERR_INPUT;
		if ((r = read_event(t, &ev, err, errlen)) < 0)
			return IR_ERR_INPUT;
		t->rhead += (size_t)r;
		if (++n > limit) {
			reap(t, true, NULL, 0);
			set_err(err, errlen, "%s: corrupt trace data (the trace library returns more events than %llu bytes of data can hold)",
				t->info.path, (unsigned long long)t->tdat.data_bytes);
			return IR_ERR_INPUT;
		}
		if (fn(arg, &ev)) {
			t->stopped = 1;
			reap(t, true, NULL, 0);
			break;
		}
	}
	close(t->rfd);
	t->rfd = -1;
	if (t->child) {
		char how[200];

		reap(t, false, how, sizeof(how));
		if (how[0] && !t->stopped) {
			set_err(err, errlen, "%s: %s", t->info.path, how);
			return IR_ERR_INPUT;
		}
	}
	return IR_OK;
}

int ir_trace_run(struct ir_trace *t, ir_event_fn fn, void *arg, char *err, size_t errlen)
{
	t->fn = fn;
	t->arg = arg;
	if (t->pages) {
		int ret = run_direct(t, fn, arg, err, errlen);

		if (ret)
			return ret;
	} else if (t->handle) {
		if (tracecmd_iterate_events(t->handle, NULL, 0, on_record, t) < 0 && !t->stopped) {
			set_err(err, errlen, "%s: error while reading event data", t->info.path);
			return IR_ERR_INPUT;
		}
	} else {
		int ret = run_isolated(t, fn, arg, err, errlen);

		if (ret)
			return ret;
	}
	if ((t->bad_order || t->bad_id) && !t->stopped) {
		if (t->bad_order)
			set_err(err, errlen, "%s: corrupt trace data: CPU %d's events go back in time (%llu times, first at %llu ns)%s",
				t->info.path, t->bad_cpu, (unsigned long long)t->bad_order,
				(unsigned long long)t->bad_ts, t->bad_id ? ", and some have unknown event ids" : "");
		else
			set_err(err, errlen, "%s: corrupt trace data: %llu events of unknown type (first on CPU %d at %llu ns)",
				t->info.path, (unsigned long long)t->bad_id, t->bad_cpu,
				(unsigned long long)t->bad_ts);
		return IR_ERR_INPUT;
	}
	t->info.nr_loss = 0;
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
	struct tep_event **all;

	if (!t->tep) {
		for (int i = 0; i < t->nr_names; i++)
			fn(arg, t->names[i].name, t->names[i].count);
		return;
	}
	all = tep_list_events(t->tep, TEP_EVENT_SORT_NAME);
	for (int i = 0; all && all[i]; i++)
		if (all[i]->id >= 0 && all[i]->id < MAX_EVENT_ID && t->count[all[i]->id])
			fn(arg, all[i]->name, t->count[all[i]->id]);
}

void ir_trace_close(struct ir_trace *t)
{
	if (!t)
		return;
	if (t->rfd >= 0)
		close(t->rfd);
	reap(t, true, NULL, 0);
	ir_pages_close(t->pages);
	if (t->handle)
		tracecmd_close(t->handle);
	free(t->count);
	free(t->last_cpu_ts);
	free(t->info.loss);
	free(t->names);
	free(t->names_blob);
	free(t->rbuf);
	ir_tdat_free(&t->tdat);
	free(t);
}

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

#include "replay/pipeline.h"
#include "replay/trace_int.h"


static void set_err(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/*
 * A field the trace's format places where no record can hold it (negative
 * or beyond a page, libtraceevent keeps offsets in an int) or a number of a
 * size we cannot read is damage: the first one is remembered and the trace
 * refused (open_lib), never read from outside the record.
 */
static struct fld find_fld_as(struct ir_trace *t, struct tep_event *ev, const char *name, bool str)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	struct fld r = { 0 };
	int64_t end;

	if (!f)
		return r;
	r.off = f->offset;
	r.size = f->size;
	r.is_signed = f->flags & TEP_FIELD_IS_SIGNED;
	r.dataloc = f->flags & TEP_FIELD_IS_DYNAMIC;
	if (r.dataloc)
		r.size = 4;
	end = (int64_t)f->offset + (r.dataloc ? 4 : (int64_t)f->size);
	if (f->offset < 0 || (!r.dataloc && f->size <= 0) || end > (int64_t)t->tdat.page_size ||
	    (!str && !r.dataloc && r.size != 1 && r.size != 2 && r.size != 4 && r.size != 8)) {
		if (!t->bad_fld[0])
			snprintf(t->bad_fld, sizeof(t->bad_fld), "%.64s field %.64s (offset %d, size %d)",
				 ev->name ? ev->name : "?", name, f->offset, f->size);
		r = (struct fld){ 0 };
	}
	return r;
}

static struct fld find_fld(struct ir_trace *t, struct tep_event *ev, const char *name)
{
	return find_fld_as(t, ev, name, false);
}

static struct fld find_str(struct ir_trace *t, struct tep_event *ev, const char *name)
{
	return find_fld_as(t, ev, name, true);
}

static inline int64_t rd_num(const struct ir_trace *t, const struct tep_record *rec, const struct fld *f)
{
	const unsigned char *p = (const unsigned char *)rec->data + f->off;
	uint64_t v;

	/* 64-bit: neither off + size nor a negative off may pass */
	if (!f->size || f->off < 0 || rec->size < 0 || (int64_t)f->off + f->size > (int64_t)rec->size)
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
	int64_t off = f->off, n = f->size;

	*len = 0;
	if (!f->size || f->off < 0)
		return NULL;
	if (f->dataloc) {
		int64_t v = rd_num(t, rec, f);

		if (v < 0)
			return NULL;
		off = v & 0xffff;
		n = (v >> 16) & 0xffff;
	}
	if (rec->size < 0 || off + n > (int64_t)rec->size || n > 0xffff)
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
		k->f[F_PREV_PID] = find_fld(t, ev, "prev_pid");
		k->f[F_PREV_PRIO] = find_fld(t, ev, "prev_prio");
		k->f[F_PREV_STATE] = find_fld(t, ev, "prev_state");
		k->f[F_PREV_COMM] = find_str(t, ev, "prev_comm");
		k->f[F_NEXT_PID] = find_fld(t, ev, "next_pid");
		k->f[F_NEXT_PRIO] = find_fld(t, ev, "next_prio");
		k->f[F_NEXT_COMM] = find_str(t, ev, "next_comm");
		break;
	case IR_EV_WAKING:
	case IR_EV_WAKEUP:
	case IR_EV_WAKEUP_NEW:
		k->f[F_PID] = find_fld(t, ev, "pid");
		k->f[F_PRIO] = find_fld(t, ev, "prio");
		k->f[F_TARGET_CPU] = find_fld(t, ev, "target_cpu");
		k->f[F_COMM] = find_str(t, ev, "comm");
		break;
	case IR_EV_MIGRATE:
		k->f[F_MPID] = find_fld(t, ev, "pid");
		k->f[F_MPRIO] = find_fld(t, ev, "prio");
		k->f[F_ORIG] = find_fld(t, ev, "orig_cpu");
		k->f[F_DEST] = find_fld(t, ev, "dest_cpu");
		k->f[F_MCOMM] = find_str(t, ev, "comm");
		break;
	case IR_EV_FORK:
		k->f[F_PPID] = find_fld(t, ev, "parent_pid");
		k->f[F_CPID] = find_fld(t, ev, "child_pid");
		k->f[F_CCOMM] = find_str(t, ev, "child_comm");
		break;
	case IR_EV_EXIT:
		k->f[F_PID] = find_fld(t, ev, "pid");
		break;
	case IR_EV_EXEC:
		k->f[F_PID] = find_fld(t, ev, "pid");
		k->f[F_PRIO] = find_fld(t, ev, "old_pid");
		break;
	case IR_EV_MOVE_NUMA:
	case IR_EV_SWAP_NUMA:
		k->f[F_NPID] = find_fld(t, ev, "pid");
		if (!k->f[F_NPID].size)
			k->f[F_NPID] = find_fld(t, ev, "src_pid");
		k->f[F_SRC] = find_fld(t, ev, "src_cpu");
		k->f[F_DST] = find_fld(t, ev, "dst_cpu");
		break;
	case IR_EV_PROBE_ENTRY:
		k->f[F_P_CPU] = find_fld(t, ev, "cpu");
		k->f[F_P_NR] = find_fld(t, ev, "nr_running");
		k->f[F_P_AVG] = find_fld(t, ev, "avg_idle");
		k->f[F_P_MIBC] = find_fld(t, ev, "max_idle_balance_cost");
		k->f[F_P_OVL] = find_fld(t, ev, "rd_overload");
		k->f[F_P_TTWU] = find_fld(t, ev, "ttwu_pending");
		k->f[F_P_SD0] = find_fld(t, ev, "sd0_max_newidle_lb_cost");
		k->f[F_P_SD1] = find_fld(t, ev, "sd1_max_newidle_lb_cost");
		k->f[F_P_SD2] = find_fld(t, ev, "sd2_max_newidle_lb_cost");
		k->f[F_P_R0] = find_fld(t, ev, "sd0_newidle_ratio");
		k->f[F_P_R1] = find_fld(t, ev, "sd1_newidle_ratio");
		k->f[F_P_R2] = find_fld(t, ev, "sd2_newidle_ratio");
		break;
	case IR_EV_PROBE_EXIT:
		k->f[0] = find_fld(t, ev, "ret");
		break;
	default:
		break;
	}
	for (int i = 0; i < F__PROBE; i++)
		if (k->f[i].size && k->f[i].off + k->f[i].size > k->min_size)
			k->min_size = k->f[i].off + k->f[i].size;	/* both bounded by the page size */
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
				if (tep_find_field(ev, "sd0_newidle_ratio"))
					t->info.probes_have_ratio = 1;
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

	/*
	 * CPUs: up to the highest id that has data (or a loss count).  Not the
	 * CPU count option: four bytes saying 4096 must not size every per-CPU
	 * table; a CPU without data has no events to replay.  Ids are checked
	 * (0 .. IR_TDAT_MAX_CPUSTAT - 1) by tdat.c.
	 */
	t->info.file_cpus = t->tdat.cpucount > 0 ? t->tdat.cpucount : 0;
	t->info.nr_cpus = 0;
	for (int i = 0; i < t->tdat.nr_data; i++)
		if (t->tdat.data[i].size && t->tdat.data[i].cpu >= t->info.nr_cpus)
			t->info.nr_cpus = t->tdat.data[i].cpu + 1;
	if (!t->tdat.nr_data)	/* libtracecmd reads it: its CPU count */
		t->info.nr_cpus = t->tdat.cpucount > t->tdat.buffer_cpus ? t->tdat.cpucount : t->tdat.buffer_cpus;
	for (int i = 0; i < t->tdat.nr_cpustat; i++)
		if (t->tdat.cpustat[i].cpu >= t->info.nr_cpus && t->tdat.cpustat[i].cpu < IR_TDAT_MAX_CPUSTAT &&
		    (t->tdat.cpustat[i].overrun || t->tdat.cpustat[i].dropped))
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
		struct ir_cpu_loss *l;

		if (t->tdat.cpustat[i].cpu < 0 || t->tdat.cpustat[i].cpu >= t->info.nr_cpus)
			continue;
		l = &t->info.loss[t->tdat.cpustat[i].cpu];

		l->overrun = t->tdat.cpustat[i].overrun;
		l->dropped = t->tdat.cpustat[i].dropped;
	}
	return 0;
}

/* The libtracecmd part of opening: formats, field resolution. */
int ir_trace_open_lib(struct ir_trace *t, bool head_only, char *err, size_t errlen)
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
	if (t->bad_fld[0]) {
		set_err(err, errlen, "%s: corrupt event format: %s lies outside any event record", path, t->bad_fld);
		return IR_ERR_INPUT;
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
	if (t->bad_fld[0]) {
		set_err(err, errlen, "%s: corrupt event format: %s lies outside any event record", path, t->bad_fld);
		return IR_ERR_INPUT;
	}
	{
		struct tep_event **all = tep_list_events(t->tep, TEP_EVENT_SORT_ID);

		for (int i = 0; all && all[i]; i++)
			if (all[i]->id >= 0 && all[i]->id < MAX_EVENT_ID)
				t->known_id[all[i]->id >> 3] |= (uint8_t)(1u << (all[i]->id & 7));
	}
	{
		struct tep_format_field *cp = tep_find_common_field(sw, "common_pid");

		t->common_pid_off = cp ? cp->offset : 4;
		if (t->common_pid_off < 0 || (int64_t)t->common_pid_off + 4 > (int64_t)t->tdat.page_size) {
			set_err(err, errlen, "%s: corrupt event format: common_pid at offset %d lies outside any event record",
				path, t->common_pid_off);
			return IR_ERR_INPUT;
		}
	}
	return IR_OK;
}

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
			rc = ir_trace_open_lib(t, true, err, errlen);
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
			if (waited >= ir_child_stall_ms()) {
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
	ret = ir_trace_open_lib(t, true, err, errlen);
	if (ret)
		return ret;
	return ir_pages_open(path, &t->tdat, &t->pages, err, errlen) ? IR_ERR_INPUT : IR_OK;
}

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

	ir_trace_on_record(NULL, (struct tep_record *)rec, rec->cpu, t);
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
	return ir_trace_open_buffer(path, NULL, out, err, errlen);
}

int ir_trace_open_buffer(const char *path, const char *buffer, struct ir_trace **out,
			 char *err, size_t errlen)
{
	struct ir_trace *t;
	char why[512];

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
	     (ir_tdat_free(&t->tdat), ir_tdat_read(path, &t->tdat, why, sizeof(why)))) ||
	    ir_tdat_select(&t->tdat, buffer, why, sizeof(why)) ||
	    (t->tdat.nr_data && t->tdat.data[0].buf != 0 && !ir_pages_usable(&t->tdat) &&
	     snprintf(why, sizeof(why), "instance buffers are read only from traces without time offsets") > 0)) {
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
		int ret = ir_trace_open_lib(t, false, err, errlen);

		if (ret) {
			ir_trace_close(t);
			return ret;
		}
		*out = t;
		return IR_OK;
	}

	if (ir_child_start(t, err, errlen))
		return IR_ERR_INPUT;
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

int ir_trace_on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct ir_trace *t = data;
	struct ir_event ev;
	const struct evkind *k;
	int id;

	(void)h;
	id = rec->size < 8 ? -1 : (int)rd_num(t, rec, &(struct fld){ .off = 0, .size = 2 });
	if (id < 0 || id >= MAX_EVENT_ID || !(t->known_id[id >> 3] & (1u << (id & 7))) ||
	    (t->kind_of[id] && rec->size < t->kinds[t->kind_of[id]].min_size)) {
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
	if (cpu >= 0 && cpu < t->info.nr_cpus && rec->missed_events) {
		struct ir_cpu_loss *l = &t->info.loss[cpu];

		if (rec->missed_events > 0)
			l->missed += (uint64_t)rec->missed_events;
		else
			l->missed_unknown++;
		if (!l->first_ts)
			l->first_ts = t->last_cpu_ts[cpu] ? t->last_cpu_ts[cpu] : rec->ts;
		l->last_ts = rec->ts;
	}
	if (cpu >= 0 && cpu < t->info.nr_cpus)
		t->last_cpu_ts[cpu] = rec->ts;
	/* (a CPU beyond nr_cpus goes on: the state machine counts it, cpu_out_of_range) */

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
	if (t->pages) {
		int ret = run_direct(t, fn, arg, err, errlen);

		if (ret)
			return ret;
	} else if (t->handle) {
		if (tracecmd_iterate_events(t->handle, NULL, 0, ir_trace_on_record, t) < 0 && !t->stopped) {
			set_err(err, errlen, "%s: error while reading event data", t->info.path);
			return IR_ERR_INPUT;
		}
	} else {
		int ret = ir_child_run(t, fn, arg, err, errlen);

		if (ret)
			return ret;
	}
	if ((t->bad_order || t->bad_id) && !t->stopped) {
		if (t->bad_order)
			set_err(err, errlen, "%s: corrupt trace data: CPU %d's events go back in time (%llu times, first at %llu ns)%s",
				t->info.path, t->bad_cpu, (unsigned long long)t->bad_order,
				(unsigned long long)t->bad_ts, t->bad_id ? ", and some have unknown event ids" : "");
		else
			set_err(err, errlen, "%s: corrupt trace data: %llu events of unknown type or shorter than their format (first on CPU %d at %llu ns)",
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
	ir_child_reap(t, true, NULL, 0);
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

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fallback route for event data our page reader cannot take: libtracecmd
 * iterates the events in a forked child (it crashes or loops on some corrupt
 * files) that streams them, already decoded by decode.c, to the parent in
 * compact batched records.  The parent checks every length it reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <trace-cmd/trace-cmd.h>
#include <unistd.h>

#include "replay/trace_int.h"

static int child_main(struct ir_trace *t, int wfd);
static int read_open_msg(struct ir_trace *t, char *err, size_t errlen);

int ir_child_start(struct ir_trace *t, char *err, size_t errlen)
{
	const char *path = t->info.path;
	int p[2];

	if (pipe2(p, O_CLOEXEC)) {
		ir_seterr(err, errlen, "%s: cannot create a pipe: %s", path, strerror(errno));
		ir_trace_close(t);
		return IR_ERR_INPUT;
	}
	fflush(NULL);
	t->child = fork();
	if (t->child < 0) {
		ir_seterr(err, errlen, "%s: cannot fork: %s", path, strerror(errno));
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
	return IR_OK;
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
	int ret = ir_trace_open_lib(t, false, err, sizeof(err));

	if (ret) {
		emit_text(w, MSG_OPEN, 1, err);
		return wflush(w) ? 1 : 0;
	}
	{
		unsigned char h[2] = { MSG_OPEN, 0 };
		uint8_t probes = (uint8_t)(t->info.has_probes | t->info.probes_have_ratio << 1), waking = (uint8_t)t->info.has_waking;

		if (wput(w, h, 2) || wput(w, &probes, 1) || wput(w, &waking, 1) || wflush(w))
			return 1;
	}
	t->fn = emit;
	t->arg = w;
	if (tracecmd_iterate_events(t->handle, NULL, 0, ir_trace_on_record, t) < 0 && !t->stopped) {
		ir_seterr(err, sizeof(err), "%s: error while reading event data", t->info.path);
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

int ir_child_stall_ms(void)
{
	const char *e = getenv("IDLEREPLAY_STALL_MS");
	long v = e ? strtol(e, NULL, 10) : 0;

	return v > 0 && v < 3600000 ? (int)v : STALL_MS_DEFAULT;
}

/* Kill (if needed) and ir_child_reap the child; describe how it ended. */
void ir_child_reap(struct ir_trace *t, bool kill_it, char *how, size_t howlen)
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
				ir_seterr(err, errlen, "%s: out of memory", t->info.path);
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
			int r = poll(&pfd, 1, ir_child_stall_ms());

			if (r == 0) {
				ir_child_reap(t, true, NULL, 0);
				ir_seterr(err, errlen, "%s: corrupt trace data (the trace library stopped making progress reading it)",
					t->info.path);
				return -1;
			}
			continue;
		}
		if (k < 0) {
			ir_seterr(err, errlen, "%s: reading from the trace reader: %s", t->info.path, strerror(errno));
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

	ir_child_reap(t, !eof, how, sizeof(how));
	ir_seterr(err, errlen, "%s: %s", t->info.path,
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
	ir_seterr(err, errlen, "%.*s", (int)len, (const char *)t->rbuf + t->rhead + 4);
	if (memchr(err, '\n', strlen(err)))
		*strchr(err, '\n') = 0;
	t->rhead += 4u + len;
	ir_child_reap(t, false, NULL, 0);
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
	t->info.has_probes = p[2] & 1;
	t->info.probes_have_ratio = (p[2] >> 1) & 1;
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
		ir_seterr(err, errlen, "%s: out of memory", t->info.path);
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

int ir_child_run(struct ir_trace *t, ir_event_fn fn, void *arg, char *err, size_t errlen)
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
		ir_seterr(err, errlen, "%s: the trace was already read", t->info.path);
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
			ir_child_reap(t, true, NULL, 0);
			ir_seterr(err, errlen, "%s: corrupt trace data (the trace library returns more events than %llu bytes of data can hold)",
				t->info.path, (unsigned long long)t->tdat.data_bytes);
			return IR_ERR_INPUT;
		}
		if (fn(arg, &ev)) {
			t->stopped = 1;
			ir_child_reap(t, true, NULL, 0);
			break;
		}
	}
	close(t->rfd);
	t->rfd = -1;
	if (t->child) {
		char how[200];

		ir_child_reap(t, false, how, sizeof(how));
		if (how[0] && !t->stopped) {
			ir_seterr(err, errlen, "%s: %s", t->info.path, how);
			return IR_ERR_INPUT;
		}
	}
	return IR_OK;
}

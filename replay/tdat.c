/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace.dat structure check and metadata, read by us before libtracecmd
 * sees the file.
 *
 * Why: libtracecmd 3.1.6 crashes inside tracecmd_close() on the error path
 * of tracecmd_open_fd() for some damaged files, and its public API does not
 * expose the options we need (uname, per-CPU stats, our metadata).  So we
 * walk the header and the option sections ourselves (formats v6 and v7,
 * trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)), check every offset and size
 * against the file, and say in one line what is wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "replay/tdat.h"

#define OPT_DONE	0
#define OPT_CPUSTAT	2
#define OPT_BUFFER	3
#define OPT_TRACECLOCK	4
#define OPT_UNAME	5
#define OPT_CPUCOUNT	8

#define SEC_FL_COMPRESS 1
#define MAX_OPTION_SECTIONS 64
#define MAX_SECTION_SIZE (256u << 20)
/*
 * Compressed sections (options here; headers, formats, kallsyms, printk and
 * cmdlines, which libtracecmd decompresses): bounded by what the compressed
 * bytes of a real file give.  Text compresses 5 to 10 times with zstd; RLE
 * blocks let 4 bytes claim 128 KiB.  Options are small (our metadata with a
 * 4096-CPU topology is under 1 MiB).
 */
#define MAX_OPTIONS_SIZE (16u << 20)
#define MAX_SECTION_RATIO 64
#define SECTION_SLACK (1u << 20)

struct rd {
	int fd;
	uint64_t size;
	int big_endian;
	struct ir_tdat *out;
	char *err;
	size_t errlen;
	uint64_t known[64];	/* v7 section offsets named by options */
	int nknown;
	bool check_pages;	/* walk uncompressed pages here (else the reader does) */
};

static void add_known(struct rd *r, uint64_t off)
{
	if (r->nknown < (int)(sizeof(r->known) / sizeof(r->known[0])))
		r->known[r->nknown++] = off;
}

static int fail(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct rd *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	/* Strings from the file end up in here: keep the message one printable line. */
	for (char *p = r->err; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return -1;
}

static int pread_all(struct rd *r, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	if (off > r->size || len > r->size - off)
		return fail(r, "truncated: needs %zu bytes at offset %llu, file has %llu",
			    len, (unsigned long long)off, (unsigned long long)r->size);
	while (done < len) {
		ssize_t n = pread(r->fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(r, "read error at offset %llu: %s", (unsigned long long)(off + done),
				    n < 0 ? strerror(errno) : "unexpected end of file");
		done += (size_t)n;
	}
	return 0;
}

static uint64_t get_le(struct rd *r, const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++) {
		int k = r->big_endian ? i : n - 1 - i;

		v = (v << 8) | p[k];
	}
	return v;
}

static int read_num(struct rd *r, uint64_t *off, int n, uint64_t *v)
{
	unsigned char b[8];

	if (pread_all(r, b, (size_t)n, *off))
		return -1;
	*v = get_le(r, b, n);
	*off += (uint64_t)n;
	return 0;
}

/* Read a NUL-terminated string of at most max bytes starting at *off. */
static int read_str(struct rd *r, uint64_t *off, char *buf, size_t max)
{
	for (size_t i = 0; i < max; i++) {
		if (pread_all(r, buf + i, 1, *off + i))
			return -1;
		if (!buf[i]) {
			*off += i + 1;
			return 0;
		}
	}
	return fail(r, "unterminated string at offset %llu", (unsigned long long)*off);
}

/* Skip a block preceded by an n-byte size. */
static int skip_sized(struct rd *r, uint64_t *off, int n, const char *what)
{
	uint64_t sz;

	if (read_num(r, off, n, &sz))
		return -1;
	if (sz > r->size || *off + sz > r->size)
		return fail(r, "%s: size %llu runs past the end of the file", what,
			    (unsigned long long)sz);
	*off += sz;
	return 0;
}

/* "CPU: N" then counters; N must name a CPU we can hold (0 .. 4095). */
static int parse_cpustat(struct rd *r, const char *s)
{
	struct ir_tdat *t = r->out;
	struct ir_tdat_cpustat cs = { .cpu = -1 };
	const char *p;

	if ((p = strstr(s, "CPU:"))) {
		char *end;
		long v;

		errno = 0;
		v = strtol(p + 4, &end, 10);
		if (errno || end == p + 4 || v < 0 || v >= IR_TDAT_MAX_CPUSTAT)
			return fail(r, "per-CPU stats option names CPU '%.20s' (0 to %d are possible)",
				    p + 4 + strspn(p + 4, " "), IR_TDAT_MAX_CPUSTAT - 1);
		cs.cpu = (int)v;
	}
	if ((p = strstr(s, "\noverrun:")))
		cs.overrun = strtoull(p + 9, NULL, 10);
	if ((p = strstr(s, "dropped events:")))
		cs.dropped = strtoull(p + 15, NULL, 10);
	if (cs.cpu < 0 || t->nr_cpustat >= IR_TDAT_MAX_CPUSTAT)
		return 0;
	t->cpustat[t->nr_cpustat++] = cs;
	return 0;
}

/* Copy an option's text payload, bounded and NUL-terminated. */
static void copy_text(char *dst, size_t dstlen, const unsigned char *src, size_t len)
{
	size_t n = len < dstlen - 1 ? len : dstlen - 1;

	memcpy(dst, src, n);
	dst[n] = 0;
	dst[strcspn(dst, "\n")] = 0;
}

/*
 * Uncompressed CPU data: ring-buffer pages as the kernel wrote them.  Check
 * each page header (time stamp not going back, committed size within the
 * page) and walk its event headers to the committed size, as kbuffer will:
 * libtracecmd trusts both and either crashes or makes up events otherwise.
 */
#define RB_PADDING 29
#define RB_TIME_EXTEND 30
#define RB_TIME_STAMP 31
#define COMMIT_MASK ((1u << 27) - 1)

int ir_tdat_check_page(const unsigned char *pg, size_t n, int long_size, int big_endian,
		       uint64_t *prev_ts, char *why, size_t whylen)
{
	struct rd r = { .big_endian = big_endian, .err = why, .errlen = whylen };
	size_t hdr = 8 + (size_t)long_size, q, end;
	uint64_t ts, commit;

	if (n < hdr)
		return 0;
	ts = get_le(&r, pg, 8);
	commit = get_le(&r, pg + 8, long_size) & COMMIT_MASK;
	if (commit > n - hdr)
		return fail(&r, "committed size %llu exceeds the page", (unsigned long long)commit);
	if (!commit)
		return 0;
	if (ts < *prev_ts)
		return fail(&r, "time stamp %llu goes back (previous page %llu)",
			    (unsigned long long)ts, (unsigned long long)*prev_ts);
	*prev_ts = ts;
	for (q = hdr, end = hdr + (size_t)commit; q < end;) {
		uint32_t h, tl, delta;
		uint64_t len;

		if (end - q < 4)
			break;
		h = (uint32_t)get_le(&r, pg + q, 4);
		tl = big_endian ? h >> 27 : h & 31;
		delta = big_endian ? h & COMMIT_MASK : h >> 5;
		if (tl == RB_PADDING && !delta)
			break;		/* the rest of the page is unused */
		if (tl == RB_TIME_EXTEND || tl == RB_TIME_STAMP) {
			len = 8;
		} else if (tl == 0 || tl == RB_PADDING) {
			if (end - q < 8)
				break;
			len = get_le(&r, pg + q + 4, 4);
			len = tl ? 4 + len : 4 + ((len + 3) & ~3ull);
			if (len < 8)
				len = 8;
		} else {
			len = 4 + 4 * (uint64_t)tl;
		}
		if (len > end - q)
			return fail(&r, "an event at byte %zu runs past the committed size %llu", q,
				    (unsigned long long)commit);
		q += (size_t)len;
	}
	return 0;
}

static int check_pages(struct rd *r, unsigned cpu, uint64_t off, uint64_t size)
{
	unsigned ps = r->out->page_size;
	unsigned char *pg;
	uint64_t prev_ts = 0;
	char why[256];
	int ret = -1;

	if (!r->check_pages)
		return 0;
	pg = malloc(ps);
	if (!pg)
		return fail(r, "out of memory");
	for (uint64_t p = 0, k = 0; p + 8 + (unsigned)r->out->long_size <= size; p += ps, k++) {
		size_t n = size - p < ps ? (size_t)(size - p) : ps;

		if (pread_all(r, pg, n, off + p))
			goto out;
		if (ir_tdat_check_page(pg, n, r->out->long_size, r->big_endian, &prev_ts, why, sizeof(why))) {
			fail(r, "corrupt trace data: CPU %u data page %llu: %s", cpu, (unsigned long long)k, why);
			goto out;
		}
	}
	ret = 0;
out:
	free(pg);
	return ret;
}

/* A buffer's per-CPU data, for readers that walk the pages themselves. */
static int add_data(struct rd *r, int cpu, uint64_t off, uint64_t size)
{
	struct ir_tdat *t = r->out;
	struct ir_tdat_cpu_data *d;
	int buf = t->nr_buffers - 1;

	if (cpu < 0 || cpu >= IR_TDAT_MAX_CPUSTAT)
		return fail(r, "data of CPU %u (0 to %d are possible)", (unsigned)cpu, IR_TDAT_MAX_CPUSTAT - 1);
	if (t->nr_data >= IR_TDAT_MAX_CPUSTAT * 4)
		return fail(r, "more than %d CPUs of data", IR_TDAT_MAX_CPUSTAT * 4);
	for (int i = t->nr_data - 1; i >= 0 && t->data[i].buf == buf; i--)
		if (t->data[i].cpu == cpu)
			return fail(r, "CPU %d's data is named twice", cpu);
	d = realloc(t->data, (size_t)(t->nr_data + 1) * sizeof(*d));
	if (!d)
		return fail(r, "out of memory");
	t->data = d;
	d[t->nr_data++] = (struct ir_tdat_cpu_data){ .cpu = cpu, .buf = buf, .off = off, .size = size };
	t->buffer_bytes[buf] += size;
	return 0;
}

static int new_buffer(struct rd *r, const char *name)
{
	struct ir_tdat *t = r->out;

	if (t->nr_buffers >= IR_TDAT_MAX_BUFFERS)
		return fail(r, "more than %d buffers", IR_TDAT_MAX_BUFFERS);
	snprintf(t->buffer_name[t->nr_buffers++], sizeof(t->buffer_name[0]), "%s", name);
	return 0;
}

static int by_off(const void *a, const void *b)
{
	const struct ir_tdat_cpu_data *x = *(struct ir_tdat_cpu_data *const *)a;
	const struct ir_tdat_cpu_data *y = *(struct ir_tdat_cpu_data *const *)b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* No two CPUs' data may share bytes: a file where many CPUs name the same
 * data would make us read (and decompress) it once per CPU. */
static int check_overlap(struct rd *r)
{
	struct ir_tdat *t = r->out;
	struct ir_tdat_cpu_data **v;
	int ret = 0, n = 0;

	if (!t->nr_data)
		return 0;
	v = malloc((size_t)t->nr_data * sizeof(*v));
	if (!v)
		return fail(r, "out of memory");
	for (int i = 0; i < t->nr_data; i++)
		if (t->data[i].size)
			v[n++] = &t->data[i];
	qsort(v, (size_t)n, sizeof(*v), by_off);
	for (int i = 1; i < n && !ret; i++)
		if (v[i]->off < v[i - 1]->off + v[i - 1]->size)
			ret = fail(r, "corrupt trace data: CPU %d's data (at %llu) overlaps CPU %d's (at %llu, %llu bytes)",
				   v[i]->cpu, (unsigned long long)v[i]->off, v[i - 1]->cpu,
				   (unsigned long long)v[i - 1]->off, (unsigned long long)v[i - 1]->size);
	free(v);
	return ret;
}

int ir_tdat_select(struct ir_tdat *t, const char *name, char *err, size_t errlen)
{
	int pick = -1, n = 0;

	if (name) {
		for (int b = 0; b < t->nr_buffers && pick < 0; b++)
			if (!strcmp(t->buffer_name[b], name))
				pick = b;
		if (pick < 0 && (!strcmp(name, "top") || !name[0]))
			for (int b = 0; b < t->nr_buffers && pick < 0; b++)
				if (!t->buffer_name[b][0])
					pick = b;
	} else {
		for (int b = 0; b < t->nr_buffers; b++)
			if (t->buffer_bytes[b]) {
				n++;
				if (pick < 0)
					pick = b;
			}
		if (!n)
			pick = t->nr_buffers ? 0 : -1;
	}
	if (pick < 0 || n > 1) {
		size_t len;

		snprintf(err, errlen, "%s; the trace's buffers:",
			 n > 1 ? "events in several buffers: choose one with --buffer NAME" :
			 name ? "no buffer of that name" : "no buffer");
		for (int b = 0; b < t->nr_buffers; b++) {
			len = strlen(err);
			snprintf(err + len, errlen - len, "%s %s (%llu bytes)", b ? "," : "",
				 t->buffer_name[b][0] ? t->buffer_name[b] : "top",
				 (unsigned long long)t->buffer_bytes[b]);
		}
		for (char *p = err; *p; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
				*p = '?';
		return -1;
	}
	n = 0;
	for (int i = 0; i < t->nr_data; i++)
		if (t->data[i].buf == pick)
			t->data[n++] = t->data[i];
	t->nr_data = n;
	t->buffer_cpus = n;
	return 0;
}

static int handle_option(struct rd *r, unsigned id, const unsigned char *d, size_t len)
{
	struct ir_tdat *t = r->out;
	char tmp[4096];

	if (id >= 16 && id <= 21 && len >= 8)	/* headers .. cmdlines: a section offset */
		add_known(r, get_le(r, d, 8));
	switch (id) {
	case OPT_UNAME:
		copy_text(t->uname, sizeof(t->uname), d, len);
		break;
	case OPT_TRACECLOCK: {
		/* "local global [mono] ..." : the bracketed one is in use */
		const char *a, *b;

		copy_text(tmp, sizeof(tmp), d, len);
		a = strchr(tmp, '[');
		b = a ? strchr(a, ']') : NULL;
		if (a && b && (size_t)(b - a - 1) < sizeof(t->clock)) {
			memcpy(t->clock, a + 1, (size_t)(b - a - 1));
			t->clock[b - a - 1] = 0;
		}
		break;
	}
	case OPT_CPUSTAT: {
		size_t n = len < sizeof(tmp) - 1 ? len : sizeof(tmp) - 1;

		memcpy(tmp, d, n);
		tmp[n] = 0;
		if (parse_cpustat(r, tmp))
			return -1;
		break;
	}
	case 7:		/* OFFSET */
	case 12:	/* TIME_SHIFT */
	case 14:	/* TSC2NSEC */
		t->time_shifted = 1;	/* libtracecmd adjusts time stamps: let it read them */
		break;
	case OPT_CPUCOUNT:
		if (len >= 4)
			t->cpucount = (int)get_le(r, d, 4);
		break;
	case OPT_BUFFER: {
		/* v7: offset, name, clock, page size, cpu count, per-cpu {id, off, size} */
		size_t p = 8, nl;
		uint64_t ncpu;

		if (len < 8)
			return fail(r, "BUFFER option too short (%zu bytes)", len);
		t->has_buffer = 1;
		add_known(r, get_le(r, d, 8));
		for (int s = 0; s < 2; s++) {
			nl = strnlen((const char *)d + p, len - p);
			if (p + nl >= len)
				return fail(r, "BUFFER option: unterminated string");
			if (s == 1 && !t->clock[0] && nl < sizeof(t->clock))
				memcpy(t->clock, d + p, nl + 1);
			if (s == 0 && new_buffer(r, (const char *)d + p))	/* "": the top one */
				return -1;
			p += nl + 1;
		}
		if (p + 8 > len)
			return fail(r, "BUFFER option too short");
		ncpu = get_le(r, d + p + 4, 4);
		p += 8;
		if (ncpu > IR_TDAT_MAX_CPUSTAT || p + ncpu * 20 > len)
			return fail(r, "BUFFER option: bad CPU count %llu", (unsigned long long)ncpu);
		for (uint64_t i = 0; i < ncpu; i++, p += 20) {
			uint64_t off = get_le(r, d + p + 4, 8), sz = get_le(r, d + p + 12, 8);

			if (off > r->size || sz > r->size - off)
				return fail(r, "truncated: CPU %u data (%llu bytes at %llu) runs past the end of the file (%llu bytes)",
					    (unsigned)get_le(r, d + p, 4), (unsigned long long)sz,
					    (unsigned long long)off, (unsigned long long)r->size);
			t->data_bytes += sz;
			if (!strcmp(t->compression, "none") &&
			    check_pages(r, (unsigned)get_le(r, d + p, 4), off, sz))
				return -1;
			if (add_data(r, (int)get_le(r, d + p, 4), off, sz))
				return -1;
		}
		t->buffer_cpus = (int)ncpu;
		break;
	}
	default:
		if (id == IR_TDAT_OPTION_META) {
			free(t->meta);
			t->meta = malloc(len + 1);
			if (!t->meta)
				return fail(r, "out of memory");
			memcpy(t->meta, d, len);
			t->meta[len] = 0;
		}
		break;
	}
	return 0;
}

/* Walk "id(2) size(4) data" options in buf; v7 returns the next section offset. */
static int walk_options(struct rd *r, const unsigned char *buf, size_t len, uint64_t *next, int v7)
{
	size_t p = 0;

	*next = 0;
	while (p + 2 <= len) {
		unsigned id = (unsigned)get_le(r, buf + p, 2);
		uint64_t sz;

		if (id == OPT_DONE && !v7)
			return 0;
		if (p + 6 > len)
			return fail(r, "option %u header truncated", id);
		sz = get_le(r, buf + p + 2, 4);
		p += 6;
		if (sz > len - p)
			return fail(r, "option %u: size %llu runs past its section", id,
				    (unsigned long long)sz);
		if (id == OPT_DONE) {
			if (sz >= 8)
				*next = get_le(r, buf + p, 8);
			return 0;
		}
		if (handle_option(r, id, buf + p, (size_t)sz))
			return -1;
		p += (size_t)sz;
	}
	return v7 ? fail(r, "options section has no DONE option") : 0;
}

/*
 * trace-cmd writes the section-name strings (section id 15) after the last
 * options section, at the very end of the file.  Nothing we read points at
 * it, so a file cut inside it would otherwise pass as whole: walk what
 * follows the last options section and say "truncated" if a strings section
 * header or body is cut.  Anything else there is left alone.
 */
static int check_v7_tail(struct rd *r, uint64_t end)
{
	while (end < r->size) {
		unsigned char h[16];
		uint64_t sz;

		if (r->size - end < sizeof(h))
			return fail(r, "truncated: %llu stray bytes after the last section at %llu",
				    (unsigned long long)(r->size - end), (unsigned long long)end);
		if (pread_all(r, h, sizeof(h), end))
			return -1;
		if (get_le(r, h, 2) != 15 || get_le(r, h + 2, 2) > 1)
			return 0;
		sz = get_le(r, h + 8, 8);
		if (sz > r->size - end - sizeof(h))
			return fail(r, "truncated: strings section at %llu (%llu bytes) runs past the end of the file",
				    (unsigned long long)end, (unsigned long long)sz);
		end += sizeof(h) + sz;
	}
	return 0;
}

/* A compressed section's sizes, before anyone decompresses it. */
static int check_compressed(struct rd *r, uint64_t off, uint64_t sz, uint64_t max, uint64_t *csz, uint64_t *usz)
{
	unsigned char ch[8];

	if (sz < 8 || pread_all(r, ch, 8, off + 16))
		return r->err[0] ? -1 : fail(r, "compressed section at %llu is too short", (unsigned long long)off);
	*csz = get_le(r, ch, 4);
	*usz = get_le(r, ch + 4, 4);
	if (*csz + 8 > sz || *usz > max || *usz > MAX_SECTION_RATIO * *csz + SECTION_SLACK)
		return fail(r, "compressed section at %llu has bad sizes (%llu bytes from %llu)",
			    (unsigned long long)off, (unsigned long long)*usz, (unsigned long long)*csz);
	return 0;
}

/* The header sections the options name, which libtracecmd decompresses. */
static int check_header_sections(struct rd *r)
{
	for (int i = 0; i < r->nknown; i++) {
		unsigned char h[16];
		uint64_t sz, csz, usz;

		if (r->known[i] >= r->size || r->size - r->known[i] < sizeof(h))
			continue;	/* the section walk says what is wrong */
		if (pread_all(r, h, sizeof(h), r->known[i]))
			return -1;
		sz = get_le(r, h + 8, 8);
		if (get_le(r, h, 2) < 16 || get_le(r, h, 2) > 21 || !(get_le(r, h + 2, 2) & SEC_FL_COMPRESS))
			continue;
		if (sz > r->size - r->known[i] - 16)
			return fail(r, "section at %llu: size %llu runs past the end of the file",
				    (unsigned long long)r->known[i], (unsigned long long)sz);
		if (check_compressed(r, r->known[i], sz, MAX_SECTION_SIZE, &csz, &usz))
			return -1;
	}
	return 0;
}

static int read_v7_options(struct rd *r, uint64_t off)
{
	uint64_t seen[MAX_OPTION_SECTIONS];

	for (int n = 0; off; n++) {
		unsigned char h[16];
		unsigned id, flags;
		uint64_t sz;
		unsigned char *buf = NULL;
		size_t blen;
		uint64_t next;
		int ret;

		if (n >= MAX_OPTION_SECTIONS)
			return fail(r, "more than %d option sections (a loop?)", MAX_OPTION_SECTIONS);
		for (int i = 0; i < n; i++)
			if (seen[i] == off)
				return fail(r, "options sections form a loop (at offset %llu)", (unsigned long long)off);
		seen[n] = off;
		if (pread_all(r, h, sizeof(h), off))
			return -1;
		add_known(r, off);
		id = (unsigned)get_le(r, h, 2);
		flags = (unsigned)get_le(r, h + 2, 2);
		sz = get_le(r, h + 8, 8);
		if (id != 0)
			return fail(r, "expected an options section at offset %llu, found section id %u",
				    (unsigned long long)off, id);
		if (sz > MAX_SECTION_SIZE || sz > r->size - off - 16)
			return fail(r, "options section at %llu: size %llu runs past the end of the file",
				    (unsigned long long)off, (unsigned long long)sz);
		if (flags & SEC_FL_COMPRESS) {
			uint64_t csz, usz;
			void *cbuf;

			if (strcmp(r->out->compression, "zstd"))
				return fail(r, "options compressed with unsupported '%s'", r->out->compression);
			if (check_compressed(r, off, sz, MAX_OPTIONS_SIZE, &csz, &usz))
				return -1;
			cbuf = malloc(csz ? csz : 1);
			buf = malloc(usz ? usz : 1);
			if (!cbuf || !buf) {
				free(cbuf);
				free(buf);
				return fail(r, "out of memory");
			}
			if (pread_all(r, cbuf, csz, off + 24)) {
				free(cbuf);
				free(buf);
				return -1;
			}
			blen = ZSTD_decompress(buf, usz, cbuf, csz);
			free(cbuf);
			if (ZSTD_isError(blen)) {
				free(buf);
				return fail(r, "options section at %llu does not decompress: %s",
					    (unsigned long long)off, ZSTD_getErrorName(blen));
			}
		} else {
			if (sz > MAX_OPTIONS_SIZE)
				return fail(r, "options section at %llu: %llu bytes (%u MiB at most)",
					    (unsigned long long)off, (unsigned long long)sz, MAX_OPTIONS_SIZE >> 20);
			blen = (size_t)sz;
			buf = malloc(blen ? blen : 1);
			if (!buf)
				return fail(r, "out of memory");
			if (pread_all(r, buf, blen, off + 16)) {
				free(buf);
				return -1;
			}
		}
		ret = walk_options(r, buf, blen, &next, 1);
		free(buf);
		if (ret)
			return -1;
		if (!next)
			return check_v7_tail(r, off + 16 + sz);
		off = next;
	}
	return 0;
}

static int read_v6(struct rd *r, uint64_t off)
{
	char name[16];
	uint64_t n, nev, cpus;

	/* header_page, header_event */
	if (read_str(r, &off, name, sizeof(name)) || strcmp(name, "header_page"))
		return r->err[0] ? -1 : fail(r, "bad header: expected header_page");
	if (skip_sized(r, &off, 8, "header_page"))
		return -1;
	if (read_str(r, &off, name, sizeof(name)) || strcmp(name, "header_event"))
		return r->err[0] ? -1 : fail(r, "bad header: expected header_event");
	if (skip_sized(r, &off, 8, "header_event"))
		return -1;
	/* ftrace formats */
	if (read_num(r, &off, 4, &n))
		return -1;
	if (n > 4096)
		return fail(r, "implausible ftrace format count %llu", (unsigned long long)n);
	for (uint64_t i = 0; i < n; i++)
		if (skip_sized(r, &off, 8, "ftrace event format"))
			return -1;
	/* event systems */
	if (read_num(r, &off, 4, &n))
		return -1;
	if (n > 65536)
		return fail(r, "implausible event system count %llu", (unsigned long long)n);
	for (uint64_t i = 0; i < n; i++) {
		char sys[256];

		if (read_str(r, &off, sys, sizeof(sys)) || read_num(r, &off, 4, &nev))
			return -1;
		if (nev > 65536)
			return fail(r, "implausible event count %llu in system %s",
				    (unsigned long long)nev, sys);
		for (uint64_t j = 0; j < nev; j++)
			if (skip_sized(r, &off, 8, "event format"))
				return -1;
	}
	if (skip_sized(r, &off, 4, "kallsyms") || skip_sized(r, &off, 4, "printk formats") ||
	    skip_sized(r, &off, 8, "saved cmdlines") || read_num(r, &off, 4, &cpus))
		return -1;
	r->out->cpucount = (int)cpus;
	if (cpus > IR_TDAT_MAX_CPUSTAT)
		return fail(r, "implausible CPU count %llu", (unsigned long long)cpus);
	for (;;) {
		char tag[10];

		if (pread_all(r, tag, 10, off))
			return -1;
		off += 10;
		if (!memcmp(tag, "options  ", 10)) {
			/* options run to id 0; bound the walk by the file */
			uint64_t start = off, next;
			size_t len;
			unsigned char *buf;
			int ret;
			uint64_t p = off;

			for (;;) {
				uint64_t id, sz;

				if (read_num(r, &p, 2, &id))
					return -1;
				if (id == 0)
					break;
				if (read_num(r, &p, 4, &sz))
					return -1;
				if (sz > r->size - p)
					return fail(r, "option %llu: size runs past the end of the file",
						    (unsigned long long)id);
				p += sz;
			}
			len = (size_t)(p - start);
			buf = malloc(len ? len : 1);
			if (!buf)
				return fail(r, "out of memory");
			if (pread_all(r, buf, len, start)) {
				free(buf);
				return -1;
			}
			ret = walk_options(r, buf, len, &next, 0);
			free(buf);
			if (ret)
				return -1;
			off = p;
			continue;
		}
		if (!memcmp(tag, "flyrecord", 10)) {
			if (new_buffer(r, ""))
				return -1;
			for (uint64_t i = 0; i < cpus; i++) {
				uint64_t o, s;

				if (read_num(r, &off, 8, &o) || read_num(r, &off, 8, &s))
					return -1;
				if (o > r->size || s > r->size - o)
					return fail(r, "truncated: CPU %llu data (%llu bytes at %llu) runs past the end of the file (%llu bytes)",
						    (unsigned long long)i, (unsigned long long)s,
						    (unsigned long long)o, (unsigned long long)r->size);
				r->out->data_bytes += s;
				if (check_pages(r, (unsigned)i, o, s) || add_data(r, (int)i, o, s))
					return -1;
			}
			r->out->has_buffer = 1;
			r->out->buffer_cpus = (int)cpus;
			return 0;
		}
		if (!memcmp(tag, "latency  ", 10))
			return fail(r, "latency-format trace: no per-CPU event data to replay");
		return fail(r, "bad header: unknown data tag at offset %llu", (unsigned long long)(off - 10));
	}
}

/*
 * v7 files are a chain of sections (id, flags, string id, size) that
 * trace-cmd writes back to back from the end of the file header to the
 * end of the file.  Walk it: a section that runs past the end means the
 * file was cut, wherever the cut is (options and the strings section come
 * last, after the data).  Some writers get a section's size slightly wrong
 * (libtracecmd 3.1.6 leaves out the 4-byte length of an empty kallsyms
 * section), so the walk only counts while it stays on the sections the
 * options name, or goes past all of them having seen each: once it
 * strays, it gives no verdict.
 */
static int walk_v7_sections(struct rd *r, uint64_t off)
{
	int seen = 0;
	uint64_t max_known = 0;

	for (int i = 0; i < r->nknown; i++)
		if (r->known[i] > max_known)
			max_known = r->known[i];
	for (int n = 0; off < r->size; n++) {
		unsigned char h[16];
		unsigned id;
		uint64_t sz;
		bool known = false;

		if (n > 4096)
			return 0;
		for (int i = 0; i < r->nknown; i++)
			if (r->known[i] == off)
				known = true;
		if (known)
			seen++;
		else if (off <= max_known || seen < r->nknown)
			return 0;	/* strayed: no verdict */
		if (r->size - off < sizeof(h))
			return fail(r, "truncated: %llu stray bytes at offset %llu where a section header should be",
				    (unsigned long long)(r->size - off), (unsigned long long)off);
		if (pread_all(r, h, sizeof(h), off))
			return -1;
		id = (unsigned)get_le(r, h, 2);
		sz = get_le(r, h + 8, 8);
		if (id > 64)	/* not a section header: another writer's layout; no verdict */
			return 0;
		if (sz > r->size - off - sizeof(h))
			return fail(r, "truncated: section %u at offset %llu (%llu bytes) runs past the end of the file (%llu bytes)",
				    id, (unsigned long long)off, (unsigned long long)sz,
				    (unsigned long long)r->size);
		off += sizeof(h) + sz;
	}
	return 0;
}

int ir_tdat_read(const char *path, struct ir_tdat *out, char *err, size_t errlen)
{
	return ir_tdat_read_flags(path, out, IR_TDAT_CHECK_PAGES, err, errlen);
}

int ir_tdat_read_flags(const char *path, struct ir_tdat *out, unsigned flags, char *err, size_t errlen)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	unsigned char head[10];
	char ver[8];
	unsigned char b[6];
	struct stat st;
	uint64_t off = 10, v;
	struct rd r = { .out = out, .err = err, .errlen = errlen, .check_pages = flags & IR_TDAT_CHECK_PAGES };
	int ret = -1;

	memset(out, 0, sizeof(*out));
	err[0] = 0;
	r.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r.fd < 0)
		return fail(&r, "cannot open: %s", strerror(errno));
	if (fstat(r.fd, &st) || !S_ISREG(st.st_mode)) {
		fail(&r, "not a regular file");
		goto out;
	}
	r.size = (uint64_t)st.st_size;
	out->file_size = r.size;
	if (r.size < sizeof(head)) {
		if (r.size)
			fail(&r, "not a trace.dat file (too short: %llu bytes)", (unsigned long long)r.size);
		else
			fail(&r, "empty file");
		goto out;
	}
	if (pread_all(&r, head, sizeof(head), 0))
		goto out;
	if (memcmp(head, magic, sizeof(magic))) {
		fail(&r, "not a trace.dat file (bad magic)");
		goto out;
	}
	if (read_str(&r, &off, ver, sizeof(ver)))
		goto out;
	out->version = atoi(ver);
	if (out->version != 6 && out->version != 7) {
		fail(&r, "unsupported trace.dat version '%s' (6 and 7 are read)", ver);
		goto out;
	}
	if (pread_all(&r, b, 6, off))
		goto out;
	r.big_endian = b[0];
	out->big_endian = b[0];
	out->long_size = b[1];
	out->page_size = (unsigned)get_le(&r, b + 2, 4);
	off += 6;
	if (b[0] > 1 || (b[1] != 4 && b[1] != 8) || out->page_size < 1024 ||
	    out->page_size > (1u << 20) || (out->page_size & (out->page_size - 1))) {
		fail(&r, "bad header (endian %u, long size %u, page size %u)", b[0], b[1], out->page_size);
		goto out;
	}
	if (out->version == 7) {
		char cver[64];

		if (read_str(&r, &off, out->compression, sizeof(out->compression)) ||
		    read_str(&r, &off, cver, sizeof(cver)) || read_num(&r, &off, 8, &v))
			goto out;
		if (strcmp(out->compression, "none") && strcmp(out->compression, "zstd") &&
		    strcmp(out->compression, "zlib")) {
			fail(&r, "unknown compression '%s'", out->compression);
			goto out;
		}
		if (read_v7_options(&r, v) || check_header_sections(&r) || walk_v7_sections(&r, off))
			goto out;
	} else {
		strcpy(out->compression, "none");
		if (read_v6(&r, off))
			goto out;
	}
	if (!out->has_buffer) {
		fail(&r, "no trace data (no flyrecord buffer)");
		goto out;
	}
	if (check_overlap(&r))
		goto out;
	ret = 0;
out:
	close(r.fd);
	if (ret)
		ir_tdat_free(out);	/* nothing of a failed read is kept */
	return ret;
}

void ir_tdat_free(struct ir_tdat *t)
{
	free(t->data);
	t->data = NULL;
	t->nr_data = 0;
	free(t->meta);
	t->meta = NULL;
}

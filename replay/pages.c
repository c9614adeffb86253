/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Events straight from the per-CPU ring-buffer pages of a trace.dat, in
 * time order: each CPU's pages are read (or, zstd-compressed, decompressed)
 * a bounded chunk at a time, every page is checked (ir_tdat_check_page())
 * before libtraceevent's kbuffer walks it, and the CPUs are merged by
 * time stamp with a binary heap (ties go to the lower CPU, as
 * tracecmd_iterate_events() does).
 *
 * Why not libtracecmd for the data: 3.1.6 maps each CPU's whole data (RSS
 * grows with the trace), keeps a whole zstd trace decompressed in memory,
 * allocates per record, and trusts the pages it reads.  Here memory is a
 * few pages per CPU, whatever the trace's length.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <traceevent/kbuffer.h>
#include <zstd.h>

#include "replay/pages.h"

#define READ_PAGES 16			/* uncompressed: pages per read, at most */
#define MAX_CHUNK (64u << 20)		/* a decompressed chunk larger than this is corrupt */
/*
 * Bounds from what the file holds.  All CPUs' buffers together stay under
 * MEM_BUDGET (a CPU's buffer is freed when its data ends); uncompressed reads
 * shrink to fewer pages per CPU to fit.  Decompressed bytes stay under
 * MAX_RATIO times the compressed data plus 32 MiB: trace-cmd's zstd
 * chunks (10 pages) of real traces come out 8 to 18 times their size
 * (tests/data), while RLE blocks let a few bytes claim 128 KiB each.
 */
#define MEM_BUDGET (256u << 20)
#define MAX_RATIO 256
#define UNPACK_SLACK (32u << 20)

struct cpu_rd {
	int cpu;
	uint64_t off, end;		/* the CPU's data in the file; off advances */
	unsigned char *buf;		/* pages read or decompressed */
	size_t cap, len, pos;		/* pos: next page in buf */
	unsigned char *cbuf;		/* compressed chunk */
	size_t ccap;
	uint32_t chunks;		/* compressed chunks left */
	struct kbuffer *kb;
	unsigned char *page;		/* the page kb walks */
	unsigned char *scratch;		/* a short last page, padded to a whole one */
	bool loaded;			/* kb holds a page */
	uint64_t prev_ts;		/* last page time stamp, for the check */
	uint64_t page_no;
	long long missed;		/* for the next record */
	struct tep_record rec;		/* the CPU's next record */
	bool have;
};

struct ir_pages {
	int fd;
	const char *path;
	unsigned page_size;
	int long_size, big_endian;
	bool zstd;
	int n;
	struct cpu_rd *c;
	int *heap, nheap;		/* indices into c, by (rec.ts, cpu) */
	int pending;			/* CPU whose record was handed out, -1 none */
	uint64_t bytes;			/* file bytes consumed */
	uint64_t mem;			/* bytes in CPU buffers now */
	uint64_t unpacked, unpack_max;	/* decompressed so far, and the bound */
	size_t read_bytes;		/* uncompressed: bytes per read */
	char why[256];
};

static int fail(struct ir_pages *p, char *err, size_t errlen, const char *what, int cpu)
{
	snprintf(err, errlen, "%s: corrupt trace data: CPU %d: %s", p->path, cpu, what);
	return -1;
}

static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

static uint32_t le32(const unsigned char *b, int big)
{
	return big ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3] :
		(uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static int grow(struct ir_pages *p, unsigned char **b, size_t *cap, size_t want)
{
	unsigned char *n;

	if (want <= *cap)
		return 0;
	if (p->mem - *cap + want > MEM_BUDGET)
		return -1;
	n = realloc(*b, want);
	if (!n)
		return -1;
	p->mem = p->mem - *cap + want;
	*b = n;
	*cap = want;
	return 0;
}

static void drop(struct ir_pages *p, unsigned char **b, size_t *cap)
{
	free(*b);
	*b = NULL;
	p->mem -= *cap;
	*cap = 0;
}

/* Refill c->buf with the CPU's next pages; 0 ok, 1 no more data, -1 error. */
static int refill(struct ir_pages *p, struct cpu_rd *c, char *err, size_t errlen)
{
	c->pos = c->len = 0;
	if (!p->zstd) {
		uint64_t left = c->end - c->off;
		size_t n = left < p->read_bytes ? (size_t)left : p->read_bytes;

		if (!n) {
			drop(p, &c->buf, &c->cap);
			return 1;
		}
		if (grow(p, &c->buf, &c->cap, p->read_bytes))
			return fail(p, err, errlen, "out of memory", c->cpu);
		if (pread_full(p->fd, c->buf, n, c->off))
			return fail(p, err, errlen, "cannot read its data", c->cpu);
		c->off += n;
		c->len = n;
		p->bytes += n;
		return 0;
	}
	for (;;) {
		unsigned char h[8];
		uint32_t csz, usz;
		size_t got;

		if (!c->chunks) {
			drop(p, &c->buf, &c->cap);
			return 1;
		}
		if (c->end - c->off < 8 || pread_full(p->fd, h, 8, c->off))
			return fail(p, err, errlen, "a compressed chunk header runs past its data", c->cpu);
		csz = le32(h, p->big_endian);
		usz = le32(h + 4, p->big_endian);
		if (csz > c->end - c->off - 8 || usz > MAX_CHUNK)
			return fail(p, err, errlen, "a compressed chunk has impossible sizes", c->cpu);
		p->unpacked += usz;
		if (p->unpacked > p->unpack_max) {
			snprintf(p->why, sizeof(p->why), "its data decompresses to more than %d times its size (%llu bytes)",
				 MAX_RATIO, (unsigned long long)p->unpack_max);
			return fail(p, err, errlen, p->why, c->cpu);
		}
		if (grow(p, &c->cbuf, &c->ccap, csz ? csz : 1) || grow(p, &c->buf, &c->cap, usz ? usz : 1)) {
			snprintf(p->why, sizeof(p->why), "its compressed chunks and the other CPUs' need more than %u MiB at once",
				 MEM_BUDGET >> 20);
			return fail(p, err, errlen, p->why, c->cpu);
		}
		if (pread_full(p->fd, c->cbuf, csz, c->off + 8))
			return fail(p, err, errlen, "cannot read a compressed chunk", c->cpu);
		c->off += 8 + (uint64_t)csz;
		c->chunks--;
		p->bytes += 8 + (uint64_t)csz;
		{
			/* the frame must say the size the chunk header does, before a byte is written */
			unsigned long long fcs = ZSTD_getFrameContentSize(c->cbuf, csz);

			if (fcs == ZSTD_CONTENTSIZE_ERROR || (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != usz))
				return fail(p, err, errlen, "a compressed chunk does not decompress", c->cpu);
		}
		got = ZSTD_decompress(c->buf, usz, c->cbuf, csz);
		if (ZSTD_isError(got) || got != usz)
			return fail(p, err, errlen, "a compressed chunk does not decompress", c->cpu);
		c->len = got;
		if (got)
			return 0;
	}
}

/* Load the CPU's next non-empty page into its kbuffer; 1 when none is left. */
static int next_page(struct ir_pages *p, struct cpu_rd *c, char *err, size_t errlen)
{
	for (;;) {
		unsigned char *pg;
		size_t n;
		int r;

		if (c->pos >= c->len) {
			r = refill(p, c, err, errlen);
			if (r)
				return r;
		}
		pg = c->buf + c->pos;
		n = c->len - c->pos < p->page_size ? c->len - c->pos : p->page_size;
		c->pos += n;
		if (ir_tdat_check_page(pg, n, p->long_size, p->big_endian, &c->prev_ts, p->why, sizeof(p->why))) {
			char what[320];

			snprintf(what, sizeof(what), "data page %llu: %s", (unsigned long long)c->page_no, p->why);
			return fail(p, err, errlen, what, c->cpu);
		}
		c->page_no++;
		if (n < p->page_size) {
			/* kbuffer reads a whole page: give it a padded copy */
			if (!c->scratch) {
				if (p->mem + p->page_size > MEM_BUDGET || !(c->scratch = malloc(p->page_size)))
					return fail(p, err, errlen, "out of memory", c->cpu);
				p->mem += p->page_size;
			}
			memset(c->scratch, 0, p->page_size);
			memcpy(c->scratch, pg, n);
			pg = c->scratch;
		}
		c->page = pg;
		if (n < (size_t)(8 + p->long_size) || kbuffer_load_subbuffer(c->kb, pg))
			continue;
		c->missed = kbuffer_missed_events(c->kb);
		c->loaded = true;
		return 0;
	}
}

/* The CPU's next record into c->rec; c->have false at its end. */
static int advance(struct ir_pages *p, struct cpu_rd *c, char *err, size_t errlen)
{
	unsigned long long ts;
	void *data;

	c->have = false;
	for (;;) {
		if (c->loaded) {
			data = kbuffer_read_event(c->kb, &ts);
			if (data)
				break;
			c->loaded = false;
		}
		{
			int r = next_page(p, c, err, errlen);

			if (r < 0)
				return -1;
			if (r > 0)
				return 0;
		}
	}
	c->rec.ts = ts;
	c->rec.data = data;
	c->rec.size = kbuffer_event_size(c->kb);
	c->rec.record_size = kbuffer_curr_size(c->kb);
	c->rec.cpu = c->cpu;
	c->rec.missed_events = c->missed;
	c->missed = 0;
	/* never let a record reach past its page (checked pages keep within it) */
	{
		const unsigned char *d = data, *end = c->page + p->page_size;

		if (d < c->page || d > end)
			c->rec.size = 0;
		else if (c->rec.size < 0 || d + c->rec.size > end)
			c->rec.size = (int)(end - d);
	}
	kbuffer_next_event(c->kb, NULL);
	c->have = true;
	return 0;
}

static bool before(const struct ir_pages *p, int a, int b)
{
	const struct cpu_rd *x = &p->c[a], *y = &p->c[b];

	return x->rec.ts < y->rec.ts || (x->rec.ts == y->rec.ts && x->cpu < y->cpu);
}

static void sift_down(struct ir_pages *p, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i, t;

		if (l < p->nheap && before(p, p->heap[l], p->heap[m]))
			m = l;
		if (r < p->nheap && before(p, p->heap[r], p->heap[m]))
			m = r;
		if (m == i)
			return;
		t = p->heap[i];
		p->heap[i] = p->heap[m];
		p->heap[m] = t;
		i = m;
	}
}

bool ir_pages_usable(const struct ir_tdat *td)
{
	return td->nr_data > 0 && !td->time_shifted && (td->long_size == 8 || td->long_size == 4) &&
		(!strcmp(td->compression, "none") || !strcmp(td->compression, "zstd"));
}

int ir_pages_open(const char *path, const struct ir_tdat *td, struct ir_pages **out,
		  char *err, size_t errlen)
{
	struct ir_pages *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		goto oom;
	p->fd = -1;
	p->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		free(p);
		return -1;
	}
	p->path = path;
	p->page_size = td->page_size;
	p->long_size = td->long_size;
	p->big_endian = td->big_endian;
	p->zstd = !strcmp(td->compression, "zstd");
	p->n = td->nr_data;
	p->unpack_max = (uint64_t)MAX_RATIO * td->data_bytes + UNPACK_SLACK;
	/* pages per read: READ_PAGES, fewer when many CPUs must share the budget */
	{
		uint64_t pages = READ_PAGES;

		while (pages > 1 && (uint64_t)td->nr_data * pages * td->page_size > MEM_BUDGET / 2)
			pages /= 2;
		if ((uint64_t)td->nr_data * td->page_size > MEM_BUDGET / 2) {
			snprintf(err, errlen, "%s: %d CPUs of %u-byte pages need more than %u MiB to read at once",
				 path, td->nr_data, td->page_size, MEM_BUDGET >> 21);
			free(p);
			return -1;
		}
		p->read_bytes = (size_t)pages * td->page_size;
	}
	p->c = calloc((size_t)p->n, sizeof(*p->c));
	p->heap = calloc((size_t)p->n, sizeof(*p->heap));
	p->pending = -1;
	if (!p->c || !p->heap)
		goto oom;
	for (int i = 0; i < p->n; i++) {
		struct cpu_rd *c = &p->c[i];

		c->cpu = td->data[i].cpu;
		c->off = td->data[i].off;
		c->end = td->data[i].off + td->data[i].size;
		c->kb = kbuffer_alloc(p->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				      p->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
		if (!c->kb)
			goto oom;
		if (p->zstd) {
			unsigned char h[4];

			if (td->data[i].size) {
				if (td->data[i].size < 4 || pread_full(p->fd, h, 4, c->off)) {
					fail(p, err, errlen, "its compressed data has no chunk count", c->cpu);
					ir_pages_close(p);
					return -1;
				}
				c->chunks = le32(h, p->big_endian);
				c->off += 4;
				/* the BUFFER option's size leaves out the chunk count */
				c->end = c->end + 4 <= td->file_size ? c->end + 4 : td->file_size;
			}
		}
	}
	*out = p;
	return 0;
oom:
	snprintf(err, errlen, "%s: out of memory", path);
	ir_pages_close(p);
	return -1;
}

int ir_pages_start(struct ir_pages *p, char *err, size_t errlen)
{
	p->nheap = 0;
	p->pending = -1;
	for (int i = 0; i < p->n; i++) {
		if (advance(p, &p->c[i], err, errlen))
			return -1;
		if (p->c[i].have)
			p->heap[p->nheap++] = i;
	}
	for (int i = p->nheap / 2 - 1; i >= 0; i--)
		sift_down(p, i);
	return 0;
}

int ir_pages_next(struct ir_pages *p, struct tep_record **rec, char *err, size_t errlen)
{
	struct cpu_rd *c;

	if (!p->nheap)
		return 1;
	c = &p->c[p->heap[0]];
	if (p->pending >= 0) {
		/* the record handed out last time is done with: move its CPU on */
		struct cpu_rd *last = &p->c[p->pending];

		p->pending = -1;
		if (advance(p, last, err, errlen))
			return -1;
		if (!last->have)
			p->heap[0] = p->heap[--p->nheap];
		if (p->nheap)
			sift_down(p, 0);
		if (!p->nheap)
			return 1;
		c = &p->c[p->heap[0]];
	}
	p->pending = p->heap[0];
	*rec = &c->rec;
	return 0;
}

uint64_t ir_pages_bytes(const struct ir_pages *p)
{
	return p->bytes;
}

void ir_pages_close(struct ir_pages *p)
{
	if (!p)
		return;
	for (int i = 0; p->c && i < p->n; i++) {
		if (p->c[i].kb)
			kbuffer_free(p->c[i].kb);
		drop(p, &p->c[i].buf, &p->c[i].cap);
		drop(p, &p->c[i].cbuf, &p->c[i].ccap);
		free(p->c[i].scratch);
	}
	if (p->fd >= 0)
		close(p->fd);
	free(p->c);
	free(p->heap);
	free(p);
}

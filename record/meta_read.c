/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Read the meta option back from a trace.dat v7.  libtracecmd's reader
 * skips option ids it does not know, so we walk the option sections
 * ourselves (trace-cmd Documentation/trace-cmd/trace-cmd.dat.v7.5.txt):
 *   header: "\027\010\104tracing" "7\0" endian(1) long_size(1) page_size(4)
 *           compression name\0 version\0, u64 offset of the first section;
 *   section: u16 id (0: options), u16 flags, u32 string id, u64 size;
 *   option:  u16 id, u32 size, data; id 0 (DONE) holds the u64 offset of
 *            the next options section, 0 at the end.
 * Options sections are never compressed by libtracecmd.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record_int.h"

#define MAX_SECTIONS 64			/* a loop guard for damaged files */
#define MAX_META_SIZE (1u << 24)

struct rd {
	int fd;
	bool big;
};

static int rd_at(const struct rd *r, uint64_t off, void *buf, size_t n)
{
	return pread(r->fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

static uint64_t conv(const struct rd *r, uint64_t v, int bytes)
{
	if (bytes == 2)
		return r->big ? be16toh((uint16_t)v) : le16toh((uint16_t)v);
	if (bytes == 4)
		return r->big ? be32toh((uint32_t)v) : le32toh((uint32_t)v);
	return r->big ? be64toh(v) : le64toh(v);
}

/* Offset just past the NUL of the string at off. */
static int skip_string(const struct rd *r, uint64_t *off)
{
	char c;

	for (int i = 0; i < 256; i++) {
		if (rd_at(r, (*off)++, &c, 1))
			return -1;
		if (!c)
			return 0;
	}
	return -1;
}

static int first_section(struct rd *r, uint64_t *off)
{
	unsigned char head[10], fl[2];
	uint64_t pos = 10, v;
	char ver[2];

	if (rd_at(r, 0, head, 10) || memcmp(head, "\027\010\104tracing", 10) ||
	    rd_at(r, pos, ver, 2) || ver[0] != '7' || ver[1])
		return -1;
	pos += 2;
	if (rd_at(r, pos, fl, 2))
		return -1;
	r->big = fl[0] != 0;
	pos += 2 + 4;	/* endian, long size, page size */
	if (skip_string(r, &pos) || skip_string(r, &pos) || rd_at(r, pos, &v, 8))
		return -1;
	*off = conv(r, v, 8);
	return 0;
}

int ir_record_meta_read(const char *path, char **text, char *err, size_t len)
{
	struct rd r = { .fd = open(path, O_RDONLY | O_CLOEXEC) };
	uint64_t sec;
	int ret = -1;

	*text = NULL;
	if (r.fd < 0) {
		REC_ERR(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (first_section(&r, &sec) < 0) {
		REC_ERR(err, len, "%s: not a trace.dat version 7", path);
		goto out;
	}
	for (int n = 0; sec && n < MAX_SECTIONS; n++) {
		uint16_t id, flags, oid;
		uint32_t osize;
		uint64_t size, pos = sec + 16, end;

		if (rd_at(&r, sec, &id, 2) || rd_at(&r, sec + 2, &flags, 2) ||
		    rd_at(&r, sec + 8, &size, 8) || conv(&r, id, 2) != 0 || conv(&r, flags, 2) != 0)
			break;
		end = pos + conv(&r, size, 8);
		sec = 0;
		while (pos + 6 <= end) {
			if (rd_at(&r, pos, &oid, 2) || rd_at(&r, pos + 2, &osize, 4))
				break;
			oid = (uint16_t)conv(&r, oid, 2);
			osize = (uint32_t)conv(&r, osize, 4);
			pos += 6;
			if (oid == 0) {		/* DONE: next section */
				uint64_t next;

				if (osize == 8 && !rd_at(&r, pos, &next, 8))
					sec = conv(&r, next, 8);
				break;
			}
			if (oid == IR_META_OPTION_ID && osize > 0 && osize < MAX_META_SIZE) {
				*text = malloc(osize + 1);
				if (*text && !rd_at(&r, pos, *text, osize)) {
					(*text)[osize] = '\0';
					ret = 0;
					goto out;
				}
				free(*text);
				*text = NULL;
			}
			pos += osize;
		}
	}
	REC_ERR(err, len, "%s: no idlereplay meta option", path);
out:
	close(r.fd);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/* replay/-internal: trace.dat structure check and metadata (tdat.c). */
#ifndef IDLEREPLAY_TDAT_H
#define IDLEREPLAY_TDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Our metadata option (record/ writes it): id 'IR', NUL-terminated text. */
#define IR_TDAT_OPTION_META 0x4952
#define IR_TDAT_MAX_CPUSTAT 4096

struct ir_tdat_cpustat {
	int cpu;
	uint64_t overrun, dropped;
};

#define IR_TDAT_MAX_BUFFERS 64

/* One CPU's data in a buffer (the top one or a trace-cmd instance):
 * ring-buffer pages (or, compressed, a count of chunks and the chunks). */
struct ir_tdat_cpu_data {
	int cpu, buf;
	uint64_t off, size;
};

struct ir_tdat {
	int version, big_endian, long_size;
	unsigned page_size;
	char compression[32];
	char uname[256];
	char clock[32];
	int cpucount, buffer_cpus, has_buffer;
	uint64_t file_size, data_bytes;
	int nr_cpustat;
	struct ir_tdat_cpustat cpustat[IR_TDAT_MAX_CPUSTAT];
	char *meta;
	int nr_data;
	struct ir_tdat_cpu_data *data;	/* every buffer's; after ir_tdat_select() the chosen one's */
	int nr_buffers;			/* 0: the top buffer, then instances, in file order */
	char buffer_name[IR_TDAT_MAX_BUFFERS][64];
	uint64_t buffer_bytes[IR_TDAT_MAX_BUFFERS];
	int time_shifted;		/* OFFSET, TIME_SHIFT or TSC2NSEC options */
};

#define IR_TDAT_CHECK_PAGES 1	/* walk every uncompressed data page */

/* 0 on success; -1 with err holding what is wrong (without the path). */
int ir_tdat_read(const char *path, struct ir_tdat *out, char *err, size_t errlen);
int ir_tdat_read_flags(const char *path, struct ir_tdat *out, unsigned flags, char *err, size_t errlen);
/* One ring-buffer page (n bytes, the last may be short): committed size
 * within it, time stamp not before *prev_ts (updated), event headers ending
 * within the committed size.  0, or -1 with why. */
int ir_tdat_check_page(const unsigned char *pg, size_t n, int long_size, int big_endian,
		       uint64_t *prev_ts, char *why, size_t whylen);
/* Keep only one buffer's data: NULL picks the only buffer holding data (the
 * top one when none does); "top" or "" is the top buffer.  0, or -1 with
 * why (an unknown name, or several buffers with data: they are listed). */
int ir_tdat_select(struct ir_tdat *t, const char *name, char *err, size_t errlen);
void ir_tdat_free(struct ir_tdat *t);

#endif

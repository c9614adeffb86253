/* SPDX-License-Identifier: GPL-2.0-only */
/* replay/-internal: trace.dat structure check and metadata (tdat.c). */
#ifndef IDLEREPLAY_TDAT_H
#define IDLEREPLAY_TDAT_H

#include <stddef.h>
#include <stdint.h>

/* Our metadata option (record/ writes it): id 'IR', NUL-terminated text. */
#define IR_TDAT_OPTION_META 0x4952
#define IR_TDAT_MAX_CPUSTAT 4096

struct ir_tdat_cpustat {
	int cpu;
	uint64_t overrun, dropped;
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
};

/* 0 on success; -1 with err holding what is wrong (without the path). */
int ir_tdat_read(const char *path, struct ir_tdat *out, char *err, size_t errlen);
void ir_tdat_free(struct ir_tdat *t);

#endif

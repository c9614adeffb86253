/* SPDX-License-Identifier: GPL-2.0-only */
/* replay/-internal: events in time order straight from a trace.dat's pages (pages.c). */
#ifndef IDLEREPLAY_PAGES_H
#define IDLEREPLAY_PAGES_H

#include <stdbool.h>
#include <stdint.h>
#include <traceevent/event-parse.h>

#include "replay/tdat.h"

struct ir_pages;

/* Can this file's data be read here (top buffer known, no time-stamp
 * adjusting options, uncompressed or zstd)? */
bool ir_pages_usable(const struct ir_tdat *td);
int ir_pages_open(const char *path, const struct ir_tdat *td, struct ir_pages **out,
		  char *err, size_t errlen);
/* Prime every CPU; then ir_pages_next gives records in time order: 0 with
 * *rec (valid until the next call), 1 at the end, -1 with err. */
int ir_pages_start(struct ir_pages *p, char *err, size_t errlen);
int ir_pages_next(struct ir_pages *p, struct tep_record **rec, char *err, size_t errlen);
uint64_t ir_pages_bytes(const struct ir_pages *p);
void ir_pages_close(struct ir_pages *p);

#endif

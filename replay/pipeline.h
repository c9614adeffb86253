/* SPDX-License-Identifier: GPL-2.0-only */
/* replay/-internal: read records on one thread, decode them on another (pipeline.c). */
#ifndef IDLEREPLAY_PIPELINE_H
#define IDLEREPLAY_PIPELINE_H

#include <stdbool.h>

#include <traceevent/event-parse.h>

#include "replay/replay.h"

/* A sink for raw records in time order; non-zero means stop. */
typedef int (*ir_record_fn)(void *arg, const struct tep_record *rec);

/* Runs the whole producer loop, calling emit for each record.  Returns a
 * status (IR_OK or IR_ERR_INPUT). */
typedef int (*ir_produce_fn)(void *ctx, ir_record_fn emit, void *emit_arg);

/* produce(ctx) on a second thread; consume(arg, rec) here, in order.
 * *stopped: consume asked to stop.  Returns produce's status. */
int ir_pipeline_run(ir_produce_fn produce, void *ctx, ir_record_fn consume, void *arg, bool *stopped);

#endif

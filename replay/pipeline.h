/* SPDX-License-Identifier: GPL-2.0-only */
/* replay/-internal: decode on one thread, consume on another (pipeline.c). */
#ifndef IDLEREPLAY_PIPELINE_H
#define IDLEREPLAY_PIPELINE_H

#include <stdbool.h>

#include "replay/replay.h"

/* Runs the whole producer loop, calling emit for each event; a non-zero
 * return of emit means stop.  Returns a status (IR_OK or IR_ERR_INPUT). */
typedef int (*ir_produce_fn)(void *ctx, ir_event_fn emit, void *emit_arg);

/* produce(ctx) on a second thread; consume(arg, ev) here, in order.
 * *stopped: consume asked to stop.  Returns produce's status. */
int ir_pipeline_run(ir_produce_fn produce, void *ctx, ir_event_fn consume, void *arg, bool *stopped);

#endif

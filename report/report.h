/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/: the report stage's contract.
 *
 * In:  what replay/ observed (struct ir_observed, struct ir_trace_info) and,
 *      later, model/ tallies.
 * Out: the JSON document "idlereplay.report/1" (built in one place,
 *      report/json.c) and renderers that read only that document.
 */
#ifndef IDLEREPLAY_REPORT_H
#define IDLEREPLAY_REPORT_H

#include <stdio.h>
#include <json-c/json.h>

#include "replay/replay.h"

#define IR_REPORT_SCHEMA "idlereplay.report/1"
#define IR_REPORT_SCHEMA_MINOR 0

struct ir_event_count {
	const char *name;	/* without the system prefix */
	uint64_t count;
};

struct ir_report_input {
	const struct ir_trace_info *trace;
	const struct ir_observed *obs;
	const struct ir_state_params *params;
	const struct ir_event_count *events;
	int nr_events;
};

/* Build the document; NULL on allocation failure. */
json_object *ir_report_json(const struct ir_report_input *in);
/* Render a document as text for people. */
int ir_report_text(json_object *doc, FILE *out);
/* Write a document to path ("-" for stdout) atomically; 0 or -1 with errno. */
int ir_report_write_json(json_object *doc, const char *path);

#endif

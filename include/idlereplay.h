/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlereplay.h: the library's one public header (libidlereplay, pkg-config
 * "idlereplay").  Replay a Linux scheduler trace (trace.dat) through the
 * newidle-balance policies and get the report document, the same one
 * `idlereplay replay --json` writes (schema idlereplay.report/1, described in
 * the project's report/schema.json).
 *
 *   idlereplay *ir = idlereplay_new();
 *   idlereplay_set(ir, "policy", "baseline");      // options: see below
 *   if (idlereplay_open(ir, "trace.dat") || idlereplay_run(ir, NULL, NULL))
 *           fprintf(stderr, "%s\n", idlereplay_error(ir));
 *   else
 *           puts(idlereplay_report_string(ir));
 *   idlereplay_free(ir);
 *
 * Every call that can fail returns an idlereplay_status and leaves one line
 * (naming the file and what is wrong) in idlereplay_error().  A handle is
 * used by one thread at a time; it replays one trace once.
 */
#ifndef IDLEREPLAY_H
#define IDLEREPLAY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IDLEREPLAY_API_VERSION 1

enum idlereplay_status {
	IDLEREPLAY_OK = 0,
	IDLEREPLAY_ERR_USAGE = 1,	/* an option or its value is wrong */
	IDLEREPLAY_ERR_INPUT = 2,	/* bad input file, output path or environment */
	/* idlereplay_run(): the report was built and written, but more events
	 * were lost than "max-lost" allows (see "allow-lost") */
	IDLEREPLAY_LOST_EVENTS = 3,
};

typedef struct idlereplay idlereplay;
struct json_object;

/* The library's version, "MAJOR.MINOR.PATCH". */
const char *idlereplay_version(void);

/* A new handle with every option at its default; NULL when out of memory. */
idlereplay *idlereplay_new(void);
void idlereplay_free(idlereplay *ir);

/* The last error, one line without a program prefix ("" if none). */
const char *idlereplay_error(const idlereplay *ir);

/*
 * Set an option: name is the command line's long option without "--",
 * value its argument (NULL for flags).  Checked at once (usage errors):
 *   policies   "policy" NAME[:key=value,...] (repeatable; default: all six),
 *              "sweep" POLICY.PARAM=FROM:TO:STEP (repeatable),
 *              "reference" NAME, "kernel-policy" NAME
 *   topology   "topology" FILE|SPEC (default: the trace's, else one flat LLC)
 *   modes      "probe-seed", "migration-cost", "max-idle-balance-cost", "tick",
 *              "late-window", "newidle-lead" (durations: ns, us, ms, s)
 *   outputs    "json" FILE|-, "html" FILE|-, "decisions" FILE.jsonl,
 *              "timeline", "detail" OFFSET:LENGTH
 *   input      "buffer" NAME: the buffer to read, a trace-cmd instance's name
 *              or "top" (default: the only buffer holding events; set it
 *              before idlereplay_open()),
 *              "max-lost" PCT: lost events above this share of all events
 *              (recorded + lost) make idlereplay_run() return
 *              IDLEREPLAY_LOST_EVENTS after writing the outputs (default 1),
 *              "allow-lost": never return it
 * Options that need the trace (a reference among the replayed policies, a
 * topology that covers its CPUs) are checked by idlereplay_run().
 */
int idlereplay_set(idlereplay *ir, const char *name, const char *value);

/* Open a trace (reads its headers, not its events; the "buffer" option
 * picks which buffer's). */
int idlereplay_open(idlereplay *ir, const char *path);

/*
 * Progress, called every 65536 events: events decoded so far, and the
 * estimated total from the share of the file read (0 while unknown).
 */
typedef void idlereplay_progress_fn(void *arg, uint64_t events, uint64_t total);
/* Warnings that do not stop the run (lost events), one line each. */
typedef void idlereplay_warning_fn(void *arg, const char *line);
void idlereplay_on_warning(idlereplay *ir, idlereplay_warning_fn *fn, void *arg);

/*
 * Replay the opened trace through the policies and build the report; write
 * the outputs set with "json", "html" and "decisions".  progress may be NULL.
 * IDLEREPLAY_LOST_EVENTS: all that was done, and idlereplay_error() says how
 * many events were lost on which CPUs.
 */
int idlereplay_run(idlereplay *ir, idlereplay_progress_fn *progress, void *arg);

/*
 * Instead of a replay: from a trace with newidle probes, the distributions
 * of the parameters a replay assumes and the options they suggest; without
 * probes, the cost_scale of the recording kernel's model fitted to the
 * trace's observed newidle pulls (one replay pass over a grid of scales).
 * Schema idlereplay.calibration/1; writes the "json" output if set.
 */
int idlereplay_calibrate(idlereplay *ir, idlereplay_progress_fn *progress, void *arg);

/* The document of the last run or calibration (NULL before one): a json-c
 * object owned by the handle ... */
struct json_object *idlereplay_report(const idlereplay *ir);
/* ... or its text as the "json" output holds it (owned by the handle). */
const char *idlereplay_report_string(idlereplay *ir);

/* Write the document as "json", "text", "html" or "csv" to path ("-" is
 * standard output). */
int idlereplay_write(idlereplay *ir, const char *format, const char *path);

#ifdef __cplusplus
}
#endif

#endif

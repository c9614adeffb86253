/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay fleet: replay every trace into a directory, then merge (fleet.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/status.h"
#include "fleet/fleet.h"

struct run {
	const struct ir_fleet *f;
	struct ir_job *job;
	char **name;
	int done;
};

static void job_done(void *arg, int i)
{
	struct run *r = arg;

	(void)i;
	r->done++;
	if (r->f->on_done)
		r->f->on_done(r->f->arg, r->done, r->f->ntraces);
}

/* The trace's file name without directories and .dat; unique among the
 * first i, never "fleet" (the merged report's name). */
static char *job_name(char **names, int i, const char *trace)
{
	const char *b = strrchr(trace, '/');
	size_t len;
	char *s;

	b = b ? b + 1 : trace;
	len = strlen(b);
	if (len > 4 && !strcmp(b + len - 4, ".dat"))
		len -= 4;
	if (!len || (len == 1 && *b == '.') || (len == 2 && !strncmp(b, "..", 2)))
		b = "trace", len = 5;
	for (int k = 1;; k++) {
		bool dup = false;

		if (k == 1 ? asprintf(&s, "%.*s", (int)len, b) < 0 : asprintf(&s, "%.*s-%d", (int)len, b, k) < 0)
			return NULL;
		for (int j = 0; j < i && !dup; j++)
			dup = !strcmp(names[j], s);
		if (!dup && strcmp(s, "fleet"))
			return s;
		free(s);
	}
}

/* argv of trace i: self replay TRACE --quiet --json=... [--html=...] extra... */
static int job_argv(struct run *r, int i)
{
	const struct ir_fleet *f = r->f;
	char **av = calloc((size_t)(8 + f->nextra), sizeof(*av));
	int k = 0;

	if (!av)
		return -1;
	r->job[i].argv = av;
	av[k++] = (char *)f->self;
	av[k++] = "replay";
	av[k++] = f->traces[i];
	av[k++] = "--quiet";
	if (!(r->name[i] = job_name(r->name, i, f->traces[i])) ||
	    asprintf(&av[k++], "--json=%s/%s.json", f->dir, r->name[i]) < 0 ||
	    (f->html && asprintf(&av[k++], "--html=%s/%s.html", f->dir, r->name[i]) < 0) ||
	    asprintf((char **)&r->job[i].log, "%s/%s.log", f->dir, r->name[i]) < 0)
		return -1;
	for (int e = 0; e < f->nextra; e++)
		av[k++] = f->extra[e];
	return 0;
}

/* A report the merge refused (the same trace as an earlier one): removed,
 * with its page, so that merging every DIR/NAME.json gives fleet.txt again.
 * Only regular files this run wrote; a device or FIFO there is left. */
static void drop_refused(const struct ir_fleet *f, const char *name, char *err, size_t errlen)
{
	const char *ext[] = { "json", "html" };
	size_t n = strlen(err);

	for (int e = 0; e < (f->html ? 2 : 1); e++) {
		struct stat st;
		char *p;

		if (asprintf(&p, "%s/%s.%s", f->dir, name, ext[e]) < 0)
			return;
		if (!lstat(p, &st) && S_ISREG(st.st_mode) && !unlink(p) && e == 0 && n < errlen)
			snprintf(err + n, errlen - n, "; %s removed", p);
		free(p);
	}
}

/* Trace i's report into the merge, or its failure (the log's last line). */
static int merge_one(struct run *r, struct ir_merge *m, int i, int *failed, int *lost)
{
	const struct ir_fleet *f = r->f;
	char err[1024], *path = NULL;
	json_object *doc = NULL;
	int ok;

	/* exit 3: the report is written, only more events were lost than
	 * --max-lost allows; it is merged (the merge warns about hosts that
	 * lost events), as 'report merge DIR/NAME.json' would */
	if (r->job[i].status == 0 || r->job[i].status == IR_LOST_EVENTS) {
		if (asprintf(&path, "%s/%s.json", f->dir, r->name[i]) < 0)
			return -1;
		doc = ir_report_load(path, err, sizeof(err));
	} else {
		ir_job_last_line(r->job[i].log, err, sizeof(err));
		if (!err[0])
			snprintf(err, sizeof(err), "replay exited with status %d", r->job[i].status);
	}
	/* hosts named as 'report merge DIR/NAME.json' would name them */
	ok = doc && ir_merge_add(m, doc, path, NULL, err, sizeof(err)) == 0;
	if (doc && !ok)
		drop_refused(f, r->name[i], err, sizeof(err));
	free(path);
	json_object_put(doc);
	if (ok && r->job[i].status == IR_LOST_EVENTS) {
		(*lost)++;
		ir_job_last_line(r->job[i].log, err, sizeof(err));
		if (f->on_lost)
			f->on_lost(f->arg, f->traces[i], err);
	}
	if (ok)
		return 0;
	(*failed)++;
	if (f->on_failed)
		f->on_failed(f->arg, f->traces[i], err);
	return ir_merge_failed(m, f->traces[i], err);
}

static int write_merge(struct ir_merge *m, const char *dir, const char *file, enum ir_merge_format fmt,
		       char *err, size_t errlen)
{
	struct ir_out out = { 0 };
	char *path;
	int ret = IR_OK;

	if (asprintf(&path, "%s/%s", dir, file) < 0) {
		snprintf(err, errlen, "out of memory");
		return IR_ERR_INPUT;
	}
	if (ir_out_open(&out, path) || ir_out_close(&out, ir_merge_write(m, fmt, out.f) == 0)) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		ret = IR_ERR_INPUT;
	}
	free(path);
	return ret;
}

int ir_fleet_run(const struct ir_fleet *f, int *failed, int *lost, char *err, size_t errlen)
{
	struct run r = { .f = f };
	struct ir_merge *m = NULL;
	int ret = IR_OK;
	struct stat st;

	*failed = *lost = 0;
	if (mkdir(f->dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "%s: cannot create: %s", f->dir, strerror(errno));
		return IR_ERR_INPUT;
	}
	/* a file there: refuse it before any replay runs, in one line, rather
	 * than let every replay fail to write into it */
	if (stat(f->dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory (--out-dir: a directory, created if missing)", f->dir);
		return IR_ERR_INPUT;
	}
	r.job = calloc((size_t)f->ntraces, sizeof(*r.job));
	r.name = calloc((size_t)f->ntraces, sizeof(*r.name));
	if (!r.job || !r.name)
		goto oom;
	for (int i = 0; i < f->ntraces; i++)
		if (job_argv(&r, i))
			goto oom;
	if (ir_jobs_run(r.job, f->ntraces, f->jobs, job_done, &r)) {
		snprintf(err, errlen, "fleet: cannot start replays: %s", strerror(errno));
		ret = IR_ERR_INPUT;
		goto out;
	}
	/* merge what came out, one report at a time */
	if (!(m = ir_merge_new()))
		goto oom;
	for (int i = 0; i < f->ntraces; i++)
		if (merge_one(&r, m, i, failed, lost))
			goto oom;
	if (!(ret = write_merge(m, f->dir, "fleet.txt", IR_MERGE_TEXT, err, errlen)) &&
	    !(ret = write_merge(m, f->dir, "fleet.csv", IR_MERGE_CSV, err, errlen)))
		ret = write_merge(m, f->dir, "fleet.html", IR_MERGE_HTML, err, errlen);
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
	ret = IR_ERR_INPUT;
out:
	ir_merge_free(m);
	for (int i = 0; r.job && i < f->ntraces; i++) {
		if (r.job[i].argv) {
			free(r.job[i].argv[4]);
			if (f->html)
				free(r.job[i].argv[5]);
		}
		free(r.job[i].argv);
		free((char *)r.job[i].log);
	}
	for (int i = 0; r.name && i < f->ntraces; i++)
		free(r.name[i]);
	free(r.job);
	free(r.name);
	return ret;
}

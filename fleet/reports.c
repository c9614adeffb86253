/* SPDX-License-Identifier: GPL-2.0-only */
/* Many report files into one output, one document in memory at a time (fleet.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "fleet/fleet.h"
#include "report/util.h"

/* Each report in turn, loaded, handed to add, freed. */
static int each(char *const *files, int n, int (*add)(void *arg, int i, json_object *doc, char *err, size_t len),
		void *arg, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		char why[512];
		json_object *doc = ir_report_load(files[i], why, sizeof(why));
		int bad = !doc || add(arg, i, doc, why, sizeof(why));

		json_object_put(doc);
		if (bad) {
			snprintf(err, errlen, "%s: %s", files[i], why);
			return IR_ERR_INPUT;
		}
	}
	return IR_OK;
}

static int write_out(const char *path, int (*write)(void *arg, FILE *out), void *arg, char *err, size_t errlen)
{
	struct ir_out out = { 0 };

	if (ir_out_open(&out, path) || ir_out_close(&out, write(arg, out.f) == 0)) {
		snprintf(err, errlen, "%s: cannot write: %s", path && strcmp(path, "-") ? path : "stdout",
			 strerror(errno));
		return IR_ERR_INPUT;
	}
	return IR_OK;
}

struct merge_arg {
	struct ir_merge *m;
	char *const *files;
	const char *const *names;
	int nnames;
	enum ir_merge_format fmt;
};

static int merge_add(void *arg, int i, json_object *doc, char *err, size_t len)
{
	struct merge_arg *a = arg;

	return ir_merge_add(a->m, doc, a->files[i], i < a->nnames ? a->names[i] : NULL, err, len);
}

static int merge_write(void *arg, FILE *out)
{
	struct merge_arg *a = arg;

	return ir_merge_write(a->m, a->fmt, out);
}

int ir_fleet_merge_files(char *const *files, int n, const char *const *names, int nnames,
			 enum ir_merge_format fmt, const char *path, FILE *warn, char *err, size_t errlen)
{
	struct merge_arg a = { ir_merge_new(), files, names, nnames, fmt };
	int ret;

	if (!a.m) {
		snprintf(err, errlen, "out of memory");
		return IR_ERR_INPUT;
	}
	ir_merge_warn(a.m, warn);
	ret = each(files, n, merge_add, &a, err, errlen);
	if (!ret)
		ret = write_out(path, merge_write, &a, err, errlen);
	ir_merge_free(a.m);
	return ret;
}

struct rows_arg {
	enum ir_rows_format fmt;
	FILE *out;
	char *const *files;
	const char *const *names;
	int nnames;
	uint64_t *keys;		/* fingerprints so far, open addressing */
	int *key_file;		/* 1 + the report each came from; 0: an empty slot */
	size_t kcap;		/* a power of two, over twice the reports */
};

/* One report's rows, hosts named as 'report merge' takes --name; the same
 * trace twice is refused as merge refuses it, so that SQL over the rows
 * gives merge's totals (docs/fleet.md). */
static int rows_add(void *arg, int i, json_object *doc, char *err, size_t len)
{
	struct rows_arg *a = arg;
	json_object *t = jget(doc, "trace");
	uint64_t key = ir_trace_fingerprint(t);
	size_t s = (size_t)(key * 0x9e3779b97f4a7c15ULL) & (a->kcap - 1);

	for (; a->key_file[s]; s = (s + 1) & (a->kcap - 1))
		if (a->keys[s] == key) {
			snprintf(err, len, "the same trace as %s (%s): give each trace's report once",
				 a->files[a->key_file[s] - 1], jstr(t, "path", "?"));
			return -1;
		}
	a->keys[s] = key;
	a->key_file[s] = i + 1;
	if (ir_report_rows(doc, i < a->nnames ? a->names[i] : NULL, a->fmt, a->out)) {
		snprintf(err, len, "cannot write rows");
		return -1;
	}
	return 0;
}

struct rows_files {
	char *const *files;
	int n;
	enum ir_rows_format fmt;
	const char *const *names;
	int nnames;
	uint64_t *keys;
	int *key_file;
	size_t kcap;
	char *err;
	size_t errlen;
	int status;
};

static int rows_write(void *arg, FILE *out)
{
	struct rows_files *r = arg;
	struct rows_arg a = { r->fmt, out, r->files, r->names, r->nnames, r->keys, r->key_file, r->kcap };

	if (ir_rows_header(r->fmt, out))
		return -1;
	r->status = each(r->files, r->n, rows_add, &a, r->err, r->errlen);
	return r->status ? -1 : 0;
}

int ir_fleet_rows_files(char *const *files, int n, const char *const *names, int nnames,
			enum ir_rows_format fmt, const char *path, char *err, size_t errlen)
{
	struct rows_files r = { files, n, fmt, names, nnames, NULL, NULL, 16, err, errlen, IR_OK };
	char werr[512];
	int ret;

	while (r.kcap < 2 * (size_t)n + 2)
		r.kcap *= 2;
	r.keys = calloc(r.kcap, sizeof(*r.keys));
	r.key_file = calloc(r.kcap, sizeof(*r.key_file));
	if (!r.keys || !r.key_file) {
		free(r.keys);
		free(r.key_file);
		snprintf(err, errlen, "out of memory");
		return IR_ERR_INPUT;
	}
	ret = write_out(path, rows_write, &r, werr, sizeof(werr));
	free(r.keys);
	free(r.key_file);
	/* a bad report says which; else a failed write */
	if (r.status)
		return r.status;
	if (ret)
		snprintf(err, errlen, "%s", werr);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the report unit tests (include after cmocka.h): loading a
 * fixture document and rendering into memory. */
#ifndef IDLEREPLAY_TEST_RENDER_UTIL_H
#define IDLEREPLAY_TEST_RENDER_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "report/report.h"

static const char *fixtures;	/* set by main() from argv[1] */

static json_object *load(const char *name)
{
	char path[4096], err[256];
	json_object *doc;

	snprintf(path, sizeof(path), "%s/%s", fixtures, name);
	doc = ir_report_load(path, err, sizeof(err));
	if (!doc)
		fail_msg("%s: %s", path, err);
	return doc;
}

/* Render into memory; caller frees. */
__attribute__((noinline)) static char *render(int (*fn)(json_object *, FILE *), json_object *doc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(doc, f), 0);
	fclose(f);
	return buf;
}

#endif

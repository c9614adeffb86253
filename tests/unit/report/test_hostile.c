/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reports from other machines are data, never markup, formulas or terminal
 * commands: every string of a document is escaped in HTML, neutralised in
 * CSV (OWASP: a cell starting with = + - @ TAB CR gets a ' inside quotes),
 * and printed with control bytes as \xNN in text.  Extreme numbers render
 * without overflow (the build-asan run halts on any UBSan report).
 * Expectations are written by hand from those rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "render_util.h"

#include "report/report.h"
#include "report/util.h"

#define LEVEL "<img src=x onerror=alert(1)>,=1+1"
#define KERNEL "6.1\x1b]0;owned\x07\x1b[2J\xc2\x9b" "31m"

static void set(json_object *o, const char *k, json_object *v)
{
	assert_non_null(o);
	json_object_object_add(o, k, v);
}

/* host-a.json with hostile strings where a crafted trace or JSON puts them. */
static json_object *hostile(void)
{
	json_object *doc = load("host-a.json"), *pol = jget(doc, "policies");
	static const char *const labels[] = { "+SUM(1)", "-2+3", "@x", "\tTAB", "\rCR", "=1+2" };

	set(jget(doc, "trace"), "path", json_object_new_string("=1+2"));
	set(jget(doc, "trace"), "kernel", json_object_new_string(KERNEL));
	set(jget(doc, "trace"), "hostname", json_object_new_string("=1+2"));	/* a crafted uname */
	set(jget(jget(doc, "observed"), "anomalies"), "<script>anom</script>", json_object_new_int(5));
	json_object_array_add(jget(jget(doc, "domains"), "levels"), json_object_new_string(LEVEL));
	for (size_t i = 0; i < jlen(pol); i++) {
		json_object *p = jidx(pol, i);

		set(p, "label", json_object_new_string(labels[i % 6]));
		set(jget(jget(p, "pulls"), "by_level"), LEVEL, json_object_new_int(9));
		set(jget(p, "bails"), "<b onmouseover=x>bail", json_object_new_int(7));
	}
	return doc;
}

/* report merge of n reports (the files' names given), streamed as the CLI does. */
static int merge(json_object *const *docs, const char *const *names, int n, enum ir_merge_format fmt, FILE *f)
{
	struct ir_merge *m = ir_merge_new();
	char err[256];
	int ret;

	assert_non_null(m);
	for (int i = 0; i < n; i++)
		assert_int_equal(ir_merge_add(m, docs[i], names[i], NULL, err, sizeof(err)), 0);
	ret = ir_merge_write(m, fmt, f);
	ir_merge_free(m);
	return ret;
}

/* Another recording: merge refuses the same trace twice. */
static json_object *other_trace(json_object *doc)
{
	set(jget(doc, "trace"), "first_ts", json_object_new_int64(jint(jget(doc, "trace"), "first_ts") + 1));
	return doc;
}

static void test_html(void **state)
{
	json_object *doc = hostile();
	char *s = render(ir_report_html, doc);

	(void)state;
	assert_null(strstr(s, "<script"));
	assert_null(strstr(s, "<img"));
	assert_null(strstr(s, "<b onmouseover"));
	assert_non_null(strstr(s, "&lt;script&gt;anom&lt;/script&gt; 5"));	/* anomaly key */
	assert_non_null(strstr(s, "<th>&lt;img src=x onerror=alert(1)&gt;,=1+1</th>"));	/* level */
	assert_non_null(strstr(s, "<th>&lt;b onmouseover=x&gt;bail</th>"));	/* bail key: a column of the bails table */
	free(s);
	json_object_put(doc);
}

static void test_merge_html(void **state)
{
	json_object *docs[2] = { hostile(), other_trace(hostile()) };
	const char *names[2] = { "<script>a.json", "b.json" };
	char *m = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&m, &len);

	(void)state;
	for (int i = 0; i < 2; i++)
		set(jget(docs[i], "trace"), "hostname", json_object_new_string(i ? "<img src=x>" : ""));
	assert_int_equal(merge(docs, names, 2, IR_MERGE_HTML, f), 0);
	fclose(f);
	assert_null(strstr(m, "<script"));
	assert_null(strstr(m, "<img"));
	assert_null(strchr(m, '\x1b'));
	assert_non_null(strstr(m, "<td>&lt;script&gt;a</td>"));	/* host from the file name */
	assert_non_null(strstr(m, "<td>&lt;img src=x&gt;</td>"));		/* host from the trace */
	free(m);
	json_object_put(docs[0]);
	json_object_put(docs[1]);
}

static int has_line_with(const char *s, const char *a, const char *b)
{
	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n = strcspn(l, "\n");
		char *line = strndup(l, n);
		int ok = strstr(line, a) && (!b || strstr(line, b));

		free(line);
		if (ok)
			return 1;
	}
	return 0;
}

static void test_csv(void **state)
{
	json_object *doc = hostile();
	char *s = render(ir_report_csv, doc);
	json_object *docs[1] = { doc };
	const char *names[1] = { "a.json" };
	char *m = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	/* level names in the header: quoted (they hold a comma) */
	assert_non_null(strstr(s, ",\"pulls_" LEVEL "\","));
	assert_non_null(strstr(s, ",\"balance_cost_" LEVEL "_ns\","));
	/* formula cells: ' first, inside quotes; never a bare one after a comma */
	assert_true(has_line_with(s, "\"'=1+2\",", "\"'+SUM(1)\""));
	assert_true(has_line_with(s, "\"'=1+2\",", "\"'-2+3\""));
	assert_true(has_line_with(s, "\"'=1+2\",", "\"'@x\""));
	assert_true(has_line_with(s, "\"'=1+2\",", "\"'\tTAB\""));
	assert_non_null(strstr(s, "\"'\rCR\""));
	assert_null(strstr(s, ",=1+2"));
	assert_null(strstr(s, ",+SUM"));
	assert_null(strstr(s, ",-2+3"));
	assert_null(strstr(s, ",@x"));
	free(s);

	f = open_memstream(&m, &len);
	assert_int_equal(merge(docs, names, 1, IR_MERGE_CSV, f), 0);
	fclose(f);
	assert_true(has_line_with(m, "\"'=1+2\",", NULL));	/* host from the trace's hostname */
	assert_non_null(strstr(m, ",\"'+SUM(1):attempts\""));	/* policy label in the header */
	assert_null(strstr(m, ",=1+2"));
	free(m);
	json_object_put(doc);
}

static void test_text(void **state)
{
	json_object *doc = hostile();
	json_object *docs[2] = { doc, other_trace(hostile()) };
	const char *names[2] = { "a\x1b[2J.json", "b.json" };
	char *s = render(ir_report_text, doc), *m = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_null(strchr(s, '\x1b'));
	assert_null(strchr(s, '\x07'));
	assert_null(strchr(s, '\r'));
	assert_null(strstr(s, "\xc2\x9b"));
	assert_non_null(strstr(s, "kernel    6.1\\x1b]0;owned\\x07\\x1b[2J\\xc2\\x9b31m   clock"));
	assert_non_null(strstr(s, "\\x09TAB"));
	free(s);

	f = open_memstream(&m, &len);
	assert_int_equal(ir_report_compare(doc, names[0], doc, names[1], IR_COMPARE_TEXT, f), 0);
	assert_int_equal(merge(docs, names, 2, IR_MERGE_TEXT, f), 0);
	fclose(f);
	assert_null(strchr(m, '\x1b'));
	assert_null(strchr(m, '\x07'));
	assert_null(strchr(m, '\r'));
	assert_null(strstr(m, "\xc2\x9b"));
	assert_non_null(strstr(m, "A  a\\x1b[2J.json: =1+2, kernel 6.1\\x1b]0;owned"));
	assert_non_null(strstr(m, "\nPolicy \\x09TAB\n"));		/* merge: a policy label */
	assert_non_null(strstr(m, "  \\x0dCR: "));			/* merge: its headline */
	free(m);
	json_object_put(doc);
	json_object_put(docs[1]);
}

static void test_tsafe(void **state)
{
	char big[10000];

	(void)state;
	assert_string_equal(ir_tsafe("plain/path.dat"), "plain/path.dat");
	assert_string_equal(ir_tsafe("a\nb\x7f" "c"), "a\\x0ab\\x7fc");
	assert_null(ir_tsafe(NULL));
	memset(big, '\x1b', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	assert_true(strlen(ir_tsafe(big)) < 4096);
	assert_non_null(strstr(ir_tsafe(big), "..."));
}

/* INT64_MIN has no int64_t magnitude: 9223372036854775808 ns = 9223372036.855 s. */
static void test_extreme_numbers(void **state)
{
	char b[64];
	json_object *a = load("host-a.json"), *z = other_trace(load("host-a.json"));
	json_object *docs[2] = { a, z };
	const char *names[2] = { "a", "z" };
	json_object *cpus = jget(jget(a, "observed"), "cpus");
	char *m = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_string_equal(ir_fmt_sns(b, sizeof(b), INT64_MIN), "-9223372036.855 s");
	assert_string_equal(ir_fmt_sns(b, sizeof(b), INT64_MAX), "+9223372036.855 s");
	assert_string_equal(ir_fmt_sns(b, sizeof(b), -1500), "-1.5 us");
	assert_string_equal(ir_fmt_sns(b, sizeof(b), 0), "0");
	assert_string_equal(ir_fmt_ns(b, sizeof(b), INT64_MAX), "9223372036.855 s");

	/* A's pulls and idle lost INT64_MIN, Z's INT64_MAX: B - A is 2^64 - 1 */
	for (size_t i = 0; i < jlen(jget(a, "policies")); i++) {
		set(jget(jidx(jget(a, "policies"), i), "pulls"), "total", json_object_new_int64(INT64_MIN));
		set(jidx(jget(a, "policies"), i), "idle_lost_ns", json_object_new_int64(INT64_MIN));
		set(jget(jidx(jget(z, "policies"), i), "pulls"), "total", json_object_new_int64(INT64_MAX));
		set(jidx(jget(z, "policies"), i), "idle_lost_ns", json_object_new_int64(INT64_MAX));
	}
	/* every CPU idle INT64_MAX: the sum is 8 * (2^63 - 1) */
	for (size_t i = 0; i < jlen(cpus); i++)
		set(jidx(cpus, i), "idle_ns", json_object_new_int64(INT64_MAX));
	f = open_memstream(&m, &len);
	assert_int_equal(ir_report_compare(a, "a", z, "z", IR_COMPARE_TEXT, f), 0);
	assert_int_equal(merge(docs, names, 2, IR_MERGE_TEXT, f), 0);
	assert_int_equal(merge(docs, names, 2, IR_MERGE_CSV, f), 0);
	assert_int_equal(merge(docs, names, 2, IR_MERGE_HTML, f), 0);
	assert_int_equal(ir_report_compare(a, "a", z, "z", IR_COMPARE_CSV, f), 0);
	assert_int_equal(ir_report_compare(a, "a", z, "z", IR_COMPARE_JSON, f), 0);
	fclose(f);
	/* pulls: -9223372036854775808 -> 9223372036854775807, +18446744073709551615
	 * (printed from a double: +18446744073709551616) */
	assert_non_null(strstr(m, "-9223372036854775808 9223372036854775807 +18446744073709551616"));
	/* idle lost: "-" for a negative duration, +18446744073.710 s */
	assert_non_null(strstr(m, "+18446744073.710 s"));
	/* idle: 8 * 9223372036.855 s = 73786976294.838 s, in compare and merge */
	assert_true(has_line_with(m, "idle (CPU-time)", "73786976294.838 s"));
	assert_non_null(strstr(m, "73786976294.838 s"));
	assert_non_null(strstr(m, ",73786976294838206464,"));
	/* compare CSV: exact ends, B - A in double; JSON likewise, a number */
	assert_non_null(strstr(m, ",pulls,count,-9223372036854775808,9223372036854775807,18446744073709551616,"));
	assert_non_null(strstr(m, "\"delta\":1.8446744073709552e+19"));
	free(m);
	json_object_put(a);
	json_object_put(z);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_merge_html),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_tsafe),
		cmocka_unit_test(test_extreme_numbers),
	};

	fixtures = argc > 1 ? argv[1] : "tests/unit/report/fixtures";
	return cmocka_run_group_tests(tests, NULL, NULL);
}

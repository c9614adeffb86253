/* SPDX-License-Identifier: GPL-2.0-only */
/* Renderers on hand-written fixture documents: exact figures where it matters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "render_util.h"

#include "report/report.h"

static void test_fmt_ns(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(ir_fmt_ns(b, sizeof(b), 999), "999 ns");
	assert_string_equal(ir_fmt_ns(b, sizeof(b), 1500), "1.5 us");
	assert_string_equal(ir_fmt_ns(b, sizeof(b), 2500000), "2.50 ms");
	assert_string_equal(ir_fmt_ns(b, sizeof(b), 3000000000LL), "3.000 s");
}

static void test_text(void **state)
{
	json_object *doc = load("host-a.json");
	char *s = render(ir_report_text, doc);

	(void)state;
	assert_non_null(strstr(s, "NOTE: These are open-loop estimates"));
	assert_non_null(strstr(s, "Policies (reference: baseline)"));
	/* domain-cost avoids 1049 of baseline's 2330 pulls: 658 SMT, 329 MC, 62 NUMA */
	assert_non_null(strstr(s, "domain-cost:preset=cover     15239      804      402       75     1281     +1049"
				  "     +658     +329      +62"));
	assert_non_null(strstr(s, "no-check                    120.00 ms      112.50 ms    -30.00 ms"));
	assert_non_null(strstr(s, "Sweep: baseline, sysctl_sched_migration_cost"));
	assert_non_null(strstr(s, "precision 0.727, recall 0.800"));
	assert_non_null(strstr(s, "avg_idle relative error: median 0.004, p90 0.120"));
	assert_non_null(strstr(s, "domains   SMT: 0-1,2-3,4-5,6-7 MC: 0-3,4-7 NUMA: 0-7"));
	/* the headline's fidelity line: the fixture's 892 predicted, 811 observed, 648 matched */
	assert_non_null(strstr(s, "FIDELITY: mainline (the recording kernel's model, probed costs) predicts 892 "
				  "newidle pulls, the kernel made 811, 648 of them at the same points"));
	free(s);
	/* no observed pull: nothing to take a precision from; with assumed costs, say how to fit them */
	json_object_object_add(json_object_object_get(doc, "fidelity"), "observed_pulls", json_object_new_int(0));
	json_object_object_add(json_object_object_get(doc, "fidelity"), "costs", json_object_new_string("assumed"));
	s = render(ir_report_text, doc);
	assert_non_null(strstr(s, "FIDELITY: mainline (the recording kernel's model, assumed costs) predicts 892 "
				  "newidle pulls where the kernel made none: cannot be judged; `idlereplay calibrate`"));
	free(s);
	json_object_object_add(json_object_object_get(doc, "fidelity"), "predicted_pulls", json_object_new_int(0));
	s = render(ir_report_text, doc);
	assert_non_null(strstr(s, "predicts 0 newidle pulls where the kernel made none: nothing to judge"));
	free(s);
	json_object_put(doc);

	doc = load("host-b.json");	/* lost events, recall null */
	s = render(ir_report_text, doc);
	assert_non_null(strstr(s, "WARNING: CPU 3 lost events (overrun 12"));
	assert_non_null(strstr(s, "recall n/a"));
	free(s);
	json_object_put(doc);
}

static void test_minimal(void **state)
{
	json_object *doc = load("minimal.json");
	char *s;

	(void)state;
	s = render(ir_report_text, doc);
	assert_null(strstr(s, "Policies"));
	free(s);
	s = render(ir_report_html, doc);
	assert_non_null(strstr(s, "Migrations by cause"));
	assert_null(strstr(s, "Policy comparison"));
	free(s);
	s = render(ir_report_csv, doc);
	assert_int_equal(strchr(s, '\n') - s + 1, (long)strlen(s));	/* header only */
	free(s);
	json_object_put(doc);
}

static void test_csv(void **state)
{
	json_object *doc = load("host-a.json");
	char *s = render(ir_report_csv, doc), *line;
	int rows = 0;

	(void)state;
	assert_true(!strncmp(s, "trace,kernel,cpus,window_ns,policy,label,reference,newidle_points,attempts,pulls,"
			     "pulls_SMT,pulls_MC,pulls_NUMA,", 80));
	for (line = s; (line = strchr(line, '\n')); line++)
		rows++;
	assert_int_equal(rows, 1 + 6);
	assert_non_null(strstr(s, "\n/traces/host-a.dat,6.18.4,8,2000001000,domain-cost,domain-cost:preset=cover,"
				  "baseline,15239,14247,1281,804,402,75,49500000,272727272,"));
	free(s);
	json_object_put(doc);
}

static void test_html(void **state)
{
	json_object *doc = load("host-a.json");
	char *s = render(ir_report_html, doc);

	(void)state;
	assert_true(!strncmp(s, "<!DOCTYPE html>", 15));
	assert_null(strstr(s, "<script"));
	assert_null(strstr(s, "http://"));
	assert_null(strstr(s, "src="));
	assert_non_null(strstr(s, "migrations (count)"));
	assert_non_null(strstr(s, "idle time (ms)"));
	assert_non_null(strstr(s, "sysctl_sched_migration_cost (us)"));
	assert_non_null(strstr(s, "Detailed window"));
	assert_non_null(strstr(s, "time since trace start (s)"));
	assert_non_null(strstr(s, "</html>\n"));
	free(s);
	json_object_put(doc);
}

static void test_write_html(void **state)
{
	json_object *doc = load("host-a.json");
	char dir[] = "/tmp/ir-html-XXXXXX", path[64], bad[80];
	FILE *f;
	char head[32] = "";

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.html", dir);
	assert_int_equal(ir_report_write_html(doc, path), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(head, sizeof(head), f));
	fclose(f);
	assert_string_equal(head, "<!DOCTYPE html>\n");
	snprintf(bad, sizeof(bad), "%s/no/r.html", dir);
	assert_int_equal(ir_report_write_html(doc, bad), -1);
	unlink(path);
	rmdir(dir);
	json_object_put(doc);
}

static void test_load_errors(void **state)
{
	char path[4096], err[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/bad-notjson.json", fixtures);
	assert_null(ir_report_load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "not JSON"));
	snprintf(path, sizeof(path), "%s/bad-schema.json", fixtures);
	assert_null(ir_report_load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "unsupported schema \"other.report/1\""));
	snprintf(path, sizeof(path), "%s/no-such-file.json", fixtures);
	assert_null(ir_report_load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "cannot open"));
}

static void test_merge(void **state)
{
	json_object *docs[2] = { load("host-a.json"), load("host-b.json") };
	struct ir_merge *m = ir_merge_new();
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(ir_merge_add(m, docs[0], "a.json", "a", err, sizeof(err)), 0);
	assert_int_equal(ir_merge_add(m, docs[1], "b.json", NULL, err, sizeof(err)), 0);
	/* the same trace again, under another file name: refused */
	assert_int_equal(ir_merge_add(m, docs[0], "a-copy.json", NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "same trace as a.json"));
	assert_int_equal(ir_merge_write(m, IR_MERGE_CSV, f), 0);
	fclose(f);
	assert_true(!strncmp(buf, "host,kernel,cpus,window_ns,", 27));
	assert_non_null(strstr(buf, "\na,6.18.4,8,"));
	assert_non_null(strstr(buf, "\nb,6.19.0,8,"));	/* from the file name */
	/* newidle points 15239 and 15592: total, median (nearest rank) and p90 */
	assert_non_null(strstr(buf, "\ntotal,,16,"));
	assert_non_null(strstr(buf, ",30831,"));
	assert_non_null(strstr(buf, "\nmedian,,8,"));
	free(buf);
	/* domain-cost:preset=cover avoids 2330 - 1281 = 1049 and 2384 - 1311 = 1073 */
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(ir_merge_write(m, IR_MERGE_TEXT, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "domain-cost:preset=cover: avoids 2122 migrations"));
	assert_non_null(strstr(buf, "+1049 [+1049, +1073]"));
	free(buf);
	ir_merge_free(m);
	json_object_put(docs[0]);
	json_object_put(docs[1]);
}

static void test_progress_quiet(void **state)
{
	struct ir_progress p;

	(void)state;
	ir_progress_start(&p, "replay", "events", 100, 1);
	assert_false(p.enabled);
	ir_progress_update(&p, 50);
	assert_int_equal(p.done, 50);
	ir_progress_finish(&p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_ns),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_write_html),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_progress_quiet),
	};

	fixtures = argc > 1 ? argv[1] : "tests/unit/report/fixtures";
	return cmocka_run_group_tests(tests, NULL, NULL);
}

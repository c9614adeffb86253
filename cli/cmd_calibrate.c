/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay calibrate: parameters measured from a trace's newidle probes. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "model/model.h"
#include "replay/replay.h"
#include "report/report.h"

static const char usage[] =
	"usage: idlereplay calibrate TRACE [--topology FILE|SPEC] [--json FILE|-]\n"
	"From a trace with newidle probes (kprobe on sched_balance_newidle and its return),\n"
	"the distributions of per-level max_newidle_lb_cost, max_idle_balance_cost, newidle\n"
	"call durations and the entry-to-switch lead, and the replay options they suggest\n"
	"for traces of the same machine recorded without probes.\n";

static int feed(void *arg, const struct ir_event *ev)
{
	ir_calib_feed(arg, ev);
	return 0;
}

static json_object *stats_obj(const struct ir_calib_stats *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "n", json_object_new_int64((int64_t)s->n));
	json_object_object_add(o, "min", json_object_new_int64((int64_t)s->min));
	json_object_object_add(o, "p10", json_object_new_int64((int64_t)s->p10));
	json_object_object_add(o, "p50", json_object_new_int64((int64_t)s->p50));
	json_object_object_add(o, "p90", json_object_new_int64((int64_t)s->p90));
	json_object_object_add(o, "max", json_object_new_int64((int64_t)s->max));
	return o;
}

int cmd_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topology", required_argument, NULL, 'T' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *topo_arg = NULL, *json_path = NULL, *topo_source, *path;
	struct ir_trace *tr = NULL;
	const struct ir_trace_info *ti;
	struct ir_calib *cal = NULL;
	struct ir_calib_stats st[IR_CALIB__COUNT];
	struct ir_topology *topo = NULL;
	struct ir_domains *dom = NULL;
	json_object *doc = NULL, *stats, *sugg, *costs;
	char err[1024], opt_line[1024], policy_kv[512] = "";
	uint64_t calls;
	int o, ret;

	optind = 1;
	while ((o = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
		switch (o) {
		case 'T':
			topo_arg = optarg;
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return IR_OK;
		default:
			fputs(usage, stderr);
			return IR_ERR_USAGE;
		}
	}
	if (optind != argc - 1) {
		fputs(usage, stderr);
		return cli_fail(IR_ERR_USAGE, "calibrate: expected one TRACE argument");
	}
	path = argv[optind];
	if ((ret = ir_trace_open(path, &tr, err, sizeof(err))))
		return cli_fail(ret, "%s", err);
	ti = ir_trace_info(tr);
	if (!ti->has_probes) {
		ret = cli_fail(IR_ERR_INPUT, "%s: no newidle probes in the trace (a kprobe with avg_idle and max_idle_balance_cost fields)", path);
		goto out;
	}
	if ((ret = cli_domains(topo_arg, ti, &topo, &dom, &topo_source)))
		goto out;
	cal = ir_calib_new(ti->nr_cpus);
	if (!cal) {
		ret = cli_fail(IR_ERR_INPUT, "out of memory");
		goto out;
	}
	if ((ret = ir_trace_run(tr, feed, cal, err, sizeof(err)))) {
		ret = cli_fail(ret, "%s", err);
		goto out;
	}
	if (ir_calib_result(cal, st, &calls)) {
		ret = cli_fail(IR_ERR_INPUT, "%s: out of memory keeping probe samples", path);
		goto out;
	}

	doc = json_object_new_object();
	stats = json_object_new_object();
	sugg = json_object_new_object();
	costs = json_object_new_object();
	json_object_object_add(doc, "schema", json_object_new_string("idlereplay.calibration/1"));
	json_object_object_add(doc, "trace", json_object_new_string(path));
	json_object_object_add(doc, "kernel", json_object_new_string(ti->kernel));
	json_object_object_add(doc, "calls", json_object_new_int64((int64_t)calls));
	for (int k = 0; k < IR_CALIB__COUNT; k++)
		json_object_object_add(stats, ir_calib_name[k], stats_obj(&st[k]));
	json_object_object_add(doc, "stats", stats);

	/* sdN are the levels of each CPU's domains, lowest first: name them by CPU 0's */
	for (int l = 0; l < 3 && l < ir_domains_nr_levels(dom, 0); l++) {
		const struct ir_sched_domain *sd = ir_domains_level(dom, 0, l);
		size_t n = strlen(policy_kv);

		if (!st[IR_CALIB_SD0 + l].n)
			continue;
		json_object_object_add(costs, ir_level_name[sd->kind],
				       json_object_new_int64((int64_t)st[IR_CALIB_SD0 + l].p50));
		snprintf(policy_kv + n, sizeof(policy_kv) - n, "%s%s.max_newidle_lb_cost=%llu",
			 n ? "," : "", ir_level_name[sd->kind], (unsigned long long)st[IR_CALIB_SD0 + l].p50);
	}
	snprintf(opt_line, sizeof(opt_line), "--max-idle-balance-cost %llu --newidle-lead %llu%s%s%s",
		 (unsigned long long)st[IR_CALIB_MAX_IDLE_BALANCE_COST].p50,
		 (unsigned long long)st[IR_CALIB_LEAD].p50,
		 policy_kv[0] ? " --policy mainline:" : "", policy_kv, "");
	json_object_object_add(sugg, "max_newidle_lb_cost", costs);
	json_object_object_add(sugg, "max_idle_balance_cost",
			       json_object_new_int64((int64_t)st[IR_CALIB_MAX_IDLE_BALANCE_COST].p50));
	json_object_object_add(sugg, "newidle_lead_ns", json_object_new_int64((int64_t)st[IR_CALIB_LEAD].p50));
	json_object_object_add(sugg, "replay_options", json_object_new_string(opt_line));
	json_object_object_add(doc, "suggested", sugg);

	if (json_path && ir_report_write_json(doc, json_path)) {
		ret = cli_fail(IR_ERR_INPUT, "%s: cannot write JSON: %s", json_path, strerror(errno));
		goto out;
	}
	if (!json_path || !ir_out_is_stdout(json_path)) {
		char b[6][32];

		printf("trace   %s\nkernel  %s\nnewidle calls probed: %llu\n\n", ir_tsafe(path),
		       ti->kernel[0] ? ir_tsafe(ti->kernel) : "unknown", (unsigned long long)calls);
		printf("  %-26s %7s %10s %10s %10s %10s %10s\n", "", "n", "min", "p10", "median", "p90", "max");
		for (int k = 0; k < IR_CALIB__COUNT; k++) {
			const struct ir_calib_stats *s = &st[k];

			printf("  %-26s %7llu %10s %10s %10s %10s %10s\n", ir_calib_name[k], (unsigned long long)s->n,
			       ir_fmt_ns(b[0], 32, (int64_t)s->min), ir_fmt_ns(b[1], 32, (int64_t)s->p10),
			       ir_fmt_ns(b[2], 32, (int64_t)s->p50), ir_fmt_ns(b[3], 32, (int64_t)s->p90),
			       ir_fmt_ns(b[4], 32, (int64_t)s->max));
		}
		printf("\nSuggested for replaying this machine's traces without probes (medians):\n"
		       "  idlereplay replay TRACE %s\n", opt_line);
	}
	ret = IR_OK;
out:
	json_object_put(doc);
	ir_calib_free(cal);
	ir_domains_free(dom);
	ir_topology_free(topo);
	ir_trace_close(tr);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay calibrate: parameters measured from a trace's newidle probes. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "model/model.h"
#include "replay/replay.h"
#include "report/report.h"

static const char usage[] =
	"usage: idlereplay calibrate TRACE [--topology FILE|SPEC] [--json FILE|-]\n"
	"From a trace with newidle probes (kprobe on sched_balance_newidle and its return),\n"
	"the distributions of per-level max_newidle_lb_cost, max_idle_balance_cost, newidle\n"
	"call durations and the entry-to-switch lead, and the replay options they suggest\n"
	"for traces of the same machine recorded without probes.\n"
	"Without probes: fits the per-level costs (one scale on the defaults) of the\n"
	"model of the recording kernel to the trace's own observed newidle pulls.\n";

/* The cost_scale grid, permille: 1/8x .. 16384x the assumed defaults. */
#define NR_SCALES 18

/*
 * A trace without probes: replay the model of its kernel at every scale in
 * one pass (`idlereplay replay --sweep`), then fit (model/costfit.c).
 */
static int calibrate_unprobed(const char *path, const char *topo_arg, const char *json_path,
			      const struct ir_trace_info *ti)
{
	char dir[] = "/tmp/idlereplay-calib-XXXXXX", out[64], sweeps[NR_SCALES][96], err[256];
	char *argv[8 + 2 * NR_SCALES], opt_line[256];
	uint64_t scale[NR_SCALES];
	double pred[NR_SCALES], observed;
	struct ir_cost_fit fit;
	json_object *doc = NULL, *res = NULL, *sw, *fid;
	enum ir_policy_kind kind = ir_policy_for_trace(ti->kernel_major, ti->kernel_minor, NULL, false);
	const char *name = ir_policy_name(kind);
	int argc = 0, ret;
	static const char *const verdict[] = {
		"fitted", "lower bound only: the kernel pulled nothing",
		"upper bound: the model pulls fewer than observed even at the lowest costs",
		"no information: nothing observed and nothing predicted at any cost",
		"lower bound: the model pulls more than observed even at the highest costs",
	};

	if (!mkdtemp(dir))
		return cli_fail(IR_ERR_INPUT, "calibrate: cannot create a temporary directory: %s", strerror(errno));
	snprintf(out, sizeof(out), "%s/r.json", dir);
	argv[argc++] = "replay";
	argv[argc++] = (char *)path;
	argv[argc++] = "--quiet";
	argv[argc++] = "--json";
	argv[argc++] = out;
	if (topo_arg) {
		argv[argc++] = "--topology";
		argv[argc++] = (char *)topo_arg;
	}
	for (int i = 0; i < NR_SCALES; i++) {
		scale[i] = 125ull << i;
		snprintf(sweeps[i], sizeof(sweeps[i]), "%s%s.cost_scale=%llu:%llu:1", name,
			 kind == IR_POL_PROPORTIONAL ? ":seeds=8" : "",
			 (unsigned long long)scale[i], (unsigned long long)scale[i]);
		argv[argc++] = "--sweep";
		argv[argc++] = sweeps[i];
	}
	ret = cmd_replay(argc, argv);
	if (!ret && !(doc = ir_report_load(out, err, sizeof(err))))
		ret = cli_fail(IR_ERR_INPUT, "calibrate: %s", err);
	unlink(out);
	rmdir(dir);
	if (ret)
		return ret;
	sw = json_object_object_get(doc, "sweeps");
	observed = (double)json_object_get_int64(json_object_object_get(
		json_object_object_get(doc, "observed"), "newidle_pulls"));
	for (int i = 0; i < NR_SCALES; i++) {
		json_object *pt = json_object_array_get_idx(json_object_object_get(
			json_object_array_get_idx(sw, (size_t)i), "points"), 0);

		pred[i] = (double)json_object_get_int64(json_object_object_get(pt, "pulls"));
	}
	ir_cost_fit(scale, pred, NR_SCALES, observed, &fit);
	fid = json_object_object_get(doc, "fidelity");
	snprintf(opt_line, sizeof(opt_line), "--policy %s:cost_scale=%.0f", name, fit.scale);

	res = json_object_new_object();
	json_object_object_add(res, "schema", json_object_new_string("idlereplay.calibration/1"));
	json_object_object_add(res, "trace", json_object_new_string(path));
	json_object_object_add(res, "kernel", json_object_new_string(ti->kernel));
	json_object_object_add(res, "method", json_object_new_string("observed_pulls"));
	json_object_object_add(res, "policy", json_object_new_string(name));
	json_object_object_add(res, "observed_pulls", json_object_new_double(observed));
	json_object_object_add(res, "newidle_points", json_object_get(json_object_object_get(fid, "points")));
	{
		json_object *g = json_object_new_array();

		for (int i = 0; i < NR_SCALES; i++) {
			json_object *x = json_object_new_object();

			json_object_object_add(x, "cost_scale", json_object_new_int64((int64_t)scale[i]));
			json_object_object_add(x, "predicted_pulls", json_object_new_double(pred[i]));
			json_object_array_add(g, x);
		}
		json_object_object_add(res, "grid", g);
	}
	json_object_object_add(res, "status", json_object_new_string(verdict[fit.status]));
	json_object_object_add(res, "cost_scale", fit.scale < 0 ? NULL : json_object_new_double(fit.scale));
	json_object_object_add(res, "cost_scale_lo", fit.lo < 0 ? NULL : json_object_new_double(fit.lo));
	json_object_object_add(res, "cost_scale_hi", fit.hi < 0 ? NULL : json_object_new_double(fit.hi));
	if (fit.scale >= 0)
		json_object_object_add(res, "replay_options", json_object_new_string(opt_line));
	ret = IR_OK;
	if (json_path && ir_report_write_json(res, json_path))
		ret = cli_fail(IR_ERR_INPUT, "%s: cannot write JSON: %s", json_path, strerror(errno));
	if (!ret && (!json_path || strcmp(json_path, "-"))) {
		char a[32], b[32];

		printf("trace   %s\nkernel  %s (modelled by %s)\nno newidle probes: costs fitted to the trace's own "
		       "%.0f observed newidle pulls\n\n  cost_scale  predicted pulls\n", path,
		       ti->kernel[0] ? ti->kernel : "unknown", name, observed);
		for (int i = 0; i < NR_SCALES; i++)
			printf("  %9.3fx  %.1f\n", (double)scale[i] / 1000, pred[i]);
		printf("\n%s", verdict[fit.status]);
		if (fit.scale >= 0) {
			snprintf(a, sizeof(a), "%.3gx", fit.lo / 1000);
			snprintf(b, sizeof(b), "%.3gx", fit.hi / 1000);
			if (fit.status == 0)
				printf(": cost_scale %.3gx the assumed defaults (1-sigma range %s to %s)\n",
				       fit.scale / 1000, fit.lo < 0 ? "?" : a, fit.hi < 0 ? "unbounded" : b);
			else
				printf(": cost_scale %s %.3gx the assumed defaults\n",
				       fit.status == 2 ? "at most" : "at least", fit.scale / 1000);
			printf("Suggested (costs calibrated on these pulls, not measured):\n  idlereplay replay TRACE %s\n",
			       opt_line);
		} else {
			printf("\n");
		}
	}
	json_object_put(doc);
	json_object_put(res);
	return ret;
}

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
		ret = calibrate_unprobed(path, topo_arg, json_path, ti);
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
	if (!json_path || strcmp(json_path, "-")) {
		char b[6][32];

		printf("trace   %s\nkernel  %s\nnewidle calls probed: %llu\n\n", path,
		       ti->kernel[0] ? ti->kernel : "unknown", (unsigned long long)calls);
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

/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay replay (and simulate): options -> engine -> report on stdout. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "include/idlereplay.h"
#include "report/report.h"

static const char usage[] =
	"usage: idlereplay replay TRACE [options]\n"
	"  --json FILE|-            write the JSON report (schema " IR_REPORT_SCHEMA ")\n"
	"  --migration-cost NS      sysctl_sched_migration_cost for task_hot() (default: from the trace, else 500us)\n"
	"  --max-idle-balance-cost NS  rq->max_idle_balance_cost; avg_idle is capped at twice it (default 500us)\n"
	"  --tick NS                one jiffy, 1/HZ (default: from the trace's CONFIG_HZ, else 4ms)\n"
	"  --balance-interval NS    assumed: the top domain's sd->balance_interval for periodic and NOHZ\n"
	"                           idle balance, which rewrite rd->overload unseen (default: its\n"
	"                           max_interval, 2ms per CPU)\n"
	"  --busy-factor N          sd->busy_factor: a group with no idle CPU balances every interval * N\n"
	"                           less one jiffy (default 16)\n"
	"  --newidle-lead NS        newidle entry (idle_stamp) precedes its switch by this much (default 0;\n"
	"                           `idlereplay calibrate` measures it where probes exist)\n"
	"  --lookahead-max NS       probed mode: each level of a newidle walk reads the runqueues as of entry +\n"
	"                           the levels' max_newidle_lb_cost so far, bounded by the call's duration\n"
	"                           and by this (default 100ms; 0: every level at entry)\n"
	"  --lookahead-share PCT    ... and by this share of the call's duration (default: the median share\n"
	"                           before the pull in the trace's probed pulling calls, from 8 of them)\n"
	"  --probe-seed             probed mode: take the avg_idle cap, each CPU's first avg_idle, idle_stamp\n"
	"                           and per-level max_newidle_lb_cost from newidle probes in the trace\n"
	"  --decisions FILE|-       one JSON line per newidle point: state, every policy's decision and\n"
	"                           outcome, and the probed truth where there is one\n"
	"  --topology FILE|SPEC     the machine's topology (default: the one recorded in the trace, else one flat LLC)\n"
	"  --policy NAME[:k=v,...]  replay this policy (repeatable; default: all): baseline, domain-cost,\n"
	"                           no-check, mainline, bump, proportional; e.g. domain-cost:preset=cover,\n"
	"                           mainline:mc.max_newidle_lb_cost=30us\n"
	"  --sweep POLICY.PARAM=FROM:TO:STEP  also replay POLICY at every value of PARAM, in the same pass\n"
	"                           e.g. baseline.sysctl_sched_migration_cost=0:1ms:100us\n"
	"  --reference NAME         the policy others are compared with (default baseline)\n"
	"  --kernel-policy NAME     the policy that models the recording kernel, for fidelity\n"
	"                           (default: from the trace's kernel release and sched features)\n"
	"  --html FILE|-            write the HTML report (one self-contained file, with timelines)\n"
	"  --perfetto FILE|-        write the replay as a Trace Event JSON trace (ui.perfetto.dev)\n"
	"  --timeline               keep per-CPU timelines in the JSON (busy share, newidle points, pulls)\n"
	"  --detail OFFSET:LENGTH   the timeline's detailed window, from the trace start\n"
	"                           (default: the busiest 20ms of newidle points)\n"
	"  --buffer NAME            read this buffer: a trace-cmd instance's name, or top\n"
	"                           (default: the only buffer holding events)\n"
	"  --max-lost PCT           lost events above this share of all events make the exit\n"
	"                           status 3, after the report is written (default 1)\n"
	"  --allow-lost             exit 0 whatever the share of lost events\n"
	"  --closed-loop            also re-simulate the workload under every policy (as `simulate`)\n"
	"  --refill NS              closed loop: cache refill a migrated task pays per domain level\n"
	"                           boundary crossed (default 5us)\n"
	"  --no-sync-wakeups        closed loop: no wakeup is WF_SYNC (default: every wakeup a task\n"
	"                           issues is, as pipe and socket data wakeups are)\n"
	"  --sim-seeds N            closed loop: simulate a randomised policy (NI_RANDOM) with N seeds\n"
	"                           and report the means and the 5-95 % spread (default 8; 1: one run)\n"
	"  --idle-exit median|trace closed loop: an idle CPU runs its wakee after a latency drawn from\n"
	"                           the trace's own wakeups of idle CPUs (trace, default), or their median\n"
	"  --perfetto-sim-max N     closed loop with --perfetto: each policy's simulated schedule is a\n"
	"                           process of the export, at most N records (slices, newidle calls,\n"
	"                           migrations) each; otherData.simulated counts the rest (default 100000)\n"
	"  --quiet                  no text report on stdout, no progress on stderr\n"
	"Durations accept ns, us, ms, s suffixes.  Exit: 0 ok, 1 usage, 2 bad input,\n"
	"3 report written but too many events lost (--max-lost).\n";

/* Every option but --quiet and --help goes to the engine under its name. */
static const struct option opts[] = {
	{ "json", required_argument, NULL, 'j' },
	{ "migration-cost", required_argument, NULL, 'm' },
	{ "max-idle-balance-cost", required_argument, NULL, 'B' },
	{ "tick", required_argument, NULL, 't' },
	{ "balance-interval", required_argument, NULL, 'I' },
	{ "busy-factor", required_argument, NULL, 'U' },
	{ "late-window", required_argument, NULL, 'L' },
	{ "probe-seed", no_argument, NULL, 'P' },
	{ "newidle-lead", required_argument, NULL, 'N' },
	{ "lookahead-max", required_argument, NULL, 'W' },
	{ "lookahead-share", required_argument, NULL, 'w' },
	{ "decisions", required_argument, NULL, 'D' },
	{ "html", required_argument, NULL, 'H' },
	{ "perfetto", required_argument, NULL, 'F' },
	{ "timeline", no_argument, NULL, 'l' },
	{ "detail", required_argument, NULL, 'd' },
	{ "topology", required_argument, NULL, 'T' },
	{ "policy", required_argument, NULL, 'p' },
	{ "sweep", required_argument, NULL, 'S' },
	{ "reference", required_argument, NULL, 'r' },
	{ "kernel-policy", required_argument, NULL, 'K' },
	{ "buffer", required_argument, NULL, 'b' },
	{ "max-lost", required_argument, NULL, 'X' },
	{ "allow-lost", no_argument, NULL, 'A' },
	{ "closed-loop", no_argument, NULL, 'C' },
	{ "refill", required_argument, NULL, 'R' },
	{ "no-sync-wakeups", no_argument, NULL, 'Y' },
	{ "perfetto-sim-max", required_argument, NULL, 'M' },
	{ "sim-seeds", required_argument, NULL, 'Z' },
	{ "idle-exit", required_argument, NULL, 'E' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_replay(int argc, char **argv)
{
	return cli_replay(argc, argv, "replay", usage, false);
}

int cli_replay(int argc, char **argv, const char *cmd, const char *help, bool closed_loop)
{
	const char *json = NULL, *html = NULL, *decisions = NULL, *perfetto = NULL;
	char err[1024];
	struct cli_progress progress;
	bool quiet = false;
	idlereplay *ir = idlereplay_new();
	int o, ret;

	if (!ir)
		return cli_fail(IR_ERR_INPUT, "out of memory");
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":j:qh", opts, NULL)) != -1) {
		const struct option *opt = cli_option(opts, o);

		if (o == 'q') {
			quiet = true;
		} else if (o == 'h') {
			idlereplay_free(ir);
			fputs(help, stdout);
			return IR_OK;
		} else if (!opt) {
			idlereplay_free(ir);
			return cli_bad_option(cmd, o, argc, argv);
		} else if (idlereplay_set(ir, opt->name, opt->has_arg ? optarg : NULL)) {
			ret = cli_fail(IR_ERR_USAGE, "%s: %s", cmd, idlereplay_error(ir));
			idlereplay_free(ir);
			return ret;
		} else {
			json = o == 'j' ? optarg : json;
			html = o == 'H' ? optarg : html;
			decisions = o == 'D' ? optarg : decisions;
			perfetto = o == 'F' ? optarg : perfetto;
		}
	}
	if ((ret = cli_one_stdout(cmd, (const char *[]){ "--json", json, "--html", html,
							      "--decisions", decisions, "--perfetto", perfetto,
							      NULL }))) {
		idlereplay_free(ir);
		return ret;
	}
	if ((ret = cli_trace_arg(cmd, argc, argv))) {
		idlereplay_free(ir);
		return ret;
	}
	if (closed_loop)
		idlereplay_set(ir, "closed-loop", NULL);
	idlereplay_on_warning(ir, cli_warning, NULL);
	if (!(ret = idlereplay_open(ir, argv[optind]))) {
		cli_progress_start(&progress, argv[optind], quiet);
		ret = idlereplay_run(ir, cli_progress_update, &progress);
		cli_progress_finish(&progress);
	}
	/* too many lost events: the report is written all the same, then the
	 * reason for exit 3 (kept: writing the text clears the error) */
	snprintf(err, sizeof(err), "%s", idlereplay_error(ir));
	if ((!ret || ret == IR_LOST_EVENTS) && !quiet && !ir_out_is_stdout(json) &&
	    !ir_out_is_stdout(html) && !ir_out_is_stdout(decisions) &&
	    !ir_out_is_stdout(perfetto))
		idlereplay_write(ir, "text", "-");
	if (ret)
		cli_fail(ret, "%s", err);
	idlereplay_free(ir);
	return ret;
}

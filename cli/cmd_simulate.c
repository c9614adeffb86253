/* SPDX-License-Identifier: GPL-2.0-only */
/* idlereplay simulate: replay --closed-loop under its own name. */
#include <stdbool.h>

#include "cli/cli.h"
#include "report/report.h"

static const char usage[] =
	"usage: idlereplay simulate TRACE [options]\n"
	"Re-simulates the trace's workload (per task its CPU bursts, the wakeups and forks it\n"
	"issued, its blocks) under every policy and sweep point, closed loop, beside the\n"
	"open-loop replay; the recording kernel's own policy is checked against the trace\n"
	"(closed_loop_fit).  Takes every `replay` option (see `idlereplay help replay`), and:\n"
	"  --policy NAME[:k=v,...]  simulate this policy (repeatable; default: all)\n"
	"  --sweep POLICY.PARAM=FROM:TO:STEP  and every point of this sweep, in the same run\n"
	"  --refill NS              cache refill a migrated task pays per domain level boundary\n"
	"                           crossed (default 5us)\n"
	"  --no-sync-wakeups        no wakeup is WF_SYNC (default: every wakeup a task issues is,\n"
	"                           as pipe and socket data wakeups are; futex and timer ones are not)\n"
	"  --sim-seeds N            simulate a randomised policy (NI_RANDOM) with N seeds and report\n"
	"                           the means and the 5-95 % spread (default 8; 1: one run)\n"
	"  --idle-exit median|trace an idle CPU runs its wakee after a latency drawn from the trace's\n"
	"                           own wakeups of idle CPUs (trace, default), or their median\n"
	"  --migration-cost NS      the recording kernel's sysctl_sched_migration_cost\n"
	"                           (default: from the trace, else 500us)\n"
	"  --json FILE|-            the JSON report, as for replay\n"
	"  --html FILE|-            the HTML report, as for replay\n"
	"  --topology FILE|SPEC     as for replay\n"
	"  --quiet                  no text report, no progress\n"
	"Figures are withheld when under 90 % of the trace's wakeups are explained.\n"
	"Exit: 0 ok, 1 usage, 2 bad input, 3 report written but too many events lost.\n";

int cmd_simulate(int argc, char **argv)
{
	return cli_replay(argc, argv, "simulate", usage, true);
}

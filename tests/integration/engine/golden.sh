#!/usr/bin/env bash
# Byte-identical reports across the engine refactor (issue 12).
#
# Replays every trace in tests/data with a fixed set of option lines and
# hashes every output (JSON, text, HTML, decisions, report renderings,
# compare, merge, calibrate) with sha256.  golden.sha256 beside this script
# was generated from the binary *before* the engine/ split (commit 905d04e,
# cli/cmd_replay.c still wiring the stages) with
#     tests/integration/engine/golden.sh --update build/cli/idlereplay
# run from the source root; the test re-runs the same lines with the built
# binary and diffs the lists.  Paths are given relative to the source root
# so that no absolute path reaches a report; nothing here embeds a time.
# A change that means to alter a report regenerates the list in the same
# commit, with the binary before and after compared by hand.  So far: the
# four calibrate outputs (issue 11: its suggested replay options name the
# levels from the topology and carry --topology and every policy); every
# replay, report, compare and merge output was still the pre-refactor one.
# Then regenerated on purpose: safety-out (hostile strings escaped, outputs),
# safety-trace (lost-events wording), fid-replay (SPEC 9 reconstruction:
# no late points, ttwu_pending, re-entry points, missing_idle_entry), and
# the text report's "assumed" line (issue 11: assumptions and mode), and
# ground_truth.kernel_pulls counting every probed call that pulled.
# Then branch fid-model (via land-fm, issue 15): load_balance() per level
# on a runqueue snapshot, probed costs for every policy, the ttwu_pending
# bail, moved tasks, seeds and the fidelity costs/verdict (schema_minor 3),
# --decisions lines with arrival_ns, ttwu_pending and moved; the probed and
# calibrate outputs (refused --late-window, probed calibration) unchanged.
# Then the landing of branch eco (issue 14, land-eco), on purpose: JSON
# reports carry trace.hostname (schema_minor 3, "" when unknown), text and
# HTML reports start with a headline per policy (fidelity and ground truth
# summed up under it) and the text prints parameters once with units, HTML
# bars carry value labels and SVGs shrink to the page, compare shows rates
# per second, merge is the streamed per-policy fleet summary (median/p10/p90,
# outliers, avoided/traded/net columns), report --format csv is the
# long-format rows (the old table is csv-wide).  Decisions, calibrate and
# exit statuses did not change.  Each changed output was diffed against
# main's binary (f7dedff) before the list was regenerated.
# Then both merged (integ): the union of the two changes above; then a
# randomised policy's by-level attempts, pulls, moved and cost became the
# seeds' means apportioned to the total (they add up to it), and the rows
# and CSV gained bails_ttwu_pending.
# Then schema_minor 4 (queued_not_picked: a switch to idle empties the
# CPU's queue; without probes no point where the CPU switched to a task it
# did not pull: host-hackbench 498 -> 474 points, host-pipe 30597 -> 39534;
# the vm traces' reports change only in schema_minor and the new key).
# Then recon, merged onto both (rd->overload rewrites: newidle walks, periodic/NOHZ rate;
# the assumptions' balance interval and busy factor, schema_minor 4).
# Then issue 13's closed loop (branch sim): schema_minor 4 (JSON and the
# HTML's schema line change, nothing else; diffed against main's binary).
# Then branch eco2 (issue 14, timelines): without --detail the detailed
# window is the busiest 20 ms of newidle points, not the 20 ms from the
# first one; the HTML timeline paragraph says so.  Checked by script against
# the binary before (8f170a5): in the 56 changed outputs (r.json, stdout.json,
# r.html, report.html) only timeline.detail and the timeline section differ;
# with --detail only that sentence; text, CSV, decisions, compare, merge and
# calibrate are unchanged.
# Then branch fm2 (issue 15), on purpose: ground_truth of randomised models
# gives expected_pulls (mean, 5-95 % over seeds), predicted_pulls is that
# mean rounded and pull precision/recall are of the means (JSON, and one
# text line); load_balance() takes find_busiest_queue()'s busiest-by-util
# for migrate_util and v5.10's count-based spreading inside an LLC, which
# changes the figures of the v5.19-rule policies (mainline, bump,
# proportional) and the fidelity section.  Checked against the branch base
# (8f170a5) on vm-numa/a and host-hackbench: baseline, domain-cost and
# no-check (v4.15 rules) unchanged, only those keys differ.
# Then issue 13's closed loop re-landed on that main (branch sim2, after
# main's revert of sim): regenerated with --update, the list came out
# identical: no line here runs simulate or --closed-loop, and the workload
# extraction's queue rule changes only closed-loop figures.
# Then branch eco3 (issue 14, timelines and charts), on purpose: schema_minor
# 5, timeline.policies (each policy's pulls per column) and
# timeline.anomalies (totals and bounded positions); the HTML draws them and
# prints parameters once with units, log scales, ids and data values.
# Checked by script: the 84 changed outputs are r.html, report.html, r.json
# and stdout.json; every JSON, with schema_minor 4 and the two new timeline
# keys removed, has the hash of the list before (44 of 44); text, CSV,
# decisions, compare, merge and calibrate are unchanged.  Then merge names
# hosts that share a name apart (the vm-ab reports have no hostname and are
# all r.json: their rows were eight "r", now "hb_mc0_1.default/r" ...):
# only fleet/merge.text and fleet/merge.csv changed.
# Then branch eco4 (issue 14): the sweep line charts carry ids, data-scale,
# data-c and their points' values, and a symmetric log axis where values
# differ a hundredfold; only the 16 HTML outputs of the vm-ab sweep cases
# (r.html, report.html) changed; then compare's relative-change column got
# its heading "(B-A)/A": only fleet/compare.text and compare-sweep.text.
# Then branch fidm (issue 15), on purpose: detach_tasks() for migrate_load
# by release (v5.10: a newidle balance moves a task only when the imbalance
# holds its whole load).  Only the sweep case's outputs (and the fleet files
# built from them) change; diffed against the branch base's binary (f23f2d6)
# on hb_ni_1: only the proportional policy's figures, its seeds and the
# ground truth/fidelity built from them differ; baseline, domain-cost and
# mainline unchanged.
# Then the integration merge of sim2, eco3, mut2 and fidm: regenerated with
# --update; the sweep cases (hb_*.sweep) carry both eco3's timeline keys and
# fidm's v5.10 migrate_load rule, so their JSON/HTML differ from either
# branch's list; nothing else differs from the union of the two.
# Then branch fidr (issue 15), on purpose: assumptions.overload_tick_ns is
# renamed jiffy_ns (schema_minor 5; JSON reports and the HTML's schema
# line), decisions lines carry overload_why, and a probed newidle walk's
# top-level rewrite counts only its share after the last rq left 2 during
# it (probed vm reports: overload and early-bail figures and the points
# whose flag changed).
# Then fidr (jiffy_ns renamed from overload_tick_ns, overload_why, the
# top-level scan within the walk): regenerated on the merge.
# Then branch fidr2 (issue 15), on purpose: decisions lines carry
# overload_p (the probability the replay gives rd->overload).  Only the 21
# d.jsonl files changed; checked by script against the branch base's binary
# (7df8e34) on hb_mc5ms_3 and vm-numa/d: with overload_p removed, every line
# is the same.
# Then branch lead: assumptions.overload_tick_ns written again beside
# jiffy_ns as a deprecated alias of the same value (a key is removed only at
# a schema major change): every JSON report, and every HTML page that
# embeds its JSON, gains that one key.  The fidelity headline and the
# fidelity section say "N of them at the same points" instead of "both N",
# and with no observed pull the headline says it cannot be judged: text and
# HTML outputs with a fidelity section change, JSON does not.
# Then branch fidl (issue 15), on purpose: a 6.18 kernel from 6.18.5 carries
# the stable backport of NI_RANDOM, so the host traces' (6.18.44) recording
# kernel is modelled by proportional instead of bump: only the 18 host-*
# outputs change (their fidelity policy and figures); the look-ahead acts in
# probed mode only, which no line here reaches (the .probed lines stop at
# --late-window).  Then every JSON report (and the HTML that embeds it)
# gains assumptions.lookahead_max_ns, lookahead_share_pct and
# lookahead_truncated (schema_minor 6): r.json, stdout.json, r.html and
# report.html of the 21 replay cases; text, CSV and decisions unchanged.
# Then the integration merge of sim3, eco4, fidr2 and fidl: regenerated with
# --update on the merge (eco4's sweep charts, fidr2's overload_p, fidl's look-ahead keys, lead's
# keys and headline together).
# Then branch fidp (issue 15), on purpose: two v6.1 load_balance() rules,
# allow_numa_imbalance() as running <= imb_numa_nr and imbalance_pct 117 at
# DIE/NUMA levels from v5.10: the vm-* traces' policy decisions and figures
# change (57 outputs); host-* traces (no NUMA level) do not.
# eco6 (new-user pass): the headline says the idle traded and the net effect
# in words ("245.2 us more idle", "net 225.2 us worse than baseline"), and the
# HTML's early bails moved to a table of their own: text and HTML outputs
# regenerated with --update; JSON, CSV and decisions unchanged.
# Then the integration merge of simr, sims, fido, fidp, mut4 and eco6: regenerated
# with --update on the merge (both header notes above hold together).
# Then branch fid5 (issue 15), on purpose: four v6.1 inputs of
# load_balance() (group_runnable in group_classify(), v5.7; UTIL_EST in
# cpu_util()/task_util_est(), v4.17; PELT load_avg for cpu_load() and
# task_h_load(), v5.7; exec_start = 0 after a migration,
# migrate_task_rq_fair()).  Every JSON report (and the HTML that embeds it,
# the text's assumptions line) carries the new assumptions.load_balance_inputs
# wording; the policies' figures, decisions and fidelity sections change
# where a decision changed (168 outputs).  Checked by script against the
# branch base's binary (1e1a640) on host-hackbench, vm-numa/a and hb_ni_1:
# besides that string only decision-derived keys differ (pulls, moved,
# idle recovered/lost, attempts, costs, seeds, ground truth and fidelity);
# the v4.15-rule policies (baseline, domain-cost, no-check) change only
# through the exec_start reset (hb_ni_1: 128 -> 131 pulls each; host-
# hackbench baseline and domain-cost unchanged).
# Then eco7 (issue 14 audit), on purpose: an HTML bar's value label keeps two
# significant digits below 0.1 of its unit (0.0024 ms was labelled "0",
# 0.0052 ms "0.01"): r.html and report.html of host-hackbench.default,
# host-hackbench.knobs, hb_ni_1.default, hb_ni_1.sweep and
# d_idle_periodic_wakers.default (10 outputs); diffed against the binary
# before: only those <text class="val"> labels differ.
# Then a migrating task's util_avg and load_avg move from its source CPU to
# the destination (branch fid5, migrate_task_rq_fair() ->
# remove_entity_load_avg(), attach at enqueue): the CPUs' util_avg and
# runnable_avg in every snapshot change, and with them decisions and
# figures (140 outputs: the vm-ab cases and vm-numa/a.default; host-*,
# vm-numa/d and the .probed lines unchanged; the assumptions string is as
# in the note above).
# Then the integration merge of fid5, sim5, eco7 and mut5: regenerated with
# --update on the merge (the header notes above hold together).
# Then --no-sync-wakeups (issue 13): closed_loop_fit.params.sync_wakeups
# and the WF_SYNC assumption's wording in every simulate output, and
# schema_minor 7 in every JSON report (and the HTML's schema line); the
# default schedule and every figure unchanged.
# Then branch fid6 (issue 15), on purpose: sd->imb_numa_nr as
# build_sched_domains() computes it over the domains before degeneration
# (v5.19): on the guest's topology the DIE level (the node, one LLC) gives
# max(1, 4 >> 3) = 1 at NUMA, not the 2 LLCs counted over the surviving MC
# child.  Only the vm-ab sweep cases (the lines with --topology) change, 41
# outputs; checked against main's binary (7f32760) on hb_ni_1.sweep: only
# the proportional and mainline policies' NUMA pulls and what derives from
# them differ (pulls, moved, idle recovered/lost/traded, seeds, ground truth,
# fidelity); baseline and domain-cost (v4.15 rules) unchanged.
# Then the closed loop's seeds (branch simfid, issue 13/15): schema_minor 8
# (closed_loop rows gain seeds, closed_loop_fit gains simulated_seeds,
# params.sim_seeds and params.probed_walk_ns), which no line here reaches
# (none runs simulate or --closed-loop): only schema_minor in the 21
# r.json and stdout.json and the HTML's schema line in r.html and
# report.html changed (84 outputs).  Checked against the branch base's
# binary (1f2ff4e) on hb_ni_1 with a sweep: the JSON with schema_minor put
# back is byte-identical, the text identical, the HTML differs in that line.
# Regenerated on the merge of fid6, rec6, simmem and simfid (integ): the 41
# vm-ab sweep outputs fid6 changed (above) on top of simfid's schema_minor 8;
# rec6 (probed-mode overload) and simmem (the spilled workload) change no
# output here.  Diffed before the update: only those 41 lines differed.
# Then branch rec7 (issue 15), on purpose: periodic/NOHZ top-level rewrites
# of rd->overload come once per balance interval at an unknown phase
# (rebalance_domains(), v6.1: strictly periodic, sd->last_balance), not at a
# Poisson rate: the flag reads clear where prod (1 - x_g) < 1/2 instead of
# exp(-sum x_g) < 1/2, a little sooner.  84 outputs of 10 cases (the
# .default and .sweep cases where a flag moved, host-pipe.default among
# them: 6.18's sched_balance_domains() keeps the rule; and the fleet files
# built from them).  Diffed against main's binary (b01efef) on hb_ni_1,
# host-hackbench (no change) and vm-numa/d (.default): only the overload,
# overload_p and overload_why of 2 decision lines and the policies' bails,
# attempts and costs derived from them (10 lines), and the JSON figures
# built from those, differ.
# Regenerated for wakelag (issue 13, the frozen run's check on a held-out
# trace): the replay counts a CPU first seen late as idle while others wait
# from the window's start, as its idle time already was (first_sight()).
# Only observed.idle_while_waiting_ns moved (and the text, HTML, merge and
# compare lines that print it): 112 outputs, checked field by field against
# main's binary (b01efef) on hb_mc0_3, where it is the one JSON difference.
# Regenerated on the merge of rec7, simwait and wakelag (integ): the union
# of the two notes above (simwait changes no output here).
# Regenerated for snap32 (issue 13/15): a runqueue snapshot holds
# IR_SNAP_TASKS = 32 queued tasks (detach_tasks()'s loop_max bound,
# sysctl_sched_nr_migrate), not 8.  Only host-hackbench's outputs moved (its
# queues exceed 8 tasks): no-check and mainline one migration more, costs
# and the seeds' mean pulls (103.0 -> 103.4) by a hair; 16 outputs, the text
# diffed line by line against main's binary (a205a74).
set -uo pipefail
update=0
if [ "${1:-}" = --update ]; then update=1; shift; fi
IR=${1:-${IDLEREPLAY:?}}
IR=$(realpath "$IR")
cd "${IR_SOURCE_ROOT:-$(dirname "$0")/../../..}" || exit 2
LIST=tests/integration/engine/golden.sha256
WORK=$(mktemp -d /tmp/ir-golden.XXXXXX)
trap 'rm -rf "$WORK" "$WORK.list"' EXIT

# name|trace|options
cases=()
for t in tests/data/*.dat tests/data/vm-ab/*.dat tests/data/vm-numa/*.dat; do
	n=$(basename "$t" .dat)
	cases+=("$n.default|$t|")
done
for t in tests/data/vm-ab/*.dat; do
	n=$(basename "$t" .dat)
	cases+=("$n.sweep|$t|--topology sockets=2,cores=2,threads=2,nodes=2 --policy baseline --policy domain-cost:preset=cover --policy proportional:seed=7 --policy mainline:mc.max_newidle_lb_cost=30us --sweep baseline.sysctl_sched_migration_cost=0:1ms:250us --reference domain-cost:preset=cover --detail 1s:5ms")
done
for t in tests/data/vm-numa/*.dat; do
	n=$(basename "$t" .dat)
	cases+=("$n.probed|$t|--topology sockets=2,cores=2,threads=2,nodes=2 --probe-seed --migration-cost 400us --late-window 80us --kernel-policy mainline --sweep proportional.seed=1:3:1")
done
cases+=("host-hackbench.knobs|tests/data/host-hackbench.dat|--tick 2ms --max-idle-balance-cost 1ms --newidle-lead 10us --policy bump --policy no-check --reference no-check --timeline")

for c in "${cases[@]}"; do
	IFS='|' read -r name trace opts <<<"$c"
	d=$WORK/$name
	mkdir -p "$d"
	# shellcheck disable=SC2086
	"$IR" replay "$trace" $opts --json "$d/r.json" --html "$d/r.html" --decisions "$d/d.jsonl" \
		>"$d/text" 2>"$d/stderr"
	echo $? > "$d/status"
	if [ -s "$d/r.json" ]; then
		"$IR" report "$d/r.json" --format text > "$d/report.text" 2>&1
		"$IR" report "$d/r.json" --format csv > "$d/report.csv" 2>&1
		"$IR" report "$d/r.json" --format html -o "$d/report.html" 2>&1
	fi
	# stdout routes (JSON and HTML on '-')
	# shellcheck disable=SC2086
	"$IR" replay "$trace" $opts --json - > "$d/stdout.json" 2>/dev/null
	echo "json- $?" >> "$d/status"
done
d=$WORK/fleet
mkdir -p "$d"
# compare and merge print the names they were given: relative ones
(cd "$WORK" &&
"$IR" report compare hb_mc0_1.default/r.json hb_mc5ms_1.default/r.json > fleet/compare.text 2>&1
"$IR" report compare hb_mc0_1.sweep/r.json hb_mc5ms_1.sweep/r.json > fleet/compare-sweep.text 2>&1
"$IR" report merge hb_*.default/r.json > fleet/merge.text 2>&1
"$IR" report merge --format csv hb_*.default/r.json > fleet/merge.csv 2>&1)
for t in tests/data/vm-numa/*.dat; do
	n=$(basename "$t" .dat)
	"$IR" calibrate "$t" --topology sockets=2,cores=2,threads=2,nodes=2 --json "$d/calib-$n.json" \
		> "$d/calib-$n.text" 2>&1
done

(cd "$WORK" && find . -type f | LC_ALL=C sort | xargs sha256sum) > "$WORK.list"
if [ $update = 1 ]; then
	cp "$WORK.list" "$LIST"
	echo "wrote $LIST ($(wc -l < "$LIST") outputs)"
	exit 0
fi
if ! diff -u "$LIST" "$WORK.list"; then
	echo "FAIL: outputs differ from the pre-refactor reference ($LIST)" >&2
	exit 1
fi
echo "ok: $(wc -l < "$LIST") outputs byte-identical"

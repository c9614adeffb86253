#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/sim.sh: the closed-loop simulator's speed and memory (issue 13).
#
#   1. simulated events per second per policy (and frozen), the simulation
#      alone (thread CPU time; bench/sim_rate), medians of RUNS runs, on the
#      vm-numa hackbench trace and on hackbench traces recorded at 1x, 4x and
#      9x length (bench/out/, as run.sh records them; 9x is ~13 M events, what
#      a 90 s recording makes; target >= 1 M/s), side by side in each run:
#      the whole workload in memory (sim_rate) and the spilled one simulate
#      uses (sim_rate --spill, each simulation reading the file);
#   2. memory against trace length: the peak RSS of `idlereplay simulate`
#      (all default policies and frozen) at 1x, 4x and 9x, side by side in
#      each run: before (IDLEREPLAY_SIM_WHOLE=1: the whole workload in
#      memory, main's path) and after (the default: spilled), their --json
#      compared byte for byte; the spill file's size and what the
#      extraction held at most (sim_rate --spill);
#   3. `idlereplay simulate` with a 20-point sweep against a single policy,
#      wall time on both CPUs (the workload is extracted once and shared).
#
# Writes bench/results-sim.md and prints it.
# usage: bench/sim.sh [--runs N]   environment: HB, LOOPS_1X (as run.sh), TMPDIR
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=3
[ "${1:-}" = --runs ] && RUNS=$2
HB=${HB:-"-s 4096 -p -g 2"}
LOOPS_1X=${LOOPS_1X:-2500}
OUT=$ROOT/bench/out
RES=$ROOT/bench/results-sim.md
IR=$ROOT/build/cli/idlereplay
RATE=$ROOT/build/bench/sim_rate
mkdir -p "$OUT"
ninja -C build >/dev/null
gen() {	# NAME LOOPS
	[ -s "$OUT/$1.dat" ] || "$IR" record -o "$OUT/$1.dat" --force -- hackbench $HB -l "$2" >/dev/null 2>"$OUT/$1.rec.log"
}
gen t1x "$LOOPS_1X"
gen t4x $((LOOPS_1X * 4))
gen t9x $((LOOPS_1X * 9))
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
med2() { local x; x=$(cat); printf '%s %s\n' "$(echo "$x" | awk '{ print $1 }' | med)" "$(echo "$x" | awk '{ print $2 }' | med)"; }

{
for t in t1x t4x t9x; do	# the trace's events, as the extraction counts them
	[ -s "$OUT/events_$t.txt" ] || "$RATE" --whole "$OUT/$t.dat" | awk '/^extract/ { print $3 }' > "$OUT/events_$t.txt"
done
echo "# Closed-loop simulator: speed and memory"
echo
echo "$(date -u '+%F %R UTC'), commit $(git rev-parse --short HEAD), $(nproc) CPUs, $(uname -r), load average $(cut -d' ' -f1 /proc/loadavg)."
echo "Command: \`bench/sim.sh --runs $RUNS\` (medians of $RUNS runs of \`build/bench/sim_rate [--spill] TRACE [TOPOLOGY]\`)."
echo
echo "| trace | events | policy | simulated events | whole: rate (events/s, CPU) | spilled: rate |"
echo "|---|---:|---|---:|---:|---:|"
for spec in "tests/data/vm-numa/a_hackbench_proc_sockets.dat sockets=2,cores=2,threads=2,nodes=2" "$OUT/t1x.dat" "$OUT/t4x.dat" "$OUT/t9x.dat"; do
	set -- $spec
	: > "$OUT/sim_rate.txt"
	: > "$OUT/sim_spill.txt"
	for i in $(seq "$RUNS"); do
		# side by side, run by run: the whole workload, then the spilled one
		"$RATE" "$@" > "$OUT/full.txt"
		"$RATE" --spill "$@" > "$OUT/spill.txt"
		cat "$OUT/full.txt" >> "$OUT/sim_rate.txt"
		cat "$OUT/spill.txt" >> "$OUT/sim_spill.txt"
		[ "$(grep '^check' "$OUT/full.txt")" = "$(grep '^check' "$OUT/spill.txt")" ] || echo "check lines differ" >> "$OUT/sim_spill.txt"
	done
	ev=$(awk '/^extract/ { print $3; exit }' "$OUT/sim_rate.txt")
	for p in $(awk '/^sim / { print $2 }' "$OUT/sim_rate.txt" | sort -u); do
		r=$(awk -v p="$p" '$1 == "sim" && $2 == p { print $8 }' "$OUT/sim_rate.txt" | med)
		q=$(awk -v p="$p" '$1 == "sim" && $2 == p { print $8 }' "$OUT/sim_spill.txt" | med)
		n=$(awk -v p="$p" '$1 == "sim" && $2 == p { print $4; exit }' "$OUT/sim_rate.txt")
		printf '| %s | %s | %s | %s | %.2f M | %.2f M |\n' "$(basename "$1")" "$ev" "$p" "$n" \
			"$(awk "BEGIN { print $r / 1e6 }")" "$(awk "BEGIN { print $q / 1e6 }")"
	done
	if [ $# -eq 1 ]; then
		t=$(basename "$1" .dat)
		awk '/^extract/ { print $15, $17, $19 }' "$OUT/sim_spill.txt" > "$OUT/spill_$t.txt"
		grep -q "check lines differ" "$OUT/sim_spill.txt" && echo NO > "$OUT/spill_same_$t.txt" || echo yes > "$OUT/spill_same_$t.txt"
	fi
done
echo
echo "Peak RSS of \`idlereplay simulate TRACE --json F\` (the replay, all default policies and frozen), $RUNS runs side by"
echo "side (medians): before, \`IDLEREPLAY_SIM_WHOLE=1\` (the whole workload in memory: main's path); after, the default"
echo "(the workload spilled to an unlinked file in \$TMPDIR or /var/tmp, each simulation reading it). \"json same\": the"
echo "two --json byte for byte equal in every run. Spill file, held at most: sim_rate --spill (the file's size; the"
echo "records the extraction held unsealed at its peak); pins released: patches given up (must be 0); \"records same\":"
echo "the spilled records as a reader gives them hash equal to the whole workload's in every run."
echo
echo "| trace | events | before: peak RSS | after: peak RSS | json same | spill file | held at most | pins released | records same |"
echo "|---|---:|---:|---:|---|---:|---:|---:|---|"
for t in t1x t4x t9x; do
	: > "$OUT/simulate_mem_$t.txt"
	for i in $(seq "$RUNS"); do
		b=$(IDLEREPLAY_SIM_WHOLE=1 /usr/bin/time -f %M "$IR" simulate "$OUT/$t.dat" --quiet --json "$OUT/before.json" 2>&1 >/dev/null | tail -1)
		a=$(/usr/bin/time -f %M "$IR" simulate "$OUT/$t.dat" --quiet --json "$OUT/after.json" 2>&1 >/dev/null | tail -1)
		cmp -s "$OUT/before.json" "$OUT/after.json" && same=yes || same=NO
		echo "$b $a $same" >> "$OUT/simulate_mem_$t.txt"
	done
	f=$OUT/simulate_mem_$t.txt
	printf '| %s.dat | %s | %s MB | %s MB | %s | %s MB | %s kB | %s | %s |\n' "$t" "$(cat "$OUT/events_$t.txt")" \
		"$(awk '{ print $1 / 1024 }' "$f" | med | xargs printf '%.1f')" "$(awk '{ print $2 / 1024 }' "$f" | med | xargs printf '%.1f')" \
		"$(awk '{ print $3 }' "$f" | sort -u | tr '\n' ' ')" \
		"$(awk '{ print $2 / 1048576 }' "$OUT/spill_$t.txt" | med | xargs printf '%.0f')" \
		"$(awk '{ print $1 / 1024 }' "$OUT/spill_$t.txt" | med | xargs printf '%.0f')" \
		"$(awk '{ print $3 }' "$OUT/spill_$t.txt" | sort -u | tr '\n' ' ')" "$(cat "$OUT/spill_same_$t.txt")"
	awk '{ print $1, $2 }' "$f" | med2 > "$OUT/simulate_med_$t.txt"
done
e1=$(cat "$OUT/events_t1x.txt"); e9=$(cat "$OUT/events_t9x.txt")
echo
awk -v e1="$e1" -v e9="$e9" 'FNR == 1 { f++ } { b[f] = $1; a[f] = $2 }
	END { printf "Per event added from 1x to 9x (%d more events): before %.1f bytes, after %.2f bytes of peak RSS.\n",
	      e9 - e1, (b[2] - b[1]) * 1024 / (e9 - e1), (a[2] - a[1]) * 1024 / (e9 - e1) }' \
	"$OUT/simulate_med_t1x.txt" "$OUT/simulate_med_t9x.txt"
echo
echo "Sweep: \`idlereplay simulate t1x.dat --policy proportional --sim-seeds 1\` against \`... --sweep proportional.seed=1:20:1 --sim-seeds 1\` (wall, both CPUs; one simulation per point, as before --sim-seeds):"
echo
w1=$( { for i in $(seq "$RUNS"); do /usr/bin/time -f %e "$IR" simulate "$OUT/t1x.dat" --quiet --policy proportional --sim-seeds 1 --json "$OUT/s1.json" 2>&1 >/dev/null | tail -1; done; } | med)
w20=$( { for i in $(seq "$RUNS"); do /usr/bin/time -f %e "$IR" simulate "$OUT/t1x.dat" --quiet --sweep proportional.seed=1:20:1 --sim-seeds 1 --json "$OUT/s20.json" 2>&1 >/dev/null | tail -1; done; } | med)
echo "| | wall s |"
echo "|---|---:|"
echo "| one policy | $w1 |"
echo "| 20 sweep points (+ the 6 default policies) | $w20 |"
echo "| ratio | $(awk "BEGIN { printf \"%.2f\", $w20 / $w1 }") |"
} > "$RES"
cat "$RES"

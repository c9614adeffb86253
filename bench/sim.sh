#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/sim.sh: the closed-loop simulator's speed and memory (issue 13).
#
#   1. simulated events per second per policy (and frozen), the simulation
#      alone (thread CPU time; bench/sim_rate), medians of RUNS runs, on the
#      vm-numa hackbench trace and on hackbench traces recorded at 1x, 4x and
#      9x length (bench/out/, as run.sh records them; 9x is ~13 M events, what
#      a 90 s recording makes; target >= 1 M/s);
#   2. memory against trace length: the workload's bytes per trace event and
#      the peak RSS of sim_rate at 1x, 4x and 9x;
#   3. `idlereplay simulate` with a 20-point sweep against a single policy,
#      wall time on both CPUs (the workload is extracted once and shared).
#
# Writes bench/results-sim.md and prints it.
# usage: bench/sim.sh [--runs N]   environment: HB, LOOPS_1X (as run.sh)
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

{
echo "# Closed-loop simulator: speed and memory"
echo
echo "$(date -u '+%F %R UTC'), commit $(git rev-parse --short HEAD), $(nproc) CPUs, $(uname -r), load average $(cut -d' ' -f1 /proc/loadavg)."
echo "Command: \`bench/sim.sh --runs $RUNS\` (medians of $RUNS runs of \`build/bench/sim_rate TRACE [TOPOLOGY]\`)."
echo
echo "| trace | events | policy | simulated events | rate (events/s, CPU) |"
echo "|---|---:|---|---:|---:|"
for spec in "tests/data/vm-numa/a_hackbench_proc_sockets.dat sockets=2,cores=2,threads=2,nodes=2" "$OUT/t1x.dat" "$OUT/t4x.dat" "$OUT/t9x.dat"; do
	set -- $spec
	for i in $(seq "$RUNS"); do "$RATE" "$@"; done > "$OUT/sim_rate.txt"
	ev=$(awk '/^extract/ { print $3; exit }' "$OUT/sim_rate.txt")
	for p in $(awk '/^sim / { print $2 }' "$OUT/sim_rate.txt" | sort -u); do
		r=$(awk -v p="$p" '$1 == "sim" && $2 == p { print $8 }' "$OUT/sim_rate.txt" | med)
		n=$(awk -v p="$p" '$1 == "sim" && $2 == p { print $4; exit }' "$OUT/sim_rate.txt")
		printf '| %s | %s | %s | %s | %.2f M |\n' "$(basename "$1")" "$ev" "$p" "$n" "$(awk "BEGIN { print $r / 1e6 }")"
	done
	awk -v t="$(basename "$1")" '/^extract/ { b = $13 } /^maxrss_kb/ { m = $2 } END { printf "%s %s %s\n", t, b, m }' \
		"$OUT/sim_rate.txt" >> "$OUT/sim_mem.txt.new"
done
echo
echo "Memory (workload bytes per trace event; peak RSS of sim_rate, which holds the workload and one simulation):"
echo
echo "| trace | bytes per event | peak RSS |"
echo "|---|---:|---:|"
sort -u "$OUT/sim_mem.txt.new" | while read -r t b m; do printf '| %s | %s | %s MB |\n' "$t" "$b" "$((m / 1024))"; done
rm -f "$OUT/sim_mem.txt.new"
echo
echo "Sweep: \`idlereplay simulate t1x.dat --policy proportional\` against \`... --sweep proportional.seed=1:20:1\` (wall, both CPUs):"
echo
w1=$( { for i in $(seq "$RUNS"); do /usr/bin/time -f %e "$IR" simulate "$OUT/t1x.dat" --quiet --policy proportional --json "$OUT/s1.json" 2>&1 >/dev/null | tail -1; done; } | med)
w20=$( { for i in $(seq "$RUNS"); do /usr/bin/time -f %e "$IR" simulate "$OUT/t1x.dat" --quiet --sweep proportional.seed=1:20:1 --json "$OUT/s20.json" 2>&1 >/dev/null | tail -1; done; } | med)
echo "| | wall s |"
echo "|---|---:|"
echo "| one policy | $w1 |"
echo "| 20 sweep points (+ the 6 default policies) | $w20 |"
echo "| ratio | $(awk "BEGIN { printf \"%.2f\", $w20 / $w1 }") |"
} > "$RES"
cat "$RES"

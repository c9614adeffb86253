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
#      the peak RSS of sim_rate at 1x, 4x and 9x (the whole workload, as
#      `simulate` extracts it), beside the streaming extraction
#      (sim_rate --stream WINDOW_NS: windows sealed and dropped, no
#      simulation), whose records must hash equal to the whole workload's;
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
WINDOW_NS=${WINDOW_NS:-100000000}	# the streaming extraction's window: 100 ms of recorded time
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
	: > "$OUT/sim_rate.txt"
	: > "$OUT/sim_mem_$(basename "$1" .dat).txt"
	for i in $(seq "$RUNS"); do
		"$RATE" "$@" > "$OUT/full.txt"
		cat "$OUT/full.txt" >> "$OUT/sim_rate.txt"
		[ $# -eq 1 ] || continue	# the memory rows: the 1x, 4x, 9x series
		# side by side, run by run: the whole workload with the simulations,
		# then the streaming extraction alone
		"$RATE" --stream "$WINDOW_NS" "$1" > "$OUT/stream.txt"
		same=$( [ "$(grep '^check' "$OUT/full.txt")" = "$(grep '^check' "$OUT/stream.txt")" ] && echo yes || echo NO)
		awk -v t="$(basename "$1")" -v same="$same" \
			'FNR == 1 { f++ } /^extract/ { ev = $3; if (f == 1) bpe = $13; else held = $11 } /^maxrss_kb/ { m[f] = $2 }
			 /^stream/ { pins = $5 } END { printf "%s %s %s %s %s %s %s %s\n", t, ev, bpe, m[1], held, m[2], pins, same }' \
			"$OUT/full.txt" "$OUT/stream.txt" >> "$OUT/sim_mem_$(basename "$1" .dat).txt"
	done
	ev=$(awk '/^extract/ { print $3; exit }' "$OUT/sim_rate.txt")
	for p in $(awk '/^sim / { print $2 }' "$OUT/sim_rate.txt" | sort -u); do
		r=$(awk -v p="$p" '$1 == "sim" && $2 == p { print $8 }' "$OUT/sim_rate.txt" | med)
		n=$(awk -v p="$p" '$1 == "sim" && $2 == p { print $4; exit }' "$OUT/sim_rate.txt")
		printf '| %s | %s | %s | %s | %.2f M |\n' "$(basename "$1")" "$ev" "$p" "$n" "$(awk "BEGIN { print $r / 1e6 }")"
	done
done
echo
echo "Memory against trace length, $RUNS runs side by side (medians). Whole: what \`simulate\` holds today, the"
echo "workload's bytes per trace event and the peak RSS of sim_rate (the workload and one simulation). Streamed:"
echo "\`sim_rate --stream $WINDOW_NS\` (windows of $((WINDOW_NS / 1000000)) ms sealed to a sink and dropped, no simulation), the"
echo "records it held at most and its peak RSS; \"same\": its records and whole-trace figures hash equal to the whole"
echo "workload's in every run; pins released: patches given up (must be 0)."
echo
echo "| trace | events | whole: bytes/event | whole: peak RSS | streamed: held at most | streamed: peak RSS | pins released | same |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
for t in t1x t4x t9x; do
	f=$OUT/sim_mem_$t.txt
	col() { awk -v c="$1" '{ print $c }' "$f" | med; }
	printf '| %s.dat | %s | %s | %s MB | %s kB | %s MB | %s | %s |\n' "$t" "$(col 2)" "$(col 3)" "$(( $(col 4 | cut -d. -f1) / 1024 ))" \
		"$(( $(col 5 | cut -d. -f1) / 1024 ))" "$(( $(col 6 | cut -d. -f1) / 1024 ))" "$(awk '{ print $7 }' "$f" | sort -u | tr '\n' ' ')" \
		"$(awk '{ print $8 }' "$f" | sort -u | tr '\n' ' ')"
done
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

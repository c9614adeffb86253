#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/merge.sh: 'idlereplay report merge' of many reports: wall time and
# peak RSS (/usr/bin/time) at 1,000 and 10,000 reports, text and CSV, and
# the SQLite path (docs/fleet.md) over the same reports' jsonl rows.
# The reports are copies of one real replay (the sample trace, all six
# policies) with distinct trace timestamps and hostnames and scaled
# figures, written to bench/out/merge/ (gitignored) when missing.
# Prints a markdown table (medians of RUNS runs) and writes it to
# bench/results-merge.md.
#
# usage: bench/merge.sh [--runs N] [--counts "1000 10000"]
set -euo pipefail
cd "$(dirname "$0")/.."
IR=${IDLEREPLAY:-build/cli/idlereplay}
RUNS=3
COUNTS="1000 10000"
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) RUNS=$2; shift 2 ;;
	--counts) COUNTS=$2; shift 2 ;;
	-h|--help) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "merge.sh: unknown option $1" >&2; exit 1 ;;
	esac
done
OUT=bench/out/merge
mkdir -p "$OUT"
exec > >(tee bench/results-merge.md)
[ -f "$OUT/base.json" ] || "$IR" replay samples/host-hackbench.dat --quiet --json "$OUT/base.json"
max=0
for n in $COUNTS; do [ "$n" -gt "$max" ] && max=$n; done
if [ "$(find "$OUT/r" -name '*.json' 2>/dev/null | wc -l)" -lt "$max" ]; then
	python3 - "$OUT/base.json" "$OUT/r" "$max" <<'PY'
import copy, json, os, random, sys
base, out, n = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
os.makedirs(out, exist_ok=True)
rnd = random.Random(1)
for i in range(n):
    d = copy.deepcopy(base)
    t = d["trace"]
    t["first_ts"] += i * 10**9
    t["last_ts"] += i * 10**9
    t["hostname"] = f"host{i:05d}"
    t["path"] = f"/fleet/host{i:05d}/trace.dat"
    k = rnd.uniform(0.5, 2.0)
    for p in d["policies"]:
        for key in ("idle_recovered_ns", "idle_lost_ns", "balance_cost_ns", "idle_traded_ns"):
            p[key] = int(p[key] * k)
    with open(f"{out}/host{i:05d}.json", "w") as f:
        json.dump(d, f)
PY
fi
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {	# measure LABEL CMD...: "LABEL wall_s cpu_s peak_MB" medians
	local label=$1; shift
	local t=() c=() m=()
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f '%e %U %S %M' -o "$OUT/time" "$@" >/dev/null
		read -r w u s k < "$OUT/time"
		t+=("$w"); c+=("$(echo "$u + $s" | bc -l)"); m+=("$k")
	done
	printf '| %s | %s | %s | %.1f |\n' "$label" "$(printf '%s\n' "${t[@]}" | median)" \
		"$(printf '%s\n' "${c[@]}" | median)" "$(echo "$(printf '%s\n' "${m[@]}" | median) / 1024" | bc -l)"
}
echo "## report merge ($(date -u +%F), $(git rev-parse --short HEAD), $(nproc) CPUs)"
echo
echo "Reports: $(du -sh "$OUT/r" | cut -f1) for $max ($(stat -c %s "$OUT/base.json") bytes each). Medians of $RUNS runs;"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) (CPU time is the steadier figure on a shared machine)."
echo
echo "| command | wall s | CPU s (user + sys) | peak RSS MB |"
echo "|---|---:|---:|---:|"
for n in $COUNTS; do
	files=$(find "$OUT/r" -name '*.json' | sort | sed -n "1,${n}p")
	# shellcheck disable=SC2086
	measure "report merge, $n reports, text" "$IR" report merge $files -o "$OUT/merge-$n.txt"
	# shellcheck disable=SC2086
	measure "report merge, $n reports, csv" "$IR" report merge --format csv $files -o "$OUT/merge-$n.csv"
	# shellcheck disable=SC2086
	measure "report merge, $n reports, html" "$IR" report merge --format html $files -o "$OUT/merge-$n.html"
	if command -v sqlite3 >/dev/null; then
		# shellcheck disable=SC2086
		"$IR" report --format jsonl $files -o "$OUT/rows-$n.jsonl"
		measure "sqlite3: load $n reports' rows + fleet totals query" sh -c '
			rm -f "$1" &&
			sqlite3 "$1" -cmd "CREATE TABLE idlereplay_raw(line TEXT)" -cmd ".mode ascii" \
				-cmd ".separator \"\\037\" \"\\n\"" ".import $2 idlereplay_raw" &&
			sqlite3 "$1" < contrib/sql/sqlite_rows.sql && sqlite3 "$1" < contrib/sql/fleet_totals.sql' \
			_ "$OUT/fleet-$n.db" "$OUT/rows-$n.jsonl"
	fi
done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/run.sh: the issue-6 benchmarks, in one run on one machine.
#
#   1. read speed, side by side on the same trace.dat (uncompressed and zstd):
#      idlereplay replay (default options: every policy once they exist),
#      bench/bare_loop (bare libtracecmd iterate-and-decode, the ceiling of the
#      library route), trace-cmd report > /dev/null, and perf sched timehist
#      on a perf.data of the same workload.  Medians of RUNS alternating runs;
#      wall time and peak RSS from /usr/bin/time.
#   2. peak memory of idlereplay replay at 1x, 4x and 16x trace length.
#   3. a 20-point --sweep against a single replay (skipped, with a message,
#      while `idlereplay replay --help` does not list --sweep).
#   4. recording overhead on perf bench sched pipe and hackbench: untraced,
#      under idlereplay record, under perf record -a -e sched:..., alternating;
#      and lost events at the default buffer size under hackbench.
#
# Writes bench/results.md (date, commit, machine, exact commands, tables) and
# prints it.  Traces are generated into bench/out/ (gitignored) when missing.
#
# usage: bench/run.sh [--runs N] [--quick] [--regen] [--only read,mem,sweep,rec]
# environment: HB="hackbench args" LOOPS_1X=2500 PIPE_LOOPS=300000
#              SWEEP="POLICY.PARAM=FROM:TO:STEP" (20 points)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

RUNS=5
ONLY=read,mem,sweep,rec
REGEN=0
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) RUNS=$2; shift 2 ;;
	--quick) RUNS=3; QUICK=1; shift ;;
	--regen) REGEN=1; shift ;;
	--only) ONLY=$2; shift 2 ;;
	-h|--help) sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 1 ;;
	esac
done
want() { [[ ",$ONLY," == *",$1,"* ]]; }

HB=${HB:-"-s 4096 -p -g 2"}		# ~200 k sched events/s on 2 CPUs
LOOPS_1X=${LOOPS_1X:-2500}		# ~1.8 M events
PIPE_LOOPS=${PIPE_LOOPS:-300000}
HB_REC_LOOPS=${HB_REC_LOOPS:-1000}	# hackbench size for the recording-overhead runs
SWEEP=${SWEEP:-domain-cost.mc.migration_cost=0us:950us:50us}
[ -n "${QUICK:-}" ] && { PIPE_LOOPS=100000; }

OUT=$ROOT/bench/out
RES=$ROOT/bench/results.md
IR=$ROOT/build/cli/idlereplay
BARE=$ROOT/build/bench/bare_loop
SCHED_EVENTS=sched_switch,sched_migrate_task,sched_wakeup,sched_wakeup_new,sched_waking,sched_process_fork,sched_process_exit,sched_process_exec
PERF_EVENTS=$(echo "$SCHED_EVENTS" | sed 's/\([a-z_]*\)/sched:\1/g')
mkdir -p "$OUT"
SAMPLES=$OUT/samples.txt
: > "$SAMPLES"
LOG=$OUT/run.log
: > "$LOG"

need() { command -v "$1" >/dev/null || { echo "run.sh: $1 not found ($2)" >&2; exit 2; }; }
need perf "apt-get install linux-perf"
need trace-cmd "apt-get install trace-cmd"
need hackbench "apt-get install rt-tests"
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time not found (apt-get install time)" >&2; exit 2; }
if ! perf bench sched pipe -l 1000 >/dev/null 2>&1; then
	echo "run.sh: perf does not work here (perf bench sched pipe failed)" >&2; exit 2
fi
ninja -C build >/dev/null

say() { echo "== $*" >&2; }

# timed KEY CMD...: run CMD with stdout to /dev/null (by the shell: reports go to
# "--json -"; no system path is ever named as an output of idlereplay), append
# "KEY wall_s maxrss_kb cpu_s" (cpu = user + sys) to the samples.
timed() {
	local key=$1; shift
	local tf; tf=$(mktemp)
	if ! /usr/bin/time -f "%e %M %U %S" -o "$tf" "$@" >/dev/null 2>>"$LOG"; then
		echo "run.sh: failed: $*" >&2; tail -3 "$LOG" >&2; rm -f "$tf"; exit 2
	fi
	echo "$key $(tail -1 "$tf" | awk '{ printf "%s %s %.2f", $1, $2, $3 + $4 }')" >> "$SAMPLES"
	rm -f "$tf"
}
# peak KEY CMD...: poll /proc/PID/status every 20 ms; append
# "KEY anon_kb file_kb" (peak RssAnon, peak RssFile).  File-backed pages are
# the trace's own mmapped pages: clean page cache, counted in RSS.
peak() {
	local key=$1; shift
	"$@" >/dev/null 2>>"$LOG" &
	local pid=$! ma=0 mf=0 a f
	while kill -0 "$pid" 2>/dev/null; do
		read -r a f < <(awk '/^RssAnon/ { a = $2 } /^RssFile/ { f = $2 } END { print a + 0, f + 0 }' "/proc/$pid/status" 2>/dev/null || echo 0 0)
		[ "${a:-0}" -gt "$ma" ] && ma=$a
		[ "${f:-0}" -gt "$mf" ] && mf=$f
		sleep 0.02
	done
	wait "$pid" || { echo "run.sh: failed: $*" >&2; exit 2; }
	echo "$key $ma $mf" >> "$SAMPLES"
}
# median KEY COLUMN (2 = wall, 3 = rss, 4 = cpu; for peak samples 2 = anon, 3 = file)
median() {
	awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$SAMPLES" | sort -g |
		awk '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit } if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
medval() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit } if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }

ir_events() { "$IR" replay "$1" --json - --quiet 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["trace"]["events_total"])'; }
ir_lost() { "$IR" replay "$1" --json - --quiet 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["trace"]["lost_events"])'; }
perf_events() { perf script -i "$1" -F event 2>/dev/null | wc -l; }

# ------------------------------------------------------------------ traces
gen_trace() {	# NAME LOOPS
	local f=$OUT/$1.dat
	if [ "$REGEN" = 1 ] || [ ! -s "$f" ]; then
		say "recording $f (hackbench $HB -l $2)"
		"$IR" record -o "$f" --force -- hackbench $HB -l "$2" >/dev/null 2>"$OUT/$1.rec.log"
	fi
}
gen_perf() {
	local f=$OUT/perf1x.data
	if [ "$REGEN" = 1 ] || [ ! -s "$f" ]; then
		say "recording $f (perf sched record, hackbench $HB -l $LOOPS_1X)"
		perf sched record -o "$f" -- hackbench $HB -l "$LOOPS_1X" >/dev/null 2>>"$LOG"
	fi
}
gen_trace t1x "$LOOPS_1X"
if [ "$REGEN" = 1 ] || [ ! -s "$OUT/t1x.zstd.dat" ]; then
	say "converting to zstd"
	trace-cmd convert --compression zstd -i "$OUT/t1x.dat" -o "$OUT/t1x.zstd.dat" >>"$LOG" 2>&1 ||
		{ echo "run.sh: trace-cmd convert --compression zstd failed; see $LOG" >&2; exit 2; }
fi
want read && gen_perf
if want mem; then
	gen_trace t4x $((LOOPS_1X * 4))
	gen_trace t16x $((LOOPS_1X * 16))
fi

COMMIT=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!bench/results.md' || echo "-dirty")
{
	echo "# idlereplay benchmarks"
	echo
	echo "Generated by \`bench/run.sh --runs $RUNS\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $COMMIT."
	echo
	echo "Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)."
	echo "Tools: $(trace-cmd --version 2>&1 | grep -m1 version), $(perf --version), $(hackbench --help 2>&1 | grep -m1 -o 'V [0-9.]*' | sed 's/^/hackbench /')."
	echo "Workload: \`hackbench $HB -l N\` recorded by \`idlereplay record\` (default 8 MB/CPU buffers); all figures are medians of $RUNS alternating runs, page cache warm."
	echo
} > "$RES"

# -------------------------------------------------------------- read speed
if want read; then
	T=$OUT/t1x.dat; TZ=$OUT/t1x.zstd.dat; P=$OUT/perf1x.data
	EV=$(ir_events "$T"); EVZ=$(ir_events "$TZ"); PEV=$(perf_events "$P")
	say "read speed: $EV events (zstd $EVZ), perf.data $PEV samples, $RUNS rounds"
	# one warm-up of each, not counted
	"$IR" replay "$T" --json - --quiet >/dev/null 2>&1; "$IR" replay "$TZ" --json - --quiet >/dev/null 2>&1
	"$BARE" "$T" >/dev/null 2>&1; "$BARE" "$TZ" >/dev/null 2>&1
	perf sched timehist -i "$P" >/dev/null 2>&1
	for r in $(seq "$RUNS"); do
		for f in raw zstd; do
			F=$T; [ $f = zstd ] && F=$TZ
			timed "replay.$f" "$IR" replay "$F" --json - --quiet
			timed "bare.$f" "$BARE" "$F"
			timed "report.$f" trace-cmd report -i "$F"
		done
		timed "timehist" perf sched timehist -i "$P"
	done
	# row LABEL KEY EVENTS REFKEY REFEVENTS: events/s on wall and on CPU time
	# (user + sys; this machine may be shared, CPU time is the steadier one)
	row() {
		local w c m rw rc
		w=$(median "$2" 2); c=$(median "$2" 4); m=$(median "$2" 3)
		rw=$(calc '%.2f' "($5 / $(median "$4" 2)) / ($3 / $w)")
		rc=$(calc '%.2f' "($5 / $(median "$4" 4)) / ($3 / $c)")
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$3" "$w" "$c" \
			"$(calc '%.2f' "$3 / $w / 1e6")" "$(calc '%.2f' "$3 / $c / 1e6")" "$rw" "$rc" \
			"$(calc '%.0f' "$m / 1024")"
	}
	{
		echo "## Read speed (one 1x trace, $EV events, $(du -m "$T" | cut -f1) MB; zstd copy $(du -m "$TZ" | cut -f1) MB)"
		echo
		echo "Whole process (open, read, report). Rates on wall time and on CPU time (user + sys). \"idlereplay / tool\" is idlereplay's events/s divided by the tool's (same file; for perf, its own perf.data of the same workload): above 1 means idlereplay is faster."
		echo
		echo "| tool | events | wall s | CPU s | M ev/s (wall) | M ev/s (CPU) | idlereplay / tool (wall) | idlereplay / tool (CPU) | peak RSS MB |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
		row "idlereplay replay (uncompressed)" replay.raw "$EV" replay.raw "$EV"
		row "bare libtracecmd loop (uncompressed)" bare.raw "$EV" replay.raw "$EV"
		row "trace-cmd report > /dev/null (uncompressed)" report.raw "$EV" replay.raw "$EV"
		row "idlereplay replay (zstd)" replay.zstd "$EVZ" replay.zstd "$EVZ"
		row "bare libtracecmd loop (zstd)" bare.zstd "$EVZ" replay.zstd "$EVZ"
		row "trace-cmd report > /dev/null (zstd)" report.zstd "$EVZ" replay.zstd "$EVZ"
		row "perf sched timehist (perf.data of the same workload)" timehist "$PEV" replay.raw "$EV"
		echo
		echo "Same workload, whole run: idlereplay replay $(median replay.raw 2) s wall / $(median replay.raw 4) s CPU vs perf sched timehist $(median timehist 2) s wall / $(median timehist 4) s CPU."
		echo
		echo "Commands:"
		echo
		echo '```'
		echo "idlereplay record -o t1x.dat -- hackbench $HB -l $LOOPS_1X"
		echo "trace-cmd convert --compression zstd -i t1x.dat -o t1x.zstd.dat"
		echo "perf sched record -o perf1x.data -- hackbench $HB -l $LOOPS_1X"
		echo "/usr/bin/time -f '%e %M' idlereplay replay TRACE --json - --quiet > /dev/null"
		echo "/usr/bin/time -f '%e %M' build/bench/bare_loop TRACE"
		echo "/usr/bin/time -f '%e %M' trace-cmd report -i TRACE > /dev/null"
		echo "/usr/bin/time -f '%e %M' perf sched timehist -i perf1x.data > /dev/null"
		echo '```'
		echo
	} >> "$RES"
fi

# ---------------------------------------------------------- memory scaling
if want mem; then
	say "memory at 1x, 4x, 16x"
	if [ "$REGEN" = 1 ] || [ ! -s "$OUT/t4x.zstd.dat" ]; then
		trace-cmd convert --compression zstd -i "$OUT/t4x.dat" -o "$OUT/t4x.zstd.dat" >>"$LOG" 2>&1
	fi
	{
		echo "## Peak memory against trace length"
		echo
		echo "Peak RSS from /usr/bin/time (median of 3), and its split polled from /proc/PID/status every 20 ms: anonymous (heap: what the process allocates) and file-backed (the trace's pages that libtracecmd mmaps; clean page cache, but counted in RSS)."
		echo
		echo "| trace | events | MB on disk | replay wall s | replay CPU s | replay M ev/s (CPU) | replay peak RSS MB | of which anon MB | of which file MB | bare loop peak RSS MB | bare anon MB |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	} >> "$RES"
	for x in 1x 4x 16x 1x.zstd 4x.zstd; do
		F=$OUT/t$x.dat
		E=$(ir_events "$F")
		for r in $(seq 3); do
			timed "mem.replay.$x" "$IR" replay "$F" --json - --quiet
			timed "mem.bare.$x" "$BARE" "$F"
		done
		peak "pk.replay.$x" "$IR" replay "$F" --json - --quiet
		peak "pk.bare.$x" "$BARE" "$F"
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$x" "$E" "$(du -m "$F" | cut -f1)" \
			"$(median "mem.replay.$x" 2)" "$(median "mem.replay.$x" 4)" \
			"$(calc '%.2f' "$E / $(median "mem.replay.$x" 4) / 1e6")" \
			"$(calc '%.1f' "$(median "mem.replay.$x" 3) / 1024")" \
			"$(calc '%.1f' "$(median "pk.replay.$x" 2) / 1024")" "$(calc '%.1f' "$(median "pk.replay.$x" 3) / 1024")" \
			"$(calc '%.1f' "$(median "mem.bare.$x" 3) / 1024")" "$(calc '%.1f' "$(median "pk.bare.$x" 2) / 1024")" >> "$RES"
	done
	echo >> "$RES"
	echo "Commands: \`/usr/bin/time -f '%e %M %U %S' idlereplay replay t{1,4,16}x[.zstd].dat --json - --quiet > /dev/null\`; traces from \`idlereplay record -- hackbench $HB -l {$LOOPS_1X,$((LOOPS_1X * 4)),$((LOOPS_1X * 16))}\`, zstd copies by \`trace-cmd convert --compression zstd\`." >> "$RES"
	echo >> "$RES"
fi

# ------------------------------------------------------------------ sweep
if want sweep; then
	{ echo "## 20-point sweep against a single replay"; echo; } >> "$RES"
	if "$IR" replay --help 2>&1 | grep -q -- '--sweep'; then
		say "sweep $SWEEP"
		T=$OUT/t1x.dat
		for r in $(seq "$RUNS"); do
			timed sweep.single "$IR" replay "$T" --json - --quiet
			timed sweep.20 "$IR" replay "$T" --json - --quiet --sweep "$SWEEP"
		done
		s=$(median sweep.single 2); w=$(median sweep.20 2)
		{
			echo "| run | wall s | peak RSS MB |"
			echo "|---|---:|---:|"
			echo "| single replay | $s | $(calc '%.0f' "$(median sweep.single 3) / 1024") |"
			echo "| --sweep $SWEEP | $w | $(calc '%.0f' "$(median sweep.20 3) / 1024") |"
			echo
			echo "Sweep / single: $(calc '%.2f' "$w / $s")x (target <= 2x)."
			echo
		} >> "$RES"
	else
		echo "run.sh: idlereplay replay --help does not list --sweep yet: sweep skipped" >&2
		echo "Skipped: \`idlereplay replay --help\` does not list \`--sweep\` at this commit." >> "$RES"
		echo >> "$RES"
	fi
fi

# ------------------------------------------------------ recording overhead
if want rec; then
	say "recording overhead, $RUNS rounds"
	R=$OUT/rec.dat; RP=$OUT/rec.perf.data
	pipe_us() { awk '/usecs\/op/ { print $1 }'; }
	hb_s() { awk '/^Time:/ { print $2 }'; }
	lost_of() { sed -n 's/.*lost \([0-9]*\).*/\1/p' | tail -1; }
	: > "$OUT/rec.txt"
	for r in $(seq "$RUNS"); do
		echo "pipe.none $(perf bench sched pipe -l "$PIPE_LOOPS" 2>/dev/null | pipe_us)" >> "$OUT/rec.txt"
		echo "pipe.ir $("$IR" record -o "$R" --force -- perf bench sched pipe -l "$PIPE_LOOPS" 2>"$OUT/rec.err" | pipe_us)" >> "$OUT/rec.txt"
		echo "pipe.ir.lost $(lost_of < "$OUT/rec.err")" >> "$OUT/rec.txt"
		echo "pipe.perf $(perf record -q -a -e "$PERF_EVENTS" -o "$RP" -- perf bench sched pipe -l "$PIPE_LOOPS" 2>/dev/null | pipe_us)" >> "$OUT/rec.txt"
		echo "hb.none $(hackbench $HB -l "$HB_REC_LOOPS" 2>/dev/null | hb_s)" >> "$OUT/rec.txt"
		echo "hb.ir $("$IR" record -o "$R" --force -- hackbench $HB -l "$HB_REC_LOOPS" 2>"$OUT/rec.err" | hb_s)" >> "$OUT/rec.txt"
		echo "hb.ir.lost $(lost_of < "$OUT/rec.err")" >> "$OUT/rec.txt"
		echo "hb.ir.events $(sed -n 's/.*: \([0-9]*\) events.*/\1/p' "$OUT/rec.err")" >> "$OUT/rec.txt"
		echo "hb.perf $(perf record -q -a -e "$PERF_EVENTS" -o "$RP" -- hackbench $HB -l "$HB_REC_LOOPS" 2>/dev/null | hb_s)" >> "$OUT/rec.txt"
		echo "hbdef.ir.lost $("$IR" record -o "$R" --force -- hackbench -l 200 2>&1 >/dev/null | lost_of)" >> "$OUT/rec.txt"
	done
	rmed() { awk -v k="$1" '$1 == k { print $2 }' "$OUT/rec.txt" | medval; }
	rall() { awk -v k="$1" '$1 == k { printf "%s%s", s, $2; s = " " }' "$OUT/rec.txt"; }
	pn=$(rmed pipe.none); pi=$(rmed pipe.ir); pp=$(rmed pipe.perf)
	hn=$(rmed hb.none); hi=$(rmed hb.ir); hp=$(rmed hb.perf)
	{
		echo "## Recording overhead"
		echo
		echo "| workload | untraced | idlereplay record | perf record -a -e sched:... | idlereplay overhead | perf overhead |"
		echo "|---|---:|---:|---:|---:|---:|"
		echo "| perf bench sched pipe -l $PIPE_LOOPS (usecs/op) | $pn | $pi | $pp | $(calc '%+.0f %%' "($pi / $pn - 1) * 100") | $(calc '%+.0f %%' "($pp / $pn - 1) * 100") |"
		echo "| hackbench $HB -l $HB_REC_LOOPS (s) | $hn | $hi | $hp | $(calc '%+.0f %%' "($hi / $hn - 1) * 100") | $(calc '%+.0f %%' "($hp / $hn - 1) * 100") |"
		echo
		echo "Lost events at the default buffer size (8 MB per CPU), per run, as \`idlereplay record\` reports them (CPUSTAT overrun + dropped):"
		echo
		echo "- hackbench $HB -l $HB_REC_LOOPS ($(rmed hb.ir.events) events per run): $(rall hb.ir.lost)"
		echo "- hackbench -l 200 (stock groups, sockets): $(rall hbdef.ir.lost)"
		echo "- perf bench sched pipe -l $PIPE_LOOPS: $(rall pipe.ir.lost)"
		if want mem; then
			echo "- the 1x/4x/16x traces above: $(for x in 1x 4x 16x; do printf '%s ' "$(ir_lost "$OUT/t$x.dat")"; done)(replay's lost_events: CPUSTAT plus in-data markers)"
		fi
		echo
		echo "Commands (alternating, in this order, per round):"
		echo
		echo '```'
		echo "perf bench sched pipe -l $PIPE_LOOPS"
		echo "idlereplay record -o rec.dat --force -- perf bench sched pipe -l $PIPE_LOOPS"
		echo "perf record -q -a -e $PERF_EVENTS -o rec.perf.data -- perf bench sched pipe -l $PIPE_LOOPS"
		echo "hackbench $HB -l $HB_REC_LOOPS"
		echo "idlereplay record -o rec.dat --force -- hackbench $HB -l $HB_REC_LOOPS"
		echo "perf record -q -a -e $PERF_EVENTS -o rec.perf.data -- hackbench $HB -l $HB_REC_LOOPS"
		echo "idlereplay record -o rec.dat --force -- hackbench -l 200"
		echo '```'
		echo
	} >> "$RES"
fi

cat "$RES"

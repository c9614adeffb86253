#!/usr/bin/env bash
# record with neither a COMMAND nor --duration (issue 11): says it records
# until Ctrl-C, shows a live count on a terminal (script(1) gives it one),
# and stops by itself at --max-size; the trace replays.  --duration takes
# the one duration parser's units (500ms).
. "$(dirname "$0")/lib.sh"
command -v script >/dev/null || missing_tool "needs script(1) (bsdutils) for a terminal"

# load, so that 1 MB of sched events arrives within seconds
( while :; do sleep 0.001; done ) &
load=$!
trap 'kill $load 2>/dev/null; cleanup' EXIT
script -qec "'$IR' record -o '$WORK/cap.dat' --max-size 1M" "$WORK/tty.log" >/dev/null 2>&1 &
rec=$!
for _ in $(seq 600); do kill -0 $rec 2>/dev/null || break; sleep 0.1; done
if kill -0 $rec 2>/dev/null; then kill -INT $rec; fail "--max-size 1M did not stop the recording in 60 s"; fi
wait $rec || fail "record --max-size exited $?: $(tr '\r' '\n' < "$WORK/tty.log" | tail -3)"
tr '\r' '\n' < "$WORK/tty.log" > "$WORK/tty.txt"
grep -q "^idlereplay: record: recording into .*cap.dat until Ctrl-C or the size cap" "$WORK/tty.txt" ||
	fail "no 'until Ctrl-C' line: $(head -3 "$WORK/tty.txt")"
grep -Eq "^idlereplay: record: [0-9]+ s, [1-9][0-9]* events, [0-9.]+ MB" "$WORK/tty.txt" || fail "no live count"
grep -q "stopped at the size cap (1048576 bytes)" "$WORK/tty.txt" || fail "no size-cap stop line"
size=$(stat -c %s "$WORK/cap.dat")
[ "$size" -gt 1000000 ] && [ "$size" -lt 20000000 ] || fail "cap.dat is $size bytes for a 1 MB cap"
"$IR" replay "$WORK/cap.dat" --quiet --json "$WORK/cap.json" || fail "the capped trace does not replay"
kill $load

# --duration with units, and the valid range when out of it
"$IR" record -o "$WORK/d.dat" --duration 500ms 2>"$WORK/err" || fail "--duration 500ms: $(cat "$WORK/err")"
grep -q "until Ctrl-C" "$WORK/err" && fail "--duration 500ms still says 'until Ctrl-C'"
"$IR" replay "$WORK/d.dat" --quiet --json "$WORK/d.json" || fail "the 500ms trace does not replay"
"$IR" record -o "$WORK/e.dat" --duration 0 2>"$WORK/err" && fail "--duration 0 accepted"
grep -q "bad --duration '0' (more than 0, up to 1000000000s" "$WORK/err" || fail "range: $(cat "$WORK/err")"
"$IR" record -o "$WORK/e.dat" --max-size 10K 2>"$WORK/err" && fail "--max-size 10K accepted"
grep -q "bad --max-size '10K' (1M to 1T" "$WORK/err" || fail "range: $(cat "$WORK/err")"
"$IR" record -o "$WORK/e.dat" --buffer-kb 0 2>"$WORK/err" && fail "--buffer-kb 0 accepted"
grep -q "bad --buffer-kb '0' (a whole number of KB, 1 to 4194304)" "$WORK/err" || fail "range: $(cat "$WORK/err")"
check_clean "$WORK/cap.dat"
echo ok

#!/bin/bash
# One recorder never stops another: liveness is the flock a recorder holds
# on its instance's directory, never a process name or pid (issue 11).
#  - a live recorder run from a copy of the binary with another name keeps
#    its instance, tracing on and events enabled while a second records;
#  - an instance whose recorder is gone is removed, even when its pid now
#    belongs to a process named "idlereplay";
#  - an instance whose pid no longer exists is removed.
. "$(dirname "$0")/lib.sh"

cp "$IR" "$WORK/rec-other"
"$WORK/rec-other" record -o "$WORK/first.dat" --duration 6 2>"$WORK/first.err" &
first=$!
inst=$TRACEFS/instances/idlereplay-$first
for _ in $(seq 50); do [ -e "$inst/events/sched/sched_switch/enable" ] && break; sleep 0.1; done
[ "$(cat /proc/$first/comm)" = rec-other ] || fail "the first recorder is named $(cat /proc/$first/comm)"
sleep 0.5
[ "$(cat "$inst/events/sched/sched_switch/enable" 2>/dev/null)" = 1 ] || fail "first recorder not recording"

"$IR" record -o "$WORK/second.dat" --duration 0.5 2>"$WORK/second.err" || fail "second: $(cat "$WORK/second.err")"
grep -q "idlereplay-$first" "$WORK/second.err" && fail "second recorder touched the first: $(cat "$WORK/second.err")"
[ -d "$inst" ] || fail "the live recorder's instance was removed"
[ "$(cat "$inst/tracing_on")" = 1 ] || fail "the live recorder's tracing was turned off"
[ "$(cat "$inst/events/sched/sched_switch/enable")" = 1 ] || fail "the live recorder's events were disabled"
wait $first || fail "first recorder: $(cat "$WORK/first.err")"
grep -q "lost 0" "$WORK/first.err" || fail "first recorder: $(cat "$WORK/first.err")"
check_trace "$WORK/first.dat"

# A dead recorder's instance, its pid now a process named idlereplay.
cp "$(command -v sleep)" "$WORK/idlereplay"
"$WORK/idlereplay" 30 &
impostor=$!
mkdir "$TRACEFS/instances/idlereplay-$impostor" || fail "cannot make a stale instance"
# And one whose pid is gone.
sh -c 'exit 0' &
gone=$!
wait $gone
while kill -0 $gone 2>/dev/null; do gone=$((gone + 1)); done
mkdir "$TRACEFS/instances/idlereplay-$gone" || fail "cannot make a stale instance"

"$IR" record -o "$WORK/third.dat" --duration 0.3 2>"$WORK/third.err" || fail "third: $(cat "$WORK/third.err")"
kill $impostor
wait $impostor 2>/dev/null
for p in $impostor $gone; do
	grep -q "removed stale tracefs instance idlereplay-$p\$" "$WORK/third.err" ||
		fail "stale idlereplay-$p not reported: $(cat "$WORK/third.err")"
	[ -d "$TRACEFS/instances/idlereplay-$p" ] && fail "stale instance idlereplay-$p left"
done
check_clean "$WORK/third.dat"
check_trace "$WORK/third.dat"
exit 0

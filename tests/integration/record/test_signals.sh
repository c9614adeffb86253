#!/bin/bash
# SIGINT/SIGTERM mid-recording keep a valid trace; after SIGKILL the next
# record removes the stale instance.
. "$(dirname "$0")/lib.sh"
for sig in INT TERM; do
	out=$WORK/$sig.dat
	"$IR" record -o "$out" 2>"$WORK/err" &
	pid=$!
	sleep 1.5
	kill -$sig $pid
	wait $pid
	rc=$?
	[ $rc = 0 ] || fail "SIG$sig: exit $rc: $(cat "$WORK/err")"
	check_clean "$out"
	check_trace "$out"
done

# SIGINT with a command: the command is stopped too, its status returned.
"$IR" record -o "$WORK/cmd.dat" -- sleep 30 2>"$WORK/err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
[ $rc = 143 ] || fail "command after SIGINT: exit $rc, expected 143 (SIGTERM)"
pgrep -x -f "sleep 30" >/dev/null && fail "command left running"
check_trace "$WORK/cmd.dat"

# SIGKILL: nothing can clean up, so the instance stays ...
"$IR" record -o "$WORK/kill.dat" 2>/dev/null &
pid=$!
sleep 1
[ -d "$TRACEFS/instances/idlereplay-$pid" ] || fail "no instance while recording"
kill -KILL $pid
wait $pid 2>/dev/null
[ -d "$TRACEFS/instances/idlereplay-$pid" ] || fail "instance vanished after SIGKILL?"
[ -e "$WORK/kill.dat" ] && fail "output appeared after SIGKILL"
# ... until the next record removes it.
"$IR" record -o "$WORK/after.dat" --duration 0.3 2>"$WORK/err" || fail "record after SIGKILL: $(cat "$WORK/err")"
grep -q "removed stale tracefs instance idlereplay-$pid" "$WORK/err" || fail "stale instance not reported"
[ -d "$TRACEFS/instances/idlereplay-$pid" ] && fail "stale instance idlereplay-$pid left"
check_clean "$WORK/after.dat"
check_trace "$WORK/after.dat"
exit 0

#!/bin/bash
# Record hackbench: valid trace, plausible counts, exit status of the command.
. "$(dirname "$0")/lib.sh"
command -v hackbench >/dev/null || missing_tool "needs hackbench (rt-tests)"
out=$WORK/hb.dat
"$IR" record -o "$out" -- hackbench -g 2 -l 200 >/dev/null 2>"$WORK/err"
rc=$?
[ $rc = 0 ] || fail "record exit $rc: $(cat "$WORK/err")"
check_clean "$out"
check_trace "$out"
# hackbench -g 2: 40 processes forked and exited, 100s of messages each.
sw=$(count_event sched_switch); wk=$(count_event sched_waking); wu=$(count_event sched_wakeup)
fk=$(count_event sched_process_fork); ex=$(count_event sched_process_exit)
echo "switch=$sw waking=$wk wakeup=$wu fork=$fk exit=$ex"
[ "$sw" -gt 1000 ] || fail "only $sw sched_switch"
[ "$wk" -gt 500 ] && [ "$wu" -gt 500 ] || fail "too few wakeups ($wk/$wu)"
[ "$fk" -ge 40 ] && [ "$ex" -ge 40 ] || fail "fork/exit counts $fk/$ex < 40"
# Every event the recorder requires (record/events.c) is in the trace: 40
# hackbench processes on 2 CPUs are placed and balanced across them, and
# hackbench itself was exec'd.
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
	for e in sched_switch sched_migrate_task sched_wakeup sched_wakeup_new sched_waking \
	         sched_process_fork sched_process_exit sched_process_exec; do
		[ "$(count_event $e)" -gt 0 ] || fail "no $e event in a 2-CPU hackbench"
	done
else
	echo "note: one CPU online: sched_migrate_task not required"
fi
grep -q "hackbench" "$WORK/report" || fail "no hackbench task in the trace"
# The summary line and the trace agree on the number of events.
total=$(grep -cE '\[[0-9]+\] +[0-9]+\.[0-9]+: [a-z_]+:' "$WORK/report")
said=$(sed -n 's/.*: \([0-9]*\) events,.*/\1/p' "$WORK/err")
[ "$said" = "$total" ] || fail "summary says $said events, trace has $total"
grep -q "lost 0" "$WORK/err" || echo "note: events lost: $(cat "$WORK/err")"
# Exit status of the command passes through.
"$IR" record -o "$WORK/f.dat" -- sh -c 'exit 3' 2>/dev/null
[ $? = 3 ] || fail "command status not passed through"
"$IR" record -o "$WORK/k.dat" -- sh -c 'kill -TERM $$' 2>/dev/null
[ $? = 143 ] || fail "killed command does not give 128+signal"
check_clean "$out"

# A tiny buffer under hackbench loses events: the loss is a warning per
# CPU and is stored in that CPU's CPUSTAT.
"$IR" record -o "$WORK/small.dat" --buffer-kb 8 -- hackbench -g 2 -l 500 >/dev/null 2>"$WORK/err" ||
	fail "small buffer record: $(cat "$WORK/err")"
lost=$(sed -n 's/.*, lost \([0-9]*\)$/\1/p' "$WORK/err")
[ -n "$lost" ] || fail "no loss figure in: $(cat "$WORK/err")"
if [ "$lost" -gt 0 ]; then
	grep -q "warning: CPU [0-9]* lost events (overrun [0-9]*, dropped [0-9]*)" "$WORK/err" ||
		fail "loss without a warning line"
	trace-cmd dump --options "$WORK/small.dat" | grep -q "^overrun: [1-9]" ||
		fail "loss not in the CPUSTAT options"
else
	echo "note: no loss with an 8 KB buffer on this machine"
fi
check_clean "$WORK/small.dat"
exit 0

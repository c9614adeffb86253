#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The reader child that stops sending (here: a 1 ms stall limit, shorter
# than opening any trace takes) is killed: one line, status 2, no report,
# no child left behind.
set -u
IR=${IDLEREPLAY:?}
T=${IR_TRACES:?}/vm-numa/a_hackbench_proc_sockets.dat
[ -f "$T" ] || { echo "FAIL: test trace $T missing"; exit 1; }
WORK=$(mktemp -d /tmp/ir-stall-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cp "$T" "$WORK/t.dat" && T=$WORK/t.dat	# a path only our processes name
IDLEREPLAY_STALL_MS=1 "$IR" replay "$T" --json "$WORK/out.json" --quiet 2>"$WORK/err"
rc=$?
[ $rc = 2 ] || { echo "FAIL: exit $rc, want 2: $(cat "$WORK/err")"; exit 1; }
[ "$(wc -l < "$WORK/err")" = 1 ] && grep -q "stopped making progress" "$WORK/err" ||
	{ echo "FAIL: stderr: $(cat "$WORK/err")"; exit 1; }
[ -e "$WORK/out.json" ] && { echo "FAIL: a report was written"; exit 1; }
pgrep -f "idlereplay replay $T" >/dev/null && { echo "FAIL: a reader child is left"; exit 1; }
cat "$WORK/err"
exit 0

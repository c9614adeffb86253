#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A report JSON larger than IR_REPORT_MAX_BYTES (32 MiB; json-c needs about
# 26 bytes of memory per byte) is refused before parsing, with one line
# naming the file and the limit, exit 2: a regular file by its size, a FIFO
# as it is read.
. "$(dirname "$0")/lib.sh"

truncate -s 300M "$WORK/big.json"
"$IR" report "$WORK/big.json" >"$WORK/out" 2>"$WORK/err"
rc=$?
[ $rc = 2 ] || fail "300 MiB file: exit $rc, want 2: $(cat "$WORK/err")"
[ "$(wc -l < "$WORK/err")" = 1 ] && grep -q "big.json: 300 MiB, larger than the 32 MiB" "$WORK/err" ||
	fail "300 MiB file: stderr: $(cat "$WORK/err")"

mkfifo "$WORK/pipe.json"
head -c 40M /dev/zero | tr '\0' ' ' > "$WORK/pipe.json" &
"$IR" report "$WORK/pipe.json" >"$WORK/out" 2>"$WORK/err"
rc=$?
wait
[ $rc = 2 ] || fail "40 MiB through a FIFO: exit $rc, want 2: $(cat "$WORK/err")"
[ "$(wc -l < "$WORK/err")" = 1 ] && grep -q "pipe.json: larger than the 32 MiB" "$WORK/err" ||
	fail "40 MiB through a FIFO: stderr: $(cat "$WORK/err")"
echo ok

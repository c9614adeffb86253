#!/bin/bash
# A short record (command and SIGINT paths) under valgrind memcheck: no
# errors and no leaks of ours (library leaks listed in tests/valgrind.supp).
. "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || missing_tool "needs valgrind"
VG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --suppressions=${VALGRIND_SUPP:?}"
$VG "$IR" record -o "$WORK/v.dat" -- hackbench -g 1 -l 50 >/dev/null 2>"$WORK/err"
rc=$?
[ $rc = 0 ] || fail "valgrind, command: exit $rc: $(cat "$WORK/err")"
check_clean "$WORK/v.dat"
check_trace "$WORK/v.dat"
$VG "$IR" record -o "$WORK/i.dat" 2>"$WORK/err" &
sleep 3
kill -INT $!
wait $!
rc=$?
[ $rc = 0 ] || fail "valgrind, SIGINT: exit $rc: $(cat "$WORK/err")"
check_clean "$WORK/i.dat"
check_trace "$WORK/i.dat"
exit 0

#!/bin/bash
# Faults: each one a single error line, exit 2 (1 for usage), no instance,
# no output, nothing changed at the top level.
. "$(dirname "$0")/lib.sh"

one_line_error() {	# $1 expected exit, $2 pattern, rest: record args
	want=$1 pat=$2; shift 2
	"$IR" record "$@" >/dev/null 2>"$WORK/err"
	rc=$?
	[ $rc = "$want" ] || fail "record $*: exit $rc, want $want: $(cat "$WORK/err")"
	[ "$(wc -l <"$WORK/err")" = 1 ] || fail "record $*: not one line: $(cat "$WORK/err")"
	grep -q "^idlereplay: record: .*$pat" "$WORK/err" || fail "record $*: got '$(cat "$WORK/err")'"
	check_clean "${OUT:-$WORK/x}"
}

# Existing output is kept without --force, replaced with it.
echo precious >"$WORK/keep.dat"
one_line_error 2 "exists" -o "$WORK/keep.dat" --duration 0.2
[ "$(cat "$WORK/keep.dat")" = precious ] || fail "existing output overwritten"
"$IR" record -o "$WORK/keep.dat" --force --duration 0.2 2>/dev/null || fail "--force failed"
check_trace "$WORK/keep.dat"

# A symlink planted at the output path is neither followed nor written through.
echo target >"$WORK/target"
ln -s "$WORK/target" "$WORK/link.dat"
one_line_error 2 "exists" -o "$WORK/link.dat" --duration 0.2
"$IR" record -o "$WORK/link.dat" --force --duration 0.2 2>/dev/null || fail "--force over symlink"
[ "$(cat "$WORK/target")" = target ] || fail "symlink target written"
[ -L "$WORK/link.dat" ] && fail "output still a symlink"

# Command not found: no output.
OUT=$WORK/nf.dat one_line_error 2 "command not found: no-such-command-ir" -o "$WORK/nf.dat" -- no-such-command-ir
[ -e "$WORK/nf.dat" ] && fail "output left for a missing command"

# Unwritable output directory (read-only mount: root ignores modes).
mkdir "$WORK/ro"
mount -t tmpfs -o ro,size=1m none "$WORK/ro" || fail "cannot mount a read-only tmpfs"
OUT=$WORK/ro/t.dat one_line_error 2 "cannot write in" -o "$WORK/ro/t.dat" --duration 0.2
umount "$WORK/ro"
OUT=$WORK/nodir/t.dat one_line_error 2 "cannot write in" -o "$WORK/nodir/t.dat" --duration 0.2

# A disk that fills up: error, nothing left.
mkdir "$WORK/small"
mount -t tmpfs -o size=64k none "$WORK/small" || fail "cannot mount a small tmpfs"
# a workload makes sure the data outgrows 64 KB however quiet the machine is
OUT=$WORK/small/t.dat one_line_error 2 "No space left" -o "$WORK/small/t.dat" -- hackbench -g 2 -l 300
[ -z "$(ls -A "$WORK/small")" ] || { ls -la "$WORK/small"; umount "$WORK/small"; fail "files left on the full disk"; }
umount "$WORK/small"

# Unknown user; usage errors exit 1.
OUT=$WORK/u.dat one_line_error 2 "no user 'no-such-user-ir'" -o "$WORK/u.dat" --user no-such-user-ir -- true
one_line_error 1 "bad --duration" --duration abc
one_line_error 1 "bad --buffer-kb" --buffer-kb -5

# --user runs the command without root.
"$IR" record -o "$WORK/user.dat" --user nobody -- sh -c '[ "$(id -u)" = "$(id -u nobody)" ]' 2>"$WORK/err"
[ $? = 0 ] || fail "--user nobody: command did not run as nobody: $(cat "$WORK/err")"

# --probe-newidle without kprobes: one line, then a normal recording.
"$IR" record -o "$WORK/p.dat" --probe-newidle --duration 0.2 2>"$WORK/err" || fail "--probe-newidle failed"
[ "$(grep -c -- "--probe-newidle" "$WORK/err")" = 1 ] || fail "--probe-newidle: $(cat "$WORK/err")"
check_trace "$WORK/p.dat"
check_clean "$WORK/p.dat"
exit 0

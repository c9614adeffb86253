#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Safe as root: --json FILE is written to an exclusive temporary file
# (O_EXCL|O_NOFOLLOW) renamed over FILE.  A symlink planted at FILE is
# replaced, never followed; one planted at the temporary name makes the
# write fail cleanly; the report is 0644 whatever the umask.
set -u
IR=${IDLEREPLAY:?}
T=${IR_TRACES:?}/host-pipe.dat
[ -f "$T" ] || { echo "FAIL: test trace $T missing"; exit 1; }
WORK=$(mktemp -d /tmp/ir-symlink-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
umask 000

echo keep > "$WORK/victim"
ln -s "$WORK/victim" "$WORK/out.json"
"$IR" replay "$T" --json "$WORK/out.json" --quiet || fail "replay failed"
[ "$(cat "$WORK/victim")" = keep ] || fail "the symlink at the output path was followed"
[ -L "$WORK/out.json" ] && fail "the symlink at the output path is still there"
[ -f "$WORK/out.json" ] || fail "no report"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$WORK/out.json" || fail "report is not JSON"
mode=$(stat -c %a "$WORK/out.json")
[ "$mode" = 644 ] || fail "report mode $mode, want 644"

# A dangling symlink to a file that does not exist yet: not created through it.
rm -f "$WORK/out.json"
ln -s "$WORK/created" "$WORK/out.json"
"$IR" replay "$T" --json "$WORK/out.json" --quiet || fail "replay failed (dangling link)"
[ -e "$WORK/created" ] && fail "a file was created through a dangling symlink"

# A symlink planted at the temporary name (FILE.tmp.PID; exec keeps the pid).
rm -f "$WORK/out2.json"
sh -c 'ln -s "$1/victim" "$1/out2.json.tmp.$$"; exec "$2" replay "$3" --json "$1/out2.json" --quiet' \
	sh "$WORK" "$IR" "$T" 2>"$WORK/err"
rc=$?
[ $rc = 2 ] || fail "planted temporary name: exit $rc, want 2"
[ "$(wc -l < "$WORK/err")" = 1 ] || fail "planted temporary name: stderr: $(cat "$WORK/err")"
[ "$(cat "$WORK/victim")" = keep ] || fail "the symlink at the temporary name was followed"
[ -e "$WORK/out2.json" ] && fail "a report was written despite the failure"

# Unwritable destination: one line, status 2.
"$IR" replay "$T" --json "$WORK/no/such/dir/out.json" --quiet 2>"$WORK/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$WORK/err")" = 1 ] || fail "missing directory: exit $rc: $(cat "$WORK/err")"
echo ok

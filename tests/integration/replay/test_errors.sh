#!/usr/bin/env bash
# Bad input: exit 2 and exactly one stderr line naming the file, no crash;
# a bad option or missing TRACE: exit 1.
set -uo pipefail
: "${IDLEREPLAY:?}" "${TRACES:?}"
real=$TRACES/host-pipe.dat
[ -f "$real" ] || { echo "FAIL: test trace $real missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# expect STATUS NAME -- ARGS...: exit STATUS; for 2, one stderr line naming NAME
expect() {
	local want=$1 name=$2; shift 3
	"$IDLEREPLAY" replay "$@" --quiet >"$tmp/out" 2>"$tmp/err"
	local rc=$? lines
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL: replay $*: exit $rc, want $want: $(head -c 300 "$tmp/err")"; fails=$((fails + 1)); return
	fi
	# 128+N is a signal: never acceptable (covered by the status check, kept explicit)
	if [ "$want" -eq 2 ]; then
		if [ "$lines" -ne 1 ] || ! grep -qF -- "$name" "$tmp/err"; then
			echo "FAIL: replay $*: want one stderr line naming $name, got $lines:"; cat "$tmp/err"
			fails=$((fails + 1)); return
		fi
	fi
	echo "ok: replay $* -> $rc $(head -1 "$tmp/err")"
}

printf 'this is not a trace\n' >"$tmp/text.dat"
: >"$tmp/empty.dat"
head -c 4096 /dev/urandom >"$tmp/random.dat"
mkdir "$tmp/dir.dat"

expect 2 "$tmp/text.dat" -- "$tmp/text.dat"
expect 2 "$tmp/empty.dat" -- "$tmp/empty.dat"
expect 2 "$tmp/random.dat" -- "$tmp/random.dat"
expect 2 "$tmp/dir.dat" -- "$tmp/dir.dat"
expect 2 "$tmp/missing.dat" -- "$tmp/missing.dat"

# Truncated at every structural depth: magic, headers, formats, options,
# CPU data (the last sizes cut into the compressed event data).
size=$(stat -c %s "$real")
for n in 1 8 10 20 100 500 1000 4096 10000 50000 100000 $((size / 2)) $((size - 4096)) $((size - 110)) $((size - 60)) $((size - 1)); do
	head -c "$n" "$real" >"$tmp/trunc-$n.dat"
	expect 2 "$tmp/trunc-$n.dat" -- "$tmp/trunc-$n.dat"
done

# Unreadable trace file (only meaningful when not root: root reads anything).
cp "$real" "$tmp/noread.dat"
chmod 000 "$tmp/noread.dat"
if ! cat "$tmp/noread.dat" >/dev/null 2>&1; then
	expect 2 "$tmp/noread.dat" -- "$tmp/noread.dat"
fi
# JSON report to a path that cannot be written: names that path.
expect 2 "$tmp/nodir/r.json" -- "$real" --json "$tmp/nodir/r.json"

# Usage errors.
expect 1 x -- "$real" --bogus
expect 1 x -- "$real" --tick banana
expect 1 x -- "$real" "$real"
"$IDLEREPLAY" replay >/dev/null 2>&1; rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: replay without TRACE: exit $rc, want 1"; fails=$((fails + 1)); }

echo "$fails failure(s)"
[ "$fails" -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Replay under valgrind memcheck: the real traces (through the forked
# reader, which valgrind follows), the in-process reader on one trace, and
# a few broken variants.  No memcheck error and no leak of ours
# (library leaks are listed in tests/valgrind.supp); exit 0 on valid
# traces, 2 on broken ones.
set -u
IR=${IDLEREPLAY:?}
TRACES=${IR_TRACES:?}
command -v valgrind >/dev/null || { [ "${CI:-}" = true ] && { echo "FAIL: valgrind missing (scripts/setup.sh installs it)"; exit 1; }; echo "SKIP: needs valgrind (scripts/setup.sh installs it)"; exit 77; }
WORK=$(mktemp -d /tmp/ir-vg-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
VG=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect
    --error-exitcode=99 --suppressions="${VALGRIND_SUPP:?}")
fails=0
run() {	# expected-status file [env...]
	local want=$1 f=$2; shift 2
	rm -f "$WORK/out.json"
	env "$@" "${VG[@]}" --log-file="$WORK/vg.%p" "$IR" replay "$f" --json "$WORK/out.json" --quiet \
		>/dev/null 2>"$WORK/err"
	local rc=$?
	if [ "$rc" != "$want" ] || grep -q "ERROR SUMMARY: [1-9]\|definitely lost\|Invalid \|uninitialised" "$WORK"/vg.* 2>/dev/null; then
		echo "FAIL: $f ($*): exit $rc, want $want: $(cat "$WORK/err")"
		cat "$WORK"/vg.* 2>/dev/null | head -40
		fails=$((fails + 1))
	else
		echo "ok: $f ($*): exit $rc"
	fi
	rm -f "$WORK"/vg.*
}
n=0
for f in "$TRACES"/host-hackbench.dat "$TRACES"/host-pipe.dat "$TRACES"/vm-numa/d_idle_periodic_wakers.dat; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	run 0 "$f"
done
[ "$n" -gt 0 ] || { echo "FAIL: no test traces in $TRACES"; exit 1; }
f=$TRACES/host-pipe.dat
run 0 "$f" IDLEREPLAY_IN_PROCESS=1
# broken: cut in the options, cut in the data, not a trace, sched_switch missing
head -c 15100 "$f" > "$WORK/cut-options.dat"; run 2 "$WORK/cut-options.dat"
head -c 300000 "$f" > "$WORK/cut-data.dat"; run 2 "$WORK/cut-data.dat"
head -c 5000 /bin/true > "$WORK/elf.dat"; run 2 "$WORK/elf.dat"
: > "$WORK/empty.dat"; run 2 "$WORK/empty.dat"
if command -v trace-cmd >/dev/null; then
	trace-cmd convert -i "$TRACES/host-hackbench.dat" -o "$WORK/v6.dat" --file-version 6 >/dev/null 2>&1
	run 0 "$WORK/v6.dat"
	sed 's/name: sched_switch$/name: sched_swxtch/' "$WORK/v6.dat" > "$WORK/nosw.dat"
	run 2 "$WORK/nosw.dat"
fi
[ "$fails" = 0 ] || exit 1

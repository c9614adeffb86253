#!/bin/bash
# The metadata's host values from the sources a host may give, each faked
# here.  A host before 5.13 gives sched_migration_cost_ns as a sysctl
# (/proc/sys/kernel/sched_migration_cost_ns; debugfs from 5.13 on,
# 8a99b6833c88 "sched: Move SCHED_DEBUG sysctl to debugfs").  This host has
# no such sysctl, so the test gives the recorder one: in a mount namespace
# of its own (unshare -m, private propagation; nobody else sees it) a tmpfs
# holding only that file is bound over /proc/sys/kernel.  The metadata must
# carry the file's value, exactly (no newline, no refusal).  CONFIG_HZ
# comes from /boot/config-<release> first, then /proc/config.gz; a tmpfs
# over /boot and an empty file over /proc/config.gz give each case.
if [ -z "${IR_UNSHARED:-}" ]; then
	exec env IR_UNSHARED=1 unshare -m --propagation private "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
mkdir "$WORK/sysctl"
mount -t tmpfs -o size=64k nodev "$WORK/sysctl" || fail "cannot mount a tmpfs"
printf '%s\n' 250123 >"$WORK/sysctl/sched_migration_cost_ns"
mount --bind "$WORK/sysctl" /proc/sys/kernel || fail "cannot bind over /proc/sys/kernel"
"$IR" record -o "$WORK/s.dat" --duration 0.2 2>"$WORK/err" || fail "record: $(cat "$WORK/err")"
check_clean "$WORK/s.dat"
"$IR_META" "$WORK/s.dat" >"$WORK/meta" || fail "meta option unreadable"
grep -qx "sched_migration_cost_ns 250123" "$WORK/meta" ||
	fail "meta: $(grep '^sched_migration_cost_ns' "$WORK/meta" | od -c | head -3), sysctl says 250123"
grep -q "^refused_sched_migration_cost" "$WORK/meta" && fail "meta: a refusal beside a value read"
! grep -qx '' "$WORK/meta" || fail "empty line in meta"

# HZ: /boot/config-<release> wins over /proc/config.gz
mkdir "$WORK/boot"
mount -t tmpfs -o size=64k nodev "$WORK/boot" || fail "cannot mount a tmpfs"
printf '# CONFIG_HZ_300 is set\nCONFIG_HZ=300\n' >"$WORK/boot/config-$(uname -r)"
mount --bind "$WORK/boot" /boot || fail "cannot bind over /boot"
"$IR" record -o "$WORK/h.dat" --duration 0.2 2>"$WORK/err" || fail "record: $(cat "$WORK/err")"
"$IR_META" "$WORK/h.dat" >"$WORK/hmeta" || fail "meta option unreadable"
grep -qx "hz 300" "$WORK/hmeta" || fail "meta: $(grep '^hz' "$WORK/hmeta"), /boot/config says 300"
grep -q "^refused_hz" "$WORK/hmeta" && fail "meta: a refusal beside a value read"
# neither readable: hz unknown, and the refusal names both sources
rm "$WORK/boot/config-$(uname -r)"
if [ -e /proc/config.gz ]; then
	: >"$WORK/boot/empty"
	mount --bind "$WORK/boot/empty" /proc/config.gz || fail "cannot bind over /proc/config.gz"
fi
"$IR" record -o "$WORK/n.dat" --duration 0.2 2>"$WORK/err" || fail "record: $(cat "$WORK/err")"
"$IR_META" "$WORK/n.dat" >"$WORK/nmeta" || fail "meta option unreadable"
grep -qx "hz unknown" "$WORK/nmeta" || fail "meta: $(grep '^hz' "$WORK/nmeta"), no config readable"
r=$(grep "^refused_hz " "$WORK/nmeta")
case "$r" in
*"/boot/config-$(uname -r)"*"/proc/config.gz"*) ;;
*) fail "meta: refusal does not name both sources: $r" ;;
esac
grep -qx "sched_migration_cost_ns 250123" "$WORK/nmeta" || fail "meta: sysctl lost on the second recording"

# the replay takes the recorded value (avg_idle starts at twice it)
"$IR" replay "$WORK/s.dat" --json "$WORK/r.json" --quiet 2>"$WORK/err" || fail "replay: $(cat "$WORK/err")"
v=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["assumptions"]["sched_migration_cost_ns"])' "$WORK/r.json")
[ "$v" = 250123 ] || fail "replay assumes sched_migration_cost_ns $v, the trace says 250123"
exit 0

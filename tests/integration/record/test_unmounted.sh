#!/bin/bash
# tracefs not mounted: record mounts it.  Runs in a mount namespace of its
# own (unshare -m, private propagation), so the unmount is seen by nobody else.
if [ -z "${IR_UNSHARED:-}" ]; then
	exec env IR_UNSHARED=1 unshare -m --propagation private "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
umount "$TRACEFS" 2>/dev/null || skip "tracefs busy, cannot unmount it"
"$IR" record -o "$WORK/m.dat" --duration 0.3 2>"$WORK/err"
rc=$?
grep -q " $TRACEFS tracefs " /proc/mounts || { mount -t tracefs nodev "$TRACEFS"; fail "tracefs not mounted by record"; }
[ $rc = 0 ] || fail "record with tracefs unmounted: exit $rc: $(cat "$WORK/err")"
check_clean "$WORK/m.dat"
check_trace "$WORK/m.dat"
exit 0

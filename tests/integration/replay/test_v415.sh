#!/bin/bash
# A 4.15.0 layout (fixed comm[16], `success` in wakeups, prev_state shifted
# one bit) decodes from the trace's own formats: two newidle points and no
# anomaly.  Read unshifted, 0x1 would be S and a third point and a
# next_not_runnable anomaly would appear.
set -u
IR=${IDLEREPLAY:?}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
python3 "$(dirname "$0")/mk_v415.py" "$WORK/v415.dat" || fail "cannot build the 4.15 trace"
trace-cmd report -i "$WORK/v415.dat" >"$WORK/report" 2>&1 || fail "trace-cmd cannot read the built trace"
[ "$(grep -c 'sched_switch:' "$WORK/report")" = 6 ] || fail "trace-cmd sees $(grep -c 'sched_switch:' "$WORK/report") switches"
"$IR" replay "$WORK/v415.dat" --json "$WORK/r.json" --quiet || fail "replay"
python3 - "$WORK/r.json" <<'PY' || exit 1
import sys as _s; _s.flags.optimize and _s.exit("FAIL: python -O would strip this check's asserts")
import json, sys
d = json.load(open(sys.argv[1]))
t, o = d["trace"], d["observed"]
assert t["kernel"] == "4.15.0" and t["file_version"] == 6, (t["kernel"], t["file_version"])
assert t["events"] == {"sched_switch": 6, "sched_wakeup": 2}, t["events"]
assert o["newidle_points"] == 2, o["newidle_points"]
assert not any(o["anomalies"].values()), o["anomalies"]
assert o["cpus"][0]["idle_entries"] == 2 and o["cpus"][0]["busy_ns"] == 50000, o["cpus"][0]
print("4.15.0 layout: 2 newidle points, no anomalies")
PY

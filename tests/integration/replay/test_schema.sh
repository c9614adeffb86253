#!/usr/bin/env bash
# The replay's JSON on a probed trace, with every optional part (policies,
# sweeps, fidelity, ground truth, timeline, the closed loop: `simulate`), validates against
# report/schema.json, and the schema requires every key it holds: a renamed
# or dropped key fails here, whichever renderer would have shown it blank.
set -uo pipefail
: "${IDLEREPLAY:?}" "${TRACES:?}" "${IR_SOURCE_ROOT:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
f=$TRACES/vm-numa/d_idle_periodic_wakers.dat
[ -f "$f" ] || { echo "FAIL: test trace $f missing"; exit 1; }
"$IDLEREPLAY" simulate "$f" --quiet --json "$tmp/r.json" --timeline --probe-seed \
	--topology sockets=2,cores=2,threads=2,nodes=2 \
	--sweep baseline.sysctl_sched_migration_cost=0:1ms:500us || { echo "FAIL: replay exit $?"; exit 1; }
python3 "$IR_SOURCE_ROOT/tests/unit/report/validate.py" --every-key-required \
	"$IR_SOURCE_ROOT/report/schema.json" "$tmp/r.json" || { echo "FAIL: schema"; exit 1; }
# the parts this test is for are there
python3 - "$tmp/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
want = ["policies", "sweeps", "fidelity", "ground_truth", "timeline", "domains", "reference", "closed_loop", "closed_loop_fit"]
missing = [k for k in want if k not in d]
pts = [x["value"] for x in d["sweeps"][0]["points"]] if d.get("sweeps") else []
if pts != [0, 500000, 1000000]:
    print("FAIL: sweep 0:1ms:500us gives points", pts)
    sys.exit(1)
if missing or "detail" not in d["timeline"] or "idle_traded_ns" not in d["policies"][1]:
    print("FAIL: document lacks", missing or "timeline.detail / idle_traded_ns")
    sys.exit(1)
PY
echo "ok: $f"

#!/bin/bash
# Record a hackbench run, replay it: the replay reads our own file with the
# topology, kernel release and loss figures it carries, and agrees with
# trace-cmd report on the events.
. "$(dirname "$0")/lib.sh"
command -v hackbench >/dev/null || missing_tool "needs hackbench (rt-tests)"
out=$WORK/hb.dat
"$IR" record -o "$out" -- sh -c 'hackbench -g 2 -l 300; sleep 0.2' >/dev/null 2>"$WORK/err" || fail "record: $(cat "$WORK/err")"
check_clean "$out"
"$IR" replay "$out" --json "$WORK/r.json" --quiet 2>"$WORK/rerr" || fail "replay of our own trace: $(cat "$WORK/rerr")"
trace-cmd report "$out" >"$WORK/report" 2>/dev/null || fail "trace-cmd report"
python3 - "$WORK/r.json" "$WORK/report" "$(uname -r)" <<'PY' || fail "replay and trace-cmd disagree"
import collections, json, re, sys
doc = json.load(open(sys.argv[1]))
counts = collections.Counter()
for line in open(sys.argv[2]):
    m = re.search(r'\[\d+\]\s+\d+\.\d+: ([a-z_]+):', line)
    if m:
        counts[m.group(1)] += 1
bad = []
for name, n in counts.items():
    if doc["trace"]["events"].get(name) != n:
        bad.append("%s: replay %s, trace-cmd %d" % (name, doc["trace"]["events"].get(name), n))
if doc["trace"]["kernel"] != sys.argv[3]:
    bad.append("kernel %r != uname -r %r" % (doc["trace"]["kernel"], sys.argv[3]))
if doc["domains"]["source"] != "trace":
    bad.append("domains from %s, not from the recorded topology" % doc["domains"]["source"])
# how often CPUs went idle depends on what else the machine runs: only the
# bookkeeping is checked here (the points themselves are unit-tested)
if len(doc["policies"]) != 6 or any(p["newidle_points"] != doc["observed"]["newidle_points"] for p in doc["policies"]):
    bad.append("policies do not cover the newidle points")
print("\n".join(bad) if bad else "events, kernel, topology agree: %d event kinds" % len(counts))
sys.exit(1 if bad else 0)
PY
# A recording that lost events replays with a warning naming the CPUs.
"$IR" record -o "$WORK/small.dat" --buffer-kb 8 -- hackbench -g 2 -l 500 >/dev/null 2>&1 || fail "small buffer record"
# Over --max-lost (1 % by default) the report is written and the exit is 3.
rc=0
"$IR" replay "$WORK/small.dat" --json "$WORK/s.json" --quiet 2>"$WORK/serr" || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "replay of lossy trace: exit $rc: $(cat "$WORK/serr")"
lost=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['trace']['lost_events'])" "$WORK/s.json")
if [ "$lost" -gt 0 ]; then
	grep -q "warning: CPU [0-9]* lost events" "$WORK/serr" || fail "lost $lost events but no warning: $(cat "$WORK/serr")"
	if [ "$rc" = 3 ]; then
		grep -q "more than --max-lost" "$WORK/serr" || fail "exit 3 without saying why: $(cat "$WORK/serr")"
		"$IR" replay "$WORK/small.dat" --json "$WORK/s2.json" --quiet --allow-lost 2>/dev/null ||
			fail "--allow-lost: exit $?"
	fi
else
	echo "note: the 8 KB buffer lost nothing this time"
fi
check_clean "$out"
echo PASS

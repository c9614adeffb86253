#!/usr/bin/env bash
# `--json -` is valid JSON of schema idlereplay.report/1 holding the fields
# issue 2 requires, and two runs give byte-identical JSON.
set -uo pipefail
: "${IDLEREPLAY:?}" "${TRACES:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
for f in "$TRACES/host-pipe.dat" "$TRACES/vm-numa/d_idle_periodic_wakers.dat"; do
	[ -f "$f" ] || { echo "FAIL: test trace $f missing"; exit 1; }
	"$IDLEREPLAY" replay "$f" --quiet --json - >"$tmp/a.json" || { echo "FAIL: $f: run 1"; fails=$((fails + 1)); continue; }
	"$IDLEREPLAY" replay "$f" --quiet --json - >"$tmp/b.json" || { echo "FAIL: $f: run 2"; fails=$((fails + 1)); continue; }
	# a file and stdout carry the same document
	"$IDLEREPLAY" replay "$f" --quiet --json "$tmp/c.json" || { echo "FAIL: $f: run 3"; fails=$((fails + 1)); continue; }
	if ! cmp -s "$tmp/a.json" "$tmp/b.json" || ! cmp -s "$tmp/a.json" "$tmp/c.json"; then
		echo "FAIL: $f: runs differ"; diff "$tmp/a.json" "$tmp/b.json" | head; fails=$((fails + 1))
	fi
	if ! python3 - "$tmp/a.json" "$f" <<'PY'
import sys as _s; _s.flags.optimize and _s.exit("FAIL: python -O would strip this check's asserts")
import json, sys
d = json.load(open(sys.argv[1]))
need = {
    "trace": ["path", "kernel", "cpus", "events", "window_ns", "lost_events"],
    "observed": ["cpus", "idle_while_waiting_ns", "migrations", "newidle_points",
                 "newidle_pulls", "anomalies"],
}
assert d["schema"] == "idlereplay.report/1", d["schema"]
for k, fields in need.items():
    for f in fields:
        assert f in d[k], f"{k}.{f} missing"
assert d["trace"]["path"] == sys.argv[2], d["trace"]["path"]
o = d["observed"]
assert len(o["cpus"]) == d["trace"]["cpus"]
for i, c in enumerate(o["cpus"]):
    assert c["cpu"] == i and {"idle_ns", "busy_ns", "idle_entries"} <= c.keys(), c
assert {"total", "by_cause"} <= o["migrations"].keys()
assert set(o["migrations"]["by_cause"]) == {"wakeup", "newidle", "periodic", "nohz", "active",
                                            "exec", "numa", "rt", "unknown"}
assert set(o["anomalies"]) >= {"missing_idle_exit", "prev_not_current", "time_backwards", "pid_reuse"}
PY
	then
		echo "FAIL: $f: JSON check"; fails=$((fails + 1))
	else
		echo "ok: $f"
	fi
done
# text mode prints something and no JSON on stdout
out=$("$IDLEREPLAY" replay "$TRACES/host-pipe.dat") || { echo "FAIL: text run"; fails=$((fails + 1)); }
case $out in "{"*|"") echo "FAIL: text report missing"; fails=$((fails + 1)) ;; esac
echo "$fails failure(s)"
[ "$fails" -eq 0 ]

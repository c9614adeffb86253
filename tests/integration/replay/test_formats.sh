#!/bin/bash
# The same trace as trace.dat v7 zstd (as recorded), v7 uncompressed and v6
# (made by trace-cmd convert) replays to the same figures.
set -u
IR=${IDLEREPLAY:?}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
src=$TRACES/host-hackbench.dat
trace-cmd convert --file-version 6 -i "$src" -o "$WORK/v6.dat" >/dev/null 2>&1 || fail "trace-cmd convert to v6"
trace-cmd convert --compression none -i "$src" -o "$WORK/v7.dat" >/dev/null 2>&1 || fail "trace-cmd convert to v7 uncompressed"
for f in "$src" "$WORK/v6.dat" "$WORK/v7.dat"; do
	"$IR" replay "$f" --json "$WORK/$(basename "$f").json" --quiet || fail "replay $f"
done
python3 - "$WORK/host-hackbench.dat.json" "$WORK/v6.dat.json" "$WORK/v7.dat.json" <<'PY' || exit 1
import sys as _s; _s.flags.optimize and _s.exit("FAIL: python -O would strip this check's asserts")
import json, sys
docs = [json.load(open(p)) for p in sys.argv[1:]]
versions = [d["trace"]["file_version"] for d in docs]
assert versions == [7, 6, 7], versions
for d in docs[1:]:
    for key in ("observed", "policies", "fidelity"):
        assert d[key] == docs[0][key], key
    assert d["trace"]["events"] == docs[0]["trace"]["events"]
    assert d["trace"]["kernel"] == docs[0]["trace"]["kernel"] != ""
print("v7 zstd, v6 and v7 uncompressed agree:", docs[0]["observed"]["newidle_points"], "points")
PY

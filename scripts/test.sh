#!/usr/bin/env bash
# Run the whole test suite; the last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

meson test -C build --print-errorlogs --num-processes 1 "$@"
status=$?
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line).get("result")
    if r in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif r == "SKIP":
        skipped += 1
    else:
        failed += 1
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
PY
exit $status

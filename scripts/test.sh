#!/usr/bin/env bash
# Run the whole test suite twice:
#  1. build/: every test, including replay under valgrind memcheck
#     (suite 'valgrind') and a brief libFuzzer run (suite 'fuzz', with clang);
#  2. build-asan/: the whole project again under AddressSanitizer and
#     UndefinedBehaviorSanitizer (-Db_sanitize=address,undefined), every test
#     but the valgrind ones (valgrind cannot run ASan binaries) and the fuzz
#     ones (they build their own sanitized binaries).  IR_NO_ASAN=1 skips it.
# The last line is "N passed, N failed" summed over both runs.
set -uo pipefail
cd "$(dirname "$0")/.."

meson test -C build --print-errorlogs --num-processes 1 "$@"
status=$?
logs=(build/meson-logs/testlog.json)

if [ -z "${IR_NO_ASAN:-}" ]; then
	asan_ok=1
	if [ ! -d build-asan ]; then
		meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
			-Dbuildtype=debugoptimized >/dev/null || asan_ok=0
	fi
	if [ $asan_ok = 1 ] && ninja -C build-asan >/dev/null; then
		rm -f build-asan/meson-logs/testlog.json build-asan/meson-logs/asan.*
		# Errors are fatal; reports also go to files, since the replay's
		# reader child (replay/decode.c) sends its stderr to /dev/null.
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:log_path=$PWD/build-asan/meson-logs/asan \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$PWD/build-asan/meson-logs/asan \
			meson test -C build-asan --print-errorlogs --num-processes 1 \
				--no-suite valgrind --no-suite fuzz "$@"
		[ $? = 0 ] || status=1
		logs+=(build-asan/meson-logs/testlog.json)
		# Every sanitizer report goes to a file (log_path), also those of
		# the replay's reader child, whose failures the parent turns into
		# "corrupt trace, exit 2": so a report is judged from its file,
		# never from an exit status.  A report naming our code (a frame,
		# an error location or a leak's allocation stack in this tree)
		# fails the run; crashes and leaks inside libtracecmd or
		# libtraceevent on broken traces are contained and only counted.
		if ls build-asan/meson-logs/asan.* >/dev/null 2>&1; then
			echo "sanitizer reports (build-asan/meson-logs/asan.*), by kind:"
			grep -h "SUMMARY\|runtime error" build-asan/meson-logs/asan.* | sort | uniq -c | head -20
			ours=$(python3 - build-asan/meson-logs/asan.* <<'PY'
import re, sys
OURS = re.compile(r"(?:^|[\s/(])((?:record|replay|model|report|engine|output|common|fleet|cli|tests|bench)/[\w./-]+\.[ch]):\d+")
FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ in (.*)$")
for path in sys.argv[1:]:
    hits = set()
    # one report per block: an error, a runtime error, a leak
    blocks = re.split(r"\n(?===\d+==ERROR|\S+: runtime error|Direct leak|Indirect leak)",
                      open(path, errors="replace").read())
    for block in blocks:
        m = re.match(r"(\S+): runtime error", block)
        if m and OURS.search(" " + m.group(1)):
            hits.add(OURS.search(" " + m.group(1)).group(1))
            continue
        # the first frame outside the sanitizer runtime: where it happened
        # (an error) or who allocated (a leak); a library frame there means
        # the library's own fault, contained in the reader child
        for line in block.splitlines():
            f = FRAME.match(line)
            if not f or re.search(r"libsanitizer|/lib(a|ub|l)san|compiler-rt", f.group(1)):
                continue
            o = OURS.search(" " + f.group(1))
            if o:
                hits.add(o.group(1))
            break
    if hits:
        print(f"{path}: names {', '.join(sorted(hits))}")
PY
)
			if [ -n "$ours" ]; then
				echo "FAIL: sanitizer reports naming our code:"
				echo "$ours"
				echo '{"name": "sanitizer-reports", "result": "FAIL"}' > build-asan.fail.json
				logs+=(build-asan.fail.json)
				status=1
			fi
		fi
	else
		echo "build-asan: the sanitizer build failed"
		echo '{"name": "build-asan", "result": "FAIL"}' > build-asan.fail.json
		logs+=(build-asan.fail.json)
		status=1
	fi
fi

python3 - "${logs[@]}" <<'PY'
import json, os, sys
passed = failed = skipped = 0
for path in sys.argv[1:]:
    if not os.path.exists(path):
        failed += 1
        continue
    for line in open(path):
        r = json.loads(line).get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
PY
rm -f build-asan.fail.json
exit $status

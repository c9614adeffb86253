#!/usr/bin/env bash
# Fuzz the trace reader and the replay state machine with libFuzzer (clang).
#
#   scripts/fuzz.sh [reader|state|all] [SECONDS] [-- LIBFUZZER-ARGS]
#       Build tests/fuzz/ into build-fuzz/ (-fsanitize=fuzzer,address,undefined)
#       and run each target SECONDS (default 300) on a working corpus in
#       build-fuzz/corpus-TARGET, seeded from tests/fuzz/corpus/TARGET.
#       Crashes land in build-fuzz/ as crash-*; reproduce with
#       build-fuzz/fuzz-TARGET build-fuzz/crash-...
#   scripts/fuzz.sh --ci          both targets, 30 s each (scripts/test.sh runs it)
#
# Needs clang (Debian package clang; scripts/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."

targets=all secs=300
if [ "${1:-}" = "--ci" ]; then
	secs=30; shift
fi
case "${1:-}" in reader|state|all) targets=$1; shift ;; esac
case "${1:-}" in [0-9]*) secs=$1; shift ;; esac
[ "${1:-}" = "--" ] && shift
[ "$targets" = all ] && targets="reader state"

command -v clang >/dev/null || {
	# scripts/setup.sh installs clang: in CI its absence is a failure
	[ "${CI:-}" = true ] && { echo "fuzz: clang not installed (scripts/setup.sh installs it)" >&2; exit 1; }
	echo "fuzz: SKIP: clang not installed (scripts/setup.sh installs it)" >&2; exit 77; }
out=${FUZZ_OUT:-build-fuzz}
mkdir -p "$out"
pc=$(pkg-config --cflags --libs libtracecmd libtraceevent libzstd)
flags=(-std=c11 -D_GNU_SOURCE -g -O1 -I. -Wall -Wextra -Werror
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
for t in $targets; do
	# the whole replay stage: whatever state.c or decode.c call is there
	src=(tests/fuzz/fuzz_$t.c replay/*.c common/*.c)
	# shellcheck disable=SC2086
	clang "${flags[@]}" "${src[@]}" -o "$out/fuzz-$t" $pc -lm
done

status=0
for t in $targets; do
	corpus="$out/corpus-$t"
	mkdir -p "$corpus"
	cp -n tests/fuzz/corpus/$t/* "$corpus"/ 2>/dev/null || true
	echo "fuzz-$t: ${secs}s" >&2
	# The library's own complaints go to the child's /dev/null; ours are ASan's.
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
	LSAN_OPTIONS=print_suppressions=0:suppressions=tests/lsan.supp \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$out/fuzz-$t" -max_total_time="$secs" -max_len=1048576 -rss_limit_mb=2048 \
		-timeout=25 -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 -artifact_prefix="$out/" "$@" "$corpus" \
		2> "$out/fuzz-$t.log" || status=$?
	grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)|^==[0-9]+==ERROR|SUMMARY|Test unit written" "$out/fuzz-$t.log" >&2 || true
	tail -1 "$out/fuzz-$t.log" >&2
done
exit $status

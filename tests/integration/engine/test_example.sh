#!/usr/bin/env bash
# The public API from outside: examples/pulls (built against the shared
# library) prints the same pulls as the CLI's JSON report for that policy;
# then `meson install` into a temporary root installs libidlereplay.so.0,
# idlereplay.h and idlereplay.pc, and the example compiled from that root
# with pkg-config alone (no project header on the path) runs the same.
set -uo pipefail
IR=${IDLEREPLAY:?}
SRC=${IR_SOURCE_ROOT:?}
BUILD=${IR_BUILD_ROOT:?}
PULLS=${IR_EXAMPLE:?}
WORK=$(mktemp -d /tmp/ir-example.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

T=$SRC/tests/data/host-hackbench.dat
for pol in baseline domain-cost:preset=cover proportional:seed=3; do
	"$IR" replay "$T" --quiet --policy "$pol" --json "$WORK/r.json" || fail "replay $pol"
	want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["policies"][0]["pulls"]["total"])' "$WORK/r.json")
	got=$("$PULLS" "$T" "$pol") || fail "example $pol exited $?"
	[ "$got" = "$pol pulls $want" ] || fail "example $pol: '$got', report says $want"
done
"$PULLS" "$T" nosuch 2>"$WORK/err" && fail "example: unknown policy accepted"
grep -q "unknown policy 'nosuch'" "$WORK/err" || fail "example: error line '$(cat "$WORK/err")'"

meson install -C "$BUILD" --destdir "$WORK/root" --no-rebuild --quiet >/dev/null 2>&1 ||
	meson install -C "$BUILD" --destdir "$WORK/root" --no-rebuild >"$WORK/install.log" 2>&1 ||
	{ cat "$WORK/install.log" >&2; fail "meson install"; }
so=$(find "$WORK/root" -name 'libidlereplay.so.0' | head -1)
pc=$(find "$WORK/root" -name 'idlereplay.pc' | head -1)
hdr=$(find "$WORK/root" -name 'idlereplay.h' | head -1)
[ -n "$so" ] && [ -n "$pc" ] && [ -n "$hdr" ] || fail "install: .so.0 '$so', .pc '$pc', header '$hdr'"
objdump -p "$so" | grep -q 'SONAME *libidlereplay.so.0$' || fail "soname"
# only the public API is exported
extra=$(nm -D --defined-only "$so" | awk '$2 == "T" && $3 !~ /^idlereplay_/' | head -3)
[ -z "$extra" ] || fail "exports beyond idlereplay_*: $extra"
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$WORK/root
flags=$(pkg-config --cflags --libs idlereplay) || fail "pkg-config idlereplay"
# a sanitizer build installs an instrumented library: its runtime must come
# first in the program that links it
san=
case $(nm -D "$so") in *' U __asan_init'*) san="-fsanitize=address,undefined" ;; esac
cc -std=c11 -Wall -Wextra -Werror $san -o "$WORK/pulls" "$SRC/examples/pulls.c" $flags || fail "compile against the installed tree"
got=$(LD_LIBRARY_PATH=$(dirname "$so") "$WORK/pulls" "$T" baseline) || fail "installed example exited $?"
"$IR" replay "$T" --quiet --policy baseline --json "$WORK/r.json"
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["policies"][0]["pulls"]["total"])' "$WORK/r.json")
[ "$got" = "baseline pulls $want" ] || fail "installed example: '$got', report says $want"
echo "ok: example and installed library agree with the report ($got)"

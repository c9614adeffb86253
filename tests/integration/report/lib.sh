# Shared by the report integration tests.
set -u
IR=${IDLEREPLAY:?}
SRC=${IR_SOURCE_ROOT:?}
FIX=$SRC/tests/unit/report/fixtures
SCHEMA=$SRC/report/schema.json
VALIDATE=$SRC/tests/unit/report/validate.py
SAMPLE=$SRC/samples/host-hackbench.dat
WORK=$(mktemp -d /tmp/ir-report-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
# expect CODE CMD...: run, check the exit code.
expect() {
	local want=$1; shift
	"$@" >"$WORK/out" 2>"$WORK/err"
	local got=$?
	[ "$got" = "$want" ] || { cat "$WORK/err" >&2; fail "'$*' exited $got, want $want"; }
}

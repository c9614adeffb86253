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
# A tool scripts/setup.sh installs: its absence is the project's to fix, so
# in CI (CI=true) it fails; elsewhere the test skips and says why.
missing_tool() {
	[ "${CI:-}" = true ] && fail "$* (scripts/setup.sh installs it)"
	skip "$* (scripts/setup.sh installs it)"
}
# expect CODE CMD...: run, check the exit code.
expect() {
	local want=$1; shift
	"$@" >"$WORK/out" 2>"$WORK/err"
	local got=$?
	[ "$got" = "$want" ] || { cat "$WORK/err" >&2; fail "'$*' exited $got, want $want"; }
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# gen_broken.py takes no option for OUTDIR: --help prints the usage and
# makes nothing, an unknown option or a missing TRACE is a usage error
# (exit 2), and no directory named after an option appears.
set -u
GEN=${GEN_BROKEN:?}
WORK=$(mktemp -d /tmp/ir-genargs-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$WORK" || exit 1
: > t.dat

python3 "$GEN" --help > out 2> err || fail "--help exited $?"
grep -q "usage:" out || fail "--help printed no usage: $(cat out err)"
python3 "$GEN" --bogus outdir t.dat > out 2> err
rc=$?
[ $rc = 2 ] || fail "--bogus exited $rc, want 2"
grep -q -- "--bogus" err || fail "--bogus not named: $(cat err)"
python3 "$GEN" outdir > out 2> err
rc=$?
[ $rc = 2 ] || fail "no TRACE exited $rc, want 2"
[ -z "$(ls -A | grep -v '^t\.dat$\|^out$\|^err$')" ] || fail "files made: $(ls -A)"
echo ok

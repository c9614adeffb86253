#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# No test, benchmark or doc names a system path (/dev, /proc, /sys) as an
# output file of idlereplay: as root, a run of an idlereplay without the
# in-place rule renames over it and breaks the machine.  Use a temp dir
# file, or "-" with the shell's redirection.
set -u
SRC=${IR_SOURCE_ROOT:?}
cd "$SRC" || exit 1
files() { git ls-files -z 2>/dev/null | grep -qz . && git ls-files -z ||
	find . -path './build*' -prune -o -path ./.git -prune -o -type f -print0; }
hits=$(files | xargs -0 grep -nE -- '(--json|--html|--decisions|--output|[[:space:]]-o)[ =]+"?/(dev|proc|sys)/' 2>/dev/null |
	grep -v '^tests/integration/output/test_no_system_outputs.sh:')
if [ -n "$hits" ]; then
	echo "FAIL: system paths named as outputs:"
	echo "$hits"
	exit 1
fi
echo ok

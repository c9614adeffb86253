#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# One fleet job: replay the INDEX-th trace (0-based) of LIST, a file with one
# trace path a line, into OUTDIR/NAME.json and OUTDIR/NAME.log (NAME: the
# trace's file name without .dat; NAME-INDEX when another line of LIST has
# that file name too, as /fleet/HOST/trace.dat do: each job decides alone,
# so two jobs never write one report); extra arguments go to the replay.
# The same job for every engine: GNU parallel, a Kubernetes Indexed Job
# ($JOB_COMPLETION_INDEX), a Slurm array ($SLURM_ARRAY_TASK_ID).  Merge
# afterwards with 'idlereplay report merge OUTDIR/*.json' (docs/fleet.md).
#
# usage: replay-one.sh INDEX LIST OUTDIR [REPLAY OPTIONS]
set -eu
[ $# -ge 3 ] || { echo "usage: $0 INDEX LIST OUTDIR [REPLAY OPTIONS]" >&2; exit 1; }
index=$1 list=$2 out=$3
shift 3
IR=${IDLEREPLAY:-idlereplay}
trace=$(sed -n "$((index + 1))p" "$list")
[ -n "$trace" ] || { echo "$0: no trace at index $index of $list" >&2; exit 1; }
name=$(basename "$trace" .dat)
if [ "$(sed 's,.*/,,; s,\.dat$,,' "$list" | grep -cxF -- "$name")" -gt 1 ]; then
	name=$name-$index
fi
mkdir -p "$out"
if "$IR" replay "$trace" --quiet --json "$out/$name.json" "$@" 2>"$out/$name.log"; then
	[ -s "$out/$name.log" ] || rm -f "$out/$name.log"
else
	status=$?
	cat "$out/$name.log" >&2
	exit $status
fi

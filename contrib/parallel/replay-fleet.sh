#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Replay a fleet's traces with GNU parallel (Debian package 'parallel'),
# on this machine or on the machines of an --sshloginfile, one job per
# trace, then merge.  A failed trace is listed by parallel's --joblog and
# does not stop the others.
#
# usage: replay-fleet.sh LIST OUTDIR [SSHLOGINFILE]
#   LIST: one trace path a line (paths as the workers see them: a shared
#   file system, or add --transferfile {} --return ... for parallel to copy)
#   SSHLOGINFILE: one 'N/user@host' a line; ':' is this machine
#   (sshloginfile.example).  Workers need idlereplay on their PATH; here
#   (the merge) $IDLEREPLAY names it, as for replay-one.sh, else PATH.
set -eu
list=$1 out=$2 logins=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
n=$(wc -l < "$list")
set -- --jobs 100% --joblog "$out/joblog.tsv"
[ -n "$logins" ] && set -- "$@" --sshloginfile "$logins"
status=0
seq 0 $((n - 1)) | parallel "$@" "$here/replay-one.sh" {} "$list" "$out" || status=$?
# parallel's exit status is the number of failed jobs (up to 101)
IR=${IDLEREPLAY:-idlereplay}
"$IR" report merge "$out"/*.json --format html -o "$out/fleet.html"
"$IR" report merge "$out"/*.json --format csv -o "$out/fleet.csv"
"$IR" report merge "$out"/*.json -o "$out/fleet.txt"
exit $status

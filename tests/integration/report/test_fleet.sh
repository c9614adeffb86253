#!/usr/bin/env bash
# Fleets: 'idlereplay fleet' replays many traces (a broken one and a
# duplicate among them: listed with their errors, the others go on), each
# report equal to a lone replay's; -j 1 and -j 2 give the same fleet report.
# The contrib/ paths give the same merged figures: GNU parallel with an
# sshloginfile naming this machine, the Kubernetes Indexed Job's and the
# Slurm array's commands run with their index variables set.
. "$(dirname "$0")/lib.sh"
export PATH="$(dirname "$IR"):$PATH"	# contrib scripts call 'idlereplay'
D=$SRC/tests/data
mkdir -p "$WORK/x" "$WORK/y"
printf 'not a trace' > "$WORK/broken.dat"
cp "$D/host-pipe.dat" "$WORK/x/pipe.dat"
cp "$D/host-pipe.dat" "$WORK/y/pipe.dat"	# the same trace under another path
traces=("$SAMPLE" "$WORK/broken.dat" "$D/vm-ab/hb_ni_1.dat" "$D/vm-ab/hb_noni_1.dat" "$WORK/x/pipe.dat" "$WORK/y/pipe.dat")

expect 2 "$IR" fleet -d "$WORK/f2" -j 2 "${traces[@]}"
grep -q "^FAILED $WORK/broken.dat: .*not a trace.dat file" "$WORK/out" || fail "fleet: broken trace not listed: $(cat "$WORK/out")"
grep -q "^FAILED $WORK/y/pipe.dat: .*the same trace as" "$WORK/out" || fail "fleet: duplicate trace not listed"
grep -q '^4 of 6 traces replayed' "$WORK/out" || fail "fleet: summary line: $(tail -1 "$WORK/out")"
for n in host-hackbench hb_ni_1 hb_noni_1 pipe; do
	[ -s "$WORK/f2/$n.json" ] || fail "fleet: no report $n.json"
done
# the duplicate's report is removed (it said so), so that merging the directory's reports
# gives the fleet report again (it was left, and 'report merge DIR/*.json' refused it)
[ -e "$WORK/f2/pipe-2.json" ] && fail "fleet: the duplicate's report pipe-2.json is left"
grep -q "^FAILED $WORK/y/pipe.dat: .*; $WORK/f2/pipe-2.json removed$" "$WORK/out" || fail "fleet: removal not said"
[ "$("$IR" report merge --format csv "$WORK"/f2/*.json | sort)" = "$(sort "$WORK/f2/fleet.csv")" ] ||
	fail "fleet: merging DIR/*.json differs from fleet.csv"
[ -s "$WORK/f2/broken.log" ] || fail "fleet: the broken trace's log is missing"
# each report is what a lone replay writes
"$IR" replay "$D/vm-ab/hb_ni_1.dat" --quiet --json "$WORK/lone.json" || fail "lone replay"
cmp -s "$WORK/lone.json" "$WORK/f2/hb_ni_1.json" || fail "fleet: hb_ni_1.json differs from a lone replay's"
# the merged report lists the failures near the top, then the headline
sed -n 2p "$WORK/f2/fleet.txt" | grep -q '^WARNING: 2 traces gave no report' || fail "fleet.txt: failures not at the top"
grep -q '^Headline' "$WORK/f2/fleet.txt" || fail "fleet.txt: no headline"
[ "$(grep -c '' "$WORK/f2/fleet.csv")" = 9 ] || fail "fleet.csv: want header + 4 hosts + total, median, p10, p90"
grep -q '</html>' "$WORK/f2/fleet.html" || fail "fleet.html incomplete"
# one job at a time: the same fleet report
expect 2 "$IR" fleet -d "$WORK/f1" -j 1 "${traces[@]}"
cmp -s "$WORK/f1/fleet.csv" "$WORK/f2/fleet.csv" || fail "fleet: -j 1 and -j 2 differ"

# reference: report merge of the four good reports
good=("$SAMPLE" "$D/vm-ab/hb_ni_1.dat" "$D/vm-ab/hb_noni_1.dat" "$WORK/x/pipe.dat")
printf '%s\n' "${good[@]}" > "$WORK/list.txt"
merged_csv() { "$IR" report merge --format csv "$@" | sort; }
want=$(merged_csv "$WORK/f2/host-hackbench.json" "$WORK/f2/hb_ni_1.json" "$WORK/f2/hb_noni_1.json" "$WORK/f2/pipe.json")

# GNU parallel, an sshloginfile whose one worker is this machine (':')
printf ':\n' > "$WORK/logins"
"$SRC/contrib/parallel/replay-fleet.sh" "$WORK/list.txt" "$WORK/par" "$WORK/logins" >"$WORK/par.out" 2>&1 ||
	{ cat "$WORK/par.out" >&2; fail "contrib/parallel/replay-fleet.sh"; }
[ "$(tail -n +2 "$WORK/par/joblog.tsv" | wc -l)" = 4 ] || fail "parallel: joblog does not list 4 jobs"
[ "$(merged_csv "$WORK/par"/*.json)" = "$want" ] || fail "parallel: merged figures differ from fleet's"
[ -s "$WORK/par/fleet.html" ] || fail "parallel: no fleet.html"
# the binary named by IDLEREPLAY alone (not on PATH), as replay-one.sh takes it: the merge too
env PATH=/usr/bin:/bin IDLEREPLAY="$IR" "$SRC/contrib/parallel/replay-fleet.sh" "$WORK/list.txt" "$WORK/par3" \
	>"$WORK/par3.out" 2>&1 || { cat "$WORK/par3.out" >&2; fail "replay-fleet.sh with IDLEREPLAY, not PATH"; }
[ "$(sort "$WORK/par3/fleet.csv")" = "$want" ] || fail "parallel (IDLEREPLAY): merged figures differ from fleet's"
# a failing job is reported by parallel, the others still run
printf '%s\n' "$WORK/broken.dat" >> "$WORK/list.txt"
"$SRC/contrib/parallel/replay-fleet.sh" "$WORK/list.txt" "$WORK/par2" >"$WORK/par2.out" 2>&1
[ $? = 1 ] || fail "parallel: one failed job should exit 1"
[ "$(ls "$WORK/par2"/*.json | grep -vc fleet)" = 4 ] || fail "parallel: the good traces were not all replayed"
sed -i '$d' "$WORK/list.txt"

# Kubernetes Indexed Job: its container's command and args, with JOB_COMPLETION_INDEX
/usr/bin/python3 - "$SRC/contrib/kubernetes/indexed-job.yaml" > "$WORK/k8s.args" <<'PY' || fail "indexed-job.yaml"
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
assert job["kind"] == "Job" and job["spec"]["completionMode"] == "Indexed"
c = job["spec"]["template"]["spec"]["containers"][0]
print("\n".join(c["command"] + c["args"]))
PY
for i in 0 1 2 3; do
	mapfile -t cmd < "$WORK/k8s.args"
	cmd=("${cmd[@]//\$(JOB_COMPLETION_INDEX)/$i}")
	cmd=("${cmd[@]//\/traces\/list.txt/$WORK/list.txt}")
	cmd=("${cmd[@]//\/traces\/reports/$WORK/k8s}")
	cmd[0]=$SRC/contrib/replay-one.sh	# the image installs it at command[0]
	JOB_COMPLETION_INDEX=$i "${cmd[@]}" || fail "k8s job $i"
done
[ "$(merged_csv "$WORK/k8s"/*.json)" = "$want" ] || fail "kubernetes: merged figures differ from fleet's"

# Slurm array: the batch script with SLURM_ARRAY_TASK_ID
for i in 0 1 2 3; do
	SLURM_ARRAY_TASK_ID=$i sh "$SRC/contrib/slurm/replay-array.sbatch" "$WORK/list.txt" "$WORK/slurm" ||
		fail "slurm task $i"
done
[ "$(merged_csv "$WORK/slurm"/*.json)" = "$want" ] || fail "slurm: merged figures differ from fleet's"

# every host's trace called trace.dat (/fleet/HOST/trace.dat): one report each, none overwritten
mkdir -p "$WORK/h1" "$WORK/h2"
cp "$SAMPLE" "$WORK/h1/trace.dat" && cp "$D/host-pipe.dat" "$WORK/h2/trace.dat"
printf '%s\n' "$WORK/h1/trace.dat" "$WORK/h2/trace.dat" "$D/vm-ab/hb_ni_1.dat" > "$WORK/same.txt"
for i in 0 1 2; do "$SRC/contrib/replay-one.sh" $i "$WORK/same.txt" "$WORK/same" || fail "replay-one.sh $i of same.txt"; done
[ "$(cd "$WORK/same" && ls)" = "$(printf '%s\n' hb_ni_1.json trace-0.json trace-1.json)" ] ||
	fail "replay-one.sh: traces of one file name: $(ls "$WORK/same" | tr '\n' ' ')"
"$IR" replay "$D/host-pipe.dat" --quiet --json "$WORK/lone-pipe.json" || fail "lone replay of host-pipe"
cmp -s <(sed 's,"path":"[^"]*",,' "$WORK/same/trace-1.json") <(sed 's,"path":"[^"]*",,' "$WORK/lone-pipe.json") ||
	fail "replay-one.sh: trace-1.json is not h2/trace.dat's report"

# a replay that lost more events than --max-lost allows wrote its report (its exit 3): merged,
# listed as LOST EVENTS, the fleet's exit 3 (it was listed as FAILED and left out of the merge,
# while 'report merge DIR/*.json' took it)
python3 - "$WORK/lost.dat" <<'PY' || fail "lost-events trace"
import sys
sys.path.insert(0, __import__("os").environ["IR_SOURCE_ROOT"] + "/tests/hostile")
import tracedat as T
ev = T.workload(0, 3000)
data = b"".join(T.pages(ev[i:i + 30], missed={0: 7} if (i // 30) % 2 else None) for i in range(0, len(ev), 30))
t = T.Trace()
t.buffers = [("", {0: data, 1: T.pages(T.workload(1, 40))})]
open(sys.argv[1], "wb").write(t.build())
PY
"$IR" replay "$WORK/lost.dat" --quiet --json "$WORK/lost-alone.json" 2>/dev/null
[ $? = 3 ] || fail "lost.dat: its replay should exit 3"
expect 3 "$IR" fleet -d "$WORK/fl" "$WORK/lost.dat" "$D/host-pipe.dat"
grep -q "^LOST EVENTS $WORK/lost.dat (merged): .*more than --max-lost" "$WORK/out" || fail "fleet: lost trace not listed: $(cat "$WORK/out")"
grep -q '^FAILED' "$WORK/out" && fail "fleet: a lost-events trace listed as failed"
grep -q '^2 of 2 traces replayed' "$WORK/out" || fail "fleet: summary: $(tail -1 "$WORK/out")"
[ "$(grep -c '' "$WORK/fl/fleet.csv")" = 7 ] || fail "fleet.csv: want header + 2 hosts + total, median, p10, p90"
sed -n 2p "$WORK/fl/fleet.txt" | grep -q '^WARNING: 1 of 2 hosts lost events' || fail "fleet.txt: lost events not warned"
[ "$("$IR" report merge --format csv "$WORK"/fl/*.json | sort)" = "$(sort "$WORK/fl/fleet.csv")" ] ||
	fail "fleet: merging DIR/*.json differs from fleet.csv (lost events)"

expect 1 "$IR" fleet "$SAMPLE"
expect 1 "$IR" fleet -d "$WORK/f3" -j 0 "$SAMPLE"
echo ok

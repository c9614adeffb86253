#!/usr/bin/env bash
# Issue 11, "A CLI that says what is wrong": each wrong use gets one line on
# stderr naming what is wrong (and what would be right), exit 1 for usage,
# never a usage dump, never a silent acceptance.  Expectations are written
# from the issue's wording, not from the tool's output.
set -uo pipefail
IR=${IDLEREPLAY:?}
SRC=${IR_SOURCE_ROOT:?}
WORK=$(mktemp -d /tmp/ir-usage.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
T=$SRC/tests/data/host-hackbench.dat		# 2 CPUs
N=$SRC/tests/data/vm-numa/d_idle_periodic_wakers.dat	# 8 CPUs, probes
# err CODE PATTERN CMD...: exit CODE, exactly one stderr line matching PATTERN
err() {
	local want=$1 pat=$2; shift 2
	"$@" >"$WORK/out" 2>"$WORK/err"
	local got=$?
	[ "$got" = "$want" ] || { cat "$WORK/err" >&2; fail "'$*' exited $got, want $want"; }
	[ "$(wc -l < "$WORK/err")" = 1 ] || { cat "$WORK/err" >&2; fail "'$*': want one line on stderr"; }
	grep -Eq -- "$pat" "$WORK/err" || fail "'$*': stderr '$(cat "$WORK/err")' does not match '$pat'"
}

# --topology that does not match the trace's CPUs, both ways
err 1 "describes 8 CPUs .* but .*host-hackbench.dat holds 2" "$IR" replay "$T" --quiet --topology sockets=2,cores=2,threads=2
err 1 "describes 2 CPUs .* but .*d_idle_periodic_wakers.dat holds 8" "$IR" replay "$N" --quiet --topology sockets=1,cores=2
err 1 "describes 2 CPUs" "$IR" calibrate "$N" --topology sockets=1,cores=2

# --reference not among the replayed policies; parameters a policy does not read
err 1 "--reference nosuch is not among the replayed policies \(mainline, domain-cost:preset=cover\)" \
	"$IR" replay "$T" --quiet --policy mainline --policy domain-cost:preset=cover --reference nosuch
err 1 "no parameter 'preset' \(baseline takes sysctl_sched_migration_cost, LEVEL.max_newidle_lb_cost" \
	"$IR" replay "$T" --quiet --policy baseline:preset=cover
err 1 "no parameter 'seed' \(baseline takes " "$IR" replay "$T" --quiet --policy baseline:seed=3
err 1 "no parameter 'mc.migration_cost' \(baseline takes " \
	"$IR" replay "$T" --quiet --sweep baseline.mc.migration_cost=0:1ms:100us
"$IR" replay "$T" --quiet --policy baseline --policy domain-cost:preset=cover --reference domain-cost:preset=cover \
	--json "$WORK/r.json" || fail "a valid --reference"

# --timeline without an output that shows it, --detail outside the trace: warnings
err 0 "warning: --timeline and --detail fill the JSON and HTML reports only" "$IR" replay "$T" --quiet --timeline
err 0 "host-hackbench.dat: warning: --detail starts 100.000 s after the trace start but the trace spans [0-9.]+ s: the detailed timeline is empty" \
	"$IR" replay "$T" --quiet --detail 100s:5ms --json "$WORK/d.json"
"$IR" replay "$T" --quiet --detail 0.5s:5ms --json "$WORK/d.json" 2>"$WORK/err" && [ ! -s "$WORK/err" ] ||
	fail "--detail inside the trace: '$(cat "$WORK/err")'"
# one duration parser, range errors name the valid range
err 1 "bad duration '5min' for --tick \(0 to 1000000000s" "$IR" replay "$T" --quiet --tick 5min

# calibrate: levels named from the topology, no guess without one, a complete command
err 1 "d_idle_periodic_wakers.dat: the trace records no topology, so the probed levels sd0..sd2 cannot be named: give --topology" \
	"$IR" calibrate "$N"
TOPO=sockets=2,cores=2,threads=2,nodes=2	# levels SMT (threads), MC (a socket), NUMA (two nodes)
"$IR" calibrate "$N" --topology "$TOPO" --json "$WORK/cal.json" >/dev/null || fail "calibrate --topology"
python3 - "$WORK/cal.json" "$TOPO" <<'PY' || fail "calibrate suggestion"
import json, sys
c = json.load(open(sys.argv[1])); topo = sys.argv[2]
opts = c["suggested"]["replay_options"].split()
st = c["stats"]
want = "smt.max_newidle_lb_cost=%d,mc.max_newidle_lb_cost=%d,numa.max_newidle_lb_cost=%d" % (
    st["sd0_max_newidle_lb_cost"]["p50"], st["sd1_max_newidle_lb_cost"]["p50"], st["sd2_max_newidle_lb_cost"]["p50"])
assert opts[:2] == ["--topology", topo], opts[:2]
pols = [opts[i + 1] for i in range(len(opts)) if opts[i] == "--policy"]
assert [p.split(":")[0] for p in pols] == ["baseline", "domain-cost", "no-check", "mainline", "bump", "proportional"], pols
assert all(p.split(":")[1] == want for p in pols), (pols[0], want)
PY
# the suggested command is complete: it runs as printed
"$IR" replay "$N" --quiet $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["suggested"]["replay_options"])' "$WORK/cal.json") ||
	fail "the suggested replay options do not run"

# report compare / merge pair by label and parameters, say what has no
# partner, warn on different CPU counts or topologies
"$IR" replay "$T" --quiet --policy domain-cost --policy proportional:seed=1 --policy mainline --json "$WORK/a.json" &&
"$IR" replay "$T" --quiet --policy domain-cost:preset=retest --policy domain-cost:preset=cover \
	--policy proportional:seed=7 --policy mainline --json "$WORK/b.json" || fail "replays for compare"
(cd "$WORK" && "$IR" report compare a.json b.json) > "$WORK/cmp.txt" 2>"$WORK/err" || fail "compare exited $?"
[ ! -s "$WORK/err" ] || fail "compare of same-machine reports warned: $(cat "$WORK/err")"
# domain-cost is domain-cost:preset=retest (the default preset): one pair under A's label
grep -q '^Policy domain-cost  ' "$WORK/cmp.txt" || fail "compare: domain-cost and its retest preset not paired"
grep -q '^Policy mainline  ' "$WORK/cmp.txt" || fail "compare: mainline not paired"
grep -q '^Policy proportional:seed=1: only in A' "$WORK/cmp.txt" || fail "compare: seed 1 paired with seed 7"
grep -q '^Policy proportional:seed=7: only in B' "$WORK/cmp.txt" || fail "compare: seed 7 has a partner"
grep -q '^Policy domain-cost:preset=cover: only in B' "$WORK/cmp.txt" || fail "compare: cover paired with retest"
[ "$(grep -c '^Policy ' "$WORK/cmp.txt")" = 5 ] || fail "compare: want 2 pairs and 3 unpaired: $(grep '^Policy' "$WORK/cmp.txt")"
# merge refuses the same trace twice: B's policies on another trace
"$IR" replay "$SRC/tests/data/host-pipe.dat" --quiet --policy domain-cost:preset=retest --policy domain-cost:preset=cover \
	--policy proportional:seed=7 --policy mainline --json "$WORK/b2.json" || fail "replay for merge"
(cd "$WORK" && "$IR" report merge --name hb --name pipe a.json b2.json) > "$WORK/merge.txt" 2>"$WORK/err" ||
	fail "merge exited $?: $(cat "$WORK/err")"
grep -A1 '^Policy proportional:seed=7$' "$WORK/merge.txt" | grep -q 'no policy with these parameters in: hb$' ||
	fail "merge: seed 7's missing partner not named"
[ "$(grep -c "^Policy " "$WORK/merge.txt")" = 5 ] || fail "merge: want 5 distinct policies: $(grep '^Policy' "$WORK/merge.txt")"
"$IR" replay "$N" --quiet --policy mainline --json "$WORK/n-flat.json" &&
"$IR" replay "$SRC/tests/data/vm-numa/a_hackbench_proc_sockets.dat" --quiet --policy mainline \
	--topology sockets=2,cores=2,threads=2,nodes=2 --json "$WORK/n-numa.json" ||
	fail "replays for topology warnings"
(cd "$WORK" && "$IR" report compare a.json n-flat.json) > /dev/null 2>"$WORK/err" || fail "compare 2 vs 8 CPUs"
grep -q "^idlereplay: warning: n-flat.json has 8 CPUs but a.json 2" "$WORK/err" || fail "no CPU-count warning: $(cat "$WORK/err")"
(cd "$WORK" && "$IR" report merge n-flat.json n-numa.json) > /dev/null 2>"$WORK/err" || fail "merge flat vs numa"
grep -q "^idlereplay: warning: n-numa.json was replayed with another topology than n-flat.json (levels SMT MC NUMA against MC)" "$WORK/err" ||
	fail "no topology warning: $(cat "$WORK/err")"

# usage errors name the argument; no usage dump
err 1 "replay: unknown option '--bogus'" "$IR" replay "$T" --bogus
err 1 "replay: --json needs a value" "$IR" replay "$T" --json
err 1 "replay: --quiet takes no value" "$IR" replay "$T" --quiet=1
err 1 "replay: no TRACE given" "$IR" replay
err 1 "replay: unexpected argument 'extra'" "$IR" replay "$T" extra
err 1 "calibrate: unknown option '-x'" "$IR" calibrate "$N" -x
err 1 "record: unknown option '--nope'" "$IR" record --nope
err 1 "topology: unknown option '--nope'" "$IR" topology --nope
err 1 "report compare: expected two reports" "$IR" report compare "$WORK/r.json"
err 1 "report: -o needs a value" "$IR" report "$WORK/r.json" -o
# export: its own name and help in its errors, one line (it once printed its whole usage first,
# and an unknown option was blamed on 'replay')
err 1 "^idlereplay: export: --perfetto FILE is required \(see 'idlereplay help export'\)$" "$IR" export "$T"
err 1 "^idlereplay: export: unknown option '--bogus' \(see 'idlereplay help export'\)$" \
	"$IR" export "$T" --perfetto "$WORK/p.json" --bogus
[ -e "$WORK/p.json" ] && fail "export with a bad option wrote its output"
# fleet -d naming a file: refused before any replay, in one line, nothing on stdout
: > "$WORK/afile"
err 2 "^idlereplay: .*/afile: not a directory" "$IR" fleet -d "$WORK/afile" "$T"
[ -s "$WORK/out" ] && fail "fleet -d FILE: stdout '$(cat "$WORK/out")'"
# help CMD and --version
"$IR" help replay > "$WORK/h" || fail "help replay exited $?"
grep -q '^usage: idlereplay replay TRACE' "$WORK/h" || fail "help replay: '$(head -1 "$WORK/h")'"
"$IR" help record | grep -q '^usage: idlereplay record' || fail "help record"
err 1 "help: unknown command 'bogus'" "$IR" help bogus
"$IR" --version | grep -Eqx 'idlereplay [0-9]+\.[0-9]+\.[0-9]+' || fail "--version"
echo "ok"

#!/usr/bin/env python3
"""The replay's reconstruction against ground truth, per trace (issue 15):
newidle points, avg_idle, overload and early bails against the newidle
probes of the vm-* traces (probed mode, --probe-seed; points also without
it), and per-CPU idle time against tests/integration/replay/idle_parser.py
(an independent trace-cmd report parser with the symmetric repair rule).

  scripts/fidelity_replay.py [--idlereplay BIN] [--before BIN] [--markdown FILE]

--before BIN adds the same figures from another build (say, main's) side
by side.  --markdown writes the page docs/fidelity-replay.md."""
import argparse, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data")
PARSER = os.path.join(ROOT, "tests", "integration", "replay", "idle_parser.py")
TOPO = ["--topology", "sockets=2,cores=2,threads=2,nodes=2"]
TRACES = [("vm-numa/a_hackbench_proc_sockets.dat", TOPO, True), ("vm-numa/d_idle_periodic_wakers.dat", TOPO, True)] + \
    [("vm-ab/hb_%s.dat" % n, TOPO, True) for n in
     ("mc0_1", "mc0_3", "mc5ms_1", "mc5ms_3", "ni_1", "ni_3", "noni_1", "noni_3")] + \
    [("host-hackbench.dat", [], True), ("host-pipe.dat", [], True)]
TARGETS = "points P/R >= 0.995; avg_idle median <= 1 %, p90 <= 15 %; overload, early bail >= 97 %; idle within max(100 us, 0.1 %)"


def replay(binary, path, extra, tmp):
    out = os.path.join(tmp, "r.json")
    subprocess.run([binary, "replay", path, "--quiet", "--json", out] + extra, check=True)
    return json.load(open(out))


# the overload disagreements by the reason the replay gives for its flag
# (decisions file, overload_why): kept = set, no rq at 2, no rewrite more
# likely than not since (the kernel cleared it); walk = a probed newidle
# walk's top-level rewrite cleared it (NI_RANDOM's die said otherwise);
# periodic = cleared at the assumed periodic/NOHZ rate; other = rq_at_2 or
# never_set.
WHY = [("kept", "kept"), ("cleared_by_walk", "walk"), ("cleared_by_periodic", "periodic")]


def misses(path):
    n = {}
    for line in open(path):
        d = json.loads(line)
        if "overload_why" not in d:
            return None		# a build before the key
        p = d.get("probe")
        if not p or p.get("rd_overload") is None or (p["rd_overload"] != 0) == d["overload"]:
            continue
        k = dict(WHY).get(d.get("overload_why"), "other")
        n[k] = n.get(k, 0) + 1
    return " / ".join("%d" % n.get(k, 0) for k in [w[1] for w in WHY] + ["other"])


# Expected agreement: the NI_RANDOM die is a chance the trace does not show,
# so a call is scored by the probability the replay gives the kernel's value
# (overload_p: the flag's; the early bail's follows from it), not by a draw.
# The bail: ttwu_pending, or the kernel policy's bail for another reason
# (avg_idle under the first level's cost, migration cost) is sure; otherwise
# it bails exactly when the flag is clear.
def expected(path, policy, hard=False):
    ovl = ovl_n = bail = bail_n = 0.0
    for line in open(path):
        d = json.loads(line)
        if "overload_p" not in d:
            return None, None	# a build before the key
        p = d.get("probe")
        if not p:
            continue
        q = float(d["overload"]) if hard else d["overload_p"]
        if p.get("rd_overload") is not None:
            ovl_n += 1
            ovl += q if p["rd_overload"] else 1 - q
        why = [x["bail"] for x in d["policies"] if x["policy"] == policy][0]
        sure = d["ttwu_pending"] or why not in ("none", "not_overloaded")
        if why == "not_overloaded" and policy in ("mainline", "bump", "proportional"):
            c = p.get("sd_max_newidle_lb_cost") or []
            sure = sure or (bool(c) and c[0] >= 0 and d["avg_idle"] < c[0])
        pb = 1.0 if sure else 1 - q
        bail_n += 1
        bail += pb if p["early_bail"] else 1 - pb
    return (ovl / ovl_n if ovl_n else None), (bail / bail_n if bail_n else None)


def expected_checked(path, policy, g):
    """expected(), after checking that its hard form (each call scored by
    the flag the replay gives it) is the ground truth the replay reports"""
    o, b = expected(path, policy, hard=True)
    if o is None:
        return None, None
    if abs(o - g["overload_agreement"]) > 1e-9 or abs(b - g["early_bail_agreement"]) > 1e-9:
        sys.exit("%s: the expected agreement's hard form (%.6f, %.6f) is not the replay's (%.6f, %.6f)"
                 % (path, o, b, g["overload_agreement"], g["early_bail_agreement"]))
    return expected(path, policy)


PARSED = {}


def parsed(path):
    if path not in PARSED:
        PARSED[path] = json.loads(subprocess.run([sys.executable, PARSER, path], capture_output=True,
                                                 text=True, check=True).stdout)
    return PARSED[path]


def figures(binary, path, topo, idle, tmp):
    f = {}
    plain = replay(binary, path, topo, tmp)
    if plain["trace"].get("has_probes"):
        g = plain["ground_truth"]
        f["plain P"], f["plain R"] = g["point_precision"], g["point_recall"]
        dec = os.path.join(tmp, "d.jsonl")
        r = replay(binary, path, topo + ["--probe-seed", "--decisions", dec], tmp)
        g = r["ground_truth"]
        f["why"] = misses(dec)
        f["ovl exp"], f["bail exp"] = expected_checked(dec, r["fidelity"]["policy"], g)
        f["P"], f["R"] = g["point_precision"], g["point_recall"]
        f["med"], f["p90"] = g["avg_idle_rel_error"]["median"], g["avg_idle_rel_error"]["p90"]
        f["ovl"], f["bail"] = g["overload_agreement"], g["early_bail_agreement"]
        f["calls"] = g["calls"]
    if idle:
        ref = parsed(path)
        worst = 0.0
        for c in plain["observed"]["cpus"]:
            want = ref["cpus"][str(c["cpu"])]["idle_ns"]
            worst = max(worst, abs(c["idle_ns"] - want) / max(100000, want / 1000))
        f["idle"] = worst		# worst |diff| / tolerance: <= 1 passes
    return f


def fmt(v, pct=False):
    if v is None:
        return "-"
    return "%.2f %%" % (100 * v) if pct else "%.3f" % v


COLS = [("calls", "probed calls", None), ("P", "points P", False), ("R", "points R", False),
        ("plain P", "P (no probes)", False), ("plain R", "R (no probes)", False),
        ("med", "avg_idle median", True), ("p90", "avg_idle p90", True),
        ("ovl", "overload", True), ("ovl exp", "overload expected", True),
        ("why", "overload misses kept / walk / periodic / other", None),
        ("bail", "early bail", True), ("bail exp", "early bail expected", True),
        ("idle", "idle diff / tol", False)]


def cell(f, k, pct):
    v = f.get(k)
    if v is None:
        return "-"
    return str(v) if pct is None else fmt(v, pct)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--idlereplay", default=os.path.join(ROOT, "build", "cli", "idlereplay"))
    ap.add_argument("--before")
    ap.add_argument("--markdown")
    ap.add_argument("--trace", action="append", default=[], metavar="PATH",
                    help="measure this trace instead of tests/data's (repeatable)")
    ap.add_argument("--topology", metavar="SPEC",
                    help="the --trace files' topology (default: the one recorded in each trace, else one "
                         "flat LLC; a trace-cmd recording of the guest needs %s)" % TOPO[1])
    a = ap.parse_args()
    if a.topology and not a.trace:
        ap.error("--topology applies to --trace files only (tests/data's traces have theirs)")
    rows = []
    traces = [(os.path.join(DATA, rel), rel, topo, idle) for rel, topo, idle in TRACES]
    if a.trace:
        traces = [(p, os.path.basename(p), ["--topology", a.topology] if a.topology else [], True)
                  for p in a.trace]
    with tempfile.TemporaryDirectory() as tmp:
        for path, rel, topo, idle in traces:
            rows.append((rel, figures(a.idlereplay, path, topo, idle, tmp),
                         figures(a.before, path, topo, idle, tmp) if a.before else None))
    head = "| trace | " + " | ".join(c[1] for c in COLS) + " |"
    lines = [head, "|" + "---|" * (len(COLS) + 1)]
    for rel, f, b in rows:
        lines.append("| %s | %s |" % (rel, " | ".join(
            cell(f, k, p) + (" (%s)" % cell(b, k, p) if b is not None and k != "calls" else "") for k, _, p in COLS)))
    table = "\n".join(lines)
    print(table)
    print("\ntargets: " + TARGETS + ("; (before) in brackets" if a.before else ""))
    if a.markdown:
        with open(a.markdown, "w") as out:
            out.write("# Replay fidelity: reconstruction against ground truth\n\n"
                      "Generated by `scripts/fidelity_replay.py%s --markdown docs/fidelity-replay.md`; "
                      "do not edit by hand.\n\n" % (" --before BIN" if a.before else ""))
            out.write(table + "\n\n")
            out.write("Targets: " + TARGETS + "." + (" Figures in brackets: the build given as `--before`."
                                                      if a.before else "") + "\n\n")
            out.write(NOTES)


NOTES = """- *points P/R*: newidle points matched to the kernel's probed newidle calls
  (`kprobes:newidle_entry`), in probed mode (`--probe-seed`): precision =
  matched / points, recall = matched / calls.  Probed mode makes the idle
  task's re-entries into newidle balance points of their own (no switch
  shows them) and takes the lock-drop window from the probe.  *(no probes)*:
  the same from sched events alone; the calls it misses are those
  re-entries (`schedule_idle()` picking the idle task again emits no
  `sched_switch`): 3 of the 4 on `vm-numa/a`, all 4 on `hb_noni_1`.
- *avg_idle*: relative error of the reconstructed `rq->avg_idle` at each
  matched call against the probed value (probed mode: the cap and each CPU's
  first value come from the probes, the cap raised after a call that walked,
  see below).
- *overload*: reconstructed `rd->overload` against the probed flag.
  *overload misses*: those disagreements by the reason the replay gives for
  its flag (decisions file, `overload_why`), see below.
  *early bail*: whether the recording kernel's model bails out early
  (`!overload`, `avg_idle < sd->max_newidle_lb_cost`, `ttwu_pending`) against
  the probed values; on `vm-numa/a`, `hb_mc0_3`, `hb_mc5ms_3` and `hb_ni_1`
  all but two of its disagreements are overload ones (those two: avg_idle
  on the other side of the first level's cost).
- *overload expected*, *early bail expected*: the same calls, each scored by
  the probability the replay gives the kernel's value rather than by the
  flag it reads (decisions file, `overload_p`): a call whose probed flag is
  set scores `overload_p`, one whose flag is clear `1 - overload_p`; the
  early bail is sure when `ttwu_pending` or another of the kernel policy's
  bail tests holds, else it bails with probability `1 - overload_p`.  This
  is how a randomised rule is judged (issue 15: expected values): the
  NI_RANDOM die of a walk that reached the top is a chance the trace does
  not show, and a reconstruction that calls a 514/1024 die right half the
  time scores 1/2 per such call whichever way it calls it.  The draw is
  never taken from the probes: the replay's probability comes from the
  events, the probe of the call itself (its `avg_idle`, costs, `ret`,
  `ttwu_pending`) and nothing after it.  The script checks that the hard
  form of this score (each call scored by the flag the replay reads) is the
  replay's own *overload* and *early bail*.
- *idle diff / tol*: the worst CPU's |replay - parser| idle time divided by
  its tolerance max(100 us, 0.1 %): <= 1 passes.

Rules, each as the kernel states it (see `replay/state.c`):
- no newidle point for a task queued before the blocking switch
  (`__schedule()` holds the rq lock from `deactivate_task()` through
  `pick_next_task()`); only the CPU's own pulls, and with probes arrivals
  inside newidle's lock drop, count;
- `ttwu_pending` at newidle entry (v5.13+): no `idle_stamp`, the old one stays;
  from the probe, or from a wake-list wakeup in the events;
- the idle task's re-entry re-stamps `idle_stamp` and is a point (probed);
- `avg_idle` sampling site by release: `ttwu_do_wakeup()` (also from
  `ttwu_runnable()`) up to v6.2, `ttwu_do_activate()` only from v6.3
  (160fb0d83f20); `p == current` takes no sample from v5.4 (aacedf26fb76);
- the cap `2 * rq->max_idle_balance_cost` after a probed call that walked:
  v6.1 `newidle_balance()` ends with `max_idle_balance_cost = max(itself,
  curr_cost)`, so the wakeup after it caps `avg_idle` at twice the walk's
  cost, not at twice the value its entry probe read.  `curr_cost` is taken
  as the call's duration (the probe does not split it; an upper bound by
  microseconds of lock and probe overhead); an early bail (`!rd->overload`,
  `avg_idle` under the first level's cost, `ttwu_pending`) does not update
  it.  Before -> after: `avg_idle` p90 on `vm-numa/a` 8.47 -> 2.50 % (CPU
  2's 2.7 ms walk at 47.785855, the top level's `max_newidle_lb_cost` 49.6
  us -> 2.68 ms at its next call, left the kernel's cap at 5.4 ms while the
  replay's stayed at 1.5 ms: the next 20 calls read 14-64 % low),
  `hb_ni_3` 4.40 -> 1.19 % (median 0.25 -> 0.14 %), `hb_noni_3` 5.69 ->
  1.19 %; the other traces and every overload and early-bail figure
  unchanged;
- `rd->overload` sticky: set by `add_nr_running()` when an rq reaches 2
  (a wakeup's enqueue: `ttwu_do_activate()` calls `activate_task()` before
  `ttwu_do_wakeup()` emits `sched_wakeup`, v6.1, so a probed call on
  another CPU that entered between the emitting CPU's previous event, or
  the task's `sched_waking`, and the `sched_wakeup` read it set with
  probability its entry's share of that window; a wake-list wakeup,
  enqueued by `sched_ttwu_pending()` right before its event, counts at it),
  rewritten by top-level `update_sd_lb_stats()` (v6.1 `load_balance()`;
  `rd->overloaded` from v6.9) from the rqs it scans.  Rewrites counted:
  probed newidle walks (`sched_balance_newidle()`, `newidle_balance()` before
  v6.10) that pulled nothing and pass every level's `avg_idle >=
  sd->max_newidle_lb_cost` check (`curr_cost` taken as 0), with probability
  `(2 + sd->newidle_ratio) / 1024` under NI_RANDOM (33cf66d88306); the top
  level's scan comes at a time within the walk the probe does not give
  (taken uniform between entry and exit), so an rq that left 2 during the
  walk was seen by a scan before that, and only the walk's share after it
  counts; a wake-list wakeup queued during the walk (`this_rq->ttwu_pending`)
  stops it after the level in progress (e5e678e4fea2, v5.13), so then only
  the share of the walk before its `sched_waking` counts (known when the
  CPU runs its wake list: a `sched_wakeup` emitted on it for a task woken
  from another CPU during the call); periodic and NOHZ idle balance, which
  leave no event: each top-level group's balancer (`should_we_balance()`)
  balances once per `get_sd_balance_interval()` (`rebalance_domains()`,
  v6.1: at the first tick with `time_after_eq(jiffies, sd->last_balance +
  interval)`, then `sd->last_balance = jiffies`: strictly periodic), the
  interval assumed (`--balance-interval`, default the top level's
  `max_interval`, 2 ms per CPU, `sd_init()`; times `--busy-factor` 16 less
  one jiffy when the group has no idle CPU) and the phase unknown, taken
  uniform and independent per group: group g's balance has come with
  probability `x_g`, the share of its interval elapsed since the last rq
  left 2 (summed at the new interval when the group goes idle or busy), and
  the flag survives them with `prod (1 - x_g)`.  The flag's probability
  (`overload_p`): 1 while an rq holds 2; 0 once that survival is under 1/2
  (a periodic rewrite more likely than not; an assumption about tick times,
  applied as a time); else the product of `1 - p` over the walks since (the
  die, a chance).  The flag reads set when that is at least 1/2.  `prev`
  is dequeued before its own newidle call (`__schedule()`:
  `deactivate_task()` first), so during a probed call its rq counts without
  it.  A probed point's flag is the one its call read at entry.  Probed mode
  seeds the flag from the first probe;
- symmetric idle repair: a missing switch into idle is repaired at the first
  evidence (the task switched in elsewhere, or the idle task emitting an event
  on that CPU), counted as `missing_idle_entry`.

What explains the disagreements left (overload, probed mode; the *overload
misses* column counts each kind per trace):
- *walk* (ours cleared by a walk, the kernel's still set): the NI_RANDOM die
  of `sched_balance_newidle()` (33cf66d88306, backported to this Debian 6.1
  guest): the top level is balanced with probability `(2 +
  sd->newidle_ratio) / 1024`, 514/1024 on these traces (`newidle_ratio`
  512), and nothing in the events or the probes shows the draw.  Checked on
  the 91 walks of the seven NI_RANDOM hackbench traces whose outcome the next
  probe shows (no rq reached 2 in between): 47 cleared, 44 kept; their call
  durations overlap (`hb_ni_3`: 18-128 us cleared, 19-59 us kept), and the
  top level's `max_newidle_lb_cost` at that CPU's next call (raised only by
  a balance of that level costing more) rose after 3 of 217 walks.
  A coin toss the replay cannot call; it is most of what is left on
  `vm-numa/a`, `hb_mc5ms_*`, `hb_ni_1` and half of it on `hb_mc0_3`,
  `hb_ni_3` and `vm-numa/d`.  None on `hb_noni_*`, where the walk is
  deterministic.
- *kept* (ours set, the kernel's cleared, no walk since the last rq left 2)
  and *periodic* (ours cleared by the assumed periodic balances, the
  kernel's still set):
  periodic and NOHZ idle balances (`rebalance_domains()`,
  `nohz_idle_balance()`) come at tick times, on CPUs and after kicks
  (`nohz_balancer_kick()`: a busy CPU with two tasks, two busy CPUs in an
  LLC, or one whose capacity irq time reduced) that no event shows.  The
  assumed interval stands in for them in both directions: on `vm-numa/d` 14
  kept against 26 periodic; the tail of `hb_ni_3` (14 kept), with one busy
  CPU left, is where the kernel cleared within 1-2 ms of the last rq
  leaving 2, faster than the assumed balances (two groups at 16 ms: the
  flag survives to 4.7 ms).
- *other*: `hb_noni_1`'s 4 calls that read the flag clear while an rq held
  two unpinned hackbench tasks in the events (`trace-cmd report`): CPU 6 ran
  1926 with 1943 preempted behind it from 141.015930 to 141.032213 (CPU 5's
  call at 141.024973 read 0), CPU 2 ran the exiting 1959 with 1990 behind it
  from 141.266312 to 141.272074 (the calls at 141.269000, .269298 and
  .269482 read 0, while two calls at 141.267553 and .267663 still read 1).
  No probed call ran between the last 1 and the first 0 in either case, and
  no migration, lost event or pinned task shows.  What the kernel's code
  allows: `update_sd_lb_stats()` reads every rq's `nr_running` without its
  lock and writes `rd->overload` once, after the scan; `add_nr_running()`
  sets the flag only on the step to 2.  A top-level scan that read the rq
  before it reached 2 and wrote after overwrites the 1 with a 0 that stays
  until the next rewrite.  That needs a scan stretched over 1.4 ms (the
  second case) and 9 ms (the first): under TCG the guest's 8 vCPUs share
  2 host CPUs, and in both windows several vCPUs emit nothing for that
  long (CPU 4 from 140.992203 to 141.026805, although wake-list wakeups
  were queued for it from 140.997675 on), so a periodic or NOHZ balance
  paused mid-scan on a stalled vCPU fits; the trace does not show which.  Not modelled: the
  scan is a periodic/NOHZ one, which no event shows.
- The walk's `ttwu_pending` stop: on these traces 1 to 3 walks per trace
  were stopped by a wake-list wakeup, each with its top-level share already
  small (the last rq left 2 late in the call), so no figure moved.
- Evidence after the fact for the die, what the kernel's rules allow: the
  next probe's `rd_overload` is the value the next call is scored against,
  so it is not used; the call's duration against the per-level costs does
  not separate the outcomes (above); the top level's `max_newidle_lb_cost`
  rising at the CPU's next call proves a balance of that level
  (`update_newidle_cost()`), but only 3 of 217 walks show it, and a fall is
  also the periodic decay in `rebalance_domains()`: not used.  A call that
  pulled is already excluded (its walk stopped at the level that pulled).
- Periodic balance as the kernel times it (`rebalance_domains()`:
  `time_after_eq(jiffies, sd->last_balance + interval)`, `rq->next_balance`;
  `nohz.next_balance` and the kicks of `nohz_balancer_kick()`): the rule is
  deterministic given `sd->last_balance` per CPU and level, each domain's
  current `balance_interval` (doubled on each balanced outcome), the
  jiffy's phase and which CPUs have their tick stopped; none of these is in
  the trace or the probes.  What the replay takes from the rule is its
  period (one balance per interval, a uniform unknown phase); the interval
  stays a stated parameter (`--balance-interval`, `--busy-factor`).
- One balance per interval at an unknown phase, against the Poisson rate it
  replaced (same interval, same 1/2 threshold: `exp(-sum x_g)` before,
  `prod (1 - x_g)` now, so the flag clears a little sooner: with two idle
  groups at 16 ms, after 4.7 ms instead of 5.5): the figures in brackets
  above are main's build before the change (b01efef).  Overload agreement
  rose on `vm-numa/d`, `hb_ni_3` and `hb_noni_3` (by 0.06, 0.14 and 0.17
  points) and moved on no other trace; expected agreement rose on five
  (`vm-numa/d`, `hb_mc5ms_1`, `hb_ni_3`, `hb_noni_*`), fell on `vm-numa/a`
  and `hb_mc5ms_3` (by 0.03 and 0.05 points) and held on three; early bail
  rose on the same three as overload; all ten traces' disagreements 193 ->
  190 (`scripts/overload_misses.py`).  Tried
  and not kept (the figures went down, each a kernel reading):
  - the survival as a probability (`overload_p` = survival times the walks'
    `prod (1 - p)`, the hard flag at 1/2 of that): hard agreement 97.26 ->
    97.28 % on the mean, expected agreement down on all ten (mean 96.79 ->
    96.20 %): the assumed balances are no calibrated chance, so they stay a
    time (the Poisson form as a probability did the same, 96.09 %);
  - a change of a group's designated balancer (`should_we_balance()`: its
    first idle CPU) balancing at the new one's next tick, since that CPU's
    own `sd->last_balance` at the top went stale while `continue_balancing`
    stopped it lower down: one call fewer agreed (`hb_mc0_3`), nothing else
    moved;
  - `--balance-interval` at `min_interval` (1 ms per CPU, where
    `load_balance()` resets it after an imbalance): overload agreement down
    on 9 of 10 traces (mean 97.26 -> 96.56 %): the kernel's flag outlives
    that interval.
- Held out (earlier build, before the scan-within-walk rule): four
  recordings made for this check with the same Debian 6.1 guest under qemu
  TCG and `idlereplay record --probe-newidle`, `hackbench -g 4 -l 100`,
  NI_RANDOM then NO_NI_RANDOM, never looked at while the rules were written
  and not in the repository (`--trace PATH` measures such files).  Overload
  agreement before -> after the rewrite rules (early bail): 4 CPUs, SMT+MC,
  NI_RANDOM 94.04 -> 95.03 % (94.37 -> 95.70 %); NO_NI_RANDOM 90.94 ->
  97.36 % (91.32 -> 98.11 %); 8 CPUs on two nodes, NI_RANDOM 96.24 ->
  97.88 % (97.88 -> 98.35 %); NO_NI_RANDOM 96.55 -> 99.14 % (97.41 ->
  99.14 %).  Points P/R, avg_idle and idle time were unchanged (P/R 1.000,
  avg_idle median <= 0.01 %, idle diff 0).
- The enqueue before `sched_wakeup` (this build against the one in
  brackets): of the ten traces' probed calls, 9 change their flag's
  probability and 6 of those their flag: 5 now agree with the probe
  (`hb_mc0_3`, `hb_mc5ms_1`, `hb_ni_1` one each, `hb_ni_3` two: e.g. at
  44.710614 and 44.710633 CPUs 7 and 6 entered while another CPU's wakeup,
  emitted after them, was taking an rq to 2, and read 1), 1 now disagrees
  (`hb_mc0_1`: CPU 7's call at 198.798561 entered a quarter into CPU 2's
  wakeup of `rcu_preempt`, 198.798557 to .798573, and read 0; the rule gives
  it set with probability 0.61).  Taken uniform over the window from the
  emitting CPU's previous event; first tried with wake-list wakeups too
  (window from the waker's `sched_waking` to the target's `sched_wakeup`):
  4 calls of `hb_mc5ms_1` then disagreed (2 fewer agreed on it in all):
  the enqueue waits for the target's IPI, so those windows run hundreds of
  microseconds with the task still on the wake list, and the rule leaves
  them out as the kernel's order says.  Held out (`/work/heldout/h1`, the
  ten probed traces, measured once with the rule final, never read to
  design it; `--trace PATH`, each trace's own topology), overload
  agreement before -> after: `hb_mc0_3` 94.63 -> 95.33 %, `hb_mc5ms_1`
  91.73 -> 92.12 %, `hb_ni_3` 93.74 -> 94.16 %, `hb_noni_3` 90.33 ->
  90.43 %, `hb_ni_1` 94.42 -> 94.25 %, `hb_mc5ms_3` 97.62 -> 96.97 % (3
  calls now read set that the kernel read clear), the other four
  unchanged; about 8 calls more agree in all.  Expected agreement rose on
  six and fell on `hb_mc5ms_3` (96.99 -> 96.40 %), `hb_ni_1` and
  `vm-numa/a` (by 0.01 points each).
- `curr_cost` bounded by the time into the walk (the top level's scan at
  time s after entry passes `avg_idle >= curr_cost + sd->max_newidle_lb_cost`
  for sure only if s <= `avg_idle - max(sd->max_newidle_lb_cost)`): tried,
  no probed call's flag or probability changed on the ten traces (walk
  durations are tens of microseconds against margins of milliseconds), so
  not kept; `curr_cost` stays 0.
- Two rules tried against these ten traces and not adopted (the figures
  went down; each is a kernel reading the traces contradict here):
  - *NOHZ kicks only.*  With CONFIG_NO_HZ_IDLE an idle CPU stops its tick,
    and `nohz_balancer_kick()` (v6.1) kicks the idle load balancer with
    `NOHZ_BALANCE_KICK` only from a busy CPU's tick, when that rq holds 2
    or its LLC has more than one busy CPU (`nohz_newidle_balance()` kicks
    for blocked-load stats only).  Counting idle groups' periodic balances
    only while some LLC had two busy CPUs: overload agreement fell on 6 of
    10 traces (`vm-numa/d` 97.24 -> 95.02 %, *kept* misses 15 -> 64), rose
    on `hb_mc5ms_3` and `hb_ni_1` by 0.21 points, and expected agreement
    fell on 9.  The guest's
    kernel cleared the flag while every LLC had at most one busy CPU, so
    its idle CPUs balance without such a kick (their tick not stopped, or
    a kick source the events do not show).
  - *The top level's scan at the look-ahead's time.*  Taking the scan at
    the end of level top - 1's window (`replay/lookahead.h`) instead of
    uniform over the walk: `hb_mc0_3` +0.27, `hb_noni_3` +0.17 points,
    `hb_ni_3` -0.82, `vm-numa/a` -0.16 and `hb_mc5ms_1` -0.17; expected
    agreement down on 3, up on 2 (by at most 0.03 points).  The probes do not split a walk's duration
    by level, so the uniform scan time stays.
- Where the disagreements come from (all ten traces, probed mode, this
  build; `scripts/overload_misses.py` counts them): of the 71 calls the kernel read clear while the replay read set,
  27 had no probed walk since the kernel's last set flag, 21 only walks
  that could not reach the top (`avg_idle` under a level's
  `max_newidle_lb_cost`): unseen periodic/NOHZ balances; 23 followed a
  walk that could reach the top, mostly NI_RANDOM walks whose die the
  replay called the other way.  Of the 119 calls the kernel read set while
  the replay read clear, 61 came after the replay's periodic balances had
  cleared its flag and 58 after walks' dice.  Example of the latter
  (`vm-numa/d`, `trace-cmd report`): at 115.616517 `sleep` on CPU 1 wakes
  `kworker/1:1` there (CPU 1 at 2: the flag set, in the replay too), the
  kworker's own newidle call at 115.616761 reads 1 and walks
  (`avg_idle` 36.7 ms over every level's cost, top `newidle_ratio` 512:
  the top balanced with probability 514/1024), and CPU 6 reads 1 at
  115.620505, so the die skipped the top; the replay, at 0.498, reads 0.
"""

if __name__ == "__main__":
    main()

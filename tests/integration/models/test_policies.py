#!/usr/bin/env python3
"""Issue 3 on real traces: the policies differ per level where they should,
and the invariants that must hold exactly do."""
import json, os, subprocess, sys, tempfile

IR = os.environ["IDLEREPLAY"]
TRACES = os.environ["IR_TRACES"]
TOPO = "sockets=2,cores=2,threads=2,nodes=2"
NUMA = os.path.join(TRACES, "vm-numa", "a_hackbench_proc_sockets.dat")
failed = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ": " + detail)
    if not ok:
        failed.append(name)


def replay(tmp, name, *args):
    out = os.path.join(tmp, name + ".json")
    subprocess.run([IR, "replay", "--quiet", "--json", out] + list(args), check=True)
    return json.load(open(out)), open(out, "rb").read()


def figures(p):
    return (p["newidle_points"], p["attempts"], p["bails"], p["pulls"], p["idle_recovered_ns"],
            p["idle_lost_ns"], p["balance_cost_ns"])


with tempfile.TemporaryDirectory() as tmp:
    doc, raw = replay(tmp, "all", NUMA, "--topology", TOPO)
    pol = {p["name"]: p for p in doc["policies"]}
    check("all six policies", sorted(pol) == sorted(
        ["baseline", "domain-cost", "no-check", "mainline", "bump", "proportional"]), ",".join(pol))
    check("levels", doc["domains"]["levels"] == ["SMT", "MC", "NUMA"], str(doc["domains"]["levels"]))
    dc, nc = pol["domain-cost"], pol["no-check"]
    diff = [l for l in ("SMT", "MC", "NUMA")
            if dc["attempts"]["by_level"].get(l) != nc["attempts"]["by_level"].get(l)]
    check("domain-cost vs no-check differ per level", bool(diff), "levels " + ",".join(diff))
    check("domain-cost tries no more than no-check",
          all(dc["attempts"]["by_level"].get(l, 0) <= nc["attempts"]["by_level"].get(l, 0)
              for l in ("SMT", "MC", "NUMA")))
    check("open-loop note", "open-loop" in doc.get("open_loop", ""))
    check("fidelity present", doc["fidelity"]["points"] == doc["observed"]["newidle_points"])
    check("avoided vs reference", all(
        p["migrations_avoided"]["total"] == pol["baseline"]["pulls"]["total"] - p["pulls"]["total"]
        for p in doc["policies"]))

    # same input, byte-identical JSON (proportional is seeded)
    _, raw2 = replay(tmp, "all2", NUMA, "--topology", TOPO)
    check("deterministic JSON", raw == raw2)

    # baseline == no-check when sysctl_sched_migration_cost is 0 (for both: task_hot() reads it too)
    d, _ = replay(tmp, "b0", NUMA, "--topology", TOPO, "--policy", "baseline:sysctl_sched_migration_cost=0",
                  "--policy", "no-check:sysctl_sched_migration_cost=0")
    a, b = d["policies"]
    check("baseline(0) == no-check", figures(a)[1:] == figures(b)[1:] and
          a["bails"]["migration_cost"] == 0)

    # domain-cost == no-check when every level cost is 0
    zero = ",".join("%s.migration_cost=0" % l for l in ("smt", "cls", "mc", "pkg", "node", "numa"))
    d, _ = replay(tmp, "dc0", NUMA, "--topology", TOPO, "--policy", "domain-cost:" + zero,
                  "--policy", "no-check")
    a, b = d["policies"]
    check("domain-cost(0) == no-check", figures(a) == figures(b))

    # along a sweep of a cost, pulls never increase as the cost rises
    for sweep in ("baseline.sysctl_sched_migration_cost=0:2ms:100us",
                  "domain-cost.numa.migration_cost=0:2ms:250us",
                  "mainline.mc.max_newidle_lb_cost=0:4ms:200us"):
        d, _ = replay(tmp, "sw", NUMA, "--topology", TOPO, "--sweep", sweep)
        pts = d["sweeps"][0]["points"]
        pulls = [p["pulls"] for p in pts]
        check("sweep monotone " + sweep, len(pts) > 5 and all(x >= y for x, y in zip(pulls, pulls[1:])),
              str(pulls))
    # a sweep is evaluated in the same pass: its single-value point equals the plain policy
    d, _ = replay(tmp, "swp", NUMA, "--topology", TOPO, "--policy", "baseline",
                  "--sweep", "baseline.sysctl_sched_migration_cost=500us:500us:1us")
    check("sweep point == policy", d["sweeps"][0]["points"][0]["pulls"] == d["policies"][0]["pulls"]["total"])

    # timelines: the overview holds every newidle point and pull; busy shares are fractions
    d, _ = replay(tmp, "tl", NUMA, "--topology", TOPO, "--timeline")
    tl = d["timeline"]
    pts = sum(sum(c["newidle"]) for c in tl["cpus"])
    pulls = sum(sum(c["pulls"]) for c in tl["cpus"])
    check("timeline points", pts == d["observed"]["newidle_points"] and pulls == d["observed"]["newidle_pulls"],
          "%d points, %d pulls" % (pts, pulls))
    busy = [sum(c["busy"]) * tl["bucket_ns"] for c in tl["cpus"]]
    check("timeline busy", all(abs(b - c["busy_ns"]) <= 0.01 * c["busy_ns"] + 2 * tl["bucket_ns"]
                               for b, c in zip(busy, d["observed"]["cpus"])),
          "%s vs %s" % ([int(b) for b in busy], [c["busy_ns"] for c in d["observed"]["cpus"]]))
    check("timeline detail", "detail" in tl and tl["detail"]["bucket_ns"] < tl["bucket_ns"])
    d, _ = replay(tmp, "notl", NUMA, "--topology", TOPO)
    check("no timeline unless asked", "timeline" not in d)

    # the host trace has one LLC: one MC level
    d, _ = replay(tmp, "host", os.path.join(TRACES, "host-hackbench.dat"))
    check("host domains", d["domains"]["levels"] == ["MC"], str(d["domains"]["levels"]))

    # bad policy options
    for args in (["--policy", "nosuch"], ["--policy", "baseline:bogus=1"], ["--sweep", "baseline"],
                 ["--sweep", "baseline.sysctl_sched_migration_cost=2ms:1ms:1us"], ["--topology", "sockets=x"]):
        r = subprocess.run([IR, "replay", NUMA] + args, capture_output=True, text=True)
        check("usage error " + " ".join(args), r.returncode == 1 and r.stderr.strip().count("\n") == 0,
              r.stderr.strip())

print("%d failed" % len(failed))
sys.exit(1 if failed else 0)

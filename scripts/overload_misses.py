#!/usr/bin/env python3
"""Where the replay's rd->overload disagrees with the newidle probes, and
what preceded each disagreement (issue 15; the counts quoted in
docs/fidelity-replay.md).  For each probed trace of tests/data (or
--trace PATH), in probed mode:

  kernel clear, replay set: since the last probe that read the flag set,
    no probed walk / only walks that could not reach the top (avg_idle
    under a level's max_newidle_lb_cost) / a walk that could;
  kernel set, replay clear: by the replay's reason (cleared by a walk's
    die or by the periodic rate).

  scripts/overload_misses.py [--idlereplay BIN] [--trace PATH]..."""
import argparse, json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fidelity_replay import DATA, ROOT, TRACES  # noqa: E402


def calls(binary, path, topo, tmp):
    dec = os.path.join(tmp, "d.jsonl")
    subprocess.run([binary, "replay", path, "--quiet", "--json", os.path.join(tmp, "r.json"),
                    "--probe-seed", "--decisions", dec] + topo, check=True)
    c = [json.loads(line) for line in open(dec)]
    c = [d for d in c if d.get("probe") and d["probe"].get("rd_overload") is not None]
    return sorted(c, key=lambda d: d["ts"])


def reaches_top(d):
    p = d["probe"]
    return not p["early_bail"] and p.get("ret") == 0 and \
        all(x >= 0 and p["avg_idle"] >= x for x in p["sd_max_newidle_lb_cost"])


def classify(c):
    n = {}
    for i, d in enumerate(c):
        k = d["probe"]["rd_overload"] != 0
        if k == d["overload"]:
            continue
        if k:
            key = "set/clear: " + d["overload_why"]
        else:
            j = i - 1
            while j >= 0 and c[j]["probe"]["rd_overload"] == 0:
                j -= 1
            walks = [b for b in c[max(j, 0):i] if not b["probe"]["early_bail"] and b["probe"].get("ret") == 0]
            key = "clear/set: " + ("no walk" if not walks else
                                   "a walk could reach the top" if any(map(reaches_top, walks)) else
                                   "no walk could reach the top")
        n[key] = n.get(key, 0) + 1
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--idlereplay", default=os.path.join(ROOT, "build", "cli", "idlereplay"))
    ap.add_argument("--trace", action="append", default=[], metavar="PATH")
    ap.add_argument("--topology", metavar="SPEC", help="the --trace files' topology (as fidelity_replay.py)")
    a = ap.parse_args()
    if a.topology and not a.trace:
        ap.error("--topology applies to --trace files only")
    traces = [(p, ["--topology", a.topology] if a.topology else []) for p in a.trace] or [(os.path.join(DATA, rel), topo) for rel, topo, _ in TRACES
                                            if rel.startswith("vm-")]
    total = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path, topo in traces:
            n = classify(calls(a.idlereplay, path, topo, tmp))
            print("%s: %s" % (os.path.relpath(path, DATA) if path.startswith(DATA) else path,
                              ", ".join("%s %d" % kv for kv in sorted(n.items()))))
            for k, v in n.items():
                total[k] = total.get(k, 0) + v
    print("all: " + ", ".join("%s %d" % kv for kv in sorted(total.items())))


if __name__ == "__main__":
    main()

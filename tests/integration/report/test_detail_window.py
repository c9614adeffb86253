#!/usr/bin/env python3
"""The timeline's default detailed window is the busiest 20 ms of newidle
points (docs/report.md, Timelines): recomputed here by brute force from the
decisions file's point time stamps (one line per newidle point), never from
the timeline code; --detail still overrides.

usage: test_detail_window.py  (IDLEREPLAY names the binary, IR_SOURCE_ROOT the tree)"""
import bisect
import json
import os
import subprocess
import sys
import tempfile

IR = os.environ["IDLEREPLAY"]
SRC = os.environ["IR_SOURCE_ROOT"]
LEN, COL = 20_000_000, 20_000      # the documented window and column (1000 columns)
fails = []


def busiest(ts):
    """Windows start at ts[0] + j * COL; most points; on a tie the first run of
    consecutive windows holding the most, and its last window."""
    best, start, run = -1, None, False
    for j in range((ts[-1] - ts[0]) // COL + 1):
        s = ts[0] + j * COL
        c = bisect.bisect_left(ts, s + LEN) - bisect.bisect_left(ts, s)
        if c > best or (run and c == best):
            best, start, run = c, s, True
        else:
            run = False
    return start, best


with tempfile.TemporaryDirectory() as tmp:
    for name in ["vm-ab/hb_ni_1", "vm-numa/d_idle_periodic_wakers", "host-pipe", "host-hackbench"]:
        trace = os.path.join(SRC, "tests/data", name + ".dat")
        js, dec = os.path.join(tmp, "r.json"), os.path.join(tmp, "d.jsonl")
        r = subprocess.run([IR, "replay", trace, "--quiet", "--timeline", "--json", js, "--decisions", dec],
                           capture_output=True, text=True)
        if r.returncode:
            fails.append(f"{name}: replay exit {r.returncode}: {r.stderr.strip()}")
            continue
        ts = sorted(json.loads(line)["ts"] for line in open(dec))
        detail = json.load(open(js))["timeline"]["detail"]
        start, count = busiest(ts)
        got = sum(sum(c["newidle"]) for c in detail["cpus"])
        first = sum(1 for t in ts if ts[0] <= t < ts[0] + LEN)
        if (detail["start_ns"], detail["end_ns"], got) != (start, start + LEN, count):
            fails.append(f"{name}: detail [{detail['start_ns']}, {detail['end_ns']}) holds {got} points, "
                         f"want [{start}, {start + LEN}) holding {count}")
        print(f"{name}: {len(ts)} points; busiest window at +{(start - ts[0]) / 1e6:.2f} ms holds {count} "
              f"(the first 20 ms: {first})")
    # --detail overrides: the given window from the trace start
    trace = os.path.join(SRC, "tests/data/vm-ab/hb_ni_1.dat")
    js = os.path.join(tmp, "given.json")
    subprocess.run([IR, "replay", trace, "--quiet", "--detail", "1s:5ms", "--json", js], check=True)
    doc = json.load(open(js))
    d, first = doc["timeline"]["detail"], doc["trace"]["first_ts"]
    if (d["start_ns"] - first, d["end_ns"] - d["start_ns"]) != (1_000_000_000, 5_000_000):
        fails.append(f"--detail 1s:5ms gave [{d['start_ns']}, {d['end_ns']}) from {first}")

# the help states the default this test checks, not the old one (the first 20 ms)
helptext = subprocess.run([IR, "replay", "--help"], capture_output=True, text=True).stdout
line = helptext[helptext.index("--detail"):].split("\n  --")[0]
if "busiest 20ms" not in " ".join(line.split()) or "first newidle" in line:
    fails.append(f"replay --help misstates the --detail default: {line!r}")

for f in fails:
    print("FAIL:", f, file=sys.stderr)
sys.exit(1 if fails else 0)

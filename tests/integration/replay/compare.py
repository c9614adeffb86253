#!/usr/bin/env python3
"""Replay one real trace and check the JSON against what `trace-cmd report`
prints for the same file: per-event counts, migrations (orig != dest),
idle entries per CPU (sched_switch to pid 0 on it), window_ns and CPUs.

usage: compare.py TRACE   (IDLEREPLAY names the binary)
Exit 0 if all agree, 1 with one line per disagreement, 77 (skip) if the
trace or trace-cmd is missing."""
import collections, json, os, re, shutil, subprocess, sys, tempfile

trace = sys.argv[1]
if not os.path.exists(trace):
    print(f"SKIP: {trace} not found")
    sys.exit(77)
if not shutil.which("trace-cmd"):
    print("SKIP: trace-cmd not installed")
    sys.exit(77)

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "r.json")
    r = subprocess.run([os.environ["IDLEREPLAY"], "replay", trace, "--quiet", "--json", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL: idlereplay exit {r.returncode}: {r.stderr.strip()}")
        sys.exit(1)
    doc = json.load(open(out))

# -t: full nanosecond timestamps, so window_ns compares exactly.
rep = subprocess.run(["trace-cmd", "report", "-t", trace], capture_output=True, text=True)
if rep.returncode != 0:
    print(f"FAIL: trace-cmd report exit {rep.returncode}: {rep.stderr.strip()[:200]}")
    sys.exit(1)

# "  comm-pid   [003]  21.470054123: event_name:   fields"
line_re = re.compile(r"^\s*.*?-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+([\w:.-]+):\s?(.*)$")
mig_re = re.compile(r"orig_cpu=(\d+) dest_cpu=(\d+)")
next_re = re.compile(r"==> .*:(-?\d+) \[-?\d+\]\s*$")
cpus_re = re.compile(r"^cpus=(\d+)")

events = collections.Counter()
idle_entries = collections.Counter()
migrations = 0
first = last = None
cpus = None
for line in rep.stdout.splitlines():
    m = line_re.match(line)
    if not m:
        c = cpus_re.match(line)
        if c:
            cpus = int(c.group(1))
        continue
    cpu = int(m.group(2))
    ts = int(m.group(3)) * 10**9 + int(m.group(4).ljust(9, "0")[:9])
    name = m.group(5).split(":")[-1]
    events[name] += 1
    first = ts if first is None else min(first, ts)
    last = ts if last is None else max(last, ts)
    rest = m.group(6)
    if name == "sched_migrate_task":
        mm = mig_re.search(rest)
        if mm and mm.group(1) != mm.group(2):
            migrations += 1
    elif name == "sched_switch":
        nm = next_re.search(rest)
        if not nm:
            print(f"FAIL: cannot parse sched_switch: {line}")
            sys.exit(1)
        if int(nm.group(1)) == 0:
            idle_entries[cpu] += 1

bad = []
def check(what, got, want):
    if got != want:
        bad.append(f"{what}: idlereplay {got}, trace-cmd {want}")

t, o = doc["trace"], doc["observed"]
check("schema", doc["schema"], "idlereplay.report/1")
if cpus is not None:
    check("cpus", t["cpus"], cpus)
check("events", dict(sorted(t["events"].items())), dict(sorted(events.items())))
check("events_total", t["events_total"], sum(events.values()))
check("window_ns", t["window_ns"], last - first)
check("migrations", o["migrations"]["total"], migrations)
check("migrations by cause sum", sum(o["migrations"]["by_cause"].values()), o["migrations"]["total"])
for c in o["cpus"]:
    check(f"idle_entries cpu {c['cpu']}", c["idle_entries"], idle_entries.get(c["cpu"], 0))
    # a CPU with events is idle or busy over the whole window
    if c["idle_ns"] + c["busy_ns"]:
        check(f"idle+busy cpu {c['cpu']}", c["idle_ns"] + c["busy_ns"], t["window_ns"])
check("idle_entries total", sum(c["idle_entries"] for c in o["cpus"]), sum(idle_entries.values()))
check("has_waking", t["has_waking"], events.get("sched_waking", 0) > 0)
check("lost_events", t["lost_events"], 0)   # README: none in these files

for b in bad:
    print("FAIL:", b)
if not bad:
    print(f"ok: {trace}: {sum(events.values())} events, {migrations} migrations, "
          f"idle entries {dict(sorted(idle_entries.items()))}, window {last - first} ns")
sys.exit(1 if bad else 0)

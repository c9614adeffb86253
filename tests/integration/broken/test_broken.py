#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Replay broken traces; each must fail cleanly or succeed honestly.

usage: test_broken.py IDLEREPLAY TRACE...   (env BROKEN_TIMEOUT, BROKEN_JOBS,
       BROKEN_FILTER=substring, BROKEN_WRAP="valgrind ..." to run under a tool)

For each variant from gen_broken.py, `idlereplay replay FILE --json OUT --quiet`:
- must finish within the timeout and not die by a signal;
- exit 2: exactly one line on stderr, naming the file; OUT does not exist
  and no temporary file is left beside it;
- exit 0 (only for variants that may still be valid): OUT is a JSON report;
- 'bad' variants (truncated, not a trace, sched_switch missing) must exit 2;
- the uncompressed copies ('good') must exit 0.
"""
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_broken  # noqa: E402

TIMEOUT = float(os.environ.get("BROKEN_TIMEOUT", "30"))
JOBS = int(os.environ.get("BROKEN_JOBS", "2"))
FILTER = os.environ.get("BROKEN_FILTER", "")
WRAP = shlex.split(os.environ.get("BROKEN_WRAP", ""))


def check(exe, work, name, data, expect, what):
    d = tempfile.mkdtemp(dir=work)
    path = os.path.join(d, name)
    out = os.path.join(d, "report.json")
    with open(path, "wb") as f:
        f.write(data)
    try:
        p = subprocess.run(WRAP + [exe, "replay", path, "--json", out, "--quiet"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"{name}: hung (> {TIMEOUT:.0f} s) [{what}]", None
    finally:
        os.unlink(path)
    err = p.stderr.decode("utf-8", "replace")
    lines = err.splitlines()
    left = sorted(set(os.listdir(d)) - {"report.json"})
    have_out = os.path.exists(out)
    problem = None
    if p.returncode < 0:
        problem = f"killed by signal {-p.returncode}"
    elif p.returncode == 2:
        if len(lines) != 1:
            problem = f"exit 2 with {len(lines)} stderr lines: {err!r}"
        elif path not in lines[0]:
            problem = f"stderr does not name the file: {lines[0]!r}"
        elif have_out or left:
            problem = f"left output behind: {['report.json'] if have_out else []} {left}"
        elif expect == "good":
            problem = f"valid trace rejected: {lines[0]!r}"
    elif p.returncode == 0:
        if expect == "bad":
            problem = "broken file accepted (exit 0)"
        else:
            try:
                json.load(open(out))
            except Exception as e:  # noqa: BLE001
                problem = f"exit 0 but no JSON report: {e}"
    else:
        problem = f"exit {p.returncode}: {err.strip()!r}"
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    os.rmdir(d)
    if problem:
        return f"{name}: {problem} [{what}]", None
    return None, (p.returncode, lines[0] if p.returncode == 2 and lines else "")


def main():
    exe, traces = sys.argv[1], sys.argv[2:]
    missing = [t for t in traces if not os.path.exists(t)]
    if missing or not traces:
        print(f"FAIL: test traces missing: {missing or 'none given'}")
        return 1
    work = tempfile.mkdtemp(prefix="ir-broken-")
    fails, stats, lock = [], {"0": 0, "2": 0}, threading.Lock()
    msgs = {}
    futs = []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=JOBS)
    sem = threading.BoundedSemaphore(JOBS * 2)   # bound memory: files are MBs

    def sink(name, data, expect, what):
        if FILTER and FILTER not in name:
            return
        sem.acquire()

        def job():
            try:
                return name, check(exe, work, name, data, expect, what)
            finally:
                sem.release()
        futs.append(pool.submit(job))

    n = gen_broken.generate(traces, sink, work)
    for f in futs:
        name, (problem, res) = f.result()
        with lock:
            if problem:
                fails.append(problem)
            else:
                stats[str(res[0])] += 1
                if res[0] == 0 and os.environ.get("BROKEN_VERBOSE"):
                    print(f"replayed: {name}")
                if res[1]:
                    why = re.sub(r"\d+", "N", res[1].split(": ", 2)[-1])
                    msgs[why] = msgs.get(why, 0) + 1
    pool.shutdown()
    os.rmdir(work)
    print(f"{len(futs)} of {n} variants: {stats['0']} replayed (exit 0), {stats['2']} rejected (exit 2), {len(fails)} wrong")
    for m, c in sorted(msgs.items(), key=lambda x: -x[1]):
        print(f"  {c:4d}  {m}")
    for f in fails:
        print("FAIL " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

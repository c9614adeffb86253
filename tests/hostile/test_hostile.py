#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Replay every crafted trace of gen_hostile.py; each must end cleanly.

usage: test_hostile.py IDLEREPLAY [--table]   (env HOSTILE_FILTER=substring,
       HOSTILE_JOBS (2), HOSTILE_SANITIZED=1 for an ASan/UBSan build)

For each case, `idlereplay replay FILE --json OUT --quiet ARGS`:
- ends within 20 s (sanitized build: 120 s), not by a signal;
- peak RSS (ru_maxrss of the process and the children it reaped) at most
  512 MB (not checked in a sanitized build: shadow memory);
- exit 2 has one stderr line naming the file; 'bad' cases must exit 2,
  'ok' ones 0, 'any' 0 or 2, 'lost' ones 3 (lost events over the limit);
- no sanitizer report on stderr;
- where the case has a check, the JSON report passes it.
--table prints name, exit, seconds and peak RSS (MB) of every case.
"""
import concurrent.futures
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_hostile  # noqa: E402

SANITIZED = os.environ.get("HOSTILE_SANITIZED", "") not in ("", "0")
TIMEOUT = 120.0 if SANITIZED else 20.0
RSS_LIMIT_MB = 512
AS_LIMIT = 3 << 30
EXPECT = {"bad": (2,), "ok": (0,), "any": (0, 2)}


def limit_as():
    # protects the machine from a case that would take all its memory; the
    # verdict is on the measured peak RSS, far below this
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))


def run(exe, case, work):
    d = tempfile.mkdtemp(dir=work)
    path = os.path.join(d, case.name + ".dat")
    out = os.path.join(d, "report.json")
    with open(path, "wb") as f:
        f.write(case.data)
    args = [a.replace("{out}", os.path.join(d, "out")) for a in case.args]
    cmd = [exe, "replay", path, "--json", out, "--quiet"] + args
    errf = open(os.path.join(d, "stderr"), "w+b")
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=errf, start_new_session=True,
                         preexec_fn=None if SANITIZED else limit_as)
    killed = []

    def kill():
        killed.append(1)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    timer = threading.Timer(TIMEOUT, kill)
    timer.start()
    _, status, ru = os.wait4(p.pid, 0)
    timer.cancel()
    secs = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    rss = ru.ru_maxrss / 1024
    errf.seek(0)
    err = errf.read().decode("utf-8", "replace")
    errf.close()
    res = {"name": case.name, "exit": p.returncode, "secs": secs, "rss": rss, "problem": None}
    allowed = case.exit_codes or EXPECT[case.expect]
    lines = err.splitlines()
    if killed:
        res["problem"] = f"hung (> {TIMEOUT:.0f} s)"
    elif p.returncode < 0:
        res["problem"] = f"killed by signal {-p.returncode}"
    elif "Sanitizer" in err or "runtime error" in err:
        res["problem"] = f"sanitizer report: {err[:400]!r}"
    elif p.returncode not in allowed:
        res["problem"] = f"exit {p.returncode}, expected {allowed}: {err.strip()[:300]!r}"
    elif p.returncode == 2 and (len(lines) != 1 or path not in lines[0]):
        res["problem"] = f"exit 2 must give one line naming the file: {err!r}"
    elif not SANITIZED and rss > RSS_LIMIT_MB:
        res["problem"] = f"peak RSS {rss:.0f} MB > {RSS_LIMIT_MB} MB"
    elif p.returncode in (0, 3) and case.check:
        try:
            with open(out) as f:
                res["problem"] = case.check(json.load(f))
        except (OSError, ValueError) as e:
            res["problem"] = f"no JSON report: {e}"
    for name in os.listdir(d):
        os.unlink(os.path.join(d, name))
    os.rmdir(d)
    return res


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        sys.stderr.write(__doc__)
        return 1
    exe, table = argv[1], "--table" in argv[2:]
    filt = os.environ.get("HOSTILE_FILTER", "")
    jobs = int(os.environ.get("HOSTILE_JOBS", "2"))
    bad = n = 0
    with tempfile.TemporaryDirectory() as work, \
            concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        futs = [ex.submit(run, exe, c, work) for c in gen_hostile.cases() if filt in c.name]
        for f in futs:
            r = f.result()
            n += 1
            if table:
                print(f"{r['name']:40s} exit {r['exit']:3d} {r['secs']:7.2f} s {r['rss']:8.1f} MB")
            if r["problem"]:
                bad += 1
                print(f"FAIL {r['name']}: {r['problem']}")
    print(f"{n - bad} of {n} crafted traces handled")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

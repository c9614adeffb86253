#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A trace whose uname carries terminal escapes (bytes patched in place in a
real trace.dat: the UNAME option is plain text) and a file name with one:
the text report of replay, calibrate's text, CSV and HTML never pass a
control byte through; text shows it as \\xNN.  An error line naming such a
file escapes it too."""
import os
import subprocess
import sys
import tempfile

IR = os.environ["IDLEREPLAY"]
SRC = os.environ["IR_SOURCE_ROOT"]
SAMPLE = os.path.join(SRC, "samples", "host-hackbench.dat")
PROBED = os.path.join(SRC, "tests", "data", "vm-numa", "d_idle_periodic_wakers.dat")
failed = 0


def check(what, ok, why=""):
    global failed
    if not ok:
        failed += 1
        print(f"FAIL: {what}: {why}")


def patch(src, old, new, dst):
    b = open(src, "rb").read()
    if len(old) != len(new) or b.count(old) != 1:
        print(f"FAIL: patch {src}: {old!r} ({len(old)} bytes) found {b.count(old)} times, "
              f"replacement {len(new)} bytes")
        sys.exit(1)
    open(dst, "wb").write(b.replace(old, new))


def run(*args):
    return subprocess.run([IR] + list(args), capture_output=True, timeout=300)


def no_controls(what, data):
    bad = [c for c in data if (c < 0x20 and c not in (0x0a,)) or c == 0x7f]
    check(what + ": no control bytes", not bad, f"{bytes(bad[:8])!r}")


with tempfile.TemporaryDirectory(prefix="ir-uname-test.") as w:
    # 15 bytes for "6.18.44-fc-v669": ESC [2J (clear), BEL, ESC [31m, then "9"
    evil = b"6.18\x1b[2J\x07\x1b[31m9"
    t = os.path.join(w, "evil\x1b[2J.dat")
    patch(SAMPLE, b"6.18.44-fc-v669", evil, t)
    r = run("replay", t)
    check("replay exit", r.returncode == 0, r.stderr.decode(errors="replace"))
    no_controls("replay text", r.stdout)
    check("replay text shows the uname escaped", b"kernel    6.18\\x1b[2J\\x07\\x1b[31m9   clock" in r.stdout,
          r.stdout[:300])
    check("replay text shows the file name escaped", b"evil\\x1b[2J.dat" in r.stdout, r.stdout[:200])
    r = run("replay", t, "--html", "-", "--quiet")
    no_controls("replay html", r.stdout)
    check("replay html shows the uname escaped", b"6.18\\x1b[2J\\x07\\x1b[31m9" in r.stdout)
    j = os.path.join(w, "r.json")
    r = run("replay", t, "--json", j, "--quiet")
    for fmt in ("text", "csv", "html"):
        r = run("report", j, "--format", fmt)
        check(f"report {fmt} exit", r.returncode == 0, r.stderr.decode(errors="replace"))
        if fmt != "csv":	# CSV keeps data as it is, inside quotes
            no_controls(f"report {fmt}", r.stdout)
    r = run("report", "compare", j, j)
    no_controls("compare", r.stdout)
    r = run("report", "merge", j, j)
    no_controls("merge", r.stdout)

    # calibrate's own text: 14 bytes for "6.1.0-57-amd64"
    c = os.path.join(w, "probed.dat")
    patch(PROBED, b"6.1.0-57-amd64", b"6.1\x1b[2J\x07\x1b[31m4", c)
    r = run("calibrate", c, "--topology", "sockets=2,cores=2,threads=2,nodes=2")
    check("calibrate exit", r.returncode == 0, r.stderr.decode(errors="replace"))
    no_controls("calibrate text", r.stdout)
    check("calibrate shows the uname escaped", b"kernel  6.1\\x1b[2J\\x07\\x1b[31m4" in r.stdout, r.stdout[:200])

    # an error line naming a file with an escape in its name
    bad = os.path.join(w, "bad\x1b]0;x\x07.dat")
    open(bad, "wb").write(b"not a trace")
    r = run("replay", bad)
    check("bad trace exit 2", r.returncode == 2, str(r.returncode))
    no_controls("error line", r.stderr)
    check("error line names the file escaped", b"bad\\x1b]0;x\\x07.dat" in r.stderr, r.stderr)

print(f"{0 if failed else 1} passed, {failed} failed")
sys.exit(1 if failed else 0)

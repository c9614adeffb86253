#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Outputs never replace what is not ours (issue 11).

For every output option of every command, the output is, in turn:
  - a character device node made with mknod in a temp dir with /dev/null's
    numbers (1,3), and the slave of a pseudo-terminal of a devpts instance
    mounted in a temp dir (whose master we read, so the data is seen to go
    in); each is still that device afterwards;
  - a FIFO with a reader: the reader gets the document, the FIFO stays;
  - a symlink to /proc/self/fd/1 made in the temp dir (what /dev/stdout is)
    and "-", with stdout piped into the checker: the document, alone;
and nothing else appears in the temp dir (no temp file left, nothing
renamed).  'fleet -d DIR' writes into a directory: there the targets are
made as its merged report DIR/fleet.txt and a replay's log DIR/NAME.log
(the pty through a link of that name), with its reports allowed beside.  Two outputs on stdout at once are a usage error, and a symlink
planted by another user in a sticky world-writable directory is replaced,
never followed into the device it names.  No system path is ever named as
an output.
"""
import fcntl
import json
import os
import select
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import tty

IR = os.environ["IDLEREPLAY"]
SRC = os.environ["IR_SOURCE_ROOT"]
TRACES = os.environ.get("IR_TRACES", os.path.join(SRC, "tests", "data"))
SAMPLE = os.path.join(SRC, "samples", "host-hackbench.dat")
PROBED = os.path.join(TRACES, "vm-numa", "d_idle_periodic_wakers.dat")
TOPO = "sockets=2,cores=2,threads=2,nodes=2"
ROOT = os.geteuid() == 0
TRACE_MAGIC = b"\x17\x08\x44tracing"
TIOCSPTLCK, TIOCGPTN = 0x40045431, 0x80045430	# include/uapi/asm-generic/ioctls.h

failures = []


def fail(what, why):
    failures.append(what)
    print(f"FAIL: {what}: {why}")


# ------------------------------------------------------------ checkers
def is_json(b):
    try:
        d = json.loads(b)
    except ValueError as e:
        return f"not JSON ({e}): {b[:120]!r}"
    return None if isinstance(d, dict) and "schema" in d else "no schema key"


def is_jsonl(b):
    lines = b.decode(errors="replace").splitlines()
    if not lines:
        return "empty"
    for ln in lines:
        try:
            json.loads(ln)
        except ValueError:
            return f"not a JSON line: {ln[:120]!r}"
    return None


def is_html(b):
    s = b.decode(errors="replace").strip()
    return None if s.lower().startswith("<!doctype html") and s.endswith("</html>") else f"not a page: {s[:80]!r}...{s[-40:]!r}"


def is_csv(b):
    s = b.decode(errors="replace")
    return None if s and "," in s.splitlines()[0] and s.endswith("\n") else f"not CSV: {s[:120]!r}"


def is_text(word):
    def check(b):
        s = b.decode(errors="replace")
        return None if word in s and not s.lstrip().startswith("{") else f"no '{word}' in: {s[:120]!r}"
    return check


def is_trace(b):
    return None if b.startswith(TRACE_MAGIC) and len(b) > 4096 else f"not a trace.dat ({len(b)} bytes)"


# ------------------------------------------------------------- readers
class Drain(threading.Thread):
    """Read fd (non-blocking) until stopped, keeping what came."""

    def __init__(self, fd):
        super().__init__(daemon=True)
        self.fd, self.data, self.stop = fd, bytearray(), False
        os.set_blocking(fd, False)
        self.start()

    def run(self):
        while True:
            r, _, _ = select.select([self.fd], [], [], 0.05)
            try:
                chunk = os.read(self.fd, 65536) if r else b""
            except (BlockingIOError, OSError):
                chunk = b""
            if chunk:
                self.data += chunk
            elif self.stop:
                return

    def finish(self):
        time.sleep(0.1)
        self.stop = True
        self.join(5)
        return bytes(self.data)


def run(argv, stdout=subprocess.DEVNULL):
    return subprocess.run(argv, stdout=stdout, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120)


# The file a target is made as, and what else the command may leave beside
# it: a fleet writes into a directory (its merged report and its logs are
# the targets), so its reports sit beside them.  Set per case by body().
FNAME = {}
COMPANIONS = set()


def leftovers(d, keep):
    return sorted(set(os.listdir(d)) - set(keep) - COMPANIONS)


def is_perfetto(b):
    why = is_json_doc(b)
    if why:
        return why
    d = json.loads(b)
    return None if isinstance(d.get("traceEvents"), list) and d["traceEvents"] else "no traceEvents"


def is_json_doc(b):
    try:
        json.loads(b)
    except ValueError as e:
        return f"not JSON ({e}): {b[:120]!r}"
    return None


# ------------------------------------------------------------- targets
def t_null(name, argv, check, work):
    d = tempfile.mkdtemp(dir=work)
    f = FNAME.get("null", "null")
    p = os.path.join(d, f)
    os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    r = run(argv(p))
    st = os.lstat(p)
    if r.returncode != 0:
        fail(f"{name} -> mknod c 1 3", f"exit {r.returncode}: {r.stderr.decode()[-300:]}")
    elif not stat.S_ISCHR(st.st_mode) or st.st_rdev != os.makedev(1, 3):
        fail(f"{name} -> mknod c 1 3", f"no longer the device: mode {oct(st.st_mode)}")
    elif leftovers(d, [f]):
        fail(f"{name} -> mknod c 1 3", f"left {leftovers(d, [f])}")


def open_pty(d):
    """A pty of our own devpts instance mounted at d/pts (in our private
    mount namespace): the master, and the slave's path, a character device
    under d.  (A node made with mknod for a pty cannot be opened: the kernel
    wants the devpts inode.)"""
    pts = os.path.join(d, "pts")
    os.mkdir(pts)
    subprocess.run(["mount", "-t", "devpts", "-o", "newinstance,ptmxmode=0666,mode=0600", "devpts", pts],
                   check=True)
    master = os.open(os.path.join(pts, "ptmx"), os.O_RDWR | os.O_NOCTTY)
    fcntl.ioctl(master, TIOCSPTLCK, struct.pack("i", 0))
    n = struct.unpack("i", fcntl.ioctl(master, TIOCGPTN, struct.pack("i", 0)))[0]
    return master, os.path.join(pts, str(n))


def t_pty(name, argv, check, work):
    d = tempfile.mkdtemp(dir=work)
    master, p = open_pty(d)
    slave = os.open(p, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(slave)		# bytes through unchanged
    rdev = os.fstat(slave).st_rdev
    if "pty" in FNAME:		# the slave under the name the command writes
        os.symlink(p, os.path.join(d, FNAME["pty"]))
    drain = Drain(master)
    r = run(argv(os.path.join(d, FNAME["pty"]) if "pty" in FNAME else p))
    data = drain.finish()
    st = os.lstat(p)
    os.close(slave)
    os.close(master)
    left = leftovers(os.path.dirname(p), ["ptmx", os.path.basename(p)]) + leftovers(d, ["pts", FNAME.get("pty")])
    subprocess.run(["umount", os.path.dirname(p)], check=True)
    why = check(data)
    if r.returncode != 0:
        fail(f"{name} -> pty", f"exit {r.returncode}: {r.stderr.decode()[-300:]}")
    elif not stat.S_ISCHR(st.st_mode) or st.st_rdev != rdev:
        fail(f"{name} -> pty", f"no longer the device: mode {oct(st.st_mode)}")
    elif why:
        fail(f"{name} -> pty", why)
    elif left:
        fail(f"{name} -> pty", f"left {left}")


def t_fifo(name, argv, check, work):
    d = tempfile.mkdtemp(dir=work)
    f = FNAME.get("fifo", "fifo")
    p = os.path.join(d, f)
    os.mkfifo(p)
    fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)	# the reader is there first
    drain = Drain(fd)
    r = run(argv(p))
    data = drain.finish()
    os.close(fd)
    st = os.lstat(p)
    why = check(data)
    if r.returncode != 0:
        fail(f"{name} -> FIFO", f"exit {r.returncode}: {r.stderr.decode()[-300:]}")
    elif not stat.S_ISFIFO(st.st_mode):
        fail(f"{name} -> FIFO", f"no longer a FIFO: mode {oct(st.st_mode)}")
    elif why:
        fail(f"{name} -> FIFO", why)
    elif leftovers(d, [f]):
        fail(f"{name} -> FIFO", f"left {leftovers(d, [f])}")


def t_stdout_link(name, argv, check, work):
    d = tempfile.mkdtemp(dir=work)
    f = FNAME.get("stdout", "stdout")
    p = os.path.join(d, f)
    os.symlink("/proc/self/fd/1", p)	# what /dev/stdout is
    r = run(argv(p), stdout=subprocess.PIPE)
    why = check(r.stdout)
    if r.returncode != 0:
        fail(f"{name} -> link to /proc/self/fd/1", f"exit {r.returncode}: {r.stderr.decode()[-300:]}")
    elif not os.path.islink(p) or os.readlink(p) != "/proc/self/fd/1":
        fail(f"{name} -> link to /proc/self/fd/1", "the link was replaced")
    elif why:
        fail(f"{name} -> link to /proc/self/fd/1", why)
    elif leftovers(d, [f]):
        fail(f"{name} -> link to /proc/self/fd/1", f"left {leftovers(d, [f])}")


def t_dash(name, argv, check, work):
    d = tempfile.mkdtemp(dir=work)
    r = subprocess.run(argv("-"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=d, timeout=120)
    why = check(r.stdout)
    if r.returncode != 0:
        fail(f"{name} -> -", f"exit {r.returncode}: {r.stderr.decode()[-300:]}")
    elif why:
        fail(f"{name} -> -", why)
    elif os.listdir(d):
        fail(f"{name} -> -", f"made files {os.listdir(d)}")


def t_sticky(name, argv, check, work):
    """A link planted by uid 65534 in a sticky world-writable directory, to
    our own device node: replaced by the output, the device untouched."""
    d = tempfile.mkdtemp(dir=work)
    os.chmod(d, 0o1777)
    dev = os.path.join(work, "victim-null")
    if not os.path.exists(dev):
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    p = os.path.join(d, FNAME.get("planted", "planted"))
    os.symlink(dev, p)
    os.lchown(p, 65534, 65534)
    r = run(argv(p))
    st = os.lstat(dev)
    if r.returncode != 0:
        fail(f"{name} -> planted link", f"exit {r.returncode}: {r.stderr.decode()[-300:]}")
    elif not stat.S_ISCHR(st.st_mode):
        fail(f"{name} -> planted link", "the device was replaced")
    elif not stat.S_ISREG(os.lstat(p).st_mode):
        fail(f"{name} -> planted link", "the planted link was followed, not replaced")
    elif check(open(p, "rb").read()):
        fail(f"{name} -> planted link", check(open(p, "rb").read()))


def main():
    if ROOT and not os.environ.get("IR_OUTPUT_NS"):
        # our own mount namespace: the devpts instances mounted here are
        # seen by nobody else and go away with us
        os.environ["IR_OUTPUT_NS"] = "1"
        os.execvp("unshare", ["unshare", "--mount", "--propagation", "private",
                              sys.executable, os.path.abspath(__file__)])
    work = tempfile.mkdtemp(prefix="ir-output-test.")
    os.chmod(work, 0o755)
    try:
        return body(work)
    finally:
        subprocess.run(["sh", "-c", 'for m in "$1"/*/pts; do umount "$m"; done 2>/dev/null; rm -rf "$1"', "sh", work])


def body(work):
    rep = os.path.join(work, "r.json")
    rep2 = os.path.join(work, "r2.json")
    # two traces: merge refuses the same trace twice
    for trace, out in ((SAMPLE, rep), (os.path.join(TRACES, "host-pipe.dat"), rep2)):
        r = run([IR, "replay", trace, "--json", out, "--quiet"])
        if r.returncode:
            print(f"FAIL: making a report: {r.stderr.decode()}")
            return 1
    cases = [
        ("replay --json", lambda p: [IR, "replay", SAMPLE, "--json", p], is_json),
        ("replay --html", lambda p: [IR, "replay", SAMPLE, "--html", p], is_html),
        ("replay --decisions", lambda p: [IR, "replay", SAMPLE, "--decisions", p], is_jsonl),
        ("report -o", lambda p: [IR, "report", rep, "-o", p], is_text("newidle")),
        ("report --format html -o", lambda p: [IR, "report", rep, "--format", "html", "-o", p], is_html),
        ("report --format csv -o", lambda p: [IR, "report", rep, "--format", "csv", "-o", p], is_csv),
        ("report compare -o", lambda p: [IR, "report", "compare", rep, rep2, "-o", p], is_text("baseline")),
        ("report merge -o", lambda p: [IR, "report", "merge", rep, rep2, "-o", p], is_text("baseline")),
        ("report merge --format csv -o", lambda p: [IR, "report", "merge", rep, rep2, "--format", "csv", "-o", p],
         is_csv),
        ("calibrate --json", lambda p: [IR, "calibrate", PROBED, "--topology", TOPO, "--json", p], is_json),
        # issue 14's outputs
        ("replay --perfetto", lambda p: [IR, "replay", SAMPLE, "--quiet", "--perfetto", p], is_perfetto),
        ("export --perfetto", lambda p: [IR, "export", SAMPLE, "--perfetto", p], is_perfetto),
        ("report --format jsonl -o", lambda p: [IR, "report", rep, rep2, "--format", "jsonl", "-o", p], is_jsonl),
        ("report --format csv-wide -o", lambda p: [IR, "report", rep, "--format", "csv-wide", "-o", p], is_csv),
        ("report compare --format json -o",
         lambda p: [IR, "report", "compare", rep, rep2, "--format", "json", "-o", p], is_json),
        ("report compare --format csv -o",
         lambda p: [IR, "report", "compare", rep, rep2, "--format", "csv", "-o", p], is_csv),
        ("report merge --format html -o",
         lambda p: [IR, "report", "merge", rep, rep2, "--format", "html", "-o", p], is_html),
    ]
    # fleet -d DIR: its merged report, and a replay's log (a --detail past
    # the trace's end makes the replay warn), are the targets
    fleet_files = {"host-hackbench.json", "host-hackbench.log", "fleet.txt", "fleet.csv", "fleet.html"}
    fleet = [
        ("fleet DIR/fleet.txt", "fleet.txt", lambda p: [IR, "fleet", "-d", os.path.dirname(p), SAMPLE],
         is_text("Fleet: 1 host, ")),
        ("fleet DIR/NAME.log", "host-hackbench.log",
         lambda p: [IR, "fleet", "-d", os.path.dirname(p), SAMPLE, "--", "--detail", "100s:1ms"],
         is_text("--detail starts 100.000 s after the trace start")),
    ]
    if ROOT and os.path.isdir("/sys/kernel/tracing/instances"):
        cases.append(("record -o", lambda p: [IR, "record", "-o", p, "--duration", "0.3"], is_trace))
    else:
        print("note: record -o not checked: needs root and tracefs instances")
    targets = [t_fifo, t_stdout_link, t_dash]
    if ROOT:
        targets = [t_null, t_pty] + targets + [t_sticky]
    else:
        print("note: device nodes and planted links not checked: mknod and chown need root")
    n = 0
    for name, argv, check in cases:
        for t in targets:
            if t is t_sticky and name.startswith("record"):
                continue	# record never replaces an existing file without --force
            t(name, argv, check, work)
            n += 1
    global COMPANIONS
    for name, fname, argv, check in fleet:
        FNAME.update({k: fname for k in ("null", "pty", "fifo", "stdout", "planted")})
        COMPANIONS = fleet_files - {fname}
        for t in targets:
            if t is not t_dash:	# a directory is no "-"
                t(name, argv, check, work)
                n += 1
    FNAME.clear()
    COMPANIONS = set()

    # two outputs on stdout at once: a usage error naming both
    link = os.path.join(work, "stdout")
    os.symlink("/proc/self/fd/1", link)
    usage = [
        (["replay", SAMPLE, "--json", "-", "--html", link], ["--json", "--html"]),
        (["replay", SAMPLE, "--json", link, "--decisions", "-"], ["--json", "--decisions"]),
        (["replay", SAMPLE, "--html", "-", "--decisions", "-"], ["--html", "--decisions"]),
        (["replay", SAMPLE, "--json", "-", "--perfetto", link], ["--json", "--perfetto"]),
        (["export", SAMPLE, "--perfetto", "-", "--json", "-"], ["--json", "--perfetto"]),
    ]
    if ROOT:
        usage.append((["record", "-o", "-", "--", "true"], ["-o", "COMMAND"]))
    for args, names in usage:
        r = run([IR] + args, stdout=subprocess.PIPE)
        err = r.stderr.decode()
        n += 1
        if r.returncode != 1 or err.count("\n") != 1 or not all(x in err for x in names) or r.stdout:
            fail("two outputs on stdout: " + " ".join(args[2:]), f"exit {r.returncode}, stderr {err!r}")
    print(f"{n - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0-only
"""Write trace.dat files (v6, v7; uncompressed or zstd) from scratch.

Standard library only.  The layout follows trace-cmd.dat.v6(5) and
trace-cmd.dat.v7(5); zstd frames are written by hand with raw and RLE
blocks (RFC 8878), so no compressor is needed.  Every size, count and
offset can be overridden, which is what the hostile cases need.
"""
import struct

MAGIC = b"\x17\x08Dtracing"

HEADER_PAGE = (
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n")
HEADER_EVENT = (
    "# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
    "\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
    "\ttime_stamp : type == 31\n\tdata max type_len  == 28\n")
COMMON = (
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")

# name -> (id, [(decl, offset, size, signed)], print fmt)
EVENTS = {
    "sched_switch": (372, [
        ("char prev_comm[16]", 8, 16, 0), ("pid_t prev_pid", 24, 4, 1),
        ("int prev_prio", 28, 4, 1), ("long prev_state", 32, 8, 1),
        ("char next_comm[16]", 40, 16, 0), ("pid_t next_pid", 56, 4, 1),
        ("int next_prio", 60, 4, 1)],
        '"prev_pid=%d next_pid=%d", REC->prev_pid, REC->next_pid'),
    "sched_wakeup": (374, [
        ("char comm[16]", 8, 16, 0), ("pid_t pid", 24, 4, 1), ("int prio", 28, 4, 1),
        ("int target_cpu", 32, 4, 1)], '"pid=%d", REC->pid'),
    "sched_waking": (373, [
        ("char comm[16]", 8, 16, 0), ("pid_t pid", 24, 4, 1), ("int prio", 28, 4, 1),
        ("int target_cpu", 32, 4, 1)], '"pid=%d", REC->pid'),
    "sched_migrate_task": (371, [
        ("__data_loc char[] comm", 8, 4, 0), ("pid_t pid", 12, 4, 1), ("int prio", 16, 4, 1),
        ("int orig_cpu", 20, 4, 1), ("int dest_cpu", 24, 4, 1)], '"pid=%d", REC->pid'),
    "sched_process_exit": (369, [
        ("char comm[16]", 8, 16, 0), ("pid_t pid", 24, 4, 1), ("int prio", 28, 4, 1),
        ("bool group_dead", 32, 1, 0)], '"pid=%d", REC->pid'),
    "sched_process_fork": (366, [
        ("__data_loc char[] parent_comm", 8, 4, 0), ("pid_t parent_pid", 12, 4, 1),
        ("__data_loc char[] child_comm", 16, 4, 0), ("pid_t child_pid", 20, 4, 1)],
        '"pid=%d", REC->child_pid'),
}


def event_format(name, override=None):
    """Format text; override maps a field's name to (offset, size) strings."""
    eid, fields, fmt = EVENTS[name]
    s = f"name: {name}\nID: {eid}\nformat:\n" + COMMON
    for decl, off, size, signed in fields:
        fname = decl.split()[-1].split("[")[0]
        o, z = (override or {}).get(fname, (off, size))
        s += f"\tfield:{decl};\toffset:{o};\tsize:{z};\tsigned:{signed};\n"
    return s + f"\nprint fmt: {fmt}\n"


def comm(s):
    return s.encode()[:15].ljust(16, b"\0")


def ev_switch(prev_pid, prev_state, next_pid, prio=120, common_pid=None):
    return struct.pack("<HBBi16siiq16sii", 372, 0, 0,
                       prev_pid if common_pid is None else common_pid,
                       comm(f"t{prev_pid}"), prev_pid, prio, prev_state,
                       comm(f"t{next_pid}"), next_pid, prio)


def ev_wakeup(pid, target_cpu, prio=120, common_pid=0):
    return struct.pack("<HBBi16siii", 374, 0, 0, common_pid, comm(f"t{pid}"), pid, prio, target_cpu)


def ev_waking(pid, target_cpu, prio=120, common_pid=0):
    """sched_waking (add "sched_waking" to Trace.events to use it)."""
    return struct.pack("<HBBi16siii", 373, 0, 0, common_pid, comm(f"t{pid}"), pid, prio, target_cpu)


def ev_exit(pid):
    return struct.pack("<HBBi16siiB", 369, 0, 0, pid, comm(f"t{pid}"), pid, 120, 1)


def ev_fork(parent, child):
    return struct.pack("<HBBiIiIi", 366, 0, 0, parent, (8 << 16) | 24, parent,
                       (8 << 16) | 32, child) + comm("p")[:8] + comm("c")[:8]


def event_header(payload, delta):
    """Ring-buffer event: 4-byte header (type_len, time_delta), data."""
    n = len(payload)
    pad = (-n) % 4
    if n <= 28 * 4:
        return struct.pack("<I", ((n + pad) // 4) | (delta << 5)) + payload + b"\0" * pad
    return struct.pack("<II", delta << 5, n + pad + 4) + payload + b"\0" * pad


def pages(events, page_size=4096, missed=None):
    """events: [(ts, payload)] in time order -> ring-buffer pages (bytes).
    missed: {page_index: count} marks lost events before that page."""
    out, cur, base, last = [], b"", None, None
    hdr = 16

    def flush():
        nonlocal cur, base
        if base is None:
            return
        commit = len(cur)
        m = (missed or {}).get(len(out))
        if m:
            commit |= 1 << 31 | 1 << 30
            cur += struct.pack("<Q", m)
        out.append(struct.pack("<QQ", base, commit) + cur.ljust(page_size - hdr, b"\0"))
        cur, base = b"", None

    for ts, payload in events:
        if base is None:
            base, last = ts, ts
        delta = ts - last
        if delta >= 1 << 59:       # beyond a time extend: a new page
            flush()
            base, last, delta = ts, ts, 0
        e = b""
        if delta >= 1 << 27:
            e = struct.pack("<II", 30 | ((delta & ((1 << 27) - 1)) << 5), delta >> 27)
            delta = 0
        e += event_header(payload, delta)
        if len(cur) + len(e) + 8 > page_size - hdr:
            flush()
            base, last = ts, ts
            e = event_header(payload, 0)
        cur += e
        last = ts
    flush()
    return b"".join(out)


def workload(cpu, n, t0=1_000_000_000, step=50_000, pid=None):
    """A task that runs and sleeps on one CPU n times: n newidle points."""
    pid = pid if pid is not None else 1000 + cpu
    ev, t = [], t0
    for _ in range(n):
        ev.append((t, ev_wakeup(pid, cpu)))
        ev.append((t + 1000, ev_switch(0, 0, pid)))
        ev.append((t + step // 2, ev_switch(pid, 1, 0)))
        t += step
    return ev


# ---------------------------------------------------------------- zstd by hand
def zstd_frame(data, rle=False, declare=None):
    """A zstd frame of raw (or, rle=True, one RLE) blocks; declare: the
    frame content size written in the header (default: len(data))."""
    size = len(data) if declare is None else declare
    out = struct.pack("<I", 0xFD2FB528) + bytes([0xE0]) + struct.pack("<Q", size)
    if rle:
        left = len(data)
        while True:
            n = min(left, 1 << 17)
            left -= n
            out += struct.pack("<I", (1 if not left else 0) | (1 << 1) | (n << 3))[:3]
            out += data[:1] or b"\0"
            if not left:
                return out
    p = 0
    while True:
        chunk = data[p:p + (1 << 17)]
        p += len(chunk)
        last = 1 if p >= len(data) else 0
        if len(chunk) > 16 and chunk.count(chunk[:1]) == len(chunk):
            out += struct.pack("<I", last | 2 | (len(chunk) << 3))[:3] + chunk[:1]
        else:
            out += struct.pack("<I", last | (len(chunk) << 3))[:3] + chunk
        if last:
            return out


def zstd_segments(segs):
    """A frame of raw blocks for bytes segments and RLE zero blocks for int
    segments (that many zero bytes), without building the zeros."""
    total = sum(x if isinstance(x, int) else len(x) for x in segs)
    out = bytearray(struct.pack("<I", 0xFD2FB528) + bytes([0xE0]) + struct.pack("<Q", total))
    blocks = []
    for x in segs:
        left = x if isinstance(x, int) else len(x)
        p = 0
        while left:
            k = min(left, 1 << 17)
            blocks.append((1, k, b"\0") if isinstance(x, int) else (0, k, x[p:p + k]))
            p += k
            left -= k
    for i, (typ, k, d) in enumerate(blocks):
        last = 1 if i == len(blocks) - 1 else 0
        out += struct.pack("<I", last | (typ << 1) | (k << 3))[:3] + d
    return bytes(out), total


def zblock_rle(n, byte=0):
    """trace-cmd's compressed block of n equal bytes (RLE blocks; tiny)."""
    f = struct.pack("<I", 0xFD2FB528) + bytes([0xE0]) + struct.pack("<Q", n)
    left = n
    while True:
        k = min(left, 1 << 17)
        left -= k
        f += struct.pack("<I", (0 if left else 1) | 2 | (k << 3))[:3] + bytes([byte])
        if not left:
            return struct.pack("<II", len(f), n) + f


def zblock(data, usz=None, rle=False):
    """trace-cmd's compressed block: csz(4) usz(4) frame."""
    f = zstd_frame(data, rle=rle)
    return struct.pack("<II", len(f), len(data) if usz is None else usz) + f


# ---------------------------------------------------------------- the file
class Trace:
    """A trace.dat.  buffers: [(name, {cpu: page bytes})], the top one named "".
    Set any attribute before build() to change the file."""

    def __init__(self, version=7, zstd=False, page_size=4096):
        self.version = version
        self.zstd = zstd
        self.page_size = page_size
        self.long_size = 8
        self.events = ["sched_switch", "sched_wakeup", "sched_migrate_task",
                       "sched_process_exit", "sched_process_fork"]
        self.formats = {}          # name -> format text override
        self.buffers = [("", {})]
        self.cpucount = None       # None: number of top-buffer CPUs
        self.cpustats = []         # texts
        self.uname = "Linux hostile 6.18.0 x86_64"
        self.meta = None
        self.extra_options = []    # (id, bytes) in the first options section
        self.buffer_cpu_override = {}  # (buffer index, cpu) -> (cpu id, offset, size)
        self.zchunks = {}          # (buffer index, cpu) -> raw chunk bytes (count+chunks)
        self.options_hook = None   # f(list of option bytes) -> list
        self.options_loop = False  # the options section's DONE names itself
        self.zero_option = 0       # an option of this many zero bytes (zstd: RLE)

    def fmt(self, name):
        return self.formats.get(name) or event_format(name)

    def build(self):
        return self._v7() if self.version == 7 else self._v6()

    def _head(self):
        h = MAGIC + f"{self.version}\0".encode() + bytes([0, self.long_size])
        return h + struct.pack("<I", self.page_size)

    @staticmethod
    def _opt(oid, data):
        return struct.pack("<HI", oid, len(data)) + data

    def _headers(self):
        hp, he = HEADER_PAGE.encode(), HEADER_EVENT.encode()
        return (b"header_page\0" + struct.pack("<Q", len(hp)) + hp +
                b"header_event\0" + struct.pack("<Q", len(he)) + he)

    def _formats(self):
        body = struct.pack("<I", 1) + b"sched\0" + struct.pack("<I", len(self.events))
        for e in self.events:
            t = self.fmt(e).encode()
            body += struct.pack("<Q", len(t)) + t
        return body

    def _cpu_data(self, bi, cpu, pg):
        raw = self.zchunks.get((bi, cpu))
        if raw is not None:
            return raw
        if not self.zstd or not pg:
            return pg
        chunks = []
        step = self.page_size * 10
        for p in range(0, len(pg), step):
            chunks.append(zblock(pg[p:p + step]))
        return struct.pack("<I", len(chunks)) + b"".join(chunks)

    def _v7(self):
        out = bytearray(self._head())
        out += (b"zstd\0" + b"1.5.4\0") if self.zstd else (b"none\0" + b"\0")
        opt_ptr = len(out)
        out += b"\0" * 8
        offs = {}

        def section(sid, body, compress=True):
            flags = 0
            if self.zstd and compress:
                f = zstd_frame(body)
                body = struct.pack("<II", len(f), len(body)) + f
                flags = 1
            offs[sid] = len(out)
            out.extend(struct.pack("<HHIQ", sid, flags, 0, len(body)) + body)

        section(16, self._headers())
        section(17, struct.pack("<I", 0))
        section(18, self._formats())
        section(19, struct.pack("<I", 0))
        section(20, struct.pack("<I", 0))
        section(21, struct.pack("<Q", 0))
        # data: one section per buffer, per-CPU data inside
        bufopts = []
        for bi, (name, cpus) in enumerate(self.buffers):
            sec = len(out)
            out.extend(struct.pack("<HHIQ", 3, 1 if self.zstd else 0, 0, 0))
            ents = []
            for cpu in sorted(cpus):
                d = self._cpu_data(bi, cpu, cpus[cpu])
                off = len(out)
                out.extend(d)
                size = len(d) - 4 if self.zstd and d else len(d)
                ents.append(self.buffer_cpu_override.get((bi, cpu), (cpu, off, size)))
            struct.pack_into("<Q", out, sec + 8, len(out) - sec - 16)
            body = struct.pack("<Q", sec) + name.encode() + b"\0" + b"local\0"
            body += struct.pack("<II", self.page_size, len(ents))
            for e in ents:
                body += struct.pack("<IQQ", *e)
            bufopts.append(self._opt(3, body))
        opts = [self._opt(sid, struct.pack("<Q", offs[sid])) for sid in (16, 17, 18, 19, 20, 21)]
        ncpu = self.cpucount if self.cpucount is not None else len(self.buffers[0][1])
        opts.append(self._opt(8, struct.pack("<I", ncpu)))
        opts.append(self._opt(4, b"[local] global\0"))
        opts.append(self._opt(5, self.uname.encode() + b"\0"))
        for s in self.cpustats:
            opts.append(self._opt(2, s.encode() + b"\0"))
        if self.meta is not None:
            opts.append(self._opt(0x4952, self.meta.encode() + b"\0"))
        opts += bufopts
        opts += [self._opt(i, d) for i, d in self.extra_options]
        if self.options_hook:
            opts = self.options_hook(opts)
        nxt = len(out) if self.options_loop else 0
        done = self._opt(0, struct.pack("<Q", nxt))
        struct.pack_into("<Q", out, opt_ptr, len(out))
        if self.zero_option and self.zstd:
            head = b"".join(opts) + struct.pack("<HI", 0x4953, self.zero_option)
            f, total = zstd_segments([head, self.zero_option, done])
            body = struct.pack("<II", len(f), total) + f
            out.extend(struct.pack("<HHIQ", 0, 1, 0, len(body)) + body)
            return bytes(out)
        if self.zero_option:
            opts.append(struct.pack("<HI", 0x4953, self.zero_option) + b"\0" * self.zero_option)
        section(0, b"".join(opts) + done)
        return bytes(out)

    def _v6(self):
        out = bytearray(self._head())
        out += self._headers()
        out += struct.pack("<I", 0)           # ftrace events
        out += self._formats()
        out += struct.pack("<I", 0) + struct.pack("<I", 0) + struct.pack("<Q", 0)
        cpus = self.buffers[0][1]
        n = max(cpus) + 1 if cpus else 0
        out += struct.pack("<I", self.cpucount if self.cpucount is not None else n)
        opts = [self._opt(5, self.uname.encode() + b"\0")]
        for s in self.cpustats:
            opts.append(self._opt(2, s.encode() + b"\0"))
        if self.meta is not None:
            opts.append(self._opt(0x4952, self.meta.encode() + b"\0"))
        opts += [self._opt(i, d) for i, d in self.extra_options]
        out += b"options  \0" + b"".join(opts) + struct.pack("<H", 0)
        out += b"flyrecord\0"
        table = len(out)
        out += b"\0" * 16 * n
        # data page-aligned, as trace-cmd writes it
        for cpu in range(n):
            pg = cpus.get(cpu, b"")
            pad = (-len(out)) % self.page_size
            out += b"\0" * pad
            struct.pack_into("<QQ", out, table + 16 * cpu, len(out), len(pg))
            out += pg
        return bytes(out)

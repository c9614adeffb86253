#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Crafted (hostile) trace.dat files: every length, count, offset and size
field of the format set to what an attacker would put there.

usage: gen_hostile.py OUTDIR     writes OUTDIR/<case>.dat and OUTDIR/cases.tsv
       (or import it: cases() yields Case objects)

Each case says how replay must end: 'bad' exit 2, 'ok' exit 0, 'any' 0 or 2,
the extra options to run it with, and optionally a check of the JSON report.
Standard library only; deterministic.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tracedat as T  # noqa: E402


class Case:
    def __init__(self, name, data, expect, what, args=(), check=None, exit_codes=None):
        self.name, self.data, self.expect, self.what = name, data, expect, what
        self.args, self.check = list(args), check
        self.exit_codes = exit_codes


def two_cpu(version=7, zstd=False, n=200):
    t = T.Trace(version=version, zstd=zstd)
    t.buffers = [("", {0: T.pages(T.workload(0, n)), 1: T.pages(T.workload(1, n // 2))})]
    return t


def newidle_points(n):
    def check(doc):
        got = doc["observed"]["newidle_points"]
        return None if got == n else f"newidle_points {got}, expected {n}"
    return check


def field_cases():
    """Event format fields at offsets and sizes outside any record."""
    for field in ("next_pid", "prev_pid", "prev_state", "next_comm", "prev_prio"):
        for off, size in (("2147483648", "4"), ("4294867296", "4"), ("-8", "4"),
                          ("60", "2147483647"), ("60", "4294967295"), ("65532", "8"),
                          ("4096", "4"), ("61", "8"), ("60", "-4"), ("60", "0")):
            t = two_cpu()
            t.formats["sched_switch"] = T.event_format("sched_switch", {field: (off, size)})
            tag = f"{field}-{off}-{size}".replace("-", "_")
            yield Case(f"field_{tag}", t.build(), "bad",
                       f"sched_switch {field} offset {off} size {size}")
    # __data_loc strings pointing anywhere
    for loc in (0xffffffff, 0xffff0000, 0x0000ffff, 0x7fff7fff):
        t = two_cpu()
        mig = []
        for i in range(50):
            d = struct.pack("<HBBiIiiii", 371, 0, 0, 5, loc, 77, 120, 0, 1)
            mig.append((1_000_000_000 + 1000 * i + 3, d))
        ev = sorted(T.workload(0, 100) + mig, key=lambda e: e[0])
        t.buffers = [("", {0: T.pages(ev), 1: T.pages(T.workload(1, 50))})]
        yield Case(f"dataloc_{loc:08x}", t.build(), "any", f"migrate comm __data_loc {loc:#x}")
    for sysfmt in ("sched_migrate_task", "sched_process_fork"):
        t = two_cpu()
        t.formats[sysfmt] = T.event_format(sysfmt, {"pid": ("2147483640", "8"),
                                                    "child_pid": ("-100000", "4")})
        yield Case(f"field_{sysfmt}_far", t.build(),
                   "bad" if sysfmt == "sched_migrate_task" else "any", f"{sysfmt} pid far away")


def cpustat_cases():
    for cpu in ("2147483647", "2147483648", "-1", "-2147483648", "4096", "4095",
                "99999999999999999999", "0x10"):
        t = two_cpu()
        t.cpustats = [f"CPU: {cpu}\nentries: 0\noverrun: 7\ncommit overrun: 0\n"
                      f"bytes: 0\noldest event ts: 0.0\nnow ts: 1.0\ndropped events: 3\nread events: 1\n"]
        yield Case(f"cpustat_cpu_{cpu.replace('-', 'm')}", t.build(), "any",
                   f"per-CPU stats option for CPU {cpu}", args=["--allow-lost"])
    t = two_cpu()
    t.cpustats = ["CPU: 0\noverrun: 18446744073709551615\ndropped events: 18446744073709551615\n",
                  "CPU: 1\noverrun: 18446744073709551615\ndropped events: 18446744073709551615\n"]
    yield Case("cpustat_overrun_max", t.build(), "any", "lost counts at 2^64-1",
               args=["--allow-lost"])
    t = two_cpu()
    t.cpustats = [f"CPU: {i}\noverrun: 1\n" for i in range(5000)]
    yield Case("cpustat_5000", t.build(), "any", "5000 per-CPU stats options")


def time_cases():
    top = (1 << 64) - 1
    for name, t0, step in (("ts_near_2e64", top - 5_000_000, 50_000),
                           ("ts_at_2e64", top - 50 * 2000 - 1000, 2000)):
        for args in (["--timeline"], ["--html", "{out}.html"], []):
            t = T.Trace()
            t.buffers = [("", {0: T.pages(T.workload(0, 50, t0=t0, step=step))})]
            yield Case(f"{name}{'_' + args[0].strip('-') if args else ''}", t.build(), "any",
                       "time stamps near 2^64", args=args)
    # a normal start, then a page whose time stamp jumps to near 2^64
    for args in (["--timeline"], ["--html", "{out}.html"]):
        ev = T.workload(0, 100) + T.workload(0, 20, t0=top - 10_000_000)
        t = T.Trace()
        t.buffers = [("", {0: T.pages(ev, page_size=4096)})]
        yield Case(f"ts_jump_2e64_{args[0].strip('-')}", t.build(), "any",
                   "time jumps from 1 s to near 2^64", args=args)
    # --detail window beyond 2^64
    for off in ("1000000000s:100000000s", "1s:1000000000s"):
        t = T.Trace()
        t.buffers = [("", {0: T.pages(T.workload(0, 50, t0=top - 5_000_000_000))})]
        yield Case(f"detail_wraps_{off.split(':')[0]}", t.build(), "any",
                   "--detail window past 2^64", args=["--timeline", "--detail", off])


def zstd_cases():
    # many CPUs, each a tiny chunk that claims (and RLE-expands to) 64 MiB of empty pages
    for ncpu, mib in ((64, 64), (40, 63), (8, 64), (1024, 4)):
        t = T.Trace(zstd=True)
        cpus = {c: b"x" for c in range(ncpu)}
        t.buffers = [("", cpus)]
        for c in range(ncpu):
            if c < 2:
                pg = T.pages(T.workload(c, 20))
                t.zchunks[(0, c)] = struct.pack("<I", 2) + T.zblock(pg) + \
                    T.zblock_rle(mib << 20)
            else:
                t.zchunks[(0, c)] = struct.pack("<I", 1) + T.zblock_rle(mib << 20)
        yield Case(f"zstd_{ncpu}cpus_{mib}mib", t.build(), "any",
                   f"{ncpu} CPUs with {mib} MiB zstd chunks")
    # a chunk whose declared size differs from its frame
    for usz in (0, 1, 0xffffffff, 40960 * 2):
        t = T.Trace(zstd=True)
        pg = T.pages(T.workload(0, 20))
        t.buffers = [("", {0: b"x"})]
        t.zchunks[(0, 0)] = struct.pack("<I", 1) + T.zblock(pg, usz=usz)
        yield Case(f"zstd_usz_{usz:x}", t.build(), "bad", f"chunk declares {usz} bytes")
    # chunk counts larger than the data
    for count in (0xffffffff, 1000000):
        t = T.Trace(zstd=True)
        pg = T.pages(T.workload(0, 20))
        t.buffers = [("", {0: b"x"})]
        t.zchunks[(0, 0)] = struct.pack("<I", count) + T.zblock(pg)
        yield Case(f"zstd_count_{count}", t.build(), "any", f"{count} chunks announced")
    # compressed sections that claim huge sizes; a looped options chain
    for usz_mib in (64, 255):
        t = two_cpu(zstd=True)
        t.zero_option = usz_mib << 20
        data = t.build()
        yield Case(f"zstd_options_{usz_mib}mib", data, "any",
                   f"options section decompressing to {usz_mib} MiB")
    for z in (True, False):
        t = two_cpu(zstd=z)
        t.zero_option = (200 if z else 1) << 20
        t.options_loop = True
        yield Case(f"options_loop{'_zstd' if z else ''}", t.build(), "any",
                   "options section chain that points at itself")


def page_cases():
    # 1 MiB pages on many CPUs; and many CPUs naming the same data
    for ncpu in (64, 512):
        t = T.Trace(page_size=1 << 20)
        pg = T.pages(T.workload(0, 30), page_size=1 << 20)
        t.buffers = [("", {c: (pg if c == 0 else b"") for c in range(ncpu)})]
        data = bytearray(t.build())
        yield Case(f"pages_1mib_{ncpu}cpus_same", same_data(data, ncpu), "any",
                   f"{ncpu} CPUs naming one 1 MiB page")
    for ncpu in (4096, 1000):
        t = T.Trace()
        pg = T.pages(T.workload(0, 400))
        t.buffers = [("", {c: (pg if c == 0 else b"") for c in range(ncpu)})]
        data = bytearray(t.build())
        yield Case(f"same_data_{ncpu}cpus", same_data(data, ncpu), "any",
                   f"{ncpu} CPUs all naming the same data")
    # CPU ids that do not match the CPU count; duplicate ids; huge ids
    for ids in ((0, 0), (0, 4095), (0, 2147483647), (0, 0xffffffff), (5, 6)):
        t = T.Trace()
        t.buffers = [("", {0: T.pages(T.workload(0, 50)), 1: T.pages(T.workload(1, 50))})]
        t.buffer_cpu_override = {}
        data = t.build()
        yield Case(f"buffer_ids_{ids[0]}_{ids[1]:x}", set_ids(data, ids), "any",
                   f"BUFFER CPU ids {ids}")
    # CPUCOUNT far beyond the data, with --html
    for n in (4096, 65535, 0xffffffff, 0):
        t = two_cpu()
        t.cpucount = n
        yield Case(f"cpucount_{n:x}_html", t.build(), "any", f"CPUCOUNT {n} with --html",
                   args=["--html", "{out}.html"])
    # committed sizes and page sizes
    for ps in (1 << 20, 1024):
        t = T.Trace(page_size=ps)
        t.buffers = [("", {0: T.pages(T.workload(0, 50), page_size=ps)})]
        yield Case(f"page_size_{ps}", t.build(), "ok", f"page size {ps}",
                   check=newidle_points(50))


def buffer_table(data):
    """(offset of the BUFFER option's per-CPU table, count) of the first BUFFER option."""
    opt = struct.unpack_from("<Q", data, len(T.MAGIC) + 2 + 6 + 5 + 1)[0]
    p, end = opt + 16, opt + 16 + struct.unpack_from("<Q", data, opt + 8)[0]
    while p < end:
        oid, sz = struct.unpack_from("<HI", data, p)
        if oid == 3:
            q = p + 6 + 8
            q = data.index(b"\0", q) + 1
            q = data.index(b"\0", q) + 1
            n = struct.unpack_from("<I", data, q + 4)[0]
            return q + 8, n
        p += 6 + sz
    raise ValueError("no BUFFER option")


def same_data(data, ncpu):
    q, n = buffer_table(data)
    cpu0, off, size = struct.unpack_from("<IQQ", data, q)
    for i in range(1, n):
        struct.pack_into("<IQQ", data, q + 20 * i, i, off, size)
    return bytes(data)


def set_ids(data, ids):
    data = bytearray(data)
    q, n = buffer_table(data)
    for i, cid in enumerate(ids[:n]):
        struct.pack_into("<I", data, q + 20 * i, cid)
    return bytes(data)


def topology_text(n, groups=None):
    """idlereplay-topology 1 text for n CPUs in one package (model/ format)."""
    last = n - 1
    lines = ["idlereplay-topology 1", f"online 0-{last}"]
    for c in range(n):
        core = groups(c) if groups else f"{c}"
        lines.append(f"cpu {c} core_cpus={core} cluster_cpus={core} package_cpus=0-{last} "
                     f"die_cpus=0-{last} node=0")
    lines.append(f"node 0 cpus=0-{last} distance=10")
    return "\n".join(lines) + "\n"


def topology_cases():
    for n, z in ((65536, True), (8192, True), (4096, False), (3, False)):
        t = two_cpu(zstd=z)
        t.meta = ("idlereplay-meta 1\nkernel_release 6.18.0\nsched_migration_cost_ns 500000\n"
                  "topology-begin\n" + topology_text(n) + "topology-end\n")
        yield Case(f"meta_topology_{n}", t.build(), "any", f"recorded topology with {n} CPUs")
    # a machine of 8 CPUs whose CPUs 2-7 recorded nothing: replays
    t = two_cpu()
    t.cpucount = 8
    t.meta = ("idlereplay-meta 1\nkernel_release 6.18.0\ntopology-begin\n" + topology_text(8) +
              "topology-end\n")
    yield Case("meta_topology_8_data_2", t.build(), "ok", "8-CPU topology, data on 2",
               check=newidle_points(300))
    t = two_cpu(zstd=True)
    t.meta = ("idlereplay-meta 1\ntopology-begin\n" +
              topology_text(2, lambda c: "0-1") + "cpu 1 core_cpus=0-65535\ntopology-end\n")
    yield Case("meta_topology_dup_cpu", t.build(), "any", "a CPU named twice, huge mask")


def task_cases():
    # many short-lived tasks: each exits and leaves the CPU idle (a newidle point)
    ev0 = []
    t0 = 1_000_000_000
    for i in range(20000):
        pid = 10000 + i
        ts = t0 + i * 4000
        ev0.append((ts, T.ev_wakeup(pid, 0)))
        ev0.append((ts + 500, T.ev_switch(0, 0, pid)))
        ev0.append((ts + 1000, T.ev_exit(pid)))
        ev0.append((ts + 1500, T.ev_switch(pid, 0x10, 0)))
    t = T.Trace(zstd=True)
    t.buffers = [("", {0: T.pages(ev0)})]
    yield Case("tasks_20k_exit", t.build(), "ok", "20,000 tasks that exit",
               check=newidle_points(20000))


def lost_cases():
    # 5 % of CPU 0's events lost (per-CPU stats): report, but exit 3
    t = two_cpu()
    t.cpustats = ["CPU: 0\noverrun: 50\ndropped events: 0\n", "CPU: 1\noverrun: 0\n"]
    yield Case("lost_5pct", t.build(), "lost", "5 % of events lost", exit_codes=(3,))
    yield Case("lost_5pct_allowed", t.build(), "ok", "5 % lost, --allow-lost",
               args=["--allow-lost"])
    yield Case("lost_5pct_threshold", t.build(), "ok", "5 % lost under --max-lost 10",
               args=["--max-lost", "10"])
    t = two_cpu()
    t.cpustats = ["CPU: 0\noverrun: 1\n"]
    yield Case("lost_tiny", t.build(), "ok", "0.1 % lost: under the default 1 %")
    # in-data markers: pages that say events were missed
    ev = T.workload(0, 300)
    t = T.Trace()
    t.buffers = [("", {0: T.pages(ev, missed={1: 100}), 1: T.pages(T.workload(1, 10))})]
    yield Case("lost_in_data", t.build(), "lost", "a page marks 100 missed events",
               exit_codes=(3,))


def silent_loss_cases():
    # data for CPU 3 while the BUFFER option names 2 CPUs' worth: CPUs 0 and 3
    t = T.Trace()
    t.buffers = [("", {0: T.pages(T.workload(0, 40)), 3: T.pages(T.workload(3, 60))})]
    t.cpucount = 2
    yield Case("cpu_id_beyond_count", t.build(), "ok", "data of CPU 3 in a 2-CPU trace",
               check=newidle_points(100))
    t = T.Trace(version=6)
    t.buffers = [("", {0: T.pages(T.workload(0, 40)), 1: T.pages(T.workload(1, 60))})]
    yield Case("v6_two_cpus", t.build(), "ok", "v6 trace", check=newidle_points(100))


def instance_cases():
    # events in an instance buffer only; the top buffer empty
    t = T.Trace()
    t.buffers = [("", {0: b"", 1: b""}),
                 ("idlereplay", {0: T.pages(T.workload(0, 30)), 1: T.pages(T.workload(1, 20))})]
    yield Case("instance_only", t.build(), "ok", "events only in instance 'idlereplay'",
               check=newidle_points(50))
    yield Case("instance_named", t.build(), "ok", "--buffer idlereplay",
               args=["--buffer", "idlereplay"], check=newidle_points(50))
    yield Case("instance_unknown", t.build(), "bad", "--buffer nosuch",
               args=["--buffer", "nosuch"])
    t = T.Trace()
    t.buffers = [("", {0: b""}),
                 ("a", {0: T.pages(T.workload(0, 30))}),
                 ("b", {0: T.pages(T.workload(0, 7))})]
    yield Case("instance_ambiguous", t.build(), "bad", "two instances with events")
    yield Case("instance_pick_b", t.build(), "ok", "--buffer b", args=["--buffer", "b"],
               check=newidle_points(7))
    yield Case("instance_pick_top", t.build(), "bad", "--buffer '' (top, empty)",
               args=["--buffer", "top"])
    t = T.Trace()
    t.buffers = [("", {0: T.pages(T.workload(0, 30))}), ("x", {0: T.pages(T.workload(0, 9))})]
    yield Case("instance_and_top", t.build(), "bad", "top and instance both with events")
    yield Case("instance_and_top_pick", t.build(), "ok", "--buffer x",
               args=["--buffer", "x"], check=newidle_points(9))


def header_cases():
    t = two_cpu()
    b = t.build()
    for i, off in enumerate(range(10, 40, 3)):
        for v in (b"\xff", b"\x00", b"\x7f"):
            x = bytearray(b)
            x[off:off + 1] = v
            yield Case(f"header_{off}_{v.hex()}", bytes(x), "any", f"header byte {off} = {v.hex()}")
    for ver, z in ((7, True), (6, False)):
        t = two_cpu(version=ver, zstd=z)
        yield Case(f"good_v{ver}{'_zstd' if z else ''}", t.build(), "ok", "a valid crafted trace",
                   check=newidle_points(300))


def cases():
    for gen in (lambda: header_cases(), field_cases, cpustat_cases, time_cases, zstd_cases,
                page_cases, topology_cases, task_cases, lost_cases, silent_loss_cases,
                instance_cases):
        yield from gen()


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        sys.stderr.write(__doc__)
        return 1
    os.makedirs(argv[1], exist_ok=True)
    with open(os.path.join(argv[1], "cases.tsv"), "w") as m:
        for c in cases():
            with open(os.path.join(argv[1], c.name + ".dat"), "wb") as f:
                f.write(c.data)
            m.write(f"{c.name}\t{c.expect}\t{' '.join(c.args)}\t{c.what}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

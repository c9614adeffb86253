#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Make broken trace.dat files from real ones.

usage: gen_broken.py OUTDIR TRACE...   (or import it: generate())

Writes OUTDIR/<name>.dat and OUTDIR/manifest.tsv: name, expectation, what.
(test_broken.py generates them one at a time instead: the uncompressed
copies are megabytes each.)
Expectation 'bad' means the file is broken for sure (replay must exit 2:
truncations, not traces, sched_switch missing, and on uncompressed copies
scrambled pages, bad committed sizes, page time stamps out of order);
'any' means it may still be a valid trace (exit 0 with a report, or 2).
Deterministic (seeded).  For data-page damage it first makes uncompressed
v7 and v6 copies with `trace-cmd convert` (when trace-cmd is installed), so
that flips hit ring-buffer pages and not zstd frames.
"""
import argparse
import os
import sys as _s; _s.flags.optimize and _s.exit("FAIL: python -O would strip this check's asserts")
import random
import shutil
import struct
import subprocess

OPT_BUFFER = 3
SECTION_OPTS = {16: "headers", 17: "ftrace-events", 18: "event-formats",
                19: "kallsyms", 20: "printk", 21: "cmdlines"}


def cstr(b, off):
    end = b.index(b"\0", off)
    return b[off:end].decode("latin1"), end + 1


def layout(b):
    """Return (version, regions): regions is a list of (label, offset, size)."""
    regions = []
    ver, off = cstr(b, 10)
    ver = int(ver)
    endian = "<" if b[off] == 0 else ">"
    page = struct.unpack(endian + "I", b[off + 2:off + 6])[0]
    off += 6
    regions.append(("header", 0, off))
    if ver >= 7:
        _, off = cstr(b, off)      # compression
        _, off = cstr(b, off)      # compression version
        opt = struct.unpack(endian + "Q", b[off:off + 8])[0]
        seen = 0
        while opt and seen < 16:
            seen += 1
            sid, flags, _, size = struct.unpack(endian + "HHIQ", b[opt:opt + 16])
            regions.append(("options", opt, 16 + size))
            p, end, nxt = opt + 16, opt + 16 + size, 0
            while p + 6 <= end:
                oid, osz = struct.unpack(endian + "HI", b[p:p + 6])
                d = b[p + 6:p + 6 + osz]
                if oid == 0:
                    nxt = struct.unpack(endian + "Q", d[:8])[0] if osz >= 8 else 0
                    break
                if oid in SECTION_OPTS:
                    so = struct.unpack(endian + "Q", d[:8])[0]
                    ssize = struct.unpack(endian + "Q", b[so + 8:so + 16])[0]
                    regions.append((SECTION_OPTS[oid], so, 16 + ssize))
                if oid == OPT_BUFFER:
                    q = 8
                    for _ in range(2):
                        q = d.index(b"\0", q) + 1
                    ncpu = struct.unpack(endian + "I", d[q + 4:q + 8])[0]
                    q += 8
                    for _ in range(ncpu):
                        _, do, ds = struct.unpack(endian + "IQQ", d[q:q + 20])
                        q += 20
                        if ds:
                            regions.append(("data", do, ds))
                p += 6 + osz
            opt = nxt
    else:
        name, off = cstr(b, off)
        size = struct.unpack(endian + "Q", b[off:off + 8])[0]
        regions.append(("header-page", off + 8, size))
        off += 8 + size
        name, off = cstr(b, off)
        size = struct.unpack(endian + "Q", b[off:off + 8])[0]
        off += 8 + size
        n = struct.unpack(endian + "I", b[off:off + 4])[0]
        start = off
        off += 4
        for _ in range(n):
            size = struct.unpack(endian + "Q", b[off:off + 8])[0]
            off += 8 + size
        regions.append(("ftrace-events", start, off - start))
        n = struct.unpack(endian + "I", b[off:off + 4])[0]
        start = off
        off += 4
        for _ in range(n):
            _, off = cstr(b, off)
            ne = struct.unpack(endian + "I", b[off:off + 4])[0]
            off += 4
            for _ in range(ne):
                size = struct.unpack(endian + "Q", b[off:off + 8])[0]
                off += 8 + size
        regions.append(("event-formats", start, off - start))
        for w in (4, 4, 8):
            size = struct.unpack(endian + ("I" if w == 4 else "Q"), b[off:off + w])[0]
            off += w + size
        cpus = struct.unpack(endian + "I", b[off:off + 4])[0]
        off += 4
        while True:
            tag = b[off:off + 10]
            off += 10
            if tag.startswith(b"options"):
                start = off
                while True:
                    oid = struct.unpack(endian + "H", b[off:off + 2])[0]
                    off += 2
                    if oid == 0:
                        break
                    osz = struct.unpack(endian + "I", b[off:off + 4])[0]
                    off += 4 + osz
                regions.append(("options", start, off - start))
                continue
            break
        for _ in range(cpus):
            do, ds = struct.unpack(endian + "QQ", b[off:off + 16])
            off += 16
            if ds:
                regions.append(("data", do, ds))
    return ver, page, regions


class Gen:
    """Collects variants lazily: put() hands each to a sink right away."""
    def __init__(self, sink):
        self.sink = sink
        self.n = 0

    def put(self, name, data, expect, what):
        self.n += 1
        self.sink(name + ".dat", data, expect, what)


def truncations(g, tag, b, regions):
    cuts = {1, 5, 9, 10, 11, 12, 14, 17, 20, 30, 40, len(b) // 2, len(b) - 1}
    for label, off, size in regions:
        for c in (off + 1, off + 8, off + 17, off + size // 2, off + size - 1):
            if 0 < c < len(b):
                cuts.add(c)
    data = [r for r in regions if r[0] == "data"]
    for _, off, size in data[:2]:
        for k in (0, 1, 3):
            c = off + k * 4096 + 2000     # mid-page
            if c < off + size and c < len(b):
                cuts.add(c)
    for c in sorted(cuts):
        g.put(f"{tag}-trunc-{c}", b[:c], "bad", f"truncated at {c} of {len(b)}")


def flips(g, tag, b, rnd, lo, hi, n, label, header_end=0):
    """n variants with 1-8 random bits flipped in [lo, hi).  A flip in the
    file header (magic, version, endianness, long size, page size: bytes
    before header_end) is detectable: that variant must be rejected."""
    hi = min(hi, len(b))
    if hi <= lo:
        return
    for i in range(n):
        m = bytearray(b)
        k = rnd.randint(1, 8)
        where = []
        for _ in range(k):
            pos = rnd.randrange(lo, hi)
            m[pos] ^= 1 << rnd.randrange(8)
            where.append(pos)
        hit = any(w < header_end for w in where) and bytes(m[:header_end]) != b[:header_end]
        g.put(f"{tag}-flip-{label}-{i}", bytes(m), "bad" if hit else "any",
              f"{k} bit(s) flipped in {label} at {where}" + (" (file header: detectable)" if hit else ""))


def header_flips(g, tag, b, header_end):
    """Every byte of the file header, low and high bit: each is checked by
    the reader (magic, "tracing", version, endianness, long size, page
    size), so each variant must be rejected."""
    for pos in range(header_end):
        for bit in (0, 7):
            m = bytearray(b)
            m[pos] ^= 1 << bit
            g.put(f"{tag}-hdrflip-{pos}-{bit}", bytes(m), "bad", f"file header byte {pos} bit {bit} flipped")


def page_damage(g, tag, b, regions, page, rnd):
    data = [r for r in regions if r[0] == "data"]
    for ci, (_, off, size) in enumerate(data[:2]):
        npages = size // page
        if npages < 3:
            continue
        for i in range(3):
            p = off + rnd.randrange(npages) * page
            m = bytearray(b)
            m[p:p + page] = rnd.randbytes(page)
            g.put(f"{tag}-scramble-cpu{ci}-{i}", bytes(m), "bad", f"page at {p} scrambled")
        # commit size far beyond the page
        p = off + page
        m = bytearray(b)
        m[p + 8:p + 16] = struct.pack("<Q", 0x00ffffff)
        g.put(f"{tag}-commit-huge-cpu{ci}", bytes(m), "bad", f"page at {p}: commit 0xffffff")
        # page timestamp far in the future, then back in the past
        m = bytearray(b)
        m[p:p + 8] = struct.pack("<Q", 0x7fffffffffffffff)
        g.put(f"{tag}-ts-future-cpu{ci}", bytes(m), "bad", f"page at {p}: timestamp 2^63-1")
        m = bytearray(b)
        m[p:p + 8] = struct.pack("<Q", 1)
        g.put(f"{tag}-ts-past-cpu{ci}", bytes(m), "bad", f"page at {p}: timestamp 1")
        # event bodies: zeros (bad lengths); 0xff (all time stamps: may
        # still be well-formed, and an unused page is not read at all)
        m = bytearray(b)
        m[p + 16:p + page] = bytes(page - 16)
        g.put(f"{tag}-zero-page-cpu{ci}", bytes(m), "bad", f"page at {p}: events zeroed")
        m = bytearray(b)
        m[p + 16:p + page] = b"\xff" * (page - 16)
        g.put(f"{tag}-ff-page-cpu{ci}", bytes(m), "any", f"page at {p}: events 0xff")
        flips(g, f"{tag}-cpu{ci}", b, rnd, off, off + size, 6, "data")


def rename(g, tag, b, old, new, what):
    if len(old) != len(new):
        raise ValueError(f"rename {old!r} -> {new!r}: lengths differ")
    if old not in b:
        return
    g.put(f"{tag}-{what}", b.replace(old, new), "bad", f"{old!r} renamed {new!r}")


def generate(traces, sink, workdir):
    """Call sink(name, bytes, expect, what) for every variant."""
    g = Gen(sink)
    rnd = random.Random(20240607)
    tc = shutil.which("trace-cmd")
    for src in traces:
        tag = os.path.splitext(os.path.basename(src))[0]
        b = open(src, "rb").read()
        ver, page, regions = layout(b)
        header_end = sum(size for label, off, size in regions if label == "header")
        truncations(g, tag, b, regions)
        header_flips(g, tag, b, header_end)
        flips(g, tag, b, rnd, 0, 65536, 10, "head64k", header_end)
        for label, off, size in regions:
            if label in ("headers", "event-formats", "options"):
                flips(g, f"{tag}-{label}-{off}", b, rnd, off, off + size, 2, label)
        if tc:
            for fv, comp in (("7", "none"), ("6", None)):
                conv = os.path.join(workdir, f".{tag}.v{fv}.tmp")
                cmd = [tc, "convert", "-i", src, "-o", conv, "--file-version", fv]
                if comp:
                    cmd += ["--compression", comp]
                if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
                    continue
                u = open(conv, "rb").read()
                os.unlink(conv)
                ut = f"{tag}-v{fv}raw"
                uver, upage, uregions = layout(u)
                g.put(ut, u, "good", "uncompressed copy made by trace-cmd convert")
                page_damage(g, ut, u, uregions, upage, rnd)
                rename(g, ut, u, b"name: sched_switch\n", b"name: sched_swxtch\n", "no-sched-switch")
                rename(g, ut, u, b"prev_state;", b"prev_stxte;", "no-prev-state")
                flips(g, ut, u, rnd, 0, 65536, 4, "head64k")
                if fv == "6":
                    for label, off, size in uregions:
                        if label != "data":
                            for c in (off + 1, off + size // 2):
                                g.put(f"{ut}-trunc-{label}-{c}", u[:c], "bad",
                                      f"truncated in {label} at {c}")
    # not traces at all
    g.put("empty", b"", "bad", "empty file")
    g.put("text", b"this is not a trace\n" * 100, "bad", "text")
    g.put("magic-only", b"\x17\x08\x44tracing", "bad", "magic only")
    g.put("bad-version", b"\x17\x08\x44tracing8\0\0\x08\0\x10\0\0" + bytes(100), "bad", "version 8")
    g.put("zeros", bytes(70000), "bad", "zeros")
    g.put("random", random.Random(7).randbytes(70000), "bad", "random bytes")
    if os.path.exists("/bin/true"):
        g.put("elf", open("/bin/true", "rb").read(), "bad", "an ELF executable")
    return g.n


def main(argv=None):
    # argparse: an unknown option ("--help" aside, which prints the usage)
    # is an error, never taken for OUTDIR (a directory named "--help/" was
    # once made that way).
    ap = argparse.ArgumentParser(description="Make broken trace.dat files from real ones.")
    ap.add_argument("outdir", help="directory for <name>.dat and manifest.tsv")
    ap.add_argument("traces", nargs="+", metavar="TRACE", help="real trace.dat files to damage")
    args = ap.parse_args(argv)
    out, traces = args.outdir, args.traces
    os.makedirs(out, exist_ok=True)
    rows = []

    def sink(name, data, expect, what):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        rows.append((name, expect, what))

    generate(traces, sink, out)
    with open(os.path.join(out, "manifest.tsv"), "w") as f:
        for r in rows:
            f.write("\t".join(r) + "\n")
    print(f"{len(rows)} files in {out}")


if __name__ == "__main__":
    main()

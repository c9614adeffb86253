#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Report pages at 800 px wide, rendered in headless Chromium.

Each page (replays of host-hackbench and host-pipe, a hand-built trace that
lost events, the fixtures' reports, the fleet page) is rendered at 800 px:
nothing may overflow horizontally (a copy of the page carries a script that
writes the document's scrollWidth into the DOM; the page itself has none).
The rendered DOM is then read against figures computed here from the JSON
report, the decisions file and, for lost events, the trace as built:
  - the headline per policy (pulls, avoided, traded, net);
  - every bar of every bar chart, and whether its axis is logarithmic
    (non-zero values a hundredfold apart);
  - the timelines' pull rows: per policy the points where its decision
    pulled (decisions file), whole trace and detailed window;
  - the anomaly marks: per kind the total (observed.anomalies), the marks
    drawn (the listed positions inside the chart), and for the lost-events
    trace the positions themselves;
  - parameters printed once, with units;
  - the sweep line charts (a replay with a sweep) and the fleet page's range
    charts: their values against the JSON, a symmetric log scale exactly
    when the non-zero magnitudes differ a hundredfold (said on the chart),
    and on it each point where sign(v) log10(1 + |v| / C) puts it (C the
    smallest non-zero magnitude).
A control page made wider than 800 px must be caught.
"""
import html.parser
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.flags.optimize and sys.exit("FAIL: python -O would strip this check's asserts")
IR = os.environ["IDLEREPLAY"]
SRC = os.environ["IR_SOURCE_ROOT"]
FIX = os.path.join(SRC, "tests/unit/report/fixtures")
sys.path.insert(0, os.path.join(SRC, "tests/hostile"))
import tracedat as T  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import headline_check  # noqa: E402

WIDTH = 800
PROBE = ('<script>var d=document.documentElement;d.setAttribute("data-sw",d.scrollWidth);'
         'd.setAttribute("data-cw",d.clientWidth);'
         'd.setAttribute("data-tov",Array.from(document.querySelectorAll("table")).filter('
         'function(t){return t.scrollWidth>t.clientWidth;}).length);</script></body>')


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def find_chromium():
    for c in ("chromium", "chromium-browser"):
        p = shutil.which(c)
        if p:
            return p
    msg = "needs chromium (scripts/setup.sh installs it)"
    if os.environ.get("CI") == "true":
        fail(msg)
    print(f"SKIP: {msg}")
    sys.exit(77)


CHROMIUM = find_chromium()
WORK = tempfile.mkdtemp(prefix="ir-html800.")


def run(*args, ok=(0,)):
    r = subprocess.run([IR, *args], capture_output=True, text=True)
    if r.returncode not in ok:
        fail(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()[:300]}")


def render(page, name):
    """The DOM of page rendered at WIDTH px, and (scrollWidth, clientWidth)."""
    probe = os.path.join(WORK, name + ".probe.html")
    with open(page) as f:
        text = f.read()
    assert text.count("</body>") == 1, name
    with open(probe, "w") as f:
        f.write(text.replace("</body>", PROBE))
    prof = tempfile.mkdtemp(dir=WORK)
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--disable-background-networking", "--disable-component-update", "--no-first-run",
                        f"--user-data-dir={prof}", f"--window-size={WIDTH},1000", "--dump-dom",
                        "file://" + probe], capture_output=True, text=True, timeout=120)
    if r.returncode:
        fail(f"{name}: chromium exit {r.returncode}: {r.stderr[-300:]}")
    p = Page()
    p.feed(r.stdout)
    if p.sw is None:
        fail(f"{name}: the probe did not run")
    return p


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.sw = self.cw = self.tov = None
        self.li = []
        self.fig = None          # id of the figure we are in
        self.figs = {}           # id -> {"attrs", "rects", "lanes", "anoms", "paths", "text"}
        self.anom_g = None
        self.text_in = None
        self.params = []         # rows of the parameter tables: [cells]
        self.table = None
        self.row = None
        self.cell = None
        self.svg = None          # id of the fleet range chart we are in
        self.svgs = {}           # id -> {"attrs", "ranges": [(g attrs, circle attrs)], "text"}
        self.range = None
        self.li_text = []        # the headline items' text, as rendered
        self.in_li = False
        self.warns = []          # the warning paragraphs: [headline items before, text]
        self.in_warn = False
        self.seq_text = None     # a bar chart's value label, tick or axis label being read
        self.elem_text = None    # a figure element's text being read
        self.hosts = None        # the fleet page's hosts table: rows of cells

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and a.get("data-scale") and a.get("id"):
            self.svg = a["id"]
            self.svgs[self.svg] = {"attrs": a, "ranges": [], "text": []}
        sv = self.svgs.get(self.svg) if self.svg else None
        if sv is not None:
            if tag == "g" and a.get("class") == "range":
                self.range = a
            if tag == "circle" and self.range is not None:
                sv["ranges"].append((self.range, a))
            if tag == "text":
                self.text_in = sv
        if tag == "html":
            self.sw, self.cw = int(a["data-sw"]), int(a["data-cw"])
            self.tov = int(a["data-tov"])
        if tag == "p" and a.get("class") == "warn":
            self.warns.append([len(self.li), []])	# headline items before it, its text
            self.in_warn = True
        if tag == "li" and "data-policy" in a:
            self.li.append(a)
            self.li_text.append([])
            self.in_li = True
        if tag == "figure":
            self.fig = a.get("id")
            if self.fig:
                self.figs[self.fig] = {"attrs": a, "rects": [], "lanes": {}, "anoms": {}, "paths": {}, "text": []}
        f = self.figs.get(self.fig) if self.fig else None
        if f is not None:
            if tag in ("rect", "path", "g", "text"):	# in order, for the timelines' drawing
                f.setdefault("elems", []).append([tag, a, []])
                if tag == "text":
                    self.elem_text = f["elems"][-1][2]
            if tag == "rect" and "data-v" in a:
                f["rects"].append(a)
                f.setdefault("seq", []).append(("rect", a, None))
            if tag == "text" and (a.get("class") or "").split()[:1] in (["val"], ["tick"], ["axl"], ["rl"]):
                self.seq_text = (a.get("class"), a, [])
                f.setdefault("seq", []).append(self.seq_text)
            if tag == "desc" and a.get("class") == "lane-total":
                f["lanes"][a["data-policy"]] = int(a["data-pulls"])
            if tag == "desc" and a.get("class") == "anom-count":
                f["anoms"][a["data-kind"]] = a
            if tag == "g" and a.get("class") == "anom":
                self.anom_g = a["data-kind"]
                f["paths"][self.anom_g] = 0
            if tag == "path" and self.anom_g:
                f["paths"][self.anom_g] += 1
            if tag == "circle" and "data-y" in a:
                f.setdefault("circles", []).append(a)
            if tag == "figcaption":
                self.text_in = f
            if tag == "text":
                self.text_in = f
        if tag == "table" and "params" in (a.get("class") or ""):
            self.table = []
            self.params.append(self.table)
        if tag == "table" and a.get("id") == "hosts":
            self.table = self.hosts = []
        if tag == "tr" and self.table is not None:
            self.row = []
            self.table.append(self.row)
        if tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "li":
            self.in_li = False
        if tag == "p":
            self.in_warn = False
        if tag == "figure":
            self.fig = None
        if tag == "svg":
            self.svg = None
        if tag == "g":
            self.range = None
        if tag == "figcaption":
            self.text_in = None
        if tag == "g":
            self.anom_g = None
        if tag == "text":
            self.text_in = None
            self.seq_text = None
            self.elem_text = None
        if tag in ("td", "th") and self.cell is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        if tag == "table":
            self.table = self.row = None

    def handle_data(self, d):
        if self.in_warn:
            self.warns[-1][1].append(d)
        if self.seq_text is not None:
            self.seq_text[2].append(d)
        if self.elem_text is not None:
            self.elem_text.append(d)
        if self.in_li:
            self.li_text[-1].append(d)
        if self.text_in is not None:
            self.text_in["text"].append(d)
        if self.cell is not None:
            self.cell.append(d)


def check_width(p, name, tables=True):
    if p.sw > p.cw or p.cw > WIDTH:
        fail(f"{name}: overflows at {WIDTH} px: scrollWidth {p.sw}, clientWidth {p.cw}")
    # a table may scroll inside the page, but one domain level's policy
    # table, its bails and parameters must be read without scrolling
    if tables and p.tov:
        fail(f"{name}: {p.tov} tables scroll sideways at {WIDTH} px")


def check_headline(p, doc, name):
    pols = doc.get("policies", [])
    ref = [q for q in pols if q["label"] == doc.get("reference")]
    assert len(p.li) == len(pols), (name, len(p.li), len(pols))
    for li, q in zip(p.li, pols):
        assert li["data-policy"] == q["label"], (name, li, q["label"])
        assert int(li["data-pulls"]) == q["pulls"]["total"], (name, li)
        if ref and q is not ref[0]:
            r = ref[0]
            assert int(li["data-avoided"]) == r["pulls"]["total"] - q["pulls"]["total"], (name, li)
            assert int(li["data-traded"]) == q["idle_lost_ns"] - r["idle_lost_ns"], (name, li)
            net = (q["idle_recovered_ns"] - q["balance_cost_ns"]) - (r["idle_recovered_ns"] - r["balance_cost_ns"])
            assert int(li["data-net"]) == net, (name, li, net)
    # and the words a reader sees: each number of each line, within its printed precision
    headline_check.check(["".join(t) for t in p.li_text], [doc])


def expected_charts(doc):
    """chart id -> (stacked, {(row, series): value}) from the JSON."""
    pols = doc.get("policies", [])
    levels = []
    for q in pols:
        for lv in q["pulls"]["by_level"]:
            if lv not in levels:
                levels.append(lv)
    want = {}
    if pols:
        want["chart-pulls-by-level"] = (True, {(q["label"], lv): q["pulls"]["by_level"].get(lv, 0)
                                               for q in pols for lv in levels})
        want["chart-idle"] = (False, {**{(q["label"], "idle lost"): q["idle_lost_ns"] for q in pols},
                                      **{(q["label"], "idle recovered"): q["idle_recovered_ns"] for q in pols}})
        want["chart-cost-by-level"] = (True, {(q["label"], lv): q["balance_cost_by_level"].get(lv, 0)
                                              for q in pols for lv in levels})
        want["chart-attempts-by-level"] = (True, {(q["label"], lv): q["attempts"]["by_level"].get(lv, 0)
                                                  for q in pols for lv in levels})
    obs = doc["observed"]
    by = obs["migrations"].get("by_cause", {})
    if by:
        want["chart-migrations-by-cause"] = (True, {(k, "migrations"): v for k, v in by.items()})
    want["chart-cpu-time"] = (True, {**{(f"cpu {c['cpu']}", "busy"): c["busy_ns"] for c in obs["cpus"]},
                                     **{(f"cpu {c['cpu']}", "idle"): c["idle_ns"] for c in obs["cpus"]}})
    return want


def check_charts(p, doc, name):
    for cid, (stacked, vals) in expected_charts(doc).items():
        f = p.figs.get(cid)
        assert f is not None, (name, cid, "chart missing")
        got = {(r["data-row"], r["data-series"]): float(r["data-v"]) for r in f["rects"]}
        nz = {k: float(v) for k, v in vals.items() if v > 0}
        assert got == nz, (name, cid, sorted(set(got.items()) ^ set(nz.items()))[:6])
        # log scale: non-zero values (and, stacked, the rows' sums) a hundredfold apart
        mx = max(nz.values(), default=0)
        if stacked:
            rows = {}
            for (row, _), v in vals.items():
                rows[row] = rows.get(row, 0) + v
            mx = max([mx, *rows.values()])
        log = bool(nz) and mx >= 100 * min(nz.values())
        assert f["attrs"]["data-scale"] == ("log" if log else "linear"), (name, cid, f["attrs"], mx)
        assert ("log scale" in "".join(f["text"])) == log, (name, cid, "axis does not say its scale")
    return len(expected_charts(doc))


UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def label_ok(label, v):
    """A value label as a reader takes it: within its printed precision, and
    at most 10 % off (2 significant digits), so a small bar is not '0' or
    twice its size."""
    num = float(label)
    dec = len(label.split(".")[1]) if "." in label and "e" not in label else 0
    return abs(num - v) <= 0.5 * 10 ** -dec * 1.0001 and (v == 0 or abs(num - v) <= 0.1 * abs(v))


def check_bars(p, name):
    """Every bar chart as drawn: each bar's end where the axis (its ticks)
    puts its value (stacked: the row's running sum; log: each part a bar of
    its own), and each value label the bar's value (stacked: inside a part,
    that part; after the row, the row's total), in the axis' unit."""
    n = 0
    for fid, f in p.figs.items():
        seq = f.get("seq") or []
        if not any(k == "rect" for k, _, _ in seq):
            continue
        ticks = [(float(a["x"]), float("".join(t))) for k, a, t in seq if k == "tick"]
        axl = "".join(next(t for k, _, t in seq if k == "axl"))
        unit = next((UNITS[u] for u in UNITS if f"({u})" in axl), 1)
        log = f["attrs"]["data-scale"] == "log"
        (x0, t0), (x1, t1) = ticks[0], ticks[-1]
        if log:
            def xof(v):
                return x0 + (math.log10(v) - math.log10(t0)) * (x1 - x0) / (math.log10(t1) - math.log10(t0))
        else:
            def xof(v):
                return x0 + (v - t0) * (x1 - x0) / (t1 - t0)
        stacked = not log and len({r["data-series"] for r in f["rects"]}) > 1 and \
            len({(r["data-row"], r["y"]) for r in f["rects"]}) < len(f["rects"])
        row, acc, last = None, 0.0, None
        for k, a, t in seq:
            if k == "rl":		# a row's name: its bars follow (none when all are 0)
                row, acc, last = "".join(t), 0.0, (a, 0.0)
            elif k == "rect":
                v = float(a["data-v"]) / unit
                assert a["data-row"] == row, (name, fid, a["data-row"], row)
                acc = acc + v if stacked else v
                end = float(a["x"]) + float(a["width"])
                if float(a["width"]) > 1:
                    assert abs(end - xof(acc)) <= 1.5, (name, fid, a["data-row"], a["data-series"], end, xof(acc))
                last = (a, v)
                n += 1
            elif k.startswith("val") and last is not None:
                lab = "".join(t).strip()
                want = last[1] if (k == "val in" or not stacked) else acc
                assert label_ok(lab, want), (name, fid, last[0]["data-row"], last[0]["data-series"], lab, want)
    return n


def symlog_wanted(vals):
    nz = [abs(v) for v in vals if v]
    return bool(nz) and max(nz) >= 100 * min(nz), min(nz, default=1)


def sl(v, c):
    return math.copysign(math.log10(1 + abs(v) / c), v)


def check_sweeps(p, doc, name):
    """Each sweep's two line charts: values, scale, and on a symlog axis each
    point's height from the axis (y = 250, T + ph) in proportion to
    log10(1 + v / C).  Returns how many were symlog."""
    n = 0
    for i, s in enumerate(doc.get("sweeps", [])):
        for what, key in (("pulls", "pulls"), ("idle-lost", "idle_lost_ns")):
            f = p.figs.get(f"sweep-{i}-{what}")
            assert f is not None, (name, i, what, "sweep chart missing")
            vals = [float(pt[key]) for pt in s["points"]]
            got = [float(c["data-y"]) for c in f.get("circles", [])]
            assert got == vals, (name, i, what, got[:5], vals[:5])
            sym, c = symlog_wanted(vals)
            assert f["attrs"]["data-scale"] == ("symlog" if sym else "linear"), (name, i, what, f["attrs"])
            assert ("symlog" in "".join(f["text"])) == sym, (name, i, what, "axis does not say its scale")
            if not sym:
                continue
            n += 1
            assert float(f["attrs"]["data-c"]) == c, (name, i, what, f["attrs"]["data-c"], c)
            assert "symmetric log scale" in "".join(f["text"]), (name, i, what)
            hts = [(v, 250 - float(ci["cy"])) for v, ci in zip(vals, f["circles"])]
            top = max(hts, key=lambda h: h[0])
            for v, h in hts:
                want = top[1] * sl(v, c) / sl(top[0], c)
                assert abs(h - want) <= 0.2, (name, i, what, v, h, want)
    return n


def check_fleet(p):
    """Range charts: scale by the rule, said in the chart, and each median
    dot where the axis puts it.  Returns how many were symlog."""
    n = 0
    assert p.svgs, "fleet: no range charts"
    for sid, sv in p.svgs.items():
        a = sv["attrs"]
        vals = [float(g[k]) for g, _ in sv["ranges"] for k in ("data-p10", "data-median", "data-p90")]
        sym, c = symlog_wanted(vals)
        assert a["data-scale"] == ("symlog" if sym else "linear"), (sid, a, vals)
        assert ("symmetric log scale" in "".join(sv["text"])) == sym, (sid, "axis does not say its scale")
        lo, hi = min([0.0, *vals]), max([0.0, *vals])
        x0, x1 = float(a["data-x0"]), float(a["data-x1"])
        f = (lambda v: sl(v, c)) if sym else (lambda v: v)
        for g, circ in sv["ranges"]:
            v = float(g["data-median"])
            want = x0 + (f(v) - f(lo)) / (f(hi) - f(lo)) * (x1 - x0) if hi > lo else x0
            assert abs(float(circ["cx"]) - want) <= 0.6, (sid, g["data-policy"], circ["cx"], want)
        n += sym
    return n


def check_hosts(p, docs):
    """The fleet page's hosts table: per host (in the order merged) its kernel,
    lost events, and per policy migrations avoided and idle traded against the
    report's reference, computed here from each report."""
    head, rows = p.hosts[0], p.hosts[1:]
    assert head[:3] == ["host", "kernel", "lost events"], head
    labels = [h[:-len(" avoided")] for h in head[3::2]]
    assert all(h == "traded" for h in head[4::2]), head
    assert len(rows) == len(docs), (len(rows), len(docs))
    for row, d in zip(rows, docs):
        pol = {q["label"]: q for q in d["policies"]}
        ref = pol[d["reference"]]
        assert row[1] == d["trace"]["kernel"] and int(row[2]) == d["trace"]["lost_events"], (row[:3], d["trace"]["kernel"])
        for k, label in enumerate(labels):
            av, tr = row[3 + 2 * k], row[4 + 2 * k]
            q = pol.get(label)
            if q is None:		# the host lacks the policy
                assert av == "-" and tr == "-", (row[0], label, av, tr)
                continue
            assert int(av) == ref["pulls"]["total"] - q["pulls"]["total"], (row[0], label, av)
            want = q["idle_lost_ns"] - ref["idle_lost_ns"]
            if want == 0:
                assert tr == "0", (row[0], label, tr)
            else:
                assert tr[0] == ("+" if want > 0 else "-"), (row[0], label, tr, want)
                headline_check.close(tr[1:], abs(want), "idle traded", f"{row[0]} {label}")
    return len(rows)


def decisions(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def check_lanes(p, doc, dec, name):
    """Pull rows: per policy, the points its decision pulled, in each chart's range."""
    labels = [q["label"] for q in doc["policies"]]
    n = 0
    for fid in ("timeline-whole", "timeline-detail"):
        f = p.figs.get(fid)
        assert f is not None, (name, fid)
        a, z = int(f["attrs"]["data-start"]), int(f["attrs"]["data-end"])
        want = {lb: 0 for lb in labels}
        obs = 0
        for d in dec:
            if not (a <= d["ts"] < z):
                continue
            obs += d["kind"] == "pulled"
            seen = set()
            for q in d["policies"]:
                if q["policy"] in want and q["policy"] not in seen:
                    seen.add(q["policy"])
                    want[q["policy"]] += q["pulled"]
        want["observed"] = obs
        assert f["lanes"] == want, (name, fid, f["lanes"], want)
        n += sum(want.values())
    if "timeline-whole" in p.figs:
        assert p.figs["timeline-whole"]["lanes"]["observed"] == doc["observed"]["newidle_pulls"], name
    return n


def ticks_of(d):
    """The ticks of a path "Mx yv±h...": [(x, y, h)]."""
    return [(float(x), float(y), abs(float(h))) for x, y, h in re.findall(r"M([-0-9.]+) ([-0-9.]+)v([-0-9.]+)", d)]


def check_timeline_drawing(p, doc, name):
    """The timelines as drawn, against the JSON's columns: per CPU a busy
    shade (the legend's idle #eef2f7 to busy #2b5797) for each column's busy
    share, a newidle tick (from below) and a pull tick (from above) in each
    column that has them, their heights in proportion to the counts; under
    the CPUs the observed pulls (all CPUs) and each policy's pulls, a tick
    per non-zero column in proportion to the largest.  Returns the ticks."""
    n_ticks = 0
    for fid, tl in (("timeline-whole", doc["timeline"]), ("timeline-detail", doc["timeline"].get("detail"))):
        f = p.figs.get(fid)
        if not tl or f is None:
            continue
        cpus = tl["cpus"]
        ncol = len(cpus[0]["busy"])
        el = f["elems"]
        # the CPU rows: "cpu N" labels, then their rects and paths until the next label or lane
        rows, cur = {}, None
        lanes, lane = {}, None
        for tag, a, text in el:
            if tag == "text" and a.get("class") == "rl" and lane is None and "".join(text).startswith("cpu "):
                cur = rows.setdefault(int("".join(text).split()[1]), {"rects": [], "paths": []})
            elif tag == "g" and a.get("class") == "lane":
                cur, lane = None, lanes.setdefault(a["data-policy"], {"rects": [], "paths": []})
            elif tag == "g" and lane is not None:
                lane = None
            elif tag in ("rect", "path") and (cur or lane) is not None:
                (lane or cur)["rects" if tag == "rect" else "paths"].append(a)
        assert sorted(rows) == [c["cpu"] for c in cpus], (name, fid, sorted(rows))
        # the columns' geometry from the first lane's background: x = L + bw (i + 0.5)
        bg = next(iter(lanes.values()))["rects"][0]
        L, bw = float(bg["x"]), float(bg["width"]) / ncol

        def at_columns(got, want):	# each tick at its column's middle, to the 0.1 px printed
            return len(got) == len(want) and all(abs(x - (L + bw * (i + 0.5))) <= 0.051
                                                 for (x, _, _), (i, _) in zip(got, want))
        mni = max([1] + [v for c in cpus for v in c["newidle"]])
        mpu = max([1] + [v for c in cpus for v in c["pulls"]])
        for c in cpus:
            r = rows[c["cpu"]]
            rowh = float(r["rects"][0]["height"]) + 2
            for i, share in enumerate(c["busy"]):
                x = L + bw * (i + 0.5)
                cover = [q for q in r["rects"] if float(q["x"]) <= x < float(q["x"]) + float(q["width"])]
                assert cover, (name, fid, c["cpu"], i, "no busy shade")
                fill = cover[-1]["fill"]
                shade = (0xee - int(fill[1:3], 16)) / (0xee - 0x2b)
                assert abs(shade - min(1, max(0, share))) <= 0.06, (name, fid, c["cpu"], i, fill, share)
            for key, color, m, k in (("newidle", "#f28e2b", mni, 0.55), ("pulls", "#2ca02c", mpu, 0.45)):
                got = [t for q in r["paths"] if q.get("stroke") == color for t in ticks_of(q["d"])]
                want = [(i, v) for i, v in enumerate(c[key]) if v > 0]
                assert at_columns(got, want), (name, fid, c["cpu"], key, got[:3], want[:3])
                for (_, _, h), (_, v) in zip(got, want):
                    assert abs(h - max(2, (rowh - 2) * k * v / m)) <= 0.06, (name, fid, c["cpu"], key, h, v)
                n_ticks += len(got)
        series = {"observed": [sum(c["pulls"][i] for c in cpus) for i in range(ncol)]}
        for q in tl.get("policies") or []:
            series[q["label"]] = q["pulls"]
        assert list(lanes) == list(series), (name, fid, list(lanes), list(series))
        m = max([1] + [v for s in series.values() for v in s])
        for label, vals in series.items():
            got = [t for q in lanes[label]["paths"] for t in ticks_of(q["d"])]
            want = [(i, v) for i, v in enumerate(vals) if v > 0]
            assert at_columns(got, want), (name, fid, label, got[:3], want[:3])
            for (_, _, h), (_, v) in zip(got, want):
                assert abs(h - max(3, 19 * v / m)) <= 0.06, (name, fid, label, h, v)
            n_ticks += len(got)
    return n_ticks


KINDS = ("missing_idle_exit", "missing_idle_entry", "lost_events", "queued_not_picked")


def check_anomalies(p, doc, name):
    an = doc["timeline"]["anomalies"]
    assert sorted(an) == sorted(KINDS), (name, sorted(an))
    ncpu = len(doc["timeline"]["cpus"])
    for k in KINDS:
        assert an[k]["total"] == doc["observed"]["anomalies"][k], (name, k)
        assert an[k]["not_listed"] == an[k]["total"] - len(an[k]["listed"]), (name, k)
        assert len(an[k]["listed"]) <= 128 and (an[k]["total"] <= 128) == (an[k]["not_listed"] == 0), (name, k)
        for fid in ("timeline-whole", "timeline-detail"):
            f = p.figs[fid]
            a, z = int(f["attrs"]["data-start"]), int(f["attrs"]["data-end"])
            inside = [m for m in an[k]["listed"] if a <= m["ts_ns"] < z and m["cpu"] < ncpu]
            c = f["anoms"][k]
            assert int(c["data-total"]) == an[k]["total"], (name, fid, k, c)
            assert int(c["data-listed"]) == len(an[k]["listed"]), (name, fid, k, c)
            assert int(c["data-shown"]) == len(inside) == f["paths"][k], (name, fid, k, c, len(inside), f["paths"][k])
    return {k: an[k]["total"] for k in KINDS}


def is_duration(k):
    return "cost" in k or k.endswith("_ns")


def check_params(p, doc, name):
    """Parameters once: the value most policies share in one table (the
    first such on a tie, none when no two agree), each policy's row naming
    only what differs; durations with units, never the raw ns."""
    pols = doc.get("policies", [])
    if not pols:
        return
    assert len(p.params) == 2, (name, len(p.params))
    shared = {r[0]: r[1] for r in p.params[0][1:]}
    own = {}
    for r in p.params[1][1:]:
        own[r[0]] = dict(x.strip().split(" ", 1) for x in r[1].split(";") if x.strip())
    keys = []
    for q in pols:
        keys += [k for k in q["params"] if k not in keys]
    for k in keys:
        vals = [str(q["params"][k]).lower() for q in pols if k in q["params"]]
        counts = [vals.count(v) for v in vals]
        mode = vals[counts.index(max(counts))] if max(counts) > 1 or len(pols) == 1 else None
        assert (k in shared) == (mode is not None), (name, k, mode)
        for q in pols:
            if k not in q["params"]:
                continue
            listed = k in own.get(q["label"], {})
            assert listed == (str(q["params"][k]).lower() != mode), (name, q["label"], k)
        if is_duration(k):
            for text in [shared.get(k)] + [own[lb].get(k) for lb in own]:
                if text is not None:
                    assert text.split()[-1] in ("ns", "us", "ms", "s"), (name, k, text)


def lost_trace(path):
    """CPU 0's events in pages of 30; every page in MARKED says events were
    missed before it. Returns the time stamps of the first events of those
    pages: where the replay must see each loss."""
    ev = T.workload(0, 3000)
    marked = set(range(3, 300, 2))          # 149 losses: more than the list keeps
    data, where = b"", []
    for i in range(0, len(ev), 30):
        chunk = ev[i:i + 30]
        page = T.pages(chunk, missed={0: 7} if i // 30 in marked else None)
        assert len(page) == 4096, len(page)  # one page per chunk
        data += page
        if i // 30 in marked:
            where.append(chunk[0][0])
    t = T.Trace()
    t.buffers = [("", {0: data, 1: T.pages(T.workload(1, 40))})]
    with open(path, "wb") as f:
        f.write(t.build())
    return where


def main():
    summary = []
    # a control: a page wider than 800 px must be caught
    ctl = os.path.join(WORK, "control.html")
    with open(ctl, "w") as f:
        f.write('<!DOCTYPE html><html><body><div style="width:1200px">wide</div></body></html>')
    p = render(ctl, "control")
    if not p.sw > WIDTH:
        fail(f"control page: scrollWidth {p.sw}, the overflow check cannot fail")

    traces = [("host-hackbench", os.path.join(SRC, "tests/data/host-hackbench.dat"), None),
              ("host-pipe", os.path.join(SRC, "tests/data/host-pipe.dat"), None),
              ("lost", os.path.join(WORK, "lost.dat"), lost_trace(os.path.join(WORK, "lost.dat")))]
    jsons = []
    for name, trace, where in traces:
        base = os.path.join(WORK, name)
        run("replay", trace, "--quiet", "--allow-lost", "--json", base + ".json", "--html", base + ".html",
            "--decisions", base + ".dec")
        with open(base + ".json") as f:
            doc = json.load(f)
        jsons.append(base + ".json")
        p = render(base + ".html", name)
        check_width(p, name)
        check_headline(p, doc, name)
        nc = check_charts(p, doc, name)
        nb = check_bars(p, name)
        nl = check_lanes(p, doc, decisions(base + ".dec"), name)
        nt = check_timeline_drawing(p, doc, name)
        an = check_anomalies(p, doc, name)
        check_params(p, doc, name)
        if where is not None:
            lst = doc["timeline"]["anomalies"]["lost_events"]
            assert lst["total"] == len(where), (lst["total"], len(where))
            stride = 1
            while -(-len(where) // stride) > 128:
                stride *= 2
            got = [(m["ts_ns"], m["cpu"]) for m in lst["listed"]]
            assert got == [(ts, 0) for ts in where[::stride]], (got[:4], where[:4], stride)
            # the page says it before the headline, as the text does: which CPU, where, what is undercounted
            start = min(T.workload(0, 1)[0][0], T.workload(1, 1)[0][0])
            w = [" ".join("".join(t).split()) for before, t in p.warns if before == 0 and "lost events" in "".join(t)]
            assert len(w) == 1 and w[0].startswith("CPU 0 lost events") and w[0].endswith(
                "its newidle points, migrations, idle and busy time and every policy's counts on it are undercounted."), w
            m = re.search(r"between (\S+ \S+) and (\S+ \S+) into the trace", w[0])
            assert m, w
            # each loss lies between the last event before it and the page's first event
            ts0 = [e[0] for e in T.workload(0, 3000)]
            for printed, at in ((m[1], where[0]), (m[2], where[-1])):
                v, step = headline_check.duration(printed)
                lo, hi = ts0[ts0.index(at) - 1] - start, at - start
                assert v + step >= lo and v - step <= hi, (printed, lo, hi)
        summary.append(f"{name}: width {p.sw}, {nc} charts ({nb} bars), {nl} pulls in the timeline rows, {nt} ticks drawn, anomalies {an}")

    # sweeps: one whose idle lost spans a hundredfold (symlog), pulls do not
    base = os.path.join(WORK, "sweep")
    run("replay", os.path.join(SRC, "tests/data/host-hackbench.dat"), "--quiet", "--json", base + ".json",
        "--html", base + ".html", "--sweep", "baseline.sysctl_sched_migration_cost=0:1100us:10us")
    with open(base + ".json") as f:
        doc = json.load(f)
    p = render(base + ".html", "sweep")
    check_width(p, "sweep")
    ns = check_sweeps(p, doc, "sweep")
    assert 0 < ns < 2 * len(doc["sweeps"]), ("sweep: want both scales among the charts", ns)
    summary.append(f"sweep: width {p.sw}, {ns} symlog sweep charts")

    for name in ("host-a", "minimal"):
        src = os.path.join(FIX, name + ".json")
        out = os.path.join(WORK, name + ".html")
        run("report", src, "--format", "html", "-o", out)
        with open(src) as f:
            doc = json.load(f)
        p = render(out, name)
        # three levels' pull columns may scroll inside the page
        check_width(p, name, tables=len({lv for q in doc.get("policies", []) for lv in q["pulls"]["by_level"]}) <= 1)
        check_headline(p, doc, name)
        nc = check_charts(p, doc, name)
        nb = check_bars(p, name)
        check_params(p, doc, name)
        summary.append(f"{name}: width {p.sw}, {nc} charts ({nb} bars)")

    out = os.path.join(WORK, "fleet.html")
    run("report", "merge", "--format", "html", "-o", out, os.path.join(FIX, "host-a.json"),
        os.path.join(FIX, "host-b.json"), *jsons)
    p = render(out, "fleet")
    check_width(p, "fleet")
    fleet_docs = []
    for f in (os.path.join(FIX, "host-a.json"), os.path.join(FIX, "host-b.json"), *jsons):
        with open(f) as fo:
            fleet_docs.append(json.load(fo))
    headline_check.check(["".join(t) for t in p.li_text], fleet_docs)
    nh = check_hosts(p, fleet_docs)
    nf = check_fleet(p)
    assert nf > 0, "fleet: no range chart on a symlog axis (the replays' idle traded spans a hundredfold)"
    summary.append(f"fleet: width {p.sw}, {len(p.svgs)} range charts, {nf} symlog, {nh} hosts")
    print("\n".join(summary))


try:
    main()
except AssertionError as e:
    fail(f"{e}")
finally:
    shutil.rmtree(WORK, ignore_errors=True)
print("ok")

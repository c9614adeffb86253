#!/usr/bin/env python3
"""report --format jsonl / csv: one row per trace x policy x level with the
columns docs/report.md documents, in that order; JSON lines and CSV hold the
same rows; the 'all' rows repeat the report's totals and the level rows add
up to them; sweep points are rows.  The decisions file has exactly the keys
docs/report.md documents.

usage: test_rows.py  (IDLEREPLAY names the binary, IR_SOURCE_ROOT the tree)"""
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

IR = os.environ["IDLEREPLAY"]
SRC = os.environ["IR_SOURCE_ROOT"]
FIX = os.path.join(SRC, "tests/unit/report/fixtures")
fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)


def run(*args):
    r = subprocess.run([IR, *args], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"FAIL: {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def doc_table(heading, all_cells=False):
    """Names in the first column (or every cell) of the table under a heading of docs/report.md."""
    text = open(os.path.join(SRC, "docs/report.md"), encoding="utf-8").read()
    part = text.split(heading, 1)[1].split("\n## ", 1)[0]
    names = []
    for line in part.splitlines():
        m = re.match(r"\|\s*(`[^|]+)\|", line)
        if m:
            names += [re.sub(r"\[\d*\]$", "", n) for n in re.findall(r"`([a-z_\[\]0-9]+)`", line if all_cells else m.group(1))]
    return names


columns = doc_table("## Long-format rows")
check(columns[:4] == ["trace", "trace_id", "host", "kernel"], f"docs: column table not found: {columns[:5]}")

with tempfile.TemporaryDirectory() as tmp:
    sample = os.path.join(tmp, "sample.json")
    dec = os.path.join(tmp, "d.jsonl")
    run("replay", os.path.join(SRC, "samples/host-hackbench.dat"), "--quiet", "--json", sample,
        "--decisions", dec, "--sweep", "baseline.sysctl_sched_migration_cost=0:1ms:250us")
    files = [sample, os.path.join(FIX, "host-a.json"), os.path.join(FIX, "host-b.json")]
    docs = [json.load(open(f)) for f in files]

    jl = [json.loads(l) for l in run("report", *files, "--format", "jsonl").splitlines()]
    cv = list(csv.reader(io.StringIO(run("report", *files, "--format", "csv"))))
    check(cv[0] == columns, f"csv header {cv[0]} != documented {columns}")
    for r in jl:
        check(list(r) == columns, f"jsonl keys {list(r)} != documented columns")
    check(len(cv) - 1 == len(jl), f"csv has {len(cv) - 1} rows, jsonl {len(jl)}")
    for a, b in zip(jl, cv[1:]):
        want = ["" if v is None else str(v) for v in a.values()]
        check(want == b, f"csv row {b} != jsonl row {want}")

    want_rows = 0
    for f, d in zip(files, docs):
        mine = [r for r in jl if r["trace"] == d["trace"]["path"]]
        levels = d["domains"].get("levels") or []
        for p in d["policies"]:
            rows = [r for r in mine if r["label"] == p["label"] and r["sweep_param"] is None]
            want_rows += 1 + len(levels)
            tot = [r for r in rows if r["level"] == "all"]
            if not tot:
                check(False, f"{f}: {p['label']}: no 'all' row")
                continue
            t = tot[0]
            for col, val in (("pulls", p["pulls"]["total"]), ("attempts", p["attempts"]["total"]),
                             ("balance_cost_ns", p["balance_cost_ns"]), ("idle_lost_ns", p["idle_lost_ns"]),
                             ("idle_recovered_ns", p["idle_recovered_ns"]), ("idle_traded_ns", p["idle_traded_ns"]),
                             ("migrations_avoided", p["migrations_avoided"]["total"]),
                             ("newidle_points", p["newidle_points"])):
                check(t[col] == val, f"{f}: {p['label']}: {col} {t[col]}, report {val}")
            for b, n in p["bails"].items():
                check(t["bails_" + b] == n, f"{f}: {p['label']}: bails_{b} {t['bails_' + b]}, report {n}")
            lv = [r for r in rows if r["level"] != "all"]
            check(sorted(r["level"] for r in lv) == sorted(levels), f"{f}: {p['label']}: levels {lv}")
            for col in ("pulls", "attempts", "balance_cost_ns", "migrations_avoided"):
                check(sum(r[col] for r in lv) == t[col], f"{f}: {p['label']}: {col} by level does not add up")
            for r in lv:
                check(r["idle_lost_ns"] is None and r["newidle_points"] is None,
                      f"{f}: level rows carry no idle or point figures")
        for s in d.get("sweeps") or []:
            for pt in s["points"]:
                want_rows += 1
                rows = [r for r in mine if r["sweep_param"] == s["param"] and r["sweep_value"] == pt["value"]
                        and r["policy"] == s["policy"]]
                check(len(rows) == 1 and rows[0]["pulls"] == pt["pulls"] and rows[0]["level"] == "all",
                      f"{f}: sweep {s['policy']}.{s['param']}={pt['value']}: rows {rows}")
    check(len(jl) == want_rows, f"{len(jl)} rows, want {want_rows}")

    # decisions file: the documented keys, no others
    documented = set(doc_table("## Decisions file", all_cells=True))
    seen_top, seen_pol = set(), set()
    for line in open(dec):
        o = json.loads(line)
        seen_top |= set(o)
        for p in o["policies"]:
            seen_pol |= set(p)
    check(seen_top <= documented, f"decisions keys not documented: {seen_top - documented}")
    check(seen_pol <= documented, f"decisions policy keys not documented: {seen_pol - documented}")

    # the order docs/report.md states: as the points close, when the CPU's
    # idle from ts ends (ts + idle_ns never decreases), so ts is not sorted
    # across CPUs (the docs once said "in trace order")
    lines = [json.loads(line) for line in open(dec)]
    ends = [o["ts"] + o["idle_ns"] for o in lines]
    check(all(a <= b for a, b in zip(ends, ends[1:])), "decisions: ts + idle_ns decreases")
    dtext = open(os.path.join(SRC, "docs/report.md"), encoding="utf-8").read().split("## Decisions file", 1)[1]
    dtext = " ".join(dtext.split("\n## ", 1)[0].split())
    ts = [o["ts"] for o in lines]
    if any(b < a for a, b in zip(ts, ts[1:])):
        check("in trace order" not in dtext, "docs: the decisions file is said to be in trace order; its ts is not sorted")
    check("`ts + idle_ns` never decreases" in dtext, "docs: the decisions file's order is not stated")

    # --name names the rows' hosts, in order (else the trace's hostname), as merge takes it
    nl = [json.loads(line) for line in run("report", "--name", "db-01", files[0], "--name", "db-02", files[1],
                                           files[2], "--format", "jsonl").splitlines()]
    for f, d, want in zip(files, docs, ["db-01", "db-02", docs[2]["trace"].get("hostname") or None]):
        hosts = {r["host"] for r in nl if r["trace"] == d["trace"]["path"]}
        check(hosts == {want}, f"--name: {f}: hosts {hosts}, want {want}")
    # the same trace twice (another file name) is refused, as merge refuses it: SQL over
    # the rows must give merge's totals; one line naming both files, no output written
    again = os.path.join(tmp, "again.json")
    with open(again, "w") as fo:
        json.dump(docs[1], fo)
    out = os.path.join(tmp, "rows.jsonl")
    for fmt in ("jsonl", "csv"):
        r = subprocess.run([IR, "report", files[1], files[0], again, "--format", fmt, "-o", out],
                           capture_output=True, text=True)
        check(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and f"{again}: the same trace as {files[1]}"
              in r.stderr, f"rows {fmt}: the same trace twice: exit {r.returncode}, {r.stderr!r}")
        check(not os.path.exists(out), f"rows {fmt}: output written for a refused input")

    # report compare --format json / csv: the columns and metrics docs/report.md lists,
    # names without the text's indentation, and the policies one side lacks
    ctext = open(os.path.join(SRC, "docs/report.md"), encoding="utf-8").read()
    ctext = ctext.split("## Comparing two reports", 1)[1].split("\n## ", 1)[0]
    ccols = doc_table("## Comparing two reports")
    para = " ".join(ctext.split())
    obs_m = re.findall(r"`([^`]+)`", para.split("Metrics of `observed`:", 1)[1].split(".", 1)[0])
    pol_m = re.findall(r"`([^`]+)`", para.split("Metrics of a policy:", 1)[1].split(", as defined", 1)[0])
    check(len(obs_m) == 7 and "pulls at LEVEL" in pol_m, f"docs: compare metrics not found: {obs_m} {pol_m}")
    cj = json.loads(run("report", "compare", files[1], files[2], "--format", "json"))
    cc = list(csv.DictReader(io.StringIO(run("report", "compare", files[1], files[2], "--format", "csv"))))
    check(cj["schema"] == "idlereplay.compare/1", f"compare json schema {cj['schema']}")
    check(all(list(r) == ccols for r in cj["rows"]), f"compare json row keys != documented {ccols}")
    check(list(cc[0]) == ccols, f"compare csv header {list(cc[0])} != documented {ccols}")
    levels = {lv for d in docs[1:3] for lv in d["domains"].get("levels") or []}
    for r in cj["rows"] + cc:
        m = r["metric"]
        want = obs_m if r["section"] == "observed" else [x for x in pol_m if x != "pulls at LEVEL"] + \
            [f"pulls at {lv}" for lv in levels]
        check(m in want, f"compare: metric {m!r} of {r['section']} is not documented")
    check([(r["section"], r["metric"]) for r in cj["rows"]] == [(r["section"], r["metric"]) for r in cc],
          "compare: json and csv rows differ")
    cm = json.loads(run("report", "compare", os.path.join(FIX, "minimal.json"), files[1], "--format", "json"))
    check(cm["only_in_a"] == [] and cm["only_in_b"] == [q["label"] for q in docs[1]["policies"]],
          f"compare json: policies only in B: {cm.get('only_in_b')}")
    cmc = list(csv.DictReader(io.StringIO(run("report", "compare", os.path.join(FIX, "minimal.json"), files[1],
                                              "--format", "csv"))))
    check([r["section"] for r in cmc if r["metric"] == "only in B"] == [q["label"] for q in docs[1]["policies"]],
          "compare csv: policies only in B have no rows")

    # report merge --format csv: the columns docs/fleet.md lists, per policy label
    ftext = open(os.path.join(SRC, "docs/fleet.md"), encoding="utf-8").read()
    ftext = ftext.split("## The merged fleet report", 1)[1].split("\n## ", 1)[0]
    fcols = []
    for line in ftext.splitlines():
        m = re.match(r"\s*\|\s*(`[^|]+)\|", line)
        if m:
            fcols += re.findall(r"`([A-Za-z_:]+)`", m.group(1))
    obs_c = [c for c in fcols if not c.startswith("POLICY:")]
    pol_c = [c.split(":", 1)[1] for c in fcols if c.startswith("POLICY:")]
    mh = next(csv.reader(io.StringIO(run("report", "merge", files[1], files[2], "--format", "csv"))))
    want = obs_c + [f"{q['label']}:{c}" for q in docs[1]["policies"] for c in pol_c]
    check(mh == want, f"merge csv header {mh[:14]} != documented {want[:14]}")

for f in fails[:30]:
    print("FAIL:", f, file=sys.stderr)
print(f"{len(fails)} problems")
sys.exit(1 if fails else 0)

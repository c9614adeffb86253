#!/usr/bin/env python3
"""The documented SQL path gives the same fleet totals as 'report merge':
jsonl rows of several reports loaded into SQLite (Debian sqlite3, its JSON
functions) with contrib/sql/sqlite_rows.sql, then contrib/sql/fleet_totals.sql,
compared column by column with the total row of 'report merge --format csv'.

usage: test_sql.py  (IDLEREPLAY names the binary, IR_SOURCE_ROOT the tree)"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

IR = os.environ["IDLEREPLAY"]
SRC = os.environ["IR_SOURCE_ROOT"]
FIX = os.path.join(SRC, "tests/unit/report/fixtures")
if not shutil.which("sqlite3"):
    sys.exit("FAIL: sqlite3 not installed (scripts/setup.sh installs it)")
fails = []


def run(*args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode:
        sys.exit(f"FAIL: {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


with tempfile.TemporaryDirectory() as tmp:
    sample = os.path.join(tmp, "sample.json")
    run(IR, "replay", os.path.join(SRC, "samples/host-hackbench.dat"), "--quiet", "--json", sample)
    numa = os.path.join(tmp, "numa.json")
    run(IR, "replay", os.path.join(SRC, "tests/data/vm-numa/d_idle_periodic_wakers.dat"), "--quiet", "--json", numa,
        "--topology", "sockets=2,cores=2,threads=2,nodes=2", "--sweep", "baseline.sysctl_sched_migration_cost=0:1ms:500us")
    reports = [sample, numa, os.path.join(FIX, "host-a.json"), os.path.join(FIX, "host-b.json")]
    rows = os.path.join(tmp, "rows.jsonl")
    # one jsonl file per report, concatenated, as a fleet's jobs would leave them
    with open(rows, "w") as f:
        for r in reports:
            f.write(run(IR, "report", r, "--format", "jsonl"))
    db = os.path.join(tmp, "fleet.db")
    run("sqlite3", db, "-cmd", "CREATE TABLE idlereplay_raw(line TEXT)", "-cmd", ".mode ascii",
        "-cmd", '.separator "\\037" "\\n"', f".import {rows} idlereplay_raw")
    with open(os.path.join(SRC, "contrib/sql/sqlite_rows.sql")) as f:
        run("sqlite3", db, input=f.read())
    with open(os.path.join(SRC, "contrib/sql/fleet_totals.sql")) as f:
        out = run("sqlite3", "-json", db, input=f.read())
    sql = {r["policy"]: r for r in json.loads(out)}

    merged = list(csv.DictReader(io.StringIO(run(IR, "report", "merge", "--format", "csv", *reports))))
    total = [r for r in merged if r["host"] == "total"][0]
    hostrows = [r for r in merged if r["host"] not in ("total", "median", "p10", "p90")]
    policies = sorted({k.rsplit(":", 1)[0] for k in total if ":" in k})
    if sorted(sql) != policies:
        fails.append(f"policies: SQL {sorted(sql)}, merge {policies}")
    cols = {"pulls": "pulls", "migrations_avoided": "avoided", "idle_traded_ns": "idle_traded_ns",
            "idle_recovered_ns": "idle_recovered_ns", "idle_lost_ns": "idle_lost_ns",
            "balance_cost_ns": "balance_cost_ns", "net_ns": "net_ns"}
    for p in policies:
        if p not in sql:
            continue
        hosts = sum(1 for r in hostrows if r[f"{p}:pulls"] != "")
        if sql[p]["hosts"] != hosts:
            fails.append(f"{p}: hosts SQL {sql[p]['hosts']}, merge {hosts}")
        for s, m in cols.items():
            want = total[f"{p}:{m}"]
            got = sql[p][s]
            if (str(got) if got is not None else "") != want:
                fails.append(f"{p}: {s}: SQL {got}, merge total {want!r}")
    if len(policies) < 6:
        fails.append(f"only {len(policies)} policies compared")

for f in fails:
    print("FAIL:", f, file=sys.stderr)
print(f"{len(fails)} problems")
sys.exit(1 if fails else 0)

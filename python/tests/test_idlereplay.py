# SPDX-License-Identifier: GPL-2.0-only
"""The python/ module against the real binary and a real trace: tables agree
with the JSON report, the decisions file's rows with the report's totals,
errors carry the binary's exit status, the example notebook runs."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("IR_SOURCE_ROOT") or os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))
import idlereplay  # noqa: E402

SAMPLE = os.path.join(SRC, "samples", "host-hackbench.dat")
try:
    import pandas  # noqa: F401
    HAVE_PANDAS = True
except ImportError:
    HAVE_PANDAS = False



def drawn(p, key):
    """What the decisions add up to: the report's figure, or for a randomised
    policy (it has "seeds", whose headline figures are means over the seeds)
    its first seed's draw, which per_cpu holds."""
    if "seeds" in p:
        return sum(c[key] for c in p["per_cpu"])
    return p[key]["total"] if isinstance(p[key], dict) else p[key]

class Module(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.report, cls.dec = idlereplay.replay_decisions(SAMPLE)

    def test_report(self):
        self.assertEqual(self.report["schema"], "idlereplay.report/1")
        self.assertEqual(self.report["trace"]["path"], SAMPLE)

    def test_rows_match_report(self):
        rows = idlereplay.rows(self.report)
        for p in self.report["policies"]:
            t = rows.where(label=p["label"], level="all")
            self.assertEqual(len(t), 1)
            self.assertEqual(t[0]["pulls"], p["pulls"]["total"])
            self.assertEqual(t[0]["idle_lost_ns"], p["idle_lost_ns"])
            levels = [r for r in rows.where(label=p["label"]) if r["level"] != "all"]
            self.assertEqual(sum(r["pulls"] for r in levels), p["pulls"]["total"])

    def test_rows_from_paths_and_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "r.json")
            with open(path, "w") as f:
                json.dump(self.report, f)
            a = idlereplay.rows(path)
            jl = os.path.join(tmp, "rows.jsonl")
            subprocess.run([idlereplay.binary(), "report", path, "--format", "jsonl", "-o", jl], check=True)
            b = idlereplay.load_rows(jl)
            self.assertEqual(a.records, b.records)
            self.assertEqual(a.columns[:4], ["trace", "trace_id", "host", "kernel"])
            self.assertEqual(idlereplay.load_report(path)["policies"], self.report["policies"])

    def test_decisions_add_up(self):
        n_pol = len(self.report["policies"])
        self.assertEqual(len(self.dec), self.report["observed"]["newidle_points"] * n_pol)
        for p in self.report["policies"]:
            mine = self.dec.where(policy=p["label"])
            self.assertEqual(sum(1 for r in mine if r["pulled"]), drawn(p, "pulls"))
            self.assertEqual(mine.sum("idle_lost_ns"), drawn(p, "idle_lost_ns"))
            self.assertEqual(mine.sum("cost_ns"), drawn(p, "balance_cost_ns"))

    def test_decisions_columns(self):
        # every scalar key docs/report.md documents for the decisions file is
        # a column (nested candidates[] and probe are not), with the file's value
        import re
        text = open(os.path.join(SRC, "docs", "report.md"), encoding="utf-8").read()
        part = text.split("## Decisions file", 1)[1].split("\n## ", 1)[0]
        point, policy = [], []
        for line in part.splitlines():
            m = re.match(r"\|\s*(`[^|]+)\|(.*)\|\s*$", line)
            if not m:
                continue
            keys = re.findall(r"`([a-z_]+)(?:\[\])?`", m.group(1))
            if keys == ["policies"]:
                policy += re.findall(r"`([a-z_]+)`", m.group(2))
            elif keys not in (["candidates"], ["probe"]):
                point += keys
        self.assertIn("pulled_from", point)
        self.assertIn("moved", policy)
        for k in point + policy:
            self.assertIn(k, self.dec.columns, f"documented decisions key {k} is not a column")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "d.jsonl")
            idlereplay.replay(SAMPLE, decisions=path)
            table = idlereplay.decisions(path)
            lines = [json.loads(line) for line in open(path)]
        rows = iter(table)
        for pt in lines:
            for pol in pt["policies"]:
                r = next(rows)
                for k in point:
                    self.assertEqual(r[k], pt.get(k), k)
                for k in policy:
                    want = pol.get(k)
                    self.assertEqual(r[k], ",".join(want) if k == "tried" else want, k)

    def test_merge_and_compare_tables(self):
        fix = os.path.join(SRC, "tests", "unit", "report", "fixtures")
        a, b = os.path.join(fix, "host-a.json"), os.path.join(fix, "host-b.json")
        t = idlereplay.merge_table(a, b, names=["db-01"])
        self.assertEqual(t.column("host"), ["db-01", t[1]["host"], "total", "median", "p10", "p90"])
        docs = [json.load(open(f)) for f in (a, b)]
        pulls = [[p["pulls"]["total"] for p in d["policies"] if p["label"] == "no-check"][0] for d in docs]
        self.assertEqual([r["no-check:pulls"] for r in t][:2], pulls)
        self.assertEqual(t.where(host="total")[0]["no-check:pulls"], sum(pulls))
        c = idlereplay.compare(a, b)
        self.assertEqual(c.columns[:6], ["section", "metric", "unit", "a", "b", "delta"])
        win = c.where(section="observed", metric="window")[0]
        self.assertEqual((win["a"], win["b"]), tuple(d["trace"]["window_ns"] for d in docs))
        self.assertEqual(win["delta"], win["b"] - win["a"])

    def test_rows_names_and_duplicates(self):
        fix = os.path.join(SRC, "tests", "unit", "report", "fixtures")
        a, b = os.path.join(fix, "host-a.json"), os.path.join(fix, "host-b.json")
        t = idlereplay.rows(a, b, names=["db-01", "db-02"])
        self.assertEqual({r["host"] for r in t.where(trace=json.load(open(a))["trace"]["path"])}, {"db-01"})
        self.assertEqual({r["host"] for r in t.where(trace=json.load(open(b))["trace"]["path"])}, {"db-02"})
        with self.assertRaises(idlereplay.IdlereplayError) as e:
            idlereplay.rows(a, self.report, json.load(open(a)))
        self.assertEqual(e.exception.status, 2)
        self.assertIn("the same trace", str(e.exception))

    def test_exports(self):
        # every function python/README.md lists is exported
        text = open(os.path.join(SRC, "python", "README.md"), encoding="utf-8").read()
        import re
        listed = re.findall(r"^\| `([a-z_]+)\(", text, re.M)
        self.assertIn("closed_loop", listed)
        ns = {}
        exec("from idlereplay import *", ns)
        for name in listed:
            self.assertIn(name, idlereplay.__all__)
            self.assertTrue(callable(ns.get(name)), name)

    def test_overload_why(self):
        # docs/report.md: the flag is set exactly when an rq holds 2 or it
        # was kept since; cleared for the other three reasons
        on = {"rq_at_2", "kept"}
        off = {"never_set", "cleared_by_walk", "cleared_by_periodic"}
        self.assertIn("overload_why", self.dec.columns)
        for r in self.dec:
            self.assertIn(r["overload_why"], on | off)
            self.assertEqual(r["overload"], r["overload_why"] in on)

    def test_closed_loop(self):
        rep = idlereplay.simulate(SAMPLE, "--policy", "baseline", "--policy", "no-check")
        t = idlereplay.closed_loop(rep)
        self.assertEqual(t.column("label"), ["trace (measured)", "frozen", "baseline", "no-check"])
        cl = rep["closed_loop"]
        for r in list(t)[2:]:
            f = cl[r["label"]]
            self.assertEqual(r["migrations"], f["migrations"])
            self.assertEqual(r["wait_p99_ns"], f["wait_ns"]["p99"])
            self.assertEqual(r["newidle_pulls"], f["newidle_pulls"])
            # every migration has one cause
            self.assertEqual(r["migrations"], r["migrations_wakeup"] + r["migrations_newidle"] +
                             r["migrations_periodic"])
            self.assertEqual(r["migrations_newidle"], r["newidle_pulls"])
        m = t.where(label="trace (measured)")[0]
        self.assertEqual(m["migrations"], rep["observed"]["migrations"]["total"])
        self.assertIsNone(m["newidle_calls"])
        # a replay without the closed loop: an empty table, not an error
        self.assertEqual(len(idlereplay.closed_loop(self.report)), 0)

    def test_closed_loop_seeds(self):
        # the sample is a 6.18 host: proportional (NI_RANDOM) is a die,
        # simulated once per seed; baseline is simulated once
        rep = idlereplay.simulate(SAMPLE, "--policy", "baseline", "--policy", "proportional", "--sim-seeds", "4")
        t = idlereplay.closed_loop(rep)
        p, b = t.where(label="proportional")[0], t.where(label="baseline")[0]
        self.assertEqual((p["seeds"], b["seeds"]), (4, 1))
        s = rep["closed_loop"]["proportional"]["seeds"]
        self.assertEqual((p["migrations_p5"], p["migrations_p95"]), (s["p5"]["migrations"], s["p95"]["migrations"]))
        self.assertEqual(p["newidle_pulls_p95"], s["p95"]["newidle_pulls"])
        self.assertLessEqual(p["migrations_p5"], p["migrations"])
        self.assertLessEqual(p["migrations"], p["migrations_p95"])
        self.assertIs(p["stalled"], False)
        self.assertIsNone(t.where(label="trace (measured)")[0]["seeds"])

    def test_overload_p(self):
        # docs/report.md: overload_p is a probability, overload is it >= 1/2,
        # and an rq at 2 makes it sure
        self.assertIn("overload_p", self.dec.columns)
        for r in self.dec:
            self.assertTrue(0.0 <= r["overload_p"] <= 1.0)
            self.assertEqual(r["overload"], r["overload_p"] >= 0.5)
            if r["overload_why"] == "rq_at_2":
                self.assertEqual(r["overload_p"], 1.0)

    def test_no_pandas(self):
        # without pandas, to_pandas() says what to install; the Table still works
        saved = sys.modules.get("pandas")
        sys.modules["pandas"] = None  # makes "import pandas" raise ImportError
        try:
            t = idlereplay.rows(self.report)
            with self.assertRaises(ImportError) as e:
                t.to_pandas()
            self.assertIn("python3-pandas", str(e.exception))
            self.assertGreater(len(t.where(level="all")), 0)
        finally:
            if saved is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved

    def test_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.dat")
            with open(bad, "w") as f:
                f.write("not a trace")
            with self.assertRaises(idlereplay.IdlereplayError) as e:
                idlereplay.replay(bad)
            self.assertEqual(e.exception.status, 2)
            self.assertIn(bad, str(e.exception))
            with self.assertRaises(idlereplay.IdlereplayError) as e:
                idlereplay.rows(bad)
            self.assertEqual(e.exception.status, 2)

    def test_pandas(self):
        if not HAVE_PANDAS:
            # scripts/setup.sh installs it: in CI its absence is a failure
            self.assertNotEqual(os.environ.get("CI"), "true", "pandas missing in CI")
            self.skipTest("pandas is not installed (scripts/setup.sh installs python3-pandas)")
        df = idlereplay.rows(self.report).where(level="all").to_pandas()
        self.assertEqual(list(df.columns[:4]), ["trace", "trace_id", "host", "kernel"])
        self.assertEqual(int(df["pulls"].sum()), sum(p["pulls"]["total"] for p in self.report["policies"]))
        # a sweep point's row has no idle_traded_ns: the column stays integer
        sw = idlereplay.replay(SAMPLE, "--sweep", "baseline.sysctl_sched_migration_cost=0:500us:250us")
        sdf = idlereplay.rows(sw).where(level="all").to_pandas()
        self.assertEqual(str(sdf["idle_traded_ns"].dtype), "Int64")
        self.assertTrue(sdf["idle_traded_ns"].isna().any())
        want = {p["label"]: p["idle_traded_ns"] for p in sw["policies"]}
        for label, v in zip(sdf["label"], sdf["idle_traded_ns"]):
            if label in want:
                self.assertEqual(v, want[label])
                self.assertNotIn(".", str(v))
        dd = self.dec.to_pandas()
        per = dd.groupby("policy")["idle_lost_ns"].sum()
        for p in self.report["policies"]:
            self.assertEqual(int(per[p["label"]]), drawn(p, "idle_lost_ns"))

    def test_notebook_example(self):
        r = subprocess.run([sys.executable, os.path.join(HERE, "..", "examples", "lisa_notebook.py"), SAMPLE],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("newidle points", r.stdout)
        self.assertIn("points where the policies disagree", r.stdout)
        for p in self.report["policies"]:
            self.assertIn(p["label"], r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)

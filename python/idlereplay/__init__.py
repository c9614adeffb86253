# SPDX-License-Identifier: GPL-2.0-only
"""idlereplay from Python: run the binary, or load what it wrote, as tables.

Standard library only; pandas is optional (``Table.to_pandas()``).

    import idlereplay
    rep = idlereplay.replay("trace.dat")              # the JSON report, a dict
    rows = idlereplay.rows(rep)                       # one row per policy x level
    totals = rows.where(level="all")
    df = totals.to_pandas()                           # if pandas is installed
    dec = idlereplay.replay_decisions("trace.dat")    # one row per point x policy

The columns are those of docs/report.md ("Long-format rows", "Decisions
file"); the binary is ``$IDLEREPLAY``, else ``idlereplay`` on PATH.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile

__all__ = ["IdlereplayError", "Table", "binary", "replay", "load_report", "rows", "load_rows",
           "decisions", "replay_decisions", "merge", "merge_table", "compare", "simulate", "closed_loop"]


class IdlereplayError(RuntimeError):
    """The binary failed: .status is its exit status, str() its error line."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class Table:
    """Rows of one shape: a list of dicts with the same keys, in column order."""

    def __init__(self, records, columns=None):
        self.records = list(records)
        self.columns = list(columns) if columns is not None else (
            list(self.records[0]) if self.records else [])

    def __len__(self):
        return len(self.records)

    def __iter__(self):
        return iter(self.records)

    def __getitem__(self, i):
        return self.records[i]

    def column(self, name):
        return [r.get(name) for r in self.records]

    def where(self, **eq):
        """Rows whose columns equal the given values."""
        return Table((r for r in self.records if all(r.get(k) == v for k, v in eq.items())), self.columns)

    def sum(self, name):
        return sum(v for v in self.column(name) if v is not None)

    def to_pandas(self):
        """A pandas DataFrame of the rows. Integer columns with empty cells
        (a sweep point has no idle_traded_ns) stay integers, as pandas'
        nullable Int64, not floats that print 245161.0 and lose exactness
        above 2**53 ns."""
        try:
            import pandas  # optional dependency: only this method needs it
        except ImportError as e:
            raise ImportError("Table.to_pandas() needs pandas (Debian: python3-pandas; or pip install "
                              "pandas); the Table itself works without it") from e
        df = pandas.DataFrame.from_records(self.records, columns=self.columns)
        for c in self.columns:
            vals = [v for v in self.column(c) if v is not None]
            if vals and len(vals) < len(self) and all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
                df[c] = pandas.array(self.column(c), dtype="Int64")
        return df

    def __repr__(self):
        return f"<idlereplay.Table {len(self)} rows x {len(self.columns)} columns>"


def binary():
    """Path of the idlereplay binary: $IDLEREPLAY, else the one on PATH."""
    b = os.environ.get("IDLEREPLAY") or shutil.which("idlereplay")
    if not b:
        raise IdlereplayError(2, "idlereplay binary not found: set IDLEREPLAY or put it on PATH")
    return b


def _run(args, capture=True):
    r = subprocess.run([binary(), *args], capture_output=capture, text=True)
    if r.returncode:
        lines = (r.stderr or "").strip().splitlines()
        raise IdlereplayError(r.returncode, lines[-1] if lines else f"exit status {r.returncode}")
    return r.stdout


def replay(trace, *options, decisions=None):
    """Replay a trace.dat (extra command-line options as strings, e.g.
    "--topology", "sockets=2,cores=2"); returns the JSON report as a dict.
    decisions: also write the decisions file there."""
    with tempfile.TemporaryDirectory(prefix="idlereplay-") as tmp:
        out = os.path.join(tmp, "report.json")
        args = ["replay", os.fspath(trace), "--quiet", "--json", out, *options]
        if decisions:
            args += ["--decisions", os.fspath(decisions)]
        _run(args)
        with open(out, encoding="utf-8") as f:
            return json.load(f)


def load_report(path):
    """A JSON report written by 'idlereplay replay --json'."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not str(doc.get("schema", "")).startswith("idlereplay.report/"):
        raise IdlereplayError(2, f"{path}: not an idlereplay report")
    return doc


def rows(*reports, names=()):
    """Long-format rows of reports (dicts or paths of JSON reports), rendered
    by the binary itself, so the columns are exactly those it documents.
    names: the hosts' names, in the reports' order (--name); a trace given
    twice is refused (IdlereplayError), as in the merge."""
    with tempfile.TemporaryDirectory(prefix="idlereplay-") as tmp:
        paths = []
        for i, r in enumerate(reports):
            if isinstance(r, dict):
                p = os.path.join(tmp, f"r{i}.json")
                with open(p, "w", encoding="utf-8") as f:
                    json.dump(r, f)
                paths.append(p)
            else:
                paths.append(os.fspath(r))
        out = _run(["report", *_interleave(paths, names), "--format", "jsonl"])
    return Table(json.loads(line) for line in out.splitlines() if line)


def load_rows(path):
    """Rows a 'report --format jsonl' run wrote to a file."""
    with open(path, encoding="utf-8") as f:
        return Table(json.loads(line) for line in f if line.strip())


_POINT_KEYS = ["ts", "cpu", "kind", "avg_idle", "max_idle_balance_cost", "overload", "overload_p", "overload_why",
               "idle_ns"]
_POLICY_KEYS = ["policy", "bail", "tried", "stop_level", "pulled", "level", "pid", "from_cpu",
                "attempts", "cost_ns", "idle_recovered_ns", "idle_lost_ns"]
# appended after the first columns (their places stay): the point's walk
# stoppers and the kernel's own pull, then the tasks the policy's pull moved
_POINT_KEYS_2 = ["arrival_ns", "ttwu_pending", "pulled_pid", "pulled_from"]
_POLICY_KEYS_2 = ["moved"]


def decisions(path):
    """A decisions file (replay --decisions) as one row per newidle point x
    policy: the point's state, then that policy's decision and outcome
    (``tried`` joined with commas; ``level``, ``pid``, ``from_cpu``,
    ``moved`` None unless it pulled; ``pulled_pid``, ``pulled_from`` None
    unless the kernel pulled).  Every scalar key docs/report.md documents is
    a column; the nested ``candidates`` and ``probe`` are left out."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            pt = json.loads(line)
            base = {k: pt.get(k) for k in _POINT_KEYS}
            for p in pt.get("policies", []):
                r = dict(base)
                for k in _POLICY_KEYS:
                    v = p.get(k)
                    r[k] = ",".join(v) if k == "tried" else v
                r.update({k: pt.get(k) for k in _POINT_KEYS_2})
                r.update({k: p.get(k) for k in _POLICY_KEYS_2})
                out.append(r)
    return Table(out, _POINT_KEYS + _POLICY_KEYS + _POINT_KEYS_2 + _POLICY_KEYS_2)


def replay_decisions(trace, *options):
    """Replay a trace and return (report, decisions table)."""
    with tempfile.TemporaryDirectory(prefix="idlereplay-") as tmp:
        dec = os.path.join(tmp, "decisions.jsonl")
        rep = replay(trace, *options, decisions=dec)
        return rep, decisions(dec)


_CL_KEYS = ["label", "completion_ns", "idle_ns", "idle_while_waiting_ns", "wait_p50_ns", "wait_p99_ns",
            "migrations", "migrations_wakeup", "migrations_newidle", "migrations_periodic",
            "newidle_calls", "newidle_pulls", "balance_cpu_ns", "seeds", "migrations_p5", "migrations_p95",
            "newidle_pulls_p5", "newidle_pulls_p95", "stalled"]


def closed_loop(report):
    """The closed-loop figures of a report ('idlereplay simulate', or replay
    --closed-loop; a dict or a path) as one row per simulated schedule: first
    "trace (measured)" and "frozen" (closed_loop_fit), then each policy
    instance (closed_loop).  Figures the trace does not give are None.  An
    empty table when the report has no closed loop; the policies' rows are
    absent when the figures were withheld (closed_loop_fit.withheld says why).
    A randomised policy's row is the mean over its seeds ("seeds" of them,
    --sim-seeds): the *_p5 / *_p95 columns give the 5-95 % over the seeds; a
    deterministic policy has seeds 1.  "stalled": the run ended with tasks
    left holding recorded work, so its figures stop there."""
    doc = load_report(report) if not isinstance(report, dict) else report
    fit = doc.get("closed_loop_fit") or {}

    def row(label, f):
        if not f:
            return None
        by = f.get("migrations_by_cause") or {}
        w = f.get("wait_ns") or {}
        sd = f.get("seeds") or {}
        lo, hi = sd.get("p5") or {}, sd.get("p95") or {}
        return {"label": label, "completion_ns": f.get("completion_ns"), "idle_ns": f.get("idle_ns"),
                "idle_while_waiting_ns": f.get("idle_while_waiting_ns"), "wait_p50_ns": w.get("p50"),
                "wait_p99_ns": w.get("p99"), "migrations": f.get("migrations"),
                "migrations_wakeup": by.get("wakeup"), "migrations_newidle": by.get("newidle"),
                "migrations_periodic": by.get("periodic"), "newidle_calls": f.get("newidle_calls"),
                "newidle_pulls": f.get("newidle_pulls"), "balance_cpu_ns": f.get("balance_cpu_ns"),
                "seeds": sd.get("n"), "migrations_p5": lo.get("migrations"), "migrations_p95": hi.get("migrations"),
                "newidle_pulls_p5": lo.get("newidle_pulls"), "newidle_pulls_p95": hi.get("newidle_pulls"),
                "stalled": f.get("stalled")}

    out = [row("trace (measured)", fit.get("measured")), row("frozen", fit.get("frozen"))]
    out += [row(label, f) for label, f in (doc.get("closed_loop") or {}).items()]
    return Table([r for r in out if r], _CL_KEYS)


def simulate(trace, *options):
    """'idlereplay simulate' of a trace: its JSON report (closed_loop() gives
    the table)."""
    return replay(trace, "--closed-loop", *options)


def _interleave(paths, names):
    """--name N before the report it names, as the binary takes them in order."""
    out = []
    for i, p in enumerate(paths):
        if i < len(names):
            out += ["--name", names[i]]
        out.append(p)
    return out


def merge(*paths, fmt="text", names=()):
    """'idlereplay report merge' of saved reports: its output as a string.
    names: the hosts' names, in the reports' order (--name)."""
    return _run(["report", "merge", *_interleave([os.fspath(p) for p in paths], names), "--format", fmt])


def _cell(v):
    if v == "":
        return None
    if re.fullmatch(r"[+-]?[0-9]+", v):
        return int(v)
    try:
        return float(v)
    except ValueError:
        return v


def merge_table(*paths, names=()):
    """'idlereplay report merge --format csv' as a table: one row per host,
    then the rows "total", "median", "p10", "p90" (column host); columns as
    docs/fleet.md lists them (POLICY:COLUMN per policy)."""
    rd = csv.reader(io.StringIO(merge(*paths, fmt="csv", names=names)))
    cols = next(rd)
    return Table(({c: _cell(v) for c, v in zip(cols, r)} for r in rd), cols)


def compare(a, b):
    """'idlereplay report compare A B --format json': its rows as a table
    (section, metric, unit, a, b, delta and the rates per second)."""
    doc = json.loads(_run(["report", "compare", os.fspath(a), os.fspath(b), "--format", "json"]))
    rows = doc.get("rows", [])
    return Table(rows, list(rows[0]) if rows else [])

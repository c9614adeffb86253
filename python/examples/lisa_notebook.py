# SPDX-License-Identifier: GPL-2.0-only
# %% [markdown]
# # Newidle policies on a LISA workload, with idlereplay
#
# A notebook in cell form (Jupyter opens it with jupytext; VS Code runs the
# `# %%` cells). In LISA, the trace comes from a workload run on the target
# (`lisa.wlgen.rta.RTA`, or any command) recorded with `idlereplay record`;
# here a recorded trace is given as the first argument, default the sample.
#
#     idlereplay record -o trace.dat -- rt-app workload.json
#
# LISA's own analyses read the same trace.dat (trace-cmd v7) through
# `lisa.trace.Trace("trace.dat")`; idlereplay answers what every newidle
# policy would have done at each point where a CPU went idle.

# %%
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
import idlereplay  # noqa: E402

trace = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "samples", "host-hackbench.dat")

# %% Replay: the JSON report and every point's decisions
report, dec = idlereplay.replay_decisions(trace)
print(f"{report['trace']['path']}: {report['observed']['newidle_points']} newidle points, "
      f"{report['observed']['migrations']['total']} migrations")

# %% Per policy: migrations and idle time, long-format rows
rows = idlereplay.rows(report)
totals = rows.where(level="all", sweep_param=None)
try:
    df = totals.to_pandas()[["label", "pulls", "migrations_avoided", "idle_lost_ns", "idle_traded_ns",
                             "balance_cost_ns"]]
    print(df.to_string(index=False))
except ImportError:  # pandas is optional
    for r in totals:
        print(f"{r['label']:<24} pulls {r['pulls']:>6} avoided {r['migrations_avoided']:>6} "
              f"idle traded {r['idle_traded_ns'] / 1e6:>9.3f} ms")

# %% Per point: where did the policies disagree?
by_point = {}
for r in dec:
    by_point.setdefault((r["ts"], r["cpu"]), {})[r["policy"]] = r["pulled"]
split = [k for k, v in by_point.items() if len(set(v.values())) > 1]
print(f"{len(split)} of {len(by_point)} points where the policies disagree on pulling")

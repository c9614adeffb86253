#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""simulate's default workload path (spilled to an unlinked file, read back
by each simulation, sim/workload.c) against the whole-trace path
(IDLEREPLAY_SIM_WHOLE=1, every record in memory): the --json reports must
be identical byte for byte, all default policies, the frozen run and a
sweep included.  And a spill directory that cannot be used is one line
naming it, exit 2, with no report written."""
import os
import subprocess
import sys
import tempfile

IR = os.environ['IDLEREPLAY']
TRACES = os.environ['IR_TRACES']
TOPO = ['--topology', 'sockets=2,cores=2,threads=2,nodes=2']
CASES = [
    ('host-hackbench.dat', []),
    ('host-pipe.dat', ['--sweep', 'baseline.sysctl_sched_migration_cost=0:2ms:500us']),
    ('vm-numa/d_idle_periodic_wakers.dat', TOPO),
    ('vm-ab/hb_ni_1.dat', ['--sweep', 'proportional.seed=1:3:1']),
]


def simulate(path, args, out, env):
    return subprocess.run([IR, 'simulate', path, '--quiet', '--json', out, *args],
                          env=env, capture_output=True, text=True)


def main():
    bad = 0
    with tempfile.TemporaryDirectory(prefix='ir-spill-') as tmp:
        for name, args in CASES:
            path = os.path.join(TRACES, name)
            spilled, whole = os.path.join(tmp, 'spilled.json'), os.path.join(tmp, 'whole.json')
            env = dict(os.environ, TMPDIR=tmp)
            env.pop('IDLEREPLAY_SIM_WHOLE', None)
            a = simulate(path, args, spilled, env)
            b = simulate(path, args, whole, dict(env, IDLEREPLAY_SIM_WHOLE='1'))
            ok = a.returncode == b.returncode == 0 and a.stderr == b.stderr
            ok = ok and open(spilled, 'rb').read() == open(whole, 'rb').read()
            print(f"{'ok' if ok else 'FAIL'} {name} {' '.join(args)}")
            if not ok:
                print(f'  exit {a.returncode} / {b.returncode}\n  {a.stderr.strip()}\n  {b.stderr.strip()}')
                bad += 1
            if sorted(os.listdir(tmp)) != ["spilled.json", "whole.json"]:
                print(f'FAIL the spill file was left behind: {sorted(os.listdir(tmp))}')
                bad += 1
            os.unlink(spilled)
            os.unlink(whole)
        out = os.path.join(tmp, 'r.json')
        missing = os.path.join(tmp, 'no-such-dir')
        r = simulate(os.path.join(TRACES, 'host-pipe.dat'), [], out, dict(os.environ, TMPDIR=missing))
        lines = r.stderr.strip().splitlines()
        ok = r.returncode == 2 and len(lines) == 1 and missing in lines[0] and not os.path.exists(out)
        print(f"{'ok' if ok else 'FAIL'} TMPDIR={missing}: exit {r.returncode}: {r.stderr.strip()}")
        bad += not ok
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

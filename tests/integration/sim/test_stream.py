#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The streaming extraction (sim/workload.c, ir_wl_new_stream) against the
whole-trace one on real traces: windows of recorded time sealed to a sink
must hand over the very same ops, switch and move records, in order, and
the same whole-trace figures (bench/sim_rate's "check" line hashes them),
with no patch given up, at a window far shorter than a wakeup's
sched_waking-to-sched_wakeup gap (1 us) and at a long one (100 ms).  And the
spilled workload simulate uses (ir_wl_new_spill, 100 ms windows in a file):
its records as a simulation's reader gives them hash the same."""
import os
import subprocess
import sys

RATE = os.environ['SIM_RATE']
TRACES = os.environ['IR_TRACES']
CASES = ['host-hackbench.dat', 'host-pipe.dat', 'vm-numa/a_hackbench_proc_sockets.dat',
         'vm-numa/d_idle_periodic_wakers.dat', 'vm-ab/hb_ni_1.dat', 'vm-ab/hb_mc0_3.dat']


def lines(*args):
    out = subprocess.run([RATE, *args], check=True, capture_output=True, text=True).stdout
    return {ln.split()[0]: ln for ln in out.splitlines() if ln}


def main():
    bad = 0
    for name in CASES:
        path = os.path.join(TRACES, name)
        whole = lines('--whole', path)['check']
        for window in ('1000', '100000000'):
            got = lines('--stream', window, path)
            pins = int(got['stream'].split()[4])
            ok = got['check'] == whole and pins == 0
            print(f"{'ok' if ok else 'FAIL'} {name} window {window} ns: pins released {pins}")
            if not ok:
                print(f'  whole:    {whole}\n  streamed: {got["check"]}')
                bad += 1
        got = lines('--spill', path)
        pins = int(got['extract'].split()[-1])
        ok = got['check'] == whole and pins == 0
        print(f"{'ok' if ok else 'FAIL'} {name} spilled: pins released {pins}")
        if not ok:
            print(f'  whole:   {whole}\n  spilled: {got["check"]}')
            bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

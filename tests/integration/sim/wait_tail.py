#!/usr/bin/env python3
"""A measurement, not a test (docs/closed-loop.md, "Picking and the wait
tail"; not run by meson): `trace-cmd report -i TRACE | python3 wait_tail.py`.
Independent of idlereplay: from `trace-cmd report` text, which waits make
the p99 of runqueue wait (sched_waking, else sched_wakeup, to switch-in), and
how much of their waiting time lies behind runs on the waiting task's CPU
longer than v6.1 CFS lets a nice-0 task run with others queued:
sched_slice() (ALT_PERIOD: nr = the CPU's runnable count; period
sysctl_sched_latency 24 ms, or nr x min_granularity 3 ms past
sched_nr_latency 8; BASE_SLICE: at least 3 ms) plus one 4 ms tick
(check_preempt_tick() runs from the tick).  Also the longest stretch of such
a run with no event at all on its CPU."""
import re, sys
LAT, MING, NRLAT, TICK = 24e-3, 3e-3, 8, 4e-3
def slice_of(nr):
    period = nr * MING if nr > NRLAT else LAT
    return max(period / nr, MING)
line_re = re.compile(r'^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\w+):\s+(.*)$')
sw_re = re.compile(r'(.*):(\d+) \[(\d+)\] (\S+) ==> (.*):(\d+) \[(\d+)\]')
wk_re = re.compile(r'(.*):(\d+) \[(\d+)\] CPU:(\d+)')
waking_re = re.compile(r'pid=(\d+) ')
mig_re = re.compile(r'pid=(\d+) prio=\d+ orig_cpu=(\d+) dest_cpu=(\d+)')
rq = {}          # cpu -> set of runnable pids (running included)
where = {}       # pid -> cpu it is queued on
cur = {}         # cpu -> (pid, since, nr at start, last event ts, max gap)
woken = {}       # pid -> wake ts
waits = []       # (wait, [(part of the wait, run length, bound, longest eventless stretch)])
pend = {}        # pid -> (cpu, wake ts, list of runs)
def enq(pid, cpu):
    old = where.get(pid)
    if old is not None and old != cpu:
        rq[old].discard(pid)
    rq.setdefault(cpu, set()).add(pid); where[pid] = cpu
def deq(pid):
    old = where.pop(pid, None)
    if old is not None:
        rq[old].discard(pid)
for ln in sys.stdin:
    m = line_re.match(ln)
    if not m:
        continue
    cpu = int(m.group(3)); ts = float(m.group(4)); ev = m.group(5); body = m.group(6)
    c = cur.get(cpu)
    if c:
        gap = ts - c[3]
        cur[cpu] = (c[0], c[1], c[2], ts, max(c[4], gap))
    if ev == 'sched_waking':
        pid = int(waking_re.search(body).group(1))
        woken.setdefault(pid, ts)
    elif ev in ('sched_wakeup', 'sched_wakeup_new'):
        w = wk_re.search(body); pid = int(w.group(2)); tgt = int(w.group(4))
        enq(pid, tgt)
        t0 = woken.pop(pid, ts)
        if pid != 0:
            pend[pid] = (tgt, t0, [])
    elif ev == 'sched_migrate_task':
        g = mig_re.search(body); pid = int(g.group(1)); dst = int(g.group(3))
        if pid in where:
            enq(pid, dst)
        if pid in pend:
            pend[pid] = (dst, pend[pid][1], pend[pid][2])
    elif ev == 'sched_switch':
        s = sw_re.search(body)
        prev, st, nxt = int(s.group(2)), s.group(4), int(s.group(6))
        c = cur.get(cpu)
        if c and c[0] != 0:
            ln_ = ts - c[1]
            # the run that ends: charge it to every task waiting on this CPU
            for p, (pc, t0, lst) in pend.items():
                if pc == cpu and p != c[0]:
                    st_ = max(c[1], t0)
                    lst.append((ts - st_, ln_, slice_of(max(c[2], 2)) + TICK, c[4]))
        if prev != 0:
            if st.startswith('R'):
                enq(prev, cpu)
            else:
                deq(prev)
        if nxt != 0:
            enq(nxt, cpu)
            if nxt in pend:
                pc, t0, lst = pend.pop(nxt)
                waits.append((ts - t0, lst))
            cur[cpu] = (nxt, ts, len(rq.get(cpu, ())), ts, 0.0)
        else:
            cur[cpu] = (0, ts, 0, ts, 0.0)
waits.sort(key=lambda x: x[0])
n = len(waits)
p99 = waits[min(n - 1, int(0.99 * n))][0]
tail = [w for w in waits if w[0] >= p99]
tot = sum(w[0] for w in tail)
over = sum(min(w[0], sum(part for (part, ln_, b, g) in w[1] if ln_ > b)) for w in tail)
over_gap = sum(min(w[0], sum(part for (part, ln_, b, g) in w[1] if ln_ > b and g > TICK)) for w in tail)
allruns = [r for w in tail for r in w[1]]
nover = sum(1 for r in allruns if r[1] > r[2])
print("waits %d, p99 %.3f ms, tail waits %d, tail time %.1f ms" % (n, p99 * 1e3, len(tail), tot * 1e3))
print("tail time behind runs longer than sched_slice + one tick: %.1f %% (%d of %d runs)" % (100 * over / tot if tot else 0, nover, len(allruns)))
print("  of which runs with a stretch over one tick without any event on the CPU: %.1f %% of tail time" % (100 * over_gap / tot if tot else 0))
ov = sorted(r[3] / r[1] for r in allruns if r[1] > r[2] and r[1] > 0)
if ov:
    print("  overlong runs: median share of the run in its longest eventless stretch %.0f %%, p10 %.0f %%" % (100 * ov[len(ov) // 2], 100 * ov[len(ov) // 10]))

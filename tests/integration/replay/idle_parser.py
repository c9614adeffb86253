#!/usr/bin/env python3
"""Per-CPU idle and busy time of a trace.dat, from `trace-cmd report` alone
(independent of idlereplay), with the symmetric repair rule of SPEC 9:

- a CPU's state before its first event is what that event shows: the prev
  of a sched_switch, else the event's common_pid (0: idle);
- sched_switch prev -> next: busy when next != 0, idle when next == 0;
- a missing switch out of idle: an event of a task (common_pid > 0) on a CPU
  thought idle ends the idle period there;
- a missing switch into idle: the idle task (common_pid 0) emitting an event
  on a CPU thought busy, or the CPU's task switched in on another CPU, starts
  the idle period there (busy up to that evidence);
- the window runs from the trace's first event to its last.

Usage: idle_parser.py TRACE.dat  ->  JSON {"cpus": {cpu: {"idle_ns", "busy_ns"}},
"repairs": {"missing_idle_exit", "missing_idle_entry"}} on stdout."""
import json, re, subprocess, sys

LINE = re.compile(r'^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\w+):\s*(.*)$')
SWITCH = re.compile(r'.*:(\d+) \[-?\d+\] \S+ ==> .*:(\d+) \[-?\d+\]\s*$')


def parse(path):
    out = subprocess.run(['trace-cmd', 'report', '-t', path], capture_output=True, text=True, check=True).stdout
    cpus = {}        # cpu -> [curr pid, since, idle_ns, busy_ns]
    running = {}     # pid -> cpu it runs on
    rep = {'missing_idle_exit': 0, 'missing_idle_entry': 0}
    first = last = None

    def account(c, ts, new_curr):
        st = cpus[c]
        st[2 if st[0] == 0 else 3] += ts - st[1]
        st[1] = ts
        if st[0] and running.get(st[0]) == c:
            del running[st[0]]
        st[0] = new_curr
        if new_curr:
            running[new_curr] = c

    pending = []
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        pid, cpu, ts = int(m.group(2)), int(m.group(3)), int(m.group(4)) * 10**9 + int(m.group(5).ljust(9, '0')[:9])
        ev, rest = m.group(6), m.group(7)
        sw = SWITCH.match(rest) if ev == 'sched_switch' else None
        if first is None:
            first = ts
        last = ts
        if cpu not in cpus:
            curr = int(sw.group(1)) if sw else pid
            cpus[cpu] = [curr, None, 0, 0]
            pending.append(cpu)
            if curr:
                running[curr] = cpu
        st = cpus[cpu]
        if st[1] is None:
            st[1] = first
        if pid > 0 and st[0] == 0:
            rep['missing_idle_exit'] += 1
            account(cpu, ts, pid)
        elif pid == 0 and st[0] != 0:
            rep['missing_idle_entry'] += 1
            account(cpu, ts, 0)
        if sw:
            prev, nxt = int(sw.group(1)), int(sw.group(2))
            o = running.get(nxt)
            if nxt and o is not None and o != cpu and cpus[o][0] == nxt:
                rep['missing_idle_entry'] += 1
                account(o, ts, 0)
            if prev != st[0]:
                st[0] = prev
            account(cpu, ts, nxt)
    for c, st in cpus.items():
        account(c, last, st[0])
    return {'window_ns': last - first,
            'cpus': {str(c): {'idle_ns': st[2], 'busy_ns': st[3]} for c, st in sorted(cpus.items())},
            'repairs': rep}


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: idle_parser.py TRACE.dat')
    json.dump(parse(sys.argv[1]), sys.stdout, indent=1)
    print()

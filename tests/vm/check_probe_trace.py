#!/usr/bin/env python3
"""Check what the guest brought out (tests/vm/init) against `trace-cmd report`
and the guest's own files, then the replay's ground-truth section against
counts taken from the report (never from the tool's own output).

Usage: check_probe_trace.py OUTDIR IDLEREPLAY IR_META
"""
import collections
import json
import os
import re
import subprocess
import sys

LINE = re.compile(r'^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(\d+\.\d+):\s+(\S+):\s*(.*)$')
KV = re.compile(r'(\w+)=(\S+)')
errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)
    return cond


def read(d, name):
    with open(os.path.join(d, name)) as f:
        return f.read()


def main():
    d, ir, ir_meta = sys.argv[1:4]
    rec_log = read(d, 'record.log')
    # refusals, each in one line: no BTF; someone else's probe of the same
    # name (left alone); a running recorder's
    for what, pat in (('nobtf', r"/sys/kernel/btf/vmlinux: cannot read the kernel's BTF"),
                      ('foreign', r'already exists in kprobe_events and was not created by idlereplay'),
                      ('second', r'another idlereplay is recording with probes')):
        log = read(d, what + '.log')
        check(read(d, what + '.rc').strip() == '2' and len(log.splitlines()) == 1
              and re.match(r'idlereplay: record: --probe-newidle: .*' + pat, log),
              f'{what} recorder: exit {read(d, what + ".rc").strip()}: {log!r}')
    check(read(d, 'kprobe_events.after_nobtf.txt').strip() == '', 'probes left after the no-BTF refusal')
    check('kprobes/newidle_entry' in read(d, 'kprobe_events.after_foreign.txt'),
          'the foreign probe was removed')
    # the recorder: exit 0; the killed one's probes found and removed; its
    # own removed at the end, and its instance.
    check(read(d, 'record.rc').strip() == '0', f'record failed: {rec_log}')
    check('kprobes/newidle_entry' in read(d, 'kprobe_events.after_kill.txt'),
          'the killed recorder had no probes: the stale-probe path was not exercised')
    check(re.search(r'removed stale newidle kprobes of idlereplay pid \d+', rec_log),
          f'stale kprobes not reported removed: {rec_log}')
    check(read(d, 'kprobe_events.after_record.txt').strip() == '',
          'kprobes left after the recording: ' + read(d, 'kprobe_events.after_record.txt'))
    check(read(d, 'instances.after_record.txt').strip() == '', 'tracefs instance left')

    # domain levels of the guest, from its /proc/schedstat (cpu0)
    levels = 0
    seen_cpu0 = False
    for ln in read(d, 'schedstat.txt').splitlines():
        if ln.startswith('cpu'):
            if seen_cpu0:
                break
            seen_cpu0 = ln.startswith('cpu0 ')
        elif ln.startswith('domain') and seen_cpu0:
            levels += 1
    check(levels >= 1, 'guest has no sched domains')

    trace = os.path.join(d, 'trace.dat')
    rep = subprocess.run(['trace-cmd', 'report', '-t', '-i', trace], capture_output=True, text=True)
    check(rep.returncode == 0, f'trace-cmd report failed: {rep.stderr[:300]}')
    open_entry = {}
    entries = exits = paired = nested = unmatched = cpu_bad = 0
    avg_bad = mibc_bad = nr_zero = pulled = 0
    fields = None
    for ln in rep.stdout.splitlines():
        m = LINE.match(ln)
        if not m:
            continue
        _, _, cpu, ts, ev, rest = m.groups()
        cpu = int(cpu)
        if ev == 'newidle_entry':
            kv = dict(KV.findall(rest))
            if fields is None:
                fields = list(kv)
            entries += 1
            nested += cpu in open_entry
            open_entry[cpu] = ts
            cpu_bad += int(kv['cpu']) != cpu
            avg_bad += int(kv['avg_idle']) <= 0
            mibc_bad += int(kv['max_idle_balance_cost']) <= 0
            nr_zero += int(kv['nr_running']) == 0
        elif ev == 'newidle_exit':
            exits += 1
            pulled += int(dict(KV.findall(rest))['ret']) > 0
            if open_entry.pop(cpu, None) is None:
                unmatched += 1
            else:
                paired += 1
    print(f'trace-cmd report: {entries} newidle_entry, {exits} newidle_exit, {paired} paired, '
          f'{nested} nested, {unmatched} exits without entry, {pulled} pulled; '
          f'nr_running==0 at {nr_zero}; fields {fields}; guest domain levels {levels}')
    if check(entries >= 20, f'only {entries} newidle_entry events'):
        # the kretprobe fires on return of every probed call: pairs on each
        # CPU, at most one open at the end or unmatched at the start per CPU
        check(nested == 0, f'{nested} entries without their exit before the next entry')
        check(unmatched <= 4 and len(open_entry) <= 4 and paired >= entries - 4,
              f'entry/exit do not pair: {paired} of {entries}')
        check(cpu_bad == 0, f'rq->cpu differs from the event CPU at {cpu_bad} entries')
        check(avg_bad == 0, f'avg_idle <= 0 at {avg_bad} entries')
        check(mibc_bad == 0, f'max_idle_balance_cost <= 0 at {mibc_bad} entries')
        # newidle runs when the CPU's runqueue has nothing left to run
        check(nr_zero >= 0.8 * entries, f'nr_running == 0 at only {nr_zero} of {entries} entries')
        check(pulled >= 1, 'no newidle call pulled a task')
    want = ['cpu', 'nr_running', 'cfs_h_nr_running', 'ttwu_pending', 'avg_idle',
            'max_idle_balance_cost', 'rd_overload']
    want += [f'sd{i}_max_newidle_lb_cost' for i in range(levels)]
    want += [f'sd{i}_newidle_ratio' for i in range(levels)]   # Debian 6.1: NI_RANDOM backport
    check(fields is not None and sorted(fields) == sorted(want),
          f'entry fields {fields}, want {want}')

    meta = subprocess.run([ir_meta, trace], capture_output=True, text=True).stdout
    check(f'sd_levels={levels}' in meta, f'meta lacks sd_levels={levels}')
    check('newidle_probe_missing none' in meta, 'meta: missing fields on a kernel that has them all')

    js = os.path.join(d, 'replay.json')
    r = subprocess.run([ir, 'replay', trace, '--json', js], capture_output=True, text=True)
    if check(r.returncode == 0, f'replay failed: {r.stderr.strip()}'):
        g = json.load(open(js)).get('ground_truth') or {}
        print('replay ground_truth:', json.dumps({k: g.get(k) for k in
              ('calls', 'matched_points', 'point_precision', 'point_recall', 'kernel_pulls')}))
        check(g.get('calls') == entries, f'replay counts {g.get("calls")} probed calls, the report {entries}')
        check((g.get('matched_points') or 0) >= 0.9 * entries,
              f'only {g.get("matched_points")} of {entries} calls matched to newidle points')
        check((g.get('avg_idle_rel_error') or {}).get('samples', 0) > 0, 'no avg_idle samples')
        check(g.get('kernel_pulls') == pulled, f'replay counts {g.get("kernel_pulls")} kernel pulls, '
              f'the report {pulled} exits with ret > 0')
    for e in errors:
        print('FAIL: ' + e)
    sys.exit(1 if errors else 0)


if __name__ == '__main__':
    main()

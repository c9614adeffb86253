#!/usr/bin/env python3
"""The newidle probe's fetch-args for this machine's own kernel BTF
(/sys/kernel/btf/vmlinux), against offsets read independently from
`bpftool btf dump ... format raw` (no libbpf, no code of ours).

Works without kprobes: only the kernel's BTF and /proc/kallsyms are read.
Skips (77) only when the kernel has no BTF (CONFIG_DEBUG_INFO_BTF).
Usage: test_probe_btf_host.py IR_PROBE_SPEC
"""
import os
import re
import subprocess
import sys

BTF = '/sys/kernel/btf/vmlinux'
NAMES = ['sched_balance_newidle', 'newidle_balance', 'idle_balance']
REGS = ['di', 'si', 'dx', 'cx', 'r8', 'r9']


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


class Type:
    """One `[id] KIND 'name' k=v ...` entry; attributes parsed when asked."""
    def __init__(self, kind, name, rest):
        self.kind, self.name, self.rest, self.raw_members = kind, name, rest, []

    @property
    def attrs(self):
        return dict(re.findall(r'(\w+)=(\S+)', self.rest))

    @property
    def members(self):
        out = []
        for ln in self.raw_members:
            name, _, rest = ln.strip()[1:].partition("'")
            out.append((name, dict(re.findall(r'(\w+)=(\S+)', rest))))
        return out


def parse_raw(text):
    """id -> Type; member lines are kept raw (300 k lines: parse lazily)"""
    types = {}
    cur = None
    for ln in text.splitlines():
        if ln.startswith('['):
            ident, kind, rest = ln.split(' ', 2)
            name, _, rest = rest[1:].partition("'")
            cur = types[int(ident[1:-1])] = Type(kind, name, rest)
        elif cur is not None:
            cur.raw_members.append(ln)
    return types


def main():
    tool = sys.argv[1]
    if not os.path.exists(BTF):
        print(f'SKIP: {BTF} missing: this kernel has no BTF (CONFIG_DEBUG_INFO_BTF)')
        sys.exit(77)
    syms = set()
    with open('/proc/kallsyms') as f:
        for ln in f:
            w = ln.split()
            if len(w) == 3 and w[1] in 'tT':
                syms.add(w[2])
    func = next((n for n in NAMES if n in syms), None)
    if not func:
        fail('no newidle function in /proc/kallsyms')
    raw = subprocess.run(['bpftool', 'btf', 'dump', 'file', BTF, 'format', 'raw'],
                         capture_output=True, text=True, check=True).stdout
    T = parse_raw(raw)
    by_name = {}
    for i, t in T.items():
        by_name.setdefault((t.kind, t.name), i)

    def strip(i):
        while T[i].kind in ('TYPEDEF', 'CONST', 'VOLATILE', 'RESTRICT', 'TYPE_TAG'):
            i = int(T[i].attrs['type_id'])
        return i

    def member(sid, name):
        """(type id, byte offset) of name in struct sid, through anonymous members"""
        for mn, a in T[sid].members:
            off = int(a['bits_offset'])
            if mn == name:
                return strip(int(a['type_id'])), off // 8
            if mn == '(anon)':
                r = member(strip(int(a['type_id'])), name)
                if r:
                    return r[0], r[1] + off // 8
        return None

    def ftype(i):
        t = T[i]
        size = int(t.attrs['size'])
        signed = t.kind == 'INT' and t.attrs.get('encoding') == 'SIGNED'
        return ('s' if signed else 'u') + str(size * 8)

    rq = by_name[('STRUCT', 'rq')]
    proto = int(T[by_name[('FUNC', func)]].attrs['type_id'])
    names = [n for n, _ in T[proto].members]
    reg = '%' + REGS[names.index('this_rq')]

    exp = {}
    for f in ['cpu', 'nr_running', 'ttwu_pending', 'avg_idle', 'max_idle_balance_cost']:
        r = member(rq, f)
        if r:
            exp[f] = f'+{r[1]}({reg}):{ftype(r[0])}'
    cfs_t, cfs_off = member(rq, 'cfs')
    r = member(cfs_t, 'h_nr_queued') or member(cfs_t, 'h_nr_running')
    exp['cfs_h_nr_running'] = f'+{cfs_off + r[1]}({reg}):{ftype(r[0])}'
    rd_ptr, rd_off = member(rq, 'rd')
    rd = strip(int(T[rd_ptr].attrs['type_id']))
    r = member(rd, 'overloaded') or member(rd, 'overload')
    exp['rd_overload'] = f'+{r[1]}(+{rd_off}({reg})):{ftype(r[0])}'
    sd_ptr, sd_off = member(rq, 'sd')
    sd = strip(int(T[sd_ptr].attrs['type_id']))
    _, parent_off = member(sd, 'parent')
    cost_t, cost_off = member(sd, 'max_newidle_lb_cost')
    base = f'+{sd_off}({reg})'
    for lvl in range(2):
        exp[f'sd{lvl}_max_newidle_lb_cost'] = f'+{cost_off}({base}):{ftype(cost_t)}'
        r = member(sd, 'newidle_ratio')
        if r:
            exp[f'sd{lvl}_newidle_ratio'] = f'+{r[1]}({base}):{ftype(r[0])}'
        base = f'+{parent_off}({base})'

    p = subprocess.run([tool, BTF, func, '2'], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f'ir_probe_spec: {p.stderr.strip()}')
    got_reg, got_args, got_missing = (p.stdout.split('\n') + ['', '', ''])[:3]
    got = dict(a.split('=', 1) for a in got_args.split())
    if got_reg != reg:
        fail(f'this_rq register {got_reg}, bpftool says {reg}')
    if got != exp:
        for k in sorted(set(got) | set(exp)):
            if got.get(k) != exp.get(k):
                print(f'  {k}: ours {got.get(k)}  bpftool {exp.get(k)}')
        fail('fetch-args differ from bpftool')
    want_missing = [k for k in ['ttwu_pending', 'sd0_newidle_ratio', 'sd1_newidle_ratio'] if k not in exp]
    if got_missing.split() != want_missing:
        fail(f'missing fields {got_missing!r}, want {want_missing}')
    print(f'ok: {func} this_rq={reg}, {len(got)} fields as bpftool reads them: {got_args}')


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""Replay one real trace and check the JSON against what `trace-cmd report`
prints for the same file, every expectation computed here from its lines:
per-event counts, migrations (orig != dest), idle entries per CPU
(sched_switch to pid 0 on it), window_ns, CPUs, lost events (none in the
report), and, from a small state walk of our own (below):
  - per-CPU idle and busy time, exactly, with the repair rules of SPEC 9;
  - newidle points per CPU (SPEC 7, 9), exactly, of kind
    "idle": a sched_switch on c whose prev blocked (state not R/R+) to pid
    0: no class had a task, so newidle balance ran and pulled nothing;
    "pulled": prev blocked and the task switched in is one c's own task
    migrated to c right before the switch (nothing but probes between),
    with no other task queued on c (the runqueue rebuilt below from
    wakeups, preemptions, migrations and switches; a switch to idle
    empties it: pick_next_task() found nothing);
    and no "late" points: without probes, a task switched in that c did
    not pull was queued before the switch (SPEC 9: the rq lock is held
    from deactivate_task(prev) through pick_next_task());
  - the migrations whose cause is unambiguous (SPEC 5): a sched_waking of
    the same pid on the same CPU with no switch between -> wakeup; emitted
    by that CPU's stopper (migration/N, orig_cpu == N) -> active, exec or
    numa (the three stopper causes together).

Idle accounting (SPEC 9, "idle accounting is symmetric"): a CPU's state
before its first event is what that event shows (prev of a switch, else
the emitting task); a switch to pid 0 starts idle, from pid 0 ends it; a
missing switch out of idle is repaired at the first event of a task
(common_pid > 0) on that CPU; a missing switch into idle at the first
evidence that the CPU no longer runs its task: that task is switched in on
another CPU, or the idle task (common_pid 0) emits an event on this CPU.
Every CPU is checked, exactly, whatever repairs it needed.

usage: compare.py TRACE   (IDLEREPLAY names the binary)
Exit 0 if all agree, 1 with one line per disagreement (a missing trace or
trace-cmd is a failure: scripts/setup.sh installs trace-cmd)."""
import collections, json, os, re, shutil, subprocess, sys, tempfile

trace = sys.argv[1]
if not os.path.exists(trace):
    print(f"FAIL: test trace {trace} not found")
    sys.exit(1)
if not shutil.which("trace-cmd"):
    print("FAIL: trace-cmd not installed (scripts/setup.sh installs it)")
    sys.exit(1)

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "r.json")
    dec = os.path.join(tmp, "d.jsonl")
    r = subprocess.run([os.environ["IDLEREPLAY"], "replay", trace, "--quiet", "--json", out,
                        "--decisions", dec], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL: idlereplay exit {r.returncode}: {r.stderr.strip()}")
        sys.exit(1)
    doc = json.load(open(out))
    kinds = collections.Counter()
    for line in open(dec):
        d = json.loads(line)
        kinds[(d["cpu"], d["kind"])] += 1

# -t: full nanosecond timestamps, so window_ns compares exactly.
rep = subprocess.run(["trace-cmd", "report", "-t", trace], capture_output=True, text=True)
if rep.returncode != 0:
    print(f"FAIL: trace-cmd report exit {rep.returncode}: {rep.stderr.strip()[:200]}")
    sys.exit(1)

# "  comm-pid   [003]  21.470054123: event_name:   fields"
line_re = re.compile(r"^\s*.*?-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+([\w:.-]+):\s?(.*)$")
mig_re = re.compile(r"orig_cpu=(\d+) dest_cpu=(\d+)")
next_re = re.compile(r"==> .*:(-?\d+) \[-?\d+\]\s*$")
sw_re = re.compile(r"^(.*):(-?\d+) \[(-?\d+)\] (\S+) ==> (.*):(-?\d+) \[(-?\d+)\]\s*$")
pid_re = re.compile(r"\bpid=(\d+)")
comm_re = re.compile(r"^\s*(.*?)-(\d+)\s+\[")
cpus_re = re.compile(r"^cpus=(\d+)")

events = collections.Counter()
idle_entries = collections.Counter()
migrations = 0
first = last = None
cpus = None


class Cpu:
    def __init__(self):
        self.curr = None	# pid running; 0 idle; None not seen yet
        self.since = None
        self.idle = self.busy = 0
        self.enter_repairs = 0	# missing switches into idle repaired
        self.exit_repairs = 0	# missing switches out of idle repaired
        self.waking = {}	# pid -> sched_waking seen on this CPU since its last switch
        self.pulled = {}	# pid -> the task on this CPU that pulled it, since its last other event


state = collections.defaultdict(Cpu)
running_on = {}		# pid -> CPU it runs on
queued_on = {}		# pid -> CPU whose runqueue holds it (runnable, not running)
causes = collections.Counter()
points = collections.Counter()	# (cpu, "idle" | "pulled")
stopper_migrations = 0
rows = []
for line in rep.stdout.splitlines():
    m = line_re.match(line)
    if not m:
        c = cpus_re.match(line)
        if c:
            cpus = int(c.group(1))
        continue
    cpu = int(m.group(2))
    ts = int(m.group(3)) * 10**9 + int(m.group(4).ljust(9, "0")[:9])
    name = m.group(5).split(":")[-1]
    events[name] += 1
    rows.append((ts, cpu, int(m.group(1)), comm_re.match(line).group(1), name, m.group(6)))
    first = ts if first is None else min(first, ts)
    last = ts if last is None else max(last, ts)
    rest = m.group(6)
    if name == "sched_migrate_task":
        mm = mig_re.search(rest)
        if mm and mm.group(1) != mm.group(2):
            migrations += 1
    elif name == "sched_switch":
        nm = next_re.search(rest)
        if not nm:
            print(f"FAIL: cannot parse sched_switch: {line}")
            sys.exit(1)
        if int(nm.group(1)) == 0:
            idle_entries[cpu] += 1



def account(c, cs, ts):
    if cs.curr:
        cs.busy += ts - cs.since
    else:
        cs.idle += ts - cs.since
    cs.since = ts


def dequeue(pid):
    queued_on.pop(pid, None)


def enqueue(pid, c):
    if pid and running_on.get(pid) is None:
        queued_on[pid] = c


def set_curr(c, cs, pid, ts):
    account(c, cs, ts)
    dequeue(pid)
    if cs.curr and running_on.get(cs.curr) == c:
        del running_on[cs.curr]
    cs.curr = pid
    if pid:
        other = running_on.get(pid)
        if other is not None and other != c:
            # SPEC 9: its old CPU no longer runs it; a missing switch into idle there
            o = state[other]
            set_curr(other, o, 0, ts)
            o.enter_repairs += 1
        running_on[pid] = c


# newidle probes fire inside __schedule() around the pull (SPEC 6): they
# do not end the run of pulls before the switch
PROBE = re.compile(r"^(ir_|idlereplay_)?\w*(newidle|balance)\w*$")


def pulled_here(rest, cpu):
    mm = mig_re.search(rest)
    return mm and int(mm.group(2)) == cpu and int(mm.group(1)) != cpu


rows.sort(key=lambda r: r[0])	# trace-cmd report merges CPUs in time order already
for ts, cpu, common, comm, name, rest in rows:
    cs = state[cpu]
    sw = sw_re.match(rest) if name == "sched_switch" else None
    if cs.curr is None:	# first sight: the state the event shows, from the window start
        cs.since = first
        cs.curr = 0
        pid = int(sw.group(2)) if sw else common
        if pid:
            set_curr(cpu, cs, 0, first)
            cs.curr = pid
            running_on[pid] = cpu
    if common > 0 and cs.curr == 0:
        set_curr(cpu, cs, common, ts)	# repair: missing switch out of idle
        cs.exit_repairs += 1
    elif common == 0 and cs.curr and not sw:
        set_curr(cpu, cs, 0, ts)	# repair: missing switch into idle (SPEC 9)
        cs.enter_repairs += 1
    if sw:
        prev, nxt = int(sw.group(2)), int(sw.group(6))
        if nxt == 0:	# pick_next_task() found no task: nothing was queued here
            for pid in [p for p, q in queued_on.items() if q == cpu]:
                dequeue(pid)
        pulled = {p for p, by in cs.pulled.items() if by == prev}	# in prev's own __schedule()
        others = [p for p, q in queued_on.items() if q == cpu and p not in pulled]
        if prev and sw.group(4) not in ("R", "R+"):	# prev blocked or exited
            if nxt == 0:
                points[(cpu, "idle")] += 1
            elif nxt in pulled and not others:
                points[(cpu, "pulled")] += 1
        cs.pulled.clear()
        if prev == 0 and cs.curr:
            set_curr(cpu, cs, 0, ts)	# the idle task switches out: the CPU was idle
            cs.enter_repairs += 1
        set_curr(cpu, cs, nxt, ts)
        if prev and sw.group(4) in ("R", "R+"):
            enqueue(prev, cpu)	# preempted: still on this runqueue
        cs.waking.clear()
    if not sw and not PROBE.match(name) and not (name == "sched_migrate_task" and pulled_here(rest, cpu)
                                                 and common == cs.curr):
        cs.pulled.clear()	# a pull is newidle only right before the blocking switch
    if sw:
        pass
    elif name == "sched_waking":
        pm = pid_re.search(rest)
        cs.waking[int(pm.group(1))] = ts
    elif name in ("sched_wakeup", "sched_wakeup_new"):
        wm = re.search(r":(\d+) \[-?\d+\]", rest) or pid_re.search(rest)
        tm = re.search(r"(?:CPU:|target_cpu=)(\d+)", rest)
        if tm:
            enqueue(int(wm.group(1)), int(tm.group(1)))
        # the placement is done: a later move of the task is not its wakeup's
        for x in state.values():
            x.waking.pop(int(wm.group(1)), None)
    elif name == "sched_migrate_task":
        mm = mig_re.search(rest)
        pid = int(pid_re.search(rest).group(1))
        o, d = int(mm.group(1)), int(mm.group(2))
        prio = int(re.search(r"prio=(-?\d+)", rest).group(1))
        if o == d:
            continue
        if pid in queued_on:
            queued_on[pid] = d	# a queued task moves runqueues; a sleeping one waits for its wakeup
        if d == cpu and common == cs.curr:
            cs.pulled[pid] = common	# pulled by c's current task, inside its __schedule()?
        if prio < 100:
            causes["rt"] += 1	# SPEC 5: RT/DL moves, prio < 100, are their own cause
        elif pid in cs.waking:
            causes["wakeup"] += 1
        elif comm == "migration/%d" % cpu and o == cpu:
            stopper_migrations += 1
for c, cs in state.items():
    if cs.curr is not None:
        account(c, cs, last)

bad = []
def check(what, got, want):
    if got != want:
        bad.append(f"{what}: idlereplay {got}, trace-cmd {want}")

t, o = doc["trace"], doc["observed"]
check("schema", doc["schema"], "idlereplay.report/1")
if cpus is not None:
    check("cpus", t["cpus"], cpus)
check("events", dict(sorted(t["events"].items())), dict(sorted(events.items())))
check("events_total", t["events_total"], sum(events.values()))
check("window_ns", t["window_ns"], last - first)
check("migrations", o["migrations"]["total"], migrations)
check("migrations by cause sum", sum(o["migrations"]["by_cause"].values()), o["migrations"]["total"])
bc = o["migrations"]["by_cause"]
check("wakeup migrations (waking, then migrate, no switch between)", bc["wakeup"], causes["wakeup"])
check("rt migrations (prio < 100)", bc["rt"], causes["rt"])
check("stopper migrations (active + exec + numa)", bc["active"] + bc["exec"] + bc["numa"], stopper_migrations)
for c in o["cpus"]:
    n = c["cpu"]
    check(f"idle_entries cpu {n}", c["idle_entries"], idle_entries.get(n, 0))
    cs = state.get(n)
    want = (cs.idle, cs.busy) if cs else (0, 0)
    check(f"idle_ns cpu {n}", c["idle_ns"], want[0])
    check(f"busy_ns cpu {n}", c["busy_ns"], want[1])
    for k in ("idle", "pulled", "late"):
        check(f"newidle points cpu {n} kind {k}", kinds[(n, k)], points[(n, k)])
check("idle_entries total", sum(c["idle_entries"] for c in o["cpus"]), sum(idle_entries.values()))
check("has_waking", t["has_waking"], events.get("sched_waking", 0) > 0)
# lost: the per-CPU stats (overrun, dropped events) and in-data markers
stat = subprocess.run(["trace-cmd", "report", "--stat", trace], capture_output=True, text=True).stdout
lost = sum(int(x) for x in re.findall(r"^(?:overrun|dropped events): (\d+)$", stat, re.M))
lost += sum(int(x) for x in re.findall(r"\[LOST (\d+) EVENTS\]", rep.stdout))
check("lost_events", t["lost_events"], lost)

for b in bad:
    print("FAIL:", b)
if not bad:
    print(f"ok: {trace}: {sum(events.values())} events, {migrations} migrations, points "
          f"{dict(sorted(collections.Counter(k for _, k in points.elements()).items()))}, "
          f"idle entries {dict(sorted(idle_entries.items()))}, window {last - first} ns")
sys.exit(1 if bad else 0)

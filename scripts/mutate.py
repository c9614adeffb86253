#!/usr/bin/env python3
"""Mutation testing for the files that carry idlereplay's rules.

Plants one small, realistic bug at a time (a mutant) in a scratch copy of
the source tree, rebuilds it incrementally and runs the fast test suites
against it.  A mutant the tests fail on is "killed"; one they pass on
"survived"; one that does not compile is "stillborn" (not counted).  The
score of a file is killed / (killed + survived).

Operators (one change per mutant):
  cmp     comparison flip: < <=, > >=, == !=  (each way)
  const   off-by-one integer constant (N+1, N-1); true <-> false
  del     deleted statement (an expression statement, break, continue)
  swap    swapped adjacent arguments of a call
  key     renamed string key (JSON keys, event and symbol names)

usage: scripts/mutate.py [--seed N] [--per-file N] [--files F ...]
                         [--suite S ...] [--scratch DIR] [--no-sanitize] [--list]
Standard library only.  It never touches the tree it is run from: it copies
it (without build directories) to --scratch and mutates the copy, built
under ASan+UBSan as scripts/test.sh's second pass (--no-sanitize: plain).  See
docs/mutation.md for how to run it and read its output.
"""
import argparse, fnmatch, glob, os, random, re, shutil, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# model/*.c holds the policies, domains and the load_balance() model
# (model/lb.c, model/costfit.c, named too so that they stay in if the glob
# is narrowed); a file named twice is mutated once.
DEFAULT_FILES = ["replay/state.c", "model/*.c", "model/lb.c", "model/costfit.c", "report/json.c",
                 "report/tally.c", "report/truth.c", "record/events.c", "record/meta.c"]
# Suites run against a mutant of a file matching the pattern (first match).
# unit: the C unit tests; fast: quick integration tests on real traces;
# record-fast: one real recording (needs root and tracefs).
DEFAULT_SUITES = [("record/*", ["unit", "record-fast"]), ("*", ["unit", "fast"])]

CMP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
cmp_re = re.compile(r"(?<![<>=!\-])(<=|>=|==|!=|<|>)(?![<>=])")
int_re = re.compile(r"(?<![\w.])(\d+)(?:u|U|ul|UL|ull|ULL|l|L|ll|LL)?(?![\w.])")
bool_re = re.compile(r"\b(true|false)\b")
PARAM = re.compile(r"^(const\s+)?(struct\s+\w+|enum\s+\w+|\w+_t|int|unsigned|bool|char|double|long|size_t)"
                   r"[\s\*]+(const\s+)?\w+(\[\w*\])?$")
key_re = re.compile(r'"([a-z_][a-z0-9_]{2,})"')
DECL_START = re.compile(r"^(static|const|struct|enum|union|unsigned|signed|int|long|short|char|bool|"
                        r"double|float|void|size_t|ssize_t|u?int\d+_t|FILE|json_object|ir_\w+_t)\b")


def strip_code(line, in_comment):
    """The line with comments and string/char literals blanked (same length),
    and whether a block comment continues on the next line."""
    out, i, n = [], 0, len(line)
    while i < n:
        if in_comment:
            j = line.find("*/", i)
            if j < 0:
                out.append(" " * (n - i))
                return "".join(out), True
            out.append(" " * (j + 2 - i))
            i, in_comment = j + 2, False
            continue
        c = line[i]
        if line.startswith("//", i):
            out.append(" " * (n - i))
            break
        if line.startswith("/*", i):
            in_comment = True
            continue
        if c in "\"'":
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out), in_comment


def top_level_args(code, open_paren):
    """Spans (start, end) of the top-level arguments of the call whose '('
    is at open_paren, if the call closes on this line."""
    depth, start, spans = 0, open_paren + 1, []
    for i in range(open_paren, len(code)):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                spans.append((start, i))
                return spans
        elif c == "," and depth == 1:
            spans.append((start, i))
            start = i + 1
    return None


def mutants_of(path, text):
    """Every mutant of one file: (line_no, operator, new_line, description)."""
    muts = []
    in_comment = False
    lines = text.split("\n")
    for no, line in enumerate(lines):
        code, in_comment = strip_code(line, in_comment)
        s = code.strip()
        if not s or s.startswith("#"):
            continue
        for m in cmp_re.finditer(code):
            op = m.group(1)
            if op in "<>" and re.search(r"#\s*include", code):
                continue
            new = line[:m.start()] + CMP[op] + line[m.end():]
            muts.append((no, "cmp", new, f"{op} -> {CMP[op]}"))
        for m in int_re.finditer(code):
            if code[:m.start()].rstrip().endswith("[") and s.startswith(("static", "const", "char", "uint", "int")):
                continue	# array sizes: a compile matter, not a rule
            v = int(m.group(1))
            for nv in (v + 1, v - 1):
                if nv < 0:
                    continue
                new = line[:m.start(1)] + str(nv) + line[m.end(1):]
                muts.append((no, "const", new, f"{v} -> {nv}"))
        for m in bool_re.finditer(code):
            nv = "false" if m.group(1) == "true" else "true"
            muts.append((no, "const", line[:m.start()] + nv + line[m.end():], f"{m.group(1)} -> {nv}"))
        # deleted statement: a whole-line expression statement
        if (s.endswith(";") and not DECL_START.match(s) and not s.startswith(("return", "}", "{", "case", "default"))
                and s.count("(") == s.count(")") and not s.startswith(("for", "if", "while", "do", "else"))
                and not lines[no - 1 if no else 0].rstrip().endswith((",", "(", "=", "&&", "||", "?", ":"))
                and (re.search(r"[=(]|\+\+|--", s) or s in ("break;", "continue;"))
                and not re.match(r"^[\w\s\*]+\s\**\w+(\[[^\]]*\])?\s*=", s)):
            indent = line[:len(line) - len(line.lstrip())]
            muts.append((no, "del", indent + ";", f"delete `{line.strip()}`"))
        # swapped adjacent arguments
        for m in re.finditer(r"\b([a-z_]\w*)\s*\(", code):
            if m.group(1) in ("if", "for", "while", "switch", "return", "sizeof"):
                continue
            spans = top_level_args(code, m.end() - 1)
            if not spans or len(spans) < 2:
                continue
            for k in range(len(spans) - 1):
                (a0, a1), (b0, b1) = spans[k], spans[k + 1]
                a, b = line[a0:a1].strip(), line[b0:b1].strip()
                if a == b or not a or not b or '"' in a + b or PARAM.match(a) or PARAM.match(b):
                    continue	# same text, literals, or a definition's parameters
                new = line[:a0] + " " * (a0 > 0 and line[a0] == " ") + b + "," + \
                    " " * (line[b0] == " ") + a + line[b1:]
                muts.append((no, "swap", new, f"{m.group(1)}(): swap `{a}` and `{b}`"))
        # renamed string keys (in the original line: literals are blanked in code)
        for m in key_re.finditer(line):
            if code[m.start()] != '"':
                continue	# inside a comment
            if "%" in m.group(1):
                continue
            new = line[:m.start(1)] + m.group(1) + "_x" + line[m.end(1):]
            muts.append((no, "key", new, f'"{m.group(1)}" -> "{m.group(1)}_x"'))
    return muts


# The regression checks of issue 16: bugs planted by a reviewer that the
# suite once let through, each now killed by a named test.  (file, the
# text as it is, the text with the bug, what it is).  --named runs them;
# one whose text has moved is reported, not skipped silently.
NAMED = [
    ("model/decide.c", "if (ctx->avg_idle < p->sysctl_sched_migration_cost)",
     "if (ctx->avg_idle <= p->sysctl_sched_migration_cost)",
     "baseline bails at avg_idle == sysctl_sched_migration_cost"),
    ("model/decide.c", "if (d1k > 1 + ratio_of(ctx, st, ctx->cpu, l))",
     "if (d1k >= 1 + ratio_of(ctx, st, ctx->cpu, l))", "NI_RANDOM die > -> >="),
    ("model/outcome.c", "c->src_nr_running > pt->ring[best].src_nr_running",
     "c->src_nr_running >= pt->ring[best].src_nr_running",
     "equally busy candidates go to the farther level"),
    ("report/tally.c", "t->level[o->level_kind].pulls++;", "t->level[d->kind[0]].pulls++;",
     "every pull credited to the lowest level tried"),
    ("report/json.c", 'ratio(ob->probe_matched, ob->newidle_points)', 'ratio(ob->probe_matched, ob->probe_calls)',
     "ground-truth point precision computed as recall (swapped)"),
    ("report/json.c", '"idle_traded_ns"', '"idle_traded"', "the idle_traded_ns key renamed"),
    ("replay/state.c", ".src_nr_running = nr_running(s, pt->pulled_from) + 1 };",
     ".src_nr_running = nr_running(s, pt->pulled_from) };", "a pulled point's source nr_running off by one"),
    ("record/events.c", '{ "sched_migrate_task", true },', '',
     "the recorder no longer records sched_migrate_task"),
    ("record/meta.c", "%*s %*1[tT] %255s", "%*s %*1[T] %255s",
     "the kallsyms scan skips static symbols"),
    ("replay/state.c", "if (ev->common_pid > 0 && cp->curr == 0)",
     "if (0 && ev->common_pid > 0 && cp->curr == 0)", "the missing-idle-exit repair removed"),
    ("model/lb.c", "if (env->idle == IR_CPU_NOT_IDLE)", "if (0)",
     "a busy CPU's periodic balance pulls from a busiest group that is not overloaded"),
    ("model/lb.c", "if (cores && !core_idle(dom, o, idle)) {", "if (0 && cores && !core_idle(dom, o, idle)) {",
     "should_we_balance() without v6.6's idle-core rule"),
    ("sim/sched.c", "r->interval[l] *= 2;", "r->interval[l] *= 1;",
     "a balanced domain's sd->balance_interval no longer doubles"),
    ("replay/replay.h", "#define IR_SNAP_TASKS 32", "#define IR_SNAP_TASKS 8",
     "load_balance() sees 8 queued tasks a runqueue, not sysctl_sched_nr_migrate's 32"),
    ("sim/sched.c", "if (o->moved > 1)", "if (o->moved > IR_SNAP_TASKS)",
     "a newidle balance without CONFIG_PREEMPTION moves its first detached task only"),
]


def named_mutants(files):
    out = []
    for rel, old, new, what in NAMED:
        path = os.path.join(ROOT, rel)
        if not os.path.exists(path):
            print(f"warning: named mutant '{what}': {rel} is gone", file=sys.stderr)
            continue
        text = open(path).read()
        lines = text.split("\n")
        hits = [i for i, l in enumerate(lines) if old in l]
        if len(hits) != 1:
            print(f"warning: named mutant '{what}': '{old}' found {len(hits)} times in {rel}",
                  file=sys.stderr)
            continue
        i = hits[0]
        out.append((rel, text, (i, "named", lines[i].replace(old, new), what),
                    f"{rel}:{i + 1}:named"))
    return out


def suites_for(rel, override):
    if override:
        return override
    for pat, suites in DEFAULT_SUITES:
        if fnmatch.fnmatch(rel, pat):
            return suites
    return ["unit"]


# As scripts/test.sh runs its second pass: a leak, an overflow or undefined
# behaviour in our code fails the test that meets it.
SAN_ENV = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
           "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}
SAN_SETUP = ["-Db_sanitize=address,undefined", "-Db_lundef=false", "-Dbuildtype=debugoptimized"]


def run(cmd, cwd, timeout=None, env=None):
    try:
        r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout, env=env)
        return r.returncode, r.stdout
    except subprocess.TimeoutExpired:
        return "timeout", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1, help="sampling seed (default 1)")
    ap.add_argument("--per-file", type=int, default=8,
                    help="mutants sampled per file (default 8; 0 = all)")
    ap.add_argument("--files", nargs="+", default=DEFAULT_FILES,
                    help="files or globs, relative to the source root (default: %(default)s)")
    ap.add_argument("--ops", nargs="+", default=["cmp", "const", "del", "swap", "key"])
    ap.add_argument("--suite", action="append", help="meson test suite to run (repeatable; "
                    "default: unit+fast, unit+record-fast for record/)")
    ap.add_argument("--scratch", default="/tmp/idlereplay-mutate",
                    help="scratch copy of the tree and its build dir (default %(default)s)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per mutant's tests")
    ap.add_argument("--jobs", type=int, default=2, help="tests run in parallel per mutant (default 2)")
    ap.add_argument("--no-sanitize", action="store_true",
                    help="plain build only (default: ASan+UBSan, as scripts/test.sh's second pass, "
                    "so leaks and over-reads count as caught)")
    ap.add_argument("--no-baseline", action="store_true",
                    help="do not first check that the unmutated tree passes the suites")
    ap.add_argument("--list", action="store_true", help="list the sampled mutants, run nothing")
    ap.add_argument("--only", nargs="+", help="run only mutants whose id (FILE:LINE:OP:N) matches one of these globs")
    ap.add_argument("--named", action="store_true",
                    help="run the named regression mutants of issue 16 instead of sampling")
    a = ap.parse_args()

    files = []
    for pat in a.files:
        hits = sorted(glob.glob(os.path.join(ROOT, pat)))
        if not hits:
            print(f"warning: {pat}: no such file, skipped", file=sys.stderr)
        files += [r for r in (os.path.relpath(h, ROOT) for h in hits if h.endswith(".c")) if r not in files]

    rng = random.Random(a.seed)
    plan = []
    for rel in files:
        text = open(os.path.join(ROOT, rel)).read()
        muts = [m for m in mutants_of(rel, text) if m[1] in a.ops]
        ids = [(rel, m, f"{rel}:{m[0] + 1}:{m[1]}:{i}") for i, m in enumerate(muts)]
        rng.shuffle(ids)
        if a.only:
            ids = [x for x in ids if any(fnmatch.fnmatch(x[2], o) for o in a.only)]
        elif a.per_file:
            ids = ids[:a.per_file]
        plan += [(rel, text, m, mid) for rel, m, mid in sorted(ids, key=lambda x: x[1][0])]
        print(f"{rel}: {len(muts)} mutants, {min(len(muts), a.per_file or len(muts))} sampled",
              file=sys.stderr)
    if a.named:
        plan = [x for x in named_mutants(files) if not a.only or any(fnmatch.fnmatch(x[3], o) for o in a.only)]
    if a.list:
        for rel, text, (no, op, new, desc), mid in plan:
            print(f"{mid}: {desc}")
        return 0

    # the scratch copy: the tree without build output or VCS data
    src = os.path.join(a.scratch, "src")
    bld = os.path.join(a.scratch, "build" if a.no_sanitize else "build-asan")
    env = dict(os.environ, **({} if a.no_sanitize else SAN_ENV))
    if os.path.exists(src):
        shutil.rmtree(src)
    shutil.copytree(ROOT, src, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", "build", "build-*"))
    # the copy keeps the files' times: an object built from a mutant of an
    # interrupted run would look newer than the restored source, so every
    # file that is mutated is stamped now and rebuilt once
    for rel in files:
        os.utime(os.path.join(src, rel))
    if not os.path.exists(os.path.join(bld, "build.ninja")):
        rc, out = run(["meson", "setup", bld, src] + ([] if a.no_sanitize else SAN_SETUP), ROOT)
        if rc != 0:
            print(out)
            return 2
    rc, out = run(["ninja", "-C", bld], ROOT)
    if rc != 0:
        print("the unmutated tree does not build:\n" + out[-3000:])
        return 2
    for suites in set() if a.no_baseline else {tuple(suites_for(rel, a.suite)) for rel, *_ in plan}:
        cmd = ["meson", "test", "-C", bld, "--no-rebuild", "--num-processes", "1"]
        for s in suites:
            cmd += ["--suite", s]
        rc, out = run(cmd, ROOT, a.timeout, env)
        if rc != 0:
            print(f"the unmutated tree fails suites {','.join(suites)}:\n" + str(out)[-3000:])
            return 2

    score = {}
    survivors = []
    t0 = time.time()
    for k, (rel, text, (no, op, new, desc), mid) in enumerate(plan):
        path = os.path.join(src, rel)
        lines = text.split("\n")
        old = lines[no]
        lines[no] = new
        open(path, "w").write("\n".join(lines))
        rc, out = run(["ninja", "-C", bld], ROOT, 600)
        if rc != 0:
            result = "stillborn"
        else:
            cmd = ["meson", "test", "-C", bld, "--no-rebuild", "--num-processes", str(a.jobs), "--maxfail", "1"]
            for s in suites_for(rel, a.suite):
                cmd += ["--suite", s]
            rc, out = run(cmd, ROOT, a.timeout, env)
            result = "survived" if rc == 0 else "killed"
        open(path, "w").write(text)
        s = score.setdefault(rel, {"killed": 0, "survived": 0, "stillborn": 0})
        s[result] += 1
        print(f"[{k + 1}/{len(plan)} {time.time() - t0:.0f}s] {result:9} {mid}: {desc}", flush=True)
        if result == "survived":
            survivors.append((mid, desc, old, new))
    # rebuild the unmutated tree so the scratch build is clean for the next run
    run(["ninja", "-C", bld], ROOT, 600)

    print("\nscore per file (killed / (killed + survived)); stillborn not counted")
    tk = ts = 0
    for rel, s in score.items():
        n = s["killed"] + s["survived"]
        tk += s["killed"]
        ts += s["survived"]
        pct = f"{100 * s['killed'] / n:5.1f} %" if n else "    - "
        print(f"  {rel:28} {pct}  killed {s['killed']:3}  survived {s['survived']:3}  stillborn {s['stillborn']:3}")
    n = tk + ts
    print(f"  {'total':28} {100 * tk / n if n else 0:5.1f} %  killed {tk:3}  survived {ts:3}"
          f"   (seed {a.seed}, {a.per_file or 'all'} per file, "
          f"{'plain' if a.no_sanitize else 'ASan+UBSan'} build, {time.time() - t0:.0f} s)")
    if survivors:
        print("\nsurvivors:")
        for mid, desc, old, new in survivors:
            print(f"--- {mid}: {desc}\n-{old}\n+{new}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0-only
"""The headline as a reader sees it, against figures computed from JSON.

docs/report.md ("Headline") fixes the wording; this parses a headline line
back into numbers and checks each against the figures computed here from
the reports (never from the tool's own headline data), within the precision
the line prints.  Used for the text report, the HTML page (the list items'
text, not their data-* attributes) and the fleet merge (text and HTML).

usage: python3 headline_check.py REPORT.json... < HEADLINES
       (one headline a line: one report's, or the merge's over all of them)
"""
import json
import re
import sys

UNIT = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
DUR = r"[0-9]+(?:\.[0-9]+)? (?:ns|us|ms|s)"
REF_RE = re.compile(rf"^(?P<label>.+) \(reference\): (?P<pulls>[0-9]+) migrations?; recovers (?P<rec>{DUR}) of idle "
                    rf"for (?P<cost>{DUR}) of modelled balancing$")
POL_RE = re.compile(
    rf"^(?P<label>.+?): (?:avoids (?P<av>[0-9]+) migrations?|(?P<more>[0-9]+) more migrations?|(?P<same>same migrations))"
    rf" \((?:(?P<tr>{DUR}) (?P<trw>more|less) idle|the same idle)\) vs (?P<ref>.+?); recovers (?P<rec>{DUR}) of idle "
    rf"for (?P<cost>{DUR}) of modelled balancing: net (?:(?P<net>{DUR}) (?P<netw>better|worse) than|the same as) "
    rf"(?P<ref2>.+)$")


def duration(s):
    """(value in ns, the half-step of its last printed digit in ns)"""
    num, unit = s.split()
    dec = len(num.split(".")[1]) if "." in num else 0
    return float(num) * UNIT[unit], 0.5 * 10 ** -dec * UNIT[unit]


def close(printed, want, what, label):
    v, step = duration(printed)
    assert abs(v - want) <= step * 1.0001 + 1e-9, f"{label}: {what} prints {printed}, the reports give {want:.0f} ns"


def figures(doc):
    """label -> (pulls, recovered, cost, lost) of one report, and its reference label."""
    return {p["label"]: (p["pulls"]["total"], p["idle_recovered_ns"], p["balance_cost_ns"], p["idle_lost_ns"])
            for p in doc.get("policies", [])}, doc.get("reference")


def expected(docs):
    """Per label: pulls, avoided, traded, recovered, cost, net, summed over the reports
    (one report: its own figures), each against the report's reference."""
    out, ref = {}, None
    for d in docs:
        f, ref = figures(d)
        r = f.get(ref)
        for label, (pulls, rec, cost, lost) in f.items():
            e = out.setdefault(label, [0, 0, 0, 0, 0, 0])
            e[0] += pulls
            e[3] += rec
            e[4] += cost
            if r:
                e[1] += r[0] - pulls
                e[2] += lost - r[3]
                e[5] += (rec - cost) - (r[1] - r[2])
    return out, ref


def check(lines, docs):
    want, ref = expected(docs)
    seen = []
    for line in lines:
        line = " ".join(line.split())
        m = REF_RE.match(line)
        if m:
            label = m["label"]
            assert label == ref, f"{line}: the reference is {ref}"
            w = want[label]
            assert int(m["pulls"]) == w[0], f"{label}: {m['pulls']} migrations, the reports give {w[0]}"
        else:
            m = POL_RE.match(line)
            assert m, f"headline not in the documented form: {line!r}"
            label = m["label"]
            assert m["ref"] == ref == m["ref2"], f"{line}: against {m['ref']}/{m['ref2']}, the reference is {ref}"
            w = want[label]
            av = int(m["av"]) if m["av"] else -int(m["more"]) if m["more"] else 0
            assert av == w[1] and (m["same"] is not None) == (w[1] == 0), f"{label}: avoids {av}, the reports give {w[1]}"
            if m["tr"]:
                assert (m["trw"] == "more") == (w[2] > 0) and w[2] != 0, f"{label}: {m['tr']} {m['trw']} idle, want {w[2]}"
                close(m["tr"], abs(w[2]), "idle traded", label)
            else:
                assert w[2] == 0, f"{label}: 'the same idle', the reports give {w[2]}"
            if m["net"]:
                assert (m["netw"] == "better") == (w[5] > 0) and w[5] != 0, f"{label}: net {m['net']} {m['netw']}, want {w[5]}"
                close(m["net"], abs(w[5]), "net", label)
            else:
                assert w[5] == 0, f"{label}: net 'the same', the reports give {w[5]}"
        close(m["rec"], w[3], "idle recovered", label)
        close(m["cost"], w[4], "balance cost", label)
        seen.append(label)
    assert seen == list(want), f"headlines for {seen}, the reports have {list(want)}"
    return len(seen)


if __name__ == "__main__":
    docs = [json.load(open(f)) for f in sys.argv[1:]]
    lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
    try:
        n = check(lines, docs)
    except AssertionError as e:
        sys.exit(f"FAIL: {e}")
    print(f"{n} headlines agree with the reports")

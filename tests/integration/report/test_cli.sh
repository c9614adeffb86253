#!/usr/bin/env bash
# idlereplay report on the sample trace's JSON and on the fixtures: every JSON
# validates against report/schema.json; text, HTML, CSV, compare and merge
# work; bad input is one line naming the file and exit 2.
. "$(dirname "$0")/lib.sh"

expect 0 "$IR" replay "$SAMPLE" --quiet --json "$WORK/sample.json"
"$VALIDATE" --every-key-required "$SCHEMA" "$WORK/sample.json" "$FIX/host-a.json" "$FIX/host-b.json" "$FIX/minimal.json" ||
	fail "schema validation"
# JSON on stdout validates too
"$IR" replay "$SAMPLE" --json - | "$VALIDATE" --every-key-required "$SCHEMA" - || fail "schema validation (stdout)"

for f in "$WORK/sample.json" "$FIX/host-a.json" "$FIX/minimal.json"; do
	expect 0 "$IR" report "$f"
	grep -q '^Observed (straight from the trace)' "$WORK/out" || fail "$f: text has no observed section"
	expect 0 "$IR" report "$f" --format csv-wide
	head -1 "$WORK/out" | grep -q '^trace,kernel,cpus,window_ns,policy,' || fail "$f: csv-wide header"
	expect 0 "$IR" report "$f" --format html -o "$WORK/r.html"
	grep -q '</html>' "$WORK/r.html" || fail "$f: html incomplete"
	[ ! -s "$WORK/out" ] || fail "$f: -o still wrote to stdout"
done
# The text states what was assumed and whether probes stood in (issue 11):
# the sample has no probes; host-a.json says it was probed.
expect 0 "$IR" report "$WORK/sample.json"
grep -q '^assumed   mode assumed (no newidle probes): sched_migration_cost 500' "$WORK/out" ||
	fail "sample: text does not state the assumptions and the mode"
expect 0 "$IR" report "$FIX/host-a.json"
grep -q '^assumed   mode probed (costs and avg_idle from newidle probes): sched_migration_cost 500' "$WORK/out" ||
	fail "host-a: text does not state the probed mode"
# text: the headline first (2330 - 1281 = 1049 avoided; net (49.5 - 162.57) - (90 - 295.6) ms),
# fidelity near the top, parameters once with units
expect 0 "$IR" report "$FIX/host-a.json"
head -20 "$WORK/out" | grep -q '^  domain-cost:preset=cover: avoids 1049 migrations (122.73 ms more idle) vs baseline; .*: net 92.5[0-9] ms better than baseline$' ||
	fail "text: domain-cost headline not at the top"
head -20 "$WORK/out" | grep -q '^FIDELITY: ' || fail "text: fidelity not near the top"
# every headline of the text and of the merge, parsed back, against figures computed from the JSON
HL=$(dirname "$0")/headline_check.py
for f in "$WORK/sample.json" "$FIX/host-a.json" "$FIX/host-b.json"; do
	"$IR" report "$f" | sed -n '/^Headline/,/^$/p' | sed 1d | python3 "$HL" "$f" >/dev/null ||
		fail "text headline of $f"
done
"$IR" report merge "$FIX/host-a.json" "$FIX/host-b.json" "$WORK/sample.json" | sed -n '/^Headline/,/^$/p' | sed 1d |
	python3 "$HL" "$FIX/host-a.json" "$FIX/host-b.json" "$WORK/sample.json" >/dev/null || fail "merge headline"
grep -q '^  proportional:seed=3  *lb_release 519; smt_never_hot 1; ni_random 1; seed 3; seeds 32;$' "$WORK/out" || fail "text: a policy's own parameter"
expect 0 "$IR" report "$WORK/sample.json"	# six policies with the same parameters: printed once
[ "$(grep -c 'sysctl_sched_migration_cost' "$WORK/out")" = 1 ] || fail "text: parameters printed more than once"
grep -q 'sysctl_sched_migration_cost 500.0 us' "$WORK/out" || fail "text: parameters without units"
expect 0 "$IR" report "$FIX/host-a.json" --format csv-wide
[ "$(wc -l < "$WORK/out")" = 7 ] || fail "csv-wide: want header + 6 policies"

# the closed loop's table: every column it heads is explained once
expect 0 "$IR" simulate "$SRC/samples/host-hackbench.dat" --policy baseline
python3 - "$WORK/out" <<'PY' || fail "simulate: a closed-loop column is not explained"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
i = [k for k, l in enumerate(lines) if l.startswith("Closed loop:")][0]
heads = re.split(r"\s{2,}", lines[i + 1].strip())
legend = [l for l in lines[i:] if l.startswith("  columns: ")]
assert len(heads) == 8 and len(legend) == 1, (heads, legend)
for h in heads:
    assert f" {h}," in legend[0], (h, legend[0])
PY
expect 0 "$IR" report compare "$FIX/host-a.json" "$FIX/host-b.json"
grep -q '^Policy domain-cost:preset=cover' "$WORK/out" || fail "compare: no per-policy section"
grep -Eq '^  pulls +1281 +1311 +\+30 +\+2\.3%' "$WORK/out" || fail "compare: domain-cost pulls delta and (B-A)/A"
# every column has a heading: the relative change is named
grep -Eq '^Observed +A +B +B - A +\(B-A\)/A +A per s +B per s +B - A per s$' "$WORK/out" ||
	fail "compare: the relative change column has no heading"
# compare as JSON and CSV: the same rows; rates are values per second of each trace's window
expect 0 "$IR" report compare "$FIX/host-a.json" "$WORK/sample.json" --format json
cp "$WORK/out" "$WORK/cmp.json"
expect 0 "$IR" report compare "$FIX/host-a.json" "$WORK/sample.json" --format csv
python3 - "$WORK/cmp.json" "$WORK/out" "$FIX/host-a.json" "$WORK/sample.json" <<'PY' || fail "compare json/csv"
import csv, json, sys
cmp, rows = json.load(open(sys.argv[1])), list(csv.DictReader(open(sys.argv[2])))
# a policy one side lacks: a CSV row without figures, listed in the JSON's only_in_a/b
only = [(r["section"], r["metric"]) for r in rows if r["metric"].startswith("only in ")]
assert only == [(l, "only in A") for l in cmp["only_in_a"]] + [(l, "only in B") for l in cmp["only_in_b"]], only
rows = [r for r in rows if not r["metric"].startswith("only in ")]
a, b = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
assert cmp["schema"] == "idlereplay.compare/1", cmp["schema"]
assert len(rows) == len(cmp["rows"]) > 10, (len(rows), len(cmp["rows"]))
wa, wb = a["trace"]["window_ns"] / 1e9, b["trace"]["window_ns"] / 1e9
for r, c in zip(cmp["rows"], rows):
    assert (r["section"], r["metric"]) == (c["section"], c["metric"]), (r, c)
    assert int(c["a"]) == r["a"] and int(c["b"]) == r["b"] and r["delta"] == r["b"] - r["a"]
    if r["metric"] != "window":
        assert abs(r["a_per_s"] - r["a"] / wa) < 1e-6 * max(1, abs(r["a_per_s"])), r
        assert abs(r["b_per_s"] - r["b"] / wb) < 1e-6 * max(1, abs(r["b_per_s"])), r
        assert abs(float(c["a_per_s"]) - r["a_per_s"]) < 1e-3
pulls = [r for r in cmp["rows"] if r["section"] == "baseline" and r["metric"] == "pulls"][0]
pa = [p for p in a["policies"] if p["label"] == "baseline"][0]["pulls"]["total"]
pb = [p for p in b["policies"] if p["label"] == "baseline"][0]["pulls"]["total"]
assert (pulls["a"], pulls["b"]) == (pa, pb), pulls
PY
grep -q 'A per s' "$WORK/cmp.json" && fail "compare json holds text"
expect 0 "$IR" report compare "$FIX/minimal.json" "$FIX/host-a.json"
grep -q 'only in B' "$WORK/out" || fail "compare: policies only in B not listed"

expect 0 "$IR" report merge "$FIX/host-a.json" "$FIX/host-b.json" "$WORK/sample.json"
grep -Eq '^  total ' "$WORK/out" && grep -Eq '^  median ' "$WORK/out" && grep -Eq '^  p90 ' "$WORK/out" ||
	fail "merge: totals and distributions"
expect 0 "$IR" report merge --format csv "$FIX/host-a.json" "$FIX/host-b.json" "$WORK/sample.json"
[ "$(wc -l < "$WORK/out")" = 8 ] || fail "merge csv: header + 3 hosts + total, median, p10, p90"
# hosts: --name, else the trace's hostname (the sample's uname says "vm"), else the file name
expect 0 "$IR" report merge --format csv --name first "$FIX/host-a.json" "$FIX/host-b.json" "$WORK/sample.json"
cut -d, -f1 "$WORK/out" | sed -n 2,4p | tr '\n' ' ' | grep -qx 'first host-b vm ' ||
	fail "merge: host names $(cut -d, -f1 "$WORK/out" | sed -n 2,4p | tr '\n' ' ')"
# hosts that share a name are told apart: by the report's file name, else numbered
"$IR" replay "$SRC/tests/data/host-pipe.dat" --quiet --json "$WORK/pipe.json" || fail "replay host-pipe"
expect 0 "$IR" report merge --format csv "$WORK/sample.json" "$WORK/pipe.json"
cut -d, -f1 "$WORK/out" | sed -n 2,3p | tr '\n' '|' | grep -qx 'vm (sample)|vm (pipe)|' ||
	fail "merge: hosts named alike: $(cut -d, -f1 "$WORK/out" | sed -n 2,3p | tr '\n' '|')"
# the distribution table stays aligned when its ranges are long (ms and us
# ranges of two very different hosts): every row as long as its header
for pair in "$WORK/sample.json $WORK/pipe.json" "$FIX/host-a.json $FIX/host-b.json"; do
	expect 0 "$IR" report merge $pair
	widths=$(sed -n '/^Per host vs/,/^$/p' "$WORK/out" | sed '1d;$d' | awk '{print length($0)}' | sort -u)
	[ -n "$widths" ] && [ "$(wc -l <<<"$widths")" = 1 ] || fail "merge: distribution table not aligned ($pair): $(echo $widths)"
done
mkdir -p "$WORK/d1" "$WORK/d2"
cp "$FIX/host-a.json" "$WORK/d1/r.json" && cp "$FIX/host-b.json" "$WORK/d2/r.json"
expect 0 "$IR" report merge --format csv "$WORK/d2/r.json" "$WORK/d1/r.json" "$WORK/pipe.json"
[ "$(cut -d, -f1 "$WORK/out" | sed -n 2,4p | tr '\n' '|')" = "$WORK/d2/r|$WORK/d1/r|vm|" ] ||
	fail "merge: reports of one file name: $(cut -d, -f1 "$WORK/out" | sed -n 2,4p | tr '\n' '|')"
expect 0 "$IR" report merge --format csv --name a --name a "$WORK/d2/r.json" "$WORK/d1/r.json"
[ "$(cut -d, -f1 "$WORK/out" | sed -n 2,3p | tr '\n' '|')" = "a ($WORK/d2/r)|a ($WORK/d1/r)|" ] ||
	fail "merge: the same --name twice: $(cut -d, -f1 "$WORK/out" | sed -n 2,3p | tr '\n' '|')"
# the same trace twice (here under another file name) is refused: exit 2, naming both files
cp "$FIX/host-a.json" "$WORK/again.json"
expect 2 "$IR" report merge "$FIX/host-a.json" "$FIX/host-b.json" "$WORK/again.json"
grep -q "again.json: the same trace as $FIX/host-a.json" "$WORK/err" || fail "merge: duplicate not refused: $(cat "$WORK/err")"
# headline first, warnings near the top
expect 0 "$IR" report merge "$FIX/host-a.json" "$FIX/host-b.json"
sed -n 2p "$WORK/out" | grep -q '^WARNING: 1 of 2 hosts lost events' || fail "merge: lost-events warning not near the top"
grep -q '^  domain-cost:preset=cover: avoids 2122 migrations ([0-9.]* [mu]*s more idle) vs baseline; .*: net [0-9.]* [mu]*s better than baseline$' "$WORK/out" ||
	fail "merge: headline (the idle traded and the net effect in words)"
expect 0 "$IR" report merge --format html -o "$WORK/fleet.html" "$FIX/host-a.json" "$FIX/host-b.json"
grep -q 'id="headline"' "$WORK/fleet.html" && grep -q '</html>' "$WORK/fleet.html" || fail "merge: html"
expect 1 "$IR" report merge --name a --name b --name c "$FIX/host-a.json" "$FIX/host-b.json"
# warnings name the hosts they are about (docs/fleet.md: each policy names the hosts that lack it)
"$IR" replay "$SRC/tests/data/host-pipe.dat" --quiet --json "$WORK/pipe2.json" --policy baseline \
	--policy no-check --reference no-check || fail "replay host-pipe, two policies"
expect 0 "$IR" report merge --name db-01 "$WORK/sample.json" --name db-02 "$WORK/pipe2.json"
grep -qx 'WARNING: 1 report uses another reference policy than baseline (db-02): their avoided and traded figures are against theirs' \
	"$WORK/out" || fail "merge: the other reference's host not named: $(grep reference "$WORK/out")"
for p in domain-cost mainline bump proportional; do
	grep -qx "NOTE: policy $p is in 1 of 2 reports (not in db-02); its distribution is over those" "$WORK/out" ||
		fail "merge: the hosts lacking $p not named"
done
grep -q 'NOTE: policy no-check is in' "$WORK/out" && fail "merge: no-check is in both"
# outliers: the text and the HTML page list the same ones, computed here (Tukey's far out,
# at most 10 per policy and figure, farthest first, the rest counted), or say none;
# one host is "1 host". 44 copies of the sample, hosts 33..43 with domain-cost's avoided
# at 1000 + i: Q1 = Q3 = the copies' value, so those 11 are beyond 3 x IQR.
python3 - "$WORK/sample.json" "$WORK/fleet44" <<'PY' || fail "outlier reports"
import copy, json, os, sys
base = json.load(open(sys.argv[1])); os.makedirs(sys.argv[2])
for i in range(44):
    d = copy.deepcopy(base)
    d["trace"]["hostname"] = f"h{i:02d}"
    if i >= 33:
        [p for p in d["policies"] if p["label"] == "domain-cost"][0]["migrations_avoided"]["total"] = 1000 + i
    json.dump(d, open(f"{sys.argv[2]}/h{i:02d}.json", "w"))
PY
expect 0 "$IR" report merge "$WORK"/fleet44/h*.json
sed -n '/^Outliers/,/^$/p' "$WORK/out" | sed 1d | sed '/^$/d' > "$WORK/out.text"
expect 0 "$IR" report merge "$WORK"/fleet44/h*.json --format html -o "$WORK/f44.html"
python3 - "$WORK/out.text" "$WORK/f44.html" <<'PY' || fail "merge: outliers in text and HTML"
import re, sys
text = [" ".join(l.split()) for l in open(sys.argv[1])]
page = open(sys.argv[2]).read()
ul = page.split('<ul id="outliers">', 1)[1].split("</ul>", 1)[0]
html = [re.sub(r"<[^>]+>", "", li).strip() for li in re.findall(r"<li>.*?</li>", ul)]
want = [f"h{i}" for i in range(43, 33, -1)]
got_t = [l.split()[2] for l in text[:10]]
got_h = [h.split(": ", 1)[1].split()[0] for h in html[:10]]
assert got_t == want and got_h == want, (got_t, got_h, want)
assert all(l.startswith("domain-cost avoided ") for l in text[:10]), text
assert [h.replace("avoided: ", "avoided ", 1) for h in html] == text, (html, text)
assert text[10:] == ["domain-cost avoided ... and 1 more"], text[10:]
PY
expect 0 "$IR" report merge "$WORK/sample.json"
head -1 "$WORK/out" | grep -q '^Fleet: 1 host, 6 policies; ' || fail "merge of one report: '$(head -1 "$WORK/out")'"
sed -n '/^Outliers/{n;p}' "$WORK/out" | grep -qx '  none' || fail "merge text: no outliers, not said"
expect 0 "$IR" report merge "$WORK/sample.json" --format html -o "$WORK/f1.html"
grep -q '<h1>Fleet: 1 host, 6 policies</h1>' "$WORK/f1.html" || fail "merge html of one report: heading"
tr -d '\n' < "$WORK/f1.html" | grep -q '<ul id="outliers"><li>none</li></ul>' || fail "merge html: no outliers, not said"

# Bad input: one line naming the file, exit 2.
echo 'not json {' > "$WORK/bad.json"
echo '{"schema":"something/2"}' > "$WORK/other.json"
: > "$WORK/empty.json"
for f in "$WORK/missing.json" "$WORK/bad.json" "$WORK/other.json" "$WORK/empty.json" "$SAMPLE"; do
	for cmd in "report $f" "report compare $FIX/host-a.json $f" "report merge $FIX/host-a.json $f"; do
		expect 2 "$IR" $cmd
		[ "$(wc -l < "$WORK/err")" = 1 ] || fail "$cmd: want one error line"
		grep -qF "$f" "$WORK/err" || fail "$cmd: error does not name the file"
	done
done
# Reports from other machines are data: values of the wrong type where the renderers index or
# compare them (a null parameter or level name, a timeline part that is not an array) give
# exit 0 or 2 with at most one error line in every format, never a crash (each crashed:
# strcmp of json-c's NULL for a null, json-c's assertion on a non-array)
"$IR" replay "$SAMPLE" --quiet --timeline --json "$WORK/tl.json" || fail "replay --timeline"
python3 - "$WORK/tl.json" "$WORK/hostile" <<'PY' || fail "hostile reports"
import copy, json, os, sys
base = json.load(open(sys.argv[1])); os.makedirs(sys.argv[2])
def put(d, path, v):
    o = d
    for k in path[:-1]:
        o = o[k]
    o[path[-1]] = v
cases = {"param-null": (("policies", 0, "params", "sysctl_sched_migration_cost"), None),
         "level-null": (("domains", "levels", 0), None),
         "detail-string": (("timeline", "detail"), "x"),
         "cpu-pulls-number": (("timeline", "cpus", 0, "pulls"), 5),
         "lanes-object": (("timeline", "policies"), {"a": 1}),
         "bails-array": (("policies", 1, "bails"), [None])}
for name, (path, v) in cases.items():
    d = copy.deepcopy(base)
    put(d, path, v)
    d["trace"]["hostname"] = name
    json.dump(d, open(f"{sys.argv[2]}/{name}.json", "w"))
PY
for f in "$WORK"/hostile/*.json; do
	for cmd in "report $f" "report $f --format html" "report $f --format csv-wide" "report $f --format jsonl" \
		"report compare $WORK/sample.json $f --format json" "report merge $WORK/sample.json $f --format html"; do
		$IR $cmd >"$WORK/out" 2>"$WORK/err"
		st=$?
		{ [ $st = 0 ] || [ $st = 2 ]; } && [ "$(grep -vc warning "$WORK/err")" -le 1 ] ||
			fail "$cmd: exit $st, stderr '$(head -c 300 "$WORK/err")'"
	done
done
# Usage errors: exit 1.
expect 1 "$IR" report
expect 1 "$IR" report "$FIX/host-a.json" --format pdf
expect 1 "$IR" report compare "$FIX/host-a.json"
expect 1 "$IR" report compare "$FIX/host-a.json" "$FIX/host-b.json" --format html
# Unwritable output: exit 2, and nothing left behind.
expect 2 "$IR" report "$FIX/host-a.json" -o "$WORK/nodir/x.txt"
# The man page's SYNOPSIS shows every command --help lists (a user reads it first)
synopsis=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$SRC/docs/idlereplay.1")
for c in $("$IR" --help | awk '/^commands:/{f=1; next} f && !NF {exit} f {print $1}'); do
	grep -qx "\.B idlereplay $c" <<<"$synopsis" || fail "man page SYNOPSIS does not show 'idlereplay $c'"
done
echo ok

#!/usr/bin/env bash
# idlereplay report on the sample trace's JSON and on the fixtures: every JSON
# validates against report/schema.json; text, HTML, CSV, compare and merge
# work; bad input is one line naming the file and exit 2.
. "$(dirname "$0")/lib.sh"

expect 0 "$IR" replay "$SAMPLE" --quiet --json "$WORK/sample.json"
"$VALIDATE" "$SCHEMA" "$WORK/sample.json" "$FIX/host-a.json" "$FIX/host-b.json" "$FIX/minimal.json" ||
	fail "schema validation"
# JSON on stdout validates too
"$IR" replay "$SAMPLE" --json - | "$VALIDATE" "$SCHEMA" - || fail "schema validation (stdout)"

for f in "$WORK/sample.json" "$FIX/host-a.json" "$FIX/minimal.json"; do
	expect 0 "$IR" report "$f"
	grep -q '^Observed (straight from the trace)' "$WORK/out" || fail "$f: text has no observed section"
	expect 0 "$IR" report "$f" --format csv-wide
	head -1 "$WORK/out" | grep -q '^trace,kernel,cpus,window_ns,policy,' || fail "$f: csv-wide header"
	expect 0 "$IR" report "$f" --format html -o "$WORK/r.html"
	grep -q '</html>' "$WORK/r.html" || fail "$f: html incomplete"
	[ ! -s "$WORK/out" ] || fail "$f: -o still wrote to stdout"
done
expect 0 "$IR" report "$FIX/host-a.json" --format csv-wide
[ "$(wc -l < "$WORK/out")" = 7 ] || fail "csv-wide: want header + 6 policies"

expect 0 "$IR" report compare "$FIX/host-a.json" "$FIX/host-b.json"
grep -q '^Policy domain-cost:preset=cover' "$WORK/out" || fail "compare: no per-policy section"
grep -Eq '^  pulls +1281 +1311 +\+30' "$WORK/out" || fail "compare: domain-cost pulls delta"
expect 0 "$IR" report compare "$FIX/minimal.json" "$FIX/host-a.json"
grep -q 'only in B' "$WORK/out" || fail "compare: policies only in B not listed"

expect 0 "$IR" report merge "$FIX/host-a.json" "$FIX/host-b.json" "$WORK/sample.json"
grep -Eq '^  total ' "$WORK/out" && grep -Eq '^  median ' "$WORK/out" && grep -Eq '^  p90 ' "$WORK/out" ||
	fail "merge: totals and distributions"
expect 0 "$IR" report merge --format csv "$FIX/host-a.json" "$FIX/host-b.json" "$WORK/sample.json"
[ "$(wc -l < "$WORK/out")" = 7 ] || fail "merge csv: header + 3 hosts + total, median, p90"

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
# Usage errors: exit 1.
expect 1 "$IR" report
expect 1 "$IR" report "$FIX/host-a.json" --format pdf
expect 1 "$IR" report compare "$FIX/host-a.json"
expect 1 "$IR" report compare "$FIX/host-a.json" "$FIX/host-b.json" --format html
# Unwritable output: exit 2, and nothing left behind.
expect 2 "$IR" report "$FIX/host-a.json" -o "$WORK/nodir/x.txt"
echo ok

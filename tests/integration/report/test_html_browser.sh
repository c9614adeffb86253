#!/usr/bin/env bash
# The HTML report in headless Chromium: it renders with no console errors or
# failed loads, the DOM holds the charts, and a screenshot is not blank.
# Screenshots are kept in $IR_SCREENSHOT_DIR when set (to look at them).
. "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser) || missing_tool "needs chromium"
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import PIL' 2>/dev/null || missing_tool "needs python3-pil"

chrome() {
	local profile
	profile=$(mktemp -d "$WORK/profile.XXXXXX")
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --hide-scrollbars \
		--user-data-dir="$profile" --enable-logging=stderr --v=0 "$@"
}

"$IR" replay "$SAMPLE" --quiet --json "$WORK/sample.json" || fail "replay"
for name in host-a sample minimal; do
	json=$FIX/$name.json
	[ "$name" = sample ] && json=$WORK/sample.json
	"$IR" report "$json" --format html -o "$WORK/$name.html" || fail "$name: render"
	chrome --dump-dom "file://$WORK/$name.html" >"$WORK/$name.dom" 2>"$WORK/$name.log" || {
		cat "$WORK/$name.log" >&2; fail "$name: chromium --dump-dom failed"; }
	# Console messages, script errors and failed loads (net::ERR_*) all fail.
	if grep -E 'CONSOLE|Uncaught|net::ERR_|Not allowed to load' "$WORK/$name.log"; then
		fail "$name: console errors"
	fi
	grep -q '<svg' "$WORK/$name.dom" || fail "$name: no SVG in the rendered DOM"
	grep -q 'Observed (straight from the trace)' "$WORK/$name.dom" || fail "$name: DOM incomplete"
	chrome --screenshot="$WORK/$name.png" --window-size=1280,2000 "file://$WORK/$name.html" \
		>/dev/null 2>"$WORK/$name.shot.log" || { cat "$WORK/$name.shot.log" >&2; fail "$name: screenshot"; }
	/usr/bin/python3 - "$WORK/$name.png" <<'PY' || fail "$name: screenshot looks blank"
import sys as _s; _s.flags.optimize and _s.exit("FAIL: python -O would strip this check's asserts")
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
assert im.size == (1280, 2000), im.size
small = im.resize((320, 500))
colors = small.getcolors(1 << 20) or []
nonwhite = sum(n for n, c in colors if sum(c) < 700)
# Text, bars and axes: many colours, and more than 2% of the page not white.
print(f"{sys.argv[1]}: {len(colors)} colours, {100.0 * nonwhite / (320 * 500):.1f}% non-white")
assert len(colors) > 50 and nonwhite > 0.02 * 320 * 500
PY
	# The rendered page's headline and first chart hold the JSON's figures, computed here
	# from the report's totals; the headline and fidelity come before the first chart.
	/usr/bin/python3 - "$WORK/$name.dom" "$json" <<'PY' || fail "$name: headline or chart values differ from the JSON"
import html.parser, json, re, sys
dom, doc = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
pols = doc.get("policies", [])
if not pols:
    sys.exit(0)
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.li = []; self.titles = []; self.in_title = False; self.where = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "li" and "data-policy" in a:
            self.li.append(a)
        if tag == "title":
            self.in_title = True
    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
    def handle_data(self, d):
        if self.in_title:
            self.titles.append(d)
p = P(); p.feed(dom)
ref = [q for q in pols if q["label"] == doc.get("reference")]
assert len(p.li) == len(pols), (len(p.li), len(pols))
for li, q in zip(p.li, pols):
    assert li["data-policy"] == q["label"], (li, q["label"])
    assert int(li["data-pulls"]) == q["pulls"]["total"]
    if ref and q is not ref[0]:
        r = ref[0]
        assert int(li["data-avoided"]) == r["pulls"]["total"] - q["pulls"]["total"], li
        assert int(li["data-traded"]) == q["idle_lost_ns"] - r["idle_lost_ns"], li
        net = (q["idle_recovered_ns"] - q["balance_cost_ns"]) - (r["idle_recovered_ns"] - r["balance_cost_ns"])
        assert int(li["data-net"]) == net, (li, net)
# first chart: pulls by level, one title per non-zero bar, "POLICY, LEVEL: N"
want = {f"{q['label']}, {lv}": n for q in pols for lv, n in q["pulls"]["by_level"].items() if n}
got = {}
for t in p.titles:
    m = re.fullmatch(r"(.+, \w+): (\d+)", t)
    if m and m.group(1) in want and m.group(1) not in got:
        got[m.group(1)] = int(m.group(2))
assert got == want, (got, want)
h, c = dom.find('id="headline"'), dom.find("Policy comparison")
assert 0 <= h < c, "headline after the charts"
if doc.get("fidelity"):
    assert 0 <= dom.find('id="fidelity-summary"') < c, "fidelity summary not near the top"
print(f"{sys.argv[2]}: headline and pulls chart agree with the JSON ({len(want)} bars)")
PY
	if [ -n "${IR_SCREENSHOT_DIR:-}" ]; then
		mkdir -p "$IR_SCREENSHOT_DIR" && cp "$WORK/$name.png" "$WORK/$name.html" "$IR_SCREENSHOT_DIR/"
	fi
done
# The fleet page: its headline and range charts against figures computed from the reports.
"$IR" report merge --format html -o "$WORK/fleet.html" "$FIX/host-a.json" "$FIX/host-b.json" "$WORK/sample.json" ||
	fail "merge html"
chrome --dump-dom "file://$WORK/fleet.html" >"$WORK/fleet.dom" 2>"$WORK/fleet.log" || fail "fleet: chromium --dump-dom"
grep -E 'CONSOLE|Uncaught|net::ERR_' "$WORK/fleet.log" && fail "fleet: console errors"
/usr/bin/python3 - "$WORK/fleet.dom" "$FIX/host-a.json" "$FIX/host-b.json" "$WORK/sample.json" <<'PY' || fail "fleet page values"
import html.parser, json, math, sys
dom, docs = open(sys.argv[1]).read(), [json.load(open(f)) for f in sys.argv[2:]]
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.li = {}; self.ranges = {}; self.svg = None
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "svg":
            self.svg = a.get("id")
        if tag == "li" and "data-policy" in a:
            self.li[a["data-policy"]] = a
        if tag == "g" and a.get("class") == "range" and a.get("data-n") != "0":
            self.ranges[(self.svg, a["data-policy"])] = a
p = P(); p.feed(dom)
def nearest(v, pct):
    v = sorted(v); return v[max(1, min(len(v), math.ceil(pct / 100 * len(v) - 1e-9))) - 1]
for label in ["domain-cost:preset=cover", "no-check"]:
    avoided = []
    for d in docs:
        ref = [q for q in d["policies"] if q["label"] == d["reference"]][0]
        q = [q for q in d["policies"] if q["label"] == label]
        if q:
            avoided.append(ref["pulls"]["total"] - q[0]["pulls"]["total"])
    assert int(p.li[label]["data-avoided"]) == sum(avoided), (label, p.li[label], avoided)
    r = p.ranges[("chart-avoided", label)]
    assert float(r["data-median"]) == nearest(avoided, 50), (r, avoided)
    assert float(r["data-p10"]) == nearest(avoided, 10) and float(r["data-p90"]) == nearest(avoided, 90), (r, avoided)
assert dom.find('id="headline"') < dom.find('id="chart-avoided"'), "fleet headline not first"
print("fleet page: headline and range charts agree with the reports")
PY
echo ok

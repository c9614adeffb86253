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
	if [ -n "${IR_SCREENSHOT_DIR:-}" ]; then
		mkdir -p "$IR_SCREENSHOT_DIR" && cp "$WORK/$name.png" "$WORK/$name.html" "$IR_SCREENSHOT_DIR/"
	fi
done
echo ok

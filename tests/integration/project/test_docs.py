#!/usr/bin/env python3
# A fresh clone stands on its own: README.md and docs/*.md link only to
# files (and headings) inside the repository, and no tracked text names the
# directory beside the clone.
import os
import re
import subprocess
import sys

root = os.environ.get("IR_SOURCE_ROOT") or sys.argv[1]
fails = []


def anchors(path):
    """GitHub-style heading anchors of a markdown file."""
    out = set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"#+\s+(.*)", line)
        if m:
            a = m.group(1).strip().lower()
            a = re.sub(r"[^\w\- ]", "", a).replace(" ", "-")
            out.add(a)
    return out


docs = [os.path.join(root, "README.md")] + sorted(
    os.path.join(root, "docs", f) for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
for md in docs:
    text = open(md, encoding="utf-8").read()
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    if not links and md.endswith("README.md"):
        fails.append(f"{md}: no links at all (expected links into docs/)")
    for link in links:
        if re.match(r"[a-z]+:", link):
            fails.append(f"{md}: link leaves the repository: {link}")
            continue
        target, _, frag = link.partition("#")
        path = os.path.normpath(os.path.join(os.path.dirname(md), target)) if target else md
        if not path.startswith(os.path.abspath(root)):
            fails.append(f"{md}: link outside the repository: {link}")
        elif not os.path.exists(path):
            fails.append(f"{md}: broken link: {link}")
        elif frag and path.endswith(".md") and frag not in anchors(path):
            fails.append(f"{md}: no heading '#{frag}' in {target or 'this file'}")

# Nothing tracked refers to the shared directory beside the clone (a fresh
# clone has nothing beside it).  The names are built here so that this file
# does not name it either, and is checked like every other.
BESIDE = (b"../" + b"shared", b"/work/" + b"shared")
try:
    files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
except (OSError, subprocess.CalledProcessError):
    files = [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root)
             if "/build" not in d and "/.git" not in d for f in fs]
for f in files:
    p = os.path.join(root, f)
    if not os.path.isfile(p):
        continue
    try:
        data = open(p, "rb").read()
    except OSError:
        continue
    if b"\0" in data[:4096]:
        continue
    if any(b in data for b in BESIDE):
        fails.append(f"{f}: refers to the directory beside the clone")

for f in fails:
    print("FAIL:", f, file=sys.stderr)
print(f"{len(docs)} markdown files checked, {len(fails)} problems")
sys.exit(1 if fails else 0)

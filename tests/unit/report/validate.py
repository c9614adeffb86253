#!/usr/bin/python3
"""Validate report documents against report/schema.json.

usage: validate.py SCHEMA FILE...   ("-" reads one document from stdin)
Uses Debian's python3-jsonschema (installed by scripts/setup.sh).  Exit 0 when
all validate, 1 with one line per error otherwise.
"""
import json, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    doc = json.load(sys.stdin if path == "-" else open(path))
    for e in sorted(v.iter_errors(doc), key=lambda e: list(e.path)):
        print(f"{path}: /{'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
        bad = 1
sys.exit(bad)

#!/usr/bin/python3
"""Validate report documents against report/schema.json.

usage: validate.py [--every-key-required] [--expect-invalid] SCHEMA FILE...
("-" reads stdin)
--expect-invalid: exit 0 only if every document was found invalid (a
crash still exits non-zero: a test of the rejection cannot pass on one).
Uses Debian's python3-jsonschema (installed by scripts/setup.sh).  Exit 0 when
all validate, 1 with one line per error otherwise.

--every-key-required: also fail when a document holds a key that the schema
object describing it does not require (a key listed in its "required", or in
"dependentRequired" or "x-conditional" for keys emitted only sometimes).
Objects whose keys are data (by_level, by_cause, events) are maps: their
schema has no "properties".  So a key the tool renames is both missing
(required) and unknown (here), whatever renders it.
"""
import json, sys
import sys as _s; _s.flags.optimize and _s.exit("FAIL: python -O would strip this check's asserts")
import jsonschema

args = sys.argv[1:]
every = "--every-key-required" in args
expect_invalid = "--expect-invalid" in args
args = [a for a in args if a not in ("--every-key-required", "--expect-invalid")]
schema = json.load(open(args[0]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)


def resolve(node):
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"schema $ref {ref}: only local references are resolved")
        target = schema
        for part in ref[2:].split("/"):
            target = target[part]
        node = {**target, **{k: x for k, x in node.items() if k != "$ref"}}
    return node


def object_schemas(node):
    """The object schemas that apply to an instance (through allOf)."""
    node = resolve(node)
    out = [node]
    for sub in node.get("allOf", []):
        out += object_schemas(sub)
    return out


def keys_check(doc, node, path, errs):
    if isinstance(doc, list):
        items = resolve(node).get("items")
        for i, x in enumerate(doc):
            if items is not None:
                keys_check(x, items, f"{path}/{i}", errs)
        return
    if not isinstance(doc, dict):
        return
    nodes = object_schemas(node)
    props, allowed = {}, set()
    for n in nodes:
        props.update(n.get("properties", {}))
        allowed |= set(n.get("required", [])) | set(n.get("x-conditional", []))
        for deps in n.get("dependentRequired", {}).values():
            allowed |= set(deps)
        allowed |= set(n.get("dependentRequired", {}))
    if not props:
        maps = [n.get("additionalProperties") for n in nodes if isinstance(n.get("additionalProperties"), dict)]
        for k, x in doc.items():
            if maps:
                keys_check(x, maps[0], f"{path}/{k}", errs)
        return
    for k, x in doc.items():
        if k not in props:
            errs.append(f"{path}/{k}: key not described by the schema")
        elif k not in allowed:
            errs.append(f"{path}/{k}: key emitted but not required by the schema")
        else:
            keys_check(x, props[k], f"{path}/{k}", errs)


bad = 0
invalid = 0
for path in args[1:]:
    doc = json.load(sys.stdin if path == "-" else open(path))
    before = bad
    bad = 0
    for e in sorted(v.iter_errors(doc), key=lambda e: list(e.path)):
        print(f"{path}: /{'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
        bad = 1
    if every:
        errs = []
        keys_check(doc, schema, "", errs)
        for e in errs:
            print(f"{path}: {e}", file=sys.stderr)
            bad = 1
    invalid += bad
    bad = bad or before
if expect_invalid:
    sys.exit(0 if invalid == len(args) - 1 else 1)
sys.exit(bad)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Write the JSON Schemas (draft 2020-12) of slabctl's -j output into tool/schemas/.

One source of truth: the shapes are python/slablab/shapes.py's TypedDicts (the dicts the
Python package returns are the same objects, tool/lib/json.cpp builds both), turned into
tool/schemas/slablab.schema.json's $defs; every command's document is a table below
(COMMANDS), written as tool/schemas/<command>.schema.json, and error.schema.json is the
document of a failure. Every object is closed (additionalProperties: false) and lists
its required keys, so a renamed, missing or stray key fails validation.

    scripts/gen-schemas.py            # rewrite the files whose text changed
    scripts/gen-schemas.py --check    # exit 1 if any is stale (tests/host/test_schemas.py)

The files refer to each other by relative file name ("slablab.schema.json#/$defs/Storm"):
a validator resolves them against the directory they are read from.
"""

import argparse
import importlib.util
import json
import pathlib
import sys
import types
import typing
from typing import Any, Dict, List

REPO = pathlib.Path(__file__).resolve().parents[1]
OUT = REPO / "tool" / "schemas"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
JSON_SCHEMA = "slablab/1"       # tool/include/slabctl/json.hpp's kJsonSchema
DEFS = "slablab.schema.json"


def load_shapes() -> types.ModuleType:
    """shapes.py on its own (it needs only typing): no built extension required."""
    path = REPO / "python" / "slablab" / "shapes.py"
    spec = importlib.util.spec_from_file_location("slablab_shapes", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def is_typeddict(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, dict) and hasattr(t, "__required_keys__")


def type_schema(t: Any, refs: Dict[str, Any], prefix: str) -> Dict[str, Any]:
    """The schema of one annotation; TypedDicts become $refs (collected in refs)."""
    origin, args = typing.get_origin(t), typing.get_args(t)
    if t in (None, types.NoneType):
        return {"type": "null"}
    if t is str:
        return {"type": "string"}
    if t is bool:
        return {"type": "boolean"}
    if t is int:
        return {"type": "integer"}
    if t is float:
        return {"type": "number"}
    if origin is typing.Literal:
        return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
    if origin is typing.Union:
        alts = [type_schema(a, refs, prefix) for a in args]
        simple = [a["type"] for a in alts if list(a) == ["type"]]
        if len(simple) == len(alts):
            return {"type": simple}
        return {"anyOf": alts}
    if origin in (list, List):
        return {"type": "array", "items": type_schema(args[0], refs, prefix)}
    if origin in (dict, Dict):
        assert args[0] is str, t
        return {"type": "object", "additionalProperties": type_schema(args[1], refs, prefix)}
    if is_typeddict(t):
        refs.setdefault(t.__name__, t)
        return {"$ref": f"{prefix}#/$defs/{t.__name__}"}
    raise TypeError(f"no schema for {t!r}")


def object_schema(td: Any, refs: Dict[str, Any], prefix: str = "") -> Dict[str, Any]:
    hints = typing.get_type_hints(td)
    required = [k for k in hints if k in td.__required_keys__]
    s: Dict[str, Any] = {"type": "object"}
    doc = (td.__doc__ or "").strip()
    if doc and not doc.startswith(td.__name__ + "("):    # not TypedDict's generated one
        s["description"] = " ".join(doc.split())
    s["properties"] = {k: type_schema(v, refs, prefix) for k, v in hints.items()}
    s["required"] = required
    s["additionalProperties"] = False
    return s


def defs_schema(shapes: types.ModuleType) -> Dict[str, Any]:
    refs: Dict[str, Any] = {n: getattr(shapes, n) for n in shapes.__all__
                            if is_typeddict(getattr(shapes, n))}
    defs: Dict[str, Any] = {}
    while len(defs) < len(refs):
        for name in sorted(set(refs) - set(defs)):
            defs[name] = object_schema(refs[name], refs)
    return {
        "$schema": DRAFT,
        "title": "slablab/1 shapes",
        "description": "The objects of slabctl's JSON output and of the slablab Python "
                       "package (python/slablab/shapes.py). Written by scripts/gen-schemas.py.",
        "$defs": dict(sorted(defs.items())),
    }


def ref(name: str) -> Dict[str, Any]:
    return {"$ref": f"{DEFS}#/$defs/{name}"}


def with_keys(name: str, *keys: str) -> Dict[str, Any]:
    """A shape whose optional keys `keys` this document always has."""
    return {"allOf": [ref(name), {"required": list(keys)}]}


def nullable(s: Dict[str, Any]) -> Dict[str, Any]:
    return {"anyOf": [s, {"type": "null"}]}


INT = {"type": "integer", "minimum": 0}
STR = {"type": "string"}


def by_allocator(slablab: Dict[str, Any], slub: Dict[str, Any]) -> Dict[str, Any]:
    """A slablab or a kernel cache, told apart by "allocator" (if/then rather than oneOf,
    so that a broken cache is reported against its own shape)."""
    return {"if": {"properties": {"allocator": {"const": "slub"}}, "required": ["allocator"]},
            "then": slub, "else": slablab}


ANY_CACHE = by_allocator(ref("CacheInfo"), ref("NativeCache"))

# The module-wide settings (lab show, lab set): Status's own properties.
LAB = {k: {"$ref": f"{DEFS}#/$defs/Status/properties/{k}"}
       for k in ("kmalloc_page_policy", "kmalloc_design", "kmalloc_lists")}
LAB_KEYS = list(LAB)


def deprecated(of: str) -> str:
    """A deprecated spelling's document: the one it always printed, under its own
    "command" (docs/slabctl.md, "Deprecated spellings")."""
    return f" (the deprecated spelling of {of}; it goes in 1.0)"


# command -> (description, properties beyond the envelope, required ones, extra keywords)
COMMANDS: Dict[str, Any] = {
    "version": ("slabctl version -j: slabctl's version and the module's status (null "
                "without the module, which also exits 3 with an error document)",
                {"slabctl": STR, "api_version": INT, "module": nullable(ref("Status"))},
                ["slabctl", "api_version", "module"], {}),
    "status": ("slabctl status -j", {"status": ref("Status")}, ["status"], {}),
    "info": ("slabctl info -j: the caches (with -T their totals, with --native the "
             "kernel's too), or with -r one cache's report",
             {"page_size": INT,
              "module_loaded": {"type": "boolean"},
              "native_root": STR,
              "caches": {"type": "array", "items": ANY_CACHE},
              "totals": nullable(ref("Totals")),
              "native_totals": ref("NativeTotals"),
              "meminfo": nullable(ref("SlabMeminfo")),
              "cache": by_allocator(with_keys("CacheInfo", "stats", "percpu"),
                                    with_keys("NativeCache", "nodes", "percpu_stats",
                                              "files"))},
             ["page_size"],
             {"oneOf": [{"required": ["caches"]}, {"required": ["cache"]}],
              "dependentRequired": {"module_loaded": ["native_root", "caches"],
                                    "native_totals": ["totals", "meminfo"],
                                    "meminfo": ["native_totals"]}}),
    "create": ("slabctl create -j: the new cache as the kernel returns it",
               {"cache": with_keys("CacheInfo", "stats", "percpu")}, ["cache"], {}),
    "set": ("slabctl set -j: the cache after the change",
            {"cache": with_keys("CacheInfo", "stats", "percpu")}, ["cache"], {}),
    "destroy": ("slabctl destroy -j: the cache destroyed", {"cache": STR}, ["cache"], {}),
    "reset": ("slabctl reset -j: the cache whose counters were zeroed", {"cache": STR},
              ["cache"], {}),
    "shrink": ("slabctl shrink -j",
               {"slabs_freed": INT, "cache": with_keys("CacheInfo", "slabs_freed")},
               ["slabs_freed", "cache"], {}),
    "validate": ("slabctl validate -j (exit 1 and an error document when it found errors)",
                 {"validate": ref("ValidateReport")}, ["validate"], {}),
    "alloc": ("slabctl alloc -j", {"cache": STR, "handle": INT, "count": INT},
              ["cache", "handle", "count"], {}),
    "free": ("slabctl free -j: the objects still held (0: the handle is released)",
             {"handle": INT, "remaining": INT}, ["handle", "remaining"], {}),
    "lab show": ("slabctl lab show -j: the module-wide settings", LAB, LAB_KEYS, {}),
    "lab set": ("slabctl lab set -j: the module-wide settings after the change", LAB,
                LAB_KEYS, {}),
    "lab page-policy": ("slabctl lab page-policy -j" + deprecated("lab set"),
                        {"kmalloc_page_policy": LAB["kmalloc_page_policy"]},
                        ["kmalloc_page_policy"], {}),
    "set-kmalloc": ("slabctl set-kmalloc -j: the kmalloc classes' design and lists after "
                    "the change" + deprecated("lab set"),
                    {"kmalloc_design": LAB["kmalloc_design"], "kmalloc_lists": INT},
                    ["kmalloc_design", "kmalloc_lists"], {}),
    "storm start": ("slabctl storm start -j", {"storm": ref("Storm")}, ["storm"], {}),
    "storm show": ("slabctl storm show -j", {"storm": ref("Storm")}, ["storm"], {}),
    "storm stop": ("slabctl storm stop -j: the storm stopped", {"storm": ref("Storm")},
                   ["storm"], {}),
    "storm": ("slabctl storm TARGET PATTERN -j" + deprecated("storm start"),
              {"storm": ref("Storm")}, ["storm"], {}),
    "storm-status": ("slabctl storm-status -j" + deprecated("storm show and storm stop"),
                     {"storm": ref("Storm")}, ["storm"], {}),
    "compare": ("slabctl compare -j: the Compare shape's keys beside the envelope's",
                "Compare", None, {}),
    "watch": ("slabctl watch -j: one document per sample (a line each without -p)",
              {"sample": INT, "time": {"type": "number"},
               "seconds": {"type": ["number", "null"]},
               "caches": {"type": "array", "items": ref("WatchCache")},
               "storm": nullable(ref("Storm"))},
              ["sample", "time", "seconds", "caches", "storm"], {}),
    "record": ("slabctl record -j: what was recorded", {"record": ref("RecordReport")},
               ["record"], {}),
    "import": ("slabctl import -j: what was imported and skipped",
               {"import": ref("ImportReport")}, ["import"], {}),
    "replay": ("slabctl replay -j: one replay, or with --compare every target's",
               {"replay": ref("Replay"), "compare": ref("ReplayCompare")}, [],
               {"oneOf": [{"required": ["replay"]}, {"required": ["compare"]}]}),
}


def file_name(command: str) -> str:
    return command.replace(" ", "-") + ".schema.json"


def envelope(command: Any) -> Dict[str, Any]:
    return {"schema": {"const": JSON_SCHEMA}, "command": command}


def command_schema(command: str, defs: Dict[str, Any]) -> Dict[str, Any]:
    desc, props, required, extra = COMMANDS[command]
    if isinstance(props, str):
        # the shape's keys at the top level (compare: j.update(to_json(res))), each
        # referring to the shape's own property schema
        shape = defs["$defs"][props]
        required = shape["required"]
        props = {k: {"$ref": f"{DEFS}#/$defs/{props}/properties/{k}"}
                 for k in shape["properties"]}
    return {
        "$schema": DRAFT,
        "title": f"slabctl {command} -j",
        "description": desc,
        "type": "object",
        "properties": {**envelope({"const": command}), **props},
        "required": ["schema", "command", *required],
        "additionalProperties": False,
        **extra,
    }


def error_schema() -> Dict[str, Any]:
    return {
        "$schema": DRAFT,
        "title": "slabctl -j: a failure",
        "description": "What slabctl -j prints on standard error when it fails (exit "
                       "status 1 to 4): the command (null when none could be parsed) "
                       "and the error.",
        "type": "object",
        "properties": {**envelope({"type": ["string", "null"]}), "error": ref("ErrorInfo")},
        "required": ["schema", "command", "error"],
        "additionalProperties": False,
    }


def render(schema: Dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def files() -> Dict[pathlib.Path, str]:
    defs = defs_schema(load_shapes())
    out = {OUT / DEFS: render(defs), OUT / "error.schema.json": render(error_schema())}
    for c in COMMANDS:
        out[OUT / file_name(c)] = render(command_schema(c, defs))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only say whether a file is stale")
    args = ap.parse_args()
    stale = []
    want = files()
    for path, text in want.items():
        if path.exists() and path.read_text() == text:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    extra = sorted(set(OUT.glob("*.schema.json")) - set(want))
    for path in stale:
        print(f"gen-schemas: {'stale' if args.check else 'wrote'} "
              f"{path.relative_to(REPO)}", file=sys.stderr)
    for path in extra:
        print(f"gen-schemas: {path.relative_to(REPO)} is no command's: remove it",
              file=sys.stderr)
    return 1 if (args.check and stale) or extra else 0


if __name__ == "__main__":
    sys.exit(main())

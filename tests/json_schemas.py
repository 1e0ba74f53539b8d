# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Validate slabctl's JSON documents against tool/schemas/ (scripts/gen-schemas.py): the
host tests (tests/host/test_schemas.py) and the VM's (tests/vm/test_slabctl.py) share it.

The schema files refer to each other by file name; every one is loaded into the
resolver's store under its file URI, so nothing is fetched (the VM has no network).
Debian 12's python3-jsonschema (4.10) resolves with RefResolver; later versions have
the `referencing` registry, used when present.
"""
import json
import pathlib
from typing import Any, Dict, List

import jsonschema  # type: ignore[import]  # python3-jsonschema: no stubs

SCHEMAS = pathlib.Path(__file__).resolve().parents[1] / "tool" / "schemas"


def _load() -> Dict[str, Any]:
    return {p.as_uri(): json.loads(p.read_text()) for p in sorted(SCHEMAS.glob("*.schema.json"))}


_STORE = _load()


def schema_path(command: str) -> pathlib.Path:
    """The schema of `command`'s document ("lab page-policy"), or "error"'s."""
    return SCHEMAS / (command.replace(" ", "-") + ".schema.json")


def validator(command: str) -> Any:
    uri = schema_path(command).as_uri()
    schema = _STORE[uri]
    cls = jsonschema.Draft202012Validator
    try:
        from referencing import Registry, Resource  # type: ignore[import]  # jsonschema 4.18+
    except ImportError:
        resolver = jsonschema.RefResolver(uri, schema, store=dict(_STORE))
        return cls(schema, resolver=resolver)
    registry: Any = Registry().with_resources(
        (u, Resource.from_contents(s, default_specification=cls.META_SCHEMA))
        for u, s in _STORE.items())
    return cls(schema, registry=registry)


def errors(doc: Any, command: str) -> List[str]:
    """Every way `doc` breaks `command`'s schema, as "path: message" lines."""
    out = []
    for e in validator(command).iter_errors(doc):
        # a oneOf ("is not valid under any of the given schemas") quotes the whole
        # object: say instead what broke the branch that came closest
        while e.context:
            e = jsonschema.exceptions.best_match(e.context)
        out.append(f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}")
    return out


def check(doc: Any, command: str = "") -> Any:
    """Assert that `doc` is valid under its command's schema (`command`, else the
    document's own: its "command", or "error" when it has an "error"); returns it."""
    if not command:
        command = "error" if "error" in doc else doc["command"]
    bad = errors(doc, command)
    assert not bad, f"{command} document breaks its schema:\n  " + "\n  ".join(bad[:20])
    return doc


def check_output(text: str, command: str = "") -> List[Any]:
    """Every document of slabctl -j's output (one a line), each checked; returns them."""
    docs = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert docs, "no JSON document in the output"
    return [check(d, command) for d in docs]

# SPDX-License-Identifier: GPL-2.0 OR MIT
"""slabctl's global -j/-p and the JSON Schemas of its output (tool/schemas/), without the
kernel module: the schemas are what scripts/gen-schemas.py writes from slablab.shapes,
valid under draft 2020-12 and strict (a renamed or missing key fails); every usage error
and every "module not loaded" failure under -j is an error document on standard error
with the documented exit status; what runs without the module (version, info --native
on a fake /sys/kernel/slab) validates against its schema. tests/vm/test_slabctl.py
validates every command's real output in the VM.
"""
import copy
import json
import re
import subprocess
from typing import Any, List

import jsonschema  # type: ignore[import]  # python3-jsonschema: no stubs
import pytest

import json_schemas
from test_cli import (BAD_USAGE, MODULE_LOADED, NEEDS_MODULE, REPO, VERBS, VERSION,
                      command_of, native, slab_tree, slabctl)

FIXTURES = [slab_tree]     # test_cli's, used here by name

no_module = pytest.mark.skipif(MODULE_LOADED, reason="the slablab module is loaded here")


def error_doc(r, status, command, notes=False):
    """The run failed with `status` and, under -j, said so with one error document: the
    last line of standard error (the only one unless `notes`: text notes before it),
    valid under error.schema.json."""
    assert r.returncode == status, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 or (notes and lines), r.stderr
    doc = json_schemas.check(json.loads(lines[-1]), "error")
    assert doc["command"] == command
    return doc["error"]


# ------------------------------------------------------------- the schema files ----

def test_schemas_are_generated():
    r = subprocess.run(["/usr/bin/python3", str(REPO / "scripts" / "gen-schemas.py"),
                        "--check"], capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 0, "stale: run scripts/gen-schemas.py\n" + r.stderr


def test_schemas_are_valid_draft_2020_12():
    files = sorted(json_schemas.SCHEMAS.glob("*.schema.json"))
    assert len(files) > 20
    for f in files:
        schema = json.loads(f.read_text())
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema", f
        jsonschema.Draft202012Validator.check_schema(schema)


def test_every_command_has_a_schema():
    text = slabctl("--help").stdout
    commands = re.findall(r"^  ([a-z][a-z-]+) ", text.split("Subcommands:")[1], re.M)
    assert "storm" in commands and "watch" in commands
    # lab has no output of its own, its verbs have; so has storm's, and storm without
    # one (storm start's deprecated spelling)
    commands = [c for c in commands if c != "lab"]
    commands += [f"{group} {verb}" for group, verbs in VERBS.items() for verb in verbs]
    missing = [c for c in commands if not json_schemas.schema_path(c).is_file()]
    assert not missing, f"no tool/schemas/ file for: {missing} (scripts/gen-schemas.py)"


def x_macro_names(macro):
    """The JSON names of an X-macro list of include/slablab/protocol.h: X(ATTR, name…)."""
    text = (REPO / "include" / "slablab" / "protocol.h").read_text()
    m = re.search(rf"#define {macro}\(X\)((?:.*\\\n)*.*)", text)
    assert m, macro
    return re.findall(r"X\(\w+, (\w+)", m.group(1))


def test_shapes_name_every_gauge_and_layer():
    """json.cpp writes a cache's gauges and layers from the protocol's X-macros: the
    shapes (and so the schema) must name each, or real documents fail in the VM."""
    defs = json.loads((json_schemas.SCHEMAS / "slablab.schema.json").read_text())["$defs"]
    gauges = x_macro_names("SLABLAB_CACHE_GAUGES")
    assert "rcu_pages" in gauges
    assert list(defs["Gauges"]["properties"]) == gauges
    assert defs["Gauges"]["required"] == gauges
    assert list(defs["Layers"]["properties"]) == x_macro_names("SLABLAB_CACHE_LAYERS")


GOOD_ERROR = {"schema": "slablab/1", "command": "create",
              "error": {"errno": 17, "name": "EEXIST",
                        "message": "CACHE_NEW: File exists: slablab: cache t64 exists",
                        "extack": "slablab: cache t64 exists", "op": "CACHE_NEW"}}


def broken(doc, path, how):
    """A copy of `doc` with the key at `path` renamed, removed, or its value retyped."""
    doc = copy.deepcopy(doc)
    *parents, key = path
    obj = doc
    for p in parents:
        obj = obj[p]
    if how == "rename":
        obj[key + "_renamed"] = obj.pop(key)
    elif how == "remove":
        del obj[key]
    else:
        obj[key] = "a string" if not isinstance(obj[key], str) else 7
    return doc


@pytest.mark.parametrize("how", ["rename", "remove", "retype"])
def test_a_schema_rejects_a_broken_document(slab_tree, how):
    """Strictness: a key renamed, missing or of another type anywhere in a document (the
    envelope, a cache, its gauges, the error) fails, and the message names it."""
    assert json_schemas.errors(GOOD_ERROR, "error") == []
    for path in (["error", "errno"], ["error", "op"], ["command"]):
        if how == "remove" or path != ["command"]:
            assert json_schemas.errors(broken(GOOD_ERROR, path, how), "error"), path
    r = native(slab_tree, "-j", "info", "--native", "-T")
    doc = json_schemas.check(json.loads(r.stdout))
    i = next(i for i, c in enumerate(doc["caches"]) if c["name"] == "kmalloc-64")
    paths: List[List[Any]] = [["page_size"], ["caches", i, "gauges", "objects"],
                              ["caches", i, "aliases"], ["native_totals", "incomplete"],
                              ["schema"]]
    for path in paths:
        bad = json_schemas.errors(broken(doc, path, how), "info")
        assert bad, (path, how)
        if how == "rename":
            assert any(f"'{path[-1]}" in e for e in bad), bad
    # and a value no schema allows
    assert json_schemas.errors({**doc, "schema": "slablab/2"}, "info")
    assert json_schemas.errors({**doc, "command": "status"}, "info")


# ------------------------------------------------- -j / -p without the module ----

def test_json_is_compact_and_pretty_indents(slab_tree):
    one = native(slab_tree, "-j", "info", "--native")
    assert one.returncode == 0, one.stderr
    assert one.stdout.count("\n") == 1          # one document, one line
    pretty = native(slab_tree, "-p", "info", "--native")         # -p implies -j
    assert pretty.stdout.count("\n") > 100 and '\n  "caches": [' in pretty.stdout
    assert json.loads(pretty.stdout) == json.loads(one.stdout)
    assert native(slab_tree, "-jp", "info", "--native").stdout == pretty.stdout
    assert native(slab_tree, "--json", "--pretty", "info", "--native").stdout == pretty.stdout
    # info's own --json: the same document
    assert native(slab_tree, "info", "--native", "--json").stdout == one.stdout
    # the default command (info) under -j
    r = native(slab_tree, "-j")
    assert r.returncode in (0, 3)
    if r.returncode == 3:
        error_doc(r, 3, "info")


def test_native_documents_validate(slab_tree):
    for args in (["info", "--native"], ["info", "--native", "-T"],
                 ["info", "--native", "-D", "kmalloc-*"],
                 ["info", "--native", "-r", "slub/t64"], ["info", "--native", "-r", "foo-bar"]):
        r = native(slab_tree, "-j", *args)
        assert r.returncode == 0, (args, r.stderr)
        [doc] = json_schemas.check_output(r.stdout, "info")
        assert doc["command"] == "info"
    if not MODULE_LOADED:
        doc = json.loads(native(slab_tree, "-j", "info", "--native", "-T").stdout)
        assert doc["module_loaded"] is False and doc["totals"] is None


def test_native_errors_as_json(slab_tree, tmp_path):
    e = error_doc(native(tmp_path / "nonexistent", "-j", "info", "--native"), 1, "info")
    assert (e["errno"], e["name"]) == (2, "ENOENT")
    assert f"cannot read {tmp_path / 'nonexistent'}" in e["message"]
    e = error_doc(native(slab_tree, "-j", "info", "--native", "-r", "nosuch"), 1, "info")
    assert e["name"] == "ENOENT" and "no kernel cache 'nosuch'" in e["message"]
    # (without the module a note says so first, in text)
    e = error_doc(native(slab_tree, "-j", "info", "--native", "nomatch*"), 1, "info",
                  notes=True)
    assert e["message"] == "no cache matches nomatch*"
    e = error_doc(native(slab_tree, "-j", "info", "--native", "-r", "a/b"), 2, "info")
    assert "not a kernel cache name" in e["message"] and e["name"] == "EINVAL"
    # text without -j, as before
    r = native(slab_tree, "info", "--native", "nomatch*")
    assert r.returncode == 1 and r.stderr.endswith("slabctl: info: no cache matches nomatch*\n")


@pytest.mark.parametrize("args,needle", BAD_USAGE,
                         ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_usage_errors_as_json(args, needle):
    """Every bad command line of test_cli.py under -j: exit 2, nothing on stdout, one
    error document on stderr naming the command (null when none was parsed)."""
    r = slabctl("-j", *args)
    e = error_doc(r, 2, command_of(args))
    assert r.stdout == ""
    assert needle in e["message"], e
    assert e["errno"] in (22, 34) and e["name"] in ("EINVAL", "ERANGE")


def test_usage_errors_and_the_commands_own_flag():
    # -j asks for JSON errors wherever CLI11 stopped, before or after the command's options
    e = error_doc(slabctl("-j", "create", "x", "--size", "12q"), 2, "create")
    assert "'12q' is not a size" in e["message"]
    # a command's own --json keeps its errors text, as before -j (scripts read them)
    for args in (["create", "x", "--json"], ["set", "x", "colour=blue", "--json"]):
        r = slabctl(*args)
        assert r.returncode == 2 and "{" not in r.stderr, r.stderr
    # --slabinfo is text only: refused with -j as with info's --json
    error_doc(slabctl("-j", "info", "--slabinfo"), 2, "info")
    assert slabctl("info", "--slabinfo", "--json").returncode == 2
    # -j and -p are global: after the command they are unknown, as every other option
    r = slabctl("info", "-p")
    assert r.returncode == 2 and r.stdout == "" and "-p" in r.stderr


def test_help_and_version_stay_text():
    for args in (["-j", "--help"], ["-j", "info", "--help"]):
        r = slabctl(*args)
        assert r.returncode == 0 and "Usage:" in r.stdout, args
    assert slabctl("-j", "--version").stdout.strip() == f"slabctl {VERSION}"
    out = slabctl("--help").stdout
    assert "-j,--json" in out and "-p,--pretty" in out


@no_module
@pytest.mark.parametrize("args", NEEDS_MODULE, ids=lambda a: " ".join(a) or "(none)")
def test_module_not_loaded_as_json(args):
    r = slabctl("-j", *args)
    e = error_doc(r, 3, command_of(args) or "info")
    assert r.stdout == ""
    assert (e["errno"], e["name"], e["op"], e["extack"]) == (2, "ENOENT", "GETFAMILY", None)
    assert "insmod module/slablab.ko" in e["message"]


@no_module
def test_version_without_module_json():
    """version's document (module: null) on stdout, then the failure as every command's."""
    runs: List[List[str]] = [["-j"], ["-p"], []]
    for flags in runs:
        args = [*flags, "version"] + ([] if flags else ["--json"])
        r = slabctl(*args)
        doc = json_schemas.check(json.loads(r.stdout), "version")
        assert doc["slabctl"] == VERSION and doc["module"] is None
        assert ("\n  " in r.stdout) == (flags == ["-p"])
        if flags == ["-p"]:
            # pretty on standard error as well
            e = json_schemas.check(json.loads(r.stderr), "error")["error"]
            assert r.returncode == 3 and e["op"] == "GETFAMILY"
        elif flags:
            assert error_doc(r, 3, "version")["name"] == "ENOENT"
        else:       # version --json: the error in text, as before -j
            assert r.returncode == 3 and r.stderr.startswith("slabctl: generic netlink")


@no_module
def test_commands_without_json_output_get_one():
    """destroy, reset, lab page-policy and set-kmalloc print a line of text; under -j they
    fail (no module here) with the error document like every command."""
    for args, command in ((["destroy", "t64"], "destroy"), (["reset", "t64"], "reset"),
                          (["lab", "page-policy", "slab"], "lab page-policy"),
                          (["set-kmalloc", "design=slab"], "set-kmalloc"),
                          (["lab", "set", "kmalloc_lists=1"], "lab set")):
        error_doc(slabctl("-j", *args), 3, command)


@no_module
def test_without_j_errors_stay_text():
    r = slabctl("status")
    assert r.returncode == 3 and r.stderr.startswith("slabctl: generic netlink family")
    r = slabctl("set", "x", "colour=blue")
    assert r.returncode == 2 and r.stderr.startswith("slabctl: set: unknown key 'colour'")

# SPDX-License-Identifier: GPL-2.0
"""The maps a newcomer reads first name what is in the tree (issue 27): README.md's
layout table and docs/design.md's file table have a row for every source file of the
module, README.md's layout every top-level directory and every directory of tests/,
docs/testing.md a line for every VM and host test file, README.md links every page of
docs/, and the spec's cache-new doc names every attribute its request accepts. A file
added without its line in a map fails here, naming the file and the map it is missing
from.

A name counts where it stands as a whole word: `slab.c` inside `design_slab.c` or
`kernel/slab.config` would not name a module/slab.c."""
import os
import re

import pytest
import yaml  # type: ignore[import]  # python3-yaml (no stubs): gen-protocol.py reads the spec so

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC = os.path.join("uapi", "slablab.yaml")
# Build outputs that can sit beside the sources (Kbuild's slablab.mod.c; the CMake tree,
# pip's egg-info, caches): none is part of the tree the maps describe.
BUILD_OUTPUTS = re.compile(r"\.mod\.c$|^build$|\.egg-info$|^__pycache__$")


def read(rel):
    with open(os.path.join(REPO, rel), encoding="utf-8") as f:
        return f.read()


def names(directory, pattern):
    """The files (or directories) of @directory whose names match @pattern, sources
    only: no hidden names, no build outputs."""
    path = os.path.join(REPO, directory)
    return sorted(n for n in os.listdir(path)
                  if re.fullmatch(pattern, n) and not n.startswith(".")
                  and not BUILD_OUTPUTS.search(n))


def directories(directory):
    path = os.path.join(REPO, directory)
    return [n for n in names(directory, r".+") if os.path.isdir(os.path.join(path, n))]


def named(text, name):
    """Whether @text has @name as a whole word: not inside a longer file name."""
    return re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text) is not None


def section(doc, title):
    """The text of @doc's section headed @title, up to the next heading of its level."""
    text = read(doc)
    m = re.search(r"^(#+) " + re.escape(title) + r"\n", text, re.M)
    assert m, f"{doc} has no section {title!r}"
    rest = text[m.end():]
    end = re.search(r"^#{1,%d} " % len(m.group(1)), rest, re.M)
    return rest[:end.start()] if end else rest


def row_heads(text):
    """The first cells of a Markdown table's rows in @text: what each row is about."""
    return "\n".join(line.split("|")[1] for line in text.split("\n")
                     if line.startswith("|") and line.count("|") > 2)


def bullet_heads(text):
    """The first code span of each "- " item in @text: what each item is about."""
    return "\n".join(re.findall(r"^- `([^`]+)`", text, re.M))


MODULE_SOURCES = names("module", r".+\.[ch]")
# (doc, section, what the message calls it): a row of the section's tables per file
MODULE_MAPS = [("README.md", "Layout", "layout table"),
               (os.path.join("docs", "design.md"), "Layers", "file table")]


def test_the_module_has_sources():
    """The walk below finds the module's files (an empty list would pass every map)."""
    assert {"cache.c", "backend.c", "internal.h"} <= set(MODULE_SOURCES), MODULE_SOURCES


@pytest.mark.parametrize("doc,title,table", MODULE_MAPS, ids=[m[0] for m in MODULE_MAPS])
def test_every_module_source_has_a_row_in_the_map(doc, title, table):
    heads = row_heads(section(doc, title))
    lost = [n for n in MODULE_SOURCES if not named(heads, n)]
    assert not lost, "\n".join(f"module/{n} is missing from {doc}'s {table} ({title!r})"
                               for n in lost)


def test_every_directory_is_in_the_readme_layout():
    layout = section("README.md", "Layout")
    dirs = [d + "/" for d in directories(".")] + [f"tests/{d}/" for d in directories("tests")]
    assert "module/" in dirs and "tests/vm/" in dirs, dirs
    lost = [d for d in dirs if f"`{d}" not in layout]
    assert not lost, "\n".join(f"{d} is missing from README.md's layout" for d in lost)


# Each suite's files in its own section of docs/testing.md: the VM suite and the host
# suite have files of the same name (test_fidelity.py), which one list could not tell apart.
TESTING_MAPS = [("vm", r"test_.*\.py", "What the VM suite covers"),
                ("host", r"test_.+", "What the host suite covers")]


@pytest.mark.parametrize("suite,pattern,title", TESTING_MAPS, ids=[m[0] for m in TESTING_MAPS])
def test_every_test_file_is_in_testing_md(suite, pattern, title):
    doc = os.path.join("docs", "testing.md")
    tests = names(os.path.join("tests", suite), pattern)
    assert tests, f"no {pattern} in tests/{suite}"
    heads = bullet_heads(section(doc, title))
    lost = [t for t in tests if not named(heads, t)]
    assert not lost, "\n".join(f"tests/{suite}/{t} is missing from {doc} ({title!r})"
                               for t in lost)


def test_every_doc_is_linked_from_the_readme():
    readme = read("README.md")
    docs = names("docs", r".+\.md")
    lost = [d for d in docs
            if not re.search(r"\]\(docs/" + re.escape(d) + r"(#[^)\s]*)?\)", readme)]
    assert not lost, "\n".join(f"docs/{d} is not linked from README.md" for d in lost)


def spec():
    return yaml.safe_load(read(SPEC))


def request_attributes(y, op_name):
    """What @op_name's do request accepts, as scripts/gen-protocol.py's policies do:
    each attribute the request names and, for a nest, every attribute its nested set's
    policy takes (the `<set>-request` subset, else all but unused, pad and multi-attr
    nests). Returns (the op, [(nest or None, attribute)])."""
    sets = {s["name"]: s for s in y["attribute-sets"]}
    op = next(o for o in y["operations"]["list"] if o["name"] == op_name)
    out = []
    for an in op["do"]["request"]["attributes"]:
        attr = next(a for a in sets[op["attribute-set"]]["attributes"] if a["name"] == an)
        if attr.get("type") != "nest":
            out.append((None, an))
            continue
        inner = attr["nested-attributes"]
        policy = sets.get(f"{inner}-request")
        accepted = [a["name"] for a in (policy or sets[inner])["attributes"]
                    if policy or (a.get("type") not in ("unused", "pad")
                                  and not a.get("multi-attr"))]
        out += [(an, x) for x in accepted]
    return op, out


def test_cache_new_doc_names_every_attribute_its_request_takes():
    y = spec()
    op, accepted = request_attributes(y, "cache-new")
    tunables = next(s for s in y["attribute-sets"] if s["name"] == "cache-tunables")
    # cache-new takes every tunable (cache-tunables' doc), so the check below covers them
    not_taken = sorted({a["name"] for a in tunables["attributes"]} - {a for _, a in accepted})
    assert not not_taken, f"{SPEC}: cache-new's request does not take the tunables {not_taken}"
    lost = [f"{nest}.{a}" if nest else a for nest, a in accepted if not named(op["doc"], a)]
    assert not lost, "\n".join(f"{SPEC}: {a} (cache-new's request takes it) is missing from "
                               "cache-new's doc" for a in lost)


def test_named_is_a_whole_word():
    assert named("module/slab.c's top comment", "slab.c")
    assert not named("design_slab.c, kernel/slab.config", "slab.c")
    assert not named("netlink-gen.c", "gen.c")
    assert named("size (required), align", "size")
    assert not named("sheaf-capacity", "capacity")

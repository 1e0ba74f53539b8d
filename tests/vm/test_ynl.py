# SPDX-License-Identifier: GPL-2.0
"""The kernel's own YNL (tools/net/ynl from Debian's linux-source-6.12, fetched by
scripts/ynl.sh) drives the loaded module with nothing but uapi/slablab.yaml: every
request it encodes and every reply it decodes goes by the spec, so these tests are the
proof that the spec is true (docs/netlink.md). The replies are checked against what was
asked and against the module's other interfaces (the Python bindings).

A Python start and the spec's parse cost seconds each under TCG (the cli took 4-5 s a
call, 270 s for this file): the cli itself runs once, in test_the_cli_with_the_schema
(which also validates the spec against the kernel's schema; tests/host/test_spec.py does
it on the host too); every other request goes through the cli's library (YnlFamily, the
class cli.py wraps: the same encoder, decoder and error reports), loaded once."""
import glob
import importlib
import json
import os
import subprocess
import sys
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC = os.path.join(REPO, "uapi", "slablab.yaml")
PY = "/usr/bin/python3"
HOW = "run scripts/ynl.sh on the host (it fetches linux-source-6.12's tools/net/ynl)"


def find_cli():
    """cli.py of scripts/ynl.sh's copy: $SLABLAB_YNL_CLI, else the newest under
    $SLABLAB_CACHE/src (vm.sh passes SLABLAB_* into the guest)."""
    cli = os.environ.get("SLABLAB_YNL_CLI")
    if cli:
        return cli if os.path.isfile(cli) else None
    cache = os.environ.get("SLABLAB_CACHE", os.path.expanduser("~/.cache/slablab"))
    found = sorted(glob.glob(os.path.join(cache, "src", "ynl-*", "tools", "net", "ynl", "cli.py")) +
                   glob.glob(os.path.join(cache, "src", "ynl-*", "tools", "net", "ynl", "pyynl",
                                          "cli.py")))
    return found[-1] if found else None


CLI = find_cli()


def has_module(name):
    return subprocess.run([PY, "-c", f"import {name}"], capture_output=True).returncode == 0


if CLI is None:
    pytest.skip(f"the YNL cli is not there: {HOW}", allow_module_level=True)
if not has_module("yaml"):
    pytest.skip("python3-yaml is missing (scripts/deps.sh installs it)", allow_module_level=True)
SCHEMA = os.path.join(os.path.dirname(CLI), *[".."] * (4 if CLI.endswith("pyynl/cli.py") else 3),
                      "Documentation", "netlink", "genetlink-legacy.yaml")


class Failed:
    """A request the kernel refused: returncode and the text the cli prints for it."""

    def __init__(self, error):
        self.returncode = 1
        self.stdout = str(error)


_family = None


def family():
    """The cli's YnlFamily for uapi/slablab.yaml, made once (the spec's parse is the
    cost of a cli call)."""
    global _family
    if _family is None:
        lib_dir = os.path.dirname(CLI)
        if lib_dir not in sys.path:
            sys.path.insert(0, lib_dir)
        # the kernel's tools/net/ynl/lib, as cli.py imports it; "" skips the schema
        _family = importlib.import_module("lib").YnlFamily(SPEC, "")
    return _family


def ynl(op, request=None, dump=False, check=True):
    """Send OP (do, or dump) with REQUEST through the cli's library and return the reply
    as the cli's --output-json prints it (None for a command without one); with
    check=False a refusal is returned (a Failed) instead of failing the test."""
    fam = family()
    try:
        reply = fam.dump(op, request or {}) if dump else fam.do(op, request or {})
    except importlib.import_module("lib").NlError as e:
        if check:
            raise AssertionError(f"{op} {request}: {e}") from e
        return Failed(e)
    if not check:
        raise AssertionError(f"{op} {request}: expected a refusal, got {reply}")
    return json.loads(json.dumps(reply, default=lambda o: o.hex() if isinstance(o, bytes)
                                 else list(o)))


def cli(op, request=None, dump=False, schema=False):
    """Run the kernel's cli.py itself: `cli.py --spec uapi/slablab.yaml --schema
    genetlink-legacy.yaml|--no-schema --do|--dump OP --json REQUEST --output-json` (the
    schema, asked for, when python3-jsonschema is there: tens of seconds under TCG);
    return the CompletedProcess."""
    cmd = [PY, CLI, "--spec", SPEC]
    if schema and os.path.isfile(SCHEMA) and has_module("jsonschema"):
        cmd += ["--schema", SCHEMA]
    else:
        cmd += ["--no-schema"]
    cmd += ["--dump" if dump else "--do", op]
    if request is not None:
        cmd += ["--json", json.dumps(request)]
    cmd += ["--output-json"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_the_cli_with_the_schema():
    """The cli as a user runs it: a request it encodes, a reply it prints as JSON, and
    a refusal it prints with the extack, exit 1."""
    r = cli("get-status", schema=True)
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    st = json.loads(r.stdout.strip().splitlines()[-1])
    assert st["kernel-release"] == os.uname().release
    assert set(st) == set(ynl("get-status"))
    r = cli("cache-get", {"cache": {"name": "no-such-cache-here"}})
    assert r.returncode == 1 and "No such file or directory" in r.stdout, r.stdout


def test_get_status():
    st = ynl("get-status")
    assert st["api-version"] == 1
    assert st["kernel-release"] == os.uname().release
    assert st["nr-online-cpus"] == os.cpu_count()
    assert st["page-size"] == os.sysconf("SC_PAGE_SIZE")
    assert st["version"] and st["nr-caches"] >= 1
    assert st["kmalloc-page-policy"] in ("slab", "page-alloc")
    # flags decode to names: a bit the spec does not know would have failed the decode
    assert isinstance(st["features"], list)


def test_cache_lifecycle(client):
    name = "ynl-cache"
    size = 200
    # cache-new: the reply is the new cache, with the tunables asked for
    c = ynl("cache-new", {"cache": {"name": name, "size": size, "cpu-partial": 30,
                                    "fastpath": "irqoff"}})["cache"]
    try:
        assert c["name"] == name and c["size"] == size and c["cpu-partial"] == 30
        assert c["fastpath"] == "irqoff" and c["owner"] == "netlink"
        assert c["obj-stride"] >= size and c["objs-per-slab"] >= 1 and c["objects"] == 0
        assert set(c["stats"]) >= {"alloc-fastpath", "cpu-partial-drain"}
        # the bindings (libslabctl's decoder) see the same cache
        assert client.cache_get(name)["size"] == size

        # cache-get (do) always has the per-cpu list; entries name online cpus
        g = ynl("cache-get", {"cache": {"name": name}})["cache"]
        assert g["size"] == size and g["fastpath"] == "irqoff"
        cpus = [e["cpu"] for e in g["percpu"]["entry"]]
        assert cpus and set(cpus) <= set(range(os.cpu_count() or 1))

        # cache-set changes a tunable; the reply and the bindings show it
        s = ynl("cache-set", {"cache": {"name": name, "min-partial": 7, "cpu-partial": 0,
                                        "fastpath": "cmpxchg"}})["cache"]
        assert s["min-partial"] == 7 and s["cpu-partial"] == 0 and s["fastpath"] == "cmpxchg"
        b = client.cache_get(name)
        assert b["min_partial"] == 7 and b["cpu_partial"] == 0

        # the kernel's policy refuses what the spec's checks refuse, and reports the
        # attribute by its spec name and the range the spec gives (max 65536)
        r = ynl("cache-set", {"cache": {"name": name, "cpu-partial": 65537}}, check=False)
        assert r.returncode != 0
        assert "Numerical result out of range" in r.stdout, r.stdout
        assert "'bad-attr': '.cache.cpu-partial'" in r.stdout, r.stdout
        assert "'max-value': 65536" in r.stdout, r.stdout

        # objects through a handle, then shrink and validate
        h = ynl("obj-alloc", {"cache": {"name": name}, "count": 100})
        assert h["count"] == 100 and h["handle"] >= 1
        assert ynl("cache-get", {"cache": {"name": name}})["cache"]["objects"] == 100
        assert ynl("obj-free", {"handle": h["handle"]}) == {"handle": h["handle"], "count": 0}
        before = ynl("cache-get", {"cache": {"name": name}})["cache"]
        sh = ynl("cache-shrink", {"cache": {"name": name}})["cache"]
        assert sh["objects"] == 0
        assert sh["slabs-freed"] == before["slabs"] - sh["slabs"]
        v = ynl("cache-validate", {"cache": {"name": name}})
        assert v["cache"]["name"] == name
        assert v["validate"]["errors"] == 0 and "first-error" not in v["validate"]
        assert v["validate"]["slabs"] == sh["slabs"]
    finally:
        # cache-del has no reply; afterwards the cache is gone
        assert ynl("cache-del", {"cache": {"name": name}}) is None
    r = ynl("cache-get", {"cache": {"name": name}}, check=False)
    assert r.returncode != 0 and "No such file or directory" in r.stdout, r.stdout


def test_cache_get_dump(make_cache):
    name = make_cache(96)
    caches = ynl("cache-get", dump=True)
    by_name = {c["cache"]["name"]: c["cache"] for c in caches}
    assert by_name[name]["size"] == 96
    # kmalloc's size classes are there too, owned by kmalloc
    assert any(c["owner"] == "kmalloc" for c in by_name.values())
    # dumps leave the per-cpu list out unless flags has percpu
    assert "percpu" not in by_name[name]
    caches = ynl("cache-get", {"flags": ["percpu"]}, dump=True)
    assert "entry" in {c["cache"]["name"]: c["cache"] for c in caches}[name]["percpu"]


def wait_storm(sid, deadline_s=240):
    deadline = time.monotonic() + deadline_s
    while True:
        st = ynl("storm-get", {"storm": {"id": sid}})["storm"]
        if st["state"] != "running" or time.monotonic() > deadline:
            return st


def test_storm_start_get(make_cache):
    name = make_cache(64)
    ops = 2000
    cpus = [0, 1] if (os.cpu_count() or 1) > 1 else [0, 0]
    # the enum target is storms' and replays' (issue 27): a slablab cache is "slablab"
    st = ynl("storm-start", {"storm": {"target": "slablab", "pattern": "pair", "cache": name,
                                       "threads": 2, "cpus": f"0-{cpus[1]}",
                                       "ops": ops}})["storm"]
    sid = st["id"]
    assert sid >= 1 and st["state"] in ("running", "done")
    assert st["threads"] == 2 and st["ops"] == ops and st["cache"] == name
    assert st["target"] == "slablab"
    st = wait_storm(sid)
    assert st["id"] == sid and st["state"] == "done", st
    assert st["ops-planned"] == st["ops-done"] == 2 * ops
    assert st["allocs"] == st["frees"] == 2 * ops and st["failures"] == 0
    assert sorted(t["cpu"] for t in st["thread-list"]["entry"]) == cpus
    assert st["stats"]["alloc-fastpath"] + st["stats"]["alloc-slowpath"] == 2 * ops


def test_storm_sizes():
    """storm.sizes: entry nests (the spec's multi-attr entry), encoded by the cli and
    decoded back from the storm-start reply."""
    sizes = [{"size": 64, "weight": 1}, {"size": 256, "weight": 3}]
    st = ynl("storm-start", {"storm": {"target": "kmalloc", "pattern": "pair", "threads": 1,
                                       "sizes": {"entry": sizes}, "ops": 500}})["storm"]
    assert st["target"] == "kmalloc" and st["sizes"]["entry"] == sizes
    st = wait_storm(st["id"])
    assert st["state"] == "done" and st["ops-done"] == 500, st

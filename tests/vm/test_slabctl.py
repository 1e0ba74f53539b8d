# SPDX-License-Identifier: GPL-2.0
"""slabctl end to end, in the VM: every command with its text and --json output checked
against the module's own figures (Python's Client, debugfs), the errors and their exit
statuses (bad usage 2, unknown cache 1, non-root 4), and the storm commands: storm start
(all targets and patterns, progress lines, Ctrl-C), storm show and stop, compare (interleaving,
statistics, CSV, settings restored) and watch; then the Python storm API (storm(),
storm_start/get/stop, KeyboardInterrupt, compare()). Every JSON document is validated
against its schema (tool/schemas/, tests/json_schemas.py), and
test_every_command_json_matches_its_schema runs each command once under the global -j.

Storms run with small op counts: the whole file takes well under a minute under TCG."""
import csv
import itertools
import json
import os
import re
import signal
import statistics
import subprocess
import threading
import time
from typing import Any, Dict, List, Set

import pytest

import json_schemas
import slablab
from slablab import analysis, protocol
from slablab.shapes import Storm
from helpers import SLABCTL, consistent, dbg, dbg_write, slabctl

NOBODY = 65534
_names = itertools.count()

# On the debug kernel (KASAN, lockdep, kmemleak: every process start costs seconds under
# TCG) only the tests that drive the module through storms run; the command-line surface
# (arguments, errors, text, JSON of the plain commands) is checked on the release kernel.
DEBUG_KERNEL = "debug" in os.uname().release
cli_surface = pytest.mark.exclude_if(DEBUG_KERNEL, reason="command-line surface: checked on "
                                     "the release kernel; the debug kernel runs the storm tests")


def run(*args, user=None, timeout=120):
    """slabctl, without checking the exit status."""
    return slabctl(*args, check=False, user=user)


def js(*args):
    """slabctl … --json, parsed; it must succeed, carry the envelope and be valid under
    its command's schema."""
    r = slabctl(*args, "--json")
    doc = json.loads(r.stdout)
    assert doc["schema"] == "slablab/1", doc
    return json_schemas.check(doc)


@pytest.fixture
def cache(client):
    """A fresh 64-byte cache (made through Python: quicker than a slabctl process under
    TCG); destroyed afterwards, validated first."""
    name = f"sc{next(_names)}"
    client.cache_create(name, 64)
    yield name
    if storm_state(client) == "running":      # a failed test may leave one behind
        client.storm_stop()
    assert client.cache_validate(name)["errors"] == 0
    client.cache_destroy(name)


# ------------------------------------------------------------- basic commands

@cli_surface
def test_version_and_status_json(client):
    st = client.status()
    doc = js("version")
    assert doc["command"] == "version" and doc["slabctl"] == slablab.__version__
    assert doc["module"] == st
    doc = js("status")
    assert doc["status"] == st
    text = slabctl("status").stdout
    assert st["kernel_release"] in text and f"{st['nr_online_cpus']} online" in text


@cli_surface
def test_create_json_matches_debugfs(client):
    name = f"sc{next(_names)}"
    doc = js("create", name, "--size", "100", "--align", "16", "--cpu-partial", "13",
             "--min-partial", "6", "--order", "1", "--fastpath", "irqoff", "--debug")
    try:
        c = doc["cache"]
        assert doc["command"] == "create"
        assert (c["name"], c["size"], c["align"], c["cpu_partial"], c["min_partial"],
                c["order"], c["fastpath"]) == (name, 100, 16, 13, 6, 1, "irqoff")
        assert "debug" in c["flags"]
        assert c["obj_stride"] == int(dbg(name, "slab_size"))
        assert c["objs_per_slab"] == int(dbg(name, "objs_per_slab"))
        assert str(c["cpu_partial"]) == dbg(name, "cpu_partial")
        assert dbg(name, "fastpath") == "irqoff"
        # create's reply is the cache as cache-get's, but for the layers (cache-get only:
        # counting them walks every slab)
        got = client.cache_get(name)
        assert "layers" not in c and got.pop("layers")["total"] == 0
        # the occupancy histogram comes with the layers (it walks the slabs too)
        assert "occupancy" not in c and sum(b["slabs"] for b in got.pop("occupancy")) == 0
        assert c == {**got, "percpu": c["percpu"]}
    finally:
        client.cache_destroy(name)


@cli_surface
def test_numbers_are_decimal(client):
    """010 is ten in every integer option and KEY=VALUE, 0x10 sixteen (CLI11 alone reads a
    leading 0 as octal): what the kernel made says so."""
    name = f"sc{next(_names)}"
    c = js("create", name, "--size", "0100", "--align", "0x10", "--cpu-partial", "010",
           "--min-partial", "07", "--order", "01")["cache"]
    try:
        assert (c["size"], c["align"], c["cpu_partial"], c["min_partial"], c["order"]) == \
            (100, 16, 10, 7, 1)
        slabctl("set", name, "min_partial=011")
        assert client.cache_get(name)["min_partial"] == 11
    finally:
        client.cache_destroy(name)


@cli_surface
def test_info_views_match_the_module(client, cache):
    h = client.obj_alloc(cache, 1000, cpu=0)
    doc = js("info", cache)
    [c] = doc["caches"]
    mine = client.cache_get(cache, percpu=False)
    assert c["gauges"] == mine["gauges"] and c["stats"] == mine["stats"]
    assert c["gauges"]["objects"] == 1000 == int(dbg(cache, "objects"))
    assert doc["page_size"] == client.status()["page_size"]
    # the default table: Objects, Objsize; -D: Alloc / Free
    line = [ln for ln in slabctl("info", cache).stdout.splitlines() if ln.startswith(cache)][0]
    assert line.split()[1:3] == ["1000", "64"]
    line = [ln for ln in slabctl("info", "-D", cache).stdout.splitlines()
            if ln.startswith(cache)][0]
    alloc = mine["stats"]["alloc_fastpath"] + mine["stats"]["alloc_slowpath"]
    assert line.split()[1:4] == ["1000", str(alloc), "0"]
    # -r: the full report; --json with per-cpu entries
    report = slabctl("info", "-r", cache).stdout
    assert f"Slabcache: {cache}" in report and "Per cpu" in report
    assert "fail_slab_every" not in report          # a debugfs test hook, not a tunable
    # -T over the selection
    totals = js("info", "-T", cache)["totals"]
    assert totals["objects"] == 1000 and totals["caches"] == 1
    client.obj_free(h)


@cli_surface
def test_set_shrink_validate_reset(client, cache):
    doc = js("set", cache, "cpu_partial=7", "min_partial=0")
    assert (doc["cache"]["cpu_partial"], doc["cache"]["min_partial"]) == (7, 0)
    assert dbg(cache, "cpu_partial") == "7" and dbg(cache, "min_partial") == "0"
    assert "fail_slab_every" not in doc["cache"]
    text = slabctl("set", cache, "hardened=0").stdout
    assert cache in text and "hardened" not in client.cache_get(cache)["flags"]
    client.obj_free(client.obj_alloc(cache, 500))
    before = client.cache_get(cache)["gauges"]["slabs"]
    doc = js("shrink", cache)
    # (slabs that the flush before the shrink frees are not counted as freed by it)
    assert 0 <= doc["slabs_freed"] <= before
    assert doc["cache"]["gauges"]["slabs"] == client.cache_get(cache)["gauges"]["slabs"] == 0
    doc = js("validate", cache)
    assert doc["validate"]["ok"] and doc["validate"]["errors"] == 0
    assert client.cache_get(cache)["stats"]["alloc_fastpath"] > 0
    assert "reset" in slabctl("reset", cache).stdout
    assert client.cache_get(cache)["stats"]["alloc_fastpath"] == 0
    assert dbg(cache, "alloc_fastpath") == "0"


@cli_surface
def test_set_notes_what_takes_no_effect(client, cache):
    """set says on stderr, and the set stands, when what it set is not read now: a
    tunable the cache's design does not read (uapi/tunables.yaml's designs column), and
    a max_order under an order set before (the order stays, order_default moves)."""
    r = slabctl("set", cache, "cpu_partial=9", "--json")
    assert r.stderr == "" and json.loads(r.stdout)["cache"]["cpu_partial"] == 9
    slabctl("set", cache, "design=slab")
    r = slabctl("set", cache, "max_order=2", "--json")
    assert json.loads(r.stdout)["cache"]["max_order"] == 2 == client.cache_get(cache)["max_order"]
    assert f"slabctl: set {cache}: note: the slab design does not read max_order" in r.stderr
    slabctl("set", cache, "design=slub")
    slabctl("set", cache, "order=2")
    r = slabctl("set", cache, "max_order=1")
    c = client.cache_get(cache)
    assert (c["order"], c["max_order"]) == (2, 1) and c["order_default"] <= 1
    assert (f"order 2 was set and stays: under max_order 1 the order policy chose "
            f"{c['order_default']} (order_default)") in r.stderr, r.stderr
    assert slabctl("set", cache, "order=2", "max_order=1").stderr == ""


@cli_surface
def test_fail_slab_every(client, cache):
    """Fault injection is debugfs's (fail_slab_every); slabctl reports the failure."""
    slabctl("set", cache, "min_partial=0")
    dbg_write(cache, "fail_slab_every", 1)
    r = run("alloc", cache, "10")
    assert r.returncode == 1 and "OBJ_ALLOC" in r.stderr
    dbg_write(cache, "fail_slab_every", 0)
    client.obj_free(client.obj_alloc(cache, 10))


@cli_surface
def test_alloc_free_json(client, cache):
    doc = js("alloc", cache, "300", "--cpu", "0")
    assert (doc["cache"], doc["count"]) == (cache, 300)
    assert client.cache_get(cache)["gauges"]["objects"] == 300
    doc = js("free", doc["handle"], "--count", "100", "--cpu", "1")
    assert doc["remaining"] == 200
    assert client.cache_get(cache)["gauges"]["objects"] == 200
    assert "released" in slabctl("free", doc["handle"]).stdout
    consistent(client, cache)


@cli_surface
def test_lab_set_and_show(client):
    try:
        out = slabctl("lab", "set", "kmalloc_page_policy=page_alloc").stdout
        assert "kmalloc page policy page_alloc" in out
        assert client.status()["kmalloc_page_policy"] == "page_alloc"
        assert out == slabctl("lab", "show").stdout
    finally:
        slabctl("lab", "set", "kmalloc-page-policy=slab")
    assert client.status()["kmalloc_page_policy"] == "slab"


@cli_surface
def test_old_spellings_are_aliases(client):
    """lab page-policy, storm-status and storm without a verb (deprecated, until 1.0) do
    what they did: the same output and documents, under their own "command", after a
    notice on standard error in text mode only."""
    st = client.status()
    r = slabctl("lab", "page-policy", st["kmalloc_page_policy"])
    assert r.stdout == f"kmalloc page policy: {st['kmalloc_page_policy']}\n"
    assert r.stderr.startswith("slabctl: 'lab page-policy' is deprecated, use 'lab set ")
    [doc] = j_run("lab", "page-policy", st["kmalloc_page_policy"])
    assert doc["kmalloc_page_policy"] == st["kmalloc_page_policy"]
    # the classes' design as it is: EBUSY while they hold objects, else a no-op
    r = run("-j", "set-kmalloc", f"design={st['kmalloc_design']}",
            f"lists={st['kmalloc_lists']}")
    if r.returncode == 0:
        [d] = json_schemas.check_output(r.stdout, "set-kmalloc")
        assert d["kmalloc_design"] == st["kmalloc_design"]
    else:
        assert r.returncode == 1 and "EBUSY" in r.stderr, r.stderr
    r = run("-j", "storm-status")
    assert r.returncode == 0 and r.stderr == "", r
    doc = json_schemas.check(json.loads(r.stdout))
    assert doc["command"] == "storm-status"
    assert {**doc, "command": "storm show"} == js("storm", "show")
    r = run("storm", "native", "pair", "--size", "64", "--ops", "100", "--json")
    assert r.returncode == 0 and "deprecated" not in r.stderr, r
    assert json_schemas.check(json.loads(r.stdout))["command"] == "storm"
    r = run("storm", "native", "pair", "--size", "64", "--ops", "100", "-q")
    assert r.returncode == 0 and "cycles per pair" in r.stdout
    assert r.stderr == "slabctl: 'storm …' is deprecated, use 'storm start …'; the old " \
                       "spelling goes in 1.0\n"


# ---------------------------------------------------------------------- errors

# (Every bad argument is tested on the host, tests/host/test_cli.py; a few again here,
# where the module is loaded, to see that nothing reaches it.)
@cli_surface
@pytest.mark.parametrize("args", [
    ["storm", "start", "slablab", "pair"],
    ["compare", "pair", "-c", "x", "--repeat", "0"], ["watch", "--interval", "0"],
], ids=" ".join)
def test_bad_usage_exits_2_before_the_kernel(client, args):
    before = client.status()["nr_caches"]
    r = run(*args)
    assert r.returncode == 2, r
    assert r.stdout == "" and "--help" in r.stderr
    assert client.status()["nr_caches"] == before


@cli_surface
@pytest.mark.parametrize("args", [
    ["set", "nosuch", "order=1"], ["info", "-r", "nosuch"], ["watch", "nosuch*", "--count", "1"],
    ["storm", "start", "slablab", "pair", "-c", "nosuch"],
    ["compare", "pair", "-c", "nosuch", "--repeat", "1"],
], ids=" ".join)
def test_unknown_cache_exits_1(args):
    r = run(*args)
    assert r.returncode == 1, r
    assert "nosuch" in r.stderr and "slabctl:" in r.stderr


@cli_surface
def test_unknown_handle_and_storm():
    r = run("free", "999999")
    assert r.returncode == 1 and "OBJ_FREE" in r.stderr
    r = run("storm", "show", "999999")
    assert r.returncode == 1 and "STORM_GET" in r.stderr


@cli_surface
def test_kernel_policy_range_is_printed(client, cache):
    """Values outside the spec's checks reach the kernel (slabctl keeps no copy of its
    ranges), its policy refuses them, and slabctl names the attribute and prints the
    range the kernel returned (NLMSGERR_ATTR_POLICY). Nothing changes."""
    tunables = {t[0]: t for t in protocol.CACHE_TUNABLES}
    before = client.cache_get(cache, percpu=False)
    hi = tunables["min_partial"][5]
    cases = [
        (["set", cache, f"min_partial={hi + 1}"], f"min_partial: must be in [0, {hi}]"),
        (["set", cache, "fastpath=7"], "fastpath: must be in [0, 1]"),
        (["create", "pol", "--size", "64", "--cpu-partial", "70000"],
         f"cpu_partial: must be in [0, {tunables['cpu_partial'][5]}]"),
        (["storm", "start", "slablab", "pair", "-c", cache, "--threads", "0"],
         f"threads: must be in [1, {protocol.VALUES['SLABLAB_STORM_MAX_THREADS']}]"),
    ]
    for args, want in cases:
        r = run(*args)
        assert r.returncode == 1, r
        assert want + " (kernel policy" in r.stderr, (args, r.stderr)
    # a mask: 6.1 reports no policy for it (later kernels do), the attribute is named
    r = run("set", cache, "flags=0x100")
    assert r.returncode == 1 and ("flags: must have no bits outside 0xf (kernel policy"
                                  in r.stderr or "flags: reserved bit set" in r.stderr), r
    after = client.cache_get(cache, percpu=False)
    assert {k: after[k] for k in tunables} == {k: before[k] for k in tunables}
    assert "pol" not in {c["name"] for c in client.cache_list()}


@cli_surface
def test_kernel_refusals_exit_1(client, cache):
    r = run("storm", "start", "slablab", "pair", "-c", cache, "--cpus", "0-63")
    offline = min(set(range(64)) - os.sched_getaffinity(0))   # also beyond nr_cpu_ids
    assert r.returncode == 1 and f"cpu {offline} is not online" in r.stderr, r.stderr
    r = run("storm", "start", "slablab", "remote", "-c", cache, "--threads", "3")
    assert r.returncode == 1 and "even number" in r.stderr
    r = run("storm", "start", "slablab", "churn", "-c", cache, "--working-set", "4M",
            "--threads", "256", "--max-live", "1M")
    assert r.returncode == 1 and "cap" in r.stderr


@cli_surface
@pytest.mark.parametrize("args", [
    ["alloc", "CACHE", "1"], ["storm", "start", "slablab", "pair", "-c", "CACHE"],
    ["compare", "pair", "-c", "CACHE", "--repeat", "1"], ["storm", "stop"],
], ids=" ".join)
def test_non_root_is_refused_with_4(cache, args):
    args = [cache if a == "CACHE" else a for a in args]
    r = run(*args, user=NOBODY)
    assert r.returncode == 4, r
    assert "CAP_SYS_ADMIN" in r.stderr or "not permitted" in r.stderr


@cli_surface
def test_non_root_may_look(client, cache):
    for args in (["info", "-r", cache, "--json"], ["watch", cache, "--count", "1"]):
        r = run(*args, user=NOBODY)
        assert r.returncode == 0, (args, r.stderr)


# ------------------------------------------------- info --native: the kernel's SLUB

SYS_SLAB = "/sys/kernel/slab"
# info --native reads SLUB's sysfs; a SLAB or SLOB kernel has none
needs_slub_sysfs = pytest.mark.skipif(not os.path.isdir(SYS_SLAB), reason="needs SLUB's sysfs "
                                      "(/sys/kernel/slab), which info --native reads")


def slab_file(d, name):
    """The leading number of /sys/kernel/slab/<d>/<name>."""
    with open(f"{SYS_SLAB}/{d}/{name}") as f:
        return int(f.read().split()[0])


def native_doc(*args):
    doc = js("info", "--native", *args)
    assert doc["native_root"] == SYS_SLAB and doc["module_loaded"] is True
    return doc


def meminfo_kb() -> Dict[str, int]:
    """/proc/meminfo's "<key>: <n> kB" lines, read here: the oracle slabctl's are held to."""
    with open("/proc/meminfo") as f:
        return {ln.split(":")[0]: int(ln.split()[1]) for ln in f if ln.rstrip().endswith(" kB")}


@cli_surface
@needs_slub_sysfs
def test_info_native_memory_accounting(client):
    """-T --native ends with /proc/meminfo's slab lines (as read here around it), the
    kernel caches' totals beside them (the same pages counted from /sys/kernel/slab), and
    slablab's: 8 MiB of slablab objects take 8 MiB out of MemFree and leave Slab: where it
    was, within what the kernel itself allocates meanwhile (they are plain pages)."""
    slack = 2048        # kB the kernel's own slab may move by while slabctl runs
    before = meminfo_kb()
    doc = native_doc("-T")
    after = meminfo_kb()
    mi = doc["meminfo"]
    assert mi["mem_total"] == before["MemTotal"] * 1024
    for key, field in (("Slab", "slab"), ("SReclaimable", "sreclaimable"),
                       ("SUnreclaim", "sunreclaim")):
        lo, hi = sorted((before[key], after[key]))
        assert (lo - slack) * 1024 <= mi[field] <= (hi + slack) * 1024, (key, mi, before)
    assert mi["slab"] == mi["sreclaimable"] + mi["sunreclaim"]
    # the caches' pages are in Slab:, with kmalloc()s over 8 KiB beside them (no cache):
    # 78% of a fresh 6.1 VM's Slab: on 2026-12-06
    share = doc["native_totals"]["space"] / mi["slab"]
    print(f"kernel caches' totals: {share:.3f} of Slab:")
    assert 0.5 <= share <= 1.02, share
    text = slabctl("info", "--native", "-T").stdout
    assert "Memory accounting (/proc/meminfo)" in text and "not in Slab:" in text

    name = f"sc{next(_names)}"
    client.cache_create(name, 4096)
    try:
        m0 = meminfo_kb()
        handle = client.obj_alloc(name, 2048)           # 8 MiB of objects
        m1 = meminfo_kb()
        space = json.loads(slabctl("info", "-T", "--json", name).stdout)["totals"]["space"]
        assert space >= 8 << 20
        assert m0["MemFree"] - m1["MemFree"] >= 8 * 1024 - slack
        assert abs(m1["Slab"] - m0["Slab"]) < slack, (m0["Slab"], m1["Slab"])
        client.obj_free(handle)
    finally:
        client.cache_destroy(name)


@cli_surface
@needs_slub_sysfs
def test_info_native_lists_both_allocators(client, cache):
    r = slabctl("info", "--native")
    lines = r.stdout.splitlines()
    names = [ln.split()[0] for ln in lines[1:]]
    # the kernel's caches, marked; slablab's (its kmalloc-64 size class too), unmarked
    assert "slub/kmalloc-64" in names and "kmalloc-64" in names and cache in names
    # each kernel cache once: no ":0000064"-style directory names when an alias exists
    dirs = [d for d in os.listdir(SYS_SLAB) if not os.path.islink(f"{SYS_SLAB}/{d}")]
    assert len([n for n in names if n.startswith("slub/")]) == len(dirs)
    assert len(names) == len(set(names))
    assert "module is not loaded" not in r.stderr and "could not be read" not in r.stderr
    # the cache slablab.ko made with kmem_cache_create() (merged or not, it is found
    # under its own name as an alias)
    doc = native_doc("slablab_slab")
    [meta] = [c for c in doc["caches"] if c["allocator"] == "slub"]
    assert meta["name"] == "slablab_slab" or "slablab_slab" in meta["aliases"]
    assert os.path.basename(os.path.realpath(f"{SYS_SLAB}/slablab_slab")) == meta["sysfs_name"]
    assert meta["size"] == slab_file("slablab_slab", "object_size")
    report = slabctl("info", "--native", "-r", "slablab_slab").stdout
    assert f"Slabcache: slub/{meta['name']}" in report and "slablab_slab" in report


@cli_surface
@needs_slub_sysfs
def test_info_native_figures_match_sysfs(client, cache):
    client.obj_alloc(cache, 100)
    before = {}
    for d in os.listdir(SYS_SLAB):
        if not os.path.islink(f"{SYS_SLAB}/{d}"):
            before[d] = (slab_file(d, "objects"), slab_file(d, "slabs"))
    doc = native_doc()
    after = {d: (slab_file(d, "objects"), slab_file(d, "slabs")) for d in before}
    slub = {c["sysfs_name"]: c for c in doc["caches"] if c["allocator"] == "slub"}
    mine = {c["name"]: c for c in doc["caches"] if c["allocator"] == "slablab"}
    assert set(slub) == set(before)
    assert set(mine) == {c["name"] for c in client.cache_list()}
    assert mine[cache]["gauges"]["objects"] == 100
    steady, differ = 0, []
    for d, c in slub.items():
        # what does not change: exactly the files
        for key, name in (("size", "object_size"), ("obj_stride", "slab_size"),
                          ("objs_per_slab", "objs_per_slab"), ("order", "order"),
                          ("align", "align"), ("merged", "aliases")):
            assert c[key] == slab_file(d, name), (d, key)
        assert c["unreadable"] == {}
        if os.path.exists(f"{SYS_SLAB}/{d}/alloc_fastpath"):     # CONFIG_SLUB_STATS
            assert c["stats"]["alloc_fastpath"] is not None, d
        else:                                                   # Debian's: none
            assert c["stats"] is None, d
        # what may change: equal when it was the same before and after, but for the few
        # caches slabctl's own process allocates from while it reads (filp, kmalloc-*,
        # vmap_area, … and with slab merging whatever shares their slabs)
        if before[d] == after[d]:
            steady += 1
            if (c["gauges"]["objects"], c["gauges"]["slabs"]) != before[d]:
                differ.append((d, c["gauges"]["objects"], c["gauges"]["slabs"], before[d]))
            else:
                assert c["gauges"]["pages"] == before[d][1] << c["order"], d
    assert steady >= len(slub) // 2, (steady, len(slub))
    assert len(differ) <= max(5, steady // 10), differ
    # the kernel's kmalloc-64 in the table: Objsize and O from the files
    d = os.path.basename(os.path.realpath(f"{SYS_SLAB}/kmalloc-64"))
    [line] = [ln for ln in slabctl("info", "--native", "slub/kmalloc-64").stdout.splitlines()
              if ln.startswith("slub/kmalloc-64 ")]
    f = line.split()
    assert int(f[2]) == slab_file(d, "object_size") and int(f[6]) == slab_file(d, "order")
    assert int(f[5]) == slab_file(d, "objs_per_slab")
    # -T: separate totals; every kernel cache counted (root reads every file)
    doc = native_doc("-T")
    assert doc["native_totals"]["caches"] == len(before) and doc["native_totals"]["incomplete"] == 0
    assert doc["totals"]["caches"] == len(mine)
    text = slabctl("info", "--native", "-T").stdout
    assert "Slabcache Totals: slablab" in text and "Slabcache Totals: kernel SLUB" in text
    # -D: the kernel's counters, "-" without SLUB_STATS (Debian's kernels have none)
    [line] = [ln for ln in slabctl("info", "--native", "-D", "slub/kmalloc-64").stdout.splitlines()
              if ln.startswith("slub/")]
    if os.path.exists(f"{SYS_SLAB}/kmalloc-64/alloc_fastpath"):
        assert all(f.isdigit() for f in line.split()[2:6]), line
    else:
        assert line.split()[2:6] == ["-", "-", "-", "-"]


@cli_surface
@needs_slub_sysfs
def test_info_native_report(client):
    d = os.path.basename(os.path.realpath(f"{SYS_SLAB}/kmalloc-64"))
    doc = js("info", "--native", "-r", "kmalloc-64")
    c = doc["cache"]
    assert c["allocator"] == "slub" and c["sysfs_name"] == d
    assert c["files"]["object_size"] == str(slab_file(d, "object_size"))
    assert set(c["files"]) >= {"objects", "slabs", "partial", "cpu_slabs", "order", "poison"}
    text = slabctl("info", "--native", "-r", "kmalloc-64").stdout
    assert "Slabcache: slub/kmalloc-64" in text and "Files in" in text
    r = run("info", "--native", "-r", "no-such-kernel-cache")
    assert r.returncode == 1 and "no kernel cache" in r.stderr


@cli_surface
@needs_slub_sysfs
def test_info_native_non_root(cache):
    r = run("info", "--native", user=NOBODY)
    assert r.returncode == 0, r.stderr
    assert "could not be read (Permission denied)" in r.stderr
    assert "readable by root only" in r.stderr
    rows = {ln.split()[0]: ln.split() for ln in r.stdout.splitlines()[1:]}
    assert rows["slub/kmalloc-64"][1:3] == ["-", "-"]     # 0400 files
    assert rows[cache][1] == "0"                           # slablab's: over netlink
    r = run("info", "--native", "--json", user=NOBODY)
    doc = json.loads(r.stdout)
    k = [c for c in doc["caches"] if c["allocator"] == "slub" and c["name"] == "kmalloc-64"][0]
    assert k["gauges"]["objects"] is None and "objects" in k["unreadable"]
    assert k["sysfs_name"]          # the directory listing needs no root
    r = run("info", "--native", "-r", "kmalloc-64", user=NOBODY)
    assert r.returncode == 0 and "Permission denied" in r.stdout


# ---------------------------------------------------------------------- storms

def storm_json(*args):
    doc = js("storm", "start", *args)
    assert doc["command"] == "storm start"
    return doc["storm"]


def test_storm_slablab_pair(client, cache):
    before = client.cache_get(cache)["stats"]
    s = storm_json("slablab", "pair", "-c", cache, "--ops", "2000", "--threads", "2",
                   "--cpus", "0-1")
    spec, res, fig = s["spec"], s["result"], s["figures"]
    assert s["state"] == "done" and not s["interrupted"]
    assert (spec["target"], spec["pattern"], spec["cache"], spec["threads"], spec["cpus"],
            spec["ops"]) == ("slablab", "pair", cache, 2, "0-1", 2000)
    assert spec["duration_ms"] is None and spec["sizes"] == []
    assert s["progress"]["ops_planned"] == s["progress"]["ops_done"] == 4000
    assert res["allocs"] == res["frees"] == 4000 and res["failures"] == 0
    assert sorted(t["cpu"] for t in res["threads"]) == [0, 1]
    assert sum(t["ops"] for t in res["threads"]) == 4000
    # the stat deltas are the module's own counters over the storm
    after = client.cache_get(cache)["stats"]
    for k in ("alloc_fastpath", "alloc_slowpath", "free_fastpath", "free_slowpath"):
        assert res["stats"][k] == after[k] - before[k], k
    d = res["stats"]
    assert d["alloc_fastpath"] + d["alloc_slowpath"] == 4000
    # the derived figures
    assert fig["cycles_per_pair"] == pytest.approx(res["pair_cycles"] / 4000)
    assert fig["ops_per_sec"] == pytest.approx(4000 / s["progress"]["elapsed_ns"] * 1e9)
    assert fig["alloc_fastpath_pct"] == pytest.approx(100 * d["alloc_fastpath"] / 4000)
    assert fig["ns_per_op"] == pytest.approx(
        res["pair_cycles"] / 4000 / res["cycles_per_sec"] * 1e9)
    assert fig["loop_cycles"] == pytest.approx(res["loop_cycles_x1000"] / 1000)
    assert fig["cycles_per_alloc"] is None
    assert set(res["cache_flags"]) == set(client.cache_get(cache)["flags"])
    assert client.cache_get(cache)["gauges"]["objects"] == 0
    assert s == js("storm", "show")["storm"]      # the last storm stays readable


@cli_surface
def test_storm_text_output(cache):
    r = slabctl("storm", "start", "slablab", "batch", "-c", cache, "--ops", "1000", "--batch",
                "8")
    out = r.stdout
    assert "started: slablab batch on " + cache in out     # plain lines, not a bar
    assert "\r" not in out and "\033" not in out
    for row in ("cycles per alloc", "cycles per free", "cycles per pair", "ns per op",
                "ops/s", "loop overhead", "fast path", "slow path", "cpu partial",
                "memory", "overhead", "failures", "settings", "init_on_alloc="):
        assert row in out, row
    q = slabctl("storm", "start", "slablab", "pair", "-c", cache, "--ops", "100", "-q").stdout
    assert "started" not in q and "cycles per pair" in q


def test_storm_native_and_kmalloc(client, cache):
    s = storm_json("native", "pair", "-c", cache, "--ops", "1000")
    assert s["state"] == "done" and s["result"]["native_name"].startswith("slablab-native-")
    if os.path.exists("/sys/kernel/slab/kmalloc-64/alloc_fastpath"):     # SLUB_STATS
        st = s["result"]["stats"]
        assert st["alloc_fastpath"] + st["alloc_slowpath"] == s["result"]["allocs"], st
        assert s["figures"]["alloc_fastpath_pct"] is not None
    else:
        assert s["result"]["stats"] is None and s["figures"]["alloc_fastpath_pct"] is None
    assert s["figures"]["cycles_per_pair"] > 0
    s = storm_json("native", "bulk", "--size", "200", "--ops", "512", "--batch", "16")
    assert s["spec"]["size"] == 200 and s["spec"]["cache"] is None
    assert s["figures"]["cycles_per_alloc"] > 0 and s["figures"]["cycles_per_free"] > 0
    before = client.cache_get("kmalloc-64")["stats"]
    s = storm_json("kmalloc", "batch", "--size", "64", "--ops", "1024", "--threads", "1")
    after = client.cache_get("kmalloc-64")["stats"]
    assert s["spec"]["size"] == 64 and s["spec"]["sizes"] == []
    assert s["result"]["allocs"] >= 1024
    assert (after["alloc_fastpath"] + after["alloc_slowpath"]
            - before["alloc_fastpath"] - before["alloc_slowpath"]) == s["result"]["allocs"]
    assert s["result"]["stats"]["alloc_fastpath"] + s["result"]["stats"]["alloc_slowpath"] \
        == s["result"]["allocs"]
    s = storm_json("native-kmalloc", "pair", "--size", "64", "--ops", "1000")
    assert s["state"] == "done" and s["result"]["allocs"] == s["progress"]["ops_done"]


def test_storm_kmalloc_sizes(client):
    before = {n: client.cache_get(n)["stats"] for n in ("kmalloc-64", "kmalloc-192")}
    s = storm_json("kmalloc", "batch", "--sizes", "64:3,192:1", "--ops", "1024", "--threads", "1")
    assert s["spec"]["sizes"] == [{"size": 64, "weight": 3}, {"size": 192, "weight": 1}]
    assert s["spec"]["size"] is None
    grew = {n: client.cache_get(n)["stats"]["alloc_fastpath"] + client.cache_get(n)["stats"]
            ["alloc_slowpath"] - b["alloc_fastpath"] - b["alloc_slowpath"]
            for n, b in before.items()}
    assert grew["kmalloc-64"] + grew["kmalloc-192"] == s["result"]["allocs"]
    assert grew["kmalloc-64"] > grew["kmalloc-192"] > 0          # about 3 : 1
    r = client.storm("native-kmalloc", "pair", sizes={64: 3, 192: 1}, ops=512, threads=1)
    assert r["spec"]["sizes"] == [{"size": 64, "weight": 3}, {"size": 192, "weight": 1}]


def test_storm_remote_and_churn(client, cache):
    s = storm_json("slablab", "remote", "-c", cache, "--ops", "2000", "--threads", "2",
                   "--ring", "64")
    assert s["spec"]["ring"] == 64
    assert s["progress"]["ops_planned"] == 2000          # producers' allocations
    assert s["result"]["stats"]["free_slowpath"] > 0     # frees are remote
    assert s["figures"]["ops_per_sec"] > 0
    s = storm_json("slablab", "churn", "-c", cache, "--duration", "400ms",
                   "--working-set", "2000", "--threads", "1", "--seed", "7")
    assert s["spec"]["duration_ms"] == 400 and s["spec"]["ops"] is None
    assert s["spec"]["seed"] == 7 and s["progress"]["ops_planned"] == 0
    res = s["result"]
    assert res["peak_pages"] > 0
    if res["peak_live_bytes"]:
        want = (res["peak_pages"] * s["page_size"] + res["meta_bytes"]
                - res["peak_live_bytes"]) / res["peak_live_bytes"] * 100
        assert s["figures"]["overhead_pct"] == pytest.approx(want)
    assert client.cache_get(cache)["gauges"]["objects"] == 0


def storm_state(client, cache=None):
    """The last storm's state ('running', …), None before the first storm; with `cache`,
    None unless the last storm is on that cache."""
    try:
        s = client.storm_get()
    except slablab.NotFound:
        return None
    if cache is not None and s["spec"]["cache"] != cache:
        return None
    return s["state"]


def wait_for(predicate, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def interrupt(client, cache, *args, while_running=None):
    """Run slabctl ARGS, Ctrl-C it 0.3 s into a storm on `cache` (calling while_running()
    first, if given); it must exit 130."""
    p = subprocess.Popen([SLABCTL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        assert wait_for(lambda: storm_state(client, cache) == "running")
        if while_running:
            while_running()
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, (out, err)
    return p, out, err


def test_storm_ctrl_c_stops_it_in_the_kernel(client, cache):
    p, out, err = interrupt(client, cache, "storm", "start", "slablab", "pair", "-c", cache,
                            "--duration", "120s", "--threads", "1", "--cpus", "1")
    assert "stopped (interrupted: stopped in the kernel)" in out
    assert "cycles per pair" in out and "interrupted" in err
    s = client.storm_get()
    assert s["state"] == "stopped" and s["progress"]["elapsed_ns"] < 100e9
    assert s["progress"]["ops_done"] > 0
    assert client.cache_get(cache)["gauges"]["objects"] == 0


def test_one_storm_at_a_time_and_storm_show_stop(client, cache):
    s = client.storm_start("slablab", "pair", cache=cache, duration_ms=120000,
                           threads=1, cpus="1")
    try:
        r = run("storm", "start", "native", "pair", "-c", cache, "--ops", "10")
        assert r.returncode == 1 and "still running" in r.stderr
        text = slabctl("storm", "show").stdout
        assert f"storm {s['id']} running" in text
        doc = js("storm", "show", str(s["id"]))
        assert doc["storm"]["state"] == "running" and doc["storm"]["result"] is None
        assert run("destroy", cache).returncode == 1          # busy under a storm
        doc = js("storm", "stop")
        assert doc["storm"]["state"] == "stopped" and doc["storm"]["result"] is not None
    finally:
        client.storm_stop()
    assert "stopped" in slabctl("storm", "show", str(s["id"])).stdout


# --------------------------------------------------------------------- compare

def test_compare_interleaves_and_summarizes(client, cache, tmp_path):
    out = tmp_path / "runs.csv"
    doc = js("compare", "pair", "-c", cache, "--ops", "1000", "--repeat", "3", "--warmup", "0",
             "--csv", str(out))
    assert doc["command"] == "compare" and doc["repeat"] == 3
    assert [v["label"] for v in doc["variants"]] == ["slablab", "native"]
    assert doc["figures"] == ["cycles_per_pair"]
    runs = doc["runs"]
    assert [r["label"] for r in runs] == ["slablab", "native"] * 3        # A B A B A B
    assert [r["repeat"] for r in runs] == [1, 1, 2, 2, 3, 3]
    ids = [r["storm"]["id"] for r in runs]
    assert ids == sorted(ids) and len(set(ids)) == 6
    for vi, v in enumerate(doc["variants"]):
        vals = [r["storm"]["figures"]["cycles_per_pair"] for r in runs if r["variant"] == vi]
        s = v["summary"]["cycles_per_pair"]
        assert s["n"] == 3
        assert s["median"] == pytest.approx(statistics.median(vals))
        assert s["mean"] == pytest.approx(statistics.mean(vals))
        assert s["sd"] == pytest.approx(statistics.stdev(vals))
        assert (s["min"], s["max"]) == (min(vals), max(vals))
    first = doc["variants"][0]["summary"]["cycles_per_pair"]
    second = doc["variants"][1]["summary"]["cycles_per_pair"]
    assert second["ratio"] == pytest.approx(second["median"] / first["median"])
    paired = [runs[i + 1]["storm"]["figures"]["cycles_per_pair"]
              / runs[i]["storm"]["figures"]["cycles_per_pair"] for i in (0, 2, 4)]
    assert second["paired_ratio"]["median"] == pytest.approx(statistics.median(paired))
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 6 and rows[1]["variant"] == "native" and rows[1]["target"] == "native"
    # one runs schema: Python writes the very cells slabctl wrote, from the JSON
    assert list(rows[0]) == list(slablab.RUN_CSV_COLUMNS)
    outliers = [v["summary"]["cycles_per_pair"]["outliers"] for v in doc["variants"]]
    assert [analysis.run_row(r["storm"], experiment="compare", variant=r["label"],
                             repeat=r["repeat"], run=i + 1,
                             context=dict(doc["context"], tunables=r["tunables"],
                                          warmup=r["warmup"],
                                          outlier=r["repeat"] in outliers[r["variant"]]))
            for i, r in enumerate(runs)] == rows
    assert float(rows[0]["cycles_per_pair"]) == pytest.approx(
        runs[0]["storm"]["figures"]["cycles_per_pair"], rel=1e-5)
    assert int(rows[0]["stat_alloc_fastpath"]) == \
        runs[0]["storm"]["result"]["stats"]["alloc_fastpath"]


@cli_surface
def test_compare_text_table(cache):
    out = slabctl("compare", "remote", "-c", cache, "--ops", "1000", "--repeat", "2",
                  "--threads", "2").stdout
    assert "[1/6] slablab (warm-up 1/1, discarded):" in out
    assert "[3/6] slablab (repeat 1/2):" in out and "[6/6] native (repeat 2/2):" in out
    assert "warm-up: 1 round(s) first, 2 run(s) discarded" in out
    assert "ops/s (higher is better)" in out
    assert "min    median       avg       max        sd   ratio" in out
    assert "paired ratio to slablab, per repeat" in out
    assert "settings:" in out and "init_on_alloc=" in out


def test_compare_set_variants_are_restored(client, cache):
    slabctl("set", cache, "cpu_partial=50", "min_partial=4")
    doc = js("compare", "batch", "-c", cache, "--ops", "512", "--repeat", "1", "--warmup", "0",
             "--set", "cpu_partial=0", "--set", "cpu_partial=120,debug=1",
             "--threads", "1,2")
    labels = [v["label"] for v in doc["variants"]]
    assert labels == ["slablab cpu_partial=0 threads=1", "slablab cpu_partial=0 threads=2",
                      "slablab cpu_partial=120,debug=1 threads=1",
                      "slablab cpu_partial=120,debug=1 threads=2"]
    assert doc["figures"] == ["cycles_per_alloc", "cycles_per_free"]
    flags = [set(r["storm"]["result"]["cache_flags"]) for r in doc["runs"]]
    assert "debug" not in flags[0] and "debug" in flags[2]
    assert [r["storm"]["spec"]["threads"] for r in doc["runs"]] == [1, 2, 1, 2]
    c = client.cache_get(cache)
    assert (c["cpu_partial"], c["min_partial"]) == (50, 4) and "debug" not in c["flags"]
    assert dbg(cache, "cpu_partial") == "50"


def test_compare_designs_beside_native(client, cache, tmp_path):
    """--set design=...: one cache as each design in turn and the kernel's SLUB, in one
    interleaved run; each run's design is the one its variant asked for, and the cache
    is slub again afterwards."""
    out = tmp_path / "designs.csv"
    doc = js("compare", "pair", "-c", cache, "--ops", "1000", "--repeat", "3", "--warmup", "0",
             "--set", "design=sheaves", "--set", "design=slub", "--csv", str(out))
    assert [v["label"] for v in doc["variants"]] == \
        ["slablab design=sheaves", "slablab design=slub", "native"]
    runs = doc["runs"]
    assert [r["design"] for r in runs] == ["sheaves", "slub", "slub"] * 3
    assert doc["context"]["design"] == "slub"         # the cache's design at the start
    stats = [r["storm"]["result"]["stats"] for r in runs]
    assert all(stats[i]["sheaf_refill"] > 0 for i in (0, 3, 6))     # sheaves ran
    assert all(stats[i]["sheaf_refill"] == 0 for i in (1, 4, 7))
    assert doc["variants"][2]["summary"]["cycles_per_pair"]["ci"]["n"] == 3
    rows = list(csv.DictReader(out.open()))
    assert [x["design"] for x in rows[:2]] == ["sheaves", "slub"]
    assert "design=1" in rows[0]["tunables"] and "design=0" in rows[1]["tunables"]
    assert client.cache_get(cache)["design"] == "slub"


def test_compare_until_aa_warmup_and_rerun_columns(client, cache, tmp_path):
    """--aa --until on a short storm: warm-up runs first (shown, not counted), rounds
    until the CI is narrow or --max-repeats, and every CSV row says where it ran. The
    A/A ratio's CI holds 1 where the figures are deterministic (VM_ICOUNT: asserted
    here then). Under normal TCG a 95% interval misses 1 one run in twenty (and TCG's
    timings are not the interval's log-normal ideal: tests/host/test_coverage.py), so
    there the test asserts only that the ratio lies in its interval."""
    out = tmp_path / "aa.csv"
    r = slabctl("compare", "pair", "-c", cache, "--ops", "2000", "--threads", "1",
                "--cpus", "0", "--aa", "--repeat", "3", "--until", "±50%",
                "--max-repeats", "6", "--csv", str(out))
    # the --until progress line goes to stderr, after each round from the third repeat
    assert re.search(r"until ±50%: [3-6] repeats of at most 6, widest 95% CI ±", r.stderr), \
        r.stderr
    assert "A/A noise floor ±" in r.stdout and "warm-up 1/1, discarded" in r.stdout
    doc = js("compare", "pair", "-c", cache, "--ops", "2000", "--threads", "1", "--cpus", "0",
             "--aa", "--repeat", "3", "--until", "0.0001", "--max-repeats", "4")
    assert [v["label"] for v in doc["variants"]] == ["slablab", "slablab (A')"]
    runs = doc["runs"]
    assert [(x["repeat"], x["warmup"], x["counted"]) for x in runs[:2]] == \
        [(1, True, False), (1, True, False)]
    # ±0.01% is out of reach: stops at --max-repeats, not met
    assert doc["repeats_done"] == 4 and not doc["until_met"] and len(runs) == 2 + 2 * 4
    s = doc["variants"][1]["summary"]["cycles_per_pair"]
    assert s["n"] == 4 and s["ci"]["n"] == 4
    assert s["ci"]["lo"] <= s["ci"]["ratio"] <= s["ci"]["hi"]
    if os.environ.get("SLABLAB_VM_ICOUNT"):
        assert s["ci"]["lo"] <= 1.0 <= s["ci"]["hi"], s["ci"]
    assert doc["context"]["kernel_release"] == client.status()["kernel_release"]
    assert doc["context"]["slablab_commit"] == slablab.analysis.BUILD_COMMIT
    rows = list(csv.DictReader(out.open()))
    assert rows[0]["warmup"] == "1" and rows[2]["warmup"] == "0"
    assert {x["vm_cpus"] for x in rows} == {str(client.status()["nr_online_cpus"])}
    assert all(int(x["vm_memory_mb"]) > 0 and x["design"] == "slub" for x in rows)
    assert all("cpu_partial=" in x["tunables"] for x in rows)


@cli_surface
def test_compare_kmalloc_targets():
    doc = js("compare", "pair", "--target", "kmalloc", "--target", "native-kmalloc",
             "--size", "128", "--ops", "500", "--repeat", "1", "--figure", "ns_per_op")
    assert [v["target"] for v in doc["variants"]] == ["kmalloc", "native-kmalloc"]
    assert all(r["storm"]["spec"]["size"] == 128 for r in doc["runs"])
    assert doc["variants"][1]["summary"]["ns_per_op"]["n"] == 1


def test_compare_ctrl_c_restores_settings(client, cache):
    def applied():
        assert client.cache_get(cache)["cpu_partial"] == 0

    p, out, err = interrupt(client, cache, "compare", "pair", "-c", cache, "--duration", "120s",
                            "--set", "cpu_partial=0", "--repeat", "2", "--threads", "1",
                            "--cpus", "1", while_running=applied)
    assert "(interrupted)" in out
    assert client.cache_get(cache)["cpu_partial"] == 120
    assert client.storm_get()["state"] == "stopped"


# ----------------------------------------------------------------------- watch

@cli_surface
def test_watch_plain_and_json(client, cache):
    h = client.obj_alloc(cache, 100)
    out = slabctl("watch", cache, "--count", "2", "--interval", "0.2").stdout
    blocks = [b for b in out.split("\n\n") if b.strip()]
    assert len(blocks) == 2 and "\033" not in out
    for b in blocks:
        lines = b.splitlines()
        assert lines[0].startswith("slabctl watch")
        assert lines[1].split()[:2] == ["Name", "Objects"] and lines[1].endswith("Free/s")
        assert lines[2].split()[:2] == [cache, "100"]
    assert blocks[0].splitlines()[2].split()[-2:] == ["-", "-"]
    assert blocks[1].splitlines()[2].split()[-2:] == ["0", "0"]
    r = slabctl("watch", cache, "--count", "2", "--interval", "0.2", "--json")
    docs = json_schemas.check_output(r.stdout, "watch")      # a document a line
    assert [d["sample"] for d in docs] == [0, 1]
    assert docs[0]["command"] == "watch" and docs[0]["seconds"] is None
    [c0], [c1] = docs[0]["caches"], docs[1]["caches"]
    assert c0["objects"] == 100 and c0["alloc_per_sec"] is None
    assert c1["alloc_per_sec"] == 0 and docs[1]["seconds"] > 0.1
    assert c1["alloc"] == client.cache_get(cache)["stats"]["alloc_fastpath"] + \
        client.cache_get(cache)["stats"]["alloc_slowpath"]
    client.obj_free(h)


def test_watch_shows_a_running_storm(client, cache):
    s = client.storm_start("slablab", "pair", cache=cache, duration_ms=120000,
                           threads=1, cpus="1")
    try:
        out = slabctl("watch", cache, "--count", "2", "--interval", "0.3").stdout
        assert f"storm {s['id']} running: slablab pair on {cache}" in out
        rate = out.split("\n\n")[-1].splitlines()[2].split()[-2]
        assert rate not in ("-", "0")                     # allocations per second
    finally:
        client.storm_stop()


# ------------------------------------------------------------- Python's storms

def test_python_storm(client, cache):
    seen: List[Storm] = []
    r = client.storm("slablab", "pair", cache=cache, ops=1000, threads=2, cpus=[0, 1],
                     progress=seen.append, poll_interval=0.05)
    assert r["state"] == "done" and r["spec"]["cpus"] == "0-1"
    assert seen[0]["state"] == "running" and seen[-1] == r
    assert r["figures"]["cycles_per_pair"] > 0
    assert r == client.storm_get(r["id"])
    with pytest.raises(slablab.NotFound):
        client.storm_get(r["id"] + 1000)
    with pytest.raises(slablab.InvalidArgument):
        client.storm("slablab", "pair")                   # no cache: host check
    with pytest.raises(slablab.InvalidArgument):
        client.storm("slablab", "zigzag", cache=cache)
    with pytest.raises(TypeError):
        client.storm("kmalloc", "pair", sizes=3.5)


def test_python_storm_start_get_stop(client, cache):
    s = client.storm_start("native", "pair", cache=cache, duration_ms=120000,
                           threads=1, cpus="1")
    try:
        assert s["state"] == "running" and s["result"] is None
        assert s["figures"]["cycles_per_pair"] is None
        with pytest.raises(slablab.Busy):
            client.storm_start("slablab", "pair", cache=cache, ops=10)
        assert client.storm_get()["id"] == s["id"]
    finally:
        stopped = client.storm_stop(s["id"])
    assert stopped["state"] == "stopped" and stopped["result"] is not None
    assert stopped["result"]["allocs"] == stopped["progress"]["ops_done"]
    assert client.storm_stop()["state"] == "stopped"      # stopping again is harmless


def test_python_keyboard_interrupt_stops_the_storm(client, cache):
    assert storm_state(client) != "running"
    timers: List[threading.Timer] = []

    def arm(storm):
        # Ctrl-C 0.3 s after the storm started, while storm() waits for it
        if not timers:
            timers.append(threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)))
            timers[0].start()

    t0 = time.time()
    try:
        with pytest.raises(KeyboardInterrupt):
            client.storm("slablab", "pair", cache=cache, duration_ms=120000, threads=1, cpus="1",
                         progress=arm)
    finally:
        for t in timers:
            t.cancel()
    assert time.time() - t0 < 60
    s = client.storm_get()
    assert s["state"] == "stopped" and s["progress"]["ops_done"] > 0
    # an exception in the progress callback stops it too

    def boom(_):
        raise ValueError("enough")
    with pytest.raises(ValueError, match="enough"):
        client.storm("slablab", "pair", cache=cache, duration_ms=120000, threads=1, cpus="1",
                     progress=boom)
    assert client.storm_get()["state"] in ("stopped", "done")


def test_python_compare(client, cache):
    calls: List[Dict[str, Any]] = []   # the runs, as progress gets them
    res = client.compare("pair", cache=cache, sets=[{"cpu_partial": 0}, "cpu_partial=30"],
                         targets=["slablab", "native"], ops=500, repeat=2, warmup=0,
                         progress=calls.append)
    assert [v["label"] for v in res["variants"]] == \
        ["slablab cpu_partial=0", "slablab cpu_partial=30", "native"]
    assert len(res["runs"]) == 6 and not res["interrupted"]
    assert {c["label"] for c in calls} == {v["label"] for v in res["variants"]}
    assert client.cache_get(cache)["cpu_partial"] == 120
    assert res["variants"][2]["summary"]["cycles_per_pair"]["n"] == 2


# ------------------------------------------------------ -j and the JSON Schemas

def j_run(*args, status=0, user=None):
    """slabctl -j ARGS: its documents on stdout, each valid under its schema, and with a
    failing `status` the error document, valid too, as the last line of stderr."""
    r = run("-j", *args, user=user)
    assert r.returncode == status, (args, r.returncode, r.stdout, r.stderr)
    docs = json_schemas.check_output(r.stdout) if r.stdout else []
    if status == 0:
        return docs
    err = json_schemas.check(json.loads(r.stderr.splitlines()[-1]), "error")
    return docs, err["error"]


@cli_surface
def test_every_command_json_matches_its_schema(client, tmp_path):
    """The global -j, and the documents the other tests do not validate (js() checks
    version, status, create, info, set, shrink, validate, alloc, free, storm start, show
    and stop, compare and watch, storm_json() and native_doc() too): info -r, destroy,
    reset, lab show and set, record and replay, each valid under its schema
    (tool/schemas/<command>.schema.json), and the kernel's refusals as error documents
    with errno, name, op and extack. Every schema is used by this file."""
    name = f"sc{next(_names)}"
    seen: Set[str] = set()

    def ok(*args):
        docs = j_run(*args)
        seen.update(d["command"] for d in docs)
        return docs[-1]

    st = ok("version")["module"]
    assert st == client.status()
    client.cache_create(name, 96, design="sheaves")
    try:
        c = ok("info", "-r", name)["cache"]
        assert c["design"] == "sheaves" and "percpu" in c
        if os.path.isdir(SYS_SLAB):
            assert ok("info", "--native", "-r", "kmalloc-64")["cache"]["allocator"] == "slub"
        assert ok("reset", name)["cache"] == name
        # the kernel's refusal: errno, its name, the operation and the extended ack
        _, e = j_run("create", name, "--size", "64", status=1)
        assert (e["errno"], e["name"], e["op"]) == (17, "EEXIST", "CACHE_NEW")
        assert e["extack"] and e["extack"] in e["message"]
        _, e = j_run("reset", name, status=4, user=NOBODY)
        assert e["name"] in ("EPERM", "EACCES")
        _, e = j_run("info", "-r", "nosuch", status=1)
        assert e["name"] == "ENOENT" and e["op"] == "CACHE_GET"
    except BaseException:
        client.cache_destroy(name)
        raise
    assert ok("destroy", name)["cache"] == name
    assert name not in {c["name"] for c in client.cache_list()}
    lab = {k: st[k] for k in ("kmalloc_page_policy", "kmalloc_design", "kmalloc_lists")}
    assert {k: v for k, v in ok("lab", "show").items() if k in lab} == lab
    assert ok("lab", "set", f"kmalloc_page_policy={st['kmalloc_page_policy']}")[
        "kmalloc_page_policy"] == st["kmalloc_page_policy"]
    # the classes' design as it is: EBUSY while they hold objects, else a no-op
    r = run("-j", "lab", "set", f"kmalloc_design={st['kmalloc_design']}",
            f"kmalloc_lists={st['kmalloc_lists']}")
    if r.returncode == 0:
        [d] = json_schemas.check_output(r.stdout, "lab set")
        assert d["kmalloc_design"] == st["kmalloc_design"]
    else:
        err = json_schemas.check(json.loads(r.stderr.splitlines()[-1]), "error")
        assert r.returncode == 1 and err["error"]["name"] == "EBUSY", r.stderr
    # record and replay: a short recording (of a command that prints nothing: its
    # standard output is slabctl's, beside the document)
    trace = tmp_path / "tar.trace"
    rec = ok("record", "-o", str(trace), "--buffer-kb", "1024", "--", "tar", "cf", "/dev/null",
             "/etc/apt")
    assert rec["record"]["exit_status"] == 0
    assert ok("replay", str(trace), "--target", "slablab")["replay"]["failures"] == 0
    assert len(ok("replay", str(trace), "--compare", "slablab,native")["compare"]["replays"]) == 2
    assert seen == {"version", "info", "reset", "destroy", "lab show", "lab set", "record",
                    "replay"}

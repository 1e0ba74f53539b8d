# SPDX-License-Identifier: GPL-2.0
"""The slablab trace system seen by the tools mm developers use (issue 25,
docs/tracing.md): the events carry kmem's field names (the running kernel's own
kmem:kmalloc format is the oracle), and trace-cmd, perf and bpftrace count exactly the
allocations, frees, new slabs and slow paths the cache's own counters count.

The storms run through slabctl under each tool (`-- COMMAND`), one thread, on a cache
of its own; the counters are read before and after, so every event the tool saw is one
the cache counted."""
import os
import re
import subprocess

import pytest

from helpers import SLABCTL

EVENTS = "/sys/kernel/tracing/events"
SLABLAB_EVENTS = ("slablab_cache_alloc", "slablab_cache_free", "slablab_kmalloc",
                  "slablab_kfree", "slablab_slab_new", "slablab_slab_free",
                  "slablab_alloc_slow", "slablab_drain")


@pytest.fixture(autouse=True)
def _tracefs():
    if not os.path.isdir(os.path.join(EVENTS, "kmem")):
        pytest.skip("kernel without the kmem tracepoints in tracefs (CONFIG_TRACING)")


def fields(system, event):
    """The field names of an event's format, the common_* ones left out."""
    with open(os.path.join(EVENTS, system, event, "format")) as f:
        names = re.findall(r"field:.*?([A-Za-z_][A-Za-z0-9_]*)(?:\[\d*\])?;\s+offset:",
                           f.read())
    return [n for n in names if not n.startswith("common_")]


# Per-cpu ring buffer for trace-cmd (KiB): the recorder's tests may have left tracefs'
# buffer_size_kb small, and a full buffer drops events.
BUFFER_KB = "8192"


def tool(*cmd, timeout=300):
    r = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{cmd[0]} exited {r.returncode}: {r.stderr[-2000:]}"
    return r


def storm_cmd(cache, pattern, ops, target="slablab"):
    return [SLABCTL, "storm", "start", target, pattern, "-c", cache, "--ops", str(ops),
            "--threads", "1", "--cpus", "0"]


def counters(client, name):
    return client.cache_get(name, False)["stats"]


def delta(before, after, *keys):
    return {k: after[k] - before[k] for k in keys}


@pytest.mark.parametrize("design", ["slub"])
def test_every_event_is_there_with_kmems_field_names(design):
    present = sorted(os.listdir(os.path.join(EVENTS, "slablab")))
    assert set(SLABLAB_EVENTS) <= set(present), present
    kmem = fields("kmem", "kmalloc")      # call_site ptr bytes_req bytes_alloc gfp_flags node
    assert {"call_site", "ptr", "bytes_req", "bytes_alloc", "gfp_flags"} <= set(kmem), kmem
    for event in ("slablab_cache_alloc", "slablab_kmalloc"):
        got = fields("slablab", event)
        missing = [f for f in kmem if f not in got and f != "accounted"]
        assert not missing, f"{event} lacks kmem:kmalloc's {missing}: {got}"
        assert {"cache", "design"} <= set(got), got
    assert {"call_site", "ptr", "cache", "design"} <= set(fields("slablab", "slablab_kfree"))
    assert {"ns", "node", "design"} <= set(fields("slablab", "slablab_alloc_slow"))


@pytest.mark.parametrize("design", ["slub", "sheaves", "slab", "slob"])
def test_trace_cmd_sees_what_the_cache_counts(client, make_cache, design, tmp_path):
    """trace-cmd record -e slablab around a batch storm: one cache_alloc and one
    cache_free per object (ops), slab_new and slab_free as the cache's alloc_slab and
    free_slab, alloc_slow as its alloc_slowpath (but on sheaves)."""
    name = make_cache(256)
    ops = 2048
    before = counters(client, name)
    dat = str(tmp_path / "trace.dat")
    tool("trace-cmd", "record", "-q", "-b", BUFFER_KB, "-e", "slablab", "-o", dat, "--",
         *storm_cmd(name, "batch", ops))
    after = counters(client, name)
    report = tool("trace-cmd", "report", "-i", dat).stdout
    mine = [ln for ln in report.splitlines() if f"cache={name} " in ln]
    seen = {e: sum(1 for ln in mine if f" {e}: " in ln) for e in SLABLAB_EVENTS}
    d = delta(before, after, "alloc_slab", "free_slab", "alloc_slowpath")
    assert seen["slablab_cache_alloc"] == ops and seen["slablab_cache_free"] == ops, seen
    assert seen["slablab_slab_new"] == d["alloc_slab"], (seen, d)
    assert seen["slablab_slab_free"] == d["free_slab"], (seen, d)
    if design == "sheaves":
        # the sheaves count an object of a refilled main sheaf as a fast-path one (7.3
        # does): the event is every call past the inline pop, some without a slow object
        assert d["alloc_slowpath"] <= seen["slablab_alloc_slow"] <= ops, (seen, d)
        assert seen["slablab_alloc_slow"] > 0, seen
    else:
        assert seen["slablab_alloc_slow"] == d["alloc_slowpath"] > 0, (seen, d)
    assert all(f"design={design}" in ln for ln in mine), mine[:3]


@pytest.mark.parametrize("design", ["slub"])
def test_perf_counts_the_pairs(client, make_cache):
    """perf stat -a (the storm's threads are kthreads, not the command perf runs)."""
    name = make_cache(192)
    ops = 5000
    r = tool("perf", "stat", "-a", "-x", ",", "-e", "slablab:slablab_cache_alloc",
             "-e", "slablab:slablab_cache_free", "--", *storm_cmd(name, "pair", ops))
    counts = {}
    for line in r.stderr.splitlines():
        cols = line.split(",")
        if len(cols) > 2 and cols[2].startswith("slablab:"):
            counts[cols[2]] = int(cols[0])
    # every slablab cache counts (perf counts the system): the storm's cache is alone
    assert counts == {"slablab:slablab_cache_alloc": ops, "slablab:slablab_cache_free": ops}, \
        r.stderr


@pytest.mark.parametrize("design", ["slub"])
def test_kmalloc_events_name_the_class_and_its_slot(client, design, tmp_path):
    """A kmalloc storm of 100-byte requests: each slablab_kmalloc event asks 100 and
    gets the 128-byte class's slot (the class's own stride), each slablab_kfree the
    same class."""
    slot = next(c["obj_stride"] for c in client.cache_list() if c["name"] == "kmalloc-128")
    dat = str(tmp_path / "kmalloc.dat")
    tool("trace-cmd", "record", "-q", "-b", BUFFER_KB, "-e", "slablab:slablab_kmalloc",
         "-e", "slablab:slablab_kfree", "-o", dat, "--",
         SLABCTL, "storm", "start", "kmalloc", "pair", "--size", "100", "--ops", "500",
         "--threads", "1")
    report = tool("trace-cmd", "report", "-i", dat).stdout.splitlines()
    allocs = [ln for ln in report if " slablab_kmalloc: " in ln]
    frees = [ln for ln in report if " slablab_kfree: " in ln]
    assert len(allocs) == 500 and len(frees) == 500, (len(allocs), len(frees))
    assert all(f"bytes_req=100 bytes_alloc={slot} " in ln and "cache=kmalloc-128" in ln
               for ln in allocs), allocs[:2]
    assert all("cache=kmalloc-128" in ln for ln in frees), frees[:2]


@pytest.mark.parametrize("design", ["slab"])
def test_bpftrace_histogram_of_slow_paths_by_design(client, make_cache):
    """docs/tracing.md's script: a histogram of slow-path latency per design. Its count
    is the cache's alloc_slowpath; a SLAB array refills every batchcount misses."""
    if not os.path.exists("/proc/sys/kernel/bpf_stats_enabled"):
        pytest.skip("kernel without the bpf() syscall (CONFIG_BPF_SYSCALL): bpftrace cannot run")
    name = make_cache(256)
    script = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "slow-paths.bt")
    before = counters(client, name)
    r = tool("bpftrace", script, "-c", " ".join(storm_cmd(name, "batch", 4096)),
             timeout=600)
    after = counters(client, name)
    slow = delta(before, after, "alloc_slowpath")["alloc_slowpath"]
    assert slow > 0
    m = re.search(r"@slow_paths\[slab\]: (\d+)", r.stdout)
    assert m and int(m.group(1)) == slow, r.stdout
    assert re.search(r"@ns\[slab\]:\s*\n\[", r.stdout), r.stdout

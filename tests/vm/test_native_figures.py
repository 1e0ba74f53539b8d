# SPDX-License-Identifier: GPL-2.0
"""The native side of storms on every allocator the kernel may have (module/target.c,
slablab_native_source()): SLUB's counters as a native storm's stats where SLUB_STATS
exports them, SLAB's /proc/slabinfo row as its pages, and on SLOB, which has no figure
of any cache, the kernel's slab pages since the storm's start.

The oracles are the kernel's own files, read while the storm runs: the native cache is
destroyed at its end. Each test needs one allocator (or SLUB_STATS) and skips, naming
what the kernel lacks, on the others: the file runs in the normal VM suite on every
kernel."""
import os
import re
import struct
import subprocess

import pytest

import slablab
from helpers import slabctl
from test_storms import wait_running

pytestmark = pytest.mark.usefixtures("no_storm_left")   # conftest.py

SYS_SLAB = "/sys/kernel/slab"
SLABINFO = "/proc/slabinfo"
PAGE = os.sysconf("SC_PAGE_SIZE")
# The counters SLUB_STATS exports (mm/slub.c's STAT_ATTR()s), all of them under the names
# slablab's counters have: each must be in a native storm's stats. 6.1's, then 7.3's
# (sheaves replaced the cpu slabs and their partial lists).
SLUB_61_STATS = ("alloc_fastpath", "alloc_slowpath", "free_fastpath", "free_slowpath",
                 "free_frozen", "free_add_partial", "free_remove_partial",
                 "alloc_from_partial", "alloc_slab", "alloc_refill", "alloc_node_mismatch",
                 "free_slab", "cpuslab_flush", "deactivate_full", "deactivate_empty",
                 "deactivate_to_head", "deactivate_to_tail", "deactivate_remote_frees",
                 "deactivate_bypass", "order_fallback", "cmpxchg_double_cpu_fail",
                 "cmpxchg_double_fail", "cpu_partial_alloc", "cpu_partial_free",
                 "cpu_partial_node", "cpu_partial_drain")
SLUB_73_STATS = ("alloc_fastpath", "alloc_slowpath", "free_rcu_sheaf", "free_rcu_sheaf_fail",
                 "free_fastpath", "free_slowpath", "free_add_partial", "free_remove_partial",
                 "alloc_slab", "alloc_node_mismatch", "free_slab", "order_fallback",
                 "cmpxchg_double_fail", "sheaf_flush", "sheaf_refill", "sheaf_alloc",
                 "sheaf_free", "barn_get", "barn_get_fail", "barn_put", "barn_put_fail",
                 "sheaf_prefill_fast", "sheaf_prefill_slow", "sheaf_prefill_oversize",
                 "sheaf_return_fast", "sheaf_return_slow")


def allocator():
    """The kernel's slab allocator, from what it exports: SLUB has /sys/kernel/slab,
    SLAB only /proc/slabinfo, SLOB neither."""
    if os.path.isdir(SYS_SLAB):
        return "slub"
    return "slab" if os.path.exists(SLABINFO) else "slob"


def slub_stats():
    """CONFIG_SLUB_STATS: every SLUB cache's directory has alloc_fastpath."""
    return allocator() == "slub" and os.path.exists(f"{SYS_SLAB}/kmalloc-64/alloc_fastpath")


needs_slub_stats = pytest.mark.skipif(
    not slub_stats(), reason="needs CONFIG_SLUB_STATS: /sys/kernel/slab/*/alloc_fastpath "
    "missing (SLUB's counters are what a native storm reports as its stats)")
needs_slab = pytest.mark.skipif(
    allocator() != "slab", reason=f"needs CONFIG_SLAB (the kernel's allocator is "
    f"{allocator()}): /proc/slabinfo without /sys/kernel/slab is the native figure")
needs_slob = pytest.mark.skipif(
    allocator() != "slob", reason=f"needs CONFIG_SLOB (the kernel's allocator is "
    f"{allocator()}): no per-cache figure, the system's slab pages are the native one")


def first_number(path):
    with open(path) as f:
        return int(f.read().split()[0])


def stat_files(name):
    """The counters of kernel cache `name` that have slablab's names: {name: total}."""
    d = f"{SYS_SLAB}/{name}"
    return {s: first_number(f"{d}/{s}") for s in slablab.STAT_NAMES
            if os.path.exists(f"{d}/{s}")}


def slabinfo_rows():
    """/proc/slabinfo: {cache: (active_objs, num_objs, pages)}, pages = num_slabs *
    pagesperslab."""
    rows = {}
    with open(SLABINFO) as f:
        for line in f:
            m = re.match(r"(\S+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+(\d+)\s+: tunables .*"
                         r": slabdata\s+\d+\s+(\d+)", line)
            if m:
                rows[m[1]] = (int(m[2]), int(m[3]), int(m[4]) * int(m[5]))
    return rows


# ------------------------------------------------------------------ SLUB_STATS

@needs_slub_stats
@pytest.mark.parametrize("pattern", ["pair", "batch", "remote", "churn"])
def test_native_storm_stats_are_the_caches_own_counters(client, ncpus, pattern):
    """A native storm's stats are SLUB's counters of its cache over the storm: every
    allocation and free the storm made is one of SLUB's (alloc_fastpath + alloc_slowpath
    = ALLOCS, plus churn's untimed fill), what the counters in the cache's sysfs
    directory rose by between two reads while it ran is never above what the storm
    reports (a delta from its start: 7.x's kmem_cache_create() already counts the cpus'
    first sheaves), and a counter SLUB has no file for is 0. The fast-path figures
    follow."""
    threads = ncpus + (ncpus % 2) if pattern == "remote" else ncpus
    kw = {"pair": dict(), "batch": dict(batch=64), "remote": dict(ring=64),
          "churn": dict(working_set=512)}[pattern]
    s = client.storm_start("native", pattern, size=96, threads=threads, duration_ms=600000,
                           **kw)
    s = wait_running(client, s["id"], tries=4000)
    name = f"slablab-native-{s['id']}"          # result (and its native_name) come at the end
    first = stat_files(name)
    s = wait_running(client, s["id"], min_ops=s["progress"]["ops_done"] + 2000, tries=4000)
    assert s["state"] == "running", s
    during = stat_files(name)
    sheaves = os.path.exists(f"{SYS_SLAB}/{name}/sheaf_capacity")        # 7.x's SLUB
    assert set(during) == set(SLUB_73_STATS if sheaves else SLUB_61_STATS), sorted(during)
    r = client.storm_stop(s["id"])
    res = r["result"]
    assert r["state"] == "stopped" and res["native_name"] == name, r
    st = res["stats"]
    assert st is not None, "SLUB_STATS: a native storm reports its cache's counters"
    fill = spec_fill(r)
    assert st["alloc_fastpath"] + st["alloc_slowpath"] == res["allocs"] + fill, (st, res)
    # everything allocated was freed by the end; FREES counts no free of the fill's objects
    assert st["free_fastpath"] + st["free_slowpath"] == res["allocs"] + fill, (st, res)
    assert res["frees"] <= res["allocs"], res
    for item, v in during.items():
        assert st[item] >= v - first[item], (item, st[item], v, first[item])
    assert during["alloc_fastpath"] > first["alloc_fastpath"], (first, during)
    for item, v in st.items():
        if item not in during:
            assert v == 0, (item, v)
    assert st["alloc_slab"] > 0, st
    f = r["figures"]
    assert f["alloc_fastpath_pct"] == pytest.approx(
        100 * st["alloc_fastpath"] / (st["alloc_fastpath"] + st["alloc_slowpath"]))
    assert f["free_fastpath_pct"] is not None
    assert not os.path.exists(f"{SYS_SLAB}/{name}")     # destroyed after the counters


def spec_fill(storm):
    """churn fills (and at the end frees) its working set outside the timed loops."""
    spec = storm["spec"]
    return spec["working_set"] * spec["threads"] if spec["pattern"] == "churn" else 0


@needs_slub_stats
def test_native_storm_stats_exact_for_an_ops_storm(client, ncpus):
    """A finished OPS storm: SLUB counted exactly the storm's operations, and slabctl
    shows the fast-path row for a native storm as for a slablab one."""
    r = client.storm("native", "pair", size=64, threads=ncpus, ops=5000)
    st = r["result"]["stats"]
    assert st["alloc_fastpath"] + st["alloc_slowpath"] == 5000 * ncpus
    assert st["free_fastpath"] + st["free_slowpath"] == 5000 * ncpus
    out = slabctl("storm", "start", "native", "pair", "--size", "64", "--ops", "1000").stdout
    assert re.search(r"fast path\s+alloc [\d.]+%, free [\d.]+%", out), out


# ------------------------------------------------------------------------- SLAB

@needs_slab
def test_native_storm_pages_are_the_slabinfo_row(client):
    """SLAB: a native storm's pages are its cache's /proc/slabinfo row, num_slabs x
    pagesperslab. One churn thread replaces objects one at a time through its cpu's
    array cache (a free, then an allocation that takes it back), so once its working
    set is full the row stays as it is until the end: what the test reads meanwhile is
    the storm's peak."""
    s = client.storm_start("native", "churn", size=256, threads=1, cpus="0",
                           working_set=3000, duration_ms=600000)
    s = wait_running(client, s["id"], tries=4000)
    assert s["state"] == "running", s
    name = f"slablab-native-{s['id']}"
    seen = [slabinfo_rows()[name] for _ in range(3)]
    r = client.storm_stop(s["id"])
    assert r["state"] == "stopped" and r["result"]["native_name"] == name
    pages = {p for _, _, p in seen}
    assert len(pages) == 1, seen
    assert r["result"]["peak_pages"] == pages.pop() > 0, (r["result"], seen)
    assert r["result"]["stats"] is None            # SLAB counts events only with DEBUG_SLAB
    assert name not in slabinfo_rows()             # destroyed at the end


@needs_slab
def test_native_kmalloc_storm_pages_are_the_kmalloc_rows(client):
    """SLAB: native kmalloc counts what the kmalloc-N rows gained. 1024 objects of 4 KiB
    (one a page) need 1024 pages, less the free objects the array caches held already
    (a few dozen per cpu and node), plus what the rest of the idle VM allocates meanwhile
    (a few pages)."""
    assert any(re.match(r"kmalloc-\d", n) for n in slabinfo_rows())
    r = client.storm("native-kmalloc", "batch", size=4096, batch=1024, ops=1024, threads=1)
    assert r["state"] == "done", r
    assert r["result"]["peak_live_bytes"] == 1024 * 4096
    assert 768 <= r["result"]["peak_pages"] <= 1024 + 64, r["result"]


# ------------------------------------------------------------------------- SLOB

@needs_slob
def test_native_storm_pages_on_slob(client):
    """SLOB: the kernel's slab pages since the start (its caches share a heap: no figure
    is a cache's own), which the module says once. 16384 objects of 256 bytes take at
    least the 1024 pages they fill, less the free space the heap already had."""
    r = client.storm("native", "churn", size=256, threads=1, working_set=16384, ops=1000)
    assert r["state"] == "done", r
    res = r["result"]
    assert res["peak_live_bytes"] == 16384 * 256
    assert res["peak_pages"] > 0, res
    assert res["peak_pages"] * PAGE >= res["peak_live_bytes"] // 2, res
    assert res["stats"] is None
    dmesg = subprocess.run(["dmesg"], capture_output=True, text=True, check=True).stdout
    assert "native targets on SLOB: pages are the kernel's slab pages, whole-system" in dmesg
    k = client.storm("native-kmalloc", "batch", size=4096, batch=256, ops=256, threads=1)
    assert k["state"] == "done" and k["result"]["peak_pages"] > 0, k["result"]


# ------------------------------------------------------- caches of their own (issue 40)

def slab_nomerge():
    """Booted with slab_nomerge (scripts/vm.sh's default), or as Debian boots, where
    SLUB merges a new cache into an alike one (CONFIG_SLAB_MERGE_DEFAULT=y)."""
    with open("/proc/cmdline") as f:
        return "slab_nomerge" in f.read().split()


needs_sysfs = pytest.mark.skipif(allocator() != "slub", reason="needs SLUB's sysfs "
                                 "(/sys/kernel/slab/<cache>): it is the oracle")


def kmalloc_512():
    """kmalloc-512's objects per slab and order, where the kernel has SLUB."""
    if allocator() != "slub":
        return 0, 0
    return (first_number(f"{SYS_SLAB}/kmalloc-512/objs_per_slab"),
            first_number(f"{SYS_SLAB}/kmalloc-512/order"))


# KASAN's slots (the debug kernel) carry its metadata, and its quarantine holds freed
# objects back from reuse
PLAIN_SLOTS = allocator() == "slub" and first_number(f"{SYS_SLAB}/kmalloc-64/slab_size") == 64
TWIN_N = 100
TWIN_PER, TWIN_ORDER = kmalloc_512()
# counted by hand on 6.x SLUB with plain slots: 7.x's sheaves take objects a sheaf at a
# time, and KASAN's metadata (the debug kernel) makes the slots others than kmalloc's
TWIN_BY_HAND = (allocator() == "slub" and TWIN_PER and TWIN_N % TWIN_PER and
                -(-2 * TWIN_N // TWIN_PER) < 2 * -(-TWIN_N // TWIN_PER) and
                not os.path.exists(f"{SYS_SLAB}/kmalloc-512/sheaf_capacity") and PLAIN_SLOTS)


@needs_sysfs
@pytest.mark.parametrize("size", [64, 192])
def test_native_storm_cache_is_its_own(client, size):
    """A native storm's kmem_cache is never merged with another: on a kernel booted
    without slab_nomerge (make test runs this file so too: docs/testing.md) SLUB would
    make a plain cache of 64 or 192 bytes an alias of a shared one, whose sysfs entry
    is a link to a directory like :0000192 with every merged cache's slabs in its
    figures. Its entry is a directory of its own, nothing is merged into it (aliases 0),
    and it holds what the storm allocated: one thread's churn of WS objects on one cpu,
    whose fill takes ceil(WS / objs_per_slab) slabs and whose replacements need a new
    slab only when every slab is full (7.x's sheaves hold up to 12 sheaves more; KASAN's
    quarantine holds freed objects back, so there the slabs only grow)."""
    ws = 2048
    s = client.storm_start("native", "churn", size=size, threads=1, cpus="0",
                           working_set=ws, duration_ms=600000)
    s = wait_running(client, s["id"], tries=4000)
    name = f"slablab-native-{s['id']}"
    d = f"{SYS_SLAB}/{name}"
    try:
        assert s["state"] == "running", s
        assert not os.path.islink(d), (f"{d} -> {os.readlink(d)} (merged; slab_nomerge "
                                       f"{'on' if slab_nomerge() else 'off'})")
        assert os.path.isdir(d)
        assert first_number(f"{d}/aliases") == 0
        per, order = first_number(f"{d}/objs_per_slab"), first_number(f"{d}/order")
        objects, slabs = first_number(f"{d}/objects"), first_number(f"{d}/slabs")
        cap = first_number(f"{d}/sheaf_capacity") if os.path.exists(
            f"{d}/sheaf_capacity") else 0
    finally:
        r = client.storm_stop(s["id"])
    assert r["state"] == "stopped" and r["result"]["native_name"] == name, r
    assert r["result"]["failures"] == 0, r["result"]
    least, most = -(-(ws - 1) // per), -(-(ws + 12 * cap) // per) + 1
    assert ws - 1 <= objects <= slabs * per, (objects, slabs, per)
    assert least <= slabs and least << order <= r["result"]["peak_pages"], (slabs, r["result"])
    if PLAIN_SLOTS:     # KASAN (the debug kernel) quarantines the frees: slabs grow
        assert slabs <= most, (slabs, least, most)
        assert r["result"]["peak_pages"] <= most << order, r["result"]
    assert not os.path.exists(d)


def write_twin_trace(path, n):
    """Two caches alike (512 bytes aligned to 8), N objects allocated from each on one
    cpu and live at the end (docs/replay.md's format, version 1)."""
    events = b"".join(struct.pack("<QIIIIHHB3x", i * 1000, i + 1, 512, 512, 0xcc0, 0,
                                  1 + i % 2, 1) for i in range(2 * n))
    head = b"SLABTRC\0" + struct.pack("<IIIIQQQQQQQ", 1, 80, 1, 2, 2 * n, 2 * n, 0, 0,
                                      2 * n, 2 * n * 512, 2 * n * 1000)
    caches = b"".join(struct.pack("<IIH", 512, 8, len(nm)) + nm for nm in (b"a512", b"b512"))
    path.write_bytes(head + caches + events)


@needs_sysfs
@pytest.mark.exclude_if(not TWIN_BY_HAND, reason="no count by hand: 7.x's sheaves, "
                        "KASAN's slots, or a slab size that 2 x 100 objects fill alike")
def test_native_replay_caches_are_their_own(client, tmp_path):
    """A native replay's caches are never merged, with each other nor with the kernel's:
    two caches alike, 100 objects of 512 bytes in each, hold two caches' slabs,
    2 * ceil(100 / objs_per_slab), where one cache merged into the other (or both into a
    kernel cache) would hold fewer: ceil(200 / objs_per_slab), or the shared one's. The
    geometry is kmalloc-512's (the same size; its alignment moves no slot)."""
    n, per, order = TWIN_N, TWIN_PER, TWIN_ORDER
    path = tmp_path / "twin.trace"
    write_twin_trace(path, n)
    r = client.replay(path, "native")
    assert r["state_name"] == "done" and r["failures"] == 0, r
    assert r["allocs"] == r["live_at_end"] == 2 * n, r
    assert r["peak_pages"] == (2 * -(-n // per)) << order, (r["peak_pages"], per, order)


# ---------------------------------------------------------------- the order policy

@pytest.mark.skipif(allocator() != "slub", reason="needs SLUB: /sys/kernel/slab/<cache>/order "
                    "is the oracle")
@pytest.mark.parametrize("size", [4096, 10928, 11000, 12280, 12288])
def test_order_policy_is_the_running_slubs(client, size):
    """A kernel cache of the size (a native storm's, alive while it runs) has the order
    slablab's order policy gives a design that models this kernel's SLUB: the slub
    design 6.1's calculate_order(), the sheaves design 6.8's and later (7.x). Sizes 10928
    to 12280 are where the two differ (order 2 under 6.1's rules, 3 under 6.8's:
    tests/policy/test_policy.c), 4096 and 12288 where they agree."""
    sheaves_kernel = os.path.exists(f"{SYS_SLAB}/kmalloc-64/sheaf_capacity")   # 7.x's SLUB
    release = tuple(int(x) for x in re.findall(r"\d+", os.uname().release)[:2])
    if not sheaves_kernel and release >= (6, 8):
        pytest.skip(f"Linux {os.uname().release}: 6.8's calculate_order() without sheaves, "
                    "which no design models (slub: 6.1's, sheaves: 7.x's)")
    design = "sheaves" if sheaves_kernel else "slub"
    s = client.storm_start("native", "pair", size=size, threads=1, cpus="0",
                           duration_ms=600000)
    s = wait_running(client, s["id"], tries=4000)
    assert s["state"] == "running", s
    name = f"slablab-native-{s['id']}"
    try:
        kernel_order = first_number(f"{SYS_SLAB}/{name}/order")
        slot = first_number(f"{SYS_SLAB}/{name}/slab_size")
    finally:
        client.storm_stop(s["id"])
    ours = client.cache_create(f"order-{size}", slot, design=design, hardened=False)
    try:
        assert int(ours["obj_stride"]) == slot, (ours, slot)
        assert ours["order"] == kernel_order, (design, size, slot, ours["order"], kernel_order)
    finally:
        client.cache_destroy(f"order-{size}")

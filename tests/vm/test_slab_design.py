# SPDX-License-Identifier: GPL-2.0
"""What is particular to the slab design (SLAB's array caches, shared arrays and node
lists, after mm/slab.c of 6.1): enable_cpucache()'s defaults, SLAB's rules for limit,
batchcount and shared, the counters of an array's hits and misses, one list or three,
reaping with time, and /proc/slabinfo 2.1 lines. The cache suite at large runs for slab
(lists 3 and 1) through helpers.DESIGN_VARIANTS."""
import errno
import os
import re
import threading
import time
from typing import Literal, Tuple

import pytest
import slablab

from helpers import DEBUGFS, consistent, dbg, dbg_write, reload, slabctl

pytestmark = pytest.mark.parametrize("design", ["slab"])


def cached(c):
    ly = c["layers"]
    return ly["array"] + ly["shared"] + ly["alien"]


def poll(what, cond, timeout=60.0):
    """what() until cond(value) holds; the last value. Fails at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        v = what()
        if cond(v):
            return v
        assert time.monotonic() < deadline, f"still {v!r} after {timeout} s"
        time.sleep(0.05)


@pytest.mark.parametrize("size,limit", [(64, 120), (512, 54), (2048, 24), (8192, 8)])
def test_defaults_are_enable_cpucache(client, make_cache, size, limit, ncpus):
    """limit by slot size, batchcount (limit + 1) / 2, shared 8 up to a page with more
    than one cpu; three lists; reaps every 2 s and 4 s."""
    c = client.cache_get(make_cache(size))
    assert (c["limit"], c["batchcount"]) == (limit, (limit + 1) // 2)
    assert c["shared"] == (8 if size <= 4096 and ncpus > 1 else 0)
    assert c["lists"] == 3 and c["reap_cpu_ms"] == 2000 and c["reap_node_ms"] == 4000


@pytest.mark.parametrize("bad,msg", [
    ({"limit": 0}, "need limit >= 1"),
    ({"batchcount": 0}, "1 <= batchcount <= limit"),
    ({"limit": 10, "batchcount": 11}, "batchcount <= limit"),
    ({"batchcount": 121}, "batchcount <= limit"),
])
def test_slab_rules_are_judged_by_the_kernel(client, make_cache, bad, msg):
    name = make_cache(64)
    before = client.cache_get(name)
    with pytest.raises(slablab.Error) as e:
        client.cache_set(name, **bad)
    assert e.value.errno == errno.EINVAL and msg in str(e.value), e.value
    after = client.cache_get(name)
    assert [after[k] for k in ("limit", "batchcount", "shared")] == \
        [before[k] for k in ("limit", "batchcount", "shared")]
    r = slabctl("set", name, *(f"{k}={v}" for k, v in bad.items()), check=False)
    assert r.returncode != 0 and msg in r.stderr, r.stderr


def test_limit_and_batchcount_change_together(client, make_cache):
    """limit=10 batchcount=5 from 120/60 is legal as a whole, though limit=10 alone
    would break batchcount <= limit: one request is judged as SLAB's slabinfo write."""
    name = make_cache(64)
    h = client.obj_alloc(name, 300, cpu=0)
    client.obj_free(h, cpu=0, count=200)
    slabctl("set", name, "limit=10", "batchcount=5", "shared=2")
    c = consistent(client, name)
    assert (c["limit"], c["batchcount"], c["shared"]) == (10, 5, 2)
    # the arrays were replaced: the old one's objects went back to their slabs
    assert c["layers"]["array"] <= 10 and c["layers"]["shared"] <= 10, c["layers"]
    client.obj_free(h, cpu=0)
    c = consistent(client, name)
    assert c["layers"]["array"] <= 10 and c["layers"]["shared"] <= 10, c["layers"]


def test_lists_is_slab_and_slobs_tunable(client, make_cache):
    name = make_cache(64)
    with pytest.raises(slablab.Error) as e:
        client.cache_set(name, lists=2)
    assert "slab takes 1 or 3" in str(e.value)
    other = make_cache(64, design="slub")
    with pytest.raises(slablab.Error) as e:
        client.cache_set(other, lists=1)
    assert "tunable of the slab and slob designs" in str(e.value)


@pytest.mark.parametrize("lists", [1, 3])
def test_array_hits_and_misses(client, make_cache, lists):
    """limit 20, batchcount 10, no shared array: 40 allocations on a cpu miss 4 times
    (each refill brings 10), 40 frees hit 20 times, then every 10th misses and sends
    the 10 oldest back to the slabs; the array keeps 20."""
    name = make_cache(64, limit=20, batchcount=10, shared=0, lists=lists, reap_cpu_ms=0,
                      reap_node_ms=0)
    h = client.obj_alloc(name, 40, cpu=0)
    st = client.cache_get(name)["stats"]
    assert (st["allochit"], st["allocmiss"], st["listallocs"]) == (36, 4, 40), st
    assert st["alloc_fastpath"] == 36 and st["alloc_slowpath"] == 4, st
    assert st["grown"] == st["alloc_slab"] == 1 and st["maxobjs"] == 40, st
    client.obj_free(h, cpu=0)
    c = consistent(client, name)
    st, ly = c["stats"], c["layers"]
    assert (st["freehit"], st["freemiss"]) == (38, 2), st
    assert st["free_fastpath"] == 38 and st["free_slowpath"] == 2, st
    assert ly["array"] == 20 and ly["shared"] == 0, ly
    assert ly["callers"] + cached(c) + ly["slabs_free"] == ly["total"], ly
    assert c["percpu"][0]["cpu_slab_objects"] == 20
    assert client.cache_validate(name)["errors"] == 0


@pytest.mark.parametrize("lists", [1, 3])
def test_overflow_goes_to_the_shared_array(client, make_cache, lists):
    """With a shared array (shared x batchcount) a full array's oldest batch goes there,
    and the next cpu's refill takes it from there rather than from the slabs."""
    name = make_cache(64, limit=20, batchcount=10, shared=2, lists=lists, reap_cpu_ms=0,
                      reap_node_ms=0)
    h = client.obj_alloc(name, 40, cpu=0)
    client.obj_free(h, cpu=0)
    ly = consistent(client, name)["layers"]
    assert (ly["array"], ly["shared"]) == (20, 20), ly
    before = client.cache_get(name)["stats"]["listallocs"]
    h = client.obj_alloc(name, 10, cpu=1)
    c = consistent(client, name)
    assert c["stats"]["listallocs"] == before, c["stats"]   # from shared, no slab
    assert c["layers"]["shared"] == 10, c["layers"]
    client.obj_free(h, cpu=1)


@pytest.mark.parametrize("lists", [1, 3])
def test_lists_switch_live_and_validate(client, make_cache, lists):
    """The slabs move between one list and three while objects are live; validate
    checks the lists (counts, states, 2.4.9's order around firstnotfull)."""
    name = make_cache(256, lists=lists)
    objs = client.cache_get(name)["objs_per_slab"]
    hs = [client.obj_alloc(name, objs * 3 + 7, cpu=i % 2) for i in range(4)]
    client.obj_free(hs[1], cpu=0, count=objs * 2)
    client.obj_free(hs[3], cpu=1)
    for new in (4 - lists, lists):
        client.cache_set(name, lists=new)
        assert client.cache_get(name)["lists"] == new
        assert client.cache_validate(name)["errors"] == 0
    for h in (hs[0], hs[1], hs[2]):
        client.obj_free(h, cpu=1)
    g = consistent(client, name)["gauges"]
    assert g["objects"] == 0
    client.cache_shrink(name)
    g = consistent(client, name)["gauges"]
    assert g["slabs"] == 0 and g["free_slabs"] == 0


def test_untouched_arrays_are_reaped(client, make_cache):
    """Every reap_cpu_ms an array untouched since the last reap gives back
    (limit + 4) / 5 objects (half of what it has, when fewer): 20, 16, 12, 8, 4, 0 for
    limit 20. The first reap after the traffic only clears `touched`."""
    name = make_cache(64, limit=20, batchcount=10, shared=0, reap_cpu_ms=0, reap_node_ms=0)
    h = client.obj_alloc(name, 40, cpu=0)
    client.obj_free(h, cpu=0)
    assert client.cache_get(name)["layers"]["array"] == 20
    client.cache_set(name, reap_cpu_ms=200)
    start = time.monotonic()
    seen = set()

    def array():
        n = client.cache_get(name)["layers"]["array"]
        seen.add(n)
        return n

    poll(array, lambda n: n == 0)
    # the last step alone needs 6 periods: never faster than the periods allow
    assert time.monotonic() - start >= 5 * 0.2
    assert seen <= {20, 16, 12, 8, 4, 0}, seen
    c = consistent(client, name)
    assert c["layers"]["slabs_free"] == c["layers"]["total"]


def test_free_slabs_are_reaped_by_the_node(client, make_cache):
    """Every reap_node_ms the node gives back (free_limit + 5 num - 1) / (5 num) free
    slabs (one here), unless it took a slab off the free slabs since the last reap;
    the arrays stay: their reap is off."""
    name = make_cache(64, shared=0, reap_cpu_ms=0, reap_node_ms=0)
    h = client.obj_alloc(name, 300, cpu=0)
    client.obj_free(h, cpu=0)
    c = client.cache_get(name)
    free_slabs, array = c["gauges"]["free_slabs"], c["layers"]["array"]
    assert free_slabs >= 1 and array > 0, c
    client.cache_set(name, reap_node_ms=200)
    poll(lambda: client.cache_get(name)["gauges"]["free_slabs"], lambda n: n == 0)
    c = consistent(client, name)
    assert c["stats"]["reaped"] == free_slabs and c["layers"]["array"] == array, c


def test_reap_off_leaves_the_arrays(client, make_cache):
    name = make_cache(64, limit=20, batchcount=10, shared=0, reap_cpu_ms=0, reap_node_ms=0)
    h = client.obj_alloc(name, 40, cpu=0)
    client.obj_free(h, cpu=0)
    client.cache_set(name, reap_node_ms=100)    # the work runs, the arrays' reap is off
    stop = time.monotonic() + 1.0
    while time.monotonic() < stop:
        assert client.cache_get(name)["layers"]["array"] == 20
        time.sleep(0.1)


def test_tunables_in_debugfs(make_cache):
    name = make_cache(64, limit=30, batchcount=7)
    assert (dbg(name, "limit"), dbg(name, "batchcount"), dbg(name, "lists")) == ("30", "7", "3")


def test_slabinfo_lines(client, make_cache):
    """slabctl info --slabinfo prints /proc/slabinfo 2.1 lines for slablab caches."""
    name = make_cache(64, limit=30, batchcount=7, shared=3)
    h = client.obj_alloc(name, 100, cpu=0)
    out = slabctl("info", "--slabinfo").stdout
    assert out.startswith("slabinfo - version: 2.1\n"), out
    line = next(ln for ln in out.splitlines() if ln.split()[:1] == [name])
    m = re.fullmatch(r"(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+) : tunables\s+(\d+)\s+(\d+)"
                     r"\s+(\d+) : slabdata\s+(\d+)\s+(\d+)\s+(\d+)", line)
    assert m, line
    c = client.cache_get(name)
    active, num, objsize, perslab, pages, limit, batch, shared, aslabs, nslabs, savail = \
        map(int, m.groups()[1:])
    assert (limit, batch, shared) == (30, 7, 3)
    assert num == c["gauges"]["total_objects"] and perslab == c["objs_per_slab"]
    assert active == num - c["layers"]["slabs_free"] and objsize == c["obj_stride"]
    assert pages == 1 << c["order"] and nslabs == c["gauges"]["slabs"]
    assert aslabs == nslabs - c["gauges"]["free_slabs"] and savail == c["layers"]["shared"]
    client.obj_free(h, cpu=0)


def test_design_and_lists_in_one_request(client, make_cache):
    """design=slab with lists=1 in one request: the design is applied before lists, so
    the kernel does not refuse lists as another design's."""
    name = make_cache(256, design="slub")
    client.cache_set(name, design="slab", lists=1, limit=16, batchcount=8)
    c = client.cache_get(name)
    assert (c["design"], c["lists"], c["limit"], c["batchcount"]) == ("slab", 1, 16, 8), c
    h = client.obj_alloc(name, 100, cpu=0)
    assert client.cache_validate(name)["errors"] == 0
    client.obj_free(h, cpu=0)
    consistent(client, name)


def test_largest_arrays_and_back(client, make_cache):
    """limit 4096, batchcount 4096 and shared 64: a shared array of 256 Ki pointers
    (2 MiB, beyond what kmalloc should be asked for) on every node; objects move
    through it, and back to SLAB's defaults nothing is lost."""
    name = make_cache(64, reap_cpu_ms=0, reap_node_ms=0)
    client.cache_set(name, limit=4096, batchcount=4096, shared=64)
    c = client.cache_get(name)
    assert (c["limit"], c["batchcount"], c["shared"]) == (4096, 4096, 64), c
    h = client.obj_alloc(name, 5000, cpu=0)
    left = consistent(client, name)["layers"]["array"]     # the last refill's rest
    client.obj_free(h, cpu=0)
    c = consistent(client, name)
    # every free cached: the array filled, its oldest 4096 went to the shared array
    assert c["layers"]["array"] + c["layers"]["shared"] == 5000 + left, c["layers"]
    assert c["layers"]["shared"] == 4096 and c["stats"]["freemiss"] == 1, c
    client.cache_set(name, limit=120, batchcount=60, shared=8)
    c = consistent(client, name)
    assert c["layers"]["array"] + c["layers"]["shared"] == 0, c["layers"]
    assert client.cache_validate(name)["errors"] == 0


@pytest.mark.parametrize("bad", [{"limit": 4097}, {"shared": 65}, {"batchcount": 121}])
def test_refused_request_changes_nothing(make_cache, bad):
    """A request whose cpucache values the kernel refuses (beyond the spec's range, or
    batchcount > limit) changes nothing, not even the lists it also asked for."""
    raw = slablab.Client(host_checks=False)     # the kernel judges, not the bindings
    name = make_cache(64)
    before = raw.cache_get(name)
    with pytest.raises(slablab.Error) as e:
        raw.cache_set(name, lists=1, **bad)
    assert e.value.errno in (errno.ERANGE, errno.EINVAL), e.value
    after = raw.cache_get(name)
    cpucache: Tuple[Literal["lists", "limit", "batchcount", "shared"], ...] = (
        "lists", "limit", "batchcount", "shared")
    assert [after[k] for k in cpucache] == [before[k] for k in cpucache]


def test_design_changes_while_debugfs_reads_gauges(client, make_cache):
    """slab -> slub -> slab ... while another thread reads the cache's gauges through
    debugfs, which takes no lock: a design change frees the slab design's nodes, which
    the gauges read (they are unpublished and freed after a grace period)."""
    name = make_cache(128)
    stop = threading.Event()
    reads, errors = [0], []

    def reader():
        try:
            while not stop.is_set():
                for attr in ("partial", "objects", "slabs"):
                    dbg(name, attr)
                reads[0] += 1
        except OSError as e:        # pragma: no cover - a failure is the point
            errors.append(e)

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    try:
        for i in range(40):
            client.cache_set(name, design="slub" if i % 2 == 0 else "slab")
    finally:
        stop.set()
        t.join(timeout=60)
    assert not errors and reads[0] > 0, (errors, reads)
    assert client.cache_get(name)["design"] == "slab"


@pytest.mark.skipif(not os.path.exists("/sys/devices/system/cpu/cpu1/online"),
                    reason="needs a hot-pluggable cpu1")
def test_dead_cpus_array_is_drained_and_its_reap_restarts(client, make_cache):
    """cpu1's array holds objects; cpu1 goes offline: its array is drained back to the
    slabs (nothing is lost), its reap work cancelled. Online again, its reap runs: the
    array it fills empties by reaping alone."""
    name = make_cache(64, limit=20, batchcount=10, shared=0, reap_cpu_ms=0, reap_node_ms=0)
    h = client.obj_alloc(name, 40, cpu=1)
    client.obj_free(h, cpu=1)
    c = consistent(client, name)
    assert c["layers"]["array"] == 20, c["layers"]
    cpu1 = "/sys/devices/system/cpu/cpu1/online"
    client.cache_set(name, reap_cpu_ms=50)
    with open(cpu1, "w") as f:
        f.write("0")
    try:
        c = consistent(client, name)
        assert c["layers"]["array"] == 0, c["layers"]
        assert c["layers"]["slabs_free"] == c["layers"]["total"], c["layers"]
    finally:
        with open(cpu1, "w") as f:
            f.write("1")
    h = client.obj_alloc(name, 40, cpu=1)
    client.obj_free(h, cpu=1)
    poll(lambda: client.cache_get(name)["layers"]["array"], lambda n: n == 0)
    assert client.cache_validate(name)["errors"] == 0


# ------------- 6.1's bulk operations and grows through the test hooks (keep these last)

BULK_HOLD = 64      # design_slab.c's SLAB_BULK_HOLD: objects of a batch per lock hold
# 6.1's gfp_exact_node() takes reclaim away, and its ____cache_alloc_node() and
# fallback_alloc() exist, with CONFIG_NUMA only (the stock kernel has it, the debug
# kernel not): without, a refill grows with the caller's gfp but __GFP_NOFAIL (so
# GFP_KERNEL's grow may sleep: the cpu's lock is dropped for it) and a failed refill
# fails the allocation.
NUMA = os.path.isdir("/sys/devices/system/node")


@pytest.fixture(scope="module")
def hooked():
    """The module reloaded with its test hooks (selftests=1), and without them after:
    the file's client is stale from then on, so these tests come last."""
    c = reload("selftests=1")
    yield c
    reload()


@pytest.fixture
def hooked_cache(hooked, design):
    """A slab cache of the hooked module with its reaps off (they take the cpu lock);
    validated and destroyed afterwards, the failure hook put back."""
    made: list[str] = []

    def make(size, **tunables):
        name = f"hooked{len(made)}-{size}"
        tunables = {"reap_cpu_ms": 0, "reap_node_ms": 0, **tunables}
        hooked.cache_create(name, size, design=str(design), **tunables)
        made.append(name)
        return name

    yield make
    fail_atomic_slabs(0)
    for name in made:
        report = hooked.cache_validate(name)
        assert report["errors"] == 0, report
        hooked.cache_destroy(name)


def fail_atomic_slabs(n=None):
    """Fail the next n new slabs asked for without direct reclaim; the count left."""
    path = f"{DEBUGFS}/selftest_fail_atomic_slabs"
    if n is not None:
        with open(path, "w") as f:
            f.write(str(n))
    with open(path) as f:
        return int(f.read())


def new_slab_gfp(name):
    """The gfp of the cache's last page allocation for a slab, as the kernel's flag
    names (%pGg)."""
    return set(dbg(name, "selftest_new_slab_gfp").split("|"))


def reclaiming(names):
    """The names of those that let the page allocator reclaim: the reclaim bits, and
    every GFP_ combination but the zone ones holds one of them."""
    return {n for n in names if n.endswith("_RECLAIM") or
            (n.startswith("GFP_") and n not in ("GFP_DMA", "GFP_DMA32"))}


@pytest.mark.parametrize("batch", [32, 150])
def test_bulk_takes_the_cpu_lock_once_per_batch(hooked, hooked_cache, batch):
    """6.1's kmem_cache_alloc_bulk() and kmem_cache_free_bulk() disable interrupts once
    around the whole batch, the per-object array operations (refills and grows of this
    node among them) inside. A bulk storm of 4 batches on one cpu takes its array lock
    once per bulk allocation and once per bulk free, a batch beyond BULK_HOLD objects
    once per BULK_HOLD of them (the lock is dropped and taken again between: a storm's
    batch may be 65536). Without NUMA each grow may sleep and takes it once more. The
    counters are the single-object path's."""
    name = hooked_cache(64)
    dbg_write(name, "selftest_cpu_locks", 0)
    r = hooked.storm("slablab", "bulk", cache=name, threads=1, cpus="0", ops=4 * batch,
                     batch=batch)
    locks = int(dbg(name, "selftest_cpu_locks"))
    res = r["result"]
    st = res["stats"]
    assert res["allocs"] == res["frees"] == 4 * batch and res["failures"] == 0, res
    holds = 2 * 4 * -(-batch // BULK_HOLD) + (0 if NUMA else st["grown"])
    assert st["grown"] > 0 and locks == holds, \
        (f"{locks} acquisitions of the cpu lock for 4 bulk allocations and frees of "
         f"{batch} ({st['grown']} grows)")
    assert st["allochit"] + st["allocmiss"] == st["alloc_fastpath"] + st["alloc_slowpath"] \
        == 4 * batch, st
    assert st["allochit"] == st["alloc_fastpath"] and st["allocmiss"] > 0, st
    assert st["freehit"] + st["freemiss"] == 4 * batch, st
    consistent(hooked, name)


def test_a_bulk_that_fails_midway_gives_back_what_it_got(hooked, hooked_cache):
    """6.1's kmem_cache_alloc_bulk(): an object that cannot be had ends the batch, the
    objects it took are freed (kmem_cache_free_bulk()) and it returns 0. The array
    holds 3 objects and no slab can be made: a bulk of 5 takes the 3, fails on the
    fourth and gives them back, so the array holds 3 again and nothing else is out."""
    name = hooked_cache(64, limit=20, batchcount=10, shared=0)
    objs = hooked.cache_get(name)["objs_per_slab"]
    h = hooked.obj_alloc(name, objs, cpu=0)     # the slab used up, the array empty
    hooked.obj_free(h, cpu=0, count=3)
    assert hooked.cache_get(name)["layers"]["array"] == 3
    dbg_write(name, "fail_slab_every", 1)
    try:
        r = hooked.storm("slablab", "bulk", cache=name, threads=1, cpus="0", ops=5,
                         batch=5)
    finally:
        dbg_write(name, "fail_slab_every", 0)
    res = r["result"]
    assert res["failures"] == 5 and res["allocs"] == 0, res
    c = consistent(hooked, name)
    assert c["layers"]["array"] == 3 and c["gauges"]["objects"] == objs - 3, c
    assert c["gauges"]["slabs"] == 1, c["gauges"]
    hooked.obj_free(h, cpu=0)


def test_a_refill_grows_this_node_without_reclaim_into_the_array(hooked, hooked_cache):
    """6.1's cache_alloc_refill() with nothing on the node: cache_grow_begin() with
    gfp_exact_node() of the caller's gfp (__GFP_THISNODE and __GFP_NOWARN added, the
    reclaim bits and __GFP_NOFAIL taken away: GFP_KERNEL keeps its IO and FS), then
    alloc_block() takes batchcount objects of the new slab straight into the array and
    cache_grow_end() puts the slab on the list of its state: partial. Without NUMA
    gfp_exact_node() only takes __GFP_NOFAIL away: GFP_KERNEL as it is."""
    name = hooked_cache(64, limit=20, batchcount=10, shared=0)
    h = hooked.obj_alloc(name, 1, cpu=0)        # GFP_KERNEL
    gfp = new_slab_gfp(name)
    if NUMA:
        assert {"__GFP_THISNODE", "__GFP_NOWARN", "__GFP_IO", "__GFP_FS"} <= gfp, gfp
        assert not reclaiming(gfp), gfp
    else:
        assert gfp == {"GFP_KERNEL", "__GFP_COMP"}, gfp
    c = consistent(hooked, name)
    st, g = c["stats"], c["gauges"]
    assert (st["allocmiss"], st["alloc_slowpath"], st["grown"], st["alloc_slab"]) == \
        (1, 1, 1, 1), st
    assert (st["listallocs"], st["nodeallocs"]) == (10, 0), st
    assert c["layers"]["array"] == 9, c["layers"]
    assert (g["partial_slabs"], g["free_slabs"], g["slabs"]) == (1, 0, 1), g
    hooked.obj_free(h, cpu=0)


@pytest.mark.exclude_if(not NUMA, "____cache_alloc_node() and fallback_alloc() are NUMA's")
@pytest.mark.parametrize("fails", [1, 2])
def test_a_failed_refill_grow_goes_on_as_6_1(hooked, hooked_cache, fails):
    """When the refill's grow fails, 6.1's __do_cache_alloc() goes on to
    ____cache_alloc_node() for this node: its slabs, else a new slab of this node grown
    with gfp_exact_node() again, whose object goes straight to the caller (no
    nodeallocs there); when that fails too, fallback_alloc() grows with the caller's own
    gfp (GFP_KERNEL: it may reclaim), cache_grow_end() puts the slab on its node's list
    and ____cache_alloc_node() takes the object from there (nodeallocs). Neither fills
    the array. Here the next `fails` grows that may not reclaim fail: the GFP_KERNEL
    allocation asks for exactly that many."""
    name = hooked_cache(64, limit=20, batchcount=10, shared=0)
    fail_atomic_slabs(fails)
    h = hooked.obj_alloc(name, 1, cpu=0)
    assert fail_atomic_slabs() == 0, "fewer grows without reclaim than 6.1 asks for"
    c = consistent(hooked, name)
    st, g = c["stats"], c["gauges"]
    assert (st["allocmiss"], st["alloc_slowpath"], st["grown"], st["alloc_slab"]) == \
        (1, 1, 1, 1), st
    assert (st["listallocs"], st["nodeallocs"]) == (1, fails - 1), st
    assert c["layers"]["array"] == 0, c["layers"]
    assert (g["objects"], g["partial_slabs"], g["free_slabs"]) == (1, 1, 0), g
    gfp = new_slab_gfp(name)
    if fails == 1:
        assert "__GFP_THISNODE" in gfp and not reclaiming(gfp), gfp
    else:
        assert "__GFP_THISNODE" not in gfp and "GFP_KERNEL" in gfp, gfp
    hooked.obj_free(h, cpu=0)


def test_an_atomic_allocation_tries_three_grows(hooked, hooked_cache):
    """GFP_ATOMIC may never reclaim, so fallback_alloc()'s grow with the caller's gfp
    is a third grow without reclaim: with all three failing the allocation fails, and
    nothing was grown (the fourth failure is left). Without NUMA the refill's grow is
    the only one."""
    name = hooked_cache(64, limit=20, batchcount=10, shared=0)
    fail_atomic_slabs(4)
    # unbuffered: a buffered file would write the case again when it is closed
    fd = os.open(f"{DEBUGFS}/caches/{name}/selftest", os.O_WRONLY)
    try:
        with pytest.raises(OSError) as e:
            os.write(fd, b"hold_atomic")
    finally:
        os.close(fd)
    assert e.value.errno == errno.ENOMEM, e.value
    assert fail_atomic_slabs() == 4 - (3 if NUMA else 1)
    c = consistent(hooked, name)
    assert c["stats"]["grown"] == 0 and c["gauges"]["slabs"] == 0, c


def test_a_design_change_lays_the_cache_out_as_the_new_design(design):
    """slub -> slab -> slub on an empty 8-byte cache: SLAB's geometry under the slab
    design (16-byte slots at least, an on-slab index byte each: 4096 / 17 = 240 objects
    per order-0 slab, as /proc/slabinfo of a CONFIG_SLAB kernel shows; make fidelity
    compares them all), SLUB's back under slub; an order that was set stays through
    the changes, one never set follows the design's default."""
    client = slablab.Client()       # (the file's client is stale after the reloads above)
    name = "t-relayout"
    client.cache_create(name, 8, design="slub")
    try:
        slub = client.cache_get(name)
        assert (slub["obj_stride"], slub["objs_per_slab"]) == (8, 4096 // 8 << slub["order"])
        slab = client.cache_set(name, design="slab")
        assert (slab["obj_stride"], slab["order"], slab["objs_per_slab"]) == (16, 0, 240)
        assert slab["order_default"] == 0
        back = client.cache_set(name, design="slub")
        assert (back["obj_stride"], back["order"], back["objs_per_slab"]) == \
            (slub["obj_stride"], slub["order"], slub["objs_per_slab"])
        client.cache_set(name, order=1)
        kept = client.cache_set(name, design="slab")
        assert (kept["order"], kept["order_default"]) == (1, 0)
        # an order-1 slab of SLAB's 17-byte slots would hold 481: an index names 255
        assert kept["objs_per_slab"] == 255
        h = client.obj_alloc(name, 600)
        report = client.cache_validate(name)
        assert report["errors"] == 0, report
        assert consistent(client, name)["gauges"]["total_objects"] % 255 == 0
        client.obj_free(h)
    finally:
        client.cache_destroy(name)

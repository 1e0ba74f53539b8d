# SPDX-License-Identifier: GPL-2.0
"""RCU frees (slablab_cache_free_rcu(), slablab_kfree_rcu()) and typesafe_by_rcu caches
(docs/design.md, "RCU frees"): an object freed by RCU is not reused before a grace
period, a typesafe_by_rcu cache's memory goes back to the page allocator only after
one, destroy and unload wait for what is pending, and the counters say so. The
in-kernel halves are the debugfs hooks caches/<name>/selftest (rcu_reuse, rcu_pending,
rcu_typesafe: module/selftest.c), so the file reloads the module with selftests=1."""
import contextlib
import errno
import os
import subprocess
import time
from typing import Dict, List

import pytest

import slablab
from helpers import DEBUGFS, DESIGNS, MODULE, consistent, dbg, kmsg_mark, kmsg_since, reload, selftest

DEADLINE_S = 30     # grace periods take milliseconds; TCG under load, far longer


@pytest.fixture(scope="module")
def hooked():
    # no time bound on rmmod and insmod, as before helpers.reload() had one
    c = reload("selftests=1", timeout=None)
    yield c
    reload(timeout=None)


@contextlib.contextmanager
def on_one_cpu():
    """This thread on its lowest allowed cpu, so that its RCU frees fill one cpu's
    rcu_free sheaf; the old affinity after."""
    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cpus)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, cpus)


def wait_for(what, cond):
    end = time.monotonic() + DEADLINE_S
    while not cond():
        assert time.monotonic() < end, f"{what}: not within {DEADLINE_S} s"
        time.sleep(0.02)


def rcu_idle(c, name):
    g = c.cache_get(name, percpu=False)["gauges"]
    return not (g["rcu_pending"] or g["rcu_waiting"] or g["rcu_slabs"] or g["rcu_pages"])


@pytest.fixture
def cache(hooked):
    made: List[str] = []

    def make(design, **kw):
        name = f"rcu{len(made)}-{design}"
        hooked.cache_create(name, 128, design=design, **kw)
        made.append(name)
        return name

    yield make
    for name in made:
        assert hooked.cache_validate(name)["errors"] == 0
        hooked.cache_destroy(name)


def test_typesafe_flag(hooked, cache):
    """The flag is a cache flag like the others: set at creation, reported back, shown
    as SLUB's destroy_by_rcu; not with debug (whose poison would overwrite what RCU
    readers read)."""
    name = cache("slub", typesafe_by_rcu=True)
    assert "typesafe_by_rcu" in hooked.cache_get(name)["flags"]
    assert dbg(name, "destroy_by_rcu") == "1"
    plain = cache("slub")
    assert dbg(plain, "destroy_by_rcu") == "0"
    with pytest.raises(slablab.Error) as e:
        hooked.cache_create("rcu-debug", 128, debug=True, typesafe_by_rcu=True)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(slablab.Error) as e:
        hooked.cache_set(plain, debug=True, typesafe_by_rcu=True)
    assert e.value.errno == errno.EINVAL
    # settable later like the other flags (the cache is empty)
    assert "typesafe_by_rcu" in hooked.cache_set(plain, typesafe_by_rcu=True)["flags"]


def reuse_hook(name):
    """Run rcu_reuse until its second object waited behind an armed batch; the runs."""
    for tries in range(1, 21):
        try:
            selftest(name, "rcu_reuse")
            return tries
        except OSError as e:
            assert e.errno == errno.EAGAIN, e     # the first's batch was done: again
    pytest.fail("the first RCU free's batch was always done before the second")


@pytest.mark.parametrize("design", DESIGNS)
def test_rcu_freed_object_not_reused_before_grace_period(hooked, cache, design):
    """The hook frees an object by RCU, which arms its cpu's batch, then another inside
    a read-side critical section, which waits behind it on the pending list and goes to
    RCU as the next batch from the first's callback, and allocates 64 more there: none
    may be the second (a plain free would hand it out first on every design). After
    the grace periods both are freed: objects back to 0, counted as two RCU frees, in
    two batches, and as two more frees. (sheaves: the objects wait in the cpu's
    rcu_free sheaf until it fills or a flush hands it to RCU, as in 7.3: the shrink.)"""
    name = cache(design)
    before = hooked.cache_get(name)["stats"]
    tries = reuse_hook(name)
    hooked.cache_shrink(name)
    wait_for("the RCU free", lambda: rcu_idle(hooked, name) and
             hooked.cache_get(name)["gauges"]["objects"] == 0)
    st = hooked.cache_get(name)["stats"]
    assert st["free_rcu"] - before["free_rcu"] == 2 * tries
    if design != "sheaves":
        assert st["free_rcu_batch"] - before["free_rcu_batch"] == 2 * tries
    frees = sum(st[k] - before[k] for k in ("free_fastpath", "free_slowpath"))
    allocs = sum(st[k] - before[k] for k in ("alloc_fastpath", "alloc_slowpath"))
    assert allocs == frees == 66 * tries
    consistent(hooked, name)


def test_kfree_rcu_not_reused_before_grace_period(hooked):
    """The same through slablab_kmalloc() and slablab_kfree_rcu(), on the 64-byte class."""
    before = hooked.cache_get("kmalloc-64")["stats"]["free_rcu"]
    tries = reuse_hook("kmalloc-64")
    hooked.cache_shrink("kmalloc-64")
    wait_for("the RCU free", lambda: rcu_idle(hooked, "kmalloc-64"))
    assert hooked.cache_get("kmalloc-64")["stats"]["free_rcu"] - before == 2 * tries


@pytest.mark.parametrize("design", DESIGNS)
def test_typesafe_memory_kept_until_grace_period(hooked, cache, design):
    """The hook fills slabs of a typesafe_by_rcu cache, frees every object and shrinks
    the cache, then checks, while no grace period has passed since before the frees,
    that every page the objects lived in is still allocated and still the cache's
    (-EFAULT otherwise); -ENODATA if nothing was deferred. slob defers each block's
    free instead of pages (SLOB's kmem_cache_free()), which the same check holds."""
    name = cache(design, typesafe_by_rcu=True, min_partial=0)
    before = hooked.cache_get(name)["stats"]["rcu_slab_deferred"]
    for _ in range(20):
        try:
            selftest(name, "rcu_typesafe")
            break
        except OSError as e:
            assert e.errno == errno.EAGAIN, e     # a grace period passed: try again
    else:
        pytest.fail("a grace period always ended before the check")
    c = hooked.cache_get(name)
    assert c["stats"]["rcu_slab_deferred"] > before
    # the hook drained: nothing waits, and the cache holds no slab (slob: no page)
    assert rcu_idle(hooked, name)
    assert c["gauges"]["objects"] == 0
    if design != "slob":
        assert c["gauges"]["slabs"] == 0 and c["gauges"]["pages"] == 0, c["gauges"]
    consistent(hooked, name)


def test_typesafe_hook_needs_the_flag(hooked, cache):
    name = cache("slub")
    with pytest.raises(OSError) as e:
        selftest(name, "rcu_typesafe")
    assert e.value.errno == errno.EINVAL


# slob has no slabs: its blocks are deferred (the hook test above)
@pytest.mark.parametrize("design", [d for d in DESIGNS if d != "slob"])
def test_typesafe_slabs_counted_while_deferred(hooked, cache, design):
    """From userspace: a typesafe_by_rcu cache's freed slabs leave slabs and pages at
    once and are counted in rcu_slabs/rcu_pages until their grace period, then leave
    those too; every deferral is counted."""
    name = cache(design, typesafe_by_rcu=True, min_partial=0)
    for _ in range(20):
        h = hooked.obj_alloc(name, 2000)
        slabs = hooked.cache_get(name)["gauges"]["slabs"]
        before = hooked.cache_get(name)["stats"]["rcu_slab_deferred"]
        hooked.obj_free(h)
        hooked.cache_shrink(name)
        g = hooked.cache_get(name)["gauges"]
        assert g["slabs"] == 0 and g["pages"] == 0, g
        wait_for("the slabs' grace period", lambda: rcu_idle(hooked, name))
        assert hooked.cache_get(name)["stats"]["rcu_slab_deferred"] - before >= slabs
        if g["rcu_slabs"]:
            break                   # seen while deferred; else the grace period won
    else:
        pytest.fail("a grace period always ended before the gauges were read")
    assert 0 < g["rcu_slabs"] <= slabs and g["rcu_pages"] >= g["rcu_slabs"], g


@pytest.mark.parametrize("design", DESIGNS)
def test_destroy_waits_for_rcu_frees(hooked, design):
    """Destroy right after 64 RCU frees (the hook returns without waiting): the objects
    count as in use until their grace period, so a destroy that did not wait for them
    would refuse (Busy) or free the cache under their callbacks (KASAN on the debug
    kernel)."""
    for flags in ({}, {"typesafe_by_rcu": True}):
        name = f"rcu-destroy-{design}"
        hooked.cache_create(name, 64, design=design, **flags)
        selftest(name, "rcu_pending")
        hooked.cache_destroy(name)
        assert name not in {c["name"] for c in hooked.cache_list()}


@pytest.mark.parametrize("design", DESIGNS)
def test_change_right_after_rcu_frees(hooked, cache, design):
    """A design change and a flags change right after 64 RCU frees (the hook returns
    without waiting): the objects count as in use until their grace period, so the
    change waits for them (slablab_rcu_drain() in check_empty()) instead of refusing
    with "64 objects in use"."""
    name = cache(design)
    other = next(d for d in DESIGNS if d != design)
    selftest(name, "rcu_pending")
    hooked.cache_set(name, design=other)
    assert hooked.cache_get(name)["design"] == other
    selftest(name, "rcu_pending")
    assert "typesafe_by_rcu" in hooked.cache_set(name, typesafe_by_rcu=True)["flags"]
    assert hooked.cache_get(name)["gauges"]["objects"] == 0
    consistent(hooked, name)


def test_change_right_after_rcu_frees_in_a_sheaf(hooked, cache):
    """sheaves: 64 RCU frees on one cpu with sheaves of 10 leave 4 in a partly filled
    rcu_free sheaf, which nothing hands to RCU by itself (7.3's): the change flushes it
    first (the design's rcu_flush), then waits for its grace period."""
    name = cache("sheaves", sheaf_capacity=10, barn_max_full=16)
    with on_one_cpu():
        selftest(name, "rcu_pending")
    assert hooked.cache_get(name)["gauges"]["rcu_pending"] == 4
    hooked.cache_set(name, design="slub")
    c = hooked.cache_get(name)
    assert c["design"] == "slub" and c["gauges"]["objects"] == 0, c["gauges"]
    consistent(hooked, name)


def test_kmalloc_switch_right_after_rcu_frees(hooked):
    """The same for the kmalloc classes (slablab_set_kmalloc()), there and back."""
    design = hooked.status()["kmalloc_design"]
    other = "sheaves" if design != "sheaves" else "slub"     # then back, from sheaves'
    selftest("kmalloc-64", "rcu_pending")
    hooked.set_kmalloc(design=other)
    try:
        assert hooked.status()["kmalloc_design"] == other
    finally:
        selftest("kmalloc-64", "rcu_pending")
        hooked.set_kmalloc(design=design)
    assert hooked.status()["kmalloc_design"] == design


def test_sheaves_rcu_free_sheaf(hooked, cache):
    """sheaves batches RCU frees in the cpu's rcu_free sheaf (7.3's __kfree_rcu_sheaf()):
    64 RCU frees on one cpu with sheaves of 10 objects fill and hand six sheaves to RCU
    and leave 4 objects pending in the seventh; after the grace period the full sheaves'
    objects are free objects of the cache in the barn (rcu_free_sheaf()), not on the
    slabs; the pending ones wait until a flush (destroy, shrink) hands their sheaf to
    RCU. A grace period may end while the loop still allocates (a slow kernel: KASAN,
    kmemleak), and then an allocation trades the empty main sheaf for a full one of the
    barn (BARN_GET): the barn holds the sheaves put and not taken back."""
    name = cache("sheaves", sheaf_capacity=10, barn_max_full=16)
    before = hooked.cache_get(name)["stats"]
    with on_one_cpu():
        selftest(name, "rcu_pending")
    wait_for("the sheaves' grace period",
             lambda: hooked.cache_get(name, percpu=False)["gauges"]["rcu_waiting"] == 0)
    c = hooked.cache_get(name)
    st = {k: c["stats"][k] - before[k] for k in before}
    assert st["free_rcu"] == 64 and st["free_rcu_sheaf"] == 64, st
    assert st["free_rcu_sheaf_fail"] == 0 and st["free_rcu_batch"] == 6, st
    assert c["gauges"]["rcu_pending"] == 4 and c["gauges"]["objects"] == 4, c["gauges"]
    ly = c["layers"]
    assert st["barn_put"] == 6 and st["barn_put_fail"] == 0, st
    assert ly["barn"] == 10 * (st["barn_put"] - st["barn_get"]), (ly, st)
    # none of the 60 went back to a slab: the sheaves hold what they took from the
    # slabs plus what came back by RCU, less the 64 allocations
    held = ly["sheaf_main"] + ly["sheaf_spare"] + ly["barn"]
    assert held == st["sheaf_refill"] + 60 - 64, (ly, st)
    consistent(hooked, name)


def test_capacity_change_hands_the_rcu_free_sheaf_to_rcu(hooked, cache):
    """sheaves: a sheaf_capacity change hands each cpu's partly filled rcu_free sheaf to
    RCU with its main and spare (replace_sheaves()), so that no sheaf of the old
    capacity fills later: the selftest case sheaf_capacity looks at rcu_free too."""
    name = cache("sheaves", sheaf_capacity=10, barn_max_full=16)
    with on_one_cpu():
        selftest(name, "rcu_pending")
        assert hooked.cache_get(name)["gauges"]["rcu_pending"] == 4
        hooked.cache_set(name, sheaf_capacity=7)
        assert hooked.cache_get(name)["gauges"]["rcu_pending"] == 0
        selftest(name, "sheaf_capacity")
        selftest(name, "rcu_pending")    # 64 into sheaves of 7: 9 handed on, 1 left
        selftest(name, "sheaf_capacity")
    assert hooked.cache_get(name)["gauges"]["rcu_pending"] == 1
    hooked.cache_shrink(name)
    wait_for("the RCU frees", lambda: rcu_idle(hooked, name))
    assert hooked.cache_get(name)["gauges"]["objects"] == 0
    consistent(hooked, name)


@pytest.mark.parametrize("design", [d for d in DESIGNS if d != "slob"])  # no debug mode
def test_double_rcu_free_reported(hooked, design):
    """A debug cache's double RCU free (the hook: two objects, then the second again) is
    reported and dropped, not linked twice (a cycle in the batch, whose callback would
    spin for good): both objects are freed once after their grace period."""
    name = f"rcu-double-{design}"
    hooked.cache_create(name, 128, design=design, debug=True)
    before = hooked.cache_get(name)["stats"]
    mark = kmsg_mark()
    selftest(name, "rcu_double_free")
    log = kmsg_since(mark)
    assert f"cache {name}: double RCU free" in log, log
    hooked.cache_shrink(name)                    # sheaves: the rcu_free sheaf to RCU
    wait_for("the RCU frees", lambda: rcu_idle(hooked, name) and
             hooked.cache_get(name)["gauges"]["objects"] == 0)
    st = hooked.cache_get(name)["stats"]
    assert st["free_rcu"] - before["free_rcu"] == 2
    frees = sum(st[k] - before[k] for k in ("free_fastpath", "free_slowpath"))
    assert frees == 2
    assert hooked.cache_validate(name)["errors"] == 1       # the report, nothing else
    consistent(hooked, name)
    hooked.cache_destroy(name)


def test_unload_waits_for_rcu_frees(hooked):
    """Unload with RCU frees pending on caches of every design, on a kmalloc class and
    on typesafe_by_rcu caches: module exit destroys every cache, each waiting for its
    frees, and waits for every callback of the module's (rcu_barrier()), else the
    callbacks run in freed module text."""
    for design in DESIGNS:
        flag_sets: List[Dict[str, bool]] = [{}, {"typesafe_by_rcu": True}]
        for i, flags in enumerate(flag_sets):
            name = f"rcu-unload-{design}-{i}"
            hooked.cache_create(name, 64, design=design, **flags)
            selftest(name, "rcu_pending")
    selftest("kmalloc-64", "rcu_pending")
    subprocess.run(["rmmod", "slablab"], check=True, capture_output=True)
    subprocess.run(["insmod", MODULE, "selftests=1"], check=True, capture_output=True)
    assert os.path.exists(f"{DEBUGFS}/caches/kmalloc-64/selftest")

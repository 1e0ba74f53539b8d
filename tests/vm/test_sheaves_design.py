# SPDX-License-Identifier: GPL-2.0
"""What is particular to the sheaves design (Linux 7.3's per-cpu sheaves and barns):
the default capacities, where objects go, the barn's bounds, a capacity changed at run
time, the prefill API (through the prefill storm pattern) and sheaves_cpu_slabs (6.18's
sheaves in front of slub's per-cpu slabs). The cache suite at large runs for sheaves
through helpers.DESIGNS."""
import errno
import glob
import os
import re

import pytest


import slablab
from helpers import DEBUGFS, consistent, dbg, reload, selftest

pytestmark = pytest.mark.parametrize("design", ["sheaves"])


def cached(c):
    ly = c["layers"]
    return ly["sheaf_main"] + ly["sheaf_spare"] + ly["barn"]


@pytest.mark.parametrize("size,capacity", [(64, 60), (256, 28), (1024, 12), (4096, 4)])
def test_default_capacity_by_object_size(client, make_cache, size, capacity):
    """7.3's calculate_sheaf_capacity(): 60, 26, 12 or 4 objects by the slot size, then
    as many more as fill the sheaf's kmalloc bucket (26 becomes 28)."""
    name = make_cache(size)
    assert client.cache_get(name)["sheaf_capacity"] == capacity


def kernel_kmalloc_caches():
    """{slot size: sheaf_capacity} of the running kernel's kmalloc caches without debug
    flags; None where SLUB has no sheaf_capacity file (before 7.0)."""
    caps, seen = {}, False
    for d in glob.glob("/sys/kernel/slab/kmalloc-*"):
        if not re.fullmatch(r"kmalloc-\d+k?", os.path.basename(d)):
            continue
        if not os.path.exists(f"{d}/sheaf_capacity"):
            continue
        seen = True
        if any(open(f"{d}/{flag}").read().strip() == "1"
               for flag in ("sanity_checks", "red_zone", "poison", "store_user", "trace")
               if os.path.exists(f"{d}/{flag}")):
            continue        # a debug cache has no sheaves upstream (capacity 0)
        caps[int(open(f"{d}/slab_size").read())] = int(open(f"{d}/sheaf_capacity").read())
    return caps if seen else None


def test_default_capacity_is_the_running_kernels(client, make_cache):
    """For the slot size of each of the running kernel's kmalloc caches, a new sheaves
    cache's default capacity is what the kernel's SLUB gave that cache."""
    caps = kernel_kmalloc_caches()
    if caps is None:
        pytest.skip("no /sys/kernel/slab/kmalloc-*/sheaf_capacity: SLUB has no sheaves "
                    "before 7.0")
    if not caps:
        pytest.skip("every kmalloc cache has debug flags (slub_debug): no sheaves")
    got = {}
    for size in sorted(caps):
        name = make_cache(size)
        got[size] = client.cache_get(name)["sheaf_capacity"]
    assert got == caps


def test_freed_objects_stay_in_sheaves_and_barn(client, make_cache):
    """Allocations refill a sheaf from the slabs (sheaf_refill) and pop it
    (alloc_fastpath); frees push the sheaves and trade full ones into the barn, which
    keeps at most barn_max_full of them: the rest is flushed to the slabs."""
    name = make_cache(64, barn_max_full=2)
    cap = client.cache_get(name)["sheaf_capacity"]
    h = client.obj_alloc(name, cap * 8, cpu=0)
    st = client.cache_get(name)["stats"]
    assert st["sheaf_refill"] >= cap * 8 and st["alloc_fastpath"] == cap * 8, st
    assert st["alloc_slowpath"] == 0, st
    client.obj_free(h, cpu=0)
    c = consistent(client, name)
    ly, st = c["layers"], c["stats"]
    assert c["gauges"]["objects"] == 0
    assert ly["sheaf_main"] + ly["sheaf_spare"] == 2 * cap, ly     # both full
    assert ly["barn"] == 2 * cap, ly                              # barn_max_full sheaves
    assert st["barn_put"] == 2 and st["barn_put_fail"] > 0, st
    assert st["sheaf_flush"] == cap * 8 - 4 * cap, st
    assert st["free_fastpath"] == cap * 8 and st["free_slowpath"] == 0, st
    # the barn gives its full sheaves back to the next allocations
    h = client.obj_alloc(name, 4 * cap, cpu=0)
    st2 = client.cache_get(name)["stats"]
    assert st2["barn_get"] - st["barn_get"] == 2, st2
    assert st2["sheaf_refill"] == st["sheaf_refill"], st2        # no slab touched
    client.obj_free(h, cpu=0)


def test_barn_swap_sends_the_empty_main_to_the_barn(client, make_cache):
    """7.3's barn_replace_empty_sheaf(): an empty main traded for a full barn sheaf goes
    onto the barn's empty list, even when the cpu has no spare, where the next full
    main of any cpu finds it: that trade (barn_put) needs no new sheaf (sheaf_alloc)."""
    name = make_cache(64)
    cap = client.cache_get(name)["sheaf_capacity"]
    h = client.obj_alloc(name, 6 * cap, cpu=0)
    client.cache_shrink(name)           # cpu 0: an empty main, no spare; empty barns
    client.obj_free(h, cpu=1, count=4 * cap)
    c = consistent(client, name)        # cpu 1: main and spare full, the barn 2 full
    assert c["layers"]["barn"] == 2 * cap, c["layers"]
    st = c["stats"]
    h2 = client.obj_alloc(name, 1, cpu=0)
    st2 = client.cache_get(name)["stats"]
    assert st2["barn_get"] - st["barn_get"] == 1, st2
    client.obj_free(h, cpu=1, count=1)  # cpu 1's full main for cpu 0's empty one
    st3 = client.cache_get(name)["stats"]
    assert st3["barn_put"] - st2["barn_put"] == 1, st3
    assert st3["sheaf_alloc"] == st2["sheaf_alloc"], st3
    client.obj_free(h2, cpu=0)
    client.obj_free(h, cpu=0)


def test_shrink_gives_every_sheaf_back(client, make_cache):
    name = make_cache(256)
    h = client.obj_alloc(name, 500, cpu=0)
    client.obj_free(h, cpu=0, count=400)
    assert cached(client.cache_get(name)) > 0
    client.cache_shrink(name)
    c = consistent(client, name)
    assert cached(c) == 0 and c["layers"]["slabs_free"] == c["layers"]["total"] - 100
    client.obj_free(h, cpu=0)


def test_capacity_changes_while_in_use(client, make_cache):
    """Upstream fixes a cache's sheaf capacity; here a change gives every sheaf back and
    each cpu gets a new main of the new capacity. 0: no sheaves, every object from the
    slabs (alloc_slowpath, free_slowpath)."""
    name = make_cache(64)
    h = client.obj_alloc(name, 300, cpu=0)
    client.obj_free(h, cpu=0, count=150)
    assert cached(client.cache_get(name)) > 0
    assert client.cache_set(name, sheaf_capacity=0)["sheaf_capacity"] == 0
    c = consistent(client, name)
    assert cached(c) == 0, c["layers"]
    before = c["stats"]
    h2 = client.obj_alloc(name, 100, cpu=0)
    client.obj_free(h2, cpu=0)
    st = client.cache_get(name)["stats"]
    assert st["alloc_slowpath"] - before["alloc_slowpath"] == 100, st
    assert st["free_slowpath"] - before["free_slowpath"] == 100, st
    assert st["alloc_fastpath"] == before["alloc_fastpath"], st
    client.cache_set(name, sheaf_capacity=8)
    client.obj_free(h, cpu=0)                 # 150 frees into sheaves of 8
    c = consistent(client, name)
    assert 0 < c["layers"]["sheaf_main"] <= 8 and c["layers"]["sheaf_spare"] <= 8, c["layers"]
    assert c["gauges"]["objects"] == 0


def test_barn_bounds_lowered_flush_the_surplus(client, make_cache):
    name = make_cache(64)
    cap = client.cache_get(name)["sheaf_capacity"]
    h = client.obj_alloc(name, cap * 6, cpu=0)
    client.obj_free(h, cpu=0)
    assert client.cache_get(name)["layers"]["barn"] > 0
    client.cache_set(name, barn_max_full=0, barn_max_empty=0)
    c = consistent(client, name)
    assert c["layers"]["barn"] == 0 and c["barn_max_full"] == 0


# ------------------------------------------------- prefilled sheaves (the prefill API)

def prefill_storm(client, name, threads=1, ops=16 * 64, batch=16):
    """A prefill storm (each op: prefill a sheaf of BATCH, allocate BATCH from it, free
    them, return the sheaf) on `name`; checks what every storm on a cache must hold and
    returns (storm, the cache's counters before it, the number of prefills)."""
    before = client.cache_get(name)["stats"]
    r = client.storm("slablab", "prefill", cache=name, threads=threads, ops=ops, batch=batch)
    res = r["result"]
    assert r["state"] == "done" and res["failures"] == 0, res
    assert res["allocs"] == res["frees"] == ops * threads, res
    st = res["stats"]
    # every allocation from a sheaf counted once, every free once
    assert st["alloc_fastpath"] + st["alloc_slowpath"] == res["allocs"], st
    assert st["free_fastpath"] + st["free_slowpath"] == res["frees"], st
    c = consistent(client, name)
    ly = c["layers"]
    assert c["gauges"]["objects"] == 0 and ly["callers"] == 0, c["gauges"]
    assert ly.get("sheaf_prefilled", 0) == 0, ly              # every sheaf came back
    cached = sum(v for k, v in ly.items() if k not in ("total", "callers", "slabs_free"))
    assert ly["callers"] + cached + ly["slabs_free"] == ly["total"], ly
    return r, before, threads * -(-ops // batch)


def test_prefill_storm_takes_sheaves_from_the_cpu_and_the_barn(client, make_cache, ncpus):
    """Within the capacity a prefill takes the cpu's spare (sheaf_prefill_fast) or a
    barn sheaf or a new one (sheaf_prefill_slow), and the sheaf comes back as the spare
    (sheaf_return_fast) or refilled into the barn (sheaf_return_slow); allocations from
    it are fast-path allocations, and never fail."""
    name = make_cache(64)                                       # capacity 60
    r, before, prefills = prefill_storm(client, name, threads=ncpus, batch=16)
    st = r["result"]["stats"]
    assert st["sheaf_prefill_fast"] + st["sheaf_prefill_slow"] == prefills, st
    assert st["sheaf_prefill_fast"] > 0 and st["sheaf_prefill_oversize"] == 0, st
    assert st["sheaf_return_fast"] + st["sheaf_return_slow"] == prefills, st
    assert st["sheaf_return_fast"] > 0, st
    assert st["alloc_fastpath"] == r["result"]["allocs"] and st["alloc_slowpath"] == 0, st
    # the storm's deltas are the cache's own
    after = client.cache_get(name)["stats"]
    for item in ("sheaf_prefill_fast", "sheaf_prefill_slow", "sheaf_return_fast",
                 "sheaf_return_slow", "sheaf_prefill_oversize"):
        assert after[item] - before[item] == st[item], item
    report = client.cache_validate(name)
    assert report["errors"] == 0 and report["objects"] == report["free_objects"], report


def test_prefill_beyond_the_capacity_gets_a_one_off_sheaf(client, make_cache):
    """A prefill of more than sheaf_capacity objects (and any prefill when the capacity
    is 0) gets a one-off sheaf filled by a bulk allocation (sheaf_prefill_oversize): its
    objects count as allocated when it is filled, the rest freed when it comes back."""
    name = make_cache(64, sheaf_capacity=8)
    r, _, prefills = prefill_storm(client, name, batch=20, ops=20 * 50)
    st = r["result"]["stats"]
    assert st["sheaf_prefill_oversize"] == prefills, st
    assert st["sheaf_prefill_fast"] == st["sheaf_prefill_slow"] == 0, st
    assert st["sheaf_return_fast"] == st["sheaf_return_slow"] == 0, st
    client.cache_set(name, sheaf_capacity=0)
    r, _, prefills = prefill_storm(client, name, batch=4, ops=4 * 50)
    assert r["result"]["stats"]["sheaf_prefill_oversize"] == prefills


def test_prefill_on_a_cache_without_sheaves(client, make_cache):
    """On the slub design (no sheaves) every prefill is a one-off sheaf of exactly the
    size asked for, filled by slub's bulk allocation, as 7.0 does for a cache without
    sheaves; the prefilled layer is not reported there."""
    name = make_cache(128, design="slub")
    r, _, prefills = prefill_storm(client, name, batch=16, ops=16 * 40)
    st = r["result"]["stats"]
    assert st["sheaf_prefill_oversize"] == prefills, st
    assert st["sheaf_prefill_fast"] == st["sheaf_prefill_slow"] == 0, st
    assert "sheaf_prefilled" not in client.cache_get(name)["layers"]


def test_prefill_storm_with_cpu_slabs(client, make_cache, ncpus):
    """The same storm on sheaves in front of slub's per-cpu slabs: refills go through
    the cpu slab, and the layers (cpu slab and cpu partial among them) still add up."""
    name = make_cache(256, sheaves_cpu_slabs=1)
    r, _, prefills = prefill_storm(client, name, threads=ncpus, batch=8, ops=8 * 64)
    st = r["result"]["stats"]
    assert st["sheaf_prefill_fast"] + st["sheaf_prefill_slow"] == prefills, st
    ly = client.cache_get(name)["layers"]
    assert "cpu_slab" in ly and "cpu_partial" in ly and "sheaf_prefilled" in ly, ly


# ---------------------------------------- sheaves_cpu_slabs (6.18's double caching)

def test_cpu_slabs_puts_sheaves_in_front_of_slubs_cpu_slab(client, make_cache):
    """One allocation refills main to its capacity. Straight over slabs (7.0) the rest
    of the new slab goes onto the node list; with sheaves_cpu_slabs (6.18) the refill
    takes the objects through slub's cpu slab, which keeps the rest."""
    plain = make_cache(64)
    double = make_cache(64, sheaves_cpu_slabs=1)
    for name in (plain, double):
        c = client.cache_get(name)
        cap, objs = c["sheaf_capacity"], c["objs_per_slab"]
        assert objs > cap, (objs, cap)
        h = client.obj_alloc(name, 1, cpu=0)
        c = consistent(client, name)
        ly, g = c["layers"], c["gauges"]
        assert ly["sheaf_main"] == cap - 1 and ly["callers"] == 1, ly
        assert c["stats"]["sheaf_refill"] == cap and c["stats"]["alloc_fastpath"] == 1
        if name == plain:
            assert c["sheaves_cpu_slabs"] == 0 and "cpu_slab" not in ly, c
            assert ly["slabs_free"] == objs - cap and g["cpu_slabs"] == 0, (ly, g)
        else:
            assert c["sheaves_cpu_slabs"] == 1
            assert ly["cpu_slab"] == objs - cap and ly["slabs_free"] == 0, ly
            assert g["cpu_slabs"] == 1, g
        client.obj_free(h, cpu=0)
        client.cache_shrink(name)
        c = consistent(client, name)
        assert c["gauges"]["cpu_slabs"] == 0 and c["layers"]["slabs_free"] == objs, c


def test_cpu_slabs_flush_frees_through_the_cpu_slab(client, make_cache):
    """Sheaves flushed with sheaves_cpu_slabs give their objects to slub's layer: the
    slabs a flush turns partial go to the cpu partial list, and a shrink takes it all
    back; the layers add up at every step."""
    name = make_cache(64, sheaves_cpu_slabs=1, barn_max_full=0, barn_max_empty=0)
    objs = client.cache_get(name)["objs_per_slab"]
    h = client.obj_alloc(name, objs * 20, cpu=0)
    client.obj_free(h, cpu=0)                # main and spare fill, the rest is flushed
    c = consistent(client, name)
    ly, st = c["layers"], c["stats"]
    assert st["sheaf_flush"] > 0 and st["cpu_partial_free"] > 0, st
    assert ly["cpu_partial"] > 0, ly
    cached = ly["sheaf_main"] + ly["sheaf_spare"] + ly["cpu_slab"] + ly["cpu_partial"]
    assert cached + ly["slabs_free"] == ly["total"], ly
    client.cache_shrink(name)
    c = consistent(client, name)
    assert c["gauges"]["cpu_partial_slabs"] == 0 and c["layers"]["cpu_partial"] == 0, c


def test_cpu_slabs_changes_only_while_empty(client, make_cache):
    name = make_cache(64)
    h = client.obj_alloc(name, 10, cpu=0)
    with pytest.raises(slablab.Busy):
        client.cache_set(name, sheaves_cpu_slabs=1)
    assert client.cache_get(name)["sheaves_cpu_slabs"] == 0
    client.obj_free(h, cpu=0)
    assert client.cache_set(name, sheaves_cpu_slabs=1)["sheaves_cpu_slabs"] == 1
    h = client.obj_alloc(name, 100, cpu=0)
    assert consistent(client, name)["layers"]["cpu_slab"] > 0      # slub's layer is there
    client.obj_free(h, cpu=0)
    # back to slub and to sheaves again: the value stays, and a slub cache keeps it
    # whatever it holds (it takes effect on the next change to sheaves)
    client.cache_set(name, design="slub")
    h = client.obj_alloc(name, 10, cpu=0)
    assert client.cache_set(name, sheaves_cpu_slabs=0)["sheaves_cpu_slabs"] == 0
    client.obj_free(h, cpu=0)
    c = client.cache_set(name, design="sheaves", sheaves_cpu_slabs=1)
    assert c["design"] == "sheaves" and c["sheaves_cpu_slabs"] == 1


def test_cpu_slabs_of_a_debug_cache_stay_unused(client, make_cache):
    """slub's layer under the sheaves of a debug cache is 6.1's for kmem_cache_debug()
    (6.18's too): no cpu slab, no cpu partial list. A refill takes its objects one by
    one off node partial slabs and new slabs, a flush gives them to their slabs under
    the list_lock; the debug checks still see every object."""
    name = make_cache(64, debug=True, sheaves_cpu_slabs=1, barn_max_full=0, barn_max_empty=0)
    objs = client.cache_get(name)["objs_per_slab"]
    h = client.obj_alloc(name, objs * 20, cpu=0)
    client.obj_free(h, cpu=1)                # main and spare fill, the rest is flushed
    for step in ("freed", "shrunk"):
        c = consistent(client, name)
        ly, st, g = c["layers"], c["stats"], c["gauges"]
        assert st["sheaf_refill"] > 0 and st["sheaf_flush"] > 0, (step, st)
        assert ly["cpu_slab"] == 0 and ly["cpu_partial"] == 0, (step, ly)
        assert g["cpu_slabs"] == 0 and g["cpu_partial_slabs"] == 0, (step, g)
        for item in ("alloc_refill", "free_frozen", "cpuslab_flush", "deactivate_full",
                     "deactivate_to_head", "deactivate_to_tail", "cpu_partial_alloc",
                     "cpu_partial_free", "cpu_partial_node", "cpu_partial_drain"):
            assert st[item] == 0, (step, item, st)
        client.cache_shrink(name)
    assert client.cache_validate(name)["errors"] == 0


# ------------------------ 7.3's slow paths through the test hooks (keep these last)

@pytest.fixture(scope="module")
def hooked():
    """The module reloaded with its test hooks (selftests=1), and without them after.
    The file's client is stale from then on: these tests come last and make their
    caches themselves."""
    c = reload("selftests=1")
    yield c
    reload()


@pytest.fixture
def hooked_cache(hooked, design):
    made: list[str] = []

    def make(size, **tunables):
        name = f"hooked{len(made)}-{size}"
        hooked.cache_create(name, size, design=design, **tunables)
        made.append(name)
        return name

    yield make
    fail_sheaf_allocs(0)
    for name in made:
        report = hooked.cache_validate(name)
        assert report["errors"] == 0, report
        hooked.cache_destroy(name)


def fail_sheaf_allocs(n):
    with open(f"{DEBUGFS}/selftest_fail_sheaf_alloc", "w") as f:
        f.write(str(n))


def hold_one(client, name, case):
    """The counters' change over one allocation by the hold case CASE on a new cache
    (every cpu's main empty, no spare, empty barns)."""
    before = client.cache_get(name)["stats"]
    selftest(name, case)
    try:
        after = client.cache_get(name)["stats"]
    finally:
        selftest(name, "release")
    return {k: after[k] - before[k] for k in after}


@pytest.mark.parametrize("case", ["hold", "hold_atomic", "hold_node"])
def test_any_allocation_refills_a_new_sheaf(hooked, hooked_cache, case):
    """7.3's alloc_from_pcs() and __pcs_replace_empty_main(): with no sheaf at hand any
    allocation, GFP_ATOMIC too (7.3 backs off only for kmalloc_nolock()), allocates an
    empty sheaf with its gfp and refills it (sheaf_alloc, sheaf_refill), then pops it
    (alloc_fastpath); so does a request for this cpu's own node by number."""
    name = hooked_cache(64)
    cap = hooked.cache_get(name)["sheaf_capacity"]
    d = hold_one(hooked, name, case)
    assert d["alloc_fastpath"] == 1 and d["alloc_slowpath"] == 0, d
    assert d["sheaf_alloc"] == 1 and d["sheaf_refill"] == cap, d


def test_full_main_without_an_empty_sheaf_is_flushed_whole(hooked, hooked_cache):
    """7.3's __pcs_replace_full_main(): a full main with no spare, no empty sheaf in the
    barn and none to be allocated is flushed whole (sheaf_try_flush_main(), 32 objects
    at a time), then takes the free."""
    name = hooked_cache(64)
    cap = hooked.cache_get(name)["sheaf_capacity"]
    assert cap > 32
    h = hooked.obj_alloc(name, 3 * cap, cpu=0)
    hooked.cache_shrink(name)           # cpu 0: an empty main, no spare; empty barns
    before = hooked.cache_get(name)["stats"]
    fail_sheaf_allocs(1000)
    hooked.obj_free(h, cpu=0, count=cap + 1)
    fail_sheaf_allocs(0)
    c = hooked.cache_get(name)
    assert c["stats"]["sheaf_flush"] - before["sheaf_flush"] == cap, c["stats"]
    assert c["layers"]["sheaf_main"] == 1, c["layers"]
    hooked.obj_free(h, cpu=0)


@pytest.mark.parametrize("pattern", ["batch", "remote"])
def test_capacity_changes_under_frees_leave_no_sheaf_of_an_old_capacity(
        hooked, hooked_cache, pattern):
    """sheaf_capacity changed several times while every cpu allocates and frees: after
    each change (and after the storm) every cpu's main and spare and every barn sheaf is
    of the new capacity (the selftest case sheaf_capacity checks them under their
    locks). A cpu already given its new main, whose main filled before the change had
    emptied the barns, used to take an empty barn sheaf of the old capacity as its main
    (replace_full_main(), barn_trade_full()) and keep it for good."""
    from test_core_concurrency import while_storm
    name = hooked_cache(64, min_partial=0)
    caps = (4, 60, 8, 30, 4)

    def change(i):
        for cap in caps:
            hooked.cache_set(name, sheaf_capacity=cap)
            selftest(name, "sheaf_capacity")

    r, rounds = while_storm(hooked, name, pattern, change, ms=3000, batch=16, ring=64)
    assert r["state"] == "done" and r["result"]["failures"] == 0, r
    selftest(name, "sheaf_capacity")
    c = consistent(hooked, name)
    assert c["sheaf_capacity"] == caps[-1] and c["gauges"]["objects"] == 0, c
    # the cache goes on with sheaves of the last capacity
    h = hooked.obj_alloc(name, 40, cpu=0)
    hooked.obj_free(h, cpu=0)
    selftest(name, "sheaf_capacity")
    ly = hooked.cache_get(name)["layers"]
    # the layers sum every cpu's main and spare: the storm's frees leave free objects in
    # the other cpus' sheaves too (6 + 8 with a capacity of 4 was seen on 2 cpus)
    assert 0 < ly["sheaf_main"] + ly["sheaf_spare"] <= 2 * caps[-1] * (os.cpu_count() or 1), ly


PCS_HELD_BULK = 8       # design_sheaves.c's SELFTEST_BULK


def test_sheaves_lock_held_sends_allocations_and_frees_to_the_slabs(hooked, hooked_cache):
    """7.3's local_trylock() fallback: an allocation or free (one object, or in bulk)
    that finds its cpu's sheaves lock held by the context it interrupted goes to the
    slabs (alloc_slowpath, free_slowpath) and leaves the sheaves as they were. The
    selftest case pcs_held takes the lock and allocates and frees inside it."""
    name = hooked_cache(64)
    h = hooked.obj_alloc(name, 100)
    hooked.obj_free(h)                  # some objects in the sheaves
    before = hooked.cache_get(name)
    try:
        selftest(name, "pcs_held")
    except OSError as e:
        if e.errno == errno.EOPNOTSUPP:
            pytest.skip("no local_trylock_t (before 6.16): the sheaves lock is "
                        "local_lock_irqsave(), no interrupt gets in")
        raise
    after = hooked.cache_get(name)
    d = {k: after["stats"][k] - before["stats"][k] for k in after["stats"]}
    assert d["alloc_slowpath"] == d["free_slowpath"] == 1 + PCS_HELD_BULK, d
    assert d["alloc_fastpath"] == d["free_fastpath"] == 0, d
    for k in ("sheaf_main", "sheaf_spare", "barn"):
        assert after["layers"][k] == before["layers"][k], (before["layers"], after["layers"])


# ------------------------------------ the slabs under the sheaves, as 7.3.4 takes them

def partial_lists(name):
    """{node: [free objects of each node partial slab, head first]} (selftest_partial)."""
    lists = {}
    for line in dbg(name, "selftest_partial").splitlines():
        nid, _, rest = line.partition(":")
        lists[int(nid)] = [int(x) for x in rest.split()]
    return lists


def test_a_refill_puts_the_slab_it_used_part_of_at_the_tail(hooked, hooked_cache):
    """7.3.4's __refill_objects_node(): a refill takes whole slabs off the head of the
    node's partial list, their freelists, and gives the last one's surplus back, that
    slab going to the tail, so that the next refill starts at the slab after it. Two
    partial slabs, half free each (A at the head, B after it), sheaves of a quarter
    slab: the first refill leaves [B, A less a sheaf], the second [A, B] both less a
    sheaf. (Taking a sheaf's worth off the head slab and leaving it there gave
    [A less a sheaf, B], then [A less two sheaves, B].)"""
    name = hooked_cache(256, sheaf_capacity=0)      # no sheaves: straight to the slabs
    n = hooked.cache_get(name)["objs_per_slab"]
    half, cap = n // 2, n // 4
    assert cap >= 1 and half > cap, n
    ha = hooked.obj_alloc(name, n, cpu=0)           # slab A, full
    hb = hooked.obj_alloc(name, n, cpu=0)           # slab B, full
    assert partial_lists(name) == {}
    hooked.obj_free(ha, cpu=0, count=half)          # A partial: onto the list
    hooked.obj_free(hb, cpu=0, count=half)          # B after it
    (nid, lst), = partial_lists(name).items()
    assert lst == [half, half], lst
    hooked.cache_set(name, sheaf_capacity=cap)      # every cpu: an empty main, no spare
    before = hooked.cache_get(name)["stats"]
    h1 = hooked.obj_alloc(name, 1, cpu=0)           # a refill: all of A's, A to the tail
    assert partial_lists(name) == {nid: [half, half - cap]}, partial_lists(name)
    h2 = hooked.obj_alloc(name, cap, cpu=0)         # main's rest, then B's refill
    assert partial_lists(name) == {nid: [half - cap, half - cap]}, partial_lists(name)
    st = hooked.cache_get(name)["stats"]
    assert st["sheaf_refill"] - before["sheaf_refill"] == 2 * cap, st
    assert st["alloc_slab"] == before["alloc_slab"], st
    for h in (h2, h1, hb, ha):
        hooked.obj_free(h, cpu=0)


def test_a_refill_beyond_the_partial_slabs_takes_them_all_then_a_new_slab(
        hooked, hooked_cache):
    """refill_objects(): when the partial slabs hold fewer free objects than the sheaf
    needs, every one is taken whole (off the list, full) and a new slab gives the rest,
    its leftover going to the head of the list (alloc_from_new_slab())."""
    name = hooked_cache(256, sheaf_capacity=0)
    n = hooked.cache_get(name)["objs_per_slab"]
    ha = hooked.obj_alloc(name, n, cpu=0)
    hooked.obj_free(ha, cpu=0, count=2)             # A: 2 free objects
    hooked.cache_set(name, sheaf_capacity=n // 2)
    before = hooked.cache_get(name)["stats"]
    h = hooked.obj_alloc(name, 1, cpu=0)
    (nid, lst), = partial_lists(name).items()
    assert lst == [n - (n // 2 - 2)], lst            # the new slab's leftover; A is full
    st = hooked.cache_get(name)["stats"]
    assert st["alloc_slab"] - before["alloc_slab"] == 1, st
    hooked.obj_free(h, cpu=0)
    hooked.obj_free(ha, cpu=0)


def test_a_returned_sheaf_is_the_spare_of_a_cpu_without_main(hooked, hooked_cache):
    """7.3.4's kmem_cache_return_sheaf() makes the sheaf the cpu's spare whenever the
    cpu has none. A capacity change that could allocate no sheaf leaves the cpus
    without main; a prefilled sheaf given back on one becomes its spare
    (sheaf_return_fast), and the next prefill takes it (sheaf_prefill_fast)."""
    name = hooked_cache(64)
    cap = hooked.cache_get(name)["sheaf_capacity"] // 2
    fail_sheaf_allocs(1 << 20)
    try:
        with pytest.raises(slablab.OperationFailed) as e:
            hooked.cache_set(name, sheaf_capacity=cap)
    finally:
        fail_sheaf_allocs(0)
    assert e.value.errno == errno.ENOMEM and "got no sheaf" in e.value.extack, e.value
    before = hooked.cache_get(name)["stats"]
    r = hooked.storm("slablab", "prefill", cache=name, threads=1, cpus="0", ops=2 * 16,
                     batch=16)
    assert r["result"]["failures"] == 0, r
    st = hooked.cache_get(name)["stats"]
    d = {k: st[k] - before[k] for k in st}
    assert (d["sheaf_prefill_slow"], d["sheaf_prefill_fast"]) == (1, 1), d
    assert (d["sheaf_return_fast"], d["sheaf_return_slow"]) == (2, 0), d


def test_a_prefill_of_no_objects_lends_no_sheaf(hooked, hooked_cache):
    """7.3.4's kmem_cache_prefill_sheaf() returns NULL for a size of 0, counting
    nothing (the selftest case prefill_zero fails with EEXIST when a sheaf is lent)."""
    name = hooked_cache(64)
    before = hooked.cache_get(name)["stats"]
    selftest(name, "prefill_zero")
    st = hooked.cache_get(name)["stats"]
    for k in ("sheaf_prefill_fast", "sheaf_prefill_slow", "sheaf_prefill_oversize",
              "sheaf_alloc", "sheaf_refill", "sheaf_return_fast", "sheaf_return_slow"):
        assert st[k] == before[k], (k, before, st)

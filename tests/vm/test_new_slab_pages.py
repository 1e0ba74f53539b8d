# SPDX-License-Identifier: GPL-2.0
"""How a new slab's pages are asked for (backend.c's new_slab_alloc_pages()), seen
through the selftest_new_slab_gfp hook (the gfp of a cache's last page request, as the
kernel's %pGg names it) and, on the debug kernel, the page allocator's own fault
injection (fail_page_alloc):

- the slub and sheaves designs as SLUB's allocate_slab() (6.1 mm/slub.c:1946, 7.3.4
  mm/slub.c:3458): the cache's order first with __GFP_NOWARN | __GFP_NORETRY and no
  __GFP_NOFAIL, and above the minimum order, for a caller that may reclaim, without
  __GFP_RECLAIM and with __GFP_NOMEMALLOC; then the minimum order with the caller's gfp;
- the slab design as SLAB 6.1's kmem_getpages() (mm/slab.c:1363): one attempt at the
  cache's order with the caller's gfp, no smaller order.

The module is reloaded with selftests=1 for the file (and without after it)."""
import errno
import os

import pytest
import slablab

from helpers import consistent, dbg, reload
from test_hostile import FAIL_PAGE, Failing

needs_fail_page_alloc = pytest.mark.skipif(
    not os.path.isdir(FAIL_PAGE),
    reason="needs CONFIG_FAIL_PAGE_ALLOC with debugfs: the debug kernel "
           "(make test KERNEL=debug)")
# 6.1's gfp_exact_node() (the slab design's refill grow) exists with CONFIG_NUMA only
NUMA = os.path.isdir("/sys/devices/system/node")


@pytest.fixture(scope="module")
def hooked():
    """The module reloaded with its test hooks (selftests=1), and without them after."""
    c = reload("selftests=1")
    yield c
    reload()


@pytest.fixture
def cache(hooked):
    """cache(size, design, **tunables) -> name; validated and destroyed afterwards."""
    made: list[str] = []

    def make(size, design, **tunables):
        name = f"pages{len(made)}-{design}-{size}"
        hooked.cache_create(name, size, design=design, **tunables)
        made.append(name)
        return name

    yield make
    for name in made:
        report = hooked.cache_validate(name)
        assert report["errors"] == 0, report
        hooked.cache_destroy(name)


def refill_gfp(design, gfp):
    """The gfp a design's slab layer is asked with for a GFP_KERNEL allocation: the
    sheaves' refill adds __GFP_NOMEMALLOC | __GFP_NOWARN (7.3.4 mm/slub.c:4774)."""
    return gfp | {"__GFP_NOMEMALLOC", "__GFP_NOWARN"} if design == "sheaves" else gfp


def new_slab_gfp(name):
    """The gfp of the cache's last page request for a slab, as the kernel's flag names."""
    return set(dbg(name, "selftest_new_slab_gfp").split("|"))


# GFP_KERNEL as SLUB's first attempt above the minimum order asks: reclaim dropped,
# __GFP_NOMEMALLOC, __GFP_NOWARN and __GFP_NORETRY added, __GFP_COMP (s->allocflags)
HIGH_ORDER_GFP_KERNEL = {"__GFP_IO", "__GFP_FS", "__GFP_NOWARN", "__GFP_COMP",
                         "__GFP_NORETRY", "__GFP_NOMEMALLOC"}


@pytest.mark.parametrize("design", ["slub", "sheaves"])
def test_a_high_order_slab_is_asked_for_without_reclaim(hooked, cache, design):
    """2 KiB objects get order-3 slabs, order 0 at least. A GFP_KERNEL allocation's new
    slab is asked for at order 3 with neither direct reclaim nor kswapd (no compaction
    for a high order where order 0 would do) and never from the reserves; with the page
    allocator's free order-3 pages of a fresh guest that attempt succeeds."""
    name = cache(2048, design)
    c = hooked.cache_get(name)
    assert c["order"] == 3, c["order"]
    h = hooked.obj_alloc(name, 1, cpu=0)
    c = consistent(hooked, name)
    assert c["stats"]["order_fallback"] == 0, \
        "an order-3 page could not be had: the gfp below is the fallback's"
    assert c["gauges"]["pages"] == c["gauges"]["slabs"] << 3, c["gauges"]
    assert new_slab_gfp(name) == HIGH_ORDER_GFP_KERNEL, new_slab_gfp(name)
    hooked.obj_free(h, cpu=0)


@pytest.mark.parametrize("design", ["slub", "sheaves"])
def test_a_slab_of_the_minimum_order_may_reclaim_but_not_retry(hooked, cache, design):
    """A cache whose order is its minimum (64-byte objects at order 0): SLUB's first
    attempt keeps the caller's reclaim (it is already the smallest order) but still
    adds __GFP_NOWARN | __GFP_NORETRY; only if that fails does the second ask with the
    caller's gfp as it is."""
    name = cache(64, design)
    assert hooked.cache_get(name)["order"] == 0
    h = hooked.obj_alloc(name, 1, cpu=0)
    assert consistent(hooked, name)["stats"]["order_fallback"] == 0
    assert new_slab_gfp(name) == refill_gfp(design, {"GFP_KERNEL", "__GFP_NOWARN",
                                                     "__GFP_COMP", "__GFP_NORETRY"}), \
        new_slab_gfp(name)
    hooked.obj_free(h, cpu=0)


@needs_fail_page_alloc
@pytest.mark.parametrize("design", ["slub", "sheaves"])
def test_the_fallback_asks_with_the_callers_gfp(hooked, cache, design):
    """With this task's page allocations of order >= 2 failing (fail_page_alloc), the
    order-3 attempts fail and the slabs come at order 0, asked for with GFP_KERNEL as
    it is (order_fallback counted for each): the sheaves' refill's gfp for that design."""
    name = cache(2048, design)
    with Failing(FAIL_PAGE, **{"min-order": "2"}):
        h = hooked.obj_alloc(name, 1)
    c = consistent(hooked, name)
    # slub: one slab; sheaves: as many as the refill of a sheaf needs, each fallen back
    slabs = c["gauges"]["slabs"]
    assert slabs >= 1 and c["stats"]["order_fallback"] == slabs, c["stats"]
    assert c["gauges"]["pages"] == slabs, c["gauges"]
    assert new_slab_gfp(name) == refill_gfp(design, {"GFP_KERNEL", "__GFP_COMP"}), \
        new_slab_gfp(name)
    hooked.obj_free(h)


def test_the_slab_design_asks_once_with_the_callers_gfp(hooked, cache):
    """SLAB's cache_grow_begin() hands kmem_getpages() the caller's gfp (the refill's:
    gfp_exact_node() of GFP_KERNEL under NUMA, GFP_KERNEL without) and adds only
    __GFP_COMP: no __GFP_NORETRY for its order-1 slabs."""
    name = cache(3000, "slab")
    c = hooked.cache_get(name)
    assert c["order"] == 1, c["order"]
    h = hooked.obj_alloc(name, 1, cpu=0)
    c = consistent(hooked, name)
    assert c["gauges"]["pages"] == 2 * c["gauges"]["slabs"] == 2, c["gauges"]
    want = ({"__GFP_IO", "__GFP_FS", "__GFP_NOWARN", "__GFP_COMP", "__GFP_THISNODE"}
            if NUMA else {"GFP_KERNEL", "__GFP_COMP"})
    assert new_slab_gfp(name) == want, new_slab_gfp(name)
    hooked.obj_free(h, cpu=0)


@needs_fail_page_alloc
def test_the_slab_design_has_no_order_fallback(hooked, cache):
    """SLAB 6.1 has no order fallback: with this task's page allocations of order >= 1
    failing, a cache of order-1 slabs cannot grow and the allocation fails (ENOMEM,
    nothing held, no slab); with order >= 2 failing the same allocation succeeds, and
    so it does once the failures stop."""
    name = cache(3000, "slab")
    assert hooked.cache_get(name)["order"] == 1
    with Failing(FAIL_PAGE, **{"min-order": "1"}):
        with pytest.raises(slablab.OperationFailed) as e:
            hooked.obj_alloc(name, 1)
    assert e.value.errno == errno.ENOMEM, e.value
    c = consistent(hooked, name)
    assert c["stats"]["order_fallback"] == 0 and c["gauges"]["slabs"] == 0, c
    with Failing(FAIL_PAGE, **{"min-order": "2"}):
        h = hooked.obj_alloc(name, 1)
    c = consistent(hooked, name)
    assert c["gauges"]["pages"] == 2 * c["gauges"]["slabs"] == 2, c["gauges"]
    assert c["stats"]["order_fallback"] == 0, c["stats"]
    hooked.obj_free(h)

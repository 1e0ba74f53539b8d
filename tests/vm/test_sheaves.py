# SPDX-License-Identifier: GPL-2.0
"""What is particular to the sheaves design (Linux 7.0's per-cpu sheaves and barns):
the default capacities, where objects go, the barn's bounds and a capacity changed at
run time. The cache suite at large runs for sheaves through conftest.DESIGNS."""
import pytest

from conftest import consistent

pytestmark = pytest.mark.parametrize("design", ["sheaves"])


def cached(c):
    ly = c["layers"]
    return ly["sheaf_main"] + ly["sheaf_spare"] + ly["barn"]


@pytest.mark.parametrize("size,capacity", [(64, 60), (256, 26), (1024, 12), (4096, 4)])
def test_default_capacity_by_object_size(client, make_cache, size, capacity):
    """7.0's calculate_sheaf_capacity(): 60, 26, 12 or 4 objects by the slot size."""
    name = make_cache(size)
    assert client.cache_get(name)["sheaf_capacity"] == capacity


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

# SPDX-License-Identifier: GPL-2.0
"""Allocator behaviour through scripted allocations: counts, per-cpu partial lists,
min_partial, shrink, validate under cross-cpu traffic, fast-path modes."""
import pytest

import slablab
from helpers import FRONT_END_VARIANTS, consistent, dbg_write, slabctl, spread

CPU_PARTIAL_STATS = ("cpu_partial_alloc", "cpu_partial_free", "cpu_partial_node",
                     "cpu_partial_drain")


def test_counts_after_alloc_and_free(client, make_cache):
    name = make_cache(64)
    h = client.obj_alloc(name, 1000, cpu=0)
    c = consistent(client, name)
    assert c["gauges"]["objects"] == 1000
    assert c["gauges"]["total_objects"] >= 1000
    assert c["gauges"]["live_bytes"] == 64000
    assert client.obj_free(h, cpu=0, count=400) == 600
    assert consistent(client, name)["gauges"]["objects"] == 600
    client.obj_free(h, cpu=0)
    assert consistent(client, name)["gauges"]["objects"] == 0


def layers_add_up(client, name):
    """The cache's objects per layer, checked against the counting identity: callers'
    objects + what the design's per-cpu layers cache + free in slabs = every slot, with
    callers' and the total as the gauges (counted elsewhere) say. Returns (layers,
    {cached layer: objects})."""
    c = client.cache_get(name, percpu=False)
    ly = c["layers"]
    cached = {k: v for k, v in ly.items() if k not in ("total", "callers", "slabs_free")}
    assert ly["callers"] == c["gauges"]["objects"], (ly, c["gauges"])
    assert ly["total"] == c["gauges"]["total_objects"], (ly, c["gauges"])
    assert ly["callers"] + sum(cached.values()) + ly["slabs_free"] == ly["total"], ly
    return ly, cached


@pytest.mark.not_slob('slob has no cached layer (its identity: test_slob_design)')
@pytest.mark.parametrize("design", FRONT_END_VARIANTS)
def test_objects_per_layer_add_up_on_a_quiet_cache(client, make_cache, design):
    """Objects held in per-cpu layers look allocated to every slab tool: the layers say
    where they are. Empty, filled, half freed (the freed ones cached by the cpu), and
    shrunk (the cpu layers flushed back to the slabs)."""
    name = make_cache(64)
    ly, cached = layers_add_up(client, name)
    assert ly["total"] == 0 and not any(cached.values()), ly
    h = client.obj_alloc(name, 1000, cpu=0)
    ly, cached = layers_add_up(client, name)
    assert ly["callers"] == 1000
    client.obj_free(h, cpu=0, count=500)
    ly, cached = layers_add_up(client, name)
    assert ly["callers"] == 500 and sum(cached.values()) > 0, ly
    client.cache_shrink(name)
    ly, cached = layers_add_up(client, name)
    assert not any(cached.values()) and ly["slabs_free"] == ly["total"] - 500, ly
    client.obj_free(h, cpu=0)
    ly, cached = layers_add_up(client, name)
    assert ly["callers"] == 0


def occupancy(client, name):
    """The cache's slab-occupancy histogram, checked for shape: contiguous buckets from
    empty (0) to full (objs_per_slab), one per count below 32 objects a slab, and as
    many slabs in it as the slabs gauge counts."""
    c = client.cache_get(name, percpu=False)
    h, objs = c["occupancy"], c["objs_per_slab"]
    assert len(h) == min(objs + 1, 32), h
    assert (h[0]["lo"], h[0]["hi"], h[-1]["lo"], h[-1]["hi"]) == (0, 0, objs, objs), h
    assert all(a["hi"] + 1 == b["lo"] and a["lo"] <= a["hi"] for a, b in zip(h, h[1:])), h
    assert sum(b["slabs"] for b in h) == c["gauges"]["slabs"], (h, c["gauges"])
    return h, c


def in_use_bounds(h):
    """The fewest and the most objects in use the histogram allows."""
    return (sum(b["lo"] * b["slabs"] for b in h), sum(b["hi"] * b["slabs"] for b in h))


@pytest.mark.not_slob('slob has no slabs: its heap pages, shared by every slob cache, '
                      'are counted by test_slob_design.py::test_page_occupancy_histogram')
@pytest.mark.parametrize("size", [512, 64])
def test_slab_occupancy_histogram(client, make_cache, design, size):
    """Known fills, after a shrink (the design's per-cpu layers back in their slabs, so
    in use per slab is what callers hold): three slabs' worth allocated, then half of it
    freed. With a bucket per count (512 bytes) the objects in use per slab add up to
    the callers' exactly; bucketed (64 bytes), within the buckets' bounds. slub packs
    three slabs' worth into three full slabs; sheaves may spread them (a sheaf refill
    takes from several slabs, and what stays in the sheaf goes back on a shrink).
    slabctl info -r shows it."""
    name = make_cache(size, min_partial=0)
    h, c = occupancy(client, name)
    assert not any(b["slabs"] for b in h)
    objs = c["objs_per_slab"]
    handle = client.obj_alloc(name, objs * 3, cpu=0)
    for held in (objs * 3, objs * 3 - objs * 3 // 2):
        if held < objs * 3:
            client.obj_free(handle, cpu=0, count=objs * 3 // 2)
        client.cache_shrink(name)
        h, c = occupancy(client, name)
        assert c["gauges"]["objects"] == held
        lo, hi = in_use_bounds(h)
        assert lo <= held <= hi, h
        if objs < 32:
            assert lo == hi == held, h
        assert not h[0]["slabs"], h         # min_partial=0: a shrink leaves no empty slab
        if design == "slub" and held == objs * 3:
            assert h[-1]["slabs"] == 3 == c["gauges"]["slabs"], h
    out = slabctl("info", "-r", name).stdout
    assert f"Slab occupancy (objects in use per slab: slabs; {c['gauges']['slabs']} slabs" in out
    client.obj_free(handle, cpu=0)


@pytest.mark.not_slob('slob has no cached layer')
@pytest.mark.skipif(__import__("os").cpu_count() < 2, reason="needs 2 cpus")
@pytest.mark.parametrize("design", FRONT_END_VARIANTS)
def test_objects_per_layer_add_up_across_cpus(client, make_cache, ncpus, design):
    """Objects spread over every cpu's layers, remote frees among them: each cpu
    allocates, the next one frees part of it. The identity holds, and the cached
    objects are found on more than one cpu's layers (a count on one cpu only would
    leave the total short)."""
    name = make_cache(192)
    objs = client.cache_get(name)["objs_per_slab"]
    handles = spread(client, name, ncpus)
    ly, cached = layers_add_up(client, name)
    assert ly["callers"] == ncpus * objs * 3
    assert sum(cached.values()) > 0, ly
    per_cpu_view = client.cache_get(name, percpu=True)["percpu"]
    assert sum(1 for p in per_cpu_view if p["cpu_slab_objects"] or p["cpu_partial_slabs"]) >= 2
    for cpu, h in enumerate(handles):
        client.obj_free(h, cpu=(cpu + 1) % ncpus)
    ly, cached = layers_add_up(client, name)
    assert ly["callers"] == 0 and ly["total"] > 0


def percpu_allocs_frees(client, name):
    """{cpu: (allocations, frees)} from the cache's per-cpu statistics."""
    out = {}
    for p in client.cache_get(name, percpu=True)["percpu"]:
        st = p["stats"]
        out[p["cpu"]] = (st["alloc_fastpath"] + st["alloc_slowpath"],
                         st["free_fastpath"] + st["free_slowpath"])
    return out


def test_scripted_allocations_run_on_the_chosen_cpu(client, make_cache, ncpus):
    """OBJ_ALLOC/OBJ_FREE with a cpu run in the storm engine's worker bound to that cpu:
    every allocation and free is counted on it and on no other cpu."""
    name = make_cache(64)
    for cpu in range(ncpus):
        before = percpu_allocs_frees(client, name)
        h = client.obj_alloc(name, 300, cpu=cpu)
        free_cpu = (cpu + 1) % ncpus
        assert client.obj_free(h, cpu=free_cpu, count=120) == 180
        after = percpu_allocs_frees(client, name)
        for c in after:
            a = after[c][0] - before.get(c, (0, 0))[0]
            f = after[c][1] - before.get(c, (0, 0))[1]
            assert a == (300 if c == cpu else 0), (c, a)
            assert f == (120 if c == free_cpu else 0), (c, f)
        client.obj_free(h, cpu=cpu)
    assert consistent(client, name)["gauges"]["objects"] == 0


def remote_free_scenario(client, name, ncpus):
    """Fill slabs on cpu 0, free them on cpu 1: full slabs turning partial remotely."""
    objs = client.cache_get(name)["objs_per_slab"]
    h = client.obj_alloc(name, objs * 40, cpu=0)
    client.obj_free(h, cpu=1, count=objs * 20)
    h2 = client.obj_alloc(name, objs * 5, cpu=1)
    client.obj_free(h, cpu=1)
    client.obj_free(h2, cpu=0)


def fill_slabs(client, name, n):
    """n handles on cpu 0 of a cache without slabs, one slab's objects each: handle i
    holds every object of slab i (the last is cpu 0's slab, with no free object left)."""
    objs = client.cache_get(name)["objs_per_slab"]
    return [client.obj_alloc(name, objs, cpu=0) for _ in range(n)]


def partial_figures(client, name):
    c = client.cache_get(name, percpu=False)
    g = c["gauges"]
    keys = CPU_PARTIAL_STATS + ("free_add_partial", "alloc_from_partial")
    return ({k: c["stats"][k] for k in keys}, (g["cpu_partial_slabs"], g["partial_slabs"]))


@pytest.mark.parametrize("design", ["slub"])   # the cpu partial lists are slub's
def test_cpu_partial_zero_keeps_the_newest_slab(client, make_cache):
    """cpu_partial=0 makes the bound 0 slabs, not the layer off (6.1 with
    CONFIG_SLUB_CPU_PARTIAL, as Debian builds: kmem_cache_has_cpu_partial() is
    !kmem_cache_debug()). A free that turns a full slab partial still freezes it onto
    the freeing cpu's list (__slab_free()); put_cpu_partial() then moves the older
    list, at the bound, to the node and keeps the new slab. A refill from the node
    takes the cpu slab and one slab more (get_partial_node(): 1 > 0 / 2)."""
    name = make_cache(128, cpu_partial=0)
    hs = fill_slabs(client, name, 4)
    client.obj_free(hs[0], cpu=0, count=1)           # slab 0: full -> partial
    st, g = partial_figures(client, name)
    assert st == dict(st, cpu_partial_free=1, cpu_partial_drain=0, free_add_partial=0), st
    assert g == (1, 0), g                            # (cpu partial slabs, node partial)
    client.obj_free(hs[1], cpu=0, count=1)           # slab 1 kept, slab 0 to the node
    st, g = partial_figures(client, name)
    assert st == dict(st, cpu_partial_free=2, cpu_partial_drain=1, free_add_partial=1), st
    assert g == (1, 1), g
    client.obj_free(hs[2], cpu=0, count=1)           # slab 2 kept, slab 1 to the node
    client.cache_shrink(name)                        # slab 2 and cpu 0's slab 3 too
    st, g = partial_figures(client, name)
    assert g == (0, 3), g
    h = client.obj_alloc(name, 1, cpu=0)
    st2, g = partial_figures(client, name)
    assert st2["alloc_from_partial"] - st["alloc_from_partial"] == 1, (st, st2)
    assert st2["cpu_partial_node"] - st["cpu_partial_node"] == 1, (st, st2)
    assert g == (1, 1), g
    for x in hs + [h]:
        client.obj_free(x, cpu=0)
    assert consistent(client, name)["gauges"]["objects"] == 0


@pytest.mark.parametrize("design", ["slub"])   # the cpu partial lists are slub's
@pytest.mark.parametrize("bound", [0, 2, 5])
def test_node_refill_takes_half_the_bound_and_one(client, make_cache, bound):
    """get_partial_node() takes the cpu slab, then slabs for the cpu partial list until
    it has taken more than half the bound in that call: bound // 2 + 1 of them (so two
    slabs in all with the bound 0). Six slabs with a free object each wait on the node
    (put there by a shrink) for one allocation on a cpu with nothing of its own."""
    name = make_cache(128)
    objs = client.cache_get(name)["objs_per_slab"]
    # the bound in slabs is DIV_ROUND_UP(cpu_partial * 2, objs) (slub_set_cpu_partial())
    client.cache_set(name, cpu_partial=(bound * objs) // 2)
    hs = fill_slabs(client, name, 7)
    for x in hs[:6]:
        client.obj_free(x, cpu=0, count=1)
    client.cache_shrink(name)
    st, g = partial_figures(client, name)
    assert g == (0, 6), g
    h = client.obj_alloc(name, 1, cpu=0)
    st2, g = partial_figures(client, name)
    taken = bound // 2 + 1
    assert st2["cpu_partial_node"] - st["cpu_partial_node"] == taken, (st, st2)
    assert g == (taken, 6 - 1 - taken), g
    for x in hs + [h]:
        client.obj_free(x, cpu=0)


@pytest.mark.parametrize("design", ["slub"])   # the cpu partial lists are slub's
@pytest.mark.skipif(__import__("os").cpu_count() < 2, reason="needs 2 cpus")
def test_cpu_partial_moves_counters(client, make_cache, ncpus):
    name = make_cache(128)                       # default cpu_partial (120 objects)
    remote_free_scenario(client, name, ncpus)
    st = consistent(client, name)["stats"]
    assert st["cpu_partial_free"] > 0
    assert st["cpu_partial_drain"] > 0           # 20 slabs overflow a 120-object list
    assert st["cpu_partial_alloc"] > 0           # cpu 1 allocated from its list


DEBUG_UNUSED_STATS = ("alloc_fastpath", "free_fastpath", "alloc_from_partial", "alloc_refill",
                      "free_frozen", "cpuslab_flush", "deactivate_full", "deactivate_empty",
                      "deactivate_to_head", "deactivate_to_tail", "deactivate_bypass",
                      *CPU_PARTIAL_STATS)


def debug_paths_only(c):
    """A slub debug cache as SLUB 6.1 runs a kmem_cache_debug() one: no cpu slab, no cpu
    partial list, and so none of their events; every object in use or in its slab."""
    st, g, ly = c["stats"], c["gauges"], c["layers"]
    for item in DEBUG_UNUSED_STATS:
        assert st[item] == 0, (item, st)
    assert g["cpu_slabs"] == 0 and g["cpu_partial_slabs"] == 0, g
    assert ly["cpu_slab"] == 0 and ly["cpu_partial"] == 0, ly


@pytest.mark.parametrize("design", ["slub"])
@pytest.mark.skipif(__import__("os").cpu_count() < 2, reason="needs 2 cpus")
def test_debug_cache_allocates_and_frees_through_the_node_list(client, make_cache):
    """6.1 (Debian's 6.1.192: alloc_single_from_partial(), alloc_single_from_new_slab(),
    free_to_partial_list()) gives a debug cache no cpu slab and no cpu partial list:
    each allocation takes one object off the first node partial slab, else a new slab
    (which goes to the list's head); each free goes to its slab under the list_lock, a
    full slab to the list's tail, an empty one freed once the node keeps min_partial.
    Slabs A B C full and D half used, frees newest first: D and C empty on cpu 1 and
    stay (min_partial 5), then with min_partial 1 B and A go back on cpu 0."""
    name = make_cache(128, debug=True)
    c = client.cache_get(name)
    objs, n = c["objs_per_slab"], c["objs_per_slab"] * 3 + c["objs_per_slab"] // 2
    assert c["min_partial"] == 5 and objs >= 4, c
    h = client.obj_alloc(name, n, cpu=0)
    c = consistent(client, name)
    debug_paths_only(c)
    st, g = c["stats"], c["gauges"]
    assert st["alloc_slowpath"] == n and st["alloc_slab"] == 4, st
    assert (g["slabs"], g["partial_slabs"]) == (4, 1), g          # A B C on no list
    assert client.obj_free(h, cpu=1, count=objs // 2 + objs) == objs * 2
    c = consistent(client, name)
    debug_paths_only(c)
    st, g = c["stats"], c["gauges"]
    assert st["free_slowpath"] == objs // 2 + objs, st
    assert (st["free_add_partial"], st["free_remove_partial"], st["free_slab"]) == (1, 0, 0), st
    assert (g["slabs"], g["partial_slabs"]) == (4, 2), g          # C back on the list
    client.cache_set(name, min_partial=1)
    client.obj_free(h, cpu=0)
    c = consistent(client, name)
    debug_paths_only(c)
    st, g = c["stats"], c["gauges"]
    assert st["free_slowpath"] == n, st
    assert (st["free_add_partial"], st["free_remove_partial"], st["free_slab"]) == (3, 2, 2), st
    assert (g["slabs"], g["partial_slabs"], g["objects"]) == (2, 2, 0), g
    h = client.obj_alloc(name, objs + 1, cpu=1)                   # D, then C: no new slab
    c = consistent(client, name)
    debug_paths_only(c)
    assert c["stats"]["alloc_slab"] == 4 and c["gauges"]["partial_slabs"] == 1, c
    client.obj_free(h, cpu=1)


@pytest.mark.parametrize("design", ["slub"])
@pytest.mark.parametrize("fastpath", ["cmpxchg", "irqoff"])
def test_debug_cache_bulk_and_either_fast_path_miss(client, make_cache, fastpath):
    """Whatever the fast path mode, and in bulk (the handle's rollback frees in bulk
    when an allocation fails: fail_slab_every), a debug cache's objects never pass
    through a cpu freelist."""
    name = make_cache(64, debug=True, fastpath=fastpath)
    objs = client.cache_get(name)["objs_per_slab"]
    h = client.obj_alloc(name, objs * 2)
    dbg_write(name, "fail_slab_every", 2)                       # the 4th slab fails
    with pytest.raises(slablab.Error):
        client.obj_alloc(name, objs * 2, cpu=0)
    dbg_write(name, "fail_slab_every", 0)
    c = consistent(client, name)
    debug_paths_only(c)
    assert c["gauges"]["objects"] == objs * 2, c
    client.obj_free(h)
    debug_paths_only(consistent(client, name))


def test_cpu_partial_change_takes_effect_at_once(client, make_cache):
    name = make_cache(128)
    remote_free_scenario(client, name, 2)
    client.cache_set(name, cpu_partial=0)
    assert client.cache_get(name)["gauges"]["cpu_partial_slabs"] == 0


@pytest.mark.not_slob('slob keeps no empty pages: no min_partial')
@pytest.mark.parametrize("min_partial", [0, 3, 5, 9])
def test_min_partial_holds_after_shrink(client, make_cache, design, min_partial):
    name = make_cache(256, min_partial=min_partial)
    objs = client.cache_get(name)["objs_per_slab"]
    h = client.obj_alloc(name, objs * 30, cpu=0)
    client.obj_free(h, cpu=0)
    before = client.cache_get(name)["gauges"]["slabs"]
    freed = client.cache_shrink(name)
    g = consistent(client, name)["gauges"]
    assert g["objects"] == 0
    if design == "slab":
        # SLAB's shrink frees every free slab: min_partial is not SLAB's
        assert g["slabs"] == g["partial_slabs"] == 0
    elif design == "slub":
        # cpu slabs are flushed off every list: each empty one is checked against a
        # node list that does not count it
        assert g["slabs"] == g["partial_slabs"] == min_partial
    else:
        # sheaves give objects back to slabs on the node list: a free that empties one
        # counts it among the min_partial it compares with (__slab_free()), so one less
        # may stay
        assert g["slabs"] == g["partial_slabs"] and min_partial - 1 <= g["slabs"] <= min_partial
    assert g["cpu_slabs"] == 0 and g["cpu_partial_slabs"] == 0
    assert freed == before - g["slabs"], (before, freed, g)   # a quiet cache: exact
    client.cache_set(name, min_partial=0)
    client.cache_shrink(name)
    g = client.cache_get(name)["gauges"]
    assert g["slabs"] == 0 and g["pages"] == 0


@pytest.mark.not_slob('slob has no slabs')
def test_shrink_keeps_partially_used_slabs(client, make_cache, design):
    name = make_cache(512, min_partial=0)
    objs = client.cache_get(name)["objs_per_slab"]
    keep = client.obj_alloc(name, objs * 4 + 1, cpu=0)
    slabs = 5
    if design == "sheaves":
        # the refills took whole sheaves off fresh slabs, LIFO: the last sheaf's bottom
        # (objects of an earlier slab) goes back unallocated, and every slab a refill
        # touched keeps objects in use
        cap = client.cache_get(name)["sheaf_capacity"]
        slabs = -(-(-(-(objs * 4 + 1) // cap) * cap) // objs)
    client.cache_shrink(name)
    g = consistent(client, name)["gauges"]
    assert g["objects"] == objs * 4 + 1 and g["slabs"] == slabs
    client.obj_free(keep)


@pytest.mark.not_slob('slob has no fast path')
@pytest.mark.parametrize("fastpath", ["cmpxchg", "irqoff"])
@pytest.mark.parametrize("size", [8, 192, 4096])
def test_cross_cpu_traffic_validates_clean(client, make_cache, design, ncpus, fastpath, size):
    name = make_cache(size, fastpath=fastpath)
    handles = {}                                  # handle -> [cpu, objects held]
    for round_ in range(3):
        for cpu in range(ncpus):
            n = 300 + 50 * cpu
            handles[client.obj_alloc(name, n, cpu=cpu)] = [cpu, n]
        # every handle gives back 100 objects on the next cpu each round
        for h, held in list(handles.items()):
            held[1] = client.obj_free(h, cpu=(held[0] + 1) % ncpus, count=100)
            if not held[1]:
                del handles[h]
        report = client.cache_validate(name)
        assert report["errors"] == 0, report
        assert report["free_objects"] + consistent(client, name)["gauges"]["objects"] \
            == report["objects"]
    for h, (cpu, _) in handles.items():
        client.obj_free(h, cpu=(cpu + 2) % ncpus)
    c = consistent(client, name)
    assert c["gauges"]["objects"] == 0
    if design == "slab" and c["objs_per_slab"] == 1:
        # SLAB's one-object slabs (4096 B at order 0) refill an array one object at a
        # time, and each round's validate flushes the arrays its frees filled: every
        # allocation misses
        assert c["stats"]["alloc_fastpath"] == 0
        assert c["stats"]["allocmiss"] == c["stats"]["alloc_slowpath"] > 0
    else:
        assert c["stats"]["alloc_fastpath"] > 0
    # slub frees remote objects to their slabs; sheaves take them and flush sheaves;
    # slab's arrays overflow (freemiss, counted as free_slowpath)
    assert c["stats"]["sheaf_flush" if design == "sheaves" else "free_slowpath"] > 0


def test_fastpath_switch_while_in_use(client, make_cache):
    name = make_cache(64)
    h = client.obj_alloc(name, 500, cpu=0)
    client.cache_set(name, fastpath="irqoff")
    h2 = client.obj_alloc(name, 500, cpu=0)
    client.obj_free(h, cpu=0)
    client.cache_set(name, fastpath="cmpxchg")
    client.obj_free(h2, cpu=0)
    assert client.cache_validate(name)["errors"] == 0
    assert consistent(client, name)["gauges"]["objects"] == 0


@pytest.mark.not_slob('slob pages are order 0: no slabs')
def test_order_change_applies_to_new_slabs(client, make_cache, design):
    name = make_cache(1024)
    h = client.obj_alloc(name, 10)
    before = client.cache_get(name)["gauges"]
    client.cache_set(name, order=0)
    objs0 = client.cache_get(name)["objs_per_slab"]
    assert objs0 == 4
    h2 = client.obj_alloc(name, 400)
    g = client.cache_get(name)["gauges"]
    assert g["slabs"] > before["slabs"]
    assert client.cache_validate(name)["errors"] == 0
    client.obj_free(h2)
    client.obj_free(h)


def test_handle_bounds(client, make_cache):
    name = make_cache(8192)
    with pytest.raises((ValueError, OSError)):
        client.obj_alloc(name, 0)
    with pytest.raises(OSError):      # 2^20 x 8 KiB is over the 256 MiB handle cap
        client.obj_alloc(name, 1 << 20)
    with pytest.raises(ValueError) as e:
        client.obj_alloc(name, 1, cpu=4096)
    assert "not online" in str(e.value)
    h = client.obj_alloc(name, 2)
    with pytest.raises((ValueError, OSError)):
        client.obj_free(h, count=3)
    client.obj_free(h)

# SPDX-License-Identifier: GPL-2.0
"""The allocator core while things happen at once (issue 11): tunables, validate, the
per-cpu view and statistic resets *during* storms, plus the SLUB 6.1 fidelity of
deactivate_slab's head/tail choice.

Every storm here runs for a bounded time (duration_ms) and the loop that acts on the
cache meanwhile is bounded by the storm's end; nothing sleeps to wait for a race. The
races themselves cannot be forced from user space: each test makes its window as
likely as it can in a few seconds of TCG time (one object to a slab or few, min_partial
0, so that slabs are made and freed all the time) and the debug kernel (KASAN) turns
a bad read that the stock kernel survives into a splat, which fails the VM run."""
import os
import time

import pytest

from helpers import CONCURRENCY_DESIGN_VARIANTS, CONCURRENCY_VARIANTS, DEBUGFS, consistent, dbg, dbg_write
from test_storms import alloc_free, threads_for

NCPUS = os.cpu_count() or 1
STORM_MS = 3000
WRAPPED = 1 << 48           # no count of a few seconds gets near; a wrapped one is ~2^64


@pytest.fixture(params=CONCURRENCY_DESIGN_VARIANTS)
def design(request):
    """conftest's design fixture, over the concurrency files' variants (make test's stock
    stage: the base designs, SLABLAB_CONCURRENCY_VARIANTS=base)."""
    return request.param


pytestmark = pytest.mark.usefixtures("no_storm_left")   # conftest.py


def while_storm(client, name, pattern, action, ms=STORM_MS, **kw):
    """Start a storm of `ms` on cache `name`, call action(i) until it has ended (at
    least once), return (the storm dict, rounds). The storm is stopped if action fails."""
    kw.setdefault("threads", threads_for(pattern, NCPUS))
    s = client.storm_start("slablab", pattern, cache=name, duration_ms=ms, **kw)
    rounds = 0
    try:
        deadline = time.monotonic() + ms / 1000 + 120
        while True:
            action(rounds)
            rounds += 1
            r = client.storm_get(s["id"])
            if r["state"] != "running":
                return r, rounds
            assert time.monotonic() < deadline, f"storm {s['id']} did not end: {r}"
    except BaseException:
        client.storm_stop(s["id"])
        raise


def check_after(client, name, storm, failures_ok=False):
    """The storm ended on its own, freed what it allocated, and the cache is consistent,
    empty and validates clean."""
    assert storm["state"] == "done", storm["state"]
    res = storm["result"]
    if not failures_ok:
        assert res["failures"] == 0, res
    a, f = alloc_free(res["stats"])
    assert a == f, res["stats"]
    c = consistent(client, name)
    assert c["gauges"]["objects"] == 0, c["gauges"]
    report = client.cache_validate(name)
    assert report["errors"] == 0 and report["objects"] == report["free_objects"], report
    return c


# ------------------------------------------------- defect 1: fail_slab_every read once

def test_fail_slab_every_toggled_during_new_slab(client, make_cache):
    """fail_slab_every (debugfs) flipped between 0 and 1 while a storm needs a new slab
    for every allocation (one 4 KiB object to an order-0 slab, min_partial 0).
    new_slab() read the knob twice, testing one value and dividing by the next: 0 there
    was a divide error, a kernel crash."""
    name = make_cache(4096, order=0, cpu_partial=0, min_partial=0)
    path = f"{DEBUGFS}/caches/{name}/fail_slab_every"

    def flip(i):
        for _ in range(40):
            with open(path, "w") as f:
                f.write("1")
            with open(path, "w") as f:
                f.write("0")

    r, rounds = while_storm(client, name, "batch", flip, batch=16)
    assert dbg(name, "fail_slab_every") == "0"
    assert r["result"]["stats"]["alloc_slab"] > 0, r["result"]["stats"]
    check_after(client, name, r, failures_ok=True)


# ------------------------------------------ defect 3: validate on a busy, healthy cache

@pytest.mark.parametrize("cpu_partial", [0, 2])
@pytest.mark.parametrize("pattern", ["pair", "remote", "churn"])
def test_validate_clean_while_storms_run(client, make_cache, design, pattern, cpu_partial):
    """validate, again and again, while every cpu allocates and frees: slabs in flight
    (an empty one between its last free and discard_slab(), a new one before its cpu
    froze it) are not corruption. Four objects to a slab and min_partial 0 keep slabs
    coming and going; validate's own flush adds deactivations. slab's arrays (limit 54,
    shared 8 x 27 at 1 KiB) would hold the whole working set, so that no free reached
    the node lists: small arrays and no shared one send frees to free_block(), which
    frees slabs beyond free_limit ((1 + cpus) x 2 + 4 objects) while the storm runs."""
    arrays = dict(limit=4, batchcount=2, shared=0) if design == "slab" else {}
    name = make_cache(1024, order=0, cpu_partial=cpu_partial, min_partial=0, **arrays)
    reports = []

    def check(i):
        rep = client.cache_validate(name)
        reports.append(rep)
        assert rep["errors"] == 0, rep

    r, rounds = while_storm(client, name, pattern, check, working_set=64, ring=64)
    assert rounds >= 2 and any(rep["slabs"] for rep in reports), (rounds, reports[:3])
    c = check_after(client, name, r)
    assert c["stats"]["free_slab"] > 0, c["stats"]


# The tunables each design changes under a storm besides cpu_partial/min_partial, step by
# step: slab replaces every cpu's array and every shared array (limit, batchcount,
# shared) and re-links every node's slabs (lists) while the storm's cpus use them;
# sheaves replaces every cpu's sheaves (sheaf_capacity, 0 among them: none) and flushes
# the barns' surplus (barn_max_*), with sheaves_cpu_slabs too (CONCURRENCY_VARIANTS).
DESIGN_STEPS = {
    "slab": [dict(limit=8, batchcount=4, shared=0, lists=1),
             dict(limit=54, batchcount=27, shared=8, lists=3),
             dict(limit=1, batchcount=1, shared=2, lists=1),
             dict(limit=120, batchcount=60, shared=1, lists=3)],
    "sheaves": [dict(sheaf_capacity=4, barn_max_full=0, barn_max_empty=1),
                dict(sheaf_capacity=0, barn_max_full=10, barn_max_empty=0),
                dict(sheaf_capacity=60, barn_max_full=1, barn_max_empty=10),
                dict(sheaf_capacity=13, barn_max_full=3, barn_max_empty=2)],
}


@pytest.mark.parametrize("design", CONCURRENCY_VARIANTS)
def test_validate_clean_while_tunables_change(client, make_cache, design):
    """validate interleaved with tunable changes (cpu_partial/min_partial, and each
    design's own: DESIGN_STEPS) and shrinks (each a flush of every cpu) under a
    remote-free storm; every step's values are in place after it."""
    name = make_cache(512, order=0, cpu_partial=2, min_partial=0)
    settings = [dict(cpu_partial=0, min_partial=0), dict(cpu_partial=2, min_partial=1),
                dict(cpu_partial=30, min_partial=0)]
    own = DESIGN_STEPS.get(str(design), [])
    settings = [{**settings[i % len(settings)], **(own[i % len(own)] if own else {})}
                for i in range(max(len(settings), len(own)))]

    def step(i):
        want = settings[i % len(settings)]
        client.cache_set(name, **want)
        c = client.cache_get(name)
        assert {k: c[k] for k in want} == want, c
        if i % 2:
            client.cache_shrink(name)
        rep = client.cache_validate(name)
        assert rep["errors"] == 0, rep

    r, _ = while_storm(client, name, "remote", step, ring=64)
    check_after(client, name, r)


# --------------------------------------- defect 10: the per-cpu view reads live slabs

@pytest.mark.parametrize("design", ["slub"])   # the race is on slub's cpu slab
def test_cpu_view_during_remote_frees(client, make_cache):
    """The per-cpu view (CACHE_GET's per-cpu entries, debugfs slabs_cpu_partial and
    cpu_slabs) read over and over while consumers free a producer's objects: a full cpu
    slab was unfrozen before it left c->slab, so remote frees could empty and free it
    while the view read its metadata (a use-after-free KASAN reports; on the stock
    kernel a stale count out of range, when the memory was reused). Every cpu slab of
    an order-0 cache with no fallback has 0 or objs_per_slab objects."""
    name = make_cache(1024, order=0, cpu_partial=0, min_partial=0)
    per_slab = client.cache_get(name, percpu=False)["objs_per_slab"]

    def view(i):
        c = client.cache_get(name, percpu=True)
        for p in c["percpu"]:
            assert p["cpu_slab_objects"] in (0, per_slab), (p, per_slab)
        dbg(name, "slabs_cpu_partial")
        dbg(name, "cpu_slabs")

    r, rounds = while_storm(client, name, "remote", view, ring=16)
    assert rounds >= 2
    c = check_after(client, name, r)
    assert c["stats"]["order_fallback"] == 0


# ------------------------------------ defect 5 (cache.c): per-cpu figures never wrap

def test_stats_reset_during_a_storm_never_wraps(client, make_cache):
    """Statistics reset (netlink and debugfs) while every cpu counts: a per-cpu figure
    read across a reset was `count - baseline` with the baseline newer than the count,
    a value near 2^64. Every figure, per cpu and summed, stays small."""
    name = make_cache(256, cpu_partial=0)

    def reset_and_read(i):
        if i % 2:
            client.cache_reset_stats(name)
        else:
            dbg_write(name, "alloc_fastpath", 0)
        c = client.cache_get(name, percpu=True)
        for k, v in c["stats"].items():
            assert v < WRAPPED, (k, v)
        for p in c["percpu"]:
            for k, v in p["stats"].items():
                assert v < WRAPPED, (p["cpu"], k, v)
        for item in ("alloc_fastpath", "free_fastpath"):
            for field in dbg(name, item).split():
                assert int(field.split("=")[-1]) < WRAPPED, (item, field)

    r, rounds = while_storm(client, name, "pair", reset_and_read)
    assert rounds >= 2
    assert r["state"] == "done"


# --------------------------------- fidelity: deactivate_slab's head/tail (SLUB 6.1)

@pytest.mark.skipif(NCPUS < 2, reason="needs 2 cpus for a remote free")
@pytest.mark.parametrize("design", ["slub"])   # deactivate_slab() is slub's
@pytest.mark.parametrize("remote", [False, True], ids=["local-frees", "remote-frees"])
def test_deactivate_to_tail_only_with_remote_frees(client, make_cache, remote):
    """A cpu slab goes back to the node list's tail when it had remote frees, to its
    head otherwise, whatever the cpu's own freelist holds (mm/slub.c 6.1). Objects
    taken on cpu 0, half freed back on cpu 0 (its cpu freelist) or on cpu 1 (the slab's
    freelist), then a shrink flushes cpu 0's slab."""
    name = make_cache(256, order=0, cpu_partial=0, min_partial=5)
    per_slab = client.cache_get(name, percpu=False)["objs_per_slab"]
    h = client.obj_alloc(name, per_slab // 2, cpu=0)
    client.obj_free(h, cpu=1 if remote else 0, count=per_slab // 4)
    before = client.cache_get(name, percpu=False)["stats"]
    client.cache_shrink(name)
    st = client.cache_get(name, percpu=False)["stats"]
    d = {k: st[k] - before[k] for k in ("deactivate_to_head", "deactivate_to_tail",
                                        "deactivate_remote_frees", "cpuslab_flush")}
    assert d["cpuslab_flush"] >= 1, d
    if remote:
        assert d == dict(d, deactivate_to_tail=1, deactivate_to_head=0,
                         deactivate_remote_frees=1), d
    else:
        assert d == dict(d, deactivate_to_tail=0, deactivate_to_head=1,
                         deactivate_remote_frees=0), d
    client.obj_free(h, cpu=0)


# ---------------------- kmemleak: off-slab metadata next to on-slab metadata (debug)

KMEMLEAK = "/sys/kernel/debug/kmemleak"


@pytest.mark.exclude_if(not os.path.exists(KMEMLEAK),
                        reason="kmemleak needs CONFIG_DEBUG_KMEMLEAK (the debug kernel)")
def test_kmemleak_mixed_on_and_off_slab_metadata(client, make_cache):
    """4080-byte objects: order-1 slabs (2 objects, 32 bytes left) keep their metadata
    off the slab, order-2 slabs (4 objects, 64 left) on it. With both in one cache, an
    off-slab slablab_slab's list neighbours live in pages kmemleak does not scan; it is
    still referenced from its head page's ->private, so kmemleak must not report it.
    (kmemleak reports only objects unreferenced through two scans and older than 5 s.)"""
    from test_kmemleak import involves_slablab, scan
    name = make_cache(4080, order=1, cpu_partial=0, min_partial=10)
    handles = [client.obj_alloc(name, 64, cpu=0)]
    assert client.cache_get(name, percpu=False)["gauges"]["meta_bytes"] > 0
    client.cache_set(name, order=2)
    handles.append(client.obj_alloc(name, 64, cpu=0))
    for h in handles:                       # partial slabs of both kinds on the node list
        client.obj_free(h, cpu=1 % NCPUS, count=16)
    found = [r for r in scan() if involves_slablab(r)]
    for h in handles:
        client.obj_free(h, cpu=0)
    assert not found, "\n".join(found[:3])


# ----------------------- sheaves: the capacity changes under the fast path and lent sheaves

SHEAVES = [v for v in CONCURRENCY_VARIANTS if v.values[0] == "sheaves"]


@pytest.mark.parametrize("design", SHEAVES)
@pytest.mark.parametrize("pattern", ["pair", "bulk", "prefill"])
def test_sheaf_capacity_zero_under_a_storm_leaves_no_sheaf(client, make_cache, pattern):
    """sheaf_capacity flipped between 8 and 0 while every cpu allocates and frees (one
    object at a time, in bulk, or from prefilled sheaves), ending at 0: afterwards no cpu
    and no barn holds a sheaf. A refill (or a returned prefilled sheaf) in flight across
    a change used to install its sheaf of the old capacity after the change had emptied
    the cpu, so a cache with capacity 0 went on with sheaves. Allocations from prefilled
    sheaves never fail, whatever the capacity did while they were lent."""
    name = make_cache(64, min_partial=0)

    def flip(i):
        for cap in (8, 0, 60, 0):
            client.cache_set(name, sheaf_capacity=cap)

    r, rounds = while_storm(client, name, pattern, flip, batch=16)
    assert client.cache_get(name)["sheaf_capacity"] == 0
    c = check_after(client, name, r)
    ly = c["layers"]
    assert ly["sheaf_main"] == ly["sheaf_spare"] == ly["barn"] == 0, (rounds, ly)
    assert ly.get("sheaf_prefilled", 0) == 0, ly
    # with capacity 0 nothing goes through a sheaf any more
    before = c["stats"]
    h = client.obj_alloc(name, 50, cpu=0)
    client.obj_free(h, cpu=0)
    st = client.cache_get(name)["stats"]
    assert st["alloc_fastpath"] == before["alloc_fastpath"], st
    assert st["free_fastpath"] == before["free_fastpath"], st

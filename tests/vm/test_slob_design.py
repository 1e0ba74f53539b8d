# SPDX-License-Identifier: GPL-2.0
"""What is particular to the slob design (SLOB's heap, mm/slob.c of 6.1): first fit
within a page and next fit across pages seen through the scan counters, coalescing
frees, the size-split lists (1, 2 or 3) on a size-mixed workload, and the kmalloc
classes switched between designs. The cache suite at large runs for slob through
helpers.DESIGNS."""
import json
import subprocess
import threading

import pytest

import slablab
from helpers import DEBUGFS, SLABCTL, consistent, slabctl

SLOB = pytest.mark.parametrize("design", ["slob"])


def heap():
    """debugfs slob_heap: the lab's heap, as a dict of ints."""
    with open(f"{DEBUGFS}/slob_heap") as f:
        return {k: int(v) for k, v in (line.split() for line in f)}


def stats(client, name):
    return client.cache_get(name)["stats"]


@SLOB
def test_coalescing_frees_give_pages_back(client, make_cache):
    """100-byte objects (8-aligned: a 4-byte fragment stays free after each): freeing
    them newest first merges every block with the free space after it, and a page whose
    every unit is free goes back to the page allocator at once (SLOB keeps none)."""
    name = make_cache(100)
    h = client.obj_alloc(name, 200, cpu=0)
    c = consistent(client, name)
    st = c["stats"]
    assert c["gauges"]["pages"] == st["slob_new_page"] == st["alloc_slab"] >= 5, c
    assert st["alloc_slowpath"] == 200 and st["alloc_fastpath"] == 0, st
    assert c["layers"]["total"] == c["layers"]["callers"] == 200, c["layers"]
    client.obj_free(h, cpu=0)
    c = consistent(client, name)
    st = c["stats"]
    assert c["gauges"]["pages"] == 0 and st["free_slab"] == st["alloc_slab"], c
    assert st["slob_coalesce"] >= 200 - st["free_slab"] * 2, st
    assert client.cache_validate(name)["errors"] == 0


@SLOB
def test_first_fit_then_next_fit(client, make_cache):
    """Pages P1..P3 of 256-byte objects, each full; freeing 4 objects of P1 (merged
    into one 1 KiB hole), then one each of P2 and P3, puts them on the medium list in
    the order P3, P2, P1. A 512-byte request looks at P3 and P2 (too little room) and
    takes P1's hole (first fit); P1 becomes the list's head (next fit), so the next
    512-byte request looks at P1 alone."""
    assert heap()["list_medium"] == 0, heap()
    a = make_cache(256)
    b = make_cache(512)
    h = [client.obj_alloc(a, 16, cpu=0) for _ in range(3)]     # one full page each
    st = stats(client, a)
    assert st["slob_new_page"] == 3 and heap()["list_medium"] == 0, st
    client.obj_free(h[0], cpu=0, count=4)
    assert stats(client, a)["slob_coalesce"] == 3
    client.obj_free(h[1], cpu=0, count=1)
    client.obj_free(h[2], cpu=0, count=1)
    assert heap()["list_medium"] == 3
    hb = client.obj_alloc(b, 1, cpu=0)
    st = stats(client, b)
    assert st["slob_scan"] == 3 and st["slob_new_page"] == 0, st
    assert client.cache_get(b)["gauges"]["slob_scan_max"] == 3
    hb2 = client.obj_alloc(b, 1, cpu=0)
    st = stats(client, b)
    assert st["slob_scan"] == 3 + 1 and st["slob_new_page"] == 0, st
    client.obj_free(hb2, cpu=0)
    client.obj_free(hb, cpu=0)
    for x in h:
        client.obj_free(x, cpu=0)
    assert heap()["pages"] == 0 or heap()["orphan_pages"] == 0


@SLOB
def test_orphaned_pages_count_as_freed(client, make_cache):
    """A's heap page also holds an object of B when A switches design: the page
    becomes the heap's orphan, uncharged, and A's counters must say it left A
    (alloc_slab - free_slab = its pages, 0), or A's figures stay a page high for good
    (issue 22, defect 3). The identity then holds on the new design, and the orphan
    goes back when B's object, its last, is freed."""
    a = make_cache(256)
    b = make_cache(256)
    ha = client.obj_alloc(a, 1, cpu=0)
    hb = client.obj_alloc(b, 1, cpu=0)      # next fit: on A's page, the list's head
    client.obj_free(ha, cpu=0)
    assert client.cache_get(a)["gauges"]["pages"] == 1, "B's object is not on A's page"
    assert client.cache_get(b)["gauges"]["pages"] == 0
    orphans = heap()["orphan_pages"]
    c = client.cache_set(a, design="slub")
    assert heap()["orphan_pages"] == orphans + 1, heap()
    st = stats(client, a)
    assert c["gauges"]["pages"] == c["gauges"]["slabs"] == 0, c
    assert st["alloc_slab"] - st["free_slab"] == 0, st
    h = client.obj_alloc(a, 1, cpu=0)
    c = client.cache_get(a)
    st = c["stats"]
    assert st["alloc_slab"] - st["free_slab"] == c["gauges"]["slabs"] == 1, c
    client.obj_free(h, cpu=0)
    client.obj_free(hb, cpu=0)
    assert heap()["orphan_pages"] == orphans, heap()
    st = stats(client, b)
    assert st["alloc_slab"] == st["free_slab"] == 0, st     # B never had the page


def page_occupancy(client, name):
    """The cache's page-occupancy histogram as {blocks in use: pages}, the histogram,
    and the cache."""
    c = client.cache_get(name, percpu=False)
    h = c["occupancy"]
    assert all(b["lo"] == b["hi"] for b in h), h   # below 32 a page: a bucket per count
    return {b["lo"]: b["slabs"] for b in h if b["slabs"]}, h, c


@SLOB
def test_page_occupancy_histogram(client, make_cache):
    """slob's occupancy histogram counts the heap pages charged to the cache by the
    blocks in use on them, of any cache (a heap page is shared). 256-byte objects: 16
    fill a page, so a bucket per count 0..16. Three full pages, then 8 objects freed
    from the first and 15 from the second: pages holding 16, 8 and 1. Another cache's
    objects that fit in those pages' holes take no page of their own and count on the
    pages they share. Objects of a page or more are each a full page of their own.
    slabctl info -r draws it as pages."""
    assert heap()["list_medium"] == 0, heap()
    a = make_cache(256)
    h = [client.obj_alloc(a, 16, cpu=0) for _ in range(3)]     # one full page each
    got, hist, c = page_occupancy(client, a)
    assert [b["lo"] for b in hist] == list(range(17)), hist
    assert got == {16: 3} and c["gauges"]["pages"] == 3, (got, c["gauges"])
    client.obj_free(h[0], cpu=0, count=8)
    client.obj_free(h[1], cpu=0, count=15)
    got, _, c = page_occupancy(client, a)
    assert got == {16: 1, 8: 1, 1: 1}, got
    assert client.cache_validate(a)["errors"] == 0     # blocks per page agree with units
    out = slabctl("info", "-r", a).stdout
    assert "Page occupancy (objects in use per page: pages; 3 pages)" in out, out

    b = make_cache(300)         # the medium list too: into a's holes
    hb = client.obj_alloc(b, 3, cpu=0)
    got, _, c = page_occupancy(client, a)
    assert sum(got.values()) == c["gauges"]["pages"] == 3, got
    assert sum(n * pages for n, pages in got.items()) == 16 + 8 + 1 + 3, got
    got_b, _, cb = page_occupancy(client, b)
    assert got_b == {} and cb["gauges"]["pages"] == 0, (got_b, cb["gauges"])

    big = make_cache(8192)
    hbig = client.obj_alloc(big, 3, cpu=0)
    got, hist, c = page_occupancy(client, big)
    assert [b["lo"] for b in hist] == [0, 1] and got == {1: 3}, hist
    assert c["gauges"]["pages"] == 3 * 2, c["gauges"]
    for x in [hbig, hb] + h:
        client.obj_free(x, cpu=0)
    assert page_occupancy(client, a)[0] == {}


@SLOB
def test_page_occupancy_unaligned_and_many_pages(client, make_cache):
    """100-byte objects, 8-aligned, sit 104 bytes apart: 39 fill a page, and the 4-byte
    fragments after each leave free units on a full page, which is full because no
    other block fits (bucketed: 39 is over 31 a page). 300 pages of them: the walk
    takes the heap lock 256 pages at a time and still counts every page once."""
    name = make_cache(100)
    h = client.obj_alloc(name, 39 * 300, cpu=0)
    c = client.cache_get(name, percpu=False)
    hist = c["occupancy"]
    assert len(hist) == 32 and hist[-1]["lo"] == hist[-1]["hi"] == 39, hist
    assert hist[-1]["slabs"] == 300 == c["gauges"]["pages"], (hist[-1], c["gauges"])
    assert sum(b["slabs"] for b in hist) == 300, hist
    assert client.cache_validate(name)["errors"] == 0
    client.obj_free(h, cpu=0, count=39 * 300 - 1)
    got = {(b["lo"], b["hi"]): b["slabs"] for b in client.cache_get(name)["occupancy"]
           if b["slabs"]}
    assert got == {(1, 2): 1}, got      # one page left, in the bucket of 1 (of 1-2)
    client.obj_free(h, cpu=0)


def test_page_occupancy_kmalloc_classes(client, kmalloc_back):
    """A kmalloc class on slob is measured against its largest request behind a size
    header: kmalloc-256's are 264 bytes aligned to 256 after the header, 8 a page, so
    a page of sixteen 256-byte cache allocations (no header) is full at 8. kmalloc-4096's
    cache allocations are a page each, counted as full beside its heap pages."""
    client.set_kmalloc(design="slob")
    h = client.obj_alloc("kmalloc-256", 16 * 3, cpu=0)
    h4 = client.obj_alloc("kmalloc-4096", 2, cpu=0)
    try:
        got, hist, c = page_occupancy(client, "kmalloc-256")
        assert [b["lo"] for b in hist] == list(range(9)), hist
        assert got == {8: 3} and c["gauges"]["pages"] == 3, (got, c["gauges"])
        got, hist, c = page_occupancy(client, "kmalloc-4096")
        assert got == {hist[-1]["lo"]: 2} and c["gauges"]["pages"] == 2, (hist, c["gauges"])
    finally:
        client.obj_free(h, cpu=0)
        client.obj_free(h4, cpu=0)


def mixed_pages(client, make_cache, lists):
    """Small, medium and large objects allocated interleaved, then the medium and large
    ones freed: the pages the small ones still hold."""
    small, medium, large = (make_cache(s, lists=lists) for s in (32, 300, 1500))
    keep, drop = [], []
    for _ in range(30):
        keep.append(client.obj_alloc(small, 4, cpu=0))
        drop.append(client.obj_alloc(medium, 2, cpu=0))
        drop.append(client.obj_alloc(large, 1, cpu=0))
    for x in drop:
        client.obj_free(x, cpu=0)
    pages = sum(client.cache_get(n)["gauges"]["pages"] for n in (small, medium, large))
    live = sum(client.cache_get(n)["gauges"]["live_bytes"] for n in (small, medium, large))
    assert live == 30 * 4 * 32
    for x in keep:
        client.obj_free(x, cpu=0)
    return pages


@SLOB
def test_lists_split_sizes(client, make_cache):
    """One list mixes every size in every page: the small objects left behind pin the
    pages the large ones shared; two lists (below 1 KiB / the rest) keep the large
    apart; three (SLOB_BREAK1/2) keep the medium apart too."""
    pages = {n: mixed_pages(client, make_cache, n) for n in (1, 2, 3)}
    print(f"\nslob pages holding 3840 bytes of small objects by lists: {pages}")
    assert pages[1] > pages[2] > pages[3], pages
    assert pages[3] <= 2, pages


@SLOB
def test_lists_checked_per_design(client, make_cache):
    name = make_cache(64)
    with pytest.raises(slablab.Error):
        client.cache_set(name, lists=4)
    client.cache_set(name, lists=2)
    assert client.cache_get(name)["lists"] == 2
    sub = make_cache(64, design="slub")
    with pytest.raises(slablab.Error) as e:
        client.cache_set(sub, lists=1)
    assert "slab and slob" in str(e.value)


@SLOB
def test_debug_refused(client, make_cache):
    name = make_cache(64)
    with pytest.raises(slablab.Error) as e:
        client.cache_set(name, debug=True)
    assert "no debug mode" in str(e.value)


# ---- kmalloc on any design ----

MIXED = {16: 30, 48: 20, 100: 15, 200: 10, 500: 10, 1000: 8, 3000: 4}


@pytest.fixture
def kmalloc_back(client):
    yield
    client.set_kmalloc(design="slub", lists=3)


def test_kmalloc_design_switch_busy(client, kmalloc_back):
    h = client.obj_alloc("kmalloc-64", 3, cpu=0)
    try:
        with pytest.raises(slablab.Error) as e:
            client.set_kmalloc(design="slob")
        assert "3 objects" in str(e.value), e.value
        assert client.status()["kmalloc_design"] == "slub"
    finally:
        client.obj_free(h, cpu=0)
    r = slabctl("lab", "set", "kmalloc_design=slob", "kmalloc_lists=2")
    assert "slob (lists 2)" in r.stdout, r.stdout
    s = client.status()
    assert s["kmalloc_design"] == "slob" and s["kmalloc_lists"] == 2, s
    assert all(c["design"] == "slob" for c in client.cache_list() if c["owner"] == "kmalloc")


@pytest.mark.parametrize("kdesign", ["slub", "sheaves", "slob"])
def test_kmalloc_mixed_churn_per_design(client, ncpus, kmalloc_back, kdesign):
    """A size-mixed churn storm on kmalloc on each design: pages used against live
    data (seed 003's comparison of whole allocators), beside the kernel's SLUB."""
    client.set_kmalloc(design=kdesign)
    before = heap()["pages"]
    r = client.storm("kmalloc", "churn", sizes=MIXED, seed=3, threads=ncpus, ops=4000,
                     working_set=400)
    res = r["result"]
    assert r["state"] == "done" and res["failures"] == 0, res
    pages, live = res["steady_pages"], res["steady_live_bytes"]
    assert pages > 0 and live > 0, res
    print(f"\nkmalloc on {kdesign}: {pages} pages for {live} live bytes: "
          f"{pages * 4096 / live - 1:.1%} over")
    for c in client.cache_list():
        if c["owner"] == "kmalloc":
            assert c["gauges"]["objects"] == 0, c
    if kdesign == "slob":
        assert res["stats"]["slob_header_bytes"] > 0, res["stats"]
        assert heap()["pages"] == before        # every heap page given back
    n = client.storm("native-kmalloc", "churn", sizes=MIXED, seed=3, threads=ncpus,
                     ops=4000, working_set=400)["result"]
    print(f"kernel's kmalloc: {n['steady_pages']} pages for {n['steady_live_bytes']} bytes")


# ---- the design switch against kmalloc callers in flight ----

def test_kmalloc_design_switch_races_unpinned_callers(client, kmalloc_back, tmp_path):
    """Replays on the kmalloc target do not pin the classes: they call
    slablab_kmalloc()/slablab_kfree() while lab set switches the design. The switch
    freezes the classes (callers in flight drain, new ones take pages meanwhile), so
    each switch is either refused (objects live) or done with none in flight: no crash,
    no object freed to a design that did not allocate it, every replay's identities
    hold, and the classes and the heap are left empty and valid."""
    trace = tmp_path / "tar.trace"
    slabctl("record", "-o", trace, "--buffer-kb", "4096", "--", "tar", "cf", "/dev/null",
            "/etc")
    cmd = [SLABCTL, "replay", str(trace), "--target", "kmalloc", "--json"]
    designs = ["slob", "slub", "sheaves", "slab"]
    results = []

    def replays():      # one replay at a time (the module runs one)
        for _ in range(3):
            results.append(subprocess.run(cmd, capture_output=True, text=True))

    t = threading.Thread(target=replays)
    t.start()
    done = refused = rounds = 0
    while t.is_alive() or rounds < len(designs):
        try:
            client.set_kmalloc(design=designs[rounds % len(designs)])
            done += 1
        except slablab.Error as e:
            assert "must be empty" in str(e) or "in use" in str(e), e
            refused += 1
        rounds += 1
    t.join()
    for r in results:
        assert r.returncode == 0, r.stderr
        res = json.loads(r.stdout)["replay"]
        assert res["failures"] == 0 and res["allocs"] - res["frees"] == res["live_at_end"]
    print(f"\n{rounds} switches: {done} done, {refused} refused")
    assert done > 0
    client.set_kmalloc(design="slub")
    for c in client.cache_list():
        if c["owner"] == "kmalloc":
            assert c["gauges"]["objects"] == 0, c
            assert client.cache_validate(c["name"])["errors"] == 0
    assert client.status()["kmalloc_design"] == "slub"

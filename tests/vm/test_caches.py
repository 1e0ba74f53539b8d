# SPDX-License-Identifier: GPL-2.0
"""Cache lifecycle, tunables and every bad input of issue #3, through Python, slabctl
and debugfs."""
import errno
import os

import pytest

import slablab
from conftest import DEBUGFS, consistent, dbg, dbg_write, slabctl


def test_lifecycle(client, make_cache):
    name = make_cache(100)
    c = client.cache_get(name)
    assert c["size"] == 100 and c["owner"] in ("netlink", 0)
    assert c["gauges"]["objects"] == 0 and c["gauges"]["slabs"] == 0
    assert name in {x["name"] for x in client.cache_list()}
    assert dbg(name, "object_size") == "100"
    assert int(dbg(name, "slab_size")) >= 100
    assert int(dbg(name, "min_partial")) == c["min_partial"]


def test_destroy_removes_everything(client):
    client.cache_create("gone", 64)
    h = client.obj_alloc("gone", 10)
    client.cache_destroy("gone")          # releases the handle's objects first
    assert "gone" not in {x["name"] for x in client.cache_list()}
    assert not os.path.exists(f"{DEBUGFS}/caches/gone")
    with pytest.raises(FileNotFoundError):
        client.obj_free(h)


def test_duplicate_and_unknown(client, make_cache):
    name = make_cache(64)
    with pytest.raises(FileExistsError) as e:
        client.cache_create(name, 64)
    assert "already exists" in str(e.value) and e.value.errno == errno.EEXIST
    for call in (lambda: client.cache_get("nosuch"), lambda: client.cache_destroy("nosuch"),
                 lambda: client.cache_set("nosuch", min_partial=3),
                 lambda: client.cache_shrink("nosuch"), lambda: client.obj_alloc("nosuch", 1)):
        with pytest.raises(FileNotFoundError) as e:
            call()
        assert "nosuch" in str(e.value)


@pytest.mark.parametrize("name", ["", "a/b", "x" * 32, "sp ace", "../up", "tab\t"])
def test_bad_names(client, name):
    before = len(client.cache_list())
    with pytest.raises(ValueError) as e:
        client.cache_create(name, 64)
    assert e.value.errno == errno.EINVAL
    assert len(client.cache_list()) == before


@pytest.mark.parametrize("size", [0, 7, 32769, 1 << 30])
def test_bad_sizes(client, size):
    with pytest.raises(ValueError) as e:
        client.cache_create("badsize", size)
    assert "size" in str(e.value)
    assert "badsize" not in {x["name"] for x in client.cache_list()}


@pytest.mark.parametrize("align", [3, 24, 8192])
def test_bad_align(client, align):
    with pytest.raises(ValueError) as e:
        client.cache_create("badalign", 64, align=align)
    assert "align" in str(e.value)


@pytest.mark.parametrize("tunable", [dict(cpu_partial=65537), dict(min_partial=1025),
                                     dict(order=5), dict(fastpath=2)])
def test_bad_tunables_change_nothing(client, make_cache, tunable):
    name = make_cache(128)
    before = client.cache_get(name)
    with pytest.raises(ValueError):
        client.cache_set(name, **tunable)
    after = client.cache_get(name)
    for k in ("cpu_partial", "min_partial", "order", "fastpath"):
        assert after[k] == before[k], k
    with pytest.raises(ValueError):
        client.cache_create("badtun", 128, **tunable)
    assert "badtun" not in {x["name"] for x in client.cache_list()}


def test_order_too_small_for_object(client, make_cache):
    name = make_cache(8192)
    with pytest.raises(ValueError) as e:
        client.cache_set(name, order=0, min_partial=7)
    assert "order 0" in str(e.value)
    assert client.cache_get(name)["min_partial"] != 7   # all or nothing


def test_kmalloc_caches_cannot_be_destroyed(client):
    with pytest.raises(PermissionError) as e:
        client.cache_destroy("kmalloc-64")
    assert "kmalloc" in str(e.value)


def test_tunables_apply(client, make_cache):
    name = make_cache(256)
    c = client.cache_set(name, cpu_partial=0, min_partial=7, order=2, fastpath="irqoff")
    assert (c["cpu_partial"], c["min_partial"], c["order"]) == (0, 7, 2)
    assert dbg(name, "fastpath") == "irqoff"
    assert dbg(name, "order") == "2" and dbg(name, "objs_per_slab") == str(4 * 4096 // 256)
    h = client.obj_alloc(name, 100)
    g = client.cache_get(name)["gauges"]
    assert g["pages"] == 4 * g["slabs"]
    client.obj_free(h)
    consistent(client, name)


def test_defaults_follow_policy(client, make_cache):
    import math
    for size in (8, 64, 1000, 4096):
        c = client.cache_get(make_cache(size))
        assert c["min_partial"] == min(10, max(5, int(math.log2(size)) // 2))
        stride = c["obj_stride"] if "obj_stride" in c else int(dbg(c["name"], "slab_size"))
        want = 6 if stride >= 4096 else 24 if stride >= 1024 else 52 if stride >= 256 else 120
        assert c["cpu_partial"] == want


@pytest.mark.parametrize("size,slub", [(8, "kmalloc-8"), (64, "kmalloc-64"),
                                       (192, "kmalloc-192"), (1024, "kmalloc-1k"),
                                       (4096, "kmalloc-4k"), (8192, "kmalloc-8k")])
def test_order_matches_kernel_slub(client, make_cache, size, slub):
    """slablab's kmalloc classes pick the order the running kernel's SLUB picked.

    SLUB's calculate_order() works on its slot size (slab_size), which the kernel may
    grow beyond the object: KASAN adds a red zone and its metadata (kmalloc-1k holds
    1024-byte objects in larger slots, and gets order 3 where 1024-byte slots get 2).
    Then the policy is checked on a slablab cache whose slot is SLUB's slot."""
    def slub_attr(attr):
        with open(f"/sys/kernel/slab/{slub}/{attr}") as f:
            return int(f.read().split()[0])

    slub_order, slot = slub_attr("order"), slub_attr("slab_size")
    name = f"kmalloc-{size}"
    if slot != int(dbg(name, "slab_size")):
        print(f"{slub}: slab_size {slot} for {slub_attr('object_size')}-byte objects")
        name = make_cache(slot)
        assert int(dbg(name, "slab_size")) == slot
    ours = client.cache_get(name)
    print(f"{name}: order {ours['order']} ({dbg(name, 'order_reason')}), SLUB {slub_order}")
    assert ours["order"] == slub_order


def test_flags_change_only_when_empty(client, make_cache):
    name = make_cache(64, hardened=True)
    plain = int(dbg(name, "slab_size"))
    h = client.obj_alloc(name, 3)
    with pytest.raises(slablab.Busy) as e:
        client.cache_set(name, debug=True)
    assert "3 objects" in str(e.value)
    client.obj_free(h)
    client.cache_set(name, debug=True)
    assert int(dbg(name, "slab_size")) > plain       # red zone + free pointer
    assert dbg(name, "red_zone") == "1"


def test_debugfs_writes(client, make_cache):
    name = make_cache(512)
    dbg_write(name, "cpu_partial", 10)
    dbg_write(name, "min_partial", 6)
    dbg_write(name, "fastpath", "irqoff")
    c = client.cache_get(name)
    assert (c["cpu_partial"], c["min_partial"]) == (10, 6)
    for attr, bad in (("cpu_partial", "x"), ("min_partial", "-1"), ("order", "9"),
                      ("fastpath", "fast"), ("alloc_fastpath", "5")):
        with pytest.raises(OSError):
            dbg_write(name, attr, bad)
    c2 = client.cache_get(name)
    assert (c2["cpu_partial"], c2["min_partial"], c2["order"]) == \
        (c["cpu_partial"], c["min_partial"], c["order"])


def test_stat_files_format_and_reset(client, make_cache, ncpus):
    name = make_cache(64)
    client.obj_free(client.obj_alloc(name, 50, cpu=0), cpu=0)
    line = dbg(name, "alloc_fastpath")
    total, *percpu = line.split()
    assert int(total) == sum(int(p.split("=")[1]) for p in percpu)
    assert int(total) + int(dbg(name, "alloc_slowpath").split()[0]) == 50
    assert all(p.startswith("C") for p in percpu)
    dbg_write(name, "alloc_fastpath", 0)
    assert dbg(name, "alloc_fastpath") == "0"
    # reset never breaks objects-in-use accounting
    assert client.cache_get(name)["gauges"]["objects"] == 0


def test_page_policy_switch(client):
    client.set_page_policy("page_alloc")
    try:
        assert client.status()["kmalloc_page_policy"] in ("page_alloc", 1)
        with open(f"{DEBUGFS}/kmalloc_page_policy") as f:
            assert f.read().strip() == "page_alloc"
    finally:
        client.set_page_policy("slab")
    with pytest.raises((ValueError, OSError)):
        client.set_page_policy(7)


def test_non_root_is_refused(make_cache):
    name = make_cache(64)
    r = slabctl("set", name, "min_partial=6", check=False, user=65534)
    assert r.returncode == 4, r.stderr
    assert "CAP_SYS_ADMIN" in r.stderr
    r = slabctl("create", "byuser", "--size", "64", check=False, user=65534)
    assert r.returncode == 4
    # reading is allowed
    assert slabctl("info", name, user=65534).returncode == 0


# ---- CACHE_SET is all or nothing (issue #11, defect 6)

def _settings(client, name):
    c = client.cache_get(name, percpu=False)
    return ({k: c[k] for k in ("flags", "obj_stride", "order", "order_default", "objs_per_slab",
                               "cpu_partial", "min_partial", "fastpath", "fail_slab_every")},
            {f: dbg(name, f) for f in ("slab_size", "red_zone", "order", "min_partial")})


def test_set_flags_and_order_is_all_or_nothing(client, make_cache):
    """{debug, order 0} on a 4096-byte cache: debug needs order 1, so the request is
    refused (ERANGE, naming the order) and nothing of it applies, debug included, even
    though flags are applied before the order."""
    name = make_cache(4096, debug=False)
    before = _settings(client, name)
    assert before[0]["order"] > 0 and dbg(name, "red_zone") == "0"
    with pytest.raises(ValueError) as e:
        client.cache_set(name, debug=True, order=0, min_partial=7, cpu_partial=2,
                         fastpath="irqoff")
    assert e.value.errno == errno.ERANGE and "order 0" in str(e.value), e.value
    assert _settings(client, name) == before
    # the same change with an order the debug layout can hold applies as a whole
    c = client.cache_set(name, debug=True, order=1, min_partial=7)
    assert (c["order"], c["min_partial"]) == (1, 7) and dbg(name, "red_zone") == "1"
    assert c["obj_stride"] > 4096


def test_set_order_is_checked_against_the_new_flags(client, make_cache):
    """Switching debug off and order 0 at once on a 4096-byte debug cache: order 0
    cannot hold a debug slot but holds the plain one the request asks for."""
    name = make_cache(4096, debug=True)
    assert client.cache_get(name)["obj_stride"] > 4096
    with pytest.raises(ValueError):
        client.cache_set(name, order=0)                  # debug stays: refused
    c = client.cache_set(name, debug=False, order=0)
    assert (c["order"], c["obj_stride"], c["objs_per_slab"]) == (0, 4096, 1)
    assert "debug" not in c["flags"] and dbg(name, "red_zone") == "0"
    h = client.obj_alloc(name, 5)
    client.obj_free(h)
    consistent(client, name)


def test_refused_flags_change_leaves_the_other_tunables(client, make_cache):
    """A flags change refused because the cache holds objects (EBUSY) takes the order,
    min_partial, cpu_partial and fastpath sent with it down too."""
    name = make_cache(256, debug=False)
    h = client.obj_alloc(name, 3)
    try:
        before = _settings(client, name)
        with pytest.raises(slablab.Busy):
            client.cache_set(name, debug=True, order=3, min_partial=9, cpu_partial=0,
                             fastpath="irqoff")
        assert _settings(client, name) == before
    finally:
        client.obj_free(h)


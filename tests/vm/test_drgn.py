# SPDX-License-Identifier: GPL-2.0
"""drgn finds slablab's objects (python/slablab/drgn_helpers.py): the helpers read the
running kernel's memory through /proc/kcore with the debug information of Debian's
vmlinux (scripts/kernel.sh --debuginfo, passed in as SLABLAB_VMLINUX) and of the
module, and must say what the module's own counters say — its cache list, gauges and
layers (netlink) — and where the objects that handles hold are."""
import os
import re
import subprocess
import sys
from typing import Any, Dict

import pytest

from helpers import DESIGNS, MODULE, SHEAVES_CPU_SLABS, Design, variants

drgn = pytest.importorskip("drgn", reason="python3-drgn is not installed (scripts/deps.sh)")


def _version(text):
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


# drgn finds the modules of Linux 6.4 and later (struct module's mem[]) from 0.0.23 on
if _version(os.uname().release) >= (6, 4) and _version(drgn.__version__) < (0, 0, 23):
    pytest.skip(f"drgn {drgn.__version__} cannot find modules on Linux 6.4 and later "
                "(bookworm's; trixie-backports has 0.0.31)", allow_module_level=True)

VMLINUX = os.environ.get("SLABLAB_VMLINUX", "")
if not VMLINUX or not os.path.exists(VMLINUX):
    pytest.skip("no vmlinux with debug information for this kernel (SLABLAB_VMLINUX: "
                "scripts/kernel.sh --debuginfo KERNEL fetches Debian's)",
                allow_module_level=True)

from drgn.helpers.linux.list import list_for_each_entry  # noqa: E402
from drgn.helpers.linux.mm import compound_order, virt_to_page  # noqa: E402

from slablab import drgn_helpers as dh  # noqa: E402  (needs drgn)


# The slab-backed designs, and sheaves over slub's cpu slabs (slob's heap has no slabs
# of its own: tested apart)
SLAB_DESIGNS = variants(*[Design(d) for d in DESIGNS if d != "slob"], *SHEAVES_CPU_SLABS)


@pytest.fixture(scope="module")
def prog():
    """One Program for the file: loading vmlinux's debug information takes ~7 s under
    TCG. Memory is read afresh on every access (/proc/kcore)."""
    return dh.open_program(VMLINUX, MODULE)


@pytest.fixture
def busy_cache(client, make_cache, design, ncpus):
    """A cache with objects in every layer its design has: 300 objects allocated on
    cpu 0 and 300 on the last cpu, half of the first batch freed on the last cpu (remote
    frees, partial slabs, spare sheaves, alien and shared arrays). The slab design's
    periodic reap is off: nothing may move objects between the reads compared."""
    extra = dict(reap_cpu_ms=0, reap_node_ms=0) if design == "slab" else {}
    name = make_cache(192, **extra)
    last = ncpus - 1
    a = client.obj_alloc(name, 300, cpu=0)
    client.obj_alloc(name, 300, cpu=last)
    client.obj_free(a, cpu=last, count=150)
    return name     # make_cache frees the handles and destroys the cache


def state(prog, addr):
    """Where slablab_object_info() finds ``addr``, which must be in slablab."""
    info = dh.slablab_object_info(prog, addr)
    assert info is not None, hex(addr)
    return info.state


def handle_objects(prog, name):
    """The objects the module's handles of cache ``name`` hold (handles.c's list): what
    netlink allocated, read from the module's own bookkeeping."""
    out = []
    head = prog["slablab_handles"].address_of_()
    for h in list_for_each_entry("struct slablab_handle", head, "list"):
        if h.s.name.string_().decode() == name:
            out += [h.objs[i].value_() for i in range(h.count.value_())
                    if h.objs[i].value_()]
    return out


@pytest.mark.parametrize("design", ["slub"])
def test_caches_are_the_modules(prog, client, make_cache):
    """Every cache netlink lists, and no other, with netlink's slab, slot and page
    totals summed over the slabs drgn walks."""
    make_cache(64)
    listed = {c["name"]: c for c in client.cache_list()}
    walked = {s.name.string_().decode(): s for s in dh.for_each_slablab_cache(prog)}
    assert set(walked) == set(listed)
    for name, s in walked.items():
        g = listed[name]["gauges"]
        assert dh.slablab_design(s) == listed[name]["design"], name
        if dh.slablab_design(s) == "slob":
            continue
        slabs = list(dh.for_each_slablab_slab(s))
        assert len(slabs) == g["slabs"], name
        assert sum(len(dh.slablab_slab_objects(sl)) for sl in slabs) == g["total_objects"]
        assert sum(1 << compound_order(virt_to_page(prog, dh._slab_base(sl))).value_()
                   for sl in slabs) == g["pages"], name


@pytest.mark.parametrize("design", SLAB_DESIGNS)
def test_layers_and_objects_are_the_modules(prog, client, busy_cache):
    """The cached layers drgn counts (per cpu and node, from the designs' own
    structures) are the module's layers op's, and the allocated objects it finds are
    netlink's callers, exactly: the cache is quiet."""
    info = client.cache_get(busy_cache)
    s = dh.find_slablab_cache(prog, busy_cache)
    layers = dh.slablab_cache_layers(s)
    assert set(layers) == set(info["layers"]) - {"total", "callers"}, info["layers"]
    assert layers == {k: info["layers"][k] for k in layers}, info["layers"]
    # the very objects the handles hold (handles.c's arrays), not only as many
    allocated = list(dh.slablab_cache_objects(s))
    assert len(allocated) == info["gauges"]["objects"] == 450
    assert set(allocated) == set(handle_objects(prog, busy_cache))


LAYOUTS: Dict[str, Dict[str, Any]] = {
    "plain": dict(hardened=False), "hardened": dict(hardened=True),
    "order2": dict(hardened=False, order=2)}


@pytest.mark.parametrize("design", SLAB_DESIGNS)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_objects_of_handles_are_found_allocated(prog, client, make_cache, design, layout):
    """Each object a handle holds is found in its cache, allocated, at the start of its
    slot, and they are the cache's allocated objects; each free one on a list or layer
    is found free there; addresses outside slablab (a kernel kmalloc object: the handle
    itself) are not found. The hardened cache's free pointers must be decoded with its
    key for the freelists to come out right; order-2 slabs are compound pages (an
    address in a tail page)."""
    extra = dict(reap_cpu_ms=0, reap_node_ms=0) if design == "slab" else {}
    name = make_cache(100, **LAYOUTS[layout], **extra)
    h = client.obj_alloc(name, 200, cpu=0)
    client.obj_free(h, count=50)
    held = handle_objects(prog, name)
    assert len(held) == 150
    s = dh.find_slablab_cache(prog, name)
    assert s is not None
    hardened = bool(s.flags.value_() & prog["SLABLAB_CACHE_F_HARDENED"].value_())
    assert hardened == LAYOUTS[layout]["hardened"]
    assert s.order.value_() == LAYOUTS[layout].get("order", s.order.value_())
    assert set(dh.slablab_cache_objects(s)) == set(held)
    for obj in held:
        info = dh.slablab_object_info(prog, obj + 17)
        assert info is not None and info.cache == name, hex(obj)
        assert (info.address, info.state) == (obj, "allocated"), info
    free = 0
    for slab in dh.for_each_slablab_slab(s):
        inuse, objects, frozen = dh._counters(slab)
        fl = dh.slablab_slab_freelist(slab)
        if not frozen:
            assert len(fl) == objects - inuse, hex(slab.value_())
        for obj in fl:
            assert state(prog, obj) == "slab freelist"
            free += 1
    for layer, objs in dh._cached_objects(s):
        for obj in objs:
            assert state(prog, obj) == layer
            free += 1
    assert free == client.cache_get(name)["gauges"]["total_objects"] - 150
    handle = next(h for h in list_for_each_entry(
        "struct slablab_handle", prog["slablab_handles"].address_of_(), "list")
        if h.s.name.string_().decode() == name)
    assert dh.slablab_object_info(prog, handle.value_()) is None
    assert dh.slablab_object_info(prog, prog["init_task"].address_of_().value_()) is None


@pytest.mark.parametrize("design", ["slob"])
def test_slob_blocks_are_found(prog, client, make_cache):
    """slob: a held block is allocated in a heap page; after its free, inside a free
    block (the design's unit encoding decoded)."""
    name = make_cache(100)
    h = client.obj_alloc(name, 60)
    held = handle_objects(prog, name)
    assert len(held) == 60
    for obj in held:
        info = dh.slablab_object_info(prog, obj)
        assert info is not None and info.state == "allocated" and info.cache is None, info
    # the newest 10 (handles.c frees a handle's last objects). A heap page that held
    # only some of them (the heap is every slob cache's) went back to the page allocator:
    # not found; every one still in a heap page is inside a free block
    client.obj_free(h, count=10)
    found = [dh.slablab_object_info(prog, obj) for obj in held[50:]]
    assert all(i is None or i.state == "free block" for i in found), found
    assert sum(i is not None for i in found) >= 5, found


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "slablab.drgn_helpers", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("design", ["slub"])
def test_cli(prog, client, make_cache, capsys):
    """The command line: the caches table names the cache (its own process, which loads
    the debug information itself); layers, find and slab print what the functions say;
    a cache that does not exist, an address outside slablab and a missing vmlinux fail
    with a message that says so."""
    name = make_cache(64)
    client.obj_alloc(name, 10)
    r = run_cli("--vmlinux", VMLINUX, "--module", MODULE, "caches")
    assert r.returncode == 0, r.stderr
    assert any(line.split()[0] == name for line in r.stdout.splitlines()[1:]), r.stdout
    capsys.readouterr()
    assert dh.main(["layers", name], prog) == 0
    out = capsys.readouterr().out
    s = dh.find_slablab_cache(prog, name)
    for layer, n in dh.slablab_cache_layers(s).items():
        assert f"total {layer}" in out and out.split(f"total {layer}")[1].split()[0] == str(n)
    obj = handle_objects(prog, name)[0]
    assert dh.main(["slab", hex(obj + 8)], prog) == 0
    out = capsys.readouterr().out
    assert f"address={obj:#x}" in out and "state='allocated'" in out, out
    assert dh.main(["layers", "no-such-cache"], prog) == 1
    assert "no slablab cache 'no-such-cache'" in capsys.readouterr().err
    init_task = prog["init_task"].address_of_().value_()
    assert dh.main(["find", hex(init_task)], prog) == 1
    assert "not in a slablab slab" in capsys.readouterr().out
    assert dh.main(["--vmlinux", "/nonexistent/vmlinux", "caches"]) == 1
    assert "no vmlinux with debug information" in capsys.readouterr().err

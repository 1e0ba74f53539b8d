# SPDX-License-Identifier: GPL-2.0
"""drgn helpers for slablab: its caches, slabs and free lists in a live kernel or a
crash dump, read from memory with the module's own debug information.

slablab's slabs are plain pages from the page allocator (no PG_slab, no struct slab),
so drgn's own slab helpers (``slab_object_info``, ``find_containing_slab_cache``) do
not see them; these do, the way ``drgn.helpers.linux.slab`` does for SLUB::

    $ drgn -s /usr/lib/debug/boot/vmlinux-$(uname -r) -s module/slablab.ko
    >>> from slablab.drgn_helpers import *
    >>> [c.name.string_() for c in for_each_slablab_cache(prog)]
    >>> slablab_object_info(prog, 0xffff888006a456c8)
    SlablabObjectInfo(cache='demo', slab=0xffff888006a45fc0, address=0xffff888006a456c0,
                      slot=9, state='allocated')

or ``python3 -m slablab.drgn_helpers [--vmlinux V] [--module M] [--core VMCORE] caches |
find ADDR | slab ADDR | layers CACHE`` (docs/debugging.md).

What the helpers read is what the module's own code reads (module/internal.h,
backend.h, the designs' files): a change there changes them, and tests/vm/test_drgn.py
checks them against the module's counters. They take no locks: on a live kernel a
cache that is allocating or freeing can be caught between two writes; read a quiet one
(or a crash dump). drgn 0.0.22 (bookworm's) reads kernels before 6.4; later ones need
drgn 0.0.23 or later (their modules' memory layout changed).
"""
import argparse
import os
import platform
import subprocess
import sys
from typing import Dict, Iterator, List, NamedTuple, Optional, Tuple

import drgn
from drgn import Object, Program
from drgn.helpers.linux.cpumask import for_each_possible_cpu
from drgn.helpers.linux.list import list_for_each_entry
from drgn.helpers.linux.mm import compound_head, compound_order, page_to_virt, virt_to_page
from drgn.helpers.linux.percpu import per_cpu_ptr

__all__ = (
    "SlablabObjectInfo",
    "find_slablab_cache",
    "for_each_slablab_cache",
    "for_each_slablab_slab",
    "open_program",
    "slablab_cache_layers",
    "slablab_cache_objects",
    "slablab_cpu_layers",
    "slablab_design",
    "slablab_object_info",
    "slablab_slab_freelist",
    "slablab_slab_objects",
)

# page->private of a slob heap page: its metadata pointer with this bit set (internal.h)
_SLOB_PAGE_BIT = 1


def for_each_slablab_cache(prog: Program) -> Iterator[Object]:
    """Every slablab cache (``struct slablab_cache *``), in creation order: the
    module's slablab_caches list (kmalloc's classes first, while the module is loaded)."""
    return list_for_each_entry("struct slablab_cache",
                               prog["slablab_caches"].address_of_(), "list")


def find_slablab_cache(prog: Program, name: str) -> Optional[Object]:
    """The slablab cache called ``name``, or None."""
    for s in for_each_slablab_cache(prog):
        if s.name.string_().decode() == name:
            return s
    return None


def slablab_design(cache: Object) -> str:
    """The cache's design: slub, sheaves, slab or slob (the spec's design enum)."""
    prog = cache.prog_
    for name in ("slub", "sheaves", "slab", "slob"):
        try:
            if cache.design.value_() == prog[f"SLABLAB_DESIGN_{name.upper()}"].value_():
                return name
        except KeyError:
            continue
    return f"design {cache.design.value_()}"


def for_each_slablab_slab(cache: Object) -> Iterator[Object]:
    """Every slab of the cache (``struct slablab_slab *``): its all_slabs list, which
    validate walks (the slob design has none: its pages are the heap's)."""
    return list_for_each_entry("struct slablab_slab", cache.all_slabs.address_of_(),
                               "all_list")


def _slab_base(slab: Object) -> int:
    return int(slab.base_flags.value_()) & ~(_page_size(slab.prog_) - 1)


def _page_size(prog: Program) -> int:
    return int(prog["PAGE_SIZE"].value_())


def _counters(slab: Object) -> Tuple[int, int, bool]:
    """(inuse, objects, frozen) of the slab's counters word (struct slablab_counters)."""
    word = slab.fc.word
    c = Object(word.prog_, "struct slablab_counters", address=word.address_)
    return c.inuse.value_(), c.objects.value_(), bool(c.frozen.value_())


def _free_pointer(cache: Object, obj: int) -> int:
    """The free pointer stored in free object ``obj`` (backend.h's get_fp())."""
    prog = cache.prog_
    addr = obj + cache.fp_offset.value_()
    ptr = prog.read_u64(addr)
    if cache.flags.value_() & prog["SLABLAB_CACHE_F_HARDENED"].value_():
        swab = int.from_bytes(addr.to_bytes(8, "little"), "big")
        ptr ^= cache.random.value_() ^ swab
    return int(ptr)


def _chain(cache: Object, head: int, bound: int) -> List[int]:
    """The objects of a free-pointer chain from ``head``, at most ``bound`` + 1 (a
    longer chain is corrupt or changing under us: the caller says which)."""
    out: List[int] = []
    while head and len(out) <= bound:
        out.append(head)
        head = _free_pointer(cache, head)
    return out


def slablab_slab_objects(slab: Object) -> List[int]:
    """The start of every object slot of the slab, in address order."""
    cache = slab.cache
    _, objects, _ = _counters(slab)
    base, stride = _slab_base(slab), cache.stride.value_()
    return [base + i * stride for i in range(objects)]


def slablab_slab_freelist(slab: Object) -> List[int]:
    """The free objects on the slab's own freelist (``slab->fc.freelist``), decoded as
    the back end does (hardened caches' pointers XORed with the cache's key). A frozen
    slab's cpu freelist is not here: see slablab_cpu_layers()."""
    _, objects, _ = _counters(slab)
    out = _chain(slab.cache, slab.fc.freelist.value_(), objects)
    if len(out) > objects:
        raise ValueError(f"slab {slab.value_():#x}: freelist longer than its {objects} "
                         "objects (corrupt, or the slab changed while read)")
    return out


class SlablabObjectInfo(NamedTuple):
    """Where an address is in slablab (slablab_object_info()).

    cache: the cache's name (None for a slob heap page: its blocks belong to no cache)
    slab: ``struct slablab_slab *`` (slob: ``struct slob_page *``)
    address: the start of the object slot (slob: of the block) holding the address
    slot: the slot's index in its slab (slob: the block's unit offset in its page)
    state: "allocated", or where the free object is: "slab freelist", "cpu N freelist",
        "cpu N main sheaf", "cpu N spare sheaf", "barn of node N", "cpu N array",
        "shared array of node N", "alien cache of node N", "free block" (slob)
    """
    cache: Optional[str]
    slab: Object
    address: int
    slot: int
    state: str

    def __repr__(self) -> str:
        return (f"SlablabObjectInfo(cache={self.cache!r}, slab={self.slab.value_():#x}, "
                f"address={self.address:#x}, slot={self.slot}, state={self.state!r})")


def _cache_addresses(prog: Program) -> Dict[int, Object]:
    return {s.value_(): s for s in for_each_slablab_cache(prog)}


def _cpu(cache: Object, cpu: int) -> Object:
    return per_cpu_ptr(cache.cpu, cpu)


def _sheaf_objects(sheaf: Object) -> List[int]:
    if not sheaf.value_():
        return []
    n = min(sheaf.size.value_(), sheaf.capacity.value_())
    return [sheaf.objects[i].value_() for i in range(n)]


def _array_objects(ac: Object) -> List[int]:
    """An array cache's objects, ``entry[0..avail)``, as the module counts them (an
    ``avail`` beyond any array's size says the array is corrupt or changing)."""
    if not ac.value_():
        return []
    n = ac.avail.value_()
    if n > 1 << 16:
        raise ValueError(f"array {ac.value_():#x}: avail {n} (corrupt, or changing)")
    return [ac.entry[i].value_() for i in range(n)]


def _nodes(prog: Program) -> range:
    try:
        return range(prog["nr_node_ids"].value_())
    except KeyError:    # a kernel without NUMA: one node
        return range(1)


def _cpus(prog: Program) -> Iterator[int]:
    """Every possible cpu: the module empties a cpu's state only in its dead callback,
    after the cpu has left the online mask, so a dump taken during a hot-unplug (or a
    callback waiting for slablab_mutex) still has objects there."""
    return for_each_possible_cpu(prog)


def _cpu_partial_slabs(cache: Object, c: Object) -> List[Object]:
    """A cpu's partial slabs (slab->next), at most its partial_slabs count plus one: the
    link shares a union with the node list's, so a slab moved while read must not send
    the walk round a list_head forever."""
    out: List[Object] = []
    slab = c.partial
    bound = c.partial_slabs.value_() + 1
    while slab.value_():
        if len(out) >= bound:
            raise ValueError(f"cache {cache.name.string_().decode()}: cpu partial list "
                             f"longer than its {bound - 1} slabs (changing while read?)")
        out.append(slab)
        slab = slab.next
    return out


def _cached_objects(cache: Object) -> Iterator[Tuple[str, List[int]]]:
    """(layer, free objects) of each per-cpu and per-node cache layer of the cache's
    design, as its layers op counts them (design_*.c), under ones included."""
    prog = cache.prog_
    design = slablab_design(cache)
    under_slub = design == "sheaves" and cache.under.value_()
    if design == "slub" or under_slub:
        for cpu in _cpus(prog):
            c = _cpu(cache, cpu)
            slab = c.slab
            bound = _counters(slab)[1] if slab.value_() else 0
            yield f"cpu {cpu} freelist", _chain(cache, c.ft.freelist.value_(), bound)[:bound]
    if design == "sheaves":
        for cpu in _cpus(prog):
            c = _cpu(cache, cpu)
            yield f"cpu {cpu} main sheaf", _sheaf_objects(c.main)
            yield f"cpu {cpu} spare sheaf", _sheaf_objects(c.spare)
        for nid in _nodes(prog):
            barn = cache.sheaves_state.barn[nid]
            if not barn.value_():
                continue
            objs: List[int] = []
            for sh in list_for_each_entry("struct slablab_sheaf", barn.full.address_of_(),
                                          "barn_list"):
                objs += _sheaf_objects(sh)
            yield f"barn of node {nid}", objs
    if design == "slab":
        for cpu in _cpus(prog):
            yield f"cpu {cpu} array", _array_objects(_cpu(cache, cpu).ac)
        nodes = cache.slab_design_state.nodes
        for nid in _nodes(prog) if nodes.value_() else ():
            sn = nodes.node[nid]
            if not sn.value_():
                continue
            yield f"shared array of node {nid}", _array_objects(sn.shared)
            if sn.alien.value_():
                objs = []
                for i in _nodes(prog):
                    if sn.alien[i].value_():
                        objs += _array_objects(sn.alien[i].ac.address_of_())
                yield f"alien cache of node {nid}", objs


def _rcu_objects(cache: Object) -> Iterator[Tuple[str, List[int]]]:
    """Objects freed with RCU whose grace period has not ended: each cpu's batches
    (cache.c: rcu_heads linked through ->next, whose ->func holds the head's offset in
    its object) and the sheaves' rcu_free sheaf. Allocated still, to the allocator: no
    layer counts them, but a use-after-free hunt wants to know."""
    prog = cache.prog_
    for cpu in _cpus(prog):
        c = _cpu(cache, cpu)
        for which in ("pending", "waiting"):
            objs: List[int] = []
            head = getattr(c.rcu, which)
            while head.value_() and len(objs) < 1 << 20:
                objs.append(head.value_() - head.func.value_())
                head = head.next
            yield f"cpu {cpu} RCU {which}", objs
        if slablab_design(cache) == "sheaves":
            yield f"cpu {cpu} rcu_free sheaf", _sheaf_objects(c.rcu_free)


def slablab_cpu_layers(cache: Object) -> Dict[str, int]:
    """Free objects in each cached layer of the cache, per cpu and node, by layer name
    ("cpu 0 main sheaf", "barn of node 0", ...); slablab_cache_layers() sums them as
    ``slabctl info`` names them."""
    return {layer: len(objs) for layer, objs in _cached_objects(cache)}


def slablab_cache_layers(cache: Object) -> Dict[str, int]:
    """The cache's layers as the module's layers op names them (the spec's layers
    set: slabs_free, cpu_slab, cpu_partial, sheaf_main, sheaf_spare, barn,
    sheaf_prefilled, array, shared, alien), for the layers its design has: free objects
    in each, summed over cpus and nodes. ``slabctl info NAME`` (or Client.cache_get()'s
    "layers") must say the same of a quiet cache. (total and callers are netlink's.)"""
    prog = cache.prog_
    design = slablab_design(cache)
    out: Dict[str, int] = {}
    per = slablab_cpu_layers(cache)
    if design != "slob":
        # the back end's: free objects of unfrozen slabs (a frozen one's are its cpu's)
        out["slabs_free"] = 0
        for slab in for_each_slablab_slab(cache):
            inuse, objects, frozen = _counters(slab)
            if not frozen:
                out["slabs_free"] += objects - inuse

    def add(key: str, suffix: str) -> None:
        out[key] = sum(n for layer, n in per.items() if layer.endswith(suffix))

    if design == "slub" or (design == "sheaves" and cache.under.value_()):
        # the cpu slab's free objects: its cpu freelist plus the remote frees on its own
        # freelist; a cpu partial slab's are on its freelist (design_slub.c)
        out["cpu_slab"] = out["cpu_partial"] = 0
        for cpu in _cpus(prog):
            c = _cpu(cache, cpu)
            if c.slab.value_():
                inuse, objects, _ = _counters(c.slab)
                out["cpu_slab"] += per[f"cpu {cpu} freelist"] + objects - inuse
            for slab in _cpu_partial_slabs(cache, c):
                inuse, objects, _ = _counters(slab)
                out["cpu_partial"] += objects - inuse
    if design == "sheaves":
        add("sheaf_main", "main sheaf")
        add("sheaf_spare", "spare sheaf")
        out["barn"] = sum(n for layer, n in per.items() if layer.startswith("barn"))
        # objects in prefilled sheaves out with callers: the per-cpu shares' sum (cache.c's
        # prefilled()); the sheaves themselves are the callers', not reachable from here
        out["sheaf_prefilled"] = max(0, sum(_cpu(cache, cpu).prefilled_objects.value_()
                                            for cpu in _cpus(prog)))
    if design == "slab":
        out["array"] = sum(n for layer, n in per.items() if layer.startswith("cpu "))
        out["shared"] = sum(n for layer, n in per.items() if layer.startswith("shared"))
        out["alien"] = sum(n for layer, n in per.items() if layer.startswith("alien"))
    return out


def _read_s16(prog: Program, addr: int) -> int:
    return int.from_bytes(prog.read(addr, 2), "little", signed=True)


def _slob_object_info(prog: Program, sp: Object, addr: int) -> SlablabObjectInfo:
    """A slob heap page's block holding ``addr``: free when it lies in one of the
    page's free blocks (design_slob.c's encoding: a block of one unit holds -next, a
    longer one its size, then next; units from the page's start)."""
    unit = prog.type("struct slob_block").size
    base = sp.base.value_()
    page = _page_size(prog)
    block = sp.freelist.value_()
    while block:
        first = _read_s16(prog, block)
        units = first if first > 0 else 1
        nxt = -first if first < 0 else _read_s16(prog, block + unit)
        if block <= addr < block + units * unit:
            return SlablabObjectInfo(None, sp, block, (block - base) // unit, "free block")
        # free blocks are kept in address order, the last pointing at the page's end:
        # anything else ends the walk (a torn read or corruption, never a loop)
        following = base + nxt * unit
        if following <= block or following >= base + page:
            break
        block = following
    # an allocated block's start is not recorded (SLOB keeps no object boundaries):
    # address is the address asked about
    return SlablabObjectInfo(None, sp, addr, (addr - base) // unit, "allocated")


def slablab_object_info(prog: Program, addr: int) -> Optional[SlablabObjectInfo]:
    """Where ``addr`` is in slablab: its cache, slab, slot and whether the slot is
    allocated or on which free list or cached layer it waits, or None when the address
    is in no slablab slab (nor slob heap page). A page is slablab's when its head
    page's ->private names a slab of one of the module's caches whose memory starts at
    that page (internal.h: the private word's meaning), so another user of ->private
    is never taken for one."""
    page_size = _page_size(prog)
    try:
        page = compound_head(virt_to_page(prog, addr & ~(page_size - 1)))
        private = page.private.value_()
        head = page_to_virt(page).value_()
    except drgn.FaultError:
        return None
    if not private:
        return None
    if private & _SLOB_PAGE_BIT:
        try:
            sp = Object(prog, "struct slob_page *", value=private & ~_SLOB_PAGE_BIT)
            if sp.base.value_() != head:
                return None
        except (drgn.FaultError, LookupError):
            return None
        return _slob_object_info(prog, sp, addr)
    caches = _cache_addresses(prog)
    try:
        slab = Object(prog, "struct slablab_slab *", value=private)
        if slab.cache.value_() not in caches or _slab_base(slab) != head:
            return None
    except drgn.FaultError:
        return None
    cache = caches[slab.cache.value_()]
    _, objects, _ = _counters(slab)
    size = page_size << compound_order(page).value_()
    stride = cache.stride.value_()
    index = (addr - head) // stride
    if addr >= head + size or index >= objects:
        return None     # the slab's leftover: its metadata, or nothing
    start = head + index * stride
    name = cache.name.string_().decode()
    if not any(sl.value_() == slab.value_() for sl in for_each_slablab_slab(cache)):
        # off all_slabs with its metadata still there: a typesafe-by-rcu slab waiting for
        # its grace period, or one on its way back to the page allocator
        return SlablabObjectInfo(name, slab, start, index, "slab being discarded")
    state = _free_where(cache, [slab]).get(start, "allocated")
    return SlablabObjectInfo(name, slab, start, index, state)


def _free_where(cache: Object, slabs: List[Object]) -> Dict[int, str]:
    """{object: where it waits} for the free objects of ``slabs`` and of the cache's
    layers, and the objects waiting for an RCU grace period."""
    where: Dict[int, str] = {}
    for layer, objs in _rcu_objects(cache):
        where.update((o, f"{layer} (freed, grace period not over)") for o in objs)
    for layer, objs in _cached_objects(cache):
        where.update((o, layer) for o in objs)
    for slab in slabs:
        where.update((o, "slab freelist") for o in slablab_slab_freelist(slab))
    return where


def slablab_cache_objects(cache: Object) -> Iterator[int]:
    """Every allocated object of a slab-backed cache (slub, sheaves, slab): each slot of
    each slab that is on no free list and in no cached layer. Objects waiting for an RCU
    grace period are allocated still, as the module counts them; free objects in a
    prefilled sheaf a caller holds are not reachable from the cache and come out here
    too (slablab_cache_layers()'s sheaf_prefilled counts them)."""
    free = set()
    for _, objs in _cached_objects(cache):
        free.update(objs)
    for slab in for_each_slablab_slab(cache):
        free.update(slablab_slab_freelist(slab))
        for obj in slablab_slab_objects(slab):
            if obj not in free:
                yield obj


def _running_build_id() -> Optional[str]:
    """The running kernel's GNU build ID, from /sys/kernel/notes (raw ELF notes)."""
    try:
        data = open("/sys/kernel/notes", "rb").read()
    except OSError:
        return None
    at = 0
    while at + 12 <= len(data):
        namesz, descsz, kind = (int.from_bytes(data[at + i:at + i + 4], "little")
                                for i in (0, 4, 8))
        name_at = at + 12
        desc_at = name_at + (namesz + 3) // 4 * 4
        if kind == 3 and data[name_at:name_at + namesz].rstrip(b"\0") == b"GNU":
            return data[desc_at:desc_at + descsz].hex()
        at = desc_at + (descsz + 3) // 4 * 4
    return None


def _file_build_id(path: str) -> Optional[str]:
    """A vmlinux's GNU build ID (readelf -n), or None when it cannot be read."""
    try:
        out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    return None


def open_program(vmlinux: Optional[str] = None, module: Optional[str] = None,
                 core: Optional[str] = None) -> Program:
    """A drgn Program for the running kernel (/proc/kcore, root) or a crash dump
    ``core``, with the debug information of ``vmlinux`` (default: Debian's
    linux-image-*-dbg path for this kernel, /usr/lib/debug/boot/vmlinux-RELEASE, or
    $SLABLAB_VMLINUX) and of slablab.ko (``module``, default $SLABLAB_MODULE or
    module/slablab.ko of this tree)."""
    if core and not vmlinux:
        raise FileNotFoundError("a crash dump needs its kernel's vmlinux: pass --vmlinux")
    vmlinux = vmlinux or os.environ.get("SLABLAB_VMLINUX") or \
        f"/usr/lib/debug/boot/vmlinux-{platform.release()}"
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    module = module or os.environ.get("SLABLAB_MODULE") or \
        os.path.join(here, "module", "slablab.ko")
    for what, path in (("vmlinux with debug information", vmlinux), ("slablab.ko", module)):
        if not os.path.exists(path):
            raise FileNotFoundError(f"no {what} at {path}: "
                                    + ("install linux-image-$(uname -r)-dbg, or fetch it "
                                       "with scripts/kernel.sh --debuginfo"
                                       if what.startswith("vmlinux") else
                                       "pass --module or set SLABLAB_MODULE"))
    prog = Program()
    if core:
        prog.set_core_dump(core)
    else:
        # drgn 0.0.22 takes the file it is given without comparing build IDs: DWARF of
        # another build (a re-upload under the same ABI) would read wrong addresses
        running, given = _running_build_id(), _file_build_id(vmlinux)
        if running and given and running != given:
            raise LookupError(f"{vmlinux} is not the running kernel's build (build ID "
                              f"{given}, running {running}): fetch the matching -dbg "
                              "package (rm -r the cache's debuginfo/ and run "
                              "scripts/kernel.sh --debuginfo again)")
        prog.set_kernel()
    try:
        prog.load_debug_info([vmlinux, module])
    except drgn.MissingDebugInfoError as e:
        if "core_size" in str(e):
            # struct module's core_size/init_size became mem[] in Linux 6.4; drgn reads
            # the new layout from 0.0.23 on (bookworm has 0.0.22)
            raise drgn.MissingDebugInfoError(
                f"drgn {drgn.__version__} cannot find the modules of Linux 6.4 and later "
                "(struct module has no core_size since 6.4): use drgn 0.0.23 or later "
                "(trixie-backports has it)") from None
        raise
    try:
        prog["slablab_caches"]
    except KeyError:
        raise LookupError("slablab is not loaded in this kernel (no slablab_caches): "
                          "insmod module/slablab.ko first") from None
    return prog


def _print_caches(prog: Program) -> None:
    print(f"{'cache':<20} {'design':<8} {'size':>6} {'stride':>6} {'slabs':>6} "
          f"{'objects':>8} {'pages':>6}")
    for s in for_each_slablab_cache(prog):
        print(f"{s.name.string_().decode():<20} {slablab_design(s):<8} "
              f"{s.object_size.value_():>6} {s.stride.value_():>6} "
              f"{s.nr_slabs.value_():>6} {s.total_objects.value_():>8} "
              f"{s.nr_pages.value_():>6}")


def main(argv: Optional[List[str]] = None, prog: Optional[Program] = None) -> int:
    """The command line (``python3 -m slablab.drgn_helpers -h``); ``prog``: a Program
    already open (the options that open one are then ignored)."""
    p = argparse.ArgumentParser(prog="python3 -m slablab.drgn_helpers",
                                description="slablab's caches, slabs and objects, read "
                                "with drgn from the running kernel or a crash dump")
    p.add_argument("--vmlinux", help="vmlinux with debug information (default: "
                   "/usr/lib/debug/boot/vmlinux-$(uname -r) or $SLABLAB_VMLINUX)")
    p.add_argument("--module", help="slablab.ko as loaded (default: $SLABLAB_MODULE or "
                   "this tree's module/slablab.ko)")
    p.add_argument("--core", help="a crash dump (/proc/vmcore, kdump's vmcore) instead of "
                   "the running kernel")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("caches", help="every slablab cache with its design and totals")
    f = sub.add_parser("find", help="the cache, slab, slot and state of an address")
    f.add_argument("addr", type=lambda s: int(s, 0))
    sl = sub.add_parser("slab", help="the slab holding an address: slots and freelist")
    sl.add_argument("addr", type=lambda s: int(s, 0))
    ly = sub.add_parser("layers", help="a cache's cached layers, per cpu and node")
    ly.add_argument("cache")
    args = p.parse_args(argv)
    try:
        return _run(args, prog or open_program(args.vmlinux, args.module, args.core))
    except (OSError, LookupError, ValueError, drgn.FaultError,
            drgn.MissingDebugInfoError) as e:
        print(f"slablab.drgn_helpers: {e}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace, prog: Program) -> int:
    if args.cmd == "caches":
        _print_caches(prog)
        return 0
    if args.cmd == "layers":
        cache = find_slablab_cache(prog, args.cache)
        if cache is None:
            print(f"slablab.drgn_helpers: no slablab cache {args.cache!r}", file=sys.stderr)
            return 1
        for layer, n in slablab_cpu_layers(cache).items():
            print(f"{layer:<28} {n:>8}")
        for layer, n in slablab_cache_layers(cache).items():
            print(f"{'total ' + layer:<28} {n:>8}")
        return 0
    info = slablab_object_info(prog, args.addr)
    if info is None:
        print(f"{args.addr:#x}: not in a slablab slab")
        return 1
    print(info)
    if args.cmd == "slab" and info.cache is not None:
        cache = info.slab.cache
        where = _free_where(cache, [info.slab])
        inuse, objects, frozen = _counters(info.slab)
        print(f"slab {info.slab.value_():#x} of {info.cache}: {objects} objects, {inuse} "
              "not on its own freelist" + (" (frozen: owned by a cpu)" if frozen else ""))
        for i, obj in enumerate(slablab_slab_objects(info.slab)):
            print(f"  [{i:>4}] {obj:#x} {where.get(obj, 'allocated')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

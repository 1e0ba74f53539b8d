# SPDX-License-Identifier: GPL-2.0
"""The VM suite's plain helpers: paths, the design lists the tests parametrize over,
and the functions the test files share (debugfs reads and writes, slabctl, the counting
identities, module reloads, the kernel log). Fixtures stay in conftest.py; test files
import from here (`from helpers import ...`), never from conftest."""
import os
import shutil
import subprocess
import tempfile
from typing import Dict, Optional

import pytest

import slablab

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("SLABLAB_BUILD", os.path.join(REPO, "build"))
DEBUGFS = "/sys/kernel/debug/slablab"
SLABCTL = os.path.join(BUILD, "tool", "slabctl")
if not os.path.exists(SLABCTL):
    SLABCTL = os.path.join(BUILD, "slabctl")
# Run slabctl from the guest's tmpfs: the build tree is a cache=mmap 9p mount, which every
# exec reads again (~150 ms per slabctl call under TCG; docs/slabctl.md "Start-up").
_tmp = tempfile.mkdtemp(prefix="slabctl-")
os.chmod(_tmp, 0o755)  # the tests that drop privileges run it too
SLABCTL = shutil.copy2(SLABCTL, os.path.join(_tmp, "slabctl"))
# the module the tests load again after an unload: the one vm.sh loaded (scripts/test.sh
# keeps a build a kernel, build/modules/KERNEL/, and names it in SLABLAB_MODULE)
MODULE = os.environ.get("SLABLAB_MODULE") or os.path.join(REPO, "module", "slablab.ko")


class ExactClient(slablab.Client):
    """The suite's Client: cache_get() asks for the exact layers count (root may), as
    the identities the tests check of a cache's layers (callers + cached + slabs_free =
    total) are the exact count's to prove: the racy one makes slub's cpu_slab what the
    others leave. A test of the racy count passes exact=False (test_stall.py)."""

    def cache_get(self, name, percpu=True, exact=True):
        return super().cache_get(name, percpu, exact)


# The designs a cache can have (the spec's design enum, as the module builds them): tests
# that are about caches take `design` from here, so a new design runs them all.
DESIGNS = list(slablab.DESIGNS)


class Design(str):
    """A design's name with the tunables of one of its variants: it compares equal to
    the name, so tests that ask `design == "slub"` keep working; make_cache adds the
    tunables to the caches of that design. Every list of variants below is made of
    these, so a test takes its variants from any of them the same way:
    parametrize("design", LIST) and make_cache(size)."""
    tunables: Dict[str, int]    # the variant's tunables: lists, sheaves_cpu_slabs

    def __new__(cls, name, **tunables):
        obj = super().__new__(cls, name)
        obj.tunables = tunables
        return obj

    @property
    def id(self):
        """The test id: the name, then each tunable as -key or -keyN (slab-lists1,
        sheaves-sheaves_cpu_slabs)."""
        return self + "".join(f"-{k}" + ("" if v == 1 and k != "lists" else f"{v}")
                              for k, v in self.tunables.items())

    def kwargs(self):
        """The cache tunables of this variant, design included."""
        return dict(design=str(self), **self.tunables)


def variants(*designs):
    return [pytest.param(d, id=d.id) for d in designs]


# What the `design` fixture runs the cache suite on: every design; slab a second time
# with one slab list (2.4.9's) as well as three; slob with one and two size-split free
# lists (SLOB before 2.6.25, and below/above 1 KiB) as well as three (issue 14).
# SLABLAB_DESIGN_VARIANTS=base: the designs alone, as the debug stage of `make test` runs
# them (the lists variants run the same code under KASAN and lockdep as their base, and
# take ~110 cases each; make test-full runs them on the debug kernel too).
DESIGN_VARIANTS = variants(*[Design(d) for d in DESIGNS])
if os.environ.get("SLABLAB_DESIGN_VARIANTS", "all") != "base":
    if "slab" in DESIGNS:
        DESIGN_VARIANTS += variants(Design("slab", lists=1))
    if "slob" in DESIGNS:
        DESIGN_VARIANTS += variants(*[Design("slob", lists=n) for n in (1, 2)])

# sheaves in front of slub's per-cpu slabs (sheaves_cpu_slabs, 6.18's double caching),
# where two designs' paths share the cpu's lock (on kernels without local_trylock_t;
# with it the sheaves have a lock of their own, as 7.x's).
SHEAVES_CPU_SLABS = [Design("sheaves", sheaves_cpu_slabs=1)] if "sheaves" in DESIGNS else []

# The concurrency tests run on every variant above and sheaves over slub's cpu slabs;
# SLABLAB_CONCURRENCY_VARIANTS=base: on the designs and sheaves over slub's cpu slabs
# only (make test's stock stage: a lists variant picks another list under the same locks
# and per-cpu paths as its base; ~85 s of cases; make test-full runs them).
# CONCURRENCY_DESIGN_VARIANTS: what the `design` fixture gives the concurrency files.
CONCURRENCY_DESIGN_VARIANTS = DESIGN_VARIANTS
if os.environ.get("SLABLAB_CONCURRENCY_VARIANTS", "all") == "base":
    CONCURRENCY_DESIGN_VARIANTS = variants(*[Design(d) for d in DESIGNS])
CONCURRENCY_VARIANTS = CONCURRENCY_DESIGN_VARIANTS + variants(*SHEAVES_CPU_SLABS)

# The per-cpu front ends: each design once, and sheaves over slub's cpu slabs. Tests
# about what per-cpu layers hold parametrize over FRONT_END_VARIANTS; test_stress.py
# picks front ends by index into FRONT_ENDS.
FRONT_ENDS = [Design(d) for d in DESIGNS] + SHEAVES_CPU_SLABS
FRONT_END_VARIANTS = variants(*FRONT_ENDS)


def dbg(cache, attr):
    """Read /sys/kernel/debug/slablab/caches/<cache>/<attr>."""
    with open(f"{DEBUGFS}/caches/{cache}/{attr}") as f:
        return f.read().strip()


def dbg_write(cache, attr, value):
    with open(f"{DEBUGFS}/caches/{cache}/{attr}", "w") as f:
        f.write(str(value))


def reload(*params, timeout: Optional[float] = 120):
    """Unload the module and load it again with `params` (e.g. "selftests=1"); a new
    client (clients made before are stale). `timeout`: seconds each of rmmod and insmod
    may take (None: no bound; test_rcu.py's unloads wait for pending RCU frees)."""
    subprocess.run(["rmmod", "slablab"], check=True, capture_output=True, timeout=timeout)
    subprocess.run(["insmod", MODULE, *params], check=True, capture_output=True,
                   timeout=timeout)
    return ExactClient()


def slabctl(*args, check=True, user=None):
    cmd = [SLABCTL, *map(str, args)]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if check and r.returncode != 0:
        raise AssertionError(f"{cmd} exited {r.returncode}: {r.stderr}")
    return r


def consistent(client, name, fresh=True):
    """The counting identities every quiet cache must satisfy. For a cache whose stats
    were never reset (fresh), allocations - frees = objects in use."""
    c = client.cache_get(name, percpu=True)
    g, st = c["gauges"], c["stats"]
    assert g["objects"] <= g["total_objects"]
    assert g["live_bytes"] == g["objects"] * c["size"]
    if c["design"] == "slob":
        # no slots: every object is a caller's, and the pages are those it was charged
        assert g["total_objects"] == g["objects"] and g["slabs"] == 0, c
    # pages match slabs x 2^order whenever every slab has the cache's current order
    elif c["order"] == c["order_default"] and st["order_fallback"] == 0:
        assert g["pages"] == g["slabs"] << c["order"], c
        assert g["total_objects"] == g["slabs"] * c["objs_per_slab"], c
    if fresh:
        allocs = st["alloc_fastpath"] + st["alloc_slowpath"]
        frees = st["free_fastpath"] + st["free_slowpath"]
        assert allocs - frees == g["objects"], c
    per_cpu = c.get("percpu") or []
    for item in ("alloc_fastpath", "free_slowpath", "cpu_partial_free"):
        if per_cpu:
            assert sum(p["stats"][item] for p in per_cpu) == st[item], item
    # every slot is somewhere: with callers, in a design's layer, or free in its slab
    ly = c.get("layers")
    if ly:
        cached = sum(v for k, v in ly.items() if k not in ("total", "callers", "slabs_free"))
        assert ly["callers"] == g["objects"] and ly["total"] == g["total_objects"], c
        assert ly["callers"] + cached + ly["slabs_free"] == ly["total"], ly
    return c


def spread(client, name, ncpus):
    """Objects in every cpu's layers and on their slabs, remote frees among them: each
    cpu allocates six slabs' worth, the next cpu frees two of them and the cpu itself
    one. Returns the handles (three slabs' worth each still held)."""
    objs = client.cache_get(name)["objs_per_slab"]
    handles = []
    for cpu in range(ncpus):
        h = client.obj_alloc(name, objs * 6, cpu=cpu)
        client.obj_free(h, cpu=(cpu + 1) % ncpus, count=objs * 2)
        client.obj_free(h, cpu=cpu, count=objs)
        handles.append(h)
    return handles


def online_cpus():
    """The cpus this process may run on, in order."""
    return sorted(os.sched_getaffinity(0))


def selftest(name, case):
    """Run the in-kernel test hook `case` on cache `name` (caches/<name>/selftest; the
    module loaded with selftests=1)."""
    with open(f"{DEBUGFS}/caches/{name}/selftest", "w") as f:
        f.write(case)


def kmsg_mark():
    """The kernel log's length in lines now: kmsg_since(mark) gives what came after."""
    return subprocess.run(["dmesg"], capture_output=True, text=True).stdout.count("\n")


def kmsg_since(mark):
    return "\n".join(subprocess.run(["dmesg"], capture_output=True,
                                    text=True).stdout.splitlines()[mark:])

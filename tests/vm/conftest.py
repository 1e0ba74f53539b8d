# SPDX-License-Identifier: GPL-2.0
"""Fixtures for the VM suite: it runs inside the test kernel, as root, with slablab.ko
loaded by scripts/vm.sh, the host's userland and the build tree mounted over 9p."""
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Dict

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests"))
import skip_policy  # noqa: E402
from skip_policy import (pytest_collectreport, pytest_runtest_logreport,  # noqa: E402,F401
                         pytest_runtest_logstart, pytest_sessionfinish,
                         pytest_terminal_summary)
BUILD = os.environ.get("SLABLAB_BUILD", os.path.join(REPO, "build"))

try:
    import slablab
except ImportError as e:
    pytest.exit(f"conftest: slablab is not installed for {sys.executable} ({e}): run make, "
                "and the tests with build/venv/bin/python (docs/testing.md)", returncode=4)

DEBUGFS = "/sys/kernel/debug/slablab"
SLABCTL = os.path.join(BUILD, "tool", "slabctl")
if not os.path.exists(SLABCTL):
    SLABCTL = os.path.join(BUILD, "slabctl")
# Run slabctl from the guest's tmpfs: the build tree is a cache=mmap 9p mount, which every
# exec reads again (~150 ms per slabctl call under TCG; docs/slabctl.md "Start-up").
_tmp = tempfile.mkdtemp(prefix="slabctl-")
os.chmod(_tmp, 0o755)  # the tests that drop privileges run it too
SLABCTL = shutil.copy2(SLABCTL, os.path.join(_tmp, "slabctl"))
MODULE = os.path.join(REPO, "module", "slablab.ko")
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


# Cases that are about slabs of fixed-size slots or a per-cpu layer: slob has neither
# (docs/design.md, "The slob design"). Such a test says so with
# @pytest.mark.not_slob("why"), and its slob instances are not collected (deselected,
# not skipped: nothing is missing, the case does not exist for that design).
def pytest_configure(config):
    config.addinivalue_line("markers", "not_slob(why): the case cannot apply to slob")
    skip_policy.pytest_configure(config)


def pytest_collection_modifyitems(config, items):
    skip_policy.pytest_collection_modifyitems(config, items)
    keep, dropped = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.get_closest_marker("not_slob") and params.get("design") == "slob":
            dropped.append(item)
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


_names = itertools.count()


@pytest.fixture(scope="module")
def client():
    """A Client per test file: a file that reloads the module (test_storms.py's unload
    tests, test_zz_reload.py) leaves earlier Clients with a stale family id, and no
    other file may depend on running before it."""
    return slablab.Client()


@pytest.fixture(scope="session")
def ncpus():
    return os.cpu_count()


@pytest.fixture
def no_storm_left(client):
    """A failed test must not leave a storm running into the next one (storm test files
    use it for every test: pytestmark)."""
    yield
    try:
        if client.storm_get()["state"] == "running":
            client.storm_stop()
    except slablab.Error:       # no storm yet, or a stale client after the unload tests
        pass


@pytest.fixture(params=DESIGN_VARIANTS)
def design(request):
    """The design of the caches a test makes with make_cache: every test that is about
    caches runs once per design. A test about one design's own mechanism pins it
    (@pytest.mark.parametrize("design", ["slub"])); one that varies it itself
    parametrizes `design` as it needs."""
    return request.param


@pytest.fixture
def make_cache(client, design):
    """make_cache(size, **tunables) -> name, of the test's design unless the tunables
    name one; every cache made is destroyed afterwards, after its handles are freed,
    and must validate clean first."""
    made = []

    def make(size, **tunables):
        name = f"t{next(_names)}-{size}"
        tunables.setdefault("design", design)
        if tunables["design"] == design:
            for key, value in getattr(design, "tunables", {}).items():
                tunables.setdefault(key, value)
        tunables["design"] = str(tunables["design"])
        client.cache_create(name, size, **tunables)
        made.append(name)
        return name

    yield make
    for name in made:
        report = client.cache_validate(name)
        assert report["errors"] == 0, report
        client.cache_destroy(name)


def dbg(cache, attr):
    """Read /sys/kernel/debug/slablab/caches/<cache>/<attr>."""
    with open(f"{DEBUGFS}/caches/{cache}/{attr}") as f:
        return f.read().strip()


def dbg_write(cache, attr, value):
    with open(f"{DEBUGFS}/caches/{cache}/{attr}", "w") as f:
        f.write(str(value))


def reload(*params):
    """Unload the module and load it again with `params` (e.g. "selftests=1"); a new
    client (clients made before are stale)."""
    subprocess.run(["rmmod", "slablab"], check=True, capture_output=True, timeout=120)
    subprocess.run(["insmod", MODULE, *params], check=True, capture_output=True,
                   timeout=120)
    return slablab.Client()


@pytest.fixture(scope="session")
def tar_recording(tmp_path_factory):
    """One recording of `tar cf /dev/null /etc` (slabctl record) for the session's
    replay tests: (path, record's stderr)."""
    path = tmp_path_factory.mktemp("recording") / "tar.trace"
    r = slabctl("record", "-o", path, "--buffer-kb", "8192", "--",
                "tar", "cf", "/dev/null", "/etc")
    assert "recorded" in r.stderr, r.stderr
    return path, r.stderr


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

# SPDX-License-Identifier: GPL-2.0
"""kmemleak (debug kernel only): no leak report may involve slablab, neither after the
suite nor after the module was unloaded with live caches, handles and a storm.

Timeline, for one pytest session over tests/vm (scripts/test.sh passes this file last):

* collection (pytest imports every test module before it runs any test): scan twice
  and `clear`, so that what boot and the initial insmod left is either reported now
  (if it involves slablab) or forgotten; kmemleak only forgets objects it has already
  reported, hence the scans;
* test_no_slablab_leaks_after_suite: two scans (an object is reported once it has been
  unreferenced through two scans and is older than 5 s), then every report is read;
* test_a_leaked_slablab_object_is_reported (after the verdict on the suite: its reload
  makes kmemleak forget every slablab object): the module reloaded with selftests=1, a
  cache of each design leaks objects on purpose (debugfs hook "leak"), and kmemleak
  must report them, with their contents and slablab's allocation backtrace; "unleak"
  frees them again;
* test_no_slablab_leaks_after_unload: load the module with work in flight and objects
  leaked on every design, rmmod, two scans, read again. Backtraces of an unloaded
  module are printed as raw addresses, so reports are matched against the address
  range the module had (/proc/modules).

Leaks that do not involve slablab (other kernel code, 9p, ...) are printed, not failed.
kmemleak's own "N new suspected memory leaks" console line would fail every VM run as
a splat; scripts/test.sh exempts that one line (VM_SPLAT_IGNORE) for the debug profile
and leaves the verdict to this file.
"""
import os
import re
import subprocess
import time

import pytest

import slablab
from helpers import DEBUGFS, DESIGNS, MODULE, reload

KMEMLEAK = "/sys/kernel/debug/kmemleak"
pytestmark = pytest.mark.exclude_if(
    not os.path.exists(KMEMLEAK),
    reason="kmemleak needs CONFIG_DEBUG_KMEMLEAK: run the debug kernel "
           "(make test KERNEL=debug, part of make test)")


def kmemleak(cmd):
    with open(KMEMLEAK, "w") as f:
        f.write(cmd)


def reports():
    """The current reports, one string each."""
    with open(KMEMLEAK) as f:
        text = f.read()
    return [r for r in re.split(r"(?m)^(?=unreferenced object )", text) if r.strip()]


def scan():
    # Objects younger than 5 s are never reported; a first scan only records checksums.
    time.sleep(5.5)
    kmemleak("scan")
    kmemleak("scan")
    return reports()


def module_range():
    """(start, end) of slablab's core layout, or None when addresses are hidden."""
    with open("/proc/modules") as f:
        for line in f:
            fields = line.split()
            if fields[0] == "slablab":
                base = int(fields[5], 16)
                return (base, base + int(fields[1])) if base else None
    return None


def involves_slablab(report, span=None):
    if "[slablab]" in report or "slablab" in report.split("backtrace:")[-1]:
        return True
    for addr in re.findall(r"\] (0x[0-9a-f]+)$", report, re.M):
        a = int(addr, 16)
        if span and span[0] <= a < span[1]:
            return True
        # without a recorded range: any frame in an unloaded module (module area)
        if not span and 0xffffffffa0000000 <= a < 0xffffffffff000000:
            return True
    return False


def verdict(found, span=None, when=""):
    ours = [r for r in found if involves_slablab(r, span)]
    others = len(found) - len(ours)
    if others:
        print(f"kmemleak {when}: {others} report(s) not involving slablab, e.g.:\n"
              + next(r for r in found if r not in ours)[:1500])
    assert not ours, f"kmemleak {when}: {len(ours)} leak(s) involving slablab:\n" + \
        "\n".join(ours[:5])


# At collection: before any test of the session.
BEFORE_SUITE = []
if os.path.exists(KMEMLEAK):
    try:
        BEFORE_SUITE = [r for r in scan() if involves_slablab(r)]
        kmemleak("clear")
    except OSError as e:
        BEFORE_SUITE = [f"kmemleak could not be used at the start of the suite: {e}"]


def test_no_slablab_leaks_before_suite():
    """What boot and the first insmod left (reported at collection)."""
    assert not BEFORE_SUITE, "\n".join(BEFORE_SUITE[:5])


def test_no_slablab_leaks_after_suite():
    verdict(scan(), when="after the suite")


LEAKS = 8        # SLABLAB_SELFTEST_LEAKS (module/internal.h)


def leaked_markers(found):
    """{cache: markers} of the "leak" hook's objects in kmemleak's reports: the hook
    writes "<cache>/<n>" at the start of each, which the report's hex dump shows."""
    out: dict[str, set[int]] = {}
    for r in found:
        if not involves_slablab(r):
            continue
        dump = "".join(m.group(1) for m in re.finditer(r"(?m)^    (?:[0-9a-f]{2} ){1,16}"
                                                       r"\s*(.{1,16})$", r))
        m = re.match(r"(leak-[a-z]+)/(\d+)", dump)
        if m:
            out.setdefault(m.group(1), set()).add(int(m.group(2)))
    return out


def test_a_leaked_slablab_object_is_reported():
    """kmemleak knows slablab's objects (module/backend.h, alloc_hook()/free_hook()): on
    every design, objects nobody points to any more are reported as leaks, with the
    allocation's backtrace through slablab. A pointer left in a dead stack frame is a
    reference to kmemleak (its scan reads whole stacks), so up to two of each cache's
    LEAKS objects may go unreported; registration that is missing reports none."""
    c = reload("selftests=1")
    names = [f"leak-{d}" for d in DESIGNS]
    try:
        for d, name in zip(DESIGNS, names):
            c.cache_create(name, 64, design=d)
            with open(f"{DEBUGFS}/caches/{name}/selftest", "w") as f:
                f.write("leak")
        found = leaked_markers(scan())
        for name in names:
            seen = found.get(name, set())
            assert len(seen) >= LEAKS - 2, \
                f"{name}: kmemleak reported {sorted(seen)} of the {LEAKS} leaked objects"
    finally:
        for name in names:
            try:
                with open(f"{DEBUGFS}/caches/{name}/selftest", "w") as f:
                    f.write("unleak")
                c.cache_destroy(name)
            except (OSError, slablab.Error):
                pass
        reload()
    # freed: kmemleak forgot them, nothing of them is reported any more
    assert not leaked_markers(scan())


def test_no_slablab_leaks_after_unload():
    """Also with objects nobody can free any more (the "leak" hook's, on every design):
    rmmod gives their slabs and heap pages back, and kmemleak must forget them first
    (slablab_leak_forget_slabs(), slablab_slob_exit()), or it would report memory that
    is no longer slablab's and stop itself when the next object lands there."""
    c = reload("selftests=1")
    for d in DESIGNS:
        c.cache_create(f"gone-{d}", 64, design=d)
        with open(f"{DEBUGFS}/caches/gone-{d}/selftest", "w") as f:
            f.write("leak")
    c.cache_create("leak-plain", 96)
    c.cache_create("leak-debug", 200, debug=True)
    for cpu in range(os.cpu_count() or 1):
        c.obj_alloc("leak-plain", 3000, cpu=cpu)
        c.obj_alloc("leak-debug", 500, cpu=cpu)
    c.cache_set("leak-plain", cpu_partial=0, order=1)
    c.cache_shrink("leak-debug")
    assert c.cache_validate("leak-plain")["errors"] == 0
    if hasattr(c, "storm_start"):           # a storm still running at rmmod
        c.storm_start("slablab", "churn", cache="leak-plain", duration_ms=60000)
    span = module_range()
    del c
    subprocess.run(["rmmod", "slablab"], check=True, capture_output=True)
    try:
        verdict(scan(), span, when="after rmmod")
    finally:
        subprocess.run(["insmod", MODULE], check=True, capture_output=True)

# SPDX-License-Identifier: GPL-2.0
"""The skip policy of slablab's pytest sessions (host and VM), imported by both conftests.

A skip must mean that the environment lacks something, never that code is missing, and
a case that does not exist somewhere by design is deselected (the `exclude_if` marker),
not skipped. So every skip a session reports is checked against EXPECTED_SKIPS, the
environmental reasons each kind of stage may give (SLABLAB_TEST_KERNEL: "host", "6.1",
"6.12", "debug", ...; scripts/test.sh sets it per stage). A skip that matches none is
printed at the end as unexpected; under CI=true it fails the session.

The hooks also record the test that runs now in the file SLABLAB_CURRENT_TEST names (when
set), so that a stage that runs out of time can say in which test it was
(scripts/test.sh, scripts/vm/init's watchdog).
"""
import os
import re

import pytest

# (kinds of stage, test id pattern, reason pattern, why the environment lacks it). A
# kind "*" is every stage. Patterns are regular expressions searched in the test id
# and the skip reason. Keep each entry as narrow as the reason allows.
EXPECTED_SKIPS = [
    (("debug",), r"test_tracing\.py::test_bpftrace", r"CONFIG_BPF_SYSCALL",
     "the debug kernel's config has no bpf() syscall (kernel/debug.config)"),
    (("6.1", "6.12", "6.12-rt", "7.3", "7.3-rt", "7.2"), r"test_hostile\.py::",
     r"CONFIG_FAULT_INJECTION_DEBUG_FS|CONFIG_FAIL_PAGE_ALLOC and CONFIG_FAILSLAB",
     "Debian's release kernels have no fault-injection debugfs (the debug kernel has)"),
    (("6.1", "6.12", "6.12-rt", "7.3", "7.3-rt", "7.2"), r"test_new_slab_pages\.py::",
     r"CONFIG_FAIL_PAGE_ALLOC",
     "Debian's release kernels have no fail_page_alloc (the debug kernel has)"),
    (("6.12-rt", "7.3-rt"), r"test_reload\.py::test_fastpath_race",
     r"PREEMPT_RT", "PREEMPT_RT: no lockless window to race in"),
    (("6.1", "6.12", "6.12-rt", "debug"),
     r"test_sheaves_design\.py::test_default_capacity_is_the_running_kernels",
     r"sheaf_capacity: SLUB has no sheaves|every kmalloc cache has debug flags",
     "SLUB has sheaves (and sheaf_capacity) from 7.0; none on a cache with debug flags"),
    (("6.1", "6.12", "6.12-rt", "debug"),
     r"test_sheaves_design\.py::test_sheaves_lock_held_sends_allocations_and_frees_to_the_slabs",
     r"no local_trylock_t",
     "local_trylock_t is 6.16's: before, the sheaves lock is local_lock_irqsave()"),
    # the native side of storms on each allocator (tests/vm/test_native_figures.py): a
    # kernel has one allocator, and SLUB_STATS only where a profile turns it on
    (("6.1", "6.12", "6.12-rt", "7.3", "7.3-rt", "7.2", "debug", "6.1-slab", "6.1-slob"),
     r"test_native_figures\.py::test_native_storm_stats", r"needs CONFIG_SLUB_STATS",
     "only the slub-stats profiles build SLUB with CONFIG_SLUB_STATS"),
    (("6.1", "6.12", "6.12-rt", "7.3", "7.3-rt", "7.2", "debug", "6.1-slub-stats",
      "7.3-slub-stats", "6.1-slob"),
     r"test_native_figures\.py::test_native_(kmalloc_)?storm_pages_are_the_(slabinfo_row|"
     r"kmalloc_rows)", r"needs CONFIG_SLAB", "only the 6.1-slab profile has SLAB"),
    (("6.1", "6.12", "6.12-rt", "7.3", "7.3-rt", "7.2", "debug", "6.1-slub-stats",
      "7.3-slub-stats", "6.1-slab"),
     r"test_native_figures\.py::test_native_storm_pages_on_slob", r"needs CONFIG_SLOB",
     "only the 6.1-slob profile has SLOB"),
    (("6.1-slab", "6.1-slob"),
     r"test_storms\.py::test_native_(figures_that_cannot_be_read_refuse_the_storm|"
     r"twin_of_a_debug_cache_has_its_checks)",
     r"needs SLUB's sysfs", "SLAB and SLOB have no /sys/kernel/slab"),
    (("6.1-slab", "6.1-slob"),
     r"test_native_figures\.py::test_native_(storm_cache_is_its|replay_caches_are_their)_own",
     r"needs SLUB's sysfs", "SLAB and SLOB have no /sys/kernel/slab"),
    (("6.1-slab", "6.1-slob"), r"test_slabctl\.py::test_info_native_",
     r"needs SLUB's sysfs", "SLAB and SLOB have no /sys/kernel/slab for info --native"),
    # drgn (tests/vm/test_drgn.py): the kernels built here have no DWARF, and bookworm's
    # drgn 0.0.22 cannot find the modules of Linux 6.4 and later (struct module's mem[])
    (("debug", "6.1-slub-stats", "6.1-slab", "6.1-slob", "7.3-slub-stats"),
     r"test_drgn\.py", r"no vmlinux with debug information",
     "slablab's own kernels are built without CONFIG_DEBUG_INFO"),
    (("6.12", "6.12-rt", "7.3", "7.3-rt", "7.2", "7.3-slub-stats"), r"test_drgn\.py",
     r"cannot find modules on Linux 6\.4 and later",
     "bookworm's drgn 0.0.22 predates Linux 6.4's module layout"),
    (("host",), r"test_vm_pin\.py::", r"fewer than 2|usable cpus|qemu not installed",
     "vCPU pinning needs 2 host cpus and qemu"),
    (("host",), r"test_experiment\.py::", r"shared/seeds",
     "a checkout without the seeds beside it"),
]

# CI reaches the VM as SLABLAB_CI (scripts/vm.sh passes SLABLAB_* only; scripts/test.sh sets it)
CI = any(os.environ.get(v, "").lower() in ("1", "true", "yes") for v in ("CI", "SLABLAB_CI"))
KIND = os.environ.get("SLABLAB_TEST_KERNEL", "unknown")
CURRENT = os.environ.get("SLABLAB_CURRENT_TEST")

_skips: list[tuple[str, str]] = []


def expected(nodeid, reason, kind=KIND):
    """Why a skip of nodeid for reason is expected on this kind of stage, or None."""
    for kinds, test_re, reason_re, why in EXPECTED_SKIPS:
        if ("*" in kinds or kind in kinds) and re.search(test_re, nodeid) \
                and re.search(reason_re, reason):
            return why
    return None


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "exclude_if(condition, reason): deselect the case where condition "
        "holds (it does not exist there by design); not a skip")


def pytest_collection_modifyitems(config, items):
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        marks = [m for m in item.iter_markers("exclude_if") if m.args and m.args[0]]
        (dropped if marks else keep).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_runtest_logstart(nodeid, location):
    if CURRENT:
        try:
            with open(CURRENT, "w") as f:
                f.write(nodeid + "\n")
        except OSError:
            pass


def _note_skip(report):
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    _skips.append((report.nodeid, reason.removeprefix("Skipped: ")))


def pytest_runtest_logreport(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        _note_skip(report)


def pytest_collectreport(report):
    # a module that skips itself as a whole (allow_module_level) is a collection skip
    if report.skipped:
        _note_skip(report)


def unexpected_skips():
    return [(n, r) for n, r in _skips if expected(n, r) is None]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    bad = unexpected_skips()
    if not bad:
        return
    tr = terminalreporter
    tr.section(f"unexpected skips on {KIND} (tests/skip_policy.py)", red=CI)
    for nodeid, reason in bad:
        tr.line(f"{nodeid}: {reason}")
    tr.line("A skip must be an environmental reason listed for this kind of stage in "
            "tests/skip_policy.py EXPECTED_SKIPS" + (": failing the run (CI=true)" if CI else ""))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if CURRENT:
        try:
            os.unlink(CURRENT)
        except OSError:
            pass
    if CI and unexpected_skips() and session.exitstatus == 0:
        session.exitstatus = 1

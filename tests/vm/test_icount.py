# SPDX-License-Identifier: GPL-2.0
"""The deterministic mode's guest (scripts/vm.sh VM_ICOUNT; docs/vm.md, "Deterministic
mode"): with VM_CPUS over 1 the kernel boots one cpu (maxcpus=1) and scripts/vm/init
brings the others online before the command runs. Here: every vCPU qemu was given is
online and runs code, and a remote storm allocates on one and frees on another.

These cases exist only in a VM under -icount (SLABLAB_VM_ICOUNT, which vm.sh sets in the
guest): elsewhere they are deselected, not skipped. `make icount-aa` runs them before its
measurement; by hand:

    VM_ICOUNT=1 VM_CPUS=2 scripts/vm.sh --module module/slablab.ko -- \\
        build/venv/bin/python -m pytest -q tests/vm/test_icount.py
"""
import os

import pytest

ICOUNT = os.environ.get("SLABLAB_VM_ICOUNT", "")
# the vCPUs vm.sh gave qemu (-smp); 0 when vm.sh did not say
VM_CPUS = int(os.environ.get("SLABLAB_VM_CPUS", "0") or 0)

pytestmark = pytest.mark.exclude_if(not ICOUNT, reason="the guest runs in real time, not "
                                    "under -icount (VM_ICOUNT)")
several = pytest.mark.exclude_if(VM_CPUS < 2, reason="one vCPU: nothing to bring online")


def read(path):
    with open(path) as f:
        return f.read().strip()


def cpu_list(n):
    return "0" if n == 1 else f"0-{n - 1}"


def test_every_vcpu_is_online():
    assert VM_CPUS >= 1, "vm.sh did not pass SLABLAB_VM_CPUS"
    # present: the cpus of the firmware's tables (qemu -smp), whatever the kernel onlined
    assert read("/sys/devices/system/cpu/present") == cpu_list(VM_CPUS)
    assert read("/sys/devices/system/cpu/online") == cpu_list(VM_CPUS)
    assert len(os.sched_getaffinity(0)) == VM_CPUS
    # the mode is the one asked for: one cpu booted, the rest brought online by /init
    assert ("maxcpus=1" in read("/proc/cmdline").split()) == (VM_CPUS > 1)


@several
def test_each_cpu_runs_a_task():
    """This process, bound to each cpu in turn, reports that cpu as the one it runs on
    (/proc/self/stat's processor field): the cpu schedules, not only shows online. In
    process: no new program to load over 9p, whose waits the icount clock skips ahead
    through (a timeout in guest seconds means nothing here)."""
    saved = os.sched_getaffinity(0)
    try:
        for cpu in range(VM_CPUS):
            os.sched_setaffinity(0, {cpu})
            assert int(read("/proc/self/stat").rsplit(")", 1)[1].split()[36]) == cpu
    finally:
        os.sched_setaffinity(0, saved)


@several
def test_remote_storm_frees_on_the_other_cpu(client):
    """A remote storm on cpus 0 and 1: the producer allocates on cpu 0, the consumer frees
    every object on cpu 1, where no cpu slab of the cache ever is (it never allocates):
    every free takes the slow path."""
    name = "icount-remote"
    client.cache_create(name, 64, design="slub")
    try:
        r = client.storm("slablab", "remote", cache=name, threads=2, cpus=[0, 1], ops=5000)
    finally:
        client.cache_destroy(name)
    res = r["result"]
    assert [(t["cpu"], t["ops"]) for t in res["threads"]] == [(0, 5000), (1, 5000)]
    assert res["allocs"] == res["frees"] == 5000
    assert res["stats"]["free_slowpath"] == 5000 and res["stats"]["free_fastpath"] == 0

# SPDX-License-Identifier: GPL-2.0
"""scripts/vm.sh's vCPU pinning (VM_PIN, docs/vm.md): the policy of scripts/vm-pin.py,
the refusals before booting (VM_ICOUNT's too), and a booted VM whose vCPU threads the test finds in /proc
itself and whose affinity it reads back while the guest runs."""
import importlib.util
import os
import re
import shutil
import subprocess
import time
from typing import Dict, List

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VM = os.path.join(REPO, "scripts", "vm.sh")
PIN = os.path.join(REPO, "scripts", "vm-pin.py")

_spec = importlib.util.spec_from_file_location("vm_pin", PIN)
assert _spec is not None and _spec.loader is not None
vm_pin = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vm_pin)


# ---------------------------------------------------------------- the policy (pure)

@pytest.mark.parametrize("policy,threads,usable,cpus", [
    ("auto", 2, [0, 1], [0, 1]),
    ("auto", 2, [0, 1, 2, 3], [0, 1]),          # the lowest usable cpus, in order
    ("auto", 1, [3, 1, 2], [1]),
    ("auto", 2, [5, 2, 9], [2, 5]),             # an affinity mask with holes
    ("1", 4, [0, 1, 2, 3], [0, 1, 2, 3]),
    ("1", 1, [7], [7]),                         # icount: one thread for every vCPU
])
def test_pins_one_cpu_per_thread_when_there_are_enough(policy, threads, usable, cpus):
    assert vm_pin.plan(policy, threads, usable) == (cpus, "")


def test_auto_does_not_pin_when_there_are_too_few_cpus_and_says_why():
    cpus, why = vm_pin.plan("auto", 4, [0, 1])
    assert cpus is None
    assert why == "not pinned (VM_PIN=auto): 4 vCPU threads but only 2 usable host cpus (0-1)"


def test_zero_never_pins():
    assert vm_pin.plan("0", 1, [0, 1, 2, 3]) == (None, "not pinned (VM_PIN=0)")


def test_one_refuses_when_there_are_too_few_cpus():
    with pytest.raises(vm_pin.PinError, match=r"VM_PIN=1: cannot pin: 3 vCPU threads but "
                       r"only 1 usable host cpu \(2\)"):
        vm_pin.plan("1", 3, [2])


@pytest.mark.parametrize("policy,threads", [("yes", 1), ("2", 1), ("", 1), ("auto", 0)])
def test_bad_arguments_are_refused(policy, threads):
    with pytest.raises(ValueError):
        vm_pin.plan(policy, threads, [0, 1])


@pytest.mark.parametrize("cpus,text", [([0], "0"), ([0, 1, 2, 3], "0-3"),
                                       ([0, 2, 3, 4, 7], "0,2-4,7"), ([3, 1, 2], "1-3")])
def test_cpu_list_reads_like_proc(cpus, text):
    assert vm_pin.cpu_list(cpus) == text


# ---------------------------------------------------------------- vm.sh

def vm_sh(env_extra, *command, cpus=None, **kw):
    env = dict(os.environ, **env_extra)
    pre = ["taskset", "-c", cpus] if cpus is not None else []
    return subprocess.run(pre + [VM, "--", *command], capture_output=True, text=True,
                          env=env, stdin=subprocess.DEVNULL, **kw)


FIRST_CPU = min(os.sched_getaffinity(0))


@pytest.mark.parametrize("env,message", [
    ({"VM_PIN": "yes"}, "VM_PIN 'yes' is not 0, auto or 1"),
    ({"VM_PIN": "1", "VM_CPUS": "2"},
     f"VM_PIN=1: cannot pin: 2 vCPU threads but only 1 usable host cpu ({FIRST_CPU})"),
    ({"VM_ICOUNT": "0", "VM_CPUS": "1"}, "VM_ICOUNT '0' is not a shift from 1 to 7"),
    ({"VM_ICOUNT": "auto", "VM_CPUS": "1"}, "VM_ICOUNT 'auto' is not a shift from 1 to 7"),
])
def test_vm_sh_refuses_before_booting(env, message):
    # one usable cpu (vm.sh's own affinity mask), whatever the host has
    r = vm_sh(env, "true", cpus=str(FIRST_CPU), timeout=60)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and "booting" not in r.stderr


def descendants(pid):
    children: Dict[int, List[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def read(path):
    with open(path) as f:
        return f.read()


def vcpu_affinity(qemu_pid):
    """{vCPU index: (tid, Cpus_allowed_list)} of qemu's "CPU n/TCG" threads."""
    out = {}
    for tid in os.listdir(f"/proc/{qemu_pid}/task"):
        m = re.fullmatch(r"CPU (\d+)/(TCG|KVM)", read(f"/proc/{qemu_pid}/task/{tid}/comm").strip())
        if m:
            status = read(f"/proc/{qemu_pid}/task/{tid}/status")
            a = re.search(r"^Cpus_allowed_list:\s*(\S+)", status, re.M)
            assert a, status
            allowed = a.group(1)
            out[int(m.group(1))] = (int(tid), allowed)
    return out


@pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None, reason="qemu not installed")
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2,
                    reason="fewer than 2 usable cpus: pinned and unpinned look the same")
def test_pinned_vm_has_each_vcpu_thread_on_its_own_cpu(tmp_path):
    """VM_PIN=1, 2 vCPUs: while the guest runs (it waits for the test), qemu's vCPU
    threads, found by name in /proc, each allow exactly the cpu the status line names;
    unpinned they would allow every usable cpu (at least two), so a pinning that did
    nothing fails here."""
    usable = sorted(os.sched_getaffinity(0))
    # the guest writes into the repository (its only writable share)
    hand = os.path.join(REPO, "build", "vm", f"pin-test.{os.getpid()}")
    os.makedirs(hand, exist_ok=True)
    ready, go = os.path.join(hand, "ready"), os.path.join(hand, "go")
    guest = (f"touch {ready}; i=0; while [ ! -e {go} ] && [ $i -lt 600 ]; do "
             "sleep 0.1; i=$((i+1)); done; test -e " + go)
    env = dict(os.environ, VM_PIN="1", VM_CPUS="2", VM_LOG=str(tmp_path / "serial.log"),
               VM_TIMEOUT="240")
    p = subprocess.Popen([VM, "--", "sh", "-c", guest], env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 200
        while not os.path.exists(ready):
            assert p.poll() is None, p.communicate()
            assert time.monotonic() < deadline, "the guest never started its command"
            time.sleep(0.1)
        qemu = [q for q in descendants(p.pid)
                if read(f"/proc/{q}/comm").strip().startswith("qemu-system")]
        assert len(qemu) == 1, qemu
        seen = vcpu_affinity(qemu[0])
        open(go, "w").close()
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        shutil.rmtree(hand, ignore_errors=True)
    assert p.returncode == 0, err
    assert sorted(seen) == [0, 1], seen
    assert [seen[i][1] for i in (0, 1)] == [str(usable[0]), str(usable[1])], seen
    line = (f"vm: pinned vCPU 0 (thread {seen[0][0]}) -> cpu {usable[0]}, "
            f"vCPU 1 (thread {seen[1][0]}) -> cpu {usable[1]}")
    assert line in err.splitlines(), err
    assert re.search(r"^vm: \S+ \S+ 2 cpus, pinned: boot ", err, re.M), err

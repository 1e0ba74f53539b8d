# SPDX-License-Identifier: GPL-2.0
"""scripts/vm.sh's verdict on qemu's TCG text-patching race (docs/vm.md, issue 40): a
kernel that dies of an int3 at a jump-label site in core text, with nothing else in its
log, has the command run once more, loudly; any other splat, an int3 beside another, an
int3 elsewhere, or a second int3 in the run made again fails the run at once.

No VM boots: VM_QEMU is a stand-in that plays a serial log and the guest's status lines
(scripts/vm/init's vm-init, vm-start, vm-exit) into vm.sh's fifos, one log per run."""
import json
import os
import subprocess
import sys
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VM = os.path.join(REPO, "scripts", "vm.sh")

pytestmark = pytest.mark.skipif(
    not os.path.exists("/bin/busybox") or subprocess.run(
        ["which", "cpio"], capture_output=True).returncode != 0,
    reason="vm.sh builds its initramfs with busybox-static and cpio")

FAKE_QEMU = r'''#!/usr/bin/env python3
"""Plays one run of FAKE_QEMU_RUNS (a JSON list of {serial, exit}) per call."""
import json, os, sys
args = sys.argv[1:]
devs = [args[i + 1] for i, a in enumerate(args) if a == "-chardev"]
def path(kind):
    d = next(d for d in devs if f",id={kind}," in d or d.endswith(f",id={kind}"))
    key = "logfile=" if kind == "out" else "path="
    v = next(p[len(key):] for p in d.split(",") if p.startswith(key))
    return v if kind == "out" else v + ".out"
counter = os.environ["FAKE_QEMU_COUNTER"]
n = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(n + 1))
run = json.load(open(os.environ["FAKE_QEMU_RUNS"]))[n]
with open(path("status"), "w") as st, open(path("con"), "w") as con, \
        open(path("out"), "w") as out:
    st.write("vm-init\n"); st.flush()
    st.write("vm-start\n"); st.flush()
    for line in run["serial"]:
        con.write(line + "\n")
    con.flush()
    out.write("command ran\n")
    if run["exit"] is not None:
        st.write(f"vm-exit {run['exit']}\n")
sys.exit(0)
'''

BOOT = ["[    0.000000] Linux version 7.3.0-0.bpo.1-amd64 (debian-kernel@lists.debian.org)",
        "[    1.712000] vm-init: loading modules",
        "[   12.100000] slablab: slablab 0.1.0 loaded"]


def int3_oops(t="397.120001", rip="__schedule+0x6f5/0x1530",
              code="48 89 df e8 66 fd ff ff 0f <1f> 44 00 00 48 8b 45 c8",
              header="Oops: int3: 0000 [#1] PREEMPT SMP NOPTI"):
    """An int3 oops as 7.3 prints it (6.1: without "Oops: "), and the panic oops=panic
    makes of it."""
    return [f"[  {t}] {header}",
            f"[  {t}] CPU: 1 UID: 0 PID: 0 Comm: swapper/1 Tainted: G           OE       "
            "7.3.0-0.bpo.1-amd64 #1 PREEMPT(lazy)  Debian 7.3.4-1~bpo13+1",
            f"[  {t}] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)",
            f"[  {t}] RIP: 0010:{rip}",
            f"[  {t}] Code: 41 5d 41 5e 41 5f 5d c3 cc cc cc cc {code}",
            f"[  {t}] RSP: 0018:ffffb7c1c00a3e28 EFLAGS: 00000046",
            f"[  {t}] Call Trace:",
            f"[  {t}]  <TASK>",
            f"[  {t}]  ? die+0x36/0x90",
            f"[  {t}]  ? do_trap+0xda/0x100",
            f"[  {t}]  ? do_int3_user+0x20/0x20",
            f"[  {t}]  schedule_idle+0x26/0x40",
            f"[  {t}]  do_idle+0x168/0x270",
            f"[  {t}]  </TASK>",
            f"[  {t}] Modules linked in: slablab(OE) 9p netfs virtio_rng",
            f"[  {t}] ---[ end trace 0000000000000000 ]---",
            f"[  {t}] RIP: 0010:{rip}",
            f"[  {t}] Kernel panic - not syncing: Fatal exception",
            f"[  {t}] Kernel Offset: 0x2a000000 from 0xffffffff81000000",
            f"[  {t}] ---[ end Kernel panic - not syncing: Fatal exception ]---"]


CLEAN = {"serial": BOOT + ["[   30.000000] vm-init: command exited with status 0"],
         "exit": 0}
RACE = {"serial": BOOT + int3_oops(), "exit": None}


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory):
    """A kernel directory as scripts/kernel.sh leaves one, whose modules are all built in
    (the initramfs needs none) and whose image is never booted; one for the file, so that
    vm.sh builds its initramfs once."""
    d = tmp_path_factory.mktemp("kernel")
    mods = d / "modules"
    mods.mkdir()
    (mods / "modules.dep").write_text("")
    builtin = ("virtio_pci", "virtio_console", "9pnet_virtio", "9p", "virtio_rng")
    (mods / "modules.builtin").write_text("".join(f"kernel/drivers/{m}.ko\n" for m in builtin))
    (d / "vmlinuz").write_bytes(b"not a kernel")
    (d / "env").write_text(f"KREL=fake-int3-race\nVMLINUZ={d}/vmlinuz\nMODDIR={mods}\n"
                           "PVH=0\n")
    return d


def run_vm(tmp_path, kernel_dir, runs, **env_extra):
    qemu = tmp_path / "qemu"
    qemu.write_text(FAKE_QEMU.replace("/usr/bin/env python3", sys.executable, 1))
    qemu.chmod(0o755)
    plays = tmp_path / "runs.json"
    plays.write_text(json.dumps(runs))
    env = dict(os.environ, VM_QEMU=str(qemu), VM_ACCEL="tcg", FAKE_QEMU_RUNS=str(plays),
               FAKE_QEMU_COUNTER=str(tmp_path / "count"))
    for k in ("VM_INT3_RETRIED", "VM_BOOT_RETRIED", "VM_DEADLINE", "VM_SPLAT_IGNORE"):
        env.pop(k, None)
    env.update(env_extra)
    log = tmp_path / "serial.log"
    r = subprocess.run([VM, "--kernel-dir", str(kernel_dir), "--log", str(log),
                        "--timeout", "120", "--", "true"], capture_output=True, text=True,
                       timeout=300, env=env, stdin=subprocess.DEVNULL)
    played = int((tmp_path / "count").read_text()) if (tmp_path / "count").exists() else 0
    return r, played, log


def test_the_race_alone_runs_the_command_once_more(tmp_path, kernel_dir):
    r, played, log = run_vm(tmp_path, kernel_dir, [RACE, CLEAN])
    assert played == 2, r.stderr
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("RUNNING THE COMMAND AGAIN") == 1, r.stderr
    assert "int3 at __schedule+0x6f5/0x1530, 0f 1f 44 00 00 there" in r.stderr, r.stderr
    assert "Oops: int3" in (tmp_path / "serial.log.int3-race").read_text()
    assert "Oops" not in log.read_text()            # the log is the second run's


@pytest.mark.parametrize("code,site", [
    ("0f 1f 44 00 <00> 48 8b", None),                    # inside the NOP: not its start
    ("48 89 df e8 66 <fd> ff ff", None),                 # a call's operand
    ("48 8b 45 c8 e9 <12> 34 00 00", "e9"),              # a jump label switched on
    ("48 8b 45 c8 eb <12> 48", "eb"),
    ("48 8b 45 c8 66 <90> 48", "66 90"),
    ("48 8b 45 c8 cc <1f> 44 00 00", "cc"),              # the int3, still there
])
def test_only_a_jump_label_instruction_at_the_trap(tmp_path, kernel_dir, code, site):
    race = {"serial": BOOT + int3_oops(code=code), "exit": None}
    r, played, _ = run_vm(tmp_path, kernel_dir, [race, CLEAN])
    if site:
        assert played == 2 and r.returncode == 0, r.stderr
        assert f", {site} there" in r.stderr, r.stderr
    else:
        assert played == 1 and r.returncode == 125, r.stderr
        assert "RUNNING THE COMMAND AGAIN" not in r.stderr


def test_6_1s_header_is_the_same_race(tmp_path, kernel_dir):
    race = {"serial": BOOT + int3_oops(header="int3: 0000 [#1] PREEMPT SMP NOPTI"),
            "exit": None}
    r, played, _ = run_vm(tmp_path, kernel_dir, [race, CLEAN])
    assert played == 2 and r.returncode == 0, r.stderr


@pytest.mark.parametrize("case", ["warn-before", "second-oops", "in-a-module", "gpf",
                                  "int3-not-first", "exit-status-and-warn",
                                  "die-header-alone"])
def test_anything_else_fails_at_once(tmp_path, kernel_dir, case):
    warn = ["[   20.000000] WARNING: CPU: 0 PID: 77 at mm/slub.c:1234 foo+0x1/0x2"]
    gpf = ["[   20.000000] general protection fault, probably for non-canonical address "
           "0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI"]
    serial = {
        "warn-before": BOOT + warn + int3_oops(),
        "second-oops": BOOT + int3_oops() + int3_oops(
            t="397.500000", header="Oops: int3: 0000 [#2] PREEMPT SMP NOPTI"),
        "in-a-module": BOOT + int3_oops(rip="slablab_storm_fn+0x1f/0x90 [slablab]"),
        "gpf": BOOT + gpf,
        "int3-not-first": BOOT + gpf + int3_oops(),
        "exit-status-and-warn": BOOT + warn,
        # a die() header is a splat by itself (vm.sh's pattern without an interval,
        # which Debian 12's mawk reads as characters)
        "die-header-alone": BOOT + ["[   20.000000] invalid opcode: 0000 [#1] PREEMPT SMP"],
    }[case]
    first = {"serial": serial, "exit": 0 if case.startswith(("exit", "die")) else None}
    r, played, _ = run_vm(tmp_path, kernel_dir, [first, CLEAN])
    assert played == 1, r.stderr
    assert r.returncode == 125, r.stderr
    assert "RUNNING THE COMMAND AGAIN" not in r.stderr, r.stderr
    assert not (tmp_path / "serial.log.int3-race").exists()


def test_a_second_race_fails(tmp_path, kernel_dir):
    r, played, _ = run_vm(tmp_path, kernel_dir, [RACE, RACE, CLEAN])
    assert played == 2, r.stderr
    assert r.returncode == 125, r.stderr
    assert r.stderr.count("RUNNING THE COMMAND AGAIN") == 1, r.stderr
    assert "TCG's int3 race again" in r.stderr, r.stderr


def test_no_rerun_past_the_deadline(tmp_path, kernel_dir):
    """make test's deadline (VM_DEADLINE) leaves no time for a run made again: the race
    fails the run, and says why."""
    r, played, _ = run_vm(tmp_path, kernel_dir, [RACE, CLEAN],
                          VM_DEADLINE=str(int(time.time()) + 100))
    assert played == 1 and r.returncode == 125, r.stderr
    assert "s are left before VM_DEADLINE" in r.stderr, r.stderr

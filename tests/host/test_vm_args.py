# SPDX-License-Identifier: GPL-2.0
"""scripts/vm.sh's argument handling, without booting: a fake qemu (VM_QEMU) records the
command line vm.sh gives it and the per-run configuration vm.sh packs into the initrd
(/vm/conf, /vm/cmd), then plays a guest that ran the command and exited 0 on the status
channel. A fake kernel directory (scripts/kernel.sh's env, its virtio and 9p modules
"built in") keeps the real kernels out of it.

What it pins (docs/vm.md, "Deterministic mode"): VM_ICOUNT with VM_CPUS over 1 boots the
kernel with maxcpus=1 and tells /init to bring the other cpus online (VM_ONLINE_CPUS);
one vCPU, or no icount, leaves the kernel's cpus alone; a cpu limit in the caller's
kernel arguments is refused before qemu starts."""
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VM = os.path.join(REPO, "scripts", "vm.sh")

FAKE_QEMU = textwrap.dedent("""\
    #!{python}
    # A stand-in for qemu-system-x86_64 (tests/host/test_vm_args.py).
    import json, os, sys
    args = sys.argv[1:]
    if args == ["--version"]:
        print("QEMU emulator version 0.0 (fake)"); sys.exit(0)
    def value(opt):
        return [args[i + 1] for i, a in enumerate(args) if a == opt]
    initrd = value("-initrd")[0]
    with open(initrd, "rb") as f:
        data = f.read()
    with open(os.environ["FAKE_QEMU_OUT"], "w") as f:
        json.dump({{"args": args, "initrd_tail": data[-65536:].decode("latin-1")}}, f)
    # the channels: pipe,id=...,path=P -> qemu writes P.out
    paths = {{}}
    for c in value("-chardev"):
        kv = dict(p.split("=", 1) for p in c.split(",")[1:] if "=" in p)
        if c.startswith("pipe,"):
            paths[kv["id"]] = kv["path"].replace(",,", ",") + ".out"
        elif "logfile" in kv:
            paths[kv["id"]] = kv["logfile"].replace(",,", ",")
    with open(paths["status"], "w") as f:
        f.write("vm-init\\nvm-start\\nvm-exit 0\\n")
    for k in ("con", "out"):
        with open(paths[k], "w") as f:
            f.write("")
""")


@pytest.fixture
def fake(tmp_path):
    """(environment for vm.sh, path of the fake qemu's record)."""
    qemu = tmp_path / "qemu"
    qemu.write_text(FAKE_QEMU.format(python=sys.executable))
    qemu.chmod(0o755)
    kdir = tmp_path / "kernel"
    mod = kdir / "modules"
    mod.mkdir(parents=True)
    (mod / "modules.dep").write_text("")
    # every module the initramfs wants, built in: none to copy
    (mod / "modules.builtin").write_text(
        "".join(f"kernel/drivers/{m}.ko\n"
                for m in ("virtio_pci", "virtio_console", "9pnet_virtio", "9p", "virtio_rng")))
    (kdir / "vmlinuz").write_bytes(b"not a kernel")
    (kdir / "env").write_text(f"KREL=fake-vm-args-test\nVMLINUZ={kdir}/vmlinuz\n"
                              f"MODDIR={mod}\n")
    record = tmp_path / "qemu.json"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("VM_") and k not in ("KERNEL", "KERNEL_DIR")}
    env.update(VM_QEMU=str(qemu), KERNEL_DIR=str(kdir), VM_PVH="0", VM_ACCEL="tcg",
               VM_LOG=str(tmp_path / "serial.log"), VM_TIMEOUT="60",
               FAKE_QEMU_OUT=str(record))
    return env, record


def run(fake, **vm_env):
    env, record = fake
    r = subprocess.run([VM, "--", "true"], capture_output=True, text=True,
                       env=dict(env, **vm_env), stdin=subprocess.DEVNULL, timeout=120)
    qemu = json.loads(record.read_text()) if record.exists() else None
    return r, qemu


def option(qemu, name):
    args = qemu["args"]
    return [args[i + 1] for i, a in enumerate(args) if a == name]


def conf(qemu, name):
    """NAME's value in the run's /vm/conf (or an export of /vm/cmd), from the initrd."""
    m = re.findall(r"(?m)^(?:export )?" + name + r"=(.*)$", qemu["initrd_tail"])
    return m[-1] if m else None


@pytest.mark.parametrize("cpus", ["2", "4"])
def test_icount_with_several_cpus_boots_one_and_onlines_the_rest(fake, cpus):
    r, qemu = run(fake, VM_ICOUNT="1", VM_CPUS=cpus)
    assert r.returncode == 0, r.stderr
    assert option(qemu, "-smp") == [cpus]
    assert option(qemu, "-accel") == ["tcg,thread=single"]
    assert option(qemu, "-icount") == ["shift=1,sleep=off,align=off"]
    append = option(qemu, "-append")[0].split()
    assert append.count("maxcpus=1") == 1, append
    assert conf(qemu, "VM_ONLINE_CPUS") == cpus
    assert conf(qemu, "SLABLAB_VM_CPUS") == cpus
    assert conf(qemu, "SLABLAB_VM_ICOUNT") == "1"
    assert f"icount shift=1, {cpus} cpus" in r.stderr


@pytest.mark.parametrize("env,accel", [
    ({"VM_ICOUNT": "1", "VM_CPUS": "1"}, "tcg,thread=single"),
    ({"VM_CPUS": "2"}, "tcg,thread=multi"),
    ({"VM_CPUS": "4"}, "tcg,thread=multi"),
])
def test_other_modes_leave_the_kernels_cpus_alone(fake, env, accel):
    r, qemu = run(fake, **env)
    assert r.returncode == 0, r.stderr
    assert option(qemu, "-smp") == [env["VM_CPUS"]]
    assert option(qemu, "-accel") == [accel]
    assert not [a for a in option(qemu, "-append")[0].split() if a.startswith("maxcpus")]
    assert conf(qemu, "VM_ONLINE_CPUS") == "0"
    assert conf(qemu, "SLABLAB_VM_CPUS") == env["VM_CPUS"]
    assert (option(qemu, "-icount") != []) == ("VM_ICOUNT" in env)


@pytest.mark.parametrize("env,message", [
    ({"VM_APPEND": "maxcpus=2"}, "leave maxcpus=, nr_cpus= and nosmp out"),
    ({"VM_APPEND": "quiet nosmp"}, "leave maxcpus=, nr_cpus= and nosmp out"),
    ({"VM_KERNEL_CMDLINE": "nr_cpus=2"}, "leave maxcpus=, nr_cpus= and nosmp out"),
])
def test_icount_with_several_cpus_refuses_a_cpu_limit_of_the_callers(fake, env, message):
    r, qemu = run(fake, VM_ICOUNT="1", VM_CPUS="2", **env)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert qemu is None  # qemu never started


def test_a_cpu_limit_without_icount_is_the_callers_business(fake):
    r, qemu = run(fake, VM_CPUS="2", VM_APPEND="maxcpus=1")
    assert r.returncode == 0, r.stderr
    assert option(qemu, "-append")[0].split().count("maxcpus=1") == 1


@pytest.mark.parametrize("env,message", [
    ({"VM_CPUS": "0"}, "VM_CPUS '0' is not a positive number"),
    ({"VM_CPUS": "two"}, "VM_CPUS 'two' is not a positive number"),
    ({"VM_ICOUNT": "8", "VM_CPUS": "2"}, "VM_ICOUNT '8' is not a shift from 1 to 7"),
    ({"VM_ICOUNT": "1", "VM_CPUS": "2", "VM_ACCEL": "kvm"}, "VM_ICOUNT needs TCG"),
])
def test_bad_settings_are_refused_before_booting(fake, env, message):
    r, qemu = run(fake, **env)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert qemu is None

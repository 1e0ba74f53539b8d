#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Pin qemu's vCPU threads to host cpus, one cpu each (scripts/vm.sh, docs/vm.md).

Under TCG with ``thread=multi`` (and under KVM) qemu runs every vCPU on its own host
thread; left to the host scheduler, those threads migrate between cores and share them
with everything else, which is noise in every cycle count the guest takes. vm.sh runs:

  vm-pin.py plan  --policy P --vcpus N
      before booting: exit 2 with the reason when VM_PIN=1 cannot be honoured;
  vm-pin.py apply --policy P --qmp SOCKET --pid PID
      once qemu runs: ask qemu's QMP monitor (query-cpus-fast) for the vCPU threads,
      pin each to its own cpu, read the affinity back, print one line saying what was
      pinned where (or why not) on stderr. Exit 0 when pinned, 3 when deliberately not,
      1 on failure (said on stderr too). PID: stop waiting for the socket once it
      exits. --kill-on-failure PID: SIGTERM PID when pinning fails (VM_PIN=1).

The cpus are those this process may run on (vm.sh's own affinity mask, as ``nproc``
counts them), in ascending order. Policy (:func:`plan`): ``0`` never pins, ``1`` pins
or fails, ``auto`` pins when there are at least as many usable cpus as vCPU threads.
"""
import argparse
import json
import os
import signal
import socket
import sys
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

POLICIES = ("auto", "0", "1")


class PinError(Exception):
    """Pinning was asked for (VM_PIN=1) and cannot be done, or failed."""


def plan(policy: str, threads: int, usable: Sequence[int]) -> Tuple[Optional[List[int]], str]:
    """Which host cpu each of ``threads`` vCPU threads gets: ``(cpus, why)``.

    ``cpus`` is None when nothing is to be pinned (``why`` says why), else the cpu of
    thread i is ``cpus[i]``: the lowest usable cpus, one per thread. Raises
    :class:`PinError` for policy ``1`` when there are fewer usable cpus than threads, and
    ValueError for an unknown policy or no threads.
    """
    if policy not in POLICIES:
        raise ValueError(f"VM_PIN '{policy}' is not auto, 0 or 1")
    if threads < 1:
        raise ValueError(f"{threads} vCPU threads")
    cpus = sorted(set(usable))
    if policy == "0":
        return None, "not pinned (VM_PIN=0)"
    if len(cpus) < threads:
        why = (f"{threads} vCPU thread{'s' if threads > 1 else ''} but only {len(cpus)} "
               f"usable host cpu{'s' if len(cpus) != 1 else ''} ({cpu_list(cpus)})")
        if policy == "1":
            raise PinError(f"VM_PIN=1: cannot pin: {why}")
        return None, f"not pinned (VM_PIN=auto): {why}"
    return cpus[:threads], ""


def cpu_list(cpus: Sequence[int]) -> str:
    """``0-3,6`` as in /proc/PID/status's Cpus_allowed_list."""
    out: List[str] = []
    s = sorted(set(cpus))
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[j] + 1:
            j += 1
        out.append(str(s[i]) if i == j else f"{s[i]}-{s[j]}")
        i = j + 1
    return ",".join(out)


def allowed_list(tid: int) -> str:
    """The Cpus_allowed_list of thread ``tid``, read back from /proc."""
    with open(f"/proc/{tid}/status") as f:
        for line in f:
            if line.startswith("Cpus_allowed_list:"):
                return line.split(":", 1)[1].strip()
    raise PinError(f"no Cpus_allowed_list in /proc/{tid}/status")


class Qmp:
    """A minimal QMP client: greeting, capabilities negotiation, commands."""

    def __init__(self, path: str, deadline: float, alive: Callable[[], bool]) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # qemu creates the socket while it starts: wait for it as long as qemu lives
        while True:
            try:
                self.sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if not alive():
                    raise PinError("qemu exited before its QMP socket opened")
                if time.monotonic() > deadline:
                    raise PinError(f"QMP socket {path} did not open")
                time.sleep(0.05)
        self.sock.settimeout(max(1.0, deadline - time.monotonic()))
        self.buf = b""
        self._read()  # the greeting
        self.command("qmp_capabilities")

    def _read(self) -> Dict[str, object]:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise PinError("QMP connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        msg: Dict[str, object] = json.loads(line)
        return msg

    def command(self, name: str) -> object:
        self.sock.sendall(json.dumps({"execute": name}).encode() + b"\n")
        while True:
            msg = self._read()
            if "event" in msg:
                continue
            if "error" in msg:
                raise PinError(f"QMP {name}: {msg['error']}")
            return msg.get("return")


def vcpu_threads(qmp: Qmp) -> List[Tuple[int, int]]:
    """``[(cpu-index, thread-id)]`` of every vCPU, from query-cpus-fast."""
    ret = qmp.command("query-cpus-fast")
    if not isinstance(ret, list) or not ret:
        raise PinError(f"query-cpus-fast returned {ret!r}")
    return sorted((int(c["cpu-index"]), int(c["thread-id"])) for c in ret)


def apply(policy: str, qmp_path: str, qemu_pid: int, timeout: float) -> Tuple[bool, str]:
    """Pin qemu's vCPU threads by :func:`plan`: (pinned?, the status line to print)."""
    def alive() -> bool:
        try:
            os.kill(qemu_pid, 0)
            return True
        except ProcessLookupError:
            return False
    qmp = Qmp(qmp_path, time.monotonic() + timeout, alive)
    vcpus = vcpu_threads(qmp)
    # single-threaded TCG (-icount) runs every vCPU on one thread: pin that one
    tids = sorted({t for _, t in vcpus}, key=lambda t: min(i for i, u in vcpus if u == t))
    usable = sorted(os.sched_getaffinity(0))
    cpus, why = plan(policy, len(tids), usable)
    if cpus is None:
        return False, why
    done = []
    for tid, cpu in zip(tids, cpus):
        os.sched_setaffinity(tid, {cpu})
        got = allowed_list(tid)
        if got != str(cpu):
            raise PinError(f"thread {tid} pinned to cpu {cpu} reads back Cpus_allowed_list {got}")
        idx = ",".join(str(i) for i, t in vcpus if t == tid)
        done.append(f"vCPU {idx} (thread {tid}) -> cpu {got}")
    return True, "pinned " + ", ".join(done)


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("action", choices=("plan", "apply"))
    ap.add_argument("--policy", required=True, help="auto, 0 or 1 (VM_PIN)")
    ap.add_argument("--vcpus", type=int, help="vCPU threads qemu will run (plan)")
    ap.add_argument("--qmp", help="qemu's QMP unix socket (apply)")
    ap.add_argument("--pid", type=int, help="stop waiting for the socket when it exits (apply)")
    ap.add_argument("--kill-on-failure", type=int, metavar="PID",
                    help="SIGTERM this process when pinning fails (apply)")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds to wait for the QMP socket (apply)")
    a = ap.parse_args(argv)
    if a.action == "plan":
        if a.vcpus is None:
            ap.error("plan needs --vcpus")
        try:
            plan(a.policy, a.vcpus, sorted(os.sched_getaffinity(0)))
        except (ValueError, PinError) as e:
            print(f"vm: error: {e}", file=sys.stderr)
            return 2
        return 0
    if a.qmp is None or a.pid is None:
        ap.error("apply needs --qmp and --pid")
    try:
        pinned, line = apply(a.policy, a.qmp, a.pid, a.timeout)
    except (PinError, OSError, ValueError, KeyError, TypeError) as e:
        what = "" if isinstance(e, PinError) else f"{type(e).__name__}: "
        print(f"vm: pinning failed: {what}{e}", file=sys.stderr)
        if a.kill_on_failure is not None:
            print("vm: VM_PIN=1: stopping the guest", file=sys.stderr)
            try:
                os.kill(a.kill_on_failure, signal.SIGTERM)
            except ProcessLookupError:
                pass
        return 1
    print(f"vm: {line}", file=sys.stderr)
    return 0 if pinned else 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

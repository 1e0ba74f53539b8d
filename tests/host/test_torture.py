# SPDX-License-Identifier: GPL-2.0
"""The torture run's own checks (scripts/torture.sh, tests/torture/torture.py;
docs/testing.md): the same seed makes the same decisions, bad settings are refused
before anything boots, and a call that does not return fails the run."""
import ast
import importlib.util
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("SLABLAB_BUILD", os.path.join(REPO, "build"))
MODULE = os.path.join(REPO, "module", "slablab.ko")
TORTURE = os.path.join(REPO, "scripts", "torture.sh")
PROGRAM = os.path.join(REPO, "tests", "torture", "torture.py")
# the Python with slablab installed (build/venv/bin/python under make)
PY = os.environ.get("SLABLAB_PYTHON", sys.executable)


def plan(seed, cpus=4, n=200):
    r = subprocess.run([PY, PROGRAM, "--plan", str(n), "--seed", str(seed), "--cpus", str(cpus)],
                       capture_output=True, text=True, timeout=60, check=True)
    return r.stdout.splitlines()


def test_same_seed_same_decisions():
    a, b = plan(12345), plan(12345)
    assert len(a) == 400 and a == b
    c = plan(12346)
    assert c != a
    decisions = [(line.split()[0], dict(ast.literal_eval(line.split(" ", 2)[2]))) for line in a]
    control = [d for who, d in decisions if who == "control"]
    storms = [d for who, d in decisions if who == "storm"]
    # 200 decisions reach every kind of action, and every storm target
    assert {d["kind"] for d in control} == {
        "set:cpu_partial", "set:min_partial", "set:order", "set:fastpath", "set:flags",
        "fail_every", "set:multi", "fail_flip", "shrink", "validate", "reset_stats", "get",
        "obj_alloc", "obj_free", "cpu", "cpu+stop", "stop", "cache_del", "rmmod",
        "set:sheaf_capacity", "set:barn_max_full", "set:sheaves_cpu_slabs", "set:design",
        "set:lists", "set_kmalloc"}
    assert {d["target"] for d in storms} == {"slablab", "native", "kmalloc", "native-kmalloc"}
    assert {d["pattern"] for d in storms} == {"pair", "batch", "remote", "churn", "bulk",
                                              "prefill", "rcu", "producer-consumer"}
    # prefill only on slablab caches (6.1's SLUB has no sheaves)
    assert all(d["target"] == "slablab" for d in storms if d["pattern"] == "prefill")
    # rcu on slablab's targets only (RCU frees are slablab's API), with objects that hold
    # an rcu_head, a rate only there
    rcu = [d for d in storms if d["pattern"] == "rcu"]
    assert rcu and all(d["target"] in ("slablab", "kmalloc") for d in rcu)
    assert all(d.get("size", 16) >= 16 for d in rcu)
    assert all("rate" not in d for d in storms if d["pattern"] != "rcu")
    # cpu 0 never goes offline; remote storms have an even number of threads
    assert all(1 <= d["cpu"] <= 3 for d in control if d["kind"] in ("cpu", "cpu+stop", "rmmod"))
    assert all(d["threads"] % 2 == 0 for d in storms if d["pattern"] == "remote")
    # producer-consumer: a producer and a consumer at least, PRODUCERS drawn below THREADS
    pc = [d for d in storms if d["pattern"] == "producer-consumer"]
    assert pc and all(1 <= d["producers"] < d["threads"] for d in pc)
    assert all("producers" not in d for d in storms if d["pattern"] != "producer-consumer")


def torture_sh(env_extra, timeout=60):
    env = dict(os.environ, SLABLAB_BUILD=BUILD, **env_extra)
    return subprocess.run([TORTURE], capture_output=True, text=True, timeout=timeout, env=env,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("env,message", [
    ({"VM_CPUS": "2"}, "needs at least 3 vCPUs"),
    ({"TORTURE_SECONDS": "0"}, "not a positive whole number"),
    ({"TORTURE_SECONDS": "5m"}, "not a positive whole number"),
    ({"TORTURE_SEED": "x1"}, "not a non-negative integer"),
])
def test_bad_settings_are_refused_before_booting(env, message):
    r = torture_sh(env)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and "booting" not in r.stderr


@pytest.mark.skipif(not os.path.exists(MODULE), reason="module not built (run make module)")
@pytest.mark.skipif(importlib.util.find_spec("slablab") is None,
                    reason="slablab package not installed (run make)")
def test_a_call_that_does_not_return_fails_the_run(tmp_path):
    """The control thread's first call never returns (SLABLAB_TORTURE_FAKE_HANG); with a
    5-second deadline the run must fail as a hang, with the blocked tasks dumped."""
    log = tmp_path / "serial.log"
    r = torture_sh({"SLABLAB_TORTURE_FAKE_HANG": "1", "SLABLAB_TORTURE_DEADLINE": "5",
                    "TORTURE_SECONDS": "60", "TORTURE_SEED": "7", "VM_LOG": str(log),
                    "VM_TIMEOUT": "300"}, timeout=400)
    out = r.stdout + r.stderr
    assert r.returncode == 3, out
    assert "torture: seed 7" in out
    assert "HANG: thread control in a fake hang" in out, out
    assert "rerun: make torture" in out and "TORTURE_SEED=7" in out
    assert "Show Blocked State" in log.read_text(errors="replace")

# SPDX-License-Identifier: GPL-2.0
"""Storms while something else changes: cpus going offline and online under storm
START/STOP (the storm engine's lock order, module/storm.c).

Every command runs in its own thread and must come back within OP_DEADLINE; the main
thread watches and fails the test, naming the command that is stuck, instead of waiting
for ever. hung_task_timeout_secs is set low meanwhile, so a task stuck in the kernel
also leaves a splat in the log (scripts/vm.sh then fails the run). After a deadlock no
slablab command can return (a stuck STORM_STOP holds genl_mutex), so a test that found
one cleans nothing up; the stuck threads keep the Python process from exiting, and
vm.sh's timeout ends the run. Loops are bounded by time; nothing sleeps to wait for a
race."""
import errno
import os
import threading
import time
from typing import Any, Dict, List, Tuple

import pytest

import slablab

from helpers import CONCURRENCY_DESIGN_VARIANTS, CONCURRENCY_VARIANTS, consistent

HUNG_TASK = "/proc/sys/kernel/hung_task_timeout_secs"
OP_DEADLINE = 40        # s: far beyond any storm command or hotplug step, even under TCG
RUN_SECONDS = 25        # how long storms and hotplug run together


@pytest.fixture(params=CONCURRENCY_DESIGN_VARIANTS)
def design(request):
    """conftest's design fixture, over the concurrency files' variants (make test's stock
    stage: the base designs, SLABLAB_CONCURRENCY_VARIANTS=base)."""
    return request.param


def hotplug_cpus():
    """Online cpus that can go offline (cpu0 usually has no online file)."""
    cpus = []
    for c in sorted(os.sched_getaffinity(0)):
        if os.path.exists(f"/sys/devices/system/cpu/cpu{c}/online"):
            cpus.append(c)
    return cpus


def set_online(cpu, on):
    with open(f"/sys/devices/system/cpu/cpu{cpu}/online", "w") as f:
        f.write("1" if on else "0")


@pytest.fixture
def hung_task_low():
    """hung_task_timeout_secs = 10 for the test, restored after."""
    try:
        with open(HUNG_TASK) as f:
            old = f.read().strip()
    except OSError:
        yield                   # no hung task detector: the deadlines still catch hangs
        return
    with open(HUNG_TASK, "w") as f:
        f.write("10")
    yield
    with open(HUNG_TASK, "w") as f:
        f.write(old)


class Watch:
    """What each thread is doing since when, for the main thread's deadline check."""

    def __init__(self):
        self.lock = threading.Lock()
        self.doing = {}
        self.hung = False       # something was stuck: the kernel is deadlocked

    def mark(self, who, what):
        with self.lock:
            self.doing[who] = (what, time.monotonic())

    def done(self, who):
        with self.lock:
            self.doing.pop(who, None)

    def stuck(self):
        now = time.monotonic()
        with self.lock:
            return [f"{who}: {what} for {now - t:.0f} s"
                    for who, (what, t) in self.doing.items() if now - t > OP_DEADLINE]


def watch_threads(watch, threads, errors):
    """Join @threads, failing as soon as one of them is stuck past OP_DEADLINE."""
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        stuck = watch.stuck()
        if stuck:
            watch.hung = True
            pytest.fail(f"stuck past {OP_DEADLINE} s (deadlock?): {stuck}")
        for t in threads:
            t.join(timeout=0.5)
    assert not errors, errors


def toggle_cpu(cpu, stop, watch, counts, errors):
    who = f"hotplug cpu{cpu}"
    try:
        while not stop.is_set():
            for on in (False, True):
                watch.mark(who, f"cpu{cpu}/online = {int(on)}")
                try:
                    set_online(cpu, on)
                except OSError as e:
                    if e.errno != errno.EBUSY:     # the kernel may refuse one offline
                        raise
            counts[who] = counts.get(who, 0) + 1
    except Exception as e:      # noqa: BLE001 (reported by the main thread)
        errors.append(f"{who}: {e!r}")
    finally:
        watch.done(who)


# Short storms on every cpu, each stopped mid-run: native targets (the controller
# destroys a kmem_cache, which takes cpus_read_lock) and slablab targets.
VARIANTS: Tuple[Tuple[str, str, Dict[str, Any]], ...] = (
    ("native", "pair", {}),
    ("slablab", "churn", dict(working_set=64)),
    ("native", "churn", dict(working_set=64)),
    ("slablab", "remote", dict(ring=64)),
    ("native", "batch", dict(batch=16)),
    ("kmalloc", "batch", dict(size=200, batch=16)),
)


def storm_loop(cache, until, watch, counts, errors):
    who = "storms"
    c = slablab.Client()
    threads = 2 * len(os.sched_getaffinity(0))      # even (remote), on every online cpu
    i = 0
    try:
        # RUN_SECONDS, and on until every variant ran once (a debug kernel under TCG may
        # refuse many starts while cpus come and go: 5 of 6 in 25 s once), within a
        # bound; the test then asserts that they did
        while (time.monotonic() < until or counts.get(who, 0) < len(VARIANTS)) and \
                time.monotonic() < until + 3 * RUN_SECONDS:
            target, pattern, kw = VARIANTS[i % len(VARIANTS)]
            if target != "kmalloc":
                kw = dict(kw, cache=cache)
            watch.mark(who, f"STORM_START {target} {pattern}")
            try:
                s = c.storm_start(target, pattern, duration_ms=20000, threads=threads, **kw)
            except slablab.InvalidArgument as e:
                # a cpu went offline after the cpu list was read: refused, as documented
                assert e.errno == errno.EINVAL and "went offline during set-up" in str(e), e
                counts["refused"] = counts.get("refused", 0) + 1
                i += 1
                continue
            if i % 2:           # every other storm runs a little before it is stopped
                watch.mark(who, f"STORM_GET {s['id']}")
                deadline = time.monotonic() + 5
                while (time.monotonic() < deadline and
                       c.storm_get(s["id"])["progress"]["ops_done"] == 0):
                    pass
            watch.mark(who, f"STORM_STOP {s['id']} ({target} {pattern})")
            r = c.storm_stop(s["id"])
            assert r["state"] in ("stopped", "done"), r["state"]
            res = r["result"]
            assert res is not None, r       # a stopped storm has its results
            assert res["failures"] == 0, res
            if pattern == "churn":      # the fill and its objects' frees: uncounted
                assert 0 <= res["allocs"] - res["frees"] <= threads * kw["working_set"], res
            else:
                assert res["allocs"] == res["frees"], res
            counts[who] = counts.get(who, 0) + 1
            i += 1
    except Exception as e:      # noqa: BLE001
        errors.append(f"{who}: {e!r}")
    finally:
        watch.done(who)


# A design's tunables for this test: slab's reap runs every few ticks, so that its work
# is cancelled by cpu offline and destroy while it runs or is queued.
HOTPLUG_TUNABLES = {"slab": dict(reap_cpu_ms=20, reap_node_ms=40)}


@pytest.mark.parametrize("design", CONCURRENCY_VARIANTS)
def test_storm_start_stop_against_cpu_hotplug(client, hung_task_low, design):
    """STORM_START and STORM_STOP of native and slablab storms on every cpu while cpus
    go offline and online: every command returns. Before storm_mutex, a STOP waited for
    the controller under cpus_read_lock and slablab_mutex, the controller in
    kmem_cache_destroy() for cpus_read_lock behind the pending hotplug writer, and the
    writer in slablab_cpu_dead() for slablab_mutex; a native START read-locked
    cpus_read_lock recursively (kmem_cache_create() under slablab_lock()). Per design:
    slab's per-cpu reap work is cancelled and restarted by every offline and online,
    and a dead cpu's array drained."""
    cpus = hotplug_cpus()
    if len(os.sched_getaffinity(0)) < 3 or not cpus:
        pytest.skip("needs 3 or more online cpus, one of them hot-pluggable")
    everyone = os.sched_getaffinity(0)
    victims = cpus[-2:] if len(everyone) >= 4 and len(cpus) >= 2 else cpus[-1:]
    name = "hotplug-storms"
    client.cache_create(name, 96, design=str(design), **design.tunables,
                        **HOTPLUG_TUNABLES.get(design, {}))
    watch = Watch()
    counts: Dict[str, int] = {}     # what each thread did, by who
    errors: List[str] = []
    stop = threading.Event()
    hot = [threading.Thread(target=toggle_cpu, args=(cpu, stop, watch, counts, errors),
                            daemon=True) for cpu in victims]
    storms = threading.Thread(target=storm_loop, daemon=True,
                              args=(name, time.monotonic() + RUN_SECONDS, watch, counts,
                                    errors))
    try:
        for t in hot:
            t.start()
        watch_threads(watch, [storms], errors)
    finally:
        stop.set()
        if not watch.hung:
            for t in hot:
                t.join(timeout=OP_DEADLINE)
    assert not any(t.is_alive() for t in hot), f"hotplug stuck: {watch.stuck()}"
    assert not errors, errors
    for cpu in victims:
        set_online(cpu, True)
    os.sched_setaffinity(0, everyone)
    report = client.cache_validate(name)
    assert report["ok"] and report["errors"] == 0, report
    consistent(client, name, fresh=False)
    client.cache_destroy(name)
    # storms and hotplug really overlapped
    assert counts.get("storms", 0) >= len(VARIANTS), counts
    assert all(counts.get(f"hotplug cpu{cpu}", 0) >= 1 for cpu in victims), counts
    assert client.storm_get()["state"] != "running"

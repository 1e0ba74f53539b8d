#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The torture run (`make torture`, scripts/torture.sh; docs/testing.md): inside the test
VM, for a fixed time, every storm pattern against every target runs in turn while a
control thread does, at random, everything else the lab allows: CACHE_SET of every
tunable, shrink, validate, reset_stats, scripted allocations and frees on other cpus,
cpu offline/online, STORM_STOP, CACHE_DEL attempts and rmmod attempts (the module is
loaded again when one succeeds). Afterwards every storm's counting identities must have
held, every validate must have been clean, the caches must validate clean and empty
once the scripted objects are freed, and the module must unload.

    torture.py --seconds N --seed S --module PATH.ko     the run (in the VM, as root)
    torture.py --plan N --seed S --cpus C                 the first N decisions of each
                                                          thread, without a kernel

Same seed, same decisions: each thread draws its decisions (what to do, and every
parameter of it) from its own random stream derived from the seed, never from what the
kernel answered, so a failing run is rerun exactly with its seed (the interleaving of
the threads with each other and with the kernel is, of course, timing).

Hangs: every call a thread makes into the kernel is registered with its start time; a
watchdog thread fails the run when one has not returned within CALL_DEADLINE seconds,
after dumping the blocked tasks (sysrq w) into the kernel log. A thread stuck in the
kernel cannot be killed, so the work runs in a child process and this process (the
supervisor) forwards its output and ends the run by itself when the child reports a
hang or falls silent.
"""
import argparse
import collections
import contextlib
import errno
import os
import random
import select
import subprocess
import sys
import threading
import time
from typing import Any, Counter, Deque, Dict, Tuple

import slablab                          # the package: --plan needs no module loaded

# seconds one kernel call may take before it is a hang (SLABLAB_TORTURE_DEADLINE: the
# harness self-check in tests/host/test_torture.py shortens it)
CALL_DEADLINE = float(os.environ.get("SLABLAB_TORTURE_DEADLINE", "60"))
SILENCE_DEADLINE = 150.0    # supervisor: no output from the worker for this long
NO_PROGRESS_DEADLINE = 120.0  # a running storm whose ops_done does not move
PROGRESS_EVERY = 10.0
HUNG_TASK_TIMEOUT = 20      # /proc/sys/kernel/hung_task_timeout_secs in the guest
EXIT_MARK = "torture-exit "
DEBUGFS = "/sys/kernel/debug/slablab"

# the storm engine's patterns and targets, so that a new one is tortured too
PATTERNS = slablab.STORM_PATTERNS
TARGETS = slablab.STORM_TARGETS
# Every pattern against every target, pattern by pattern (bulk needs a cache target,
# prefill a slablab cache: the kernel's SLUB on 6.1 has no sheaves; rcu a slablab
# target: its RCU frees are slablab's API).
COMBOS = tuple((t, p) for p in PATTERNS for t in TARGETS
               if not (p == "bulk" and t in ("kmalloc", "native-kmalloc"))
               and not (p == "prefill" and t != "slablab")
               and not (p == "rcu" and t in ("native", "native-kmalloc")))

# The torture's own caches: (name, size, creation tunables). Recreated with these after
# a CACHE_DEL or a reload.
CACHES: Tuple[Tuple[str, int, Dict[str, Any]], ...] = (
    ("tt-64", 64, {}),
    ("tt-192-debug", 192, {"debug": True}),
    ("tt-1000", 1000, {"fastpath": "irqoff"}),
    ("tt-4096", 4096, {"cpu_partial": 0, "min_partial": 0}),
    ("tt-256-sheaves", 256, {"design": "sheaves"}),
    ("tt-512-sheaves-cs", 512, {"design": "sheaves", "sheaves_cpu_slabs": 1,
                                "sheaf_capacity": 16, "barn_max_full": 2}),
    ("tt-100-slob", 100, {"design": "slob", "lists": 2}),
    ("tt-5000-slob", 5000, {"design": "slob"}),      # a page or more: the page allocator
    ("tt-128-typesafe", 128, {"typesafe_by_rcu": True}),  # slabs freed after a grace period
)
KMALLOC_SIZES = (1, 8, 100, 192, 1000, 5000, 16384)
RCU_MIN_SIZE = 16           # an rcu storm's objects hold a struct rcu_head
KMALLOC_MAX_CLASS = 8192    # slablab_kmalloc(): larger sizes go to the page allocator
SLOB_KMALLOC_MAX = 4096 - 8 - 1   # on slob: below PAGE_SIZE - the size header, from the heap
WEIGHTED_SIZES = {64: 3, 192: 1, 1000: 1, 5000: 1}
FLAG_SETS = ("none", "hardened,random", "debug", "debug,hardened,random",
             "hwcache_align,random", "random")
# Each pattern's ops per thread (remote, producer-consumer: per producer), multiplied by a
# drawn scale.
BASE_OPS = {"pair": 20000, "batch": 8192, "bulk": 8192, "remote": 6000, "churn": 6000,
            "prefill": 8192, "rcu": 8192, "producer-consumer": 6000}
HELD_BYTES_MAX = 64 << 20   # scripted objects held at most (beside the storms)

# Control actions and their weights. "set:*" are CACHE_SET requests; "fail_every" and
# "fail_flip" write the cache's debugfs fail_slab_every (fault injection, no netlink).
ACTIONS = {
    "set:cpu_partial": 5, "set:min_partial": 4, "set:order": 4, "set:fastpath": 4,
    "set:flags": 3, "fail_every": 4, "set:multi": 3, "fail_flip": 2,
    "set:sheaf_capacity": 3, "set:barn_max_full": 2, "set:sheaves_cpu_slabs": 2,
    "set:design": 2, "set:lists": 2, "set_kmalloc": 2,
    "shrink": 5, "validate": 8, "reset_stats": 3, "get": 2,
    "obj_alloc": 6, "obj_free": 5, "cpu": 4, "stop": 2, "cpu+stop": 2, "cache_del": 2,
    "rmmod": 1,
}
RMMOD_EVERY = 20.0          # at most one rmmod attempt in this many seconds
TUNABLES = ("cpu_partial", "min_partial", "order", "fastpath", "flags", "sheaf_capacity",
            "barn_max_full", "sheaves_cpu_slabs", "design")
# the tunables that change a cache's front end: only while it is empty (EBUSY otherwise)
EMPTY_ONLY = ("flags", "sheaves_cpu_slabs", "design")


def now():
    return time.monotonic()


# ------------------------------------------------------------------ decisions
# Pure functions of a random stream: what a thread will do, never how the kernel
# answered. The executors map indices onto the state at the time (which cache, handle).

def tunable_value(tunable, r):
    if tunable == "cpu_partial":
        return r.choice((0, 2, 6, 30, 120, 1000))
    if tunable == "min_partial":
        return r.choice((0, 1, 5, 10))
    if tunable == "order":
        return r.randrange(0, 5)                    # 0..SLABLAB_MAX_ORDER
    if tunable == "fastpath":
        return r.choice(("cmpxchg", "irqoff"))
    if tunable == "flags":
        return r.choice(FLAG_SETS)
    if tunable == "sheaf_capacity":
        return r.choice((0, 4, 16, 60, 200))
    if tunable == "barn_max_full":
        return r.choice((0, 1, 10))
    if tunable == "sheaves_cpu_slabs":
        return r.choice((0, 1))
    if tunable == "design":
        return r.choice(("slub", "sheaves", "slob"))
    if tunable == "lists":
        return r.choice((1, 2, 3))
    if tunable == "fail_slab_every":
        return r.choice((0, 0, 2, 3, 7, 31))        # 0 often: defect 1
    raise ValueError(tunable)


def control_decision(kind, r, ncpus):
    """The parameters of one control action, from its own stream `r`."""
    d = {"kind": kind, "kmalloc": r.random() < 0.2, "cache": r.randrange(1 << 16),
         "storm_cache": r.random() < 0.5,
         # the pace: a few actions a second, in bursts
         "pause": r.choice((0, 0, 0.02, 0.05, 0.1, 0.2, 0.4))}
    if kind.startswith("set:"):
        if kind == "set:multi":
            names = r.sample(TUNABLES, r.randrange(2, 4))
        else:
            names = [kind[4:]]
        d["set"] = {n: tunable_value(n, r) for n in names}
    elif kind == "set_kmalloc":
        # the classes' design, against kmalloc storms (pinned: refused) and callers
        d["design"] = r.choice(("slub", "sheaves", "slob"))
    elif kind == "fail_every":
        d["value"] = tunable_value("fail_slab_every", r)
    elif kind == "validate":
        d["repeat"] = r.choice((1, 1, 5, 20))      # bursts: slabs in flight (defect 3)
    elif kind == "obj_alloc":
        d["kmalloc"] = False
        d["count"] = r.choice((1, 7, 64, 500, 2000))
        d["cpu"] = r.randrange(ncpus) if r.random() < 0.9 else None
    elif kind == "obj_free":
        d["kmalloc"] = False
        d["handle"] = r.randrange(1 << 16)
        d["cpu"] = r.randrange(ncpus) if r.random() < 0.9 else None
        d["part"] = r.random() < 0.3
    elif kind in ("cpu", "cpu+stop", "rmmod"):
        d["cpu"] = 1 + r.randrange(ncpus - 1)       # never cpu 0
        # rmmod: half the time while a cpu goes offline or online (defect 2's deadlock)
        d["with_cpu"] = kind != "rmmod" or r.random() < 0.5
    return d


def storm_decision(i, r, ncpus):
    """Storm number i: the combo in turn, everything else drawn."""
    target, pattern = COMBOS[i % len(COMBOS)]
    d = {"n": i, "target": target, "pattern": pattern, "cache": r.randrange(len(CACHES))}
    threads = r.choice((1, 2, ncpus, ncpus, 2 * ncpus))
    if pattern == "remote":
        threads += threads % 2
    elif pattern == "producer-consumer":
        threads = max(threads, 2)
    d["threads"] = threads
    d["explicit_cpus"] = r.random() < 0.15
    if r.random() < 0.3:
        d["duration_ms"] = r.choice((500, 1000, 2000, 4000))
    else:
        d["ops"] = BASE_OPS[pattern] * r.choice((1, 2, 4, 8))
    if pattern in ("batch", "bulk", "prefill"):
        d["batch"] = {"batch": (8, 16, 64, 256), "bulk": (8, 32, 64),
                      "prefill": (4, 16, 64)}[pattern]
        d["batch"] = r.choice(d["batch"])
        if "ops" in d and r.random() < 0.5:
            d["ops"] += r.randrange(1, d["batch"])     # a final partial batch
    elif pattern == "remote":
        d["ring"] = r.choice((16, 64, 256))
    elif pattern == "producer-consumer":
        d["ring"] = r.choice((2, 16, 256))
        d["producers"] = 1 + r.randrange(threads - 1)
    elif pattern == "churn":
        d["working_set"] = r.choice((64, 256, 1024))
    elif pattern == "rcu" and r.random() < 0.3:
        d["rate"] = r.choice((2000, 20000))    # objects per second per thread
    if target in ("kmalloc", "native-kmalloc"):
        if r.random() < 0.3:
            d["sizes"] = dict(WEIGHTED_SIZES)
        else:
            d["size"] = r.choice([z for z in KMALLOC_SIZES
                                  if pattern != "rcu" or z >= RCU_MIN_SIZE])
    d["seed"] = r.randrange(1, 1 << 31)
    # stopped by the storm thread after this long (a slow kernel still goes round)
    d["max_s"] = r.choice((3, 6, 10, 20))
    return d


class Plan:
    """The two decision streams of a seed."""

    def __init__(self, seed, ncpus):
        master = random.Random(seed)
        self.ncpus = ncpus
        self.control_rng = random.Random(master.getrandbits(64))
        self.storm_rng = random.Random(master.getrandbits(64))
        self.kinds = list(ACTIONS)
        self.weights = [ACTIONS[k] for k in self.kinds]
        self.storms = 0

    def next_control(self):
        kind = self.control_rng.choices(self.kinds, self.weights)[0]
        return control_decision(kind, random.Random(self.control_rng.getrandbits(64)),
                                self.ncpus)

    def next_storm(self):
        d = storm_decision(self.storms, random.Random(self.storm_rng.getrandbits(64)),
                           self.ncpus)
        self.storms += 1
        return d


def print_plan(seed, ncpus, n):
    plan = Plan(seed, ncpus)
    for i in range(n):
        print("control", i, sorted(plan.next_control().items()))
    for i in range(n):
        print("storm", i, sorted(plan.next_storm().items()))


# ------------------------------------------------------------------ shared state

class CacheState:
    def __init__(self, name, size, tunables):
        self.name, self.size, self.tunables = name, size, tunables
        self.handles = []           # [handle id, objects held]
        self.scripted = 0           # bumped before and after every scripted call on it
        self.fail_gen = 0           # bumped whenever fail_slab_every is set
        self.fail = 0               # fail_slab_every as last set
        self.deleted = 0            # successful CACHE_DELs

    def held(self):
        return sum(c for _, c in self.handles)


class Failure(Exception):
    pass


class Torture:
    def __init__(self, args):
        self.slablab = slablab
        self.seed, self.seconds, self.module = args.seed, args.seconds, args.module
        self.verbose = bool(os.environ.get("SLABLAB_TORTURE_VERBOSE"))
        # SLABLAB_TORTURE_SKIP=kind,...: decided as usual (the sequence stays that of
        # the seed) but not done; "cpu" also keeps cpu+stop and rmmod off the hotplug
        self.skip = set(filter(None, os.environ.get("SLABLAB_TORTURE_SKIP", "").split(",")))
        unknown = self.skip - set(ACTIONS)
        if unknown:
            raise SystemExit(f"torture: SLABLAB_TORTURE_SKIP: no action {sorted(unknown)}; "
                             f"the actions are {', '.join(ACTIONS)}")
        self.ncpus = os.cpu_count() or 1
        self.plan = Plan(self.seed, self.ncpus)
        self.lock = threading.Lock()
        self.world = threading.Condition(self.lock)
        self.gen = 0                        # module loads since the start
        self.reloading = False
        self.caches = {n: CacheState(n, s, t) for n, s, t in CACHES}
        self.kmalloc = []                   # names of slablab's kmalloc classes
        self.kmalloc_fail_gen = 0
        self.kmalloc_failing = set()        # kmalloc classes with fail_slab_every != 0
        self.resets: Counter[str] = collections.Counter()   # reset_stats started, by cache
        self.inflight = {}                  # thread name -> (label, start)
        self.counts: Counter[Tuple[str, str]] = collections.Counter()     # (kind, outcome)
        self.slowest = collections.defaultdict(float)
        self.storms: Counter[str] = collections.Counter()     # state / "lost"
        self.storm_combos: Counter[Tuple[str, str]] = collections.Counter()
        self.errors = []
        self.recent: Deque[str] = collections.deque(maxlen=40)
        self.t0 = now()
        self.end = self.t0 + self.seconds
        self.done = threading.Event()       # the workers are finished
        self.hotplug_req = None
        self.hotplug_cv = threading.Condition()
        self.offline = set()
        self.quit_hotplug = False
        self.last_rmmod = -RMMOD_EVERY
        self.broken = False                 # the module could not be loaded again
        self.current = None                 # the cache (or kmalloc class) storms use now

    # -------------------------------------------------------------- bookkeeping
    def elapsed(self):
        return now() - self.t0

    def note(self, text):
        line = f"[{self.elapsed():7.1f}s] {threading.current_thread().name}: {text}"
        with self.lock:
            self.recent.append(line)
        if self.verbose:
            print("torture: " + line, flush=True)

    def error(self, text):
        line = f"[{self.elapsed():7.1f}s] {threading.current_thread().name}: {text}"
        with self.lock:
            self.errors.append(line)
            self.recent.append("ERROR " + line)
        print("torture: ERROR " + line, flush=True)

    def count(self, kind, outcome, seconds=0.0):
        with self.lock:
            self.counts[(kind, outcome)] += 1
            self.slowest[kind] = max(self.slowest[kind], seconds)

    @contextlib.contextmanager
    def call(self, label):
        """A kernel call with a deadline (the watchdog enforces it)."""
        me = threading.current_thread().name
        with self.lock:
            self.inflight[me] = (label, now())
        try:
            yield
        finally:
            with self.lock:
                self.inflight.pop(me, None)

    def client(self):
        return self.slablab.Client()

    # -------------------------------------------------------------- watchdog
    def watchdog(self):
        last = now()
        while not self.done.wait(1.0):
            with self.lock:
                stuck = [(t, l, now() - s) for t, (l, s) in self.inflight.items()
                         if now() - s > CALL_DEADLINE]
            if stuck:
                self.hang("; ".join(f"thread {t} in {l} for {d:.0f} s" for t, l, d in stuck))
            if now() - last >= PROGRESS_EVERY:
                last = now()
                self.progress()

    def progress(self):
        with self.lock:
            by_kind: Counter[str] = collections.Counter()
            for (k, _), n in self.counts.items():
                by_kind[k.split(":")[0]] += n
            storms = sum(self.storms.values())
            st = ", ".join(f"{k} {v}" for k, v in sorted(self.storms.items()))
            acts = " ".join(f"{k} {v}" for k, v in sorted(by_kind.items()))
            nerr = len(self.errors)
            offline = sorted(self.offline)
        print(f"torture: [{self.elapsed():5.0f}s] storms {storms} ({st or '-'}); actions "
              f"{sum(by_kind.values())}: {acts or '-'}; offline {offline or '-'}; "
              f"errors {nerr}", flush=True)

    def hang(self, what):
        print(f"torture: HANG: {what} (deadline {CALL_DEADLINE:.0f} s); blocked tasks "
              "follow in the kernel log (sysrq w)", flush=True)
        with contextlib.suppress(OSError), open("/proc/sysrq-trigger", "w") as f:
            f.write("w")
        self.report_recent()
        print(f"torture: FAILED: hang; rerun with seed {self.seed}", flush=True)
        print(EXIT_MARK + "3", flush=True)
        os._exit(3)

    def report_recent(self):
        with self.lock:
            recent = list(self.recent)
        print("torture: last events:", flush=True)
        for line in recent:
            print("torture:   " + line, flush=True)

    # -------------------------------------------------------------- setup
    def create_cache(self, c, st):
        with self.call(f"cache_create {st.name}"):
            c.cache_create(st.name, st.size, **st.tunables)
        st.handles = []
        st.fail = 0
        st.fail_gen += 1

    def setup(self, c):
        """Caches made (again) after the start or a reload."""
        for st in self.caches.values():
            self.create_cache(c, st)
        with self.call("cache_list"):
            self.kmalloc = sorted((x["name"] for x in c.cache_list()
                                   if x["owner"] == "kmalloc"),
                                  key=lambda n: int(n.split("-")[1]))
        self.kmalloc_failing = set()
        self.kmalloc_fail_gen += 1

    # -------------------------------------------------------------- errors
    def expect(self, kind, e, allowed):
        """`e` a slablab.Error: fine when (errno, text) is in `allowed`, else an error."""
        for err, text in allowed:
            if e.errno == err and (text is None or text in str(e)):
                self.count(kind, f"refused {errno.errorcode.get(err, err)}")
                self.note(f"{kind}: refused as expected: {e}")
                return
        self.count(kind, "error")
        self.error(f"{kind}: unexpected error: {type(e).__name__}: {e}")

    # -------------------------------------------------------------- control thread
    def pick_cache(self, d):
        """The cache an action works on: half the time the one the storm in flight
        uses (its kmalloc class for a kmalloc storm of one size), else any."""
        with self.lock:
            cur = self.current
        if d["storm_cache"] and cur:
            if cur in self.caches:
                return self.caches[cur], cur
            if cur in self.kmalloc and d["kind"] not in ("obj_alloc", "obj_free"):
                return None, cur
        if d["kmalloc"] and self.kmalloc:
            return None, self.kmalloc[d["cache"] % len(self.kmalloc)]
        names = list(self.caches)
        st = self.caches[names[d["cache"] % len(names)]]
        return st, st.name

    def control(self):
        c = self.client()
        gen = self.gen
        if os.environ.get("SLABLAB_TORTURE_FAKE_HANG"):
            with self.call("a fake hang (SLABLAB_TORTURE_FAKE_HANG)"):
                threading.Event().wait()
        while now() < self.end and not self.broken:
            d = self.plan.next_control()
            time.sleep(d["pause"])
            if self.gen != gen:
                c, gen = self.client(), self.gen
            self.note(f"decide {sorted(d.items())}")
            if d["kind"] in self.skip:
                self.count(d["kind"], "skipped (SLABLAB_TORTURE_SKIP)")
                continue
            t = now()
            try:
                c = self.act(c, d) or c
                gen = self.gen
            except Failure as f:
                self.count(d["kind"], "error")
                self.error(f"{d['kind']}: {f}")
            except self.slablab.Error as e:
                self.count(d["kind"], "error")
                self.error(f"{d['kind']}: unexpected {type(e).__name__}: {e}")
            self.slowest[d["kind"]] = max(self.slowest[d["kind"]], now() - t)

    def act(self, c, d):
        kind = d["kind"]
        if kind.startswith("set:"):
            self.act_set(c, d)
        elif kind == "set_kmalloc":
            self.act_set_kmalloc(c, d)
        elif kind == "fail_every":
            self.act_fail_every(d)
        elif kind == "fail_flip":
            self.act_fail_flip(c, d)
        elif kind in ("shrink", "validate", "reset_stats", "get"):
            st, name = self.pick_cache(d)
            if kind == "reset_stats":
                with self.lock:
                    self.resets[name] += 1
            for _ in range(d.get("repeat", 1)):
                with self.call(f"{kind} {name}"):
                    if kind == "shrink":
                        c.cache_shrink(name)
                    elif kind == "reset_stats":
                        c.cache_reset_stats(name)
                    elif kind == "get":
                        c.cache_get(name, percpu=True)
                    else:
                        rep = c.cache_validate(name)
                if kind == "validate" and (rep["errors"] or not rep["ok"]):
                    raise Failure(f"validate {name} on a busy cache: {rep}")
            self.count(kind, "ok")
        elif kind == "obj_alloc":
            self.act_obj_alloc(c, d)
        elif kind == "obj_free":
            self.act_obj_free(c, d)
        elif kind in ("cpu", "cpu+stop"):
            # the hotplug thread runs it; "cpu+stop" stops the storm meanwhile
            self.act_cpu(d)
            if kind == "cpu+stop":
                with self.call("storm_stop (a cpu going off/online)"):
                    r = c.storm_stop()
                self.count(kind, r["state"])
        elif kind == "stop":
            with self.call("storm_stop"):
                r = c.storm_stop()
            self.count(kind, r["state"])
        elif kind == "cache_del":
            self.act_cache_del(c, d)
        elif kind == "rmmod":
            if d["with_cpu"]:
                self.act_cpu(d)
            return self.act_rmmod(c)
        else:
            raise Failure(f"unknown action {kind}")
        return None

    @staticmethod
    def write_fail_every(name, value):
        """The cache's fault injection knob: debugfs caches/NAME/fail_slab_every (a test
        hook, no part of the netlink ABI)."""
        with open(f"{DEBUGFS}/caches/{name}/fail_slab_every", "w") as f:
            f.write(str(value))

    def set_fail_every(self, st, name, value):
        self.fail_changing(st, name, value, before=True)
        try:
            with self.call(f"debugfs {name}/fail_slab_every={value}"):
                self.write_fail_every(name, value)
        except OSError as e:
            raise Failure(f"debugfs {name}/fail_slab_every={value}: {e}") from None
        self.fail_changing(st, name, value, before=False)

    def act_fail_every(self, d):
        st, name = self.pick_cache(d)
        self.set_fail_every(st, name, d["value"])
        self.count(d["kind"], "ok")

    def act_fail_flip(self, c, d):
        """fail_slab_every 1 (every new slab fails: the storm's cpus keep coming back to
        new_slab()) and 0, ten times over: a storm must never see the 0 as a divisor."""
        st, name = self.pick_cache(d)
        for _ in range(10):
            for value in (1, 0):
                self.set_fail_every(st, name, value)
        self.count(d["kind"], "ok")

    def tunables_of(self, c, name):
        with self.call(f"cache_get {name}"):
            x = c.cache_get(name, percpu=False)
        return {k: x.get(k) for k in ("cpu_partial", "min_partial", "order", "fastpath",
                                      "flags", "stride", "objs_per_slab", "design",
                                      "sheaves_cpu_slabs", "sheaf_capacity")}

    def act_set(self, c, d):
        kind = d["kind"]
        st, name = self.pick_cache(d)
        kw = dict(d["set"])
        before = self.tunables_of(c, name)
        try:
            with self.call(f"cache_set {name} {kw}"):
                c.cache_set(name, **kw)
            self.count(kind, "ok")
        except self.slablab.Error as e:
            allowed = []
            if any(k in kw for k in EMPTY_ONLY):
                allowed += [(errno.EBUSY, "needs an empty cache"),
                            (errno.EBUSY, "cannot change while it is in use"),
                            (errno.EBUSY, "prefilled sheaves are out")]
            if "order" in kw or "flags" in kw:
                allowed += [(errno.ERANGE, "cannot hold one")]
            if "design" in kw or "flags" in kw:
                allowed += [(errno.EOPNOTSUPP, "the slob design has no debug mode"),
                            (errno.EINVAL, "typesafe_by_rcu caches have no debug mode"),
                            (errno.EOPNOTSUPP, "slob: typesafe_by_rcu objects up to")]
            if "lists" in kw:
                allowed += [(errno.EINVAL, "lists is a tunable of the slab and slob"),
                            (errno.EINVAL, "lists: slab takes 1 or 3")]
            self.expect(kind, e, allowed)
            after = self.tunables_of(c, name)
            if after != before:
                raise Failure(f"CACHE_SET {name} {kw} failed ({e}) but changed the cache: "
                              f"{before} -> {after}") from None

    def act_set_kmalloc(self, c, d):
        """The kmalloc classes' design, while kmalloc storms (pinned: refused), handles
        on the classes (objects: refused) and their slablab_kmalloc() callers run."""
        try:
            with self.call(f"set_kmalloc design={d['design']}"):
                c.set_kmalloc(design=d["design"])
            self.count(d["kind"], "ok")
        except self.slablab.Error as e:
            self.expect(d["kind"], e, [(errno.EBUSY, "must be empty"),
                                       (errno.EBUSY, "is in use (a storm)")])

    def fail_changing(self, st, name, value, before):
        """Fault injection on `name` is changing (before the call: the generation moves,
        so a storm running across the change may count failures)."""
        with self.lock:
            if st is not None:
                st.fail_gen += 1
                st.fail = value if not before else max(st.fail, value)
            else:
                self.kmalloc_fail_gen += 1
                if value:
                    self.kmalloc_failing.add(name)
                elif not before:
                    self.kmalloc_failing.discard(name)

    def act_obj_alloc(self, c, d):
        kind = d["kind"]
        st, name = self.pick_cache(d)
        held = sum(x.held() * x.size for x in self.caches.values())
        if held + d["count"] * st.size > HELD_BYTES_MAX:
            self.count(kind, "skipped (held bytes)")
            return
        with self.lock:
            st.scripted += 1
        try:
            with self.call(f"obj_alloc {name} {d['count']} cpu {d['cpu']}"):
                h = c.obj_alloc(name, d["count"], cpu=d["cpu"])
            st.handles.append([h, d["count"]])
            self.count(kind, "ok")
        except self.slablab.Error as e:
            self.expect(kind, e, [(errno.EINVAL, f"cpu {d['cpu']} is not online"),
                                  (errno.ENOMEM, "allocation of")])
        finally:
            with self.lock:
                st.scripted += 1

    def act_obj_free(self, c, d):
        kind = d["kind"]
        all_handles = [(st, h) for st in self.caches.values() for h in st.handles]
        if not all_handles:
            self.count(kind, "skipped (no handle)")
            return
        st, h = all_handles[d["handle"] % len(all_handles)]
        count = max(1, h[1] // 2) if d["part"] and h[1] > 1 else None
        with self.lock:
            st.scripted += 1
        try:
            with self.call(f"obj_free {h[0]} ({st.name}) count {count} cpu {d['cpu']}"):
                left = c.obj_free(h[0], cpu=d["cpu"], count=count)
            if count is None:
                st.handles.remove(h)
                if left not in (0, h[1]):
                    raise Failure(f"OBJ_FREE of handle {h} answered {left} objects left")
            else:
                if left != h[1] - count:
                    raise Failure(f"OBJ_FREE {count} of handle {h} left {left}")
                h[1] = left
            self.count(kind, "ok")
        except self.slablab.Error as e:
            self.expect(kind, e, [(errno.EINVAL, f"cpu {d['cpu']} is not online"),
                                  (errno.ENOMEM, None)])
        finally:
            with self.lock:
                st.scripted += 1

    def act_cache_del(self, c, d):
        kind = d["kind"]
        st, name = self.pick_cache(d)
        if st is None:
            try:
                with self.call(f"cache_destroy {name}"):
                    c.cache_destroy(name)
                raise Failure(f"CACHE_DEL of kmalloc class {name} succeeded")
            except self.slablab.Error as e:
                self.expect(kind, e, [(errno.EPERM, "owned by kmalloc")])
            return
        with self.lock:
            st.scripted += 1
        deleted = False
        try:
            with self.call(f"cache_destroy {name}"):
                c.cache_destroy(name)
            deleted = True
        except self.slablab.Error as e:
            deleted = False
            self.expect(kind, e, [(errno.EBUSY, "in use by a running storm")])
        finally:
            # a deleted cache's handles went with it; a refused CACHE_DEL frees nothing
            if deleted:
                st.handles = []
            with self.lock:
                st.scripted += 1
        if deleted:
            with self.lock:
                st.deleted += 1
            self.create_cache(c, st)
            self.count(kind, "deleted, made again")

    def act_rmmod(self, c):
        kind = "rmmod"
        if now() - self.last_rmmod < RMMOD_EVERY:
            self.count(kind, "skipped (recent)")
            return None
        self.last_rmmod = now()
        with self.world:
            self.reloading = True
        try:
            with self.call("rmmod slablab"):
                r = subprocess.run(["rmmod", "slablab"], capture_output=True, text=True)
            if r.returncode != 0:
                if "in use" in r.stderr:
                    self.count(kind, "refused (in use)")
                else:
                    self.count(kind, "error")
                    self.error(f"rmmod: exit {r.returncode}: {r.stderr.strip()}")
                return None
            if os.path.exists("/sys/module/slablab"):
                raise Failure("rmmod succeeded but /sys/module/slablab is still there")
            with self.call("insmod"):
                r = subprocess.run(["insmod", self.module], capture_output=True, text=True)
            if r.returncode != 0:
                raise Failure(f"insmod {self.module} after rmmod: {r.stderr.strip()}")
            c = self.client()
            self.setup(c)
            self.count(kind, "unloaded, loaded again")
            return c
        finally:
            with self.world:
                if not os.path.exists("/sys/module/slablab"):
                    self.broken = True          # nothing more can run
                else:
                    self.gen += 1
                    self.reloading = False
                self.world.notify_all()

    # -------------------------------------------------------------- cpu hotplug
    def act_cpu(self, d):
        """Queued for the hotplug thread, so that a cpu goes offline while the control
        thread goes on (STOP, rmmod, CACHE_SET...): the deadlock of defect 2 needs both
        at once. One change in flight at a time."""
        cpu = d["cpu"]
        if "cpu" in self.skip:
            return
        with self.hotplug_cv:
            while self.hotplug_req is not None:
                self.hotplug_cv.wait(1.0)
            if cpu in self.offline:
                online = True
            elif self.ncpus - len(self.offline) > 2:
                online = False
            else:
                self.count("cpu", "skipped (2 online)")
                return
            self.hotplug_req = (cpu, online)
            self.hotplug_cv.notify_all()

    def hotplug(self):
        while True:
            with self.hotplug_cv:
                while self.hotplug_req is None and not self.quit_hotplug:
                    self.hotplug_cv.wait(1.0)
                if self.hotplug_req is None:
                    return
                cpu, online = self.hotplug_req
            kind = "cpu:online" if online else "cpu:offline"
            t = now()
            try:
                set_cpu(cpu, online, self.call)
                with self.hotplug_cv:
                    (self.offline.discard if online else self.offline.add)(cpu)
                self.count(kind, "ok", now() - t)
                self.note(f"cpu {cpu} {'online' if online else 'offline'} "
                          f"({now() - t:.1f} s)")
            except OSError as e:
                if e.errno in (errno.EBUSY, errno.EAGAIN):
                    self.count(kind, f"refused {errno.errorcode[e.errno]}", now() - t)
                else:
                    self.count(kind, "error", now() - t)
                    self.error(f"{kind} cpu {cpu}: {e}")
            with self.hotplug_cv:
                self.hotplug_req = None
                self.hotplug_cv.notify_all()

    # -------------------------------------------------------------- storm thread
    def storm_thread(self):
        c, gen = self.client(), self.gen
        while now() < self.end:
            d = self.plan.next_storm()
            with self.world:
                while self.reloading and not self.broken and now() < self.end:
                    self.world.wait(1.0)
                if self.broken or self.reloading:
                    return
                if self.gen != gen:
                    c, gen = self.client(), self.gen
            self.note(f"storm {sorted(d.items())}")
            try:
                self.run_storm(c, d, gen)
            except self.slablab.Error as e:
                if self.lost(gen):
                    self.storms["lost to rmmod"] += 1
                    continue
                self.storms["error"] += 1
                self.error(f"storm {d['n']} {d['target']}/{d['pattern']}: unexpected "
                           f"{type(e).__name__}: {e}")
            except Failure as f:
                self.storms["error"] += 1
                self.error(f"storm {d['n']} {d['target']}/{d['pattern']}: {f}")

    def lost(self, gen):
        with self.world:
            return self.reloading or self.gen != gen

    def storm_kw(self, d, st):
        kw = {k: d[k] for k in ("threads", "ops", "duration_ms", "batch", "working_set",
                                "ring", "size", "sizes", "seed", "rate", "producers")
              if k in d}
        if d["explicit_cpus"]:
            kw["cpus"] = f"0-{self.ncpus - 1}"
        if d["target"] in ("slablab", "native"):
            kw["cache"] = st.name
        return kw

    def run_storm(self, c, d, gen):
        target, pattern = d["target"], d["pattern"]
        st = self.caches[CACHES[d["cache"]][0]]
        kw = self.storm_kw(d, st)
        with self.lock:
            mark = (st.scripted, st.fail_gen, st.fail, st.deleted,
                    self.kmalloc_fail_gen, bool(self.kmalloc_failing))
            resets = self.resets_of(target, st)
        with self.lock:
            self.current = (st.name if target in ("slablab", "native") else
                            self.kmalloc_class(d.get("size")))
        try:
            with self.call(f"storm_start {target}/{pattern} {kw}"):
                s = c.storm_start(target, pattern, **kw)
        except self.slablab.Error as e:
            if self.lost(gen):
                raise
            # a cpu going offline between the cpu check and binding the workers, with
            # or without an explicit cpu list
            allowed = [(errno.EINVAL, "went offline during set-up")]
            if d["explicit_cpus"]:
                allowed.append((errno.EINVAL, "is not online"))
            if st.deleted != mark[3]:
                allowed.append((errno.ENOENT, f"no cache named {st.name}"))
            self.expect(f"storm {target}", e, allowed)
            self.storms["refused"] += 1
            return
        r = self.wait_storm(c, s["id"], gen, now() + d["max_s"])
        if r is None:
            return
        with self.lock:
            scripted_changed = st.scripted != mark[0]
            if target == "slablab":
                failures_ok = bool(mark[2]) or st.fail_gen != mark[1]
            elif target == "kmalloc":
                failures_ok = mark[5] or self.kmalloc_fail_gen != mark[4]
            else:
                failures_ok = False
        try:
            check_storm(r, failures_ok=failures_ok,
                        stats_exact=not (target == "slablab" and scripted_changed))
        except Failure as f:
            with self.lock:
                if self.resets_of(target, st) != resets:
                    raise Failure(f"{f} [reset_stats ran on its cache(s) during the storm]") \
                        from None
            raise
        if target == "native":
            self.check_native_gone(r)
        self.storms[r["state"]] += 1
        self.storm_combos[(target, pattern)] += 1

    def resets_of(self, target, st):
        """How many reset_stats the caches of a storm on `target` have seen (lock held)."""
        if target == "slablab":
            return self.resets[st.name]
        if target == "kmalloc":
            return sum(self.resets[n] for n in self.kmalloc)
        return 0

    def kmalloc_class(self, size):
        """slablab's kmalloc class for `size` bytes (None: several sizes, or none)."""
        if size is None:
            return None
        fits = [n for n in self.kmalloc if int(n.split("-")[1]) >= size]
        return fits[0] if fits else None

    def wait_storm(self, c, sid, gen, stop_at):
        """Poll storm `sid` until it ends; stop it at `stop_at` or when the time is up.
        None: lost to an rmmod."""
        last_ops, moved = -1, now()
        stopped = False
        while True:
            try:
                if now() >= min(self.end, stop_at) and not stopped:
                    with self.call("storm_stop (its time is up)"):
                        c.storm_stop(sid)
                    stopped = True
                with self.call(f"storm_get {sid}"):
                    r = c.storm_get(sid)
            except self.slablab.Error:
                if self.lost(gen):
                    self.storms["lost to rmmod"] += 1
                    return None
                raise
            if r["state"] != "running":
                return r
            ops = r["progress"]["ops_done"]
            if ops != last_ops:
                last_ops, moved = ops, now()
            elif now() - moved > NO_PROGRESS_DEADLINE:
                self.hang(f"storm {sid} made no progress for {NO_PROGRESS_DEADLINE:.0f} s "
                          f"(ops_done {ops})")
            time.sleep(0.2)

    def check_native_gone(self, r):
        name = r["result"]["native_name"]
        if not name or not name.startswith("slablab-native-"):
            raise Failure(f"native storm without a native cache name: {r['result']}")
        deadline = now() + 30
        while os.path.exists(f"/sys/kernel/slab/{name}"):
            if now() > deadline:
                raise Failure(f"{name} still exists 30 s after its storm ended")
            time.sleep(0.1)

    # -------------------------------------------------------------- the run
    def run(self):
        print(f"torture: {self.seconds} s on {os.uname().release}, {self.ncpus} cpus, "
              f"seed {self.seed}, module {self.module}", flush=True)
        if self.skip:
            print(f"torture: not done (SLABLAB_TORTURE_SKIP): {', '.join(sorted(self.skip))}",
                  flush=True)
        set_hung_task_timeout()
        c = self.client()
        self.setup(c)
        threads = [threading.Thread(target=self.watchdog, name="watchdog", daemon=True),
                   threading.Thread(target=self.hotplug, name="hotplug", daemon=True)]
        workers = [threading.Thread(target=self.storm_thread, name="storms", daemon=True),
                   threading.Thread(target=self.control, name="control", daemon=True)]
        for t in threads + workers:
            t.start()
        for t in workers:
            t.join()
        with self.hotplug_cv:
            self.quit_hotplug = True
            self.hotplug_cv.notify_all()
        threads[1].join()
        self.progress()
        try:
            self.finish()
        except (Failure, self.slablab.Error, OSError) as e:
            self.error(f"final checks: {type(e).__name__}: {e}")
        self.done.set()
        self.summary()
        return 1 if self.errors else 0

    def finish(self):
        """Quiet lab: every cpu online, no storm, caches clean and empty, module unloads."""
        for cpu in sorted(self.offline):
            set_cpu(cpu, True, self.call)
            self.offline.discard(cpu)
        if self.broken:
            raise Failure("the module is not loaded (a reload failed)")
        c = self.client()
        with self.call("storm_get"):
            if c.storm_get()["state"] == "running":
                c.storm_stop()
        for st in self.caches.values():
            name = st.name
            with self.call(f"final checks {name}"):
                self.write_fail_every(name, 0)
                rep = c.cache_validate(name)
                if rep["errors"] or not rep["ok"]:
                    raise Failure(f"validate {name} at the end: {rep}")
                if rep["objects"] - rep["free_objects"] != st.held():
                    raise Failure(f"{name} holds {rep['objects'] - rep['free_objects']} "
                                  f"objects, the handles {st.held()}: {rep}")
                for h, _ in st.handles:
                    c.obj_free(h)
                st.handles = []
                rep = c.cache_validate(name)
                g = c.cache_get(name, percpu=True)["gauges"]
                if rep["errors"] or rep["objects"] != rep["free_objects"] or g["objects"]:
                    raise Failure(f"{name} after its handles were freed: {rep}, {g}")
                c.cache_destroy(name)
        for name in self.kmalloc:
            with self.call(f"final checks {name}"):
                self.write_fail_every(name, 0)
                rep = c.cache_validate(name)
            if rep["errors"] or not rep["ok"]:
                raise Failure(f"validate {name} at the end: {rep}")
        with self.call("final rmmod"):
            r = subprocess.run(["rmmod", "slablab"], capture_output=True, text=True)
        if r.returncode != 0 or os.path.exists("/sys/module/slablab"):
            raise Failure(f"the module does not unload at the end: {r.stderr.strip()}")
        print("torture: the module unloaded", flush=True)

    def summary(self):
        kinds = sorted({k for k, _ in self.counts})
        outcomes = collections.defaultdict(list)
        for (k, o), n in sorted(self.counts.items()):
            outcomes[k].append(f"{o} {n}")
        print(f"torture: {'action':<22} {'count':>6} {'slowest':>8}  outcomes", flush=True)
        for k in kinds:
            n = sum(v for (kk, _), v in self.counts.items() if kk == k)
            print(f"torture: {k:<22} {n:>6} {self.slowest[k]:>7.1f}s  "
                  f"{', '.join(outcomes[k])}", flush=True)
        print(f"torture: storms: {sum(self.storms.values())} "
              f"({', '.join(f'{k} {v}' for k, v in sorted(self.storms.items())) or '-'}); "
              f"checked by target/pattern: "
              f"{', '.join(f'{t}/{p} {n}' for (t, p), n in sorted(self.storm_combos.items()))}",
              flush=True)
        missing = [f"{t}/{p}" for t, p in COMBOS if not self.storm_combos[(t, p)]]
        if missing:
            print(f"torture: not reached in {self.seconds} s: {', '.join(missing)}", flush=True)
        if self.errors:
            print(f"torture: {len(self.errors)} error(s):", flush=True)
            for e in self.errors:
                print("torture:   " + e, flush=True)
            self.report_recent()
            print(f"torture: FAILED; rerun with seed {self.seed}", flush=True)
        else:
            print(f"torture: PASSED ({self.seconds} s, seed {self.seed})", flush=True)


# ------------------------------------------------------------------ checks

def alloc_free(stats):
    return (stats["alloc_fastpath"] + stats["alloc_slowpath"],
            stats["free_fastpath"] + stats["free_slowpath"])


def untimed_allocs(storm):
    spec = storm["spec"]
    return spec["working_set"] * spec["threads"] if spec["pattern"] == "churn" else 0


def check_storm(storm, failures_ok, stats_exact):
    """The counting identities of a finished storm: those of tests/vm/test_storms.py's
    check_result() and check_cache_after() that hold while other things go on (a
    duration storm has no OPS to reach; the statistic deltas are exact unless scripted
    allocations ran on the same cache meanwhile, and never wrap)."""
    spec, prog, res = storm["spec"], storm["progress"], storm["result"]
    shown = ("threads", "cpus", "ops", "duration_ms", "batch", "ring", "working_set",
             "cache", "size", "sizes")
    what = (f"storm {storm['id']} {spec['target']}/{spec['pattern']} (" +
            ", ".join(f"{k} {spec[k]}" for k in shown if spec.get(k)) + ")")

    def need(cond, msg):
        if not cond:
            raise Failure(f"{what}: {msg}")

    need(storm["state"] in ("done", "stopped"), f"state {storm['state']}")
    need(res is not None, "no result")
    need(len(res["threads"]) == spec["threads"], f"{len(res['threads'])} thread results")
    need(failures_ok or res["failures"] == 0, f"{res['failures']} failures, none injected")
    if spec["pattern"] != "churn":
        need(res["allocs"] == res["frees"], f"allocs {res['allocs']} != frees {res['frees']}")
    else:   # neither the fill nor its objects' frees count (docs/storms.md)
        need(0 <= res["allocs"] - res["frees"] <= spec["working_set"] * spec["threads"],
             f"churn: allocs {res['allocs']}, frees {res['frees']}")
    if prog["ops_planned"]:                         # an OPS storm
        producers = (spec["threads"] // 2 if spec["pattern"] == "remote" else
                     spec["producers"] if spec["pattern"] == "producer-consumer" else
                     spec["threads"])
        need(prog["ops_planned"] == spec["ops"] * producers, f"ops_planned {prog}")
        if storm["state"] == "done":
            need(prog["ops_done"] == prog["ops_planned"], f"done with {prog}")
            if res["failures"] == 0:
                need(res["allocs"] == prog["ops_done"],
                     f"allocs {res['allocs']} != ops_done {prog['ops_done']}")
        else:
            need(prog["ops_done"] < prog["ops_planned"], f"stopped with {prog}")
    need(res["cycles_per_sec"] > 0, "cycles_per_sec 0")
    st = res["stats"]
    if spec["target"] in ("native", "native-kmalloc"):
        need(st is None, "slablab statistics for a native target")
        return
    need(st is not None, "no statistic deltas")
    wrapped = {k: v for k, v in st.items() if v >= 1 << 62}
    need(not wrapped, f"statistic deltas wrapped: {wrapped}")
    if stats_exact:
        a, f = alloc_free(st)
        need(a == f, f"allocs - frees over the storm = {a - f}: {st}")
        # kmalloc sizes above the largest class (8 KiB) go to the page allocator,
        # uncounted by the classes' statistics; on slob (its counters moved: the classes
        # cannot switch under a storm, which pins them) so do sizes of a page less the
        # size header or more
        sizes = [e["size"] for e in spec.get("sizes") or []] or [spec.get("size") or 0]
        on_slob = st.get("slob_scan", 0) > 0 or st.get("slob_header_bytes", 0) > 0
        # every size beyond slob's heap: on slob nothing reaches the heap's counters,
        # so nothing says the classes were on slob (seed 3722308101, size 5000)
        on_slob = on_slob or (a == 0 and min(sizes) > SLOB_KMALLOC_MAX)
        largest = SLOB_KMALLOC_MAX if on_slob else KMALLOC_MAX_CLASS
        if res["failures"] == 0 and max(sizes) <= largest:
            need(a == res["allocs"] + untimed_allocs(storm),
                 f"fast + slow path allocs {a} != ALLOCS {res['allocs']} + "
                 f"{untimed_allocs(storm)} untimed")


# ------------------------------------------------------------------ the guest

def set_cpu(cpu, online, call):
    with call(f"cpu {cpu} {'online' if online else 'offline'}"), \
            open(f"/sys/devices/system/cpu/cpu{cpu}/online", "w") as f:
        f.write("1" if online else "0")


def set_hung_task_timeout():
    path = "/proc/sys/kernel/hung_task_timeout_secs"
    try:
        with open(path, "w") as f:
            f.write(str(HUNG_TASK_TIMEOUT))
        print(f"torture: {path} = {HUNG_TASK_TIMEOUT}", flush=True)
    except OSError as e:
        print(f"torture: cannot set {path} ({e}): hangs are caught by the deadlines only",
              flush=True)


def worker(args):
    rc = Torture(args).run()
    print(EXIT_MARK + str(rc), flush=True)
    return rc


def supervise(argv, args):
    """Run the worker in a child; forward its output; end the run when it reports its
    result (even if a thread of it is stuck in the kernel) or falls silent."""
    print(f"torture: seed {args.seed}", flush=True)
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", *argv],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert p.stdout is not None      # stdout=PIPE
    fd = p.stdout.fileno()
    buf, last, code = b"", now(), None
    while code is None:
        ready, _, _ = select.select([fd], [], [], 5.0)
        if not ready:
            if p.poll() is not None:
                break
            if now() - last > SILENCE_DEADLINE:
                print(f"torture: HANG: no word from the worker for {SILENCE_DEADLINE:.0f} s;"
                      " blocked tasks follow in the kernel log (sysrq w)", flush=True)
                with contextlib.suppress(OSError), open("/proc/sysrq-trigger", "w") as f:
                    f.write("w")
                print(f"torture: FAILED: hang; rerun with seed {args.seed}", flush=True)
                arm_reset()
                return 3
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        last = now()
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            text = line.decode(errors="replace")
            if text.startswith(EXIT_MARK):
                code = int(text[len(EXIT_MARK):])
            else:
                print(text, flush=True)
    if code is None:
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            rc = None
        print(f"torture: FAILED: the worker ended without a result (exit {rc}); "
              f"rerun with seed {args.seed}", flush=True)
        return 1
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        print("torture: the worker does not exit (a thread stuck in the kernel)", flush=True)
        arm_reset()
    return code


def arm_reset(seconds=10):
    """After a hang the VM may not be able to reboot (reboot takes the cpu hotplug lock
    a stuck hotplug holds): reset it by sysrq b `seconds` after this process has exited
    and the VM's init has reported its exit status."""
    subprocess.Popen(["sh", "-c", f"sleep {seconds}; echo b > /proc/sysrq-trigger"],
                     start_new_session=True, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"torture: the VM is reset by sysrq b in {seconds} s", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=300)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--module", help="slablab.ko to load again after an rmmod")
    ap.add_argument("--plan", type=int, metavar="N",
                    help="print the first N decisions of each thread and exit")
    ap.add_argument("--cpus", type=int, default=None, help="with --plan: the cpu count")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "little")
    if args.plan is not None:
        print_plan(args.seed, args.cpus or os.cpu_count(), args.plan)
        return 0
    ncpus = os.cpu_count() or 1
    if ncpus < 3:
        print(f"torture: needs at least 3 cpus (one goes offline, cpu 0 never), has {ncpus}",
              file=sys.stderr)
        return 2
    if not args.module or not os.path.exists(args.module):
        print(f"torture: --module {args.module}: no such file", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("torture: needs root (in the test VM)", file=sys.stderr)
        return 2
    if args.worker:
        return worker(args)
    argv = ["--seconds", str(args.seconds), "--seed", str(args.seed),
            "--module", args.module]
    return supervise(argv, args)


if __name__ == "__main__":
    sys.exit(main())

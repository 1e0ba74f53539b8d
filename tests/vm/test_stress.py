# SPDX-License-Identifier: GPL-2.0
"""The stress suite: storms over a grid of pattern x object size x threads x cpu_partial
x fast-path mode x front end (every design of helpers.DESIGNS, and sheaves in front of
slub's cpu slabs), each on a fresh slablab cache (made and always destroyed by a
fixture), with the allocator's invariants checked after every storm:

* the storm finished its OPS without failures, every object it allocated was freed, and
  its statistic deltas add up (alloc fast + slow path == ALLOCS + churn's fill);
* the cache validates clean and allocations - frees == objects in use (objects that a
  scripted allocation holds through the storm stay counted, and nothing else);
* objects are back to zero once those are freed;
* a shrink returns every slab beyond min_partial to the page allocator (pages == slabs
  << order), and with min_partial=0 every page.

Two sizes of grid:

* the quick subset (default, part of `make test`): every value of every dimension,
  pairs of them mixed, small op counts, well under a minute under TCG;
* the soak grid (`@pytest.mark.soak`, skipped unless SLABLAB_SOAK is set): the full
  product once (test_stress_grid), and test_soak, which runs the grid over and over in
  random order, with bigger storms, fault injection, debug caches, objects held through
  the storm and tunables changed while it runs, for SLABLAB_SOAK_SECONDS (default 600).
  scripts/soak.sh runs it in the VM and prints what it did (SLABLAB_SOAK_REPORT: a JSON
  summary). Run by hand:

      SLABLAB_SOAK=1 scripts/vm.sh --module module/slablab.ko -- /usr/bin/python3 -m \\
          pytest -q -o markers=soak -m soak tests/vm/test_stress.py

Nothing is timed; no sleeps wait for races (storms are polled, bounded)."""
import collections
import itertools
import json
import os
import random
import time
import warnings

import pytest

import slablab
from helpers import FRONT_ENDS, consistent, dbg_write
from test_storms import alloc_free, check_result, threads_for, untimed_allocs

# `soak` is registered by scripts/soak.sh (-o markers=soak); plain runs must not warn.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
    soak = pytest.mark.soak

SOAK = bool(os.environ.get("SLABLAB_SOAK"))
soak_only = pytest.mark.exclude_if(not SOAK, reason="soak grid: set SLABLAB_SOAK=1 "
                                   "(scripts/soak.sh)")
NCPUS = os.cpu_count() or 1

# every pattern of the engine but rcu, whose frees wait for grace periods (test_storms.py
# and test_rcu.py run it)
PATTERNS = tuple(p for p in slablab.STORM_PATTERNS if p != "rcu")
SIZES_QUICK = (64, 192, 1000, 4096)
SIZES_FULL = (8, 64, 96, 192, 512, 1000, 2048, 4096, 16384)
THREADS = (1, NCPUS, 2 * NCPUS)
CPU_PARTIAL = (0, None, 1000)           # off, the policy's default, long lists
FASTPATHS = ("cmpxchg", "irqoff")

# per thread (remote, producer-consumer: per producer); multiples of BATCH
OPS = {
    "pair": dict(ops=8192),
    "batch": dict(ops=4096, batch=64),
    "remote": dict(ops=4096, ring=64),
    "churn": dict(ops=4096, working_set=256),
    "bulk": dict(ops=4096, batch=32),
    "prefill": dict(ops=4096, batch=16),
    "producer-consumer": dict(ops=4096, ring=64),
}
# the front ends by index into helpers.FRONT_ENDS (a Point stays a tuple of plain values)
FRONTS = tuple(range(len(FRONT_ENDS)))


class Point(collections.namedtuple("Point",
                                   "pattern size threads cpu_partial fastpath front",
                                   defaults=(0,))):
    def __str__(self):
        cp = "default" if self.cpu_partial is None else self.cpu_partial
        return (f"{self.pattern}-{self.size}B-{self.threads}t-cp{cp}-{self.fastpath}-"
                f"{FRONT_ENDS[self.front].id}")

    def tunables(self):
        return FRONT_ENDS[self.front].kwargs()


def quick_points():
    """Every value of every dimension, and each pattern with each size, thread count,
    cpu_partial, fast path and (with three front ends or fewer) front end at least once
    (a covering subset, 4 storms per pattern)."""
    pts = []
    for i, pattern in enumerate(PATTERNS):
        for j in range(4):
            pts.append(Point(pattern, SIZES_QUICK[(i + j) % 4], THREADS[(i + 2 * j) % 3],
                             CPU_PARTIAL[(2 * i + j) % 3], FASTPATHS[(i + j) % 2],
                             FRONTS[(i + j) % len(FRONTS)]))
    return pts


def full_points():
    return [Point(*p) for p in itertools.product(PATTERNS, SIZES_FULL, THREADS, CPU_PARTIAL,
                                                 FASTPATHS, FRONTS)]


_names = itertools.count()


class Caches:
    """caches(size, **tunables) -> name; caches.destroy(name). Whatever a test leaves
    is destroyed by the fixture afterwards (see caches())."""

    def __init__(self, client):
        self.client = client
        self.live = []

    def __call__(self, size, **tunables):
        name = f"st{next(_names)}-{size}"
        self.client.cache_create(name, size,
                                 **{k: v for k, v in tunables.items() if v is not None})
        self.live.append(name)
        return name

    def destroy(self, name):
        self.live.remove(name)
        self.client.cache_destroy(name)


@pytest.fixture
def caches(client):
    """A cache factory whose caches are always destroyed: a storm still running is
    stopped first, scripted objects are freed by the destroy, and a validate error found
    on the way out fails the test."""
    made = Caches(client)
    yield made
    errors = []
    try:
        if client.storm_get()["state"] == "running":
            client.storm_stop()
    except slablab.NotFound:
        pass
    for name in list(made.live):
        try:
            report = client.cache_validate(name)
            if report["errors"]:
                errors.append(report)
        finally:
            made.destroy(name)
    assert not errors, errors


def storm_kw(point, scale=1):
    kw = dict(OPS[point.pattern])
    kw["ops"] *= scale
    kw["threads"] = threads_for(point.pattern, point.threads)
    return kw


def check_storm_on(client, name, storm, before, held=0, failures_ok=False):
    """The invariants after a storm on cache `name` holding `held` scripted objects."""
    res = check_result(storm, failures_ok=failures_ok)
    a, f = alloc_free(res["stats"])
    assert a - f == 0, res["stats"]
    if res["failures"] == 0:
        assert a == res["allocs"] + untimed_allocs(storm), (a, res["allocs"])
    c = consistent(client, name, fresh=True)          # allocs - frees == objects in use
    assert c["gauges"]["objects"] == held, c["gauges"]
    for item in ("alloc_fastpath", "alloc_slowpath", "free_fastpath", "free_slowpath"):
        assert c["stats"][item] - before[item] == res["stats"][item], item
    report = client.cache_validate(name)
    assert report["ok"] and report["errors"] == 0, report
    assert report["objects"] - report["free_objects"] == held, report
    return res


def check_shrink(client, name):
    """Objects are zero: a shrink keeps at most min_partial empty slabs, min_partial=0
    then none; pages follow the slabs. slub keeps exactly min_partial (its flush hands
    frozen slabs, not yet on the node list, to the node); sheaves may keep one less:
    their objects go back to slabs already on the list, and a slab that empties there
    while the list holds min_partial slabs is freed, as in 7.0's __slab_free()."""
    c = client.cache_get(name, percpu=False)
    g = c["gauges"]
    assert g["objects"] == 0, g
    slabs = g["slabs"]
    client.cache_shrink(name)
    c = consistent(client, name)
    g = c["gauges"]
    assert g["cpu_slabs"] == 0 and g["cpu_partial_slabs"] == 0, g
    kept = min(slabs, c["min_partial"])
    assert g["slabs"] == g["partial_slabs"], g
    if c["design"] == "slub":
        assert g["slabs"] == kept, (slabs, c)
    elif c["design"] in ("slab", "slob"):
        # SLAB's shrink frees every free slab (min_partial is not SLAB's); slob has none
        assert g["slabs"] == 0, (slabs, c)
    else:
        assert kept - 1 <= g["slabs"] <= kept, (slabs, c)
    if c["stats"]["order_fallback"] == 0:
        assert g["pages"] == g["slabs"] << c["order"], c
    client.cache_set(name, min_partial=0)
    client.cache_shrink(name)
    g = consistent(client, name)["gauges"]
    assert g["slabs"] == g["pages"] == g["total_objects"] == 0, g
    assert g["meta_bytes"] == 0, g


def run_point(client, caches, point, scale=1, hold=0, debug=False, fail_every=0,
              tunables_live=False, rng=None):
    """One storm at `point` on a fresh cache and every invariant after it; returns what
    it did, for the soak report."""
    name = caches(point.size, cpu_partial=point.cpu_partial, fastpath=point.fastpath,
                  debug=debug or None, **point.tunables())
    handle = client.obj_alloc(name, hold, cpu=0) if hold else None
    if fail_every:
        dbg_write(name, "fail_slab_every", fail_every)     # fault injection: debugfs
    before = client.cache_get(name)["stats"]
    kw = storm_kw(point, scale)
    if tunables_live:
        r = storm_with_live_tunables(client, name, point, kw, rng or random.Random(0))
    else:
        r = client.storm("slablab", point.pattern, cache=name, **kw)
    res = check_storm_on(client, name, r, before, held=hold, failures_ok=bool(fail_every))
    if fail_every:
        dbg_write(name, "fail_slab_every", 0)
    if handle is not None:
        client.obj_free(handle, cpu=NCPUS - 1)
        assert consistent(client, name)["gauges"]["objects"] == 0
    check_shrink(client, name)
    caches.destroy(name)
    return dict(ops=r["progress"]["ops_done"], allocs=res["allocs"],
                failures=res["failures"])


def storm_with_live_tunables(client, name, point, kw, rng):
    """Start the storm, then change the cache's fast path, cpu_partial, min_partial and
    the sheaves' capacity and barn bounds, and shrink it while the storm runs (as many
    rounds as it lasts, at most 8), then wait for the storm to end."""
    s = client.storm_start("slablab", point.pattern, cache=name, **kw)
    for _ in range(8):
        if client.storm_get(s["id"])["state"] != "running":
            break
        client.cache_set(name, fastpath=rng.choice(FASTPATHS),
                         cpu_partial=rng.choice((0, 2, 30, 120, 1000)),
                         min_partial=rng.choice((0, 1, 5)),
                         sheaf_capacity=rng.choice((0, 4, 16, 60)),
                         barn_max_full=rng.choice((0, 2, 10)),
                         barn_max_empty=rng.choice((0, 2, 10)))
        client.cache_shrink(name)
    for _ in range(60000):
        r = client.storm_get(s["id"])
        if r["state"] != "running":
            return r
        time.sleep(0.01)
    client.storm_stop(s["id"])
    raise AssertionError(f"storm {s['id']} on {name} did not end: {r['progress']}")


# ---------------------------------------------------------------- quick (default)

@pytest.mark.parametrize("point", quick_points(), ids=str)
def test_stress_quick(client, caches, point):
    run_point(client, caches, point)


def with_fronts(patterns, debug=False):
    """(pattern, front) for each pattern on slub (front 0, what these tests ran before
    designs) and on one other front end in turn, so that every front end runs (with
    debug, those that have a debug mode: not slob)."""
    pts = [(p, 0) for p in patterns]
    others = [f for f in FRONTS[1:] if not (debug and FRONT_ENDS[f] == "slob")]
    pts += [(p, others[i % len(others)]) for i, p in enumerate(patterns)] if others else []
    return pytest.mark.parametrize("pattern,front", pts,
                                   ids=[f"{p}-{FRONT_ENDS[f].id}" for p, f in pts])


@with_fronts(["batch", "churn", "remote"])
def test_storm_beside_held_objects(client, caches, pattern, front):
    """Scripted objects held on cpu 0 through the storm (slabs partly in use before it
    starts) stay counted; freed remotely afterwards, the cache empties."""
    run_point(client, caches, Point(pattern, 256, NCPUS, None, "cmpxchg", front), hold=1500)


@with_fronts(["pair", "remote", "churn", "prefill"])
def test_tunables_change_under_a_storm(client, caches, pattern, front):
    point = Point(pattern, 128, NCPUS, None, "cmpxchg", front)
    run_point(client, caches, point, scale=4, tunables_live=True, rng=random.Random(pattern))


@with_fronts(["batch", "remote", "prefill"], debug=True)
def test_debug_cache_storm(client, caches, pattern, front):
    run_point(client, caches, Point(pattern, 100, NCPUS, None, "irqoff", front), debug=True)


# ---------------------------------------------------------------------- soak

@soak
@soak_only
@pytest.mark.parametrize("point", full_points() if SOAK else
                         [pytest.param(None, id="grid-not-expanded")], ids=str)
def test_stress_grid(client, caches, point):
    run_point(client, caches, point)


@soak
@soak_only
def test_soak(client, caches):
    """The grid again and again, shuffled, with heavier variants, until
    SLABLAB_SOAK_SECONDS are over; a summary goes to stdout and SLABLAB_SOAK_REPORT."""
    seconds = float(os.environ.get("SLABLAB_SOAK_SECONDS", "600"))
    seed = int(os.environ.get("SLABLAB_SOAK_SEED", str(int(time.time()))))
    rng = random.Random(seed)
    report_path = os.environ.get("SLABLAB_SOAK_REPORT")
    t0 = time.monotonic()
    tally: collections.Counter[str] = collections.Counter()
    by_pattern: collections.Counter[str] = collections.Counter()
    last = None

    def write_report(status, quiet=False):
        summary = dict(status=status, seed=seed, seconds=round(time.monotonic() - t0, 1),
                       budget_seconds=seconds, storms=tally["storms"], ops=tally["ops"],
                       allocs=tally["allocs"], alloc_failures=tally["failures"],
                       rounds=tally["rounds"], by_pattern=dict(by_pattern),
                       variants={k[2:]: v for k, v in tally.items() if k.startswith("v:")},
                       last_point=last, kernel=os.uname().release, cpus=NCPUS)
        if report_path:
            os.makedirs(os.path.dirname(os.path.abspath(report_path)), exist_ok=True)
            with open(report_path + ".tmp", "w") as f:
                json.dump(summary, f, indent=1)
            os.replace(report_path + ".tmp", report_path)
        if quiet:
            return summary
        print(f"\nsoak: {status}: {summary['storms']} storms, {summary['ops']} ops, "
              f"{summary['alloc_failures']} allocation failures (injected), "
              f"{summary['rounds']} rounds of the grid in {summary['seconds']} s, "
              f"seed {seed}")
        return summary

    try:
        while time.monotonic() - t0 < seconds:
            points = full_points()
            rng.shuffle(points)
            for point in points:
                if time.monotonic() - t0 >= seconds:
                    break
                variant = dict(scale=rng.choice((1, 2, 4, 8)))
                roll = rng.random()
                if roll < 0.15:
                    variant["fail_every"] = rng.choice((3, 7, 31))
                elif roll < 0.30:
                    variant["tunables_live"] = True
                elif roll < 0.40:
                    variant["debug"] = True
                elif roll < 0.55:
                    variant["hold"] = rng.choice((1, 100, 3000))
                last = dict(point=str(point), **variant)
                done = run_point(client, caches, point, rng=rng, **variant)
                tally.update(done)
                tally["storms"] += 1
                by_pattern[point.pattern] += 1
                for k in variant:
                    if k != "scale":
                        tally["v:" + k] += 1
                if tally["storms"] % 20 == 0:       # what a crash would leave behind
                    write_report("running", quiet=True)
            else:
                tally["rounds"] += 1
    except BaseException:
        write_report("FAILED")
        raise
    summary = write_report("ok")
    assert summary["storms"] > 0

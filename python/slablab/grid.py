# SPDX-License-Identifier: GPL-2.0 OR MIT
"""slablab.grid: what a sweep runs, planned without a kernel.

A grid (``small`` or ``full``) gives each experiment the values it sweeps and how big
each storm is; :func:`plan` turns it into the list of :class:`Point`\\ s a
:class:`slablab.runner.Runner` runs, in order: every repeat runs every point of an
experiment, its variants interleaved (slablab, SLUB, slablab, SLUB, ...) so that drift
of the emulator hits them alike. docs/sweeps.md describes the experiments.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, TypedDict

__all__ = ["GRIDS", "EXPERIMENTS", "Point", "plan", "cache_sizes"]


class RemoteGrid(TypedDict):
    size: int
    threads: List[int]
    ops: int
    ring: int


class BatchGrid(TypedDict):
    sizes: List[int]
    ops: int
    batch: int


class ChurnGrid(TypedDict):
    sizes: List[int]
    duration_ms: int
    working_set: int


class FastpathGrid(TypedDict):
    size: int
    cpu_partial: List[int]
    patterns: List[str]
    ops: int
    duration_ms: int
    working_set: int
    ring: int


class Grid(TypedDict):
    repeat: int
    remote: RemoteGrid
    batch: BatchGrid
    churn: ChurnGrid
    fastpath: FastpathGrid


#: Per grid: the values each experiment sweeps and how big each storm is.
GRIDS: Dict[str, Grid] = {
    "small": Grid(
        repeat=3,
        remote=RemoteGrid(size=256, threads=[2, 4, 8], ops=30000, ring=256),
        batch=BatchGrid(sizes=[8, 32, 64, 192, 256, 1024, 4096], ops=30000, batch=10000),
        # churn runs on a duration: memory is sampled every 50 ms while it runs
        churn=ChurnGrid(sizes=[8, 32, 64, 192, 256, 1024, 4096], duration_ms=300,
                        working_set=4096),
        fastpath=FastpathGrid(size=256, cpu_partial=[0, 6, 30, 120, 1000],
                              patterns=["remote", "churn"], ops=30000, duration_ms=300,
                              working_set=4096, ring=256),
    ),
    "full": Grid(
        repeat=5,
        remote=RemoteGrid(size=256, threads=[2, 4, 6, 8, 12, 16], ops=200000, ring=256),
        batch=BatchGrid(sizes=[8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096,
                               8192], ops=50000, batch=10000),
        churn=ChurnGrid(sizes=[8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096,
                               8192], duration_ms=1500, working_set=16384),
        fastpath=FastpathGrid(size=256,
                              cpu_partial=[0, 2, 6, 13, 30, 60, 120, 250, 500, 1000, 4000],
                              patterns=["remote", "churn"], ops=200000, duration_ms=1000,
                              working_set=16384, ring=256),
    ),
}
EXPERIMENTS = ("remote", "batch", "churn", "fastpath")


@dataclass(frozen=True)
class Point:
    """One storm of a sweep.

    ``allocator`` is ``"slablab"`` (a storm on the slablab cache of ``cache_size``
    bytes) or ``"slub"`` (the native target: the kernel's SLUB, in a ``kmem_cache``
    made like that cache). ``cpu_partial`` is set on the cache first (``None``: left
    as it is). ``storm`` holds the keyword arguments of :meth:`slablab.Client.storm`
    besides the target, pattern and cache.
    """
    experiment: str
    allocator: str
    variant: str
    x: Optional[int]
    repeat: int
    pattern: str
    cache_size: int
    cpu_partial: Optional[int] = None
    storm: Dict[str, Any] = field(default_factory=dict)

    @property
    def target(self) -> str:
        return "slablab" if self.allocator == "slablab" else "native"


def cache_sizes(experiment: str, grid: Grid) -> List[int]:
    """The object sizes of the slablab caches an experiment needs (one cache each)."""
    if experiment in ("batch", "churn"):
        return list(grid["batch"]["sizes"] if experiment == "batch" else grid["churn"]["sizes"])
    if experiment == "remote":
        return [grid["remote"]["size"]]
    if experiment == "fastpath":
        return [grid["fastpath"]["size"]]
    raise ValueError(f"no experiment {experiment!r}: {', '.join(EXPERIMENTS)}")


def _remote(g: Grid, repeat: int, default_cpu_partial: int) -> List[Point]:
    r = g["remote"]
    variants = [("slablab", f"slablab cpu_partial={default_cpu_partial}", default_cpu_partial),
                ("slablab", "slablab cpu_partial=0", 0),
                ("slub", "SLUB", None)]
    return [Point("remote", allocator, label, threads, rep, "remote", r["size"], cp,
                  dict(threads=threads, ops=r["ops"], ring=r["ring"]))
            for rep in range(repeat)
            for threads in r["threads"]
            for allocator, label, cp in variants]


def _by_size(experiment: str, sizes: Sequence[int], repeat: int,
             storm: Dict[str, Any]) -> List[Point]:
    return [Point(experiment, allocator, label, size, rep, experiment, size, None, dict(storm))
            for rep in range(repeat)
            for size in sizes
            for allocator, label in (("slablab", "slablab"), ("slub", "SLUB"))]


def _fastpath(g: Grid, repeat: int) -> List[Point]:
    f = g["fastpath"]
    points = []
    for rep in range(repeat):
        for pattern in f["patterns"]:
            if pattern == "churn":
                kw: Dict[str, Any] = dict(duration_ms=f["duration_ms"],
                                          working_set=f["working_set"])
            else:
                kw = dict(ops=f["ops"], ring=f["ring"])
            for cp in f["cpu_partial"]:
                points.append(Point("fastpath", "slablab", f"slablab {pattern}", cp, rep,
                                    pattern, f["size"], cp, dict(kw)))
            # SLUB keeps no per-event counters on a stock kernel: its throughput under
            # the same storm is the reference line (with its own cpu_partial)
            points.append(Point("fastpath", "slub", f"SLUB {pattern}", None, rep, pattern,
                                f["size"], None, dict(kw)))
    return points


def plan(experiment: str, grid: Grid, repeat: Optional[int] = None,
         default_cpu_partial: int = 0) -> List[Point]:
    """The storms of one experiment, in the order they run. ``default_cpu_partial`` is
    what a new cache of the remote experiment's size gets (its variant's label)."""
    reps = repeat or grid["repeat"]
    if reps < 1:
        raise ValueError("repeat must be at least 1")
    if experiment == "remote":
        return _remote(grid, reps, default_cpu_partial)
    if experiment == "batch":
        b = grid["batch"]
        # seed 001: one thread, BATCH allocations then BATCH frees, timed separately
        return _by_size("batch", b["sizes"], reps,
                        dict(threads=1, cpus="0", ops=b["ops"], batch=b["batch"]))
    if experiment == "churn":
        c = grid["churn"]
        # seed 003: on every cpu, WORKING_SET live objects per thread
        return _by_size("churn", c["sizes"], reps,
                        dict(duration_ms=c["duration_ms"], working_set=c["working_set"]))
    if experiment == "fastpath":
        return _fastpath(grid, reps)
    raise ValueError(f"no experiment {experiment!r}: {', '.join(EXPERIMENTS)}")

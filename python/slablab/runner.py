# SPDX-License-Identifier: GPL-2.0 OR MIT
"""slablab.runner: runs a sweep's points (:mod:`slablab.grid`) where the module is
loaded, one storm at a time, writing a row of ``sweep.csv`` after each
(:mod:`slablab.analysis` has the columns) and ``sweep.json`` at the end."""

import csv
import datetime
import json
import os
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO, Tuple

from . import analysis
from .errors import NotFound
from .grid import EXPERIMENTS, GRIDS, Point, cache_sizes, plan
from .shapes import CacheInfo, Status, Storm

__all__ = ["Runner", "run_sweep", "churn_too_short"]

Log = Callable[[str], Any]


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def churn_too_short(storm: Storm) -> bool:
    """A churn storm on a duration in which a thread replaced fewer objects than it
    keeps live: its time went mostly into filling the working set (the memory peak may
    have been sampled mid-fill)."""
    spec = storm["spec"]
    if spec is None or spec["pattern"] != "churn" or not spec["duration_ms"]:
        return False
    threads = storm["result"]["threads"] if storm["result"] else []
    return not threads or min(t["ops"] for t in threads) < (spec["working_set"] or 0)


class Runner:
    """Runs points on a :class:`slablab.Client`, appending rows to ``out_dir/sweep.csv``.

    ``client`` needs only the Client methods used here (status, cache_create,
    cache_get, cache_set, cache_shrink, cache_destroy, storm), so tests pass a fake.
    """

    def __init__(self, client: Any, grid_name: str, out_dir: str,
                 repeat: Optional[int] = None, log: Log = print) -> None:
        self.client = client
        self.grid_name = grid_name
        self.grid = GRIDS[grid_name]
        self.repeat = repeat or self.grid["repeat"]
        self.log = log
        st: Status = client.status()
        self.start = _now()
        self.status = st
        self.meta: Dict[str, Any] = dict(
            sweep=self.start, grid=grid_name, kernel_release=st["kernel_release"],
            vm_cpus=st["nr_online_cpus"], slablab_version=st["version"],
            kernel_features=st["features"])
        os.makedirs(out_dir, exist_ok=True)
        self.csv_path = os.path.join(out_dir, "sweep.csv")
        self.header: List[str] = list(analysis.RUN_COLUMNS) + list(analysis.SWEEP_COLUMNS)
        new = not os.path.exists(self.csv_path) or os.path.getsize(self.csv_path) == 0
        if not new:
            with open(self.csv_path, newline="") as f:
                old = next(csv.reader(f))
            if old != self.header:
                raise SystemExit(f"sweep: {self.csv_path} has other columns than this "
                                 "version writes: use another --out")
        self._f: TextIO = open(self.csv_path, "a", newline="")
        self._w = csv.DictWriter(self._f, fieldnames=self.header)
        if new:
            self._w.writeheader()
        self.storms = 0         # storms run, churn reruns included
        self.runs = 0           # rows written
        self.failures = 0
        self._serial = 0

    def close(self) -> None:
        self._f.close()

    def _cache(self, size: int) -> str:
        self._serial += 1
        name = f"sweep{os.getpid() % 10000}-{self._serial}-{size}"
        info: CacheInfo = self.client.cache_create(name, size)
        return info["name"]

    def _destroy(self, name: str) -> None:
        try:
            self.client.cache_destroy(name)
        except NotFound:
            pass

    def run_point(self, p: Point, cache: str) -> Storm:
        """Run one storm (slablab on ``cache``, or SLUB in a kmem_cache made like it)
        and write its row; a churn storm whose fill took most of its time runs again
        twice as long (up to 3 times: only the last is kept)."""
        if p.cpu_partial is not None:
            self.client.cache_set(cache, cpu_partial=p.cpu_partial)
        kw = dict(p.storm)
        t0 = time.monotonic()
        for attempt in range(4):
            self.client.cache_shrink(cache)         # every storm starts from a flushed cache
            info: CacheInfo = self.client.cache_get(cache, percpu=False)
            r: Storm = self.client.storm(p.target, p.pattern, cache=cache, **kw)
            self.storms += 1
            if not churn_too_short(r) or attempt == 3:
                break
            self.log(f"  {p.experiment:8s} {p.variant:28s} x={p.x!s:>6} #{p.repeat}  churn "
                     f"phase too short ({r['progress']['ops_done']} ops in "
                     f"{kw['duration_ms']} ms): again, twice as long")
            kw["duration_ms"] *= 2
        res = r["result"]
        self.failures += res["failures"] if res else 0
        self.runs += 1
        row = analysis.run_row(r, experiment=p.experiment, variant=p.variant, x=p.x,
                               repeat=p.repeat, run=self.runs,
                               context=analysis.run_context(
                                   self.status, info if p.target == "slablab" else None))
        extra = analysis.sweep_row(r, info, dict(self.meta, date=_now(),
                                                 allocator=p.allocator))
        self._w.writerow({**row, **extra})
        self._f.flush()
        if r["state"] != "done":
            self.log(f"sweep: warning: storm {r['id']} ended {r['state']}")
        main = {"remote": ("tput", extra["tput_ops_per_sec"]),
                "batch": ("cycles/alloc", row["cycles_per_alloc"]),
                "churn": ("fragmentation %", row["fragmentation_pct"]),
                "fastpath": ("alloc fast %", row["alloc_fastpath_pct"])}[p.experiment]
        self.log(f"  {p.experiment:8s} {p.variant:28s} x={p.x!s:>6} #{p.repeat}  "
                 f"{main[0]} {analysis.fmt(main[1])}  ({time.monotonic() - t0:.1f}s)")
        return r

    def run_experiment(self, experiment: str) -> int:
        """Make the experiment's caches, run its points, destroy the caches; returns
        the number of points run."""
        caches: Dict[int, str] = {}
        try:
            for size in cache_sizes(experiment, self.grid):
                caches[size] = self._cache(size)
            first = caches[cache_sizes(experiment, self.grid)[0]]
            default_cp = self.client.cache_get(first, percpu=False)["cpu_partial"]
            points = plan(experiment, self.grid, self.repeat, default_cp)
            for p in points:
                self.run_point(p, caches[p.cache_size])
            return len(points)
        finally:
            for name in caches.values():
                self._destroy(name)


def run_sweep(grid: str = "small", out_dir: str = "build/sweep",
              only: Optional[Sequence[str]] = None, repeat: Optional[int] = None,
              log: Log = print, client: Any = None) -> Tuple[str, Dict[str, Any]]:
    """Run the grid's experiments (in this machine's kernel: the module must be loaded);
    returns (csv path, summary dict), the summary also written to ``sweep.json``."""
    if client is None:
        from . import Client
        client = Client()
    try:
        if client.storm_get()["state"] == "running":
            raise SystemExit("sweep: a storm is already running (slabctl storm stop)")
    except NotFound:
        pass
    sw = Runner(client, grid, out_dir, repeat=repeat, log=log)
    t0 = time.monotonic()
    exps = list(only or EXPERIMENTS)
    log(f"sweep: grid {grid}, {sw.repeat} repeats, experiments {', '.join(exps)}; "
        f"{sw.meta['kernel_release']}, {sw.meta['vm_cpus']} cpus -> {sw.csv_path}")
    done: List[Dict[str, Any]] = []
    try:
        for e in exps:
            t1 = time.monotonic()
            sw.run_experiment(e)
            done.append(dict(experiment=e, seconds=round(time.monotonic() - t1, 1)))
            log(f"sweep: {e} done in {done[-1]['seconds']} s")
    finally:
        sw.close()
        summary = dict(grid=grid, grid_values=GRIDS[grid], repeat=sw.repeat, started=sw.start,
                       ended=_now(), seconds=round(time.monotonic() - t0, 1),
                       experiments=done, storms=sw.storms, allocation_failures=sw.failures,
                       kernel_release=sw.meta["kernel_release"], vm_cpus=sw.meta["vm_cpus"],
                       csv=os.path.abspath(sw.csv_path))
        with open(os.path.join(out_dir, "sweep.json"), "w") as f:
            json.dump(summary, f, indent=1)
    log(f"sweep: {sw.storms} storms in {summary['seconds']} s, "
        f"{sw.failures} allocation failures")
    return sw.csv_path, summary

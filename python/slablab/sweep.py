# SPDX-License-Identifier: GPL-2.0 OR MIT
"""slablab.sweep: parameter sweeps of allocation storms, one CSV row per storm, and the
plots that reproduce the classic slab-allocator measurements with the kernel's SLUB
beside slablab on every one.

Run the grid where the module is loaded (the test VM: ``scripts/sweep.sh`` does it all),
plot anywhere (only matplotlib is needed, not the module)::

    python3 -m slablab.sweep run --grid small --out build/sweep/now   # CSV (+ plots)
    python3 -m slablab.sweep plot --out build/sweep/now build/sweep/now/sweep.csv
    python3 -m slablab.sweep --grid small --out DIR                   # same as `run`
    python3 python/slablab/sweep.py ...      # from a source tree, build/python on the path

Experiments (``--only`` picks some):

``remote``    throughput (ops/s) vs threads, slablab with per-cpu partial lists on (the
              policy's default cpu_partial) and off (0), and SLUB: seed 002's table.
``batch``     cycles per alloc and per free vs object size, one thread, BATCH objects
              allocated then freed: seed 001's km(N)/kf(N).
``churn``     memory overhead (%) at the peak vs object size, a random object of a
              working set replaced per op: seed 003.
``fastpath``  fast-path % of allocs and frees, node-list operations per 1000 ops and
              throughput vs cpu_partial (remote and churn), SLUB's throughput beside.

docs/sweeps.md describes the CSV columns and the plots.
"""

import argparse
import csv
import datetime
import json
import math
import os
import statistics
import sys
import time

__all__ = ["GRIDS", "EXPERIMENTS", "COLUMNS", "run_sweep", "plot_csv", "main"]

# ---------------------------------------------------------------- the grids

#: Per grid: the values each experiment sweeps and how big each storm is.
GRIDS = {
    "small": dict(
        repeat=3,
        remote=dict(size=256, threads=[2, 4, 8], ops=30000, ring=256),
        batch=dict(sizes=[8, 32, 64, 192, 256, 1024, 4096], ops=30000, batch=10000),
        # churn runs on a duration: memory is sampled every 50 ms while it runs
        churn=dict(sizes=[8, 32, 64, 192, 256, 1024, 4096], duration_ms=300,
                   working_set=4096),
        fastpath=dict(size=256, cpu_partial=[0, 6, 30, 120, 1000],
                      patterns=["remote", "churn"], ops=30000, duration_ms=300,
                      working_set=4096, ring=256),
    ),
    "full": dict(
        repeat=5,
        remote=dict(size=256, threads=[2, 4, 6, 8, 12, 16], ops=200000, ring=256),
        batch=dict(sizes=[8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192],
                   ops=50000, batch=10000),
        churn=dict(sizes=[8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192],
                   duration_ms=1500, working_set=16384),
        fastpath=dict(size=256, cpu_partial=[0, 2, 6, 13, 30, 60, 120, 250, 500, 1000, 4000],
                      patterns=["remote", "churn"], ops=200000, duration_ms=1000,
                      working_set=16384, ring=256),
    ),
}
EXPERIMENTS = ("remote", "batch", "churn", "fastpath")

# ---------------------------------------------------------------- CSV columns

META_COLUMNS = [
    "date",             # ISO 8601 UTC time the storm ended
    "sweep",            # ISO 8601 UTC time the sweep started (one value per sweep)
    "grid",             # small | full
    "experiment",       # remote | batch | churn | fastpath
    "allocator",        # slablab | slub
    "variant",          # the line it belongs to in the plot, e.g. "slablab cpu_partial=0"
    "x",                # the swept value of this experiment (threads, size, cpu_partial)
    "repeat",           # 0 .. repeat-1
    "kernel_release",
    "vm_cpus",          # online cpus of the machine the storm ran on
    "page_size",
    "slablab_version",
    "kernel_features",  # slablab.FEATURES names of the kernel, '+'-joined
]
CACHE_COLUMNS = [       # the slablab cache (for SLUB runs: the cache SLUB's was made like)
    "cache_size", "cache_align", "cache_flags", "cache_cpu_partial", "cache_min_partial",
    "cache_order", "cache_fastpath", "cache_obj_stride", "cache_objs_per_slab",
]
SPEC_COLUMNS = [
    "target", "pattern", "cache", "size", "sizes", "threads", "cpus", "ops", "duration_ms",
    "batch", "working_set", "ring", "seed", "max_live_bytes",
]
STORM_COLUMNS = ["id", "state", "ops_planned", "ops_done", "elapsed_ns"]
RESULT_COLUMNS = [
    "allocs", "frees", "alloc_cycles", "free_cycles", "pair_cycles", "loop_cycles_x1000",
    "failures", "peak_pages", "peak_live_bytes", "meta_bytes", "cycles_per_sec",
    "features_value", "cache_flags_value", "native_name",
    "thread_ops_min", "thread_ops_max", "thread_ns_min", "thread_ns_max",
]
DERIVED_COLUMNS = [
    "tput_ops_per_sec",         # ops_done / the longest thread's time (see docs/sweeps.md)
    "list_lock_ops_per_1000",   # node-list operations (LIST_LOCK_STATS) per 1000 ops
]
FIGURE_COLUMNS = [
    "cycles_per_pair", "cycles_per_alloc", "cycles_per_free", "ns_per_op", "ops_per_sec",
    "thread_ops_per_sec_min", "thread_ops_per_sec_max", "alloc_fastpath_pct",
    "free_fastpath_pct", "overhead_pct", "loop_cycles", "peak_bytes",
]
STAT_COLUMNS = [
    "alloc_fastpath", "alloc_slowpath", "free_fastpath", "free_slowpath", "free_frozen",
    "free_add_partial", "free_remove_partial", "alloc_from_partial", "alloc_slab",
    "alloc_refill", "alloc_node_mismatch", "free_slab", "cpuslab_flush", "deactivate_full",
    "deactivate_empty", "deactivate_to_head", "deactivate_to_tail",
    "deactivate_remote_frees", "deactivate_bypass", "order_fallback",
    "cmpxchg_double_cpu_fail", "cmpxchg_double_fail", "cpu_partial_alloc",
    "cpu_partial_free", "cpu_partial_node", "cpu_partial_drain",
]


def columns(stat_names=None):
    """The CSV header: meta, cache_*, spec_*, storm fields, result_*, fig_*, stat_*."""
    stats = list(stat_names) if stat_names else STAT_COLUMNS
    figs = list(FIGURE_COLUMNS)
    return (META_COLUMNS + CACHE_COLUMNS + ["spec_" + c for c in SPEC_COLUMNS]
            + STORM_COLUMNS + ["result_" + c for c in RESULT_COLUMNS]
            + ["fig_" + c for c in figs] + DERIVED_COLUMNS + ["stat_" + c for c in stats])


COLUMNS = columns()

# Node-list (list_lock) operations among the statistics: what per-cpu partial lists save.
LIST_LOCK_STATS = ("alloc_from_partial", "free_add_partial", "free_remove_partial",
                   "cpu_partial_node", "cpu_partial_drain")


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float):
        return repr(round(v, 6))
    if isinstance(v, (list, tuple)):
        return "+".join(str(x) for x in v)
    return v


def storm_row(storm, cache_info, meta):
    """One CSV row (a dict over COLUMNS) from a finished storm dict."""
    row = dict(meta)
    if cache_info:
        for c in CACHE_COLUMNS:
            row[c] = _cell(cache_info.get(c[len("cache_"):]))
    spec = storm.get("spec") or {}
    for c in SPEC_COLUMNS:
        v = spec.get(c)
        if c == "sizes":
            v = ",".join(f"{e['size']}:{e['weight']}" for e in (v or []))
        row["spec_" + c] = _cell(v)
    row["id"] = storm.get("id")
    row["state"] = storm.get("state")
    for k, v in (storm.get("progress") or {}).items():
        row[k] = v
    res = storm.get("result") or {}
    for c in RESULT_COLUMNS:
        if c in res:
            row["result_" + c] = _cell(res[c])
    threads = res.get("threads") or []
    if threads:
        row["result_thread_ops_min"] = min(t["ops"] for t in threads)
        row["result_thread_ops_max"] = max(t["ops"] for t in threads)
        row["result_thread_ns_min"] = min(t["ns"] for t in threads)
        row["result_thread_ns_max"] = max(t["ns"] for t in threads)
    for k, v in (storm.get("figures") or {}).items():
        row["fig_" + k] = _cell(v)
    for k, v in (res.get("stats") or {}).items():
        row["stat_" + k] = v
    # Throughput from the threads' own clocks: the storm's elapsed_ns ends when the
    # controller's 50 ms sampling sleep does, which dwarfs a short storm.
    done = (storm.get("progress") or {}).get("ops_done")
    longest = max((t["ns"] for t in threads), default=0)
    if done and longest:
        row["tput_ops_per_sec"] = done * 1e9 / longest
    st = res.get("stats")
    if st and done:
        row["list_lock_ops_per_1000"] = sum(st.get(k, 0) for k in LIST_LOCK_STATS) * 1000 / done
    return {k: _cell(v) for k, v in row.items()}


# ---------------------------------------------------------------- running

def _import_slablab():
    import importlib
    try:
        return importlib.import_module("slablab")
    except ImportError:
        # run from a source tree: the built package is in $SLABLAB_BUILD/python
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        build = os.environ.get("SLABLAB_BUILD", os.path.join(repo, "build"))
        sys.path.insert(0, os.path.join(build, "python"))
        return importlib.import_module("slablab")


class Sweep:
    """Runs experiments, one storm at a time, writing a CSV row after each."""

    def __init__(self, client, grid_name, out_dir, repeat=None, log=print, slablab=None):
        self.slablab = slablab
        self.client = client
        self.grid_name = grid_name
        self.grid = GRIDS[grid_name]
        self.repeat = repeat or self.grid["repeat"]
        self.out_dir = out_dir
        self.log = log
        st = client.status()
        self.status = st
        self.start = _now()
        self.meta = dict(sweep=self.start, grid=grid_name, kernel_release=st["kernel_release"],
                         vm_cpus=st["nr_online_cpus"], page_size=st["page_size"],
                         slablab_version=st["version"], kernel_features=st["features"])
        os.makedirs(out_dir, exist_ok=True)
        self.csv_path = os.path.join(out_dir, "sweep.csv")
        self.header = columns(getattr(slablab, "STAT_NAMES", None))
        new = not os.path.exists(self.csv_path) or os.path.getsize(self.csv_path) == 0
        if not new:
            # appending: keep the file's own header
            with open(self.csv_path, newline="") as f:
                self.header = next(csv.reader(f))
        self._f = open(self.csv_path, "a", newline="")
        self._w = csv.DictWriter(self._f, fieldnames=self.header, extrasaction="ignore")
        if new:
            self._w.writeheader()
        self.storms = 0
        self.failures = 0
        self._serial = 0

    def close(self):
        self._f.close()

    # -- caches
    def _cache(self, size, **tunables):
        self._serial += 1
        name = f"sweep{os.getpid() % 10000}-{self._serial}-{size}"
        return self.client.cache_create(name, size, **tunables)["name"]

    def _destroy(self, name):
        try:
            self.client.cache_destroy(name)
        except self.slablab.NotFound:
            pass

    # -- one storm
    def storm(self, experiment, allocator, variant, x, rep, cache, pattern, **kw):
        """Run one storm (slablab on `cache`, or SLUB in a kmem_cache made like it) and
        write its row; returns the storm dict."""
        target = "slablab" if allocator == "slablab" else "native"
        t0 = time.monotonic()
        for attempt in range(4):
            self.client.cache_shrink(cache)         # every storm starts from a flushed cache
            info = self.client.cache_get(cache, percpu=False)
            r = self.client.storm(target, pattern, cache=cache, **kw)
            self.storms += 1
            if not self._churn_too_short(r) or attempt == 3:
                break
            # The fill of the working set took most of the duration: the memory peak
            # may have been sampled mid-fill and the figures are the fill's. Longer.
            self.log(f"  {experiment:8s} {variant:28s} x={x!s:>6} #{rep}  churn phase too "
                     f"short ({r['progress']['ops_done']} ops in {kw['duration_ms']} ms): "
                     "again, twice as long")
            kw = dict(kw, duration_ms=kw["duration_ms"] * 2)
        res = r.get("result") or {}
        self.failures += res.get("failures") or 0
        meta = dict(self.meta, date=_now(), experiment=experiment, allocator=allocator,
                    variant=variant, x=x, repeat=rep)
        self._w.writerow(storm_row(r, info, meta))
        self._f.flush()
        if r["state"] != "done":
            self.log(f"sweep: warning: storm {r['id']} ended {r['state']}")
        f = r["figures"]
        row = storm_row(r, None, {})
        main = {"remote": ("tput", row.get("tput_ops_per_sec")),
                "batch": ("cycles/alloc", f.get("cycles_per_alloc")),
                "churn": ("overhead %", f.get("overhead_pct")),
                "fastpath": ("alloc fast %", f.get("alloc_fastpath_pct"))}[experiment]
        self.log(f"  {experiment:8s} {variant:28s} x={x!s:>6} #{rep}  "
                 f"{main[0]} {_fmt(main[1])}  ({time.monotonic() - t0:.1f}s)")
        return r

    @staticmethod
    def _churn_too_short(r):
        """A churn storm on a duration in which a thread replaced fewer objects than it
        keeps live: its time went mostly into filling the working set."""
        spec = r.get("spec") or {}
        if spec.get("pattern") != "churn" or not spec.get("duration_ms"):
            return False
        threads = (r.get("result") or {}).get("threads") or []
        return not threads or min(t["ops"] for t in threads) < spec["working_set"]

    # -- experiments
    def remote(self):
        g = self.grid["remote"]
        cache = self._cache(g["size"])
        default_cp = self.client.cache_get(cache)["cpu_partial"]
        variants = [("slablab", f"slablab cpu_partial={default_cp}", default_cp),
                    ("slablab", "slablab cpu_partial=0", 0),
                    ("slub", "SLUB", None)]
        try:
            for rep in range(self.repeat):
                for threads in g["threads"]:
                    for allocator, label, cp in variants:
                        if cp is not None:
                            self.client.cache_set(cache, cpu_partial=cp)
                        self.storm("remote", allocator, label, threads, rep, cache, "remote",
                                   threads=threads, ops=g["ops"], ring=g["ring"])
        finally:
            self._destroy(cache)

    def _by_size(self, experiment, pattern, extra):
        g = self.grid[experiment]
        caches = {size: self._cache(size) for size in g["sizes"]}
        try:
            for rep in range(self.repeat):
                for size in g["sizes"]:
                    for allocator, label in (("slablab", "slablab"), ("slub", "SLUB")):
                        self.storm(experiment, allocator, label, size, rep, caches[size],
                                   pattern, **extra(g))
        finally:
            for name in caches.values():
                self._destroy(name)

    def batch(self):
        # seed 001: one thread, BATCH allocations then BATCH frees, timed separately
        self._by_size("batch", "batch", lambda g: dict(threads=1, cpus="0", ops=g["ops"],
                                                       batch=g["batch"]))

    def churn(self):
        # seed 003: on every cpu, WORKING_SET live objects per thread
        self._by_size("churn", "churn", lambda g: dict(duration_ms=g["duration_ms"],
                                                       working_set=g["working_set"]))

    def fastpath(self):
        g = self.grid["fastpath"]
        cache = self._cache(g["size"])
        try:
            for rep in range(self.repeat):
                for pattern in g["patterns"]:
                    if pattern == "churn":
                        kw = dict(duration_ms=g["duration_ms"], working_set=g["working_set"])
                    else:
                        kw = dict(ops=g["ops"], ring=g["ring"])
                    for cp in g["cpu_partial"]:
                        self.client.cache_set(cache, cpu_partial=cp)
                        self.storm("fastpath", "slablab", f"slablab {pattern}", cp, rep, cache,
                                   pattern, **kw)
                    # SLUB has no per-event counters on a stock kernel: its throughput
                    # under the same storm is the reference line (its own cpu_partial)
                    self.storm("fastpath", "slub", f"SLUB {pattern}", "", rep, cache, pattern,
                               **kw)
        finally:
            self._destroy(cache)


def _fmt(v):
    if v is None or v == "":
        return "-"
    v = float(v)
    if abs(v) >= 1e6:
        return f"{v / 1e6:.2f}M"
    if abs(v) >= 1e4:
        return f"{v / 1e3:.0f}k"
    return f"{v:.1f}"


def run_sweep(grid="small", out_dir="build/sweep", only=None, repeat=None, log=print):
    """Run the grid's experiments (in this machine's kernel: the module must be loaded);
    returns (csv path, summary dict)."""
    slablab = _import_slablab()
    client = slablab.Client()
    try:
        if client.storm_get()["state"] == "running":
            raise SystemExit("sweep: a storm is already running (slabctl storm-status --stop)")
    except slablab.NotFound:
        pass
    sw = Sweep(client, grid, out_dir, repeat=repeat, log=log, slablab=slablab)
    t0 = time.monotonic()
    exps = only or list(EXPERIMENTS)
    log(f"sweep: grid {grid}, {sw.repeat} repeats, experiments {', '.join(exps)}; "
        f"{sw.meta['kernel_release']}, {sw.meta['vm_cpus']} cpus -> {sw.csv_path}")
    done = []
    try:
        for e in exps:
            t1 = time.monotonic()
            getattr(sw, e)()
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


# ---------------------------------------------------------------- plotting

def read_rows(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            rows.extend(csv.DictReader(f))
    return rows


def _num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def _series(rows, experiment, variant, figure, xkey="x"):
    """{x: [values]} of one line of one experiment."""
    out = {}
    for r in rows:
        if r["experiment"] != experiment or r["variant"] != variant:
            continue
        v = figure(r) if callable(figure) else _num(r.get("fig_" + figure))
        x = _num(r.get(xkey))
        if v is None or x is None:
            continue
        out.setdefault(x, []).append(v)
    return out


def _plot_line(ax, series, label, scale=1.0, **style):
    """Median per x, min-max as error bars."""
    xs = sorted(series)
    if not xs:
        return False
    med = [statistics.median(series[x]) * scale for x in xs]
    lo = [m - min(series[x]) * scale for m, x in zip(med, xs)]
    hi = [max(series[x]) * scale - m for m, x in zip(med, xs)]
    ax.errorbar(xs, med, yerr=[lo, hi], label=label, marker="o", markersize=4, capsize=3,
                linewidth=1.5, **style)
    return True


def _variants(rows, experiment):
    seen = []
    for r in rows:
        if r["experiment"] == experiment and r["variant"] not in seen:
            seen.append(r["variant"])
    return seen


def _footer(fig, rows, experiment, note=""):
    rs = [r for r in rows if r["experiment"] == experiment]
    kernels = sorted({r["kernel_release"] for r in rs})
    cpus = sorted({r["vm_cpus"] for r in rs})
    dates = sorted({r["date"][:10] for r in rs})
    reps = len({r["repeat"] for r in rs})
    text = (f"kernel {', '.join(kernels)} · {', '.join(cpus)} cpus · {dates[0]}"
            f"{' – ' + dates[-1] if dates[-1] != dates[0] else ''} · median of {reps} "
            f"run{'s' if reps != 1 else ''}, bars: min–max")
    if note:
        text += " · " + note
    fig.text(0.01, 0.005, text, fontsize=7, color="0.35", ha="left", va="bottom")


STYLE = {"slablab": dict(color="tab:blue"), "SLUB": dict(color="tab:red", linestyle="--")}


def _style(variant, i):
    if variant in STYLE:
        return STYLE[variant]
    if variant.startswith("SLUB"):
        return dict(color="tab:red", linestyle="--")
    return dict(color=["tab:blue", "tab:cyan", "tab:green", "tab:purple"][i % 4])


def _size_axis(ax):
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(_bytes_formatter())
    ax.set_xlabel("object size (bytes, log scale)")


def _log_counts(ax):
    """A log y axis labelled 100, 200, 500, 1k, 2k, ... rather than powers of ten."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(
        lambda v, _pos: f"{v / 1000:g}k" if v >= 1000 else f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _bytes_formatter():
    from matplotlib.ticker import FuncFormatter

    def f(v, _pos):
        if v >= 1024 and v % 1024 == 0:
            return f"{int(v) // 1024}K"
        return f"{int(v)}" if v == int(v) else f"{v:g}"
    return FuncFormatter(f)


def plot_remote(rows, plt):
    fig, ax = plt.subplots(figsize=(7.5, 5))
    size = next((r["cache_size"] for r in rows if r["experiment"] == "remote"), "?")
    for i, v in enumerate(_variants(rows, "remote")):
        _plot_line(ax, _series(rows, "remote", v, _tput), v, scale=1e-6, **_style(v, i))
    threads = sorted({int(_num(r["x"])) for r in rows if r["experiment"] == "remote"})
    ax.set_xticks(threads)
    ax.set_xlabel("storm threads (producer + consumer pairs)")
    ax.set_ylabel("throughput (million objects/s)")
    ax.set_title(f"remote frees, {size}-byte objects: each allocated on one cpu, freed on "
                 "another;\nslablab with per-cpu partial lists on and off, and SLUB "
                 "(seed 002)", fontsize=10)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _footer(fig, rows, "remote")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def plot_batch(rows, plt):
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.4), sharey=False)
    batch = next((r["spec_batch"] for r in rows if r["experiment"] == "batch"), "?")
    for ax, figure, what in ((axes[0], "cycles_per_alloc", "alloc"),
                             (axes[1], "cycles_per_free", "free")):
        for i, v in enumerate(_variants(rows, "batch")):
            _plot_line(ax, _series(rows, "batch", v, figure), v, **_style(v, i))
        _size_axis(ax)
        _log_counts(ax)
        ax.set_ylabel(f"cycles per {what} (TSC, log scale)")
        ax.set_title(f"{batch} × {what}", fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    fig.suptitle("cost of an allocation and of a free vs object size, one thread "
                 "(seed 001's km(N)/kf(N))", fontsize=10)
    _footer(fig, rows, "batch", "init_on_alloc zeroing included, as on Debian")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def plot_churn(rows, plt):
    fig, ax = plt.subplots(figsize=(7.5, 5))
    ws = next((r["spec_working_set"] for r in rows if r["experiment"] == "churn"), "?")
    for i, v in enumerate(_variants(rows, "churn")):
        _plot_line(ax, _series(rows, "churn", v, "overhead_pct"), v, **_style(v, i))
    _size_axis(ax)
    ax.set_ylabel("memory overhead at the peak (%)")
    ax.set_title(f"fragmentation under churn, {ws} live objects per thread (seed 003):\n"
                 "(slab pages + slablab's off-slab metadata − live bytes) / live bytes",
                 fontsize=10)
    ax.axhline(0, color="0.5", linewidth=0.8)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _footer(fig, rows, "churn")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def _list_ops_per_1000(r):
    return _num(r.get("list_lock_ops_per_1000"))


def _tput(r):
    return _num(r.get("tput_ops_per_sec"))


def plot_fastpath(rows, plt):
    fig, axes = plt.subplots(3, 1, figsize=(7, 9.5), sharex=True)
    variants = _variants(rows, "fastpath")
    mine = [v for v in variants if not v.startswith("SLUB")]
    colors = ["tab:blue", "tab:green", "tab:purple", "tab:cyan"]
    for i, v in enumerate(mine):
        c = colors[i % len(colors)]
        pat = v.split()[-1]
        _plot_line(axes[0], _series(rows, "fastpath", v, "alloc_fastpath_pct"),
                   f"{pat}: allocs", color=c)
        _plot_line(axes[0], _series(rows, "fastpath", v, "free_fastpath_pct"),
                   f"{pat}: frees", color=c, linestyle=":")
        _plot_line(axes[1], _series(rows, "fastpath", v, _list_ops_per_1000),
                   f"slablab {pat}", color=c)
        _plot_line(axes[2], _series(rows, "fastpath", v, _tput), f"slablab {pat}",
                   scale=1e-6, color=c)
    for i, v in enumerate(v for v in variants if v.startswith("SLUB")):
        vals = [_tput(r) for r in rows
                if r["experiment"] == "fastpath" and r["variant"] == v]
        vals = [x for x in vals if x is not None]
        if vals:
            pat = v.split()[-1]
            c = colors[[m.split()[-1] for m in mine].index(pat) % len(colors)] \
                if pat in [m.split()[-1] for m in mine] else "tab:red"
            axes[2].axhline(statistics.median(vals) / 1e6, color=c, linestyle="--",
                            linewidth=1.2, label=f"SLUB {pat} (its own cpu_partial)")
            axes[2].axhspan(min(vals) / 1e6, max(vals) / 1e6, color=c, alpha=0.08)
    xs = sorted({_num(r["x"]) for r in rows if r["experiment"] == "fastpath"
                 and _num(r["x"]) is not None})
    for ax in axes:
        ax.set_xscale("symlog", linthresh=1)
        if xs:
            ax.set_xlim(-0.3, max(xs) * 1.4)
            ax.set_xticks(xs)
            ax.set_xticklabels([f"{x:g}" for x in xs])
            ax.minorticks_off()
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    size = next((r["cache_size"] for r in rows if r["experiment"] == "fastpath"), "?")
    axes[0].set_ylabel("fast path (% of allocs / frees)")
    axes[0].set_ylim(-3, 103)
    axes[0].set_title(f"slablab, {size}-byte objects (SLUB keeps no per-event counters "
                      "on a stock kernel)", fontsize=9)
    axes[1].set_ylabel("node-list (list_lock) ops per 1000 ops")
    axes[1].set_ylim(bottom=0)
    axes[2].set_ylabel("throughput (million ops/s)")
    axes[2].set_ylim(bottom=0)
    axes[2].set_xlabel("cpu_partial (objects; 0 = per-cpu partial lists off; symlog scale)")
    fig.suptitle("fast-path share, list_lock traffic and throughput vs cpu_partial",
                 fontsize=10)
    _footer(fig, rows, "fastpath")
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    return fig


PLOTS = {
    "remote": ("remote_throughput.png", plot_remote),
    "batch": ("batch_cycles.png", plot_batch),
    "churn": ("churn_overhead.png", plot_churn),
    "fastpath": ("fastpath_cpu_partial.png", plot_fastpath),
}


def plot_csv(paths, out_dir, log=print):
    """Draw one PNG per experiment found in the CSV file(s); returns the paths written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_rows(paths)
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for exp, (fname, fn) in PLOTS.items():
        if not any(r["experiment"] == exp for r in rows):
            continue
        fig = fn(rows, plt)
        path = os.path.join(out_dir, fname)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
        log(f"sweep: wrote {path}")
    summary = summarize(rows)
    with open(os.path.join(out_dir, "summary.txt"), "w") as f:
        f.write(summary)
    log(summary.rstrip())
    return written


def summarize(rows):
    """A text table of medians per experiment, variant and x."""
    figs = {"remote": [("tput_ops_per_sec", "ops/s")],
            "batch": [("cycles_per_alloc", "cyc/alloc"), ("cycles_per_free", "cyc/free")],
            "churn": [("overhead_pct", "overhead %")],
            "fastpath": [("alloc_fastpath_pct", "alloc fast %"),
                         ("free_fastpath_pct", "free fast %"),
                         ("list_lock_ops_per_1000", "list ops/1k"),
                         ("tput_ops_per_sec", "ops/s")]}
    out = []
    for exp, fl in figs.items():
        rs = [r for r in rows if r["experiment"] == exp]
        if not rs:
            continue
        xname = {"remote": "threads", "batch": "size", "churn": "size",
                 "fastpath": "cpu_partial"}[exp]
        out.append(f"\n{exp}:")
        out.append(f"  {'variant':28s} {xname:>11s} " + " ".join(f"{h:>12s}" for _, h in fl))
        for v in _variants(rows, exp):
            xs = sorted({r["x"] for r in rs if r["variant"] == v},
                        key=lambda x: (_num(x) is None, _num(x) or 0))
            for x in xs:
                cells = []
                for key, _ in fl:
                    col = key if key in DERIVED_COLUMNS else "fig_" + key
                    vals = [_num(r.get(col)) for r in rs
                            if r["variant"] == v and r["x"] == x]
                    vals = [a for a in vals if a is not None]
                    cells.append(f"{_fmt(statistics.median(vals)) if vals else '-':>12s}")
                out.append(f"  {v:28s} {x or '-':>11s} " + " ".join(cells))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- CLI

def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("run", "plot", "columns", "-h", "--help"):
        argv.insert(0, "run")
    ap = argparse.ArgumentParser(
        prog="python3 -m slablab.sweep",
        description="Parameter sweeps of slablab storms against the kernel's SLUB: "
                    "CSV + PNG plots (docs/sweeps.md).")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the grid here (module loaded, root): CSV, and "
                                   "plots unless --no-plot")
    r.add_argument("--grid", choices=sorted(GRIDS), default="small",
                   help="small (default, a few minutes under TCG) or full")
    r.add_argument("--out", default=os.path.join("build", "sweep"),
                   help="output directory: sweep.csv (appended to), sweep.json, *.png")
    r.add_argument("--only", default="",
                   help=f"comma-separated experiments out of {','.join(EXPERIMENTS)}")
    r.add_argument("--repeat", type=int, default=None,
                   help="runs of every point (default: the grid's, small 3, full 5)")
    r.add_argument("--no-plot", action="store_true", help="write the CSV only")
    p = sub.add_parser("plot", help="draw the PNGs (and summary.txt) from CSV files")
    p.add_argument("csv", nargs="+")
    p.add_argument("--out", default=None, help="directory (default: the first CSV's)")
    sub.add_parser("columns", help="print the CSV columns")
    a = ap.parse_args(argv)
    if a.cmd == "columns":
        print("\n".join(COLUMNS))
        return 0
    if a.cmd == "plot":
        plot_csv(a.csv, a.out or os.path.dirname(os.path.abspath(a.csv[0])))
        return 0
    only = [e for e in a.only.split(",") if e]
    bad = [e for e in only if e not in EXPERIMENTS]
    if bad:
        ap.error(f"unknown experiment(s) {', '.join(bad)}: use {', '.join(EXPERIMENTS)}")
    if a.repeat is not None and a.repeat < 1:
        ap.error("--repeat must be at least 1")
    path, _ = run_sweep(a.grid, a.out, only=only, repeat=a.repeat)
    if not a.no_plot:
        plot_csv([path], a.out)
    return 0


if __name__ == "__main__":
    if not __package__:
        # `python3 python/slablab/sweep.py`: don't let this directory shadow anything
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0 OR MIT
"""python3 -m slablab fidelity [--pair auto|slub|sheaves|slab|slob] [--part ...] [--repeat N]

Each design against the kernel allocator it models, on the same work (docs/fidelity.md):
the slub design on a SLUB 6.x kernel, sheaves on 7.x's SLUB, slab on a CONFIG_SLAB kernel,
slob on a CONFIG_SLOB kernel (``make fidelity`` boots each; here the running kernel picks
the pair). Three tables, ``metric | design | kernel | ratio [95% CI] | verdict``:

- **geometry**: for a grid of sizes, with and without ``hwcache_align``, what the design
  chooses for a cache (order, objects per slab and each design's defaults) against what
  the kernel chose for a cache of the same size and flags: a storm's native twin
  (``slablab-native-ID``), read from its own sysfs directory (SLUB) or /proc/slabinfo row
  (SLAB) while it exists. Must be identical.
- **behaviour**: storms (pair, batch, remote, churn) and replays of one recorded trace on
  both sides, paired repeats in a random order: slabs allocated and freed, peak pages, the
  counters both sides have (SLUB_STATS names on a CONFIG_SLUB_STATS kernel), fast-path
  fractions. "same" when the ratio's interval lies inside 1 ± tolerance (5%), "differs"
  (with the direction and size) when it lies outside, else "inconclusive".
- **cost**: instructions per operation where the run is deterministic (``VM_ICOUNT=1``:
  cycles are 2 × instructions), with the hooks each side runs that the other does not.

The verdict and table functions are pure (tests/host/test_fidelity.py runs them without a
kernel); the probes need the module and root.
"""

import argparse
import json
import math
import os
import random
import sys
import time
from typing import (Any, Callable, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence,
                    Tuple)

from .analysis import beyond, inconclusive, paired_ratio_ci, within

__all__ = ["PAIRS", "TOLERANCE", "Judged", "judge", "judge_exact", "geometry_rows",
           "table_text", "running_pair", "main"]

Log = Callable[[str], Any]

#: A behaviour figure is "same" when its ratio's 95% interval lies within 1 ± this.
TOLERANCE = 0.05
#: A design's distance from the allocator it models is judged at this level.
LEVEL = 0.95


class Pair(NamedTuple):
    design: str
    allocator: str                 # what the kernel side is, in words
    tunables: Mapping[str, Any]    # the design's settings for the comparison
    kernels: Sequence[str]         # KERNEL= values that have the allocator
    geometry: Sequence[str]        # the design's keys compared with the kernel's


PAIRS: Dict[str, Pair] = {
    "slub": Pair("slub", "SLUB 6.1", {}, ("6.1", "6.1-slub-stats"),
                 ("order", "objs_per_slab", "cpu_partial", "min_partial")),
    "sheaves": Pair("sheaves", "SLUB 7.3 (sheaves)", {}, ("7.3", "7.3-slub-stats"),
                    ("order", "objs_per_slab", "min_partial", "sheaf_capacity")),
    "slab": Pair("slab", "SLAB 6.1", {"lists": 3}, ("6.1-slab",),
                 ("order", "objs_per_slab", "limit", "batchcount", "shared")),
    "slob": Pair("slob", "SLOB 6.1", {"lists": 3}, ("6.1-slob",), ()),
}

#: The geometry grid: powers of two, kmalloc's odd classes, and sizes of no class.
SIZES = (8, 16, 24, 32, 40, 64, 96, 100, 128, 192, 200, 256, 320, 500, 512, 700, 1024,
         1100, 2048, 3000, 4096, 5000, 8192)


# ---------------------------------------------------------------- verdicts

class Judged(NamedTuple):
    """One behaviour row: the medians of both sides, the ratio design/kernel with its
    interval (None: undefined), and the verdict with its reason."""
    design: Optional[float]
    kernel: Optional[float]
    n: int
    ratio: Optional[float]
    lo: Optional[float]
    hi: Optional[float]
    verdict: str


def _median(v: Sequence[float]) -> Optional[float]:
    v = sorted(x for x in v if x is not None and math.isfinite(x))
    if not v:
        return None
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2


def judge(design: Sequence[Optional[float]], kernel: Sequence[Optional[float]], *,
          tolerance: float = TOLERANCE, level: float = LEVEL) -> Judged:
    """Paired repeats (``design[i]`` and ``kernel[i]`` run back to back) of one figure.

    The ratio is the geometric mean of design/kernel with a Student-t interval on the log
    ratios (n - 1 degrees of freedom): :func:`slablab.analysis.paired_ratio_ci`, the
    function slabctl compare uses. Verdicts: ``same`` when the interval lies within
    [1 - tolerance, 1 + tolerance]; ``differs: design N% higher/lower`` when it lies wholly
    outside; otherwise ``inconclusive: noise ±X% > tolerance``. Zeros: both sides zero in
    every pair is ``same`` (exactly); one side zero throughout and the other not is
    ``differs`` (no ratio); a mix is inconclusive. Fewer than 2 pairs: ``too few pairs``."""
    pairs = [(d, k) for d, k in zip(design, kernel)
             if d is not None and k is not None and math.isfinite(d) and math.isfinite(k)]
    md, mk = _median([d for d, _ in pairs]), _median([k for _, k in pairs])
    n = len(pairs)
    if n < 2:
        return Judged(md, mk, n, None, None, None, "too few pairs")
    if all(d == 0 and k == 0 for d, k in pairs):
        return Judged(md, mk, n, 1.0, 1.0, 1.0, "same (both 0)")
    if all(d == 0 for d, _ in pairs) and all(k > 0 for _, k in pairs):
        return Judged(md, mk, n, 0.0, None, None, "differs: design 0, kernel > 0")
    if all(k == 0 for _, k in pairs) and all(d > 0 for d, _ in pairs):
        return Judged(md, mk, n, None, None, None, "differs: kernel 0, design > 0")
    if any(d <= 0 or k <= 0 for d, k in pairs):
        return Judged(md, mk, n, None, None, None, "inconclusive: zero in some pairs")
    ci = paired_ratio_ci([k for _, k in pairs], [d for d, _ in pairs], level=level,
                         min_pairs=2)
    assert ci is not None       # every pair is usable: n >= 2 and all values > 0
    ratio, lo, hi = ci.ratio, ci.lo, ci.hi
    if within(ci, 1 - tolerance, 1 + tolerance):
        word = "same"
    elif beyond(ci, 1 - tolerance, 1 + tolerance):
        word = f"differs: design {100 * (ratio - 1):+.1f}%"
    else:
        word = inconclusive(ci, tolerance)
    return Judged(md, mk, n, ratio, lo, hi, word)


def judge_exact(design: Any, kernel: Any) -> str:
    """A geometry value: ``same`` or ``differs``; ``kernel has none`` when the kernel
    does not show it."""
    if kernel is None:
        return "kernel has none"
    if design is None:
        return "design has none"
    return "same" if design == kernel else "differs"


# ---------------------------------------------------------------- tables

def _num(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if v != v:
            return "-"
        return f"{v:.4g}" if abs(v) < 1e6 else f"{v:.3e}"
    return str(v)


def _ratio(j: Judged) -> str:
    if j.ratio is None:
        return "-"
    if j.lo is None or j.hi is None:
        return f"{j.ratio:.3f}"
    return f"{j.ratio:.3f} [{j.lo:.3f}, {j.hi:.3f}]"


def table_text(title: str, rows: Iterable[Sequence[str]],
               head: Sequence[str] = ("metric", "design", "kernel", "ratio [95% CI]",
                                      "verdict")) -> str:
    """A plain text table (left-aligned columns) under ``title``."""
    body = [list(head)] + [list(r) for r in rows]
    widths = [max(len(r[i]) for r in body) for i in range(len(head))]
    out = [title]
    for i, r in enumerate(body):
        out.append("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if i == 0:
            out.append("  " + "  ".join("-" * w for w in widths))
    return "\n".join(out) + "\n"


def behaviour_row(metric: str, j: Judged) -> List[str]:
    return [metric, _num(j.design), _num(j.kernel), _ratio(j), j.verdict]


#: How a geometry key is written in a row: short, so that a size is one line.
GEOMETRY_ABBREV = {"order": "order", "objs_per_slab": "objs", "cpu_partial": "cpu_partial",
                   "min_partial": "min_partial", "sheaf_capacity": "sheaf", "limit": "limit",
                   "batchcount": "batch", "shared": "shared"}


def geometry_rows(results: Iterable[Mapping[str, Any]], keys: Sequence[str]) -> List[List[str]]:
    """``results``: dicts with ``size``, ``align`` and ``design``/``kernel`` mappings of
    the geometry keys. One row per size and flag, the keys side by side; the verdict names
    the keys that differ (and those the kernel does not show)."""
    rows = []
    for r in results:
        tag = f"{r['size']} B{' hwcache_align' if r['align'] else ''}"
        cells: Dict[str, List[str]] = {"design": [], "kernel": []}
        differ, absent = [], []
        for k in keys:
            d, n = r["design"].get(k), r["kernel"].get(k)
            cells["design"].append(f"{GEOMETRY_ABBREV.get(k, k)} {_num(d)}")
            cells["kernel"].append(f"{GEOMETRY_ABBREV.get(k, k)} {_num(n)}")
            j = judge_exact(d, n)
            if j == "differs" or j == "design has none":
                differ.append(k)
            elif j == "kernel has none":
                absent.append(k)
        word = f"differs: {', '.join(differ)}" if differ else "same"
        if absent:
            word += f" (kernel shows no {', '.join(absent)})"
        rows.append([tag, ", ".join(cells["design"]), ", ".join(cells["kernel"]), "", word])
    return rows


# ---------------------------------------------------------------- the running kernel

def running_pair() -> str:
    """The pair the running kernel can check: SLUB's sysfs on 7.x is sheaves, before 7
    slub; /proc/slabinfo with tunables and no SLUB sysfs is SLAB; neither is SLOB."""
    if os.path.isdir("/sys/kernel/slab"):
        return "sheaves" if int(os.uname().release.split(".")[0]) >= 7 else "slub"
    try:
        with open("/proc/slabinfo") as f:
            if "tunables" in f.read(4096):
                return "slab"
    except OSError:
        pass
    return "slob"


def slub_stats_kernel() -> bool:
    """CONFIG_SLUB_STATS: SLUB's counters in every cache's sysfs directory."""
    return os.path.exists("/sys/kernel/slab/kmalloc-64/alloc_fastpath")


def _read_int(path: str) -> Optional[int]:
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def slabinfo_row(name: str) -> Optional[Dict[str, int]]:
    """SLAB's /proc/slabinfo row of ``name``: objperslab, pagesperslab, limit,
    batchcount, sharedfactor, num_slabs, active_objs."""
    try:
        with open("/proc/slabinfo") as f:
            for line in f:
                w = line.split()
                if w and w[0] == name and len(w) >= 16:
                    return dict(active_objs=int(w[1]), num_objs=int(w[2]),
                                objperslab=int(w[4]), pagesperslab=int(w[5]),
                                limit=int(w[8]), batchcount=int(w[9]),
                                sharedfactor=int(w[10]), active_slabs=int(w[13]),
                                num_slabs=int(w[14]))
    except OSError:
        pass
    return None


def native_geometry(pair: str, name: str) -> Dict[str, Any]:
    """What the kernel chose for its cache ``name``, in the design's key names."""
    if pair in ("slub", "sheaves"):
        d = f"/sys/kernel/slab/{name}"
        out: Dict[str, Any] = {k: _read_int(f"{d}/{k}") for k in
                               ("order", "objs_per_slab", "cpu_partial", "min_partial",
                                "sheaf_capacity")}
        return out
    if pair == "slab":
        row = slabinfo_row(name)
        if row is None:
            return {}
        return dict(order=int(math.log2(row["pagesperslab"])),
                    objs_per_slab=row["objperslab"], limit=row["limit"],
                    batchcount=row["batchcount"], shared=row["sharedfactor"])
    return {}


# ---------------------------------------------------------------- probes (module, root)

def probe_geometry(client: Any, pair: str, log: Log) -> List[Dict[str, Any]]:
    """For every size of :data:`SIZES`, with and without hwcache_align: a slablab cache of
    the pair's design, and the kernel's cache of the same size and flags (the twin a
    native storm makes of it), read while that storm runs."""
    import slablab
    p = PAIRS[pair]
    out = []
    limit = slablab.LIMITS["storm_max_duration_ms"]
    for align in (False, True):
        for size in SIZES:
            name = f"fid-{size}{'-a' if align else ''}"
            info = client.cache_create(name, size, design=p.design, hwcache_align=align,
                                       **p.tunables)
            try:
                st = client.storm_start("native", "pair", cache=name, threads=1,
                                        duration_ms=limit)
                try:
                    kern = native_geometry(pair, f"slablab-native-{st['id']}")
                finally:
                    client.storm_stop(st["id"])
            finally:
                client.cache_destroy(name)
            out.append(dict(size=size, align=align, kernel=kern,
                            design={k: info.get(k) for k in p.geometry}))
        log(f"geometry: {len(SIZES)} sizes{' with hwcache_align' if align else ''} done")
    return out


#: The behaviour storms: (label, pattern, spec). Sizes a kmalloc class has and one it
#: has not; ops small enough for TCG.
STORMS = (
    ("pair 256 B", "pair", dict(size=256, threads=2, ops=100_000)),
    ("batch 256 B", "batch", dict(size=256, threads=2, ops=100_000, batch=64)),
    ("remote 192 B", "remote", dict(size=192, threads=2, ops=50_000, batch=32)),
    ("churn 700 B", "churn", dict(size=700, threads=2, ops=100_000, working_set=4096)),
)

#: Storm figures compared: (metric, how to read it from a storm dict).
STORM_FIGURES: Sequence[Tuple[str, Callable[[Mapping[str, Any]], Any]]] = (
    ("peak pages", lambda s: (s.get("result") or {}).get("peak_pages")),
    ("slabs allocated", lambda s: ((s.get("result") or {}).get("stats") or {}).get("alloc_slab")),
    ("slabs freed", lambda s: ((s.get("result") or {}).get("stats") or {}).get("free_slab")),
    ("alloc fast path %", lambda s: (s.get("figures") or {}).get("alloc_fastpath_pct")),
    ("free fast path %", lambda s: (s.get("figures") or {}).get("free_fastpath_pct")),
    ("allocs from partial", lambda s: ((s.get("result") or {}).get("stats") or {}).get(
        "alloc_from_partial")),
    ("cpu partial frees", lambda s: ((s.get("result") or {}).get("stats") or {}).get(
        "cpu_partial_free")),
)


def _storm_pair(client: Any, pair: str, pattern: str, spec: Mapping[str, Any],
                order: Sequence[str]) -> Dict[str, Any]:
    """One repeat: the design's storm and the native one on a cache of the same size, in
    ``order``."""
    p = PAIRS[pair]
    name = "fid-storm"
    out: Dict[str, Any] = {}
    client.cache_create(name, spec["size"], design=p.design, **p.tunables)
    try:
        for side in order:
            s = {k: v for k, v in spec.items() if k != "size"}
            target = "slablab" if side == "design" else "native"
            out[side] = client.storm(target, pattern, cache=name, seed=1, **s)
    finally:
        client.cache_destroy(name)
    return out


def probe_storms(client: Any, pair: str, repeat: int, rng: random.Random,
                 log: Log) -> List[List[str]]:
    rows: List[List[str]] = []
    for label, pattern, spec in STORMS:
        runs = []
        for r in range(repeat + 1):           # the first repeat warms up and is dropped
            order = ["design", "kernel"]
            rng.shuffle(order)
            runs.append(_storm_pair(client, pair, pattern, spec, order))
        runs = runs[1:]
        log(f"behaviour: {label}: {repeat} pairs done")
        for metric, get in STORM_FIGURES:
            d = [get(x["design"]) for x in runs]
            k = [get(x["kernel"]) for x in runs]
            if all(v is None for v in k) and all(v is None for v in d):
                continue
            if all(v is None for v in k):
                continue        # the kernel does not count it (main() says why)
            rows.append(behaviour_row(f"{label}: {metric}", judge(d, k)))
    return rows


def probe_replay(client: Any, pair: str, trace: str, repeat: int, rng: random.Random,
                 log: Log) -> List[List[str]]:
    """The trace replayed on the design and on the kernel's caches, paired repeats."""
    p = PAIRS[pair]
    runs = []
    for r in range(repeat + 1):
        order = ["design", "kernel"]
        rng.shuffle(order)
        one: Dict[str, Any] = {}
        for side in order:
            if side == "design":
                one[side] = client.replay(trace, "slablab", design=p.design)
            else:
                one[side] = client.replay(trace, "native")
        runs.append(one)
    runs = runs[1:]
    log(f"behaviour: replay {os.path.basename(trace)}: {repeat} pairs done")
    label = f"replay {os.path.basename(trace)}"
    rows = []
    # (overhead_pct follows from peak pages, and as a difference of percentages has no
    # ratio worth an interval)
    for metric, key in (("peak pages", "peak_pages"), ("mean pages", "avg_pages")):
        d = [x["design"].get(key) for x in runs]
        k = [x["kernel"].get(key) for x in runs]
        rows.append(behaviour_row(f"{label}: {metric}", judge(d, k)))
    return rows


def _cost_storms(client: Any, p: Any, resident: bool) -> Dict[str, Any]:
    """One pair storm on the design and one on the kernel; ``resident``: the design's
    cache holds one object meanwhile, so the page the pairs use never empties."""
    name = "fid-cost"
    fig: Dict[str, Any] = {}
    client.cache_create(name, 256, design=p.design, **p.tunables)
    handle = None
    try:
        handle = client.obj_alloc(name, 1, 0) if resident else None
        for target in ("slablab", "native"):
            fig[target] = client.storm(target, "pair", cache=name, threads=1, ops=20_000,
                                       seed=1)
    finally:
        if handle is not None:
            client.obj_free(handle, 0)
        client.cache_destroy(name)
    return fig


def probe_cost(client: Any, pair: str, log: Log) -> List[List[str]]:
    """Instructions per pair under VM_ICOUNT (cycles = 2 × instructions there), the
    design against the kernel, one storm each (deterministic: no interval).

    SLOB gives a page back the moment its last block is freed, and slablab's heap holds
    only the lab's objects, where the kernel's holds every kmalloc of the system: on an
    empty heap each of the design's pairs takes and frees a page. Its comparable row is
    measured with one object of the cache resident (the kernel's heap always has
    tenants); the empty-heap row says what a lone cache costs."""
    rows = []
    p = PAIRS[pair]
    runs = [("pair 256 B: instructions per pair", False)]
    if p.design == "slob":
        runs = [("pair 256 B, one object resident: instructions per pair", True),
                ("pair 256 B, empty heap: instructions per pair", False)]
    for label, resident in runs:
        fig = _cost_storms(client, p, resident)
        d = (fig["slablab"].get("figures") or {}).get("cycles_per_pair")
        k = (fig["native"].get("figures") or {}).get("cycles_per_pair")
        di, ki = (d / 2 if d else None), (k / 2 if k else None)
        hooks_d = ", ".join((fig["slablab"].get("result") or {}).get("features") or []) \
            or "none"
        note = (f"design runs its statistics; both: {hooks_d}; kernel: its tracepoints "
                "(off), memcg and kfence checks")
        if p.design == "slob":
            # SLOB zeroes a block for __GFP_ZERO only, and so does the design
            note = (f"design runs its statistics; both: {hooks_d} but neither zeroes a block "
                    "for init_on_alloc; kernel: its tracepoints (off), memcg and kfence checks")
            if not resident:
                note = "design: a page allocated and freed per pair (its heap is empty); " + note
        rows.append([label, _num(di), _num(ki), f"{di / ki:.3f}" if di and ki else "-", note])
        log(f"cost: {label} done")
    return rows


def icount_mode() -> bool:
    """SLABLAB_ICOUNT=1: the VM runs under VM_ICOUNT=1 (scripts/fidelity.sh says so when it
    boots one), where cycles are 2 × instructions and a storm is deterministic."""
    return os.environ.get("SLABLAB_ICOUNT") == "1"


# ---------------------------------------------------------------- main

def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python3 -m slablab fidelity",
        description="Each design against the kernel allocator it models (docs/fidelity.md).")
    ap.add_argument("--pair", default="auto", choices=["auto", *PAIRS],
                    help="the design to check (auto: the one the running kernel's allocator "
                         "models)")
    ap.add_argument("--part", action="append", choices=["geometry", "behaviour", "cost"],
                    help="what to run (default: geometry and behaviour; cost under VM_ICOUNT)")
    ap.add_argument("--repeat", type=int, default=5,
                    help="paired repeats of every behaviour point (after one warm-up pair)")
    ap.add_argument("--trace", action="append", default=[],
                    help="a recorded trace to replay on both sides (slabctl record)")
    ap.add_argument("--json", dest="json_out", help="write the tables as JSON here")
    ap.add_argument("--seed", type=int, default=1, help="the order of the sides per repeat")
    a = ap.parse_args(list(sys.argv[1:] if argv is None else argv))
    if a.repeat < 2:
        ap.error("--repeat must be at least 2 (an interval needs two pairs)")
    pair = running_pair() if a.pair == "auto" else a.pair
    parts = a.part or (["geometry", "behaviour"] + (["cost"] if icount_mode() else []))
    import slablab
    client = slablab.Client()
    status = client.status()
    log: Log = lambda m: print(f"fidelity: {m}", file=sys.stderr, flush=True)  # noqa: E731
    p = PAIRS[pair]
    stats_kernel = slub_stats_kernel()
    head = (f"{p.design} design vs {p.allocator} on {status['kernel_release']}"
            f"{' (CONFIG_SLUB_STATS)' if stats_kernel else ''}, {status['nr_online_cpus']} cpus"
            f"{', tunables ' + ', '.join(f'{k}={v}' for k, v in p.tunables.items()) if p.tunables else ''}")
    print(head)
    rng = random.Random(a.seed)
    tables: Dict[str, List[List[str]]] = {}
    t0 = time.monotonic()
    if "geometry" in parts:
        if p.geometry:
            tables["geometry"] = geometry_rows(probe_geometry(client, pair, log), p.geometry)
        else:
            tables["geometry"] = [["(none)", "-", "-", "",
                                   "SLOB has no per-cache geometry to compare"]]
    if "behaviour" in parts:
        rows = probe_storms(client, pair, a.repeat, rng, log)
        for t in a.trace:
            rows += probe_replay(client, pair, t, a.repeat, rng, log)
        tables["behaviour"] = rows
    if "cost" in parts:
        tables["cost"] = probe_cost(client, pair, log)
    for name, rows in tables.items():
        print()
        print(table_text(f"{name} ({head})", rows), end="")
        if name == "behaviour" and pair in ("slub", "sheaves") and not stats_kernel:
            print(f"  (the counters need a kernel with CONFIG_SLUB_STATS: "
                  f"KERNEL={p.kernels[-1]}; make fidelity boots it)")
    said = []
    if "geometry" in tables and not p.geometry:
        said.append("geometry: none (SLOB has no per-cache geometry)")
    elif "geometry" in tables:
        bad = [r for r in tables["geometry"] if r[4].startswith("differs")]
        said.append(f"geometry {len(tables['geometry']) - len(bad)} of {len(tables['geometry'])}"
                    " rows identical")
    if "behaviour" in tables:
        words = [r[4].split(":")[0].split(" (")[0] for r in tables["behaviour"]]
        said.append("behaviour " + ", ".join(f"{words.count(w)} {w}" for w in
                                             ("same", "differs", "inconclusive")
                                             if words.count(w)))
    if "cost" in tables:
        said.append(f"cost {len(tables['cost'])} rows")
    print(f"\nfidelity summary: {pair}: {'; '.join(said)} ({time.monotonic() - t0:.0f} s)")
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(dict(pair=pair, kernel=status["kernel_release"], stats=stats_kernel,
                           head=head, tables=tables), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

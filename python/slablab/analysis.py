# SPDX-License-Identifier: GPL-2.0 OR MIT
"""slablab.analysis: runs as CSV rows and as a tidy pandas DataFrame.

One schema for every run of a storm, whoever ran it: ``slabctl compare --csv`` writes
:data:`RUN_COLUMNS` (the C++ library defines them: ``run_csv_columns()``), and a sweep
writes the same columns and then :data:`SWEEP_COLUMNS`, its own context. The first
four are the tidy keys, one row per run::

    experiment  variant                 x     repeat  ...  cycles_per_alloc ... stat_*
    batch       slablab                 64    0
    batch       SLUB                    64    0
    compare     native                        1             (slabctl compare --csv)

:func:`read_runs` reads either kind of file (or several) into a DataFrame with numeric
columns as numbers; :func:`compare_frame` makes the same frame from
:meth:`slablab.Client.compare`'s result; :func:`medians` and :func:`summary_text` are
what the plots and ``summary.txt`` show. docs/sweeps.md lists the columns.

How sure a difference is: :func:`paired_ratio_ci` is the interval ``slabctl compare``
uses (the geometric mean of per-repeat ratios with a Student-t interval on their logs,
and the paired t test's sd and p beside; libslabctl's, through ``_core``), and
:func:`ratios` gives every variant's ratio to a baseline with its 95% interval and a
verdict: "same" (no difference) only by equivalence, the interval inside 1 ± the A/A
noise floor or :data:`TOLERANCE`; "higher"/"lower" when it excludes 1; "inconclusive"
when it holds 1 and reaches past the margin — with the per-pair sd, the minimum
detectable effect and the repeats a decision needs (:func:`decision_needs`).
"""

import math
import os
from typing import (TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, NamedTuple, Optional,
                    Sequence, Tuple, Union)

from ._core import BUILD_COMMIT, RUN_CSV_COLUMNS, STAT_NAMES
from .shapes import CacheInfo, Compare, Storm, StormResults

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RUN_COLUMNS", "SWEEP_COLUMNS", "KEYS", "LIST_LOCK_STATS", "run_row",
           "sweep_row", "read_runs", "runs_frame", "compare_frame", "medians",
           "summary_text", "MAIN_FIGURES", "RatioCI", "paired_ratio_ci", "verdict",
           "within", "beyond", "inconclusive", "TOLERANCE", "ALPHA", "POWER", "mde",
           "repeats_needed", "decision_needs", "holm",
           "ratios", "ratios_text", "run_context", "BUILD_COMMIT"]

#: The runs CSV schema shared with ``slabctl compare --csv``.
RUN_COLUMNS: Sequence[str] = tuple(RUN_CSV_COLUMNS)
#: The tidy keys: one row per (experiment, variant, x, repeat).
KEYS = ("experiment", "variant", "x", "repeat")

#: A sweep's columns after :data:`RUN_COLUMNS`.
SWEEP_COLUMNS: Sequence[str] = (
    "date",             # ISO 8601 UTC time the storm ended
    "sweep",            # ISO 8601 UTC time the sweep started (one value per sweep)
    "grid",             # small | full
    "allocator",        # slablab | slub
    "slablab_version",  # (kernel_release, vm_cpus ... are run columns: run_context())
    "kernel_features",  # slablab.FEATURES names of the kernel, '+'-joined
    # the slablab cache before the storm (for SLUB runs: the cache SLUB's was made like)
    "cache_size", "cache_align", "cache_flag_names", "cache_cpu_partial",
    "cache_min_partial", "cache_order", "cache_fastpath", "cache_obj_stride",
    "cache_objs_per_slab",
    "thread_ops_min", "thread_ops_max", "thread_ns_min", "thread_ns_max",
    "tput_ops_per_sec",         # ops_done / the longest thread's time (docs/sweeps.md)
    "list_lock_ops_per_1000",   # node-list operations (LIST_LOCK_STATS) per 1000 ops
)

#: Node-list (list_lock) operations among the statistics: what per-cpu partial lists save.
LIST_LOCK_STATS = ("alloc_from_partial", "free_add_partial", "free_remove_partial",
                   "cpu_partial_node", "cpu_partial_drain")

#: Per experiment: the figures summary_text() shows (column, heading).
MAIN_FIGURES: Dict[str, List[tuple[str, str]]] = {
    "remote": [("tput_ops_per_sec", "ops/s")],
    "batch": [("cycles_per_alloc", "cyc/alloc"), ("cycles_per_free", "cyc/free")],
    "churn": [("fragmentation_pct", "fragmentation %"), ("overhead_pct", "overhead %")],
    "fastpath": [("alloc_fastpath_pct", "alloc fast %"), ("free_fastpath_pct", "free fast %"),
                 ("list_lock_ops_per_1000", "list ops/1k"), ("tput_ops_per_sec", "ops/s")],
}
X_NAMES = {"remote": "threads", "batch": "size", "churn": "size", "fastpath": "cpu_partial"}

Cell = Union[str, int, float, None]


def _cell(v: Any) -> str:
    """A CSV cell as ``slabctl compare --csv`` writes it: empty for None, 1/0 for
    booleans, floats with 6 significant digits."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.6g}"
    if isinstance(v, (list, tuple)):
        return "+".join(str(x) for x in v)
    return str(v)


def _settings(storm: Storm) -> Dict[str, Optional[bool]]:
    """init_on_alloc, init_on_free, hardened and random as the storm ran (as slabctl's
    storm_settings(): the cache's flags for a slablab cache, else the kernel's)."""
    res = storm["result"]
    features = res["features"] if res else None
    flags = res["cache_flags"] if res else None
    out: Dict[str, Optional[bool]] = dict(init_on_alloc=None, init_on_free=None,
                                          hardened=None, random=None)
    if features is not None:
        out["init_on_alloc"] = "init_on_alloc" in features
        out["init_on_free"] = "init_on_free" in features
    spec = storm["spec"]
    if spec is not None and spec["target"] == "slablab":
        if flags is not None:
            out["hardened"] = "hardened" in flags
            out["random"] = "random" in flags
    elif features is not None:
        out["hardened"] = "freelist_hardened" in features
        out["random"] = "freelist_random" in features
    return out


def run_context(status: Mapping[str, Any], cache: Optional[Mapping[str, Any]] = None,
                memory_mb: Optional[int] = None) -> Dict[str, Any]:
    """The columns that say how to rerun a row, as ``slabctl compare --csv`` fills them:
    kernel release and cpus (the module's status), memory (this machine's MemTotal), the
    VM's qemu -icount shift (``SLABLAB_VM_ICOUNT``, set by scripts/vm.sh; empty when the
    clocks run in real time), the design (the cache's; "slub" for the kernel's SLUB), the
    cache's tunables (``cache``: a cache dict, None for SLUB's runs) and the slablab
    commit this package was built from."""
    if memory_mb is None:
        try:
            with open("/proc/meminfo") as f:
                for line in f:
                    if line.startswith("MemTotal:"):
                        memory_mb = int(line.split()[1]) // 1024
                        break
        except OSError:
            pass
    tunables = ""
    if cache is not None:
        from .protocol import CACHE_TUNABLES
        tunables = " ".join(f"{t[0]}={cache[t[0]]}" for t in CACHE_TUNABLES
                            if t[0] in cache)
    return dict(kernel_release=status["kernel_release"], vm_cpus=status["nr_online_cpus"],
                vm_memory_mb=memory_mb, vm_icount=os.environ.get("SLABLAB_VM_ICOUNT", ""),
                design=cache.get("design", "slub") if cache is not None else "slub",
                tunables=tunables,
                slablab_commit=BUILD_COMMIT)


def run_row(storm: Storm, *, experiment: str, variant: str, x: Cell = None,
            repeat: int = 0, run: int = 1, set: str = "",
            context: Optional[Mapping[str, Any]] = None) -> Dict[str, str]:
    """One row of :data:`RUN_COLUMNS` from a storm dict, formatted as
    ``slabctl compare --csv`` formats it; ``context``: :func:`run_context`'s columns
    (and warmup, outlier)."""
    row: Dict[str, Any] = dict(experiment=experiment, variant=variant, x=x, repeat=repeat,
                               run=run, set=set, warmup=False, outlier=False)
    row.update(context or {})
    spec = storm["spec"]
    if spec is not None:
        for k in ("target", "pattern", "cache", "size", "threads", "cpus", "ops",
                  "duration_ms", "batch", "working_set", "ring", "seed", "max_live_bytes",
                  "thin", "rate", "producers"):
            row[k] = spec[k]  # type: ignore[literal-required]
        row["sizes"] = ",".join(str(e["size"]) if e["weight"] == 1
                                else f"{e['size']}:{e['weight']}" for e in spec["sizes"])
    row.update(id=storm["id"], state=storm["state"], interrupted=storm["interrupted"],
               page_size=storm["page_size"], **storm["progress"])
    res: Optional[StormResults] = storm["result"]
    for k in ("allocs", "frees", "alloc_cycles", "free_cycles", "pair_cycles",
              "loop_cycles_x1000", "failures", "remote_frees", "peak_pages", "peak_live_bytes", "meta_bytes",
              "steady_pages", "steady_live_bytes", "steady_samples", "rcu_samples",
              "cycles_per_sec"):
        row[k] = res[k] if res else 0  # type: ignore[literal-required]
    row["shrunk_pages"] = res["shrunk_pages"] if res else None
    row["shrunk_live_bytes"] = res["shrunk_live_bytes"] if res else None
    for k in ("rcu_waiting_end", "rcu_pages_peak"):
        row[k] = res[k] if res else None  # type: ignore[literal-required]
    if res:
        row["features"] = res["features_value"]
        row["cache_flags"] = res["cache_flags_value"]
        row["native_name"] = res["native_name"]
        row["thread_list"] = ";".join(f"{t['cpu']}:{t['ops']}:{t['cycles']}:{t['ns']}"
                                      for t in res["threads"])
    row.update(_settings(storm))
    row.update(storm["figures"])
    stats = res["stats"] if res else None
    for name in STAT_NAMES:
        row["stat_" + name] = stats[name] if stats else None
    return {c: _cell(row.get(c)) for c in RUN_COLUMNS}


def sweep_row(storm: Storm, cache: Optional[CacheInfo],
              meta: Mapping[str, Any]) -> Dict[str, str]:
    """The :data:`SWEEP_COLUMNS` of a sweep's row: ``meta`` (date, sweep, grid,
    allocator, kernel ...), the cache's settings, the threads' spread and the
    throughput and list-lock figures."""
    row: Dict[str, Any] = dict(meta)
    if cache is not None:
        for k in ("size", "align", "cpu_partial", "min_partial", "order", "fastpath",
                  "obj_stride", "objs_per_slab"):
            row["cache_" + k] = cache[k]  # type: ignore[literal-required]
        row["cache_flag_names"] = cache["flags"]
    res = storm["result"]
    threads = res["threads"] if res else []
    if threads:
        row["thread_ops_min"] = min(t["ops"] for t in threads)
        row["thread_ops_max"] = max(t["ops"] for t in threads)
        row["thread_ns_min"] = min(t["ns"] for t in threads)
        row["thread_ns_max"] = max(t["ns"] for t in threads)
    # Throughput from the threads' own clocks: the storm's elapsed_ns ends when the
    # controller's 50 ms sampling sleep does, which dwarfs a short storm.
    done = storm["progress"]["ops_done"]
    longest = max((t["ns"] for t in threads), default=0)
    if done and longest:
        row["tput_ops_per_sec"] = done * 1e9 / longest
    stats = res["stats"] if res else None
    if stats and done:
        row["list_lock_ops_per_1000"] = (sum(stats.get(k, 0) for k in LIST_LOCK_STATS)
                                         * 1000 / done)
    return {c: _cell(row.get(c)) for c in SWEEP_COLUMNS}


# ---------------------------------------------------------------- DataFrames

_TEXT = {"experiment", "variant", "set", "target", "pattern", "cache", "sizes", "cpus",
         "design", "tunables", "slablab_commit", "vm_icount",
         "state", "native_name", "thread_list", "date", "sweep", "grid", "allocator",
         "kernel_release", "slablab_version", "kernel_features", "cache_fastpath",
         "cache_flag_names"}


def _typed(df: "pd.DataFrame") -> "pd.DataFrame":
    """Text columns as str ("" for empty), every other column numeric (NaN for empty)."""
    import pandas as pd
    for c in df.columns:
        if c in _TEXT:
            df[c] = df[c].fillna("").astype(str)
        else:
            df[c] = pd.to_numeric(df[c], errors="coerce")
    return df


def runs_frame(rows: Iterable[Mapping[str, Any]]) -> "pd.DataFrame":
    """A tidy DataFrame from row dicts (:func:`run_row`, plus :func:`sweep_row`)."""
    import pandas as pd
    rows = list(rows)
    cols = list(RUN_COLUMNS) + [c for c in SWEEP_COLUMNS if any(c in r for r in rows)]
    return _typed(pd.DataFrame([{c: r.get(c, "") for c in cols} for r in rows],
                               columns=cols).replace("", float("nan")))


def read_runs(paths: Union[str, "os.PathLike[str]", Iterable[Union[str, "os.PathLike[str]"]]]
              ) -> "pd.DataFrame":
    """Read runs CSV files (sweeps' ``sweep.csv``, ``slabctl compare --csv``) into one
    tidy DataFrame: one row per run; columns missing from a file are NaN."""
    import pandas as pd
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    frames = [pd.read_csv(p, dtype=str, keep_default_na=False, na_values=[""])
              for p in paths]
    if not frames:
        raise ValueError("read_runs: no file given")
    df = pd.concat(frames, ignore_index=True, sort=False)
    missing = [c for c in KEYS if c not in df.columns]
    if missing:
        raise ValueError(f"read_runs: not a runs CSV: no column {', '.join(missing)}")
    return _typed(df)


def compare_frame(result: Compare) -> "pd.DataFrame":
    """:meth:`slablab.Client.compare`'s result as the frame ``slabctl compare --csv``
    would have written: experiment "compare", variant the label."""
    threads = {v["threads"] for v in result["variants"]}
    rows = []
    for i, r in enumerate(result["runs"]):
        v = result["variants"][r["variant"]]
        rows.append(run_row(r["storm"], experiment="compare", variant=r["label"],
                            x=v["threads"] if len(threads) > 1 else None,
                            repeat=r["repeat"], run=i + 1, set=v["set"] or ""))
    return runs_frame(rows)


def medians(df: "pd.DataFrame", figure: str, experiment: Optional[str] = None
            ) -> "pd.DataFrame":
    """Median, min, max and count of a figure per experiment, variant and x (in the
    order the variants first appear)."""
    d = df if experiment is None else df[df["experiment"] == experiment]
    d = d[d[figure].notna()]
    g = d.groupby(["experiment", "variant", "x"], sort=False, dropna=False)[figure]
    out = g.agg(["median", "min", "max", "count"]).reset_index()
    order = {v: i for i, v in enumerate(dict.fromkeys(d["variant"]))}
    return out.sort_values(["experiment", "variant", "x"],
                           key=lambda s: s.map(order) if s.name == "variant" else s,
                           kind="stable").reset_index(drop=True)


def fmt(v: Any) -> str:
    """A figure for a table: 1.23M, 45k, 12.3; '-' for none."""
    if v is None or v == "":
        return "-"
    x = float(v)
    if math.isnan(x):
        return "-"
    if abs(x) >= 1e6:
        return f"{x / 1e6:.2f}M"
    if abs(x) >= 1e4:
        return f"{x / 1e3:.0f}k"
    return f"{x:.1f}"


def summary_text(df: "pd.DataFrame") -> str:
    """A text table of medians per experiment, variant and x (``summary.txt``)."""
    out = []
    for exp, figs in MAIN_FIGURES.items():
        d = df[df["experiment"] == exp]
        if d.empty:
            continue
        out.append(f"\n{exp}:")
        out.append(f"  {'variant':28s} {X_NAMES[exp]:>11s} "
                   + " ".join(f"{h:>12s}" for _, h in figs))
        cols = [c for c, _ in figs if c in d.columns]
        g = d.groupby(["variant", "x"], sort=False, dropna=False)[cols].median()
        for variant in dict.fromkeys(d["variant"]):
            part = g.loc[variant].sort_index(na_position="last")
            for x, meds in part.iterrows():
                xs = "-" if isinstance(x, float) and math.isnan(x) else f"{x:g}"
                cells = [f"{fmt(meds.get(c)):>12s}" for c, _ in figs]
                out.append(f"  {variant:28s} {xs:>11s} " + " ".join(cells))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- confidence intervals

#: The equivalence margin when no A/A floor is given: an interval inside 1 ± 5% is "no
#: difference" (libslabctl's kDefaultTolerance, slabctl compare's default).
TOLERANCE = 0.05
#: The two-sided level and the power the minimum detectable effect is stated at.
ALPHA = 0.05
POWER = 0.80


class RatioCI(NamedTuple):
    """A ratio B/A over paired repeats and its confidence interval (``level``, 95%), with
    the paired t test beside: ``sd``, the sample standard deviation of the log ratios
    log(b_i/a_i), and ``p``, the two-sided p-value of a mean log ratio of 0. An interval
    made by hand (``RatioCI(n, ratio, lo, hi)``) has them None: :meth:`log_sd` and
    :meth:`p_value` then recover them from its 95% t interval (exactly: the interval is
    mean ± t(0.975, n-1) sd/sqrt(n) on the logs)."""
    n: int
    ratio: float
    lo: float
    hi: float
    sd: Optional[float] = None
    p: Optional[float] = None

    def half_width(self) -> float:
        return (self.hi - self.lo) / 2 / self.ratio if self.ratio > 0 else 0.0

    def log_sd(self) -> float:
        """The per-pair sd of the log ratios."""
        if self.sd is not None:
            return self.sd
        if self.n < 2 or not (self.hi > self.lo > 0):
            return 0.0
        from ._core import student_t_quantile
        q = student_t_quantile(0.975, self.n - 1)
        return (math.log(self.hi) - math.log(self.lo)) / 2 / q * math.sqrt(self.n)

    def p_value(self) -> float:
        """The two-sided p-value of no difference (paired t test on the log ratios)."""
        if self.p is not None:
            return self.p
        sd = self.log_sd()
        if sd == 0 or self.ratio <= 0:
            return 1.0 if self.ratio == 1 else 0.0
        from ._core import student_t_cdf
        t = abs(math.log(self.ratio)) / (sd / math.sqrt(self.n))
        return min(1.0, 2 * (1 - student_t_cdf(t, self.n - 1)))


def paired_ratio_ci(a: Sequence[Optional[float]], b: Sequence[Optional[float]], *,
                    seed: int = 0x5ab1ab, resamples: int = 4000, level: float = 0.95,
                    min_pairs: int = 3) -> Optional[RatioCI]:
    """The ratio B/A of paired samples (``a[i]``, ``b[i]`` measured back to back) as the
    geometric mean of ``b[i]/a[i]``, and its Student-t interval on the mean of the log
    ratios: ``slabctl compare``'s own function (libslabctl's ``ratio_interval()``, through
    ``_core``), so both say the same. Pairs with None, NaN or values <= 0 are left out;
    None with fewer than ``min_pairs`` (3) pairs. A constant ratio gives exactly (r, r).

    Why t and not a bootstrap: at the few repeats we run, a percentile bootstrap's "95%"
    covers the true ratio ~76% of the time at n=3; the t interval is exact for log-normal
    ratios and near 95% for the other shapes tests/host/test_coverage.py simulates
    (docs/experiments.md). ``seed`` and ``resamples`` are accepted and ignored (the
    interval has no randomness), so that older callers keep working."""
    from ._core import ratio_test

    def num(v: Optional[float]) -> float:
        return math.nan if v is None else float(v)
    r = ratio_test([num(x) for x in a], [num(y) for y in b], level, min_pairs)
    return None if r is None else RatioCI(*r)


class SpreadTest(NamedTuple):
    """Do B's runs scatter more, or less, than A's? ``mad_a``, ``mad_b``: each variant's
    mean absolute deviation from its own median (descriptive: no interval, see
    :func:`spread_test`); ``p_a_wider``, ``p_b_wider``: the one-sided permutation
    p-values of A's (B's) being the wider."""
    n_a: int
    n_b: int
    mad_a: float
    mad_b: float
    p_a_wider: float
    p_b_wider: float


def _mad_rows(x: "Any", split: int) -> "Any":
    """Mean absolute deviation from the median of columns [0, split) and [split, n) of
    each row of x (numpy): the two groups' spreads, for every permutation at once."""
    import numpy as np
    a, b = x[:, :split], x[:, split:]
    da = np.abs(a - np.median(a, axis=1, keepdims=True)).mean(axis=1)
    db = np.abs(b - np.median(b, axis=1, keepdims=True)).mean(axis=1)
    return da, db


def spread_test(a: Sequence[float], b: Sequence[float], *, permutations: int = 4000,
                seed: int = 0x5ab1ab, min_runs: int = 3) -> Optional[SpreadTest]:
    """Brown and Forsythe's spread statistic (the mean absolute deviation from the median:
    a few slow runs raise it as they raise the sd, without one run deciding it) compared
    by a permutation test: the variants ran interleaved, so under no difference their
    runs are exchangeable, and the p-value is the share of random re-splits of the pooled
    runs whose spread difference is at least the observed one (``permutations`` of them,
    seeded: the same p on every run; the observed split counts as one).

    Why a test and not an interval: seed 000's sd and max were made by rare slow runs
    (a tail), and with a handful of runs an interval for a spread covers a rare tail's
    effect far less often than it says (simulated here, 2026-12-06: Welch's t interval on
    these deviations held the truth 65% of the time when 10% of one side's runs were twice
    as slow, n = 10, and 87% for exponential run times); a permutation test's
    error rate is exact whatever the shape. So a verdict on spread says the direction,
    or "inconclusive" with the p-values, and the sizes are printed as descriptions.
    None with fewer than ``min_runs`` runs on a side."""
    import numpy as np

    xa = [float(v) for v in a if v is not None and math.isfinite(float(v))]
    xb = [float(v) for v in b if v is not None and math.isfinite(float(v))]
    if len(xa) < min_runs or len(xb) < min_runs:
        return None
    pooled = np.array(xa + xb)
    da, db = _mad_rows(pooled[None, :], len(xa))
    observed = float(db[0] - da[0])
    rng = np.random.default_rng(seed)
    perms = pooled[np.argsort(rng.random((permutations, len(pooled))), axis=1)]
    pa, pb = _mad_rows(perms, len(xa))
    diff = pb - pa
    # a tie with the observed difference counts for both sides (conservative)
    eps = 1e-12 * max(1.0, abs(observed))
    p_b = (1 + int((diff >= observed - eps).sum())) / (permutations + 1)
    p_a = (1 + int((diff <= observed + eps).sum())) / (permutations + 1)
    return SpreadTest(len(xa), len(xb), float(da[0]), float(db[0]), p_a, p_b)


def slowest_runs_test(a: Sequence[float], b: Sequence[float],
                      k: Optional[int] = None) -> Tuple[int, int, float, float]:
    """Are A's slowest runs slower than B's? Of the ``k`` slowest runs of both (default:
    the slowest fifth, at least 4), how many are A's, and the exact one-sided p-values of so
    many or more (A's tail heavier) and so few or fewer (B's heavier) when the runs are
    exchangeable (the hypergeometric distribution: the variants ran interleaved, so under
    no difference any k of the runs are equally likely to be the slowest). The maximum
    of a handful of runs has no useful interval of its own; this asks its question —
    does one variant own the slow tail — with an exact error rate.

    Returns (A's runs among the k slowest, k, p A heavier, p B heavier)."""
    xa = [float(v) for v in a if v is not None and math.isfinite(float(v))]
    xb = [float(v) for v in b if v is not None and math.isfinite(float(v))]
    n = len(xa) + len(xb)
    k = min(max(4, n // 5) if k is None else k, n)
    pooled = sorted([(x, 0) for x in xa] + [(x, 1) for x in xb], reverse=True)
    top: int = k
    hits = sum(1 for _, side in pooled[:top] if side == 0)

    def pmf(i: int) -> float:
        return math.comb(len(xa), i) * math.comb(len(xb), top - i) / math.comb(n, top)
    p_a = sum(pmf(i) for i in range(hits, min(top, len(xa)) + 1))
    p_b = sum(pmf(i) for i in range(max(0, top - len(xb)), hits + 1))
    return hits, top, min(p_a, 1.0), min(p_b, 1.0)


def within(ci: RatioCI, lo: float, hi: float) -> bool:
    """The whole interval lies inside [lo, hi] (an equivalence test at the interval's
    level: the true ratio is within the band)."""
    return ci.lo >= lo and ci.hi <= hi


def beyond(ci: RatioCI, lo: float, hi: float) -> bool:
    """The whole interval lies outside [lo, hi], on one side."""
    return ci.lo > hi or ci.hi < lo


def mde(ci: RatioCI, alpha: float = ALPHA, power: float = POWER) -> Optional[float]:
    """The minimum detectable effect (relative: 0.04 for ±4%) of the interval's pairs: the
    true ratio's distance from 1 that a two-sided paired t test at ``alpha`` finds with
    probability ``power`` at this per-pair sd and n (libslabctl's
    min_detectable_log_effect(): (t(1 - alpha/2, n-1) + t(power, n-1)) sd / sqrt(n) on the
    log ratios). None below 2 pairs."""
    from ._core import min_detectable_log_effect
    m = min_detectable_log_effect(ci.log_sd(), ci.n, alpha, power)
    return None if math.isnan(m) else math.expm1(m)


def repeats_needed(ci: RatioCI, effect: float, alpha: float = ALPHA,
                   power: float = POWER) -> Optional[int]:
    """The fewest pairs (at least 3) whose minimum detectable effect is ``effect``
    (relative, > 0) at this interval's per-pair sd; None when over 100000 would be."""
    from ._core import repeats_to_detect
    if not effect > 0:
        return None
    return repeats_to_detect(ci.log_sd(), math.log1p(abs(effect)), alpha, power)


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"~{seconds:.0f} s"
    if seconds < 7200:
        return f"~{seconds / 60:.0f} min"
    return f"~{seconds / 3600:.1f} h"


def decision_needs(ci: RatioCI, target: float,
                   seconds_per_repeat: Optional[float] = None) -> str:
    """What an undecided interval lacks, in slabctl compare's words: 'sd 3.1%/pair, MDE
    ±4.0% at n=7 (80% power, 5% two-sided); 25 repeats to tell ±5% (~3 min of runs)' —
    the per-pair sd of the log ratios, the minimum detectable effect at this n, and the
    repeats whose MDE is ``target`` (the decision's margin), with the machine time they
    take when the time of one repeat is known."""
    out = f"sd {100 * math.expm1(ci.log_sd()):.1f}%/pair"
    m = mde(ci)
    if m is not None:
        out += f", MDE ±{100 * m:.1f}% at n={ci.n} (80% power, 5% two-sided)"
    if not target > 0:
        return out
    need = repeats_needed(ci, target)
    v = 100 * target
    tgt = f"{v:.0f}%" if abs(v - round(v)) < 0.05 else f"{v:.1f}%"
    if need is None:
        return out + f"; over 100000 repeats to tell ±{tgt}"
    out += f"; {need} repeats to tell ±{tgt}"
    if seconds_per_repeat and seconds_per_repeat > 0:
        out += f" ({_duration(need * seconds_per_repeat)} of runs)"
    return out


def inconclusive(ci: RatioCI, tolerance: float, effect: Optional[float] = None,
                 target: Optional[float] = None,
                 seconds_per_repeat: Optional[float] = None) -> str:
    """Why an interval neither lies inside a band of ±``tolerance`` nor outside it, in
    words: ``inconclusive: noise ±X% > effect Y%`` (X the interval's half width, Y the
    ``effect`` we look for, when given and smaller than X), else ``inconclusive: noise ±X%
    > tolerance T%``, else (a narrow interval across the band's edge) ``inconclusive: +R%
    at the tolerance's edge``; then what a decision would need (:func:`decision_needs`,
    at ``target``, default the tolerance). slablab.fidelity and slablab.experiments both
    say it so."""
    noise = 100 * ci.half_width()
    if effect is not None and noise > 100 * abs(effect):
        head = f"inconclusive: noise ±{noise:.1f}% > effect {100 * abs(effect):.1f}%"
    elif noise > 100 * tolerance:
        head = f"inconclusive: noise ±{noise:.1f}% > tolerance {100 * tolerance:.0f}%"
    else:
        head = f"inconclusive: {100 * (ci.ratio - 1):+.1f}% at the tolerance's edge"
    return head + "; " + decision_needs(ci, tolerance if target is None else target,
                                        seconds_per_repeat)


def verdict(ci: Optional[RatioCI], noise_floor: float = 0.0,
            tolerance: float = TOLERANCE) -> str:
    """slabctl compare's verdict (libslabctl's verdict()): 'same' only by equivalence,
    the interval inside 1 ± the margin (``noise_floor``, the A/A floor, when given, else
    ``tolerance``); 'higher' or 'lower' when it excludes 1; 'inconclusive' when it holds
    1 and reaches past the margin (an interval that merely holds 1 may be too wide to see
    anything); 'none' without an interval."""
    if ci is None:
        return "none"
    margin = noise_floor if noise_floor > 0 else tolerance
    if ci.lo >= 1 - margin and ci.hi <= 1 + margin:
        return "same"
    if ci.lo <= 1.0 <= ci.hi:
        return "inconclusive"
    return "higher" if ci.lo > 1.0 else "lower"


def holm(pvalues: Sequence[float]) -> List[float]:
    """Holm's step-down adjustment of a family of p-values (in their order): the i-th
    smallest of m is multiplied by m - i + 1 (i from 1), capped at 1 and made monotone
    (never below an adjusted p before it). It holds the chance of any false "significant"
    in the family at the level, whatever the tests' dependence."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def measured(df: "pd.DataFrame") -> "pd.DataFrame":
    """The runs that count: ``df`` without its warm-up rows (``warmup`` 1; a frame
    without the column is all measured)."""
    if "warmup" in df.columns:
        return df[df["warmup"].fillna(0) == 0]
    return df


def ratios(df: "pd.DataFrame", figure: str, baseline: Optional[str] = None,
           noise_floor: float = 0.0, seed: int = 0x5ab1ab,
           tolerance: float = TOLERANCE) -> "pd.DataFrame":
    """Each variant's ratio to ``baseline`` (default: the first variant) per experiment
    and x, paired by repeat, with its 95% interval, the paired test's per-pair sd (of the
    log ratios) and p, and :func:`verdict` (equivalence within ``noise_floor``, else
    ``tolerance``). Warm-up rows are left out. Columns: experiment, x, variant, baseline,
    n, ratio, lo, hi, sd, p, verdict."""
    import pandas as pd
    d = measured(df[df[figure].notna()])
    out = []
    for (exp, x), g in d.groupby(["experiment", "x"], sort=False, dropna=False):
        variants = list(dict.fromkeys(g["variant"]))
        base = baseline if baseline is not None else variants[0]
        a = g[g["variant"] == base].groupby("repeat")[figure].median()
        for v in variants:
            if v == base:
                continue
            b = g[g["variant"] == v].groupby("repeat")[figure].median()
            common = a.index.intersection(b.index)
            ci = paired_ratio_ci(list(a[common]), list(b[common]), seed=seed)
            out.append(dict(experiment=exp, x=x, variant=v, baseline=base,
                            n=ci.n if ci else len(common),
                            ratio=ci.ratio if ci else math.nan,
                            lo=ci.lo if ci else math.nan, hi=ci.hi if ci else math.nan,
                            sd=ci.log_sd() if ci else math.nan,
                            p=ci.p_value() if ci else math.nan,
                            verdict=verdict(ci, noise_floor, tolerance)))
    return pd.DataFrame(out, columns=["experiment", "x", "variant", "baseline", "n", "ratio",
                                      "lo", "hi", "sd", "p", "verdict"])


def ratios_text(df: "pd.DataFrame", noise_floor: float = 0.0,
                tolerance: float = TOLERANCE) -> str:
    """Per experiment of :data:`MAIN_FIGURES`: every variant's ratio to the first one,
    with its 95% CI and verdict (``summary.txt``): "no difference (within ±5%)" only by
    equivalence, "inconclusive: sd, MDE, repeats" where the interval holds 1 and reaches
    past the margin (``noise_floor``, else ``tolerance``)."""
    margin = noise_floor if noise_floor > 0 else tolerance
    out = []
    for exp, figs in MAIN_FIGURES.items():
        d = df[df["experiment"] == exp]
        if d.empty:
            continue
        for col, head in figs:
            if col not in d.columns:
                continue
            r = ratios(d, col, noise_floor=noise_floor, tolerance=tolerance)
            if r.empty:
                continue
            out.append(f"\n{exp}: {head}, ratio to {r['baseline'].iloc[0]} [95% CI]:")
            for _, row in r.iterrows():
                xs = "-" if isinstance(row["x"], float) and math.isnan(row["x"]) \
                    else f"{row['x']:g}"
                ci = (f"{row['ratio']:.3f} [{row['lo']:.3f}, {row['hi']:.3f}]"
                      if not math.isnan(row["ratio"]) else "-")
                mv = 100 * margin
                mt = f"{mv:.0f}" if abs(mv - round(mv)) < 0.05 else f"{mv:.1f}"
                word = {"same": f"no difference (within ±{mt}%)",
                        "none": "too few pairs"}.get(row["verdict"], row["verdict"])
                if row["verdict"] == "inconclusive":
                    ci_ = RatioCI(int(row["n"]), row["ratio"], row["lo"], row["hi"],
                                  row["sd"], row["p"])
                    word = "inconclusive: " + decision_needs(ci_, margin)
                out.append(f"  {row['variant']:28s} {xs:>11s}  {ci:28s} {word}")
    return "\n".join(out) + "\n"

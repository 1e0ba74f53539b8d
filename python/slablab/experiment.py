# SPDX-License-Identifier: GPL-2.0 OR MIT
"""python3 -m slablab experiment NAME|all [--full] [--repeat N] [--warmup N] [--order-seed N]
                                  [--out DIR]

The seed experiments (docs/experiments.md): each reruns the argument of one of the
design discussions in ``shared/seeds/`` (:mod:`slablab.seeds`) on this kernel, writes a
tidy CSV (one row per storm), plots (PNG + SVG) and prints its table in the seed's shape
with the seed's published figures beside ours, and a one-line verdict on the shape: our
ratio with its 95% Student-t interval, judged against the seed's change ± a tolerance.

Every repeat runs the variants in a random order (:meth:`Lab.interleaved`, seeded:
``--order-seed`` reruns the same orders), so that a drift of the machine (a warming
cache, a neighbour's load, TCG's translation cache filling) spreads over every variant
instead of favouring the one that always runs first; the first ``--warmup`` repeats
(default 1) run and are written with ``warmup`` set, and the tables leave them out.

Rows that need a design (or a tunable, or kmalloc on a design) this module does not have
are printed as ``missing: ...``: what exists is read from the generated protocol tables
(:mod:`slablab.protocol`), so they run once the designs are merged.

The table, verdict and availability functions are pure (a DataFrame in, text out):
tests/host/test_experiment.py runs them without a kernel.
"""

import argparse
import csv
import datetime
import errno
import json
import math
import os
import random
import re
import sys
import time
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, NamedTuple,
                    Optional, Sequence, Tuple)

from . import seeds as S
from .analysis import (LIST_LOCK_STATS, RUN_COLUMNS, RatioCI, beyond, decision_needs, holm,
                       inconclusive, paired_ratio_ci, run_context, run_row, slowest_runs_test,
                       spread_test, within)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["EXPERIMENTS", "EXP_COLUMNS", "Column", "availability", "columns_for",
           "describe", "pct", "NO_CHANGE", "TOLERANCE", "AA", "aa_floor", "aa_line", "base_of",
           "without_twins", "shape_verdict", "direction_verdict", "verdict_line",
           "PRIMARY", "rank_verdicts",
           "list_ops_per_1000", "mechanism_line", "run_live_hackbench", "table_live",
           "run_live_fio", "table_live_fio", "boot_plan", "tbench_result",
           "run_tbench_boot", "run_tbench_boots", "import_tbench_boots", "table_live_tbench",
           "cpu_partial_files", "hackbench_seconds",
           "paired_ci", "tables", "run_experiment", "publication_dir", "write_publication",
           "main"]

Log = Callable[[str], Any]

#: Columns after :data:`slablab.analysis.RUN_COLUMNS` in an experiment's runs.csv.
EXP_COLUMNS: Sequence[str] = (
    "table_row",        # what the storm measures in the table (e.g. cache, kmalloc)
    "date",             # ISO 8601 UTC time the storm ended
    "scale",            # small | full
    "page_policy",      # the lab's kmalloc page policy during the storm
    "kmalloc_design",   # the design of slablab's kmalloc classes (kmalloc targets)
    "tput_ops_per_sec",  # ops_done / the longest thread's time
    "run_ms",           # the longest thread's time
    "used_kb",          # pages at steady state (else at the peak) in kB
    "live_kb",          # live bytes at that moment in kB
    "mem_total_kb", "mem_free_kb",  # /proc/meminfo: MemTotal, MemFree's lowest in the storm
    "cache_order", "cache_min_partial", "cache_cpu_partial",
    "cpu_model",        # /proc/cpuinfo's model name (qemu TCG: "QEMU Virtual CPU ...")
    "slot",             # the variant's place in the seed's table (the storms of a repeat
                        # run in a random order: Lab.interleaved())
)

MISSING_DESIGN = "missing: design not in this module"
MISSING_KMALLOC = "missing: kmalloc on a design not in this module"
#: SLAB's per-cpu arrays shrunk to one object, the nearest to 2.4.9's UP kernel (no
#: arrays: every call went to the slab lists), which seed-001 timed.
ARRAYS_2_4_UP = {"limit": 1, "batchcount": 1, "shared": 0}
KERNEL = "kernel SLUB"


# ---------------------------------------------------------------- availability

class Avail(NamedTuple):
    """What this module offers, read from the generated protocol tables."""
    designs: Tuple[str, ...]
    tunables: Tuple[str, ...]
    kmalloc_design: bool


def availability(protocol: Any = None) -> Avail:
    """Designs (the design enum), cache tunables, and whether kmalloc's classes can be
    given a design (a command or lab attribute naming kmalloc besides the page policy)."""
    if protocol is None:
        from . import protocol as p
        protocol = p
    designs = tuple(n[len("SLABLAB_DESIGN_"):].lower() for n in protocol.ENUMS["slablab_design"]
                    if not n.startswith("__"))
    tunables = tuple(t[0] for t in protocol.CACHE_TUNABLES)
    cmds = [c for c in protocol.COMMANDS if "kmalloc" in c]
    lab = [a for a in protocol.REQUEST_ATTRIBUTES.get("slablab", [])
           if "kmalloc" in a and a != "kmalloc-page-policy"]
    return Avail(designs, tunables, bool(cmds or lab))


class Column(NamedTuple):
    """A variant of an experiment: a design with tunables, or the kernel's SLUB
    (``design`` None); ``missing`` says why it cannot run here (None: it can)."""
    label: str
    design: Optional[str]
    tunables: Mapping[str, int]
    missing: Optional[str]


def column(label: str, design: Optional[str], tunables: Mapping[str, int], avail: Avail,
           kmalloc: bool = False) -> Column:
    """A column, marked missing when its design or a tunable is not in this module, or
    (``kmalloc``) it needs kmalloc on a design other than slub and there is none."""
    missing = None
    if design is not None and design not in avail.designs:
        missing = MISSING_DESIGN
    elif any(t not in avail.tunables for t in tunables):
        missing = "missing: tunable " + ",".join(t for t in tunables
                                                 if t not in avail.tunables) \
            + " not in this module"
    elif kmalloc and design not in (None, "slub") and not avail.kmalloc_design:
        missing = MISSING_KMALLOC
    return Column(label, design, dict(tunables), missing)


def columns_for(experiment: str, avail: Avail) -> List[Column]:
    """The columns (designs) an experiment compares, each marked available or missing."""
    if experiment == "seed-001":
        return [column("slab lists=1", "slab", {"lists": 1}, avail),
                column("slab lists=3", "slab", {"lists": 3}, avail),
                column("2.4 UP lists=1", "slab", {"lists": 1, **ARRAYS_2_4_UP}, avail),
                column("2.4 UP lists=3", "slab", {"lists": 3, **ARRAYS_2_4_UP}, avail),
                column("slub", "slub", {}, avail),
                column("sheaves", "sheaves", {}, avail),
                column(KERNEL, None, {}, avail)]
    if experiment == "seed-003":
        return [column(f"slob lists={n}", "slob", {"lists": n}, avail, kmalloc=True)
                for n in (1, 2, 3)] + [
                # lists said: the kmalloc classes keep the last lists (slob's 2 is no
                # slab scheme)
                column("slab", "slab", {"lists": 3}, avail, kmalloc=True),
                column("slub", "slub", {}, avail, kmalloc=True),
                column("sheaves", "sheaves", {}, avail, kmalloc=True),
                column(KERNEL, None, {}, avail, kmalloc=True)]
    raise ValueError(experiment)


# ---------------------------------------------------------------- statistics, verdicts

class Described(NamedTuple):
    n: int
    min: float
    max: float
    avg: float
    sd: float


def describe(values: Iterable[float]) -> Optional[Described]:
    """min, max, average and sample standard deviation (as the seeds report), NaN left
    out; None for no value."""
    v = [float(x) for x in values if x is not None and not math.isnan(float(x))]
    if not v:
        return None
    avg = sum(v) / len(v)
    sd = math.sqrt(sum((x - avg) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else 0.0
    return Described(len(v), min(v), max(v), avg, sd)


def pct(ratio: float) -> str:
    """A ratio as a signed change: 1.07 -> '+7.0%'."""
    return f"{(ratio - 1) * 100:+.1f}%"


#: A seed's change smaller than this is "no change" (its row says the variants are alike),
#: where the seed states no uncertainty of its own; where it does, a change within it is
#: one the seed cannot tell from none (:func:`shape_verdict`).
NO_CHANGE = 0.01
#: How far a difference may be from none and still be "no difference" (percentage points
#: of the ratio), and from the seed's change and still agree with it — at most: for a seed
#: whose change is under twice this, half the seed's change is the margin on both sides
#: (:func:`shape_verdict`, docs/experiments.md).
TOLERANCE = 0.05

#: The A/A twin: every experiment runs its table's first variant a second time in each
#: repeat, under this suffix, in the same random order as the others. The twin's ratio to
#: its original is the run's own noise floor (:func:`aa_floor`), printed under every
#: table: a verdict's effect inside it is noise of this machine, not of the designs.
AA = " (A/A twin)"
#: The figure (and the rows) each experiment's A/A floor is measured on: its verdicts'.
AA_FIGURE: Dict[str, Tuple[str, Dict[str, Any]]] = {
    "seed-000": ("run_ms", {}), "seed-001": ("cycles_per_alloc", {"table_row": "cache"}),
    "seed-002": ("tput_ops_per_sec", {}), "seed-003": ("used_kb", {}),
    "seed-004": ("tput_ops_per_sec", {})}


def base_of(variant: str) -> str:
    """The variant an A/A twin repeats ('slub (A/A twin)' -> 'slub'); others as they are."""
    return variant[:-len(AA)] if variant.endswith(AA) else variant


def without_twins(df: "pd.DataFrame") -> "pd.DataFrame":
    """The runs without the A/A twin's (the tables and plots show the seed's variants)."""
    if df.empty or "variant" not in df.columns:
        return df
    return df[~df["variant"].astype(str).str.endswith(AA)]


def aa_floor(name: str, df: "pd.DataFrame", figure: Optional[str] = None
             ) -> Optional[RatioCI]:
    """The twin's ratio to its original on the experiment's verdict figure (``figure``:
    another one, e.g. a live row's), paired by repeat and table point (row, x) and pooled
    over the points, with its 95% interval; None without twin runs (or fewer than 3
    pairs)."""
    fig, where = (figure, {}) if figure else AA_FIGURE[name]
    d = df[df["experiment"] == name] if "experiment" in df.columns else df
    for k, v in where.items():
        d = d[d[k] == v]
    if fig not in d.columns or d.empty:
        return None
    d = d[d[fig].notna()]
    d = d.assign(x=d["x"].fillna(-1) if "x" in d.columns else -1,
                 table_row=d["table_row"].fillna("") if "table_row" in d.columns else "")
    twins = d[d["variant"].astype(str).str.endswith(AA)]
    if twins.empty:
        return None
    keys = ["repeat", "table_row", "x"]
    a = d[d["variant"] == base_of(str(twins["variant"].iloc[0]))].groupby(keys)[fig].median()
    b = twins.groupby(keys)[fig].median()
    common = a.index.intersection(b.index)
    return ratio_ci(list(a[common]), list(b[common]))


def aa_line(name: str, df: "pd.DataFrame", figure: Optional[str] = None,
            source: str = "runs.csv") -> str:
    """The A/A floor's line under a table: how far the same variant run twice lies apart
    (``figure``, ``source``: a live row's figure and file)."""
    fig = figure or AA_FIGURE[name][0]
    twins = [v for v in dict.fromkeys(df.get("variant", [])) if str(v).endswith(AA)]
    ci = aa_floor(name, df, figure)
    if not twins:
        return f"  A/A floor: not measured (no twin runs in {source})"
    head = f"  A/A floor: {base_of(str(twins[0]))} against itself, {fig}: "
    if ci is None:
        return head + "too few runs to measure"
    half = max(ci.hi - 1, 1 - ci.lo)
    text = (head + f"{pct(ci.ratio)} [{pct(ci.lo)}, {pct(ci.hi)}] (n={ci.n}) — "
            f"differences within ±{100 * half:.1f}% are this run's noise")
    if ci.lo > 1 or ci.hi < 1:
        text += ("; the twin differs from itself (1 run in 20 does by chance; more often, "
                 "drift or the order biased this run): read its verdicts with care")
    return text


def _pp(x: float) -> str:
    """A band's half width in points: 0.05 -> '5%', 0.0235 -> '2.4%'."""
    v = 100 * abs(x)
    return f"{v:.0f}%" if abs(v - round(v)) < 0.05 else f"{v:.1f}%"


def _edge_margin(ratio: float, edges: Tuple[float, float], margin: float) -> float:
    """The size a decision across a band's edge needs: the estimate's distance from the
    nearer edge (on which side it lies is the question), at least half the ``margin`` (an
    estimate on the edge itself is decided by no number of repeats)."""
    return max(min(abs(ratio - e) for e in edges), margin / 2)


def shape_verdict(seed_change: float, ci: Optional[RatioCI],
                  tolerance: float = TOLERANCE, seed_error: float = 0.0,
                  per_repeat_s: Optional[float] = None) -> str:
    """Does our ratio have the seed's shape? Equivalence tests, not overlaps, and a rule
    that cannot agree with nothing. S is the seed's change, u its own 95% uncertainty
    (``seed_error``, points: the seed's sds, ranges or resolution; 0 where it states
    none), T the ``tolerance``. Our 95% interval is judged:

    **A seed that cannot tell its change from none** (``|S| <= u``; or ``|S| <``
    :data:`NO_CHANGE` where it states no u) claims no difference within its own range
    R = S ± u (± T where u is 0):

    - ``agrees within ±X%`` (of none): the interval lies inside R;
    - ``disagrees: a difference here ...``: it lies wholly outside R;
    - else ``inconclusive`` with what a decision needs (margin: R's half width).

    Such a verdict names the seed's own uncertainty ("the seed cannot tell its -1.0%
    from none (±1.0%)"): it is never "the opposite direction".

    **A seed with a change** (|S| > u): the margin is h = min(T, |S|/2) — a change under
    2T is judged at half its size, so that "agrees" and "no difference" exclude each other.
    The agreement band is A = S ± (h + u), cut where it comes within |S|/2 of none; the
    no-difference band is N = 1 ± h:

    - ``agrees within ±X%``: the interval lies inside A (so it excludes none: "agrees" is
      never said of a null, [+0.0%, +0.0%], against a +4% seed);
    - ``disagrees: no difference here (within ±h%)``: inside N — equivalence;
    - ``disagrees: the opposite direction``: wholly on the other side of 1 (outside N);
    - ``agrees in direction, larger here`` / ``smaller here``: wholly beyond A, or
      between 1 and A, on the seed's side, excluding 1;
    - ``smaller than the seed's; up to X% not excluded``: it holds 1 but stops short of
      A (the seed's effect is excluded, none is not);
    - otherwise ``cannot tell the seed's effect from none at this precision`` (the
      interval reaches both 1 and A) or ``inconclusive: at the edge of the seed's band``,
      each with the per-pair sd, the minimum detectable effect at 80% power and the
      repeats (and, with ``per_repeat_s``, the machine time) whose MDE is h
      (:func:`slablab.analysis.decision_needs`)."""
    if ci is None:
        return "too few runs to judge"
    S, u, T = seed_change, abs(seed_error), tolerance
    if abs(S) <= u or (u == 0 and abs(S) < NO_CHANGE):
        if u == 0:
            lo, hi, why = 1 - T, 1 + T, ""
        else:
            lo, hi = 1 + S - u, 1 + S + u
            why = f" (the seed cannot tell its {pct(1 + S)} from none: ±{_pp(u)})"
        if within(ci, lo, hi):
            return f"agrees within ±{_pp((hi - lo) / 2)}{why}: no difference here either"
        if beyond(ci, lo, hi):
            return "disagrees: a difference here, none in the seed" + why
        return (f"inconclusive: the interval reaches past the seed's range{why}; "
                + decision_needs(ci, _edge_margin(ci.ratio, (lo, hi), (hi - lo) / 2),
                                 per_repeat_s))
    sign = 1.0 if S > 0 else -1.0
    # the interval as effects toward the seed's side: 0 is none, |S| the seed's
    a = sign * ((ci.lo if sign > 0 else ci.hi) - 1)
    b = sign * ((ci.hi if sign > 0 else ci.lo) - 1)
    half, h = abs(S) / 2, min(T, abs(S) / 2)
    a_lo, a_hi = max(abs(S) - h - u, half), abs(S) + h + u
    if a >= a_lo and b <= a_hi:
        clear = f", clear of ±{_pp(half)}" if abs(S) - h - u < half else ""
        return f"agrees within ±{_pp(h + u)}{clear}"
    if a >= -h and b <= h:
        return f"disagrees: no difference here (within ±{_pp(h)})"
    if b < 0:
        return "disagrees: the opposite direction"
    if a > a_hi:
        return "agrees in direction, larger here"
    if a > 0 and b < a_lo:
        return "agrees in direction, smaller here"
    if b < a_lo:
        return f"smaller than the seed's; up to {100 * sign * b:+.1f}% not excluded"
    if a <= 0:
        return ("cannot tell the seed's effect from none at this precision: "
                + decision_needs(ci, h, per_repeat_s))
    return ("inconclusive: at the edge of the seed's band; "
            + decision_needs(ci, _edge_margin(ci.ratio, (1 + sign * a_lo, 1 + sign * a_hi), h),
                             per_repeat_s))


def direction_verdict(seed_change: float, ci: Optional[RatioCI], tolerance: float = TOLERANCE,
                      seed_error: float = 0.0, per_repeat_s: Optional[float] = None) -> str:
    """Does our ratio go the seed's way? For a seed whose figure cannot carry over in size
    (MemFree of a 24 MB lguest guest against a VM's), only the direction is judged:
    ``agrees in direction`` when the interval lies wholly on the seed's side of 1,
    ``disagrees: the opposite direction`` when wholly on the other, else ``inconclusive:
    no direction at this precision`` with the sd, the MDE and the repeats that would
    detect the seed's change — never "no difference": without a size to carry over
    there is no margin to call a difference none (``tolerance``, ``seed_error``: unused,
    the signature of :func:`shape_verdict`)."""
    if ci is None:
        return "too few runs to judge"
    if (ci.lo > 1.0) if seed_change > 0 else (ci.hi < 1.0):
        return "agrees in direction"
    if (ci.hi < 1.0) if seed_change > 0 else (ci.lo > 1.0):
        return "disagrees: the opposite direction"
    return ("inconclusive: no direction at this precision; "
            + decision_needs(ci, abs(seed_change), per_repeat_s))


def _p(ci: RatioCI) -> str:
    """A verdict's p-value: 'p=0.012', '3.1e-07', '0' (a constant ratio under -icount)."""
    p = ci.p_value()
    return "0" if p == 0 else f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}"


def verdict_line(subject: str, seed_what: str, seed_change: float,
                 ci: Optional[RatioCI], missing: Optional[str] = None,
                 judge: Callable[..., str] = shape_verdict, seed_error: float = 0.0,
                 per_repeat_s: Optional[float] = None) -> str:
    """'km(4096): seed: 3 lists +24.0%; here: +20.0% [+17.0%, +23.0%] (n=5, p=0.0001) —
    agrees within ±5%' (``seed_error``: the seed's own uncertainty, printed as ± after
    its change; ``per_repeat_s``: one repeat's machine time, for the repeats an
    inconclusive verdict needs)."""
    err = f" ± {_pp(seed_error)}" if seed_error else ""
    head = f"{subject}: seed: {seed_what} {pct(1 + seed_change)}{err}; here: "
    if missing:
        return head + f"- — cannot judge ({missing})"
    if ci is None:
        return head + "- — too few runs to judge"
    return (head + f"{pct(ci.ratio)} [{pct(ci.lo)}, {pct(ci.hi)}] (n={ci.n}, p={_p(ci)}) — "
            + judge(seed_change, ci, seed_error=seed_error, per_repeat_s=per_repeat_s))


#: The primary verdict of each seed, named before the run (a prefix of its subject): the
#: one the seed's own claim rests on, on the seed's own quantity where slablab measures
#: it. Every other verdict of the seed is secondary, its p-value Holm-adjusted over the
#: seed's secondaries (:func:`rank_verdicts`; docs/experiments.md says why each).
PRIMARY: Dict[str, str] = {
    # the seed's question on its own workload and figure: fio netio's sys time
    "seed-000": "live fio netio, sys time, ilog2(size) vs min_partial=5",
    # the seed's headline row ("+24% without overhead!")
    "seed-001": "km(4096), net of the loop",
    # the patch's mechanism: 2 vCPUs cannot show a 160-thread throughput
    "seed-002": "list_lock operations per 1000 objects",
    # SLOB's lists on a real boot's allocations, as the seed measured after boot
    "seed-003": "real boot replay, slob lists=2 vs lists=1",
    # the seed's workload and figure on the kernel's own SLUB: tbench MB/s
    "seed-004": "live tbench MB/s",
}

_VERDICT = "  verdict: "
_P = re.compile(r"\bp=([0-9.]+(?:e[-+]?[0-9]+)?)")
#: Verdict words that claim a difference from none (a significance a Holm-adjusted p can
#: take back); "no difference" (equivalence) and the inconclusive ones do not.
_CLAIMS = ("agrees within", "agrees in direction", "disagrees: the opposite",
           "disagrees: more here", "disagrees: a difference here")


def rank_verdicts(name: str, text: str, alpha: float = 0.05) -> str:
    """An experiment's whole text (tables, live rows, replays) with its verdict lines
    ranked: the one whose subject starts with :data:`PRIMARY`'s entry as ``primary:``,
    every other as ``secondary (Holm):``, its p-value followed by the Holm-adjusted one
    over the seed's secondaries that have a p (m of them); a secondary whose verdict
    claims a difference from none that the adjusted p no longer carries (>= ``alpha``)
    says so. Without the primary in the text, a line says it was not judged."""
    key = PRIMARY.get(name)
    lines = text.split("\n")
    idx = [i for i, ln in enumerate(lines) if ln.startswith(_VERDICT)]
    primary = next((i for i in idx if key and ln_subject(lines[i]).startswith(key)), None)
    second = [i for i in idx if i != primary]
    ps = {i: float(m.group(1)) for i in second if (m := _P.search(lines[i]))}
    adj = dict(zip(ps, holm(list(ps.values()))))
    for i in idx:
        body = lines[i][len(_VERDICT):]
        if i == primary:
            lines[i] = "  primary: " + body
            continue
        if i in adj:
            m = _P.search(body)
            assert m is not None
            body = body[:m.end()] + f", Holm p={adj[i]:.2g}" + body[m.end():]
            words = body.rsplit(" — ", 1)[-1]
            if adj[i] >= alpha and words.startswith(_CLAIMS) and "no difference" not in words:
                body += " (not significant after Holm: read it as inconclusive)"
        lines[i] = "  secondary (Holm): " + body
    if key and primary is None:
        lines.insert(idx[0] if idx else len(lines),
                     f"  primary: {key}: not judged in this run")
    return "\n".join(lines)


def ln_subject(line: str) -> str:
    """The subject of a verdict line (what it judges, before ': seed:' or ': -')."""
    body = line.split(": ", 1)[1] if line.startswith(_VERDICT) else line
    return body.split(": seed:", 1)[0]


def paired_ci(df: "pd.DataFrame", figure: str, base: str, other: str,
              **where: Any) -> Optional[RatioCI]:
    """The ratio other/base of ``figure`` paired by repeat, among the rows matching
    ``where`` (column=value), with its 95% interval (:func:`ratio_ci`)."""
    d = df
    for k, v in where.items():
        d = d[d[k] == v]
    if figure not in d.columns:
        return None
    d = d[d[figure].notna()]
    a = d[d["variant"] == base].groupby("repeat")[figure].median()
    b = d[d["variant"] == other].groupby("repeat")[figure].median()
    common = a.index.intersection(b.index)
    return ratio_ci(list(a[common]), list(b[common]))


def ratio_ci(a: Sequence[float], b: Sequence[float], seed: int = 0x5ab1ab,
             resamples: int = 4000, level: float = 0.95) -> Optional[RatioCI]:
    """:func:`slablab.analysis.paired_ratio_ci` (libslabctl's Student-t interval, no scipy:
    importing it costs a minute in a loaded TCG guest). ``seed`` and ``resamples`` are
    ignored. None with fewer than 3 usable pairs."""
    return paired_ratio_ci(a, b, level=level)


def _fmt(v: Optional[float], digits: int = 0) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if digits == 0:
        return f"{v:,.0f}"
    return f"{v:,.{digits}f}"


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], indent: str = "  ") -> str:
    """A plain text table: the first column left-aligned, the others right-aligned."""
    rows = [list(r) for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows if i < len(r)])
              for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        out = [f"{c:<{widths[0]}}" if i == 0 else f"{c:>{widths[i]}}"
               for i, c in enumerate(cells)]
        return (indent + "  ".join(out)).rstrip()
    return "\n".join([line(headers)] + [line(r) for r in rows])


def _med(d: "pd.DataFrame", figure: str) -> Optional[float]:
    if figure not in d.columns:
        return None
    s = d[figure].dropna()
    return float(s.median()) if len(s) else None


def _per_repeat_s(d: "pd.DataFrame", column: str = "elapsed_ns", scale: float = 1e-9,
                  *more: str) -> Optional[float]:
    """The machine time of one repeat of a table (every variant's runs of it, in seconds):
    ``column`` (or the first of ``more``, seconds, that has values) summed over the runs
    (storms' elapsed_ns; a live row's seconds) over the repeats; None where there is none."""
    if "repeat" not in d.columns or d.empty:
        return None
    for col, sc in [(column, scale)] + [(m, 1.0) for m in more]:
        if col in d.columns:
            total = float(d[col].fillna(0).sum()) * sc
            if total > 0:
                return total / int(d["repeat"].nunique())
    return None


def _faithful(df: "pd.DataFrame", extra: str = "") -> str:
    """Where the run cannot be faithful: the machine it ran on."""
    cpus = df["vm_cpus"].dropna() if "vm_cpus" in df.columns else []
    model = df["cpu_model"].dropna().astype(str) if "cpu_model" in df.columns else []
    kern = df["kernel_release"].dropna().astype(str) if "kernel_release" in df else []
    machine = (f"{int(cpus.iloc[0])} vCPUs" if len(cpus) else "? cpus") + \
        (f", {kern.iloc[0]}" if len(kern) else "") + \
        (f", cpu '{model.iloc[0]}'" if len(model) and model.iloc[0] else "")
    tcg = len(model) and "QEMU" in model.iloc[0]
    icount = ([v for v in df["vm_icount"].dropna().astype(str) if v]
              if "vm_icount" in df.columns else [])
    if icount:
        # scripts/vm.sh VM_ICOUNT: the guest's TSC advances 2^shift per instruction
        text = (f"  faithful? here: {machine}, qemu -icount shift={icount[0]}: cycles are "
                f"instructions x {2 ** int(icount[0])}, deterministic; no cache, memory or "
                "contention costs")
    else:
        text = f"  faithful? here: {machine}" + \
            ("; qemu TCG: cycles are emulator cycles, read ratios not values" if tcg else "")
    return text + (f"; {extra}" if extra else "") + "."


# ---------------------------------------------------------------- the tables (pure)

def table_000(df: "pd.DataFrame", missing: Mapping[str, str]) -> str:
    out = ["seed-000: dynamic min_partial — " + S.SEEDS["seed-000"].source]
    out.append("  seed (fio netio, 2-way x86-64, 50 runs), seconds:")
    rows = []
    for part in ("real", "sys"):
        for name, (mn, mx, avg, sd) in S.SEED_000[part].items():
            rows.append([f"{part} {name}", f"{mn:.2f}", f"{mx:.2f}", f"{avg:.2f}", f"{sd:.2f}"])
    out.append(table(["", "min", "max", "avg", "sd"], rows, "    "))
    d = df[df["experiment"] == "seed-000"]
    reps = d["repeat"].nunique()
    out.append(f"  here (batch storms that fill and drain slabs, {reps} runs each; slablab "
               "with cpu_partial=0 as 2008's SLUB): run time (ms, longest thread), pages "
               "at the peak, new slabs:")
    rows = []
    for x in sorted(d["x"].dropna().unique()):
        for v in dict.fromkeys(d["variant"]):
            g = d[(d["x"] == x) & (d["variant"] == v)]
            if g.empty:
                continue
            t = describe(g["run_ms"])
            p = describe(g["peak_pages"])
            ns = _med(g, "stat_alloc_slab")
            mp = _med(g, "cache_min_partial")
            label = f"{int(x)} B {v}" + (f" = {mp:.0f}" if mp is not None and v != "min_partial=5"
                                         else "")
            rows.append([label] + ([_fmt(t.min, 1), _fmt(t.max, 1), _fmt(t.avg, 1),
                                    _fmt(t.sd, 1)] if t else ["-"] * 4)
                        + ([_fmt(p.min), _fmt(p.max), _fmt(p.avg, 1), _fmt(p.sd, 1)]
                           if p else ["-"] * 4) + [_fmt(ns)])
    out.append(table(["", "ms min", "max", "avg", "sd", "pages min", "max", "avg", "sd",
                      "new slabs"], rows, "    "))
    sizes = sorted(d["x"].dropna().unique())
    big = sizes[-1] if sizes else None
    seed_sys = S.change(S.SEED_000["sys"]["SLUB"][2], S.SEED_000["sys"]["SLUB (dynamic)"][2])
    seed_real = S.change(S.SEED_000["real"]["SLUB"][2], S.SEED_000["real"]["SLUB (dynamic)"][2])
    fixed = _variant(d, "min_partial=5")
    for dyn in [v for v in dict.fromkeys(d["variant"]) if v.startswith("ilog2")
                or v.startswith("default")]:
        ci = paired_ci(d, "run_ms", fixed, dyn, x=big) if big is not None and fixed else None
        out.append("  verdict: " + verdict_line(
            f"{dyn} vs min_partial=5, {int(big) if big else '?'} B run time",
            "dynamic sys time", seed_sys, ci, seed_error=S.error_000_sys(),
            per_repeat_s=_per_repeat_s(d)))
    out += tail_lines(d, fixed, big)
    out.append(f"  (seed's real time: {pct(1 + seed_real)}; our storms run in the kernel, so "
               "their time is the seed's sys time)")
    out.append(_faithful(d, "in these rows a storm that builds and drains partial slabs "
                            "stands in for fio netio; the live rows below run netio itself"))
    return "\n".join(out)


def _variant(d: "pd.DataFrame", prefix: str) -> str:
    for v in dict.fromkeys(d["variant"]):
        if v.startswith(prefix):
            return str(v)
    return ""


SEED_001_FIGURE = {"km": ("cache", "cycles_per_alloc"), "kf(cachep": ("cache", "cycles_per_free"),
                   "kf": ("kmalloc", "cycles_per_free")}


def _row_001(name: str) -> Tuple[str, str, int]:
    """'kf(cachep,4096)' -> ('cache', 'cycles_per_free', 4096)."""
    size = int(name.rstrip(")").split(",")[-1].split("(")[-1])
    key = "kf(cachep" if name.startswith("kf(cachep") else name.split("(")[0]
    src, fig = SEED_001_FIGURE[key]
    return src, fig, size


def table_001(df: "pd.DataFrame", columns: Sequence[Column],
              missing: Mapping[str, str]) -> str:
    d = df[df["experiment"] == "seed-001"]
    reps = d["repeat"].nunique()
    out = ["seed-001: fast path ticks — " + S.SEEDS["seed-001"].source,
           f"  cycles per call, 100 calls in a tight loop (batch of 100, one thread), median of "
           f"{reps} runs; seed: cpu ticks on a Duron 700 (hex = decimal), loop overhead "
           "included as in the seed"]
    heads = ["", "2.4.9 (1 list)", "2.4.9-ac9 (3 lists)"] + [c.label for c in columns]
    rows = []
    for name, one, three in S.SEED_001_ROWS:
        src, fig, size = _row_001(name)
        cells = [name, f"{one}={S.ticks(one)}", f"{three}={S.ticks(three)}"]
        for c in columns:
            reason = missing.get(c.label) or c.missing
            if reason is None and src == "kmalloc":
                reason = missing.get(c.label + " kmalloc")
            if reason:
                cells.append("missing")
                continue
            g = d[(d["variant"] == c.label) & (d["table_row"] == src) & (d["x"] == size)]
            cells.append(_fmt(_med(g, fig)))
        rows.append(cells)
    loop = [_fmt(_med(d[d["variant"] == c.label], "loop_cycles"))
            if not (c.missing or missing.get(c.label)) else "missing" for c in columns]
    rows.append(["loop overhead", f"{S.SEED_001_LOOP}={S.ticks(S.SEED_001_LOOP)}",
                 f"{S.SEED_001_LOOP}={S.ticks(S.SEED_001_LOOP)}"] + loop)
    out.append(table(heads, rows, "    "))
    for c in columns:
        why = missing.get(c.label) or c.missing
        kwhy = missing.get(c.label + " kmalloc")
        if why:
            out.append(f"    {c.label}: {why}")
        elif kwhy:
            out.append(f"    {c.label}, kf(N): {kwhy}")

    def pair_missing(a: str, b: str) -> Optional[str]:
        return next((missing.get(c.label) or c.missing for c in columns
                     if c.label in (a, b) and (missing.get(c.label) or c.missing)), None)
    # the seed timed a UP 2.4 kernel, which had no per-cpu arrays: its verdicts are the
    # 2.4-like columns' (arrays of one object) where this module has them, else 6.1's
    one, three, pair = "2.4 UP lists=1", "2.4 UP lists=3", "arrays of 1 (2.4 UP)"
    if pair_missing(one, three) or not any(c.label == one for c in columns):
        one, three, pair = "slab lists=1", "slab lists=3", "6.1's arrays"
    miss = pair_missing(one, three)
    # the seed's ticks and our cycles both include their timed loop (0x49 there, the
    # storm's loop_cycles here): judge both net of it, as the seed's own "+24% without
    # overhead!" for km(4096) — the loop dilutes a change by its share of the figure
    seed_loop = S.ticks(S.SEED_001_LOOP)
    net = d.assign(**{f"{f}_net": d[f] - d["loop_cycles"].fillna(0)
                      for f in ("cycles_per_alloc", "cycles_per_free")})
    for name, a, b in S.SEED_001_ROWS:
        src, fig, size = _row_001(name)
        kwhy = (missing.get(one + " kmalloc") or missing.get(three + " kmalloc")) \
            if src == "kmalloc" else None
        ci = None if miss or kwhy else \
            paired_ci(net, fig + "_net", one, three, table_row=src, x=size)
        out.append("  verdict: " + verdict_line(
            f"{name}, net of the loop, {pair}", "3 lists",
            S.change(S.ticks(a) - seed_loop, S.ticks(b) - seed_loop), ci, miss or kwhy,
            seed_error=S.error_001(a), per_repeat_s=_per_repeat_s(d)))
    out.append(_faithful(d, "the seed timed a UP 2.4 kernel on real hardware; 'km(1)' is a "
                            "cache of 8 bytes (slablab's smallest)"))
    return "\n".join(out)


def table_002(df: "pd.DataFrame", missing: Mapping[str, str]) -> str:
    d = df[df["experiment"] == "seed-002"]
    reps = d["repeat"].nunique()
    out = ["seed-002: per-cpu partial lists — " + S.SEEDS["seed-002"].source]
    seed_rows = [[str(t), f"{b:,}", f"{a:,}", pct(a / b)] for t, b, a in S.SEED_002]
    out.append("  seed (netperf, threads; before = no per-cpu partial lists):")
    out.append(table(["threads", "before", "after", ""], seed_rows, "    "))
    before = _variant(d, "cpu_partial=0")
    after = _variant(d, "cpu_partial=") if not before else next(
        (v for v in dict.fromkeys(d["variant"]) if v.startswith("cpu_partial=")
         and v != before), "")
    out.append(f"  here (remote storms: producers allocate, consumers on other cpus free; "
               f"ops/s, median of {reps} runs; ratio after/before with 95% CI; list ops: "
               "the node-list operations under list_lock per 1000 objects, median):")
    d = d.assign(list_ops_1k=list_ops_per_1000(d))
    rows = []
    for x in sorted(d["x"].dropna().unique()):
        g = d[d["x"] == x]
        ci = paired_ci(d, "tput_ops_per_sec", before, after, x=x) if before and after else None
        rows.append([f"{int(x)}", _fmt(_med(g[g["variant"] == before], "tput_ops_per_sec")),
                     _fmt(_med(g[g["variant"] == after], "tput_ops_per_sec")),
                     f"{pct(ci.ratio)} [{pct(ci.lo)}, {pct(ci.hi)}]" if ci else "-",
                     _fmt(_med(g[g["variant"] == KERNEL], "tput_ops_per_sec")),
                     _fmt(_med(g[g["variant"] == before], "list_ops_1k"), 1),
                     _fmt(_med(g[g["variant"] == after], "list_ops_1k"), 1)])
    out.append(table(["threads", f"before ({before})", f"after ({after})", "after/before",
                      KERNEL, "list ops before", "after"], rows, "    "))
    xs = sorted(d["x"].dropna().unique())
    t, b, a = S.SEED_002[-1]
    ci = paired_ci(d, "tput_ops_per_sec", before, after, x=xs[-1]) if xs else None
    out.append("  verdict: " + verdict_line(
        f"most threads (seed {t}, here {int(xs[-1]) if xs else '?'})", "after/before",
        S.change(b, a), ci, per_repeat_s=_per_repeat_s(d)))
    # two host cores cannot show a 160-thread throughput effect; the mechanism the patch
    # claims — fewer trips to the node's list_lock — shows at any scale, in counts that
    # TCG's timing does not distort
    ci = paired_ci(d, "list_ops_1k", before, after, x=xs[-1]) if xs and before and after \
        else None
    out.append("  verdict: " + mechanism_line(
        f"list_lock operations per 1000 objects, {int(xs[-1]) if xs else '?'} threads, "
        "after/before", ci, per_repeat_s=_per_repeat_s(d)))
    out.append(_faithful(d, "the seed's gain appears from 64 threads on a large SMP "
                            "machine; a few vCPUs show the mechanism (list_lock traffic), "
                            "not the scale"))
    return "\n".join(out)


def list_ops_per_1000(d: "pd.DataFrame") -> "pd.Series":
    """Each run's node-list operations under list_lock (:data:`LIST_LOCK_STATS`: partial
    slabs taken and added, per-cpu partial slabs drained) per 1000 objects."""
    import pandas as pd
    cols = [f"stat_{n}" for n in LIST_LOCK_STATS]
    if "ops_done" not in d.columns or not all(c in d.columns for c in cols):
        return pd.Series(math.nan, index=d.index)
    ops = d["ops_done"].where(d["ops_done"] > 0)
    return d[cols].sum(axis=1, min_count=len(cols)) * 1000 / ops


def mechanism_line(subject: str, ci: Optional[RatioCI],
                   tolerance: float = TOLERANCE, per_repeat_s: Optional[float] = None) -> str:
    """A verdict on the seed's mechanism, which the seed names but does not measure
    (fewer list_lock operations): only its direction can agree: ``no difference here``
    (equivalence: an interval inside 1 ± ``tolerance``, whatever its side), ``agrees in
    direction`` (the interval wholly below 1), ``disagrees: more here``, else
    ``inconclusive`` with the sd, MDE and repeats a decision needs."""
    head = f"{subject}: seed: fewer (the patch's mechanism; not measured there); here: "
    if ci is None:
        return head + "- — too few runs to judge (no counters: SLUB_STATS or the design's)"
    head += f"{pct(ci.ratio)} [{pct(ci.lo)}, {pct(ci.hi)}] (n={ci.n}, p={_p(ci)}) — "
    if within(ci, 1 - tolerance, 1 + tolerance):
        return head + f"no difference here (within ±{_pp(tolerance)}): does not confirm the " \
            "mechanism"
    if ci.hi < 1.0:
        return head + "agrees in direction"
    if ci.lo > 1.0:
        return head + "disagrees: more here"
    return head + inconclusive(ci, tolerance, seconds_per_repeat=per_repeat_s)


def table_003(df: "pd.DataFrame", columns: Sequence[Column],
              missing: Mapping[str, str]) -> str:
    d = df[df["experiment"] == "seed-003"]
    reps = d["repeat"].nunique()
    out = ["seed-003: SLOB fragmentation — " + S.SEEDS["seed-003"].source,
           "  seed (Pekka Enberg, kB after boot, 10 runs):"]
    rows = [[name, f"{tot}", _fmt(f[0]), _fmt(f[1]), _fmt(f[2], 1), _fmt(u[0]), _fmt(u[1]),
             _fmt(u[2], 1)] for name, (tot, f, u) in S.SEED_003.items()]
    heads = ["", "Total (kB)", "Free min", "max", "average", "Used min", "max", "average"]
    out.append(table(heads, rows, "    "))
    out.append("    Matt Mackall, MemFree (kB, average of 10 lguest runs): " + "; ".join(
        f"{k} {v:,.1f}" for k, v in S.SEED_003_MEMFREE.items()))
    out.append("    Matt Mackall: " + "; ".join(
        f"{k}: {u} pages for {l} pages of data: {pct(u / l)}"
        for k, (u, l) in S.SEED_003_PAGES.items()) + "; SLUB: about 35%")
    out.append(f"  here (kmalloc churn of mixed sizes, {reps} runs; Free: MemFree during the "
               "storm; Used: the allocator's pages for the workload at steady state — "
               "slablab's: its classes' pages, emptied before each run; the kernel's: its "
               "SLUB on kmalloc classes made for each run, as the kernel makes its own):")
    rows = []
    over: List[str] = []
    notes: List[str] = []
    for c in columns:
        why = missing.get(c.label) or c.missing
        if why:
            rows.append([c.label] + ["missing"] + ["-"] * 6)
            notes.append(f"    {c.label}: {why}")
            continue
        g = d[d["variant"] == c.label]
        f, u = describe(g["mem_free_kb"]), describe(g["used_kb"])
        tot = _med(g, "mem_total_kb")
        rows.append([c.label, _fmt(tot)]
                    + ([_fmt(f.min), _fmt(f.max), _fmt(f.avg, 1)] if f else ["-"] * 3)
                    + ([_fmt(u.min), _fmt(u.max), _fmt(u.avg, 1)] if u else ["-"] * 3))
        used, live = _med(g, "used_kb"), _med(g, "live_kb")
        if used and live:
            over.append(f"    {c.label}: {used / 4:.0f} pages for {live / 4:.0f} pages of data: "
                        f"{pct(used / live)}")
    out.append(table(heads, rows, "    "))
    out.extend(notes + over)
    avail = {c.label: (missing.get(c.label) or c.missing) for c in columns}
    s1, s2, s3 = (S.SEED_003["SLOB (vanilla)"][2][2], S.SEED_003["SLOB (patched)"][2][2],
                  S.SEED_003["SLUB (no debug)"][2][2])
    pairs = [("slob lists=2 vs lists=1, used", "SLOB patched vs vanilla", S.change(s1, s2),
              "slob lists=1", "slob lists=2",
              S.error_003_used("SLOB (vanilla)", "SLOB (patched)")),
             ("slob lists=2 vs slub, used", "SLOB patched vs SLUB", S.change(s3, s2),
              "slub", "slob lists=2", S.error_003_used("SLUB (no debug)", "SLOB (patched)"))]
    per = _per_repeat_s(d)
    for subject, what, ch, base, other, err in pairs:
        miss = avail.get(base) or avail.get(other)
        ci = None if miss else paired_ci(d, "used_kb", base, other)
        out.append("  verdict: " + verdict_line(subject, what, ch, ci, miss, seed_error=err,
                                                per_repeat_s=per))
    # Matt Mackall's side: SLOB left more MemFree than SLUB in his lguest runs (+77 kB
    # and +127 kB of 24 MB): a size that cannot carry over to this VM, so the direction
    slub_free = S.SEED_003_MEMFREE["SLUB"]
    for n in (2, 3):
        base, other = "slub", f"slob lists={n}"
        miss = avail.get(base) or avail.get(other)
        ci = None if miss else paired_ci(d, "mem_free_kb", base, other)
        out.append("  verdict: " + verdict_line(
            f"MemFree, slob lists={n} vs slub (Mackall's side)", f"SLOB {n} lists vs SLUB",
            S.change(slub_free, S.SEED_003_MEMFREE[f"SLOB {n} lists"]), ci, miss,
            direction_verdict, per_repeat_s=per))
    for label, subject in (("slub", "slub pages over live data"),
                           (KERNEL, "kernel SLUB pages over live data")):
        k = d[d["variant"] == label]
        ci = ratio_ci(list(k["live_kb"]), list(k["used_kb"])) if len(k) else None
        out.append("  verdict: " + verdict_line(subject, "SLUB (Matt)", 0.35, ci,
                                                avail.get(label), per_repeat_s=per))
    out.append(_faithful(d, "the seed measured a whole booted system (MemFree); here one "
                            "workload's pages, and MemFree of a VM with other things in it"))
    return "\n".join(out)


def table_004(df: "pd.DataFrame", missing: Mapping[str, str]) -> str:
    d = df[df["experiment"] == "seed-004"]
    reps = d["repeat"].nunique()
    out = ["seed-004: 4k objects — " + S.SEEDS["seed-004"].source,
           "  slabinfo -AD (seed: tbench; here: the 4096-byte kmalloc of pair storms, "
           f"totals over {reps} runs):"]
    name, objs, al, fr, fa, ff = S.SEED_004_SLABINFO
    rows = [[f"seed {name}", f"{objs}", f"{al}", f"{fr}", f"{fa} {ff}", "-", "-"]]
    for v in dict.fromkeys(d["variant"]):
        g = d[d["variant"] == v]
        af, asl = g["stat_alloc_fastpath"].sum(), g["stat_alloc_slowpath"].sum()
        ff_, fs = g["stat_free_fastpath"].sum(), g["stat_free_slowpath"].sum()
        counted = (af + asl) > 0
        fast = (f"{100 * af / (af + asl):.0f} {100 * ff_ / max(ff_ + fs, 1):.0f}"
                if counted else "-")
        peak = _med(g, "peak_live_bytes")
        order = _med(g, "cache_order")
        rows.append([v, _fmt(peak / 4096 if peak else None),
                     _fmt(g["allocs"].sum()), _fmt(g["frees"].sum()), fast,
                     _fmt(g["stat_order_fallback"].sum()) if counted else "-",
                     _fmt(order)])
    out.append(table(["Name", "Objects", "Alloc", "Free", "%Fast", "Fallb", "O"], rows, "    "))
    out.append("    (Objects: at the peak; %Fast: allocs, frees; the kernel's SLUB keeps no "
               "counters without SLUB_STATS)")
    out.append("  throughput (seed: tbench MB/s; here: ops/s, median):")
    rows = [[f"seed {k}", f"{v:.2f}"] for k, v in S.SEED_004_TBENCH.items()]
    for v in dict.fromkeys(d["variant"]):
        rows.append([v, _fmt(_med(d[d["variant"] == v], "tput_ops_per_sec"))])
    out.append(table(["", "figure"], rows, "    "))
    slab, page = _variant(d, "slab"), _variant(d, "page allocator")
    ci = paired_ci(d, "tput_ops_per_sec", page, slab) if slab and page else None
    out.append("  verdict: " + verdict_line(
        "order-3 slabs vs page allocator, throughput", "SLUB+patch vs unmodified",
        S.change(S.SEED_004_TBENCH["SLUB unmodified"], S.SEED_004_TBENCH["SLUB+patch"]), ci,
        per_repeat_s=_per_repeat_s(d)))
    out.append(_faithful(d, "tbench's network stack is replaced by kmalloc(4096)/kfree "
                            "pairs; init_on_alloc zeroes every 4 KiB on both sides"))
    return "\n".join(out)


def tables(name: str, df: "pd.DataFrame", missing: Mapping[str, str],
           avail: Optional[Avail] = None) -> str:
    """The printed table of an experiment from its runs (pure)."""
    avail = avail or availability()
    seeds = without_twins(df)
    if name == "seed-000":
        text = table_000(seeds, missing)
    elif name == "seed-001":
        text = table_001(seeds, columns_for(name, avail), missing)
    elif name == "seed-002":
        text = table_002(seeds, missing)
    elif name == "seed-003":
        text = table_003(seeds, columns_for(name, avail), missing)
    elif name == "seed-004":
        text = table_004(seeds, missing)
    else:
        raise ValueError(f"no experiment {name!r}: {', '.join(EXPERIMENTS)}")
    return text + "\n" + aa_line(name, df)


# ---------------------------------------------------------------- running

#: Each experiment's sizes. At least 10 repeats at either scale: the t interval's half
#: width is t(n-1) / sqrt(n) standard deviations of the log ratio, 1.24 at n = 5 and 0.72
#: at n = 10, and "agrees" needs the interval inside the seed's change ± TOLERANCE
#: (docs/experiments.md). The VM tests pass a small repeat explicitly.
SCALES: Dict[str, Dict[str, Dict[str, Any]]] = {
    "seed-000": {"small": dict(repeat=10, sizes=[1024, 4096], batch=256, rounds=8),
                 "full": dict(repeat=50, sizes=[256, 1024, 2048, 4096, 8192], batch=256,
                              rounds=40)},
    "seed-001": {"small": dict(repeat=15, rounds=20), "full": dict(repeat=20, rounds=100)},
    "seed-002": {"small": dict(repeat=10, size=256, ops=20000, ring=256, every=False),
                 "full": dict(repeat=10, size=256, ops=200000, ring=256, every=True)},
    "seed-003": {"small": dict(repeat=10, working_set=2048, duration_ms=400),
                 "full": dict(repeat=10, working_set=8192, duration_ms=1500)},
    "seed-004": {"small": dict(repeat=10, ops=3000), "full": dict(repeat=20, ops=30000)},
}
EXPERIMENTS = tuple(SCALES)
TITLES = {"seed-000": "dynamic min_partial", "seed-001": "fast path ticks",
          "seed-002": "per-cpu partial lists", "seed-003": "SLOB fragmentation",
          "seed-004": "4k objects: order-3 slabs vs the page allocator"}
#: seed-003's mixed sizes (bytes: weight), small objects as a booted kernel's.
MIXED_SIZES = {16: 4, 32: 4, 64: 4, 96: 2, 128: 3, 192: 2, 256: 2, 512: 1, 1024: 1, 2000: 1}


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _meminfo() -> Dict[str, int]:
    out = {}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                k, v = line.split(":", 1)
                out[k] = int(v.split()[0])
    except (OSError, ValueError):
        pass
    return out


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def set_kmalloc_design(client: Any, design: str, tunables: Mapping[str, int]) -> None:
    """Give slablab's kmalloc classes a design and its lists (:meth:`Client.set_kmalloc`,
    lab-set kmalloc-design/kmalloc-lists); NotImplementedError for a client without it
    (an older binding)."""
    fn = getattr(client, "set_kmalloc", None)
    if fn is None:
        raise NotImplementedError("missing: no set-kmalloc in this binding")
    fn(design=design, **tunables)


class Lab:
    """Runs storms for one experiment and writes a runs.csv row after each.

    ``warmup``: repeats run before the measured ones, written with ``warmup`` set (the
    tables leave them out); ``order_seed``: the seed of the variants' random order in
    each repeat (None: a random one, logged so that a rerun can repeat it)."""

    def __init__(self, client: Any, name: str, out_dir: str, scale: str, log: Log,
                 warmup: int = 1, order_seed: Optional[int] = None) -> None:
        if warmup < 0:
            raise ValueError(f"warmup must be 0 or more, not {warmup}")
        self.client, self.name, self.scale, self.log = client, name, scale, log
        self.warmup = warmup
        self.order_seed = order_seed if order_seed is not None \
            else random.SystemRandom().randrange(1 << 32)
        self._order = random.Random(self.order_seed)
        self.slots: Dict[str, int] = {}
        self.status = client.status()
        self.out_dir = os.path.join(out_dir, name)
        os.makedirs(self.out_dir, exist_ok=True)
        self.csv_path = os.path.join(self.out_dir, "runs.csv")
        self.header = list(RUN_COLUMNS) + list(EXP_COLUMNS)
        self._f = open(self.csv_path, "w", newline="")
        self._w = csv.DictWriter(self._f, fieldnames=self.header)
        self._w.writeheader()
        self.runs = 0
        self.missing: Dict[str, str] = {}
        self.caches: List[str] = []
        self.cpu_model = _cpu_model()
        self.kmalloc_design = "slub"
        #: the kmalloc classes' tunables as they were before _kmalloc_as() set a
        #: column's arrays on them, by class name
        self.kmalloc_arrays: Dict[str, Dict[str, int]] = {}

    def repeats(self, n: int) -> range:
        """The repeats to run: the warm-up ones first (negative: -warmup .. -1), then
        0 .. n-1."""
        return range(-self.warmup, n)

    def interleaved(self, items: Iterable[Any], label: Callable[[Any], Any],
                    twin: Optional[Callable[[Any], Any]] = None) -> List[Any]:
        """``items`` (the variants of one point, in the seed's table order) in a random
        order from this lab's seeded generator; their table order is noted for the
        ``slot`` column, by which :func:`read_experiment` puts the rows back. ``twin``
        makes the first item's A/A twin (its label + :data:`AA`), run among them."""
        out = with_twin(items, twin)
        for it in out:
            self.slots.setdefault(str(label(it)), len(self.slots))
        self._order.shuffle(out)
        return out

    def close(self) -> None:
        for c in self.caches:
            try:
                self.client.cache_destroy(c)
            except Exception:       # noqa: BLE001 — best effort on the way out
                pass
        self._f.close()

    def cache(self, size: int, design: Optional[str] = None, **tunables: Any) -> Any:
        name = f"x{os.getpid() % 10000}-{len(self.caches)}-{size}"
        kw = dict(tunables)
        if design:
            kw["design"] = design
        info = self.client.cache_create(name, size, **kw)
        self.caches.append(info["name"])
        return info

    def storm(self, *, variant: str, table_row: str, x: Any, repeat: int, target: str,
              pattern: str, cache: Optional[Mapping[str, Any]] = None,
              design: Optional[str] = None, order: Optional[int] = None,
              **kw: Any) -> Any:
        """Run one storm (on a shrunk cache), write its row, return the storm."""
        if cache is not None:
            name = cache["name"]
            self.client.cache_shrink(name)
            cache = self.client.cache_get(name, percpu=False)
            kw["cache"] = name
        free: List[int] = []

        def sample(_s: Any) -> None:
            m = _meminfo()
            if "MemFree" in m:
                free.append(m["MemFree"])
        t0 = time.monotonic()
        r = self.client.storm(target, pattern, progress=sample, **kw)
        sample(r)
        self.runs += 1
        ctx = run_context(self.status, cache)
        ctx["warmup"] = repeat < 0
        ctx["design"] = (cache or {}).get("design") or design or \
            ("kernel" if target.startswith("native") else "slub")
        row = run_row(r, experiment=self.name, variant=variant, x=x, repeat=repeat,
                      run=self.runs, context=ctx)
        res = r["result"] or {}
        threads = res.get("threads") or []
        longest = max((t["ns"] for t in threads), default=0)
        done = r["progress"]["ops_done"]
        pages = res.get("steady_pages") or res.get("peak_pages") or 0
        live = (res.get("steady_live_bytes") if res.get("steady_pages")
                else res.get("peak_live_bytes")) or 0
        extra: Dict[str, Any] = dict(
            table_row=table_row, date=_now(), scale=self.scale,
            page_policy=self.client.status().get("kmalloc_page_policy", ""),
            kmalloc_design=self.kmalloc_design if target == "kmalloc" else "",
            tput_ops_per_sec=done * 1e9 / longest if done and longest else None,
            run_ms=longest / 1e6 if longest else None,
            used_kb=pages * r["page_size"] / 1024 if pages else None,
            live_kb=live / 1024 if live else None,
            mem_total_kb=_meminfo().get("MemTotal"), mem_free_kb=min(free) if free else None,
            cache_order=order if order is not None else (cache or {}).get("order"),
            cache_min_partial=(cache or {}).get("min_partial"),
            cache_cpu_partial=(cache or {}).get("cpu_partial"), cpu_model=self.cpu_model,
            slot=self.slots.get(variant, len(self.slots)))
        for k, v in extra.items():
            row[k] = "" if v is None else (f"{v:.6g}" if isinstance(v, float) else str(v))
        self._w.writerow(row)
        self._f.flush()
        if r["state"] != "done":
            self.log(f"  warning: storm {r['id']} ended {r['state']}")
        self.log(f"  {self.name} {variant:34s} {table_row:8s} x={x!s:>5} {_repeat(repeat)} "
                 f"({time.monotonic() - t0:.1f}s)")
        return r


def with_twin(items: Iterable[Any], twin: Optional[Callable[[Any], Any]] = None
              ) -> List[Any]:
    """``items`` as a list, with the first one's A/A twin (``twin(first)``) at the end."""
    out = list(items)
    if twin is not None and out:
        out.append(twin(out[0]))
    return out


def _repeat(rep: int) -> str:
    """A repeat as the progress lines name it (Lab.repeats(): negative ones warm up)."""
    return "warm-up" if rep < 0 else f"#{rep}"


def _twin_pair(v: Tuple[Any, ...]) -> Tuple[Any, ...]:
    """The A/A twin of a (label, setting...) variant."""
    return (v[0] + AA,) + tuple(v[1:])


def _twin_column(c: Column) -> Column:
    """The A/A twin of a column: the same design and tunables under the twin's label."""
    return c._replace(label=c.label + AA)


def _ilog2(n: int) -> int:
    return n.bit_length() - 1


#: A test's verdict threshold: one-sided p below it says the direction
ALPHA = 0.05


def two_sided(p_seed_way: float, p_other_way: float) -> str:
    """'p=0.64': the two-sided p of a pair of one-sided ones (twice the smaller, at most
    1), for a verdict line's Holm adjustment (:func:`rank_verdicts`)."""
    return f"p={min(1.0, 2 * min(p_seed_way, p_other_way)):.2g}"


def test_verdict(p_seed_way: float, p_other_way: float, alpha: float = ALPHA) -> str:
    """A direction judged by a test rather than an interval (spread, slowest runs):
    ``agrees in direction`` when the seed's way is significant at ``alpha``, ``disagrees:
    the opposite direction`` when the other way is, else ``inconclusive: p = X the seed's
    way`` — a test without an effect size cannot say "no difference"."""
    if p_seed_way < alpha:
        return "agrees in direction"
    if p_other_way < alpha:
        return "disagrees: the opposite direction"
    return f"inconclusive: p = {p_seed_way:.2f} the seed's way, {p_other_way:.2f} the other"


def tail_lines(d: "pd.DataFrame", fixed: Optional[str], size: Optional[float]) -> List[str]:
    """Seed 000's headline judged: its SLUB's sys-time sd fell 2.28 -> 0.29 s and its max
    16.95 -> 8.64 s with the dynamic min_partial (the slow runs went away), while the
    average moved 13%. Here, on the run times of the largest size: the spread of each
    dynamic variant against min_partial=5 (:func:`slablab.analysis.spread_test`) and
    which variant owns the slowest runs (:func:`slablab.analysis.slowest_runs_test`),
    each a one-sided test at :data:`ALPHA` — directions, not sizes (see spread_test:
    with a handful of runs no interval for a tail covers what it says)."""
    if size is None or not fixed:
        return []
    sys_ = S.SEED_000["sys"]
    sd0, sd1 = sys_["SLUB"][3], sys_["SLUB (dynamic)"][3]
    mx0, mx1 = sys_["SLUB"][1], sys_["SLUB (dynamic)"][1]
    g = d[(d["x"] == size) & d["run_ms"].notna()]
    base = list(g[g["variant"] == fixed]["run_ms"])
    out = []
    for dyn in [v for v in dict.fromkeys(g["variant"]) if v.startswith("ilog2")
                or v.startswith("default")]:
        other = list(g[g["variant"] == dyn]["run_ms"])
        head = f"  verdict: {dyn} vs min_partial=5, {int(size)} B "
        st = spread_test(base, other)
        if st is None:
            out.append(head + "spread: - — too few runs to judge")
            continue
        sd_a, sd_b = describe(base), describe(other)
        out.append(head + f"spread: seed: sys sd {sd0:.2f} -> {sd1:.2f} s "
                   f"({pct(sd1 / sd0)}); here: mean |run - median| {st.mad_a:.2f} -> "
                   f"{st.mad_b:.2f} ms, sd {_fmt(sd_a.sd if sd_a else None, 2)} -> "
                   f"{_fmt(sd_b.sd if sd_b else None, 2)} ms (n={st.n_a}, {st.n_b}; "
                   f"permutation test, {two_sided(st.p_a_wider, st.p_b_wider)}) — "
                   f"{test_verdict(st.p_a_wider, st.p_b_wider)}")
        hits, k, p_fixed, p_dyn = slowest_runs_test(base, other)
        out.append(head + f"slowest runs: seed: max {mx0:.2f} -> {mx1:.2f} s; here: max "
                   f"{max(base):.2f} -> {max(other):.2f} ms, {hits} of the {k} slowest of "
                   f"{len(base) + len(other)} runs min_partial=5's "
                   f"({two_sided(p_fixed, p_dyn)}) — {test_verdict(p_fixed, p_dyn)}")
    return out


def run_000(lab: Lab, p: Mapping[str, Any]) -> None:
    caches = {s: lab.cache(s, cpu_partial=0) for s in p["sizes"]}
    for rep in lab.repeats(p["repeat"]):
        for size, info in caches.items():
            default = info["min_partial"]
            dyn2008 = min(max(_ilog2(size), 5), 10)
            variants: List[Tuple[str, Optional[int]]] = [
                ("min_partial=5", 5), ("ilog2(size) (2008 patch)", dyn2008),
                ("default ilog2(size)/2 (6.1)", default), (KERNEL, None)]
            kw = dict(threads=None, ops=p["batch"] * p["rounds"], batch=p["batch"])
            for label, mp in lab.interleaved(variants, lambda v: v[0], _twin_pair):
                if mp is None:
                    lab.storm(variant=label, table_row="batch", x=size, repeat=rep,
                              target="native", pattern="batch", size=size, design="kernel",
                              **kw)
                    continue
                lab.client.cache_set(info["name"], min_partial=mp)
                lab.storm(variant=label, table_row="batch", x=size, repeat=rep,
                          target="slablab", pattern="batch", cache=info, **kw)


def run_001(lab: Lab, p: Mapping[str, Any], avail: Avail) -> None:
    cols = [c for c in columns_for("seed-001", avail) if not c.missing]
    caches: Dict[Tuple[str, int], Any] = {}
    for c in cols:
        if c.design is None:
            continue
        for size in (8, 4096):
            try:
                caches[(c.label, size)] = lab.cache(size, c.design, **c.tunables)
            except Exception as e:  # noqa: BLE001 — the module refuses: say so in the table
                lab.missing[c.label] = f"missing: {e}"
    for c in cols:
        if c.design not in (None, "slub") and not avail.kmalloc_design:
            lab.missing[c.label + " kmalloc"] = MISSING_KMALLOC
    kw = dict(threads=1, cpus="0", batch=100, ops=100 * p["rounds"])
    for rep in lab.repeats(p["repeat"]):
        for c in lab.interleaved(cols, lambda c: c.label, _twin_column):
            base = base_of(c.label)
            if base in lab.missing:
                continue
            for size, ksize in ((8, 1), (4096, 4096)):
                if c.design is None:
                    lab.storm(variant=c.label, table_row="cache", x=ksize, repeat=rep,
                              target="native", pattern="batch", size=size, **kw)
                    lab.storm(variant=c.label, table_row="kmalloc", x=ksize, repeat=rep,
                              target="native-kmalloc", pattern="batch", size=ksize, **kw)
                    continue
                lab.storm(variant=c.label, table_row="cache", x=ksize, repeat=rep,
                          target="slablab", pattern="batch", cache=caches[(base, size)],
                          **kw)
                if base + " kmalloc" in lab.missing:
                    continue
                try:
                    _kmalloc_as(lab, c)
                except (NotImplementedError, Exception) as e:  # noqa: BLE001
                    lab.missing[base + " kmalloc"] = str(e) if str(e).startswith(
                        "missing") else f"missing: {e}"
                    continue
                try:
                    lab.storm(variant=c.label, table_row="kmalloc", x=ksize, repeat=rep,
                              target="kmalloc", pattern="batch", size=ksize, **kw)
                finally:
                    _kmalloc_as(lab, None)


def _kmalloc_as(lab: Lab, c: Optional[Column]) -> None:
    """slablab's kmalloc classes as column ``c``'s design (None: back to slub): the design
    and its lists through lab set, then the column's other tunables (the 2.4-like
    columns' limit, batchcount, shared) written to every class as to any cache
    (cache set), each class's own values put back before the next switch."""
    design = (c.design if c is not None else None) or "slub"
    tun = dict(c.tunables) if c is not None else {}
    lists = {k: v for k, v in tun.items() if k == "lists"}
    arrays = {k: v for k, v in tun.items() if k != "lists"}
    _kmalloc_arrays_back(lab)
    # classes on slub already: a slub column has nothing to set (its lists unused)
    if design != lab.kmalloc_design or (lists and design != "slub"):
        set_kmalloc_design(lab.client, design, lists)
        lab.kmalloc_design = design
    if not arrays:
        return
    for k in _kmalloc_classes(lab.client):
        # saved before it is written: a refusal halfway leaves what to put back
        lab.kmalloc_arrays[k["name"]] = {t: k[t] for t in arrays if t in k}
        lab.client.cache_set(k["name"], **arrays)


def _kmalloc_arrays_back(lab: Lab) -> None:
    """Put back the kmalloc classes' tunables that :func:`_kmalloc_as` changed: every
    class it can, then the first refusal is raised."""
    saved, lab.kmalloc_arrays = lab.kmalloc_arrays, {}
    first: Optional[Exception] = None
    for name, tun in saved.items():
        try:
            if tun:
                lab.client.cache_set(name, **tun)
        except Exception as e:  # noqa: BLE001 — the others are put back all the same
            first = first or e
    if first is not None:
        raise first


#: seed-002's full thread axis has at most this many points: the seed's netperf had ten
#: (16 to 160 threads in steps of 16), and one every two threads on a 40-cpu VM would be
#: 80 thread counts, hours of storms.
SEED_002_MAX_POINTS = 10


def seed_002_threads(cpus: int, every: bool) -> List[int]:
    """seed-002's storm thread counts on *cpus* vCPUs, up to 4 × *cpus* (remote storms
    need pairs, so at least 2): with *every*, evenly spaced even counts down from the top,
    at most :data:`SEED_002_MAX_POINTS` of them (2, 4, 6, 8 on 2 vCPUs; 16, 32, … 160 on
    40, the seed's own axis); else the powers of two."""
    top = max(2, cpus * 4)
    if every:
        step = 2 * -(-top // (2 * SEED_002_MAX_POINTS))
        return sorted(range(top, 1, -step))
    threads, t = [], 2
    while t <= top:
        threads.append(t)
        t *= 2
    return threads


def run_002(lab: Lab, p: Mapping[str, Any]) -> None:
    threads = seed_002_threads(lab.status["nr_online_cpus"], p["every"])
    info = lab.cache(p["size"])
    default = info["cpu_partial"]
    kw = dict(ops=p["ops"], ring=p["ring"])
    for rep in lab.repeats(p["repeat"]):
        for t in threads:
            for label, cp in lab.interleaved(
                    (("cpu_partial=0 (before)", 0),
                     (f"cpu_partial={default} (after)", default), (KERNEL, None)),
                    lambda v: v[0], _twin_pair):
                if cp is None:
                    lab.storm(variant=label, table_row="remote", x=t, repeat=rep,
                              target="native", pattern="remote", size=p["size"], threads=t,
                              **kw)
                    continue
                lab.client.cache_set(info["name"], cpu_partial=cp)
                lab.storm(variant=label, table_row="remote", x=t, repeat=rep,
                          target="slablab", pattern="remote", cache=info, threads=t, **kw)


def run_003(lab: Lab, p: Mapping[str, Any], avail: Avail) -> None:
    cols = [c for c in columns_for("seed-003", avail) if not c.missing]
    kw = dict(sizes=MIXED_SIZES, working_set=p["working_set"], duration_ms=p["duration_ms"])
    try:
        for rep in lab.repeats(p["repeat"]):
            for c in lab.interleaved(cols, lambda c: c.label, _twin_column):
                if base_of(c.label) in lab.missing:
                    continue
                if c.design is None:
                    # the kernel's SLUB on kmalloc classes of the storm's own (the native
                    # target with sizes): its own classes hold the system's objects, and
                    # their free slots took the storm's without a page (issue 24)
                    try:
                        lab.storm(variant=c.label, table_row="churn", x=None, repeat=rep,
                                  target="native", pattern="churn", **kw)
                    except OSError as e:    # SLOB has none (one heap): say it in the table
                        lab.missing[base_of(c.label)] = f"missing: {e}"
                    continue
                try:
                    _kmalloc_as(lab, c)
                except Exception as e:  # noqa: BLE001 — say it in the table
                    lab.missing[base_of(c.label)] = str(e) if str(e).startswith("missing") \
                        else f"missing: {e}"
                    continue
                lab.storm(variant=c.label, table_row="churn", x=None, repeat=rep,
                          target="kmalloc", pattern="churn", design=c.design, **kw)
    finally:
        if lab.kmalloc_design != "slub":
            _kmalloc_as(lab, None)


def _kmalloc_class(client: Any, size: int) -> Optional[Mapping[str, Any]]:
    for c in client.cache_list():
        if c.get("owner") == "kmalloc" and c.get("size") == size:
            return dict(c)
    return None


def run_004(lab: Lab, p: Mapping[str, Any]) -> None:
    before = lab.status.get("kmalloc_page_policy", "slab")
    kw = dict(ops=p["ops"], size=4096)
    klass = _kmalloc_class(lab.client, 4096)
    native_order = None
    try:
        from . import native_cache
        native_order = native_cache("kmalloc-4096").get("order")
    except Exception:   # noqa: BLE001 — no SLUB sysfs: the order column says '-'
        pass
    try:
        for rep in lab.repeats(p["repeat"]):
            for label, policy in lab.interleaved(
                    (("slab: kmalloc-4096, order-3 slabs", "slab"),
                     ("page allocator", "page_alloc"), (KERNEL, None)), lambda v: v[0],
                    _twin_pair):
                if policy is None:
                    lab.storm(variant=label, table_row="pair", x=4096, repeat=rep,
                              target="native-kmalloc", pattern="pair", order=native_order,
                              **kw)
                    continue
                lab.client.set_page_policy(policy)
                lab.storm(variant=label, table_row="pair", x=4096, repeat=rep,
                          target="kmalloc", pattern="pair",
                          order=(klass or {}).get("order") if policy == "slab" else 0, **kw)
    finally:
        lab.client.set_page_policy(before)


# ---------------------------------------------------------------- replays (issue 16)
#
# seed-002 and seed-003 add a row from a real workload: its kernel allocations recorded
# at the experiment's start (slablab.record, the kmem tracepoints) and replayed on each
# design and on the kernel's SLUB (docs/replay.md). The rows go to replays.csv and the
# recording's account to replay.json; without tracefs they are skipped, saying why.

#: The workload each experiment records, and its sizes.
REPLAY_WORKLOADS: Dict[str, Dict[str, Any]] = {
    "seed-002": {"workload": "hackbench", "repeat": {"small": 3, "full": 10},
                 "args": {"small": ["-g", "2", "-f", "5", "-l", "50", "-s", "100"],
                          "full": ["-g", "4", "-f", "10", "-l", "200", "-s", "100"]}},
    "seed-003": {"workload": "bootlike", "repeat": {"small": 3, "full": 10},
                 "env": {"small": {"BOOTLIKE_FILES": "30", "BOOTLIKE_PROCESSES": "4"},
                         "full": {"BOOTLIKE_ROUNDS": "2"}},
                 # time-scaled: the replay lasts about this long (memory over time)
                 "replay_seconds": {"small": 2.0, "full": 5.0}},
}
REPLAY_COLUMNS: Sequence[str] = (
    "experiment", "variant", "repeat", "target", "cpu_partial", "kmalloc_design",
    "time_scale", "ops_per_sec", "cycles_per_alloc", "cycles_per_free", "peak_pages",
    "avg_pages", "peak_live_bytes", "overhead_pct", "allocs", "frees", "remote_frees",
    "failures", "live_at_end", "elapsed_ns", "page_size", "date")


def recording_missing() -> Optional[str]:
    """Why the kernel's allocations cannot be recorded here (None: they can): the
    recorder needs tracefs with instances, and root."""
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        return "skipped: recording needs root (tracefs)"
    for d in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        if os.path.isdir(os.path.join(d, "instances")) and \
                os.path.isdir(os.path.join(d, "events", "kmem")):
            return None
    return "skipped: no tracefs with kmem events (/sys/kernel/tracing) to record with"


def _script(name: str) -> Optional[str]:
    """scripts/NAME of the repository (SLABLAB_REPO, the working directory, or the
    package's source tree)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for root in (os.environ.get("SLABLAB_REPO"), os.getcwd(),
                 os.path.join(here, "..", "..")):
        if root and os.access(os.path.join(root, "scripts", name), os.X_OK):
            return os.path.abspath(os.path.join(root, "scripts", name))
    return None


#: A real boot's trace (``make record-boot``: the VM booted with trace_event=), which
#: seed-003's replay row takes instead of recording the boot-like workload when set and
#: present (``make experiments`` sets it to build/boot.trace, recording it first).
BOOT_TRACE_ENV = "SLABLAB_BOOT_TRACE"


def boot_account(path: str) -> Dict[str, Any]:
    """The account of a real boot's trace at ``path`` (its header: read_trace), as
    :func:`record_workload` gives a recording's."""
    from . import read_trace
    h = read_trace(path)
    acct: Dict[str, Any] = dict(
        workload="boot", trace=path, command="make record-boot", events=h["nr_events"],
        objects=h["nr_objects"], caches=len(h["caches"]), duration_ns=h["duration_ns"],
        lost_events=h["lost_events"], unmatched_frees=h["unmatched_frees"],
        live_at_end=h["live_at_end"], exit_status=0)
    acct["peak_live_bytes"], acct["avg_live_bytes"] = trace_live_bytes(path)
    acct["how"] = (f"a real boot, recorded from its first allocation with the kmem "
                   f"tracepoints on the kernel's command line (trace_event=; make "
                   f"record-boot, {os.path.basename(path)}): {h['nr_events']:,} events, "
                   f"{h['nr_objects']:,} objects, {len(h['caches'])} caches, "
                   f"{h['duration_ns'] / 1e9:.1f} s; lost events {h['lost_events']} (what "
                   f"overran the ring buffer), frees of objects from before the trace "
                   f"{h['unmatched_frees']}")
    return acct


def record_workload(name: str, out_dir: str, scale: str,
                    record: Optional[Callable[..., Any]] = None) -> Dict[str, Any]:
    """Record experiment ``name``'s workload into ``out_dir``; returns its account:
    ``trace`` (the path, or None), ``how`` (the command and what was recorded) or
    ``skipped`` (why not). seed-003 takes a real boot's trace instead where
    :data:`BOOT_TRACE_ENV` names one that exists."""
    import shutil
    w = REPLAY_WORKLOADS[name]
    boot = os.environ.get(BOOT_TRACE_ENV)
    if name == "seed-003" and boot and os.path.exists(boot):
        return boot_account(boot)
    acct: Dict[str, Any] = {"workload": w["workload"], "trace": None}
    why = recording_missing()
    if why:
        acct["skipped"] = why
        return acct
    env: Dict[str, str] = {}
    if w["workload"] == "hackbench":
        if not shutil.which("hackbench"):
            acct["skipped"] = "skipped: no hackbench (Debian's rt-tests: scripts/deps.sh)"
            return acct
        cmd = ["hackbench"] + list(w["args"][scale])
    else:
        script = _script("record-bootlike.sh")
        if not script:
            acct["skipped"] = "skipped: no scripts/record-bootlike.sh (run from the repository)"
            return acct
        cmd = [script, "--workload"]
        env = dict(w["env"][scale])
    if record is None:
        from . import record as record_fn
        record = record_fn
    path = os.path.join(out_dir, f"{w['workload']}.trace")
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        rep = record(path, cmd, buffer_kb=32768)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    acct.update(trace=path, command=" ".join(f"{k}={v}" for k, v in env.items())
                + (" " if env else "") + " ".join(os.path.basename(c) if c == cmd[0] else c
                                                  for c in cmd),
                events=rep["events"], objects=rep["objects"], caches=rep["caches"],
                duration_ns=rep["duration_ns"], lost_events=rep["lost_events"],
                lost_frees=rep["lost_frees"], unmatched_frees=rep["unmatched_frees"],
                live_at_end=rep["live_at_end"], peak_live_bytes=rep["peak_live_bytes"],
                exit_status=rep["exit_status"])
    acct["peak_live_bytes"], acct["avg_live_bytes"] = trace_live_bytes(path)
    acct["how"] = (f"{acct['command']} recorded in this kernel at the experiment's start "
                   f"(slablab.record): {rep['events']:,} events, {rep['objects']:,} objects, "
                   f"{rep['caches']} caches, {rep['duration_ns'] / 1e9:.1f} s; lost events "
                   f"{rep['lost_events']}, frees missed {rep['lost_frees']}")
    return acct


def trace_live_bytes(path: str) -> Tuple[int, float]:
    """A trace's live bytes (docs/replay.md's file format): at their peak, and their
    time-weighted mean over the trace (each allocation's bytes_alloc from its event to
    its free; frees of objects from before left out, as the replay does)."""
    import struct
    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    header_size, _cpus, nr_caches, nr_events = struct.unpack_from("<IIIQ", data, 12)
    pos = header_size
    for _ in range(nr_caches):
        (n,) = struct.unpack_from("<H", data, pos + 8)
        pos += 10 + n
    ev = np.frombuffer(data, dtype=np.dtype([("ts", "<u8"), ("obj", "<u4"), ("req", "<u4"),
                                             ("alloc", "<u4"), ("gfp", "<u4"),
                                             ("cpu", "<u2"), ("cache", "<u2"),
                                             ("op", "u1"), ("res", "u1", (3,))]),
                       count=nr_events, offset=pos)
    delta = np.where(ev["op"] == 1, ev["alloc"].astype(np.int64),
                     np.where(ev["obj"] != 0, -ev["alloc"].astype(np.int64), 0))
    live = np.cumsum(delta)
    if not len(live):
        return 0, 0.0
    span = float(ev["ts"][-1] - ev["ts"][0])
    if span <= 0:
        return int(live.max()), float(live[-1])
    dt = np.diff(ev["ts"].astype(np.float64))
    return int(live.max()), float((live[:-1] * dt).sum() / span)


class ReplayVariant(NamedTuple):
    """A replay column: a target ('slablab:DESIGN', 'native'), the kmalloc classes'
    design (a Column, None: slub as it is), and cpu_partial for the replay's caches and
    the kmalloc classes (None: their default)."""
    label: str
    target: str
    kmalloc: Optional[Column]
    cpu_partial: Optional[int]


def replay_variants(name: str, avail: Avail) -> List[ReplayVariant]:
    """seed-002: slub with cpu_partial=0 and its default, the other designs, the
    kernel's SLUB; seed-003: seed-003's columns (slob lists=1/2/3, slab, slub, sheaves,
    the kernel's SLUB), the kmalloc classes of each column's design."""
    if name == "seed-002":
        out = [ReplayVariant("slub cpu_partial=0 (before)", "slablab:slub", None, 0),
               ReplayVariant("slub default (after)", "slablab:slub", None, None)]
        for d in ("sheaves", "slab", "slob"):
            if d in avail.designs:
                out.append(ReplayVariant(d, f"slablab:{d}",
                                         column(d, d, {}, avail, kmalloc=True), None))
        return out + [ReplayVariant(KERNEL, "native", None, None)]
    out = []
    for c in columns_for("seed-003", avail):
        if c.missing:
            continue
        out.append(ReplayVariant(c.label, "native" if c.design is None
                                 else f"slablab:{c.design}", c, None))
    return out


def _kmalloc_classes(client: Any) -> List[Mapping[str, Any]]:
    return [dict(c) for c in client.cache_list() if c.get("owner") == "kmalloc"]


def run_replays(lab: Lab, name: str, avail: Avail, scale: str) -> None:
    """Record the experiment's workload and replay it on each variant, repeat times,
    variants interleaved; rows to replays.csv, the recording's account to replay.json."""
    w = REPLAY_WORKLOADS[name]
    acct = record_workload(name, lab.out_dir, scale)
    rows: List[Dict[str, Any]] = []
    try:
        if acct.get("skipped"):
            lab.log(f"{name}: replay rows {acct['skipped']}")
            return
        lab.log(f"{name}: {acct['how']}")
        time_scale = 0.0
        if "replay_seconds" in w and acct["duration_ns"]:
            time_scale = max(0.001, round(min(1.0, w["replay_seconds"][scale] * 1e9
                                              / acct["duration_ns"]), 3))
        acct["time_scale"] = time_scale
        variants = replay_variants(name, avail)
        for rep in lab.repeats(w["repeat"][scale]):
            for v in lab.interleaved(variants, lambda v: "replay " + v.label):
                row = _replay_one(lab, name, v, rep, acct["trace"], time_scale)
                if row and rep >= 0:        # a warm-up replay's row is not kept
                    rows.append(row)
    finally:
        # the table's order (each repeat ran its variants in a random order)
        rows.sort(key=lambda r: (r["repeat"], lab.slots.get("replay " + r["variant"], 0)))
        with open(os.path.join(lab.out_dir, "replays.csv"), "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(REPLAY_COLUMNS))
            wr.writeheader()
            wr.writerows(rows)
        with open(os.path.join(lab.out_dir, "replay.json"), "w") as f:
            json.dump(acct, f, indent=1)


def _replay_one(lab: Lab, name: str, v: ReplayVariant, rep: int, trace: str,
                time_scale: float) -> Optional[Dict[str, Any]]:
    """One replay of ``trace`` as variant ``v``: the kmalloc classes set to its design
    (and cpu_partial; the replay empties them), then put back."""
    client = lab.client
    restore: Dict[str, int] = {}
    t0 = time.monotonic()
    try:
        if v.kmalloc is not None and v.kmalloc.design is not None:
            _kmalloc_as(lab, v.kmalloc)
        for c in _kmalloc_classes(client):
            if v.cpu_partial is not None and c.get("cpu_partial") != v.cpu_partial:
                restore[c["name"]] = c["cpu_partial"]
                client.cache_set(c["name"], cpu_partial=v.cpu_partial)
        r = client.replay(trace, v.target, time_scale=time_scale,
                          cpu_partial=v.cpu_partial if v.target.startswith("slablab")
                          else None)
    except Exception as e:  # noqa: BLE001 — say it in the table
        lab.missing[f"replay {v.label}"] = str(e) if str(e).startswith("missing") \
            else f"missing: {e}"
        return None
    finally:
        for cname, cp in restore.items():
            client.cache_set(cname, cpu_partial=cp)
        if lab.kmalloc_design != "slub":
            _kmalloc_as(lab, None)
    lab.log(f"  {name} replay {v.label:34s} {_repeat(rep)} "
            f"({time.monotonic() - t0:.1f}s)")
    row = {k: r.get(k) for k in REPLAY_COLUMNS if k in r}
    row.update(experiment=name, variant=v.label, repeat=rep, target=r["label"],
               cpu_partial=v.cpu_partial,
               kmalloc_design=(v.kmalloc.design if v.kmalloc and v.kmalloc.design
                               else ("slub" if v.target.startswith("slablab") else "")),
               date=_now())
    return row


def table_replays(name: str, rdf: "pd.DataFrame", acct: Mapping[str, Any],
                  missing: Mapping[str, str]) -> str:
    """The replay rows of seed-002 (throughput) or seed-003 (memory) (pure)."""
    w = acct.get("workload") or REPLAY_WORKLOADS[name]["workload"]
    if acct.get("skipped") or rdf is None or rdf.empty:
        why = acct.get("skipped") or "no replay ran"
        return f"  {w} replay: {why}"
    d = rdf[rdf["experiment"] == name]
    variants = list(dict.fromkeys(d["variant"]))
    reps = d["repeat"].nunique()
    out = [f"  {w} replay (issue 16): {acct.get('how', '?')}"]
    if name == "seed-002":
        out.append(f"    replayed as fast as possible on each column, {reps} runs (ops/s "
                   "median; the replay's caches and the kmalloc classes with the "
                   "column's cpu_partial):")
        rows = []
        for v in variants:
            g = d[d["variant"] == v]
            rows.append([v, _fmt(_med(g, "ops_per_sec")), _fmt(_med(g, "cycles_per_alloc")),
                         _fmt(_med(g, "cycles_per_free")), _fmt(_med(g, "remote_frees")),
                         _fmt(_med(g, "peak_pages"))])
        out.append(table(["", "ops/s", "cycles/alloc", "cycles/free", "remote frees",
                          "peak pages"], rows, "    "))
        before, after = "slub cpu_partial=0 (before)", "slub default (after)"
        ci = paired_ci(d, "ops_per_sec", before, after) \
            if before in variants and after in variants else None
        t, b, a = S.SEED_002[-1]
        out.append("  verdict: " + verdict_line("hackbench replay, after/before",
                                                f"after/before ({t} threads)",
                                                S.change(b, a), ci,
                                                per_repeat_s=_per_repeat_s(d)))
    else:
        scale = _med(d, "time_scale")
        ps = _med(d, "page_size") or 4096
        live_peak = float(acct.get("peak_live_bytes") or 0) / ps
        live_avg = float(acct.get("avg_live_bytes") or 0) / ps
        out.append(f"    replayed time-scaled (x{scale:g}) on each column, {reps} runs; "
                   "pages held (median) at the peak and time-weighted over the replay, "
                   f"against the trace's live data: {live_peak:,.1f} pages at the peak, "
                   f"{live_avg:,.1f} time-weighted (\"N pages for M pages of data\"):")
        rows = []
        for v in variants:
            g = d[d["variant"] == v]
            peak, avg = _med(g, "peak_pages"), _med(g, "avg_pages")
            rows.append([v, _fmt(peak), pct(peak / live_peak) if peak and live_peak else "-",
                         _fmt(avg), pct(avg / live_avg) if avg and live_avg else "-"])
        out.append(table(["", "peak pages", "over live", "time-weighted pages",
                          "over live"], rows, "    "))
        base, other = "slob lists=1", "slob lists=2"
        ci = paired_ci(d, "avg_pages", base, other) \
            if base in variants and other in variants else None
        s1, s2 = S.SEED_003["SLOB (vanilla)"][2][2], S.SEED_003["SLOB (patched)"][2][2]
        kind = "real boot" if w == "boot" else "boot-like"
        out.append("  verdict: " + verdict_line(
            f"{kind} replay, slob lists=2 vs lists=1, time-weighted pages",
            "SLOB patched vs vanilla", S.change(s1, s2), ci,
            seed_error=S.error_003_used("SLOB (vanilla)", "SLOB (patched)"),
            per_repeat_s=_per_repeat_s(d)))
        for fig, what in (("peak_pages", "peak"), ("avg_pages", "time-weighted")):
            ci = paired_ci(d, fig, KERNEL, "slub") \
                if KERNEL in variants and "slub" in variants else None
            if ci:
                out.append(f"    slub against the kernel's SLUB (the same allocator), {what} "
                           f"pages: {pct(ci.ratio)} [{pct(ci.lo)}, {pct(ci.hi)}] (n={ci.n})")
        out.append("    (the kernel's SLUB column: the replay's own caches and kmalloc "
                   "classes, read in the system's slab pages above the start with every "
                   "cpu's pending counts; what the rest of the kernel allocates meanwhile "
                   "is in it)")
    for k, why in missing.items():
        if k.startswith("replay "):
            out.append(f"    {k[len('replay '):]}: {why}")
    return "\n".join(out)


def read_missing(exp_dir: str) -> Dict[str, str]:
    """An experiment directory's missing.json: what could not run and why (its text
    values; the numbers beside them, seconds, warm-up and order seed, are left out)."""
    path = os.path.join(exp_dir, "missing.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {k: v for k, v in json.load(f).items() if isinstance(v, str)}


def report_replays(name: str, exp_dir: str) -> Optional[str]:
    """The replay rows' text from an experiment's replays.csv and replay.json; None
    where the experiment has no replay rows."""
    if name not in REPLAY_WORKLOADS:
        return None
    path = os.path.join(exp_dir, "replay.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        acct = json.load(f)
    rdf = None
    csv_path = os.path.join(exp_dir, "replays.csv")
    if os.path.exists(csv_path) and os.path.getsize(csv_path):
        import pandas as pd
        rdf = pd.read_csv(csv_path)
    return table_replays(name, rdf, acct, read_missing(exp_dir))


# ---------------------------------------------------------------- live workloads (issue 26)
#
# seed-002's knob on the kernel's own allocator: hackbench (Debian's rt-tests) with SLUB's
# per-cpu partial lists as booted ("after" the 2011 patch) and turned down to 0 on every
# cache through /sys/kernel/slab/*/cpu_partial ("before"), each repeat's variants in a
# random order. Rows to live.csv; the table reads them (table_live).

#: hackbench's sizes: groups (40 tasks each: 20 senders, 20 receivers), loops, repeats.
LIVE_HACKBENCH: Dict[str, Dict[str, Any]] = {
    "small": dict(groups=[1, 2, 4], loops=50, repeat=10),
    "full": dict(groups=[1, 2, 4, 8, 16], loops=500, repeat=10)}
LIVE_COLUMNS: Sequence[str] = ("experiment", "variant", "groups", "repeat", "warmup",
                               "seconds", "real_s", "sys_s", "user_s", "caches_set",
                               "retries", "date")
LIVE_BEFORE, LIVE_AFTER = "cpu_partial=0 on every cache (before)", \
    "cpu_partial as booted (after)"
SYS_SLAB = "/sys/kernel/slab"


def cpu_partial_files(root: str = SYS_SLAB) -> Dict[str, int]:
    """Every kernel cache's cpu_partial, by directory (the aliases are links to these:
    each cache once). Empty without SLUB's sysfs or the file (SLUB_CPU_PARTIAL=n)."""
    return slab_files("cpu_partial", root)


def slab_files(attr: str, root: str = SYS_SLAB) -> Dict[str, int]:
    """Every kernel cache's ``attr`` (a number file of /sys/kernel/slab/CACHE/), by
    directory, each cache once (the aliases are links). Empty without SLUB's sysfs."""
    out: Dict[str, int] = {}
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return out
    for n in names:
        path = os.path.join(root, n)
        if os.path.islink(path) or not os.path.isdir(path):
            continue
        try:
            with open(os.path.join(path, attr)) as f:
                out[n] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return out


def write_cpu_partial(values: Mapping[str, int], root: str = SYS_SLAB) -> int:
    """Write each cache's cpu_partial; returns how many took it. A cache that went away
    meanwhile is passed over; any other refusal raises OSError naming the file."""
    return write_slab_files("cpu_partial", values, root)


def write_slab_files(attr: str, values: Mapping[str, int], root: str = SYS_SLAB) -> int:
    """Write each cache's ``attr`` file; returns how many took it (write_cpu_partial())."""
    done = 0
    for n, v in values.items():
        path = os.path.join(root, n, attr)
        try:
            with open(path, "w") as f:
                f.write(f"{v}\n")
            done += 1
        except FileNotFoundError:
            continue
        except OSError as e:
            raise OSError(e.errno, f"{path}: {e.strerror}") from e
    return done


def write_live_csv(out_dir: str, rows: Sequence[Mapping[str, Any]],
                   columns: Sequence[str] = LIVE_COLUMNS, append: bool = False) -> None:
    """The live rows, seed-000's fio or seed-002's hackbench (LIVE_COLUMNS), or seed-004's
    tbench of one boot (TBENCH_COLUMNS, ``append``: after the earlier boots' rows), to
    OUT_DIR/live.csv; the header is written when the file is new or empty."""
    path = os.path.join(out_dir, "live.csv")
    mode = "a" if append else "w"
    new = not append or not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, mode, newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(columns))
        if new:
            wr.writeheader()
        wr.writerows(rows)


def hackbench_seconds(output: str) -> float:
    """hackbench's "Time: 0.067" line, in seconds; ValueError quoting the output when
    it has none."""
    for line in output.splitlines():
        if line.startswith("Time:"):
            return float(line.split()[1])
    raise ValueError(f"no 'Time:' line in hackbench's output: {output.strip()[-200:]!r}")


def run_live_hackbench(lab: Lab, scale: str, root: str = SYS_SLAB,
                       run: Optional[Callable[..., Any]] = None) -> None:
    """seed-002 live: hackbench at each group count, cpu_partial as booted and 0 on every
    kernel cache, interleaved; the kernel's cpu_partial values are put back whatever
    happens. Rows to live.csv; why it could not run to lab.missing["live"]."""
    import shutil
    import subprocess
    p = LIVE_HACKBENCH[scale]
    rows: List[Dict[str, Any]] = []
    booted = cpu_partial_files(root)
    try:
        if not shutil.which("hackbench") and run is None:
            lab.missing["live"] = "skipped: no hackbench (Debian's rt-tests: scripts/deps.sh)"
            return
        if not booted:
            lab.missing["live"] = (f"skipped: no cpu_partial files under {root} (SLUB's "
                                   "sysfs with SLUB_CPU_PARTIAL)")
            return
        run = run or subprocess.run
        for rep in lab.repeats(p["repeat"]):
            for g in p["groups"]:
                for label in lab.interleaved((LIVE_BEFORE, LIVE_AFTER), lambda v: v):
                    n = write_cpu_partial({k: 0 for k in booted} if label == LIVE_BEFORE
                                          else booted, root)
                    r = run(["hackbench", "-g", str(g), "-l", str(p["loops"])],
                            capture_output=True, text=True, timeout=600, check=False)
                    if r.returncode != 0:
                        raise RuntimeError(f"hackbench -g {g} exited {r.returncode}: "
                                           f"{(r.stderr or r.stdout).strip()[-200:]}")
                    secs = hackbench_seconds(r.stdout)
                    rows.append(dict(experiment=lab.name, variant=label, groups=g,
                                     repeat=rep, warmup=int(rep < 0), seconds=secs,
                                     caches_set=n, date=_now()))
                    lab.log(f"  {lab.name} live {label:38s} -g {g:<3} {_repeat(rep)} "
                            f"({secs:.3f} s)")
    except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
        lab.missing["live"] = f"missing: {e}"
    finally:
        if booted:
            write_cpu_partial(booted, root)
        write_live_csv(lab.out_dir, rows)


def table_live(ldf: Optional["pd.DataFrame"], missing: Mapping[str, str]) -> str:
    """seed-002's live rows (pure): hackbench's seconds per group count, the throughput
    ratio after/before paired by repeat with its t interval, and a verdict at the most
    groups against the seed's +4.0%."""
    why = missing.get("live")
    head = ("  live (issue 26): hackbench on the kernel's own SLUB, cpu_partial as booted "
            "(after) vs 0 on every cache (before), through /sys/kernel/slab")
    if why:
        return f"{head}: {why}"
    if ldf is None or ldf.empty:
        return f"{head}: no runs"
    d = ldf[ldf["warmup"] == 0].assign(per_sec=lambda x: 1.0 / x["seconds"])
    reps = d["repeat"].nunique()
    out = [head + f"; seconds (median of {reps} runs), throughput after/before with 95% CI:"]
    rows = []
    for g in sorted(d["groups"].unique()):
        ci = paired_ci(d, "per_sec", LIVE_BEFORE, LIVE_AFTER, groups=g)
        rows.append([f"{int(g)} ({int(g) * 40} tasks)",
                     _fmt(_med(d[(d["groups"] == g) & (d["variant"] == LIVE_BEFORE)],
                               "seconds"), 3),
                     _fmt(_med(d[(d["groups"] == g) & (d["variant"] == LIVE_AFTER)],
                               "seconds"), 3),
                     f"{pct(ci.ratio)} [{pct(ci.lo)}, {pct(ci.hi)}]" if ci else "-"])
    out.append(table(["groups", "before", "after", "after/before"], rows, "    "))
    most = max(d["groups"]) if len(d) else None
    ci = paired_ci(d, "per_sec", LIVE_BEFORE, LIVE_AFTER, groups=most) \
        if most is not None else None
    t, b, a = S.SEED_002[-1]
    out.append("  verdict: " + verdict_line(
        f"live hackbench, {int(most) if most is not None else '?'} groups, after/before",
        f"netperf after/before ({t} threads)", S.change(b, a), ci,
        per_repeat_s=_per_repeat_s(d, "real_s", 1.0, "seconds")))
    return "\n".join(out)


#: seed-000 live: fio's examples/netio.fio (the seed's "netio example script"): a
#: receiver listening and a sender writing 4 KiB blocks to it over TCP on localhost,
#: iodepth 128, the sender starting 1 s later; ``size`` per scale (the seed's took 23 s
#: on its machine; the example now says 100g).
LIVE_FIO: Dict[str, Dict[str, Any]] = {
    "small": dict(size="64m", repeat=10), "full": dict(size="1g", repeat=50)}
LIVE_FIXED, LIVE_DYNAMIC = "min_partial=5 on every cache (2008's MIN_PARTIAL)", \
    "min_partial=ilog2(size) per cache (the 2008 patch)"


def netio_job(port: int, size: str) -> str:
    """fio's examples/netio.fio with ``port`` and ``size``."""
    return ("[global]\nioengine=net\nport={port}\nprotocol=tcp\nbs=4k\nsize={size}\n"
            "iodepth=128\n\n[receiver]\nlisten\nrw=read\n\n[sender]\n"
            "hostname=localhost\nstartdelay=1\nrw=write\n").format(port=port, size=size)


def patch_min_partial(slab_size: int) -> int:
    """The 2008 patch's min_partial of a cache: ilog2(s->size), clamped to [5, 10]
    (MIN_PARTIAL, MAX_PARTIAL); s->size is sysfs's slab_size."""
    return min(max(_ilog2(max(slab_size, 1)), 5), 10)


def loopback_up(run: Callable[..., Any]) -> Optional[str]:
    """Bring the loopback interface up when it is down (slablab's VM boots with lo down:
    its /init configures no network), as fio's netio job talks over it; the reason it
    cannot be, or None."""
    try:
        with open("/sys/class/net/lo/operstate") as f:
            state = f.read().strip()
        with open("/sys/class/net/lo/flags") as f:
            up = int(f.read(), 16) & 1
    except (OSError, ValueError):
        return "no loopback interface (/sys/class/net/lo)"
    if up and state != "down":
        return None
    r = run(["ip", "link", "set", "lo", "up"], capture_output=True, text=True, timeout=60,
            check=False)
    if r.returncode != 0:
        return f"loopback is down and 'ip link set lo up' failed: {(r.stderr or '').strip()}"
    return None


def _free_port() -> int:
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


#: times a fio run that died of a signal, or whose connection was reset, is run again
#: (run_live_fio())
FIO_RETRIES = 2
#: the errors of fio's net engine at a run's end that say nothing about the allocator:
#: the receiver closes with a few KiB unread and the sender's last write is reset (seen on
#: 1 run in ~25 of 1 GiB under TCG: receiver 1048130 of 1048576 KiB, sender error 104)
FIO_RESET_ERRNOS = (errno.ECONNRESET, errno.EPIPE)


def fio_job_errors(terse: str) -> List[Tuple[str, int]]:
    """The jobs of fio's ``--output-format=terse`` output (version 3: "3;fio-3.33;JOB;
    GROUP;ERROR;...") whose error field is not 0, as (job, errno)."""
    errs = []
    for line in terse.splitlines():
        f = line.split(";")
        if len(f) > 4 and f[0] == "3" and f[1].startswith("fio") and f[4].isdigit() \
                and int(f[4]):
            errs.append((f[2], int(f[4])))
    return errs


def _fio_died(r: Any) -> bool:
    """A fio run to run again: it died of a signal (its own, or a job's: "got
    signal="), or its only errors are the net engine's reset connection at the end."""
    if r.returncode < 0 or "got signal=" in (r.stderr or "") + (r.stdout or ""):
        return True
    errs = fio_job_errors(r.stdout or "")
    return r.returncode != 0 and bool(errs) and all(e in FIO_RESET_ERRNOS for _j, e in errs)


def _fio_failure(r: Any) -> str:
    """What a failed fio run said: each failed job with its errno, then stderr's tail
    (terse output's figures say nothing useful)."""
    jobs = "; ".join(f"job {j}: errno {e} ({os.strerror(e)})"
                     for j, e in fio_job_errors(r.stdout or ""))
    tail = (r.stderr or "").strip()[-200:] or ("" if jobs else (r.stdout or "").strip()[-200:])
    return "; ".join(x for x in (jobs, tail) if x)


def run_live_fio(lab: Lab, scale: str, root: str = SYS_SLAB,
                 run: Optional[Callable[..., Any]] = None) -> None:
    """seed-000 live: fio's netio job on the kernel's own SLUB, every cache's min_partial
    5 (before) against the patch's ilog2(size) (after), interleaved, with cpu_partial 0
    on every cache for both (2008's SLUB had no per-cpu partial lists to hold the empty
    slabs min_partial is about); real, sys and user seconds of fio and its jobs
    (getrusage of the children). The booted min_partial and cpu_partial values are put
    back whatever happens. Rows to live.csv; why it could not run to lab.missing["live"]."""
    import resource
    import shutil
    import subprocess
    import tempfile
    p = LIVE_FIO[scale]
    rows: List[Dict[str, Any]] = []
    booted_min, booted_cpu = slab_files("min_partial", root), slab_files("cpu_partial", root)
    sizes = slab_files("slab_size", root)
    try:
        if not shutil.which("fio") and run is None:
            lab.missing["live"] = "skipped: no fio (Debian's fio: scripts/deps.sh)"
            return
        if not booted_min or not sizes:
            lab.missing["live"] = (f"skipped: no min_partial/slab_size files under {root} "
                                   "(SLUB's sysfs)")
            return
        run = run or subprocess.run
        why = loopback_up(run)
        if why:
            lab.missing["live"] = f"skipped: {why}"
            return
        fixed = {k: 5 for k in booted_min}
        dynamic = {k: patch_min_partial(sizes.get(k, 0)) for k in booted_min}
        write_slab_files("cpu_partial", {k: 0 for k in booted_cpu}, root)
        with tempfile.TemporaryDirectory(prefix="slablab-netio-") as tmp:
            job = os.path.join(tmp, "netio.fio")
            for rep in lab.repeats(p["repeat"]):
                for label in lab.interleaved((LIVE_FIXED, LIVE_DYNAMIC), lambda v: v):
                    n = write_slab_files("min_partial",
                                         fixed if label == LIVE_FIXED else dynamic, root)
                    # fio 3.33's net engine now and then fails at a run's end (a job
                    # killed by SIGPIPE, then fio by a double free; or the sender's last
                    # write reset): such a run is run again, at most FIO_RETRIES times,
                    # and counted in the row
                    for retry in range(FIO_RETRIES + 1):
                        with open(job, "w") as f:
                            f.write(netio_job(_free_port(), p["size"]))
                        before = resource.getrusage(resource.RUSAGE_CHILDREN)
                        t0 = time.monotonic()
                        r = run(["fio", "--output-format=terse", job], capture_output=True,
                                text=True, timeout=900, check=False)
                        real = time.monotonic() - t0
                        after = resource.getrusage(resource.RUSAGE_CHILDREN)
                        if r.returncode == 0 or not _fio_died(r):
                            break
                    if r.returncode != 0:
                        raise RuntimeError(f"fio exited {r.returncode}"
                                           f"{' after ' + str(retry) + ' retries' if retry else ''}"
                                           f": {_fio_failure(r)}")
                    rows.append(dict(experiment=lab.name, variant=label, repeat=rep,
                                     warmup=int(rep < 0), seconds=real, real_s=real,
                                     sys_s=after.ru_stime - before.ru_stime,
                                     user_s=after.ru_utime - before.ru_utime,
                                     caches_set=n, retries=retry, date=_now()))
                    lab.log(f"  {lab.name} live {label:50s} {_repeat(rep)} "
                            f"(real {real:.2f} s, sys {rows[-1]['sys_s']:.2f} s)")
    except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
        lab.missing["live"] = f"missing: {e}"
    finally:
        if booted_min:
            write_slab_files("min_partial", booted_min, root)
        if booted_cpu:
            write_slab_files("cpu_partial", booted_cpu, root)
        write_live_csv(lab.out_dir, rows)


def table_live_fio(ldf: Optional["pd.DataFrame"], missing: Mapping[str, str]) -> str:
    """seed-000's live rows (pure): real, sys and user seconds as the seed's table (min,
    max, avg, sd) per variant, the sys-time ratio after/before paired by repeat with its
    t interval against the seed's -13.0%, and the seed's headline — sd and max of sys
    time — judged by the spread and slowest-runs tests (:func:`tail_lines`' words)."""
    why = missing.get("live")
    head = ("  live (issue 26): fio's netio job over loopback on the kernel's own SLUB, "
            "min_partial 5 vs the 2008 patch's ilog2(size) on every cache (cpu_partial 0 "
            "on every cache for both), through /sys/kernel/slab")
    if why:
        return f"{head}: {why}"
    if ldf is None or ldf.empty:
        return f"{head}: no runs"
    d = ldf[ldf["warmup"] == 0]
    retried = int(d["retries"].fillna(0).astype(bool).sum()) if "retries" in d else 0
    out = [head + f"; seconds over {d['repeat'].nunique()} runs each"
           + (f" ({retried} run(s) repeated: fio died of a signal or its connection was "
              "reset)" if retried else "")
           + ":"]
    rows = []
    for part in ("real", "sys", "user"):
        for v, short in ((LIVE_FIXED, "min_partial=5"), (LIVE_DYNAMIC, "ilog2(size)")):
            t = describe(d[d["variant"] == v][f"{part}_s"])
            cells = [f"{t.min:.2f}", f"{t.max:.2f}", f"{t.avg:.2f}", f"{t.sd:.2f}"] \
                if t else ["-"] * 4
            rows.append([f"{part} {short}"] + cells)
    out.append(table(["", "min", "max", "avg", "sd"], rows, "    "))
    sys_ = S.SEED_000["sys"]
    ci = paired_ci(d, "sys_s", LIVE_FIXED, LIVE_DYNAMIC)
    out.append("  verdict: " + verdict_line(
        "live fio netio, sys time, ilog2(size) vs min_partial=5", "dynamic sys time",
        S.change(sys_["SLUB"][2], sys_["SLUB (dynamic)"][2]), ci,
        seed_error=S.error_000_sys(), per_repeat_s=_per_repeat_s(d, "real_s", 1.0)))
    base = list(d[d["variant"] == LIVE_FIXED]["sys_s"])
    other = list(d[d["variant"] == LIVE_DYNAMIC]["sys_s"])
    st = spread_test(base, other)
    sd0, sd1, mx0, mx1 = sys_["SLUB"][3], sys_["SLUB (dynamic)"][3], sys_["SLUB"][1], \
        sys_["SLUB (dynamic)"][1]
    if st is None:
        out.append("  verdict: live fio netio, sys time spread: - — too few runs to judge")
        return "\n".join(out)
    out.append(f"  verdict: live fio netio, sys time spread: seed: sd {sd0:.2f} -> {sd1:.2f} "
               f"s ({pct(sd1 / sd0)}); here: mean |run - median| {st.mad_a:.3f} -> "
               f"{st.mad_b:.3f} s (n={st.n_a}, {st.n_b}; permutation test, "
               f"{two_sided(st.p_a_wider, st.p_b_wider)}) — "
               f"{test_verdict(st.p_a_wider, st.p_b_wider)}")
    hits, k, p_fixed, p_dyn = slowest_runs_test(base, other)
    out.append(f"  verdict: live fio netio, slowest sys times: seed: max {mx0:.2f} -> "
               f"{mx1:.2f} s; here: max {max(base):.2f} -> {max(other):.2f} s, {hits} of the "
               f"{k} slowest of {len(base) + len(other)} runs min_partial=5's "
               f"({two_sided(p_fixed, p_dyn)}) — {test_verdict(p_fixed, p_dyn)}")
    return "\n".join(out)


# ---------------------------------------------------------------- seed-004 live: tbench
#
# Seed 004's own workload on the kernel's own SLUB: tbench (Debian's dbench: tbench_srv
# and tbench's clients over loopback) with kmalloc-4k at the order the kernel chooses (3
# on 6.1 with 2 vCPUs) against order 0. 6.1's /sys/kernel/slab/*/order is read-only, so
# order 0 takes a boot with slub_max_order=0 — which caps every cache at order 0, where
# the 2008 patch changed only the PAGE_SIZE caches (it made kmalloc-4096 a slab cache at
# PAGE_ALLOC_COSTLY_ORDER, 3: before it, 4 KiB kmallocs went to the page allocator). The
# boot is the unit: the host side (run_tbench_boots, `make experiments`) boots the VM
# in rounds, each a default boot, a slub_max_order=0 boot and a default A/A twin boot in
# a random order (seeded, the seed printed), and each boot (run_tbench_boot) runs tbench
# ``runs`` times, the first a warm-up left out, appending its rows to live.csv; the
# experiment's run in the VM copies the series in (TBENCH_BOOTS_ENV) and
# table_live_tbench judges the MB/s.

#: tbench's sizes: rounds of boots (each kind once a round), tbench runs per boot (the
#: first a warm-up), seconds per run (tbench -t; it warms up for 1 s of them itself).
LIVE_TBENCH: Dict[str, Dict[str, Any]] = {
    "small": dict(rounds=3, runs=3, seconds=3),
    "full": dict(rounds=10, runs=4, seconds=20)}
TBENCH_COLUMNS: Sequence[str] = (
    "experiment", "variant", "kind", "boot", "repeat", "run", "warmup", "mb_per_sec",
    "max_latency_ms", "clients", "seconds", "order_4k", "slub_max_order",
    "kernel_release", "vm_cpus", "cpu_model", "date")
#: Where `make experiments` leaves the boots' series (live.csv, boots.json, slabinfo-*.txt)
#: for seed-004's run in the VM to take into its folder.
TBENCH_BOOTS_ENV = "SLABLAB_TBENCH_BOOTS"
#: kmalloc-4096's directory under /sys/kernel/slab (6.1: kmalloc-4k; older: kmalloc-4096)
KMALLOC_4K = ("kmalloc-4k", "kmalloc-4096")
#: The caches of the seed's `slabinfo -AD` (its merged names as 6.1's slab_nomerge names
#: them), the lines the table shows of the kernel's own slabinfo.
SEED_004_CACHES = ("kmalloc-4k", "skbuff_fclone_cache", "kmalloc-192", "kmalloc-1k",
                   "vm_area_struct", "dentry", "kmalloc-64")


class BootKind(NamedTuple):
    """A kind of boot of seed-004's live row: ``key`` names it on the command line,
    ``label`` in live.csv and the table, ``append`` is its kernel command line."""
    key: str
    label: str
    append: str


TBENCH_DEFAULT = BootKind("default", "default boot (kmalloc-4k at the kernel's order)", "")
TBENCH_ORDER0 = BootKind("order0", "slub_max_order=0 boot (every cache at order 0)",
                         "slub_max_order=0")
TBENCH_TWIN = BootKind("default-twin", TBENCH_DEFAULT.label + AA, "")
BOOT_KINDS: Dict[str, BootKind] = {k.key: k for k in (TBENCH_DEFAULT, TBENCH_ORDER0,
                                                      TBENCH_TWIN)}


class Boot(NamedTuple):
    """One boot of the series: its place, its round (the pairing of the kinds) and kind."""
    number: int
    round: int
    kind: BootKind


def boot_plan(rounds: int, seed: int) -> List[Boot]:
    """The boots of seed-004's live row: ``rounds`` rounds, each a default, a
    slub_max_order=0 and a default A/A twin boot in an order of ``seed``'s generator."""
    rng = random.Random(seed)
    plan: List[Boot] = []
    for r in range(rounds):
        kinds = with_twin((TBENCH_DEFAULT, TBENCH_ORDER0), lambda _k: TBENCH_TWIN)
        rng.shuffle(kinds)
        plan += [Boot(len(plan) + i, r, k) for i, k in enumerate(kinds)]
    return plan


class Tbench(NamedTuple):
    mb_per_sec: float
    clients: int
    max_latency_ms: Optional[float]


def tbench_result(output: str) -> Tbench:
    """tbench's closing line, "Throughput 14.1769 MB/sec  2 clients  2 procs
    max_latency=100.736 ms"; ValueError quoting the output when it has none."""
    for line in reversed(output.splitlines()):
        w = line.split()
        if len(w) >= 4 and w[0] == "Throughput" and w[2] == "MB/sec":
            lat = [x.split("=", 1)[1] for x in w if x.startswith("max_latency=")]
            return Tbench(float(w[1]), int(w[3]), float(lat[0]) if lat else None)
    raise ValueError(f"no 'Throughput ... MB/sec' line in tbench's output: "
                     f"{output.strip()[-200:]!r}")


def _read_first(paths: Iterable[str]) -> Optional[str]:
    for p in paths:
        try:
            with open(p) as f:
                return f.read().strip()
        except OSError:
            continue
    return None


TBENCH_PORT = 7003      # tbench_srv's, fixed in dbench 4.0


def _tbench_file(fn: str) -> bool:
    """A file of the boots' series (what run_tbench_boots writes, import_tbench_boots
    takes)."""
    return fn in ("live.csv", "boots.json", "tbench-output.txt") or \
        (fn.startswith("slabinfo-") and fn.endswith(".txt"))


def _tbench_server() -> Any:
    """tbench_srv started, once it listens (10 s at most); the process."""
    import socket
    import subprocess
    srv = subprocess.Popen(["tbench_srv"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    for _ in range(100):
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", TBENCH_PORT)) == 0:
                return srv
        if srv.poll() is not None:
            break
        time.sleep(0.1)
    srv.kill()
    srv.wait()
    raise RuntimeError(f"tbench_srv did not listen on port {TBENCH_PORT}")


def _slabinfo_binary() -> Optional[str]:
    """scripts/slabinfo.sh's build of the kernel's slabinfo (SLABLAB_SLABINFO, which the
    host side sets)."""
    path = os.environ.get("SLABLAB_SLABINFO")
    return path if path and os.access(path, os.X_OK) else None


def run_tbench_boot(out_dir: str, kind: BootKind, round_: int, index: int, scale: str,
                    log: Log = print, root: str = SYS_SLAB,
                    run: Optional[Callable[..., Any]] = None,
                    server: Optional[Callable[[], Any]] = None) -> None:
    """seed-004 live, one boot (in the VM): tbench ``runs`` times over loopback, the first
    a warm-up, its rows appended to OUT_DIR/live.csv with kmalloc-4k's order as this
    boot's kernel chose it (the oracle: /sys/kernel/slab/kmalloc-4k/order); then the
    kernel's `slabinfo -AD` into OUT_DIR/slabinfo-INDEX-KIND.txt. Raises RuntimeError
    saying why it could not run (the host side records it)."""
    import shutil
    import subprocess
    p = LIVE_TBENCH[scale]
    if run is None and not (shutil.which("tbench") and shutil.which("tbench_srv")):
        raise RuntimeError("skipped: no tbench (Debian's dbench: scripts/deps.sh)")
    run = run or subprocess.run
    why = loopback_up(run)
    if why:
        raise RuntimeError(f"skipped: {why}")
    os.makedirs(out_dir, exist_ok=True)
    order = _read_first(os.path.join(root, n, "order") for n in KMALLOC_4K)
    cmdline = _read_first(["/proc/cmdline"]) or ""
    max_order = [w.split("=", 1)[1] for w in cmdline.split() if w.startswith("slub_max_order=")]
    clients = os.cpu_count() or 1
    ctx = dict(experiment="seed-004", variant=kind.label, kind=kind.key, boot=index,
               repeat=round_, clients=clients, seconds=p["seconds"], order_4k=order or "",
               slub_max_order=max_order[-1] if max_order else "",
               kernel_release=os.uname().release, vm_cpus=clients, cpu_model=_cpu_model())
    srv = (server or _tbench_server)()
    rows: List[Dict[str, Any]] = []
    try:
        for i in range(p["runs"]):
            r = run(["tbench", "-t", str(p["seconds"]), str(clients), "127.0.0.1"],
                    capture_output=True, text=True, timeout=60 + 10 * p["seconds"],
                    check=False)
            if r.returncode != 0:
                raise RuntimeError(f"tbench exited {r.returncode}: "
                                   f"{(r.stderr or r.stdout).strip()[-200:]}")
            if i == 0 and index == 0:
                with open(os.path.join(out_dir, "tbench-output.txt"), "w") as f:
                    f.write(r.stdout)
            t = tbench_result(r.stdout)
            rows.append(dict(ctx, run=i, warmup=int(i == 0), mb_per_sec=t.mb_per_sec,
                             max_latency_ms=t.max_latency_ms, date=_now()))
            log(f"  seed-004 live boot {index} ({kind.key}, round {round_}, kmalloc-4k "
                f"order {order}) tbench run {i}{' (warm-up)' if i == 0 else ''}: "
                f"{t.mb_per_sec:.2f} MB/s")
    finally:
        srv.terminate()
        srv.wait()
        write_live_csv(out_dir, rows, TBENCH_COLUMNS, append=True)
    slabinfo = _slabinfo_binary()
    if slabinfo:
        r = run([slabinfo, "-AD"], capture_output=True, text=True, timeout=120, check=False)
        with open(os.path.join(out_dir, f"slabinfo-{index}-{kind.key}.txt"), "w") as f:
            f.write(r.stdout if r.returncode == 0 else
                    f"slabinfo -AD exited {r.returncode}: {r.stderr.strip()[-200:]}\n")


def _slabinfo_series() -> str:
    """scripts/slabinfo.sh's series for the kernel `make experiments` boots (KERNEL)."""
    major = os.environ.get("KERNEL", "6.1").split(".")[0]
    return "7" if major.isdigit() and int(major) >= 7 else "6"


def run_tbench_boots(out_dir: str, scale: str, order_seed: Optional[int] = None,
                     log: Log = print, run: Optional[Callable[..., Any]] = None,
                     which: Optional[Callable[[str], Optional[str]]] = None) -> Dict[str, Any]:
    """seed-004 live, the host side: boots the VM (scripts/vm.sh) once per
    :func:`boot_plan` entry, with slub_max_order=0 added to VM_APPEND for the order-0
    kind, each boot running :func:`run_tbench_boot` into ``out_dir`` (emptied first);
    builds the kernel's slabinfo first (scripts/slabinfo.sh). Writes and returns
    OUT_DIR/boots.json: the plan, the order seed, seconds, and ``missing`` (why the
    series could not run or stopped)."""
    import shutil
    import subprocess
    run = run or subprocess.run
    which = which or shutil.which
    p = LIVE_TBENCH[scale]
    seed = order_seed if order_seed is not None else random.SystemRandom().randrange(1 << 32)
    plan = boot_plan(p["rounds"], seed)
    os.makedirs(out_dir, exist_ok=True)
    for fn in os.listdir(out_dir):
        if _tbench_file(fn):
            os.remove(os.path.join(out_dir, fn))
    info: Dict[str, Any] = dict(scale=scale, order_seed=seed, rounds=p["rounds"],
                                runs_per_boot=p["runs"], tbench_seconds=p["seconds"],
                                missing=None,
                                plan=[dict(boot=b.number, round=b.round, kind=b.kind.key)
                                      for b in plan])
    t0 = time.monotonic()
    log(f"seed-004 live: tbench, {len(plan)} boots ({p['rounds']} rounds of "
        f"{', '.join(k.key for k in BOOT_KINDS.values())}) in a random order, "
        f"--order-seed {seed}: {' '.join(b.kind.key for b in plan)} -> {out_dir}")
    vm = _script("vm.sh")
    if not (which("tbench") and which("tbench_srv")):
        info["missing"] = "skipped: no tbench (Debian's dbench: scripts/deps.sh)"
    elif not vm:
        info["missing"] = "skipped: no scripts/vm.sh (run from the repository)"
    env = dict(os.environ)
    slabinfo = _script("slabinfo.sh")
    if not info["missing"] and slabinfo:
        r = run([slabinfo, _slabinfo_series()], capture_output=True, text=True, check=False)
        if r.returncode == 0 and r.stdout.strip():
            env["SLABLAB_SLABINFO"] = r.stdout.strip().splitlines()[-1]
        else:
            log(f"seed-004 live: scripts/slabinfo.sh failed, no slabinfo -AD: "
                f"{r.stderr.strip()[-200:]}")
    for b in plan if not info["missing"] else []:
        benv = dict(env, VM_APPEND=" ".join(a for a in (env.get("VM_APPEND", ""),
                                                        b.kind.append) if a))
        cmd = [str(vm), "--timeout", str(300 + 3 * p["runs"] * p["seconds"]), "--",
               sys.executable, "-m", "slablab", "experiment", "seed-004",
               "--in-boot", b.kind.key, "--boot", str(b.number), "--round", str(b.round),
               "--out", out_dir] + (["--full"] if scale == "full" else [])
        t1 = time.monotonic()
        r = run(cmd, env=benv, capture_output=True, text=True, check=False)
        for line in (r.stdout or "").splitlines():
            log(line)
        if r.returncode != 0:
            tail = (r.stdout or "").strip().splitlines()[-1:] + \
                (r.stderr or "").strip().splitlines()[-3:]
            info["missing"] = (f"missing: boot {b.number} ({b.kind.key}) ended with vm.sh "
                               f"exit status {r.returncode}: {' / '.join(tail)}")
            if r.returncode == 3 and tail and tail[0].startswith("skipped:"):
                info["missing"] = tail[0]       # the guest said why (no tbench, no lo)
            log(f"seed-004 live: {info['missing']}")
            break
        log(f"seed-004 live: boot {b.number} ({b.kind.key}"
            f"{', ' + b.kind.append if b.kind.append else ''}) "
            f"done in {time.monotonic() - t1:.0f} s")
    info["seconds"] = round(time.monotonic() - t0, 1)
    with open(os.path.join(out_dir, "boots.json"), "w") as f:
        json.dump(info, f, indent=1)
    return info


def import_tbench_boots(lab: Lab, src: Optional[str] = None) -> None:
    """seed-004's run in the VM takes the boots' series (``src``, default the folder
    :data:`TBENCH_BOOTS_ENV` names) into its own folder; without one, lab.missing["live"]
    says how it is run."""
    import shutil
    src = src or os.environ.get(TBENCH_BOOTS_ENV)
    same = bool(src) and os.path.abspath(str(src)) == os.path.abspath(lab.out_dir)
    if not same:        # an earlier run's series is not this one's
        for fn in os.listdir(lab.out_dir):
            if _tbench_file(fn):
                os.remove(os.path.join(lab.out_dir, fn))
    if not src or not os.path.exists(os.path.join(src, "boots.json")):
        lab.missing["live"] = ("skipped: tbench's live row spans boots (slub_max_order=0 is "
                               "a kernel parameter): `make experiments EXPERIMENTS=seed-004` "
                               "runs it")
        return
    for fn in os.listdir(src):
        if _tbench_file(fn) and not same:
            shutil.copy(os.path.join(src, fn), os.path.join(lab.out_dir, fn))
    with open(os.path.join(src, "boots.json")) as f:
        why = json.load(f).get("missing")
    if why:
        lab.missing["live"] = why


def slabinfo_lines(text: str, names: Sequence[str] = SEED_004_CACHES) -> List[str]:
    """`slabinfo -AD`'s header and the lines of ``names`` (in that order) from its output."""
    lines = text.splitlines()
    head = [ln for ln in lines if ln.startswith("Name")][:1]
    by = {ln.split()[0]: ln for ln in lines if ln.strip() and not ln.startswith("Name")}
    return head + [by[n] for n in names if n in by]


def table_live_tbench(ldf: Optional["pd.DataFrame"], missing: Mapping[str, str],
                      slabinfo: Optional[Mapping[str, Tuple[int, str]]] = None,
                      order_seed: Optional[int] = None) -> str:
    """seed-004's live rows (pure): tbench's MB/s per boot kind (each boot's median over
    its measured runs), kmalloc-4k's order as each kind's boots had it, the ratio
    default/slub_max_order=0 paired by round with its t interval judged against the
    seed's SLUB+patch vs unmodified (+4.7%, :func:`shape_verdict`), the A/A floor of the
    twin boots, and the kernel's `slabinfo -AD` after a boot of each kind (``slabinfo``:
    kind key -> (boot, its output))."""
    why = missing.get("live")
    head = ("  live (issue 26): tbench (dbench 4.0) over loopback on the kernel's own SLUB, "
            "a boot per sample: kmalloc-4k at the order the kernel chooses vs "
            "slub_max_order=0 on the kernel command line (every cache at order 0; the 2008 "
            "patch changed only the PAGE_SIZE caches, from the page allocator to order 3)")
    if ldf is None or ldf.empty:
        return f"{head}: {why or 'no runs'}"
    d = ldf[ldf["warmup"] == 0]
    if d.empty:
        return f"{head}: {why or 'no measured runs (only warm-ups)'}"
    per = d.groupby(["variant", "repeat"])["mb_per_sec"].median().reset_index()
    rounds = d["repeat"].nunique()
    runs = d.groupby("boot")["run"].count().max()
    secs = int(d["seconds"].iloc[0])
    out = [head + f"; {rounds} rounds of boots in a random order"
           + (f" (--order-seed {order_seed})" if order_seed is not None else "")
           + f", {runs} tbench run(s) of {secs} s with {int(d['clients'].iloc[0])} clients "
           "per boot after a warm-up run; MB/s per boot (its median):"]
    rows = [[f"seed {k}", "", "", f"{v:.2f}", "", ""] for k, v in S.SEED_004_TBENCH.items()]
    for k in BOOT_KINDS.values():
        g = per[per["variant"] == k.label]
        if g.empty:
            continue
        orders = sorted({str(o) for o in ldf[ldf["variant"] == k.label]["order_4k"]})
        t = describe(g["mb_per_sec"])
        rows.append([k.label, str(len(g)), ",".join(orders),
                     _fmt(float(g["mb_per_sec"].median()), 2),
                     _fmt(t.min if t else None, 2), _fmt(t.max if t else None, 2)])
    out.append(table(["boot", "boots", "kmalloc-4k order", "MB/s", "min", "max"], rows,
                     "    "))
    ci = paired_ci(d, "mb_per_sec", TBENCH_ORDER0.label, TBENCH_DEFAULT.label)
    out.append("  verdict: " + verdict_line(
        "live tbench MB/s, default vs slub_max_order=0 boots", "SLUB+patch vs unmodified",
        S.change(S.SEED_004_TBENCH["SLUB unmodified"], S.SEED_004_TBENCH["SLUB+patch"]), ci))
    out.append(aa_line("seed-004", d, "mb_per_sec", "live.csv"))
    if why:
        out.append(f"  note: {why}")
    for k in (TBENCH_DEFAULT, TBENCH_ORDER0):
        what = k.append or k.key
        boot, text = (slabinfo or {}).get(k.key, (None, ""))
        if not text:
            out.append(f"  slabinfo -AD after a {what} boot: not run (scripts/slabinfo.sh "
                       "builds it; SLABLAB_SLABINFO)")
            continue
        out.append(f"  the kernel's slabinfo -AD after the tbench runs of a {what} boot "
                   f"(boot {boot}; the seed's caches, by their 6.1 names):")
        out += ["    " + ln for ln in slabinfo_lines(text)]
    out.append("    (the seed's line: :0004096 180 objects, 665259550 allocs, %Fast 99 99; "
               "a kernel without SLUB_STATS, as Debian's, counts no Alloc, Free or %Fast)")
    out.append(_faithful(d, "tbench_srv and its clients share the VM's cpus over loopback; "
                            "the seed's baseline was the page allocator, ours order-0 slabs "
                            "(one 4 KiB object a slab: every allocation takes a whole slab)"))
    return "\n".join(out)


def _boot_files(exp_dir: str) -> Dict[str, Tuple[int, str]]:
    """The last slabinfo-INDEX-KIND.txt of each kind in an experiment folder."""
    out: Dict[str, Tuple[int, str]] = {}
    for fn in sorted(os.listdir(exp_dir)):
        if fn.startswith("slabinfo-") and fn.endswith(".txt"):
            idx, _, key = fn[len("slabinfo-"):-len(".txt")].partition("-")
            if idx.isdigit() and (key not in out or int(idx) > out[key][0]):
                with open(os.path.join(exp_dir, fn)) as f:
                    out[key] = (int(idx), f.read())
    return out


def report_live(name: str, exp_dir: str, missing: Mapping[str, str]) -> Optional[str]:
    """The live rows' text from live.csv (seed-000: fio; seed-002: hackbench; seed-004:
    tbench, with boots.json and the slabinfo files) and the experiment's ``missing``
    (:func:`read_missing`); None where there are none."""
    path = os.path.join(exp_dir, "live.csv")
    if name == "seed-004" and (missing.get("live") or os.path.exists(path)):
        import pandas as pd
        ldf = pd.read_csv(path) if os.path.exists(path) and os.path.getsize(path) else None
        seed = None
        try:
            with open(os.path.join(exp_dir, "boots.json")) as f:
                seed = json.load(f).get("order_seed")
        except (OSError, ValueError):
            pass
        return table_live_tbench(ldf, missing, _boot_files(exp_dir), seed)
    if name not in ("seed-000", "seed-002") or not os.path.exists(path):
        return None
    import pandas as pd
    ldf = pd.read_csv(path) if os.path.getsize(path) else None
    return table_live_fio(ldf, missing) if name == "seed-000" else table_live(ldf, missing)


# ---------------------------------------------------------------- plots

def _bars(ax: "Axes", labels: Sequence[str], groups: Sequence[str],
          values: Callable[[str, str], Tuple[float, float, float]], ylabel: str) -> None:
    """Grouped bars: one group per label, one bar per group member; median with
    min-max error bars (NaN: no bar)."""
    width = 0.8 / max(len(groups), 1)
    for j, g in enumerate(groups):
        meds, lo, hi = [], [], []
        for lab in labels:
            m, mn, mx = values(lab, g)
            meds.append(m)
            lo.append(m - mn if not math.isnan(m) else 0)
            hi.append(mx - m if not math.isnan(m) else 0)
        xs = [i + (j - (len(groups) - 1) / 2) * width for i in range(len(labels))]
        ax.bar(xs, meds, width, yerr=[lo, hi], capsize=2, label=g)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7)


def _stat(d: "pd.DataFrame", figure: str) -> Tuple[float, float, float]:
    s = d[figure].dropna() if figure in d.columns else []
    if not len(s):
        return (math.nan, math.nan, math.nan)
    return (float(s.median()), float(s.min()), float(s.max()))


def plot(name: str, df: "pd.DataFrame", out_dir: str) -> List[str]:
    """The experiment's figure as PNG and SVG (Agg); returns the paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    d = without_twins(df[df["experiment"] == name])
    if d.empty:
        return []
    variants = list(dict.fromkeys(d["variant"]))
    fig, axes = plt.subplots(1, 2 if name in ("seed-000", "seed-003") else 1,
                             figsize=(11, 4.6), squeeze=False)
    ax = axes[0][0]
    if name == "seed-000":
        sizes = [f"{int(x)} B" for x in sorted(d["x"].dropna().unique())]
        by = {f"{int(x)} B": x for x in d["x"].dropna().unique()}
        _bars(ax, sizes, variants, lambda s, v: _stat(d[(d["x"] == by[s]) & (d["variant"] == v)],
                                                      "run_ms"), "run time (ms, longest thread)")
        _bars(axes[0][1], sizes, variants,
              lambda s, v: _stat(d[(d["x"] == by[s]) & (d["variant"] == v)], "peak_pages"),
              "pages at the peak")
    elif name == "seed-001":
        rows = [r[0] for r in S.SEED_001_ROWS]

        def val(r: str, v: str) -> Tuple[float, float, float]:
            src, figure, size = _row_001(r)
            return _stat(d[(d["variant"] == v) & (d["table_row"] == src) & (d["x"] == size)],
                         figure)
        _bars(ax, rows, variants, val, "cycles per call (TSC)")
        if (d[["cycles_per_alloc", "cycles_per_free"]] > 0).any().any():
            ax.set_yscale("log")
    elif name == "seed-002":
        for v in variants:
            g = d[d["variant"] == v].groupby("x")["tput_ops_per_sec"]
            m = g.median()
            ax.errorbar(m.index, m / 1e6, yerr=[(m - g.min()) / 1e6, (g.max() - m) / 1e6],
                        marker="o", capsize=3, label=v)
        ax.set_xlabel("storm threads (producer + consumer pairs)")
        ax.set_ylabel("throughput (million objects/s)")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    elif name == "seed-003":
        _bars(ax, variants, ["used"], lambda v, _g: _stat(d[d["variant"] == v], "used_kb"),
              "kB of pages for the workload (steady state)")
        _bars(axes[0][1], variants, ["MemFree"],
              lambda v, _g: _stat(d[d["variant"] == v], "mem_free_kb"), "MemFree (kB)")
    elif name == "seed-004":
        _bars(ax, variants, ["throughput"],
              lambda v, _g: _stat(d[d["variant"] == v], "tput_ops_per_sec"),
              "kmalloc(4096)+kfree pairs per second")
    fig.suptitle(f"{name}: {TITLES[name]} — median, bars min–max; "
                 f"{d['repeat'].nunique()} runs", fontsize=10)
    fig.tight_layout()
    paths = []
    for ext in ("png", "svg"):
        path = os.path.join(out_dir, f"{name}.{ext}")
        fig.savefig(path, dpi=110)
        paths.append(path)
    plt.close(fig)
    return paths


# ---------------------------------------------------------------- one experiment

def run_experiment(name: str, out_dir: str = os.path.join("build", "experiments"),
                   full: bool = False, repeat: Optional[int] = None, log: Log = print,
                   client: Any = None, do_plot: bool = True, warmup: int = 1,
                   order_seed: Optional[int] = None) -> str:
    """Run one experiment where the module is loaded; writes ``out_dir/NAME/runs.csv``,
    ``missing.json``, ``table.txt`` and the plots; returns the table. ``warmup``,
    ``order_seed``: :class:`Lab`'s."""
    if name not in SCALES:
        raise ValueError(f"no experiment {name!r}: {', '.join(EXPERIMENTS)}")
    if client is None:
        from . import Client
        client = Client()
    scale = "full" if full else "small"
    params = dict(SCALES[name][scale])
    if repeat:
        params["repeat"] = repeat
    avail = availability()
    lab = Lab(client, name, out_dir, scale, log, warmup=warmup, order_seed=order_seed)
    t0 = time.monotonic()
    log(f"{name}: {TITLES[name]} ({scale}, {params['repeat']} runs after {warmup} warm-up; "
        f"variants in a random order, --order-seed {lab.order_seed}) -> {lab.csv_path}")
    try:
        if name == "seed-000":
            run_000(lab, params)
        elif name == "seed-001":
            run_001(lab, params, avail)
        elif name == "seed-002":
            run_002(lab, params)
        elif name == "seed-003":
            run_003(lab, params, avail)
        else:
            run_004(lab, params)
            import_tbench_boots(lab)
        if name == "seed-000":
            run_live_fio(lab, scale)
        if name == "seed-002":
            run_live_hackbench(lab, scale)
        if name in REPLAY_WORKLOADS:
            run_replays(lab, name, avail, scale)
    finally:
        lab.close()
        with open(os.path.join(lab.out_dir, "missing.json"), "w") as f:
            json.dump(dict(lab.missing, seconds=round(time.monotonic() - t0, 1),
                           warmup=lab.warmup, order_seed=lab.order_seed), f, indent=1)
    return report(name, lab.out_dir, log, do_plot)


#: The text columns among :data:`EXP_COLUMNS` (read_runs() makes the others numbers).
EXP_TEXT = ("table_row", "date", "scale", "page_policy", "kmalloc_design", "cpu_model")


def read_experiment(path: str) -> "pd.DataFrame":
    """An experiment's measured runs (runs.csv without its warm-up rows) as a tidy
    DataFrame (numbers as numbers), each repeat's rows in the table's order (``slot``)."""
    import pandas as pd
    from .analysis import measured, read_runs
    df = read_runs(path)
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    for c in EXP_TEXT:
        if c in raw.columns:
            df[c] = raw[c].astype(str)
    df = measured(df)
    if "slot" in df.columns:
        df = df.sort_values(["repeat", "slot"], kind="stable")
    return df.reset_index(drop=True)


def report(name: str, exp_dir: str, log: Log = print, do_plot: bool = True) -> str:
    """The table (and plots) of an experiment's directory: runs.csv and missing.json."""
    df = read_experiment(os.path.join(exp_dir, "runs.csv"))
    missing = read_missing(exp_dir)
    text = tables(name, df, missing)
    live = report_live(name, exp_dir, missing)
    if live:
        text += "\n" + live
    replays = report_replays(name, exp_dir)
    if replays:
        text += "\n" + replays
    text = rank_verdicts(name, text)
    with open(os.path.join(exp_dir, "table.txt"), "w") as f:
        f.write(text + "\n")
    log(text)
    if do_plot:
        for p in plot(name, df, exp_dir):
            log(f"{name}: wrote {p}")
    return text


# ---------------------------------------------------------------- a publication

def publication_dir(out: str, when: Optional[datetime.datetime] = None,
                    commit: Optional[str] = None) -> str:
    """Where ``--publish`` writes a run: ``out/<UTC date and time>-<slablab commit>``, a
    folder of its own that no later run overwrites."""
    from .analysis import BUILD_COMMIT
    when = when or datetime.datetime.now(datetime.timezone.utc)
    base = os.path.join(out, f"{when:%Y-%m-%dT%H%M%SZ}-{commit or BUILD_COMMIT or 'unknown'}")
    path, n = base, 1
    while os.path.exists(path):     # two runs in one second: a folder each
        n += 1
        path = f"{base}-{n}"
    return path


def _first_row(path: str) -> Dict[str, str]:
    try:
        with open(path, newline="") as f:
            return next(csv.DictReader(f), {})
    except OSError:
        return {}


def write_publication(pub_dir: str, done: Sequence[Tuple[str, str, float]],
                      command: Sequence[str]) -> str:
    """``pub_dir/RESULTS.md``: what was run (command, slablab commit, kernel, VM shape,
    scale, warm-up, order seeds, each experiment's seconds) and each experiment's table,
    with its raw files beside (``NAME/runs.csv``, ``table.txt``, plots, ``missing.json``).
    ``done``: (name, table text, seconds) of each experiment run so far. Returns the
    path; written again after every experiment, so a run stopped midway keeps its part."""
    lines = ["# slablab experiments", ""]
    meta: Dict[str, str] = {}
    for name, _text, _secs in done:
        meta = _first_row(os.path.join(pub_dir, name, "runs.csv"))
        if meta:
            break
    icount = meta.get("vm_icount") or ""
    lines += [
        f"- written: {_now()}",
        f"- command: `{' '.join(command)}`",
        f"- slablab commit: {meta.get('slablab_commit') or '-'}",
        f"- kernel: {meta.get('kernel_release') or '-'}",
        f"- machine: {meta.get('vm_cpus') or '-'} cpus ({meta.get('cpu_model') or '-'}), "
        f"{meta.get('vm_memory_mb') or '-'} MB; clocks: "
        + (f"qemu -icount shift {icount} (instruction counts)" if icount else "real time"),
        f"- scale: {meta.get('scale') or '-'}",
        ""]
    lines += ["| experiment | seconds | warm-up | order seed | files |",
              "| --- | --- | --- | --- | --- |"]
    for name, _text, secs in done:
        info: Dict[str, Any] = {}
        try:
            with open(os.path.join(pub_dir, name, "missing.json")) as f:
                info = json.load(f)
        except (OSError, ValueError):
            pass
        files = ", ".join(f"[{fn}]({name}/{fn})" for fn in
                          sorted(os.listdir(os.path.join(pub_dir, name)))
                          if os.path.isfile(os.path.join(pub_dir, name, fn)))
        lines.append(f"| {name}: {TITLES[name]} | {secs:.0f} | {info.get('warmup', '-')} | "
                     f"{info.get('order_seed', '-')} | {files} |")
    for name, text, _secs in done:
        lines += ["", f"## {name}: {TITLES[name]}", "", "```", text.rstrip(), "```"]
    path = os.path.join(pub_dir, "RESULTS.md")
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(path + ".tmp", path)
    return path


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python3 -m slablab experiment",
        description="The seed experiments (docs/experiments.md): each prints its seed's "
                    "table with our figures beside, and a verdict on the shape.")
    ap.add_argument("name", nargs="+", help=f"{', '.join(EXPERIMENTS)} (one or more), all, "
                    "or list")
    ap.add_argument("--full", action="store_true",
                    help="the seed's sizes (e.g. 50 runs; long under TCG)")
    ap.add_argument("--repeat", type=int, default=None, help="runs of every point")
    ap.add_argument("--warmup", type=int, default=1,
                    help="repeats run first and left out of the tables (default 1)")
    ap.add_argument("--order-seed", type=int, default=None,
                    help="seed of the variants' random order in each repeat (default: a "
                         "random one, printed; give it to rerun the same orders)")
    ap.add_argument("--out", default=os.path.join("build", "experiments"),
                    help="output directory (NAME/runs.csv, table.txt, NAME.png/.svg)")
    ap.add_argument("--publish", action="store_true",
                    help="write the run to a folder of its own, OUT/<UTC time>-<commit>/, "
                         "with RESULTS.md: the command, commit, kernel, VM shape and every "
                         "table (docs/experiments.md 'Publishing a run')")
    ap.add_argument("--boots", action="store_true",
                    help="seed-004's live row, on the host: boot the VM for each of its "
                         "boots (default, slub_max_order=0, the A/A twin; random order) "
                         "and run tbench in each, into OUT (`make experiments` does)")
    ap.add_argument("--in-boot", choices=sorted(BOOT_KINDS), default=None,
                    help="seed-004's live row, in the VM: this boot's tbench runs, "
                         "appended to OUT/live.csv (--boots runs it)")
    ap.add_argument("--boot", type=int, default=0, help="with --in-boot: the boot's index")
    ap.add_argument("--round", type=int, default=0, help="with --in-boot: the boot's round")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--report", action="store_true",
                    help="no storms: print the table and draw the plots of a previous run")
    a = ap.parse_args(list(sys.argv[1:] if argv is None else argv))
    if a.name == ["list"]:
        for n in EXPERIMENTS:
            print(f"{n}  {TITLES[n]}  ({S.SEEDS[n].source})")
        return 0
    names = list(EXPERIMENTS) if a.name == ["all"] else list(a.name)
    bad = [n for n in names if n not in SCALES]
    if bad:
        ap.error(f"no experiment {bad[0]!r}: use {', '.join(EXPERIMENTS)}, all or list")
    if a.repeat is not None and a.repeat < 1:
        ap.error("--repeat must be at least 1 (a verdict needs 3)")
    if a.warmup < 0:
        ap.error("--warmup must be 0 or more")
    if a.publish and a.report:
        ap.error("--publish writes a new run; --report reads an old one: not both")
    if (a.boots or a.in_boot) and names != ["seed-004"]:
        ap.error("--boots and --in-boot are seed-004's live row: name seed-004 alone")
    if a.boots:
        info = run_tbench_boots(a.out, "full" if a.full else "small", a.order_seed)
        print(f"seed-004 live: {len(info['plan'])} boots planned, {info['seconds']:.0f} s"
              + (f"; {info['missing']}" if info["missing"] else ""))
        return 0
    if a.in_boot:
        try:
            run_tbench_boot(a.out, BOOT_KINDS[a.in_boot], a.round, a.boot,
                            "full" if a.full else "small")
        except (OSError, RuntimeError, ValueError) as e:
            print(e)
            return 3 if str(e).startswith("skipped:") else 1
        return 0
    out = publication_dir(a.out) if a.publish else a.out
    command = ["python3 -m slablab experiment"] + list(sys.argv[1:] if argv is None else argv)
    t0 = time.monotonic()
    done: List[Tuple[str, str, float]] = []
    for n in names:
        t1 = time.monotonic()
        if a.report:
            report(n, os.path.join(out, n), do_plot=not a.no_plot)
        else:
            text = run_experiment(n, out, full=a.full, repeat=a.repeat,
                                  do_plot=not a.no_plot, warmup=a.warmup,
                                  order_seed=a.order_seed)
            if a.publish:
                done.append((n, text, time.monotonic() - t1))
                print(f"experiments: published so far -> "
                      f"{write_publication(out, done, command)}")
        print()
    print(f"experiments: {', '.join(names)} in {time.monotonic() - t0:.0f} s -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

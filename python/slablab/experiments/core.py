# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The seed experiments' shared core (pure: no kernel, no files written).

What every seed uses: the columns of runs.csv (:data:`EXP_COLUMNS`), the designs this
module has (:func:`availability`) and each experiment's columns (:func:`columns_for`),
each experiment's sizes and title (:data:`SCALES`, :data:`TITLES`), the statistics (the
paired Student-t interval :func:`paired_ci`, :func:`describe`, the one-sided tests), the
verdict rule (:func:`shape_verdict`, :func:`direction_verdict`, :func:`verdict_line`,
:func:`mechanism_line`), the primary verdicts and their Holm adjustment
(:data:`PRIMARY`, :func:`rank_verdicts`), the A/A twin and its floor (:data:`AA`,
:func:`aa_line`), the table helpers the seeds' tables print with, and the readers of an
experiment's folder (:func:`read_experiment`, :func:`read_missing`).
"""

import datetime
import json
import math
import os
import re
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, NamedTuple,
                    Optional, Sequence, Tuple)

from ..analysis import (RatioCI, beyond, decision_needs, holm, inconclusive, paired_ratio_ci,
                        within)

if TYPE_CHECKING:
    import pandas as pd


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
        from .. import protocol as p
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


def _variant(d: "pd.DataFrame", prefix: str) -> str:
    for v in dict.fromkeys(d["variant"]):
        if v.startswith(prefix):
            return str(v)
    return ""


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


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


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


def _script(name: str) -> Optional[str]:
    """scripts/NAME of the repository (SLABLAB_REPO, the working directory, or the
    package's source tree)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for root in (os.environ.get("SLABLAB_REPO"), os.getcwd(),
                 os.path.join(here, "..", "..", "..")):
        if root and os.access(os.path.join(root, "scripts", name), os.X_OK):
            return os.path.abspath(os.path.join(root, "scripts", name))
    return None


def read_missing(exp_dir: str) -> Dict[str, str]:
    """An experiment directory's missing.json: what could not run and why (its text
    values; the numbers beside them, seconds, warm-up and order seed, are left out)."""
    path = os.path.join(exp_dir, "missing.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {k: v for k, v in json.load(f).items() if isinstance(v, str)}


#: The text columns among :data:`EXP_COLUMNS` (read_runs() makes the others numbers).
EXP_TEXT = ("table_row", "date", "scale", "page_policy", "kmalloc_design", "cpu_model")


def read_experiment(path: str) -> "pd.DataFrame":
    """An experiment's measured runs (runs.csv without its warm-up rows) as a tidy
    DataFrame (numbers as numbers), each repeat's rows in the table's order (``slot``)."""
    import pandas as pd
    from ..analysis import measured, read_runs
    df = read_runs(path)
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    for c in EXP_TEXT:
        if c in raw.columns:
            df[c] = raw[c].astype(str)
    df = measured(df)
    if "slot" in df.columns:
        df = df.sort_values(["repeat", "slot"], kind="stable")
    return df.reset_index(drop=True)

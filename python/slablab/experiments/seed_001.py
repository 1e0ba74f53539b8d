# SPDX-License-Identifier: GPL-2.0 OR MIT
"""seed-001, fast path ticks (2.4.9-ac9's SLAB lists): cycles per kmalloc/kfree.

The storms on each column of :func:`slablab.experiments.core.columns_for` (the slab
design's 1, 2 and 3 lists, 2.4's arrays, the kernel's SLUB; :func:`run_001`) and the
seed's km()/kf() table with ours and the verdicts (:func:`table_001`).
"""

from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Sequence, Tuple

from .. import seeds as S
from .core import (Avail, Column, MISSING_KMALLOC, _faithful, _fmt, _med, _per_repeat_s,
                   _twin_column, base_of, columns_for, paired_ci, table, verdict_line)
from .guest import Lab, _kmalloc_as

if TYPE_CHECKING:
    import pandas as pd


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

# SPDX-License-Identifier: GPL-2.0 OR MIT
"""python3 -m slablab.bench cycles-by-size CSV...

Summaries of ``make bench`` (scripts/bench.sh, docs/benchmarks.md) across its
``slabctl compare --csv`` files. ``cycles-by-size`` is issue 14's fast-path table: seed
001's km/kf split into an allocation and a free column, one row per object size, one
column per design and the kernel's SLUB, all from the same run; the timed loop's own cost
is its own row (included in the others, as in the seed).

:func:`cycles_by_size` is pure (a DataFrame in, text out): tests/host/test_bench.py runs
it without a kernel.
"""

import argparse
import math
import os
import sys
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["variant_label", "size_of_file", "cycles_by_size", "main"]

KERNEL = "kernel SLUB"


def variant_label(variant: str) -> str:
    """A compare variant as a column head: 'native' -> 'kernel SLUB', 'slablab
    design=slab,lists=3' -> 'slab lists=3', 'slablab design=sheaves,sheaves_cpu_slabs=1'
    -> 'sheaves cpu_slabs=1'."""
    v = variant.strip()
    if v == "native" or v.startswith("native "):
        return KERNEL + v[len("native"):]
    if v.startswith("slablab"):
        v = v[len("slablab"):].strip()
    if not v:
        return "slablab"
    keys: Dict[str, str] = {}
    for kv in v.split(","):
        k, _, val = kv.partition("=")
        keys[k] = val
    design = keys.pop("design", "slablab")
    rest = " ".join(f"{k.removeprefix('sheaves_')}={val}" for k, val in keys.items())
    return f"{design} {rest}".strip()


def size_of_file(path: str) -> Optional[int]:
    """The object size in a CSV's name, 'build/bench/cycles-4096.csv' -> 4096: a run on
    a slablab cache (--cache) leaves the CSV's size column empty."""
    stem = os.path.basename(path).rsplit(".", 1)[0]
    tail = stem.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else None


def _median(s: "pd.Series") -> Optional[float]:
    s = s.dropna()
    return float(s.median()) if len(s) else None


def _cell(a: Optional[float], f: Optional[float]) -> str:
    def n(v: Optional[float]) -> str:
        return "-" if v is None or math.isnan(v) else f"{v:,.0f}"
    return f"{n(a)} / {n(f)}"


def cycles_by_size(df: "pd.DataFrame") -> str:
    """Cycles per allocation / per free by object size (rows) and variant (columns):
    medians over the counted runs (warm-ups left out) of batch storms; the loop's cost
    per iteration in its own row; and each variant's alloc+free relative to the kernel's
    SLUB at each size, as the geometric mean over the sizes."""
    from .analysis import measured
    d, order = measured(df), list(dict.fromkeys(df["variant"]))   # the compare's order
    d = d[d["size"].notna()]
    if d.empty:
        return "cycles by size: no runs"
    variants = [v for v in order if v in set(d["variant"])]
    heads = [variant_label(v) for v in variants]
    sizes = sorted(int(s) for s in d["size"].unique())
    reps = int(d.groupby(["size", "variant"])["repeat"].nunique().min())
    rows: List[List[str]] = []
    pair: Dict[str, List[Optional[float]]] = {v: [] for v in variants}
    for size in sizes:
        cells = [f"{size}"]
        for v in variants:
            g = d[(d["size"] == size) & (d["variant"] == v)]
            a, f = _median(g["cycles_per_alloc"]), _median(g["cycles_per_free"])
            cells.append(_cell(a, f))
            pair[v].append(a + f if a is not None and f is not None else None)
        rows.append(cells)
    loop = [_median(d[d["variant"] == v]["loop_cycles"]) if "loop_cycles" in d.columns
            else None for v in variants]
    rows.append(["loop"] + ["-" if x is None else f"{x:.1f}" for x in loop])
    base = next((v for v in variants if variant_label(v).startswith(KERNEL)), variants[0])
    rel = []
    for v in variants:
        logs = [math.log(p / b) for p, b in zip(pair[v], pair[base])
                if p is not None and b is not None and p > 0 and b > 0]
        rel.append(f"{math.exp(sum(logs) / len(logs)):.2f}" if logs else "-")
    rows.append([f"vs {variant_label(base)}"] + rel)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(["size"] + heads)]
    lines = [f"cycles per call by object size: alloc / free, median of {reps} runs of batch "
             "storms (100 allocations, then their frees, one thread on one cpu); the timed "
             "loop's cost per iteration ('loop') is included in every figure, as in seed 001; "
             f"last row: alloc+free over {variant_label(base)}'s, geometric mean over the sizes"]
    for r in [["size"] + heads] + rows:
        lines.append("  " + "  ".join(c.rjust(w) if i else c.ljust(w)
                                      for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m slablab.bench",
                                 description="Summaries of make bench's compare CSVs.")
    ap.add_argument("what", choices=["cycles-by-size"])
    ap.add_argument("csv", nargs="+", help="slabctl compare --csv files")
    a = ap.parse_args(list(sys.argv[1:] if argv is None else argv))
    import pandas as pd
    from .analysis import read_runs
    frames = []
    for path in a.csv:
        df = read_runs(path)
        df["size"] = df["size"].fillna(size_of_file(path) or math.nan)
        frames.append(df)
    print(cycles_by_size(pd.concat(frames, ignore_index=True, sort=False)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

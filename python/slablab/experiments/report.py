# SPDX-License-Identifier: GPL-2.0 OR MIT
"""An experiment's folder as text and figures: runs it anywhere (the VM, the host).

:func:`tables` prints each seed's table from its runs, :func:`report_live` the live rows,
:func:`report` the whole text (replays too, the verdicts ranked) into table.txt, and
:func:`plot` the figure (PNG and SVG).
"""

import json
import math
import os
from typing import TYPE_CHECKING, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .. import seeds as S
from .core import (Avail, EXPERIMENTS, Log, TITLES, aa_line, availability, columns_for,
                   rank_verdicts, read_experiment, read_missing, without_twins)
from .seed_000 import table_000, table_live_fio
from .seed_001 import _row_001, table_001
from .seed_002 import table_002, table_live
from .seed_003 import table_003
from .seed_004 import table_004, table_live_tbench
from .replays import report_replays

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes


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

# SPDX-License-Identifier: GPL-2.0 OR MIT
"""slablab.plots: the sweep plots, from a runs DataFrame (:func:`slablab.analysis.read_runs`).

Every ``plot_*(df, ax=None)`` draws one panel on ``ax`` (a new figure when None) and
returns the Axes: the median of the repeats per x, min-max as error bars, slablab and
SLUB on every one. :func:`save_plots` lays them out into the PNGs ``scripts/sweep.sh``
writes (docs/sweeps.md shows them)::

    import slablab.analysis, slablab.plots
    df = slablab.analysis.read_runs("build/sweep/now/sweep.csv")
    ax = slablab.plots.plot_churn(df)
    ax.figure.savefig("churn.png")
"""

import os
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Protocol, Sequence, Tuple

from .analysis import medians

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_remote", "plot_batch_alloc", "plot_batch_free", "plot_churn",
           "plot_fastpath_share", "plot_fastpath_list_ops", "plot_fastpath_throughput",
           "PLOTS", "FIGURES", "save_plots"]

Style = Dict[str, Any]
SLUB_STYLE: Style = dict(color="tab:red", linestyle="--")
COLORS = ["tab:blue", "tab:green", "tab:purple", "tab:cyan"]


def _axes(ax: "Optional[Axes]", size: Tuple[float, float] = (7.5, 5)) -> "Axes":
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt
    _, new = plt.subplots(figsize=size)
    return new


def _variants(df: "pd.DataFrame", experiment: str) -> List[str]:
    return list(dict.fromkeys(df.loc[df["experiment"] == experiment, "variant"]))


def _style(variant: str, i: int) -> Style:
    if variant.startswith("SLUB"):
        return SLUB_STYLE
    return dict(color=COLORS[i % len(COLORS)])


def _line(ax: "Axes", df: "pd.DataFrame", experiment: str, variant: str, figure: str,
          label: Optional[str] = None, scale: float = 1.0, **style: Any) -> bool:
    """One variant's medians against x, min-max as error bars; False when it has none."""
    if figure not in df.columns:
        return False
    m = medians(df[df["variant"] == variant], figure, experiment)
    m = m[m["x"].notna()].sort_values("x")
    if m.empty:
        return False
    med = m["median"] * scale
    ax.errorbar(m["x"], med, yerr=[med - m["min"] * scale, m["max"] * scale - med],
                label=label or variant, marker="o", markersize=4, capsize=3, linewidth=1.5,
                **style)
    return True


def _first(df: "pd.DataFrame", experiment: str, column: str) -> str:
    s = df.loc[df["experiment"] == experiment, column].dropna() if column in df else []
    return f"{s.iloc[0]:g}" if len(s) else "?"


def _size_axis(ax: "Axes") -> None:
    from matplotlib.ticker import FuncFormatter

    def label(v: float, _pos: int) -> str:
        if v >= 1024 and v % 1024 == 0:
            return f"{int(v) // 1024}K"
        return f"{int(v)}" if v == int(v) else f"{v:g}"
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(label))
    ax.set_xlabel("object size (bytes, log scale)")


def _log_counts(ax: "Axes") -> None:
    """A log y axis labelled 100, 200, 500, 1k, 2k, ... rather than powers of ten."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(
        lambda v, _pos: f"{v / 1000:g}k" if v >= 1000 else f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _finish(ax: "Axes") -> "Axes":
    ax.grid(alpha=0.3, which="both")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    return ax


def plot_remote(df: "pd.DataFrame", ax: "Optional[Axes]" = None) -> "Axes":
    """Throughput (million objects/s) against storm threads under remote frees:
    slablab with per-cpu partial lists on and off, and SLUB (seed 002)."""
    ax = _axes(ax)
    for i, v in enumerate(_variants(df, "remote")):
        _line(ax, df, "remote", v, "tput_ops_per_sec", scale=1e-6, **_style(v, i))
    threads = sorted(df.loc[df["experiment"] == "remote", "x"].dropna().unique())
    if threads:
        ax.set_xticks(threads)
    ax.set_xlabel("storm threads (producer + consumer pairs)")
    ax.set_ylabel("throughput (million objects/s)")
    ax.set_title(f"remote frees, {_first(df, 'remote', 'cache_size')}-byte objects: each "
                 "allocated on one cpu, freed on another;\nslablab with per-cpu partial "
                 "lists on and off, and SLUB (seed 002)", fontsize=10)
    ax.set_ylim(bottom=0)
    return _finish(ax)


def _plot_batch(df: "pd.DataFrame", ax: "Optional[Axes]", what: str) -> "Axes":
    ax = _axes(ax, (5, 4.4))
    for i, v in enumerate(_variants(df, "batch")):
        _line(ax, df, "batch", v, f"cycles_per_{what}", **_style(v, i))
    _size_axis(ax)
    _log_counts(ax)
    ax.set_ylabel(f"cycles per {what} (TSC, log scale)")
    ax.set_title(f"{_first(df, 'batch', 'batch')} × {what}, one thread", fontsize=10)
    return _finish(ax)


def plot_batch_alloc(df: "pd.DataFrame", ax: "Optional[Axes]" = None) -> "Axes":
    """Cycles per allocation against object size, BATCH allocations in a row on one
    thread (seed 001's km(N))."""
    return _plot_batch(df, ax, "alloc")


def plot_batch_free(df: "pd.DataFrame", ax: "Optional[Axes]" = None) -> "Axes":
    """Cycles per free against object size, the BATCH objects freed in a row (kf(N))."""
    return _plot_batch(df, ax, "free")


def plot_churn(df: "pd.DataFrame", ax: "Optional[Axes]" = None) -> "Axes":
    """Fragmentation against object size under churn (seed 003): the share of the pages
    held at steady state that holds no live object (``fragmentation_pct``, churn's
    figure), and dotted what is left after a shrink (``shrunk_fragmentation_pct``)."""
    ax = _axes(ax)
    for i, v in enumerate(_variants(df, "churn")):
        style = _style(v, i)
        _line(ax, df, "churn", v, "fragmentation_pct", **style)
        _line(ax, df, "churn", v, "shrunk_fragmentation_pct", label=f"{v}, after a shrink",
              color=style["color"], linestyle=":")
    _size_axis(ax)
    ax.set_ylabel("fragmentation at steady state (%)")
    ax.set_title(f"fragmentation under churn, {_first(df, 'churn', 'working_set')} live "
                 "objects per thread (seed 003):\n1 − live bytes / (pages × page size); "
                 "dotted: after a shrink", fontsize=10)
    ax.axhline(0, color="0.5", linewidth=0.8)
    return _finish(ax)


def _cpu_partial_axis(df: "pd.DataFrame", ax: "Axes") -> None:
    xs = sorted(df.loc[df["experiment"] == "fastpath", "x"].dropna().unique())
    ax.set_xscale("symlog", linthresh=1)
    if xs:
        ax.set_xlim(-0.3, max(xs) * 1.4)
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{x:g}" for x in xs])
        ax.minorticks_off()
    ax.set_xlabel("cpu_partial (objects; 0 = the smallest lists, one slab per cpu; symlog scale)")


def _slablab_fastpath(df: "pd.DataFrame") -> List[Tuple[str, str, str]]:
    """(variant, pattern, colour) of slablab's fastpath lines."""
    mine = [v for v in _variants(df, "fastpath") if not v.startswith("SLUB")]
    return [(v, v.split()[-1], COLORS[i % len(COLORS)]) for i, v in enumerate(mine)]


def plot_fastpath_share(df: "pd.DataFrame", ax: "Optional[Axes]" = None) -> "Axes":
    """Fast-path share of allocations and frees against cpu_partial (slablab: SLUB keeps
    no per-event counters on a stock kernel)."""
    ax = _axes(ax, (7, 3.5))
    for v, pattern, color in _slablab_fastpath(df):
        _line(ax, df, "fastpath", v, "alloc_fastpath_pct", f"{pattern}: allocs", color=color)
        _line(ax, df, "fastpath", v, "free_fastpath_pct", f"{pattern}: frees", color=color,
              linestyle=":")
    _cpu_partial_axis(df, ax)
    ax.set_ylabel("fast path (% of allocs / frees)")
    ax.set_ylim(-3, 103)
    ax.set_title(f"slablab, {_first(df, 'fastpath', 'cache_size')}-byte objects (SLUB keeps "
                 "no per-event counters on a stock kernel)", fontsize=9)
    return _finish(ax)


def plot_fastpath_list_ops(df: "pd.DataFrame", ax: "Optional[Axes]" = None) -> "Axes":
    """Node-list (list_lock) operations per 1000 ops against cpu_partial."""
    ax = _axes(ax, (7, 3.5))
    for v, pattern, color in _slablab_fastpath(df):
        _line(ax, df, "fastpath", v, "list_lock_ops_per_1000", f"slablab {pattern}",
              color=color)
    _cpu_partial_axis(df, ax)
    ax.set_ylabel("node-list (list_lock) ops per 1000 ops")
    ax.set_ylim(bottom=0)
    return _finish(ax)


def plot_fastpath_throughput(df: "pd.DataFrame", ax: "Optional[Axes]" = None) -> "Axes":
    """Throughput against cpu_partial; SLUB under the same storm (its own cpu_partial)
    as a dashed line, its min-max as a band."""
    ax = _axes(ax, (7, 3.5))
    colors = {}
    for v, pattern, color in _slablab_fastpath(df):
        _line(ax, df, "fastpath", v, "tput_ops_per_sec", f"slablab {pattern}", scale=1e-6,
              color=color)
        colors[pattern] = color
    fp = df[df["experiment"] == "fastpath"]
    for v in _variants(df, "fastpath"):
        vals = fp.loc[fp["variant"] == v, "tput_ops_per_sec"].dropna() \
            if v.startswith("SLUB") and "tput_ops_per_sec" in fp else []
        if len(vals):
            pattern = v.split()[-1]
            color = colors.get(pattern, "tab:red")
            ax.axhline(vals.median() / 1e6, color=color, linestyle="--", linewidth=1.2,
                       label=f"SLUB {pattern} (its own cpu_partial)")
            ax.axhspan(vals.min() / 1e6, vals.max() / 1e6, color=color, alpha=0.08)
    _cpu_partial_axis(df, ax)
    ax.set_ylabel("throughput (million ops/s)")
    ax.set_ylim(bottom=0)
    return _finish(ax)


class PlotFn(Protocol):
    """A plot: draws on ``ax``, or on a new figure's axes when it is None."""

    def __call__(self, df: "pd.DataFrame", ax: "Optional[Axes]" = None) -> "Axes": ...


#: Every plot function, by name.
PLOTS: Dict[str, PlotFn] = {f.__name__: f for f in (
    plot_remote, plot_batch_alloc, plot_batch_free, plot_churn, plot_fastpath_share,
    plot_fastpath_list_ops, plot_fastpath_throughput)}

#: Per experiment: the PNG, its panels (rows x columns), size and title.
FIGURES: Dict[str, Tuple[str, Sequence[PlotFn], Tuple[int, int], Tuple[float, float], str]] = {
    "remote": ("remote_throughput.png", [plot_remote], (1, 1), (7.5, 5), ""),
    "batch": ("batch_cycles.png", [plot_batch_alloc, plot_batch_free], (1, 2), (10, 4.4),
              "cost of an allocation and of a free vs object size, one thread "
              "(seed 001's km(N)/kf(N))"),
    "churn": ("churn_fragmentation.png", [plot_churn], (1, 1), (7.5, 5), ""),
    "fastpath": ("fastpath_cpu_partial.png",
                 [plot_fastpath_share, plot_fastpath_list_ops, plot_fastpath_throughput],
                 (3, 1), (7, 9.5),
                 "fast-path share, list_lock traffic and throughput vs cpu_partial"),
}
NOTES = {"batch": "init_on_alloc zeroing included, as on Debian"}


def footer(df: "pd.DataFrame", experiment: str) -> str:
    """Kernel, cpus, dates and repeats of an experiment's runs."""
    d = df[df["experiment"] == experiment]

    def values(col: str) -> List[str]:
        return sorted({str(v) for v in d[col].dropna()}) if col in d else []
    kernels = values("kernel_release")
    cpus = sorted({f"{v:g}" for v in d["vm_cpus"].dropna()}) if "vm_cpus" in d else []
    dates = sorted({v[:10] for v in values("date") if v})
    reps = d["repeat"].nunique()
    text = " · ".join(filter(None, [
        f"kernel {', '.join(kernels)}" if kernels else "",
        f"{', '.join(cpus)} cpus" if cpus else "",
        (dates[0] + (f" – {dates[-1]}" if dates[-1] != dates[0] else "")) if dates else "",
        f"median of {reps} run{'s' if reps != 1 else ''}, bars: min–max",
        NOTES.get(experiment, "")]))
    return text


def figure(df: "pd.DataFrame", experiment: str) -> "Figure":
    """The figure of one experiment, as save_plots() writes it."""
    import matplotlib.pyplot as plt
    _, panels, (rows, cols), size, title = FIGURES[experiment]
    fig, axes = plt.subplots(rows, cols, figsize=size, squeeze=False,
                             sharex=(experiment == "fastpath"))
    for fn, ax in zip(panels, axes.flat):
        fn(df, ax)
    if experiment == "fastpath":
        for ax in axes.flat[:-1]:
            ax.set_xlabel("")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.text(0.01, 0.005, footer(df, experiment), fontsize=7, color="0.35", ha="left",
             va="bottom")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def save_plots(df: "pd.DataFrame", out_dir: str, log: Callable[[str], Any] = print
               ) -> List[str]:
    """One PNG per experiment present in ``df`` into ``out_dir`` (Agg backend); returns
    the paths written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for exp, (fname, *_rest) in FIGURES.items():
        if not (df["experiment"] == exp).any():
            continue
        fig = figure(df, exp)
        path = os.path.join(out_dir, fname)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
        log(f"sweep: wrote {path}")
    return written

# SPDX-License-Identifier: GPL-2.0 OR MIT
"""python3 -m slablab.sweep: parameter sweeps of allocation storms, one CSV row per storm,
and the plots that reproduce the classic slab-allocator measurements with the kernel's
SLUB beside slablab on every one (docs/sweeps.md).

Run the grid where the module is loaded (the test VM: ``scripts/sweep.sh`` does it all),
plot anywhere (pandas and matplotlib, no kernel module)::

    python3 -m slablab.sweep run --grid small --out build/sweep/now   # CSV (+ plots)
    python3 -m slablab.sweep plot --out build/sweep/now build/sweep/now/sweep.csv
    python3 -m slablab.sweep --grid small --out DIR                   # same as `run`

The work is in :mod:`slablab.grid` (what runs), :mod:`slablab.runner` (running it),
:mod:`slablab.analysis` (CSV rows, DataFrames, medians) and :mod:`slablab.plots`.
"""

import argparse
import os
import sys
from typing import Any, Callable, List, Optional, Sequence

from .analysis import RUN_COLUMNS, SWEEP_COLUMNS, ratios_text, read_runs, summary_text
from .grid import EXPERIMENTS, GRIDS
from .runner import run_sweep

__all__ = ["GRIDS", "EXPERIMENTS", "COLUMNS", "run_sweep", "plot_csv", "main"]

#: The header of sweep.csv.
COLUMNS: List[str] = list(RUN_COLUMNS) + list(SWEEP_COLUMNS)


def plot_csv(paths: Sequence[str], out_dir: str, log: Callable[[str], Any] = print
             ) -> List[str]:
    """Draw one PNG per experiment found in the CSV file(s) and write summary.txt;
    returns the PNG paths."""
    from .plots import save_plots
    df = read_runs(paths)
    written = save_plots(df, out_dir, log)
    summary = summary_text(df) + ratios_text(df)
    with open(os.path.join(out_dir, "summary.txt"), "w") as f:
        f.write(summary)
    log(summary.rstrip())
    return written


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("run", "plot", "columns", "-h", "--help"):
        args.insert(0, "run")
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
    a = ap.parse_args(args)
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
    sys.exit(main())

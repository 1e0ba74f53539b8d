#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Judge the published runs under docs/results/ again with today's verdict rule.

Each published experiment folder keeps its raw runs (runs.csv.xz, live.csv.xz,
replays.csv.xz, replay.json, missing.json, boots.json, slabinfo-*.txt); this copies one
into a scratch folder, unpacks the CSVs and prints what `python3 -m slablab experiment
NAME --report` says of it now: the ranked verdict lines (primary, secondary with Holm's
adjustment). The published table.txt is left as it was (it is what that run printed).

    build/venv/bin/python scripts/rejudge-results.py              # every published run
    build/venv/bin/python scripts/rejudge-results.py docs/results/2026-12-07T015005Z-143da6f
"""

import argparse
import lzma
import os
import shutil
import sys
import tempfile
from typing import Dict, List, Optional, Sequence

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "docs", "results")


def rejudge(exp_dir: str, name: Optional[str] = None) -> str:
    """The report of a published experiment folder (``.../seed-003``) by today's rule."""
    from slablab.experiments import report as E
    name = name or os.path.basename(os.path.normpath(exp_dir))
    with tempfile.TemporaryDirectory() as tmp:
        for fn in os.listdir(exp_dir):
            src = os.path.join(exp_dir, fn)
            if fn.endswith(".csv.xz"):
                with lzma.open(src, "rb") as f, open(os.path.join(tmp, fn[:-3]), "wb") as g:
                    shutil.copyfileobj(f, g)
            elif fn.endswith((".json", ".txt")) and fn != "table.txt":
                shutil.copy(src, tmp)
        return E.report(name, tmp, log=lambda _s: None, do_plot=False)


def published(root: str = RESULTS) -> Dict[str, List[str]]:
    """Every published run (folder name) and the experiment folders it holds."""
    out: Dict[str, List[str]] = {}
    for run in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        d = os.path.join(root, run)
        exps = sorted(e for e in os.listdir(d)
                      if e.startswith("seed-") and os.path.isfile(os.path.join(d, e, "runs.csv.xz")))
        if exps:
            out[run] = [os.path.join(d, e) for e in exps]
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="*", help="published run folders (default: all)")
    ap.add_argument("--all-lines", action="store_true",
                    help="the whole report, not only its verdict lines")
    a = ap.parse_args(argv)
    runs = {os.path.basename(os.path.normpath(r)): [
        os.path.join(r, e) for e in sorted(os.listdir(r)) if e.startswith("seed-")]
        for r in a.runs} if a.runs else published()
    for run, exps in runs.items():
        for exp in exps:
            text = rejudge(exp)
            print(f"== {run}/{os.path.basename(exp)}")
            for line in text.splitlines():
                if a.all_lines or line.startswith(("  primary:", "  secondary", "  A/A")):
                    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

:func:`run_experiment` runs one experiment (in the VM), :func:`write_publication` keeps a
``--publish`` run in a folder of its own, :func:`main` is the command line.
"""

import argparse
import csv
import datetime
import json
import os
import sys
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import seeds as S
from .core import EXPERIMENTS, Log, SCALES, TITLES, _now, availability
from .guest import Lab
from .seed_000 import run_000, run_live_fio
from .seed_001 import run_001
from .seed_002 import run_002, run_live_hackbench
from .seed_003 import run_003
from .seed_004 import BOOT_KINDS, import_tbench_boots, run_004, run_tbench_boot
from .replays import REPLAY_WORKLOADS, run_replays
from .report import report
from .host import run_tbench_boots


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
        from .. import Client
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


# ---------------------------------------------------------------- a publication

def publication_dir(out: str, when: Optional[datetime.datetime] = None,
                    commit: Optional[str] = None) -> str:
    """Where ``--publish`` writes a run: ``out/<UTC date and time>-<slablab commit>``, a
    folder of its own that no later run overwrites."""
    from ..analysis import BUILD_COMMIT
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

# SPDX-License-Identifier: GPL-2.0
"""The deterministic performance gate (docs/testing.md, "The -icount performance gate").

Under qemu's -icount (scripts/vm.sh VM_ICOUNT=1, one vCPU) the guest's cycle counter
counts instructions (cycles = 2 x instructions), so a storm's cycles per operation repeat
from boot to boot. This file has two halves, stdlib only:

  measure   (in the VM) runs every figure of FIGURES with slabctl and writes them as JSON
  compare   (on the host) holds a measurement against the budget (tests/perf/icount-budget.json):
            a figure more than 3% over its budget, or one in the budget but not measured,
            fails; one more than 3% under it is reported (the budget can be lowered); one
            measured but not in the budget is reported. --update rewrites the budget
            (lowered figures keep their reason; a raised or new figure needs --reason).

scripts/icount-gate.sh (make icount-gate) boots the VM and runs both.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Tuple

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUDGET = os.path.join(REPO, "tests", "perf", "icount-budget.json")
# One budget per kernel the gate runs on: icount-budget.json (6.1, make test's first
# kernel) and icount-budget-K.json (7.3: the sheaves design against 7.x's own sheaves),
# each for the kernel_release of its context. compare picks the one of the measured
# kernel (--budget overrides it).
KERNEL_BUDGETS = sorted(glob.glob(os.path.join(REPO, "tests", "perf", "icount-budget-*.json")))
SCHEMA = "slablab-icount-budget/1"
THRESHOLD_PCT = 3.0

# The spec's design enum (uapi/slablab.yaml; slablab.DESIGNS): tests/host/test_icount_gate.py
# checks the two agree.
DESIGNS = ("slub", "sheaves", "slab", "slob")
SIZE = 64
# A run's fixed cost (the storm's set-up, a first slow path) is part of its cycles per
# operation, so -n is part of a figure: pair runs as docs/benchmarks.md's "kmalloc's cost
# over a cache" (-n 2000, where kmalloc's pair reads 544), batch with whole batches.
PAIR_OPS = 2000
BATCH_OPS = 4096    # 16 whole batches
BATCH = 256         # 4 slabs of 64-byte objects per batch: slabs fill and empty
REPEAT = 5          # counted runs per figure (slabctl compare adds one warm-up run)

# name -> (slabctl compare arguments, the figure of its summary). {cache} is the design's
# own 64-byte cache, made by measure() before its runs.
FIGURES = {}
for _d in DESIGNS:
    FIGURES[f"{_d}.pair"] = (["pair", "-c", "{cache}", "-T", "slablab", "-n", str(PAIR_OPS)],
                             "cycles_per_pair")
    for _f in ("alloc", "free"):
        FIGURES[f"{_d}.batch.{_f}"] = (["batch", "-c", "{cache}", "-T", "slablab", "-b", str(BATCH),
                                        "-n", str(BATCH_OPS)], f"cycles_per_{_f}")
FIGURES["kmalloc.pair64"] = (["pair", "-T", "kmalloc", "-s", str(SIZE), "-n", str(PAIR_OPS)],
                             "cycles_per_pair")
# The kernel's own allocator on the same work (a kmem_cache of SIZE): the reference the
# designs are read against (6.1's SLUB, 7.x's sheaves), measured and printed but not
# gated — it is the kernel's code, not slablab's, and moves with the kernel's release.
REFERENCE = "native."
FIGURES["native.pair"] = (["pair", "-T", "native", "-s", str(SIZE), "-n", str(PAIR_OPS)],
                          "cycles_per_pair")
for _f in ("alloc", "free"):
    FIGURES[f"native.batch.{_f}"] = (["batch", "-T", "native", "-s", str(SIZE), "-b", str(BATCH),
                                      "-n", str(BATCH_OPS)], f"cycles_per_{_f}")


# ---------------------------------------------------------------- measure (in the VM)

def find_slabctl():
    for build in (os.environ.get("SLABLAB_BUILD"), os.path.join(REPO, "build")):
        if build and os.access(os.path.join(build, "tool", "slabctl"), os.X_OK):
            return os.path.join(build, "tool", "slabctl")
    return shutil.which("slabctl")


def run_compare(slabctl, args, figures, repeat):
    cmd = [slabctl, "compare", *args, "-r", str(repeat), "-q", "--json"]
    for f in figures:
        cmd += ["--figure", f]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def measure(slabctl, repeat=REPEAT, only=None):
    """Every figure's median cycles over `repeat` runs (and each run's value, to judge
    the spread), with the context slabctl reports (kernel, icount shift, commit)."""
    names = [n for n in FIGURES if only is None or n in only]
    # one compare per distinct command: a batch run gives both its alloc and free figures
    groups: Dict[Tuple[Optional[str], Tuple[str, ...]], List[Tuple[str, str]]] = {}
    for n in names:
        args, fig = FIGURES[n]
        design = next((d for d in DESIGNS if n.startswith(d + ".")), None)
        groups.setdefault((design, tuple(args)), []).append((n, fig))
    made = set()
    result: Dict[str, Any] = {"figures": {}, "runs": {}, "context": None,
                              "settings": {"size": SIZE, "pair_ops": PAIR_OPS, "batch_ops": BATCH_OPS,
                                           "batch": BATCH, "repeat": repeat}}
    for (design, group_args), members in groups.items():
        cache = f"gate-{design}" if design else None
        if cache and cache not in made:
            assert design is not None       # a cache is made for a design's figures only
            subprocess.run([slabctl, "create", cache, "--size", str(SIZE), "--design", design],
                           check=True, stdout=subprocess.DEVNULL)
            made.add(cache)
        argv = [a.replace("{cache}", cache or "") for a in group_args]
        doc = run_compare(slabctl, argv, [f for _, f in members], repeat)
        result["context"] = result["context"] or doc.get("context")
        variant = doc["variants"][0]
        for n, fig in members:
            result["figures"][n] = round(variant["summary"][fig]["median"], 1)
            result["runs"][n] = [round(_per_op(r["storm"]["result"], fig), 1)
                                 for r in doc["runs"] if r.get("counted")]
        for n, _ in members:
            print(f"icount-gate: measured {n:<20} {result['figures'][n]:>9.1f} cycles", flush=True)
    for cache in sorted(made):
        subprocess.run([slabctl, "destroy", cache], check=False, stdout=subprocess.DEVNULL)
    return result


def _per_op(res, fig):
    """A run's figure from its storm result (slabctl's own formula: cycles / count)."""
    if fig == "cycles_per_pair":
        return res["pair_cycles"] / max(res["allocs"], 1)
    if fig == "cycles_per_alloc":
        return res["alloc_cycles"] / max(res["allocs"], 1)
    if fig == "cycles_per_free":
        return res["free_cycles"] / max(res["frees"], 1)
    raise KeyError(fig)


# ---------------------------------------------------------------- compare (on the host)

def load_budget(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema") != SCHEMA:
        raise ValueError(f"{path}: schema {doc.get('schema')!r}, expected {SCHEMA!r}")
    for name, entry in doc.get("figures", {}).items():
        if not isinstance(entry.get("cycles"), (int, float)) or not str(entry.get("reason", "")).strip():
            raise ValueError(f"{path}: figure {name} needs \"cycles\" (a number) and a \"reason\"")
    return doc


def budget_for(kernel_release):
    """The budget file whose context names kernel_release, else the default (6.1's)."""
    for path in KERNEL_BUDGETS:
        with open(path) as f:
            if json.load(f).get("context", {}).get("kernel_release") == kernel_release:
                return path
    return BUDGET


def growth_pct(budget, measured):
    return (measured - budget) / budget * 100.0


def compare(budget, measured, threshold=None):
    """Hold `measured` (name -> cycles) against `budget` (the budget file's document).
    Returns (ok, lines): ok is False when a figure grew by more than the threshold or is
    missing; lines say so, and also name the figures that fell by more than the threshold
    and the ones measured but not in the budget (neither fails)."""
    threshold = budget.get("threshold_pct", THRESHOLD_PCT) if threshold is None else threshold
    figures = budget["figures"]
    ok, lines = True, []
    for name, entry in figures.items():
        b = entry["cycles"]
        if name not in measured:
            ok = False
            lines.append(f"icount-gate: FAIL {name}: budget {b:.1f} cycles, not measured "
                         f"(the gate no longer measures it, or its run failed)")
            continue
        m = measured[name]
        g = growth_pct(b, m)
        if g > threshold:
            ok = False
            lines.append(f"icount-gate: FAIL {name}: budget {b:.1f} cycles, measured {m:.1f}, "
                         f"growth {g:+.2f}% (over the {threshold:g}% allowed)")
        elif g < -threshold:
            lines.append(f"icount-gate: lower {name}: budget {b:.1f} cycles, measured {m:.1f}, "
                         f"{g:+.2f}%: the budget can be lowered (scripts/icount-gate.sh --update)")
        else:
            lines.append(f"icount-gate: ok   {name}: budget {b:.1f} cycles, measured {m:.1f}, {g:+.2f}%")
    for name in measured:
        if name.startswith(REFERENCE):
            lines.append(f"icount-gate: ref  {name}: measured {measured[name]:.1f} cycles (the kernel's "
                         f"own allocator: not gated)")
        elif name not in figures:
            lines.append(f"icount-gate: new  {name}: measured {measured[name]:.1f} cycles, not in the "
                         f"budget (add it: scripts/icount-gate.sh --update --reason '{name}=WHY')")
    return ok, lines


def update(budget, measured, reasons, threshold=None):
    """The budget with `measured` applied: a figure that fell by more than the threshold
    takes its measured value and keeps its reason; one that grew by more than it, or a
    new one, takes its value only with a reason (reasons: name -> text, "" for any), and
    that reason replaces the old one; the rest are left alone. Returns (new budget,
    errors); on errors the caller must not write it."""
    threshold = budget.get("threshold_pct", THRESHOLD_PCT) if threshold is None else threshold
    new = json.loads(json.dumps(budget))
    figures = new["figures"]
    errors = []
    for name, m in measured.items():
        if name.startswith(REFERENCE):
            continue    # never budgeted
        entry = figures.get(name)
        if entry is not None:
            g = growth_pct(entry["cycles"], m)
            if g < -threshold:
                entry["cycles"] = m
                continue
            if g <= threshold:
                continue
        why = reasons.get(name, reasons.get(""))
        if not why:
            what = "new" if entry is None else f"{growth_pct(entry['cycles'], m):+.1f}% over its budget"
            errors.append(f"icount-gate: {name} ({what}, measured {m:.1f}) needs a reason: "
                          f"--reason '{name}=WHY' (or --reason WHY for every raised figure)")
            continue
        figures[name] = {"cycles": m, "reason": why}
    missing = [n for n in figures if n not in measured]
    for name in missing:
        errors.append(f"icount-gate: {name} is in the budget but was not measured: remove it from "
                      f"the budget file by hand (with the change that dropped it)")
    return new, errors


def parse_reasons(items, names):
    """--reason FIGURE=TEXT (one figure) or --reason TEXT (every raised or new figure)."""
    reasons = {}
    for item in items or []:
        key, sep, text = item.partition("=")
        if sep and key in names:
            reasons[key] = text.strip()
        else:
            reasons[""] = item.strip()
    return reasons


def write_budget(path, doc):
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(path + ".tmp", path)


# ---------------------------------------------------------------- command line

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure", help="run every figure (in the VM) and write them as JSON")
    m.add_argument("--out", required=True)
    m.add_argument("--slabctl", default=None)
    m.add_argument("--repeat", type=int, default=REPEAT)
    m.add_argument("--only", action="append", help="measure only this figure (repeatable)")
    c = sub.add_parser("compare", help="hold a measurement against the budget")
    c.add_argument("measured")
    c.add_argument("--budget", default=None,
                   help="the budget file (default: the one whose context is the measured kernel's)")
    c.add_argument("--update", action="store_true", help="rewrite the budget (reasons kept)")
    c.add_argument("--reason", action="append", metavar="[FIGURE=]TEXT",
                   help="the reason for a raised or new figure (--update)")
    a = ap.parse_args(argv)

    if a.cmd == "measure":
        slabctl = a.slabctl or find_slabctl()
        if not slabctl:
            print("icount-gate: no slabctl (SLABLAB_BUILD/tool/slabctl, build/tool/slabctl, PATH)",
                  file=sys.stderr)
            return 2
        t0 = time.monotonic()
        res = measure(slabctl, a.repeat, set(a.only) if a.only else None)
        res["seconds"] = round(time.monotonic() - t0, 1)
        with open(a.out, "w") as f:
            json.dump(res, f, indent=2)
            f.write("\n")
        return 0

    with open(a.measured) as f:
        doc = json.load(f)
    if a.budget is None:
        a.budget = budget_for((doc.get("context") or {}).get("kernel_release"))
    budget = load_budget(a.budget)
    measured = doc["figures"]
    ctx = doc.get("context") or {}
    want = budget.get("context", {})
    for key in ("kernel_release", "vm_icount", "vm_cpus"):
        if key in want and str(ctx.get(key)) != str(want[key]):
            print(f"icount-gate: warning: measured with {key} {ctx.get(key)!r}, the budget's is "
                  f"{want[key]!r}: the figures are instruction counts of that setup", file=sys.stderr)
    ok, lines = compare(budget, measured)
    for line in lines:
        print(line)
    if a.update:
        names = set(measured) | set(budget["figures"])
        new, errors = update(budget, measured, parse_reasons(a.reason, names))
        for e in errors:
            print(e, file=sys.stderr)
        if errors:
            print(f"icount-gate: {a.budget} left as it was", file=sys.stderr)
            return 1
        if new != budget:
            write_budget(a.budget, new)
            print(f"icount-gate: {a.budget} rewritten: review it with git diff")
        else:
            pct = budget.get("threshold_pct", THRESHOLD_PCT)
            print(f"icount-gate: {a.budget} unchanged (every figure within {pct:g}%)")
        return 0
    n_fail = sum(1 for line in lines if line.startswith("icount-gate: FAIL"))
    print(f"icount-gate: {'PASS' if ok else 'FAIL'}: {len(budget['figures'])} figures, "
          f"{n_fail} over budget or missing")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

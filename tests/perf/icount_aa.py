#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The A/A of the deterministic mode on several vCPUs (make icount-aa,
scripts/icount-aa.sh; docs/experiments.md, "Deterministic mode").

Under VM_ICOUNT=1 VM_CPUS=N (scripts/vm.sh: maxcpus=1, the other cpus brought online by
the guest's init) the same remote storm runs in separate boots; how far its figures move
from boot to boot is the noise floor of an icount comparison on N cpus.

  icount_aa.py guest --out FILE [--storms K] [--ops N] [--size B]   (in the VM)
  icount_aa.py summary FILE...                                       (on the host)

In the guest everything is loaded before the first storm and nothing is read or written
through 9p (or printed to the virtio console) until the last one ends: host I/O reaches
an icount guest at instruction counts no run controls (its replies arrive when the host
has them), and each such arrival moves the guest's clock. The storms' results go to
FILE in one write at the end.

The summary reads one FILE per boot and prints, for each figure of the first storm of
every boot (then of the later storms of a boot, which ran after the first in the same
kernel, and of the median of each boot's storms), the boots' values, their median, the
largest deviation from the median, the per-boot sd and the 95% interval of a single
boot's value about the mean (t with n-1 degrees of freedom, x sd x sqrt(1 + 1/n)): the
A/A."""
import argparse
import json
import math
import os
import statistics
import sys
from typing import Any, Dict, List, Optional, Tuple

# cycles per operation, then the node-list (list_lock) operations the slub design counts
# (slablab.analysis.LIST_LOCK_STATS, repeated here: the summary runs without the package)
FIGURES = ("cycles_per_alloc", "cycles_per_free")
LIST_LOCK_STATS = ("alloc_from_partial", "free_add_partial", "free_remove_partial",
                   "cpu_partial_node", "cpu_partial_drain")
OTHER_STATS = ("alloc_slab", "free_slab", "alloc_slowpath", "cpu_partial_free")

# two-sided 95% t quantiles, df 1..30
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
       2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t95(df: int) -> float:
    return T95[df - 1] if df <= len(T95) else 1.96


# ---------------------------------------------------------------- in the VM

def online_cpus() -> List[int]:
    with open("/sys/devices/system/cpu/online") as f:
        text = f.read().strip()
    cpus: List[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


def guest(out: str, storms: int, ops: int, size: int) -> int:
    import slablab  # the venv's package: imported before anything is measured
    from slablab.analysis import LIST_LOCK_STATS as stats_of_record
    assert tuple(stats_of_record) == LIST_LOCK_STATS, stats_of_record
    want = int(os.environ.get("SLABLAB_VM_CPUS", "0"))
    cpus = online_cpus()
    if want and len(cpus) != want:
        print(f"icount-aa: {len(cpus)} cpus online, VM_CPUS={want}", file=sys.stderr)
        return 1
    if len(cpus) % 2:
        print(f"icount-aa: a remote storm needs an even number of cpus, not {len(cpus)}",
              file=sys.stderr)
        return 1
    client = slablab.Client()
    runs: List[Dict[str, Any]] = []
    for i in range(storms):
        name = f"icount-aa-{i}"
        client.cache_create(name, size, design="slub")
        try:
            r: Dict[str, Any] = dict(client.storm("slablab", "remote", cache=name,
                                                  threads=len(cpus), cpus=cpus, ops=ops))
        finally:
            client.cache_destroy(name)
        res = r["result"]
        runs.append({"figures": {f: r["figures"][f] for f in FIGURES},
                     "stats": {s: res["stats"][s] for s in LIST_LOCK_STATS + OTHER_STATS},
                     "elapsed_ns": r["progress"]["elapsed_ns"], "state": r.get("state")})
    doc = {"kernel": os.uname().release, "icount": os.environ.get("SLABLAB_VM_ICOUNT", ""),
           "cpus": len(cpus), "ops": ops, "size": size, "storms": runs}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    return 0


# ---------------------------------------------------------------- on the host

def spread(values: List[float]) -> Dict[str, float]:
    """The A/A of one figure over boots: median, largest deviation from it (%), per-boot
    sd (% of the mean) and the 95% interval of one boot's value about the mean (%)."""
    n = len(values)
    mean = statistics.fmean(values)
    med = statistics.median(values)
    sd = statistics.stdev(values) if n > 1 else 0.0
    dev = max(abs(v / med - 1) for v in values) * 100 if med else 0.0
    sd_pct = sd / mean * 100 if mean else 0.0
    pi = t95(n - 1) * sd_pct * math.sqrt(1 + 1 / n) if n > 1 else math.nan
    return {"n": n, "mean": mean, "median": med, "max_dev_pct": dev, "sd_pct": sd_pct,
            "pi95_pct": pi}


def storm_values(storm: Dict[str, Any]) -> Dict[str, float]:
    """One storm's figures by the names the summary prints."""
    v = {f.replace("_", " ").replace("cycles per ", "cycles/"): float(storm["figures"][f])
         for f in FIGURES}
    v["list_lock ops"] = float(sum(storm["stats"][s] for s in LIST_LOCK_STATS))
    v.update({s: float(storm["stats"][s]) for s in LIST_LOCK_STATS + OTHER_STATS})
    return v


def rows(docs: List[Dict[str, Any]], storm: Optional[int]) -> List[Dict[str, Any]]:
    """Each figure's values over the boots, and their spread: of one storm of each boot
    (`storm`, from 0), or (None) of the median of each boot's storms."""
    per_boot = []
    for d in docs:
        if storm is not None:
            per_boot.append(storm_values(d["storms"][storm]))
        else:
            each = [storm_values(x) for x in d["storms"]]
            per_boot.append({k: statistics.median(e[k] for e in each) for k in each[0]})
    out: List[Dict[str, Any]] = []
    for name in per_boot[0]:
        values = [b[name] for b in per_boot]
        out.append({"figure": name, "values": values, **spread(values)})
    return out


def summary(paths: List[str]) -> int:
    docs = []
    for p in paths:
        with open(p) as f:
            docs.append(json.load(f))
    if len(docs) < 2:
        print("icount-aa: fewer than 2 boots: no A/A", file=sys.stderr)
        return 2
    d0 = docs[0]
    for d in docs[1:]:
        for k in ("kernel", "icount", "cpus", "ops", "size"):
            if d[k] != d0[k]:
                print(f"icount-aa: the boots differ in {k}: {d0[k]} and {d[k]}", file=sys.stderr)
                return 2
    storms = min(len(d["storms"]) for d in docs)
    print(f"icount-aa: {len(docs)} boots of {d0['kernel']}, icount shift {d0['icount']}, "
          f"{d0['cpus']} cpus: remote storm, {d0['cpus']} threads, {d0['ops']} objects of "
          f"{d0['size']} B a producer, a new slub-design cache each storm")
    heads: List[Tuple[Optional[int], str]] = [
        (i, f"storm {i + 1} of each boot"
         + (" (the first: what a one-storm comparison sees)" if i == 0 else ""))
        for i in range(storms)]
    if storms > 1:
        heads.append((None, f"the median of each boot's {storms} storms"))
    for storm, head in heads:
        print(head)
        print(f"  {'figure':<22} {'median':>10} {'max dev':>8} {'sd':>7} {'95% one boot':>13}"
              "  values (boot order)")
        for r in rows(docs, storm):
            vals = " ".join(f"{v:.0f}" if v == int(v) and "cycles" not in r["figure"]
                            else f"{v:.2f}" for v in r["values"])
            print(f"  {r['figure']:<22} {r['median']:>10.2f} {r['max_dev_pct']:>7.2f}% "
                  f"{r['sd_pct']:>6.2f}% {'±':>4}{r['pi95_pct']:>7.2f}%  {vals}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("guest", help="run the storms (in the VM)")
    g.add_argument("--out", required=True)
    g.add_argument("--storms", type=int, default=3)
    g.add_argument("--ops", type=int, default=500000)
    g.add_argument("--size", type=int, default=64)
    s = sub.add_parser("summary", help="the A/A over boots (on the host)")
    s.add_argument("files", nargs="+")
    a = ap.parse_args(argv)
    if a.cmd == "guest":
        return guest(a.out, a.storms, a.ops, a.size)
    return summary(a.files)


if __name__ == "__main__":
    sys.exit(main())

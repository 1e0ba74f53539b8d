# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The findings of docs/findings.md: linux-mm's open questions of 2026 about 7.x's sheaves,
each answered by taking one cache layer out and leaving the rest identical (issue 42).

Run inside the VM (``make findings FINDINGS=q4``, scripts/findings.sh), deterministic
(``VM_ICOUNT=1 VM_CPUS=2``: cycles count instructions, the same every run)::

    python3 -m slablab findings [q4,...|all|list] [--out DIR] [--repeat N] [--ops N]

Each question names its **primary verdict before the run** (:data:`QUESTIONS`): one
ratio of one figure between two designs, judged by ``slabctl compare``'s rule —
"higher"/"lower" when the 95% interval excludes 1, "no difference" only when it lies
inside 1 ± ``TOLERANCE`` (equivalence), else inconclusive with the per-pair sd, the
minimum detectable effect and the repeats a decision would need. The other ratios are
printed as secondary, their p-values Holm-adjusted.

What the lab cannot say: contention *time* (192 cpus, cache-line bouncing, lock hold
times) is not measurable under TCG on 2 cores; instruction counts and the mechanism
counts (node list_lock operations, barn operations, page round trips per 1000
objects) are, and repeat exactly.
"""
import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from .analysis import LIST_LOCK_STATS, paired_ratio_ci
from .analysis import holm as analysis_holm
from .analysis import verdict as compare_verdict

#: The equivalence margin: "no difference" needs the whole interval inside 1 ± this.
TOLERANCE = 0.05
#: Node list_lock acquisitions: SLUB's partial-list traffic (slub, sheaves designs) and
#: SLAB's array misses, each a refill (cache_alloc_refill()) or a flush
#: (cache_flusharray()) under the node's list_lock (slab design).
NODE_LOCK_STATS = tuple(LIST_LOCK_STATS) + ("allocmiss", "freemiss")
#: Barn traffic (sheaves only): full and empty sheaves taken from and given to a barn.
BARN_STATS = ("barn_get", "barn_get_fail", "barn_put", "barn_put_fail")
#: Page-allocator round trips.
PAGE_STATS = ("alloc_slab", "free_slab")


@dataclass(frozen=True)
class Question:
    """One finding: its source on linux-mm, what runs, and the primary verdict named
    before the run (figure, variant against baseline)."""
    key: str
    title: str
    source: str
    primary: str            # "FIGURE: VARIANT vs BASELINE", or q5's first shape
    run: Callable[["Context"], Dict[str, Any]]
    report: Optional[Callable[["Question", Mapping[str, Any]], str]] = None


@dataclass
class Context:
    client: Any
    out: str
    repeat: int
    ops: int
    log: Callable[[str], None] = print
    results: Dict[str, Any] = field(default_factory=dict)


def per_1000(run: Mapping[str, Any], names: Sequence[str]) -> Optional[float]:
    """The run's statistics ``names`` summed, per 1000 objects it allocated."""
    res = run["storm"]["result"]
    if not res or not res["allocs"] or res["stats"] is None:
        return None
    return 1000.0 * float(sum(res["stats"][n] for n in names)) / float(res["allocs"])


def mechanism_table(cmp: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """Per variant: the counted runs' median list_lock, barn and page operations per
    1000 objects, and their spread (max - min: 0 under -icount when they repeat)."""
    rows = []
    for vi, v in enumerate(cmp["variants"]):
        runs = [r for r in cmp["runs"] if r["variant"] == vi and r["counted"]]
        row: Dict[str, Any] = {"variant": v["label"], "runs": len(runs)}
        for key, names in (("list_lock", NODE_LOCK_STATS), ("barn", BARN_STATS),
                           ("pages", PAGE_STATS)):
            vals = sorted(x for x in (per_1000(r, names) for r in runs) if x is not None)
            row[key] = vals[len(vals) // 2] if vals else None
            row[key + "_spread"] = (vals[-1] - vals[0]) if vals else None
        rem = [r["storm"]["result"]["remote_frees"] / max(1, r["storm"]["result"]["frees"])
               for r in runs if r["storm"]["result"]]
        row["remote_pct"] = 100.0 * sorted(rem)[len(rem) // 2] if rem else None
        rows.append(row)
    return rows


def holm(ps: Sequence[Optional[float]]) -> List[Optional[float]]:
    """:func:`slablab.analysis.holm` over the p-values that exist (None stays None)."""
    have = [i for i, p in enumerate(ps) if p is not None]
    adj = analysis_holm([ps[i] for i in have])  # type: ignore[misc]
    out: List[Optional[float]] = [None] * len(ps)
    for i, p in zip(have, adj):
        out[i] = p
    return out


def verdict_line(label: str, fig: str, s: Mapping[str, Any], base: str,
                 p_adj: Optional[float] = None) -> str:
    """One verdict as the rule reads the interval (``slabctl compare``'s verdict)."""
    ci = s.get("ci")
    if not ci:
        return f"{fig}: {label} vs {base}: no interval (too few counted runs)"
    text = (f"{fig}: {label} vs {base}: {pct(ci['ratio'])} "
            f"[{pct(ci['lo'])}, {pct(ci['hi'])}] (n={ci['n']})")
    v = s["verdict"]
    if v == "higher" or v == "lower":
        text += f": {v}"
    elif v == "same":
        text += f": no difference (inside ±{TOLERANCE:.0%})"
    else:
        mde = ci.get("mde")
        sd = ci.get("sd")
        need = ""
        if sd and mde is not None and mde > 0:
            # n for a 80%-power detection of the tolerance itself: (2.8 sd / log(1+tol))^2
            n = math.ceil((2.8 * sd / math.log1p(TOLERANCE)) ** 2)
            need = f"; a decision at ±{TOLERANCE:.0%} needs about {n} repeats"
        text += (f": inconclusive (per-pair sd {sd:.4f}, MDE at 80% power "
                 f"{mde * 100:.2f}%{need})")
    if p_adj is not None:
        text += f" [secondary, Holm p={p_adj:.3g}{held(v, p_adj)}]"
    return text


def pct(ratio: float) -> str:
    """A ratio as a signed percentage change: 0.95 -> '-5.00%'."""
    return f"{(ratio - 1) * 100:+.2f}%"


def held(verdict: str, p_adj: float) -> str:
    """A secondary's higher/lower that Holm's adjustment takes back says so."""
    return ": not significant after Holm" if verdict in ("higher", "lower") and \
        p_adj > 0.05 else ""


def own_cache(c: Any, name: str, size: int) -> Any:
    """A :class:`slablab.Cache` of ``name`` for a ``with`` block, after destroying what an
    interrupted earlier run left under that name."""
    import slablab
    try:
        c.cache_destroy(name)
    except slablab.NotFound:
        pass
    return slablab.Cache(c, name, size)


def run_q4(ctx: Context) -> Dict[str, Any]:
    """Cross-cpu producer→consumer: half the online cpus produce, the other half consume
    (one each on 2 vCPUs, two each on 4), a worker per cpu, a ring of 256 between them,
    256-byte objects, on slub, sheaves and slab (and the kernel's own allocator)."""
    c = ctx.client
    ncpus = c.status()["nr_online_cpus"]
    if ncpus < 2:
        raise RuntimeError("q4 needs 2 cpus at least (VM_CPUS=2): a producer and a consumer")
    threads = ncpus - ncpus % 2
    with own_cache(c, "q4-256", 256) as cache:
        cmp = c.compare("producer-consumer", cache=cache.name,
                        sets=[{"design": "slub"}, {"design": "sheaves"}, {"design": "slab"}],
                        threads=threads, producers=threads // 2,
                        cpus=",".join(map(str, range(threads))), ops=ctx.ops, ring=256,
                        repeat=ctx.repeat, warmup=1,
                        figures=["cycles_per_alloc", "cycles_per_free"])
    return dict(cmp)


#: q5's batch sizes: Jesper Brouer's tables' (SLUB fbd02630c6e3, SLAB e6cdb58d1c83).
Q5_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 250)
#: q5's seed shapes, cycles per object (alloc + free) as the commits' tables give them:
#: (subject, variant label suffix, batch, against batch, seed's change, what it is).
Q5_SHAPES = (
    ("slub design, bulk 16 vs 1", "design=slub", 16, 1, 17 / 45 - 1, "SLUB 45 -> 17 cycles"),
    ("native SLUB, bulk 16 vs 1", "native", 16, 1, 17 / 45 - 1, "SLUB 45 -> 17 cycles"),
    ("slab design, bulk 250 vs 1", "design=slab", 250, 1, 13 / 88 - 1, "SLAB 88 -> 13 cycles"),
    ("slub design, bulk 32 vs 16 (the knee)", "design=slub", 32, 16, 58 / 17 - 1,
     "SLUB's knee 17 -> 58 cycles"),
)


def pair_cycles_per_object(run: Mapping[str, Any]) -> Optional[float]:
    """A bulk run's alloc + free cycles per object."""
    res = run["storm"]["result"]
    if not res or not res["allocs"]:
        return None
    return float(res["alloc_cycles"] + res["free_cycles"]) / float(res["allocs"])


def run_q5(ctx: Context) -> Dict[str, Any]:
    """Bulk: the bulk pattern over Q5_BATCHES on one cpu, 256-byte objects, on the slub
    and slab designs and the kernel's kmem_cache_alloc_bulk() (native), one compare per
    batch size; each variant's cycles per object by batch and repeat."""
    c = ctx.client
    per: Dict[str, Any] = {"batches": list(Q5_BATCHES), "variants": [], "cycles": {},
                           "compares": {}}
    with own_cache(c, "q5-256", 256) as cache:
        for b in Q5_BATCHES:
            ctx.log(f"findings: q5: bulk {b} ...")
            ops = max(ctx.ops - ctx.ops % b, b)
            cmp = c.compare("bulk", cache=cache.name, sets=[{"design": "slub"}, {"design": "slab"}],
                            threads=1, cpus="0", batch=b, ops=ops, repeat=ctx.repeat,
                            warmup=1, figures=["cycles_per_alloc", "cycles_per_free"])
            per["context"] = cmp["context"]
            per["repeats_done"] = cmp["repeats_done"]
            per["variants"] = [v["label"] for v in cmp["variants"]]
            for r in cmp["runs"]:
                if not r["counted"]:
                    continue
                x = pair_cycles_per_object(r)
                if x is not None:
                    per["cycles"].setdefault(r["label"], {}).setdefault(str(b), {})[
                        str(r["repeat"])] = x
            per["compares"][str(b)] = {"variants": cmp["variants"]}
    return per


def q5_lines(per: Mapping[str, Any]) -> List[str]:
    """Each shape of Q5_SHAPES as the seed verdict rule reads it (the experiments'
    shape_verdict: agrees only when the interval excludes none), the first primary."""
    from .experiments.core import ratio_ci, verdict_line as seed_line
    lines, ps = [], []
    for subject, suffix, b, base_b, change, what in Q5_SHAPES:
        label = next((v for v in per["variants"] if v.endswith(suffix)), None)
        cyc = per["cycles"].get(label or "", {})
        a, o = cyc.get(str(base_b), {}), cyc.get(str(b), {})
        reps = sorted(set(a) & set(o), key=int)
        ci = ratio_ci([a[r] for r in reps], [o[r] for r in reps])
        lines.append(seed_line(subject, what, change, ci))
        ps.append(ci.p_value() if ci else None)
    adj = holm(ps[1:])
    out = ["primary: " + lines[0]]
    out += [f"secondary: {x} [Holm p={p:.3g}]" if p is not None else f"secondary: {x}"
            for x, p in zip(lines[1:], adj)]
    return out


def q5_report(q: Question, per: Mapping[str, Any]) -> str:
    ctxt = per["context"]
    labels = per["variants"]
    out = [f"## {q.key}: {q.title}", f"source: {q.source}",
           f"machine: {ctxt['kernel_release']}, {ctxt['vm_cpus']} vCPUs, icount "
           f"{ctxt['vm_icount'] or 'off (wall-clock cycles: noisy)'}; slablab "
           f"{ctxt['slablab_commit']}; {per['repeats_done']} repeats + 1 warm-up per batch",
           "", "cycles per object (alloc + free), median over the repeats:", "",
           "| bulk | " + " | ".join(labels) + " |",
           "| ---: |" + " ---: |" * len(labels)]
    for b in per["batches"]:
        cells = []
        for lbl in labels:
            v = sorted(per["cycles"].get(lbl, {}).get(str(b), {}).values())
            cells.append(f"{v[len(v) // 2]:.1f}" if v else "–")
        out.append(f"| {b} | " + " | ".join(cells) + " |")
    out.append("")
    out.extend(q5_lines(per))
    return "\n".join(out) + "\n"


#: q3's replay figures: (key in a Replay, what it is); the first is the primary's.
Q3_FIGURES = (("cycles_per_alloc", "cycles per alloc"), ("cycles_per_free", "cycles per free"),
              ("avg_pages", "time-weighted pages"), ("peak_pages", "peak pages"))
#: q3's replay targets: the baseline first.
Q3_TARGETS = ("slub", "sheaves", "native")


def fork_exec_loop(n: int) -> List[str]:
    """The recorded workload: n fork + execve of /bin/true from a shell, the shape of
    ``perf bench syscall fork``/``execve`` (Debian 12's perf has neither)."""
    return ["sh", "-c", f"i=0; while [ $i -lt {n} ]; do /bin/true; i=$((i + 1)); done"]


def run_q3(ctx: Context) -> Dict[str, Any]:
    """fork/execve: the loop recorded with ``slabctl record`` on the running kernel
    (`make findings FINDINGS=q3 KERNEL=7.3` records it on 7.3), then replayed
    ``ctx.repeat`` times on the slub and sheaves designs and the kernel's allocator."""
    import subprocess
    c = ctx.client
    slabctl = os.environ.get("SLABCTL", "slabctl")
    trace = os.path.join(ctx.out, "q3-fork-exec.trace")
    n = max(50, ctx.ops // 100)
    ctx.log(f"findings: q3: recording {n} fork+execve of /bin/true ...")
    r = subprocess.run([slabctl, "record", "-o", trace, "--buffer-kb", "32768", "--",
                        *fork_exec_loop(n)], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"q3: slabctl record failed ({r.returncode}): {r.stderr.strip()}")
    st = c.status()
    out: Dict[str, Any] = {"trace": os.path.basename(trace), "loops": n,
                           "kernel_release": st["kernel_release"],
                           "vm_cpus": st["nr_online_cpus"],
                           "vm_icount": os.environ.get("SLABLAB_VM_ICOUNT", ""),
                           "record": r.stdout.strip().splitlines()[-1:] if r.stdout else [],
                           "replays": []}
    for rep_i in range(ctx.repeat + 1):         # the first is a warm-up
        ctx.log(f"findings: q3: replay {rep_i + 1}/{ctx.repeat + 1} ...")
        cmp = c.replay_compare(trace, list(Q3_TARGETS))
        row = {x["label"]: {k: x[k] for k, _ in Q3_FIGURES + (("events", ""),)}
               for x in cmp["replays"]}
        if rep_i:
            out["replays"].append(row)
    out["labels"] = [x["label"] for x in cmp["replays"]]
    return out


def q3_lines(per: Mapping[str, Any]) -> List[str]:
    """sheaves and native against slub, each figure paired by repeat, by compare's rule;
    cycles per alloc of sheaves first (the primary), the rest Holm-adjusted."""
    labels = per["labels"]
    base = labels[0]
    items = []
    for other in labels[1:]:
        for key, what in Q3_FIGURES:
            a = [r[base][key] for r in per["replays"]]
            b = [r[other][key] for r in per["replays"]]
            items.append((f"{what}: {other} vs {base}", paired_ratio_ci(a, b)))
    lines: List[str] = []
    ps: List[Optional[float]] = []
    verdicts: List[str] = []
    for subject, ci in items:
        v = compare_verdict(ci, tolerance=TOLERANCE)
        if ci is None:
            lines.append(f"{subject}: no interval (too few repeats)")
            ps.append(None)
            verdicts.append(v)
            continue
        text = f"{subject}: {pct(ci.ratio)} [{pct(ci.lo)}, {pct(ci.hi)}] (n={ci.n}): "
        if v == "same":
            text += f"no difference (inside ±{TOLERANCE:.0%})"
        elif v == "inconclusive":
            from .analysis import inconclusive
            text += inconclusive(ci, TOLERANCE)
        else:
            text += v
        lines.append(text)
        ps.append(ci.p_value())
        verdicts.append(v)
    adj = holm(ps[1:])
    return (["primary: " + lines[0]] +
            [f"secondary: {x}" + (f" [Holm p={p:.3g}{held(v, p)}]" if p is not None else "")
             for x, p, v in zip(lines[1:], adj, verdicts[1:])])


def q3_report(q: Question, per: Mapping[str, Any]) -> str:
    out = [f"## {q.key}: {q.title}", f"source: {q.source}",
           f"machine: {per['kernel_release']}, {per['vm_cpus']} vCPUs, icount "
           f"{per['vm_icount'] or 'off (wall-clock cycles: noisy)'}; trace: {per['loops']} "
           f"fork+execve of /bin/true, {per['replays'][0][per['labels'][0]]['events']} "
           f"events; {len(per['replays'])} replays + 1 warm-up", "",
           "| target | " + " | ".join(w for _, w in Q3_FIGURES) + " |",
           "| --- |" + " ---: |" * len(Q3_FIGURES)]
    for lbl in per["labels"]:
        cells = []
        for key, _ in Q3_FIGURES:
            v = sorted(r[lbl][key] for r in per["replays"])
            cells.append(f"{v[len(v) // 2]:.1f}")
        out.append(f"| {lbl} | " + " | ".join(cells) + " |")
    out.append("")
    out.extend(q3_lines(per))
    return "\n".join(out) + "\n"


QUESTIONS: Dict[str, Question] = {q.key: q for q in (
    Question("q3", "fork/execve: does the sheaves design cost more than slub?",
             "Arm's Fastpath results on linux-mm (March 2026): perf bench syscall fork and "
             "execve 6-11% slower on 7.0-rc than 6.19 (Graviton3, Sapphire Rapids)",
             "cycles per alloc: sheaves vs slub", run_q3, q3_report),
    Question("q4", "Cross-cpu producer→consumer: does sheaves cost more than slub?",
             "Ming Lei, ublk 36M → 13M IOPS on 7.0, 41% in get_from_any_partial "
             "(linux-mm, Feb 2026); mimalloc-bench's xmalloc-test",
             "cycles_per_alloc: sheaves vs slub", run_q4),
    Question("q5", "Bulk: does each design show its allocator's bulk curve?",
             "Jesper Dangaard Brouer's tables in SLUB commit fbd02630c6e3 and SLAB "
             "commit e6cdb58d1c83 (kmem_cache_alloc_bulk, 2015-2016)",
             "slub design, bulk 16 vs 1", run_q5, q5_report),
)}


def judge(q: Question, cmp: Mapping[str, Any]) -> List[str]:
    """The primary verdict first, then every other ratio as a Holm-adjusted secondary."""
    fig, rest = q.primary.split(": ", 1)
    variant, base = rest.split(" vs ")
    labels = [v["label"] for v in cmp["variants"]]

    def find(lbl: str) -> int:
        return next(i for i, x in enumerate(labels) if x.endswith(f"design={lbl}"))

    b = find(base)
    if b != 0:
        raise ValueError(f"{q.key}: the baseline {base} must be the first variant")
    lines = ["primary: " + verdict_line(variant, fig, cmp["variants"][find(variant)]
                                        ["summary"][fig], base)]
    second = [(labels[vi].split("design=")[-1], f, cmp["variants"][vi]["summary"][f])
              for vi in range(1, len(labels)) for f in cmp["figures"]
              if not (vi == find(variant) and f == fig)]
    adj = holm([(s.get("ci") or {}).get("p") for _, _, s in second])
    for (lbl, f, s), p in zip(second, adj):
        lines.append("secondary: " + verdict_line(lbl, f, s, base, p))
    return lines


def report(q: Question, cmp: Mapping[str, Any]) -> str:
    ctxt = cmp["context"]
    out = [f"## {q.key}: {q.title}", f"source: {q.source}",
           f"machine: {ctxt['kernel_release']}, {ctxt['vm_cpus']} vCPUs, icount "
           f"{ctxt['vm_icount'] or 'off (wall-clock cycles: noisy)'}; slablab "
           f"{ctxt['slablab_commit']}; {cmp['repeats_done']} repeats + {cmp['warmup']} "
           "warm-up, variants interleaved", ""]
    out.append("| variant | cycles/alloc (median) | cycles/free (median) | list_lock ops "
               "/1000 | barn ops /1000 | page round trips /1000 | remote frees |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    mech = mechanism_table(cmp)
    for v, m in zip(cmp["variants"], mech):
        s = v["summary"]

        def f(x: Optional[float], nd: int = 1) -> str:
            return "–" if x is None else f"{x:.{nd}f}"
        out.append(f"| {v['label']} | {f(s['cycles_per_alloc']['median'])} | "
                   f"{f(s['cycles_per_free']['median'])} | {f(m['list_lock'], 2)} | "
                   f"{f(m['barn'], 2)} | {f(m['pages'], 2)} | {f(m['remote_pct'], 1)}% |")
    out.append("")
    out.extend(judge(q, cmp))
    return "\n".join(out) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m slablab findings",
                                 description="docs/findings.md's questions, in the VM")
    ap.add_argument("which", nargs="?", default="all",
                    help="comma-separated questions (q4), all, or list")
    ap.add_argument("--out", default="findings-out", help="where results go")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ops", type=int, default=20000)
    a = ap.parse_args(argv)
    if a.which == "list":
        for q in QUESTIONS.values():
            print(f"{q.key}: {q.title} (primary: {q.primary})")
        return 0
    keys = list(QUESTIONS) if a.which == "all" else a.which.split(",")
    bad = [k for k in keys if k not in QUESTIONS]
    if bad:
        print(f"findings: no question {', '.join(bad)}; have {', '.join(QUESTIONS)}",
              file=sys.stderr)
        return 2
    if a.repeat < 2:
        print("findings: --repeat needs at least 2 (an interval)", file=sys.stderr)
        return 2
    import slablab
    os.makedirs(a.out, exist_ok=True)
    ctx = Context(client=slablab.Client(), out=a.out, repeat=a.repeat, ops=a.ops)
    for k in keys:
        q = QUESTIONS[k]
        t0 = time.monotonic()
        print(f"findings: {k}: {q.title} (primary: {q.primary}) ...", flush=True)
        cmp = q.run(ctx)
        with open(os.path.join(a.out, f"{k}.json"), "w") as fd:
            json.dump(cmp, fd, indent=1)
        text = (q.report or report)(q, cmp)
        with open(os.path.join(a.out, f"{k}.md"), "w") as fd:
            fd.write(text)
        print(text)
        print(f"findings: {k} took {time.monotonic() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The seed experiments' replay rows (issue 16): seed-002's and seed-003's workload.

A real workload's kernel allocations recorded at the experiment's start
(:func:`record_workload`: slablab.record, the kmem tracepoints; seed-003 takes a real
boot's trace when :data:`BOOT_TRACE_ENV` names one) and replayed on each design and on
the kernel's SLUB (:func:`run_replays`, docs/replay.md); rows to replays.csv, the
recording's account to replay.json, the text from both (:func:`report_replays`).
"""

import csv
import json
import os
import time
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Mapping, NamedTuple, Optional,
                    Sequence, Tuple)

from .. import seeds as S
from .core import (Avail, Column, KERNEL, _fmt, _med, _now, _per_repeat_s, _repeat, _script,
                   column, columns_for, paired_ci, pct, read_missing, table, verdict_line)
from .guest import Lab, _kmalloc_as, _kmalloc_classes

if TYPE_CHECKING:
    import pandas as pd


# ---------------------------------------------------------------- replays (issue 16)
#
# seed-002 and seed-003 add a row from a real workload: its kernel allocations recorded
# at the experiment's start (slablab.record, the kmem tracepoints) and replayed on each
# design and on the kernel's SLUB (docs/replay.md). The rows go to replays.csv and the
# recording's account to replay.json; without tracefs they are skipped, saying why.

#: The workload each experiment records, and its sizes.
REPLAY_WORKLOADS: Dict[str, Dict[str, Any]] = {
    "seed-002": {"workload": "hackbench", "repeat": {"small": 3, "full": 10},
                 "args": {"small": ["-g", "2", "-f", "5", "-l", "50", "-s", "100"],
                          "full": ["-g", "4", "-f", "10", "-l", "200", "-s", "100"]}},
    "seed-003": {"workload": "bootlike", "repeat": {"small": 3, "full": 10},
                 "env": {"small": {"BOOTLIKE_FILES": "30", "BOOTLIKE_PROCESSES": "4"},
                         "full": {"BOOTLIKE_ROUNDS": "2"}},
                 # time-scaled: the replay lasts about this long (memory over time)
                 "replay_seconds": {"small": 2.0, "full": 5.0}},
}


REPLAY_COLUMNS: Sequence[str] = (
    "experiment", "variant", "repeat", "target", "cpu_partial", "kmalloc_design",
    "time_scale", "ops_per_sec", "cycles_per_alloc", "cycles_per_free", "peak_pages",
    "avg_pages", "peak_live_bytes", "overhead_pct", "allocs", "frees", "remote_frees",
    "failures", "live_at_end", "elapsed_ns", "page_size", "date")


def recording_missing() -> Optional[str]:
    """Why the kernel's allocations cannot be recorded here (None: they can): the
    recorder needs tracefs with instances, and root."""
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        return "skipped: recording needs root (tracefs)"
    for d in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        if os.path.isdir(os.path.join(d, "instances")) and \
                os.path.isdir(os.path.join(d, "events", "kmem")):
            return None
    return "skipped: no tracefs with kmem events (/sys/kernel/tracing) to record with"


#: A real boot's trace (``make record-boot``: the VM booted with trace_event=), which
#: seed-003's replay row takes instead of recording the boot-like workload when set and
#: present (``make experiments`` sets it to build/boot.trace, recording it first).
BOOT_TRACE_ENV = "SLABLAB_BOOT_TRACE"


def boot_account(path: str) -> Dict[str, Any]:
    """The account of a real boot's trace at ``path`` (its header: read_trace), as
    :func:`record_workload` gives a recording's."""
    from .. import read_trace
    h = read_trace(path)
    acct: Dict[str, Any] = dict(
        workload="boot", trace=path, command="make record-boot", events=h["nr_events"],
        objects=h["nr_objects"], caches=len(h["caches"]), duration_ns=h["duration_ns"],
        lost_events=h["lost_events"], unmatched_frees=h["unmatched_frees"],
        live_at_end=h["live_at_end"], exit_status=0)
    acct["peak_live_bytes"], acct["avg_live_bytes"] = trace_live_bytes(path)
    acct["how"] = (f"a real boot, recorded from its first allocation with the kmem "
                   f"tracepoints on the kernel's command line (trace_event=; make "
                   f"record-boot, {os.path.basename(path)}): {h['nr_events']:,} events, "
                   f"{h['nr_objects']:,} objects, {len(h['caches'])} caches, "
                   f"{h['duration_ns'] / 1e9:.1f} s; lost events {h['lost_events']} (what "
                   f"overran the ring buffer), frees of objects from before the trace "
                   f"{h['unmatched_frees']}")
    return acct


def record_workload(name: str, out_dir: str, scale: str,
                    record: Optional[Callable[..., Any]] = None) -> Dict[str, Any]:
    """Record experiment ``name``'s workload into ``out_dir``; returns its account:
    ``trace`` (the path, or None), ``how`` (the command and what was recorded) or
    ``skipped`` (why not). seed-003 takes a real boot's trace instead where
    :data:`BOOT_TRACE_ENV` names one that exists."""
    import shutil
    w = REPLAY_WORKLOADS[name]
    boot = os.environ.get(BOOT_TRACE_ENV)
    if name == "seed-003" and boot and os.path.exists(boot):
        return boot_account(boot)
    acct: Dict[str, Any] = {"workload": w["workload"], "trace": None}
    why = recording_missing()
    if why:
        acct["skipped"] = why
        return acct
    env: Dict[str, str] = {}
    if w["workload"] == "hackbench":
        if not shutil.which("hackbench"):
            acct["skipped"] = "skipped: no hackbench (Debian's rt-tests: scripts/deps.sh)"
            return acct
        cmd = ["hackbench"] + list(w["args"][scale])
    else:
        script = _script("record-bootlike.sh")
        if not script:
            acct["skipped"] = "skipped: no scripts/record-bootlike.sh (run from the repository)"
            return acct
        cmd = [script, "--workload"]
        env = dict(w["env"][scale])
    if record is None:
        from .. import record as record_fn
        record = record_fn
    path = os.path.join(out_dir, f"{w['workload']}.trace")
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        rep = record(path, cmd, buffer_kb=32768)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    acct.update(trace=path, command=" ".join(f"{k}={v}" for k, v in env.items())
                + (" " if env else "") + " ".join(os.path.basename(c) if c == cmd[0] else c
                                                  for c in cmd),
                events=rep["events"], objects=rep["objects"], caches=rep["caches"],
                duration_ns=rep["duration_ns"], lost_events=rep["lost_events"],
                lost_frees=rep["lost_frees"], unmatched_frees=rep["unmatched_frees"],
                live_at_end=rep["live_at_end"], peak_live_bytes=rep["peak_live_bytes"],
                exit_status=rep["exit_status"])
    acct["peak_live_bytes"], acct["avg_live_bytes"] = trace_live_bytes(path)
    acct["how"] = (f"{acct['command']} recorded in this kernel at the experiment's start "
                   f"(slablab.record): {rep['events']:,} events, {rep['objects']:,} objects, "
                   f"{rep['caches']} caches, {rep['duration_ns'] / 1e9:.1f} s; lost events "
                   f"{rep['lost_events']}, frees missed {rep['lost_frees']}")
    return acct


def trace_live_bytes(path: str) -> Tuple[int, float]:
    """A trace's live bytes (docs/replay.md's file format): at their peak, and their
    time-weighted mean over the trace (each allocation's bytes_alloc from its event to
    its free; frees of objects from before left out, as the replay does)."""
    import struct
    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    header_size, _cpus, nr_caches, nr_events = struct.unpack_from("<IIIQ", data, 12)
    pos = header_size
    for _ in range(nr_caches):
        (n,) = struct.unpack_from("<H", data, pos + 8)
        pos += 10 + n
    ev = np.frombuffer(data, dtype=np.dtype([("ts", "<u8"), ("obj", "<u4"), ("req", "<u4"),
                                             ("alloc", "<u4"), ("gfp", "<u4"),
                                             ("cpu", "<u2"), ("cache", "<u2"),
                                             ("op", "u1"), ("res", "u1", (3,))]),
                       count=nr_events, offset=pos)
    delta = np.where(ev["op"] == 1, ev["alloc"].astype(np.int64),
                     np.where(ev["obj"] != 0, -ev["alloc"].astype(np.int64), 0))
    live = np.cumsum(delta)
    if not len(live):
        return 0, 0.0
    span = float(ev["ts"][-1] - ev["ts"][0])
    if span <= 0:
        return int(live.max()), float(live[-1])
    dt = np.diff(ev["ts"].astype(np.float64))
    return int(live.max()), float((live[:-1] * dt).sum() / span)


class ReplayVariant(NamedTuple):
    """A replay column: a target ('slablab:DESIGN', 'native'), the kmalloc classes'
    design (a Column, None: slub as it is), and cpu_partial for the replay's caches and
    the kmalloc classes (None: their default)."""
    label: str
    target: str
    kmalloc: Optional[Column]
    cpu_partial: Optional[int]


def replay_variants(name: str, avail: Avail) -> List[ReplayVariant]:
    """seed-002: slub with cpu_partial=0 and its default, the other designs, the
    kernel's SLUB; seed-003: seed-003's columns (slob lists=1/2/3, slab, slub, sheaves,
    the kernel's SLUB), the kmalloc classes of each column's design."""
    if name == "seed-002":
        out = [ReplayVariant("slub cpu_partial=0 (before)", "slablab:slub", None, 0),
               ReplayVariant("slub default (after)", "slablab:slub", None, None)]
        for d in ("sheaves", "slab", "slob"):
            if d in avail.designs:
                out.append(ReplayVariant(d, f"slablab:{d}",
                                         column(d, d, {}, avail, kmalloc=True), None))
        return out + [ReplayVariant(KERNEL, "native", None, None)]
    out = []
    for c in columns_for("seed-003", avail):
        if c.missing:
            continue
        out.append(ReplayVariant(c.label, "native" if c.design is None
                                 else f"slablab:{c.design}", c, None))
    return out


def run_replays(lab: Lab, name: str, avail: Avail, scale: str) -> None:
    """Record the experiment's workload and replay it on each variant, repeat times,
    variants interleaved; rows to replays.csv, the recording's account to replay.json."""
    w = REPLAY_WORKLOADS[name]
    acct = record_workload(name, lab.out_dir, scale)
    rows: List[Dict[str, Any]] = []
    try:
        if acct.get("skipped"):
            lab.log(f"{name}: replay rows {acct['skipped']}")
            return
        lab.log(f"{name}: {acct['how']}")
        time_scale = 0.0
        if "replay_seconds" in w and acct["duration_ns"]:
            time_scale = max(0.001, round(min(1.0, w["replay_seconds"][scale] * 1e9
                                              / acct["duration_ns"]), 3))
        acct["time_scale"] = time_scale
        variants = replay_variants(name, avail)
        for rep in lab.repeats(w["repeat"][scale]):
            for v in lab.interleaved(variants, lambda v: "replay " + v.label):
                row = _replay_one(lab, name, v, rep, acct["trace"], time_scale)
                if row and rep >= 0:        # a warm-up replay's row is not kept
                    rows.append(row)
    finally:
        # the table's order (each repeat ran its variants in a random order)
        rows.sort(key=lambda r: (r["repeat"], lab.slots.get("replay " + r["variant"], 0)))
        with open(os.path.join(lab.out_dir, "replays.csv"), "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(REPLAY_COLUMNS))
            wr.writeheader()
            wr.writerows(rows)
        with open(os.path.join(lab.out_dir, "replay.json"), "w") as f:
            json.dump(acct, f, indent=1)


def _replay_one(lab: Lab, name: str, v: ReplayVariant, rep: int, trace: str,
                time_scale: float) -> Optional[Dict[str, Any]]:
    """One replay of ``trace`` as variant ``v``: the kmalloc classes set to its design
    (and cpu_partial; the replay empties them), then put back."""
    client = lab.client
    restore: Dict[str, int] = {}
    t0 = time.monotonic()
    try:
        if v.kmalloc is not None and v.kmalloc.design is not None:
            _kmalloc_as(lab, v.kmalloc)
        for c in _kmalloc_classes(client):
            if v.cpu_partial is not None and c.get("cpu_partial") != v.cpu_partial:
                restore[c["name"]] = c["cpu_partial"]
                client.cache_set(c["name"], cpu_partial=v.cpu_partial)
        r = client.replay(trace, v.target, time_scale=time_scale,
                          cpu_partial=v.cpu_partial if v.target.startswith("slablab")
                          else None)
    except Exception as e:  # noqa: BLE001 — say it in the table
        lab.missing[f"replay {v.label}"] = str(e) if str(e).startswith("missing") \
            else f"missing: {e}"
        return None
    finally:
        for cname, cp in restore.items():
            client.cache_set(cname, cpu_partial=cp)
        if lab.kmalloc_design != "slub":
            _kmalloc_as(lab, None)
    lab.log(f"  {name} replay {v.label:34s} {_repeat(rep)} "
            f"({time.monotonic() - t0:.1f}s)")
    row = {k: r.get(k) for k in REPLAY_COLUMNS if k in r}
    row.update(experiment=name, variant=v.label, repeat=rep, target=r["label"],
               cpu_partial=v.cpu_partial,
               kmalloc_design=(v.kmalloc.design if v.kmalloc and v.kmalloc.design
                               else ("slub" if v.target.startswith("slablab") else "")),
               date=_now())
    return row


def table_replays(name: str, rdf: "pd.DataFrame", acct: Mapping[str, Any],
                  missing: Mapping[str, str]) -> str:
    """The replay rows of seed-002 (throughput) or seed-003 (memory) (pure)."""
    w = acct.get("workload") or REPLAY_WORKLOADS[name]["workload"]
    if acct.get("skipped") or rdf is None or rdf.empty:
        why = acct.get("skipped") or "no replay ran"
        return f"  {w} replay: {why}"
    d = rdf[rdf["experiment"] == name]
    variants = list(dict.fromkeys(d["variant"]))
    reps = d["repeat"].nunique()
    out = [f"  {w} replay (issue 16): {acct.get('how', '?')}"]
    if name == "seed-002":
        out.append(f"    replayed as fast as possible on each column, {reps} runs (ops/s "
                   "median; the replay's caches and the kmalloc classes with the "
                   "column's cpu_partial):")
        rows = []
        for v in variants:
            g = d[d["variant"] == v]
            rows.append([v, _fmt(_med(g, "ops_per_sec")), _fmt(_med(g, "cycles_per_alloc")),
                         _fmt(_med(g, "cycles_per_free")), _fmt(_med(g, "remote_frees")),
                         _fmt(_med(g, "peak_pages"))])
        out.append(table(["", "ops/s", "cycles/alloc", "cycles/free", "remote frees",
                          "peak pages"], rows, "    "))
        before, after = "slub cpu_partial=0 (before)", "slub default (after)"
        ci = paired_ci(d, "ops_per_sec", before, after) \
            if before in variants and after in variants else None
        t, b, a = S.SEED_002[-1]
        out.append("  verdict: " + verdict_line("hackbench replay, after/before",
                                                f"after/before ({t} threads)",
                                                S.change(b, a), ci,
                                                per_repeat_s=_per_repeat_s(d)))
    else:
        scale = _med(d, "time_scale")
        ps = _med(d, "page_size") or 4096
        live_peak = float(acct.get("peak_live_bytes") or 0) / ps
        live_avg = float(acct.get("avg_live_bytes") or 0) / ps
        out.append(f"    replayed time-scaled (x{scale:g}) on each column, {reps} runs; "
                   "pages held (median) at the peak and time-weighted over the replay, "
                   f"against the trace's live data: {live_peak:,.1f} pages at the peak, "
                   f"{live_avg:,.1f} time-weighted (\"N pages for M pages of data\"):")
        rows = []
        for v in variants:
            g = d[d["variant"] == v]
            peak, avg = _med(g, "peak_pages"), _med(g, "avg_pages")
            rows.append([v, _fmt(peak), pct(peak / live_peak) if peak and live_peak else "-",
                         _fmt(avg), pct(avg / live_avg) if avg and live_avg else "-"])
        out.append(table(["", "peak pages", "over live", "time-weighted pages",
                          "over live"], rows, "    "))
        base, other = "slob lists=1", "slob lists=2"
        ci = paired_ci(d, "avg_pages", base, other) \
            if base in variants and other in variants else None
        s1, s2 = S.SEED_003["SLOB (vanilla)"][2][2], S.SEED_003["SLOB (patched)"][2][2]
        kind = "real boot" if w == "boot" else "boot-like"
        out.append("  verdict: " + verdict_line(
            f"{kind} replay, slob lists=2 vs lists=1, time-weighted pages",
            "SLOB patched vs vanilla", S.change(s1, s2), ci,
            seed_error=S.error_003_used("SLOB (vanilla)", "SLOB (patched)"),
            per_repeat_s=_per_repeat_s(d)))
        for fig, what in (("peak_pages", "peak"), ("avg_pages", "time-weighted")):
            ci = paired_ci(d, fig, KERNEL, "slub") \
                if KERNEL in variants and "slub" in variants else None
            if ci:
                out.append(f"    slub against the kernel's SLUB (the same allocator), {what} "
                           f"pages: {pct(ci.ratio)} [{pct(ci.lo)}, {pct(ci.hi)}] (n={ci.n})")
        out.append("    (the kernel's SLUB column: the replay's own caches and kmalloc "
                   "classes, read in the system's slab pages above the start with every "
                   "cpu's pending counts; what the rest of the kernel allocates meanwhile "
                   "is in it)")
    for k, why in missing.items():
        if k.startswith("replay "):
            out.append(f"    {k[len('replay '):]}: {why}")
    return "\n".join(out)


def report_replays(name: str, exp_dir: str) -> Optional[str]:
    """The replay rows' text from an experiment's replays.csv and replay.json; None
    where the experiment has no replay rows."""
    if name not in REPLAY_WORKLOADS:
        return None
    path = os.path.join(exp_dir, "replay.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        acct = json.load(f)
    rdf = None
    csv_path = os.path.join(exp_dir, "replays.csv")
    if os.path.exists(csv_path) and os.path.getsize(csv_path):
        import pandas as pd
        rdf = pd.read_csv(csv_path)
    return table_replays(name, rdf, acct, read_missing(exp_dir))

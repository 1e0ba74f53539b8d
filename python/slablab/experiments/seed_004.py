# SPDX-License-Identifier: GPL-2.0 OR MIT
"""seed-004, 4k objects: order-3 slabs against the page allocator (2008).

The storms (:func:`run_004`) and the seed's table with ours (:func:`table_004`), and the
live row on the kernel's own SLUB: tbench with kmalloc-4k at the kernel's order against a
slub_max_order=0 boot. The boot is the unit: :func:`boot_plan` orders the boots, each
boot runs tbench in the VM (:func:`run_tbench_boot`), the experiment's run takes the
series in (:func:`import_tbench_boots`) and :func:`table_live_tbench` judges it; the
host's side, which boots the VM for each, is
:func:`slablab.experiments.host.run_tbench_boots`.
"""

import json
import os
import random
import time
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, NamedTuple,
                    Optional, Sequence, Tuple)

from .. import seeds as S
from .core import (AA, KERNEL, Log, _faithful, _fmt, _med, _now, _per_repeat_s, _twin_pair,
                   _variant, aa_line, describe, paired_ci, table, verdict_line, with_twin)
from .guest import Lab, SYS_SLAB, _cpu_model, loopback_up, write_live_csv

if TYPE_CHECKING:
    import pandas as pd


def table_004(df: "pd.DataFrame", missing: Mapping[str, str]) -> str:
    d = df[df["experiment"] == "seed-004"]
    reps = d["repeat"].nunique()
    out = ["seed-004: 4k objects — " + S.SEEDS["seed-004"].source,
           "  slabinfo -AD (seed: tbench; here: the 4096-byte kmalloc of pair storms, "
           f"totals over {reps} runs):"]
    name, objs, al, fr, fa, ff = S.SEED_004_SLABINFO
    rows = [[f"seed {name}", f"{objs}", f"{al}", f"{fr}", f"{fa} {ff}", "-", "-"]]
    for v in dict.fromkeys(d["variant"]):
        g = d[d["variant"] == v]
        af, asl = g["stat_alloc_fastpath"].sum(), g["stat_alloc_slowpath"].sum()
        ff_, fs = g["stat_free_fastpath"].sum(), g["stat_free_slowpath"].sum()
        counted = (af + asl) > 0
        fast = (f"{100 * af / (af + asl):.0f} {100 * ff_ / max(ff_ + fs, 1):.0f}"
                if counted else "-")
        peak = _med(g, "peak_live_bytes")
        order = _med(g, "cache_order")
        rows.append([v, _fmt(peak / 4096 if peak else None),
                     _fmt(g["allocs"].sum()), _fmt(g["frees"].sum()), fast,
                     _fmt(g["stat_order_fallback"].sum()) if counted else "-",
                     _fmt(order)])
    out.append(table(["Name", "Objects", "Alloc", "Free", "%Fast", "Fallb", "O"], rows, "    "))
    out.append("    (Objects: at the peak; %Fast: allocs, frees; the kernel's SLUB keeps no "
               "counters without SLUB_STATS)")
    out.append("  throughput (seed: tbench MB/s; here: ops/s, median):")
    rows = [[f"seed {k}", f"{v:.2f}"] for k, v in S.SEED_004_TBENCH.items()]
    for v in dict.fromkeys(d["variant"]):
        rows.append([v, _fmt(_med(d[d["variant"] == v], "tput_ops_per_sec"))])
    out.append(table(["", "figure"], rows, "    "))
    slab, page = _variant(d, "slab"), _variant(d, "page allocator")
    ci = paired_ci(d, "tput_ops_per_sec", page, slab) if slab and page else None
    out.append("  verdict: " + verdict_line(
        "order-3 slabs vs page allocator, throughput", "SLUB+patch vs unmodified",
        S.change(S.SEED_004_TBENCH["SLUB unmodified"], S.SEED_004_TBENCH["SLUB+patch"]), ci,
        per_repeat_s=_per_repeat_s(d)))
    out.append(_faithful(d, "tbench's network stack is replaced by kmalloc(4096)/kfree "
                            "pairs; init_on_alloc zeroes every 4 KiB on both sides"))
    return "\n".join(out)


def _kmalloc_class(client: Any, size: int) -> Optional[Mapping[str, Any]]:
    for c in client.cache_list():
        if c.get("owner") == "kmalloc" and c.get("size") == size:
            return dict(c)
    return None


def run_004(lab: Lab, p: Mapping[str, Any]) -> None:
    before = lab.status.get("kmalloc_page_policy", "slab")
    kw = dict(ops=p["ops"], size=4096)
    klass = _kmalloc_class(lab.client, 4096)
    native_order = None
    try:
        from .. import native_cache
        native_order = native_cache("kmalloc-4096").get("order")
    except Exception:   # noqa: BLE001 — no SLUB sysfs: the order column says '-'
        pass
    try:
        for rep in lab.repeats(p["repeat"]):
            for label, policy in lab.interleaved(
                    (("slab: kmalloc-4096, order-3 slabs", "slab"),
                     ("page allocator", "page_alloc"), (KERNEL, None)), lambda v: v[0],
                    _twin_pair):
                if policy is None:
                    lab.storm(variant=label, table_row="pair", x=4096, repeat=rep,
                              target="native-kmalloc", pattern="pair", order=native_order,
                              **kw)
                    continue
                lab.client.set_page_policy(policy)
                lab.storm(variant=label, table_row="pair", x=4096, repeat=rep,
                          target="kmalloc", pattern="pair",
                          order=(klass or {}).get("order") if policy == "slab" else 0, **kw)
    finally:
        lab.client.set_page_policy(before)


# ---------------------------------------------------------------- seed-004 live: tbench
#
# Seed 004's own workload on the kernel's own SLUB: tbench (Debian's dbench: tbench_srv
# and tbench's clients over loopback) with kmalloc-4k at the order the kernel chooses (3
# on 6.1 with 2 vCPUs) against order 0. 6.1's /sys/kernel/slab/*/order is read-only, so
# order 0 takes a boot with slub_max_order=0 — which caps every cache at order 0, where
# the 2008 patch changed only the PAGE_SIZE caches (it made kmalloc-4096 a slab cache at
# PAGE_ALLOC_COSTLY_ORDER, 3: before it, 4 KiB kmallocs went to the page allocator). The
# boot is the unit: the host side (run_tbench_boots, `make experiments`) boots the VM
# in rounds, each a default boot, a slub_max_order=0 boot and a default A/A twin boot in
# a random order (seeded, the seed printed), and each boot (run_tbench_boot) runs tbench
# ``runs`` times, the first a warm-up left out, appending its rows to live.csv; the
# experiment's run in the VM copies the series in (TBENCH_BOOTS_ENV) and
# table_live_tbench judges the MB/s.

#: tbench's sizes: rounds of boots (each kind once a round), tbench runs per boot (the
#: first a warm-up), seconds per run (tbench -t; it warms up for 1 s of them itself).
LIVE_TBENCH: Dict[str, Dict[str, Any]] = {
    "small": dict(rounds=3, runs=3, seconds=3),
    "full": dict(rounds=10, runs=4, seconds=20)}


TBENCH_COLUMNS: Sequence[str] = (
    "experiment", "variant", "kind", "boot", "repeat", "run", "warmup", "mb_per_sec",
    "max_latency_ms", "clients", "seconds", "order_4k", "slub_max_order",
    "kernel_release", "vm_cpus", "cpu_model", "date")


#: Where `make experiments` leaves the boots' series (live.csv, boots.json, slabinfo-*.txt)
#: for seed-004's run in the VM to take into its folder.
TBENCH_BOOTS_ENV = "SLABLAB_TBENCH_BOOTS"


#: kmalloc-4096's directory under /sys/kernel/slab (6.1: kmalloc-4k; older: kmalloc-4096)
KMALLOC_4K = ("kmalloc-4k", "kmalloc-4096")


#: The caches of the seed's `slabinfo -AD` (its merged names as 6.1's slab_nomerge names
#: them), the lines the table shows of the kernel's own slabinfo.
SEED_004_CACHES = ("kmalloc-4k", "skbuff_fclone_cache", "kmalloc-192", "kmalloc-1k",
                   "vm_area_struct", "dentry", "kmalloc-64")


class BootKind(NamedTuple):
    """A kind of boot of seed-004's live row: ``key`` names it on the command line,
    ``label`` in live.csv and the table, ``append`` is its kernel command line."""
    key: str
    label: str
    append: str


TBENCH_DEFAULT = BootKind("default", "default boot (kmalloc-4k at the kernel's order)", "")


TBENCH_ORDER0 = BootKind("order0", "slub_max_order=0 boot (every cache at order 0)",
                         "slub_max_order=0")


TBENCH_TWIN = BootKind("default-twin", TBENCH_DEFAULT.label + AA, "")


BOOT_KINDS: Dict[str, BootKind] = {k.key: k for k in (TBENCH_DEFAULT, TBENCH_ORDER0,
                                                      TBENCH_TWIN)}


class Boot(NamedTuple):
    """One boot of the series: its place, its round (the pairing of the kinds) and kind."""
    number: int
    round: int
    kind: BootKind


def boot_plan(rounds: int, seed: int) -> List[Boot]:
    """The boots of seed-004's live row: ``rounds`` rounds, each a default, a
    slub_max_order=0 and a default A/A twin boot in an order of ``seed``'s generator."""
    rng = random.Random(seed)
    plan: List[Boot] = []
    for r in range(rounds):
        kinds = with_twin((TBENCH_DEFAULT, TBENCH_ORDER0), lambda _k: TBENCH_TWIN)
        rng.shuffle(kinds)
        plan += [Boot(len(plan) + i, r, k) for i, k in enumerate(kinds)]
    return plan


class Tbench(NamedTuple):
    mb_per_sec: float
    clients: int
    max_latency_ms: Optional[float]


def tbench_result(output: str) -> Tbench:
    """tbench's closing line, "Throughput 14.1769 MB/sec  2 clients  2 procs
    max_latency=100.736 ms"; ValueError quoting the output when it has none."""
    for line in reversed(output.splitlines()):
        w = line.split()
        if len(w) >= 4 and w[0] == "Throughput" and w[2] == "MB/sec":
            lat = [x.split("=", 1)[1] for x in w if x.startswith("max_latency=")]
            return Tbench(float(w[1]), int(w[3]), float(lat[0]) if lat else None)
    raise ValueError(f"no 'Throughput ... MB/sec' line in tbench's output: "
                     f"{output.strip()[-200:]!r}")


def _read_first(paths: Iterable[str]) -> Optional[str]:
    for p in paths:
        try:
            with open(p) as f:
                return f.read().strip()
        except OSError:
            continue
    return None


TBENCH_PORT = 7003      # tbench_srv's, fixed in dbench 4.0


def _tbench_file(fn: str) -> bool:
    """A file of the boots' series (what run_tbench_boots writes, import_tbench_boots
    takes)."""
    return fn in ("live.csv", "boots.json", "tbench-output.txt") or \
        (fn.startswith("slabinfo-") and fn.endswith(".txt"))


def _tbench_server() -> Any:
    """tbench_srv started, once it listens (10 s at most); the process."""
    import socket
    import subprocess
    srv = subprocess.Popen(["tbench_srv"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    for _ in range(100):
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", TBENCH_PORT)) == 0:
                return srv
        if srv.poll() is not None:
            break
        time.sleep(0.1)
    srv.kill()
    srv.wait()
    raise RuntimeError(f"tbench_srv did not listen on port {TBENCH_PORT}")


def _slabinfo_binary() -> Optional[str]:
    """scripts/slabinfo.sh's build of the kernel's slabinfo (SLABLAB_SLABINFO, which the
    host side sets)."""
    path = os.environ.get("SLABLAB_SLABINFO")
    return path if path and os.access(path, os.X_OK) else None


def run_tbench_boot(out_dir: str, kind: BootKind, round_: int, index: int, scale: str,
                    log: Log = print, root: str = SYS_SLAB,
                    run: Optional[Callable[..., Any]] = None,
                    server: Optional[Callable[[], Any]] = None) -> None:
    """seed-004 live, one boot (in the VM): tbench ``runs`` times over loopback, the first
    a warm-up, its rows appended to OUT_DIR/live.csv with kmalloc-4k's order as this
    boot's kernel chose it (the oracle: /sys/kernel/slab/kmalloc-4k/order); then the
    kernel's `slabinfo -AD` into OUT_DIR/slabinfo-INDEX-KIND.txt. Raises RuntimeError
    saying why it could not run (the host side records it)."""
    import shutil
    import subprocess
    p = LIVE_TBENCH[scale]
    if run is None and not (shutil.which("tbench") and shutil.which("tbench_srv")):
        raise RuntimeError("skipped: no tbench (Debian's dbench: scripts/deps.sh)")
    run = run or subprocess.run
    why = loopback_up(run)
    if why:
        raise RuntimeError(f"skipped: {why}")
    os.makedirs(out_dir, exist_ok=True)
    order = _read_first(os.path.join(root, n, "order") for n in KMALLOC_4K)
    cmdline = _read_first(["/proc/cmdline"]) or ""
    max_order = [w.split("=", 1)[1] for w in cmdline.split() if w.startswith("slub_max_order=")]
    clients = os.cpu_count() or 1
    ctx = dict(experiment="seed-004", variant=kind.label, kind=kind.key, boot=index,
               repeat=round_, clients=clients, seconds=p["seconds"], order_4k=order or "",
               slub_max_order=max_order[-1] if max_order else "",
               kernel_release=os.uname().release, vm_cpus=clients, cpu_model=_cpu_model())
    srv = (server or _tbench_server)()
    rows: List[Dict[str, Any]] = []
    try:
        for i in range(p["runs"]):
            r = run(["tbench", "-t", str(p["seconds"]), str(clients), "127.0.0.1"],
                    capture_output=True, text=True, timeout=60 + 10 * p["seconds"],
                    check=False)
            if r.returncode != 0:
                raise RuntimeError(f"tbench exited {r.returncode}: "
                                   f"{(r.stderr or r.stdout).strip()[-200:]}")
            if i == 0 and index == 0:
                with open(os.path.join(out_dir, "tbench-output.txt"), "w") as f:
                    f.write(r.stdout)
            t = tbench_result(r.stdout)
            rows.append(dict(ctx, run=i, warmup=int(i == 0), mb_per_sec=t.mb_per_sec,
                             max_latency_ms=t.max_latency_ms, date=_now()))
            log(f"  seed-004 live boot {index} ({kind.key}, round {round_}, kmalloc-4k "
                f"order {order}) tbench run {i}{' (warm-up)' if i == 0 else ''}: "
                f"{t.mb_per_sec:.2f} MB/s")
    finally:
        srv.terminate()
        srv.wait()
        write_live_csv(out_dir, rows, TBENCH_COLUMNS, append=True)
    slabinfo = _slabinfo_binary()
    if slabinfo:
        r = run([slabinfo, "-AD"], capture_output=True, text=True, timeout=120, check=False)
        with open(os.path.join(out_dir, f"slabinfo-{index}-{kind.key}.txt"), "w") as f:
            f.write(r.stdout if r.returncode == 0 else
                    f"slabinfo -AD exited {r.returncode}: {r.stderr.strip()[-200:]}\n")


def import_tbench_boots(lab: Lab, src: Optional[str] = None) -> None:
    """seed-004's run in the VM takes the boots' series (``src``, default the folder
    :data:`TBENCH_BOOTS_ENV` names) into its own folder; without one, lab.missing["live"]
    says how it is run."""
    import shutil
    src = src or os.environ.get(TBENCH_BOOTS_ENV)
    same = bool(src) and os.path.abspath(str(src)) == os.path.abspath(lab.out_dir)
    if not same:        # an earlier run's series is not this one's
        for fn in os.listdir(lab.out_dir):
            if _tbench_file(fn):
                os.remove(os.path.join(lab.out_dir, fn))
    if not src or not os.path.exists(os.path.join(src, "boots.json")):
        lab.missing["live"] = ("skipped: tbench's live row spans boots (slub_max_order=0 is "
                               "a kernel parameter): `make experiments EXPERIMENTS=seed-004` "
                               "runs it")
        return
    for fn in os.listdir(src):
        if _tbench_file(fn) and not same:
            shutil.copy(os.path.join(src, fn), os.path.join(lab.out_dir, fn))
    with open(os.path.join(src, "boots.json")) as f:
        why = json.load(f).get("missing")
    if why:
        lab.missing["live"] = why


def slabinfo_lines(text: str, names: Sequence[str] = SEED_004_CACHES) -> List[str]:
    """`slabinfo -AD`'s header and the lines of ``names`` (in that order) from its output."""
    lines = text.splitlines()
    head = [ln for ln in lines if ln.startswith("Name")][:1]
    by = {ln.split()[0]: ln for ln in lines if ln.strip() and not ln.startswith("Name")}
    return head + [by[n] for n in names if n in by]


def table_live_tbench(ldf: Optional["pd.DataFrame"], missing: Mapping[str, str],
                      slabinfo: Optional[Mapping[str, Tuple[int, str]]] = None,
                      order_seed: Optional[int] = None) -> str:
    """seed-004's live rows (pure): tbench's MB/s per boot kind (each boot's median over
    its measured runs), kmalloc-4k's order as each kind's boots had it, the ratio
    default/slub_max_order=0 paired by round with its t interval judged against the
    seed's SLUB+patch vs unmodified (+4.7%, :func:`shape_verdict`), the A/A floor of the
    twin boots, and the kernel's `slabinfo -AD` after a boot of each kind (``slabinfo``:
    kind key -> (boot, its output))."""
    why = missing.get("live")
    head = ("  live (issue 26): tbench (dbench 4.0) over loopback on the kernel's own SLUB, "
            "a boot per sample: kmalloc-4k at the order the kernel chooses vs "
            "slub_max_order=0 on the kernel command line (every cache at order 0; the 2008 "
            "patch changed only the PAGE_SIZE caches, from the page allocator to order 3)")
    if ldf is None or ldf.empty:
        return f"{head}: {why or 'no runs'}"
    d = ldf[ldf["warmup"] == 0]
    if d.empty:
        return f"{head}: {why or 'no measured runs (only warm-ups)'}"
    per = d.groupby(["variant", "repeat"])["mb_per_sec"].median().reset_index()
    rounds = d["repeat"].nunique()
    runs = d.groupby("boot")["run"].count().max()
    secs = int(d["seconds"].iloc[0])
    out = [head + f"; {rounds} rounds of boots in a random order"
           + (f" (--order-seed {order_seed})" if order_seed is not None else "")
           + f", {runs} tbench run(s) of {secs} s with {int(d['clients'].iloc[0])} clients "
           "per boot after a warm-up run; MB/s per boot (its median):"]
    rows = [[f"seed {k}", "", "", f"{v:.2f}", "", ""] for k, v in S.SEED_004_TBENCH.items()]
    for k in BOOT_KINDS.values():
        g = per[per["variant"] == k.label]
        if g.empty:
            continue
        orders = sorted({str(o) for o in ldf[ldf["variant"] == k.label]["order_4k"]})
        t = describe(g["mb_per_sec"])
        rows.append([k.label, str(len(g)), ",".join(orders),
                     _fmt(float(g["mb_per_sec"].median()), 2),
                     _fmt(t.min if t else None, 2), _fmt(t.max if t else None, 2)])
    out.append(table(["boot", "boots", "kmalloc-4k order", "MB/s", "min", "max"], rows,
                     "    "))
    ci = paired_ci(d, "mb_per_sec", TBENCH_ORDER0.label, TBENCH_DEFAULT.label)
    out.append("  verdict: " + verdict_line(
        "live tbench MB/s, default vs slub_max_order=0 boots", "SLUB+patch vs unmodified",
        S.change(S.SEED_004_TBENCH["SLUB unmodified"], S.SEED_004_TBENCH["SLUB+patch"]), ci))
    out.append(aa_line("seed-004", d, "mb_per_sec", "live.csv"))
    if why:
        out.append(f"  note: {why}")
    for k in (TBENCH_DEFAULT, TBENCH_ORDER0):
        what = k.append or k.key
        boot, text = (slabinfo or {}).get(k.key, (None, ""))
        if not text:
            out.append(f"  slabinfo -AD after a {what} boot: not run (scripts/slabinfo.sh "
                       "builds it; SLABLAB_SLABINFO)")
            continue
        out.append(f"  the kernel's slabinfo -AD after the tbench runs of a {what} boot "
                   f"(boot {boot}; the seed's caches, by their 6.1 names):")
        out += ["    " + ln for ln in slabinfo_lines(text)]
    out.append("    (the seed's line: :0004096 180 objects, 665259550 allocs, %Fast 99 99; "
               "a kernel without SLUB_STATS, as Debian's, counts no Alloc, Free or %Fast)")
    out.append(_faithful(d, "tbench_srv and its clients share the VM's cpus over loopback; "
                            "the seed's baseline was the page allocator, ours order-0 slabs "
                            "(one 4 KiB object a slab: every allocation takes a whole slab)"))
    return "\n".join(out)

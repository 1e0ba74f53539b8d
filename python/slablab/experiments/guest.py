# SPDX-License-Identifier: GPL-2.0 OR MIT
"""What the seed experiments run inside the VM, shared by the seeds.

:class:`Lab` runs one experiment's storms and writes a runs.csv row after each (the
variants of a repeat in a random order, :meth:`Lab.interleaved`); slablab's kmalloc
classes switched between designs (:func:`set_kmalloc_design`, ``_kmalloc_as``); the
kernel's own SLUB tunables under /sys/kernel/slab (:func:`slab_files`,
:func:`cpu_partial_files` and their writers); the live rows' live.csv
(:func:`write_live_csv`) and the loopback interface their network workloads need.
"""

import csv
import os
import random
import time
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence

from ..analysis import RUN_COLUMNS, run_context, run_row
from .core import Column, EXP_COLUMNS, Log, _now, _repeat, with_twin


def _meminfo() -> Dict[str, int]:
    out = {}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                k, v = line.split(":", 1)
                out[k] = int(v.split()[0])
    except (OSError, ValueError):
        pass
    return out


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def set_kmalloc_design(client: Any, design: str, tunables: Mapping[str, int]) -> None:
    """Give slablab's kmalloc classes a design and its lists (:meth:`Client.set_kmalloc`,
    lab-set kmalloc-design/kmalloc-lists); NotImplementedError for a client without it
    (an older binding)."""
    fn = getattr(client, "set_kmalloc", None)
    if fn is None:
        raise NotImplementedError("missing: no set-kmalloc in this binding")
    fn(design=design, **tunables)


class Lab:
    """Runs storms for one experiment and writes a runs.csv row after each.

    ``warmup``: repeats run before the measured ones, written with ``warmup`` set (the
    tables leave them out); ``order_seed``: the seed of the variants' random order in
    each repeat (None: a random one, logged so that a rerun can repeat it)."""

    def __init__(self, client: Any, name: str, out_dir: str, scale: str, log: Log,
                 warmup: int = 1, order_seed: Optional[int] = None) -> None:
        if warmup < 0:
            raise ValueError(f"warmup must be 0 or more, not {warmup}")
        self.client, self.name, self.scale, self.log = client, name, scale, log
        self.warmup = warmup
        self.order_seed = order_seed if order_seed is not None \
            else random.SystemRandom().randrange(1 << 32)
        self._order = random.Random(self.order_seed)
        self.slots: Dict[str, int] = {}
        self.status = client.status()
        self.out_dir = os.path.join(out_dir, name)
        os.makedirs(self.out_dir, exist_ok=True)
        self.csv_path = os.path.join(self.out_dir, "runs.csv")
        self.header = list(RUN_COLUMNS) + list(EXP_COLUMNS)
        self._f = open(self.csv_path, "w", newline="")
        self._w = csv.DictWriter(self._f, fieldnames=self.header)
        self._w.writeheader()
        self.runs = 0
        self.missing: Dict[str, str] = {}
        self.caches: List[str] = []
        self.cpu_model = _cpu_model()
        self.kmalloc_design = "slub"
        #: the kmalloc classes' tunables as they were before _kmalloc_as() set a
        #: column's arrays on them, by class name
        self.kmalloc_arrays: Dict[str, Dict[str, int]] = {}

    def repeats(self, n: int) -> range:
        """The repeats to run: the warm-up ones first (negative: -warmup .. -1), then
        0 .. n-1."""
        return range(-self.warmup, n)

    def interleaved(self, items: Iterable[Any], label: Callable[[Any], Any],
                    twin: Optional[Callable[[Any], Any]] = None) -> List[Any]:
        """``items`` (the variants of one point, in the seed's table order) in a random
        order from this lab's seeded generator; their table order is noted for the
        ``slot`` column, by which :func:`read_experiment` puts the rows back. ``twin``
        makes the first item's A/A twin (its label + :data:`AA`), run among them."""
        out = with_twin(items, twin)
        for it in out:
            self.slots.setdefault(str(label(it)), len(self.slots))
        self._order.shuffle(out)
        return out

    def close(self) -> None:
        for c in self.caches:
            try:
                self.client.cache_destroy(c)
            except Exception:       # noqa: BLE001 — best effort on the way out
                pass
        self._f.close()

    def cache(self, size: int, design: Optional[str] = None, **tunables: Any) -> Any:
        name = f"x{os.getpid() % 10000}-{len(self.caches)}-{size}"
        kw = dict(tunables)
        if design:
            kw["design"] = design
        info = self.client.cache_create(name, size, **kw)
        self.caches.append(info["name"])
        return info

    def storm(self, *, variant: str, table_row: str, x: Any, repeat: int, target: str,
              pattern: str, cache: Optional[Mapping[str, Any]] = None,
              design: Optional[str] = None, order: Optional[int] = None,
              **kw: Any) -> Any:
        """Run one storm (on a shrunk cache), write its row, return the storm."""
        if cache is not None:
            name = cache["name"]
            self.client.cache_shrink(name)
            cache = self.client.cache_get(name, percpu=False)
            kw["cache"] = name
        free: List[int] = []

        def sample(_s: Any) -> None:
            m = _meminfo()
            if "MemFree" in m:
                free.append(m["MemFree"])
        t0 = time.monotonic()
        r = self.client.storm(target, pattern, progress=sample, **kw)
        sample(r)
        self.runs += 1
        ctx = run_context(self.status, cache)
        ctx["warmup"] = repeat < 0
        ctx["design"] = (cache or {}).get("design") or design or \
            ("kernel" if target.startswith("native") else "slub")
        row = run_row(r, experiment=self.name, variant=variant, x=x, repeat=repeat,
                      run=self.runs, context=ctx)
        res = r["result"] or {}
        threads = res.get("threads") or []
        longest = max((t["ns"] for t in threads), default=0)
        done = r["progress"]["ops_done"]
        pages = res.get("steady_pages") or res.get("peak_pages") or 0
        live = (res.get("steady_live_bytes") if res.get("steady_pages")
                else res.get("peak_live_bytes")) or 0
        extra: Dict[str, Any] = dict(
            table_row=table_row, date=_now(), scale=self.scale,
            page_policy=self.client.status().get("kmalloc_page_policy", ""),
            kmalloc_design=self.kmalloc_design if target == "kmalloc" else "",
            tput_ops_per_sec=done * 1e9 / longest if done and longest else None,
            run_ms=longest / 1e6 if longest else None,
            used_kb=pages * r["page_size"] / 1024 if pages else None,
            live_kb=live / 1024 if live else None,
            mem_total_kb=_meminfo().get("MemTotal"), mem_free_kb=min(free) if free else None,
            cache_order=order if order is not None else (cache or {}).get("order"),
            cache_min_partial=(cache or {}).get("min_partial"),
            cache_cpu_partial=(cache or {}).get("cpu_partial"), cpu_model=self.cpu_model,
            slot=self.slots.get(variant, len(self.slots)))
        for k, v in extra.items():
            row[k] = "" if v is None else (f"{v:.6g}" if isinstance(v, float) else str(v))
        self._w.writerow(row)
        self._f.flush()
        if r["state"] != "done":
            self.log(f"  warning: storm {r['id']} ended {r['state']}")
        self.log(f"  {self.name} {variant:34s} {table_row:8s} x={x!s:>5} {_repeat(repeat)} "
                 f"({time.monotonic() - t0:.1f}s)")
        return r


def _kmalloc_as(lab: Lab, c: Optional[Column]) -> None:
    """slablab's kmalloc classes as column ``c``'s design (None: back to slub): the design
    and its lists through lab set, then the column's other tunables (the 2.4-like
    columns' limit, batchcount, shared) written to every class as to any cache
    (cache set), each class's own values put back before the next switch."""
    design = (c.design if c is not None else None) or "slub"
    tun = dict(c.tunables) if c is not None else {}
    lists = {k: v for k, v in tun.items() if k == "lists"}
    arrays = {k: v for k, v in tun.items() if k != "lists"}
    _kmalloc_arrays_back(lab)
    # classes on slub already: a slub column has nothing to set (its lists unused)
    if design != lab.kmalloc_design or (lists and design != "slub"):
        set_kmalloc_design(lab.client, design, lists)
        lab.kmalloc_design = design
    if not arrays:
        return
    for k in _kmalloc_classes(lab.client):
        # saved before it is written: a refusal halfway leaves what to put back
        lab.kmalloc_arrays[k["name"]] = {t: k[t] for t in arrays if t in k}
        lab.client.cache_set(k["name"], **arrays)


def _kmalloc_arrays_back(lab: Lab) -> None:
    """Put back the kmalloc classes' tunables that :func:`_kmalloc_as` changed: every
    class it can, then the first refusal is raised."""
    saved, lab.kmalloc_arrays = lab.kmalloc_arrays, {}
    first: Optional[Exception] = None
    for name, tun in saved.items():
        try:
            if tun:
                lab.client.cache_set(name, **tun)
        except Exception as e:  # noqa: BLE001 — the others are put back all the same
            first = first or e
    if first is not None:
        raise first


def _kmalloc_classes(client: Any) -> List[Mapping[str, Any]]:
    return [dict(c) for c in client.cache_list() if c.get("owner") == "kmalloc"]


LIVE_COLUMNS: Sequence[str] = ("experiment", "variant", "groups", "repeat", "warmup",
                               "seconds", "real_s", "sys_s", "user_s", "caches_set",
                               "retries", "date")


SYS_SLAB = "/sys/kernel/slab"


def cpu_partial_files(root: str = SYS_SLAB) -> Dict[str, int]:
    """Every kernel cache's cpu_partial, by directory (the aliases are links to these:
    each cache once). Empty without SLUB's sysfs or the file (SLUB_CPU_PARTIAL=n)."""
    return slab_files("cpu_partial", root)


def slab_files(attr: str, root: str = SYS_SLAB) -> Dict[str, int]:
    """Every kernel cache's ``attr`` (a number file of /sys/kernel/slab/CACHE/), by
    directory, each cache once (the aliases are links). Empty without SLUB's sysfs."""
    out: Dict[str, int] = {}
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return out
    for n in names:
        path = os.path.join(root, n)
        if os.path.islink(path) or not os.path.isdir(path):
            continue
        try:
            with open(os.path.join(path, attr)) as f:
                out[n] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return out


def write_cpu_partial(values: Mapping[str, int], root: str = SYS_SLAB) -> int:
    """Write each cache's cpu_partial; returns how many took it. A cache that went away
    meanwhile is passed over; any other refusal raises OSError naming the file."""
    return write_slab_files("cpu_partial", values, root)


def write_slab_files(attr: str, values: Mapping[str, int], root: str = SYS_SLAB) -> int:
    """Write each cache's ``attr`` file; returns how many took it (write_cpu_partial())."""
    done = 0
    for n, v in values.items():
        path = os.path.join(root, n, attr)
        try:
            with open(path, "w") as f:
                f.write(f"{v}\n")
            done += 1
        except FileNotFoundError:
            continue
        except OSError as e:
            raise OSError(e.errno, f"{path}: {e.strerror}") from e
    return done


def write_live_csv(out_dir: str, rows: Sequence[Mapping[str, Any]],
                   columns: Sequence[str] = LIVE_COLUMNS, append: bool = False) -> None:
    """The live rows, seed-000's fio or seed-002's hackbench (LIVE_COLUMNS), or seed-004's
    tbench of one boot (TBENCH_COLUMNS, ``append``: after the earlier boots' rows), to
    OUT_DIR/live.csv; the header is written when the file is new or empty."""
    path = os.path.join(out_dir, "live.csv")
    mode = "a" if append else "w"
    new = not append or not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, mode, newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(columns))
        if new:
            wr.writeheader()
        wr.writerows(rows)


def loopback_up(run: Callable[..., Any]) -> Optional[str]:
    """Bring the loopback interface up when it is down (slablab's VM boots with lo down:
    its /init configures no network), as fio's netio job talks over it; the reason it
    cannot be, or None."""
    try:
        with open("/sys/class/net/lo/operstate") as f:
            state = f.read().strip()
        with open("/sys/class/net/lo/flags") as f:
            up = int(f.read(), 16) & 1
    except (OSError, ValueError):
        return "no loopback interface (/sys/class/net/lo)"
    if up and state != "down":
        return None
    r = run(["ip", "link", "set", "lo", "up"], capture_output=True, text=True, timeout=60,
            check=False)
    if r.returncode != 0:
        return f"loopback is down and 'ip link set lo up' failed: {(r.stderr or '').strip()}"
    return None

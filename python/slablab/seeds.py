# SPDX-License-Identifier: GPL-2.0 OR MIT
"""slablab.seeds: the published figures of the five design discussions slablab grew from
(``../shared/seeds/``), as data, each with the words it was read from.

The experiments (:mod:`slablab.experiments`) print these beside their own measurements and
judge the *shape* (direction and ratio) against them. Nothing here needs a kernel.
"""

import math
import os
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

__all__ = ["Seed", "SEEDS", "ticks", "change", "seed_dir", "seed_text", "welch_error",
           "sd_from_range", "error_000_sys", "error_001", "error_003_used"]


class Seed(NamedTuple):
    """One seed: its file in ``shared/seeds/``, who and when, and the quoted lines the
    figures below were read from (each quote appears verbatim in the file)."""
    file: str
    source: str
    quotes: Tuple[str, ...]


def ticks(hex_text: str) -> int:
    """Manfred Spraul's cpu ticks as printed ("0x7B") -> 123."""
    return int(hex_text, 16)


def change(before: float, after: float) -> float:
    """The relative change after/before - 1 (+0.098 for 123 -> 135)."""
    return after / before - 1.0


# ---------------------------------------------------------------- a seed's own uncertainty
#
# A verdict judges our interval against the seed's change; where the seed states how
# sure its own figure is (sds, min and max over runs, a resolution), that uncertainty
# widens the band "agrees" accepts, and a change the seed cannot tell from none is
# judged as none (slablab.experiments.core.shape_verdict, docs/experiments.md).

#: d2(n): the expected range (max - min) of n normal values in standard deviations, for
#: a seed that prints min and max but no sd (Tippett's table).
D2 = {10: 3.078, 50: 4.498}


def sd_from_range(lo: float, hi: float, n: int) -> float:
    """The sd of n values estimated from their range: (max - min) / d2(n)."""
    return (hi - lo) / D2[n]


def welch_error(m0: float, sd0: float, n0: int, m1: float, sd1: float, n1: int,
                level: float = 0.95) -> float:
    """The half width of the seed's own ``level`` interval of after/before - 1, in points
    of ``before`` (m0): Welch's t interval of m1 - m0 (two independent sets of runs, sds
    and counts as the seed gives them) over m0."""
    from ._core import student_t_quantile
    v0, v1 = sd0 * sd0 / n0, sd1 * sd1 / n1
    df = (v0 + v1) ** 2 / (v0 * v0 / (n0 - 1) + v1 * v1 / (n1 - 1))
    return float(student_t_quantile(0.5 + level / 2, df)) * math.sqrt(v0 + v1) / m0


def error_000_sys() -> float:
    """Seed 000's sys time, SLUB (dynamic) against SLUB (8.89 ± 2.28 s and 7.73 ± 0.29 s
    over 50 runs each): -13.0% ± 7.3 points."""
    a, b = SEED_000["sys"]["SLUB"], SEED_000["sys"]["SLUB (dynamic)"]
    return welch_error(a[2], a[3], 50, b[2], b[3], 50)


#: Seed 001's resolution: "the differences are negligable (+-1 cpu tick)".
SEED_001_RESOLUTION_TICKS = 1


def error_001(before_hex: str) -> float:
    """Seed 001's ±1 tick on a row's change net of the loop, in points of the row's
    2.4.9 ticks net of the loop (kf(1): 1 / (0xa9 - 0x49) = ±1.0%)."""
    return SEED_001_RESOLUTION_TICKS / (ticks(before_hex) - ticks(SEED_001_LOOP))


def error_003_used(before: str, after: str) -> float:
    """Seed 003's used kB, ``after`` against ``before`` (rows of :data:`SEED_003`: min,
    max and average of 10 boots, no sd: the sd from the range): SLOB patched against
    vanilla -0.8% ± 2.2 points."""
    (lo0, hi0, m0), (lo1, hi1, m1) = SEED_003[before][2], SEED_003[after][2]
    return welch_error(m0, sd_from_range(lo0, hi0, 10), 10, m1, sd_from_range(lo1, hi1, 10), 10)


# ---------------------------------------------------------------- seed 000
#: Pekka Enberg, 2008: SLUB with the static MIN_PARTIAL vs the dynamic, size-derived one,
#: fio netio, 50 runs; (min, max, avg, sd) in seconds.
SEED_000: Dict[str, Dict[str, Tuple[float, float, float, float]]] = {
    "real": {"SLAB": (22.76, 23.38, 22.98, 0.17), "SLUB": (22.80, 25.78, 23.46, 0.72),
             "SLUB (dynamic)": (22.74, 23.54, 23.00, 0.20)},
    "sys": {"SLAB": (6.90, 8.28, 7.70, 0.28), "SLUB": (7.42, 16.95, 8.89, 2.28),
            "SLUB (dynamic)": (7.17, 8.64, 7.73, 0.29)},
    "user": {"SLAB": (36.89, 38.11, 37.50, 0.29), "SLUB": (30.85, 37.99, 37.06, 1.67),
             "SLUB (dynamic)": (36.75, 38.07, 37.59, 0.32)},
}

# ---------------------------------------------------------------- seed 001
#: Manfred Spraul, 2001: cpu ticks (hex) of 100 calls in a tight loop on a Duron 700,
#: 2.4.9 (one list) and 2.4.9-ac9 (three lists); loop overhead 0x49 not removed.
SEED_001_ROWS: List[Tuple[str, str, str]] = [
    ("km(1)", "0x87", "0x89"),
    ("kf(1)", "0xa9", "0xa8"),
    ("kf(cachep,1)", "0xad", "0xad"),
    ("km(4096)", "0x7B", "0x87"),
    ("kf(4096)", "0xcB", "0xd1"),
    ("kf(cachep,4096)", "0xcc", "0xd3"),
]
SEED_001_LOOP = "0x49"

# ---------------------------------------------------------------- seed 002
#: David Rientjes, 2011: netperf, threads -> (before, after) per-cpu partial lists.
SEED_002: List[Tuple[int, int, int]] = [
    (16, 75509, 75443), (32, 118121, 117558), (48, 149997, 149514), (64, 185216, 186772),
    (80, 221195, 222612), (96, 239732, 241089), (112, 261967, 266643),
    (128, 272946, 281794), (144, 279202, 289421), (160, 285745, 297216),
]

# ---------------------------------------------------------------- seed 003
#: Pekka Enberg, 2008: free and used kB after boot, 10 runs: total, (min, max, average)
#: of free, (min, max, average) of used.
SEED_003: Dict[str, Tuple[int, Tuple[float, float, float], Tuple[float, float, float]]] = {
    "SLUB (no debug)": (26536, (23868, 23892, 23877.6), (2644, 2668, 2658.4)),
    "SLOB (patched)": (26548, (23456, 23708, 23603.2), (2840, 3092, 2944.8)),
    "SLOB (vanilla)": (26548, (23472, 23640, 23579.6), (2908, 3076, 2968.4)),
    "SLAB (no debug)": (26544, (23316, 23364, 23343.2), (3180, 3228, 3200.8)),
    "SLUB (with debug)": (26484, (23120, 23136, 23127.2), (3348, 3364, 3356.8)),
}
#: Matt Mackall's lguest runs: MemFree averages (kB) of 10 runs.
SEED_003_MEMFREE = {"SLUB": 24217.2, "SLOB 2 lists": 24294.4, "SLOB 3 lists": 24344.4}
#: Pages used for pages of live data.
SEED_003_PAGES = {"SLOB 2 lists (Matt's)": (259, 244), "SLOB 3 lists": (250, 209)}

# ---------------------------------------------------------------- seed 004
#: Christoph Lameter, 2008: slabinfo -AD's 4 KiB line, and tbench (MB/s).
SEED_004_SLABINFO = (":0004096", 180, 665259550, 665259415, 99, 99)
SEED_004_TBENCH = {"SLAB": 2223.32, "SLUB unmodified": 2144.36, "SLUB+patch": 2245.56}

SEEDS: Dict[str, Seed] = {
    "seed-000": Seed("000_004b56374a147f3c.txt",
                     "Pekka Enberg, 2008: \"SLUB: dynamic per-cache MIN_PARTIAL\"",
                     ("SLUB 22.80 25.78 23.46 0.72",
                      "SLUB (dynamic) 22.74 23.54 23.00 0.20",
                      "SLUB 7.42 16.95 8.89 2.28",
                      "SLUB (dynamic) 7.17 8.64 7.73 0.29",
                      "the minimum, maximum, and average are captured from 50 individual runs")),
    "seed-001": Seed("001_4f067ceeb4945ca6.txt",
                     "Manfred Spraul, 2001: slab fast path cost in cpu ticks",
                     ("km(4096) 0x7B 0x87 (+24% without overhead!)",
                      "kf(cachep,4096) 0xcc 0xd3",
                      "100 calls in a tight loop, loop overhead (0x49) not removed")),
    "seed-002": Seed("002_250deb7897a98f0e.txt",
                     "Christoph Lameter / David Rientjes, 2011: \"SLUB: per cpu partial "
                     "lists V3\"",
                     ("> 16 75509 75443 (-0.1%)", "> 160 285745 297216 (+4.0%)")),
    "seed-003": Seed("003_a8fafa0acc36b711.txt",
                     "Matt Mackall / Pekka Enberg, 2008: SLOB external fragmentation",
                     ("SLUB (no debug) 26536 23868 23892 23877.6 2644 2668 2658.4",
                      "SLOB (patched) 26548 23456 23708 23603.2 2840 3092 2944.8",
                      "we're using 259 pages for 244 pages of actual data",
                      "its total overhead appears to be about 35%",
                      "about 250 pages of storage for 209 pages of data")),
    "seed-004": Seed("004_c8c3133074b32840.txt",
                     "Christoph Lameter, 2008: SLUB tbench regression and 4k objects",
                     (":0004096                   180 665259550 665259415  99  99",
                      "SLUB unmodified\t2144.36 MB/sec",
                      "SLUB+patch\t2245.56 MB/sec")),
}


def seed_dir(start: Optional[str] = None) -> Optional[str]:
    """``shared/seeds`` of this checkout or the one above it (``SLABLAB_SEEDS``
    overrides); None when there is none."""
    env = os.environ.get("SLABLAB_SEEDS")
    if env:
        return env if os.path.isdir(env) else None
    here = os.path.abspath(start or os.getcwd())
    for _ in range(4):
        for cand in (os.path.join(here, "shared", "seeds"),
                     os.path.join(here, "..", "shared", "seeds")):
            if os.path.isdir(cand):
                return os.path.normpath(cand)
        here = os.path.dirname(here)
    return None


def _squash(text: str) -> str:
    return " ".join(text.split())


def seed_text(name: str, directory: Optional[str] = None) -> Optional[str]:
    """The seed file's text, or None when the seeds are not here."""
    d = directory or seed_dir()
    if d is None:
        return None
    path = os.path.join(d, SEEDS[name].file)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def missing_quotes(name: str, text: str) -> Sequence[str]:
    """The quotes of a seed that its text does not contain (whitespace-insensitive)."""
    flat = _squash(text)
    return [q for q in SEEDS[name].quotes if _squash(q) not in flat]

# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Host tests of make bench's summaries (slablab.bench): the cycles-by-size table drawn
from a synthetic frame of compare runs (no kernel)."""

import math

import pytest

pd = pytest.importorskip("pandas")

from slablab import bench as B  # noqa: E402


def test_variant_label():
    assert B.variant_label("native") == "kernel SLUB"
    assert B.variant_label("slablab design=slab,lists=3") == "slab lists=3"
    assert B.variant_label("slablab design=sheaves,sheaves_cpu_slabs=1") == \
        "sheaves cpu_slabs=1"
    assert B.variant_label("slablab design=slob") == "slob"
    assert B.variant_label("slablab") == "slablab"


def test_size_of_file():
    assert B.size_of_file("build/bench/cycles-4096.csv") == 4096
    assert B.size_of_file("/x/pair-64.csv") == 64
    assert B.size_of_file("aa.csv") is None


def frame(rows):
    return pd.DataFrame(rows, columns=["variant", "size", "repeat", "warmup",
                                       "cycles_per_alloc", "cycles_per_free", "loop_cycles"])


def test_cycles_by_size_medians_loop_and_ratio():
    rows = []
    for size, k in ((8, 1), (4096, 4)):
        for rep in range(3):
            # a warm-up run with absurd figures must not count
            rows.append(["native", size, rep, 1 if rep == 0 else 0, 1e9, 1e9, 99.0]
                        if rep == 0 else
                        ["native", size, rep, 0, 100.0 * k + rep, 50.0 * k, 2.0])
            rows.append(["slablab design=slab,lists=1", size, rep, 0, 50.0 * k, 25.0 * k
                         + rep, 3.0])
    text = B.cycles_by_size(frame(rows))
    lines = text.splitlines()
    head = lines[1].split()
    assert head[:3] == ["size", "kernel", "SLUB"] and "lists=1" in lines[1]
    row8 = lines[2].split()
    # native at 8 B: the counted repeats 1 and 2 -> median alloc 101.5, free 50
    assert row8[0] == "8" and row8[1:4] == ["102", "/", "50"]
    assert row8[4:7] == ["50", "/", "26"]
    row4k = lines[3].split()
    assert row4k[0] == "4096" and row4k[1] == "402"
    loop = lines[4].split()
    assert loop == ["loop", "2.0", "3.0"]
    ratio = lines[5].split()
    # slab's alloc+free is about half of native's at both sizes
    want = math.exp((math.log(76 / 151.5) + math.log(301 / 601.5)) / 2)
    assert ratio[-1] == f"{want:.2f}" and ratio[-2] == "1.00"
    assert "median of 2 runs" in lines[0]


def test_cycles_by_size_missing_figures_and_no_runs():
    rows = [["native", 64, 0, 0, 100.0, None, 1.0], ["native", 64, 1, 0, 120.0, None, 1.0]]
    text = B.cycles_by_size(frame(rows))
    assert "110 / -" in text and text.splitlines()[-1].split()[-1] == "-"
    assert B.cycles_by_size(frame([])) == "cycles by size: no runs"

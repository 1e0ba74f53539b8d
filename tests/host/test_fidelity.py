# SPDX-License-Identifier: GPL-2.0
"""slablab.fidelity's verdicts and tables without a kernel (docs/fidelity.md): the
interval covers what it says (a simulation on known distributions), and each verdict
says what the evidence shows: "same" only inside the tolerance, "differs" only outside,
"inconclusive" when the noise is larger than the tolerance."""
import math
import random

import pytest

from slablab import fidelity


def test_identical_repeats_are_same_exactly():
    j = fidelity.judge([100, 120, 90], [100, 120, 90])
    assert (j.ratio, j.lo, j.hi, j.verdict) == (1.0, 1.0, 1.0, "same")


def test_a_clear_difference_is_named_with_its_direction_and_size():
    j = fidelity.judge([110, 111, 109, 110], [100, 100, 100, 100])
    assert j.verdict.startswith("differs: design +10"), j
    j = fidelity.judge([80, 81, 79, 80], [100, 100, 100, 100])
    assert j.verdict.startswith("differs: design -20"), j


def test_noise_wider_than_the_tolerance_is_inconclusive_not_same():
    # the medians agree, the repeats do not: no evidence of sameness
    j = fidelity.judge([100, 140, 70, 100], [100, 100, 100, 100])
    assert j.verdict.startswith("inconclusive: noise"), j
    assert j.lo is not None and j.hi is not None
    assert j.lo < 0.95 and j.hi > 1.05


def test_a_difference_at_the_tolerance_edge_is_inconclusive():
    # 5% higher, tight: the interval straddles 1.05
    j = fidelity.judge([105, 105.2, 104.8, 105.1, 104.9], [100] * 5)
    assert j.verdict.startswith("inconclusive"), j


def test_small_tight_differences_are_same():
    j = fidelity.judge([101, 102, 101, 102, 101], [100] * 5)
    assert j.verdict == "same", j


def test_zeros():
    assert fidelity.judge([0, 0, 0], [0, 0, 0]).verdict == "same (both 0)"
    assert fidelity.judge([0, 0, 0], [5, 6, 5]).verdict.startswith("differs: design 0")
    assert fidelity.judge([3, 4, 3], [0, 0, 0]).verdict.startswith("differs: kernel 0")
    assert fidelity.judge([0, 4, 3], [2, 0, 3]).verdict.startswith("inconclusive")
    assert fidelity.judge([1], [1]).verdict == "too few pairs"
    assert fidelity.judge([None, 1, None], [1, None, 2]).verdict == "too few pairs"


@pytest.mark.parametrize("n", [3, 5, 10])
def test_the_interval_covers_the_true_ratio(n):
    """Paired log-normal repeats with a known ratio: the nominal 95% interval must cover
    it at least 93% of the time (a percentile bootstrap at n=3 covers ~76%)."""
    rng = random.Random(n)
    true = 1.07
    hits = trials = 0
    for _ in range(1500):
        k = [math.exp(rng.gauss(0, 0.02)) * 1000 for _ in range(n)]
        d = [x * true * math.exp(rng.gauss(0, 0.05)) for x in k]
        j = fidelity.judge(d, k)
        assert j.lo is not None and j.hi is not None
        trials += 1
        hits += j.lo <= true <= j.hi
    assert hits / trials >= 0.93, f"coverage {hits / trials:.3f} at n={n}"


def test_geometry_rows_name_what_differs():
    rows = fidelity.geometry_rows(
        [dict(size=64, align=False, design=dict(order=0, objs_per_slab=64, cpu_partial=120),
              kernel=dict(order=0, objs_per_slab=64, cpu_partial=120)),
         dict(size=700, align=True, design=dict(order=2, objs_per_slab=23, cpu_partial=52),
              kernel=dict(order=3, objs_per_slab=46, cpu_partial=None))],
        ("order", "objs_per_slab", "cpu_partial"))
    assert rows[0][0] == "64 B" and rows[0][4] == "same"
    assert rows[0][1] == rows[0][2] == "order 0, objs 64, cpu_partial 120"
    assert rows[1][0] == "700 B hwcache_align"
    assert rows[1][4] == "differs: order, objs_per_slab (kernel shows no cpu_partial)"


def test_table_text_aligns_columns():
    t = fidelity.table_text("t", [["a", "1", "2", "", "same"], ["long metric", "10", "20", "",
                                                                "differs"]])
    lines = t.splitlines()
    assert lines[0] == "t"
    assert lines[1].split() == ["metric", "design", "kernel", "ratio", "[95%", "CI]", "verdict"]
    assert lines[3].index("1") == lines[4].index("10")


def test_every_pair_names_kernels_that_have_its_allocator():
    assert set(fidelity.PAIRS) == {"slub", "sheaves", "slab", "slob"}
    for p in fidelity.PAIRS.values():
        assert p.kernels
    assert "sheaf_capacity" in fidelity.PAIRS["sheaves"].geometry
    assert fidelity.PAIRS["slab"].tunables == {"lists": 3}

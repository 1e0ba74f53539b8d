# SPDX-License-Identifier: GPL-2.0
"""slablab.findings without a VM: the primary verdict named before the run comes first
and reads the interval as slabctl compare's rule does, the secondaries are
Holm-adjusted, an inconclusive line says what would decide, and the mechanism counts
come from each run's statistics (docs/findings.md)."""
import pytest

from slablab import findings


def summary(ratio, lo, hi, verdict, p=0.01, sd=0.002, n=5, mde=0.003, median=100.0):
    return {"median": median, "ci": {"ratio": ratio, "lo": lo, "hi": hi, "n": n, "sd": sd,
                                     "p": p, "mde": mde},
            "verdict": verdict}


def run(variant, allocs, stats, remote=None, counted=True):
    return {"variant": variant, "counted": counted,
            "storm": {"result": {"allocs": allocs, "frees": allocs,
                                 "remote_frees": allocs if remote is None else remote,
                                 "stats": stats}}}


def compare(sheaves_alloc=("lower", 0.5, 0.48, 0.52, 1e-6)):
    v, r, lo, hi, p = sheaves_alloc
    zero = {n: 0 for n in findings.NODE_LOCK_STATS + findings.BARN_STATS +
            findings.PAGE_STATS}
    slub = dict(zero, alloc_from_partial=30, free_add_partial=20, alloc_slab=5, free_slab=5)
    sheaves = dict(zero, barn_get=40, barn_put=40)
    return {
        "context": {"kernel_release": "6.1.0-57-amd64", "vm_cpus": 2, "vm_icount": "1",
                    "slablab_commit": "abc"},
        "repeats_done": 5, "warmup": 1,
        "figures": ["cycles_per_alloc", "cycles_per_free"],
        "variants": [
            {"label": "slablab design=slub",
             "summary": {"cycles_per_alloc": {"median": 1400.0, "ci": None, "verdict": "none"},
                         "cycles_per_free": {"median": 340.0, "ci": None, "verdict": "none"}}},
            {"label": "slablab design=sheaves",
             "summary": {"cycles_per_alloc": summary(r, lo, hi, v, p=p),
                         "cycles_per_free": summary(1.001, 0.999, 1.003, "same", p=0.3)}},
            {"label": "slablab design=slab",
             "summary": {"cycles_per_alloc": summary(1.2, 1.1, 1.3, "higher", p=0.001),
                         "cycles_per_free": summary(1.02, 0.9, 1.15, "inconclusive",
                                                    p=0.6, sd=0.08, mde=0.11)}},
        ],
        "runs": [run(0, 1000, slub), run(0, 1000, dict(slub, free_add_partial=22)),
                 run(0, 1000, dict(slub, alloc_slab=500), counted=False),
                 run(1, 1000, sheaves), run(1, 1000, sheaves, remote=500),
                 run(2, 1000, dict(zero, allocmiss=5, freemiss=4))],
    }


def test_primary_first_as_named_before_the_run():
    q = findings.QUESTIONS["q4"]
    assert q.primary == "cycles_per_alloc: sheaves vs slub"
    lines = findings.judge(q, compare())
    assert lines[0] == ("primary: cycles_per_alloc: sheaves vs slub: -50.00% "
                        "[-52.00%, -48.00%] (n=5): lower")
    assert all(x.startswith("secondary: ") for x in lines[1:]) and len(lines) == 4


def test_no_difference_only_by_equivalence_and_inconclusive_says_what_decides():
    lines = findings.judge(findings.QUESTIONS["q4"], compare())
    same = next(x for x in lines if "cycles_per_free: sheaves" in x)
    assert "no difference (inside ±5%)" in same
    inc = next(x for x in lines if "cycles_per_free: slab" in x)
    assert "inconclusive (per-pair sd 0.0800, MDE at 80% power 11.00%" in inc
    assert "needs about 22 repeats" in inc      # (2.8 * 0.08 / log 1.05)^2 = 21.1
    # a primary interval that holds 1 is inconclusive, never "agrees" or "same"
    lines = findings.judge(findings.QUESTIONS["q4"],
                           compare(("inconclusive", 0.99, 0.9, 1.1, 0.7)))
    assert "inconclusive" in lines[0] and "no difference" not in lines[0]


def test_holm_adjusts_the_secondaries():
    assert findings.holm([0.01, None, 0.04, 0.03]) == [0.03, None, 0.06, 0.06]
    lines = findings.judge(findings.QUESTIONS["q4"], compare())
    # three secondaries with p 0.3, 0.001, 0.6: Holm 0.6, 0.003, 0.6
    ps = {x.split(": ")[1] + " " + x.split(" vs ")[0].split(": ")[-1]: x for x in lines[1:]}
    assert "Holm p=0.003" in next(x for x in ps.values() if "cycles_per_alloc: slab" in x)
    assert "Holm p=0.6" in next(x for x in ps.values() if "cycles_per_free: slab" in x)


def test_mechanism_counts_per_1000_objects_from_counted_runs():
    m = findings.mechanism_table(compare())
    slub, sheaves, slab = m
    # slub's two counted runs: 50 and 52 list_lock operations per 1000; the warm-up's
    # 500 page round trips are not counted
    assert slub["runs"] == 2 and slub["list_lock"] == 52.0 and slub["list_lock_spread"] == 2.0
    assert slub["pages"] == 10.0 and slub["barn"] == 0.0
    assert sheaves["barn"] == 80.0 and sheaves["list_lock"] == 0.0
    # the slab design's list_lock: its array misses (a refill or a flush each)
    assert sheaves["remote_pct"] == 100.0 and slab["list_lock"] == 9.0


def test_report_has_the_table_and_the_verdicts():
    text = findings.report(findings.QUESTIONS["q4"], compare())
    assert "| slablab design=slub | 1400.0 | 340.0 | 52.00 | 0.00 | 10.00 | 100.0% |" in text
    assert "primary: cycles_per_alloc: sheaves vs slub" in text


def test_cli_refuses_what_it_cannot_run(capsys):
    assert findings.main(["q9"]) == 2
    assert "no question q9" in capsys.readouterr().err
    assert findings.main(["q4", "--repeat", "1"]) == 2
    assert findings.main(["list"]) == 0
    assert "q4: " in capsys.readouterr().out


@pytest.mark.parametrize("base", ["sheaves"])
def test_the_baseline_is_the_first_variant(base):
    q = findings.Question("qx", "t", "s", f"cycles_per_alloc: slub vs {base}", findings.run_q4)
    with pytest.raises(ValueError, match="baseline"):
        findings.judge(q, compare())


def q5_per(slub16=17 / 45, slab250=0.9, knee=1.0):
    """A q5 result whose cycles per object give these ratios exactly (repeats 1..3)."""
    cyc = {}
    for label, base, ratios in (("slablab design=slub", 45.0, {16: slub16, 32: slub16 * knee}),
                                ("slablab design=slab", 88.0, {250: slab250}),
                                ("native", 45.0, {16: 1.0})):
        cyc[label] = {"1": {str(r): base * (1 + 0.01 * r) for r in (1, 2, 3)}}
        for b, x in ratios.items():
            cyc[label][str(b)] = {str(r): base * x * (1 + 0.01 * r) for r in (1, 2, 3)}
    return {"batches": [1, 16, 32, 250], "variants": list(cyc), "cycles": cyc,
            "repeats_done": 3, "context": {"kernel_release": "6.1", "vm_cpus": 2,
                                           "vm_icount": "1", "slablab_commit": "abc"}}


def test_q5_shapes_by_the_seed_rule():
    """The seed's own shape agrees; a flat curve against SLAB's 88 -> 13 is not
    "agrees" (a null never agrees); the primary comes first, the rest Holm-adjusted."""
    lines = findings.q5_lines(q5_per())
    assert lines[0].startswith("primary: slub design, bulk 16 vs 1: seed: SLUB 45 -> 17 "
                               "cycles -62.2%; here: -62.2%"), lines[0]
    assert "agrees within" in lines[0]
    verdict = {x.split(": ")[1].split(",")[0]: x.split(" — ")[1] for x in lines}
    assert verdict["native SLUB"].startswith("disagrees: no difference here (within ±5%)")
    # -10% against the seed's -85%: the seed's side, short of its band
    assert verdict["slab design"].startswith("agrees in direction, smaller here"), verdict
    assert all(x.startswith("secondary: ") for x in lines[1:]) and len(lines) == 4


def test_q5_report_table():
    text = findings.q5_report(findings.QUESTIONS["q5"], q5_per())
    assert "| bulk | slablab design=slub | slablab design=slab | native |" in text
    assert "| 1 | 45.9 | 89.8 | 45.9 |" in text
    assert "| 250 | – | 80.8 | – |" in text


def q3_per(sheaves_alloc=(1.0, 1.0, 1.0, 1.0, 1.0), pages=1.3):
    """A q3 result: five replays of slub, sheaves and native."""
    reps = []
    for i, x in enumerate(sheaves_alloc):
        base = {"cycles_per_alloc": 800.0 * (1 + 0.01 * i), "cycles_per_free": 200.0,
                "avg_pages": 300.0 + i, "peak_pages": 600.0, "events": 7000}
        reps.append({"slub": base,
                     "sheaves": dict(base, cycles_per_alloc=base["cycles_per_alloc"] * x,
                                     avg_pages=base["avg_pages"] * pages,
                                     peak_pages=600.0 * pages),
                     "native": dict(base)})
    return {"labels": ["slub", "sheaves", "native"], "replays": reps, "loops": 200,
            "kernel_release": "7.3", "vm_cpus": 2, "vm_icount": "1"}


def test_q3_primary_and_holm():
    """The primary (sheaves' cycles per alloc against slub's) first; equal figures are
    "no difference" by equivalence; a noisy one is inconclusive with what decides."""
    lines = findings.q3_lines(q3_per())
    assert lines[0].startswith("primary: cycles per alloc: sheaves vs slub: +0.00%")
    assert lines[0].endswith("no difference (inside ±5%)"), lines[0]
    pages = next(x for x in lines if x.startswith("secondary: time-weighted pages: sheaves"))
    assert "+30.00%" in pages and ": higher [Holm p=" in pages
    noisy = findings.q3_lines(q3_per((1.0, 1.2, 0.9, 1.15, 0.95)))[0]
    assert "inconclusive: noise" in noisy and "repeats to tell ±5%" in noisy, noisy
    text = findings.q3_report(findings.QUESTIONS["q3"], q3_per())
    assert "| sheaves | 816.0 | 200.0 | 392.6 | 780.0 |" in text, text


def test_holm_takes_back_a_claim():
    assert findings.held("higher", 0.08) == ": not significant after Holm"
    assert findings.held("higher", 0.01) == "" and findings.held("same", 0.5) == ""

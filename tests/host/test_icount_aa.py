# SPDX-License-Identifier: GPL-2.0
"""make icount-aa's summary (tests/perf/icount_aa.py; docs/experiments.md, "Several
vCPUs") without a VM: the spread of a figure over boots against figures worked out by
hand, the list_lock sum, and the refusals (one boot, boots of different settings)."""
import importlib.util
import json
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location(
    "icount_aa", os.path.join(REPO, "tests", "perf", "icount_aa.py"))
assert _spec is not None and _spec.loader is not None
aa = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(aa)


def test_spread_of_five_boots():
    # mean 100, median 100, deviations -2 -1 0 +1 +2: sd = sqrt(10/4) = 1.5811;
    # one boot's 95% interval: t(4) 2.776 x 1.5811 x sqrt(1.2) = 4.808
    s = aa.spread([98.0, 99.0, 100.0, 101.0, 102.0])
    assert s["n"] == 5 and s["mean"] == 100.0 and s["median"] == 100.0
    assert s["max_dev_pct"] == pytest.approx(2.0)
    assert s["sd_pct"] == pytest.approx(1.5811, abs=1e-4)
    assert s["pi95_pct"] == pytest.approx(4.808, abs=1e-3)


def test_identical_boots_have_no_spread():
    s = aa.spread([5868.0] * 4)
    assert s["max_dev_pct"] == 0 and s["sd_pct"] == 0 and s["pi95_pct"] == 0


def boot(alloc, free, partial, **over):
    stats = {n: 0 for n in aa.LIST_LOCK_STATS + aa.OTHER_STATS}
    stats.update(free_add_partial=partial, alloc_from_partial=10, cpu_partial_node=7)
    doc = {"kernel": "6.1.0-57-amd64", "icount": "1", "cpus": 2, "ops": 500000, "size": 64,
           "storms": [{"figures": {"cycles_per_alloc": alloc, "cycles_per_free": free},
                       "stats": stats, "elapsed_ns": 1, "state": "done"}]}
    doc.update(over)
    return doc


def write(tmp_path, docs):
    paths = []
    for i, d in enumerate(docs):
        p = tmp_path / f"boot-{i + 1}.json"
        p.write_text(json.dumps(d))
        paths.append(str(p))
    return paths


def test_summary_prints_each_figure_and_the_list_lock_sum(tmp_path, capsys):
    paths = write(tmp_path, [boot(330.0, 287.0, 5868), boot(330.33, 288.0, 5884)])
    assert aa.summary(paths) == 0
    out = capsys.readouterr().out
    assert "2 boots of 6.1.0-57-amd64, icount shift 1, 2 cpus" in out

    def line(figure):
        return next(x for x in out.splitlines() if x.startswith(f"  {figure} ")).rstrip()

    # list_lock ops: 5868+10+7 and 5884+10+7, in boot order
    assert line("list_lock ops").endswith("5885 5901")
    assert line("cycles/alloc").endswith("330.00 330.33")
    assert " 0.05% " in line("cycles/alloc")   # 330.33 / 330.165 - 1 = 0.05%


def test_summary_refuses_one_boot_and_mixed_settings(tmp_path, capsys):
    assert aa.summary(write(tmp_path, [boot(330.0, 287.0, 5868)])) == 2
    assert "fewer than 2 boots" in capsys.readouterr().err
    mixed = [boot(330.0, 287.0, 5868), boot(330.0, 287.0, 5868, cpus=4)]
    assert aa.summary(write(tmp_path, mixed)) == 2
    assert "the boots differ in cpus: 2 and 4" in capsys.readouterr().err


def test_summary_takes_each_boots_median_over_its_storms(tmp_path, capsys):
    # boot 1's storms read 330, 336 (a storm with kernel work in it) and 331: median 331;
    # boot 2's 330, 330, 332: median 330
    docs = []
    for allocs in ((330.0, 336.0, 331.0), (330.0, 330.0, 332.0)):
        d = boot(allocs[0], 287.0, 5868)
        d["storms"] = [boot(a, 287.0, 5868)["storms"][0] for a in allocs]
        docs.append(d)
    assert aa.summary(write(tmp_path, docs)) == 0
    out = capsys.readouterr().out
    median = out[out.index("the median of each boot's 3 storms"):]
    alloc = next(x for x in median.splitlines() if x.startswith("  cycles/alloc "))
    assert alloc.rstrip().endswith("331.00 330.00")

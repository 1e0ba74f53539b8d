# SPDX-License-Identifier: GPL-2.0
"""The seed experiments (docs/experiments.md) end to end at their smallest size: one
experiment's storms run, runs.csv has one row per storm, and the printed table has the
seed's figures and ours. `make experiments` itself is not part of the suite (minutes)."""
import csv
import os

from slablab import experiment


def test_seed_004_smallest(client, tmp_path, no_storm_left):
    policy = client.status()["kmalloc_page_policy"]
    text = experiment.run_experiment("seed-004", str(tmp_path), repeat=1, client=client,
                                     do_plot=False, log=lambda _line: None)
    with open(tmp_path / "seed-004" / "runs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    variants = ["slab: kmalloc-4096, order-3 slabs", "page allocator", experiment.KERNEL]
    assert [r["variant"] for r in rows] == variants
    assert all(r["state"] == "done" and int(r["ops_done"]) > 0 for r in rows)
    assert [r["target"] for r in rows] == ["kmalloc", "kmalloc", "native-kmalloc"]
    assert [r["page_policy"] for r in rows[:2]] == ["slab", "page_alloc"]
    # the slab class serves 4 KiB from its slabs (counted); the page allocator does not
    assert int(rows[0]["stat_alloc_fastpath"]) > 0
    assert int(rows[1]["stat_alloc_fastpath"]) == 0
    assert rows[0]["cache_order"] == "3" and rows[1]["cache_order"] == "0"
    assert rows[0]["kernel_release"] == os.uname().release
    for v in variants:
        assert f"\n    {v} " in text
    assert ":0004096" in text and "2245.56" in text
    assert "verdict: order-3 slabs vs page allocator" in text
    assert (tmp_path / "seed-004" / "table.txt").read_text().strip() == text.strip()
    assert client.status()["kmalloc_page_policy"] == policy

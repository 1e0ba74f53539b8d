# SPDX-License-Identifier: GPL-2.0
"""Record and replay (docs/replay.md), in the VM: slabctl record captures a small real
workload (a tar of /etc) through the kmem tracepoints, slabctl replay runs the trace on
slablab's caches and on the kernel's SLUB. Counting identities must hold on both
(allocs - frees = live at the end) and the two targets must see the same objects."""
import json
import os
import re

import pytest

from conftest import slabctl

RECORDED = {}


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    """A recording of tar; RECORDED holds what record reported."""
    path = tmp_path_factory.mktemp("replay") / "tar.trace"
    r = slabctl("record", "-o", path, "--buffer-kb", "8192", "--",
                "tar", "cf", "/dev/null", "/etc")
    assert "recorded" in r.stderr, r.stderr
    assert os.path.getsize(path) > 80
    live = re.search(r"objects live at the end: (\d+)", r.stderr)
    assert live, r.stderr
    RECORDED["live_at_end"] = int(live.group(1))
    return path


def replay(path, target):
    r = slabctl("replay", path, "--target", target, "--json")
    return json.loads(r.stdout)["replay"]


def test_record_reports(trace):
    # the file reads back and names what the recorder found
    r = slabctl("replay", trace, "--target", "slablab")
    assert "ops/s" in r.stdout and "cycles/alloc" in r.stdout


@pytest.mark.parametrize("target", ["slablab", "native"])
def test_replay_identities(trace, target):
    res = replay(trace, target)
    assert res["state"] == 3  # done
    assert res["failures"] == 0
    assert res["allocs"] > 0
    # every object allocated is freed by the trace or live at its end (then freed)
    assert res["allocs"] - res["frees"] == res["live_at_end"]
    assert sum(c["allocs"] for c in res["caches"]) == res["allocs"]
    assert sum(c["live_at_end"] for c in res["caches"]) == res["live_at_end"]
    assert res["ops_per_sec"] > 0
    # the ids the recorder saw never freed are the objects the replay holds at its end
    assert res["live_at_end"] == RECORDED["live_at_end"]


def test_targets_agree(trace):
    a, b = replay(trace, "slablab"), replay(trace, "native")
    for k in ("allocs", "frees", "live_at_end", "events"):
        assert a[k] == b[k], k
    assert [c["allocs"] for c in a["caches"]] == [c["allocs"] for c in b["caches"]]


def test_truncated_trace(trace, tmp_path):
    data = open(trace, "rb").read()
    bad = tmp_path / "cut.trace"
    bad.write_bytes(data[: len(data) - 7])
    r = slabctl("replay", bad, check=False)
    assert r.returncode != 0 and "truncated at offset" in r.stderr, r.stderr

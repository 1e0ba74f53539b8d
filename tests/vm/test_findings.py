# SPDX-License-Identifier: GPL-2.0
"""docs/findings.md's workloads in the VM: q3's fork/execve loop recorded with
`slabctl record` holds the allocations a fork must make (a task_struct and a
files_struct per fork: the kernel's own caches, named in the trace, are the oracle),
and replays on the slub and sheaves designs and the kernel's allocator, the same
allocations on each; q4's and q5's storms run in the producer-consumer and bulk tests
of test_storms.py."""
from typing import Dict

import pytest

import slablab
from slablab import findings

LOOPS = 20
ALLOC = 1       # the trace's op of an allocation (include/slablab/replay.h)


@pytest.fixture(scope="module")
def fork_exec_trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("q3") / "fork-exec.trace"
    rep = slablab.record(str(path), findings.fork_exec_loop(LOOPS), buffer_kb=32768)
    assert rep["lost_events"] == 0, rep
    return path


def slab_size(cache):
    try:
        with open(f"/sys/kernel/slab/{cache}/slab_size") as f:
            return int(f.read())
    except OSError:
        return None


def test_fork_exec_trace_holds_fork_and_execve(fork_exec_trace):
    """Every iteration forks: a task_struct and a files_struct (dup_fd()) each, at
    least. A 6.1 trace names a cache only from its frees (its kmem_cache_alloc has no
    name): a task_struct still live when the recording ends (its RCU-delayed put) is
    named by its size, size-N for SLUB's task_struct slot."""
    ev, caches = slablab.trace_events(str(fork_exec_trace))
    names = ["kmalloc"] + [c["name"] for c in caches]
    allocs: Dict[str, int] = {}
    for cache, op in zip(ev["cache"].tolist(), ev["op"].tolist()):
        if op == ALLOC:
            allocs[names[cache]] = allocs.get(names[cache], 0) + 1
    ts = slab_size("task_struct")
    tasks = allocs.get("task_struct", 0) + (allocs.get(f"size-{ts}", 0) if ts else 0)
    assert tasks >= LOOPS, allocs
    assert allocs.get("files_cache", 0) >= LOOPS, allocs


@pytest.mark.parametrize("targets", [list(findings.Q3_TARGETS)])
def test_fork_exec_trace_replays_on_every_target(client, fork_exec_trace, targets):
    info = slablab.read_trace(str(fork_exec_trace))
    cmp = client.replay_compare(str(fork_exec_trace), targets)
    assert [r["label"] for r in cmp["replays"]] == targets
    allocs = {r["label"]: r["allocs"] for r in cmp["replays"]}
    for r in cmp["replays"]:
        assert r["state_name"] == "done" and r["failures"] == 0, r
    # the same stream on every target: the same allocations made, the same events
    assert len({r["events"] for r in cmp["replays"]}) == 1, cmp["replays"]
    assert 0 < cmp["replays"][0]["events"] <= info["nr_events"], info
    assert len(set(allocs.values())) == 1 and allocs[targets[0]] > 0, allocs

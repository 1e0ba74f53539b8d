# SPDX-License-Identifier: GPL-2.0
"""The design the running kernel's allocator models, against that allocator
(docs/fidelity.md; `make fidelity` is the whole check, on every pair's kernels).

What needs no special kernel runs on every submission (make test: the stock 6.1 and the
7.3 stages):
- geometry: for slablab.fidelity's grid of sizes, with and without hwcache_align, the
  order, objects per slab and defaults the design picks equal what the kernel picked for
  a cache of the same size and flags (a native storm's twin, read from the kernel's own
  /sys/kernel/slab/<name>/ or /proc/slabinfo row while it exists);
- one replay (a recorded tar of /etc) on the design and on the kernel's caches: peak and
  mean pages within the fidelity tolerance, or a difference that is stated.
"""
import os

import pytest

import slablab
from slablab import fidelity


PAIR = fidelity.running_pair()


@pytest.fixture(scope="module")
def trace(tar_recording):
    """The session's recording of tar (conftest), shared with test_replay.py."""
    return str(tar_recording[0])


def test_the_running_kernel_names_its_pair():
    major = int(os.uname().release.split(".")[0])
    if os.path.isdir("/sys/kernel/slab"):
        assert PAIR == ("sheaves" if major >= 7 else "slub")
    assert PAIR in fidelity.PAIRS


def test_geometry_is_the_kernels(client):
    if not fidelity.PAIRS[PAIR].geometry:
        pytest.skip(f"{PAIR}: the kernel's allocator has no per-cache geometry")
    results = fidelity.probe_geometry(client, PAIR, lambda m: None)
    assert len(results) == 2 * len(fidelity.SIZES)
    rows = fidelity.geometry_rows(results, fidelity.PAIRS[PAIR].geometry)
    bad = [r for r in rows if r[4] != "same"]
    assert not bad, "\n".join(f"{r[0]}: design {r[1]} | kernel {r[2]} ({r[4]})" for r in bad)
    # the kernel's side was read, not assumed: every key has a value there
    for r in results:
        for k in fidelity.PAIRS[PAIR].geometry:
            assert r["kernel"].get(k) is not None, (r, k)


def test_a_replay_holds_the_pages_the_kernel_holds(client, trace):
    import random
    rows = fidelity.probe_replay(client, PAIR, trace, 3, random.Random(1), lambda m: None)
    got = {r[0].split(": ", 1)[1]: r for r in rows}
    for metric in ("peak pages", "mean pages"):
        row = got[metric]
        assert not row[4].startswith("differs"), \
            f"{metric}: design {row[1]}, kernel {row[2]}, ratio {row[3]}: {row[4]}"
    assert slablab.REPLAY_TARGETS

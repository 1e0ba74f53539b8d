# SPDX-License-Identifier: GPL-2.0
"""A real boot, recorded and replayed on every design (issue 25; docs/replay.md, "A real
boot"): the VM boots with the kmem tracepoints enabled from the kernel's command line
(trace_event=, as scripts/record-boot.sh does for `make record-boot`), its first command
imports the ring buffer's text with slabctl import, and the same boot replays the trace
on every design and the kernel's SLUB at the recorded pace (scripts/replay-compare.sh,
which plots pages over time). One boot, ~80 s: the
buffer is 8 MiB a cpu, so the earliest events are overwritten and counted as lost (the
import reads the header's entries-written), which is what a small buffer must say."""
import json
import os
import shutil
import subprocess

import pytest

import slablab

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("SLABLAB_BUILD", os.path.join(REPO, "build"))
MODULE = os.environ.get("SLABLAB_MODULE") or os.path.join(REPO, "module", "slablab.ko")
VM = os.path.join(REPO, "scripts", "vm.sh")

pytestmark = pytest.mark.skipif(not os.path.exists(MODULE) or not shutil.which("zstd"),
                                reason="module not built (run make module), or no zstd")

BUF = "8M"


@pytest.fixture
def out_dir():
    # under the build tree: the guest writes there (its /tmp is its own)
    d = os.path.join(BUILD, "test-real-boot")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_a_real_boot_is_recorded_and_replays_on_every_design(out_dir):
    trace = os.path.join(out_dir, "boot.trace")
    script = (f"{REPO}/scripts/record-boot.sh --guest {trace} && "
              f"{REPO}/scripts/replay-compare.sh {trace} "
              f"{out_dir}/boot-replay")
    env = dict(os.environ, VM_APPEND="trace_event=kmem:kmalloc,kmem:kfree,"
               f"kmem:kmem_cache_alloc,kmem:kmem_cache_free trace_buf_size={BUF} "
               "trace_clock=mono")
    r = subprocess.run([VM, "--log", os.path.join(out_dir, "serial.log"), "--timeout", "500",
                        "--module", MODULE, "--", "sh", "-c", script],
                       capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
                       env=env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    info = slablab.read_trace(trace)
    # the boot's allocations: tens of thousands of events in the caches a boot fills
    assert info["nr_events"] > 20_000, info
    names = {c["name"] for c in info["caches"]}
    assert names & {"dentry", "inode_cache", "kernfs_node_cache", "vm_area_struct",
                    "proc_inode_cache"}, sorted(names)[:40]
    # 8 MiB a cpu holds the end of the boot only: the overwritten beginning is lost
    # events, not silence
    assert info["lost_events"] > 0, info
    doc = json.load(open(os.path.join(out_dir, "boot-replay.json")))
    rows = doc["compare"]["replays"]
    labels = [row["label"] for row in rows]
    assert labels == [*slablab.DESIGNS, "native"], labels
    # every target replayed the same objects and held pages for them
    assert len({(row["allocs"], row["frees"]) for row in rows}) == 1, rows
    assert all(row["allocs"] > 10_000 and row["peak_pages"] > 0 for row in rows), rows

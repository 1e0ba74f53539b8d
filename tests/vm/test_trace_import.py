# SPDX-License-Identifier: GPL-2.0
"""Other tools' kmem traces imported (docs/replay.md, "Importing other traces").

One window of kernel activity (`tar cf /dev/null tool`) recorded three ways at once:
`slabctl record`'s own instance, a tracefs instance read by `trace-cmd extract` (.dat)
and one whose `trace` text is read. The three instances are switched on and off by the
same tracepoint hits (traceon/traceoff triggers on the exec and exit of two marker
programs), so they hold the same events but for what other cpus trace while the
triggers run: each cpu's allocations and frees in the .dat and the text imports must be
the recording's, each cache's too (names, objects matched). Then perf script output of
the same workload, and a replay of an imported text.
"""
import json
import os
import re
import shutil
import subprocess
from collections import Counter

import pytest

import slablab
from helpers import REPO, SLABCTL, slabctl

TRACEFS = "/sys/kernel/tracing"
# the workload's tree: ~40 files of this repository (over 9p), a few thousand events and
# seconds under TCG
TREE = os.path.join(REPO, "tool")
EVENTS = ("kmalloc", "kmem_cache_alloc", "kfree", "kmem_cache_free")

# The command slabctl record runs: its own instance ($REC) emptied and armed like the
# other two, then the window opened by the exec of one marker and closed by the exit of
# the other (traceon and traceoff are one kind of trigger: one of them an event).
SCRIPT = r"""
set -e
T=/sys/kernel/tracing
REC=$T/instances/slablab-record-$PPID
echo 0 > "$REC/tracing_on"
echo > "$REC/trace"
for i in "$REC" "$T/instances/$DAT" "$T/instances/$TXT"; do
    echo 'traceon if filename ~ "*/slbw-on"' > "$i/events/sched/sched_process_exec/trigger"
    echo 'traceoff if comm == "slbw-off"' > "$i/events/sched/sched_process_exit/trigger"
done
"$MARK/slbw-on"
tar cf /dev/null "$TREE"
"$MARK/slbw-off"
"""


def _instance(name, buffer_kb):
    path = os.path.join(TRACEFS, "instances", name)
    os.mkdir(path)
    with open(os.path.join(path, "tracing_on"), "w") as f:
        f.write("0")
    with open(os.path.join(path, "buffer_size_kb"), "w") as f:
        f.write(str(buffer_kb))
    with open(os.path.join(path, "trace_clock"), "w") as f:
        f.write("mono")
    for e in EVENTS:
        with open(os.path.join(path, "events", "kmem", e, "enable"), "w") as f:
            f.write("1")
    return path


@pytest.fixture(scope="module")
def window(tmp_path_factory):
    """(native trace, .dat, text) of one window."""
    d = tmp_path_factory.mktemp("window")
    mark = d / "bin"
    mark.mkdir()
    for m in ("slbw-on", "slbw-off"):
        shutil.copy("/bin/true", mark / m)
    names = {"DAT": f"slablab-test-dat-{os.getpid()}", "TXT": f"slablab-test-txt-{os.getpid()}"}
    made = []
    try:
        for n in names.values():
            made.append(_instance(n, 16384))
        env = dict(os.environ, MARK=str(mark), TREE=TREE, **names)
        r = subprocess.run([SLABCTL, "record", "-o", d / "native.trace",
                            "--buffer-kb", "16384", "--", "sh", "-c", SCRIPT],
                           capture_output=True, text=True, timeout=300, env=env)
        assert r.returncode == 0, r.stderr
        with open(os.path.join(made[1], "trace")) as f, open(d / "window.txt", "w") as out:
            out.write(f.read())
        subprocess.run(["trace-cmd", "extract", "-B", names["DAT"], "-o", d / "window.dat"],
                       check=True, capture_output=True, timeout=300, cwd=d)
    finally:
        for p in made:  # trace-cmd extract -B removes the instance it read
            if os.path.isdir(p):
                os.rmdir(p)
    return d / "native.trace", d / "window.dat", d / "window.txt"


def _events(path, fmt="auto"):
    ev, caches = slablab.trace_events(path, fmt)
    names = ["kmalloc"] + [c["name"] for c in caches]
    return ev, names


# The triggers switch the instances one after the other: what another cpu traces in
# between is in one and not the other, a few events at each end of the window.
EDGE = 16


def _diff(a, b):
    """How many items of two multisets differ."""
    return sum(((a - b) + (b - a)).values())


def _compare(a_path, b_path, gfp=True):
    """Each cpu's allocations and frees (op, size, gfp) must be the same multiset but for
    the window's edges; each cache's allocations and frees (the names and the objects'
    matching: a free not matched is kmalloc's) the same but for 1 in 100 more. Each
    instance reads the clock for itself when it writes an event, and an interrupt's events
    may come between an event's writes to two instances: events close in time can be in
    another order in another instance (~1 in 1000 in the test VM), and an address freed
    and allocated again close in time be seen allocated at a live address."""
    (a, an), (b, bn) = _events(a_path), _events(b_path)
    fields = ("cpu", "op", "bytes_req", "gfp") if gfp else ("cpu", "op", "bytes_req")
    per_cpu = _diff(Counter(zip(*(a[f].tolist() for f in fields))),
                    Counter(zip(*(b[f].tolist() for f in fields))))
    assert per_cpu <= EDGE, per_cpu
    per_cache = _diff(Counter((an[c], op) for c, op in zip(a["cache"].tolist(), a["op"].tolist())),
                      Counter((bn[c], op) for c, op in zip(b["cache"].tolist(), b["op"].tolist())))
    assert per_cache <= EDGE + len(a) // 100, (per_cache, len(a))


def test_dat_equals_the_recording(window):
    native, dat, _ = window
    n = slablab.import_trace(native)
    d = slablab.import_trace(dat)
    assert d["format"] == "dat" and n["format"] == "native"
    assert n["lost_events"] == 0 and d["lost_events"] == 0, (n, d)
    assert slablab.read_trace(native)["nr_events"] > 1000, n
    assert d["cpus"] == n["cpus"]
    assert abs(d["events"] - n["events"]) <= EDGE
    assert abs(d["objects"] - n["objects"]) <= EDGE
    _compare(native, dat)   # gfp too: a .dat has it as a number
    assert abs(d["duration_ns"] - n["duration_ns"]) < 50_000_000


def test_text_equals_the_recording(window):
    native, _, text = window
    n = slablab.import_trace(native)
    t = slablab.import_trace(text)
    assert t["format"] == "text"
    assert t["lost_events"] == 0, t
    assert t["cpus"] == n["cpus"]
    # kfree(ZERO_SIZE_PTR) found by its hash: the recording's events, not ~10 % more
    assert abs(t["events"] - n["events"]) <= EDGE
    assert abs(t["objects"] - n["objects"]) <= EDGE
    _compare(native, text, gfp=False)
    assert abs(t["duration_ns"] - n["duration_ns"]) < 50_000_000


def test_perf_script_import(tmp_path):
    data = tmp_path / "perf.data"
    subprocess.run(["perf", "record", "-q", "-o", data, "-e", ",".join(f"kmem:{e}" for e in EVENTS),
                    "--", "tar", "cf", "/dev/null", TREE],
                   check=True, capture_output=True, timeout=300)
    script = subprocess.run(["perf", "script", "-i", data], check=True, capture_output=True,
                            text=True, timeout=300).stdout
    (tmp_path / "perf.txt").write_text(script)
    r = slablab.import_trace(tmp_path / "perf.txt", output=tmp_path / "perf.trace")
    assert r["format"] == "perf"
    # counted here from the lines themselves: allocations and frees with a pointer above
    # ZERO_SIZE_PTR (16: kfree(ZERO_SIZE_PTR) frees nothing)
    lines = [ln for ln in script.splitlines() if ln.strip()]
    null = [bool(re.search(r" ptr=(\(nil\)|0x([0-9a-f]|10))(\s|$)", ln)) for ln in lines]
    allocs = sum(not z and (" kmem:kmalloc: " in ln or " kmem:kmem_cache_alloc: " in ln)
                 for ln, z in zip(lines, null))
    assert r["null_pointers"] == sum(null)
    assert r["events"] == len(lines) - sum(null)
    ev, names = _events(tmp_path / "perf.trace")
    assert int((ev["op"] == 1).sum()) == allocs
    # cache objects are named by their frees: tar's path lookups free names_cache
    assert "names_cache" in names


def test_replay_of_imported_text(window):
    _, _, text = window
    r = slabctl("replay", text, "--target", "sheaves", "--json")
    res = json.loads(r.stdout)["replay"]
    t = slablab.import_trace(text)
    assert res["state"] == 3 and res["failures"] == 0
    assert res["allocs"] == t["objects"]
    assert res["live_at_end"] == t["live_at_end"]


def test_import_cli_summary_and_errors(window, tmp_path):
    _, _, text = window
    r = slabctl("import", text, "-o", tmp_path / "t.trace")
    assert "lost events: 0" in r.stderr and "skipped:" in r.stderr, r.stderr
    cut = tmp_path / "cut.txt"
    cut.write_bytes(open(text, "rb").read()[:-5])
    r = slabctl("import", cut, check=False)
    assert r.returncode != 0 and "truncated: the last line has no newline" in r.stderr

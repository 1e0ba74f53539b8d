# SPDX-License-Identifier: GPL-2.0 OR MIT
"""`slabctl import` and its Python side on the host (docs/replay.md, "Importing other
traces"): the summary and JSON of a tracefs text and a perf script fixture, the written
trace read back, replay reading text directly, the errors with file and line, and
slablab.import_trace(), trace_events() (numpy) and trace_frame() (pandas) field by field.
"""
import json
import os
import pathlib
import re
import subprocess

import pytest

import json_schemas
from test_cli import SLABCTL, SKIP_PYTHON

DATA = pathlib.Path(__file__).resolve().parent / "data"
TEXT = DATA / "kmem-6.1-small.txt"
PERF = DATA / "kmem-6.1-small.perf.txt"
MODULE_LOADED = pathlib.Path("/sys/module/slablab").exists()


def slabctl(*args):
    return subprocess.run([str(SLABCTL), *map(str, args)], capture_output=True, text=True,
                          timeout=60, check=False)


def test_import_text_summary_and_json(tmp_path):
    out = tmp_path / "t.trace"
    r = slabctl("import", TEXT, "-o", out, "--json")
    assert r.returncode == 0, r.stderr
    j = json_schemas.check(json.loads(r.stdout), "import")["import"]
    assert j["format"] == "text" and j["output"] == str(out) and j["input"] == str(TEXT)
    assert (j["events"], j["objects"], j["caches"], j["cpus"]) == (6, 3, 2, 2)
    assert (j["lost_events"], j["unmatched_frees"], j["live_at_end"]) == (3, 1, 1)
    assert (j["lines"], j["comment_lines"], j["other_events"], j["null_pointers"],
            j["skipped"]) == (14, 6, 1, 1, 8)
    assert j["other_by_name"] == {"sched_process_exec": 1}
    assert "imported" in r.stderr and "lost events: 3" in r.stderr
    assert "skipped: 8 (6 comment or blank lines, 1 events of other tracepoints, 1 null" \
        in r.stderr
    # the file written is a slablab trace that imports as itself
    r = slabctl("import", out, "--json")
    n = json.loads(r.stdout)["import"]
    assert n["format"] == "native" and n["output"] is None
    assert n["events"] == 6 and n["lost_events"] == 3


def test_import_perf(tmp_path):
    r = slabctl("import", PERF, "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)["import"]
    assert j["format"] == "perf"
    assert j["other_by_name"] == {"kmem:mm_page_alloc": 1}
    assert (j["events"], j["objects"], j["caches"], j["unmatched_frees"], j["live_at_end"]) \
        == (6, 3, 2, 0, 0)
    # text reads perf's lines too (their kmem: is read past); perf refuses tracefs text
    r = slabctl("import", PERF, "--format", "text", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["import"]["events"] == 6
    r = slabctl("import", TEXT, "--format", "perf")
    assert r.returncode == 1
    assert f"{TEXT}:7: expected a perf script event (SYSTEM:EVENT:)" in r.stderr


@pytest.mark.parametrize("content,needle", [
    (b"", "empty: expected a slablab trace"),
    (b"\x00\x01\x02binary", "unknown format at offset 0"),
    (b"hello\n", ":1: unknown format: not a tracefs trace or perf script event line"),
    (b"  sh-1 [000] ..... 1.000001: kfree: call_site=f ptr=00000000000012", ":1: truncated"),
    (b"SLABTRC\x00\x01", "truncated at offset 8"),
])
def test_import_errors(tmp_path, content, needle):
    p = tmp_path / "in"
    p.write_bytes(content)
    out = tmp_path / "out.trace"
    r = slabctl("import", p, "-o", out)
    assert r.returncode == 1, r.stderr
    assert needle in r.stderr and str(p) in r.stderr, r.stderr
    assert not out.exists() and not list(tmp_path.glob("out.trace.tmp-*"))


def test_import_usage():
    r = slabctl("import", TEXT, "--format", "ftrace")
    assert r.returncode == 2 and "--format: 'ftrace' is not auto" in r.stderr


@pytest.mark.skipif(MODULE_LOADED, reason="the slablab module is loaded here")
def test_replay_reads_text():
    # the text is imported before the module is asked: a bad one fails as import does,
    # a good one reaches the module (not loaded here: exit 3)
    r = slabctl("replay", TEXT)
    assert r.returncode == 3, r.stderr
    r = slabctl("replay", DATA / "trace-v1.hex")
    assert r.returncode == 1 and re.search(r"trace-v1\.hex:\d+: unknown format", r.stderr), \
        r.stderr


# ------------------------------------------------------------- Python ----


@pytest.fixture(scope="module")
def slablab():
    if SKIP_PYTHON:
        pytest.skip("built without SLABLAB_BUILD_PYTHON")
    import slablab as mod
    return mod


def test_python_import_trace(slablab, tmp_path):
    out = tmp_path / "p.trace"
    r = slablab.import_trace(PERF, output=out)
    assert r["format"] == "perf" and r["output"] == str(out) and r["events"] == 6
    assert slablab.read_trace(out)["nr_events"] == 6
    assert slablab.import_trace(TEXT, "text")["lost_events"] == 3
    with pytest.raises(slablab.InvalidArgument, match="is not auto, native"):
        slablab.import_trace(TEXT, "ftrace")
    with pytest.raises(slablab.InvalidArgument, match=r"kmem-6.1-small.txt:7: expected a perf"):
        slablab.import_trace(TEXT, "perf")


def test_trace_events_every_field(slablab):
    np = pytest.importorskip("numpy")
    ev, caches = slablab.trace_events(TEXT)
    assert ev.dtype.names == ("ts_ns", "object", "bytes_req", "bytes_alloc", "gfp", "cpu",
                              "cache", "op")
    assert ev.dtype["ts_ns"] == np.uint64 and ev.dtype["cpu"] == np.uint16
    assert ev.dtype["op"] == np.uint8
    assert [c["name"] for c in caches] == ["names_cache", "size-256"]
    assert ev["ts_ns"].tolist() == [0, 57000, 234000, 292000, 125635000, 225634000]
    assert ev["object"].tolist() == [1, 2, 3, 1, 3, 0]
    assert ev["bytes_req"].tolist() == [4096, 232, 88, 0, 0, 0]
    assert ev["bytes_alloc"].tolist() == [4096, 256, 96, 4096, 96, 0]
    assert ev["cpu"].tolist() == [0, 0, 1, 0, 1, 0]
    assert ev["cache"].tolist() == [1, 2, 0, 1, 0, 0]
    assert ev["op"].tolist() == [1, 1, 1, 2, 2, 2]
    assert ev["gfp"].tolist() == [0] * 6


def test_trace_frame(slablab):
    pytest.importorskip("pandas")
    df = slablab.trace_frame(PERF)
    assert list(df["op_name"]) == ["alloc", "alloc", "alloc", "free", "free", "free"]
    assert list(df["cache_name"]) == ["names_cache", "filp", "kmalloc", "names_cache",
                                      "kmalloc", "filp"]
    assert df.groupby("cache_name", observed=True).size().to_dict() == {
        "filp": 2, "kmalloc": 2, "names_cache": 2}
    assert os.fspath(PERF)  # a path object is accepted too

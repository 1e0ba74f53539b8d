# SPDX-License-Identifier: GPL-2.0
"""scripts/slabinfo.sh's series argument, offline (a private SLABLAB_CACHE and build tree,
SLABINFO_FETCH=0, a stand-in slabinfo.c): 6 (the default) and 7 build into their own
directories, 7 takes the newest slabinfo-VERSION/ copy of its cache and never 6's
sources, SLABINFO_SRC works for both, a build is reused until its source changes, and an
unknown series or a missing source is a clear error."""
import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "slabinfo.sh")
PROGRAM = '#include <stdio.h>\nint main(void) { puts("%s"); return 0; }\n'


def run(tmp_path, *args, **env):
    e = {k: v for k, v in os.environ.items() if not k.startswith("SLABINFO_")}
    e.update(SLABLAB_CACHE=str(tmp_path / "cache"), SLABLAB_BUILD=str(tmp_path / "build"),
             SLABINFO_FETCH="0")
    e.update(env)
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, env=e, timeout=120)


def source(path, says):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PROGRAM % says)
    return path


def says(binary):
    return subprocess.run([binary], capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def cache(tmp_path):
    """A cache with 6.1's copy (checkpatch/tools/vm/) and two 7.x copies."""
    c = tmp_path / "cache"
    source(c / "checkpatch" / "tools" / "vm" / "slabinfo.c", "6.1")
    source(c / "src" / "slabinfo-7.2.12-1~bpo13+1" / "slabinfo.c", "7.2")
    source(c / "src" / "slabinfo-7.3.4-1~bpo13+1" / "slabinfo.c", "7.3")
    source(c / "src" / "slabinfo-7.9.tmp" / "slabinfo.c", "unfinished")
    return c


def test_series(tmp_path, cache):
    for args, sub, want in (((), "slabinfo", "6.1"), (("6",), "slabinfo", "6.1"),
                            (("7",), "slabinfo-7", "7.3")):
        r = run(tmp_path, *args)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == str(tmp_path / "build" / sub / "slabinfo"), r.stdout
        assert says(r.stdout.strip()) == want
    # both kept, each beside its own source
    assert says(tmp_path / "build" / "slabinfo" / "slabinfo") == "6.1"
    assert (tmp_path / "build" / "slabinfo-7" / "slabinfo.c").read_text() == PROGRAM % "7.3"


def test_rebuilt_only_when_the_source_changes(tmp_path, cache):
    assert "building" in run(tmp_path, "7").stderr
    r = run(tmp_path, "7")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    source(cache / "src" / "slabinfo-7.3.4-1~bpo13+1" / "slabinfo.c", "7.3 again")
    r = run(tmp_path, "7")
    assert "building" in r.stderr and says(r.stdout.strip()) == "7.3 again"


def test_slabinfo_src(tmp_path):
    tree = tmp_path / "linux-7.3"
    source(tree / "tools" / "mm" / "slabinfo.c", "tree")
    one = source(tmp_path / "one" / "slabinfo.c", "file")
    for series in ("6", "7"):
        for src, want in ((tree, "tree"), (one, "file")):
            r = run(tmp_path, series, SLABINFO_SRC=str(src))
            assert r.returncode == 0, r.stderr
            assert says(r.stdout.strip()) == want
    r = run(tmp_path, "7", SLABINFO_SRC=str(tmp_path / "nothing"))
    assert r.returncode == 1 and "does not exist" in r.stderr, r.stderr


def test_errors(tmp_path):
    r = run(tmp_path, "8")
    assert r.returncode == 1 and "unknown series '8'" in r.stderr, r.stderr
    # series 7 takes neither 6.1's copy nor build-kernel.sh's tree
    source(tmp_path / "cache" / "checkpatch" / "tools" / "vm" / "slabinfo.c", "6.1")
    tree = tmp_path / "cache" / "src" / "linux-source-6.1.192-3"
    source(tree / "tools" / "vm" / "slabinfo.c", "6.1 tree")
    (tree / ".slablab-unpacked").touch()
    assert says(run(tmp_path).stdout.strip()) == "6.1 tree"
    r = run(tmp_path, "7")
    assert r.returncode == 1 and "no 7.x slabinfo.c" in r.stderr, r.stderr
    assert r.stdout == "" and not (tmp_path / "build" / "slabinfo-7").exists()

# SPDX-License-Identifier: GPL-2.0
"""Every file scripts/gen-protocol.py writes from uapi/slablab.yaml is checked in as the
generator writes it now: an edit of the spec without regenerating, or a hand edit of a
generated file, fails here (`make generate` or scripts/gen-protocol.py fixes it)."""
import os
import subprocess

import pytest

pytest.importorskip("yaml", reason="python3-yaml is missing (scripts/deps.sh installs it)")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = os.environ.get("PYTHON", "/usr/bin/python3")
GEN = os.path.join(REPO, "scripts", "gen-protocol.py")


def test_generated_files_are_current():
    r = subprocess.run([PY, GEN, "--check"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_check_notices_a_stale_file(tmp_path):
    """--check fails for a spec that says something else (here: a renamed constant's
    doc), so the test above can fail."""
    spec = open(os.path.join(REPO, "uapi", "slablab.yaml")).read()
    changed = spec.replace("Every storm ends within 10 minutes.", "Every storm ends soon.")
    assert changed != spec
    path = tmp_path / "slablab.yaml"
    path.write_text(changed)
    r = subprocess.run([PY, GEN, "--check", "--spec", str(path)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 1 and "uapi/linux/slablab.h" in r.stderr, r.stderr


def test_generated_files_say_so():
    for rel in ("uapi/linux/slablab.h", "module/netlink-gen.c", "module/netlink-gen.h",
                "include/slablab/protocol.h", "tool/include/slabctl/protocol.hpp",
                "python/slablab/protocol.py"):
        head = open(os.path.join(REPO, rel)).read(400)
        assert "generated from uapi/slablab.yaml by scripts/gen-protocol.py" in head, rel


def _check_spec(tmp_path, text):
    path = tmp_path / "slablab.yaml"
    path.write_text(text)
    return subprocess.run([PY, GEN, "--check", "--spec", str(path)], capture_output=True,
                          text=True, timeout=120)


def test_a_lost_list_dash_is_refused(tmp_path):
    """Two list entries run together (a merge that dropped the "-" between them) are one
    mapping with `name` twice; PyYAML would keep the second silently and one counter
    would vanish from every generated table. The generator refuses it with the line."""
    spec = open(os.path.join(REPO, "uapi", "slablab.yaml")).read()
    entry = "      -\n        name: alloc-fastpath\n"
    assert entry in spec
    lost = spec.replace(entry + "        doc:", "      -\n        name: alloc-fastpath\n"
                        "        name: alloc-extra\n        doc:", 1)
    assert lost != spec
    r = _check_spec(tmp_path, lost)
    assert r.returncode != 0 and "given twice in one mapping" in r.stderr, r.stderr


def test_a_name_given_twice_in_a_set_is_refused(tmp_path):
    """Two attributes of one set with one name (the cpu-slabs gauge and a cpu-slabs
    tunable) would give two debugfs files and two table rows of one name."""
    spec = open(os.path.join(REPO, "uapi", "slablab.yaml")).read()
    dup = spec.replace("        name: sheaves-cpu-slabs\n", "        name: cpu-slabs\n", 1)
    assert dup != spec
    r = _check_spec(tmp_path, dup)
    assert r.returncode != 0 and "cpu-slabs named twice" in r.stderr, r.stderr

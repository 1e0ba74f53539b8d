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

# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The installed slablab package (`pip install ./python`, `make` does it into build/venv):
importable without sys.path edits, its stub _core.pyi true to the extension (mypy's
stubtest; mypy on the pure-Python modules is `make lint`'s). Run with the Python that has the
package: build/venv/bin/python -m pytest tests/host (scripts/test.sh does)."""

import ast
import os
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SKIP_PYTHON = os.environ.get("SLABLAB_SKIP_PYTHON") == "1"
pytestmark = pytest.mark.skipif(SKIP_PYTHON, reason="built without SLABLAB_BUILD_PYTHON")
ALLOWLIST = REPO / "python" / "stubtest-allowlist.txt"


def _project_version():
    m = re.search(r"project\(\s*slablab\s+VERSION\s+([0-9.]+)",
                  (REPO / "CMakeLists.txt").read_text())
    assert m
    return m.group(1)


def run_python(*args, **kw):
    """sys.executable with no PYTHONPATH, from /: only what is installed counts."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd="/",
                          env=env, timeout=300, check=False, **kw)


@pytest.fixture(scope="module")
def installed():
    r = run_python("-c", "import slablab, slablab._core as c; print(slablab.__file__); "
                         "print(c.__file__); print(slablab.__version__)")
    if r.returncode != 0:
        pytest.fail(f"slablab is not installed for {sys.executable} (run make, and the "
                    f"tests with build/venv/bin/python):\n{r.stderr}")
    init, core, version = r.stdout.split()
    return pathlib.Path(init).parent, pathlib.Path(core), version


def test_package_is_installed_not_taken_from_the_tree(installed):
    pkg, core, version = installed
    assert pkg.parent.name in ("site-packages", "dist-packages"), pkg
    assert not pkg.is_relative_to(REPO / "python"), pkg
    assert core.parent == pkg and core.name.startswith("_core.")
    assert version == _project_version()
    for f in ("py.typed", "_core.pyi", "shapes.py", "grid.py", "runner.py", "analysis.py",
              "plots.py", "sweep.py", "bench.py"):
        assert (pkg / f).is_file(), f
    # every module of the source tree, subpackages' too (pyproject.toml names each package)
    src = REPO / "python" / "slablab"
    for py in sorted(src.rglob("*.py")):
        assert (pkg / py.relative_to(src)).is_file(), py.relative_to(src)
    # the installed stub is the source tree's
    assert (pkg / "_core.pyi").read_text() == (REPO / "python/slablab/_core.pyi").read_text()


def test_stubtest_finds_the_stub_true(installed):
    """mypy.stubtest imports the extension and compares every name in it with the stub:
    a binding without its stub entry (or the reverse) fails here."""
    r = run_python("-m", "mypy.stubtest", "slablab._core", "--allowlist", str(ALLOWLIST))
    assert r.returncode == 0, r.stdout + r.stderr


def _stub_methods():
    tree = ast.parse((REPO / "python/slablab/_core.pyi").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Client")
    return {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}


def test_stub_parameters_are_the_bindings():
    """stubtest cannot see pybind11 signatures; they are in each docstring's first line,
    which mypy's own stubdoc parses (as stubgen does for pybind11 modules)."""
    from mypy.stubdoc import infer_sig_from_docstring

    import slablab._core as core
    from slablab import protocol
    tunable_names = [t[0] for t in protocol.CACHE_TUNABLES]
    methods = _stub_methods()
    checked = 0
    for name, fn in methods.items():
        if name.startswith("_") or not callable(getattr(core.Client, name)):
            continue
        first = getattr(core.Client, name).__doc__.splitlines()[0]
        # mypy 1.0's stubdoc does not know a bare `*` (keyword-only marker)
        kwonly_at = first.count(",", 0, first.find(", *,")) if ", *," in first else None
        sigs = infer_sig_from_docstring(first.replace(", *,", ","), name)
        assert sigs, (name, first)
        bound = [a.name for a in sigs[0].args]
        stub = [a.arg for a in fn.args.args] + [a.arg for a in fn.args.kwonlyargs]
        if "**kwargs" in bound:
            # the binding takes the cache tunables as **kwargs checked against the spec's
            # table; the stub spells them out (generated): exactly the spec's tunables
            bound.remove("**kwargs")
            assert [a for a in stub if a in tunable_names] == tunable_names, (name, stub)
            stub = [a for a in stub if a not in tunable_names]
        assert stub == bound, (name, stub, bound)
        if kwonly_at is not None:
            # the same parameters are keyword-only: after `self` and the positionals
            assert len(fn.args.args) == kwonly_at + 1, (name, kwonly_at)
        checked += 1
    assert checked >= 15        # every method of the binding, not a few


def test_pip_metadata(installed):
    r = run_python("-m", "pip", "show", "slablab")
    assert r.returncode == 0, r.stderr
    assert f"Version: {_project_version()}" in r.stdout


def test_shape_literals_are_the_spec_enums():
    """The Literal types of slablab.shapes name exactly the values the tool writes: the
    extension's tuples (libslabctl's name tables) and, for the owner, the spec's enum."""
    import typing

    import slablab
    from slablab import protocol, shapes
    assert typing.get_args(shapes.Design) == slablab.DESIGNS
    assert typing.get_args(shapes.Fastpath) == slablab.FASTPATHS
    assert typing.get_args(shapes.PagePolicy) == slablab.PAGE_POLICIES
    # storms and replays share one target enum, named by both
    targets = tuple(n[len("SLABLAB_TARGET_"):].lower().replace("_", "-")
                    for n in protocol.ENUMS["slablab_target"] if not n.startswith("__"))
    assert typing.get_args(shapes.Target) == slablab.TARGETS == targets
    assert typing.get_args(shapes.StormTarget) == slablab._core.STORM_TARGETS
    assert typing.get_args(shapes.StormPattern) == slablab._core.STORM_PATTERNS
    assert typing.get_args(shapes.StormState) == slablab._core.STORM_STATES
    assert typing.get_args(shapes.ReplayTarget) == slablab._core.REPLAY_TARGETS
    owners = tuple(n[len("SLABLAB_OWNER_"):].lower() for n in protocol.ENUMS["slablab_owner"]
                   if not n.startswith("__"))
    assert typing.get_args(shapes.Owner) == owners == ("netlink", "kernel", "kmalloc")

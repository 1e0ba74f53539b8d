# SPDX-License-Identifier: GPL-2.0
"""Fixtures for the VM suite: it runs inside the test kernel, as root, with slablab.ko
loaded by scripts/vm.sh, the host's userland and the build tree mounted over 9p."""
import itertools
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests"))
import skip_policy  # noqa: E402
from skip_policy import (pytest_collectreport, pytest_runtest_logreport,  # noqa: E402,F401
                         pytest_runtest_logstart, pytest_sessionfinish,
                         pytest_terminal_summary)

try:
    import slablab
except ImportError as e:
    pytest.exit(f"conftest: slablab is not installed for {sys.executable} ({e}): run make, "
                "and the tests with build/venv/bin/python (docs/testing.md)", returncode=4)

from helpers import DESIGN_VARIANTS, ExactClient, slabctl  # noqa: E402


# Cases that are about slabs of fixed-size slots or a per-cpu layer: slob has neither
# (docs/design.md, "The slob design"). Such a test says so with
# @pytest.mark.not_slob("why"), and its slob instances are not collected (deselected,
# not skipped: nothing is missing, the case does not exist for that design).
def pytest_configure(config):
    config.addinivalue_line("markers", "not_slob(why): the case cannot apply to slob")
    skip_policy.pytest_configure(config)


def pytest_collection_modifyitems(config, items):
    skip_policy.pytest_collection_modifyitems(config, items)
    keep, dropped = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.get_closest_marker("not_slob") and params.get("design") == "slob":
            dropped.append(item)
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
    # test_reload.py runs after every other file but test_kmemleak.py, whatever order the
    # files were given in: it unloads the module with live caches and handles and loads
    # it again (with selftests=1 for its hooks, then without), so every Client made
    # before it is stale afterwards (a new generic netlink family id) and every cache,
    # handle and storm is gone. The client fixture is per file, so a later file would get
    # a fresh Client, but a session fixture holding a Client, or a failure between an
    # rmmod and its insmod (no module at all), would break what runs after it: last, what
    # goes wrong there stays its own. test_kmemleak.py goes after it (scripts/test.sh
    # gives it last): its scans cover the whole session, the unload included.
    last = ("test_reload.py", "test_kmemleak.py")
    items[:] = sorted(items, key=lambda item: last.index(item.path.name) + 1
                      if item.path.name in last else 0)


_names = itertools.count()


@pytest.fixture(scope="module")
def client():
    """A Client per test file: a file that reloads the module (test_storms.py's unload
    tests, test_reload.py) leaves earlier Clients with a stale family id, and no
    other file may depend on running before it. Its cache_get() counts the layers
    exactly (helpers.ExactClient)."""
    return ExactClient()


@pytest.fixture(scope="session")
def ncpus():
    return os.cpu_count()


@pytest.fixture
def no_storm_left(client):
    """A failed test must not leave a storm running into the next one (storm test files
    use it for every test: pytestmark)."""
    yield
    try:
        if client.storm_get()["state"] == "running":
            client.storm_stop()
    except slablab.Error:       # no storm yet, or a stale client after the unload tests
        pass


@pytest.fixture(params=DESIGN_VARIANTS)
def design(request):
    """The design of the caches a test makes with make_cache: every test that is about
    caches runs once per design. A test about one design's own mechanism pins it
    (@pytest.mark.parametrize("design", ["slub"])); one that varies it itself
    parametrizes `design` as it needs."""
    return request.param


@pytest.fixture
def make_cache(client, design):
    """make_cache(size, **tunables) -> name, of the test's design unless the tunables
    name one; every cache made is destroyed afterwards, after its handles are freed,
    and must validate clean first."""
    made = []

    def make(size, **tunables):
        name = f"t{next(_names)}-{size}"
        tunables.setdefault("design", design)
        if tunables["design"] == design:
            for key, value in getattr(design, "tunables", {}).items():
                tunables.setdefault(key, value)
        tunables["design"] = str(tunables["design"])
        client.cache_create(name, size, **tunables)
        made.append(name)
        return name

    yield make
    for name in made:
        report = client.cache_validate(name)
        assert report["errors"] == 0, report
        client.cache_destroy(name)


@pytest.fixture(scope="session")
def tar_recording(tmp_path_factory):
    """One recording of `tar cf /dev/null /etc` (slabctl record) for the session's
    replay tests: (path, record's stderr)."""
    path = tmp_path_factory.mktemp("recording") / "tar.trace"
    r = slabctl("record", "-o", path, "--buffer-kb", "8192", "--",
                "tar", "cf", "/dev/null", "/etc")
    assert "recorded" in r.stderr, r.stderr
    return path, r.stderr

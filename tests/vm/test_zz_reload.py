# SPDX-License-Identifier: GPL-2.0
"""Runs last (file order): unload with live caches and handles, reload with the test
hooks, and check the debug mode catches double free, write after free and overflow."""
import subprocess

import pytest

import slablab
from conftest import DEBUGFS, MODULE, dbg, slabctl


def kmsg_mark():
    return subprocess.run(["dmesg"], capture_output=True, text=True).stdout.count("\n")


def kmsg_since(mark):
    return "\n".join(subprocess.run(["dmesg"], capture_output=True,
                                    text=True).stdout.splitlines()[mark:])


def reload(*params):
    subprocess.run(["rmmod", "slablab"], check=True, capture_output=True)
    subprocess.run(["insmod", MODULE, *params], check=True, capture_output=True)
    return slablab.Client()


def test_unload_with_live_caches_and_handles():
    c = slablab.Client()
    c.cache_create("left-behind", 256)
    c.obj_alloc("left-behind", 5000, cpu=0)
    subprocess.run(["rmmod", "slablab"], check=True, capture_output=True)
    with pytest.raises(slablab.ModuleNotLoaded):
        slablab.Client()
    r = slabctl("version", check=False)
    assert r.returncode == 3 and "not loaded" in r.stderr
    subprocess.run(["insmod", MODULE], check=True, capture_output=True)
    assert "left-behind" not in {x["name"] for x in slablab.Client().cache_list()}


def test_selftest_hooks_are_off_by_default(client):
    with pytest.raises(OSError):
        slablab.Client().selftest_warn()


@pytest.fixture(scope="module")
def hooked():
    c = reload("selftests=1")
    yield c
    reload()


@pytest.mark.parametrize("op,message", [("double_free", "double free"),
                                        ("use_after_free", "write after free"),
                                        ("overflow", "red zone overwritten")])
def test_debug_detects_corruption(hooked, op, message):
    name = f"dbg-{op}"
    hooked.cache_create(name, 96, debug=True)
    mark = kmsg_mark()
    with open(f"{DEBUGFS}/caches/{name}/selftest", "w") as f:
        f.write(op)
    log = kmsg_since(mark)
    assert f"cache {name}: {message}" in log, log
    report = hooked.cache_validate(name)
    assert report["errors"] >= 1
    hooked.cache_destroy(name)


def test_corruption_hooks_refuse_non_debug_caches(hooked):
    hooked.cache_create("nodebug", 96)
    with pytest.raises(OSError):
        with open(f"{DEBUGFS}/caches/nodebug/selftest", "w") as f:
            f.write("double_free")
    assert hooked.cache_validate("nodebug")["errors"] == 0
    hooked.cache_destroy("nodebug")


def test_destroy_refuses_while_objects_live(hooked):
    hooked.cache_create("held", 64)
    with open(f"{DEBUGFS}/caches/held/selftest", "w") as f:
        f.write("hold")
    with pytest.raises(slablab.Busy) as e:
        hooked.cache_destroy("held")
    assert "1 objects" in str(e.value) and e.value.errno == 16
    assert dbg("held", "objects") == "1"
    with open(f"{DEBUGFS}/caches/held/selftest", "w") as f:
        f.write("release")
    hooked.cache_destroy("held")

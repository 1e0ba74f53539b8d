# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Host tests of slabctl and the slablab Python package: no kernel module needed.

On a build host the generic netlink family "slablab" does not exist, which is the
"module not loaded" case these tests check. Run:

    build/venv/bin/python -m pytest tests/host   # SLABLAB_BUILD=<build dir>, default build/

The slablab package is imported as installed (`make` installs it into build/venv).
"""

import errno
import json
import os
import pathlib
import pickle
import re
import subprocess
import sys
from typing import Dict, Union

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("SLABLAB_BUILD", REPO / "build")).resolve()
SKIP_PYTHON = os.environ.get("SLABLAB_SKIP_PYTHON") == "1"
MODULE_LOADED = pathlib.Path("/sys/module/slablab").exists()


def _project_version():
    text = (REPO / "CMakeLists.txt").read_text()
    m = re.search(r"project\(\s*slablab\s+VERSION\s+([0-9.]+)", text)
    assert m, "project(slablab VERSION x.y.z) not found in CMakeLists.txt"
    return m.group(1)


VERSION = _project_version()


def _find_slabctl():
    for p in (BUILD / "tool" / "slabctl", BUILD / "slabctl"):
        if p.is_file() and os.access(p, os.X_OK):
            return p
    pytest.exit(f"slabctl not found under {BUILD}: build first, or set SLABLAB_BUILD", 1)


SLABCTL = _find_slabctl()

no_module = pytest.mark.skipif(MODULE_LOADED, reason="the slablab module is loaded here")
needs_python = pytest.mark.skipif(SKIP_PYTHON, reason="built without SLABLAB_BUILD_PYTHON")


def slabctl(*args):
    return subprocess.run(
        [str(SLABCTL), *args], capture_output=True, text=True, timeout=60, check=False
    )


def assert_module_not_loaded_message(text):
    assert 'generic netlink family "slablab" not found' in text
    assert "not loaded" in text
    assert "insmod module/slablab.ko" in text
    assert "modprobe slablab" in text


# ---------------------------------------------------------------- help ----

SUBCOMMANDS = [
    ["version"],
    ["status"],
    ["info"],
    ["create"],
    ["destroy"],
    ["set"],
    ["shrink"],
    ["validate"],
    ["reset"],
    ["alloc"],
    ["free"],
    ["lab"],
    ["lab", "page-policy"],
    ["lab", "show"],
    ["lab", "set"],
    ["storm"],
    ["storm", "start"],
    ["storm", "show"],
    ["storm", "stop"],
    ["set-kmalloc"],
    ["storm-status"],
    ["compare"],
    ["watch"],
]


def test_help():
    r = slabctl("--help")
    assert r.returncode == 0, r.stderr
    assert "Usage:" in r.stdout
    for sub in SUBCOMMANDS:
        if len(sub) == 1:
            assert f"\n  {sub[0]} " in r.stdout
    # the exit statuses are documented in --help
    for line in ("0  success", "2  bad usage", "3  the slablab kernel module is not loaded",
                 "4  permission denied"):
        assert line in r.stdout
    assert r.stderr == ""


@pytest.mark.parametrize("sub", SUBCOMMANDS, ids=" ".join)
def test_subcommand_help(sub):
    r = slabctl(*sub, "--help")
    assert r.returncode == 0, r.stderr
    assert "Usage:" in r.stdout
    assert "Exit status:" in r.stdout
    assert r.stderr == ""


def test_version_flag():
    r = slabctl("--version")
    assert r.returncode == 0
    assert r.stdout.strip() == f"slabctl {VERSION}"


def test_help_shows_limits_from_the_uapi_header():
    header = (REPO / "uapi" / "linux" / "slablab.h").read_text()
    m = re.search(r"#define\s+SLABLAB_MAX_ORDER\s+(\d+)", header)
    assert m
    assert f"0..{m.group(1)}" in slabctl("create", "--help").stdout


# --------------------------------------------------------- bad usage: 2 ----

BAD_USAGE = [
    (["bogus"], "bogus"),
    (["--nope"], "--nope"),
    (["create", "x"], "--size"),
    (["create", "x", "--size", "12q"], "12q"),
    (["create", "bad name!", "--size", "64"], "bad name!"),
    (["create", "x" * 40, "--size", "64"], "too long"),
    (["create", "x", "--size", "64", "--fastpath", "turbo"], "turbo"),
    (["create", "x", "--size", "64", "--min-partial", "-1"], "min_partial"),
    (["destroy"], "NAME"),
    (["set", "x"], "KEY=VALUE"),
    (["set", "x", "colour=blue"], "unknown key 'colour'"),
    (["set", "x", "debug=maybe"], "debug"),
    (["set", "x", "order=1", "order=2"], "more than once"),
    (["alloc", "x", "0"], "count 0 is out of range"),
    (["alloc", "x", "-5"], "COUNT"),
    (["alloc", "x", "abc"], "COUNT"),
    (["alloc", "x"], "COUNT"),
    (["free"], "HANDLE"),
    (["free", "1", "--count", "0"], "count 0 is out of range"),
    (["lab"], "subcommand"),
    (["lab", "page-policy", "turbo"], "turbo"),
    (["info", "-S", "-A"], "excludes"),
    (["info", "-r", "bad/name"], "bad/name"),
    (["validate", "a", "b"], "b"),
    # fault injection left netlink for debugfs (caches/<name>/fail_slab_every)
    (["set", "x", "fail_slab_every=1"], "unknown key 'fail_slab_every'"),
    (["lab", "selftest-warn"], "A subcommand is required"),
    # storm: checked on the host, before the kernel is asked
    (["storm"], "subcommand"),
    (["storm", "slablab"], "PATTERN"),
    (["storm", "slub", "pair"], "slub"),
    (["storm", "slablab", "zigzag"], "zigzag"),
    (["storm", "slablab", "pair"], "needs a cache"),
    (["storm", "slablab", "pair", "-c", "t64", "--size", "64"], "no size"),
    (["storm", "native", "pair"], "--size"),
    (["storm", "kmalloc", "pair", "-c", "t64"], "not a cache"),
    (["storm", "kmalloc", "bulk", "--size", "64"], "bulk needs a cache target"),
    (["storm", "kmalloc", "pair", "--sizes", "64:0"], "weight"),
    (["storm", "kmalloc", "pair", "--sizes", "64:1,,2"], "empty entry"),
    (["storm", "kmalloc", "pair", "--size", "64", "--sizes", "64"], "not both"),
    (["storm", "slablab", "pair", "-c", "t64", "--threads", "1,2"], "not one number"),
    (["storm", "slablab", "pair", "-c", "t64", "--cpus", "0-x"], "cpu list"),
    (["storm", "slablab", "pair", "-c", "t64", "--cpus", "3-1"], "backwards"),
    (["storm", "slablab", "pair", "-c", "t64", "--ops", "lots"], "--ops"),
    # counts and sizes are read by CLI11's unit validators (tool/cli/options.cpp)
    (["storm", "slablab", "pair", "-c", "t64", "--ops", "k"], "'k' is not a count"),
    (["storm", "slablab", "pair", "-c", "t64", "--ops", "1.5k"], "'1.5k' is not a count"),
    (["storm", "slablab", "pair", "-c", "t64", "--ops", "-1"], "'-1' is not a count"),
    (["storm", "slablab", "pair", "-c", "t64", "--ops", "99999999999G"], "99999999999G"),
    (["create", "x", "--size", "K"], "'K' is not a size"),
    (["create", "x", "--size", "1.5K"], "'1.5K' is not a size"),
    # a raw number is sent (the kernel's policy judges it); a word must be a name
    (["create", "x", "--size", "64", "--fastpath", "fast"], "fastpath: 'fast' is not one of"),
    # numbers are decimal, or hex with 0x, as in KEY=VALUE: CLI11 alone reads 010 as octal 8
    # (ranges are the kernel's: test_slabctl.py::test_numbers_are_decimal reads them back)
    (["create", "x", "--size", "010q"], "'010q' is not a size"),
    (["alloc", "x", "010000000"], "count 10000000 is out of range"),
    (["storm", "slablab", "pair", "-c", "t64", "--ops", "10", "--duration", "1s"], "not both"),
    (["storm", "slablab", "pair", "-c", "t64", "--duration", "2h"], "--duration"),
    (["storm", "slablab", "pair", "-c", "t64", "--ring", "100"], "power of two"),
    (["storm", "slablab", "pair", "-c", "t64", "--max-live", "lots"], "--max-live"),
    (["storm", "slablab", "pair", "-c", "t64", "--seed", "-3"], "--seed"),
    (["storm", "slablab", "pair", "-c", "bad/name"], "bad/name"),
    (["storm-status", "x"], "ID"),
    # compare
    (["compare"], "PATTERN"),
    (["compare", "pair", "--target", "slub"], "slub"),
    (["compare", "pair", "-c", "t64", "--target", "native", "--target", "native"], "twice"),
    (["compare", "pair", "-c", "t64", "--repeat", "0"], "repeat 0"),
    (["compare", "pair", "-c", "t64", "--set", "colour=red"], "colour"),
    (["compare", "pair", "--size", "64", "--set", "cpu_partial=0"], "--cache"),
    (["compare", "pair", "-c", "t64", "--target", "native", "--set", "cpu_partial=0"],
     "applies to target slablab"),
    (["compare", "pair", "-c", "t64", "--threads", "1,0"], "threads 0"),
    (["compare", "pair", "-c", "t64", "--figure", "speed"], "unknown figure"),
    (["compare", "pair", "--target", "kmalloc"], "needs --size"),
    (["compare", "remote", "-c", "t64", "--ring", "3"], "power of two"),
    # watch
    (["watch", "--interval", "0"], "interval"),
    (["watch", "--interval", "soon"], "interval"),
    (["watch", "--count", "x"], "count"),
]


# ------------------------------------------- object then verb; the old spellings ----
# Commands are object then verb (`storm start`, `lab set`); the flat spellings they
# replaced are deprecated aliases until 1.0 (docs/slabctl.md, "Deprecated spellings").
# The storm command lines here are written `storm TARGET PATTERN`: each runs in both
# spellings, `storm start TARGET PATTERN` and the alias.

VERBS = {"lab": ("show", "set", "page-policy"), "storm": ("start", "show", "stop")}


def storm_start(args):
    """`storm TARGET …` as `storm start TARGET …`; any other command line as it is."""
    if args[:1] == ["storm"] and len(args) > 1 and args[1] not in VERBS["storm"]:
        return ["storm", "start", *args[1:]]
    return list(args)


def with_storm_start(command_lines):
    """The command lines and, after them, the `storm start` spelling of each bare
    `storm` one."""
    return [*command_lines, *(storm_start(a) for a in command_lines if storm_start(a) != a)]


def command_of(args):
    """The "command" of the JSON documents of `slabctl ARGS`: the command and its verb
    as typed ("storm start", "lab page-policy"; "storm" for the alias without one)."""
    if not args or args[0].startswith("-") or args[0] == "bogus":
        return None
    if len(args) > 1 and args[1] in VERBS.get(args[0], ()):
        return f"{args[0]} {args[1]}"
    return args[0]


BAD_USAGE += [(storm_start(args), needle) for args, needle in BAD_USAGE
              if storm_start(args) != args]
BAD_USAGE += [
    (["storm", "start"], "TARGET"),
    (["storm", "start", "native"], "PATTERN"),
    (["storm", "show", "x"], "ID"),
    (["storm", "stop", "x"], "ID"),
    (["storm", "stop", "--stop"], "--stop"),
    (["lab", "show", "x"], "x"),
    (["lab", "set"], "KEY=VALUE"),
    (["lab", "set", "colour=red"], "unknown key 'colour'"),
    (["lab", "set", "kmalloc_design"], "not KEY=VALUE"),
    (["lab", "set", "kmalloc_design="], "no value"),
    (["lab", "set", "kmalloc_design=zigzag"], "'zigzag' is not one of slub, sheaves"),
    (["lab", "set", "kmalloc_lists=x"], "'x' is not a number"),
    (["lab", "set", "kmalloc_lists=1", "kmalloc-lists=2"], "more than once"),
    (["lab", "set", "kmalloc_page_policy=turbo"], "'turbo' is not one of slab, page_alloc"),
    (["set-kmalloc", "design=zigzag"], "unknown design 'zigzag'"),
    (["set-kmalloc", "colour=red"], "unknown key 'colour'"),
]


# Values within their C type but outside the kernel's ranges are sent: the kernel's policy
# is the only judge of ranges (uapi/slablab.yaml; tests/vm/test_slabctl.py shows the
# policy it returns). On the host no module is loaded, so they get that far and no further.
OUT_OF_KERNEL_RANGE = [
    ["create", "x", "--size", "3"],
    ["create", "x", "--size", "64", "--order", "9"],
    ["create", "x", "--size", "64", "--align", "24"],
    ["create", "x", "--size", "64", "--cpu-partial", "70000"],
    ["set", "x", "order=99"],
    ["set", "x", "min_partial=5000"],
    ["storm", "slablab", "pair", "-c", "t64", "--threads", "0"],
    ["storm", "slablab", "pair", "-c", "t64", "--duration", "11m"],
    ["storm", "slablab", "pair", "-c", "t64", "--batch", "0"],
    ["storm", "slablab", "pair", "-c", "t64", "--working-set", "5M"],
]


@pytest.mark.parametrize("args", with_storm_start(OUT_OF_KERNEL_RANGE), ids=" ".join)
def test_ranges_are_the_kernels(args):
    r = slabctl(*args)
    assert r.returncode == 3 and "not loaded" in r.stderr, (r.returncode, r.stderr)


@pytest.mark.parametrize("args,needle", BAD_USAGE, ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_bad_usage_exits_2(args, needle):
    r = slabctl(*args)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert needle in r.stderr, r.stderr
    assert r.stdout == ""


def test_record_output_directory_that_cannot_take_the_spool(tmp_path):
    """The spool beside the output is made before anything is traced or run: a directory
    that cannot take it fails at once (no tracefs needed), naming the path and the errno."""
    out = tmp_path / "missing" / "x.trace"
    r = slabctl("record", "-o", str(out), "--", "touch", str(tmp_path / "ran"))
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert f"cannot create the spool {out}.spool.XXXXXX: No such file or directory" in r.stderr
    assert not (tmp_path / "ran").exists() and os.listdir(tmp_path) == []


# ------------------------------------------------ module not loaded: 3 ----


@no_module
def test_version_without_module():
    r = slabctl("version")
    assert r.returncode == 3, r
    assert r.stdout == f"slabctl {VERSION}\n"
    assert_module_not_loaded_message(r.stderr)


@no_module
def test_version_json_without_module():
    r = slabctl("version", "--json")
    assert r.returncode == 3
    doc = json.loads(r.stdout)
    assert doc["schema"] == "slablab/1"
    assert doc["command"] == "version"
    assert doc["slabctl"] == VERSION
    assert doc["module"] is None
    assert_module_not_loaded_message(r.stderr)


NEEDS_MODULE = with_storm_start([
    [],
    ["info"],
    ["info", "-D", "t*"],
    ["info", "-r", "t64"],
    ["info", "--json"],
    ["status"],
    ["status", "--json"],
    ["create", "t64", "--size", "64", "--debug"],
    ["destroy", "t64"],
    ["set", "t64", "order=1", "debug=1"],
    ["shrink", "t64"],
    ["validate", "t64"],
    ["reset", "t64"],
    ["alloc", "t64", "10", "--cpu", "0"],
    ["free", "1", "--count", "5"],
    ["lab", "page-policy", "page_alloc"],
    ["storm", "slablab", "pair", "-c", "t64", "--ops", "10k"],
    ["storm", "native", "remote", "--size", "192", "--threads", "2", "--json"],
    ["storm", "kmalloc", "churn", "--sizes", "64:3,192:1", "--duration", "500ms"],
    ["storm-status"],
    ["storm-status", "3", "--stop"],
    ["storm", "show"],
    ["storm", "show", "3", "--json"],
    ["storm", "stop"],
    ["lab", "show"],
    ["lab", "show", "--json"],
    ["lab", "set", "kmalloc_page_policy=page_alloc"],
    ["lab", "set", "kmalloc-design=slob", "kmalloc-lists=2", "--json"],
    ["set-kmalloc", "design=slob", "lists=2"],
    ["compare", "pair", "-c", "t64", "--repeat", "3"],
    ["compare", "pair", "-c", "t64", "--set", "cpu_partial=0", "--set", "cpu_partial=120"],
    ["compare", "batch", "--target", "kmalloc", "--target", "native-kmalloc", "--size", "64"],
    ["watch", "--count", "1"],
])


@no_module
@pytest.mark.parametrize("args", NEEDS_MODULE, ids=lambda a: " ".join(a) or "(none)")
def test_commands_without_module_exit_3(args):
    r = slabctl(*args)
    assert r.returncode == 3, (r.returncode, r.stdout, r.stderr)
    assert_module_not_loaded_message(r.stderr)
    assert r.stdout == ""


# ----------------------------------------------- the deprecated spellings ----

# (command line, what the notice calls it, what it says to use instead)
ALIASES = [
    (["storm", "native", "pair", "--size", "64"], "storm …", "storm start …"),
    (["storm-status"], "storm-status", "storm show"),
    (["storm-status", "3", "--stop"], "storm-status --stop", "storm stop"),
    (["lab", "page-policy", "page_alloc"], "lab page-policy",
     "lab set kmalloc_page_policy=page_alloc"),
    (["set-kmalloc", "design=slob", "lists=2"], "set-kmalloc",
     "lab set kmalloc_design=slob kmalloc_lists=2"),
]


def deprecation_notice(old, instead):
    return f"slabctl: '{old}' is deprecated, use '{instead}'; the old spelling goes in 1.0"


def test_help_lists_object_then_verb():
    """--help: the groups and their verbs; the old spellings say they are deprecated and
    what to use instead."""
    top = slabctl("--help").stdout
    line = {m.group(1): m.group(2) for m in re.finditer(r"^  (\S+) +(.*)$", top, re.M)}
    assert line["storm-status"].startswith("Deprecated, use 'storm show' (goes in 1.0)")
    assert line["set-kmalloc"].startswith("Deprecated, use 'lab set kmalloc_design=")
    assert "'storm TARGET PATTERN' is 'storm start' (deprecated" in line["storm"]
    for group, verbs in VERBS.items():
        out = slabctl(group, "--help").stdout
        listed = re.findall(r"^  ([a-z-]+) +(.*)$", out.split("Subcommands:")[1], re.M)
        assert [v for v, _ in listed] == list(verbs), out
        for verb, text in listed:
            assert text.startswith("Deprecated") == (verb == "page-policy"), text


@no_module
@pytest.mark.parametrize("args,old,instead", ALIASES, ids=lambda v: " ".join(v)
                         if isinstance(v, list) else None)
def test_old_spellings_still_work(args, old, instead):
    """An alias runs as it always did (here: as far as a host without the module lets it),
    after one notice on standard error in text mode; under -j, -p or the command's
    --json nothing more is printed, and the error document names the old command."""
    r = slabctl(*args)
    assert r.returncode == 3 and r.stdout == "", (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert lines[0] == deprecation_notice(old, instead)
    assert sum("deprecated" in s for s in lines) == 1, r.stderr
    assert_module_not_loaded_message(r.stderr)
    for flags in (["-j"], ["-p"]):
        r = slabctl(*flags, *args)
        assert r.returncode == 3 and r.stdout == "" and "deprecated" not in r.stderr
        assert json.loads(r.stderr)["command"] == command_of(args)
    if args[0] == "storm-status":
        assert "deprecated" not in slabctl(*args, "--json").stderr


@pytest.mark.parametrize("args", [storm_start(ALIASES[0][0]), ["storm", "show"],
                                  ["storm", "stop"], ["lab", "show"],
                                  ["lab", "set", "kmalloc_lists=1"]], ids=" ".join)
def test_new_spellings_print_no_notice(args):
    r = slabctl(*args)
    assert r.returncode in (0, 3, 4) and "deprecated" not in r.stderr, r.stderr


def test_storm_without_a_verb_or_target():
    """`storm` alone asks for a verb; `storm --help` is the group's; `storm TARGET` is the
    alias, whose own messages keep the "storm: " prefix."""
    r = slabctl("storm")
    assert r.returncode == 2 and "A subcommand is required" in r.stderr
    assert "start" in slabctl("storm", "--help").stdout
    r = slabctl("storm", "kmalloc", "pair", "-c", "t64")
    assert r.returncode == 2 and "slabctl: storm: target kmalloc" in r.stderr, r.stderr
    r = slabctl("storm", "start", "kmalloc", "pair", "-c", "t64")
    assert r.returncode == 2 and "slabctl: storm: start: target kmalloc" in r.stderr


def test_info_exact_only_where_layers_show():
    """`info --exact` counts the objects per layer, which only -r, -j and --slabinfo
    show: the table alone refuses it (a no-op otherwise), as does -r NAME --native."""
    r = slabctl("info", "--exact")
    assert r.returncode == 2 and "--exact counts the objects per layer" in r.stderr, r.stderr
    r = slabctl("info", "--exact", "--native", "-r", "kmalloc-64")
    assert r.returncode == 2 and "--exact is for slablab caches" in r.stderr, r.stderr


# ------------------------------------------------------------- Python ----


@pytest.fixture(scope="module")
def slablab():
    if SKIP_PYTHON:
        pytest.skip("built without SLABLAB_BUILD_PYTHON")
    import slablab as mod     # installed: tests/host/test_package.py checks where from
    return mod


@needs_python
def test_package_version_is_the_projects(slablab):
    assert slablab.__version__ == VERSION


def test_version(slablab):
    assert slablab.__version__ == VERSION
    assert slablab._core.__version__ == VERSION
    assert slablab.API_VERSION == 1
    assert slablab.JSON_SCHEMA == "slablab/1"


@no_module
def test_client_without_module(slablab):
    with pytest.raises(slablab.ModuleNotLoaded) as info:
        slablab.Client()
    e = info.value
    assert isinstance(e, RuntimeError)
    assert isinstance(e, slablab.Error)
    assert_module_not_loaded_message(str(e))
    assert e.errno == errno.ENOENT
    assert e.op == "GETFAMILY"
    assert e.extack == ""
    # the subclass with cache() and the bare binding behave the same
    with pytest.raises(slablab.ModuleNotLoaded):
        slablab._core.Client(host_checks=False)


def test_constants(slablab):
    assert len(slablab.STAT_NAMES) == 60
    assert slablab.STAT_NAMES[55] == "free_rcu" and slablab.STAT_NAMES[59] == "rcu_slab_deferred"
    assert slablab.STAT_NAMES[0] == "alloc_fastpath"
    assert slablab.STAT_NAMES[25] == "cpu_partial_drain"
    assert slablab.STAT_NAMES[33] == "barn_put_fail"
    assert slablab.STAT_NAMES[34] == "allochit" and slablab.STAT_NAMES[45] == "maxfreeable"
    assert slablab.STAT_NAMES[46] == "sheaf_prefill_fast"
    assert slablab.STAT_NAMES[50] == "sheaf_return_slow"
    assert slablab.STAT_NAMES[54] == "slob_header_bytes"
    assert "cmpxchg_double_cpu_fail" in slablab.STAT_NAMES
    assert slablab.CACHE_FLAGS == ("debug", "hardened", "random", "hwcache_align",
                                   "typesafe_by_rcu")
    assert slablab.FASTPATHS == ("cmpxchg", "irqoff")
    assert slablab.PAGE_POLICIES == ("slab", "page_alloc")
    assert "cmpxchg_double" in slablab.FEATURES
    header = (REPO / "uapi" / "linux" / "slablab.h").read_text()
    for key, macro in [("max_order", "SLABLAB_MAX_ORDER"), ("min_size", "SLABLAB_MIN_SIZE"),
                       ("max_align", "SLABLAB_MAX_ALIGN")]:
        m = re.search(rf"#define\s+{macro}\s+(\d+)\b", header)
        assert m and slablab.LIMITS[key] == int(m.group(1)), key
    assert slablab.format_size(4096) == "4.0K"
    assert slablab.format_size(1228800) == "1.2M"


EXCEPTIONS = [
    (errno.EPERM, "PermissionDenied", PermissionError),
    (errno.EACCES, "PermissionDenied", PermissionError),
    (errno.ENOENT, "NotFound", FileNotFoundError),
    (errno.EEXIST, "AlreadyExists", FileExistsError),
    (errno.EINVAL, "InvalidArgument", ValueError),
    (errno.ERANGE, "InvalidArgument", ValueError),
    (errno.EBUSY, "Busy", RuntimeError),
    (errno.ENOMEM, "OperationFailed", OSError),
    (errno.EOPNOTSUPP, "OperationFailed", OSError),
]


@pytest.mark.parametrize("err,name,builtin", EXCEPTIONS, ids=lambda v: str(v))
def test_exception_mapping(slablab, err, name, builtin):
    e = slablab.errors._make("CACHE_NEW: boom: kernel says no", err, "CACHE_NEW", "kernel says no")
    assert type(e) is getattr(slablab, name)
    assert isinstance(e, builtin)
    assert isinstance(e, slablab.Error)
    assert str(e) == "CACHE_NEW: boom: kernel says no"
    assert (e.errno, e.op, e.extack) == (err, "CACHE_NEW", "kernel says no")
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is type(e) and str(again) == str(e) and again.errno == err
    nl = slablab.errors._make("gone", errno.ENOENT, "GETFAMILY", "", True)
    assert type(nl) is slablab.ModuleNotLoaded and not isinstance(nl, OSError)


def test_docstrings(slablab):
    core = slablab._core
    assert core.__doc__
    public = [n for n in dir(core.Client) if not n.startswith("_")]
    for expected in ["version", "status", "cache_create", "cache_destroy", "cache_get",
                     "cache_list", "cache_set", "cache_shrink", "cache_validate",
                     "cache_reset_stats", "obj_alloc", "obj_free", "set_page_policy",
                     "family_id", "host_checks", "storm_start",
                     "storm_get", "storm_stop", "storm", "compare"]:
        assert expected in public
    assert "selftest_warn" not in public        # a debugfs test hook now, not netlink
    for n in public:
        doc = getattr(core.Client, n).__doc__
        assert doc and doc.strip(), f"_core.Client.{n} has no docstring"
    assert core.format_size.__doc__
    assert core.summarize.__doc__ and core.main_figures.__doc__
    # every storm keyword is named in the storm docstrings
    for n in ("storm_start", "storm"):
        doc = getattr(core.Client, n).__doc__
        for kw in ("cache", "size", "sizes", "threads", "cpus", "ops", "duration_ms", "batch",
                   "working_set", "ring", "seed", "max_live_bytes"):
            assert kw in doc, (n, kw)
    assert "KeyboardInterrupt" in core.Client.storm.__doc__
    assert slablab.Client.__doc__ and slablab.Client.cache.__doc__
    for cls in (slablab.Cache, slablab.Error, slablab.ModuleNotLoaded, slablab.Busy):
        assert cls.__doc__


class FakeClient:
    """Stands in for slablab.Client in the Cache tests: records calls."""

    def __init__(self, slablab, destroy_error=None):
        self.calls = []
        self.next_handle = 1
        self.slablab = slablab
        self.destroy_error = destroy_error

    def cache_create(self, name, size, **tunables):
        self.calls.append(("create", name, size, tunables))
        return {"name": name, "size": size}

    def obj_alloc(self, name, count, cpu=None):
        h = self.next_handle
        self.next_handle += 1
        self.calls.append(("alloc", name, count, cpu))
        return h

    def obj_free(self, handle, cpu=None, count=None):
        self.calls.append(("free", handle, cpu, count))
        return 0 if count is None else 5

    def cache_destroy(self, name):
        self.calls.append(("destroy", name))
        if self.destroy_error:
            raise self.destroy_error

    def cache_get(self, name, percpu=True):
        return {"name": name, "stats": {"alloc_fastpath": 7}, "gauges": {"slabs": 1}}


def test_cache_context_manager(slablab):
    fake = FakeClient(slablab)
    with slablab.Cache(fake, "t64", 64, cpu_partial=0) as c:
        assert c.info == {"name": "t64", "size": 64}
        h1 = c.alloc(10)
        h2 = c.alloc(20, cpu=1)
        assert c.free(h1, count=5) == 5  # still held: freed on exit
        assert c.free(h2) == 0           # released: not freed again
        assert c.stats["alloc_fastpath"] == 7
        assert c.gauges["slabs"] == 1
    assert fake.calls == [
        ("create", "t64", 64, {"cpu_partial": 0}),
        ("alloc", "t64", 10, None),
        ("alloc", "t64", 20, 1),
        ("free", 1, None, 5),
        ("free", 2, None, None),
        ("free", 1, None, None),
        ("destroy", "t64"),
    ]


def test_cache_keeps_the_body_exception(slablab):
    fake = FakeClient(slablab, destroy_error=slablab.Busy("CACHE_DEL: busy", errno.EBUSY, "CACHE_DEL", ""))
    with pytest.raises(KeyError) as info:
        with slablab.Cache(fake, "t64", 64):
            raise KeyError("body")
    notes = getattr(info.value, "__notes__", [])
    if sys.version_info >= (3, 11):
        assert any("CACHE_DEL: busy" in n for n in notes)
    # without an exception in the body, the cleanup error is raised
    with pytest.raises(slablab.Busy):
        with slablab.Cache(fake, "t64", 64):
            pass


def test_storm_constants(slablab):
    assert slablab.STORM_TARGETS == ("slablab", "native", "kmalloc", "native-kmalloc")
    assert slablab.STORM_PATTERNS == ("pair", "batch", "remote", "churn", "bulk", "prefill",
                                      "rcu", "producer-consumer")
    assert slablab.STORM_STATES == ("none", "running", "done", "stopped")
    assert "cycles_per_pair" in slablab.FIGURES and "overhead_pct" in slablab.FIGURES
    header = (REPO / "uapi" / "linux" / "slablab.h").read_text()
    for key, macro in [("storm_max_threads", "SLABLAB_STORM_MAX_THREADS"),
                       ("storm_max_batch", "SLABLAB_STORM_MAX_BATCH"),
                       ("storm_max_ring", "SLABLAB_STORM_MAX_RING"),
                       ("storm_max_sizes", "SLABLAB_STORM_MAX_SIZES")]:
        m = re.search(rf"#define\s+{macro}\s+(\d+)\b", header)
        assert m and slablab.LIMITS[key] == int(m.group(1)), key


def test_summarize(slablab):
    s = slablab.summarize([3, 1, 2])
    assert s == {"n": 3, "min": 1.0, "median": 2.0, "mean": 2.0, "max": 3.0, "sd": 1.0}
    s = slablab.summarize([4, 1, 3, 2])
    assert s["median"] == 2.5 and abs(s["sd"] - 1.2909944487358056) < 1e-12
    assert slablab.summarize([float("nan"), 5])["n"] == 1
    assert slablab.summarize([]) == {"n": 0, "min": None, "median": None, "mean": None,
                                     "max": None, "sd": None}
    # seed 000's numbers: SLUB (dynamic) real time, the three of them shown
    s = slablab.summarize([22.74, 23.54, 23.00])
    assert (s["min"], s["max"], s["median"]) == (22.74, 23.54, 23.00)


def test_main_figures(slablab):
    assert slablab.main_figures("pair") == ["cycles_per_pair"]
    assert slablab.main_figures("batch") == ["cycles_per_alloc", "cycles_per_free"]
    assert slablab.main_figures("remote") == ["ops_per_sec"]
    assert slablab.main_figures("churn") == ["fragmentation_pct"]
    assert slablab.main_figures("rcu") == ["cycles_per_alloc", "cycles_per_free",
                                           "rcu_waiting_mean"]
    with pytest.raises(slablab.InvalidArgument):
        slablab.main_figures("zigzag")


def test_storm_help_names_every_option():
    out = slabctl("storm", "start", "--help").stdout
    for opt in ("--cache", "--size", "--sizes", "--threads", "--cpus", "--ops", "--duration",
                "--batch", "--working-set", "--ring", "--seed", "--max-live", "--json",
                "--quiet", "slablab", "native", "kmalloc", "native-kmalloc", "pair", "batch",
                "remote", "churn", "bulk", "rcu", "--rate", "130", "producer-consumer",
                "--producers"):
        assert opt in out, opt
    out = slabctl("compare", "--help").stdout
    for opt in ("--target", "--set", "--repeat", "--csv", "--figure", "--threads", "--json"):
        assert opt in out, opt
    out = slabctl("watch", "--help").stdout
    for opt in ("--interval", "--count", "--json", "--activity"):
        assert opt in out, opt


def test_client_subclass_has_cache(slablab):
    assert issubclass(slablab.Client, slablab._core.Client)
    assert callable(slablab.Client.cache)


# --------------------------------- info --native against a fake sysfs ----

STAT_FILES = ["alloc_fastpath", "alloc_slowpath", "free_fastpath", "free_slowpath",
              "free_frozen", "free_add_partial", "free_remove_partial", "alloc_from_partial",
              "alloc_slab", "alloc_refill", "alloc_node_mismatch", "free_slab",
              "cpuslab_flush", "deactivate_full", "deactivate_empty", "deactivate_to_head",
              "deactivate_to_tail", "deactivate_remote_frees", "deactivate_bypass",
              "order_fallback", "cmpxchg_double_cpu_fail", "cmpxchg_double_fail",
              "cpu_partial_alloc", "cpu_partial_free", "cpu_partial_node", "cpu_partial_drain"]


def _slub_cache(d, size, nobjects, nslabs, order=0, **files):
    """A cache directory as Debian's 6.1 kernel has it (SLUB_DEBUG, NUMA, no SLUB_STATS)."""
    d.mkdir()
    per_slab = (4096 << order) // size
    content = {
        "object_size": size, "slab_size": size, "objs_per_slab": per_slab, "order": order,
        "align": 8, "aliases": 0, "min_partial": 5, "cpu_partial": 120, "usersize": 0,
        "objects": f"{nobjects} N0={nobjects}",
        "total_objects": f"{nslabs * per_slab} N0={nslabs * per_slab}",
        "slabs": f"{nslabs} N0={nslabs}", "partial": "1 N0=1", "cpu_slabs": "2 N0=2",
        "objects_partial": "3 N0=3", "slabs_cpu_partial": "16(1) C0=16(1)",
        "cache_dma": 0, "hwcache_align": 0, "poison": 0, "reclaim_account": 0, "red_zone": 0,
        "sanity_checks": 0, "store_user": 0, "trace": 0, "destroy_by_rcu": 0, "ctor": "",
        "shrink": "", "validate": "", "remote_node_defrag_ratio": 100,
    }
    content.update(files)
    for name, value in content.items():
        if value is not None:
            (d / name).write_text(f"{value}\n" if value != "" else "")


@pytest.fixture
def slab_tree(tmp_path):
    """kmalloc-64 (merged: slablab_slab, foo-bar), t64 (a kernel cache named like a
    slablab one, with SLUB_STATS files), nodebug (no SLUB_DEBUG files), broken (an
    unreadable objects file), a dangling alias."""
    root = tmp_path / "slab"
    root.mkdir()
    _slub_cache(root / ":0000064", 64, 1000, 20, aliases=2)
    for alias in ("kmalloc-64", "slablab_slab", "foo-bar"):
        (root / alias).symlink_to(":0000064")
    stats: Dict[str, Union[int, str]] = {s: 0 for s in STAT_FILES}
    stats.update(alloc_fastpath="900 C0=500 C1=400", alloc_slowpath="100 C0=100",
                 free_fastpath="450 C1=450", free_slowpath="50 C0=50", order_fallback=2,
                 cmpxchg_double_fail=3)
    _slub_cache(root / "t64", 192, 500, 200, order=1, hwcache_align=1, poison=1, **stats)
    _slub_cache(root / "nodebug", 32, 0, 0, objects=0, slabs=None, total_objects=None,
                sanity_checks=None, poison=None, red_zone=None, store_user=None, trace=None)
    _slub_cache(root / "broken", 128, 10, 1, objects=None)
    (root / "broken" / "objects").mkdir()       # reading it fails (EISDIR), even for root
    (root / "gone").symlink_to(":0009999")
    return root


def native(root, *args, meminfo=None):
    env = dict(os.environ, SLABCTL_SYSFS_SLAB=str(root))
    if meminfo is not None:
        env["SLABCTL_MEMINFO"] = str(meminfo)
    return subprocess.run([str(SLABCTL), *args], capture_output=True, text=True, timeout=60,
                          check=False, env=env)


def slub_rows(text):
    return {ln.split()[0]: ln.split() for ln in text.splitlines() if ln.startswith("slub/")}


def test_native_table(slab_tree):
    r = native(slab_tree, "info", "--native")
    assert r.returncode == 0, r.stderr
    rows = slub_rows(r.stdout)
    # merged caches once, under a readable name; no ":" directories, no dangling alias
    assert sorted(rows) == ["slub/broken", "slub/kmalloc-64", "slub/nodebug", "slub/t64"]
    assert rows["slub/kmalloc-64"] == ["slub/kmalloc-64", "1000", "64", "81.9K", "18/1/2",
                                       "64", "0", "5", "78", "*"]
    # slabinfo's %Fr/%Ef; A (hwcache_align) and P (poison) flags
    assert rows["slub/t64"][1:4] == ["500", "192", "1.6M"] and rows["slub/t64"][-1] == "AP"
    # no SLUB_DEBUG: objects and slabs unknown
    assert rows["slub/nodebug"][1:5] == ["-", "32", "-", "-/1/2"]
    assert rows["slub/broken"][1] == "-" and rows["slub/broken"][2] == "128"
    assert "1 file of 1 kernel cache" in r.stderr and "Is a directory" in r.stderr
    if not MODULE_LOADED:
        assert "module is not loaded" in r.stderr
    # -B: bytes
    rows = slub_rows(native(slab_tree, "info", "--native", "-B", "kmalloc-64").stdout)
    assert rows["slub/kmalloc-64"][3] == "81920"


def test_native_activity_and_sorts(slab_tree):
    rows = slub_rows(native(slab_tree, "info", "--native", "-D").stdout)
    assert rows["slub/t64"][1:] == ["500", "1000", "500", "90", "90", "2", "1", "3", "0"]
    assert rows["slub/kmalloc-64"][1:] == ["1000", "-", "-", "-", "-", "-", "0", "-", "-"]
    names = [ln.split()[0] for ln in native(slab_tree, "info", "--native", "-S").stdout.splitlines()[1:]
             if ln.startswith("slub/")]
    assert names == ["slub/t64", "slub/kmalloc-64", "slub/broken", "slub/nodebug"]
    names = [ln.split()[0] for ln in native(slab_tree, "info", "--native", "-A").stdout.splitlines()[1:]
             if ln.startswith("slub/")]
    assert names[0] == "slub/t64"


def test_native_patterns(slab_tree):
    for pattern in ("kmalloc-*", "slablab_slab", "slub/kmalloc-64", ":0000064", "foo-*"):
        r = native(slab_tree, "info", "--native", pattern)
        assert r.returncode == 0, (pattern, r.stderr)
        assert list(slub_rows(r.stdout)) == ["slub/kmalloc-64"], pattern
    r = native(slab_tree, "info", "--native", "nomatch*")
    assert r.returncode == 1 and "no cache matches nomatch*" in r.stderr


def test_native_json(slab_tree):
    r = native(slab_tree, "info", "--native", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["schema"] == "slablab/1" and doc["command"] == "info"
    assert doc["native_root"] == str(slab_tree)
    assert doc["page_size"] == os.sysconf("SC_PAGESIZE")
    if not MODULE_LOADED:
        assert doc["module_loaded"] is False
    caches = {c["name"]: c for c in doc["caches"] if c["allocator"] == "slub"}
    assert sorted(caches) == ["broken", "kmalloc-64", "nodebug", "t64"]
    k = caches["kmalloc-64"]
    assert k["sysfs_name"] == ":0000064"
    assert k["aliases"] == ["foo-bar", "kmalloc-64", "slablab_slab"]
    assert (k["size"], k["obj_stride"], k["objs_per_slab"], k["order"], k["merged"]) == (64, 64, 64, 0, 2)
    assert k["gauges"]["objects"] == 1000 and k["gauges"]["slabs"] == 20
    assert k["gauges"]["cpu_slabs"] + k["gauges"]["cpu_partial_slabs"] == 2
    assert k["stats"] is None and k["flags"] == [] and k["unreadable"] == {}
    assert caches["t64"]["stats"]["alloc_fastpath"] == 900
    # 6.1's SLUB_STATS files are read; the sheaves' counters (7.0's files) are absent
    assert {k for k, v in caches["t64"]["stats"].items() if v is not None} == set(STAT_FILES)
    assert caches["t64"]["flags"] == ["hwcache_align", "poison"]
    assert caches["nodebug"]["gauges"]["objects"] is None
    assert caches["nodebug"]["gauges"]["total_objects"] is None
    assert caches["broken"]["unreadable"] == {"objects": "Is a directory"}


def test_native_totals(slab_tree):
    doc = json.loads(native(slab_tree, "info", "--native", "-T", "--json").stdout)
    t = doc["native_totals"]
    assert (t["caches"], t["incomplete"], t["active"]) == (4, 2, 2)
    assert t["objects"] == 1500 and t["slabs"] == 220
    assert (t["alloc"], t["free"]) == (1000, 500)
    if not MODULE_LOADED:
        assert doc["totals"] is None
    text = native(slab_tree, "info", "--native", "-T").stdout
    assert f"Slabcache Totals: kernel SLUB ({slab_tree})" in text
    assert "2 of 4 caches not counted" in text


MEMINFO = """MemTotal:        4000000 kB
MemFree:         3000000 kB
MemAvailable:    3500000 kB
Slab:               1600 kB
SReclaimable:        600 kB
SUnreclaim:         1000 kB
"""


def test_native_totals_beside_meminfo(slab_tree, tmp_path):
    """-T --native ends with /proc/meminfo's Slab: beside the kernel caches' totals
    (kmalloc-64's 20 slabs and t64's 200 of order 1: 1640 KiB) and slablab's, whose pages
    are plain pages; a meminfo without its slab lines is said and leaves the rest."""
    mi = tmp_path / "meminfo"
    mi.write_text(MEMINFO)
    r = native(slab_tree, "info", "--native", "-T", "--json", meminfo=mi)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["meminfo"] == dict(slab=1600 * 1024, sreclaimable=600 * 1024,
                                  sunreclaim=1000 * 1024, mem_total=4000000 * 1024,
                                  mem_free=3000000 * 1024)
    page = os.sysconf("SC_PAGESIZE")
    assert doc["native_totals"]["space"] == (20 + 200 * 2) * page
    text = native(slab_tree, "info", "--native", "-T", "-B", meminfo=mi).stdout
    block = text[text.index("Memory accounting (/proc/meminfo)"):]
    assert f"Slab:         {1600 * 1024:>8}   SReclaimable {600 * 1024} + SUnreclaim " \
        f"{1000 * 1024}: the kernel's slab pages" in block
    pct = (20 + 400) * page * 100 // (1600 * 1024)
    assert f"the kernel caches' totals above: {pct}% of Slab: (the rest: kmalloc()s over " \
        "8 KiB, pages counted in Slab: without a cache) (2 caches not counted)" in block
    assert ("slablab" in block and "not in Slab:" in block) or "not loaded" in block
    for bad, why in (("MemTotal: 1 kB\nMemFree: 1 kB\n", "no 'Slab:' line"),
                     (MEMINFO.replace("1600 kB", "many kB"),
                      "cannot read 'Slab:               many kB'")):
        mi.write_text(bad)
        r = native(slab_tree, "info", "--native", "-T", "--json", meminfo=mi)
        assert r.returncode == 0 and json.loads(r.stdout)["meminfo"] is None
        assert why in r.stderr and "the memory accounting is left out" in r.stderr
    r = native(slab_tree, "info", "--native", "-T", meminfo=tmp_path / "none")
    assert r.returncode == 0 and "Memory accounting" not in r.stdout
    assert f"cannot read {tmp_path / 'none'}: No such file or directory" in r.stderr


def test_native_report(slab_tree):
    r = native(slab_tree, "info", "--native", "-r", "slablab_slab")
    assert r.returncode == 0, r.stderr
    assert "Slabcache: slub/kmalloc-64" in r.stdout
    assert "Names: foo-bar kmalloc-64 slablab_slab" in r.stdout
    assert "remote_node_defrag_ratio    100" in r.stdout
    assert "CONFIG_SLUB_STATS" in r.stdout
    doc = json.loads(native(slab_tree, "info", "--native", "-r", "slub/t64", "--json").stdout)
    c = doc["cache"]
    assert c["name"] == "t64" and c["allocator"] == "slub"
    assert c["files"]["objects"] == "500 N0=500"
    assert c["percpu_stats"]["alloc_fastpath"] == {"0": 500, "1": 400}
    assert c["nodes"]["slabs"] == {"0": 200}
    r = native(slab_tree, "info", "--native", "-r", "nosuch")
    assert r.returncode == 1 and "no kernel cache 'nosuch'" in r.stderr
    for bad in ("../etc", "slub/", "a/b", ".."):
        r = native(slab_tree, "info", "--native", "-r", bad)
        assert r.returncode == 2 and "not a kernel cache name" in r.stderr, bad


def test_native_root_errors(tmp_path):
    r = native(tmp_path / "nonexistent", "info", "--native")
    assert r.returncode == 1
    assert f"cannot read {tmp_path / 'nonexistent'}: No such file or directory" in r.stderr
    assert r.stdout == ""
    (tmp_path / "file").write_text("")
    r = native(tmp_path / "file", "info", "--native", "--json")
    assert r.returncode == 1 and "Not a directory" in r.stderr and r.stdout == ""
    r = native(tmp_path / "nonexistent", "info", "--native", "-r", "kmalloc-64")
    assert r.returncode == 1 and "No such file or directory" in r.stderr
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0)
        r = native(locked, "info", "--native")
        assert r.returncode == 4 and "Permission denied" in r.stderr


def test_native_help():
    out = slabctl("info", "--help").stdout
    assert "--native" in out and "/sys/kernel/slab" in out


@needs_python
def test_python_native_caches(slablab, slab_tree):
    caches = {c["name"]: c for c in slablab.native_caches(root=str(slab_tree))}
    assert sorted(caches) == ["broken", "kmalloc-64", "nodebug", "t64"]
    assert caches["kmalloc-64"]["allocator"] == "slub"
    assert [c["name"] for c in slablab.native_caches(str(slab_tree), ["slablab_*"])] == ["kmalloc-64"]
    c = slablab.native_cache("foo-bar", root=str(slab_tree))
    assert c["name"] == "kmalloc-64" and c["files"]["order"] == "0"
    with pytest.raises(slablab.NotFound):
        slablab.native_cache("nosuch", root=str(slab_tree))
    with pytest.raises(FileNotFoundError):
        slablab.native_caches(root=str(slab_tree / "nonexistent"))

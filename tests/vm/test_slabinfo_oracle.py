# SPDX-License-Identifier: GPL-2.0
"""The kernel's own slabinfo, built by scripts/slabinfo.sh, is the oracle of `slabctl
info`: docs/slabctl.md says the table follows it column for column, and here slabinfo's
lines are what slabctl's must be. The tool is of the running kernel's series: on 7.x
(os.uname's major ≥ 7) 7.x's tools/mm/slabinfo.c (trixie-backports' linux-source-7.3,
`scripts/slabinfo.sh 7`), before that 6.1's tools/vm/slabinfo.c (`scripts/slabinfo.sh`).
The two print the same default table from the same files: 7.x's reads `partial` once
(6.1's twice, the first read overwritten), strips the newline read_obj() reads (6.1's
test for it never matched: the strtoul()s read the same numbers) and allows 2000 caches
(6.1's 500). 7.x's also stops at a file it may not read (EACCES, where 6.1's read 0: the
runs here must leave stderr empty either way), turns trace off with 0 when -d leaves it
out (6.1's wrote 1; nothing here writes) and maps --partial to its -P (6.1's to a 'p'
it does not handle), which the last test uses to tell the series apart.

- The kernel's caches: slabinfo against `slabctl info --native` (the slub/ rows), both
  reading one frozen copy of /sys/kernel/slab, every column of every cache; and the
  columns that cannot move (Objsize, O/S, O, Flg) against a live slabinfo.
- slablab's caches: slabinfo in a private mount namespace with slablab's debugfs
  mirror (/sys/kernel/debug/slablab/caches) bind-mounted over /sys/kernel/slab, so it
  reads the mirror's files as it reads SLUB's, against `slabctl info` (netlink), for
  caches this file makes and fills with known objects. Every column is compared;
  Flg is the one whose letters differ by design (slabinfo's from the SLAB_* flag
  files, slabctl's slablab flag letters) and is compared through the mapping the
  mirror documents (module/debugfs.c, slub_flags()).
- The oracle's series: --partial, which 7.x's tool handles and 6.1's does not, says
  which one was picked ($SLABLAB_SLABINFO too must be of the running kernel's series).

Where slabinfo's and slabctl's lines differ, the message shows both lines."""
import os
import subprocess

import pytest

from helpers import BUILD, DEBUGFS, REPO, SLABCTL, slabctl

# The running kernel's series: 7.x's slabinfo on 7.x, 6.1's before.
SERIES = 7 if int(os.uname().release.split(".")[0]) >= 7 else 6
HOW = (f"run scripts/slabinfo.sh {SERIES} on the host (it builds "
       + ("7.x's tools/mm/slabinfo.c into build/slabinfo-7/"
          if SERIES >= 7 else "6.1's tools/vm/slabinfo.c into build/slabinfo/")
       + "), or point $SLABLAB_SLABINFO at a slabinfo binary")
COLUMNS = ["Objects", "Objsize", "Space", "Slabs/Part/Cpu", "O/S", "O", "%Fr", "%Ef"]
# Columns that cannot change while a cache exists: compared for busy kernel caches too.
FIXED = ["Objsize", "O/S", "O"]
SYS_SLAB = "/sys/kernel/slab"
NUMA = os.path.isdir("/sys/devices/system/node")
MIRROR = f"{DEBUGFS}/caches"


def find_slabinfo():
    """$SLABLAB_SLABINFO, else scripts/slabinfo.sh's binary of the running kernel's
    series in the build tree (the shared one of SLABLAB_BUILD, then this checkout's):
    slabinfo-7/ on 7.x, slabinfo/ before."""
    env = os.environ.get("SLABLAB_SLABINFO")
    if env:
        return env
    sub = "slabinfo-7" if SERIES >= 7 else "slabinfo"
    for build in (BUILD, os.path.join(REPO, "build")):
        path = os.path.join(build, sub, "slabinfo")
        if os.access(path, os.X_OK):
            return path
    return None


SLABINFO = find_slabinfo()


@pytest.fixture(scope="module", autouse=True)
def have_slabinfo():
    # Not a skip: an oracle that is silently missing checks nothing.
    if not SLABINFO or not os.access(SLABINFO, os.X_OK):
        pytest.fail(f"the kernel's slabinfo is not built: {HOW}", pytrace=False)


def parse(text, strip=""):
    """The table's rows: {name: {column: cell}}; the header must be slabinfo's."""
    lines = text.splitlines()
    assert lines, "no output"
    assert lines[0].split() == ["Name", *COLUMNS, "Flg"], lines[0]
    rows = {}
    for ln in lines[1:]:
        f = ln.split()
        assert len(f) in (9, 10), ln
        name = f[0]
        if strip:
            if not name.startswith(strip):
                continue
            name = name[len(strip):]
        row = dict(zip(COLUMNS, f[1:9]))
        row["Flg"] = f[9] if len(f) == 10 else ""
        row["line"] = ln
        assert name not in rows, ln
        rows[name] = row
    return rows


def slabinfo(*args, mirror=False, root=None):
    """slabinfo's default table; with mirror=True reading slablab's debugfs mirror, with
    root=DIR that directory, bind-mounted over /sys/kernel/slab in a mount namespace of
    its own (slabinfo.c reads no other path)."""
    cmd = [SLABINFO, *args]
    if mirror:
        root = MIRROR
    if root:
        script = f'mount --bind {root} {SYS_SLAB} && exec "$@"'
        cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", *cmd]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and not r.stderr, (cmd, r.returncode, r.stderr)
    return r.stdout


def has_slabs(row):
    return sum(int(x) for x in row["Slabs/Part/Cpu"].split("/")) > 0


def differences(want, got, columns):
    return [c for c in columns if want[c] != got[c]]


# ------------------------------------------------------------ the kernel's caches

def snapshot_sys_slab(dest):
    """A frozen copy of /sys/kernel/slab: every readable file of every cache directory
    and every alias symlink, as they read now. Kernel caches move while a process reads
    them, and the reader's own process moves the caches it needs (vm_area_struct,
    anon_vma, ...: slabctl's start-up reads 23/0/12 before and after in slabinfo and
    25/0/10 itself), so slabinfo and slabctl are given the same frozen tree to read."""
    os.makedirs(dest)
    caches = 0
    for name in sorted(os.listdir(SYS_SLAB)):
        src = os.path.join(SYS_SLAB, name)
        if os.path.islink(src):
            os.symlink(os.readlink(src), os.path.join(dest, name))
            continue
        os.makedirs(os.path.join(dest, name))
        caches += 1
        for f in os.listdir(src):
            path = os.path.join(src, f)
            if not os.path.isfile(path):
                continue
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue        # write-only attributes, and those that refuse a read
            with open(os.path.join(dest, name, f), "wb") as fh:
                fh.write(data)
    return caches


def test_native_caches_match_slabinfo(tmp_path):
    """slabinfo and `slabctl info --native` read one frozen copy of /sys/kernel/slab
    (slabinfo with the copy bind-mounted over it in a mount namespace, slabctl through
    SLABCTL_SYSFS_SLAB): every cache slabinfo lists must be slabctl's with the same
    line, column for column; every cache of slabctl's with slabs must be slabinfo's
    (slabinfo leaves out caches without slabs). The live tree is checked too: the
    columns that cannot move while a cache exists (Objsize, O/S, O, Flg) match a live
    slabinfo for every cache."""
    snap = str(tmp_path / "sys-kernel-slab")
    assert snapshot_sys_slab(snap) >= 30
    theirs = parse(slabinfo(root=snap))
    r = subprocess.run([SLABCTL, "info", "--native"], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, SLABCTL_SYSFS_SLAB=snap))
    assert r.returncode == 0, r.stderr
    ours = parse(r.stdout, strip="slub/")
    assert len(theirs) >= 30, theirs.keys()
    assert set(theirs) <= set(ours), set(theirs) - set(ours)
    wrong = {n: (theirs[n]["line"], ours[n]["line"]) for n in theirs
             if differences(theirs[n], ours[n], COLUMNS + ["Flg"])}
    assert not wrong, f"slabinfo line, slabctl line: {wrong}"
    extra = [n for n, row in ours.items() if has_slabs(row) and n not in theirs]
    assert not extra, extra
    live = parse(slabinfo())
    fixed = {n: (live[n]["line"], ours[n]["line"]) for n in live
             if n in ours and differences(live[n], ours[n], FIXED + ["Flg"])}
    assert not fixed, fixed


# ------------------------------------------------ slablab's caches through the mirror

# (name, size, create args, slabinfo's flags): a cache of every design, with and without
# the flags slabinfo shows.
CACHES: list[tuple[str, int, dict[str, object], str]] = [
    ("so-slub", 64, dict(design="slub"), ""),
    ("so-align", 100, dict(design="slub", hwcache_align=True), "A"),
    ("so-debug", 192, dict(design="slub", debug=True, cpu_partial=0), "PZF"),
    ("so-sheaves", 256, dict(design="sheaves"), ""),
    # no reaping while the test reads (the slab design's reaper would move its figures)
    ("so-slab", 512, dict(design="slab", hwcache_align=True, order=0, reap_cpu_ms=3600000,
                          reap_node_ms=3600000), "A"),
]

# slabctl's slablab flag letters -> slabinfo's letters for the SLAB_* flags the mirror
# shows (A hwcache_align; D debug: P poison without a ctor, Z red_zone, F sanity_checks;
# H, R, k, m have no SLUB flag), in slabinfo.c's order.
SLABINFO_ORDER = "*dAPaZFUT"


def slabinfo_flags(slabctl_flags):
    letters = set()
    if "A" in slabctl_flags:
        letters.add("A")
    if "D" in slabctl_flags:
        letters |= {"P", "Z", "F"}     # the caches here have no constructor
    return "".join(c for c in SLABINFO_ORDER if c in letters)


@pytest.fixture(scope="module")
def filled(client):
    """The caches above, each with objects in use spread over full and partial slabs:
    handles of 7 objects, every other one freed again, from two cpus when there are."""
    made, handles = [], []
    cpus = [0, 1] if (os.cpu_count() or 1) > 1 else [0]
    try:
        for i, (name, size, args, _) in enumerate(CACHES):
            client.cache_create(name, size, **args)
            made.append(name)
            hs = [client.obj_alloc(name, 7, cpu=cpus[j % len(cpus)]) for j in range(40 + 20 * i)]
            for h in hs[::2]:
                client.obj_free(h)
            handles += hs[1::2]
        yield made
    finally:
        for h in handles:
            client.obj_free(h)
        for name in made:
            assert client.cache_validate(name)["errors"] == 0
            client.cache_destroy(name)


def mirror_rows():
    return parse(slabinfo("^so-", mirror=True))


def test_mirror_has_the_files_slabinfo_reads(filled):
    """read_slab_dir()'s files that SLUB's sysfs has, in mm/slub.c's formats."""
    d = f"{MIRROR}/so-align"
    files = set(os.listdir(d))
    want = {"aliases", "align", "cpu_slabs", "destroy_by_rcu", "hwcache_align", "object_size",
            "objects", "objects_partial", "total_objects", "objs_per_slab", "order", "partial",
            "poison", "reclaim_account", "red_zone", "sanity_checks", "slab_size", "slabs",
            "store_user", "trace"}
    if os.path.exists(f"{SYS_SLAB}/kmalloc-64/cache_dma"):   # CONFIG_ZONE_DMA
        want.add("cache_dma")
    assert want <= files, want - files

    def read(cache, f):
        with open(f"{MIRROR}/{cache}/{f}") as fh:
            return fh.read()
    for name, _, args, _ in CACHES:
        for f, v in (("hwcache_align", int(bool(args.get("hwcache_align")))),
                     ("poison", int(bool(args.get("debug")))), ("aliases", 0),
                     ("reclaim_account", 0), ("destroy_by_rcu", 0), ("store_user", 0),
                     ("trace", 0)):
            assert read(name, f) == f"{v}\n", (name, f)
        # "N N0=n …": the total, then the nodes that have any, under CONFIG_NUMA (which
        # makes /sys/devices/system/node); without it the total alone, as SLUB prints
        op = read(name, "objects_partial").split()
        if NUMA and int(op[0]):
            assert sum(int(x.split("=")[1]) for x in op[1:]) == int(op[0]), op
            assert len(op) > 1 and all(x.startswith("N") for x in op[1:]), op
        else:
            assert len(op) == 1, op


def test_slablab_caches_match_slabinfo(client, filled):
    ours = parse(slabctl("info", "so-*").stdout)
    theirs = mirror_rows()
    assert parse(slabctl("info", "so-*").stdout) == ours   # quiet: nothing moves here
    assert set(theirs) == set(filled) == set(ours), (set(theirs), set(ours))
    bad = [(theirs[n]["line"], ours[n]["line"]) for n in filled
           if differences(theirs[n], ours[n], COLUMNS)]
    assert not bad, bad
    for name, _, _, flags in CACHES:
        t, o = theirs[name], ours[name]
        assert t["Flg"] == flags == slabinfo_flags(o["Flg"]), (t["line"], o["line"])
    # non-trivial figures: objects everywhere, node partial and cpu-owned slabs somewhere
    slabs = [[int(x) for x in theirs[n]["Slabs/Part/Cpu"].split("/")] for n in filled]
    assert all(int(theirs[n]["Objects"]) > 0 for n in filled), theirs
    assert any(p for _, p, _ in slabs) and any(c > 1 for _, _, c in slabs), theirs


def test_oracle_is_the_running_kernels_series(filled):
    """The oracle is of the running kernel's series (SERIES), told apart by --partial:
    7.x's tool maps it to the -P it handles (sort by partial slabs: the same rows as -P
    and as the default table, in another order); 6.1's to a 'p' that no case of its
    getopt switch handles. An oracle of the other series would hold slabctl to another
    kernel's tool."""
    if SERIES >= 7:
        rows = parse(slabinfo("--partial", "^so-", mirror=True))
        assert set(rows) == set(filled), set(rows)
        assert rows == parse(slabinfo("-P", "^so-", mirror=True)) == mirror_rows()
    else:
        r = subprocess.run([SLABINFO, "--partial", "^so-"], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 1 and "Invalid option" in r.stderr, (r.returncode, r.stderr)


def test_objects_partial_after_shrink(client, filled):
    """After a shrink every per-cpu layer is back in its slabs: the objects in use on
    slabs that are not full are all the objects in use but the full slabs' (the
    occupancy histogram's last bucket)."""
    for name in ("so-slub", "so-debug", "so-slab"):
        client.cache_shrink(name)
        c = client.cache_get(name, percpu=False)
        full = c["occupancy"][-1]
        assert full["lo"] == full["hi"] == c["objs_per_slab"]
        with open(f"{MIRROR}/{name}/objects_partial") as f:
            got = int(f.read().split()[0])
        assert got == c["gauges"]["objects"] - full["slabs"] * full["lo"], (name, c["occupancy"])
        assert got > 0, name

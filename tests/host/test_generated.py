# SPDX-License-Identifier: GPL-2.0
"""Every file scripts/gen-protocol.py writes from uapi/slablab.yaml is checked in as the
generator writes it now: an edit of the spec without regenerating, or a hand edit of a
generated file, fails here (`make generate` or scripts/gen-protocol.py fixes it). The
generated ops table is also read back and held against the spec: a handler for each do
and dump, the admin flags exactly on the admin-perm operations."""
import os
import re
import subprocess

import pytest

yaml = pytest.importorskip("yaml", reason="python3-yaml is missing (scripts/deps.sh installs it)")

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


# ---- the generated ops table against the spec (docs/netlink.md) ----

OPS_RE = re.compile(r"const struct genl_ops slablab_nl_ops\[(\d+)\] = \{\n(.*?)\n\};", re.S)
ENTRY_RE = re.compile(r"\{(.*?)\}", re.S)
MEMBER_RE = re.compile(r"\.(\w+)\s*=\s*([^,]+),")


def read(rel):
    with open(os.path.join(REPO, rel)) as f:
        return f.read()


def parse_ops_table(c_text):
    """(declared count, [{member: value}]) of netlink-gen.c's slablab_nl_ops[]."""
    m = OPS_RE.search(c_text)
    assert m, "module/netlink-gen.c has no `const struct genl_ops slablab_nl_ops[N] = {...};`"
    entries = [dict(MEMBER_RE.findall(e)) for e in ENTRY_RE.findall(m.group(2))]
    return int(m.group(1)), entries


def spec_ops():
    """[(C command name, handler base name, modes, admin-perm)] straight from the spec."""
    y = yaml.safe_load(read(os.path.join("uapi", "slablab.yaml")))
    prefix = y["operations"].get("name-prefix", f"{y['name']}-cmd-")
    return [((prefix + op["name"]).upper().replace("-", "_"),
             f"{y['name']}_nl_{op['name']}".replace("-", "_"),
             [m for m in ("do", "dump") if m in op],
             "admin-perm" in op.get("flags", []))
            for op in y["operations"]["list"]]


def ops_table_problems(c_text, h_text, ops):
    """What is wrong with the generated ops table (@c_text) and its declarations
    (@h_text) against the spec's operations @ops: one line each."""
    problems = []
    count, entries = parse_ops_table(c_text)
    if count != len(ops) or len(entries) != len(ops):
        problems.append(f"{count} declared and {len(entries)} entries, not the spec's "
                        f"{len(ops)} operations")
    if not re.search(rf"extern const struct genl_ops slablab_nl_ops\[{len(ops)}\];", h_text):
        problems.append(f"netlink-gen.h does not declare slablab_nl_ops[{len(ops)}]")
    by_cmd = {e.get("cmd"): e for e in entries}
    for cmd, base, modes, admin in ops:
        e = by_cmd.get(cmd)
        if e is None:
            problems.append(f"{cmd}: no entry")
            continue
        for mode in ("do", "dump"):
            want = f"{base}_{mode}it" if mode in modes else None
            if e.get(f"{mode}it") != want:
                problems.append(f"{cmd}: .{mode}it is {e.get(f'{mode}it')}, the spec says {want}")
            if want and not re.search(rf"^int {want}\(struct sk_buff \*skb, ", h_text, re.M):
                problems.append(f"{cmd}: netlink-gen.h has no prototype of {want}()")
        flags = ("GENL_ADMIN_PERM" if admin else None, "SLABLAB_NL_SYS_ADMIN" if admin else None)
        if (e.get("flags"), e.get("internal_flags")) != flags:
            problems.append(f"{cmd}: .flags {e.get('flags')}, .internal_flags "
                            f"{e.get('internal_flags')}; the spec says "
                            + ("admin-perm" if admin else "no flags"))
    if not re.search(r"^#define SLABLAB_NL_SYS_ADMIN\s", h_text, re.M):
        problems.append("netlink-gen.h does not define SLABLAB_NL_SYS_ADMIN")
    return problems


def test_ops_table_follows_the_spec():
    """Each of the spec's operations has its entry: .doit/.dumpit exactly where it has
    do/dump (the handlers declared in netlink-gen.h), and GENL_ADMIN_PERM with
    SLABLAB_NL_SYS_ADMIN exactly where it says admin-perm; the declared count is theirs."""
    problems = ops_table_problems(read("module/netlink-gen.c"), read("module/netlink-gen.h"),
                                  spec_ops())
    assert not problems, "\n".join(problems)


def test_ops_table_check_can_fail():
    """The check above notices a lost admin flag, an admin flag on a read, a lost dump and
    a lost entry."""
    c, h, ops = read("module/netlink-gen.c"), read("module/netlink-gen.h"), spec_ops()
    assert not ops_table_problems(c, h, ops)
    admin = "SLABLAB_CMD_CACHE_NEW"
    read_only = "SLABLAB_CMD_STORM_GET"
    assert any(o[0] == admin and o[3] for o in ops)
    assert any(o[0] == read_only and not o[3] for o in ops)
    m = re.search(r"\t\{\n\t\t\.cmd\t+= %s,\n.*?\t\},\n" % admin, c, re.S)
    assert m, f"no {admin} entry"
    cache_new = m.group(0)
    lost_flag = c.replace(cache_new, cache_new.replace(
        "\t\t.internal_flags\t= SLABLAB_NL_SYS_ADMIN,\n", ""))
    assert lost_flag != c
    assert any(admin in p for p in ops_table_problems(lost_flag, h, ops))
    open_read = c.replace(f"= {read_only},\n", f"= {read_only},\n\t\t.flags = GENL_ADMIN_PERM,\n")
    assert open_read != c
    assert any(read_only in p for p in ops_table_problems(open_read, h, ops))
    no_dump = c.replace("\t\t.dumpit\t= slablab_nl_cache_get_dumpit,\n", "")
    assert no_dump != c
    assert any("dumpit" in p for p in ops_table_problems(no_dump, h, ops))
    no_entry = c.replace(cache_new, "")
    assert no_entry != c
    assert any("entries" in p for p in ops_table_problems(no_entry, h, ops))

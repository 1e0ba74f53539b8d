# SPDX-License-Identifier: GPL-2.0
"""uapi/slablab.yaml (the YNL spec), uapi/linux/slablab.h and the module's nla_policy
tables must agree (docs/netlink.md):

- every enum value, attribute number, command number and constant of the header is the
  one the spec gives, and every enum of the header is in the spec;
- every nla_policy table of module/*.c checks what the spec's `checks` (and enums)
  say, attribute by attribute, with the spec's types and nests;
- the spec is valid under the kernel's schema (linux-source-6.12, scripts/ynl.sh);
- the kernel's generator (ynl-gen-c.py --mode uapi --header) renders a header from
  the spec whose names and values are ours, but for the few names the 6.12 generator
  cannot spell (KNOWN_GAPS).

The header's values are computed by the C compiler (a program that prints them), not
guessed from its text; only the names are found by parsing."""
import functools
import os
import re
import shutil
import subprocess
import tempfile

import pytest

yaml = pytest.importorskip("yaml", reason="python3-yaml is missing (scripts/deps.sh installs it)")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC_PATH = os.path.join(REPO, "uapi", "slablab.yaml")
HEADER = os.path.join(REPO, "uapi", "linux", "slablab.h")
MODULE = os.path.join(REPO, "module")
PY = os.environ.get("PYTHON", "/usr/bin/python3")

# Names of our header the 6.12 generator cannot render (docs/netlink.md):
KNOWN_GAPS = {
    # commands start at 1; the generator writes no UNSPEC for them
    "SLABLAB_CMD_UNSPEC",
    # a count for an enum whose value prefix is not its name: 6.12 has no enum-cnt-name
    "__SLABLAB_STAT_MAX", "SLABLAB_STAT_MAX", "__SLABLAB_STORM_STATE_MAX",
    # flags masks: the generator names them PREFIX_MASK, ours are __PREFIX_ALL
    "__SLABLAB_FEAT_ALL", "__SLABLAB_GET_F_ALL", "__SLABLAB_CACHE_F_ALL",
}


def c_upper(name):
    return name.upper().replace("-", "_")


def c_lower(name):
    return name.lower().replace("-", "_")


# ------------------------------------------------------------------ the header


def strip_comments(text):
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


@functools.lru_cache(maxsize=None)
def header_model(path):
    """(enums, defines, values): enums maps each named enum to its member names in
    order, defines the #define names to their text, values every name to the integer
    the C compiler gives it (string defines to their string)."""
    text = strip_comments(open(path).read())
    enums = {}
    for name, body in re.findall(r"enum\s+(\w+)\s*\{(.*?)\}\s*;", text, flags=re.S):
        members = [m.split("=")[0].strip() for m in body.split(",")]
        enums[name] = [m for m in members if m]
    defines = dict(re.findall(r"^#define\s+(SLABLAB_\w+|__SLABLAB_\w+)[ \t]+(.+?)\s*$", text,
                              flags=re.M))
    strings = {k: v.strip('"') for k, v in defines.items() if v.startswith('"')}
    names = [m for members in enums.values() for m in members]
    names += [k for k in defines if k not in strings]
    prog = [f'#include "{os.path.abspath(path)}"', "#include <stdio.h>", "int main(void)", "{"]
    prog += [f'\tprintf("%s %lld\\n", "{n}", (long long)({n}));' for n in names]
    prog += ["\treturn 0;", "}"]
    values = dict(strings)
    out = compile_and_run("\n".join(prog) + "\n")
    for line in out.splitlines():
        k, v = line.split()
        values[k] = int(v)
    return enums, defines, values


def compile_and_run(source):
    cc = shutil.which("gcc") or shutil.which("cc")
    if not cc:
        pytest.skip("no C compiler (build-essential)")
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "v.c"), os.path.join(d, "v")
        with open(src, "w") as f:
            f.write(source)
        subprocess.run([cc, "-std=gnu11", "-o", exe, src], check=True, capture_output=True,
                       text=True)
        return subprocess.run([exe], check=True, capture_output=True, text=True).stdout


# ------------------------------------------------------------------ the spec


@functools.lru_cache(maxsize=None)
def spec():
    with open(SPEC_PATH) as f:
        return yaml.safe_load(f)


def family():
    return spec()["name"]


def const_values():
    return {d["name"]: d["value"] for d in spec().get("definitions", []) if d["type"] == "const"}


def definition_entries(d):
    """[(C name, value)] of an enum or flags definition, as the generator numbers them
    (flags: bit N is 1 << N)."""
    prefix = d.get("name-prefix", f"{family()}-{d['name']}-")
    out, v = [], d.get("value-start", 0)
    for e in d["entries"]:
        e = {"name": e} if isinstance(e, str) else e
        v = e.get("value", v)
        out.append((c_upper(prefix + e["name"]), 1 << v if d["type"] == "flags" else v))
        v += 1
    return out


def definition_enum_name(d):
    return c_lower(d.get("enum-name") or f"{family()}-{d['name']}")


def attr_sets():
    return {s["name"]: s for s in spec()["attribute-sets"]}


def set_prefix(s):
    if "name-prefix" in s:
        return s["name-prefix"]
    if s["name"] == family():
        return f"{family()}-a-"
    return f"{family()}-a-{s['name']}-"


def set_attrs(s):
    """{attribute name: (C name, value, attribute)} of an attribute set, numbered as ynl
    numbers them (from 1 unless given)."""
    out, v = {}, 1
    for a in s["attributes"]:
        v = a.get("value", v)
        out[a["name"]] = (c_upper(set_prefix(s) + a["name"]), v, a)
        v += 1
    return out


def op_values():
    ops = spec()["operations"]
    prefix = ops.get("name-prefix", f"{family()}-cmd-")
    out, v = [], 1
    for op in ops["list"]:
        v = op.get("value", v)
        out.append((c_upper(prefix + op["name"]), v))
        v += 1
    return out


def enum_defs():
    return [d for d in spec().get("definitions", []) if d["type"] in ("enum", "flags")]


# ------------------------------------------------------------------ spec vs header


def test_family_name_and_version():
    _, _, values = header_model(HEADER)
    s = spec()
    assert values[c_upper(s["c-family-name"])] == s["name"]
    assert values[c_upper(s["c-version-name"])] == s.get("version", 1)


def test_constants():
    _, defines, values = header_model(HEADER)
    consts = const_values()
    for name, value in consts.items():
        assert values.get(c_upper(f"{family()}-{name}")) == value, name
    # every constant of the header is in the spec (the maxima of enums and attribute
    # sets and the family's name and version are checked with those)
    derived = {c_upper(spec()["c-family-name"]), c_upper(spec()["c-version-name"])}
    derived |= {n for n in defines if n.endswith("_MAX") and f"__{n}" in values}
    missing = set(defines) - derived - {c_upper(f"{family()}-{n}") for n in consts}
    assert not missing, f"header constants not in the spec: {sorted(missing)}"


@pytest.mark.parametrize("d", enum_defs(), ids=lambda d: str(d["name"]))
def test_enum_definition(d):
    enums, _, values = header_model(HEADER)
    name = definition_enum_name(d)
    assert name in enums, f"enum {name} of the spec is not in the header"
    entries = definition_entries(d)
    members = enums[name]
    assert members[:len(entries)] == [n for n, _ in entries], name
    assert [values[n] for n, _ in entries] == [v for _, v in entries], name
    # what follows is the one count/mask sentinel: __..._MAX = number of values, or
    # __..._ALL = every flag
    extra = members[len(entries):]
    assert len(extra) == 1 and extra[0].startswith("__"), (name, extra)
    if d["type"] == "flags":
        assert values[extra[0]] == sum(v for _, v in entries), extra[0]
    else:
        assert values[extra[0]] == len(entries), extra[0]
        if d.get("render-max"):
            assert extra[0] == "__" + c_upper(d.get("name-prefix", "") + "max")
    # a #define NAME_MAX (__NAME_MAX - 1) next to it, where there is one
    if extra[0][2:] in values:
        assert values[extra[0][2:]] == values[extra[0]] - 1


@pytest.mark.parametrize("s", [s for s in spec()["attribute-sets"] if "subset-of" not in s],
                         ids=lambda s: str(s["name"]))
def test_attribute_set(s):
    enums, _, values = header_model(HEADER)
    attrs = set_attrs(s)
    if s["name"] == "stats":
        # no enum of its own: attribute type = enum slablab_stat_item value + 1
        items = next(d for d in enum_defs() if d["name"] == "stat-item")
        want = [("pad", 0)] + [(e if isinstance(e, str) else e["name"], i + 1)
                               for i, e in enumerate(items["entries"])]
        assert [(n, v) for n, (_, v, _) in attrs.items()] == want
        assert all(a["type"] == "u64" for n, (_, _, a) in attrs.items() if n != "pad")
        return
    name = c_lower(s["enum-name"])
    assert name in enums, f"attribute set {s['name']}: no enum {name} in the header"
    cnt = c_upper(s.get("attr-cnt-name", f"__{set_prefix(s)}max"))
    want = [c for c, _, _ in attrs.values()] + [cnt]
    assert enums[name] == want, name
    assert [values[c] for c, _, _ in attrs.values()] == [v for _, v, _ in attrs.values()], name
    assert values[cnt] == max(v for _, v, _ in attrs.values()) + 1
    assert values[c_upper(s.get("attr-max-name", f"{set_prefix(s)}max"))] == values[cnt] - 1


def test_commands():
    enums, _, values = header_model(HEADER)
    name = c_lower(spec()["operations"]["enum-name"])
    ops = op_values()
    prefix = c_upper(spec()["operations"].get("name-prefix", f"{family()}-cmd-"))
    assert enums[name] == [prefix + "UNSPEC"] + [n for n, _ in ops] + [f"__{prefix}MAX"]
    assert values[prefix + "UNSPEC"] == 0
    assert [values[n] for n, _ in ops] == [v for _, v in ops]
    assert values[f"{prefix}MAX"] == ops[-1][1]


def test_every_header_enum_is_in_the_spec():
    enums, _, _ = header_model(HEADER)
    covered = {definition_enum_name(d) for d in enum_defs()}
    covered |= {c_lower(s["enum-name"]) for s in spec()["attribute-sets"] if "enum-name" in s}
    covered.add(c_lower(spec()["operations"]["enum-name"]))
    assert set(enums) <= covered, f"header enums not in the spec: {sorted(set(enums) - covered)}"


# ------------------------------------------------------------------ spec vs module policies

POLICY_RE = re.compile(r"(?:static\s+)?const\s+struct\s+nla_policy\s+(\w+)\s*\[[^\]]*\]\s*=\s*"
                       r"\{(.*?)\n\}\s*;", re.S)
RANGE_RE = re.compile(r"struct\s+netlink_range_validation\s+(\w+)\s*=\s*\{(.*?)\}\s*;", re.S)
NLA_TYPES = {"NLA_U8": "u8", "NLA_U16": "u16", "NLA_U32": "u32", "NLA_U64": "u64",
             "NLA_S32": "s32", "NLA_S64": "s64", "NLA_NUL_STRING": "string",
             "NLA_STRING": "string", "NLA_FLAG": "flag", "NLA_BINARY": "binary",
             "NLA_NESTED": "nest"}


def c_eval(expr, values):
    """An integer expression of the module's sources, header names substituted."""
    def name(m):
        if m.group(0) not in values:
            raise AssertionError(f"policy expression {expr!r}: unknown name {m.group(0)}")
        return str(values[m.group(0)])
    py = re.sub(r"\b(0x[0-9a-fA-F]+|\d+)(?:ULL|UL|LL|U|L)?\b", r"\1", expr)
    py = re.sub(r"\b[A-Za-z_]\w*\b", name, py)
    assert re.fullmatch(r"[\d\sx()+\-*/<>|&a-fA-F]*", py), expr
    return int(eval(py.replace("/", "//"), {"__builtins__": {}}))  # noqa: S307


def split_entries(body):
    """[(attribute C name, policy expression)] of a policy table's body."""
    body = strip_comments(body)
    out = []
    for m in re.finditer(r"\[\s*(\w+)\s*\]\s*=\s*", body):
        start, depth, i = m.end(), 0, m.end()
        while i < len(body):
            c = body[i]
            if c in "({":
                depth += 1
            elif c in ")}":
                depth -= 1
            elif c == "," and depth == 0:
                break
            i += 1
        out.append((m.group(1), " ".join(body[start:i].split())))
    return out


@functools.lru_cache(maxsize=None)
def module_policies():
    """{policy table name: {attribute C name: (type, checks, nested policy, array)}}"""
    _, _, values = header_model(HEADER)
    sources = ""
    for f in sorted(os.listdir(MODULE)):
        if f.endswith(".c") or f.endswith(".h"):
            sources += open(os.path.join(MODULE, f)).read() + "\n"
    sources = strip_comments(sources)
    ranges = {}
    for name, body in RANGE_RE.findall(sources):
        r = dict(re.findall(r"\.(min|max)\s*=\s*([^,}]+)", body))
        ranges[name] = {k: c_eval(v, values) for k, v in r.items()}
    policies = {}
    for pname, body in POLICY_RE.findall(sources):
        table = {}
        for attr, expr in split_entries(body):
            table[attr] = parse_policy(expr, ranges, values)
        policies[pname] = table
    assert policies, "no nla_policy tables found in module/"
    return policies


def parse_policy(expr, ranges, values):
    m = re.fullmatch(r"\{\s*\.type\s*=\s*(\w+)\s*(?:,\s*\.len\s*=\s*([^,}]+?))?\s*,?\s*\}", expr)
    if m:
        checks = {"max-len": c_eval(m.group(2), values)} if m.group(2) else {}
        return NLA_TYPES[m.group(1)], checks, None, False
    m = re.fullmatch(r"NLA_POLICY_(MASK|MAX|MIN)\(\s*(\w+)\s*,\s*(.+)\)", expr)
    if m:
        key = {"MASK": "mask", "MAX": "max", "MIN": "min"}[m.group(1)]
        return NLA_TYPES[m.group(2)], {key: c_eval(m.group(3), values)}, None, False
    m = re.fullmatch(r"NLA_POLICY_RANGE\(\s*(\w+)\s*,\s*(.+?)\s*,\s*(.+)\)", expr)
    if m:
        return NLA_TYPES[m.group(1)], {"min": c_eval(m.group(2), values),
                                       "max": c_eval(m.group(3), values)}, None, False
    m = re.fullmatch(r"NLA_POLICY_FULL_RANGE\(\s*(\w+)\s*,\s*&\s*(\w+)\s*\)", expr)
    if m:
        return NLA_TYPES[m.group(1)], dict(ranges[m.group(2)]), None, False
    m = re.fullmatch(r"NLA_POLICY_NESTED(_ARRAY)?\(\s*(\w+)\s*\)", expr)
    if m:
        return "nest", {}, m.group(2), bool(m.group(1))
    raise AssertionError(f"tests/host/test_spec.py cannot read the policy {expr!r}: teach it")


def spec_checks(a):
    """What the kernel policy must check for spec attribute @a: its checks, and what its
    enum implies (the generator's rule: a flags enum is a mask, an enum a range)."""
    consts = const_values()
    out = {}
    defs = {d["name"]: d for d in spec().get("definitions", [])}

    def limit(v):
        if isinstance(v, int):
            return v
        m = re.fullmatch(r"([\w-]+)( - 1)?", v)
        if m and m.group(1) in consts:
            return consts[m.group(1)] - (1 if m.group(2) else 0)
        kind, what = v[0], v.split("-")[1]
        width = int(v[1:].split("-")[0]) - (kind == "s")
        return (1 << width) - 1 if what == "max" else (0 if kind == "u" else -(1 << width))

    for k, v in a.get("checks", {}).items():
        if k == "flags-mask":
            out["mask"] = sum(v for _, v in definition_entries(defs[v]))
        else:
            out[k] = limit(v)
    if "enum" in a and "mask" not in out:
        d = defs[a["enum"]]
        vals = [v for _, v in definition_entries(d)]
        if d["type"] == "flags" or a.get("enum-as-flags"):
            out["mask"] = sum(vals)
        else:
            out.setdefault("max", max(vals))
            if min(vals) != 0:
                out.setdefault("min", min(vals))
    if out.get("min") == 0 and a["type"].startswith("u"):
        del out["min"]
    return out


def spec_attr_by_c_name():
    out = {}
    for s in spec()["attribute-sets"]:
        if "subset-of" in s:
            continue
        for n, (c, _, a) in set_attrs(s).items():
            out[c] = (s["name"], a)
    return out


def policy_set(table):
    by_c = spec_attr_by_c_name()
    sets = {by_c[c][0] for c in table if c in by_c}
    missing = [c for c in table if c not in by_c]
    assert not missing, f"policy attributes the spec does not have: {missing}"
    assert len(sets) == 1, f"a policy table mixes attribute sets {sets}"
    return sets.pop()


def test_policies_match_spec_checks():
    policies = module_policies()
    by_c = spec_attr_by_c_name()
    sets = attr_sets()
    checked = set()
    for pname, table in policies.items():
        set_name = policy_set(table)
        for c, (ptype, pchecks, nested, array) in table.items():
            _, a = by_c[c]
            where = f"{pname}[{c}] ({set_name}.{a['name']})"
            assert a["type"] == ptype, f"{where}: policy type {ptype}, spec {a['type']}"
            if pchecks.get("min") == 0:
                del pchecks["min"]
            assert pchecks == spec_checks(a), f"{where}: policy {pchecks}, spec {spec_checks(a)}"
            if nested:
                inner = policy_set(policies[nested])
                if array:
                    # NLA_POLICY_NESTED_ARRAY: the spec's nest holds multi-attr entry nests
                    entries = [x for x in sets[a["nested-attributes"]]["attributes"]
                               if x.get("multi-attr") and x["type"] == "nest"]
                    assert [x["nested-attributes"] for x in entries] == [inner], where
                else:
                    assert a["nested-attributes"] == inner, where
            checked.add(c)
    # checks in the spec that no policy enforces would be lies
    for c, (set_name, a) in by_c.items():
        if c not in checked:
            assert not a.get("checks"), f"{set_name}.{a['name']} has checks but no policy"
    # the top-level attributes of every request are in the family's policy
    top = next(t for t in policies.values() if policy_set(t) == family())
    for op in spec()["operations"]["list"]:
        for mode in ("do", "dump"):
            for name in op.get(mode, {}).get("request", {}).get("attributes", []):
                assert set_attrs(sets[family()])[name][0] in top, f"{op['name']} {mode} {name}"


# ------------------------------------------------------------------ the kernel's tools


@functools.lru_cache(maxsize=None)
def ynl_env():
    r = subprocess.run([os.path.join(REPO, "scripts", "ynl.sh")], capture_output=True,
                       text=True, timeout=600)
    if r.returncode != 0:
        pytest.skip(f"scripts/ynl.sh could not fetch the kernel's YNL tools: {r.stderr[-500:]}")
    return dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)


def test_spec_is_valid_under_the_kernel_schema():
    jsonschema = pytest.importorskip("jsonschema",
                                     reason="python3-jsonschema (scripts/deps.sh installs it)")
    schema_path = ynl_env()["YNL_SCHEMA"]
    assert os.path.basename(schema_path) == f"{spec()['protocol']}.yaml"
    with open(schema_path) as f:
        schema = yaml.safe_load(f)
    # the schemas name draft-07 by a URI jsonschema does not resolve: say so directly
    jsonschema.Draft7Validator(schema).validate(spec())


def generated_header(tmp_path):
    """ynl-gen-c.py --mode uapi --header on the spec. The generator wants a kernel tree:
    it looks for MAINTAINERS above the spec (and loops forever without one) and for the
    schema two directories above it, so the spec is copied into a skeleton of one."""
    env = ynl_env()
    root = tmp_path / "kernel"
    specs = root / "Documentation" / "netlink" / "specs"
    specs.mkdir(parents=True)
    (root / "MAINTAINERS").write_text("")
    os.symlink(env["YNL_SCHEMA"], specs.parent / os.path.basename(env["YNL_SCHEMA"]))
    shutil.copy(SPEC_PATH, specs / "slablab.yaml")
    out = tmp_path / "slablab.h"
    r = subprocess.run([PY, env["YNL_GEN"], "--mode", "uapi", "--header",
                        "--spec", str(specs / "slablab.yaml"), "-o", str(out)],
                       capture_output=True, text=True, timeout=300,
                       cwd=os.path.dirname(env["YNL_GEN"]))
    assert r.returncode == 0, r.stdout + r.stderr
    return str(out)


def test_generated_uapi_header_matches(tmp_path):
    gen = generated_header(tmp_path)
    g_enums, _, g_values = header_model(gen)
    o_enums, _, o_values = header_model(HEADER)
    # the same enums (the generator adds the stats set's)
    assert set(o_enums) <= set(g_enums), sorted(set(o_enums) - set(g_enums))
    differ = {n: (o_values[n], g_values[n]) for n in set(o_values) & set(g_values)
              if o_values[n] != g_values[n]}
    assert not differ, f"ours vs generated: {differ}"
    missing = set(o_values) - set(g_values)
    assert missing <= KNOWN_GAPS, f"not in the generated header: {sorted(missing - KNOWN_GAPS)}"
    # what only the generator writes: NAME_MAX = (__NAME_MAX - 1) of render-max enums,
    # and the stats set's enum
    extra = {n for n in set(g_values) - set(o_values)
             if not (f"__{n}" in o_values or n.startswith(("SLABLAB_STATS_A_",
                                                           "__SLABLAB_STATS_A_")))}
    assert not extra, f"only in the generated header: {sorted(extra)}"

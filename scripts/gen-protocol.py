#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Generate everything that restates uapi/slablab.yaml (the YNL spec of the slablab
generic netlink family), so that a new tunable, counter or attribute is one edit to the
spec plus the code that makes it do something (docs/design.md, docs/netlink.md):

  uapi/linux/slablab.h            the uapi header: constants, enums, attribute sets,
                                  commands, with the spec's docs
  module/netlink-gen.h, .c        the module's nla_policy tables (the spec's checks as
                                  NLA_POLICY_RANGE/MIN/MAX/MASK, as ynl-gen-c's kernel
                                  mode writes them; only the attributes requests carry),
                                  the ops table slablab_nl_ops[] and the prototypes of
                                  its handlers, slablab_nl_<op>_doit/_dumpit (ynl-gen-c's
                                  names), admin-perm ops flagged GENL_ADMIN_PERM and
                                  SLABLAB_NL_SYS_ADMIN
  module/tunables-gen.c           the module's tunable registry (struct slablab_tunable),
                                  joined with uapi/tunables.yaml (designs, defaults)
  include/slablab/protocol.h      X-macro tables of the cache tunables (and the designs
                                  that use each) and gauges and of the stat items
                                  (module, slabctl, Python binding)
  tool/include/slabctl/protocol.hpp  attribute names by set (slabctl's error messages)
  python/slablab/protocol.py      the header's names and values, commands, tunables
  python/slablab/_core.pyi        the section between the "generated" markers

  scripts/gen-protocol.py           write the files that changed
  scripts/gen-protocol.py --check   write nothing; exit 1 and name the files that are
                                    not what the spec makes (tests/host/test_generated.py)

Only Debian's python3 and python3-yaml are needed. The kernel's own generator
(ynl-gen-c.py) cannot be used for the header and policies as they are: slablab's names
predate the spec (tests/host/test_spec.py compares its header with ours, KNOWN_GAPS).
"""
import argparse
import os
import sys
import textwrap

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(REPO, "uapi", "slablab.yaml")
TUNABLES = os.path.join(REPO, "uapi", "tunables.yaml")
ORIGIN = "generated from uapi/slablab.yaml by scripts/gen-protocol.py — do not edit"
STUB_BEGIN = "    # --- generated from uapi/slablab.yaml by scripts/gen-protocol.py: cache tunables ---"
STUB_END = "    # --- end of generated ---"

# Counts of enums whose value prefix is not their name: the 6.12 schema has no
# enum-cnt-name to say them (docs/netlink.md). {enum: (count name, #define of the last)}
COUNT_NAMES = {
    "stat-item": ("__SLABLAB_STAT_MAX", "SLABLAB_STAT_MAX"),
    "storm-state": ("__SLABLAB_STORM_STATE_MAX", None),
}


def c_upper(name):
    return name.upper().replace("-", "_")


def c_lower(name):
    return name.lower().replace("-", "_")


class UniqueKeyLoader(yaml.SafeLoader):
    """safe_load that refuses a key given twice in one mapping: PyYAML keeps the last
    silently, so a merge that lost a list's "-" between two entries would drop one."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise SystemExit(f"gen-protocol: {key_node.start_mark}: key {key!r} given "
                                 "twice in one mapping (a lost '-' between list entries?)")
            seen.add(key)
        return super().construct_mapping(node, deep)


def check_unique_names(y):
    """Each definition, attribute set, set's attribute and operation named once."""
    groups = [("definitions", y.get("definitions", [])),
              ("attribute-sets", y["attribute-sets"]),
              ("operations", y.get("operations", {}).get("list", []))]
    groups += [(f"attribute-set {s['name']}", s["attributes"]) for s in y["attribute-sets"]]
    for what, items in groups:
        names = [i["name"] for i in items]
        dups = sorted({n for n in names if names.count(n) > 1})
        if dups:
            raise SystemExit(f"gen-protocol: {what}: {', '.join(dups)} named twice")


class Spec:
    """The spec, with names and values numbered as ynl numbers them."""

    def __init__(self, path):
        with open(path) as f:
            self.y = yaml.load(f, Loader=UniqueKeyLoader)  # noqa: S506 (a SafeLoader)
        check_unique_names(self.y)
        self.family = self.y["name"]
        self.defs = {d["name"]: d for d in self.y.get("definitions", [])}
        self.sets = {s["name"]: s for s in self.y["attribute-sets"]}
        self.consts = {d["name"]: d["value"] for d in self.defs.values() if d["type"] == "const"}

    # definitions
    def const_c(self, name):
        return c_upper(f"{self.family}-{name}")

    def entries(self, d):
        """[(C name, value, doc)] of an enum or flags definition."""
        prefix = d.get("name-prefix", f"{self.family}-{d['name']}-")
        out, v = [], d.get("value-start", 0)
        for e in d["entries"]:
            e = {"name": e} if isinstance(e, str) else e
            v = e.get("value", v)
            out.append((c_upper(prefix + e["name"]), 1 << v if d["type"] == "flags" else v,
                        e.get("doc", "").strip()))
            v += 1
        return out

    def enum_c(self, d):
        return c_lower(d.get("enum-name") or f"{self.family}-{d['name']}")

    def sentinel(self, d):
        """(name, value, #define or None) that ends an enum or flags definition."""
        ents = self.entries(d)
        prefix = c_upper(d.get("name-prefix", f"{self.family}-{d['name']}-"))
        if d["type"] == "flags":
            return f"__{prefix}ALL", sum(v for _, v, _ in ents), None
        if d.get("render-max"):
            return f"__{prefix}MAX", len(ents), None
        cnt, define = COUNT_NAMES[d["name"]]
        return cnt, len(ents), define

    # attribute sets
    def prefix(self, s):
        if "subset-of" in s:
            return self.prefix(self.sets[s["subset-of"]])
        if "name-prefix" in s:
            return s["name-prefix"]
        if s["name"] == self.family:
            return f"{self.family}-a-"
        return f"{self.family}-a-{s['name']}-"

    def attrs(self, set_name):
        """[(name, C name, value, attribute)] of a full attribute set."""
        s = self.sets[set_name]
        out, v = [], 1
        for a in s["attributes"]:
            v = a.get("value", v)
            out.append((a["name"], c_upper(self.prefix(s) + a["name"]), v, a))
            v += 1
        return out

    def attr(self, set_name, name):
        return next(x for x in self.attrs(set_name) if x[0] == name)

    def subset(self, name):
        """[(name, C name, value, attribute)] of a subset, in the subset's order."""
        s = self.sets[name]
        return [self.attr(s["subset-of"], a["name"]) for a in s["attributes"]]

    def full_sets(self):
        return [s for s in self.y["attribute-sets"] if "subset-of" not in s]

    def cnt_name(self, s):
        return c_upper(s.get("attr-cnt-name", f"__{self.prefix(s)}max"))

    def max_name(self, s):
        return c_upper(s.get("attr-max-name", f"{self.prefix(s)}max"))

    # operations
    def ops(self):
        o = self.y["operations"]
        prefix = o.get("name-prefix", f"{self.family}-cmd-")
        out, v = [], 1
        for op in o["list"]:
            v = op.get("value", v)
            out.append((op, c_upper(prefix + op["name"]), v))
            v += 1
        return out

    def cmd_prefix(self):
        return c_upper(self.y["operations"].get("name-prefix", f"{self.family}-cmd-"))

    def handler(self, op, mode):
        """The C name of @op's handler for @mode ("do" or "dump"), as ynl-gen-c names
        it: <family>_nl_<op>_doit, <family>_nl_<op>_dumpit."""
        return c_lower(f"{self.family}-nl-{op['name']}-{mode}it")

    # checks
    def limit(self, v):
        if isinstance(v, int):
            return v
        if v in self.consts:
            return self.consts[v]
        if v.endswith(" - 1") and v[:-4] in self.consts:
            return self.consts[v[:-4]] - 1
        kind, what = v[0], v.split("-")[1]
        width = int(v[1:].split("-")[0]) - (kind == "s")
        return (1 << width) - 1 if what == "max" else (0 if kind == "u" else -(1 << width))

    def limit_c(self, v):
        """A check's limit as C: a constant's name where the spec names one."""
        if isinstance(v, str) and v in self.consts:
            return self.const_c(v)
        if isinstance(v, str) and v.endswith(" - 1") and v[:-4] in self.consts:
            return f"{self.const_c(v[:-4])} - 1"
        return c_number(self.limit(v))

    def range_of(self, a):
        """(min, max) a request value of integer attribute @a may take: its checks, its
        enum (values) or flags (mask: max is the mask), else its type's range."""
        bits = {"u8": 8, "u16": 16, "u32": 32, "u64": 64}[a["type"]]
        lo, hi = 0, (1 << bits) - 1
        ch = a.get("checks", {})
        if "enum" in a:
            d = self.defs[a["enum"]]
            vals = [v for _, v, _ in self.entries(d)]
            if d["type"] == "flags":
                hi = sum(vals)
            else:
                lo, hi = min(vals), max(vals)
        lo = self.limit(ch["min"]) if "min" in ch else lo
        hi = self.limit(ch["max"]) if "max" in ch else hi
        return lo, hi

    def request_attrs(self, set_name):
        """The attributes of @set_name the module's policy accepts: the top-level set's
        are those some operation's request names; a nested set's are its `<set>-request`
        subset, or (without one) every attribute but unused, pad and multi-attr nests."""
        if set_name == self.family:
            names = set()
            for op, _, _ in self.ops():
                for mode in ("do", "dump"):
                    names |= set((op.get(mode) or {}).get("request", {}).get("attributes", []))
            return [x for x in self.attrs(set_name) if x[0] in names]
        if f"{set_name}-request" in self.sets:
            return self.subset(f"{set_name}-request")
        return [x for x in self.attrs(set_name)
                if x[3]["type"] not in ("unused", "pad") and not x[3].get("multi-attr")]

    def policy_sets(self):
        """Attribute sets that get a policy: the top level and the nests requests carry."""
        out, todo = [], [self.family]
        while todo:
            s = todo.pop(0)
            if s in out:
                continue
            out.append(s)
            for _, _, _, a in self.request_attrs(s):
                if a["type"] == "nest":
                    inner = self.array_entry_set(a) or a["nested-attributes"]
                    todo.append(inner)
        return out

    def array_entry_set(self, a):
        """For a nest that holds multi-attr entry nests (storm.sizes), the entries' set."""
        inner = self.sets[a["nested-attributes"]]
        entries = [x for x in inner["attributes"] if x.get("multi-attr") and x["type"] == "nest"]
        if entries and a["nested-attributes"] != self.family:
            return entries[0]["nested-attributes"]
        return None


def c_number(v):
    if v > 0xFFFFFFFF:
        return f"{v}ULL"
    return f"{v}U" if v > 0x7FFFFFFF else str(v)


def wrap(text, width, first="", rest=None):
    rest = first if rest is None else rest
    out = []
    for para in text.strip().split("\n\n"):
        lines = textwrap.wrap(" ".join(para.split()), width=width, initial_indent=first,
                              subsequent_indent=rest, break_on_hyphens=False)
        out += lines or [first.rstrip()]
        out.append(rest.rstrip())
    return out[:-1]


def comment_block(text, width=88, kdoc_title=None):
    lines = ["/**" if kdoc_title else "/*"]
    if kdoc_title:
        lines += [" * " + kdoc_title]
    lines += [(" * " + x[3:]).rstrip() if x.startswith(" * ") else x
              for x in wrap(text, width, " * ")] if text else []
    lines.append(" */")
    return lines


def star(lines):
    """Comment body lines: ' * text', ' *\ttext' for continuations, ' *' for blanks."""
    return [(" *" + x if x.startswith("\t") else " * " + x).rstrip() for x in lines]


def kdoc(what, doc, members, fallback="the values"):
    """A kernel-doc comment: `what - <first sentence>`, the @members, then the rest."""
    text = " ".join(doc.split())
    brief, _, rest = text.partition(". ")
    if len(f"{what} - {brief}") > 86 and " (" in brief:
        brief = brief.split(" (")[0]
    if len(f"{what} - {brief}") > 86:
        brief, rest = fallback, text
    lines = wrap(f"{what} - {brief.rstrip('.')}", 86, "", "\t") + members
    if rest.strip() and rest.strip() != brief:
        lines += [""] + wrap(rest, 86)
    return ["/**"] + star(lines) + [" */"]


def attr_kind(sp, a):
    t = a["type"]
    if "enum" in a:
        d = sp.defs[a["enum"]]
        t += f", {'flags' if d['type'] == 'flags' else 'enum'} {sp.enum_c(d)}"
    if t == "nest" or a["type"] == "nest":
        t = f"nest of {a['nested-attributes']}"
        if a.get("multi-attr"):
            t = f"nest (repeated) of {a['nested-attributes']}"
    return t


# ------------------------------------------------------------------ uapi header


def header_model(sp):
    """{C name: value} of everything the header defines (strings as str) and
    {C enum: [members]}: the Python table (python/slablab/protocol.py)."""
    values = {c_upper(sp.y["c-family-name"]): sp.family,
              c_upper(sp.y["c-version-name"]): sp.y.get("version", 1)}
    enums = {}
    for name, v in sp.consts.items():
        values[sp.const_c(name)] = v
    for d in sp.defs.values():
        if d["type"] == "const":
            continue
        ents = sp.entries(d)
        s_name, s_val, define = sp.sentinel(d)
        enums[sp.enum_c(d)] = [n for n, _, _ in ents] + [s_name]
        values.update({n: v for n, v, _ in ents})
        values[s_name] = s_val
        if define:
            values[define] = s_val - 1
    for s in sp.full_sets():
        attrs = sp.attrs(s["name"])
        cnt = sp.cnt_name(s)
        enums[c_lower(s["enum-name"])] = [c for _, c, _, _ in attrs] + [cnt]
        values.update({c: v for _, c, v, _ in attrs})
        values[cnt] = attrs[-1][2] + 1
        values[sp.max_name(s)] = attrs[-1][2]
    p = sp.cmd_prefix()
    ops = sp.ops()
    enums[c_lower(sp.y["operations"]["enum-name"])] = (
        [p + "UNSPEC"] + [c for _, c, _ in ops] + [f"__{p}MAX"])
    values[p + "UNSPEC"] = 0
    values.update({c: v for _, c, v in ops})
    values[f"__{p}MAX"] = ops[-1][2] + 1
    values[f"{p}MAX"] = ops[-1][2]
    return values, enums


def op_summary(sp, op):
    def attrs(mode, part):
        return (op.get(mode) or {}).get(part, {}).get("attributes")
    parts = []
    for mode in ("do", "dump"):
        if mode not in op:
            continue
        req, rep = attrs(mode, "request"), attrs(mode, "reply")
        parts.append(f"{mode}: → {', '.join(req) if req else '(nothing)'}"
                     + (f"; ← {', '.join(rep)}" if rep else ""))
    return "; ".join(parts)


def gen_header(sp):
    L = ["/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */",
         f"/* {ORIGIN} */"]
    top = [sp.y["doc"].strip(), "",
           f'Family name: "{sp.family}" ({c_upper(sp.y["c-family-name"])}), version '
           f'{sp.y.get("version", 1)} ({c_upper(sp.y["c-version-name"])}). Spec names '
           "(cache-get, cache.min-partial) are those of uapi/slablab.yaml: the C names are "
           "SLABLAB_CMD_CACHE_GET, SLABLAB_CACHE_A_MIN_PARTIAL.", "", "Commands:"]
    L += ["/*"] + [x.rstrip() for x in wrap("\n".join(top[:-1]), 88, " * ")]
    L += [" *", " * Commands (→ request, ← reply):"]
    for op, c, _ in sp.ops():
        admin = " [ADMIN]" if "admin-perm" in op.get("flags", []) else ""
        L += [" *", f" * {c}{admin}"]
        L += [x.rstrip() for x in wrap(op_summary(sp, op), 86, " *   ")]
        L += [x.rstrip() for x in wrap(op.get("doc", ""), 86, " *   ")]
    L += [" */", "#ifndef _UAPI_LINUX_SLABLAB_H", "#define _UAPI_LINUX_SLABLAB_H", "",
          "#include <linux/types.h>", "",
          f'#define {c_upper(sp.y["c-family-name"])}\t"{sp.family}"',
          f'#define {c_upper(sp.y["c-version-name"])}\t{sp.y.get("version", 1)}', ""]
    for d in sp.defs.values():
        if d["type"] != "const":
            continue
        doc = " ".join(d.get("doc", "").split())
        if doc and len(doc) <= 83:
            L.append(f"/* {doc} */")
        elif doc:
            L += comment_block(doc)
        L.append(f"#define {sp.const_c(d['name'])}\t{c_number(d['value'])}")
    for d in sp.defs.values():
        if d["type"] == "const":
            continue
        name = sp.enum_c(d)
        ents = sp.entries(d)
        s_name, s_val, define = sp.sentinel(d)
        L.append("")
        body = []
        for n, v, edoc in ents:
            body += wrap(f"@{n}: {edoc or n[len(c_upper(d.get('name-prefix', ''))):].lower()}",
                         86, "", "\t")
        body.append(f"@{s_name}: " + ("every bit" if d["type"] == "flags"
                                      else "the number of values"))
        L += kdoc(f"enum {name}", d.get("doc", ""), body)
        L.append(f"enum {name} {{")
        for n, v, _ in ents:
            L.append(f"\t{n} = 1U << {v.bit_length() - 1}," if d["type"] == "flags"
                     else f"\t{n},")
        if d["type"] == "flags":
            L.append(f"\t{s_name} = (1U << {len(ents)}) - 1")
        else:
            L.append(f"\t{s_name}")
        L.append("};")
        if define:
            L += ["", f"#define {define} ({s_name} - 1)"]
    for s in sp.full_sets():
        name = c_lower(s["enum-name"])
        L.append("")
        body = []
        for an, c, v, a in sp.attrs(s["name"]):
            if a["type"] == "unused":
                body.append(f"@{c}: not used")
                continue
            what = attr_kind(sp, a)
            ch = a.get("checks", {})
            rng = ""
            if a["type"] != "pad" and ({"min", "max"} & set(ch)):
                lo, hi = sp.range_of(a)
                rng = f", {lo}..{hi}"
            if "max-len" in ch:
                rng = f", at most {sp.limit(ch['max-len'])} characters"
            doc = " ".join(a.get("doc", "").split())
            if a["type"] == "pad":
                doc = doc or "alignment padding of u64 attributes"
            body += wrap(f"@{c}: ({what}{rng}) {doc}".rstrip(), 86, "", "\t")
        body.append(f"@{sp.cnt_name(s)}: the number of attribute types")
        L += kdoc(f"enum {name}", s.get("doc", ""), body,
                  f"the attributes of the {s['name']} set")
        L.append(f"enum {name} {{")
        expect = 0
        for an, c, v, a in sp.attrs(s["name"]):
            L.append(f"\t{c}," if v == expect else f"\t{c} = {v},")
            expect = v + 1
        L += [f"\t{sp.cnt_name(s)}", "};", "",
              f"#define {sp.max_name(s)} ({sp.cnt_name(s)} - 1)"]
    p = sp.cmd_prefix()
    name = c_lower(sp.y["operations"]["enum-name"])
    L += ["", f"/* enum {name}: the commands, described at the top */",
          f"enum {name} {{", f"\t{p}UNSPEC,"]
    expect = 1
    for _, c, v in sp.ops():
        # a gap (a retired command's value stays reserved) is written as "= value"
        L.append(f"\t{c}," if v == expect else f"\t{c} = {v},")
        expect = v + 1
    L += [f"\t__{p}MAX", "};", "", f"#define {p}MAX (__{p}MAX - 1)", "",
          "#endif /* _UAPI_LINUX_SLABLAB_H */"]
    return "\n".join(L) + "\n"


# ------------------------------------------------------------------ module policies


def policy_name(sp, set_name):
    return f"{c_lower(sp.family)}_policy" if set_name == sp.family else \
        f"{c_lower(sp.family)}_{c_lower(set_name)}_policy"


NLA = {"u8": "NLA_U8", "u16": "NLA_U16", "u32": "NLA_U32", "u64": "NLA_U64",
       "s32": "NLA_S32", "s64": "NLA_S64", "flag": "NLA_FLAG", "binary": "NLA_BINARY"}
S16 = (-32768, 32767)


def policy_entry(sp, set_name, c, a, ranges):
    """The nla_policy initializer of attribute @a, ynl-gen-c's rules: a flags enum is a
    mask, an enum a maximum, checks are RANGE/MIN/MAX while they fit the policy's s16
    fields and a struct netlink_range_validation (FULL_RANGE) beyond."""
    t = a["type"]
    if t == "string":
        ml = a.get("checks", {}).get("max-len")
        return ("{ .type = NLA_NUL_STRING, .len = %s }" % sp.limit_c(ml) if ml is not None
                else "{ .type = NLA_NUL_STRING }")
    if t == "nest":
        entry = sp.array_entry_set(a)
        if entry:
            return f"NLA_POLICY_NESTED_ARRAY({policy_name(sp, entry)})"
        return f"NLA_POLICY_NESTED({policy_name(sp, a['nested-attributes'])})"
    nla = NLA[t]
    ch = a.get("checks", {})
    if "enum" in a and not ({"min", "max"} & set(ch)):
        d = sp.defs[a["enum"]]
        s_name, _, _ = sp.sentinel(d)
        if d["type"] == "flags":
            return f"NLA_POLICY_MASK({nla}, {s_name})"
        return f"NLA_POLICY_MAX({nla}, {s_name} - 1)"
    if not ({"min", "max"} & set(ch)):
        return "{ .type = %s }" % nla
    lo = sp.limit(ch["min"]) if "min" in ch else None
    hi = sp.limit(ch["max"]) if "max" in ch else None
    fits = all(v is None or S16[0] <= v <= S16[1] for v in (lo, hi))
    if fits:
        if lo is not None and hi is not None:
            return f"NLA_POLICY_RANGE({nla}, {sp.limit_c(ch['min'])}, {sp.limit_c(ch['max'])})"
        if lo is not None:
            return f"NLA_POLICY_MIN({nla}, {sp.limit_c(ch['min'])})"
        return f"NLA_POLICY_MAX({nla}, {sp.limit_c(ch['max'])})"
    rname = f"{c_lower(set_name)}_{c_lower(a['name'])}_range"
    fields = []
    if lo is not None:
        fields.append(f".min = {sp.limit_c(ch['min'])}")
    if hi is not None:
        fields.append(f".max = {sp.limit_c(ch['max'])}")
    # not const: 6.1's struct nla_policy points at a non-const one
    ranges += [f"static struct netlink_range_validation {rname} = {{"]
    ranges += [f"\t{f}," for f in fields] + ["};", ""]
    return f"NLA_POLICY_FULL_RANGE({nla}, &{rname})"


# The genl_ops.internal_flags bit of the spec's admin-perm operations: the family's
# pre_doit (module/netlink.c) refuses them without CAP_SYS_ADMIN.
SYS_ADMIN = "SLABLAB_NL_SYS_ADMIN"
MODES = ("do", "dump")


def struct_init(members):
    """A designated initializer's lines, aligned as ynl-gen-c's write_struct_init()."""
    longest = ((max(len(m) for m, _ in members) + 1 + 8) // 8) * 8
    return [f".{m}" + "\t" * ((longest - len(m) - 1 + 7) // 8) + f"= {v},"
            for m, v in members]


def op_members(sp, op, c):
    """The genl_ops initializer of @op (C name @c): cmd, doit/dumpit where the spec has
    do/dump, and for admin-perm the genetlink flag and the module's own."""
    members = [("cmd", c)]
    members += [(f"{mode}it", sp.handler(op, mode)) for mode in MODES if mode in op]
    flags = op.get("flags", [])
    if flags:
        members.append(("flags", " | ".join(c_upper(f"genl-{f}") for f in flags)))
    if "admin-perm" in flags:
        if "dump" in op:
            # pre_doit (the CAP_SYS_ADMIN check) never runs for a dump
            raise SystemExit(f"{op['name']}: admin-perm with a dump: the family's "
                             "CAP_SYS_ADMIN check (pre_doit) would not guard it")
        members.append(("internal_flags", SYS_ADMIN))
    return members


def handler_doc(sp, op, c, mode):
    """The kernel-doc of @op's (C name @c) @mode handler; the command itself is documented
    in the uapi header's top comment, from the op's doc."""
    lines = wrap(f"{sp.handler(op, mode)} - the {mode} handler of {op['name']} ({c})",
                 86, "", "\t")
    if mode == "do":
        lines += ["@skb: the request", "@info: its attributes, header, sender and extack"]
    else:
        lines += ["@skb: the message to fill", "@cb: the dump's state (its cursor in cb->args)"]
    lines.append("")
    if "admin-perm" in op.get("flags", []):
        lines += ["admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and",
                  f"CAP_SYS_ADMIN ({SYS_ADMIN}, the family's pre_doit)."]
    lines.append("Return: " + ("0, or a negative errno (with an extack message)" if mode == "do"
                               else "the length of @skb (0: the dump is done), or a negative "
                               "errno"))
    return ["/**"] + star(lines) + [" */"]


def gen_ops(sp):
    """The ops table and its handlers' prototypes: (header lines, source lines)."""
    fam = c_lower(sp.family)
    ops = sp.ops()
    h = ["/*",
         " * genl_ops.internal_flags of the spec's admin-perm operations: they change state, and",
         " * the family's pre_doit (netlink.c) refuses them without CAP_SYS_ADMIN. They also",
         " * carry GENL_ADMIN_PERM, genetlink's CAP_NET_ADMIN check.",
         " */",
         f"#define {SYS_ADMIN}\tBIT(0)", "",
         f"/* Ops table for {fam}: genl_ops (kernel-policy: global; 6.1 has no split ops) */",
         f"extern const struct genl_ops {fam}_nl_ops[{len(ops)}];", "",
         "/*",
         " * The handlers, <family>_nl_<op>_doit and _dumpit as ynl-gen-c names them: what each",
         " * command takes and replies is in uapi/linux/slablab.h's top comment (the spec's doc).",
         " */", ""]
    for op, cn, _ in ops:
        for mode in MODES:
            if mode not in op:
                continue
            h += handler_doc(sp, op, cn, mode)
            args = ("struct sk_buff *skb, struct genl_info *info" if mode == "do"
                    else "struct sk_buff *skb, struct netlink_callback *cb")
            h += [f"int {sp.handler(op, mode)}({args});", ""]
    c = ["", f"/* Ops table for {fam}: every operation of the spec, in its order */",
         f"const struct genl_ops {fam}_nl_ops[{len(ops)}] = {{"]
    for op, cn, _ in ops:
        c += ["\t{"] + ["\t\t" + x for x in struct_init(op_members(sp, op, cn))] + ["\t},"]
    c.append("};")
    return h, c


def gen_policies(sp):
    sets = sp.policy_sets()
    h = ["/* SPDX-License-Identifier: GPL-2.0 */", f"/* {ORIGIN} */",
         "#ifndef _SLABLAB_NETLINK_GEN_H", "#define _SLABLAB_NETLINK_GEN_H", "",
         "#include <net/genetlink.h>", '#include "../uapi/linux/slablab.h"', ""]
    c = ["// SPDX-License-Identifier: GPL-2.0", f"/* {ORIGIN} */", "/*",
         " * The policies of the slablab family (kernel-policy: global): one table per",
         " * attribute set requests carry, holding only the attributes requests may carry, so",
         " * that strict validation rejects the reply-only ones as unknown. Then the ops table:",
         " * one genl_ops per operation, with the handlers netlink-gen.h declares (netlink.c,",
         " * netlink-cache.c, netlink-storm.c, netlink-replay.c define them).",
         " */", '#include "netlink-gen.h"', ""]
    ranges, tables = [], []
    for s in reversed(sets):
        set_ = sp.sets[s]
        pname = policy_name(sp, s)
        h.append(f"extern const struct nla_policy {pname}[{sp.max_name(set_)} + 1];")
        rows = []
        for an, cn, v, a in sp.request_attrs(s):
            entry = policy_entry(sp, s, cn, a, ranges)
            row = f"\t[{cn}] = {entry},"
            if len(row.expandtabs(8)) > 100:
                row = f"\t[{cn}] =\n\t\t{entry},"
            rows.append(row)
        tables += ["", f"const struct nla_policy {pname}[{sp.max_name(set_)} + 1] = {{"]
        tables += rows + ["};"]
    ops_h, ops_c = gen_ops(sp)
    h += [""] + ops_h + ["#endif /* _SLABLAB_NETLINK_GEN_H */"]
    c += ranges[:-1] + tables + ops_c
    return "\n".join(h) + "\n", "\n".join(c) + "\n"


# ------------------------------------------------------------------ X-macro tables


def kind_of(sp, a):
    if "enum" in a:
        d = sp.defs[a["enum"]]
        return ("FLAGS" if d["type"] == "flags" else "ENUM"), c_lower(d["name"])
    return "NUM", "none"


def gen_tables(sp):
    L = ["/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */",
         f"/* {ORIGIN} */", "/*",
         " * X-macro tables of the slablab protocol, for the module (netlink fill and set,",
         " * debugfs), slabctl (types, decoders, JSON, names) and the Python binding. Each",
         " * table is a macro taking the macro X to apply to every row:",
         " *",
         " *   #define PUT(attr, name, type, kind, enum, min, max) ...",
         " *   SLABLAB_CACHE_TUNABLES(PUT)",
         " */",
         "#ifndef _SLABLAB_PROTOCOL_H", "#define _SLABLAB_PROTOCOL_H", ""]

    def table(name, doc, rows):
        out = comment_block(doc)
        out.append(f"#define {name}(X) \\")
        out += [f"\t{r} \\" for r in rows[:-1]] + [f"\t{rows[-1]}"]
        return out + [""]

    rows = []
    for an, c, v, a in sp.subset("cache-tunables"):
        kind, enum = kind_of(sp, a)
        lo, hi = sp.range_of(a)
        rows.append(f"X({c_upper(an)}, {c_lower(an)}, {a['type']}, {kind}, {enum}, "
                    f"{c_number(lo)}, {c_number(hi)})")
    L += table("SLABLAB_CACHE_TUNABLES",
               "The cache tunables (spec: cache-tunables), in the order the module applies "
               "them. X(attr, name, type, kind, enum, min, max): attr is the "
               "SLABLAB_CACHE_A_ suffix; name the module's struct slablab_cache field, "
               "slablab_set_<name>(), the debugfs/sysfs file, slabctl's KEY and JSON key and "
               "Python's keyword; type u32 or u64; kind NUM, ENUM or FLAGS (then enum is the "
               "spec's enum, else none); min..max what the kernel's policy accepts (a flags "
               "tunable: max is the mask of its bits).", rows)
    reg = load_registry(sp)
    L += comment_block("The designs whose code reads each tunable (uapi/tunables.yaml): "
                       "SLABLAB_TUNABLE_DESIGNS_<attr>, a mask of SLABLAB_TUNABLE_D_* "
                       "(bit n: enum slablab_design n; SHEAVES_CPU_SLABS: a sheaves cache "
                       "standing on slub's cpu slabs), for an X of SLABLAB_CACHE_TUNABLES "
                       "to paste. A client's report shows a cache the tunables of its "
                       "design.")
    L += [f"#define SLABLAB_TUNABLE_D_{c_upper(d)}\t{1 << i:#x}"
          for i, d in enumerate(DESIGN_BITS)] + [""]
    for r in reg:
        bits = [f"SLABLAB_TUNABLE_D_{c_upper(d)}" for d in r["designs"]]
        bits[0] = "(" + bits[0]
        bits[-1] += ")"
        L.append(f"#define SLABLAB_TUNABLE_DESIGNS_{c_upper(r['name'])} \\")
        L += ["\t" + b + " | \\" for b in bits[:-1]] + ["\t" + bits[-1]]
    L.append("")
    rows = [f"X({c_upper(an)}, {c_lower(an)}, {a['type']})"
            for an, c, v, a in sp.subset("cache-gauges")]
    L += table("SLABLAB_CACHE_GAUGES",
               "The gauges of a cache reply (spec: cache-gauges). X(attr, name, type): attr "
               "is the SLABLAB_CACHE_A_ suffix, name the JSON key under \"gauges\".", rows)
    rows = [f"X({c_upper(an)}, {c_lower(an)})"
            for an, c, v, a in sp.attrs("layers") if a["type"] == "u64"]
    L += table("SLABLAB_CACHE_LAYERS",
               "Where a cache's object slots are (spec: the layers attribute set), in "
               "attribute order. X(attr, name): attr is the SLABLAB_LAYERS_A_ suffix, name "
               "the module's struct slablab_layers field and the JSON key under \"layers\". "
               "A design reports the layers it has (struct slablab_layers' present mask).",
               rows)
    d = sp.defs["design"]
    prefix = c_upper(d.get("name-prefix", f"{sp.family}-design-"))
    rows = [f"X({n[len(prefix):]}, {n[len(prefix):].lower()})" for n, _, _ in sp.entries(d)]
    L += table("SLABLAB_DESIGNS",
               "The designs (spec: design), in enum slablab_design order. X(design, name): "
               "design is the SLABLAB_DESIGN_ suffix, name what every interface calls it "
               "(the tracepoints, slabctl, debugfs, JSON).", rows)
    d = sp.defs["stat-item"]
    prefix = c_upper(d.get("name-prefix"))
    rows = [f"X({n[len(prefix):]}, {n[len(prefix):].lower()})" for n, _, _ in sp.entries(d)]
    L += table("SLABLAB_STAT_ITEMS",
               "The event counters (spec: stat-item), in enum slablab_stat_item order. "
               "X(item, name): item is the SLABLAB_ suffix, name the debugfs and sysfs file "
               "and the JSON key.", rows)
    L.append("#endif /* _SLABLAB_PROTOCOL_H */")
    return "\n".join(L) + "\n"


# ------------------------------------------------------------------ the tunable registry

#: The designs column of uapi/tunables.yaml: a bit each (SLABLAB_TUNABLE_D_*), the enum
#: slablab_design value's bit for a design, then a sheaves cache on slub's cpu slabs.
DESIGN_BITS = ["slub", "sheaves", "slab", "slob", "sheaves-cpu-slabs"]


def load_registry(sp, path=TUNABLES):
    """uapi/tunables.yaml's rows, checked against the spec's cache-tunables: the same
    names in the same order, known designs, a default of a known kind."""
    with open(path) as f:
        rows = yaml.load(f, Loader=UniqueKeyLoader)["tunables"]  # noqa: S506 (SafeLoader)
    names = [an for an, _, _, _ in sp.subset("cache-tunables")]
    got = [r["name"] for r in rows]
    if got != names:
        raise SystemExit(f"{path}: rows {got} are not the spec's cache-tunables {names} "
                         "(one row each, in that order)")
    designs = [e["name"] if isinstance(e, dict) else e
               for e in sp.defs["design"]["entries"]]
    if DESIGN_BITS[:len(designs)] != designs:
        raise SystemExit(f"{path}: the designs column's bits {DESIGN_BITS} do not start "
                         f"with the spec's designs {designs}")
    for an, _, _, a in sp.subset("cache-tunables"):
        if a["type"] != "u32":
            raise SystemExit(f"{an}: a cache tunable is a u32 (the module's fields are "
                             f"unsigned int, its requests read u32), not {a['type']}")
    for r in rows:
        extra = set(r) - {"name", "designs", "default", "doc"}
        if extra or not r.get("designs") or "default" not in r or not r.get("doc"):
            raise SystemExit(f"{path}: {r['name']}: needs designs, default and doc "
                             f"(and nothing else: {sorted(extra)})")
        bad = [d for d in r["designs"] if d not in DESIGN_BITS]
        if bad:
            raise SystemExit(f"{path}: {r['name']}: unknown designs {bad} "
                             f"(known: {DESIGN_BITS})")
    return rows


def designs_mask_c(designs):
    return " | ".join(f"SLABLAB_TUNABLE_D_{c_upper(d)}" for d in designs)


def default_c(sp, a, dflt):
    """(rule, value C, function C) of a registry row's default."""
    if dflt == "request":
        return "SLABLAB_DEFAULT_REQUEST", "0", "NULL"
    if dflt == "computed":
        return "SLABLAB_DEFAULT_COMPUTED", "0", f"slablab_{c_lower(a['name'])}_default"
    if isinstance(dflt, int):
        return "SLABLAB_DEFAULT_VALUE", c_number(dflt), "NULL"
    if "enum" in a:
        for c, _, _ in sp.entries(sp.defs[a["enum"]]):
            if c.endswith("_" + c_upper(dflt)):
                return "SLABLAB_DEFAULT_VALUE", c, "NULL"
    if dflt.replace("_", "").isalnum() and dflt.isupper():
        return "SLABLAB_DEFAULT_VALUE", dflt, "NULL"
    raise SystemExit(f"tunables.yaml: {a['name']}: default {dflt!r} is none of request, "
                     "computed, a number, a constant or an enum value")


def gen_registry(sp):
    rows = load_registry(sp)
    by_name = {r["name"]: r for r in rows}
    L = ["// SPDX-License-Identifier: GPL-2.0",
         "/* generated from uapi/slablab.yaml, uapi/tunables.yaml by scripts/gen-protocol.py */",
         "/*",
         " * The tunable registry (struct slablab_tunable, tunables.h): every place a tunable",
         " * appears in the module walks this table: creation's defaults and the range check",
         " * (tunables.c), the check and apply steps cache-new, cache-set, slablab_cache_args",
         " * and debugfs share (cache.c, whose slablab_set_<name>() are the setters), the",
         " * replies (netlink-cache.c) and the debugfs files. tunables.c includes it, after the",
         " * computed defaults the table names: one object, no file-level cycle.",
         " */", ""]
    enums = []
    for an, c, v, a in sp.subset("cache-tunables"):
        if "enum" in a and sp.defs[a["enum"]]["type"] == "enum" and a["enum"] not in enums:
            enums.append(a["enum"])
    for e in enums:
        d = sp.defs[e]
        names = [x["name"] if isinstance(x, dict) else x for x in d["entries"]]
        L.append(f"const char *const slablab_{c_lower(e)}_names[{len(names)}] = {{")
        for (cn, _, _), n in zip(sp.entries(d), names):
            L.append(f'\t[{cn}] = "{c_lower(n)}",')
        L += ["};", ""]
    L.append("const struct slablab_tunable slablab_tunables[SLABLAB_NR_TUNABLES] = {")
    for an, c, v, a in sp.subset("cache-tunables"):
        r = by_name[an]
        name = c_lower(an)
        lo, hi = sp.range_of(a)
        ch = a.get("checks", {})
        hi_c = sp.limit_c(ch["max"]) if "max" in ch else c_number(hi)
        lo_c = sp.limit_c(ch["min"]) if "min" in ch else c_number(lo)
        rule, val, fn = default_c(sp, a, r["default"])
        L += [f"\t[SLABLAB_TUNABLE_{c_upper(an)}] = {{",
              f'\t\t.name = "{name}",',
              f"\t\t.attr = {c},",
              f"\t\t.offset = offsetof(struct slablab_cache, {name}),",
              "\t\t.designs = " + designs_mask_c(r["designs"]).replace(
                  " | ", " |\n\t\t\t   ") + ",",
              f"\t\t.min = {lo_c},",
              f"\t\t.max = {hi_c},"]
        if "enum" in a:
            d = sp.defs[a["enum"]]
            if d["type"] == "enum":
                L += [f"\t\t.names = slablab_{c_lower(a['enum'])}_names,",
                      f"\t\t.nr_names = ARRAY_SIZE(slablab_{c_lower(a['enum'])}_names),"]
            else:
                L.append("\t\t.is_flags = true,")
        L += [f"\t\t.dflt = {rule},"]
        if val != "0":
            L.append(f"\t\t.dflt_value = {val},")
        if fn != "NULL":
            L.append(f"\t\t.dflt_fn = {fn},")
        L += ["\t},"]
    L += ["};", ""]
    # every default a value within the tunable's range, checked where C knows the value
    L.append("/* Each default given as a value (a constant's included) within its range. */")
    for an, c, v, a in sp.subset("cache-tunables"):
        rule, val, fn = default_c(sp, a, by_name[an]["default"])
        if rule != "SLABLAB_DEFAULT_VALUE" or "enum" in a:
            continue
        ch = a.get("checks", {})
        hi_c = sp.limit_c(ch["max"]) if "max" in ch else c_number(sp.range_of(a)[1])
        lo = sp.range_of(a)[0]
        cond = f"{val} <= {hi_c}" + (f" && {val} >= {sp.limit_c(ch['min'])}" if lo else "")
        L.append(f"static_assert({cond});\t/* {c_lower(an)} */")
    L.append("")
    return "\n".join(L[:-1]) + "\n"


def gen_cpp_names(sp):
    sets = [s["name"] for s in sp.full_sets()]
    L = ["// SPDX-License-Identifier: GPL-2.0 OR MIT", f"// {ORIGIN}",
         "// The attribute sets of the slablab family: names by attribute type and the set",
         "// each nest holds, to name the attribute the kernel's extack points at.",
         "#pragma once", "", "#include <linux/slablab.h>", "", "#include <cstdint>",
         "#include <span>", "#include <string_view>", "", "namespace slabctl::protocol {", "",
         "/// One attribute: its spec name (with _ for -), and for a nest the index of its",
         "/// set in kAttrSets (-1 otherwise); `array` when the nest holds repeated entries.",
         "struct AttrDesc {", "\tuint16_t type;", "\tstd::string_view name;",
         "\tint nested;", "\tbool array;", "};", "",
         "struct AttrSetDesc {", "\tstd::string_view name;",
         "\tstd::span<const AttrDesc> attrs;", "};", ""]
    for s in sets:
        L.append(f"inline constexpr AttrDesc k{''.join(w.title() for w in s.split('-'))}"
                 "Attrs[] = {")
        for an, c, v, a in sp.attrs(s):
            if a["type"] in ("unused", "pad"):
                continue
            nested, array = -1, "false"
            if a["type"] == "nest":
                entry = sp.array_entry_set(a)
                nested = sets.index(entry or a["nested-attributes"])
                array = "true" if entry else "false"
            L.append(f'\t{{{c}, "{c_lower(an)}", {nested}, {array}}},')
        L += ["};", ""]
    L.append("inline constexpr AttrSetDesc kAttrSets[] = {")
    for s in sets:
        L.append(f'\t{{"{s}", k{"".join(w.title() for w in s.split("-"))}Attrs}},')
    L += ["};", "", "/// Index of the top-level set in kAttrSets.",
          f"inline constexpr int kTopSet = {sets.index(sp.family)};", "",
          "}  // namespace slabctl::protocol"]
    return "\n".join(L) + "\n"


# ------------------------------------------------------------------ Python


def gen_python(sp):
    values, enums = header_model(sp)
    ops = sp.ops()
    L = ["# SPDX-License-Identifier: GPL-2.0", f"# {ORIGIN}",
         '"""The slablab protocol as data: every name of uapi/linux/slablab.h with its value,',
         "the enums' members, the commands and the cache tunables (tests/vm/test_hostile.py",
         'takes its names and types from here)."""', "",
         f"FAMILY = {sp.family!r}", f"VERSION = {sp.y.get('version', 1)!r}", "",
         "#: every name the uapi header defines: {C name: value}", "VALUES = {"]
    L += [f"    {k!r}: {v!r}," for k, v in values.items()]
    L += ["}", "", "#: {C enum name: [member names in order]}", "ENUMS = {"]
    L += [f"    {k!r}: {v!r}," for k, v in enums.items()]
    L += ["}", "", "#: {command (spec name): (C name, value, needs admin)}", "COMMANDS = {"]
    L += [f"    {op['name']!r}: ({c!r}, {v!r}, {'admin-perm' in op.get('flags', [])!r}),"
          for op, c, v in ops]
    L += ["}", "", "#: {attribute set: {attribute (spec name): (C name, value, type, nested set)}}",
          "ATTRIBUTE_SETS = {"]
    for s in sp.full_sets():
        L.append(f"    {s['name']!r}: {{")
        for an, c, v, a in sp.attrs(s["name"]):
            L.append(f"        {an!r}: ({c!r}, {v!r}, {a['type']!r}, "
                     f"{a.get('nested-attributes')!r}),")
        L.append("    },")
    L += ["}", "", "#: {set: [attributes the module's policy accepts in requests]}",
          "REQUEST_ATTRIBUTES = {"]
    for s in sp.policy_sets():
        L.append(f"    {s!r}: {[x[0] for x in sp.request_attrs(s)]!r},")
    L += ["}", "", "#: the cache tunables in the order the module applies them:",
          "#: (name, type, kind, enum, min, max); kind 'num', 'enum' or 'flags'",
          "CACHE_TUNABLES = ["]
    for an, c, v, a in sp.subset("cache-tunables"):
        kind, enum = kind_of(sp, a)
        lo, hi = sp.range_of(a)
        L.append(f"    ({c_lower(an)!r}, {a['type']!r}, {kind.lower()!r}, "
                 f"{None if enum == 'none' else enum!r}, {lo!r}, {hi!r}),")
    d = sp.defs["stat-item"]
    prefix = c_upper(d["name-prefix"])
    L += ["]", "", "#: stat item names, in enum order (debugfs/sysfs file names)", "STAT_ITEMS = ["]
    L += [f"    {n[len(prefix):].lower()!r}," for n, _, _ in sp.entries(d)]
    L += ["]"]
    return "\n".join(L) + "\n"


def gen_stub_section(sp):
    L = [STUB_BEGIN]
    for an, c, v, a in sp.subset("cache-tunables"):
        kind, _ = kind_of(sp, a)
        if kind == "FLAGS":
            typ = "Flags"
        elif kind == "ENUM":
            typ = "Union[None, str, int]"
        else:
            typ = "Optional[int]"
        L.append(f"    {c_lower(an)}: {typ} = None,")
    L.append(STUB_END)
    return L


def splice_stub(sp, text):
    """Replace every generated section of the stub (cache_create's and cache_set's
    tunable keywords) with what the spec says now."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() == STUB_BEGIN.strip():
            indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
            j = i
            while lines[j].strip() != STUB_END.strip():
                j += 1
            out += [indent + x.strip() if x.startswith("    # ") else indent + x.strip()
                    for x in gen_stub_section(sp)]
            i = j + 1
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


# ------------------------------------------------------------------ main


def outputs(sp):
    pol_h, pol_c = gen_policies(sp)
    stub_path = os.path.join(REPO, "python", "slablab", "_core.pyi")
    with open(stub_path) as f:
        stub = f.read()
    return {
        "uapi/linux/slablab.h": gen_header(sp),
        "module/netlink-gen.h": pol_h,
        "module/netlink-gen.c": pol_c,
        "module/tunables-gen.c": gen_registry(sp),
        "include/slablab/protocol.h": gen_tables(sp),
        "tool/include/slabctl/protocol.hpp": gen_cpp_names(sp),
        "python/slablab/protocol.py": gen_python(sp),
        "python/slablab/_core.pyi": splice_stub(sp, stub),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 naming the files that differ")
    ap.add_argument("--spec", default=SPEC)
    args = ap.parse_args()
    sp = Spec(args.spec)
    stale = []
    for rel, text in outputs(sp).items():
        path = os.path.join(REPO, rel)
        try:
            with open(path) as f:
                old = f.read()
        except FileNotFoundError:
            old = None
        if old == text:
            continue
        stale.append(rel)
        if not args.check:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
    if args.check and stale:
        print("not what uapi/slablab.yaml makes (run scripts/gen-protocol.py): "
              + ", ".join(stale), file=sys.stderr)
        return 1
    for rel in stale:
        print(f"gen-protocol: wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

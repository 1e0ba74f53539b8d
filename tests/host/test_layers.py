# SPDX-License-Identifier: GPL-2.0
"""The module's files call each other in one direction only (docs/design.md, "Layers"):
the file-level call graph of module/, derived from the built objects, has no cycle; the
shared back end (backend.c) is at the bottom, calling no other file of the module but the
trace events' definitions (trace.c: a leaf every file may fire events of, calling none);
the designs (design_*.c) call only the back end (and trace.c); the cache API (cache.c)
stands on both; kmalloc (kmalloc.c) is between them: cache.c calls it, and it calls only
the designs and the back end (and trace.c). The generic netlink family is at the top, one
unit as the kernel's YNL families are: its core (netlink.c: the family, pre_doit, the
helpers every handler uses), the generated policies and ops table (netlink-gen.c) and one
file per group of commands (netlink-cache.c, netlink-storm.c, netlink-replay.c), which
call the core and the generated policies but not each other; the core calls none of them.

An arrow A -> B means: A's object has an undefined symbol that B's object defines
(`nm`). The objects are the ones module/Kbuild links into slablab.ko, so a new file is
covered as soon as it is built. One kind of arrow is left out of the layers' graph: the
generated ops table's (netlink-gen.c -> the file of each handler it names,
slablab_nl_<op>_doit/_dumpit), the dispatch of the family by its table, which every
handler's file would otherwise close into a circle with the core it uses; every other
symbol of netlink-gen.c is still an arrow. `make test` and `make test-host` build the module before
the host tests; where it has not been built (or is older than its sources) the tests skip
and say so, or, under CI (CI=true or SLABLAB_CI=1), fail with the same message."""
import os
import re
import shutil
import subprocess
from typing import Dict, List

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULE = os.path.join(REPO, "module")
BOTTOM = "backend"  # the shared back end of the allocator
CACHE_API = "cache"  # the cache API over the designs
KMALLOC = "kmalloc"  # slablab_kmalloc()/slablab_kfree(): under the cache API, over the designs
TRACE = "trace"  # the tracepoints' definitions (CREATE_TRACE_POINTS): a leaf under all
DESIGN_PREFIX = "design_"
NL_CORE = "netlink"  # the family, pre_doit, get-status and the handlers' shared helpers
NL_GEN = "netlink-gen"  # generated from the spec: the policies and the ops table
NL_PREFIX = "netlink-"  # netlink-gen.c and the commands' files (netlink-cache.c ...)
# the handlers the generated ops table names (ynl-gen-c's names)
NL_HANDLER = re.compile(r"slablab_nl_\w+_(doit|dumpit)")
# Under CI the objects must be there (make test builds them): a skip would hide the tests.
CI = any(os.environ.get(v, "").lower() in ("1", "true", "yes") for v in ("CI", "SLABLAB_CI"))


def unavailable(reason):
    """Skip with @reason, or fail with it under CI."""
    if CI:
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def kbuild_objects():
    """The objects module/Kbuild links into slablab.ko, by base name."""
    with open(os.path.join(MODULE, "Kbuild")) as f:
        text = f.read().replace("\\\n", " ")
    m = re.search(r"^slablab-y\s*[:+]?=\s*(.*)$", text, re.M)
    assert m, "module/Kbuild has no slablab-y line"
    return [o[:-2] for o in m.group(1).split() if o.endswith(".o")]


def symbols(obj):
    """(defined, undefined) global symbols of an object file."""
    out = subprocess.run(["nm", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRVWGS":
            defined.add(parts[2])
    return defined, undefined


def call_graph(names):
    """{A: {B: [symbols of B that A uses]}} over the module's objects."""
    syms = {n: symbols(os.path.join(MODULE, n + ".o")) for n in names}
    graph: Dict[str, Dict[str, List[str]]] = {}
    for a in names:
        graph[a] = {}
        for b in names:
            used = sorted(syms[a][1] & syms[b][0]) if a != b else []
            if used:
                graph[a][b] = used
    return graph


def without_ops_table(graph):
    """@graph less the generated ops table's arrows: netlink-gen.c's uses of the handlers
    (an arrow that is left with no symbol goes)."""
    out = {a: dict(bs) for a, bs in graph.items()}
    for b, used in graph.get(NL_GEN, {}).items():
        rest = [s for s in used if not NL_HANDLER.fullmatch(s)]
        if rest:
            out[NL_GEN][b] = rest
        else:
            del out[NL_GEN][b]
    return out


def find_cycle(graph):
    """One cycle of @graph as a list of nodes [n0, n1, ..., n0], or None."""
    state = {}          # absent: unvisited, 1: on the stack, 2: done
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def describe(graph, cycle):
    return "\n".join(f"  {a}.c -> {b}.c: {', '.join(graph[a][b][:6])}"
                     + (" ..." if len(graph[a][b]) > 6 else "")
                     for a, b in zip(cycle, cycle[1:]))


@pytest.fixture(scope="module")
def full_graph():
    """Every arrow, the ops table's included."""
    if not shutil.which("nm"):
        unavailable("nm (binutils) is missing")
    names = kbuild_objects()
    sources = [n + ".c" for n in names] + [f for f in os.listdir(MODULE) if f.endswith(".h")]
    newest = max(os.path.getmtime(os.path.join(MODULE, f)) for f in sources
                 if os.path.exists(os.path.join(MODULE, f)))
    for n in names:
        obj = os.path.join(MODULE, n + ".o")
        if not os.path.exists(obj):
            unavailable(f"module/{n}.o is not built: run `make module` "
                        "(make test builds it before the host tests)")
    # Kbuild rebuilds only the objects whose sources changed, then links slablab.o: a link
    # newer than every source means every object is current (an unchanged main.o may be
    # older than a header another file includes, and still be right).
    link = os.path.join(MODULE, "slablab.o")
    if not os.path.exists(link) or os.path.getmtime(link) < newest:
        unavailable("module/slablab.o is older than the module's sources: run `make module`")
    return call_graph(names)


@pytest.fixture(scope="module")
def graph(full_graph):
    """The layers' graph: every arrow but the generated ops table's."""
    return without_ops_table(full_graph)


def test_module_call_graph_has_no_cycle(graph):
    cycle = find_cycle(graph)
    assert cycle is None, ("the module's files call each other in a circle:\n"
                           + describe(graph, cycle))


def test_allocator_is_at_the_bottom(graph):
    assert BOTTOM in graph, f"no {BOTTOM}.o in module/Kbuild"
    up = {b: s for b, s in graph[BOTTOM].items() if b != TRACE}
    assert not up, (f"{BOTTOM}.c (the back end) calls upwards:\n"
                    + "\n".join(f"  {BOTTOM}.c -> {b}.c: {', '.join(s)}" for b, s in up.items()))


def test_trace_events_are_a_leaf(graph):
    """trace.c defines the events every layer fires and calls no file of the module."""
    assert TRACE in graph, f"no {TRACE}.o in module/Kbuild"
    assert not graph[TRACE], f"{TRACE}.c calls into the module: {graph[TRACE]}"


def designs(graph):
    return sorted(n for n in graph if n.startswith(DESIGN_PREFIX))


def test_designs_stand_on_the_back_end_only(graph):
    """A design calls the back end and nothing else: not the cache API, not another
    design, not netlink or debugfs (what they need reaches them through cache.c)."""
    assert designs(graph), "no design_*.o in module/Kbuild"
    for d in designs(graph):
        above = {b: s for b, s in graph[d].items() if b not in (BOTTOM, TRACE)}
        lines = [f"  {d}.c -> {b}.c: {', '.join(s[:6])}" for b, s in above.items()]
        assert not above, f"{d}.c calls beyond the back end:\n" + "\n".join(lines)
        assert BOTTOM in graph[d], f"{d}.c does not use the back end"


def test_cache_api_is_above_the_designs(graph):
    """cache.c (the cache API) dispatches to every design and uses the back end; no
    design or back end calls it."""
    assert CACHE_API in graph, f"no {CACHE_API}.o in module/Kbuild"
    for d in designs(graph) + [BOTTOM]:
        assert d in graph[CACHE_API], f"{CACHE_API}.c does not call {d}.c"
        assert CACHE_API not in graph[d], f"{d}.c calls up into {CACHE_API}.c"


def test_kmalloc_is_between_the_cache_api_and_the_designs(graph):
    """kmalloc.c (slablab_kmalloc(), slablab_kfree(), the size classes) calls the designs
    and the back end only; cache.c, which makes the classes, changes their design and
    frees their RCU-freed objects through slablab_kfree(), calls it; no design or back
    end does."""
    assert KMALLOC in graph, f"no {KMALLOC}.o in module/Kbuild"
    below = designs(graph) + [BOTTOM, TRACE]
    up = {b: s for b, s in graph[KMALLOC].items() if b not in below}
    lines = [f"  {KMALLOC}.c -> {b}.c: {', '.join(s[:6])}" for b, s in up.items()]
    assert not up, f"{KMALLOC}.c calls beyond the designs and the back end:\n" + "\n".join(lines)
    assert KMALLOC in graph[CACHE_API], f"{CACHE_API}.c does not call {KMALLOC}.c"
    for d in designs(graph) + [BOTTOM]:
        assert KMALLOC not in graph[d], f"{d}.c calls up into {KMALLOC}.c"


def test_every_file_is_reached_from_main(full_graph):
    """The graph is real: main.c (init/exit) reaches every other file (the handlers'
    files through the family's ops table)."""
    seen, todo = set(), ["main"]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo += full_graph.get(n, {})
    assert seen == set(full_graph), f"not reached from main.c: {sorted(set(full_graph) - seen)}"


def command_files(graph):
    """The netlink family's files of commands: netlink-*.c but the generated one."""
    return sorted(n for n in graph if n.startswith(NL_PREFIX) and n != NL_GEN)


def test_netlink_family_core_and_command_files(graph):
    """netlink.c (the core) calls the generated file but no file of commands; each file of
    commands calls the core and no other file of commands; nothing else calls into a file
    of commands but selftest.c (the cache dump's selftest knob, selftest_dump_percpu_max)."""
    files = command_files(graph)
    assert {NL_CORE, NL_GEN} <= set(graph), f"no {NL_CORE}.o or {NL_GEN}.o in module/Kbuild"
    assert files, "no netlink-*.o of commands in module/Kbuild"
    assert NL_GEN in graph[NL_CORE], f"{NL_CORE}.c does not use the generated ops table"
    down = {b: s for b, s in graph[NL_CORE].items() if b in files}
    lines = [f"  {NL_CORE}.c -> {b}.c: {', '.join(s[:6])}" for b, s in down.items()]
    assert not down, f"{NL_CORE}.c (the family's core) calls a file of commands:\n" + "\n".join(lines)
    for f in files:
        assert NL_CORE in graph[f], f"{f}.c does not use the family's core"
        side = {b: s for b, s in graph[f].items() if b in files}
        lines = [f"  {f}.c -> {b}.c: {', '.join(s[:6])}" for b, s in side.items()]
        assert not side, f"{f}.c calls another file of commands:\n" + "\n".join(lines)
    callers = {a: b for a, bs in graph.items() for b in bs
               if b in files and a not in files + [NL_CORE, NL_GEN, "selftest"]}
    assert not callers, f"files outside the netlink family call its commands' files: {callers}"


def test_ops_table_names_every_file_of_commands(full_graph):
    """netlink-gen.c, generated, calls only the handlers (the ops table) and reaches
    every file of commands and the core (get-status)."""
    assert NL_GEN in full_graph, f"no {NL_GEN}.o in module/Kbuild"
    other = {b: [s for s in used if not NL_HANDLER.fullmatch(s)]
             for b, used in full_graph[NL_GEN].items()}
    other = {b: s for b, s in other.items() if s}
    assert not other, f"{NL_GEN}.c uses more than the handlers: {other}"
    assert set(command_files(full_graph)) | {NL_CORE} <= set(full_graph[NL_GEN]), \
        f"{NL_GEN}.c's ops table misses a file: {sorted(full_graph[NL_GEN])}"


def test_without_ops_table_drops_only_the_handlers():
    """The ops table's arrows go, the arrows of other symbols stay."""
    g: Dict[str, Dict[str, List[str]]] = {
        NL_CORE: {NL_GEN: ["slablab_nl_ops"]},
        NL_GEN: {"netlink-cache": ["slablab_nl_cache_get_doit", "slablab_nl_cache_get_dumpit"],
                 NL_CORE: ["slablab_nl_get_status_doit", "slablab_lock"]},
        "netlink-cache": {NL_CORE: ["slablab_lock"]}}
    assert find_cycle(g) is not None
    h = without_ops_table(g)
    assert h[NL_GEN] == {NL_CORE: ["slablab_lock"]}
    assert g[NL_GEN]["netlink-cache"], "the input was changed"
    assert find_cycle(h) is not None  # netlink <-> netlink-gen through slablab_lock
    h[NL_GEN] = {}
    assert find_cycle(h) is None


def test_find_cycle_finds_and_prints_one():
    """The detector itself: a cycle is found and printed, a DAG passes."""
    g: Dict[str, Dict[str, List[str]]] = {
        "cache": {}, "storm": {"cache": ["a"], "netlink": ["b"]},
        "netlink": {"storm": ["c"]}, "main": {"netlink": ["d"]}}
    cycle = find_cycle(g)
    assert cycle in (["storm", "netlink", "storm"], ["netlink", "storm", "netlink"])
    assert "netlink.c -> storm.c: c" in describe(g, cycle)
    del g["netlink"]["storm"]
    assert find_cycle(g) is None

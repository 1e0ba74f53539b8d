# SPDX-License-Identifier: GPL-2.0
"""The -icount performance gate's comparer (tests/perf/icount_gate.py; docs/testing.md,
"The -icount performance gate"), without a VM: growth over 3% fails naming the figure,
within 3% passes, a figure missing from the measurement fails, one not in the budget is
reported, and --update keeps reasons and asks one of a raise. The checked-in budget
covers every design of the spec."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GATE = os.path.join(REPO, "tests", "perf", "icount_gate.py")
SCRIPT = os.path.join(REPO, "scripts", "icount-gate.sh")

_spec = importlib.util.spec_from_file_location("icount_gate", GATE)
assert _spec is not None and _spec.loader is not None
gate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gate)


def budget(**figures):
    return {"schema": gate.SCHEMA, "threshold_pct": 3.0,
            "figures": {n: {"cycles": c, "reason": f"why {n}"} for n, c in figures.items()}}


def fails(lines):
    return [x for x in lines if x.startswith("icount-gate: FAIL")]


def test_growth_over_3_percent_fails_naming_figure_budget_measured_and_growth():
    ok, lines = gate.compare(budget(**{"slub.pair": 420.1, "slab.pair": 676.1}),
                             {"slub.pair": 433.0, "slab.pair": 676.1})
    assert not ok
    [line] = fails(lines)
    assert "slub.pair" in line and "420.1" in line and "433.0" in line and "+3.07%" in line


@pytest.mark.parametrize("measured", [420.1, 432.7, 407.5, 300.0])
def test_within_3_percent_or_any_fall_passes(measured):
    ok, lines = gate.compare(budget(**{"slub.pair": 420.1}), {"slub.pair": measured})
    assert ok and not fails(lines)


def test_a_fall_over_3_percent_passes_but_says_the_budget_can_be_lowered():
    ok, lines = gate.compare(budget(**{"kmalloc.pair64": 543.9}), {"kmalloc.pair64": 520.0})
    assert ok
    [line] = [x for x in lines if "lower" in x]
    assert "kmalloc.pair64" in line and "543.9" in line and "520.0" in line and "-4.39%" in line


def test_a_figure_not_measured_fails():
    ok, lines = gate.compare(budget(**{"slub.pair": 420.1, "slob.pair": 11744.1}),
                             {"slub.pair": 420.1})
    assert not ok
    [line] = fails(lines)
    assert "slob.pair" in line and "not measured" in line


def test_a_figure_not_in_the_budget_is_reported_without_failing():
    ok, lines = gate.compare(budget(**{"slub.pair": 420.1}),
                             {"slub.pair": 420.1, "slub.remote": 999.0})
    assert ok
    [line] = [x for x in lines if "slub.remote" in x]
    assert "not in the budget" in line and "999.0" in line


def test_the_threshold_comes_from_the_budget_file():
    b = budget(**{"slub.pair": 100.0})
    b["threshold_pct"] = 1.0
    assert not gate.compare(b, {"slub.pair": 101.5})[0]
    assert gate.compare(b, {"slub.pair": 100.9})[0]


def test_update_lowers_a_fallen_figure_and_keeps_its_reason():
    new, errors = gate.update(budget(**{"a": 100.0, "b": 200.0}), {"a": 90.0, "b": 201.0}, {})
    assert not errors
    assert new["figures"]["a"] == {"cycles": 90.0, "reason": "why a"}
    assert new["figures"]["b"] == {"cycles": 200.0, "reason": "why b"}   # within 3%: left alone


def test_update_refuses_a_raise_or_a_new_figure_without_a_reason():
    old = budget(**{"a": 100.0})
    _, errors = gate.update(old, {"a": 110.0, "n": 5.0}, {})
    assert len(errors) == 2 and "a (+10.0%" in errors[0] and "n (new" in errors[1]
    new, errors = gate.update(old, {"a": 110.0, "n": 5.0}, gate.parse_reasons(
        ["a=the new check costs 5 instructions", "added with the remote storm"], {"a", "n"}))
    assert not errors
    assert new["figures"]["a"] == {"cycles": 110.0, "reason": "the new check costs 5 instructions"}
    assert new["figures"]["n"] == {"cycles": 5.0, "reason": "added with the remote storm"}
    assert old["figures"]["a"]["cycles"] == 100.0                      # the input is not changed


def test_update_refuses_while_a_budget_figure_is_not_measured():
    _, errors = gate.update(budget(**{"a": 100.0, "gone": 5.0}), {"a": 100.0}, {})
    assert len(errors) == 1 and "gone" in errors[0]


def test_the_command_line_fails_and_update_rewrites_only_with_a_reason(tmp_path):
    bpath, mpath = tmp_path / "budget.json", tmp_path / "measured.json"
    bpath.write_text(json.dumps(budget(**{"slub.pair": 420.1, "slab.pair": 676.1})))
    mpath.write_text(json.dumps({"figures": {"slub.pair": 440.0, "slab.pair": 600.0}}))
    run = [sys.executable, GATE, "compare", str(mpath), "--budget", str(bpath)]
    r = subprocess.run(run, capture_output=True, text=True)
    assert r.returncode == 1
    assert "FAIL slub.pair: budget 420.1 cycles, measured 440.0, growth +4.74%" in r.stdout
    assert "lower slab.pair" in r.stdout
    r = subprocess.run(run + ["--update"], capture_output=True, text=True)
    assert r.returncode == 1 and "needs a reason" in r.stderr
    assert json.loads(bpath.read_text())["figures"]["slub.pair"]["cycles"] == 420.1
    r = subprocess.run(run + ["--update", "--reason", "slub.pair=a measured cost"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    figs = json.loads(bpath.read_text())["figures"]
    assert figs["slub.pair"] == {"cycles": 440.0, "reason": "a measured cost"}
    assert figs["slab.pair"] == {"cycles": 600.0, "reason": "why slab.pair"}
    assert subprocess.run(run, capture_output=True).returncode == 0


def test_the_shell_gate_compares_a_saved_measurement(tmp_path):
    bpath, mpath = tmp_path / "budget.json", tmp_path / "measured.json"
    bpath.write_text(json.dumps(budget(**{"slub.pair": 420.1})))
    mpath.write_text(json.dumps({"figures": {"slub.pair": 500.0}}))
    r = subprocess.run([SCRIPT, "--measured", str(mpath), "--budget", str(bpath)],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "FAIL slub.pair" in r.stdout


def test_a_budget_entry_needs_a_reason(tmp_path):
    b = budget(**{"slub.pair": 420.1})
    b["figures"]["slub.pair"]["reason"] = " "
    (tmp_path / "b.json").write_text(json.dumps(b))
    with pytest.raises(ValueError, match="slub.pair"):
        gate.load_budget(str(tmp_path / "b.json"))


def test_the_checked_in_budget_covers_every_design_and_every_figure_the_gate_measures():
    import slablab
    assert tuple(gate.DESIGNS) == tuple(slablab.DESIGNS)
    for path in (gate.BUDGET, *gate.KERNEL_BUDGETS):
        doc = gate.load_budget(path)
        gated = {n for n in gate.FIGURES if not n.startswith(gate.REFERENCE)}
        assert set(doc["figures"]) == gated, path
    assert {"native.pair", "native.batch.alloc", "native.batch.free"} <= set(gate.FIGURES)
    for d in slablab.DESIGNS:
        for f in ("pair", "batch.alloc", "batch.free"):
            assert f"{d}.{f}" in doc["figures"]
    assert "kmalloc.pair64" in doc["figures"]


def test_reference_figures_are_printed_never_gated_nor_budgeted():
    """The kernel's own allocator (native.*) is measured beside the designs: compare
    prints it, without failing on it, and --update never writes it into a budget."""
    budget = {"schema": gate.SCHEMA, "threshold_pct": 3.0,
              "figures": {"slub.pair": {"cycles": 100.0, "reason": "r"}}}
    ok, lines = gate.compare(budget, {"slub.pair": 100.0, "native.pair": 463.0})
    assert ok and any(line.startswith("icount-gate: ref  native.pair") for line in lines), lines
    new, errors = gate.update(budget, {"slub.pair": 100.0, "native.pair": 463.0}, {"": "why"})
    assert not errors and "native.pair" not in new["figures"]

"""Operator mutants from other tools: a recorded cargo-mutants listing, Stryker's instrumenter
(when a scenario has it installed), and non-Python targets."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from harness._errors import InputError, Place
from harness._mutate.foreign import INSTRUMENTER, from_cargo_mutants_json, stryker_mutants
from harness._mutate.targets import resolve_targets

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios" / "mutate"
CRATE = SCENARIOS / "cargo_mutants"
NODE = SCENARIOS / "node"
PLACE = Place("suite.yaml", 3, "mutation.targets[0]")


def test_a_cargo_mutants_listing_becomes_whole_file_mutants_of_the_files_asked_for(tmp_path: Path) -> None:
    listing = json.loads((CRATE / "list.json").read_text())
    mutants = from_cargo_mutants_json(listing, CRATE, {"src/lib.rs"}, tmp_path, PLACE)
    assert [(m.line, m.replacement, m.operator) for m in mutants] == [
        (2, "true", "cargo-mutants:FnValue"), (2, "false", "cargo-mutants:FnValue"), (6, "0", "cargo-mutants:FnValue")]
    first = mutants[0]
    assert first.how == "file" and first.kind == "operator" and first.title.startswith("is_first_party: true")
    mutated = Path(first.source_path or "").read_text()
    assert "    true /* ~ changed by cargo-mutants ~ */\n" in mutated and "starts_with" not in mutated
    assert "pub fn depth_limit() -> usize {\n    8\n}" in mutated  # the rest of the file untouched
    assert len({m.key for m in mutants}) == 3


def test_a_cargo_mutants_diff_that_does_not_apply_names_the_file(tmp_path: Path) -> None:
    listing = json.loads((CRATE / "list.json").read_text())
    listing[0]["diff"] = listing[0]["diff"].replace("starts_with", "ends_with")
    with pytest.raises(InputError) as err:
        from_cargo_mutants_json(listing, CRATE, {"src/lib.rs"}, tmp_path, PLACE)
    assert "src/lib.rs" in str(err.value)


def test_js_and_rust_files_are_targets_but_only_whole(tmp_path: Path) -> None:
    (tmp_path / "narrow.js").write_text("module.exports = {};\n")
    (tmp_path / "lib.rs").write_text("pub fn f() {}\n")
    found = resolve_targets([("narrow.js", PLACE), ("lib.rs", PLACE)], tmp_path)
    assert [(t.rel, t.module, t.functions) for t in found] == [("lib.rs", "", None), ("narrow.js", "", None)]
    with pytest.raises(InputError) as err:
        resolve_targets([("narrow.js:narrow", PLACE)], tmp_path)
    assert "one function is chosen in Python targets only" in str(err.value)


def test_a_js_target_without_the_instrumenter_installed_says_how_to_install_it(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    (tmp_path / "narrow.js").write_text("module.exports = 1 + 2;\n")
    with pytest.raises(InputError) as err:
        stryker_mutants(tmp_path / "narrow.js", "narrow.js", tmp_path, PLACE, tmp_path)
    assert "npm install --save-dev @stryker-mutator/instrumenter" in str(err.value)


def test_strykers_own_instrumenter_lists_operator_mutants_of_a_js_file(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    if not (NODE / INSTRUMENTER / "package.json").is_file():
        pytest.skip(f"@stryker-mutator/instrumenter is not installed: run `npm install` in {NODE}")
    mutants = stryker_mutants(NODE / "narrow.js", "narrow.js", NODE, PLACE, tmp_path)
    operators = {m.operator for m in mutants}
    assert {"EqualityOperator", "ConditionalExpression", "BooleanLiteral"} <= operators
    source = (NODE / "narrow.js").read_text()
    for m in mutants:
        assert m.how == "file" and m.kind == "operator"
        mutated = Path(m.source_path or "").read_text()
        assert mutated != source and m.diff.startswith("--- a/narrow.js")


PRECEDENCE = """function allowed(a, b, c) {
  return a && b && c;
}
module.exports = { allowed };
"""


def test_a_js_mutant_inside_a_chain_of_ands_runs_as_the_node_it_names(tmp_path: Path) -> None:
    """Stryker's mutant of the node ``a && b`` in ``a && b && c`` is ``(a || b) && c``; spliced as
    bare text it was ``a || b && c``, which runs as ``a || (b && c)``: another mutant than the one
    named, killed or kept for the wrong reason."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    if not (NODE / INSTRUMENTER / "package.json").is_file():
        pytest.skip(f"@stryker-mutator/instrumenter is not installed: run `npm install` in {NODE}")
    (tmp_path / "node_modules").symlink_to(NODE / "node_modules")
    (tmp_path / "precedence.js").write_text(PRECEDENCE)
    mutants = stryker_mutants(tmp_path / "precedence.js", "precedence.js", tmp_path, PLACE, tmp_path)
    [m] = [m for m in mutants if m.title == "a && b -> (a || b)"]
    mutated = Path(m.source_path or "").read_text()
    assert "  return (a || b) && c;\n" in mutated
    run = f"console.log(require({json.dumps(m.source_path)}).allowed(true, false, false))"
    ran = subprocess.run(["node", "-e", run], capture_output=True, text=True, check=True, timeout=60)
    assert ran.stdout.strip() == "false"  # (true || false) && false; a || (b && c) would say true
    # the whole expression's own mutants need no parentheses: spliced as Stryker printed them
    assert "a && b && c -> a && b || c" in {m.title for m in mutants}

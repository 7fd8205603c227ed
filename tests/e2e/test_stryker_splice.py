"""Every operator mutant of examples/node is the code Stryker names: ``stryker_list.mjs`` splices
each replacement into the file, re-parses it with the instrumenter's own parser and compares the
tree with the original's with that one node replaced (harness/_mutate/foreign.py). Two of the
file's mutants sit inside a chain of ``&&`` and need parentheses; the rest splice as printed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from harness._mutate.foreign import INSTRUMENTER, STRYKER_LIST, TREE_CHECKED

pytestmark = [pytest.mark.slow, pytest.mark.expensive]  # node and the instrumenter over 174 mutants

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "node"


def test_every_operator_mutant_of_the_node_example_is_checked_against_the_tree_it_names() -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    if not (EXAMPLE / INSTRUMENTER / "package.json").is_file():
        pytest.skip(f"@stryker-mutator/instrumenter is not installed: run `npm ci` in {EXAMPLE}")
    listed = subprocess.run(["node", str(STRYKER_LIST), "passes.js"], cwd=EXAMPLE, capture_output=True, text=True,
                            timeout=300, check=True)
    mutants = json.loads(listed.stdout)
    assert len(mutants) > 100 and all(m["tree"] in TREE_CHECKED for m in mutants)
    wrapped = sorted((m["original"], m["replacement"]) for m in mutants if m["tree"] == "parenthesized")
    assert wrapped == [("note === null && stripped !== null", "(note === null || stripped !== null)"),
                       ("value !== null && typeof value === 'object'", "(value !== null || typeof value === 'object')")]

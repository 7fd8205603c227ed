"""docs/hostile-input.md: every row of the catalog names a test that exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "hostile-input.md"


def _named_tests() -> list[tuple[str, str]]:
    rows = [line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| ")][2:]
    named = []
    for row in rows:
        found = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", row)
        assert found or "same test" in row, f"a catalog row without a test: {row}"
        named.extend(found)
    return named


def test_every_catalog_row_names_a_test_function_that_exists() -> None:
    named = _named_tests()
    assert len(named) >= 30
    for file, function in named:
        tree = ast.parse((REPO / file).read_text(encoding="utf-8"))
        functions = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert function in functions, f"{file}::{function} named in docs/hostile-input.md does not exist"

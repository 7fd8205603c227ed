"""A pipeline is keyed by its suite: two suites whose modules share a name never run each
other's code in one process (a false pass otherwise)."""

from __future__ import annotations

from pathlib import Path

from harness.load import load_suite
from harness.pins import cache

SUITE = """version: 1
name: {name}
subjects:
  same_named:
    old: pipes:build
    new: pipes:build
    wires: [w]
"""
LANES = "version: 1\nlanes:\n  - {id: l, wire: w, provider: p}\n"
CASES = "version: 1\nsubject: same_named\ncases:\n  - {id: c, tools: [{name: t}]}\n"


def _suite(folder: Path, marker: str) -> Path:
    folder.mkdir()
    (folder / "suite.yaml").write_text(SUITE.format(name=folder.name))
    (folder / "lanes.yaml").write_text(LANES)
    (folder / "s.cases.yaml").write_text(CASES)
    (folder / "pipes.py").write_text(f"def build(inp, lane):\n    return {{'from': {marker!r}}}\n")
    return folder


def test_two_suites_with_a_module_of_the_same_name_each_run_their_own(tmp_path: Path) -> None:
    first = load_suite(_suite(tmp_path / "first", "first"))
    second = load_suite(_suite(tmp_path / "second", "second"))
    cache.clear()
    try:
        assert cache.observe(first, "c", "l").value == {"from": "first"}
        assert cache.observe(second, "c", "l").value == {"from": "second"}
        assert cache.fresh(first, "c", "l").value == {"from": "first"}  # and back again
    finally:
        cache.clear()

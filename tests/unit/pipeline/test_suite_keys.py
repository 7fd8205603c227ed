"""A pipeline is keyed by its suite: two suites whose modules share a name never run each
other's code in one process (a false pass otherwise)."""

from __future__ import annotations

from pathlib import Path

from harness._load import load_suite
from harness._pins import cache

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


def test_a_subject_compared_with_itself_reads_each_sides_saved_observation(tmp_path: Path) -> None:
    """Old and new share one declaration (as under --old-ref); the run saved different bodies for
    the two sides, and each side must read its own (the expect item asks for old first)."""
    from harness._evidence import ObservationStore
    from harness._model import Observation

    suite = load_suite(_suite(tmp_path / "same", "working-tree"))
    store = ObservationStore(tmp_path / "store")
    store.put(Observation("c", "l", "old", "ok", wire=b'{"from":"base"}'))
    store.put(Observation("c", "l", "new", "ok", wire=b'{"from":"head"}'))
    store.close()
    cache.clear()
    try:
        cache.use_store(tmp_path / "store")
        assert cache.observe(suite, "c", "l", "old").value == {"from": "base"}
        assert cache.observe(suite, "c", "l", "new").value == {"from": "head"}
    finally:
        cache.clear()

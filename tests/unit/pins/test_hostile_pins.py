"""What a pin reads or runs is bounded like every other input: a file pin stays inside the suite
folder, and a ``raises`` message pattern runs with a time bound."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from harness._common import patterns
from harness._errors import InputError, InputErrors
from harness._load import load_suite
from harness._pins import cache
from harness._pins.declarative import evaluate

SUITE = "version: 1\nname: hostile-pins\nsubjects:\n  s:\n    old: p:body\n    new: p:body\n    wires: [w]\n"
LANES = "version: 1\nlanes:\n  - {id: l, wire: w, provider: x}\n"
PIPES = "def body(inp, lane):\n    raise ValueError('a' * 40 + 'b')\n"


def _suite(folder: Path, pin: str) -> Path:
    folder.mkdir()
    (folder / "suite.yaml").write_text(SUITE)
    (folder / "lanes.yaml").write_text(LANES)
    (folder / "p.py").write_text(PIPES)
    (folder / "s.cases.yaml").write_text("version: 1\nsubject: s\ncases:\n  - id: c\n    tools: [{name: t}]\n"
                                         f"    pins:\n      - {pin}\n")
    return folder


def test_a_file_pin_reaching_outside_the_suite_folder_is_refused_at_load(tmp_path: Path) -> None:
    (tmp_path / "secret.json").write_text("{}")
    folder = _suite(tmp_path / "suite", "{name: golden, kind: equals, file: ../secret.json}")
    with pytest.raises(InputErrors) as info:
        load_suite(folder)
    (error,) = info.value.errors
    assert "pins[0].file" in str(error) and "'../secret.json'" in str(error)


def test_a_catastrophic_raises_pattern_is_one_clear_error_within_seconds(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # the bound itself is tests/unit/reject/test_pattern_bounds.py's; here, that a raises pin's
    # message pattern runs under it: a tenth of it spends a tenth of the CPU on the runaway match
    monkeypatch.setattr(patterns, "TIMEOUT_S", patterns.TIMEOUT_S / 10)
    folder = _suite(tmp_path / "suite", "{name: refuses, kind: raises, error: ValueError, message: '(a|aa)+$'}")
    suite = load_suite(folder)
    case = suite.case("c")
    cache.clear()
    start = time.monotonic()
    try:
        with pytest.raises(InputError, match="catastrophic backtracking"):
            evaluate(suite, case, "l", case.pins[0])
    finally:
        cache.clear()
    assert time.monotonic() - start < 20  # unbounded, this pattern runs for minutes on 41 characters

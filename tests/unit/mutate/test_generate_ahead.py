"""Mutants of several files made ahead, in parallel: generate() returns exactly what it would
have made itself, takes each once, and a file that cannot be mutated still fails in its own call."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._errors import MutationError
from harness._mutate import mutmut_adapter
from harness._mutate.mutmut_adapter import generate, prefetch
from harness._mutate.pool import cores

SOURCES = {
    "a.py": "def add(x, y):\n    return x + y\n\n\ndef pos(x):\n    return x > 0\n",
    "b.py": "class K:\n    def name(self, s):\n        return s.strip() or 'none'\n",
}


def test_mutants_made_ahead_are_the_ones_generate_makes_and_are_taken_once(tmp_path: Path) -> None:
    for name, text in SOURCES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "bad.py").write_text("def broken(:\n")
    (tmp_path / "pass.js").write_text("export const x = 1 + 2;\n")
    alone = {name: generate(name, text) for name, text in SOURCES.items()}
    prefetch([(name, tmp_path / name, None) for name in [*SOURCES, "bad.py", "pass.js", "missing.py"]])
    # one process a core: on a single core nothing is made ahead and each call makes its own
    ahead = {(name, text, None) for name, text in SOURCES.items()} if cores() >= 2 else set()
    assert set(mutmut_adapter._made) == ahead
    for name, text in SOURCES.items():
        assert generate(name, text) == alone[name] and alone[name].edits
    assert not mutmut_adapter._made  # each taken by its call, none kept for a second
    with pytest.raises(MutationError, match=r"bad\.py: cannot parse"):
        generate("bad.py", "def broken(:\n")

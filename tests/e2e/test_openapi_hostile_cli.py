"""The full-size alias bomb through the command: refused at the real 2,000,000-value bound with
exit 2 and one line naming the place, in bounded time and memory (the unit test uses a lower
bound to stay fast)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

HEAD = 'openapi: 3.0.3\ninfo: {title: bomb, version: "1"}\npaths: {}\nx-bomb:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n'
BOMB = HEAD + "".join(  # nine levels of ten: 10**9 values once the aliases are expanded
    f"  {b}: &{b} [{', '.join([f'*{a}'] * 10)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True))


def test_a_billion_value_alias_bomb_is_refused_at_two_million_values(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB, encoding="utf-8")
    start = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).parent / "harness"), "openapi", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "at most 2,000,000 values after expanding YAML aliases" in done.stderr
    assert "Traceback" not in done.stderr
    assert time.perf_counter() - start < 60

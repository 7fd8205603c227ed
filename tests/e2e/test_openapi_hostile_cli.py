"""`harness openapi` on hostile documents, in a subprocess. The full-size alias bomb: refused at
the real 2,000,000-value bound with exit 2 and one line naming the place, in bounded time and
memory (the unit test uses a lower bound to stay fast). Server credentials never reach the
output."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.inproc import harness_main
from tests.unit.sources.test_openapi_hostile import SECRET, _with_server

pytestmark = pytest.mark.slow

HEAD = 'openapi: 3.0.3\ninfo: {title: bomb, version: "1"}\npaths: {}\nx-bomb:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n'
BOMB = HEAD + "".join(  # nine levels of ten: 10**9 values once the aliases are expanded
    f"  {b}: &{b} [{', '.join([f'*{a}'] * 10)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True))


@pytest.mark.expensive
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


def test_the_cli_never_echoes_server_credentials(tmp_path: Path) -> None:
    # moved from tests/unit/sources/test_openapi_hostile.py: it runs the command in a subprocess
    path = tmp_path / "api.json"
    path.write_text(json.dumps(_with_server(f"https://admin:{SECRET}@api.example.invalid/v1")), encoding="utf-8")
    done = harness_main("openapi", str(path), "--format", "json")  # in this process: what it prints is the point
    assert done.returncode == 2, done.stderr
    assert "carrying credentials" in done.stderr
    assert SECRET not in done.stdout + done.stderr

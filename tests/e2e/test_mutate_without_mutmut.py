"""mutmut is the [mutate] extra: without it `harness mutate` says how to install it (exit 2)
instead of failing inside the planner, and `harness run` without --mutate never needs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness._exitcodes import ExitCode

# a fresh interpreter per test, where mutmut cannot be imported: tests/README.md puts those here
pytestmark = pytest.mark.slow

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "mutate" / "cased"
# mutmut (and its libcst) made unimportable the way Python itself spells "not installed here": sys.modules[name] = None
WITHOUT_MUTMUT = ("import sys; sys.modules['mutmut'] = sys.modules['libcst'] = None; "
                  "from harness._cli.main import main; main()")


def _harness(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_MUTMUT, *args], capture_output=True, text=True,
                          check=False, cwd=cwd, timeout=120)


def test_mutate_without_mutmut_names_the_extra_to_install(tmp_path: Path) -> None:
    proc = _harness("mutate", str(SCENARIO), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == ExitCode.BAD_INPUT, proc.stderr
    assert "pip install 'wire-harness[mutate]'" in proc.stderr and "mutmut 3.8.1" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out" / "plan.json").exists()


def test_run_without_mutate_needs_no_mutmut(tmp_path: Path) -> None:
    proc = _harness("run", str(SCENARIO), "--no-pins", "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert proc.returncode == ExitCode.OK, proc.stderr

"""mutmut is the [mutate] extra: without it `harness mutate` says how to install it (exit 2)
instead of failing inside the planner, and `harness run` without --mutate never needs it.

In this process with mutmut and libcst made unimportable (the README's tier), and in a fresh
interpreter (the expensive tier: 1.3 CPU s, and the only view of imports made at module level by
modules this process had already loaded)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness._exitcodes import ExitCode
from tests.e2e.inproc import harness_main

# whole commands, and (expensive) a fresh interpreter per test where mutmut cannot be imported
pytestmark = pytest.mark.slow

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "mutate" / "cased"
# mutmut (and its libcst) made unimportable the way Python itself spells "not installed here": sys.modules[name] = None
WITHOUT_MUTMUT = ("import sys; sys.modules['mutmut'] = sys.modules['libcst'] = None; "
                  "from harness._cli.main import main; main()")


def _harness(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_MUTMUT, *args], capture_output=True, text=True,
                          check=False, cwd=cwd, timeout=120)


def _without_mutmut(monkeypatch: pytest.MonkeyPatch) -> None:
    """mutmut, libcst and every submodule of theirs this process loaded unimportable until the test ends."""
    for name in {"mutmut", "libcst", *(m for m in sys.modules if m.split(".")[0] in ("mutmut", "libcst"))}:
        monkeypatch.setitem(sys.modules, name, None)


def test_mutate_without_mutmut_here_names_the_extra_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _without_mutmut(monkeypatch)
    got = harness_main("mutate", str(SCENARIO), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == ExitCode.BAD_INPUT, got.stderr
    assert "pip install 'wire-harness[mutate]'" in got.stderr and "mutmut 3.8.1" in got.stderr
    assert "Traceback" not in got.stderr
    assert not (tmp_path / "out" / "plan.json").exists()


def test_run_without_mutate_here_never_imports_mutmut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # rules: none: no rejection module names mutmut, and the catalog's load and check would be
    # most of this test's CPU (the expensive tier's fresh interpreter runs the suite as it is)
    suite = shutil.copytree(SCENARIO, tmp_path / "cased")
    (suite / "suite.yaml").write_text((suite / "suite.yaml").read_text() + "rules: none\n")
    _without_mutmut(monkeypatch)
    got = harness_main("run", str(suite), "--no-pins", "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert got.returncode == ExitCode.OK, got.stderr


@pytest.mark.expensive
def test_mutate_without_mutmut_names_the_extra_to_install(tmp_path: Path) -> None:
    proc = _harness("mutate", str(SCENARIO), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == ExitCode.BAD_INPUT, proc.stderr
    assert "pip install 'wire-harness[mutate]'" in proc.stderr and "mutmut 3.8.1" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out" / "plan.json").exists()


@pytest.mark.expensive
def test_run_without_mutate_needs_no_mutmut(tmp_path: Path) -> None:
    proc = _harness("run", str(SCENARIO), "--no-pins", "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert proc.returncode == ExitCode.OK, proc.stderr

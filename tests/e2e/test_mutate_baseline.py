"""`harness mutate --baseline`: escapes and failed claims already in the baseline do not fail the
run; a new one does, and is named."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness._exitcodes import ExitCode
from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "mutate" / "cased"
HARNESS = [sys.executable, "-m", "harness"]
_ESCAPE = ("  - id: {id}\n    title: the model in capitals\n    site: {{file: echo.py, function: new_body}}\n"
           "    change: {{find: \"str(model)\", replace: \"str(model).{method}()\"}}\n"
           "    killed_by: [plain::model_is_string]\n")


def _mutate(suite: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HARNESS, "mutate", str(suite), "--out", str(out), *extra],
                          capture_output=True, text=True, check=False, cwd=suite.parent)


@pytest.mark.expensive
def test_only_escapes_the_baseline_did_not_have_fail_the_run(tmp_path: Path) -> None:
    suite = shutil.copytree(SCENARIO, tmp_path / "cased")
    ledger = suite / "echo.ledger.yaml"
    ledger.write_text(ledger.read_text() + _ESCAPE.format(id="model-upper", method="upper"))
    first = _mutate(suite, tmp_path / "base", "-q")
    assert first.returncode == ExitCode.MUTANTS_ESCAPED, first.stderr  # the escape and its failed claim
    again = _mutate(suite, tmp_path / "again", "--baseline", str(tmp_path / "base"))
    assert again.returncode == ExitCode.OK, again.stdout + again.stderr
    assert "0 new escape(s), 1 escaping already, 0 fixed; 0 new failed claim(s)" in again.stdout
    ledger.write_text(ledger.read_text() + _ESCAPE.format(id="model-lower", method="lower"))
    worse = _mutate(suite, tmp_path / "worse", "--baseline", str(tmp_path / "base"))
    assert worse.returncode == ExitCode.MUTANTS_ESCAPED
    assert "new: model-lower" in worse.stdout.splitlines()
    delta = json.loads((tmp_path / "worse" / "baseline-delta.json").read_text())
    assert delta["new"]["escapes"] == ["model-lower"] and delta["still"]["escapes"] == ["model-upper"]
    assert _mutate(suite, tmp_path / "any", "--baseline", str(tmp_path / "base"), "--fail-on", "any",
                   "-q").returncode == ExitCode.MUTANTS_ESCAPED


def test_fail_on_new_without_a_baseline_is_bad_input(tmp_path: Path) -> None:
    # in this process: refused before anything runs, so what it says and returns is the point
    got = harness_main("mutate", str(SCENARIO), "--out", str(tmp_path / "out"), "--fail-on", "new",
                       cwd=SCENARIO.parent)
    assert got.returncode == ExitCode.BAD_INPUT
    assert "--fail-on='new': expected --baseline PREVIOUS_MUTATION_DIR as well" in got.stderr

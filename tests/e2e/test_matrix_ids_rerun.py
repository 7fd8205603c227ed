"""A version matrix run's printed ids rerun their one pair's result with the command printed: a
pin that fails only on the pairs whose new side is tinywire 3.0.0 (it raised max_tokens), rerun
by the printed ``pytest --harness-versions=... 'ID'``, fails again, alone."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.wheelhouse import versions_suite

pytestmark = [pytest.mark.slow, pytest.mark.expensive]  # three environments provisioned, then pytest
PIN = "max_tokens_stays_1024"


@pytest.fixture
def suite(tmp_path: Path, scenarios: Path) -> Path:
    folder = versions_suite(tmp_path / "versions", scenarios)
    cases = folder / "tiny.cases.yaml"
    cases.write_text(cases.read_text().rstrip("\n") + f"\n    pins:\n      - {{name: {PIN}, kind: equals, "
                     "select: max_tokens, value: 1024}\n")
    return folder


def test_each_failing_pin_of_a_matrix_run_reruns_with_the_command_it_printed(suite: Path, tmp_path: Path) -> None:
    env = {**os.environ, "HARNESS_CACHE": str(tmp_path / "cache"), "PIP_NO_INDEX": "1"}
    run = subprocess.run([sys.executable, "-m", "harness", "run", str(suite), "--out", str(tmp_path / "out"),
                          "--case", "slash-name@*", "--versions", "1.0.0,2.0.0,3.0.0"],
                         capture_output=True, text=True, cwd=suite, env=env, timeout=600, check=False)
    assert run.returncode == 1, run.stdout + run.stderr
    printed = [line.strip().removeprefix("FAILED ").rsplit(": ", 1)[0] for line in run.stdout.splitlines()
               if line.strip().startswith("FAILED ") and PIN in line]
    # both pairs whose new side is 3.0.0, each its own command
    assert len(printed) == 2 and all(p.startswith("pytest --harness-versions=1.0.0,2.0.0,3.0.0 ") for p in printed)
    words = shlex.split(printed[0])
    again = subprocess.run([sys.executable, "-m", *words, "-p", "no:randomly", "-p", "no:cacheprovider"],
                           capture_output=True, text=True, cwd=suite, env=env, timeout=600, check=False)
    assert again.returncode == 1, again.stdout + again.stderr
    assert "1 failed" in again.stdout and "passed" not in again.stdout.splitlines()[-1], again.stdout
    bare = subprocess.run([sys.executable, "-m", "pytest", words[-1], "-p", "no:randomly", "-p", "no:cacheprovider"],
                          capture_output=True, text=True, cwd=suite, env=env, timeout=600, check=False)
    assert bare.returncode == 4, bare.stdout  # without the versions the pair's item does not exist

"""ruff and mypy --strict stay clean: the same checks as tox's lint and types environments, so
CI (which runs the test command) catches a lapse too."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if not found:
        pytest.skip(f"{name} is not installed (it comes with the [test] extra)")
    return found


def test_ruff_finds_nothing_in_the_package_the_subjects_the_tests_and_the_benchmarks(repo: Path) -> None:
    got = subprocess.run([tool("ruff"), "check", "harness", "subjects", "tests", "bench"], cwd=repo,
                         capture_output=True, text=True, timeout=300, check=False)
    assert got.returncode == 0, got.stdout[-3000:]


@pytest.mark.expensive
@pytest.mark.parametrize("target", ["harness", "subjects/wire_harness_subjects"])
def test_mypy_strict_finds_nothing_in_the_package_and_the_subjects_distribution(repo: Path, target: str) -> None:
    got = subprocess.run([tool("mypy"), target], cwd=repo, capture_output=True, text=True, timeout=600,
                         check=False)
    assert got.returncode == 0, got.stdout[-3000:]

"""The bundled suite's own claims, checked on every CI run: the main job is clean, and every pin
marked ``catches_old`` really fails against the old pipeline (a pin that cannot fail is a defect)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.expensive]


def run(repo: Path, tmp: Path, *args: str) -> tuple[int, dict[str, Any]]:
    got = subprocess.run([sys.executable, "-m", "harness", "run", "cases", "--format", "json", "--out", str(tmp),
                          "-q", *args], capture_output=True, text=True, timeout=900, cwd=repo, check=False)
    return got.returncode, json.loads(got.stdout) if got.stdout.strip() else {"stderr": got.stderr}


def test_the_bundled_main_job_is_clean(repo: Path, tmp_path: Path) -> None:
    code, report = run(repo, tmp_path)
    assert code == 0, report.get("exit") or report
    assert report["summary"]["failed"] == 0 and report["pins"]["summary"]["failed"] == 0
    assert report["rejections"]["summary"]["new_undeclared"] == 0


def test_every_catches_old_pin_fails_against_the_old_pipeline(repo: Path, tmp_path: Path) -> None:
    code, report = run(repo, tmp_path, "--pins-against", "old", "--no-rejections")
    claims = report["pins"]["catches_old"]
    assert claims["passed"] == [], f"catches_old pins that pass against old: {claims['passed']}"
    assert claims["failed"] > 100 and code == 0

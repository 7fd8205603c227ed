"""timings.total_s covers the whole run, redaction and validation included."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from harness import _runner as runner
from harness._load.suite import load_suite


def test_total_seconds_include_the_validation_after_the_stages(
        tmp_path: Path, scenarios: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = runner.validate_report

    def slow_validation(report: Any) -> None:  # the real check, made measurably slow
        time.sleep(0.6)
        real(report)

    monkeypatch.setattr(runner, "validate_report", slow_validation)
    suite = load_suite(scenarios / "suites" / "hostile")
    options = runner.RunOptions(cases=["calm"], pins=False, rejections=False, out=tmp_path)
    result = runner.run(suite, options)
    timings = result.report["timings"]
    assert timings["total_s"] >= 0.6 + timings["build_s"]

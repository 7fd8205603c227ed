"""Every run gets a folder of its own, even two runs of one process started in the same second."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import _runner as runner
from harness._load.suite import load_suite


def test_two_runs_started_in_the_same_second_write_two_folders(
        tmp_path: Path, scenarios: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the same second, the same process: the id is the same (it was a FileExistsError)
    monkeypatch.setattr(runner, "_run_id", lambda suite: "20261201T000000Z-same")
    suite = load_suite(scenarios / "suites" / "hostile")
    options = runner.RunOptions(pins=False, rejections=False, out=tmp_path, workers=1)
    first, second = runner.run(suite, options), runner.run(suite, options)
    assert (first.folder.name, second.folder.name) == ("20261201T000000Z-same", "20261201T000000Z-same-2")
    for result in (first, second):
        assert json.loads((result.folder / "report.json").read_text())["differential"]

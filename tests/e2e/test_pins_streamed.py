"""A killed ``harness run`` keeps the pin outcomes it had made: the pin stage writes each one to
the run folder's ``pins.jsonl`` as its case x lane finishes, not at the end of the run.

A real ``python -m harness`` killed mid-build: the expensive tier. The README's tier has the same
behaviour without the kill, in this process: each unit's outcomes read back from the file the
moment the unit finishes, none of the units still to come
(``tests/unit/pins/test_stage_stream.py::test_each_units_outcomes_are_on_disk_as_soon_as_the_unit_finishes``),
and ``harness run`` streaming to its run folder exactly what its report lists
(``::test_a_run_folder_holds_the_streamed_outcomes_the_report_lists``)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def streamed(out: Path) -> list[dict[str, str]]:
    found = list(out.glob("*/pins.jsonl"))
    return [json.loads(line) for line in found[0].read_text().splitlines()] if found else []


@pytest.mark.expensive
def test_sigkill_mid_build_leaves_the_outcomes_of_the_finished_units(scenarios: Path, tmp_path: Path) -> None:
    suite = shutil.copytree(scenarios / "suites" / "streamed_pins", tmp_path / "streamed_pins")
    out = tmp_path / "out"
    env = {**os.environ, "PACED_PIPES_DELAY": "0.4"}  # 16 units x 2 calls, one worker: about 13 s in all
    env.pop("HARNESS_SUPERVISOR_TOKEN", None)
    harness = subprocess.Popen([sys.executable, "-m", "harness", "run", str(suite), "--out", str(out), "-q",
                                "--workers", "1", "--no-rejections"], env=env, cwd=suite,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    start = time.monotonic()
    while len(streamed(out)) < 6:  # two units' items
        assert harness.poll() is None, harness.stderr.read() if harness.stderr else ""
        assert time.monotonic() - start < 120, "no pin outcome streamed within 120 s"
        time.sleep(0.05)
    harness.send_signal(signal.SIGKILL)
    harness.wait(timeout=30)
    kept = streamed(out)
    rows = [json.loads(line) for line in next(out.glob("*/differential.jsonl")).read_text().splitlines()]
    finished = {(r["case"], r["lane"]) for r in rows}
    assert 2 <= len(finished) < 16 and not list(out.glob("*/report.json"))  # killed mid-build, no report
    assert {r["outcome"] for r in kept} == {"passed"}
    case_file = [r for r in kept if r["id"].startswith("paced.cases.yaml::")]
    for r in case_file:  # each outcome belongs to a unit that finished
        case, _, lane = r["id"].split("::")[1].rstrip("]").partition("[")
        assert (case, lane) in finished, r
    assert len(case_file) >= 3 * (len(finished) - 1)  # every finished unit's three items (the last may be mid-write)
    # the rest: the Python pin, which reads c0 only and so may have run already
    assert {r["id"] for r in kept} - {r["id"] for r in case_file} <= {
        "test_paced_pins.py::test_the_first_case_names_its_lane_on_every_lane"}

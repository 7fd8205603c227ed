"""`harness show` on the bundled suite: every intended divergence opens with both saved bodies and
their diff, and report.json links each divergence to those bodies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness._evidence.view import unit_lines

pytestmark = [pytest.mark.slow, pytest.mark.expensive]

HARNESS = [sys.executable, "-m", "harness"]


@pytest.fixture(scope="module")
def bundled_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    repo = Path(__file__).resolve().parents[2]
    out = tmp_path_factory.mktemp("runs")
    got = subprocess.run([*HARNESS, "run", "cases", "--no-pins", "-q", "--out", str(out)], cwd=repo,
                         capture_output=True, text=True, timeout=900, check=False)
    assert got.returncode == 0, got.stderr[-2000:]
    folder = (out / "latest").resolve()
    return folder, json.loads((folder / "report.json").read_text())


def test_every_intended_divergence_links_both_bodies_and_carries_its_diff(
        bundled_run: tuple[Path, dict[str, Any]]) -> None:
    folder, report = bundled_run
    intended = [r for r in report["differential"] if r["verdict"] == "intended"]
    assert len(intended) > 100
    for row in intended:
        both_ok = row["old"]["outcome"] == row["new"]["outcome"] == "ok"
        assert (row["diff"] is not None) == both_ok, (row["case"], row["lane"])
        for side in ("old", "new"):
            if row[side]["outcome"] == "ok":
                assert (folder / row["evidence"][side]).is_file(), (row["case"], row["lane"], side)


def test_show_prints_both_bodies_and_the_diff_of_every_bundled_intended_divergence(
        bundled_run: tuple[Path, dict[str, Any]]) -> None:
    folder, report = bundled_run
    for row in report["differential"]:
        if row["verdict"] != "intended" or row["old"]["outcome"] != "ok" or row["new"]["outcome"] != "ok":
            continue
        text = "\n".join(t for t, _ in unit_lines(folder, report, row))
        old, new = (json.loads((folder / row["evidence"][s]).read_text()) for s in ("old", "new"))
        assert json.dumps(old, indent=2, ensure_ascii=False) in text
        assert json.dumps(new, indent=2, ensure_ascii=False) in text
        diff = text.split("--- diff (old -> new, unified)\n", 1)[1].split("\n\n--- rejections", 1)[0]
        assert diff.startswith("--- old\n+++ new\n@@ "), (row["case"], row["lane"], diff)
        marks = {line[0] for line in diff.splitlines()[2:]}
        assert marks & {"-", "+"} and "no difference" not in diff, (row["case"], row["lane"], diff)


def test_the_command_prints_plain_text_when_piped_and_colour_when_asked(
        bundled_run: tuple[Path, dict[str, Any]]) -> None:
    folder, _ = bundled_run
    args = [*HARNESS, "show", "apply-patch-root-oneof", "custom-gateway-claude", "--run", str(folder)]
    plain = subprocess.run(args, capture_output=True, text=True, check=False, env={"PATH": "/usr/bin"})
    assert plain.returncode == 0, plain.stderr
    assert "\x1b[" not in plain.stdout
    assert plain.stdout.splitlines()[0] == f"run {folder.name} (suite bundled, {folder})"  # which run it read
    assert "--- old (observations/bodies/" in plain.stdout and "--- new (observations/bodies/" in plain.stdout
    assert '\n+        "oneOf": [\n' in plain.stdout  # the root composition the new side ships, as an added line
    assert "anthropic.root-composition" in plain.stdout  # the declared rejection on the new side
    coloured = subprocess.run(args, capture_output=True, text=True, check=False,
                              env={"PATH": "/usr/bin", "FORCE_COLOR": "1"})
    assert "\x1b[32m" in coloured.stdout  # an added item in green


def test_an_unknown_case_is_one_error_naming_the_cases_of_the_run(bundled_run: tuple[Path, dict[str, Any]]) -> None:
    folder, _ = bundled_run
    got = subprocess.run([*HARNESS, "show", "no-such-case", "--run", str(folder)], capture_output=True, text=True,
                         check=False)
    assert got.returncode == 2 and "Traceback" not in got.stderr
    assert "CASE='no-such-case': expected a case of this run" in got.stderr

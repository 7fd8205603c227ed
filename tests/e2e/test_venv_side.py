"""A side whose interpreter is a virtual environment's ``bin/python`` runs in that environment:
the packages only the venv holds are importable (the link to the base interpreter is never
followed). The venv is made with the standard library's builder, without pip, and a one-file
package is written into its site-packages: nothing is downloaded."""

from __future__ import annotations

import importlib.util
import json
import shutil
import venv
from pathlib import Path

import pytest

from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

PACKAGE = "venv_only_shaping"


def make_venv_with_package(folder: Path) -> Path:
    """A real venv at ``folder`` (bin/python a symlink, pyvenv.cfg beside bin/) holding PACKAGE."""
    venv.EnvBuilder(symlinks=True, with_pip=False).create(folder)
    site = next(folder.glob("lib/python3*/site-packages"))
    (site / f"{PACKAGE}.py").write_text('SHAPED_BY = "the venv\'s own package"\n')
    return folder / "bin" / "python"


@pytest.fixture
def suite(tmp_path: Path, scenarios: Path) -> Path:
    shutil.copytree(scenarios / "suites" / "venv_side", tmp_path / "venv_side")
    python = make_venv_with_package(tmp_path / "venv_side" / "venv")
    assert python.is_symlink() and importlib.util.find_spec(PACKAGE) is None
    return tmp_path / "venv_side"


def test_a_venv_interpreter_side_imports_the_packages_only_its_venv_holds(suite: Path, tmp_path: Path) -> None:
    got = harness_main("run", str(suite), "--out", str(tmp_path / "out"), "--format", "json", "--no-pins",
                       "--no-rejections")  # the build stage is what plays the sides
    assert got.returncode == 0, got.stdout[-2000:] + got.stderr[-2000:]
    row = json.loads(got.stdout)["differential"][0]
    assert (row["old"]["outcome"], row["new"]["outcome"], row["verdict"]) == ("ok", "ok", "intended")
    bodies = [json.loads(p.read_bytes()) for p in (tmp_path / "out").glob("*/observations/bodies/*/*.json")]
    assert {"model": "m", "tools": [{"name": "echo", "description": "", "input_schema": {}}],
            "prefix_is_venv": True, "shaped_by": "the venv's own package"} in bodies

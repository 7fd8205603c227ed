"""The built wheel, installed outside the source tree: it carries LICENSE, py.typed, the vendored
Stryker files and the bundled catalog (rules, cassettes, lanes), and `harness catalog path`
points at a folder `harness cassettes check` accepts. Built offline from a copy of the tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.wheelhouse import setuptools_version

pytestmark = [pytest.mark.slow, pytest.mark.expensive]

REPO = Path(__file__).resolve().parents[2]
TREE = ("pyproject.toml", "README.md", "LICENSE", "harness", "cases/rules", "cases/lanes", "cassettes")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    version = setuptools_version()
    if version < (70, 1):
        pytest.skip(f"setuptools {version} has no bdist_wheel: an offline build needs 70.1+")
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    for part in TREE:  # links kept as links: the catalog is links into cases/ and cassettes/
        target = src / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if (REPO / part).is_dir():
            shutil.copytree(REPO / part, target, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(REPO / part, target)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                           "-q", str(src), "-w", str(work / "dist")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    (built,) = (work / "dist").glob("wire_harness-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path) -> Path:
    target = wheel.parent.parent / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target",
                           str(target), str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return target


def _harness(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}  # the installed copy first, before the source checkout
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True, timeout=300,
                          cwd=site.parent, env=env)


def test_the_wheel_carries_the_licence_the_type_marker_and_the_vendored_viewer(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "harness/py.typed" in names
    for vendored in ("mutation-test-elements.js", "mutation-testing-elements.LICENSE",
                     "mutation-testing-report-schema.json", "VENDORED.json"):
        assert f"harness/_mutate/vendor/{vendored}" in names


def test_the_wheel_carries_every_bundled_rule_cassette_and_lane(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder, inside in (("cases/rules", "rules"), ("cassettes", "cassettes"), ("cases/lanes", "lanes")):
        for path in (REPO / folder).rglob("*.yaml"):
            assert f"harness/_catalog/{inside}/{path.relative_to(REPO / folder).as_posix()}" in names


def test_catalog_path_points_into_the_installed_package_and_its_cassettes_check(installed: Path) -> None:
    where = _harness(installed, "catalog", "path")
    assert where.returncode == 0, where.stderr
    catalog = Path(where.stdout.strip())
    assert catalog == (installed / "harness" / "_catalog").resolve() and not catalog.is_symlink()
    assert _harness(installed, "catalog", "path", "cassettes").stdout.strip() == str(catalog / "cassettes")
    check = _harness(installed, "cassettes", "check", "--suite", str(catalog))
    assert check.returncode == 0, check.stdout + check.stderr
    rules = len(list((REPO / "cases" / "rules").glob("*.rules.yaml")))
    assert "ok:" in check.stdout and " 0 rules" not in check.stdout and rules


def test_the_installed_package_renders_the_viewer_from_its_own_files(installed: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(installed)}
    code = ("import harness._mutate.viewer as v, harness._mutate.stryker as s; "
            "print(v.__file__); print(v.elements_version()); print(s.official_schema()['$id'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=installed.parent, timeout=120)
    path, version, schema_id = done.stdout.split()
    assert path.startswith(str(installed)) and version.count(".") == 2 and "stryker" in schema_id

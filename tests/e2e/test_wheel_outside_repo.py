"""The built wheels in a fresh virtual environment, outside the repository: the harness's and
the built-in subjects' (a distribution of their own, found through its entry points). Plain
``pytest`` collects every pin of a copy of ``cases/`` (with its ``cassettes/``) through the
``pytest11`` entry point (no conftest, no ``-p``), the Python pins get their ``observe``
fixture, every printed id reruns alone, and ``harness run`` passes the whole bundled suite.

Nothing is downloaded: the wheels are built here without build isolation, and the fresh
environment reaches the dependencies already installed for this test run through a ``.pth``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.wheelhouse import setuptools_version

pytestmark = [pytest.mark.slow, pytest.mark.heavy]  # a wheel and a fresh venv: tests/README.md

REPO = Path(__file__).resolve().parents[2]


def _run(*cmd: str | Path, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          check=False)


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    version = setuptools_version()
    if version < (70, 1):
        pytest.skip(f"building the wheel offline needs setuptools>=70.1 (bdist_wheel built in); found {version}")
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    shutil.copytree(REPO / "harness", src / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    subjects = base / "subjects"
    shutil.copytree(REPO / "subjects", subjects, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    for folder in (src, subjects):
        built = _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                     "-w", base / "dist", folder, cwd=base)
        assert built.returncode == 0, built.stdout + built.stderr
    wheels = sorted((base / "dist").glob("wire_harness*.whl"))
    assert [w.name.split("-")[0] for w in wheels] == ["wire_harness", "wire_harness_subjects"]
    env = base / "venv"
    made = _run(sys.executable, "-m", "venv", "--without-pip", env, cwd=base)
    assert made.returncode == 0, made.stderr
    python = env / "bin" / "python"
    installed = _run(sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index",
                     *wheels, cwd=base)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    purelib = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=base).stdout.strip()
    # the dependencies this run already has, after the wheel's own files on the path
    (Path(purelib) / "zz_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


@pytest.fixture
def user_project(tmp_path: Path) -> Path:
    """A user's checkout: a pyproject.toml and a copy of the bundled suite with the cassettes its
    suite.yaml names (``../cassettes``), nothing else."""
    for name in ("cases", "cassettes"):
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    return tmp_path


def _ids(out: str) -> list[str]:
    return [line for line in out.splitlines() if "::" in line]


def test_plain_pytest_with_the_wheel_collects_every_pin_and_every_id_reruns_alone(
        venv: Path, user_project: Path) -> None:
    where = _run(venv, "-c", "import harness, sys; print(harness.__file__)", cwd=user_project).stdout
    assert where.startswith(str(venv.parent.parent)), where  # the wheel's copy, not the repository's
    listed = _run(venv, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "cases", cwd=user_project)
    assert listed.returncode == 0, listed.stdout[-3000:] + listed.stderr
    ids = _ids(listed.stdout)
    here = _run(sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                "--rootdir", REPO, "cases", cwd=REPO)
    assert ids == _ids(here.stdout) and len(ids) > 500
    assert any("::expect" in i for i in ids) and any(i.startswith("cases/anthropic_messages/test_") for i in ids)
    # every id at once names every item once; a few run alone, each exactly one item
    again = _run(venv, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *ids, cwd=user_project)
    assert _ids(again.stdout) == ids
    samples = [next(i for i in ids if i.endswith("::expect")),
               next(i for i in ids if ".cases.yaml::" in i and not i.endswith("::expect")),
               next(i for i in ids if i.startswith("cases/anthropic_messages/test_"))]
    for nodeid in samples:
        one = _run(venv, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", nodeid, cwd=user_project)
        assert one.returncode == 0, one.stdout[-2000:]
        assert [line for line in one.stdout.splitlines() if line.startswith("PASSED")] == [f"PASSED {nodeid}"]


def test_the_bundled_suite_passes_with_its_subjects_installed_as_their_own_distribution(
        venv: Path, user_project: Path) -> None:
    where = _run(venv, "-c", "import wire_harness_subjects as s; print(s.__file__)", cwd=user_project).stdout
    assert where.startswith(str(venv.parent.parent)), where  # the subjects wheel's copy
    # the ledgers name source files to mutate, which a checkout has and an installed wheel does not:
    # mutation runs on the source tree (tests/e2e/test_mutate_*.py); every other stage runs here
    for ledger in (user_project / "cases").rglob("*.ledger.yaml"):
        ledger.unlink()
    got = _run(venv, "-m", "harness", "run", "cases", "--out", "reports", cwd=user_project, timeout=900)
    assert got.returncode == 0, got.stdout[-3000:] + got.stderr[-3000:]
    assert "0 failing" in got.stdout and "0 undeclared" in got.stdout


def test_init_then_run_with_the_wheel_is_green_on_the_installed_catalog_and_a_root_oneof_meets_its_400(
        venv: Path, tmp_path: Path) -> None:
    repo = tmp_path / "gateway"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    harness = [venv, "-m", "harness"]
    made = _run(*harness, "init", cwd=repo)
    assert made.returncode == 0, made.stderr
    green = _run(*harness, "run", "--workers", "1", cwd=repo)
    assert green.returncode == 0, green.stdout[-3000:] + green.stderr[-3000:]
    report = (repo / "reports" / "latest" / "report.json").read_text()
    assert '"rules": 0' not in report and str(venv.parent.parent) not in report
    with (repo / "cases" / "pipeline.py").open("a") as stub:
        stub.write("\n\ndef new_body(pipeline_input, lane):\n    body = build_body(pipeline_input, lane)\n"
                   "    body['tools'][0]['input_schema'] = {'type': 'object', 'oneOf': [{'required': ['query']}]}\n"
                   "    return body\n")
    red = _run(*harness, "run", "--workers", "1", cwd=repo)
    assert "REJECTED anthropic.root-composition on anthropic-first-party (new)" in red.stdout, red.stdout[-3000:]

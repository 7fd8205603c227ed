"""The pin stage of ``harness run`` (case-file items evaluated in the harness process, a pytest
child for Python pins only) reports every item exactly as the pytest plugin does for the same
items: the same node ids, outcomes and messages, the same pytest exit code, the same
``catches_old`` claims. If the two paths drift, this fails, naming the items that differ.

The reference is plain pytest with the plugin collecting everything, as the pin stage ran it
before; the in-process side is ``run_pins`` on the same saved observations. For the
failing-pins scenario that pytest session runs in this process (pytester: a plain pytest
session all the same, each pipeline call forked by ``--harness-isolate``); for the bundled suite
and the pin-set limits, a pytest subprocess (the expensive tier)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from harness._differential import build
from harness._errors import InputError
from harness._evidence import ObservationStore
from harness._load import load_suite
from harness._model import Side, Suite
from harness._pins.document import claims
from harness._pins.ids import node_root
from harness._pins.run import run_pins

pytestmark = pytest.mark.slow
pytest_plugins = ["pytester"]


def saved_observations(suite: Suite, folder: Path) -> Path:
    """The build stage's observations of ``suite``, saved as ``harness run`` saves them for pins."""
    store = ObservationStore(folder)
    try:
        build(suite, on_result=lambda r: [store.put(o) for o in (r.old, r.new) if o is not None])
    finally:
        store.close()
    return folder


def plugin_pins(suite: Suite, against: Side, store: Path, tmp: Path, *extra: str) -> dict[str, Any]:
    """What plain pytest with the plugin reports for every item of the suite, case files and
    Python pins alike, read the way ``harness run`` read it when the plugin ran all of them."""
    results = tmp / f"plugin-{against}.jsonl"
    cmd = [sys.executable, "-m", "pytest", suite.root, "-p", "harness.pins.plugin", "-p", "no:cacheprovider",
           "-o", "addopts=", "-q", "--tb=no", "--no-header", f"--rootdir={node_root(suite)}", "--harness-isolate",
           f"--harness-against={against}", f"--harness-results={results}", "--harness-rejections=off",
           f"--harness-observations={store}", *extra]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [suite.root, os.environ.get("PYTHONPATH")]))}
    env.pop("PYTEST_ADDOPTS", None)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=node_root(suite), env=env,
                          check=False)
    return plugin_report(results, proc.returncode, proc.stdout[-3000:] + proc.stderr[-3000:])


def plugin_report(results: Path, code: int, output: str) -> dict[str, Any]:
    """The plugin's results file read the way ``harness run`` read it."""
    rows = [json.loads(line) for line in results.read_text().splitlines()] if results.exists() else []
    out = [{"id": r["nodeid"], "message": r["message"],
            "outcome": r["outcome"] if r["when"] == "call" or r["outcome"] != "failed" else "error"}
           for r in rows]
    return {"results": sorted(out, key=lambda r: r["id"]), "pytest_exit": code, "output": output}


def plugin_pins_here(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, suite: Suite, against: Side,
                     store: Path, tmp: Path) -> dict[str, Any]:
    """``plugin_pins`` with the pytest session in this process: the same arguments, the suite
    folder importable and the project root the working folder, as the subprocess has them."""
    results = tmp / f"plugin-{against}.jsonl"
    monkeypatch.syspath_prepend(suite.root)
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    monkeypatch.chdir(node_root(suite))
    # anyio's and platformdirs' plugins left out, as this repository's pyproject does: a session
    # in this process would import them again (pytester puts sys.modules back after each)
    got = pytester.runpytest_inprocess(
        suite.root, "-p", "harness.pins.plugin", "-p", "no:cacheprovider", "-p", "no:anyio", "-p", "no:platformdirs",
        "-o", "addopts=", "-q", "--tb=no", "--no-header", f"--rootdir={node_root(suite)}", "--harness-isolate",
        f"--harness-against={against}", f"--harness-results={results}", "--harness-rejections=off",
        f"--harness-observations={store}")
    return plugin_report(results, int(got.ret), "\n".join(got.outlines[-40:] + got.errlines[-40:]))


# the one pin whose message quotes what a non-deterministic pipeline made (a clock reading):
# compared with its digits masked
UNSTABLE = "failing.cases.yaml::random[plain]::unstable"


def _seen(result: dict[str, Any]) -> tuple[str, str]:
    message = re.sub(r"\d+", "N", result["message"]) if result["id"] == UNSTABLE else result["message"]
    return result["outcome"], message


def assert_same(inproc: dict[str, Any], plugin: dict[str, Any], suite: Suite, against: Side) -> None:
    mine = {r["id"]: _seen(r) for r in inproc["results"]}
    theirs = {r["id"]: _seen(r) for r in plugin["results"]}
    assert theirs, plugin["output"]
    assert sorted(mine) == sorted(theirs), (sorted(set(mine) ^ set(theirs))[:20], plugin["output"])
    differ = {k: {"in-process": mine[k], "plugin": theirs[k]} for k in mine if mine[k] != theirs[k]}
    assert not differ, json.dumps(differ, indent=1)[:4000]
    assert inproc["pytest_exit"] == plugin["pytest_exit"], plugin["output"]
    if against == "old":
        assert inproc["catches_old"] == claims(suite, plugin["results"])


@pytest.fixture(scope="module")
def failing(tmp_path_factory: pytest.TempPathFactory, scenarios_dir: Path) -> tuple[Suite, Path]:
    root = tmp_path_factory.mktemp("failing") / "failing_pins"
    shutil.copytree(scenarios_dir / "suites" / "failing_pins", root)
    suite = load_suite(root)
    return suite, saved_observations(suite, tmp_path_factory.mktemp("store"))


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory, repo_dir: Path) -> tuple[Suite, Path]:
    suite = load_suite(repo_dir / "cases")
    return suite, saved_observations(suite, tmp_path_factory.mktemp("store"))


@pytest.fixture(scope="module")
def scenarios_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "scenarios"


@pytest.fixture(scope="module")
def repo_dir() -> Path:
    return Path(__file__).resolve().parent.parent.parent


def compare_paths(suite: Suite, store: Path, tmp: Path, against: Side, pin_set: str | None = None,
                  extra: Sequence[str] = (), **limits: Any) -> dict[str, Any]:
    inproc = run_pins(suite, against, observations=store, pin_set=pin_set, **limits)
    plugin = plugin_pins(suite, against, store, tmp, *([f"--harness-pins={pin_set}"] if pin_set else []), *extra)
    assert_same(inproc, plugin, suite, against)
    return inproc


@pytest.mark.expensive
@pytest.mark.parametrize("against", ["new", "old"])
def test_every_item_of_the_bundled_suite_is_reported_as_the_plugin_reports_it(
        bundled: tuple[Suite, Path], tmp_path: Path, against: Side) -> None:
    got = compare_paths(*bundled, tmp_path, against)
    assert sum(got["summary"].values()) > 1000
    if against == "old":  # against old many pins fail, each with its message: the comparison has teeth
        assert got["summary"]["failed"] > 50, got["summary"]


@pytest.mark.parametrize("against", ["new", pytest.param("old", marks=pytest.mark.expensive)])
def test_pins_failing_every_way_are_reported_as_the_plugin_reports_them(
        failing: tuple[Suite, Path], tmp_path: Path, against: Side, pytester: pytest.Pytester,
        monkeypatch: pytest.MonkeyPatch) -> None:
    suite, store = failing
    got = run_pins(suite, against, observations=store)
    assert_same(got, plugin_pins_here(pytester, monkeypatch, suite, against, store, tmp_path), suite, against)
    by_id = {r["id"]: r for r in got["results"]}
    if against == "new":
        assert by_id["failing.cases.yaml::steady[plain]::equals_fails"]["message"] == 'expected "ECHO"; found "echo"'
        assert "test_python_pins.py::test_a_python_pin_that_fails" in by_id  # the Python pins' child ran
        assert by_id["other.cases.yaml::no-refeed[plain]::idempotent_without_refeed"]["message"].startswith(
            "LookupError: ")
        assert "sk-ant-api03-AAAA" not in json.dumps(got)
        assert by_id["failing.cases.yaml::crashes[plain]::stable_crash"]["outcome"] == "failed"
    assert not any(i.startswith("build/") for i in by_id)  # pytest does not enter build/: neither do pins


@pytest.mark.expensive
def test_a_pin_set_and_case_and_lane_limits_keep_the_same_items(failing: tuple[Suite, Path], tmp_path: Path) -> None:
    got = compare_paths(*failing, tmp_path, "new", pin_set="mixed")
    assert {r["id"] for r in got["results"]} == {
        "failing.cases.yaml::steady[plain]::equals_ok", "test_python_pins.py::test_a_python_pin_that_fails",
        "failing.cases.yaml::steady[loud]::same_as_old_fails"}
    limited = compare_paths(*failing, tmp_path, "new", extra=["--harness-cases=ste*,refuses", "--harness-lanes=plain"],
                            cases=["ste*", "refuses"], lanes=["plain"])
    assert "failing.cases.yaml::steady[loud]::expect" not in {r["id"] for r in limited["results"]}


@pytest.mark.expensive
def test_a_pin_set_naming_no_pin_is_the_same_input_error_either_way(failing: tuple[Suite, Path],
                                                                     tmp_path: Path) -> None:
    suite, store = failing
    with pytest.raises(InputError) as err:
        run_pins(suite, "new", observations=store, pin_set="typo")
    plugin = plugin_pins(suite, "new", store, tmp_path, "--harness-pins=typo")
    assert plugin["pytest_exit"] == 4 and str(err.value) in plugin["output"]


@pytest.mark.expensive
def test_a_conftest_acting_on_items_gets_them_all_through_pytest(tmp_path_factory: pytest.TempPathFactory,
                                                                 scenarios_dir: Path, tmp_path: Path) -> None:
    root = tmp_path_factory.mktemp("hooked") / "failing_pins"
    shutil.copytree(scenarios_dir / "suites" / "failing_pins", root)
    (root / "conftest.py").write_text(
        "import pytest\n\n\ndef pytest_collection_modifyitems(items):\n"
        "    for item in items:\n        if item.name == 'equals_fails':\n"
        "            item.add_marker(pytest.mark.skip(reason='waived here'))\n")
    suite = load_suite(root)
    got = compare_paths(suite, saved_observations(suite, tmp_path / "store"), tmp_path, "new")
    waived = next(r for r in got["results"] if r["id"] == "failing.cases.yaml::steady[plain]::equals_fails")
    assert (waived["outcome"], waived["message"]) == ("skipped", "Skipped: waived here")


def test_a_python_pin_file_that_cannot_import_is_the_stages_problem_and_case_pins_still_report(
        tmp_path_factory: pytest.TempPathFactory, scenarios_dir: Path, failing: tuple[Suite, Path]) -> None:
    """The one place the two paths differ on purpose: one pytest session for every item lost
    every case-file outcome to a broken Python pin file; now only the Python pins are lost."""
    root = tmp_path_factory.mktemp("broken") / "failing_pins"
    shutil.copytree(scenarios_dir / "suites" / "failing_pins", root)
    (root / "test_broken.py").write_text("import no_such_module_anywhere\n\n\ndef test_x():\n    pass\n")
    suite = load_suite(root)
    # the same cases as the scenario's: its build's observations serve
    got = run_pins(suite, "new", observations=failing[1], pin_set="mixed")
    assert "ERROR test_broken.py" in got["problem"] and got["summary"]["error"] == 1
    assert got["pytest_exit"] == 2
    assert {r["id"] for r in got["results"]} == {"failing.cases.yaml::steady[plain]::equals_ok",
                                                 "failing.cases.yaml::steady[loud]::same_as_old_fails"}

"""The Python pins' pytest in ``harness run`` loads installed pytest plugins (``pytest11`` entry
points) as plain ``pytest`` in the same environment does, so a pin using a plugin's fixture
passes in both; ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`` (pytest's own switch) leaves them out, and
the harness still loads its own plugin by name, so ``observe`` keeps working; ``PYTEST_PLUGINS``
names the ones to load all the same. hypothesis's plugin, installed here, is left out of the
terminal summary when no pin imported hypothesis (its summary hook would import all of it).

The pins' pytest is a fork of the harness (``harness._pins.child``), so the README's tier runs
``harness run`` in this process (``tests/e2e/inproc.py``): its fork finds the installed plugin on
this process's ``sys.path`` and reads pytest's variables from its environment, as the fork of a
``harness`` process does. The same three runs as ``python -m harness`` with ``PYTHONPATH``, and
hypothesis never imported in a fresh interpreter, are the expensive tier's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

PLUGIN = '''import pytest


@pytest.fixture
def tiny_number():
    return 7
'''

PIN = '''def test_an_installed_plugins_fixture_reaches_a_python_pin(tiny_number):
    assert tiny_number == 7
'''


WITNESS = '''import os
import sys


def pytest_unconfigure():
    with open(os.environ["HYPOTHESIS_WITNESS"], "w") as out:
        out.write(str("hypothesis" in sys.modules))
'''


def installed_plugin(site: Path, name: str = "tinyfix", source: str = PLUGIN) -> Path:
    """A distribution with a ``pytest11`` entry point, installed by being on the path."""
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{name}_plugin.py").write_text(source)
    info = site / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[pytest11]\n{name} = {name}_plugin\n")
    return site


def outcomes(suite: Path, out: Path, **env: str) -> dict[str, str]:
    dropped = ("HARNESS_SUPERVISOR_TOKEN", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")  # its own watchdog; autoload as asked
    environ = {k: v for k, v in os.environ.items() if k not in dropped}
    environ.update(env)
    subprocess.run([sys.executable, "-m", "harness", "run", str(suite), "--out", str(out), "-q", "--no-rejections"],
                   env=environ, cwd=suite, check=False, capture_output=True, timeout=300)
    return read_outcomes(out)


# the one case the observe pin reads, on both lanes: the plugins are the subject, not the build
ONE_CASE = """version: 1
subject: paced
cases:
  - id: c0
    tools: [{name: t0}]
    expect: {'*': {diverges: {why: the new side names its lane, paths: [lane]}}}
"""


def read_outcomes(out: Path) -> dict[str, str]:
    """The Python pins' outcomes in a run's report, by test name."""
    report = json.loads((out / "latest" / "report.json").read_text())
    return {r["id"].rpartition("::")[2]: r["outcome"] for r in report["pins"]["results"] if ".py::" in r["id"]}


def inproc_outcomes(suite: Path, out: Path, **env: str) -> dict[str, str]:
    """``outcomes`` with ``harness run`` in this process: its pins' pytest a fork of this one."""
    harness_main("run", str(suite), "--out", str(out), "-q", "--no-rejections", cwd=suite, env=env)
    return read_outcomes(out)


def test_installed_plugins_load_in_the_pins_pytest_unless_it_is_told_not_to_and_hypothesis_stays_out(
        scenarios: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = shutil.copytree(scenarios / "suites" / "streamed_pins", tmp_path / "streamed_pins")
    (suite / "paced.cases.yaml").write_text(ONE_CASE)
    (suite / "test_plugin_pin.py").write_text(PIN)
    site = installed_plugin(installed_plugin(tmp_path / "site"), "witness", WITNESS)
    monkeypatch.syspath_prepend(str(site))  # installed: its dist-info on the path the fork searches
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    monkeypatch.delenv("PYTEST_PLUGINS", raising=False)
    # as a harness process that never imported hypothesis has it: the fork inherits this
    # process's modules, and this one may have imported hypothesis for a test of its own
    for name in [m for m in sys.modules if m == "hypothesis" or m.startswith("hypothesis.")]:
        monkeypatch.delitem(sys.modules, name)
    witness = tmp_path / "hypothesis-imported.txt"
    observe_pin = "test_the_first_case_names_its_lane_on_every_lane"
    plugin_pin = "test_an_installed_plugins_fixture_reaches_a_python_pin"
    assert inproc_outcomes(suite, tmp_path / "auto", HYPOTHESIS_WITNESS=str(witness)) == {
        observe_pin: "passed", plugin_pin: "passed"}
    # hypothesis's plugin (installed here) left out of the summary, whose hook imports all of hypothesis
    assert witness.read_text() == "False"
    assert inproc_outcomes(suite, tmp_path / "off", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1") == {
        observe_pin: "passed", plugin_pin: "error"}  # fixture 'tiny_number' not found; the harness's own still there
    assert inproc_outcomes(suite, tmp_path / "named", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
                           PYTEST_PLUGINS="tinyfix_plugin") == {
        observe_pin: "passed", plugin_pin: "passed"}


@pytest.mark.expensive
def test_installed_plugins_load_unless_pytest_is_told_not_to(scenarios: Path, tmp_path: Path) -> None:
    suite = shutil.copytree(scenarios / "suites" / "streamed_pins", tmp_path / "streamed_pins")
    (suite / "test_plugin_pin.py").write_text(PIN)
    path = os.pathsep.join(filter(None, [str(installed_plugin(tmp_path / "site")), os.environ.get("PYTHONPATH")]))
    observe_pin = "test_the_first_case_names_its_lane_on_every_lane"
    plugin_pin = "test_an_installed_plugins_fixture_reaches_a_python_pin"
    assert outcomes(suite, tmp_path / "auto", PYTHONPATH=path) == {observe_pin: "passed", plugin_pin: "passed"}
    assert outcomes(suite, tmp_path / "off", PYTHONPATH=path, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1") == {
        observe_pin: "passed", plugin_pin: "error"}  # fixture 'tiny_number' not found; the harness's own still there
    assert outcomes(suite, tmp_path / "named", PYTHONPATH=path, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
                    PYTEST_PLUGINS="tinyfix_plugin") == {observe_pin: "passed", plugin_pin: "passed"}


@pytest.mark.expensive
def test_pins_that_never_import_hypothesis_do_not_pay_for_importing_it(scenarios: Path, tmp_path: Path) -> None:
    pytest.importorskip("_hypothesis_pytestplugin", reason="hypothesis's pytest plugin is not installed here")
    suite = shutil.copytree(scenarios / "suites" / "streamed_pins", tmp_path / "streamed_pins")
    site = installed_plugin(tmp_path / "site", "witness", WITNESS)  # says, after the summary, what was imported
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    witness = tmp_path / "hypothesis-imported.txt"
    observe_pin = "test_the_first_case_names_its_lane_on_every_lane"
    assert outcomes(suite, tmp_path / "out", PYTHONPATH=path, HYPOTHESIS_WITNESS=str(witness)) == {
        observe_pin: "passed"}
    assert witness.read_text() == "False"

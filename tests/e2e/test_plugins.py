"""A third party's subject and wire, registered through real entry points: the scenario's
``site/`` holds a distribution as pip leaves it (a package and its ``.dist-info`` with
``entry_points.txt``). Nothing in the harness names it; without it on the path the same suite
is one input error.

The README's tier puts ``site/`` on this process's path and runs ``harness`` here, the entry
points read afresh before and after (``harness._plugins`` reads them once per process); the
expensive tier puts it on the ``PYTHONPATH`` of a real ``harness`` process, as a user's
installation would be."""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from harness import _plugins
from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow


@pytest.fixture
def plugin(tmp_path: Path, scenarios: Path) -> Path:
    """A copy of tests/scenarios/plugins: site/ (the installed plugin), suite/, rules/, receipts."""
    shutil.copytree(scenarios / "plugins", tmp_path / "plugins")
    return tmp_path / "plugins"


def harness(folder: Path, *args: str, site: Path | None = None,
            fresh: bool = True) -> subprocess.CompletedProcess[str]:
    """``harness *args`` in ``folder``, with ``site`` on the path; ``fresh``: in a process of its
    own (``site`` on its PYTHONPATH), else in this one."""
    if not fresh:
        with installed(site) if site is not None else contextlib.nullcontext():
            return harness_main(*args, cwd=folder)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


def _read_entry_points_afresh() -> None:
    importlib.invalidate_caches()
    _plugins._group.cache_clear()
    _plugins.registered_wires.cache_clear()


@contextlib.contextmanager
def installed(site: Path) -> Iterator[None]:
    """The plugin installed in this process while the block runs: ``site`` first on the path; then
    gone again, its modules forgotten, so no later test in this process sees it."""
    sys.path.insert(0, str(site))
    _read_entry_points_afresh()
    try:
        yield
    finally:
        sys.path.remove(str(site))
        for name in [n for n in sys.modules if n.split(".")[0] == "acme_harness_plugin"]:
            del sys.modules[name]
        _read_entry_points_afresh()


# each in this process; and in a harness process of its own (expensive: about a CPU second more)
WHERE = pytest.mark.parametrize("fresh", [False, pytest.param(True, marks=pytest.mark.expensive)],
                                ids=["in-process", "fresh"])


@WHERE
def test_a_subject_a_third_party_registers_as_an_entry_point_runs_its_cases(plugin: Path, fresh: bool) -> None:
    got = harness(plugin, "run", "suite", "--out", "out", site=plugin / "site", fresh=fresh)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "1 runs: 1 same" in got.stdout


def test_without_the_plugin_installed_the_case_file_gets_one_error_listing_the_registered_subjects(
        plugin: Path) -> None:
    got = harness(plugin, "run", "suite", "--out", "out", fresh=False)
    assert got.returncode == 2, got.stdout + got.stderr
    assert "Traceback" not in got.stderr
    assert ("acme.cases.yaml:2 at subject: expected a registered subject (harness.subjects entry points: "
            "anthropic_messages, anthropic_messages_fixed, openai_strict_resume, openapi_omit) or "
            "module:attribute, found 'acme_echo'") in got.stderr


@pytest.mark.expensive
def test_a_wire_a_third_party_registers_rebuilds_its_receipts_in_its_own_body_shape(plugin: Path) -> None:
    built = harness(plugin, "cassettes", "build", "--receipts", "receipts.jsonl", "--rules", "rules",
                    "--out", "suite/cassettes", site=plugin / "site")
    assert built.returncode == 0, built.stdout + built.stderr
    cassette = yaml.safe_load((plugin / "suite" / "cassettes" / "acme" / "acme.no-empty-schema.yaml").read_text())
    request = cassette["interactions"][0]["request"]
    # the rule names no wire: its validator (acme) is one the plugin's wire declares
    assert request["uri"] == "https://api.acme.invalid/v2/chat"
    body = yaml.safe_load(request["body"])
    assert body["toolbox"]["fns"][1] == {"name": "tool_1", "schema": {}}  # the message names index 1
    shutil.copytree(plugin / "rules", plugin / "suite" / "rules")
    checked = harness(plugin, "cassettes", "check", "--suite", "suite", site=plugin / "site")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "1 rejected" in checked.stdout


def test_without_the_plugin_the_rule_of_its_wire_is_one_error_naming_the_known_wires(plugin: Path) -> None:
    got = harness(plugin, "cassettes", "build", "--receipts", "receipts.jsonl", "--rules", "rules", "--out", "c",
                  fresh=False)
    assert got.returncode == 2 and "Traceback" not in got.stderr
    assert "acme.rules.yaml" in got.stderr and "expected one of anthropic, openai-chat" in got.stderr
    assert not (plugin / "c").exists()


@WHERE
def test_a_plugin_may_add_a_wire_but_not_replace_a_built_in_one(plugin: Path, fresh: bool) -> None:
    points = plugin / "site" / "acme_harness_plugin-0.1.dist-info" / "entry_points.txt"
    points.write_text(points.read_text().replace("acme-chat = ", "anthropic = "))
    got = harness(plugin, "cassettes", "build", "--receipts", "receipts.jsonl", "--rules", "rules", "--out", "c",
                  site=plugin / "site", fresh=fresh)
    assert got.returncode == 2 and "Traceback" not in got.stderr
    assert "entry point harness.wires 'anthropic' (acme-harness-plugin)" in got.stderr
    assert "a name no built-in wire has" in got.stderr

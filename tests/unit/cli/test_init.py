"""``harness init``'s files for every wire it offers: the suite loads, the stub builds a body of
that wire from the example case, and no bundled rule fires on it on any lane it took (so
``harness run`` starts green)."""

from __future__ import annotations

import sys
from contextlib import chdir
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from harness._catalog import catalog_path
from harness._cli.args import default_suite
from harness._cli.init import LANES
from harness._cli.main import cli
from harness._load import load_suite
from harness._reject.verdicts import catalog_of, findings_for_body


def _init(folder: Path, *args: str) -> Result:
    with chdir(folder):
        return CliRunner().invoke(cli, ["init", *args], standalone_mode=False)


@pytest.mark.parametrize("wire", sorted(LANES))
def test_the_stub_of_every_wire_builds_bodies_no_bundled_rule_rejects(
        tmp_path: Path, wire: str, monkeypatch: pytest.MonkeyPatch) -> None:
    made = _init(tmp_path, "--wire", wire)
    assert made.return_value == 0, made.output
    monkeypatch.delitem(sys.modules, "pipeline", raising=False)  # each wire's stub is a module of that name
    suite = load_suite(tmp_path / "cases")
    assert sorted(suite.lanes) == sorted(LANES[wire])
    catalog = catalog_of(suite)
    assert Path(catalog.folder) == catalog_path("cassettes")
    from pipeline import new_body  # type: ignore[import-not-found]  # the suite folder is on sys.path now

    [case] = suite.cases
    for lane in suite.lanes.values():
        body = new_body(dict(case.input), lane.as_dict())
        assert body["tools"], body
        assert findings_for_body(catalog, lane, body) == [], (wire, lane.id)


def test_a_lane_of_another_wire_is_refused_by_name(tmp_path: Path) -> None:
    refused = _init(tmp_path, "--lane", "gemini-api")
    assert refused.return_value == 2
    assert "--lane='gemini-api'" in refused.output and "lanes of wire anthropic-messages" in refused.output
    assert not (tmp_path / "cases").exists()


def test_with_pyproject_the_settings_go_into_the_table_and_the_suite_loads_from_it(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mine"\n')
    assert _init(tmp_path, "--pyproject", "--wire", "openai-chat").return_value == 0
    assert not (tmp_path / "cases" / "suite.yaml").exists()
    assert (tmp_path / "pyproject.toml").read_text().startswith('[project]\nname = "mine"\n\n[tool.wire-harness]\n')
    with chdir(tmp_path):
        suite = load_suite(default_suite())
    assert set(suite.subjects) == {"my_pipeline"} and sorted(suite.lanes) == sorted(LANES["openai-chat"])
    again = _init(tmp_path, "--pyproject", "other")
    assert again.return_value == 2 and "without a [tool.wire-harness] table yet" in again.output


def test_the_suite_is_named_after_the_repository_folder(tmp_path: Path) -> None:
    repo = tmp_path / "My Gateway (fork)"
    repo.mkdir()
    assert _init(repo).return_value == 0
    assert yaml.safe_load((repo / "cases" / "suite.yaml").read_text())["name"] == "My-Gateway-fork"

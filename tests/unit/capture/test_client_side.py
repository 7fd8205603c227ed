"""How a ``client:`` side loads: a spec of its own kind, paths and the base-URL variable checked."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness._errors import InputErrors
from harness._load import load_suite


@pytest.fixture
def suite(tmp_path: Path, scenarios: Path) -> Path:
    shutil.copytree(scenarios / "suites" / "sdk_clients", tmp_path / "sdk_clients")
    return tmp_path / "sdk_clients"


def test_a_client_side_loads_as_its_own_kind_run_in_the_suite_folder(suite: Path) -> None:
    subject = load_suite(suite).subjects["anthropic_sdk_vs_fetch"]
    new = subject.pipeline("new")
    assert (new.kind, new.command, new.base_url_env) == ("client", ("node", "clients/fetch_client.mjs"),
                                                         "ANTHROPIC_BASE_URL")
    assert new.cwd == str(suite.resolve()) and not subject.in_process
    assert new.label() == "client node clients/fetch_client.mjs"


@pytest.mark.parametrize(("old", "new"), [
    ("base_url_env: ANTHROPIC_BASE_URL}", "}"),                                     # no variable to set
    ("base_url_env: ANTHROPIC_BASE_URL}", "base_url_env: 'NOT A NAME'}"),           # not a variable name
    ("base_url_env: ANTHROPIC_BASE_URL}", "base_url_env: X, call: 'm:f'}"),         # two kinds at once
])
def test_a_malformed_client_side_is_bad_input_naming_suite_yaml(suite: Path, old: str, new: str) -> None:
    text = (suite / "suite.yaml").read_text()
    (suite / "suite.yaml").write_text(text.replace(old, new, 1))
    with pytest.raises(InputErrors, match=r"suite\.yaml:\d+ at subjects\.anthropic_sdk_vs_fetch\.old"):
        load_suite(suite)

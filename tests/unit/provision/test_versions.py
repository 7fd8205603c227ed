"""Released versions as sides, without provisioning anything: how a ``package:`` side loads,
where its environment will live, and which pairs a version matrix plays."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness._errors import ConfigError, InputErrors
from harness._load import load_suite
from harness._provision import distribution, env_python, expand, pairs, parse_versions, with_version
from harness._provision.envs import env_key


@pytest.fixture
def suite(tmp_path: Path, scenarios: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HARNESS_CACHE", str(tmp_path / "cache"))
    shutil.copytree(scenarios / "suites" / "versions", tmp_path / "versions")
    return tmp_path / "versions"


def test_a_matrix_plays_consecutive_pairs_then_each_version_against_the_first() -> None:
    assert pairs(["a", "b"]) == [("a", "b")]
    assert pairs(["1.74.0", "1.80.0", "1.110.2"]) == [("1.74.0", "1.80.0"), ("1.80.0", "1.110.2"),
                                                      ("1.74.0", "1.110.2")]
    assert len(pairs(["1", "2", "3", "4"])) == 5


@pytest.mark.parametrize("text", ["1.0", "1.0,1.0", "", " , "])
def test_versions_need_two_distinct_ones(text: str) -> None:
    with pytest.raises(ConfigError, match="two or more distinct versions"):
        parse_versions(text)


def test_a_requirement_keeps_its_name_and_extras_when_its_version_changes() -> None:
    assert distribution("litellm[proxy]==1.74.0") == "litellm[proxy]"
    assert distribution("Some_Pkg >= 2") == "Some_Pkg"


def test_an_environment_is_named_by_its_requirements_in_any_order(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_CACHE", str(tmp_path))
    assert env_key(["a==1", "b==2"]) == env_key(["b==2", "a==1"])
    assert env_key(["a==1"]) != env_key(["a==2"])
    assert env_python(["a==1"]).startswith(str(tmp_path / "envs"))


def test_a_package_side_loads_as_a_callable_in_the_provisioned_interpreter(suite: Path) -> None:
    loaded = load_suite(suite)
    old = loaded.subjects["tiny"].pipeline("old")
    assert old.requirements == ("tinywire==1.0.0",)
    assert old.python == env_python(["tinywire==1.0.0"]) and not old.in_process
    assert old.find_links == (str(suite / "wheels"),) and old.index is False
    assert old.label() == "shim:build in tinywire==1.0.0"  # no cache path in reports
    assert with_version(old, "3.0.0").requirements == ("tinywire==3.0.0",)


def test_a_package_side_with_a_python_too_is_bad_input(suite: Path) -> None:
    text = (suite / "suite.yaml").read_text().replace('call: "shim:build", find_links', 'python: python3, '
                                                      'call: "shim:build", find_links', 1)
    (suite / "suite.yaml").write_text(text)
    with pytest.raises(InputErrors, match=r"suite\.yaml"):
        load_suite(suite)


def test_a_matrix_makes_one_subject_and_one_case_set_per_pair(suite: Path) -> None:
    loaded = expand(load_suite(suite), ["1.0.0", "2.0.0", "3.0.0"])
    assert sorted(loaded.subjects) == ["tiny@1.0.0..2.0.0", "tiny@1.0.0..3.0.0", "tiny@2.0.0..3.0.0"]
    pair = loaded.subjects["tiny@1.0.0..3.0.0"]
    assert pair.pipeline("old").requirements == ("tinywire==1.0.0",)
    assert pair.pipeline("new").requirements == ("tinywire==3.0.0",)
    assert loaded.case("root-oneof@2.0.0..3.0.0").subject == "tiny@2.0.0..3.0.0"
    assert len(loaded.cases) == 9


def test_a_matrix_over_a_suite_without_package_sides_is_a_configuration_error(scenarios: Path) -> None:
    with pytest.raises(ConfigError, match="whose sides name a package"):
        expand(load_suite(scenarios / "suites" / "toy"), ["1", "2"])


def test_matrix_in_suite_yaml_needs_two_versions(suite: Path) -> None:
    (suite / "suite.yaml").write_text((suite / "suite.yaml").read_text() + "matrix: [1.0.0]\n")
    with pytest.raises(InputErrors, match="matrix"):
        load_suite(suite)


def test_a_cache_folder_that_cannot_be_written_is_a_configuration_error(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from harness._model import PipelineSpec
    from harness._provision import provision

    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("HARNESS_CACHE", str(tmp_path / "a-file"))
    spec = PipelineSpec(kind="python", call="m:f", requirements=("tinywire==1.0.0",))
    with pytest.raises(ConfigError, match="HARNESS_CACHE"):
        provision(spec, lambda _text: None)

"""A ``package:`` side's package and requirements reach pip's command line, so each must be a
PEP 508 requirement specifier: an option (``-r/etc/passwd`` made pip read that file, ``--target``
passed through), a path, a wheel file name or a direct URL is bad input naming the entry, found
when the suite loads, before pip runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import ConfigError, InputErrors, SubjectError
from harness._load import load_suite
from harness._model import PipelineSpec
from harness._provision import with_version
from harness._provision.envs import _pip_install
from harness._provision.released import requirement_problem
from tests.fuzzing import fuzz


@pytest.fixture
def suite(tmp_path: Path, scenarios: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HARNESS_CACHE", str(tmp_path / "cache"))
    shutil.copytree(scenarios / "suites" / "versions", tmp_path / "versions")
    return tmp_path / "versions"


def _with_requirements(suite: Path, entries: str, side: str = "old") -> None:
    text = (suite / "suite.yaml").read_text()
    marker = f'{side}: {{package: "tinywire=='
    assert marker in text
    added = f"{side}: {{requirements: {entries}, " + marker[len(side) + 3:]
    (suite / "suite.yaml").write_text(text.replace(marker, added, 1))


@pytest.mark.parametrize(("entry", "why"), [
    ('"-r/etc/passwd"', "'-r/etc/passwd': an option, which pip would obey"),
    ('"--target=/tmp/elsewhere"', "'--target=/tmp/elsewhere': an option, which pip would obey"),
    ('" -e ."', "'-e .': an option, which pip would obey"),
    ('"/etc/passwd"', "'/etc/passwd': not PEP 508 ("),
    ('"./local-folder"', "'./local-folder': not PEP 508 ("),
    ('"evil-1.0-py3-none-any.whl"', "'evil-1.0-py3-none-any.whl': a file name, which pip would install"),
    ('"tinywire @ file:///etc/passwd"', "'tinywire @ file:///etc/passwd': a direct reference (name @ URL)"),
    ('"httpx==1 -r x"', "'httpx==1 -r x': not PEP 508 ("),
])
def test_an_option_path_file_or_url_in_requirements_is_bad_input_naming_the_entry(
        suite: Path, entry: str, why: str) -> None:
    _with_requirements(suite, f'["httpx>=0.28", {entry}]')
    with pytest.raises(InputErrors) as caught:
        load_suite(suite)
    [error] = caught.value.errors
    assert str(error).startswith(f"{suite / 'suite.yaml'}:9 at subjects.tiny.old.requirements[1]: expected a "
                                 "requirement specifier (PEP 508: name[extras] and versions, as litellm==1.74.0), "
                                 f"found {why}"), str(error)


def test_the_package_itself_is_held_to_the_same_rule(suite: Path) -> None:
    text = (suite / "suite.yaml").read_text().replace('new: {package: "tinywire==2.0.0"',
                                                      'new: {package: "tinywire==2.0.0 --index-url http://evil"', 1)
    (suite / "suite.yaml").write_text(text)
    with pytest.raises(InputErrors, match=r"suite\.yaml:10 at subjects\.tiny\.new\.package: expected a "
                                          r"requirement specifier .* found 'tinywire==2\.0\.0 --index-url "
                                          r"http://evil': not PEP 508"):
        load_suite(suite)


def test_plain_requirements_with_extras_and_markers_load(suite: Path) -> None:
    _with_requirements(suite, '["httpx>=0.28,<0.29", "pydantic[email]==2.7; python_version >= \'3.9\'"]')
    old = load_suite(suite).subjects["tiny"].pipeline("old")
    assert old.requirements == ("tinywire==1.0.0", "httpx>=0.28,<0.29", "pydantic[email]==2.7; python_version >= '3.9'")


def test_a_version_for_the_matrix_that_is_not_one_is_a_configuration_error() -> None:
    spec = PipelineSpec(kind="python", call="m:f", requirements=("tinywire==1.0.0",))
    with pytest.raises(ConfigError, match="a version pip can pin"):
        with_version(spec, "1.0 -rfoo")


def test_pip_is_told_where_its_options_end_and_never_given_an_option_as_a_requirement(tmp_path: Path) -> None:
    spec = PipelineSpec(kind="python", call="m:f", requirements=("tinywire==1.0.0", "httpx"), index=False)
    argv = _pip_install(spec, str(tmp_path / "python"))
    assert argv[-3:] == ["--", "tinywire==1.0.0", "httpx"]
    with pytest.raises(SubjectError, match="an option"):
        _pip_install(PipelineSpec(kind="python", call="m:f", requirements=("x", "-r/etc/passwd")), "python")


NAME = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9._-]{0,12}[A-Za-z0-9])?", fullmatch=True)


@fuzz()
@given(st.text(max_size=40) | st.builds(lambda n, rest: n + rest, NAME, st.text(max_size=20)))
def test_whatever_is_accepted_is_a_named_requirement_pip_cannot_read_as_an_option_path_or_url(text: str) -> None:
    from packaging.requirements import Requirement

    if requirement_problem(text) is not None:
        return
    given = text.strip()
    req = Requirement(given)
    assert not given.startswith("-") and req.url is None
    assert given.startswith(req.name)  # a name first: never "/", ".", "~" or a drive
    assert not req.name.lower().endswith((".whl", ".zip", ".tar.gz", ".tgz"))


@fuzz()
@given(st.sampled_from(["-", "--", " -", "\t--"]), st.text(max_size=30))
def test_anything_that_starts_as_an_option_is_refused(start: str, rest: str) -> None:
    assert requirement_problem(start + rest) is not None

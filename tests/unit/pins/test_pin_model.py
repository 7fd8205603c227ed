"""The pin model in a user's pytest session: printed ids rerun one item, pin sets, module pins,
one pin name on disjoint lanes, ``same_as_input``, catches_old against the old pipeline, and a
suite of Python pins only. Each runs a real pytest (pytester) over a copy of examples/porting."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness._errors import InputErrors
from harness._load import load_suite

pytest_plugins = ["pytester"]

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "porting"
CASE_PIN = "porting/router.cases.yaml::root-union[proxy]::root_shape"
# as this repository's own pyproject.toml has it: pytest plugins that come with dependencies and
# that no session here uses; each in-process session would import them again (pytester puts
# sys.modules back after each), about a third of such a session's CPU
UNUSED_PLUGINS = "-p no:anyio -p no:platformdirs"


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    """A project holding the example suite at porting/, as a user's checkout would."""
    shutil.copytree(EXAMPLE, pytester.path / "porting")
    (pytester.path / "pyproject.toml").write_text(f'[tool.pytest.ini_options]\naddopts = "{UNUSED_PLUGINS}"\n')
    return pytester.path


def _ids(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::" in line and not line.startswith(("=", " "))]


def test_every_printed_pin_id_reruns_exactly_that_item(pytester: pytest.Pytester, project: Path) -> None:
    ids = _ids(pytester.runpytest("--collect-only", "-q", "porting"))
    assert CASE_PIN in ids and len(ids) == 14
    for nodeid in [CASE_PIN, "porting/router.cases.yaml::root-union[first-party]::expect",
                   "porting/test_review.py::test_lookalike_hosts_are_not_first_party[https://evilapi.anthropic.com]"]:
        assert _ids(pytester.runpytest("--collect-only", "-q", nodeid)) == [nodeid]
    every = pytester.runpytest("--collect-only", "-q", *ids)
    assert _ids(every) == ids  # each id names its one item, all of them together every item once


def test_asking_for_a_case_lane_and_one_of_its_pins_keeps_the_whole_case_lane(
        pytester: pytest.Pytester, project: Path) -> None:
    ids = _ids(pytester.runpytest("--collect-only", "-q", CASE_PIN, CASE_PIN.rpartition("::")[0]))
    assert ids == [CASE_PIN.replace("root_shape", "expect"), CASE_PIN]
    assert len(_ids(pytester.runpytest("--collect-only", "-q", CASE_PIN, "porting"))) == 14  # the whole folder


def test_a_pin_set_keeps_only_its_pins_and_a_group_ref_names_every_item(
        pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest("-q", "porting", "--harness-pins", "r2", "-rA")
    result.assert_outcomes(passed=8)
    result.stdout.fnmatch_lines(["*6 deselected*"])
    assert sum("test_lookalike_hosts_are_not_first_party[" in line for line in result.outlines if "PASSED" in line) == 3


def test_a_module_pin_calls_any_function_of_the_pipeline_module(pytester: pytest.Pytester, project: Path) -> None:
    (project / "porting" / "test_more.py").write_text(
        "def test_helper(pipeline_module):\n"
        "    assert pipeline_module().host_of('HTTPS://A.example.:8443/x') == 'a.example'\n"
        "    assert pipeline_module('router', side='old').__name__ == 'router'\n\n"
        "def test_unknown_subject(pipeline_module):\n"
        "    pipeline_module('nope')\n")
    result = pytester.runpytest("-q", "porting/test_more.py")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*pipeline_module('nope'):*"])


def test_a_pin_name_twice_on_one_lane_is_refused_at_its_place(project: Path) -> None:
    cases = project / "porting" / "router.cases.yaml"
    cases.write_text(cases.read_text().replace("lanes: [proxy, deepseek]", "lanes: [first-party, proxy]"))
    with pytest.raises(InputErrors) as info:
        load_suite(project / "porting")
    (error,) = [str(e) for e in info.value.errors]
    assert error.startswith(f"{(project / 'porting').as_posix()}/router.cases.yaml:")
    assert "cases[0].pins[1].name" in error
    assert "'root_shape' again on first-party (also pins[0])" in error


def test_same_as_input_picking_nothing_from_the_input_is_refused_at_load_naming_the_pin(project: Path) -> None:
    cases = project / "porting" / "router.cases.yaml"
    text = cases.read_text()
    cases.write_text(text.replace("same_as_input: tools[0].input_schema", "same_as_input: tools[7].nothing", 1))
    with pytest.raises(InputErrors) as info:
        load_suite(project / "porting")
    (error,) = [str(e) for e in info.value.errors]
    assert "same_as_input" in error and "the case's input" in error and "'tools[7].nothing'" in error


def test_a_suite_of_python_pins_only_loads_and_runs(pytester: pytest.Pytester, project: Path) -> None:
    (project / "porting" / "router.cases.yaml").unlink()
    suite = load_suite(project / "porting")
    assert suite.cases == ()
    pytester.runpytest("-q", "porting", "--harness-pins", "r1").assert_outcomes(passed=4)


def test_an_undeclared_known_rejection_fails_the_expect_item_as_it_fails_harness_run(
        pytester: pytest.Pytester) -> None:
    import yaml

    from tests.unit.reject.scenario import write_suite

    suite = write_suite(pytester.path, None)
    union = {"name": "u", "input_schema": {"type": "object", "anyOf": [{"required": ["a"]}]}}
    declared = {"rule": "demo.root-composition", "lanes": ["gw"], "side": "both", "why": "the gateway forwards it"}
    (suite / "demo.cases.yaml").write_text(yaml.safe_dump({"version": 1, "subject": "demo", "cases": [
        {"id": "undeclared", "tools": [union]},
        {"id": "declared", "tools": [union], "rejections": [declared]}]}))
    result = pytester.runpytest("-q", "suite", "-k", "expect", "-rA", *UNUSED_PLUGINS.split())
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["the new body meets a known provider rejection the case does not declare: "
                                 "demo.root-composition at tools[[]0[]].input_schema*",
                                 "FAILED suite/demo.cases.yaml::undeclared[[]gw[]]::expect - *"])
    # `harness run` reports those in its rejection stage (exit 3), so its child pytest turns this off
    pytester.runpytest("-q", "suite", "-k", "expect", "--harness-rejections=off",
                       *UNUSED_PLUGINS.split()).assert_outcomes(passed=4)

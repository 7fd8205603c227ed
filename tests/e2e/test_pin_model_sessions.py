"""The pin model across two pytest sessions: each test runs pytest in this process, edits the
project, then runs a fresh pytest subprocess (a fresh suite and observation cache) over a copy of
examples/porting. Moved out of tests/unit/pins/test_pin_model.py because each subprocess pytest
costs about a second of CPU, which the unit folder's budget of seconds cannot carry."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
pytestmark = [pytest.mark.slow, pytest.mark.expensive]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "porting"


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    """A project holding the example suite at porting/, as a user's checkout would."""
    shutil.copytree(EXAMPLE, pytester.path / "porting")
    (pytester.path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    return pytester.path


CATCHES = """version: 1
subject: router
cases:
  - id: union
    tools: [{name: w, input_schema: {anyOf: [{type: object}]}}]
    lanes: [first-party]
    expect: {first-party: {diverges: {why: flattened}}}
    pins:
      - {name: flattened, kind: schema, select: "tools[0].input_schema", must_not_match: {required: [anyOf]},
         catches_old: true}
"""


def test_an_unknown_pin_set_or_a_set_ref_naming_nothing_is_a_usage_error(
        pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest("-q", "porting", "--harness-pins", "r9")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--harness-pins r9*pin set of suite porting-example (r1, r2, r3), found 'r9'*"])
    suite_yaml = project / "porting" / "suite.yaml"
    suite_yaml.write_text(suite_yaml.read_text().replace("*::test_host_is_case_insensitive", "*::test_hots", 1))
    result = pytester.runpytest_subprocess("-q", "porting", "--harness-pins", "r1")  # a fresh suite cache
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*pin_sets.r1[[]0[]]*a pin reference matching a collected pin, found '[*]::test_hots'*"])


def test_one_pin_name_on_disjoint_lanes_is_one_item_per_lane_and_same_as_input_restates_nothing(
        pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest("-q", "porting/router.cases.yaml", "-rA")
    result.assert_outcomes(passed=6)
    router = project / "porting" / "router.py"
    router.write_text(router.read_text().replace("narrow = is_first_party(lane)", "narrow = True"))
    result = pytester.runpytest_subprocess("-q", "porting/router.cases.yaml", "-k", "root_shape", "-rA")
    result.assert_outcomes(passed=1, failed=2)  # the verbatim lanes now differ from their input
    result.stdout.fnmatch_lines(["FAILED porting/router.cases.yaml::root-union[[]proxy[]]::root_shape - *"])


def test_against_old_pytest_passes_exactly_when_the_catches_old_pins_fail(
        pytester: pytest.Pytester, project: Path) -> None:
    (project / "porting" / "router.cases.yaml").write_text(CATCHES)
    result = pytester.runpytest("-q", "porting/router.cases.yaml", "--harness-against=old", "-rA")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(xfailed=1, skipped=1)  # the expect item has no meaning against old
    # a marked pin that the old pipeline passes does not catch it: that fails the run
    (project / "porting" / "router.cases.yaml").write_text(CATCHES.replace("anyOf: [{type: object}]", "type: object"))
    result = pytester.runpytest_subprocess("-q", "porting/router.cases.yaml", "--harness-against=old")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*marked catches_old, but it passes against the old pipeline*"])

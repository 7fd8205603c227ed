"""The repository's root conftest.py loads in any pytest: the harness's pins child runs pytest
here in a plain install (`pip install -e . -e ./subjects`), which has no pytest-xdist."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT_CONFTEST = Path(__file__).resolve().parents[2] / "conftest.py"


def test_the_root_conftest_loads_in_a_pytest_without_xdist(pytester: pytest.Pytester) -> None:
    # its xdist hook, unmarked, was "unknown hook": every Python pin of `harness run` errored
    pytester.makeconftest(ROOT_CONFTEST.read_text())
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.runpytest("-p", "no:xdist", "-p", "no:randomly")
    result.assert_outcomes(passed=1)

"""The repository's root conftest.py loads in any pytest: the harness's pins child runs pytest
here in a plain install (`pip install -e . -e ./subjects`), which has no pytest-xdist."""

from __future__ import annotations

import os
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


@pytest.mark.parametrize(("variable", "workers"), [("3", 3), (None, None)])
def test_pytest_xdist_auto_num_workers_overrides_the_root_conftest_s_worker_count(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, variable: str | None, workers: int | None) -> None:
    """The conftest answered first and the variable was never read: `-n auto` started four
    workers on two cores whatever it said."""
    if variable is None:
        monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    else:
        monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", variable)
    pytester.makeconftest(ROOT_CONFTEST.read_text())
    config = pytester.parseconfig()
    answered = config.pluginmanager.hook.pytest_xdist_auto_num_workers(config=config)
    if workers is None:  # the conftest's own count: a worker per core
        assert answered == len(os.sched_getaffinity(0))
    else:
        assert answered == workers

"""A Python pin's failure reaches pins.jsonl and the report in pytest's whole explanation of it,
not its last line: a failing list compare read "Use -v to get more diff" and nothing else."""

from __future__ import annotations

import pytest

from harness._pins.results import result_line

pytest_plugins = ["pytester"]


class _Reports:
    def __init__(self) -> None:
        self.calls: list[pytest.TestReport] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.calls.append(report)


def test_a_failing_list_compare_keeps_the_differing_index_in_its_message(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_pin="def test_tools():\n    assert ['a', 'b', 'c'] == ['a', 'x', 'c']\n")
    seen = _Reports()
    pytester.inline_run("-p", "no:randomly", "-p", "no:cacheprovider", plugins=[seen])
    (report,) = seen.calls
    line = result_line(report)
    assert line is not None and line["outcome"] == "failed"
    assert "At index 1 diff: 'b' != 'x'" in line["message"], line["message"]

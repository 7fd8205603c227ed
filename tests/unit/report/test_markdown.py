"""report.md fits a pull-request comment and says so when it had to be cut."""

from __future__ import annotations

from harness.report.markdown import LIMIT, _fit


def test_parts_that_fit_are_joined_whole() -> None:
    assert _fit(["a", "b"]) == "a\nb\n"


def test_an_overflowing_report_is_cut_at_a_line_and_says_where_the_rest_is() -> None:
    big = "\n".join(f"| row {i} | " + "x" * 80 + " |" for i in range(2000))
    text = _fit(["# head", big, "## later section"])
    assert len(text) <= LIMIT
    assert text.startswith("# head\n| row 0 |")
    assert "1 later section(s) left out" in text and "report.json" in text
    assert "| row 1999 |" not in text

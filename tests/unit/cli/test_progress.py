"""Progress off a terminal: a plain line at most every few seconds and one at the end, each saying
how far the stage is and about how long it has left; nothing per unit in between."""

from __future__ import annotations

import io

from rich.console import Console

from harness._common.progress import Ticker, duration, status_line


def _ticker(total: int, every: float) -> tuple[Ticker, io.StringIO]:
    out = io.StringIO()
    return Ticker(total, "built", every=every, bar=False, console=Console(file=out, width=200)), out


def test_the_line_says_how_far_and_about_how_long_is_left_from_the_pace_so_far() -> None:
    assert status_line(0, 40, "built", 2.0) == "0/40 built (0.0%), 2 s elapsed"
    assert status_line(10, 40, "built", 30.0) == "10/40 built (25.0%), 30 s elapsed, about 1 min 30 s left"
    assert status_line(139, 139, "mutants run", 4000.0) == "139/139 mutants run (100.0%), 1 h 06 min elapsed, done"
    assert [duration(s) for s in (0.4, 59.6, 125, 7260)] == ["0 s", "1 min 00 s", "2 min 05 s", "2 h 01 min"]


def test_off_a_terminal_a_line_comes_at_most_every_interval_and_at_the_end() -> None:
    ticker, out = _ticker(50, every=3600.0)
    with ticker:
        for _ in range(50):
            ticker.advance()
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("harness: 50/50 built (100.0%), ") and lines[0].endswith("done")


def test_with_no_interval_every_unit_prints_its_line_with_the_time_left() -> None:
    ticker, out = _ticker(3, every=0.0)
    with ticker:
        for _ in range(3):
            ticker.advance()
    lines = out.getvalue().splitlines()
    assert [line.split(" built")[0] for line in lines] == ["harness: 1/3", "harness: 2/3", "harness: 3/3"]
    assert lines[0].endswith("s left") and lines[2].endswith("done")

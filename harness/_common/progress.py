"""How far a long stage is and when it should end, on stderr: the build of ``harness run`` and the
mutants of ``harness mutate`` (its engine process).

On a terminal, a rich bar with the time elapsed and left; anywhere else (CI, a pipe, a log file)
a plain line at most every ``EVERY_S`` seconds and one at the end, each with the time left, so a
log shows a long run moving without a line per unit. The time left is the pace so far carried
over what remains (units differ, so it is a guess, worded as one).
"""

from __future__ import annotations

import os
import sys
import time
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

__all__ = ["EVERY_S", "Ticker", "duration", "interactive", "status_line"]

EVERY_S = 10.0  # seconds between plain lines


def interactive() -> bool:
    """A person watching: stderr is a terminal and this is not CI."""
    return sys.stderr.isatty() and not os.environ.get("CI")


def duration(seconds: float) -> str:
    """``0 s``, ``42 s``, ``3 min 05 s``, ``2 h 07 min``: as precise as a person reads a wait."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def status_line(done: int, total: int, what: str, elapsed: float) -> str:
    """``120/758 built (15.8%), 12 s elapsed, about 1 min 04 s left``."""
    share = f" ({100 * done / total:.1f}%)" if total else ""
    line = f"{done}/{total} {what}{share}, {duration(elapsed)} elapsed"
    if done >= total:
        return line + ", done"
    if done == 0:
        return line
    return line + f", about {duration(elapsed / done * (total - done))} left"


class Ticker:
    """Counts finished units of one stage and shows where it is: ``advance`` after each; ``note``
    prints a line (above the bar on a terminal). Use it as a context manager."""

    def __init__(self, total: int, what: str, prefix: str = "harness: ", every: float = EVERY_S,
                 bar: bool | None = None, console: Console | None = None) -> None:
        self.total, self.what, self.prefix, self.every = total, what, prefix, every
        self.console = console or Console(stderr=True, soft_wrap=True, highlight=False)
        self.done = 0
        self.started = time.monotonic()
        self._last = self.started
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        if interactive() if bar is None else bar:
            self._bar = Progress(TextColumn(what), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("left"), TimeRemainingColumn(), console=self.console, transient=True)

    def __enter__(self) -> Ticker:
        self.started = self._last = time.monotonic()
        if self._bar is not None:
            self._bar.start()
            self._task = self._bar.add_task(self.what, total=self.total)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop()

    def _stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def advance(self) -> None:
        self.done += 1
        if self._bar is not None and self._task is not None:
            self._bar.advance(self._task)
            if self.done >= self.total:
                self._stop()  # the stages after this one print below it, not under a live bar
            return
        now = time.monotonic()
        if self.done >= self.total or now - self._last >= self.every:
            self._last = now
            self.note(self.line())

    def line(self) -> str:
        return self.prefix + status_line(self.done, self.total, self.what, time.monotonic() - self.started)

    def note(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False)

"""Exit codes of every ``harness`` command. A contract: see docs/stability.md.

    0   clean: everything as expected
    1   an unexpected divergence, an error on either side, or a failing pin
    2   bad input or configuration (a suite file, an argument); nothing ran
    3   a known rejection on a lane that the case does not declare as expected
    4   escaped mutants above the suite's threshold, or a claimed kill that did not happen
    5   drift found by a live probe (a recorded rejection that changed or went away), or a probe
        that could not check (no answer to compare, or nothing to probe)
    70  an internal error in the harness itself (a bug: please report it)
    130 stopped by Ctrl-C (SIGINT); ``harness run`` still writes a partial report
    143 stopped by SIGTERM; ``harness run`` still writes a partial report (``partial`` in it)

When several apply, the lowest non-zero code wins except 2 and 70, which stop the run (and 130
and 143, which end it).
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode", "combine"]


class ExitCode(IntEnum):
    OK = 0
    DIVERGENCE = 1
    BAD_INPUT = 2
    KNOWN_REJECTION = 3
    MUTANTS_ESCAPED = 4
    DRIFT = 5
    INTERNAL = 70
    INTERRUPTED = 130
    TERMINATED = 143


def combine(*codes: ExitCode) -> ExitCode:
    """The code a run exits with when several findings apply: the lowest non-zero."""
    found = [c for c in codes if c != ExitCode.OK]
    return min(found) if found else ExitCode.OK

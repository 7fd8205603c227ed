"""The pieces of observation granularity: the shared progress slot and statement-level coverage."""

from __future__ import annotations

import os
from typing import Any

from harness._mutate.coverage import reaches, statement_lines, statement_spans
from harness._mutate.slot import Slot

SOURCE = '''def f(x):
    total = (1 +
             2)
    if x:
        return total
    return 0
'''


def _sees(mutant: dict[str, Any], hits: dict[str, list[str]], spans: list[tuple[int, int]], mapped: set[str]) -> bool:
    """A pin with these baseline hits runs against the mutant (as a row's pin chooser decides)."""
    keys = statement_lines(mutant, spans, mapped)
    return reaches(mutant, set(hits["functions"])) and (keys is None or not keys.isdisjoint(hits["lines"]))


def test_a_forked_child_s_progress_and_outcomes_are_read_from_the_slot_without_a_message() -> None:
    slot = Slot(3)
    pid = os.fork()
    if pid == 0:
        slot.begin(0)
        slot.done(0, "passed")
        slot.begin(1)
        slot.done(1, "saved")
        slot.begin(2)  # then it dies on its third pin
        os._exit(9)
    os.waitpid(pid, 0)
    position, started = slot.position()
    assert position == 2 and started > 0
    assert slot.outcomes() == {0: "passed", 1: "saved"}
    slot.close()


def test_a_mutant_on_a_continuation_line_is_covered_when_its_statement_ran() -> None:
    spans = statement_spans(SOURCE)
    mutant = {"module": "m", "function": "f", "line": 3, "end_line": 3}
    # the compiler folds 1 + 2: line 3 never has a line event of its own, line 2 does
    hits = {"functions": ["m:f"], "lines": ["m:2", "m:4", "m:6"]}
    assert _sees(mutant, hits, spans, {"m:f"})


def test_a_mutant_on_a_branch_the_pin_never_took_is_not_covered() -> None:
    spans = statement_spans(SOURCE)
    mutant = {"module": "m", "function": "f", "line": 5, "end_line": 5}
    assert not _sees(mutant, {"functions": ["m:f"], "lines": ["m:2", "m:4", "m:6"]}, spans, {"m:f"})
    # a function whose lines were not mapped falls back to function-level coverage
    assert _sees(mutant, {"functions": ["m:f"], "lines": []}, spans, set())
    assert not _sees(mutant, {"functions": ["m:g"], "lines": ["m:5"]}, spans, {"m:f"})

"""Which pins a mutant's row runs: the covering ones, from the baseline's coverage.

- a whole-file mutant (a side outside the engine's process): every pin that passed;
- a declared mutant (a module executed in place): every passing pin that reached its function;
- an operator mutant: every passing pin that ran a line of the statement it sits in
  (``harness._mutate.coverage``); the pins that reached its function but not that statement are
  the pin runs line coverage saves. ``per_pin`` (the engine before observation granularity, kept
  as the oracle its tests compare with) stops at the function.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._mutate.coverage import reaches, statement_lines, statement_spans

__all__ = ["PinChooser", "RowPins", "how"]


def how(m: Mapping[str, Any]) -> str:
    """How mutant ``m`` is turned on (plans written before ``apply`` existed: by kind)."""
    return str(m.get("apply") or ("switch" if m["kind"] == "operator" else "module"))


@dataclass(frozen=True)
class RowPins:
    pins: list[int]
    saved_by_lines: int  # pins that reached the function but none of the mutant's statement


class PinChooser:
    def __init__(self, nodeids: Sequence[str], good: Sequence[int], baseline: Mapping[str, Any],
                 sources: Mapping[str, str], mapped: set[str], per_pin: bool) -> None:
        """``sources``: module name -> its source file (the user's text, before trampolines);
        ``mapped``: the ``module:function`` keys whose lines the baseline recorded."""
        self.good = list(good)
        lines = baseline.get("lines", {})
        # each pin's hits as sets, made once: every mutant asks about every pin
        self.functions = {i: set(baseline["hits"].get(nodeids[i], [])) for i in self.good}
        self.lines = {i: set(lines.get(nodeids[i], [])) for i in self.good}
        self.sources = sources
        self.mapped = mapped
        self.per_pin = per_pin
        self._spans: dict[str, list[tuple[int, int]] | None] = {}

    def spans(self, module: str) -> list[tuple[int, int]] | None:
        if module not in self._spans:
            self._spans[module] = _spans_of(self.sources.get(module))
        return self._spans[module]

    def pins_for(self, m: Mapping[str, Any]) -> RowPins:
        if how(m) == "file":
            return RowPins(list(self.good), 0)
        reached = [i for i in self.good if reaches(m, self.functions[i])]
        keys = self._statement(m)
        ran = reached if keys is None else [i for i in reached if not keys.isdisjoint(self.lines[i])]
        return RowPins(ran, len(reached) - len(ran))

    def _statement(self, m: Mapping[str, Any]) -> set[str] | None:
        """The line keys a pin must have run to see operator mutant ``m``; None where rows stop
        at the function (other mutants, the per-pin oracle, functions whose lines are unmapped)."""
        if how(m) != "switch" or self.per_pin:
            return None
        return statement_lines(m, self.spans(m["module"]), self.mapped)


def _spans_of(path: str | None) -> list[tuple[int, int]] | None:
    """The statement spans of the source file at ``path``; None when it cannot be read or parsed."""
    try:
        return statement_spans(Path(path).read_text(encoding="utf-8")) if path else None
    except (OSError, SyntaxError, ValueError):
        return None

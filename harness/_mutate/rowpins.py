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

from harness._mutate.coverage import covers, statement_spans

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
        self.functions = [{"functions": baseline["hits"].get(nodeids[i], [])} for i in range(len(nodeids))]
        lines = baseline.get("lines", {})
        self.hits = [{"functions": baseline["hits"].get(n, []), "lines": lines.get(n, [])} for n in nodeids]
        self.sources = sources
        self.mapped = mapped
        self.per_pin = per_pin
        self._spans: dict[str, list[tuple[int, int]] | None] = {}

    def spans(self, module: str) -> list[tuple[int, int]] | None:
        if module not in self._spans:
            path = self.sources.get(module)
            try:
                self._spans[module] = statement_spans(Path(path).read_text(encoding="utf-8")) if path else None
            except (OSError, SyntaxError, ValueError):
                self._spans[module] = None
        return self._spans[module]

    def pins_for(self, m: Mapping[str, Any]) -> RowPins:
        if how(m) == "file":
            return RowPins(list(self.good), 0)
        reached = [i for i in self.good if covers(m, self.functions[i], None, set())]
        if how(m) != "switch" or self.per_pin:
            return RowPins(reached, 0)
        spans = self.spans(m["module"])
        ran = [i for i in reached if covers(m, self.hits[i], spans, self.mapped)]
        return RowPins(ran, len(reached) - len(ran))

"""Which target code each baseline pin reaches: the functions, and the source lines within them.

Measured once, in the baseline children, with a ``sys.settrace`` hook that only looks at the
code objects of the unmutated target functions (``x_f__mutmut_orig`` in a trampolined module)
and the code nested in them (inner functions, lambdas, comprehensions): every other frame is
left untraced, so the hook costs almost nothing outside the targets.

Lines are recorded in the coordinates of the user's source file, not of the trampolined one:
the unmutated copy of a function is the source's own text (only its name differs), so each
function gets one offset, verified by comparing the text; a function whose copy does not match
its source exactly gets no line map, and its mutants fall back to function-level coverage.

A mutant is on an executed line when any line of its innermost enclosing *statement* ran: the
statement, not the mutant's own line, because a constant folded by the compiler, or a sub-
expression on a continuation line, may have no line event of its own while its statement runs.
That is conservative: a mutant charged to a pin that cannot reach it only costs a pin run.
"""

from __future__ import annotations

import ast
import sys
import threading
import types
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Coverage", "Hits", "LineMap", "reaches", "statement_lines", "statement_spans"]


@dataclass
class Hits:
    """What one pin reached: ``module:function`` keys, and ``module:line`` keys (source lines)."""

    functions: set[str] = field(default_factory=set)
    lines: set[str] = field(default_factory=set)

    def clear(self) -> None:
        self.functions.clear()
        self.lines.clear()


@dataclass(frozen=True)
class LineMap:
    """One unmutated function's copy in the trampolined module, placed in its source file."""

    module: str
    offset: int  # source line = trampolined line + offset


def _nested(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _nested(const)


def _offset(code: types.CodeType, generated: list[str], source: list[str], real: str) -> int | None:
    """Where the function whose code is ``code`` stands in ``source`` (as an offset), when its
    text there is exactly the trampolined copy's; None otherwise."""
    last = max((line for c in _nested(code) for _s, _e, line in c.co_lines() if line is not None),
               default=code.co_firstlineno)
    first = code.co_firstlineno
    block = generated[first - 1:last]
    if not block or f"def {code.co_name}(" not in block[0]:
        return None  # decorated: the first line is not the def (mutmut leaves those alone anyway)
    block = [block[0].replace(f"def {code.co_name}(", f"def {real}(", 1), *block[1:]]
    n = len(block)
    starts = [i for i in range(len(source) - n + 1) if source[i:i + n] == block]
    return starts[0] + 1 - first if len(starts) == 1 else None


class Coverage:
    """The call/line hook of the baseline children (see the module docstring)."""

    def __init__(self) -> None:
        self.codes: dict[types.CodeType, str] = {}  # a target's own code -> "module:function"
        self.lines: dict[types.CodeType, LineMap] = {}  # its code and every code nested in it
        self.hits = Hits()
        self.mapped: set[str] = set()  # "module:function" keys whose lines are mapped

    def add_module(self, module: types.ModuleType, files: tuple[str, str] | None = None) -> None:
        """Know the target functions of ``module``; ``files`` (source, trampolined) to map lines."""
        from harness._mutate.mutmut_adapter import original_function_name

        texts = _texts(files)
        for qual, func in _functions(module):
            code = getattr(func, "__code__", None)
            if not isinstance(code, types.CodeType) or getattr(func, "__module__", None) != module.__name__:
                continue
            if code.co_name != getattr(func, "__name__", None):
                continue  # a wrapper (the trampoline) whose code is shared by every target
            real = original_function_name(qual)
            if real is None:
                continue
            self.codes[code] = f"{module.__name__}:{real}"
            offset = _offset(code, *texts, real.rsplit(".", 1)[-1]) if texts and qual != real else None
            if offset is not None:
                self.mapped.add(self.codes[code])
                for inner in _nested(code):
                    self.lines[inner] = LineMap(module.__name__, offset)

    def _line(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            where = self.lines[frame.f_code]
            self.hits.lines.add(f"{where.module}:{frame.f_lineno + where.offset}")
        return self._line

    def _tracer(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        key = self.codes.get(frame.f_code)
        if key is not None:
            self.hits.functions.add(key)
        return self._line if frame.f_code in self.lines else None

    def start(self) -> None:
        sys.settrace(self._tracer)
        threading.settrace(self._tracer)


def _texts(files: tuple[str, str] | None) -> tuple[list[str], list[str]] | None:
    if files is None:
        return None
    source, generated = files
    try:
        return (Path(generated).read_text(encoding="utf-8").splitlines(keepends=True),
                Path(source).read_text(encoding="utf-8").splitlines(keepends=True))
    except OSError:
        return None


def _functions(module: types.ModuleType) -> Iterator[tuple[str, Any]]:
    for name, value in vars(module).items():
        if isinstance(value, type) and value.__module__ == module.__name__:
            for k, v in vars(value).items():
                yield f"{value.__name__}.{k}", getattr(v, "__func__", v)
        else:
            yield name, value


def statement_spans(source: str) -> list[tuple[int, int]]:
    """(first, last) line of every statement in ``source``, innermost last among those that
    start on the same line (so the innermost enclosing one is the last containing a position)."""
    spans = [(node.lineno, node.end_lineno or node.lineno) for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.stmt)]
    return sorted(spans, key=lambda s: (s[0], -s[1]))


def _enclosing(spans: list[tuple[int, int]], line: int, end_line: int) -> tuple[int, int]:
    """The smallest statement holding lines ``line``..``end_line`` (the first of equal ones); the
    lines themselves when none does."""
    holding = [(a, b) for a, b in spans if a <= line and end_line <= b]
    return min(holding, key=lambda span: span[1] - span[0], default=(line, end_line))


def reaches(mutant: Mapping[str, Any], functions: set[str]) -> bool:
    """Whether a pin that reached ``functions`` (``module:function`` keys) in the baseline reached
    the mutant's function (any function of its module, for a mutant outside one)."""
    module, function = mutant["module"], mutant["function"]
    if not function:
        return any(h.startswith(f"{module}:") for h in functions)
    return f"{module}:{function}" in functions


def statement_lines(mutant: Mapping[str, Any], spans: list[tuple[int, int]] | None,
                    mapped: set[str]) -> set[str] | None:
    """The ``module:line`` keys of the statement ``mutant`` sits in: a pin that reached its function
    sees it when it ran one of them. None when the function's lines are not mapped (or ``spans``
    unknown): reaching the function is all that can be told."""
    module, function = mutant["module"], mutant["function"]
    if spans is None or not function or f"{module}:{function}" not in mapped:
        return None
    a, b = _enclosing(spans, int(mutant["line"]), int(mutant["end_line"]))
    return {f"{module}:{n}" for n in range(a, b + 1)}

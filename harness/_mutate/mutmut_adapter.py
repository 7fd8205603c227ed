"""Every use of mutmut internals, in one place (mutmut 3.8.1).

mutmut has no public API for "generate the mutants of this file" or "switch the active mutant":
both live in modules whose names and signatures moved twice in 2025-26. The engine talks to
mutmut only through the three functions below; ``tests/unit/mutate/test_mutmut_canary.py``
pins what they produce so an upgrade that changes generation or the switching protocol fails
loudly there instead of silently turning every mutant into a survivor.

We never import ``mutmut.__main__``: importing it sets the process-wide multiprocessing start
method to ``fork`` (it also reads ``pyproject.toml`` from the current directory). Generation
only needs ``mutmut.mutation.file_mutation``; its one configuration read
(``do_not_mutate_patterns``) is answered by a stand-in installed for the duration of the call.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from typing import TYPE_CHECKING, Any

from harness._errors import MutationError

if TYPE_CHECKING:  # libcst is imported where generation needs it: the engine never does
    import libcst as cst

__all__ = [
    "EXPECTED_VERSION",
    "GeneratedFile",
    "OperatorEdit",
    "activate",
    "generate",
    "known_switch_ids",
    "mutant_switch_id",
    "mutmut_version",
    "original_function_name",
    "retarget_trampoline",
]

EXPECTED_VERSION = "3.8.1"

_config_lock = threading.Lock()


@dataclass(frozen=True)
class OperatorEdit:
    """One operator mutant: the function it lives in and the exact text it replaces."""

    function: str  # "f" or "Class.method"
    mangled: str  # mutmut's mangled name: "x_f" or "xǁClassǁmethod"
    number: int  # N in <mangled>__mutmut_<N>, numbered per function in generation order
    line: int
    column: int
    end_line: int
    end_column: int
    original: str
    replacement: str
    operator: str  # libcst node type of the replaced node, e.g. "BinaryOperation"
    mutated: str  # the whole source file with this one mutant applied


@dataclass(frozen=True)
class GeneratedFile:
    """A source file rewritten with trampolines, and the mutants it can switch to."""

    code: str
    edits: tuple[OperatorEdit, ...]


def mutmut_version() -> str:
    return metadata.version("mutmut")


def mutant_switch_id(module: str, mangled: str, number: int) -> str:
    """The value the trampoline compares against (``<module>.<mangled>__mutmut_<N>``)."""
    return f"{module}.{mangled}__mutmut_{number}"


@contextmanager
def _quiet_config() -> Iterator[None]:
    """Answer mutmut's configuration reads without a pyproject.toml in the current directory."""
    from mutmut import configuration

    with _config_lock:
        saved = configuration._config
        configuration._config = types.SimpleNamespace(do_not_mutate_patterns=[])  # type: ignore[assignment]
        try:
            yield
        finally:
            configuration._config = saved


def _qualified(func: cst.FunctionDef, module: cst.Module) -> tuple[str, str]:
    """("Class.method", "xǁClassǁmethod") or ("f", "x_f") for a top-level node of ``module``."""
    import libcst as cst
    from mutmut.mutation.trampoline_templates import mangle_function_name

    name = func.name.value
    for stmt in module.body:
        if stmt is func:
            return name, mangle_function_name(name=name, class_name=None)
        if (isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock)
                and any(child is func for child in stmt.body.body)):
            cls = stmt.name.value
            return f"{cls}.{name}", mangle_function_name(name=name, class_name=cls)
    raise MutationError(f"mutmut placed a mutant in {name!r}, which is not a top-level function or method")


class _Renderer:
    """The module's text statement by statement, so one mutated statement re-renders alone.

    ``code_for_node`` renders a nested node without its parents' indentation, so mutated text
    cannot be spliced in at the node; a whole top-level statement renders exactly.
    """

    def __init__(self, module: cst.Module, source: str) -> None:
        self.module = module
        self.head = "".join(module.code_for_node(e) for e in module.header)
        self.parts = [module.code_for_node(stmt) for stmt in module.body]
        self.tail = "".join(module.code_for_node(e) for e in module.footer)
        self.exact = self._join(self.parts) == source

    def _join(self, parts: list[str]) -> str:
        text = self.head + "".join(parts) + self.tail
        if not self.module.has_trailing_newline:
            text = text.removesuffix(self.module.default_newline)
        return text

    def mutated(self, func: cst.FunctionDef, original: cst.CSTNode, replacement: cst.CSTNode) -> str:
        import libcst as cst
        from mutmut.mutation.file_mutation import deep_replace

        for i, stmt in enumerate(self.module.body):
            inside = stmt is func or (isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock)
                                      and any(child is func for child in stmt.body.body))
            if inside and self.exact:
                changed = deep_replace(stmt, original, replacement)
                if not isinstance(changed, cst.CSTNode):
                    raise MutationError("mutmut replaced a whole statement with a removal")
                parts = [*self.parts[:i], self.module.code_for_node(changed), *self.parts[i + 1:]]
                return self._join(parts)
        whole = deep_replace(self.module, original, replacement)
        return whole.code if isinstance(whole, cst.Module) else self.module.code


def _function_text(code_lines: list[str], span: Any, name: str, real: str) -> list[str] | None:
    """The generated function ``name`` (at its span in the trampolined code) renamed to ``real``."""
    lines = code_lines[span.start - 1:span.end]
    for i, line in enumerate(lines):
        if f"def {name}(" in line:
            lines = [*lines[:i], line.replace(f"def {name}(", f"def {real}(", 1), *lines[i + 1:]]
            return lines
    return None


def _spliced(source_lines: list[str], combined: Any, mangled: str, number: int, real: str) -> str | None:
    """The whole source with one mutant applied, cut from mutmut's own rendering of the mutant.

    The trampolined file holds each mutant as a full function (``<mangled>__mutmut_<N>``, at
    the right indentation) beside an unmutated copy (``..._orig``): find where the copy stands
    in the original source and put the mutant there. None when that cannot be done exactly.
    """
    spans = combined.line_span_by_function_name
    code_lines = combined.code.splitlines(keepends=True)
    orig_name, mutant_name = f"{mangled}__mutmut_orig", f"{mangled}__mutmut_{number}"
    if orig_name not in spans or mutant_name not in spans:
        return None
    orig = _function_text(code_lines, spans[orig_name], orig_name, real)
    mutant = _function_text(code_lines, spans[mutant_name], mutant_name, real)
    if orig is None or mutant is None:
        return None
    n = len(orig)
    starts = [i for i in range(len(source_lines) - n + 1) if source_lines[i:i + n] == orig]
    if len(starts) != 1:
        return None
    return "".join([*source_lines[:starts[0]], *mutant, *source_lines[starts[0] + n:]])


def generate(filename: str, source: str, functions: frozenset[str] | None = None) -> GeneratedFile:
    """mutmut's operator mutants of ``source``, limited to ``functions`` (qualified names) if given.

    Returns the trampolined source (what the engine imports in place of the original) and one
    OperatorEdit per mutant, in the order mutmut numbers them, each with the whole mutated file.
    """
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider
    from mutmut.mutation import file_mutation

    with _quiet_config():
        try:
            module, mutations, _classes, _funcs = file_mutation.create_mutations(filename, source)
        except cst.ParserSyntaxError as exc:
            raise MutationError(f"{filename}: cannot parse for mutation: {exc}") from None
    positions: Any = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    kept: list[Any] = []
    found: list[tuple[Any, str, str, int]] = []
    counters: dict[str, int] = {}
    for mutation in mutations:
        func = mutation.contained_by_top_level_function
        # module-level code, and class-level statements (a dataclass field's default, a class
        # constant), which mutmut marks with the statement itself: generated, never trampolined
        if not isinstance(func, cst.FunctionDef):
            continue
        qualified, mangled = _qualified(func, module)
        if functions is not None and qualified not in functions:
            continue
        counters[mangled] = counters.get(mangled, 0) + 1
        kept.append(mutation)
        found.append((mutation, qualified, mangled, counters[mangled]))
    combined = file_mutation.combine_mutations_to_source(module, kept)
    expected = [f"{mangled}__mutmut_{n}" for _m, _q, mangled, n in found]
    if list(combined.mutant_names) != expected:
        raise MutationError(f"{filename}: mutmut numbered its mutants differently than expected")
    source_lines = source.splitlines(keepends=True)
    renderer: _Renderer | None = None
    edits: list[OperatorEdit] = []
    for mutation, qualified, mangled, number in found:
        real = qualified.rsplit(".", 1)[-1]
        mutated = _spliced(source_lines, combined, mangled, number, real)
        if mutated is None:  # the slow, always-exact way: re-render the statement
            renderer = renderer or _Renderer(module, source)
            mutated = renderer.mutated(mutation.contained_by_top_level_function, mutation.original_node,
                                       mutation.mutated_node)
        pos = positions[mutation.original_node]
        edits.append(OperatorEdit(
            function=qualified, mangled=mangled, number=number,
            line=pos.start.line, column=pos.start.column + 1, end_line=pos.end.line,
            end_column=pos.end.column + 1, original=module.code_for_node(mutation.original_node),
            replacement=module.code_for_node(mutation.mutated_node),
            operator=type(mutation.original_node).__name__, mutated=mutated,
        ))
    return GeneratedFile(code=combined.code, edits=tuple(edits))


def activate(switch_id: str | None) -> None:
    """Make ``switch_id`` the active mutant in this process (None: the original code)."""
    import os

    from mutmut.mutation import trampoline

    trampoline.set_mutant_under_test(switch_id)
    if switch_id is None:
        os.environ.pop("MUTANT_UNDER_TEST", None)


def original_function_name(attr: str) -> str | None:
    """The qualified source name behind a module or class attribute of a trampolined module.

    ``x_f__mutmut_orig`` -> ``f``; ``K.xǁKǁm__mutmut_orig`` -> ``K.m``; mutant copies
    (``__mutmut_<N>``) -> None; any other name is itself (a function mutmut left alone).
    """
    from mutmut.mutation.trampoline_templates import CLASS_NAME_SEPARATOR as SEP

    name = attr.rsplit(".", 1)[-1]
    if "__mutmut_" not in name:
        return attr
    if not name.endswith("__mutmut_orig"):
        return None
    mangled = name[: -len("__mutmut_orig")]
    if mangled.startswith(f"x{SEP}"):
        cls, _, method = mangled[2:].partition(SEP)
        return f"{cls}.{method}"
    return mangled[2:] if mangled.startswith("x_") else None


def known_switch_ids(module: Any) -> set[str]:
    """Every mutant id the trampolines of a loaded trampolined ``module`` can switch to."""
    out: set[str] = set()
    for name, value in vars(module).items():
        if name.startswith("mutants_") and name.endswith("__mutmut") and isinstance(value, dict):
            out.update(f"{module.__name__}.{k}" for k in value if k != "_mutmut_orig")
    return out


def retarget_trampoline(module: Any, qualified: str, wrapper: object, function: object) -> bool:
    """Make the trampoline ``wrapper`` (for ``qualified`` in ``module``) run ``function`` as its
    original; False when ``wrapper`` is not one of mutmut's trampolines."""
    from mutmut.mutation.trampoline_templates import mangle_function_name

    if not callable(wrapper) or not hasattr(wrapper, "__wrapped__"):
        return False
    cls, _, name = qualified.rpartition(".")
    mangled = mangle_function_name(name=name, class_name=cls or None)
    table = vars(module).get(f"mutants_{mangled}__mutmut")
    if not isinstance(table, dict) or "_mutmut_orig" not in table:
        return False
    table["_mutmut_orig"] = function
    return True

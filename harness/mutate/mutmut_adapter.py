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
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from harness.errors import MutationError

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


def generate(filename: str, source: str, functions: frozenset[str] | None = None) -> GeneratedFile:
    """mutmut's operator mutants of ``source``, limited to ``functions`` (qualified names) if given.

    Returns the trampolined source (what the engine imports in place of the original) and one
    OperatorEdit per mutant, in the order mutmut numbers them, each with the whole mutated file.
    """
    from mutmut.mutation import file_mutation

    with _quiet_config():
        try:
            module, mutations, _classes, _funcs = file_mutation.create_mutations(filename, source)
        except cst.ParserSyntaxError as exc:
            raise MutationError(f"{filename}: cannot parse for mutation: {exc}") from None
    positions: Any = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    renderer = _Renderer(module, source)
    kept: list[Any] = []
    edits: list[OperatorEdit] = []
    counters: dict[str, int] = {}
    for mutation in mutations:
        func = mutation.contained_by_top_level_function
        if func is None:  # module-level code: mutmut generates but never runs these
            continue
        qualified, mangled = _qualified(func, module)
        if functions is not None and qualified not in functions:
            continue
        pos = positions[mutation.original_node]
        counters[mangled] = counters.get(mangled, 0) + 1
        kept.append(mutation)
        edits.append(OperatorEdit(
            function=qualified, mangled=mangled, number=counters[mangled],
            line=pos.start.line, column=pos.start.column + 1, end_line=pos.end.line,
            end_column=pos.end.column + 1, original=module.code_for_node(mutation.original_node),
            replacement=module.code_for_node(mutation.mutated_node),
            operator=type(mutation.original_node).__name__,
            mutated=renderer.mutated(func, mutation.original_node, mutation.mutated_node),
        ))
    combined = file_mutation.combine_mutations_to_source(module, kept)
    expected = [f"{e.mangled}__mutmut_{e.number}" for e in edits]
    if list(combined.mutant_names) != expected:
        raise MutationError(f"{filename}: mutmut numbered its mutants differently than expected")
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

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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
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
    "prefetch",
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


def _owner(module: cst.Module, func: cst.FunctionDef) -> tuple[int, cst.ClassDef | None]:
    """Which top-level statement of ``module`` holds ``func`` (its index), and the class when
    ``func`` is one of its methods."""
    import libcst as cst

    for i, stmt in enumerate(module.body):
        if stmt is func:
            return i, None
        if isinstance(stmt, cst.ClassDef) and any(child is func for child in _class_body(stmt)):
            return i, stmt
    raise MutationError(f"mutmut placed a mutant in {func.name.value!r}, which is not a top-level function or method")


def _class_body(cls: cst.ClassDef) -> Sequence[cst.BaseStatement | cst.BaseSmallStatement]:
    import libcst as cst

    return cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()


def _qualified(func: cst.FunctionDef, module: cst.Module) -> tuple[str, str]:
    """("Class.method", "xǁClassǁmethod") or ("f", "x_f") for a top-level node of ``module``."""
    from mutmut.mutation.trampoline_templates import mangle_function_name

    name = func.name.value
    _, cls = _owner(module, func)
    if cls is None:
        return name, mangle_function_name(name=name, class_name=None)
    return f"{cls.name.value}.{name}", mangle_function_name(name=name, class_name=cls.name.value)


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

        if not self.exact:
            whole = deep_replace(self.module, original, replacement)
            return whole.code if isinstance(whole, cst.Module) else self.module.code
        i, _ = _owner(self.module, func)
        changed = deep_replace(self.module.body[i], original, replacement)
        if not isinstance(changed, cst.CSTNode):
            raise MutationError("mutmut replaced a whole statement with a removal")
        return self._join([*self.parts[:i], self.module.code_for_node(changed), *self.parts[i + 1:]])


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


@dataclass(frozen=True)
class _Found:
    """A mutation mutmut made, kept: the function it is in and its number there."""

    mutation: Any
    qualified: str
    mangled: str
    number: int


def _numbered(module: cst.Module, mutations: Sequence[Any], functions: frozenset[str] | None) -> list[_Found]:
    """The mutations inside functions (``functions`` only, when given), numbered per function in
    order, as the trampolines name them. Module-level code, and class-level statements (a
    dataclass field's default, a class constant), which mutmut marks with the statement itself,
    are generated but never trampolined: left out."""
    import libcst as cst

    found: list[_Found] = []
    counters: dict[str, int] = {}
    for mutation in mutations:
        func = mutation.contained_by_top_level_function
        if not isinstance(func, cst.FunctionDef):
            continue
        qualified, mangled = _qualified(func, module)
        if functions is None or qualified in functions:
            counters[mangled] = counters.get(mangled, 0) + 1
            found.append(_Found(mutation, qualified, mangled, counters[mangled]))
    return found


class _Texts:
    """Each mutant's whole mutated file: cut from mutmut's own rendering where that is exact,
    else (rarely) the statement re-rendered."""

    def __init__(self, module: cst.Module, source: str, combined: Any) -> None:
        self.module = module
        self.source = source
        self.lines = source.splitlines(keepends=True)
        self.combined = combined
        self.renderer: _Renderer | None = None

    def of(self, found: _Found) -> str:
        real = found.qualified.rsplit(".", 1)[-1]
        mutated = _spliced(self.lines, self.combined, found.mangled, found.number, real)
        if mutated is not None:
            return mutated
        self.renderer = self.renderer or _Renderer(self.module, self.source)
        m = found.mutation
        return self.renderer.mutated(m.contained_by_top_level_function, m.original_node, m.mutated_node)


_made: dict[tuple[str, str, frozenset[str] | None], GeneratedFile] = {}
"""What ``prefetch`` made, each taken by the ``generate`` call that asks for it."""


def prefetch(files: Sequence[tuple[str, Path, frozenset[str] | None]]) -> None:
    """Make the mutants of several Python files (name, path, functions) at once, one forked process a
    core (as ``mutmut run`` does), for the ``generate`` calls that follow: generation is the
    planner's largest cost, and one file's does not depend on another's. A file that cannot be
    read or mutated is left for its own ``generate`` call to report."""
    import multiprocessing

    from harness._mutate.pool import cores

    jobs = [(name, text, functions) for name, path, functions in files if (text := _python_text(path)) is not None]
    workers = min(cores(), len(jobs))
    if workers < 2:
        return
    import libcst  # noqa: F401 - loaded once here, not again in every worker
    from mutmut.mutation import file_mutation  # noqa: F401

    with multiprocessing.get_context("fork").Pool(workers) as pool:
        made = pool.starmap(_generated_or_none, jobs)
    _made.update((job, result) for job, result in zip(jobs, made, strict=True) if result is not None)


def _python_text(path: Path) -> str | None:
    """The source of a Python file (None for other files, and one that cannot be read)."""
    try:
        return path.read_text(encoding="utf-8") if path.suffix == ".py" else None
    except (OSError, ValueError):
        return None


def _generated_or_none(filename: str, source: str, functions: frozenset[str] | None) -> GeneratedFile | None:
    try:
        return generate(filename, source, functions)
    except MutationError:
        return None


def generate(filename: str, source: str, functions: frozenset[str] | None = None) -> GeneratedFile:
    """mutmut's operator mutants of ``source``, limited to ``functions`` (qualified names) if given.

    Returns the trampolined source (what the engine imports in place of the original) and one
    OperatorEdit per mutant, in the order mutmut numbers them, each with the whole mutated file.
    """
    made = _made.pop((filename, source, functions), None)
    if made is not None:
        return made
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider
    from mutmut.mutation import file_mutation

    with _quiet_config():
        try:
            module, mutations, _classes, _funcs = file_mutation.create_mutations(filename, source)
        except cst.ParserSyntaxError as exc:
            raise MutationError(f"{filename}: cannot parse for mutation: {exc}") from None
    found = _numbered(module, mutations, functions)
    combined = file_mutation.combine_mutations_to_source(module, [f.mutation for f in found])
    if list(combined.mutant_names) != [f"{f.mangled}__mutmut_{f.number}" for f in found]:
        raise MutationError(f"{filename}: mutmut numbered its mutants differently than expected")
    positions: Any = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    texts = _Texts(module, source, combined)
    return GeneratedFile(code=combined.code, edits=tuple(_edit(f, positions[f.mutation.original_node], module,
                                                               texts.of(f)) for f in found))


def _edit(found: _Found, pos: Any, module: cst.Module, mutated: str) -> OperatorEdit:
    m = found.mutation
    return OperatorEdit(
        function=found.qualified, mangled=found.mangled, number=found.number,
        line=pos.start.line, column=pos.start.column + 1, end_line=pos.end.line,
        end_column=pos.end.column + 1, original=module.code_for_node(m.original_node),
        replacement=module.code_for_node(m.mutated_node), operator=type(m.original_node).__name__, mutated=mutated,
    )


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

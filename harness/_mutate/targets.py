"""What to mutate: the suite's ``mutation:`` settings, targets resolved to files and functions.

A target is ``module:function`` (``module:Class.method``), ``module`` (every function in it), or
a ``.py`` file relative to the project root (optionally ``file.py:function``). Targets naming
the same file merge. ``--in-diff REV`` keeps only the functions a ``git diff REV`` touches.
"""

from __future__ import annotations

import ast
import re
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness._common.files import project_root
from harness._common.schemacheck import check
from harness._common.yamlsafe import Document, LineMap, load_document
from harness._errors import ConfigError, InputError, InputErrors, Place
from harness._plugins import distribution_folders

__all__ = [
    "FOREIGN_SUFFIXES",
    "MutationSettings",
    "Target",
    "changed_lines",
    "function_spans",
    "load_settings",
    "module_name",
    "resolve_targets",
]


@dataclass(frozen=True)
class MutationSettings:
    """The suite's ``mutation:`` section with defaults filled in."""

    root: Path
    targets: tuple[str, ...] = ()
    pins: tuple[str, ...] = (".",)
    exclude: tuple[str, ...] = ("*::expect",)
    operators: bool = True
    max_escaped: int | None = None
    min_score: float | None = None
    timeout_factor: float = 10.0
    timeout_floor_s: float = 1.0
    baseline_deadline_s: float = 60.0
    workers: int = 0
    rebuild: str | None = None  # in each file mutant's tree instead of the sides' setup
    place: Place = field(default_factory=lambda: Place("suite.yaml", None, "mutation"))


@dataclass(frozen=True)
class Target:
    """One file to mutate: its path, module name, and which functions (None: all of them)."""

    file: Path
    rel: str
    module: str
    functions: frozenset[str] | None


def _section_document(suite_root: Path) -> Document | None:
    """suite.yaml's ``mutation`` section as its own Document, keeping suite.yaml's line numbers."""
    path = suite_root / "suite.yaml"
    if not path.is_file():
        return None
    doc = load_document(path, display="suite.yaml")
    if not isinstance(doc.value, dict) or "mutation" not in doc.value:
        return None
    return Document(doc.file, doc.value["mutation"], _section_lines(doc.lines, "mutation"))


def _section_lines(lines: LineMap, key: str) -> LineMap:
    """The lines of the section under ``key``, its own paths relative to it (the section itself is "")."""
    prefix = f"{key}."
    inner = {k[len(prefix):]: v for k, v in lines.lines.items() if k.startswith(prefix)}
    inner[""] = lines.line_of(key) or 1
    return LineMap(inner)


def load_settings(suite_root: Path, settings: Mapping[str, Any]) -> MutationSettings:
    """Validate the ``mutation`` section (harness/_load/schemas/mutation.schema.json) and fill defaults."""
    # the file's own section when there is one (for line numbers), else what the caller holds
    doc = _section_document(suite_root) or Document("suite.yaml", settings.get("mutation", {}), LineMap())
    try:
        check(doc, "mutation")
    except InputErrors as exc:
        raise InputErrors([_prefixed(e) for e in exc.errors]) from None
    raw: Any = doc.value
    threshold = raw.get("threshold", {})
    timeout = raw.get("timeout", {})
    root = _mutation_root(suite_root, raw)
    return MutationSettings(
        root=root, targets=tuple(raw.get("targets", ())), pins=tuple(raw.get("pins", (".",))),
        exclude=tuple(raw.get("exclude", ("*::expect",))),
        operators=raw.get("operators", True), max_escaped=threshold.get("max_escaped"),
        min_score=threshold.get("min_score"), timeout_factor=float(timeout.get("factor", 10.0)),
        timeout_floor_s=float(timeout.get("floor_s", 1.0)),
        baseline_deadline_s=float(timeout.get("baseline_s", 60.0)), workers=int(raw.get("workers", 0)),
        rebuild=raw.get("rebuild"),
    )


def _mutation_root(suite_root: Path, raw: Mapping[str, Any]) -> Path:
    """The tree mutants are made in: ``mutation.root`` (from the suite folder), else the project root
    above the suite."""
    return (suite_root / raw["root"]).resolve() if "root" in raw else project_root(suite_root.resolve())


def _prefixed(exc: InputError) -> InputError:
    path = f"mutation.{exc.place.path}" if exc.place.path else "mutation"
    return InputError(Place(exc.place.file, exc.place.line, path), exc.expected, exc.found)


def module_name(root: Path, file: Path, suite: Path | None = None) -> str:
    """The dotted module name of ``file`` when ``root`` (or ``root/src``) is on sys.path; a file
    in the ``suite`` folder (not itself a package) is named from there, as subjects import it
    (``harness run`` and the engine put the suite folder on sys.path): ``echo``, not ``cases.echo``.
    """
    root = _import_root(root, file, suite)
    rel = file.resolve().relative_to(root.resolve())
    return ".".join(_module_parts(list(rel.with_suffix("").parts), root))


def _module_parts(parts: list[str], root: Path) -> list[str]:
    """A file's path parts under its import root as module name parts: a ``src`` layout folder (not
    a package itself) is not one, and a package is named without its ``__init__``."""
    if parts and parts[0] == "src" and not (root / "src" / "__init__.py").exists():
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return parts


def _import_root(root: Path, file: Path, suite: Path | None) -> Path:
    """The folder ``file``'s module name starts from: the suite folder (not a package), a
    distribution folder under the root, or the root."""
    if suite is not None and _in_plain_folder(file, suite):
        return suite
    return next((d for d in distribution_folders(root) if file.resolve().is_relative_to(d.resolve())), root)


def _in_plain_folder(file: Path, folder: Path) -> bool:
    """Whether ``file`` is in ``folder`` and that folder is not itself a package."""
    return not (folder / "__init__.py").exists() and file.resolve().is_relative_to(folder.resolve())


def _module_file(root: Path, module: str, suite: Path | None = None) -> Path | None:
    base = module.replace(".", "/")
    for folder in (root, root / "src", *distribution_folders(root), *([suite] if suite is not None else [])):
        for candidate in (folder / f"{base}.py", folder / base / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def function_spans(source: str) -> dict[str, tuple[int, int]]:
    """Qualified name ("f", "Class.method") -> (first line incl. decorators, last line)."""
    tree = ast.parse(source)
    spans = _def_spans(tree.body, "")
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            spans.update(_def_spans(node.body, f"{node.name}."))
    return spans


def _def_spans(body: list[ast.stmt], prefix: str) -> dict[str, tuple[int, int]]:
    """The spans of the functions defined directly in ``body``, named with ``prefix``."""
    return {prefix + node.name: _span(node) for node in body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


def _span(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first, node.end_lineno or node.lineno


FOREIGN_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx", ".rs")
"""Target files whose operator mutants come from another tool (Stryker, cargo-mutants)."""


def _parse_target(text: str, root: Path, place: Place, suite: Path | None) -> tuple[Path, str | None]:
    head, _, func = text.partition(":")
    if head.endswith(FOREIGN_SUFFIXES) and func:
        raise InputError(place, "a whole file (one function is chosen in Python targets only)", repr(text))
    if head.endswith((".py", *FOREIGN_SUFFIXES)):
        return _target_file(head, root, place), func or None
    return _target_module(head, root, place, suite), func or None


def _target_file(head: str, root: Path, place: Place) -> Path:
    """A target named by its path: a file under the project root."""
    file = (root / head).resolve()
    if not file.is_relative_to(root.resolve()):  # its mutants would be written outside the tree
        raise InputError(place, f"a Python file under the project root {root}", f"{head!r}, which resolves outside it")
    if not file.is_file():
        raise InputError(place, f"a source file under the project root {root}", f"no file {head!r}")
    return file


def _target_module(head: str, root: Path, place: Place, suite: Path | None) -> Path:
    """A target named by its module: the file it imports from, under the project root."""
    found = _module_file(root, head, suite)
    if found is None:
        raise InputError(place, f"an importable module under the project root {root}", f"no module {head!r}")
    if not found.resolve().is_relative_to(root.resolve()):  # a suite folder outside the root
        raise InputError(place, f"a module under the project root {root}", f"{head!r} at {found.resolve()}")
    return found.resolve()


def resolve_targets(entries: Iterable[tuple[str, Place]], root: Path, suite: Path | None = None) -> list[Target]:
    """Turn target strings into Targets, one per file; a named function must exist in it.
    ``suite``: the suite folder, where modules named by their bare name are found too."""
    by_file: dict[Path, set[str] | None] = {}
    for text, place in entries:
        file, func = _parse_target(text, root, place, suite)
        if file.suffix == ".py":
            _check_function(file, func, place)
        by_file[file] = _with_function(by_file.get(file, set()), func)
    return [_target(f, funcs, root, suite) for f, funcs in sorted(by_file.items())]


def _with_function(chosen: set[str] | None, func: str | None) -> set[str] | None:
    """A file's chosen functions after one more target entry for it. None is every function of
    the file: it absorbs any one function named beside it."""
    return None if func is None or chosen is None else {*chosen, func}


def _check_function(file: Path, func: str | None, place: Place) -> None:
    """A Python target file must parse, and a function it names must be defined in it."""
    spans = _spans_or_error(file, place)
    if func is not None and func not in spans:
        known = ", ".join(sorted(spans)) or "none"
        raise InputError(place, f"a function of {file.name} ({known})", repr(func))


def _target(file: Path, funcs: set[str] | None, root: Path, suite: Path | None) -> Target:
    python = file.suffix == ".py"  # a foreign file has no module name: another tool mutates it
    return Target(file=file, rel=file.relative_to(root.resolve()).as_posix(),
                  module=module_name(root, file, suite) if python else "",
                  functions=None if funcs is None else frozenset(funcs))


def _spans_or_error(file: Path, place: Place) -> dict[str, tuple[int, int]]:
    try:
        return function_spans(file.read_text(encoding="utf-8"))
    except SyntaxError as exc:
        raise InputError(place, "a target file that parses", f"{file}:{exc.lineno}: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise InputError(place, "a UTF-8 target file",
                         f"{file}: byte 0x{exc.object[exc.start]:02x} at offset {exc.start} not UTF-8") from None


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def changed_lines(root: Path, rev: str, rels: Iterable[str]) -> dict[str, set[int]]:
    """Lines of each file (new side) that differ from ``rev``; a pure deletion marks its neighbour.
    A revision git cannot resolve is bad input even when there is no file to diff: a mistyped ref
    must not read as "the diff touches nothing"."""
    check = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], cwd=root,
                           capture_output=True, text=True, check=False)
    if check.returncode != 0:
        raise ConfigError("--in-diff", rev, f"a git revision of {root}")
    files = sorted(set(rels))
    if not files:
        return {}
    proc = subprocess.run(
        ["git", "diff", "--no-color", "--no-ext-diff", "--relative", "-U0", rev, "--", *files],
        cwd=root, capture_output=True, text=True, check=False,
    )
    if proc.returncode != 0:
        raise ConfigError("--in-diff", rev, f"a git revision of {root} ({proc.stderr.strip()})")
    return _new_side_lines(proc.stdout)


def _new_side_lines(diff: str) -> dict[str, set[int]]:
    """Changed lines (new side) by file from a ``-U0`` diff; a hunk of zero lines marks its neighbour."""
    out: dict[str, set[int]] = {}
    current: str | None = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            name = line[4:].strip()
            current = name[2:] if name.startswith("b/") else None  # /dev/null: the file was deleted
        elif current is not None and (m := _HUNK.match(line)):
            out.setdefault(current, set()).update(_new_lines(m))
    return out


def _new_lines(hunk: re.Match[str]) -> range:
    """The new-side lines a ``-U0`` hunk header covers; a pure deletion (zero lines) marks the line after it."""
    start, count = int(hunk.group(1)), int(hunk.group(2) or 1)
    return range(start, start + max(count, 1))

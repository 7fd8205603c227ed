"""The Mutant value: one operator or declared mutant, as the plan, runner and report see it.

``key`` is a content hash (file, function, the change itself): mutmut renumbers ``__mutmut_N``
whenever a function is edited, so results are stored, resumed, sharded and merged by key.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from harness._mutate.ledger import DeclaredMutant
from harness._mutate.mutmut_adapter import GeneratedFile, OperatorEdit, mutant_switch_id

__all__ = ["Mutant", "as_file_mutant", "declared_mutant", "file_mutant", "operator_mutants", "shard_keys"]

Kind = Literal["operator", "declared"]
Apply = Literal["switch", "module", "file"]
"""How a row turns its mutant on: a mutmut trampoline switch, the site module's source executed
in place (both in-process Python), or the mutated file written into the row's sandbox tree and
the sides' setup run there (any language, any pipeline kind)."""


@dataclass(frozen=True)
class Mutant:
    key: str
    id: str
    kind: Kind
    file: str
    module: str
    function: str | None
    line: int
    column: int
    end_line: int
    end_column: int
    operator: str
    title: str
    diff: str
    replacement: str = ""
    claims: tuple[str, ...] = ()
    equivalent: str | None = None
    survives: str | None = None  # declared: an expected survivor, and why
    switch: str | None = None  # operator: the trampoline id to activate
    source_path: str | None = None  # declared: the mutated file the runner executes
    ledger: str = ""  # declared: "<ledger file>:<line>"
    claim_places: tuple[str, ...] = ()  # declared: where each claim reference stands
    apply: Apply | None = None  # None: switch for operator mutants, module for declared ones

    @property
    def how(self) -> Apply:
        return self.apply or ("switch" if self.kind == "operator" else "module")

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["claims"] = list(self.claims)
        out["claim_places"] = list(self.claim_places)
        out["apply"] = self.how
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Mutant:
        return cls(**{**raw, "claims": tuple(raw.get("claims", ())),
                      "claim_places": tuple(raw.get("claim_places", ()))})


def _key(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:16]


def _diff(rel: str, source: str, edit: OperatorEdit) -> str:
    mutated = edit.mutated
    return "".join(difflib.unified_diff(
        source.splitlines(keepends=True), mutated.splitlines(keepends=True), f"a/{rel}", f"b/{rel}", n=1))


def operator_mutants(rel: str, module: str, source: str, generated: GeneratedFile) -> list[Mutant]:
    out: list[Mutant] = []
    for edit in generated.edits:
        short = edit.original.strip().splitlines()[0] if edit.original.strip() else edit.original
        repl = edit.replacement.strip().splitlines()[0] if edit.replacement.strip() else "(removed)"
        out.append(Mutant(
            key=_key("operator", rel, edit.function, edit.mutated),
            id=mutant_switch_id(module, edit.mangled, edit.number), kind="operator", file=rel,
            module=module, function=edit.function, line=edit.line, column=edit.column,
            end_line=edit.end_line, end_column=edit.end_column, operator=edit.operator,
            title=f"{short} -> {repl}"[:120], diff=_diff(rel, source, edit),
            replacement=edit.replacement, switch=mutant_switch_id(module, edit.mangled, edit.number),
        ))
    return out


def declared_mutant(d: DeclaredMutant, module: str, source_path: str) -> Mutant:
    return Mutant(
        key=_key("declared", d.id, d.file, d.diff), id=d.id, kind="declared", file=d.file,
        module=module, function=d.function, line=d.line, column=1, end_line=d.line, end_column=1,
        operator="Declared", title=d.title, diff=d.diff, claims=d.claims, equivalent=d.equivalent, survives=d.survives,
        source_path=source_path, ledger=str(d.place), claim_places=tuple(str(p) for p in d.claim_places),
    )


def as_file_mutant(m: Mutant, source: str, folder: Path) -> Mutant:
    """``m`` applied as a file: its whole mutated text saved under ``folder`` (for sides that run
    outside the engine's process, where neither a trampoline nor an in-place exec reaches)."""
    path = folder / f"{m.key}{Path(m.file).suffix}"
    path.write_text(source, encoding="utf-8")
    return replace(m, apply="file", switch=None, source_path=str(path))


def file_mutant(rel: str, source: str, mutated: str, operator: str, title: str, folder: Path,
                position: tuple[int, int, int, int], replacement: str = "") -> Mutant:
    """An operator mutant some other tool listed (Stryker, cargo-mutants), as a whole-file change."""
    line, column, end_line, end_column = position
    diff = "".join(difflib.unified_diff(source.splitlines(keepends=True), mutated.splitlines(keepends=True),
                                        f"a/{rel}", f"b/{rel}", n=1))
    m = Mutant(key=_key("operator", rel, operator, mutated), id="", kind="operator", file=rel, module="",
               function=None, line=line, column=column, end_line=end_line, end_column=end_column,
               operator=operator, title=title[:120], diff=diff, replacement=replacement)
    return as_file_mutant(replace(m, id=f"{rel}:{line}:{column}:{operator}:{m.key[:6]}"), mutated, folder)


def shard_keys(keys: list[str], k: int, n: int) -> set[str]:
    """The k-th of n deterministic slices (1-based): every n-th key of the sorted list."""
    ordered = sorted(keys)
    return {key for i, key in enumerate(ordered) if i % n == k - 1}

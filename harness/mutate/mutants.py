"""The Mutant value: one operator or declared mutant, as the plan, runner and report see it.

``key`` is a content hash (file, function, the change itself): mutmut renumbers ``__mutmut_N``
whenever a function is edited, so results are stored, resumed, sharded and merged by key.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import asdict, dataclass
from typing import Any, Literal

from harness.mutate.ledger import DeclaredMutant
from harness.mutate.mutmut_adapter import GeneratedFile, OperatorEdit, mutant_switch_id

__all__ = ["Mutant", "declared_mutant", "operator_mutants", "shard_keys"]

Kind = Literal["operator", "declared"]


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
    switch: str | None = None  # operator: the trampoline id to activate
    source_path: str | None = None  # declared: the mutated file the runner executes
    ledger: str = ""  # declared: "<ledger file>:<line>"
    claim_places: tuple[str, ...] = ()  # declared: where each claim reference stands

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["claims"] = list(self.claims)
        out["claim_places"] = list(self.claim_places)
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
        operator="Declared", title=d.title, diff=d.diff, claims=d.claims, equivalent=d.equivalent,
        source_path=source_path, ledger=str(d.place), claim_places=tuple(str(p) for p in d.claim_places),
    )


def shard_keys(keys: list[str], k: int, n: int) -> set[str]:
    """The k-th of n deterministic slices (1-based): every n-th key of the sorted list."""
    ordered = sorted(keys)
    return {key for i, key in enumerate(ordered) if i % n == k - 1}

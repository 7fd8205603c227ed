"""Inline local ``$ref``s: every target built once and shared, a recursive ref becoming ``{}``.

A target is memoised only when its build did not cut a ref to an *enclosing* target (the
lowlink idea from Tarjan's algorithm): such a value depends on where it was reached from, so
it is rebuilt per use; every other target is one shared object for the whole document, which
keeps the work linear in the document. Two modes: ``input`` (OpenAPI 3.0 ``nullable: true``
becomes a type list, as the wire wants) and ``response`` (kept as written, as omit reads it).
A ref hop counts as a nesting level, so a 10 000-long chain of refs ends at MAX_DEPTH instead
of exhausting the Python stack.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import unquote

from harness._sources.openapi.bounds import (
    MAX_DEPTH,
    MAX_SCHEMA_VALUES,
    Budgets,
    OverBound,
    TooDeep,
    TooLarge,
)

__all__ = ["BadRef", "BudgetSpent", "Inliner", "Mode", "RemoteRef", "pointer_steps", "resolve_pointer", "step_into"]

Mode = Literal["input", "response"]
_NO_CUT = 1 << 62


class RemoteRef(Exception):
    """A ``$ref`` to another document: refused (the harness never fetches)."""


class BadRef(Exception):
    """A local ``$ref`` that names nothing in the document."""


class BudgetSpent(OverBound):
    """The document-wide inlining budget of one mode ran out."""

    def __init__(self, mode: Mode, limit: int) -> None:
        self.mode = mode
        super().__init__(f"inlining budget spent: more than {limit:,} values built for {mode} schemas")


def pointer_steps(ref: str) -> list[str]:
    """The unescaped steps of a local ``#/a/b~1c`` pointer (``#`` alone: none)."""
    return [raw.replace("~1", "/").replace("~0", "~") for raw in unquote(ref[1:]).split("/")[1:]]


_MISSING = object()


def step_into(node: Any, step: str) -> Any:
    """The member or the item of ``node`` a pointer step names, or _MISSING."""
    if isinstance(node, dict):
        return node.get(step, _MISSING)
    if isinstance(node, list) and step.isdigit() and int(step) < len(node):
        return node[int(step)]
    return _MISSING


def resolve_pointer(root: Any, ref: str) -> Any:
    """The value a local ``#/a/b~1c`` pointer names; BadRef when there is none."""
    if not ref.startswith("#"):
        raise RemoteRef(ref)
    node = root
    for step in pointer_steps(ref):
        node = step_into(node, step)
        if node is _MISSING:
            raise BadRef(ref)
    return node


class Inliner:
    """Builds schemas with refs inlined, counting every value built against the budgets."""

    def __init__(self, root: Any, budgets: Budgets) -> None:
        self.root = root
        self.budgets = budgets
        self.limits = {"input": budgets.built_limit, "response": budgets.response_limit}
        self.memo: dict[tuple[str, Mode], Any] = {}
        self.active: dict[tuple[str, Mode], int] = {}
        self.this_operation = 0

    def start_operation(self) -> None:
        """Reset the per-operation count: values built for one operation's schemas are all
        part of them, so past MAX_SCHEMA_VALUES the operation is over its bound already, and
        building stops there instead of spending the document's budget (a ref clique)."""
        self.this_operation = 0

    def build(self, node: Any, mode: Mode) -> Any:
        """``node`` with refs inlined. Raises TooDeep, BudgetSpent, RemoteRef or BadRef."""
        value, _ = self._build(node, 0, mode)
        return value

    def _count(self, mode: Mode) -> None:
        self.this_operation += 1
        if self.this_operation > MAX_SCHEMA_VALUES:
            raise TooLarge(f"too large: more than {MAX_SCHEMA_VALUES:,} values built")
        built = self.budgets.built
        built[mode] += 1
        if built[mode] > self.limits[mode]:
            raise BudgetSpent(mode, self.limits[mode])

    def _build(self, node: Any, depth: int, mode: Mode) -> tuple[Any, int]:
        if depth > MAX_DEPTH:
            raise TooDeep(f"too deep: more than {MAX_DEPTH} levels once refs are inlined")
        self._count(mode)
        if isinstance(node, list):
            return self._list(node, depth, mode)
        if not isinstance(node, dict):
            return node, _NO_CUT  # a YAML date is already its text (YAML 1.2's reading): yamlsafe
        ref = node.get("$ref")
        if isinstance(ref, str):
            return self._ref(ref, node, depth, mode)
        return self._object(node, depth, mode)

    def _list(self, node: list[Any], depth: int, mode: Mode) -> tuple[Any, int]:
        low = _NO_CUT
        items = []
        for child in node:
            value, cut = self._build(child, depth + 1, mode)
            items.append(value)
            low = min(low, cut)
        return items, low

    def _object(self, node: dict[str, Any], depth: int, mode: Mode) -> tuple[Any, int]:
        low = _NO_CUT
        out: dict[str, Any] = {}
        nullable = mode == "input" and node.get("nullable") is True
        for key, child in node.items():
            if nullable and key == "nullable":
                continue
            value, cut = self._build(child, depth + 1, mode)
            out[key] = value
            low = min(low, cut)
        if nullable:
            _as_type_list(out)
        return out, low

    def _ref(self, ref: str, node: dict[str, Any], depth: int, mode: Mode) -> tuple[Any, int]:
        key = (ref, mode)
        if key in self.memo:
            value, low = self.memo[key], _NO_CUT
        elif key in self.active:
            value, low = {}, self.active[key]  # recursive: any value
        else:
            value, low = self._target(key, depth, mode)
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if siblings and isinstance(value, dict):
            built, cut = self._object(siblings, depth, mode)
            value = {**value, **built}  # a new object: the shared target stays as it is
            low = min(low, cut)
        return value, low


    def _target(self, key: tuple[str, Mode], depth: int, mode: Mode) -> tuple[Any, int]:
        """A ref's target built the first time it is met on this path; memoised unless its
        value cut a ref to an enclosing target (then it depends on where it was reached)."""
        target = resolve_pointer(self.root, key[0])
        mine = len(self.active)
        self.active[key] = mine
        try:
            value, low = self._build(target, depth + 1, mode)
        finally:
            del self.active[key]
        if low < mine:
            return value, low
        self.memo[key] = value
        return value, _NO_CUT


def _as_type_list(schema: dict[str, Any]) -> None:
    """OpenAPI 3.0 ``nullable: true`` -> ``type: [X, "null"]`` (and null joins an enum)."""
    declared = schema.get("type")
    if isinstance(declared, str) and declared != "null":
        schema["type"] = [declared, "null"]
    enum = schema.get("enum")
    if isinstance(enum, list) and None not in enum:
        schema["enum"] = [*enum, None]

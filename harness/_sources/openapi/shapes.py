"""Shapes of values read from an untrusted document: checked where they are read, and named.

Every value the importer takes from the document (a path item, an operation, its parameters,
a body, a response, their ``content``) is checked for the type the importer needs before it is
used: a string where a list was wanted must not be iterated character by character, and a path
item given as a list must not vanish. A wrong shape raises ``Malformed(where, expected, found)``
with ``where`` a key path in the loader's format (``paths."/a".get.parameters[0]``), so the
importer turns it into one InputError whose place carries the line.

``follow`` chases ``$ref``s between parameter, body, response and path-item objects: a chain
that comes back on itself is reported as a recursive reference, with the chain.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from harness._sources.openapi.bounds import is_json_scalar
from harness._sources.openapi.refs import BadRef, RemoteRef, pointer_steps, resolve_pointer, step_into

__all__ = [
    "MAX_REF_HOPS",
    "Malformed",
    "child",
    "describe",
    "first_non_json",
    "follow",
    "follow_object",
    "is_names",
    "need_list",
    "need_object",
    "place_of",
    "pointer_path",
]

MAX_REF_HOPS = 32


class Malformed(Exception):
    """A value of the document without the shape the importer needs."""

    def __init__(self, where: str, expected: str, found: str, via: str = "") -> None:
        self.where = where  # a key path, or a #/pointer: see place_of
        self.expected = expected
        self.found = found
        self.via = via  # where the $ref that led to ``where`` stands, when one did
        super().__init__(f"{where}: expected {expected}, found {found}")


def child(path: str, key: object) -> str:
    """The key path of ``key`` under ``path``, written as harness._common.yamlsafe writes it (so
    the document's line map finds the line): ``[3]``, ``.plain_key``, ``."/quoted key"``.
    Under a ``#/json/pointer`` (a ref's target, turned into a key path only if an error names
    it: ``place_of``) the step is a pointer step."""
    if path.startswith("#"):
        return f"{path}/{_pointer_step(str(key))}"
    if isinstance(key, int):
        return f"{path}[{key}]"
    step = _step(str(key))
    return f"{path}.{step}" if path else step


@lru_cache(maxsize=4096)  # the same few keys (parameters, content, schema) recur everywhere
def _step(text: str) -> str:
    plain = text.replace("_", "").replace("-", "").isalnum()
    return text if plain else json.dumps(text)


def _pointer_step(text: str) -> str:
    return text.replace("%", "%25").replace("~", "~0").replace("/", "~1")


def place_of(root: Any, where: str) -> str:
    """``where`` as a key path: a ``#/pointer`` (a ref's target) is converted."""
    return pointer_path(root, where) if where.startswith("#") else where


def pointer_path(root: Any, ref: str) -> str:
    """``#/components/parameters/P~1x`` -> ``components.parameters."P/x"``; a step into a
    list is written ``[i]``, as the loader writes it. Only called on a ref that resolved."""
    path, node = "", root
    for step in pointer_steps(ref):
        path = child(path, int(step) if isinstance(node, list) and step.isdigit() else step)
        node = step_into(node, step)
    return path


def describe(value: Any) -> str:
    """What a value is, for the ``found`` half of a message (short: a string shows 40 chars)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, (str, list, dict)):
        return _describe_sized(value)
    return f"a YAML {type(value).__name__} value"


def _describe_sized(value: str | list[Any] | dict[Any, Any]) -> str:
    if not value:
        return f"an empty {_SIZED_KINDS.get(type(value), 'value')}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'s' * (len(value) != 1)}"
    return f"an object with keys {', '.join(map(str, list(value)[:5]))}"


_SIZED_KINDS: dict[type, str] = {str: "string", list: "list", dict: "object"}


def need_object(value: Any, where: str, expected: str, via: str = "") -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Malformed(where, expected, describe(value), via)
    return value


def is_names(value: Any) -> bool:
    """A list of strings (names of properties, of operations)."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def need_list(value: Any, where: str, expected: str) -> list[Any]:
    if not isinstance(value, list):
        raise Malformed(where, expected, describe(value))
    return value


def follow(root: Any, value: Any, where: str, expected: str) -> tuple[Any, str]:
    """``value`` with its ``$ref`` chain followed: (the object reached, its place: ``where``,
    or the ``#/pointer`` of the last ref).

    A remote ref, a ref naming nothing, a cycle or a chain over MAX_REF_HOPS is Malformed at
    ``where`` (the place that holds the first ref)."""
    chain: list[str] = []
    here = where
    while isinstance(value, dict) and "$ref" in value:
        ref = value["$ref"]
        if not isinstance(ref, str):
            raise Malformed(child(here, "$ref"), "a $ref string", describe(ref))
        if ref in chain:
            cycle = " -> ".join([*chain[chain.index(ref):], ref])
            raise Malformed(where, f"a $ref that leads to {expected}", f"a recursive reference: {cycle}")
        if len(chain) >= MAX_REF_HOPS:
            raise Malformed(where, f"at most {MAX_REF_HOPS} $ref hops to {expected}", "a longer chain")
        chain.append(ref)
        value = _target(root, ref, here)
        here = ref  # a key path only if an error names it: see place_of
    return value, here


def follow_object(root: Any, value: Any, where: str, expected: str) -> tuple[dict[str, Any], str, str]:
    """``follow`` to an object: (the object, its place, the place of the $ref that led there or
    ``""``). Malformed when what the chain reaches is not an object."""
    found, at = follow(root, value, where, expected)
    via = where if at != where else ""
    return need_object(found, at, expected, via), at, via


def _target(root: Any, ref: str, here: str) -> Any:
    """What the ``$ref`` standing at ``here`` names; Malformed there when it names nothing."""
    try:
        return resolve_pointer(root, ref)
    except RemoteRef:
        raise Malformed(child(here, "$ref"), "only local $refs (the harness never fetches)",
                        f"$ref {ref[:80]!r}") from None
    except BadRef:
        raise Malformed(child(here, "$ref"), "a $ref naming a place in the document", f"{ref[:80]!r}") from None


def first_non_json(value: Any) -> tuple[str, Any] | None:
    """(key path, value) of the first scalar no tool can carry (see ``is_json_scalar``), or
    None. Run only when ``count_values`` found one, so building paths costs nothing otherwise."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, dict):
            stack.extend((child(path, k), v) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((child(path, i), v) for i, v in reversed(list(enumerate(item))))
        elif not is_json_scalar(item):
            return path, item
    return None

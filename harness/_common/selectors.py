"""Selectors: a small path language over JSON values, shared by pins and rejection rules.

    tools[*].input_schema        every tool's input_schema
    tools[0].name                one value
    messages[*].content[*].type  any depth of [*]
    input_schema.properties.*    every value of an object (``*`` as a key step)
    tools[*].(function_declarations|functionDeclarations)
                                 either key, where a provider accepts two spellings of one field
                                 (not a wildcard: it numbers no ``{N}`` capture)
    $                            the whole value (also the empty selector)

Each match comes with its location in the same syntax with concrete indices and keys
(``tools[1].input_schema``), which is how reports name a place in a body. Keys that are not
plain identifiers are written quoted: ``properties."x-y"``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from typing import Any

from harness._errors import ConfigError, InputError, Place

__all__ = ["Selector", "check_selectors", "compile_selector", "location", "select", "walk"]

_STEP = re.compile(r'\.?(?:(?P<key>[A-Za-z_$][\w$-]*)|"(?P<quoted>(?:[^"\\]|\\.)*)"|(?P<star>\*)'
                   r"|\((?P<keys>[A-Za-z_$][\w$-]*(?:\|[A-Za-z_$][\w$-]*)+)\))"
                   r"|\[(?:(?P<index>-?\d+)|(?P<all>\*))\]")

# ("key", name) | ("keys", (name, ...)) | ("index", n) | ("any-key", None) | ("any-index", None)
Step = tuple[str, Any]
Selector = tuple[Step, ...]


@cache
def compile_selector(text: str) -> Selector:
    """Parse a selector; ConfigError naming the selector when it does not parse."""
    body = text.strip().removeprefix("$")
    steps: list[Step] = []
    pos = 0
    while pos < len(body):
        m = _STEP.match(body, pos)
        if not m or m.end() == pos:
            raise ConfigError("selector", text, f"steps like key, [N], [*], * (stopped at {body[pos:]!r})")
        steps.append(_step(m))
        pos = m.end()
    return tuple(steps)


def _step(m: re.Match[str]) -> Step:
    """The step one match of ``_STEP`` spells."""
    if m["key"] is not None:
        return ("key", m["key"])
    if m["quoted"] is not None:
        return ("key", json.loads(f'"{m["quoted"]}"'))
    if m["star"] is not None:
        return ("any-key", None)
    if m["keys"] is not None:
        return ("keys", tuple(m["keys"].split("|")))
    if m["index"] is not None:
        return ("index", int(m["index"]))
    return ("any-index", None)


def check_selectors(raw: Mapping[str, Any], keys: Sequence[str], place: Callable[[str], Place]) -> None:
    """Each of ``keys`` that ``raw`` holds compiles as a selector; the first that does not is an
    InputError at ``place(key)`` (a suite file's pin or rule, read before anything runs)."""
    for key in keys:
        if key in raw:
            try:
                compile_selector(raw[key])
            except ConfigError as exc:
                raise InputError(place(key), exc.expected, repr(raw[key])) from None


@cache
def _key_step(key: str) -> str:
    return f".{key}" if re.fullmatch(r"[A-Za-z_$][\w$-]*", key) else f".{json.dumps(key)}"


def location(parts: list[str | int]) -> str:
    """Render concrete steps as a location string: ``tools[1].input_schema``."""
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else _key_step(p)
    return out.lstrip(".") or "$"


def _walk(value: Any, steps: Selector, at: list[str | int]) -> Iterator[tuple[list[str | int], Any]]:
    if not steps:
        yield at, value
        return
    kind, arg = steps[0]
    for part, item in _CHILDREN[kind](value, arg):
        yield from _walk(item, steps[1:], [*at, part])


# What one step reaches in a value, as (key or index, child) pairs: nothing when the value is not
# the container the step walks, or has no such key or index.
def _by_key(value: Any, key: str) -> Iterable[tuple[str | int, Any]]:
    return [(key, value[key])] if isinstance(value, dict) and key in value else []


def _by_index(value: Any, index: int) -> Iterable[tuple[str | int, Any]]:
    if isinstance(value, list) and -len(value) <= index < len(value):
        return [(index % len(value), value[index])]
    return []


def _by_keys(value: Any, keys: tuple[str, ...]) -> Iterable[tuple[str | int, Any]]:
    return [(k, value[k]) for k in keys if k in value] if isinstance(value, dict) else []


def _every_key(value: Any, _: None) -> Iterable[tuple[str | int, Any]]:
    return value.items() if isinstance(value, dict) else []


def _every_index(value: Any, _: None) -> Iterable[tuple[str | int, Any]]:
    return enumerate(value) if isinstance(value, list) else []


_CHILDREN: dict[str, Callable[[Any, Any], Iterable[tuple[str | int, Any]]]] = {
    "key": _by_key, "keys": _by_keys, "index": _by_index, "any-key": _every_key, "any-index": _every_index}


def walk(value: Any, steps: Selector) -> Iterator[tuple[list[str | int], Any]]:
    """Every (parts, value) a compiled selector reaches, parts as keys and indices."""
    return _walk(value, steps, [])


def select(value: Any, selector: str) -> list[tuple[str, Any]]:
    """Every (location, value) the selector reaches in ``value``, in document order."""
    return [(location(at), v) for at, v in _walk(value, compile_selector(selector), [])]

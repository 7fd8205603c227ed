"""Every subschema of a JSON Schema, with its path, and how each provider spells that path.

The walk follows the keywords that hold schemas (``properties.*``, ``items``, ``anyOf[i]`` ...)
and yields ``(parts, node)`` with ``parts`` the keys and indices from the root. Providers name
the same place differently, so a path renders in one of a closed set of styles:

    selector  .properties.objects.items         (the harness's own locations)
    tuple     'properties', 'objects', 'items'   (OpenAI "In context=(...)")
    proto     .properties[3].value.items         (Gemini proto-JSON: map entries by index)
    keyed     .properties[objects].items         (Gemini semantic validator)
    names     .objects.items                     (Vertex "functionDeclaration `parameters.x`")
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from harness._common.selectors import location

__all__ = ["PATH_STYLES", "Tree", "render_path", "subschema_tree", "subschemas", "tree_parts"]

_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_LISTS = ("anyOf", "oneOf", "allOf", "any_of", "one_of", "all_of", "prefixItems")
_ONES = ("items", "not", "additionalProperties", "if", "then", "else", "contains",
         "propertyNames", "unevaluatedProperties", "unevaluatedItems")

Parts = list[str | int]


def subschemas(root: Any, parts: Parts | None = None) -> Iterator[tuple[Parts, Any]]:
    """``(parts, node)`` for the root and every schema below it, depth first, in key order."""
    at: Parts = parts or []
    yield at, root
    if isinstance(root, dict):
        for _, steps, sub in _child_steps(root, 0):
            yield from subschemas(sub, [*at, *steps])


Tree = list[tuple[int, tuple[str | int, ...], Any]]
"""Nodes in walk order, each as (its parent's index or -1, the steps from the parent, node)."""


def _map_children(me: int, key: str, value: Any) -> Tree:
    return [(me, (key, name), sub) for name, sub in value.items()] if isinstance(value, dict) else []


def _list_children(me: int, key: str, value: Any) -> Tree:
    return [(me, (key, i), sub) for i, sub in enumerate(value)] if isinstance(value, list) else []


def _one_child(me: int, key: str, value: Any) -> Tree:
    if isinstance(value, dict):
        return [(me, (key,), value)]
    if not isinstance(value, list) or key == "additionalProperties":
        return []
    # ``items`` may hold a list of schemas; another keyword's list is one (odd) node
    return _list_children(me, key, value) if key == "items" else [(me, (key,), value)]


# How each schema-holding keyword holds its schemas, one lookup per key (most keys of a schema,
# ``type`` or ``description``, hold none).
_HOLDS: dict[str, Callable[[int, str, Any], Tree]] = {
    **dict.fromkeys(_MAPS, _map_children), **dict.fromkeys(_LISTS, _list_children),
    **dict.fromkeys(_ONES, _one_child),
}


def _child_steps(node: dict[str, Any], me: int) -> Tree:
    out: Tree = []
    for key, value in node.items():
        holds = _HOLDS.get(key)
        if holds is not None:
            out += holds(me, key, value)
    return out


def subschema_tree(root: Any) -> Tree:
    """The nodes of ``subschemas(root)`` in the same order, each with a link to its parent
    instead of its whole path: paths are built (``tree_parts``) only for the few nodes that
    need one, which is most of the cost saved on a corpus run."""
    out: Tree = []
    stack: Tree = [(-1, (), root)]
    while stack:
        entry = stack.pop()
        out.append(entry)
        node = entry[2]
        if isinstance(node, dict) and not _HOLDS.keys().isdisjoint(node):  # a leaf holds none
            children = _child_steps(node, len(out) - 1)
            children.reverse()
            stack += children
    return out


def tree_parts(tree: Tree, index: int) -> Parts:
    """The path of ``tree[index]`` from the root, as ``subschemas`` yields it."""
    chain: list[tuple[str | int, ...]] = []
    while index >= 0:
        parent, steps, _ = tree[index]
        chain.append(steps)
        index = parent
    return [step for steps in reversed(chain) for step in steps]


def _proto(root: Any, parts: Parts) -> str:
    out = ""
    node = root
    i = 0
    while i < len(parts):
        step = parts[i]
        if step == "properties" and i + 1 < len(parts) and isinstance(node, dict):
            out += _proto_entry(node, parts[i + 1])
            node = node.get("properties", {}).get(parts[i + 1])
            i += 2
            continue
        out += _snake(step)
        node = _child(node, step)
        i += 1
    return out


def _proto_entry(node: dict[str, Any], name: str | int) -> str:
    """A property as a proto map entry: by its index among the properties (its name if absent)."""
    keys = list(node.get("properties", {}))
    return f".properties[{keys.index(name) if name in keys else name}].value"


def _child(node: Any, step: str | int) -> Any:
    """The value one step below ``node``, None when the step does not fit it."""
    if isinstance(node, dict) and isinstance(step, str):
        return node.get(step)
    if isinstance(node, list) and isinstance(step, int):
        return node[step]
    return None


def _snake(step: str | int) -> str:
    if isinstance(step, int):
        return f"[{step}]"
    snake = {"anyOf": "any_of", "oneOf": "one_of", "allOf": "all_of"}.get(step, step)
    return f".{snake}"


def _property_steps(parts: Parts, spell: Callable[[Any], str]) -> str:
    """Snake-case steps, with ``properties.<name>`` spelled by ``spell`` (the providers differ)."""
    out = ""
    i = 0
    while i < len(parts):
        step = parts[i]
        if step == "properties" and i + 1 < len(parts):
            out += spell(parts[i + 1])
            i += 2
            continue
        out += _snake(step)
        i += 1
    return out


def _keyed(parts: Parts) -> str:
    return _property_steps(parts, lambda name: f".properties[{name}]")


def _names(parts: Parts) -> str:
    return _property_steps(parts, lambda name: f".{name}")


def _tuple(parts: Parts) -> str:
    # the inside of the tuple only: templates write the parentheses, ``In context=({path})``
    return ", ".join(repr(str(p)) for p in parts)


def _selector(parts: Parts) -> str:
    rendered = location(parts)
    return "" if rendered == "$" else f".{rendered}" if not rendered.startswith("[") else rendered


# the one list of styles: the rules schema's path_style enum is checked against it by a test
_RENDERERS: dict[str, Callable[[Any, Parts], str]] = {
    "selector": lambda root, parts: _selector(parts),
    "tuple": lambda root, parts: _tuple(parts),
    "proto": _proto,
    "keyed": lambda root, parts: _keyed(parts),
    "names": lambda root, parts: _names(parts),
}
PATH_STYLES = tuple(_RENDERERS)


def render_path(style: str, root: Any, parts: Parts) -> str:
    """The walked path ``parts`` (below ``root``) as a provider of ``style`` writes it."""
    return _RENDERERS.get(style, _RENDERERS["selector"])(root, parts)

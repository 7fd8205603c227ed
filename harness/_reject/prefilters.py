"""Cheap necessary conditions for an object to match a rule's rejected shape.

The compiled catalog (``harness._reject.compiled``) tests each node only with the rules that
could fire on it. Two things are derived here from a ``rejects`` schema: an *anchor* (a key
every matching object holds, or the values its ``type`` may take), by which rules are indexed,
and a *prefilter* (required keys present, string ``const``/``enum`` values, keys a ``not``
forbids), which skips objects before a check left to jsonschema runs. Both are necessary, never
sufficient: the schema's own check still decides (a test holds every node a rule rejects to
its prefilter and its anchor bucket).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from harness._reject.fastschema import all_strings

__all__ = ["LIST", "Pre", "anchor", "prefilter"]

Pre = Callable[[dict[str, Any]], bool]


def _strings(values: Any) -> frozenset[str] | None:
    return frozenset(values) if values and all_strings(values) else None


def _const_or_enum(sub: Mapping[str, Any]) -> frozenset[str] | None:
    """The string values a schema's ``const`` or ``enum`` allows, None if not only strings."""
    return _strings([sub["const"]]) if "const" in sub else _strings(sub.get("enum"))


def _required(schema: Mapping[str, Any]) -> tuple[str, ...]:
    required = schema.get("required")
    ok = isinstance(required, list) and all(isinstance(k, str) for k in required)
    return tuple(required) if ok else ()  # type: ignore[arg-type]


# ``not`` of a few exact shapes, decided by key membership alone: one maker per keyword of a
# one-keyword ``not``.
def _not_required(arg: Any) -> Pre | None:
    if not all_strings(arg):
        return None
    return lambda n: not all(k in n for k in arg)


def _single_required(branch: Any) -> str | None:
    """``a`` of ``{required: [a]}``, None for any other branch."""
    if not (isinstance(branch, Mapping) and set(branch) == {"required"}):
        return None
    required = branch["required"]
    return required[0] if _strings(required) and len(required) == 1 else None


def _single_required_keys(arg: Any) -> frozenset[str] | None:
    """The keys of ``[{required: [a]}, {required: [b]}, ...]``, None for any other list."""
    if not (isinstance(arg, list) and arg):
        return None
    keys = [_single_required(b) for b in arg]
    return None if None in keys else frozenset(cast(list[str], keys))


def _not_any_required(arg: Any) -> Pre | None:
    """``not: {anyOf: [{required: [a]}, {required: [b]}]}``: none of the keys is present."""
    keys = _single_required_keys(arg)
    return None if keys is None else (lambda n: keys.isdisjoint(n.keys()))


def _not_property_names(arg: Any) -> Pre | None:
    if not (isinstance(arg, Mapping) and set(arg) == {"enum"}):
        return None
    allowed = _strings(arg["enum"])
    return None if allowed is None else (lambda n: not n.keys() <= allowed)


_NOT_SHAPES: dict[str, Callable[[Any], Pre | None]] = {
    "required": _not_required, "anyOf": _not_any_required, "propertyNames": _not_property_names,
}


def _exact_not(inner: Any) -> Pre | None:
    """``not`` of a few exact shapes, decided by key membership alone."""
    if not isinstance(inner, Mapping) or len(inner) != 1:
        return None
    [(key, arg)] = inner.items()
    make = _NOT_SHAPES.get(key)
    return None if make is None else make(arg)


def _value_in(key: str, values: frozenset[str]) -> Pre:
    return lambda n: isinstance(n[key], str) and n[key] in values


def _required_conds(schema: Mapping[str, Any]) -> list[Pre]:
    """The required keys are present, and those whose schema names string values hold one."""
    req = _required(schema)
    if not req:
        return []
    keys = frozenset(req)
    return [lambda n: keys <= n.keys(), *_value_conds(req, schema.get("properties"))]


def _value_conds(required: tuple[str, ...], props: Any) -> list[Pre]:
    """For each required key whose property schema names string values: the node's value is one."""
    if not isinstance(props, Mapping):
        return []
    conds: list[Pre] = []
    for key in required:
        sub = props.get(key)
        values = _const_or_enum(sub) if isinstance(sub, Mapping) else None
        if values is not None:
            conds.append(_value_in(key, values))
    return conds


def _branch_conds(schema: Mapping[str, Any]) -> list[Pre]:
    """Every ``allOf`` branch's condition; one of the ``anyOf`` branches' when all have one."""
    conds = [found for found in map(prefilter, schema.get("allOf") or ()) if found is not None]
    either = _any_branch(schema.get("anyOf"))
    return conds if either is None else [*conds, either]


def _any_branch(branches: Any) -> Pre | None:
    """One of the ``anyOf`` branches' conditions holds, when every branch has one."""
    if not (isinstance(branches, list) and branches):
        return None
    subs = [prefilter(b) for b in branches]
    if None in subs:
        return None
    return lambda n: any(s(n) for s in subs)  # type: ignore[misc]


def _all(conds: list[Pre]) -> Pre | None:
    if not conds:
        return None
    if len(conds) == 1:
        return conds[0]
    return lambda n: all(c(n) for c in conds)


def prefilter(schema: Any) -> Pre | None:
    """A cheap necessary condition for an object to be valid against ``schema`` (key presence,
    a ``type`` value), or None when none is derived. The full check still decides: this only
    skips object nodes that cannot match."""
    if not isinstance(schema, Mapping):
        return None
    negated = _exact_not(schema.get("not"))
    return _all([*_required_conds(schema), *_branch_conds(schema), *([negated] if negated else [])])


_COMMON = frozenset({"type", "description", "title", "properties", "items", "required", "enum"})


def _type_anchor(schema: Mapping[str, Any]) -> tuple[str, frozenset[str] | None] | None:
    """``type`` with the values its property schema allows (a list bucket for ``array``)."""
    props = schema.get("properties")
    sub = props.get("type") if isinstance(props, Mapping) else None
    if not isinstance(sub, Mapping):
        return None
    values = _const_or_enum(sub)
    if values is not None:
        return "type", values
    return ("type", frozenset({LIST})) if sub == {"type": "array"} else None


def anchor(schema: Any) -> tuple[str, frozenset[str] | None] | None:
    """A key every object valid against ``schema`` holds (the least common one it requires),
    with the string values its ``type`` may take when that key is ``type``; None if none."""
    required = _required(schema) if isinstance(schema, Mapping) else ()
    if not required:
        return None
    rare = [k for k in required if k not in _COMMON]
    if rare:
        return rare[-1], None
    return _common_anchor(schema, required)


def _common_anchor(schema: Mapping[str, Any], required: tuple[str, ...]) -> tuple[str, frozenset[str] | None]:
    """With only common keys required: ``type`` with the values the schema allows it, else the first."""
    typed = _type_anchor(schema) if "type" in required else None
    return typed or (required[0], None)


LIST = "\x00a list"  # the by-type bucket of nodes whose ``type`` is a list (no string equals it)

"""Compile the small JSON Schemas rules use into Python predicates; jsonschema for the rest.

Rules test thousands of subschemas per body, and jsonschema's general machinery costs tens of
microseconds a call. The keywords rules actually use (type, required, properties, const, enum,
anyOf/allOf/oneOf/not, sizes, pattern, contains, propertyNames, bounds) compile here into
closures with the same answers; a schema with any other keyword (or a $ref) is left to
jsonschema, so the result is always what Draft 2020-12 says. A differential test holds the two
to the same answers over every bundled body.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import regex

from harness.patterns import bounded

__all__ = ["Check", "compile_schema", "json_equal"]

Check = Callable[[Any], bool]

_TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
    or (isinstance(v, float) and v.is_integer()),
}


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema means it: true is not 1, 1 is 1.0, containers compare deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _type(arg: Any) -> Check | None:
    names = [arg] if isinstance(arg, str) else arg
    if not isinstance(names, list) or not all(n in _TYPES for n in names):
        return None
    checks = [_TYPES[n] for n in names]
    return lambda v: any(c(v) for c in checks)


def _sub(arg: Any) -> Check | None:
    return compile_schema(arg)


def _subs(arg: Any) -> list[Check] | None:
    if not isinstance(arg, list) or not arg:
        return None
    out = [compile_schema(s) for s in arg]
    return None if any(c is None for c in out) else out  # type: ignore[return-value]


def _keyword(key: str, arg: Any, schema: Mapping[str, Any]) -> Check | None:
    """One keyword's check, or None when this compiler does not handle it exactly."""
    if key in ("title", "description", "$comment", "examples", "default"):
        return lambda v: True
    if key == "type":
        return _type(arg)
    if key == "required" and isinstance(arg, list):
        return lambda v: not isinstance(v, dict) or all(k in v for k in arg)
    if key == "const":
        return lambda v: json_equal(v, arg)
    if key == "enum" and isinstance(arg, list):
        return lambda v: any(json_equal(v, e) for e in arg)
    if key in ("minProperties", "maxProperties", "minItems", "maxItems", "minLength", "maxLength") \
            and isinstance(arg, int) and not isinstance(arg, bool):
        kind = dict if "Properties" in key else list if "Items" in key else str
        low = key.startswith("min")
        return lambda v: not isinstance(v, kind) or (len(v) >= arg if low else len(v) <= arg)
    if key in ("minimum", "maximum") and isinstance(arg, int | float) and not isinstance(arg, bool):
        low = key == "minimum"
        return lambda v: not _TYPES["number"](v) or (v >= arg if low else v <= arg)
    if key == "pattern" and isinstance(arg, str):
        try:
            rx = bounded(arg)  # a rule's pattern, run on a pipeline's strings: time-bounded
        except (re.error, regex.error):
            return None
        return lambda v: not isinstance(v, str) or rx.search(v) is not None
    return _applicator(key, arg)


def _applicator(key: str, arg: Any) -> Check | None:
    if key == "properties" and isinstance(arg, dict):
        subs = {k: compile_schema(s) for k, s in arg.items()}
        if any(c is None for c in subs.values()):
            return None
        return lambda v: not isinstance(v, dict) or all(c(v[k]) for k, c in subs.items() if k in v)  # type: ignore[misc]
    if key in ("not", "contains", "propertyNames"):
        sub = _sub(arg)
        if sub is None:
            return None
        if key == "not":
            return lambda v: not sub(v)
        if key == "contains":
            return lambda v: not isinstance(v, list) or any(sub(x) for x in v)
        return lambda v: not isinstance(v, dict) or all(sub(k) for k in v)
    if key in ("anyOf", "allOf", "oneOf"):
        subs_list = _subs(arg)
        if subs_list is None:
            return None
        if key == "anyOf":
            return lambda v: any(c(v) for c in subs_list)
        if key == "allOf":
            return lambda v: all(c(v) for c in subs_list)
        return lambda v: sum(1 for c in subs_list if c(v)) == 1
    return None


def compile_schema(schema: Any) -> Check | None:
    """A predicate equal to Draft 2020-12 validity, or None when the schema is out of reach."""
    if isinstance(schema, bool):
        return (lambda v: True) if schema else (lambda v: False)
    if not isinstance(schema, dict):
        return None
    checks: list[Check] = []
    for key, arg in schema.items():
        check = _keyword(key, arg, schema)
        if check is None:
            return None
        checks.append(check)
    return lambda v: all(c(v) for c in checks)

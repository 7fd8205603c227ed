"""Compile the small JSON Schemas rules use into Python predicates; jsonschema for the rest.

Rules test thousands of subschemas per body, and jsonschema's general machinery costs tens of
microseconds a call. The keywords rules actually use (type, required, properties, const, enum,
anyOf/allOf/oneOf/not, sizes, pattern, contains, propertyNames, bounds) compile here into
generated Python functions with the same answers; a schema with any other keyword (or a $ref) is left to
jsonschema, so the result is always what Draft 2020-12 says. A differential test holds the two
to the same answers over every bundled body.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any, cast

import jsonschema_rs
import regex

from harness._common.patterns import BoundedPattern, bounded

__all__ = ["Check", "all_strings", "compile_schema", "json_equal", "rust_pattern"]

Check = Callable[[Any], bool]

def _kind(value: Any) -> str:
    """What JSON equality compares a value as (a bool is no number, an int and a float are)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "object" if isinstance(value, dict) else "array" if isinstance(value, list) else "other"


def _objects_equal(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)


def _arrays_equal(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))


def _others_equal(a: Any, b: Any) -> bool:
    """Strings, null and anything else: equal values of one type."""
    return type(a) is type(b) and a == b


# how two values of one kind compare (numbers and booleans: as Python compares them)
_EQUAL: dict[str, Callable[[Any, Any], bool]] = {
    "object": _objects_equal, "array": _arrays_equal, "number": operator.eq, "boolean": operator.eq,
    "other": _others_equal,
}


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema means it: true is not 1, 1 is 1.0, containers compare deeply."""
    kind = _kind(a)
    return kind == _kind(b) and _EQUAL[kind](a, b)


_TYPE_EXPR: dict[str, str] = {
    "object": "isinstance(v, dict)",
    "array": "isinstance(v, list)",
    "string": "isinstance(v, str)",
    "boolean": "isinstance(v, bool)",
    "null": "v is None",
    "number": "(isinstance(v, (int, float)) and not isinstance(v, bool))",
    "integer": "((isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()))",
}
_SIZES = {"minProperties": "dict", "maxProperties": "dict", "minItems": "list", "maxItems": "list",
          "minLength": "str", "maxLength": "str"}


class _Gen:
    """Python source for a schema's check: one expression per schema over the name ``v``, and a
    function for each subschema applied to another value (a property, an item, a key).

    Generated code runs several times faster than nested closures (a rule tests thousands of
    nodes per body); it says exactly what the closures said, keyword for keyword."""

    def __init__(self) -> None:
        self.consts: dict[str, Any] = {"json_equal": json_equal}
        self.defs: list[str] = []

    def const(self, value: Any) -> str:
        name = f"c{len(self.consts)}"
        self.consts[name] = value
        return name

    def function(self, schema: Any) -> str | None:
        body = self.expr(schema)
        if body is None:
            return None
        name = f"f{len(self.defs)}"
        self.defs.append(f"def {name}(v):\n    return {body}\n")
        return name

    def expr(self, schema: Any) -> str | None:
        if isinstance(schema, bool):
            return str(schema)  # "True" or "False"
        if not isinstance(schema, dict):
            return None
        parts = self.keywords(schema)
        if parts is None:
            return None
        return "(" + " and ".join(parts) + ")" if parts else "True"

    def keywords(self, schema: dict[str, Any]) -> list[str] | None:
        """Each keyword's expression but those always true; None when one is out of reach."""
        parts: list[str] = []
        for key, arg in schema.items():
            part = self.keyword(key, arg)
            if part is None:
                return None
            if part != "True":
                parts.append(part)
        return parts

    def keyword(self, key: str, arg: Any) -> str | None:
        """The expression for one keyword, None when it is out of reach (jsonschema decides)."""
        if key in _ANNOTATIONS:
            return "True"
        make = _KEYWORDS.get(key)
        return None if make is None else make(self, key, arg)

    def type_(self, key: str, arg: Any) -> str | None:
        names = _type_names(arg)
        if names is None:
            return None
        return "(" + " or ".join(_TYPE_EXPR[n] for n in names) + ")" if names else "False"

    def required(self, key: str, arg: Any) -> str | None:
        if not isinstance(arg, list):
            return None
        held = " and ".join(f"{self.const(k)} in v" for k in arg) or "True"
        return f"(not isinstance(v, dict) or ({held}))"

    def const_(self, key: str, arg: Any) -> str | None:
        if isinstance(arg, str):
            return f"(isinstance(v, str) and v == {self.const(arg)})"
        if arg is None or isinstance(arg, bool):
            return f"(v is {arg!r})"  # json_equal: only None is null, only True is true
        return f"json_equal(v, {self.const(arg)})"

    def enum(self, key: str, arg: Any) -> str | None:
        if not isinstance(arg, list):
            return None
        strings, others = _by_string(arg)
        # a string equals only a string member; another value only a non-string one
        in_strings = f"v in {self.const(strings)}" if strings else "False"
        if not others:
            return f"(isinstance(v, str) and {in_strings})"
        return f"({in_strings} if isinstance(v, str) else any(json_equal(v, e) for e in {self.const(others)}))"

    def size(self, key: str, arg: Any) -> str | None:
        if not isinstance(arg, int) or isinstance(arg, bool):
            return None
        op = ">=" if key.startswith("min") else "<="
        return f"(not isinstance(v, {_SIZES[key]}) or len(v) {op} {arg})"

    def bound(self, key: str, arg: Any) -> str | None:
        if not isinstance(arg, int | float) or isinstance(arg, bool):
            return None
        op = ">=" if key == "minimum" else "<="
        return f"(not {_TYPE_EXPR['number']} or v {op} {self.const(arg)})"

    def pattern(self, key: str, arg: Any) -> str | None:
        if not isinstance(arg, str):
            return None
        try:
            rx = bounded(arg)  # a rule's pattern, run on a pipeline's strings: time-bounded
        except (re.error, regex.error):
            return None
        quick = rust_pattern(arg, rx)
        if quick is not None:
            return f"(not isinstance(v, str) or {self.const(quick)}(v))"
        return f"(not isinstance(v, str) or {self.const(rx)}.search(v) is not None)"

    def properties(self, key: str, arg: Any) -> str | None:
        if not isinstance(arg, dict):
            return None
        checks = []
        for name, sub in arg.items():
            fn = self.function(sub)
            if fn is None:
                return None
            k = self.const(name)
            checks.append(f"({k} not in v or {fn}(v[{k}]))")
        return f"(not isinstance(v, dict) or ({' and '.join(checks) or 'True'}))"

    def not_(self, key: str, arg: Any) -> str | None:
        inner = self.expr(arg)
        return None if inner is None else f"(not {inner})"

    def contains(self, key: str, arg: Any) -> str | None:
        fn = self.function(arg)
        return None if fn is None else f"(not isinstance(v, list) or any({fn}(x) for x in v))"

    def property_names(self, key: str, arg: Any) -> str | None:
        names = _string_enum(arg)
        if names is not None:  # the common shape: a set of allowed names, one subset test
            return f"(not isinstance(v, dict) or v.keys() <= {self.const(names)})"
        fn = self.function(arg)
        return None if fn is None else f"(not isinstance(v, dict) or all({fn}(k) for k in v))"

    def combination(self, key: str, arg: Any) -> str | None:
        if not isinstance(arg, list) or not arg:
            return None
        subs = [self.expr(s) for s in arg]
        if None in subs:
            return None
        opening, between, closing = _JOINS[key]
        return opening + between.join(cast(list[str], subs)) + closing


# anyOf: one branch holds; allOf: every one; oneOf: exactly one, counted as ((bool(a)) + (bool(b)) == 1)
_JOINS = {"anyOf": ("(", " or ", ")"), "allOf": ("(", " and ", ")"), "oneOf": ("((bool(", ")) + (bool(", ")) == 1)")}


def _type_names(arg: Any) -> list[str] | None:
    """A ``type`` keyword's names, None unless each is one the generated checks know."""
    names = [arg] if isinstance(arg, str) else arg
    if isinstance(names, list) and all(isinstance(n, str) and n in _TYPE_EXPR for n in names):
        return names
    return None


def _by_string(values: list[Any]) -> tuple[frozenset[str], list[Any]]:
    """An enum's string members (one set test) and its other members (compared as JSON)."""
    return frozenset(e for e in values if isinstance(e, str)), [e for e in values if not isinstance(e, str)]


def _string_enum(schema: Any) -> frozenset[str] | None:
    """The names of ``{enum: [strings]}`` (keys are strings: no ``type`` needed), else None."""
    if not (isinstance(schema, dict) and set(schema) == {"enum"}):
        return None
    names = schema["enum"]
    return frozenset(names) if all_strings(names) else None


def all_strings(values: Any) -> bool:
    """Whether ``values`` is a list of strings only (an empty list is one)."""
    return isinstance(values, list) and all(isinstance(v, str) for v in values)


# Plain patterns: anchors, letters, digits and a few marks, character classes of those, each with
# at most one greedy quantifier. Python's re and ECMA-262 (jsonschema-rs) read them alike but
# for ``$``, which in Python also matches before a final newline.
_PLAIN = re.compile(r"\^?(?:(?:\[\^?(?:[A-Za-z0-9_:.@/ -]|\\[-.\\\]\[])+\]|[A-Za-z0-9_:@/ -])"
                    r"(?:[+*?]|\{\d+(?:,\d*)?\})?)*\$?")


def rust_pattern(pattern: str, slow: BoundedPattern) -> Check | None:
    """A plain ``pattern`` matched by jsonschema-rs (Rust's regex: linear time, about 20 times
    faster than the time-bounded ``regex`` search here), with Python's answer wherever the two
    could differ; None for any other pattern (the bounded search decides)."""
    if len(pattern) > 512 or _PLAIN.fullmatch(pattern) is None:
        return None
    try:
        rust = jsonschema_rs.validator_for({"pattern": pattern}).is_valid
    except ValueError:
        return None

    def matches(v: str) -> bool:
        if v.endswith("\n"):  # Python's $ matches before it, ECMA's does not
            return slow.search(v) is not None
        try:
            return bool(rust(v))
        except UnicodeEncodeError:  # a lone surrogate: no Rust string holds one
            return slow.search(v) is not None

    return matches


_ANNOTATIONS = frozenset({"title", "description", "$comment", "examples", "default"})
_KEYWORDS: dict[str, Callable[[_Gen, str, Any], str | None]] = {
    "type": _Gen.type_, "required": _Gen.required, "const": _Gen.const_, "enum": _Gen.enum,
    **dict.fromkeys(_SIZES, _Gen.size), "minimum": _Gen.bound, "maximum": _Gen.bound,
    "pattern": _Gen.pattern, "properties": _Gen.properties, "not": _Gen.not_, "contains": _Gen.contains,
    "propertyNames": _Gen.property_names, **dict.fromkeys(("anyOf", "allOf", "oneOf"), _Gen.combination),
}


def compile_schema(schema: Any) -> Check | None:
    """A predicate equal to Draft 2020-12 validity, or None when the schema is out of reach."""
    gen = _Gen()
    top = gen.function(schema)
    if top is None:
        return None
    namespace: dict[str, Any] = dict(gen.consts)
    # Our own source: keys, strings and numbers of the schema reach it only as names bound in
    # ``namespace`` (or ints checked as ints), never spliced into the text.
    exec("".join(gen.defs), namespace)
    check: Check = namespace[top]
    return check

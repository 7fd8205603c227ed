"""Fire rules on a request body: where each rule's rejected shape appears, in the body's terms.

A Hit names the rule, the body location (harness selector syntax, ``tools[1].input_schema``),
the selector's wildcard captures (``{"0": "1"}``) and the walked subschema path rendered in the
rule's path style; together they render the rule's location templates, which is how a check
compares a hit with the place a provider message names.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

import jsonschema

from harness._common.selectors import compile_selector, location, select
from harness._reject.fastschema import compile_schema
from harness._reject.rules import Rule
from harness._reject.template import render
from harness._reject.walk import render_path, subschemas

__all__ = ["Hit", "Walks", "checker", "fire", "fire_all", "predicate_subs", "signature"]


class Hit(NamedTuple):
    """A named tuple, not a dataclass: a corpus run makes thousands, and a frozen dataclass's
    constructor cost more than finding them."""

    rule: str
    validator: str
    location: str
    captures: tuple[tuple[str, str], ...] = ()
    path: str = ""

    def places(self, rule: Rule) -> list[str]:
        """The rule's location templates rendered for this hit."""
        holes = {**dict(self.captures), "path": self.path}
        return [render(t, holes) for t in rule.location]


# One compiled validator per schema object; the object is kept so its id is never reused.
_VALIDATORS: dict[int, tuple[Any, Any]] = {}


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,), "null": (type(None),),
    "number": (int, float), "integer": (int,),
}


def _wrong_type(kind: Any, value: Any) -> bool:
    """``type: <one name>`` that the value's Python type rules out (a bool is no number)."""
    if not isinstance(kind, str) or kind not in _JSON_TYPES:
        return False
    if not isinstance(value, _JSON_TYPES[kind]):
        return True
    return kind in ("number", "integer") and isinstance(value, bool)


def _lacks_required(schema: Mapping[str, Any], value: dict[str, Any]) -> bool:
    required = schema.get("required")
    return isinstance(required, list) and any(k not in value for k in required)


def _lacks_every_branch(schema: Mapping[str, Any], value: dict[str, Any]) -> bool:
    """An ``anyOf`` of ``required``-only branches none of which the object's keys satisfy."""
    branches = schema.get("anyOf")
    if not isinstance(branches, list) or not branches:
        return False
    if not all(isinstance(b, dict) and isinstance(b.get("required"), list) for b in branches):
        return False
    return not any(all(k in value for k in b["required"]) for b in branches)


def _cannot_match(schema: Mapping[str, Any], value: Any) -> bool:
    """Necessary conditions checked before jsonschema (most nodes fail them): an exact shortcut."""
    if _wrong_type(schema.get("type"), value):
        return True
    if isinstance(value, dict):
        return _lacks_required(schema, value) or _lacks_every_branch(schema, value)
    return False


def _matches(schema: Mapping[str, Any] | bool | None, value: Any) -> bool:
    if schema is None:
        return True
    return bool(checker(schema)(value))


def checker(schema: Mapping[str, Any] | bool) -> Callable[[Any], bool]:
    """The validity check for ``schema``, compiled once per schema object."""
    entry = _VALIDATORS.get(id(schema))
    if entry is None:
        fast = compile_schema(schema)
        if fast is None:  # jsonschema, behind the exact prefilter (most nodes fail it)
            slow = jsonschema.Draft202012Validator(schema).is_valid
            if isinstance(schema, Mapping):
                def checked(v: Any, s: Mapping[str, Any] = schema) -> bool:
                    return not _cannot_match(s, v) and bool(slow(v))
                fast = checked
            else:
                fast = slow
        entry = (schema, fast)
        _VALIDATORS[id(schema)] = entry
    check: Callable[[Any], bool] = entry[1]
    return check


def _captures(rule_selector: str, concrete: str) -> tuple[tuple[str, str], ...]:
    """The values at the selector's wildcard steps, numbered {0}, {1} in order."""
    steps = compile_selector(rule_selector)
    got = compile_selector(concrete)
    out: list[tuple[str, str]] = []
    for want, have in zip(steps, got, strict=False):
        if want[0] in ("any-index", "any-key"):
            out.append((str(len(out)), str(have[1])))
    return tuple(out)


_META = {
    "7": jsonschema.Draft7Validator(jsonschema.Draft7Validator.META_SCHEMA),
    "2020-12": jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA),
}


# jsonschema's metaschema check takes about ten frames a schema level: a body within the readers'
# 200-level bound reached Python's default limit of 1,000 (RecursionError, exit 70, in `replay`)
_METASCHEMA_FRAMES = 10_000
# the limit is the process's: the capture server checks bodies in threads, and one thread putting
# the limit back must not cut short another's check
_LIMIT_RAISED = threading.Lock()


@lru_cache(maxsize=8192)
def _invalid_text(text: str, draft: str) -> bool:
    schema = json.loads(text)
    with _LIMIT_RAISED:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, _METASCHEMA_FRAMES))
        try:
            return not _META[draft].is_valid(schema)
        finally:
            sys.setrecursionlimit(limit)


def _invalid_schema(node: Any, draft: str) -> bool:
    """Metaschema validation is the costliest check: one answer per distinct schema text."""
    try:
        text = json.dumps(node, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return True
    return _invalid_text(text, "7" if draft == "7" else "2020-12")


Subs = list[list[str | int]]


def _duplicates(pred: Mapping[str, Any], node: Any) -> Subs:
    """Each item whose ``key`` value an earlier item already had."""
    if not isinstance(node, list):
        return []
    seen: set[str] = set()
    dupes: Subs = []
    for i, item in enumerate(node):
        for _, key in select(item, pred["key"]):
            text = repr(key)
            if text in seen:
                dupes.append([i])
            seen.add(text)
    return dupes


def _required_not_in_properties(pred: Mapping[str, Any], node: dict[str, Any]) -> bool:
    req = node.get("required")
    found = node.get("properties")
    props: dict[str, Any] = found if isinstance(found, dict) else {}
    return isinstance(req, list) and any(isinstance(r, str) and r not in props for r in req)


def _properties_not_all_required(pred: Mapping[str, Any], node: dict[str, Any]) -> bool:
    declared = node.get("properties")
    req = node.get("required")
    req_list = req if isinstance(req, list) else []
    return isinstance(declared, dict) and any(k not in req_list for k in declared)


def _schema_invalid(pred: Mapping[str, Any], node: dict[str, Any]) -> bool:
    return _invalid_schema(node, str(pred.get("draft", "2020-12")))


# predicates that hold (or not) of one object node, at the node itself
_NODE_PREDICATES: dict[str, Callable[[Mapping[str, Any], dict[str, Any]], bool]] = {
    "required-not-in-properties": _required_not_in_properties,
    "properties-not-all-required": _properties_not_all_required,
    "invalid-schema": _schema_invalid,
}


def predicate_subs(pred: Mapping[str, Any] | None, node: Any) -> Subs | None:
    """None: no predicate. Else the sub-locations (relative parts) where it holds; [] = it does not."""
    if pred is None:
        return None
    name = pred["name"]
    if name == "duplicates":
        return _duplicates(pred, node)
    test = _NODE_PREDICATES.get(name)
    if test is None:
        raise ValueError(f"unknown predicate {name!r}")  # the schema keeps this unreachable
    # inline, not a helper: invalid-schema validates deeply nested bodies near the recursion limit
    return [[]] if isinstance(node, dict) and test(pred, node) else []


Walks = dict[int, tuple[Any, list[tuple[list[str | int], Any]]]]


def _walked(root: Any, cache: Walks | None) -> list[tuple[list[str | int], Any]]:
    """Every subschema of ``root``, walked once per fire_all call however many rules look."""
    if cache is None:
        return list(subschemas(root))
    hit = cache.get(id(root))
    if hit is None or hit[0] is not root:
        hit = (root, list(subschemas(root)))
        cache[id(root)] = hit
    return hit[1]


Node = tuple[list[str | int], Any, list[str | int]]


def _nodes(rule: Rule, value: Any, cache: Walks | None = None) -> Iterable[Node]:
    """(parts below the selected value, node, parts below the walked root) to test."""
    if rule.within is None:
        return [([], value, [])]
    return _within_nodes(rule, rule.within, value, cache)


def _within_nodes(rule: Rule, within: str, value: Any, cache: Walks | None) -> Iterator[Node]:
    """Every subschema of each root ``within`` reaches (its objects only, for an objects rule)."""
    for within_loc, root in select(value, within):
        base = [s[1] for s in compile_selector(within_loc)]  # "$" compiles to no step
        for parts, node in _walked(root, cache):
            if rule.nodes == "objects" and not isinstance(node, dict):
                continue
            yield [*base, *parts], node, parts


def _node_hits(rule: Rule, node: Any) -> Subs | None:
    """Where ``rule`` holds at one tested node: None = the node itself, [] = nowhere."""
    if rule.rejects is not None and not _matches(rule.rejects, node):
        return []
    return predicate_subs(rule.predicate, node)


def _first_root(rule: Rule, value: Any) -> Any:
    """The first root the rule's ``within`` reaches in ``value`` (paths render below it), else ``value``."""
    roots = select(value, rule.within) if rule.within else []
    return roots[0][1] if roots else value


def _fire_value(rule: Rule, loc: str, value: Any, cache: Walks | None) -> Iterator[Hit]:
    """The hits under one selected value (``loc`` its place in the body)."""
    captures = _captures(rule.select, loc)
    base = [s[1] for s in compile_selector(loc)]
    root = _first_root(rule, value)
    for below, node, walked in _nodes(rule, value, cache):
        subs = _node_hits(rule, node)
        if subs == []:
            continue
        path = render_path(rule.path_style, root, walked) if rule.within else ""
        for sub in subs if subs is not None else [[]]:
            yield Hit(rule.id, rule.validator, location([*base, *below, *sub]), captures, path)


def fire(rule: Rule, body: Any, cache: Walks | None = None) -> list[Hit]:
    """Every place in ``body`` where ``rule`` sees its rejected shape, in document order."""
    hits: list[Hit] = []
    for loc, value in select(body, rule.select):
        if rule.when is None or _matches(rule.when, value):
            hits.extend(_fire_value(rule, loc, value, cache))
    return hits


def fire_all(rules: Iterable[Rule], body: Any) -> list[Hit]:
    """Every rule's hits on ``body``, rule by rule: one compiled pass (``harness._reject.compiled``)."""
    from harness._reject.compiled import compiled

    return [hit for _, hit in compiled(list(rules)).fire(body)]


def signature(rules: Iterable[Rule], body: Any) -> frozenset[str]:
    """The ids of the rules that fire on ``body``: what a replay matcher compares."""
    return frozenset(hit.rule for hit in fire_all(rules, body))

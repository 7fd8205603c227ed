"""A catalog's rules compiled once into one pass per body.

``fire`` in ``harness.reject.match`` runs one rule: it selects, walks and tests on its own, so
90 rules select the same ``tools[*].function`` 17 times and walk every parameters schema 31
times. Here rules sharing a ``select`` and a ``within`` share one selection and one walk, and
each node is tested only by the rules that could fire on it: a cheap necessary condition is
derived from each rejected shape (the keys it requires, the ``type`` values it allows, the keys
it forbids) and an object node failing it is skipped without running the full check. The
hits are the same as ``fire``'s, rule by rule, in the same order (a differential test over
every bundled and corpus body holds them equal).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.reject.match import Hit, checker, predicate_subs
from harness.reject.rules import Rule
from harness.reject.walk import Tree, render_path, subschema_tree, tree_parts
from harness.selectors import Selector, compile_selector, location, walk

__all__ = ["CompiledRules", "compiled", "prefilter"]

Parts = list[str | int]


Pre = Callable[[dict[str, Any]], bool]


def _strings(values: Any) -> frozenset[str] | None:
    if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
        return frozenset(values)
    return None


def _exact_not(inner: Any) -> Pre | None:
    """``not`` of a few exact shapes, decided by key membership alone."""
    if not isinstance(inner, Mapping) or len(inner) != 1:
        return None
    [(key, arg)] = inner.items()
    if key == "required" and isinstance(arg, list) and all(isinstance(k, str) for k in arg):
        return lambda n: not all(k in n for k in arg)
    if key == "anyOf" and isinstance(arg, list) and arg and all(
            isinstance(b, Mapping) and set(b) == {"required"} and _strings(b["required"]) for b in arg):
        keys = frozenset(k for b in arg for k in b["required"])
        single = all(len(b["required"]) == 1 for b in arg)
        return (lambda n: keys.isdisjoint(n.keys())) if single else None
    if key == "propertyNames" and isinstance(arg, Mapping) and set(arg) == {"enum"}:
        allowed = _strings(arg["enum"])
        return None if allowed is None else (lambda n: not n.keys() <= allowed)
    return None


def _value_in(key: str, values: frozenset[str]) -> Pre:
    return lambda n: isinstance(n[key], str) and n[key] in values


def prefilter(schema: Any) -> Pre | None:
    """A cheap necessary condition for an object to be valid against ``schema`` (key presence,
    a ``type`` value), or None when none is derived. The full check still decides: this only
    skips object nodes that cannot match."""
    if not isinstance(schema, Mapping):
        return None
    conds: list[Pre] = []
    required = schema.get("required")
    req = tuple(required) if isinstance(required, list) and all(isinstance(k, str) for k in required) else ()
    if req:
        keys = frozenset(req)
        conds.append(lambda n: keys <= n.keys())
    props = schema.get("properties")
    if isinstance(props, Mapping):
        for key in req:
            sub = props.get(key)
            if not isinstance(sub, Mapping):
                continue
            values = _strings([sub["const"]]) if "const" in sub else _strings(sub.get("enum"))
            if values is not None:
                conds.append(_value_in(key, values))
    for branch in schema.get("allOf") or ():
        found = prefilter(branch)
        if found is not None:
            conds.append(found)
    branches = schema.get("anyOf")
    if isinstance(branches, list) and branches:
        subs = [prefilter(b) for b in branches]
        if all(s is not None for s in subs):
            conds.append(lambda n: any(s(n) for s in subs))  # type: ignore[misc]
    negated = _exact_not(schema.get("not"))
    if negated is not None:
        conds.append(negated)
    if not conds:
        return None
    if len(conds) == 1:
        return conds[0]
    return lambda n: all(c(n) for c in conds)


_COMMON = frozenset({"type", "description", "title", "properties", "items", "required", "enum"})


def anchor(schema: Any) -> tuple[str, frozenset[str] | None] | None:
    """A key every object valid against ``schema`` holds (the least common one it requires),
    with the string values its ``type`` may take when that key is ``type``; None if none."""
    if not isinstance(schema, Mapping):
        return None
    required = schema.get("required")
    if not isinstance(required, list) or not required or not all(isinstance(k, str) for k in required):
        return None
    props = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    rare = [k for k in required if k not in _COMMON]
    if rare:
        return rare[-1], None
    if "type" in required:
        sub = props.get("type") if isinstance(props, Mapping) else None
        if isinstance(sub, Mapping):
            values = _strings([sub["const"]]) if "const" in sub else _strings(sub.get("enum"))
            if values is not None:
                return "type", values
            if sub == {"type": "array"}:
                return "type", frozenset({_LIST})
    return required[0], None


_LIST = "\x00a list"  # the by-type bucket of nodes whose ``type`` is a list (no string equals it)


@dataclass
class _Plan:
    index: int
    rule: Rule
    wild: tuple[int, ...]
    when: Callable[[Any], bool] | None
    rejects: Callable[[Any], bool] | None
    pre: Pre | None
    anchor: tuple[str, frozenset[str] | None] | None = None
    kinds: tuple[type, ...] | None = None


def _plan(index: int, rule: Rule) -> _Plan:
    steps = compile_selector(rule.select)
    wild = tuple(i for i, (kind, _) in enumerate(steps) if kind in ("any-index", "any-key"))
    anchored = anchor(rule.rejects) if rule.rejects is not None else None
    if rule.rejects is None and rule.predicate is not None:
        anchored = _PREDICATE_ANCHORS.get(str(rule.predicate.get("name")))
    return _Plan(index, rule, wild, None if rule.when is None else checker(rule.when),
                 None if rule.rejects is None else checker(rule.rejects),
                 prefilter(rule.rejects) if rule.rejects is not None else None,
                 anchored if rule.nodes == "objects" else None, _kinds(rule.rejects))


# The object predicates that can only hold on an object with this key (match.predicate_subs):
# ``required`` naming an undeclared property needs ``required``; a property left out of
# ``required`` needs ``properties``.
_PREDICATE_ANCHORS: dict[str, tuple[str, frozenset[str] | None]] = {
    "required-not-in-properties": ("required", None),
    "properties-not-all-required": ("properties", None),
}


_KINDS: dict[str, tuple[type, ...]] = {"object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
                                       "null": (type(None),)}


def _kinds(schema: Any) -> tuple[type, ...] | None:
    """The Python types a value must have to match ``schema``'s single ``type`` (numbers are left
    alone: JSON Schema's integer and number are not Python's int and float)."""
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    return _KINDS.get(kind) if isinstance(kind, str) else None


Test = Callable[[Any], bool]
Entry = tuple[_Plan, Test]


def _test(plan: _Plan, on_objects: bool) -> Test | None:
    """One callable for a plan on one kind of node; None when it can never match that kind."""
    rejects = plan.rejects or (lambda v: True)
    if plan.kinds is not None and on_objects != (dict in plan.kinds):
        return None
    pre = plan.pre if on_objects else None
    if pre is not None:
        return lambda n: pre(n) and rejects(n)
    if plan.kinds is not None and not on_objects:
        kinds = plan.kinds
        return lambda n: isinstance(n, kinds) and rejects(n)
    return rejects


class _Index:
    """The plans a node can meet: for objects, the unanchored ones plus those found by the
    node's keys and its ``type`` value; for other nodes, the ones that look at any node."""

    def __init__(self, live: list[_Plan]) -> None:
        self.objects: list[Entry] = []
        self.others: list[Entry] = []
        self.by_key: dict[str, list[Entry]] = {}
        self.by_type: dict[str, list[Entry]] = {}
        for plan in live:
            other = _test(plan, on_objects=False) if plan.rule.nodes != "objects" else None
            if other is not None:
                self.others.append((plan, other))
            test = _test(plan, on_objects=True)
            if test is None:
                continue
            if plan.rule.nodes != "objects" or plan.anchor is None:
                self.objects.append((plan, test))
                continue
            key, values = plan.anchor
            for bucket, name in ([(self.by_key, key)] if values is None else [(self.by_type, v) for v in values]):
                bucket.setdefault(name, []).append((plan, test))
        self.keys = frozenset(self.by_key)


class _Group:
    """Rules with one ``select`` and one ``within``: one selection, one walk per selected value."""

    def __init__(self, select: str, within: str | None) -> None:
        self.select: Selector = compile_selector(select)
        self.within: Selector | None = compile_selector(within) if within is not None else None
        self.plans: list[_Plan] = []
        self._indexes: dict[tuple[int, ...], _Index] = {}

    def fire(self, body: Any, out: list[list[Hit]], walks: dict[int, Tree],
             selections: dict[Selector, list[tuple[Parts, Any]]]) -> None:
        found = selections.get(self.select)
        if found is None:  # groups with one select and different withins select once
            found = selections[self.select] = list(walk(body, self.select))
        for parts, value in found:
            live = [p for p in self.plans if p.when is None or p.when(value)]
            if live:
                self._value(parts, value, live, out, walks)

    def _index(self, live: list[_Plan]) -> _Index:
        """One index per distinct set of live plans (``when`` filters some out per value)."""
        key = tuple(p.index for p in live)
        found = self._indexes.get(key)
        if found is None:
            found = self._indexes[key] = _Index(live)
        return found

    def _value(self, parts: Parts, value: Any, live: list[_Plan], out: list[list[Hit]],
               walks: dict[int, Tree]) -> None:
        if self.within is None:
            for plan in live:
                if plan.rejects is None or plan.rejects(value):
                    _hits(plan, parts, [], value, value, [], out)
            return
        roots = list(walk(value, self.within))
        first = roots[0][1] if roots else value
        index = self._index(live)
        for root_parts, root in roots:
            nodes = walks.get(id(root))
            if nodes is None:  # groups whose selections reach one schema (tools[*].function, within
                nodes = walks[id(root)] = subschema_tree(root)  # parameters) share one walk of it
            for at, (_, _, node) in enumerate(nodes):
                walked: Parts | None = None
                for plan, test in _candidates(index, node):
                    if test(node):
                        walked = tree_parts(nodes, at) if walked is None else walked
                        _hits(plan, parts, [*root_parts, *walked], node, first, walked, out)


def _candidates(index: _Index, node: Any) -> list[Entry]:
    if not isinstance(node, dict):
        return index.others
    found = index.objects
    keyed = index.keys.intersection(node)
    kind = node.get("type")
    typed = index.by_type.get(kind if isinstance(kind, str) else _LIST if isinstance(kind, list) else "")
    if not keyed and not typed:
        return found
    found = [*found, *(e for k in keyed for e in index.by_key[k])]
    return [*found, *typed] if typed else found


def _hits(plan: _Plan, base: Parts, below: Parts, node: Any, root: Any, walked: Parts,
          out: list[list[Hit]]) -> None:
    subs = predicate_subs(plan.rule.predicate, node)
    if subs == []:
        return
    rule = plan.rule
    captures = tuple((str(n), str(base[i])) for n, i in enumerate(plan.wild) if i < len(base))
    path = render_path(rule.path_style, root, walked) if rule.within else ""
    for sub in subs if subs is not None else [[]]:
        out[plan.index].append(Hit(rule.id, rule.validator, location([*base, *below, *sub]), captures, path))


class CompiledRules:
    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        groups: dict[tuple[str, str | None], _Group] = {}
        for i, rule in enumerate(self.rules):
            key = (rule.select, rule.within)
            if key not in groups:
                groups[key] = _Group(rule.select, rule.within)
            groups[key].plans.append(_plan(i, rule))
        self.groups = list(groups.values())

    def fire(self, body: Any) -> list[tuple[Rule, Hit]]:
        """(rule, hit) for every rule that fires on ``body``: rule by rule, in document order."""
        per_rule: list[list[Hit]] = [[] for _ in self.rules]
        walks: dict[int, Tree] = {}  # the body is alive meanwhile: ids are not reused
        selections: dict[Selector, list[tuple[Parts, Any]]] = {}
        for group in self.groups:
            group.fire(body, per_rule, walks, selections)
        return [(rule, hit) for rule, hits in zip(self.rules, per_rule, strict=True) for hit in hits]


_COMPILED: dict[tuple[int, ...], CompiledRules] = {}


def compiled(rules: Sequence[Rule]) -> CompiledRules:
    """The compiled form of ``rules``, made once per distinct list of rule objects."""
    # The cached value holds the rule objects, so no other object can take one of these ids
    # while the entry lives: equal ids are the same rules.
    key = tuple(map(id, rules))
    found = _COMPILED.get(key)
    if found is None:
        if len(_COMPILED) > 64:
            _COMPILED.clear()
        found = _COMPILED[key] = CompiledRules(rules)
    return found

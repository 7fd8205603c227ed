"""A catalog's rules compiled once into one pass per body.

``fire`` in ``harness._reject.match`` runs one rule: it selects, walks and tests on its own, so
91 rules select the same ``tools[*].function`` 17 times and walk every parameters schema 31
times. Here rules sharing a ``select`` and a ``within`` share one selection and one walk, and
each node is tested only by the rules that could fire on it: rules are indexed by an anchor
derived from their rejected shape (``harness._reject.prefilters``: a key every match holds, the
``type`` values it allows), so an object node meets the rules filed under its keys and its
``type``, one candidate list per distinct (keys, type) pair. A hit's places (location, walked
path in the provider's style) are built from its parent's, once per node. The hits are the
same as ``fire``'s, rule by rule, in the same order (a differential test over every bundled
and corpus body holds them equal).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from harness._common.selectors import Selector, compile_selector, location
from harness._reject.fastschema import compile_schema
from harness._reject.match import Hit, checker, predicate_subs
from harness._reject.prefilters import LIST, Pre, anchor, prefilter
from harness._reject.rules import Rule
from harness._reject.walk import Tree, render_path, subschema_tree

__all__ = ["CompiledRules", "compiled", "reach"]

Parts = list[str | int]


@dataclass
class _Plan:
    index: int
    rule: Rule
    when: Callable[[Any], bool] | None
    rejects: Callable[[Any], bool] | None
    pre: Pre | None
    anchor: tuple[str, frozenset[str] | None] | None = None
    kinds: tuple[type, ...] | None = None


def _plan(index: int, rule: Rule) -> _Plan:
    return _Plan(index, rule, _checker(rule.when), _checker(rule.rejects), _pre(rule.rejects), _anchor(rule),
                 _kinds(rule.rejects))


def _checker(schema: Mapping[str, Any] | bool | None) -> Callable[[Any], bool] | None:
    return None if schema is None else checker(schema)


def _anchor(rule: Rule) -> tuple[str, frozenset[str] | None] | None:
    """The key (with the ``type`` values) every object an objects rule fires on holds, None if none."""
    if rule.nodes != "objects":
        return None
    if rule.rejects is None and rule.predicate is not None:
        return _PREDICATE_ANCHORS.get(str(rule.predicate.get("name")))
    return anchor(rule.rejects)  # None for no shape: a rule without one is filed unanchored


def _pre(rejects: Any) -> Pre | None:
    """The prefilter of a shape left to jsonschema (a generated check decides as fast alone)."""
    if rejects is None or compile_schema(rejects) is not None:
        return None
    return prefilter(rejects)


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
Captures = tuple[tuple[str, str], ...]


def _always(_: Any) -> bool:
    return True


def _object_test(plan: _Plan) -> Test | None:
    """A plan's test on object nodes (its prefilter first); None when it can never match one."""
    rejects = plan.rejects or _always
    if plan.kinds is not None and dict not in plan.kinds:
        return None
    pre = plan.pre
    if pre is None:
        return rejects
    return lambda n: pre(n) and rejects(n)


def _other_test(plan: _Plan) -> Test | None:
    """A plan's test on nodes that are not objects; None when it can never match one."""
    rejects = plan.rejects or _always
    kinds = plan.kinds
    if kinds is None:
        return rejects
    if dict in kinds:
        return None
    return lambda n: isinstance(n, kinds) and rejects(n)


def _buckets(plan: _Plan, index: _Index) -> list[list[Entry]]:
    """The lists of ``index`` an objects plan is filed in: by its anchor key or type values."""
    if plan.anchor is None:  # every plan of a rule on any node is unanchored (``_anchor``)
        return [index.objects]
    key, values = plan.anchor
    if values is None:
        return [index.by_key.setdefault(key, [])]
    return [index.by_type.setdefault(v, []) for v in values]


class _Index:
    """The plans a node can meet: for objects, the unanchored ones plus those found by the
    node's keys and its ``type`` value; for other nodes, the ones that look at any node."""

    def __init__(self, live: list[_Plan]) -> None:
        self.objects: list[Entry] = []
        self.others: list[Entry] = []
        self.by_key: dict[str, list[Entry]] = {}
        self.by_type: dict[str, list[Entry]] = {}
        for plan in live:
            self._file(plan)
        self.keys = frozenset(self.by_key)
        self.met: dict[tuple[frozenset[str], str], list[Entry]] = {}

    def _file(self, plan: _Plan) -> None:
        """File ``plan`` in the lists of the nodes it can meet."""
        if plan.rule.nodes != "objects":
            other = _other_test(plan)
            if other is not None:
                self.others.append((plan, other))
        test = _object_test(plan)
        if test is not None:
            for bucket in _buckets(plan, self):
                bucket.append((plan, test))

    def meet(self, keyed: frozenset[str], bucket: str) -> list[Entry]:
        """The entries an object with the keys ``keyed`` of the index and ``type`` bucket meets,
        kept for the next such object."""
        if len(self.met) > 4096:  # bounded, whatever key combinations a body holds
            self.met.clear()
        found = self.met[keyed, bucket] = [*self.objects, *(e for k in sorted(keyed) for e in self.by_key[k]),
                                           *self.by_type.get(bucket, ())]
        return found


@lru_cache(maxsize=4096, typed=True)  # typed: True and 1 are one key otherwise
def _step_text(step: str | int) -> str:
    """One step as ``harness._common.selectors.location`` writes it inside a location (``.name``, ``[3]``)."""
    return f"[{step}]" if isinstance(step, int) else "." + location([step])


class _Where:
    """Where the nodes of one walked root stand, each place rendered once however many rules
    hit the node: its location in the body (built from its parent's, which its siblings share),
    its walked path in each provider's style (rendered below ``first``, the first root the
    ``within`` reaches), and the selector's wildcard captures (``{0}``: the tool's index)."""

    def __init__(self, selected: Parts, below: Parts, nodes: Tree, first: Any, wild: tuple[int, ...]) -> None:
        self.base = [*selected, *below]
        self.selected = selected
        self.nodes = nodes
        self.first = first
        self.wild = wild
        self._captures: Captures | None = None
        self._walked: dict[int, Parts] = {-1: []}
        self._texts: dict[int, str] = {}
        self._paths: dict[tuple[str, int], str] = {}

    @property
    def captures(self) -> Captures:
        if self._captures is None:
            parts = self.selected
            self._captures = tuple((str(n), str(parts[i])) for n, i in enumerate(self.wild) if i < len(parts))
        return self._captures

    def walked(self, at: int) -> Parts:
        """The steps from the root to node ``at`` (``tree_parts``), from its parent's."""
        climbed: list[int] = []
        while at not in self._walked:
            climbed.append(at)
            at = self.nodes[at][0]
        parts = self._walked[at]
        for node in reversed(climbed):
            parts = self._walked[node] = [*parts, *self.nodes[node][1]]
        return parts

    def location(self, at: int, sub: Parts) -> str:
        if sub:
            return location([*self.base, *self.walked(at), *sub])
        return self._text(at).lstrip(".") or "$"

    def _text(self, at: int) -> str:
        """The location of node ``at`` before ``location`` trims its leading dot: its parent's
        (climbing to the nearest one already made, without recursion: trees run deep) and its steps."""
        if not self._texts:
            self._texts[-1] = "".join(map(_step_text, self.base))
        climbed: list[int] = []
        while at not in self._texts:
            climbed.append(at)
            at = self.nodes[at][0]
        text = self._texts[at]
        for node in reversed(climbed):
            text = self._texts[node] = text + "".join(map(_step_text, self.nodes[node][1]))
        return text

    def path(self, style: str, at: int) -> str:
        found = self._paths.get((style, at))
        if found is None:
            found = self._paths[style, at] = render_path(style, self.first, self.walked(at))
        return found


Reached = list[tuple[Parts, Any]]


# ``harness._common.selectors.walk`` as lists, a step at a time for every value reached so far: the same
# values in the same (document) order, without a generator per level and value.
def _by_key(found: Reached, key: Any) -> Reached:
    return [([*at, key], v[key]) for at, v in found if isinstance(v, dict) and key in v]


def _by_keys(found: Reached, keys: Any) -> Reached:
    return [([*at, k], v[k]) for at, v in found if isinstance(v, dict) for k in keys if k in v]


def _by_index(found: Reached, i: Any) -> Reached:
    return [([*at, i % len(v)], v[i]) for at, v in found if isinstance(v, list) and -len(v) <= i < len(v)]


def _every_item(found: Reached, _: Any) -> Reached:
    return [([*at, i], x) for at, v in found if isinstance(v, list) for i, x in enumerate(v)]


def _every_entry(found: Reached, _: Any) -> Reached:
    return [([*at, k], x) for at, v in found if isinstance(v, dict) for k, x in v.items()]


_STEPS: dict[str, Callable[[Reached, Any], Reached]] = {
    "key": _by_key, "keys": _by_keys, "index": _by_index, "any-index": _every_item, "any-key": _every_entry,
}


def reach(value: Any, steps: Selector) -> Reached:
    """Every (parts, value) ``steps`` reach in ``value``, as ``harness._common.selectors.walk`` yields them."""
    found: Reached = [([], value)]
    for kind, arg in steps:
        found = _STEPS[kind](found, arg)
        if not found:
            break
    return found


_ALONE: Tree = [(-1, (), None)]  # the selected value itself, when a group has no ``within``


class _Group:
    """Rules with one ``select`` and one ``within``: one selection, one walk per selected value."""

    def __init__(self, select: str, within: str | None) -> None:
        self.text = select
        self.select: Selector = compile_selector(select)
        self.within: Selector | None = compile_selector(within) if within is not None else None
        self.wild = tuple(i for i, (kind, _) in enumerate(self.select) if kind in ("any-index", "any-key"))
        self.plans: list[_Plan] = []
        self._indexes: dict[tuple[int, ...], _Index] = {}
        self._always: list[_Plan] | None = None  # the plans, when none has a ``when``

    def fire(self, body: Any, out: list[list[Hit]], walks: dict[int, Tree],
             selections: dict[Selector, Reached]) -> None:
        found = selections.get(self.select)
        if found is None:  # groups with one select and different withins select once
            found = selections[self.select] = reach(body, self.select)
        for parts, value in found:
            live = self._live(value)
            if not live:
                continue
            if self.within is None:
                _whole(live, parts, value, self.wild, out)
            else:
                self._walk(self.within, parts, value, live, out, walks)

    def _live(self, value: Any) -> list[_Plan]:
        """The plans whose ``when`` holds on the selected value."""
        if self._always is not None:
            return self._always
        return [p for p in self.plans if p.when is None or p.when(value)]

    def add(self, plan: _Plan) -> None:
        self.plans.append(plan)
        self._always = self.plans if all(p.when is None for p in self.plans) else None

    def _index(self, live: list[_Plan]) -> _Index:
        """One index per distinct set of live plans (``when`` filters some out per value)."""
        key = tuple(p.index for p in live)
        found = self._indexes.get(key)
        if found is None:
            found = self._indexes[key] = _Index(live)
        return found

    def _walk(self, within: Selector, parts: Parts, value: Any, live: list[_Plan], out: list[list[Hit]],
              walks: dict[int, Tree]) -> None:
        roots = reach(value, within)
        first = roots[0][1] if roots else value
        index = self._index(live)
        for root_parts, root in roots:
            nodes = walks.get(id(root))
            if nodes is None:  # groups whose selections reach one schema (tools[*].function, within
                nodes = walks[id(root)] = subschema_tree(root)  # parameters) share one walk of it
            where = _Where(parts, root_parts, nodes, first, self.wild)
            # the tests run inline: a hit's predicate may validate a schema nested near the
            # recursion limit, so this path keeps as few frames as ``_whole``'s
            for at, (_, _, node) in enumerate(nodes):
                for plan, test in _candidates(index, node):
                    if test(node):
                        _emit(plan, where, at, node, out)


def _whole(live: list[_Plan], parts: Parts, value: Any, wild: tuple[int, ...], out: list[list[Hit]]) -> None:
    """Plans without ``within``: each tests the selected value itself."""
    where: _Where | None = None  # made for the first hit: most values have none
    for plan in live:
        if plan.rejects is None or plan.rejects(value):
            where = where or _Where(parts, [], _ALONE, value, wild)
            _emit(plan, where, 0, value, out)


def _candidates(index: _Index, node: Any) -> list[Entry]:
    """The entries a node meets, one list per distinct (keys met, ``type`` bucket) pair."""
    if not isinstance(node, dict):
        return index.others
    keyed = index.keys.intersection(node)
    kind = node.get("type")
    bucket = kind if isinstance(kind, str) else LIST if isinstance(kind, list) else ""
    bucket = bucket if bucket in index.by_type else ""  # a body's own type names add no entries
    found = index.met.get((keyed, bucket))
    return found if found is not None else index.meet(keyed, bucket)


def _emit(plan: _Plan, where: _Where, at: int, node: Any, out: list[list[Hit]]) -> None:
    """The hits of a plan whose test held on ``node``: one, or one per place its predicate names."""
    rule = plan.rule
    subs = predicate_subs(rule.predicate, node)
    if subs == []:
        return
    path = where.path(rule.path_style, at) if rule.within else ""
    hits = out[plan.index]
    for sub in subs if subs is not None else _NO_SUB:
        hits.append(Hit(rule.id, rule.validator, where.location(at, sub), where.captures, path))


_NO_SUB: list[Parts] = [[]]


class CompiledRules:
    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        groups: dict[tuple[str, str | None], _Group] = {}
        for i, rule in enumerate(self.rules):
            key = (rule.select, rule.within)
            if key not in groups:
                groups[key] = _Group(rule.select, rule.within)
            groups[key].add(_plan(i, rule))
        self.groups = list(groups.values())

    def fire(self, body: Any, reached: set[str] | None = None) -> list[tuple[Rule, Hit]]:
        """(rule, hit) for every rule that fires on ``body``: rule by rule, in document order.
        ``reached`` gets the ``select`` of every rule whose selection found something in it."""
        per_rule: list[list[Hit]] = [[] for _ in self.rules]
        walks: dict[int, Tree] = {}  # the body is alive meanwhile: ids are not reused
        selections: dict[Selector, Reached] = {}
        for group in self.groups:
            group.fire(body, per_rule, walks, selections)
        if reached is not None:
            reached.update(g.text for g in self.groups if selections.get(g.select))
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

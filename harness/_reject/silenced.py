"""A fix that only deleted what the rule keyed on: ``silenced``, not ``fixed``.

A rejection the old body had and the new one lacks is a fix when the new body says the same
thing in a form the provider takes (a root ``oneOf`` rewritten into ``properties``, a type list
into ``type`` plus ``nullable``). When the new pipeline simply dropped the union or the
constraint, the provider stops refusing because the tool no longer says what it said: the
rejection is silenced and the constraint lost (LiteLLM 1.80 and 1.110 drop a root ``oneOf``).

Judged at each place the rule hit on the old body, against the value at the same place in the
new body: silenced when that value is gone, or when it is the old value with at least one key the
rule keys on removed and nothing else changed (every key it kept holds the old value, and it has
no key the old one lacked), nor in the object holding it apart from the rule's other places (a
tool whose description now states the union, as seed 001's narrowing writes it, is a rewrite). A
rewrite changes something else, so it stays a fix. One silenced place makes the rule's loss
``silenced``: a translator that rewrites ``const`` as an enum and drops ``exclusiveMinimum``
fixed one place and deleted a constraint at the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from harness._common.selectors import compile_selector, location, select
from harness._errors import ConfigError
from harness._reject.rules import Rule

__all__ = ["keyed_keywords", "silenced", "silenced_rules"]

# the keys an object predicate reads (harness._reject.match.predicate_subs)
_PREDICATE_KEYS = {"required-not-in-properties": ("required", "properties"),
                   "properties-not-all-required": ("properties", "required")}
_BRANCHES = ("anyOf", "oneOf", "allOf")


def _named(schema: Any) -> Iterator[str]:
    """The object keys a rule's shape names: its ``required`` entries and ``properties`` keys,
    through ``anyOf``/``oneOf``/``allOf``/``not``."""
    if not isinstance(schema, Mapping):
        return
    required = schema.get("required")
    if isinstance(required, list):
        yield from (k for k in required if isinstance(k, str))
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        yield from properties
    for key in _BRANCHES:
        for branch in schema.get(key) or ():
            yield from _named(branch)
    yield from _named(schema.get("not"))


def keyed_keywords(rule: Rule) -> frozenset[str]:
    """The keys of a node the rule keys on; empty when its shape names none (then any key counts).
    Worked out per fixed rejection only, which is rare enough to need no cache."""
    names = set(_named(rule.rejects))
    if rule.predicate is not None:
        names.update(_PREDICATE_KEYS.get(str(rule.predicate.get("name")), ()))
    return frozenset(names)


def _at(body: Any, location: str) -> list[Any]:
    """The value at a finding's location in ``body`` (none when the place is gone)."""
    try:
        return [value for _, value in select(body, location)]
    except ConfigError:  # a location the selector language cannot read back: judge nothing there
        return []


def _dropped(rule: Rule, old: Any, new: list[Any]) -> bool:
    """Whether the new value at a hit's place is the old one minus what the rule keyed on."""
    if not new:
        return True
    value = new[0]
    if not (isinstance(old, Mapping) and isinstance(value, Mapping)):
        return False
    removed = set(old) - set(value)
    keyed = keyed_keywords(rule) or removed
    if not removed & keyed or set(value) - set(old):
        return False
    return all(value[k] == old[k] for k in value)


def _split(place: str) -> tuple[str, Any] | None:
    """A place as (its holder's location, its key in the holder); None without a holder."""
    try:
        parts = [arg for _, arg in compile_selector(place)]
    except ConfigError:
        return None
    return (location(parts[:-1]), parts[-1]) if parts else None


def _holder_unchanged(place: str, old_body: Any, new_body: Any, places: list[str]) -> bool:
    """Whether the object holding ``place`` says in the new body what it said in the old one,
    apart from the value at ``place`` itself and at the rule's other places in the same holder,
    which are judged on their own (a place with no holder: nothing else to say)."""
    split = _split(place)
    if split is None:
        return True
    holder = split[0]
    keys = {found[1] for other in places if (found := _split(other)) is not None and found[0] == holder}
    before, after = _at(old_body, holder), _at(new_body, holder)
    if not before or not after:
        return True
    if isinstance(before[0], Mapping) and isinstance(after[0], Mapping):
        return _without(before[0], keys) == _without(after[0], keys)
    return True


def _without(value: Mapping[str, Any], keys: set[Any]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k not in keys}


def silenced(rule: Rule, locations: Iterable[str], old_body: Any, new_body: Any) -> bool:
    """Whether a rejection the new body no longer has was silenced at some place it hit the old
    body (``locations``: the old finding's, for this rule): a constraint deleted there is lost
    whatever the new body fixed at the rule's other places."""
    places = list(dict.fromkeys(locations))
    for place in places:
        before = _at(old_body, place)
        if before and _dropped(rule, before[0], _at(new_body, place)) and \
                _holder_unchanged(place, old_body, new_body, places):
            return True
    return False


def silenced_rules(rules: Mapping[str, Rule], old: Mapping[str, Any] | None, new: Mapping[str, Any] | None,
                   old_body: Any, new_body: Any) -> set[str]:
    """The rules the old finding of a case x lane has and the new one lacks, that were silenced
    (``silenced``) rather than fixed; both findings must be of built bodies."""
    if not old or not new or not old.get("rejections"):
        return set()
    kept = {r["rule"] for r in new.get("rejections", ())}
    places: dict[str, list[str]] = {}
    for rej in old["rejections"]:
        if rej["rule"] not in kept:
            places.setdefault(rej["rule"], []).append(str(rej["location"]))
    return {rid for rid, locs in places.items()
            if rid in rules and silenced(rules[rid], locs, old_body, new_body)}

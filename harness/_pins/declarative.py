"""The declarative pin kinds of case files, each a function of the case's observations.

    same-as-old     new equals old: ``compare: bytes`` (default) or ``value``; optional ``select``
    equals          new (or what ``select`` picks) equals ``value``, the JSON/YAML ``file``, or
                    what ``same_as_input`` picks from the case's input ("ships verbatim")
    schema          every value ``select`` picks must (``must_match``) or must not
                    (``must_not_match``) match a JSON Schema; picking nothing fails
                    unless ``allow_empty: true`` (a pin that selects nothing cannot fail)
    deterministic   two runs give the same bytes
    idempotent      feeding the output back in (the subject's refeed) changes nothing
    raises          the new pipeline raises ``error`` (type name) with ``message`` (a regex)
    all             several of the above as one pin (``checks``, each on the pin's lanes or some
                    of them): it fails when any check fails on its lane, saying which. A review's
                    test with several assertions is one pin, so a mutant that breaks any of them
                    kills the pin a ledger claims, as the test did
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from harness._common.canonical import canonical_bytes, sorted_bytes
from harness._common.patterns import bounded
from harness._common.selectors import select
from harness._common.yamlsafe import load_document
from harness._errors import Place
from harness._model import Case, Observation, PinSpec, Side, Suite
from harness._pins import cache

__all__ = ["FRESH_KINDS", "PinFailure", "calls_again", "evaluate"]

FRESH_KINDS = frozenset({"deterministic", "idempotent"})
"""Pin kinds that call a pipeline again rather than read the saved observations."""


class PinFailure(AssertionError):
    """A pin that did not hold; the message says what was expected and what was found."""


@dataclass(frozen=True)
class Context:
    suite: Suite
    case: Case
    lane_id: str

    def get(self, side: Side) -> Observation:
        return cache.observe(self.suite, self.case.id, self.lane_id, side)

    def ok_value(self, side: Side) -> Any:
        obs = self.get(side)
        if not obs.ok:
            assert obs.error is not None
            # against old, the old pipeline plays "new": name the one that ran
            raise PinFailure(f"the {cache.played_by(side)} pipeline gave no output: {obs.outcome}: "
                             f"{obs.error.type}: {obs.error.message}")
        return obs.value


def _short(value: Any, limit: int = 300) -> str:
    text = canonical_bytes(value).decode()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _picked(value: Any, selector: str | None, allow_empty: bool = False) -> list[tuple[str, Any]]:
    if not selector:
        return [("$", value)]
    found = select(value, selector)
    if not found and not allow_empty:
        raise PinFailure(f"the selector {selector!r} picked nothing from the output")
    return found


def _same(a: Any, b: Any, how: str) -> bool:
    return canonical_bytes(a) == canonical_bytes(b) if how == "bytes" else sorted_bytes(a) == sorted_bytes(b)


def _same_as_old(ctx: Context, p: dict[str, Any]) -> None:
    how = p.get("compare", "bytes")
    new = [v for _, v in _picked(ctx.ok_value("new"), p.get("select"))]
    old = [v for _, v in _picked(ctx.ok_value("old"), p.get("select"))]
    if not _same(old, new, how):
        raise PinFailure(f"expected new == old ({how}); old: {_short(old)}; new: {_short(new)}")


def _expected_value(ctx: Context, p: dict[str, Any]) -> Any:
    if "value" in p:
        return p["value"]
    if "same_as_input" in p:
        picked = [v for _, v in _picked(dict(ctx.case.input), p["same_as_input"])]
        return picked[0] if len(picked) == 1 else picked
    path = (Path(ctx.suite.root) / ctx.case.file).parent / p["file"]
    return load_document(path).value


def _equals(ctx: Context, p: dict[str, Any]) -> None:
    picked = [v for _, v in _picked(ctx.ok_value("new"), p.get("select"))]
    got = picked[0] if len(picked) == 1 else picked
    want = _expected_value(ctx, p)
    if not _same(want, got, p.get("compare", "value")):
        raise PinFailure(f"expected {_short(want)}; found {_short(got)}")


def _schema(ctx: Context, p: dict[str, Any]) -> None:
    must = "must_match" in p
    schema = p["must_match"] if must else p["must_not_match"]
    checker = jsonschema.validators.validator_for(schema)(schema)
    for where, value in _picked(ctx.ok_value("new"), p["select"], p.get("allow_empty", False)):
        errors = list(checker.iter_errors(value))
        if must and errors:
            raise PinFailure(f"{where} does not match: {errors[0].message}; value: {_short(value)}")
        if not must and not errors:
            raise PinFailure(f"{where} matches the forbidden shape; value: {_short(value)}")


def _deterministic(ctx: Context, p: dict[str, Any]) -> None:
    first = cache.fresh(ctx.suite, ctx.case.id, ctx.lane_id)
    second = cache.fresh(ctx.suite, ctx.case.id, ctx.lane_id)
    if not (first.ok and second.ok) or first.wire != second.wire:
        raise PinFailure(f"two runs differ: {first.outcome} {_short(first.value)} vs "
                         f"{second.outcome} {_short(second.value)}")


def _idempotent(ctx: Context, p: dict[str, Any]) -> None:
    first = ctx.ok_value("new")
    again = cache.fresh(ctx.suite, ctx.case.id, ctx.lane_id, "new", cache.refeed(ctx.suite, ctx.case.id, first))
    if not again.ok or again.wire != canonical_bytes(first):
        raise PinFailure(f"feeding the output back changed it: {_short(first)} -> {_short(again.value)}")


def _raises(ctx: Context, p: dict[str, Any]) -> None:
    obs = ctx.get("new")
    if obs.ok or obs.error is None:
        raise PinFailure(f"expected {p['error']} to be raised; the pipeline answered {_short(obs.value)}")
    if obs.error.type != p["error"].rpartition(".")[2]:
        raise PinFailure(f"expected {p['error']}; found {obs.error.type}: {obs.error.message}")
    pattern = p.get("message")
    # a user's regex run on a pipeline's message: bounded in time, so a catastrophic pattern is
    # one clear error naming it, not a pin that never ends
    if pattern and not bounded(pattern, where=Place(ctx.case.file, ctx.case.line, "pins")).search(obs.error.message):
        raise PinFailure(f"expected a message matching {pattern!r}; found {obs.error.message!r}")


def _all(ctx: Context, p: dict[str, Any]) -> None:
    failed = []
    for i, check in enumerate(p["checks"]):
        if ctx.lane_id not in check["lanes"]:
            continue
        try:
            KINDS[check["kind"]](ctx, check)
        except PinFailure as exc:
            failed.append(f"checks[{i}] ({check['kind']}): {exc}")
    if failed:
        raise PinFailure("; ".join(failed))


KINDS: dict[str, Callable[[Context, dict[str, Any]], None]] = {
    "same-as-old": _same_as_old,
    "equals": _equals,
    "schema": _schema,
    "deterministic": _deterministic,
    "idempotent": _idempotent,
    "raises": _raises,
    "all": _all,
}


def calls_again(pin: PinSpec) -> bool:
    """Whether checking ``pin`` calls a pipeline again (determinism, idempotence), rather than
    reading the case x lane's two observations only."""
    kinds = {pin.kind, *(c["kind"] for c in pin.params.get("checks", ()) if pin.kind == "all")}
    return bool(kinds & FRESH_KINDS)


def evaluate(suite: Suite, case: Case, lane_id: str, pin: PinSpec) -> None:
    """Check one pin; raises PinFailure saying what was expected and found."""
    KINDS[pin.kind](Context(suite, case, lane_id), dict(pin.params))

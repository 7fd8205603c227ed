"""Replay: send a body through httpx under vcrpy in replay-only mode, matched on its rejection.

vcrpy's default matchers ignore the body, so a clean body would replay a recorded 400. Here the
only matcher besides the method is the rejection signature: the rules of the lane's validators
that fire on the body. A body that sets off no rule is reported ``unknown`` and never sent; a
body that sets off a rule gets the first recorded interaction backing one of those rules.
The network is never reached: record mode is ``none`` and sockets are refused meanwhile.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import vcr
from vcr.errors import CannotOverwriteExistingCassetteException
from vcr.request import Request

from harness._common.canonical import canonical_bytes
from harness._errors import ConfigError
from harness._model import Lane
from harness._reject.bounded import tls_context
from harness._reject.cassettes import Catalog, read_cassette
from harness._reject.match import signature
from harness._reject.rules import Rule
from harness._reject.verdicts import findings_for_body

__all__ = ["MAX_BODY_DEPTH", "Replayed", "block_network", "body_depth", "replay"]

# as deep as a suite file may nest (harness._common.yamlsafe.MAX_DEPTH): far beyond any real request
# body, and shallow enough that matching, canonical bytes and vcrpy never hit the recursion limit
MAX_BODY_DEPTH = 200


@dataclass(frozen=True)
class Replayed:
    """What a replay gave: ``rejected`` (with the recorded response) or ``unknown`` (not sent)."""

    status: str
    rules: tuple[str, ...] = ()
    locations: tuple[str, ...] = ()
    response_status: int | None = None
    response_body: str = ""
    receipts: tuple[str, ...] = field(default_factory=tuple)


@contextmanager
def block_network() -> Iterator[None]:
    """Refuse every socket connection: a replay that would reach the network fails loudly.

    Both doors are shut: ``connect`` raises, and ``connect_ex`` (which reports failure by its
    return value instead of raising) answers ECONNREFUSED without touching the network.
    """
    original, original_ex = socket.socket.connect, socket.socket.connect_ex

    def refuse(self: socket.socket, address: Any) -> None:
        raise ConnectionRefusedError(f"network blocked during replay (tried {address!r})")

    def refuse_ex(self: socket.socket, address: Any) -> int:
        return errno.ECONNREFUSED

    socket.socket.connect = refuse  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = refuse_ex  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        socket.socket.connect = original  # type: ignore[method-assign]
        socket.socket.connect_ex = original_ex  # type: ignore[method-assign]


def body_depth(value: Any, stop: int = MAX_BODY_DEPTH + 1) -> int:
    """How deep ``value`` nests (a scalar is 0), counted without recursion; stops at ``stop``."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(value, 0)]
    while todo:
        node, depth = todo.pop()
        if isinstance(node, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            if deepest >= stop:
                return deepest
            todo.extend((child, depth) for child in _children(node))
    return deepest


def _children(node: dict[str, Any] | list[Any]) -> Iterable[Any]:
    """The values inside a container."""
    return node.values() if isinstance(node, dict) else node


def _body_of(request: Request) -> Any:
    import json

    raw = request.body
    try:
        return json.loads(raw.decode() if isinstance(raw, bytes) else raw or "null")
    except ValueError:
        return None


class _Persister:
    """Hands vcrpy the interactions backing the fired rules, from every cassette that has them."""

    def __init__(self, catalog: Catalog, rule_ids: Sequence[str]) -> None:
        self.catalog = catalog
        self.rule_ids = set(rule_ids)

    def load_cassette(self, cassette_path: str, serializer: Any) -> tuple[list[Any], list[Any]]:
        from pathlib import Path

        requests: list[Any] = []
        responses: list[Any] = []
        for interaction in self.catalog.interactions:
            entry = interaction.entry
            if entry.outcome != "rejected" or entry.rule not in self.rule_ids:
                continue
            req, resp = read_cassette(Path(self.catalog.folder) / entry.cassette)[entry.index]
            requests.append(req)
            responses.append(resp)
        return requests, responses

    def save_cassette(self, cassette_path: str, cassette_dict: Any, serializer: Any) -> None:
        raise ConfigError("record mode", "none", "replay only: record with `harness probe`")


def _matcher(rules: Sequence[Rule]) -> Any:
    def rejection_signature(r1: Request, r2: Request) -> None:
        # a matcher must raise AssertionError for "no match"; anything else breaks the request
        try:
            mine, theirs = signature(rules, _body_of(r1)), signature(rules, _body_of(r2))
        except Exception as exc:  # a body the rules cannot read matches nothing
            raise AssertionError(f"unreadable body: {exc}") from None
        assert mine & theirs, f"signatures differ: {sorted(mine)} vs {sorted(theirs)}"

    return rejection_signature


def replay(catalog: Catalog, lane: Lane, body: Any, url: str | None = None) -> Replayed:
    """Replay ``body`` as sent on ``lane``; ``unknown`` when no recorded rejection explains it."""
    if body_depth(body) > MAX_BODY_DEPTH:
        raise ConfigError("body", "(a request body)", f"nesting at most {MAX_BODY_DEPTH} levels deep, found deeper")
    hits = findings_for_body(catalog, lane, body)
    if not hits:
        return Replayed("unknown")
    fired = sorted({rule.id for rule, _ in hits})
    recorder = _recorder(catalog, catalog.rules.for_lane(lane), fired)
    target = url or _lane_url(lane)
    response = _played(recorder, lane, target, body)
    if response is None:
        return Replayed("unknown", tuple(fired))
    return Replayed("rejected", tuple(fired), tuple(hit.location for _, hit in hits),
                    response.status_code, response.text, _receipts(catalog, fired))


def _played(recorder: vcr.VCR, lane: Lane, target: str, body: Any) -> httpx.Response | None:
    """The recorded answer vcrpy plays back for ``body``; None when no interaction matches it."""
    try:
        with block_network(), recorder.use_cassette(
                f"replay:{lane.id}", allow_playback_repeats=True), httpx.Client(verify=tls_context()) as client:
            return client.post(target, content=canonical_bytes(body), headers={"Content-Type": "application/json"})
    except CannotOverwriteExistingCassetteException:
        return None


def _lane_url(lane: Lane) -> str:
    """Where the body would have gone: the lane's base URL, or a name that never resolves."""
    return (lane.base_url or "https://replay.invalid").rstrip("/") + "/"


def _recorder(catalog: Catalog, rules: Sequence[Rule], fired: list[str]) -> vcr.VCR:
    """vcrpy in replay-only mode, matching on the method and the rejection signature alone."""
    recorder = vcr.VCR(record_mode="none", match_on=["method", "rejection_signature"])
    recorder.register_matcher("rejection_signature", _matcher(rules))
    recorder.register_persister(_Persister(catalog, fired))
    return recorder


def _receipts(catalog: Catalog, fired: list[str]) -> tuple[str, ...]:
    """Every recorded interaction backing a rule that fired."""
    return tuple(i.entry.id for i in catalog.interactions if i.entry.rule in fired)

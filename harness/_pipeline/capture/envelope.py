"""Did the upstream's recorded rejection reach the client, inside the gateway's own envelope?

A gateway lane's observation is the body the gateway forwarded upstream; the capture server
answered it (the upstream's recorded rejection when a rule fired) and the gateway answered the
client. This module judges that last answer against the catalog's gateway-envelope receipts
(interactions recorded with the gateway as validator, e.g. ``litellm``): the same JSON keys as a
recorded envelope, a message opening like theirs (``litellm.BadRequestError: <Provider>Exception
- ...``), and the upstream rule's recorded message found inside it (``carried``).

The result is a ``GatewayAnswer`` kept on the observation (``Observation.answer``) and shown with
the rejection finding of that body (report.json ``rejections.findings[].answer``, ``check-lane``).
"""

from __future__ import annotations

import json
import re
from typing import Any, TypedDict

from harness._pipeline.capture.server import Exchange
from harness._reject.cassettes import Catalog, Interaction, response_texts

__all__ = ["GATEWAY_VALIDATOR", "GatewayAnswer", "check_envelope", "key_paths"]

GATEWAY_VALIDATOR = {"litellm-proxy": "litellm"}
"""The catalog validator whose recorded rejections show each gateway's envelope."""
_OPENING = re.compile(r"^([\w.]+Error): (\w+Exception)\b")
MAX_SHOWN = 2000


class GatewayAnswer(TypedDict):
    """What the client got from the gateway, and how it compares with the recorded envelopes."""

    gateway: str
    status: int
    body: str
    upstream_status: int
    upstream_rule: str | None
    upstream_receipt: str | None
    carried: bool | None
    """the upstream rule's recorded message is inside the gateway's answer (None: no rule fired)"""
    envelope_receipts: list[str]
    """the recorded gateway envelopes whose shape this answer has (keys and message opening)"""
    opening: str


def key_paths(value: Any, prefix: str = "") -> frozenset[str]:
    """``{"error": {"message": ..., "code": ...}}`` -> {error, error.message, error.code}."""
    if not isinstance(value, dict):
        return frozenset()
    out: set[str] = set()
    for key, inner in value.items():
        path = f"{prefix}{key}"
        out |= {path, *key_paths(inner, path + ".")}
    return frozenset(out)


def _message(value: Any) -> str:
    error = value.get("error") if isinstance(value, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) else ""


def _shape(text: str) -> tuple[frozenset[str], str]:
    """An answer's JSON key paths and its message's opening (``litellm.BadRequestError: XException``)."""
    try:
        value = json.loads(text)
    except ValueError:
        return frozenset(), ""
    found = _OPENING.match(_message(value))
    return key_paths(value), (f"{found.group(1)}: <Provider>Exception" if found else "")


def _recorded(catalog: Catalog | None, validator: str) -> list[Interaction]:
    if catalog is None:
        return []
    return [i for i in catalog.interactions if i.entry.validator == validator and i.entry.outcome == "rejected"]


def _texts(text: str) -> list[str]:
    """Every string of the answer, and of an upstream body embedded in one even when text follows
    it: LiteLLM writes ``... - {upstream json}. Received Model Group=...``, which a whole-string
    JSON parse refuses, and Gemini's quotes stay escaped until that JSON is decoded."""
    out = list(response_texts(text))
    for string in list(out):
        start = string.find("{")
        if start <= 0:
            continue
        try:
            inner, _end = json.JSONDecoder().raw_decode(string[start:])
        except ValueError:
            continue
        out += response_texts(json.dumps(inner))
    return out


def _carried(catalog: Catalog | None, rule_id: str | None, text: str) -> bool | None:
    if catalog is None or rule_id is None or rule_id not in catalog.rules.by_id():
        return None
    pattern = catalog.rules.by_id()[rule_id].pattern
    return any(pattern.search(t) for t in _texts(text))


def check_envelope(catalog: Catalog | None, gateway: str, upstream: Exchange, status: int,
                   body: bytes) -> GatewayAnswer:
    """Judge the gateway's answer ``(status, body)`` to a request whose upstream exchange was ``upstream``."""
    text = body.decode("utf-8", "replace")
    keys, opening = _shape(text)
    matching = [i.entry.id for i in _recorded(catalog, GATEWAY_VALIDATOR.get(gateway, gateway))
                if opening and _shape(i.response_text) == (keys, opening)]
    return GatewayAnswer(gateway=gateway, status=status, body=text[:MAX_SHOWN], upstream_status=upstream.status,
                         upstream_rule=upstream.rule, upstream_receipt=upstream.receipt,
                         carried=_carried(catalog, upstream.rule, text), envelope_receipts=matching,
                         opening=opening)

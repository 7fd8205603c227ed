"""The JSON-lines pipeline protocol, version 1: the message shapes both ends agree on.

One JSON object per line, UTF-8. The pipeline speaks first (``hello``); then the harness sends
``call`` requests one at a time and the pipeline answers each with ``result`` or ``error``
carrying the request's ``id``; ``shutdown`` (or end of input) ends it. Anything the pipeline
writes to stdout that is not a protocol message (a line that is not a JSON object, or an object
without a ``type`` member, as JSON loggers print) is a stray print: skipped and counted.

Two ways to check a message: the hand-written checks below (``hello_of``, ``answer_of``) run on
every call and cost next to nothing; ``schema_errors`` checks one against the JSON Schema
shipped in ``harness/_pipeline/schemas/`` (used by ``harness protocol-check`` and the tests, which
hold both to the same verdicts). The full text is ``docs/protocol.md``.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = [
    "MESSAGE_KINDS",
    "PROTOCOL_VERSION",
    "ProtocolViolation",
    "answer_of",
    "call_message",
    "hello_of",
    "is_message",
    "message_schema",
    "schema_errors",
]

PROTOCOL_VERSION = 1
MESSAGE_KINDS = ("hello", "call", "result", "error", "shutdown")


class ProtocolViolation(Exception):
    """A line that is JSON but not the message the protocol expects at this point."""


def call_message(request_id: int, pipeline: str, pipeline_input: Any, lane: dict[str, Any]) -> dict[str, Any]:
    return {"type": "call", "id": request_id, "pipeline": pipeline, "input": pipeline_input, "lane": lane}


def is_message(value: Any) -> bool:
    """Whether a decoded stdout line is meant for the protocol: an object with a ``type``.

    An object without one is a stray print (a JSON logger's line), skipped like plain text.
    """
    return isinstance(value, dict) and "type" in value


def hello_of(message: Any) -> dict[str, Any]:
    """The handshake, checked: protocol version, implementation, the pipelines it serves."""
    if not isinstance(message, dict) or message.get("type") != "hello":
        raise ProtocolViolation(f"expected a hello message first, found {_short(message)}")
    if message.get("protocol") != PROTOCOL_VERSION:
        raise ProtocolViolation(f"expected protocol {PROTOCOL_VERSION}, found {message.get('protocol')!r}")
    pipelines = message.get("pipelines")
    if not isinstance(pipelines, list) or not pipelines or not all(isinstance(p, str) and p for p in pipelines):
        raise ProtocolViolation(f"expected pipelines: a non-empty list of names, found {_short(pipelines)}")
    impl = message.get("implementation")
    if not isinstance(impl, dict) or not all(isinstance(impl.get(k), str) for k in ("name", "version", "language")):
        raise ProtocolViolation(f"expected implementation: {{name, version, language}} (strings), found {_short(impl)}")
    return message


def answer_of(message: Any, request_id: int) -> tuple[str, Any]:
    """``("result", output)`` or ``("error", {type, message, where})`` for request ``request_id``."""
    if not isinstance(message, dict):
        raise ProtocolViolation(f"expected an answer object, found {_short(message)}")
    kind = message.get("type")
    if message.get("id") != request_id:
        said = ""
        if kind == "error" and isinstance(message.get("error"), dict):
            said = f" ({message['error'].get('type')}: {_short(message['error'].get('message'))})"
        raise ProtocolViolation(f"expected an answer to request {request_id}, found id "
                                f"{_short(message.get('id'))}{said}")
    if kind == "result" and "output" in message:
        return "result", message["output"]
    if kind == "error" and isinstance(message.get("error"), dict):
        err = message["error"]
        return "error", {"type": str(err.get("type") or "Error"), "message": str(err.get("message") or ""),
                         "where": str(err.get("where") or "")}
    raise ProtocolViolation(f"expected type result with output, or type error with error, found {_short(message)}")


@cache
def message_schema(kind: str) -> dict[str, Any]:
    """The shipped JSON Schema of one message kind (``harness/_pipeline/schemas/<kind>.schema.json``)."""
    if kind not in MESSAGE_KINDS:
        raise KeyError(f"no protocol message {kind!r}; one of {', '.join(MESSAGE_KINDS)}")
    text = resources.files("harness._pipeline").joinpath("schemas", f"{kind}.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def schema_errors(kind: str, message: Any) -> list[str]:
    """Every way ``message`` breaks the schema of ``kind``, one sentence each (empty: it conforms)."""
    import jsonschema  # only the conformance check and the tests pay for it, never a call

    cls = jsonschema.validators.validator_for(message_schema(kind))
    found = []
    for error in sorted(cls(message_schema(kind)).iter_errors(message), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(step) for step in error.absolute_path) or "(the message)"
        found.append(f"{kind} {where}: {error.message}")
    return found


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."

"""The JSON-lines pipeline protocol, version 1: the message shapes both ends agree on.

One JSON object per line, UTF-8. The pipeline speaks first (``hello``); then the harness sends
``call`` requests one at a time and the pipeline answers each with ``result`` or ``error``
carrying the request's ``id``; ``shutdown`` (or end of input) ends it. Anything the pipeline
writes to stdout that is not a JSON object line is a stray print: ignored and counted.
The full text, with a JSON Schema for every message, is ``docs/protocol.md``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PROTOCOL_VERSION", "ProtocolViolation", "answer_of", "call_message", "hello_of"]

PROTOCOL_VERSION = 1


class ProtocolViolation(Exception):
    """A line that is JSON but not the message the protocol expects at this point."""


def call_message(request_id: int, pipeline: str, pipeline_input: Any, lane: dict[str, Any]) -> dict[str, Any]:
    return {"type": "call", "id": request_id, "pipeline": pipeline, "input": pipeline_input, "lane": lane}


def hello_of(message: Any) -> dict[str, Any]:
    """The handshake, checked: protocol version, implementation, the pipelines it serves."""
    if not isinstance(message, dict) or message.get("type") != "hello":
        raise ProtocolViolation(f"expected a hello message first, found {_short(message)}")
    if message.get("protocol") != PROTOCOL_VERSION:
        raise ProtocolViolation(f"expected protocol {PROTOCOL_VERSION}, found {message.get('protocol')!r}")
    pipelines = message.get("pipelines")
    if not isinstance(pipelines, list) or not pipelines or not all(isinstance(p, str) for p in pipelines):
        raise ProtocolViolation(f"expected pipelines: a non-empty list of names, found {pipelines!r}")
    impl = message.get("implementation")
    if not isinstance(impl, dict) or not isinstance(impl.get("name"), str):
        raise ProtocolViolation(f"expected implementation: {{name, version, language}}, found {impl!r}")
    return message


def answer_of(message: Any, request_id: int) -> tuple[str, Any]:
    """``("result", output)`` or ``("error", {type, message, where})`` for request ``request_id``."""
    if not isinstance(message, dict):
        raise ProtocolViolation(f"expected an answer object, found {_short(message)}")
    if message.get("id") != request_id:
        raise ProtocolViolation(f"expected an answer to request {request_id}, found id {message.get('id')!r}")
    kind = message.get("type")
    if kind == "result" and "output" in message:
        return "result", message["output"]
    if kind == "error" and isinstance(message.get("error"), dict):
        err = message["error"]
        return "error", {"type": str(err.get("type") or "Error"), "message": str(err.get("message") or ""),
                         "where": str(err.get("where") or "")}
    raise ProtocolViolation(f"expected type result with output, or type error with error, found {_short(message)}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."

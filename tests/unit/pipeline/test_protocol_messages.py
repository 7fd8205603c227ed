"""The protocol's message checks: the hand-written ones every call runs (``hello_of``,
``answer_of``, ``is_message``) agree with the JSON Schemas shipped in harness/_pipeline/schemas,
the messages the harness sends conform, the Python adapter's answers conform, and the line
reader sorts stray lines from messages."""

from __future__ import annotations

import importlib
import json
import os
import time
from typing import Any

import pytest

from harness._pipeline.command import Lines
from harness._pipeline.protocol import (
    MESSAGE_KINDS,
    ProtocolViolation,
    answer_of,
    call_message,
    hello_of,
    is_message,
    message_schema,
    schema_errors,
)

adapter = importlib.import_module("harness.adapter.serve")  # the module: the package exports the function

IMPL = {"name": "x", "version": "1", "language": "python"}
GOOD_HELLO = {"type": "hello", "protocol": 1, "implementation": IMPL, "pipelines": ["old", "new"]}
HELLOS: list[tuple[str, dict[str, Any], bool]] = [
    ("conforming", GOOD_HELLO, True),
    ("extra members are room for later versions", {**GOOD_HELLO, "features": ["x"]}, True),
    ("another protocol version", {**GOOD_HELLO, "protocol": 2}, False),
    ("no pipelines", {**GOOD_HELLO, "pipelines": []}, False),
    ("a pipeline name that is not a string", {**GOOD_HELLO, "pipelines": ["old", 3]}, False),
    ("an empty pipeline name", {**GOOD_HELLO, "pipelines": [""]}, False),
    ("no implementation", {k: v for k, v in GOOD_HELLO.items() if k != "implementation"}, False),
    ("an implementation without a language", {**GOOD_HELLO, "implementation": {"name": "x", "version": "1"}}, False),
    ("a result where the hello belongs", {"type": "result", "id": 1, "output": {}}, False),
]
ANSWERS: list[tuple[str, dict[str, Any], bool]] = [
    ("a result", {"type": "result", "id": 5, "output": {"a": 1}}, True),
    ("a result whose output is null", {"type": "result", "id": 5, "output": None}, True),
    ("an error", {"type": "error", "id": 5, "error": {"type": "ValueError", "message": "no", "where": "p.py:3"}}, True),
    ("a result without output", {"type": "result", "id": 5}, False),
    ("an error whose error is a string", {"type": "error", "id": 5, "error": "no"}, False),
    ("an unknown type", {"type": "answer", "id": 5, "output": 1}, False),
]


@pytest.mark.parametrize(("what", "message", "ok"), HELLOS, ids=[h[0] for h in HELLOS])
def test_the_handshake_check_and_the_hello_schema_agree(what: str, message: dict[str, Any], ok: bool) -> None:
    assert (schema_errors("hello", message) == []) is ok
    if ok:
        assert hello_of(message) is message
    else:
        with pytest.raises(ProtocolViolation):
            hello_of(message)


@pytest.mark.parametrize(("what", "message", "ok"), ANSWERS, ids=[a[0] for a in ANSWERS])
def test_the_answer_check_and_the_answer_schemas_agree(what: str, message: dict[str, Any], ok: bool) -> None:
    kind = message["type"] if message["type"] in MESSAGE_KINDS else "result"
    assert (schema_errors(kind, message) == []) is ok
    if ok:
        assert answer_of(message, 5)[0] == message["type"]
    else:
        with pytest.raises(ProtocolViolation):
            answer_of(message, 5)


def test_an_answer_carrying_another_id_is_a_violation_that_quotes_what_the_program_said() -> None:
    with pytest.raises(ProtocolViolation, match=r"request 5, found id None \(BadRequest: 'bad line'\)"):
        answer_of({"type": "error", "id": None, "error": {"type": "BadRequest", "message": "bad line"}}, 5)


def test_every_message_the_harness_sends_conforms_to_its_schema() -> None:
    lane = {"id": "l", "wire": "w", "provider": "p", "base_url": None, "model": None, "options": {}, "fronts": []}
    assert schema_errors("call", call_message(1, "new", {"tools": []}, lane)) == []
    assert schema_errors("call", call_message(0, "new", {}, lane)), "ids start at 1"
    assert schema_errors("shutdown", json.loads('{"type":"shutdown"}')) == []


def test_every_kind_has_a_shipped_schema_and_an_unknown_kind_is_named() -> None:
    for kind in MESSAGE_KINDS:
        assert message_schema(kind)["properties"]["type"] == {"const": kind}
    with pytest.raises(KeyError, match="no protocol message 'answer'"):
        message_schema("answer")


def test_an_object_without_a_type_is_a_stray_line_not_a_message() -> None:
    assert is_message({"type": "result"})
    assert not is_message({"level": "info", "msg": "starting"})
    assert not is_message(["type"])


def _serve_answer(request: Any, **pipelines: Any) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(adapter._answer(request, pipelines))
    assert schema_errors(answer["type"], answer) == [], answer
    return answer


def _raises(inp: Any, lane: Any) -> Any:
    raise ValueError("refused")


def test_the_python_adapter_answers_every_request_with_a_conforming_message() -> None:
    call = call_message(9, "new", {"tools": []}, {"id": "l"})
    assert _serve_answer(call, new=lambda i, lane: {"lane": lane["id"]}) == {
        "type": "result", "id": 9, "output": {"lane": "l"}}
    raised = _serve_answer(call, new=_raises)["error"]
    assert (raised["type"], raised["message"]) == ("ValueError", "refused")
    assert raised["where"].startswith("test_protocol_messages.py:")
    assert _serve_answer({**call, "pipeline": "old"}, new=_raises)["error"]["type"] == "UnknownPipeline"
    assert _serve_answer(call, new=lambda i, lane: float("nan"))["error"]["type"] == "OutputNotJSON"
    assert _serve_answer([1, 2], new=_raises) == {
        "type": "error", "id": None, "error": {"type": "BadRequest", "where": "",
                                               "message": "expected a call or shutdown message, found [1, 2]"}}
    assert _serve_answer({**call, "id": "9"}, new=_raises)["id"] is None


def test_the_python_adapter_refuses_a_call_without_an_integer_id_and_keeps_the_id_of_a_non_call() -> None:
    call = call_message(9, "new", {}, {"id": "l"})
    assert _serve_answer({**call, "id": True}, new=_raises)["error"]["message"] == (
        "a call needs an integer id, found True")
    assert _serve_answer({"type": "ping", "id": 4}, new=_raises)["id"] == 4
    unknown = _serve_answer({**call, "pipeline": None}, new=_raises, old=_raises)["error"]["message"]
    assert unknown == "no pipeline None; this program serves new, old"


def test_the_line_reader_skips_and_counts_stray_lines_and_refuses_a_malformed_one() -> None:
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, b'banner\n\n{"level": "info"}\n{"type": "result", "id": 1, "output": 2}\n{oops\n')
        lines = Lines(read_fd)
        assert lines.exchange(until=time.monotonic() + 5) == {"type": "result", "id": 1, "output": 2}
        assert lines.stray == 2  # the banner and the logger's object; the empty line is nothing
        with pytest.raises(ProtocolViolation, match="not JSON"):
            lines.exchange(until=time.monotonic() + 5)
        os.close(write_fd)
        write_fd = -1
        assert lines.exchange(until=time.monotonic() + 5) is None  # end of file
    finally:
        os.close(read_fd)
        if write_fd >= 0:
            os.close(write_fd)

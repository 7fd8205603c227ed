"""The two pipelines of the subject: ``old`` and ``new``, each ``(input, lane) -> JSON``.

The mode picks the path; only the resume path differs between the two:

    request  -> bodies.request_body            the strict request body (old == new)
    live     -> live.finish_tool_call          what the tool received, or the refusal (old == new)
    resume   -> resume.resume_old / resume_new what the tool received, or the refusal
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wire_harness_subjects.openai_strict_resume.bodies import request_body
from wire_harness_subjects.openai_strict_resume.inputs import Call, read_call, read_mode, read_repair
from wire_harness_subjects.openai_strict_resume.live import finish_tool_call
from wire_harness_subjects.openai_strict_resume.resume import resume_new, resume_old
from wire_harness_subjects.openai_strict_resume.run import ToolError

__all__ = ["new", "old"]

Resume = Callable[[Call, dict[str, Any], bool], dict[str, Any]]


def old(data: dict[str, Any], lane: dict[str, Any]) -> Any:
    return _pipeline(data, lane, resume_old)


def new(data: dict[str, Any], lane: dict[str, Any]) -> Any:
    return _pipeline(data, lane, resume_new)


def _pipeline(data: dict[str, Any], lane: dict[str, Any], resume: Resume) -> Any:
    mode = read_mode(data)
    if mode == "request":
        return request_body(list(data["tools"]), lane)
    call, repair = read_call(data), read_repair(data)
    try:
        if mode == "live":
            return finish_tool_call(call, lane, repair)
        return resume(call, lane, repair)
    except ToolError as refused:
        return refused.value

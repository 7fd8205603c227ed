"""The request body each lane's wire carries: the strict tool definitions.

    openai-chat, mistral-chat  tools[] = {type: function,
                                          function: {name, description, parameters, strict}}
    openai-responses           tools[] = {type: function, name, description, parameters, strict}
    anthropic-resume           tools[] = {name, description, input_schema}   (no widening)

The seed's pull request does not change any of this: old and new share it, and the cases pin
that the bodies stay byte-identical. ``model`` comes first when the lane names one.
"""

from __future__ import annotations

from typing import Any

from wire_harness_subjects.openai_strict_resume.strict import make_strict

__all__ = ["WIRES", "request_body", "tool_entry"]

WIRES = frozenset({"openai-chat", "openai-responses", "mistral-chat", "anthropic-resume"})


def request_body(tools: list[dict[str, Any]], lane: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"model": lane["model"]} if lane.get("model") else {}
    body["tools"] = [tool_entry(tool, lane["wire"]) for tool in tools]
    return body


def tool_entry(tool: dict[str, Any], wire: str) -> dict[str, Any]:
    """One tool as ``wire`` spells it."""
    name, description = tool["name"], tool.get("description") or ""
    if wire == "anthropic-resume":
        return {"name": name, "description": description, "input_schema": tool["input_schema"]}
    function = {
        "name": name,
        "description": description,
        "parameters": make_strict(tool["input_schema"]).schema,
        "strict": True,
    }
    if wire == "openai-responses":
        return {"type": "function", **function}
    if wire in ("openai-chat", "mistral-chat"):
        return {"type": "function", "function": function}
    known = ", ".join(sorted(WIRES))
    raise ValueError(f"openai_strict_resume: lane wire {wire!r}: expected one of {known}")

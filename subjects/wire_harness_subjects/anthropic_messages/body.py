"""The Anthropic Messages request body both pipelines emit, and the refeed for idempotence.

    {"model", "max_tokens", "system"?, "messages": [...], "tools": [{name, description,
     input_schema}]}

The model is the lane's (a placeholder when the lane names none); ``system`` comes from the
case's ``input.system`` when given. The message is fixed: only the tools vary between cases.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["DEFAULT_MODEL", "MAX_TOKENS", "USER_MESSAGE", "messages_body", "refeed", "tool_entry"]

DEFAULT_MODEL = "claude-sonnet-4-5"
MAX_TOKENS = 1024
USER_MESSAGE = "Use the tools you need."


def tool_entry(tool: dict[str, Any], description: str, input_schema: Any) -> dict[str, Any]:
    """One ``tools[]`` element: the tool's name, the shipped description and schema."""
    return {"name": tool["name"], "description": description, "input_schema": input_schema}


def messages_body(inputs: dict[str, Any], lane: dict[str, Any],
                  tools: list[dict[str, Any]]) -> dict[str, Any]:
    """A Messages request body carrying ``tools`` for ``lane``."""
    body: dict[str, Any] = {"model": lane.get("model") or DEFAULT_MODEL, "max_tokens": MAX_TOKENS}
    if inputs.get("system"):
        body["system"] = inputs["system"]
    body["messages"] = [{"role": "user", "content": USER_MESSAGE}]
    body["tools"] = tools
    return body


def refeed(inputs: dict[str, Any], output: dict[str, Any]) -> dict[str, Any]:
    """The input whose tools are what ``output`` shipped (description and schema both).

    The description is taken from the output too: a note appended once must not be appended
    again, and a pipeline that appends it twice is not idempotent.
    """
    shipped = output.get("tools", [])
    tools = [
        {**tool, "description": sent["description"], "input_schema": copy.deepcopy(sent["input_schema"])}
        for tool, sent in zip(inputs.get("tools", []), shipped, strict=True)
    ]
    return {**inputs, "tools": tools}

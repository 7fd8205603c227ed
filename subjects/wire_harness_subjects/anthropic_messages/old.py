"""The old pipeline (previous release line): the Responses-style flatten on every Messages lane.

The lane is not consulted for the schema: first-party, DeepSeek, MiniMax, Model Studio and
every gateway got the same flattened ``input_schema`` and the same note.
"""

from __future__ import annotations

import copy
from typing import Any

from wire_harness_subjects.anthropic_messages.body import messages_body, tool_entry
from wire_harness_subjects.anthropic_messages.flatten import flatten
from wire_harness_subjects.anthropic_messages.notes import with_note

__all__ = ["build_body", "flattened_tool"]


def flattened_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """One tool as the old line shipped it."""
    schema, note = flatten(copy.deepcopy(tool["input_schema"]))
    return tool_entry(tool, with_note(tool.get("description") or "", note), schema)


def build_body(inputs: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    """(input, lane) -> Messages body, flattening every tool whatever the lane."""
    tools = [flattened_tool(tool) for tool in inputs["tools"]]
    return messages_body(inputs, lane, tools)

"""The new pipeline: narrow on the first-party lane, ship ``input_schema`` verbatim elsewhere.

Only the lane with a recorded rejection (``is_first_party``) gets the narrowing pass. Every other
Messages lane (DeepSeek, MiniMax, Model Studio, Openmodel, custom gateways) ships the schema
exactly as declared: no registry normalization, no note. ``build_body`` is the pull request head
(its endpoint predicate as shipped); ``build_body_fixed`` is the same builder behind the review's
fixed predicate (the ``anthropic_messages_fixed`` variant).
"""

from __future__ import annotations

import copy
from typing import Any

from wire_harness_subjects.anthropic_messages.body import messages_body, tool_entry
from wire_harness_subjects.anthropic_messages.gate import is_first_party, is_first_party_fixed
from wire_harness_subjects.anthropic_messages.narrow import narrow
from wire_harness_subjects.anthropic_messages.notes import with_note

__all__ = ["build_body", "build_body_fixed", "shipped_tool"]


def shipped_tool(tool: dict[str, Any], first_party: bool) -> dict[str, Any]:
    """One tool as the new line ships it on a lane that is (or is not) first-party."""
    declared = copy.deepcopy(tool["input_schema"])
    description = tool.get("description") or ""
    if first_party:
        schema, note = narrow(declared)
        return tool_entry(tool, with_note(description, note), schema)
    return tool_entry(tool, description, declared)


def _body(inputs: dict[str, Any], lane: dict[str, Any], first_party: bool) -> dict[str, Any]:
    tools = [shipped_tool(tool, first_party) for tool in inputs["tools"]]
    return messages_body(inputs, lane, tools)


def build_body(inputs: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    """(input, lane) -> Messages body; the gate decides once per request, as the builder does."""
    return _body(inputs, lane, is_first_party(lane))


def build_body_fixed(inputs: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    """The same body behind the review's fixed endpoint predicate (MINOR-2's one-line fix)."""
    return _body(inputs, lane, is_first_party_fixed(lane))

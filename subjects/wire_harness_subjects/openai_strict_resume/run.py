"""The last steps every tool call shares: parse its arguments, then run the tool or refuse.

A refused call is a *returned value*, not an exception: the library turns malformed arguments
and a failed input check into a tool error that the agent loop sends back to the model, and the
tool does not run. The output says which: ``{"tool_received": <arguments>}`` (the tool ran with
exactly this) or ``{"error": "Input validation failed for tool ...: ..."}``.
"""

from __future__ import annotations

import json
from typing import Any

from harness import canonical_bytes
from wire_harness_subjects.openai_strict_resume.check import Checked
from wire_harness_subjects.openai_strict_resume.inputs import Call

__all__ = ["ToolError", "parse_arguments", "run_tool"]


class ToolError(Exception):
    """A call the library answers with a tool error before any check; ``value`` is the output."""

    def __init__(self, value: dict[str, Any]) -> None:
        super().__init__(value["error"])
        self.value = value


def parse_arguments(call: Call) -> Any:
    """The call's arguments string parsed; ToolError when it is not JSON."""
    try:
        return json.loads(call.arguments)
    except json.JSONDecodeError as exc:
        name = call.tool["name"]
        raise ToolError({"error": f"Malformed JSON arguments for tool {name}: {exc}"}) from None


def run_tool(tool: dict[str, Any], checked: Checked) -> dict[str, Any]:
    """What the tool received, or the check's refusal (then the tool did not run)."""
    if checked.errors:
        received = canonical_bytes(checked.arguments).decode()
        reasons = "; ".join(checked.errors)
        return {
            "error": f"Input validation failed for tool {tool['name']}: {reasons}. "
            f"Received arguments: {received}"
        }
    return {"tool_received": checked.arguments}

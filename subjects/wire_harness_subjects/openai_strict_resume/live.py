"""The live path: the end of a streamed tool call (unchanged by the pull request).

The adapter that is streaming produced the call, so the lane's own adapter decides: one that
widens removes the nulls of widened fields before the input check; one that does not widen
(Anthropic) leaves every null for the check to judge.
"""

from __future__ import annotations

from typing import Any

from wire_harness_subjects.openai_strict_resume.adapters import adapter_for
from wire_harness_subjects.openai_strict_resume.check import check_input
from wire_harness_subjects.openai_strict_resume.inputs import Call
from wire_harness_subjects.openai_strict_resume.nulls import remove_strict_nulls
from wire_harness_subjects.openai_strict_resume.run import parse_arguments, run_tool
from wire_harness_subjects.openai_strict_resume.strict import make_strict

__all__ = ["finish_tool_call"]


def finish_tool_call(call: Call, lane: dict[str, Any], repair: bool) -> dict[str, Any]:
    arguments = parse_arguments(call)
    if adapter_for(lane["provider"]).widens:
        arguments = remove_strict_nulls(arguments, make_strict(call.tool["input_schema"]).widened)
    checked = check_input(call.tool, arguments, repair)
    return run_tool(call.tool, checked)

"""Resume from history: an approved call rebuilt from its stored arguments string.

Old (main before the pull request): parse, check, run. The strict nulls are still in the
string, so with repair off an omitted optional field arrives as null and the check refuses it.

New (the pull request, with the review's wrong-provider finding applied): parse, normalize with
the adapter of the provider that *produced* the call (``origin_provider``; a call without one
was produced on this lane), check, run. Normalizing happens before the check and only when
that adapter has the hook (see ``adapters``): a call Anthropic produced keeps its nulls even
when it is resumed through the OpenAI adapter, and OpenRouter and Mistral keep the old
behaviour (the known gap).
"""

from __future__ import annotations

from typing import Any

from harness.subjects.openai_strict_resume.adapters import adapter_for
from harness.subjects.openai_strict_resume.check import check_input
from harness.subjects.openai_strict_resume.inputs import Call
from harness.subjects.openai_strict_resume.nulls import remove_strict_nulls
from harness.subjects.openai_strict_resume.run import parse_arguments, run_tool
from harness.subjects.openai_strict_resume.strict import make_strict

__all__ = ["normalize_tool_input", "resume_new", "resume_old"]


def resume_old(call: Call, lane: dict[str, Any], repair: bool) -> dict[str, Any]:
    arguments = parse_arguments(call)
    checked = check_input(call.tool, arguments, repair)
    return run_tool(call.tool, checked)


def resume_new(call: Call, lane: dict[str, Any], repair: bool) -> dict[str, Any]:
    arguments = parse_arguments(call)
    origin = call.origin_provider or lane["provider"]
    arguments = normalize_tool_input(origin, call.tool, arguments)
    checked = check_input(call.tool, arguments, repair)
    return run_tool(call.tool, checked)


def normalize_tool_input(origin: str, tool: dict[str, Any], arguments: Any) -> Any:
    """The ``normalizeToolInput`` hook of ``origin``'s adapter; arguments unchanged without one."""
    if not adapter_for(origin).resume_hook:
        return arguments
    return remove_strict_nulls(arguments, make_strict(tool["input_schema"]).widened)

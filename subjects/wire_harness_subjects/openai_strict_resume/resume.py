"""Resume from history: an approved call rebuilt from its stored arguments string.

Old (main before the pull request): parse, check, run. The strict nulls are still in the
string, so with repair off an omitted optional field arrives as null and the check refuses it.

New (the pull request head, as seed 003 shows it): parse, normalize with the hook of the
adapter the engine resumes through (the lane's provider: ``TextEngine`` hands its own adapter's
``normalizeToolInput`` to every batch), check, run. Normalizing happens before the check and
only when that adapter has the hook (see ``adapters``), so OpenRouter and Mistral keep the old
behaviour (the known gap). The provider that *produced* the call (``origin_provider``) is not
consulted: that is the review's wrong-provider finding, unfixed at the head, so a call Anthropic
produced and resumed through the OpenAI adapter loses a null that was the model's own. The
review's fix (normalize with the originating adapter) is a declared mutant in
cases/openai_strict_resume/seed003.ledger.yaml.

The hook is handed the tools as the engine holds them. For a tool declared with an executable
(Standard Schema, e.g. Zod) schema that is no JSON Schema, so no map of widened fields is built
and every strict null stays: the review's other finding ("approved Zod tools can still fail with
repair disabled"), unfixed at the head. The published normalizer behaves so too:
@tanstack/openai-base 0.10.15's ``createToolInputNormalizer`` handed a Zod schema as is keeps
``date: null`` (docs/fidelity.md). The review's fix (convert the schema first) is a declared
mutant as well.

Neither revision is a release: no published @tanstack/ai up to 0.58.0 has the hook, or checks
a JSON Schema tool's input on resume, or a repair option (docs/fidelity.md; examples/tanstack
plays the releases).
"""

from __future__ import annotations

from typing import Any

from wire_harness_subjects.openai_strict_resume.adapters import adapter_for
from wire_harness_subjects.openai_strict_resume.check import check_input
from wire_harness_subjects.openai_strict_resume.inputs import EXECUTABLE, Call
from wire_harness_subjects.openai_strict_resume.nulls import remove_strict_nulls
from wire_harness_subjects.openai_strict_resume.run import parse_arguments, run_tool
from wire_harness_subjects.openai_strict_resume.strict import make_strict

__all__ = ["normalize_tool_input", "resume_new", "resume_old"]


def resume_old(call: Call, lane: dict[str, Any], repair: bool) -> dict[str, Any]:
    arguments = parse_arguments(call)
    checked = check_input(call.tool, arguments, repair)
    return run_tool(call.tool, checked)


def resume_new(call: Call, lane: dict[str, Any], repair: bool) -> dict[str, Any]:
    arguments = parse_arguments(call)
    arguments = normalize_tool_input(lane["provider"], call.tool, arguments)
    checked = check_input(call.tool, arguments, repair)
    return run_tool(call.tool, checked)


def normalize_tool_input(provider: str, tool: dict[str, Any], arguments: Any) -> Any:
    """The ``normalizeToolInput`` hook of ``provider``'s adapter; arguments unchanged without one."""
    if not adapter_for(provider).resume_hook:
        return arguments
    if tool.get(EXECUTABLE):  # an executable schema: no JSON Schema to build the map from
        return arguments
    return remove_strict_nulls(arguments, make_strict(tool["input_schema"]).widened)

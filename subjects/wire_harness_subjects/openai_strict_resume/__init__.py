"""Seed 003: OpenAI strict-mode null widening, and the approval-resume path.

OpenAI strict mode makes every property required, so an optional field the model leaves out
comes back as ``null``. The live stream removes those nulls; a call rebuilt from history on
resume kept them and failed its own input check when input repair was off. The pull request
adds a ``normalizeToolInput`` hook that the engine calls on resume, after the parse and before
the check, for the OpenAI adapters only. ``new`` is the pull request head: the hook of the
adapter the call resumes through runs, whoever produced the call (``origin_provider`` is
recorded but not read), which is the review's wrong-provider finding (see ``resume``).

Input (beside ``tools``):

    mode:   request | live | resume           (default request)
    call:   {name, arguments: JSON string, origin_provider?}
    repair: bool                              (default false, the seed's setting)

Output: for ``request``, the request body of the lane's wire (the strict tool definitions);
for ``live`` and ``resume``, ``{"tool_received": {...}}`` (the tool ran with exactly that) or
``{"error": "Input validation failed for tool ...: ..."}``.

A refused call is a returned value, not a raised exception, because that is what the library
does: a failed check becomes a tool error the agent loop sends back to the model, the tool does
not run, nothing crashes. So the seed's fix shows in the report as an intended divergence of two
ordinary values (old: ``error``, new: ``tool_received``), and pins can match the refusal text.
An exception is kept for a broken *case* (unknown mode, a call naming no tool of the case, an
unknown provider): that is a mistake in the suite, not a behaviour of the code under test.

Modules, one job each: ``paths`` (how a field path is spelled), ``strict`` (widening, and the
record of what it widened), ``nulls`` (the removal), ``adapters`` (which provider widens, which
has the resume hook), ``check`` (the JSON Schema input check and repair), ``run`` (parse, run or
refuse), ``bodies``, ``live``, ``resume`` (the three paths), ``inputs``, ``pipelines``.
"""

from __future__ import annotations

from harness import Subject
from wire_harness_subjects.openai_strict_resume.bodies import WIRES
from wire_harness_subjects.openai_strict_resume.inputs import INPUT_KEYS, INPUT_SCHEMA

__all__ = ["SUBJECT"]

SUBJECT = Subject(
    name="openai_strict_resume",
    old="wire_harness_subjects.openai_strict_resume.pipelines:old",
    new="wire_harness_subjects.openai_strict_resume.pipelines:new",
    wires=WIRES,
    description=(
        "OpenAI strict widening of optional fields, and the nulls it leaves in a tool call "
        "resumed from history (seed 003, TanStack/ai #2110)"
    ),
    input_keys=INPUT_KEYS,
    input_schema=INPUT_SCHEMA,
    output="request-body",
)

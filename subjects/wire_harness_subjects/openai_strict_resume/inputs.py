"""Reading one case input: the mode, the tool call, the repair switch.

    mode:            request (default) | live | resume
    call:            {name, arguments: a JSON string, origin_provider?}    (live and resume)
    repair:          false (default) | true
    standard_schema: [tool names]    tools their author declared with an executable (Standard
                                     Schema, e.g. Zod) schema; the case's input_schema is its
                                     JSON Schema form. The engine holds the executable one, and
                                     that is what the pull request's resume hook is handed.

A case that gets these wrong is a broken case, not a behaviour of the code under test, so it
raises ValueError naming the key (the build stage records it as the pipeline's error).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wire_harness_subjects.openai_strict_resume.adapters import adapter_for

__all__ = ["EXECUTABLE", "INPUT_KEYS", "INPUT_SCHEMA", "MODES", "Call", "read_call", "read_mode", "read_repair"]

INPUT_KEYS = frozenset({"mode", "call", "repair", "standard_schema"})
# set on the call's tool (a copy) when the case declares that tool with an executable schema
EXECUTABLE = "executable_schema"
MODES = ("request", "live", "resume")

# Checked by the loader, so a mistyped case input is an error with its file and line at load
# time; the run-time checks below stay for callers that build inputs in code.
INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "mode": {"enum": list(MODES)},
        "repair": {"type": "boolean"},
        "standard_schema": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "call": {
            "type": "object",
            "additionalProperties": False,
            "required": ["name", "arguments"],
            "properties": {
                "name": {"type": "string"},
                "arguments": {"type": "string"},
                "origin_provider": {"type": "string"},
            },
        },
    },
}


@dataclass(frozen=True)
class Call:
    """A tool call as history (or the live stream) holds it."""

    tool: dict[str, Any]
    arguments: str
    origin_provider: str | None


def _bad(key: str, expected: str, found: Any) -> ValueError:
    return ValueError(f"openai_strict_resume: input.{key}: expected {expected}, found {found!r}")


def read_mode(data: dict[str, Any]) -> str:
    mode = data.get("mode", "request")
    if mode not in MODES:
        raise _bad("mode", " | ".join(MODES), mode)
    return str(mode)


def read_repair(data: dict[str, Any]) -> bool:
    repair = data.get("repair", False)
    if not isinstance(repair, bool):
        raise _bad("repair", "true or false", repair)
    return repair


def read_call(data: dict[str, Any]) -> Call:
    raw = data.get("call")
    if not isinstance(raw, dict):
        raise _bad("call", "{name, arguments, origin_provider?}", raw)
    if not isinstance(raw.get("arguments"), str):
        raise _bad("call.arguments", "the arguments as a JSON string", raw.get("arguments"))
    origin = raw.get("origin_provider")
    if origin is not None and not isinstance(origin, str):
        raise _bad("call.origin_provider", "a provider name", origin)
    if origin is not None:
        adapter_for(origin)  # the pull request head never reads it, but a typo is still a broken case
    tools = {tool["name"]: tool for tool in data.get("tools", ())}
    if raw.get("name") not in tools:
        raise _bad("call.name", f"a tool of this case ({', '.join(tools)})", raw.get("name"))
    executable = data.get("standard_schema", [])
    if not isinstance(executable, list) or not set(executable) <= set(tools):
        raise _bad("standard_schema", f"names of tools of this case ({', '.join(tools)})", executable)
    tool = tools[raw["name"]]
    return Call({**tool, EXECUTABLE: True} if tool["name"] in executable else tool, raw["arguments"], origin)

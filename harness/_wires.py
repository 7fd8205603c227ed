"""Wire profiles for rebuilt bodies: endpoint, base body, and a clean tool in each wire's shape.

The builder places a rule's trigger on the tool at the index the provider message names and
fills every other slot with a clean tool, so the rebuilt body carries exactly one kind of fault.
Hosts that a receipt does not identify use the reserved ``.invalid`` domain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_WIRE", "WIRES", "Wire", "envelope_for"]

_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "What to look up."}},
    "required": ["query"],
}
_STRICT_PARAMS: dict[str, Any] = {**_PARAMS, "additionalProperties": False}
_CHAT = {"model": "MODEL", "messages": [{"role": "user", "content": "Use a tool."}]}


def _anthropic(i: int) -> dict[str, Any]:
    return {"name": f"tool_{i}", "description": f"Clean filler tool {i}.", "input_schema": _PARAMS}


def _chat(i: int) -> dict[str, Any]:
    return {"type": "function", "function": {"name": f"tool_{i}", "description": f"Clean filler tool {i}.",
                                             "parameters": _STRICT_PARAMS}}


def _responses(i: int) -> dict[str, Any]:
    return {"type": "function", "name": f"tool_{i}", "description": f"Clean filler tool {i}.",
            "parameters": _STRICT_PARAMS}


def _gemini(i: int) -> dict[str, Any]:
    return {"name": f"tool_{i}", "description": f"Clean filler tool {i}.", "parameters": _PARAMS}


def _bedrock(i: int) -> dict[str, Any]:
    return {"toolSpec": {"name": f"tool_{i}", "description": f"Clean filler tool {i}.",
                         "inputSchema": {"json": _PARAMS}}}


@dataclass(frozen=True)
class Wire:
    """One provider API's request shape, as ``harness cassettes build`` rebuilds a recorded
    rejection in it: POST ``uri`` with ``base`` (a body without tools), the tools list at
    ``tools_path`` inside it, ``clean(i)`` the i-th filler tool that no rule fires on.
    ``index_hole`` is the tool index a message names when it names none (``tools[0]``; Gemini
    counts from 1). ``validators`` are the rule validators whose rules default to this wire
    when they name none. A plugin registers one under the ``harness.wires`` entry-point group
    (docs/plugins.md); the entry point's name is the wire's ``name``."""

    name: str
    uri: str
    base: dict[str, Any]
    tools_path: tuple[str | int, ...]
    clean: Callable[[int], dict[str, Any]]
    index_hole: str = "0"
    headers: tuple[tuple[str, str], ...] = (("Content-Type", "application/json"),)
    validators: tuple[str, ...] = ()


def _chat_wire(name: str, uri: str, model: str) -> Wire:
    return Wire(name, uri, {**_CHAT, "model": model}, ("tools",), _chat)


WIRES: dict[str, Wire] = {w.name: w for w in (
    Wire("anthropic", "https://api.anthropic.com/v1/messages",
         {"model": "claude-sonnet-4-5", "max_tokens": 1024,
          "messages": [{"role": "user", "content": "Use a tool."}]},
         ("tools",), _anthropic,
         headers=(("Content-Type", "application/json"), ("anthropic-version", "2023-06-01"))),
    _chat_wire("openai-chat", "https://api.openai.com/v1/chat/completions", "gpt-4o"),
    Wire("openai-responses", "https://api.openai.com/v1/responses",
         {"model": "gpt-4.1", "input": "Use a tool."}, ("tools",), _responses),
    Wire("gemini", "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
         {"contents": [{"role": "user", "parts": [{"text": "Use a tool."}]}]},
         ("tools", 0, "function_declarations"), _gemini, index_hole="1"),
    Wire("vertex", "https://aiplatform.googleapis.com/v1/projects/PROJECT/locations/global/publishers/google/"
         "models/gemini-2.5-flash:generateContent",
         {"contents": [{"role": "user", "parts": [{"text": "Use a tool."}]}]},
         ("tools", 0, "function_declarations"), _gemini, index_hole="1"),
    Wire("code-assist", "https://cloudcode-pa.googleapis.com/v1internal:streamGenerateContent",
         {"model": "gemini-2.5-pro", "request": {"contents": [{"role": "user", "parts": [{"text": "Use a tool."}]}]}},
         ("request", "tools", 0, "function_declarations"), _gemini, index_hole="1"),
    Wire("bedrock", "https://bedrock-runtime.us-east-1.amazonaws.com/model/MODEL/converse",
         {"messages": [{"role": "user", "content": [{"text": "Use a tool."}]}]},
         ("toolConfig", "tools"), _bedrock),
    _chat_wire("deepseek", "https://api.deepseek.com/chat/completions", "deepseek-chat"),
    _chat_wire("mistral", "https://api.mistral.ai/v1/chat/completions", "mistral-large-latest"),
    _chat_wire("groq", "https://api.groq.com/openai/v1/chat/completions", "llama-3.3-70b-versatile"),
    _chat_wire("fireworks", "https://api.fireworks.ai/inference/v1/chat/completions",
               "accounts/fireworks/models/kimi-k2-instruct"),
    _chat_wire("openrouter", "https://openrouter.ai/api/v1/chat/completions", "anthropic/claude-sonnet-4.5"),
    _chat_wire("one-api", "https://one-api.invalid/v1/chat/completions", "gpt-4o"),
    _chat_wire("litellm", "https://litellm.invalid/v1/chat/completions", "vertex_ai/gemini-2.5-flash"),
    _chat_wire("xai", "https://api.x.ai/v1/chat/completions", "grok-3-mini-fast"),
    _chat_wire("modelstudio", "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions", "qwen-plus"),
    _chat_wire("llama-cpp", "http://llama-server.invalid:8080/v1/chat/completions", "local"),
    _chat_wire("cerebras", "https://api.cerebras.ai/v1/chat/completions", "zai-glm-4.7"),
    _chat_wire("lm-studio", "http://lm-studio.invalid:1234/v1/chat/completions", "qwen"),
    _chat_wire("llama-stack", "https://llama-stack.invalid/v1/chat/completions", "llama-3.3-70b"),
)}

DEFAULT_WIRE: dict[str, str] = {
    "anthropic": "anthropic", "openai-chat": "openai-chat", "openai-strict": "openai-chat",
    "openai-responses": "openai-responses", "gemini": "gemini", "vertex": "vertex",
    "bedrock-converse": "bedrock", "deepseek": "deepseek", "mistral": "mistral", "groq": "groq",
    "fireworks": "fireworks", "openrouter": "openrouter", "one-api": "one-api", "litellm": "litellm",
    "xai": "xai", "modelstudio": "modelstudio", "llama-cpp": "llama-cpp", "cerebras": "cerebras",
    "lm-studio": "lm-studio", "llama-stack": "llama-stack",
}


def envelope_for(family: str, message: str) -> dict[str, Any]:
    """The provider's documented error body around ``message`` (limits_and_envelopes.md)."""
    if family.startswith("anthropic") and "bedrock" not in family:
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    if "bedrock" in family:
        return {"message": message}
    if family.startswith("google"):
        return {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}
    if family == "deepseek":
        return {"error": {"message": message, "type": "invalid_request_error", "param": None,
                          "code": "invalid_request_error"}}
    if family == "mistral":
        return {"object": "error", "message": message, "type": "invalid_request_error",
                "param": None, "code": None}
    if family == "fireworks":
        return {"error": {"object": "error", "type": "invalid_request_error", "message": message}}
    if family == "openrouter":
        return {"error": {"message": message, "code": 400}}
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}

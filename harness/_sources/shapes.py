"""Tool shapes: a tool as each provider API or MCP writes it, into the pipeline's input.

A pipeline's input holds tools as ``{"name", "description", "input_schema"}``. Users have tools
in the shapes their own code sends, so a case may give them as any of these, detected per tool
(or declared with ``shape:`` on the tool source):

    openai-chat       {type: function, function: {name, description?, parameters?, strict?}}
    openai-responses  {type: function, name, description?, parameters?, strict?, ...}
    anthropic         {name, description?, input_schema, type?: custom, cache_control?, ...}
    gemini            {name, description?, parameters? | parametersJsonSchema?, ...}, or a whole
                      tool object {functionDeclarations: [...]} (function_declarations too)
    mcp               {name, title?, description?, inputSchema, outputSchema?, annotations?, ...}

The name, the description and the schema are kept; the other fields a shape allows (``strict``,
``cache_control``, ``annotations``, ...) describe how a provider should treat the tool, which
is the pipeline's decision per lane, so they are dropped. A field the provider's API does not
know is an error, not dropped, as the API itself would refuse it: a typo (``descripton``) would
otherwise become a tool without it. MCP entries are the exception: servers add fields of their
own to ``tools/list``, and those are dropped with the other fields. Gemini's
``parameters`` is an OpenAPI-subset Schema whose SDKs write type names in capitals (``OBJECT``);
those become the JSON Schema names (``object``) at every schema position; nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness._errors import InputError, Place

__all__ = ["SHAPES", "converted"]

Where = Callable[[str], Place]

_KEYS: dict[str, frozenset[str]] = {
    "openai-chat": frozenset({"type", "function"}),
    "openai-responses": frozenset({"type", "name", "description", "parameters", "strict", "allowed_callers",
                                   "defer_loading", "output_schema"}),
    "anthropic": frozenset({"name", "description", "input_schema", "type", "cache_control", "strict",
                            "input_examples", "defer_loading", "allowed_callers", "eager_input_streaming"}),
    "gemini": frozenset({"name", "description", "parameters", "parametersJsonSchema", "parameters_json_schema",
                         "response", "responseJsonSchema", "response_json_schema", "behavior"}),
    "mcp": frozenset({"name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons",
                      "execution", "_meta"}),
}
SHAPES = tuple(_KEYS)
_OPEN = frozenset({"mcp"})
_TELLING = frozenset({"function", "input_schema", "inputSchema", "parameters", "parametersJsonSchema",
                      "parameters_json_schema", "functionDeclarations", "function_declarations"})
"""The keys that tell a shape: never taken as a server's own field of an open shape."""
"""Shapes whose source takes fields of its own: MCP servers add theirs to ``tools/list`` entries
(the provider APIs refuse a field they do not know, so a tool carrying one was never sent)."""
_CHAT_FUNCTION = frozenset({"name", "description", "parameters", "strict"})
_DECLARATIONS = ("functionDeclarations", "function_declarations")
_GEMINI_JSON = ("parametersJsonSchema", "parameters_json_schema")
_GEMINI_TYPES = {t: t.lower() for t in ("STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL")}
EXPECTED = ("a tool in one shape: openai-chat {type: function, function: {name, parameters}}, openai-responses "
            "{type: function, name, parameters}, anthropic {name, input_schema}, gemini {name, parameters} or "
            "{functionDeclarations: [...]}, mcp {name, inputSchema}")


def converted(entry: Any, path: str, where: Where, shape: str | None = None) -> list[dict[str, Any]]:
    """The tools ``entry`` (at key ``path``) stands for, as the pipeline's input holds them: one,
    or each declaration of a Gemini tool object. ``shape`` declared, or detected when None."""
    if not isinstance(entry, dict):
        raise InputError(where(path), EXPECTED, f"{type(entry).__name__} {repr(entry)[:60]}")
    if shape in (None, "gemini") and any(k in entry for k in _DECLARATIONS):
        return _declarations(entry, path, where)
    shape = shape or _detected(entry, path, where)
    unknown = sorted(set(entry) - _KEYS[shape] - (set() if shape not in _OPEN else set(entry) - _TELLING))
    if unknown:
        fields = ", ".join(sorted(_KEYS[shape]))
        raise InputError(where(_join(path, unknown[0])), f"the fields of the {shape} shape ({fields})",
                         f"unknown field(s) {', '.join(unknown)}")
    return [_CONVERT[shape](entry, path, where)]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _detected(entry: dict[str, Any], path: str, where: Where) -> str:
    """The one shape whose telling keys ``entry`` has; a tool with only a name (and a
    description) is the same in every shape."""
    found = []
    if "function" in entry:
        found.append("openai-chat")
    elif entry.get("type") == "function":
        found.append("openai-responses")
    if "input_schema" in entry:
        found.append("anthropic")
    if "inputSchema" in entry:
        found.append("mcp")
    if any(k in entry for k in _GEMINI_JSON) or ("parameters" in entry and entry.get("type") != "function"):
        found.append("gemini")
    if len(found) > 1:
        raise InputError(where(path), "a tool in one shape (or the source's shape: declared)",
                         f"the keys of {' and '.join(found)} in one tool: {', '.join(sorted(entry))}")
    if found:
        return found[0]
    if set(entry) <= {"name", "description"}:
        return "anthropic"
    raise InputError(where(path), EXPECTED, f"a tool with the keys {', '.join(sorted(map(str, entry))) or 'none'}")


def _named(entry: dict[str, Any], path: str, where: Where, schema: Any) -> dict[str, Any]:
    name, description = entry.get("name"), entry.get("description")
    if not isinstance(name, str):
        found = f"no name (keys: {', '.join(sorted(map(str, entry)))})" if name is None else repr(name)[:60]
        raise InputError(where(_join(path, "name") if "name" in entry else path), "a tool object with a string name",
                         found)
    if description is not None and not isinstance(description, str):
        raise InputError(where(_join(path, "description")), "the tool's description as a string",
                         repr(description)[:60])
    return {"name": name, "description": description or "", "input_schema": {} if schema is None else schema}


def _typed(entry: dict[str, Any], path: str, where: Where, allowed: tuple[Any, ...]) -> None:
    if "type" in entry and entry["type"] not in allowed:
        raise InputError(where(_join(path, "type")), " or ".join(repr(a) for a in allowed if a is not None),
                         repr(entry["type"])[:60])


def _openai_chat(entry: dict[str, Any], path: str, where: Where) -> dict[str, Any]:
    if entry.get("type") != "function":
        raise InputError(where(_join(path, "type")), "'function' (a Chat Completions function tool)",
                         repr(entry.get("type"))[:60])
    function = entry.get("function")
    if not isinstance(function, dict):
        raise InputError(where(_join(path, "function")), "{name, description?, parameters?, strict?}",
                         repr(function)[:60])
    unknown = sorted(set(function) - _CHAT_FUNCTION)
    if unknown:
        raise InputError(where(_join(path, f"function.{unknown[0]}")), "the fields of a function (description, name, "
                         "parameters, strict)", f"unknown field(s) {', '.join(unknown)}")
    return _named(function, _join(path, "function"), where, function.get("parameters"))


def _openai_responses(entry: dict[str, Any], path: str, where: Where) -> dict[str, Any]:
    _typed(entry, path, where, ("function",))
    if "type" not in entry:
        raise InputError(where(path), "type: function (a Responses function tool)", "no type")
    return _named(entry, path, where, entry.get("parameters"))


def _anthropic(entry: dict[str, Any], path: str, where: Where) -> dict[str, Any]:
    _typed(entry, path, where, ("custom", None))
    return _named(entry, path, where, entry.get("input_schema"))


def _mcp(entry: dict[str, Any], path: str, where: Where) -> dict[str, Any]:
    return _named(entry, path, where, entry.get("inputSchema"))


def _gemini(entry: dict[str, Any], path: str, where: Where) -> dict[str, Any]:
    given = [k for k in ("parameters", *_GEMINI_JSON) if k in entry]
    if len(given) > 1:
        raise InputError(where(_join(path, given[1])), "one of parameters and parametersJsonSchema (Gemini takes "
                         "either)", f"both {' and '.join(given)}")
    if not given:
        return _named(entry, path, where, None)
    schema = entry[given[0]]
    return _named(entry, path, where, _json_types(schema) if given[0] == "parameters" else schema)


def _declarations(entry: dict[str, Any], path: str, where: Where) -> list[dict[str, Any]]:
    """Each function declaration of a Gemini tool object."""
    keys = [k for k in _DECLARATIONS if k in entry]
    other = sorted(set(entry) - set(_DECLARATIONS))
    if len(keys) > 1 or other:
        raise InputError(where(path), "a Gemini tool object holding functionDeclarations only (built-in tools "
                         "such as googleSearch declare no function to convert)",
                         f"the keys {', '.join(sorted(map(str, entry)))}")
    at = _join(path, keys[0])
    listed = entry[keys[0]]
    if not isinstance(listed, list):
        raise InputError(where(at), "a list of function declarations", type(listed).__name__)
    return [tool for i, d in enumerate(listed) for tool in converted(d, f"{at}[{i}]", where, "gemini")]


def _json_types(schema: Any) -> Any:
    """A Gemini Schema with its capitalised type names in JSON Schema's spelling, at every
    schema position (properties, items, anyOf); a new value, the given one untouched."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    kind = out.get("type")
    if isinstance(kind, str) and kind in _GEMINI_TYPES:
        out["type"] = _GEMINI_TYPES[kind]
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _json_types(v) for k, v in out["properties"].items()}
    if "items" in out:
        out["items"] = _json_types(out["items"])
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = [_json_types(v) for v in out["anyOf"]]
    return out


_CONVERT: dict[str, Callable[[dict[str, Any], str, Where], dict[str, Any]]] = {
    "openai-chat": _openai_chat, "openai-responses": _openai_responses, "anthropic": _anthropic,
    "gemini": _gemini, "mcp": _mcp,
}

"""The pipeline under review: tool definitions into an Anthropic Messages request body.

The change under review (``new_body``) flattens a tool's root ``anyOf``/``oneOf`` into one
object schema, because the genuine endpoint answers a root composition with a 400, and only
there: every other lane (a proxy, a compatible provider) gets the schema exactly as given.
``old_body`` is the code before the change.
"""

from __future__ import annotations

import copy
from typing import Any

FIRST_PARTY = "api.anthropic.com"


def host_of(base_url: str | None) -> str:
    """The host of a base URL: scheme, userinfo, port and path dropped, lower case, no final dot."""
    rest = (base_url or "").strip()
    if "//" in rest:
        rest = rest.split("//", 1)[1]
    rest = rest.split("/", 1)[0].rsplit("@", 1)[-1].split(":", 1)[0]
    return rest.lower().rstrip(".")


def is_first_party(lane: dict[str, Any]) -> bool:
    """The genuine endpoint: the lane's base URL names it."""
    return host_of(lane.get("base_url")) == FIRST_PARTY


def flatten_root(schema: dict[str, Any]) -> dict[str, Any]:
    """A root anyOf/oneOf of object schemas as one object: every branch's properties, none required."""
    branches = schema.get("anyOf") or schema.get("oneOf")
    if not branches:
        return schema
    merged: dict[str, Any] = {}
    for branch in branches:
        merged.update(branch.get("properties", {}))
    flat = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
    return {**flat, "type": "object", "properties": merged}


def _tool(tool: dict[str, Any], narrow: bool) -> dict[str, Any]:
    schema = copy.deepcopy(tool.get("input_schema", {"type": "object"}))
    return {"name": tool["name"], "description": tool.get("description", ""),
            "input_schema": flatten_root(schema) if narrow else schema}


def old_body(pipeline_input: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    return {"model": lane.get("model"), "tools": [_tool(t, False) for t in pipeline_input["tools"]]}


def new_body(pipeline_input: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    narrow = is_first_party(lane)
    return {"model": lane.get("model"), "tools": [_tool(t, narrow) for t in pipeline_input["tools"]]}

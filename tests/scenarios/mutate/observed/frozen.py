"""The old pipeline of the observation scenario: a frozen copy of shape.py, never mutated."""

from typing import Any


def _clean(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in ("title", "examples"):
            continue
        out[key] = _clean(value)
    return out


def _describe(text: str, size: int) -> str:
    if len(text) > size:
        return text[: size - 3] + "..."
    return text


def _behave(behaviour: str) -> None:
    if behaviour == "refuse":
        raise ValueError("refused: no tools")
    if behaviour == "slow":
        n = 3
        while n > 0:
            n -= 1


def build(inp: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    _behave(inp.get("behaviour", ""))
    tools = [{"name": t["name"], "description": _describe(t.get("description", ""), 20),
              "input_schema": _clean(t.get("input_schema", {}))} for t in inp["tools"]]
    return {"model": lane.get("model"), "tools": tools}

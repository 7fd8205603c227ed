"""The pipelines of the case-file scenario: the new body keeps the lane's model as a string."""

from typing import Any


def old_body(inp: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    return {"model": lane.get("model"), "tools": inp["tools"]}


def new_body(inp: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    model = lane.get("model")
    return {"model": str(model), "tools": inp["tools"]}

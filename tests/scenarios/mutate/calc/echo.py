"""The pipelines of the one case file a suite must have; this project's pins are tests/."""

from typing import Any


def echo(inp: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    return {"tools": inp["tools"]}

"""Pipelines whose mutants write files (tests/e2e/test_mutate_sandbox.py)."""

from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def old_body(inp: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    return {"model": lane.get("model"), "tools": inp["tools"]}


def new_body(inp: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    model = lane.get("model")
    cleanup = None
    if cleanup is not None:
        cleanup()
    return {"model": str(model), "tools": inp["tools"]}

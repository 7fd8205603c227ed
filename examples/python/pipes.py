"""The example's two pipelines, served over the JSON-lines protocol: ``python3 pipes.py``.

    old  the PR's first revision: every tool's input_schema verbatim on every Messages lane
         (which re-exposed the recorded 400 on the genuine Anthropic lane)
    new  the revision that merged: narrowed on the first-party lane, verbatim everywhere else
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from passes import first_party, narrow, with_note

__all__ = ["build_new", "build_old"]


def _body(payload: dict[str, Any], lane: dict[str, Any], tools: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"model": lane.get("model") or "claude-sonnet-4-5", "max_tokens": 1024}
    if payload.get("system"):
        out["system"] = payload["system"]
    out["messages"] = [{"role": "user", "content": "Use the tools you need."}]
    out["tools"] = tools
    return out


def _entry(tool: dict[str, Any], description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": tool["name"], "description": description, "input_schema": schema}


def build_old(payload: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    tools = [_entry(t, t.get("description", ""), copy.deepcopy(t["input_schema"])) for t in payload["tools"]]
    return _body(payload, lane, tools)


def build_new(payload: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    gate = first_party(lane)
    tools = []
    for tool in payload["tools"]:
        declared = copy.deepcopy(tool["input_schema"])
        if not gate:
            tools.append(_entry(tool, tool.get("description", ""), declared))
            continue
        schema, note = narrow(declared)
        tools.append(_entry(tool, with_note(tool.get("description", ""), note), schema))
    return _body(payload, lane, tools)


def _serve() -> Any:
    """``harness.adapter.serve``: from the installed harness, else by path from this checkout
    (serve.py is standard-library only, so any python3 runs it)."""
    try:
        from harness.adapter import serve
    except ImportError:
        import importlib.util

        path = Path(__file__).resolve().parents[2] / "harness" / "adapter" / "serve.py"
        spec = importlib.util.spec_from_file_location("wire_harness_serve", path)
        assert spec is not None and spec.loader is not None, path
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        serve = module.serve
    return serve


if __name__ == "__main__":
    _serve()(name="python-example", version="1.0.0", old=build_old, new=build_new)

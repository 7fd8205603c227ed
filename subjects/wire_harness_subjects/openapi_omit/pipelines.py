"""The two pipelines: validate the ``omit`` declaration, then prune the tool's JSON result.

Input keys (besides ``tools``, which come from an ``openapi:`` source and carry each
operation's 2xx response schemas under ``tools[i].openapi.responses``):
    omit       operationId -> [path | {path, where_empty}]   (the declaration under test)
    operation  the operationId whose result this is (default: the only tool's)
    result     the JSON the API returned (absent: None, as for a 204)
Lane options: ``redact: [key, ...]`` masks those keys wherever they remain, after omit (the
``after_tool_callback`` of seed 000, which must still see whatever omit left).
"""

from __future__ import annotations

import copy
from typing import Any

from wire_harness_subjects.openapi_omit.entries import Entry, OmitRefused, parse_omit
from wire_harness_subjects.openapi_omit.old import FirstWalker
from wire_harness_subjects.openapi_omit.prune import prune
from wire_harness_subjects.openapi_omit.walk import Walker

__all__ = ["REDACTED", "new", "old", "refeed", "run", "validate"]

REDACTED = "[redacted]"


def _operations(tools: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """operationId (or tool name, for an operation without one) -> the tool's openapi record."""
    out: dict[str, dict[str, Any]] = {}
    for tool in tools:
        raw = tool.get("openapi")
        meta: dict[str, Any] = raw if isinstance(raw, dict) else {}
        out[meta.get("operation_id") or tool["name"]] = meta
    return out


def validate(omit: dict[str, tuple[Entry, ...]], tools: list[dict[str, Any]], walker: Walker) -> None:
    """Refuse an entry for an unselected operation, or a path every success response rules out."""
    selected = _operations(tools)
    for op, entries in omit.items():
        if op not in selected:
            raise OmitRefused(f"omit names operation {op!r}, which the block does not select")
        schemas = list((selected[op].get("responses") or {}).values())
        for entry in entries:
            reasons = [walker.rules_out(s, entry) for s in schemas]
            if schemas and all(reasons):
                raise OmitRefused(f"omit.{op}: {entry.path}: {reasons[0]}")


def _redact(value: Any, keys: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {k: REDACTED if k in keys else _redact(v, keys) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact(v, keys) for v in value]
    return value


def _redact_keys(lane: dict[str, Any]) -> frozenset[str]:
    """The lane's ``redact`` keys. A string is refused, not read as its letters (``redact:
    token`` would otherwise mask keys named t, o, k, e, n and leave ``token`` in the clear)."""
    options = lane.get("options") or {}
    keys = options.get("redact") if isinstance(options, dict) else None
    if keys is None:
        return frozenset()
    if not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
        raise ValueError(f"lane {lane.get('id')!r} option redact: expected a list of keys, found {keys!r:.60}")
    return frozenset(keys)


def run(data: dict[str, Any], lane: dict[str, Any], walker: Walker) -> dict[str, Any]:
    """``{"validate": "passed", "result": ...}`` or ``{"validate": "refused", "reason": ...}``.

    Anything else validate raises (the first revision's TypeError) propagates: a crash is not
    a refusal, and the differential report must show it as an error.
    """
    tools = data.get("tools") or []
    try:
        omit = parse_omit(data.get("omit"))
        validate(omit, tools, walker)
    except OmitRefused as exc:
        return {"validate": "refused", "reason": str(exc)}
    operation = data.get("operation")
    if operation is None and len(tools) == 1:
        operation = next(iter(_operations(tools)))
    result = copy.deepcopy(data.get("result"))
    for entry in omit.get(str(operation), ()):
        result = prune(result, entry)
    redact = _redact_keys(lane)
    if redact:
        result = _redact(result, redact)
    return {"validate": "passed", "result": result}


def new(data: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    """The merged revision: 3.1 type lists read as their one non-null type."""
    return run(data, lane, Walker())


def old(data: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    """The first revision: the type looked up in a set (TypeError on a 3.1 type list)."""
    return run(data, lane, FirstWalker())


def refeed(inputs: dict[str, Any], output: Any) -> dict[str, Any]:
    """The input whose result is what omit returned: omitting again must change nothing."""
    if isinstance(output, dict) and output.get("validate") == "passed":
        return {**inputs, "result": output.get("result")}
    return dict(inputs)

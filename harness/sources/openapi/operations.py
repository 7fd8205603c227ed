"""One operation, one tool: parameters and a JSON body flattened into one input schema.

    path · query · header · cookie parameters ─┐
    JSON request body (object: its properties) ─┴─> {type: object, properties, required}

Clash rules (seed 002): a second parameter with a taken name gets its location (``query_id``);
a body property with a taken name gets ``body_``; anything still taken is numbered from ``_2``.
An object body's root ``oneOf``/``anyOf``/``allOf`` is carried to the tool's root (with renamed
properties renamed inside it): that is how root compositions reach the wire. An array, scalar,
map or composition-only body is one ``body`` field. readOnly body properties are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from harness.sources.openapi.names import NameTaker, sanitize
from harness.sources.openapi.refs import Inliner, resolve_pointer

__all__ = [
    "COMPOSITIONS",
    "METHODS",
    "NotJson",
    "Operation",
    "collect_operations",
    "input_schema",
    "is_json_media",
    "parameters",
    "success_schemas",
]

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
COMPOSITIONS = ("oneOf", "anyOf", "allOf")
_IGNORED_HEADERS = {"accept", "content-type", "authorization"}
_SUCCESS = re.compile(r"^2(\d\d|XX)$")


class NotJson(Exception):
    """The request body has no JSON media type: the operation is skipped with this reason."""


@dataclass
class Operation:
    """One operation of the document, before it is built."""

    path: str
    method: str
    raw: dict[str, Any]
    item: dict[str, Any]
    name: str = ""
    operation_id: str | None = None
    keys: set[str] = field(default_factory=set)
    body_composition: bool = False  # its JSON body has a root oneOf/anyOf/allOf

    @property
    def key(self) -> str:
        return f"{self.method}_{self.path}"


def collect_operations(root: dict[str, Any]) -> list[Operation]:
    """Every operation in document order, each given its unique tool name."""
    ops: list[Operation] = []
    for path, item in root["paths"].items():
        if isinstance(item, dict) and isinstance(item.get("$ref"), str):
            item = resolve_pointer(root, item["$ref"])
        if not isinstance(item, dict):
            continue
        for method, raw in item.items():
            if method in METHODS and isinstance(raw, dict):
                op_id = raw.get("operationId")
                ops.append(Operation(path, method, raw, item, operation_id=op_id if isinstance(op_id, str) else None))
    names = NameTaker()
    for op in ops:
        base = sanitize(op.operation_id or f"{op.method} {op.path}", fallback="operation")
        op.name = names.take(base)
        op.keys = {op.key, op.name, *([op.operation_id] if op.operation_id else [])}
    return ops


def is_json_media(media: str) -> bool:
    main = media.split(";")[0].strip().lower()
    return main == "application/json" or main.endswith("+json") or main == "*/*"


def _deref(root: Any, value: Any) -> Any:
    """A parameter, body or response object named by ``$ref`` (refs to refs followed, capped)."""
    for _ in range(32):
        if not (isinstance(value, dict) and isinstance(value.get("$ref"), str)):
            return value
        value = resolve_pointer(root, value["$ref"])
    return value


def parameters(root: Any, op: Operation) -> list[dict[str, Any]]:
    """Path-item parameters overridden by the operation's own (same name and location)."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for raw in [*(op.item.get("parameters") or []), *(op.raw.get("parameters") or [])]:
        param = _deref(root, raw)
        if not isinstance(param, dict) or not isinstance(param.get("name"), str):
            raise ValueError(f"a parameter without a name: {str(raw)[:60]}")
        merged[(param["name"], str(param.get("in", "query")))] = param
    return list(merged.values())


def _param_schema(inl: Inliner, param: dict[str, Any]) -> Any:
    schema: Any = param.get("schema")
    if schema is None and isinstance(param.get("content"), dict):
        for media, spec in param["content"].items():
            if is_json_media(media) and isinstance(spec, dict):
                schema = spec.get("schema")
                break
    built = inl.build(schema if schema is not None else {}, "input")
    desc = param.get("description")
    if isinstance(built, dict) and isinstance(desc, str) and "description" not in built:
        built = {**built, "description": desc}  # a new object: a shared schema stays untouched
    return built


class _Fields:
    def __init__(self) -> None:
        self.names = NameTaker()
        self.properties: dict[str, Any] = {}
        self.required: list[str] = []

    def add(self, wanted: str, fallback: str, schema: Any, required: bool) -> str:
        name = wanted if wanted not in self.names else fallback
        name = self.names.take(name)
        self.properties[name] = schema
        if required:
            self.required.append(name)
        return name


def _json_body(root: Any, op: Operation) -> tuple[Any, bool] | None:
    body = _deref(root, op.raw.get("requestBody"))
    if not isinstance(body, dict):
        return None
    content = body.get("content")
    if not isinstance(content, dict) or not content:
        return None
    for media, spec in content.items():
        if is_json_media(media):
            schema = spec.get("schema", {}) if isinstance(spec, dict) else {}
            return schema, body.get("required") is True
    raise NotJson(f"request body is not JSON ({', '.join(map(str, content))})")


def _is_object_body(schema: Any) -> bool:
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return False
    declared = schema.get("type", "object")
    kinds = declared if isinstance(declared, list) else [declared]
    return bool(schema["properties"]) and "object" in kinds


def _renamed(branch: Any, renames: dict[str, str]) -> Any:
    if not isinstance(branch, dict):
        return branch
    out = dict(branch)
    if isinstance(branch.get("properties"), dict):
        out["properties"] = {renames.get(k, k): v for k, v in branch["properties"].items()}
    if isinstance(branch.get("required"), list):
        out["required"] = [renames.get(k, k) if isinstance(k, str) else k for k in branch["required"]]
    return out


def _merge_body(fields: _Fields, schema: dict[str, Any], body_required: bool) -> dict[str, Any]:
    """Join an object body's properties; return the root compositions to carry over."""
    wanted = set(schema.get("required") or []) if body_required else set()
    renames: dict[str, str] = {}
    for prop, sub in schema["properties"].items():
        if isinstance(sub, dict) and sub.get("readOnly") is True:
            continue
        base = sanitize(prop, fallback="field")
        name = fields.add(base, f"body_{base}", sub, prop in wanted)
        if name != prop:
            renames[prop] = name
    carried: dict[str, Any] = {}
    for key in COMPOSITIONS:
        if isinstance(schema.get(key), list):
            carried[key] = [_renamed(b, renames) for b in schema[key]]
    return carried


def _without_read_only(schema: Any) -> Any:
    if not (isinstance(schema, dict) and isinstance(schema.get("properties"), dict)):
        return schema
    props = schema["properties"]
    gone = [k for k, v in props.items() if isinstance(v, dict) and v.get("readOnly") is True]
    if not gone:
        return schema
    out = {**schema, "properties": {k: v for k, v in props.items() if k not in gone}}
    if isinstance(schema.get("required"), list):
        out["required"] = [r for r in schema["required"] if r not in gone]
    return out


def input_schema(inl: Inliner, root: Any, op: Operation) -> dict[str, Any]:
    """The flat input schema of ``op``. Raises NotJson, OverBound, RemoteRef, BadRef, ValueError."""
    fields = _Fields()
    for param in parameters(root, op):
        where = str(param.get("in", "query"))
        if where == "header" and param["name"].lower() in _IGNORED_HEADERS:
            continue
        base = sanitize(param["name"], fallback="param")
        required = where == "path" or param.get("required") is True
        fields.add(base, sanitize(f"{where}_{base}"), _param_schema(inl, param), required)
    carried: dict[str, Any] = {}
    body = _json_body(root, op)
    if body is not None:
        built = inl.build(body[0], "input")
        op.body_composition = isinstance(built, dict) and any(k in built for k in COMPOSITIONS)
        if _is_object_body(built):
            carried = _merge_body(fields, built, body[1])
        else:
            fields.add("body", "body_body", _without_read_only(built), body[1])
    out: dict[str, Any] = {"type": "object", "properties": fields.properties}
    if fields.required:
        out["required"] = fields.required
    out.update(carried)
    return out


def success_schemas(inl: Inliner, root: Any, op: Operation) -> dict[str, Any]:
    """Status -> built schema of every 2xx JSON response (a JSON response without one: ``{}``)."""
    out: dict[str, Any] = {}
    responses = op.raw.get("responses")
    if not isinstance(responses, dict):
        return out
    for status, raw in responses.items():
        if not _SUCCESS.match(str(status)):
            continue
        response = _deref(root, raw)
        content = response.get("content") if isinstance(response, dict) else None
        if not isinstance(content, dict):
            continue
        for media, spec in content.items():
            if is_json_media(media):
                schema = spec.get("schema", {}) if isinstance(spec, dict) else {}
                out[str(status)] = inl.build(schema, "response")
                break
    return out

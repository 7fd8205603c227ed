"""One operation, one tool: parameters and a JSON body flattened into one input schema.

    path · query · header · cookie parameters ─┐
    JSON request body (object: its properties) ─┴─> {type: object, properties, required}

Clash rules (seed 002): a second parameter with a taken name gets its location (``query_id``);
a body property with a taken name gets ``body_``; anything still taken is numbered from ``_2``.
An object body's root ``oneOf``/``anyOf``/``allOf`` is carried to the tool's root (with renamed
properties renamed inside it): that is how root compositions reach the wire. An array, scalar,
map or composition-only body is one ``body`` field. readOnly body properties are left out.

Every value read here from the document is checked for the type it is used as (see shapes):
a wrong one raises Malformed naming its key path, which the importer turns into one InputError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from harness._sources.openapi.names import NameTaker, sanitize
from harness._sources.openapi.refs import Inliner
from harness._sources.openapi.shapes import Malformed, child, describe, follow_object, is_names, need_list, need_object

__all__ = [
    "COMPOSITIONS",
    "LOCATIONS",
    "METHODS",
    "NotJson",
    "Operation",
    "Parameter",
    "collect_operations",
    "input_schema",
    "is_json_media",
    "parameters",
    "root_composition",
    "success_schemas",
]

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
COMPOSITIONS = ("oneOf", "anyOf", "allOf")
_COMPOSITION_KEYS = frozenset(COMPOSITIONS)
LOCATIONS = ("path", "query", "header", "cookie")
PATH_ITEM_FIELDS = frozenset({"$ref", "summary", "description", "servers", "parameters", *METHODS})
_PATH_ITEM_EXPECTED = ("a path item field (get, put, post, delete, options, head, patch, trace, parameters, "
                       "servers, summary, description, $ref) or an x- extension")
_IGNORED_HEADERS = {"accept", "content-type", "authorization"}
_SUCCESS = re.compile(r"^2(\d\d|XX)$")


Parameter = tuple[dict[str, Any], str]  # a parameter object and its key path


class NotJson(Exception):
    """The request body has no JSON media type: the operation is skipped with this reason."""


@dataclass
class Operation:
    """One operation of the document, before it is built."""

    path: str
    method: str
    raw: dict[str, Any]
    item: dict[str, Any]
    where: str = ""  # key path of the operation object (in its path item, or a ref's target)
    params_where: str = ""  # key path of the path item's parameters list
    name: str = ""
    operation_id: str | None = None
    keys: set[str] = field(default_factory=set)
    body_composition: bool = False  # its JSON body has a root oneOf/anyOf/allOf

    @property
    def key(self) -> str:
        return f"{self.method}_{self.path}"


def _path_item(root: Any, raw: Any, where: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The path item (a ``$ref`` followed, its siblings laid over the target) and, per field,
    the key path of the object it was written in."""
    item = need_object(raw, where, "a path item object")
    if "$ref" not in item:
        return item, dict.fromkeys(item, where)
    target, at, _ = follow_object(root, item, where, "a path item object")
    siblings = {k: v for k, v in item.items() if k != "$ref"}
    return {**target, **siblings}, {**dict.fromkeys(target, at), **dict.fromkeys(siblings, where)}


def _operations_of(root: Any, path: str) -> list[Operation]:
    where = child("paths", path)
    item, origin = _path_item(root, root["paths"][path], where)
    params_where = child(origin.get("parameters", where), "parameters")
    ops = []
    for key, raw in item.items():
        if key in METHODS:
            ops.append(_operation(path, key, raw, item, child(origin[key], key), params_where))
        elif key not in PATH_ITEM_FIELDS and not key.startswith("x-"):
            raise Malformed(child(origin[key], key), _PATH_ITEM_EXPECTED, f"the key {key!r}")
    return ops


def _operation(path: str, method: str, raw: Any, item: dict[str, Any], where: str, params_where: str) -> Operation:
    op = need_object(raw, where, "an operation object")
    op_id = op.get("operationId")
    if op_id is not None and not isinstance(op_id, str):
        raise Malformed(child(where, "operationId"), "a string operationId", describe(op_id))
    return Operation(path, method, op, item, where, params_where, operation_id=op_id)


def collect_operations(root: dict[str, Any]) -> list[Operation]:
    """Every operation in document order, each given its unique tool name. Malformed when a
    path item or an operation is not an object (nothing is passed over without a word)."""
    ops = [op for path in root.get("paths", {}) for op in _operations_of(root, path)]
    names = NameTaker()
    for op in ops:
        base = sanitize(op.operation_id or f"{op.method} {op.path}", fallback="operation")
        op.name = names.take(base)
        op.keys = {op.key, op.name, op.operation_id or op.key}
    return ops


def root_composition(schema: Any) -> bool:
    """Whether ``schema`` carries oneOf/anyOf/allOf at its root."""
    return isinstance(schema, dict) and not _COMPOSITION_KEYS.isdisjoint(schema)


def is_json_media(media: str) -> bool:
    main = media.split(";")[0].strip().lower()
    return main in ("application/json", "*/*") or main.endswith("+json")


def _need_schema(value: Any, where: str) -> Any:
    if not isinstance(value, (dict, bool)):
        raise Malformed(where, "a schema (an object, or a boolean in 3.1)", describe(value))
    return value


def _need_flag(holder: dict[str, Any], key: str, where: str) -> bool:
    value = holder.get(key, False)
    if not isinstance(value, bool):
        raise Malformed(child(where, key), f"{key}: true or false", describe(value))
    return value


def _parameter(root: Any, raw: Any, where: str) -> tuple[dict[str, Any], str]:
    param, at, via = follow_object(root, raw, where, "a parameter object")
    if not isinstance(param.get("name"), str):
        raise _bad_member(param, "name", at, "a parameter with a string name", f"{describe(param)}, without name",
                          via)
    if param.get("in") not in LOCATIONS:
        raise _bad_member(param, "in", at, "in: path, query, header or cookie",
                          f"parameter {param['name']!r} without in", via)
    _need_flag(param, "required", at)
    return param, at


def _bad_member(holder: dict[str, Any], key: str, at: str, expected: str, absent: str, via: str) -> Malformed:
    """A wrong ``key`` of the object at ``at`` named at the key, or the object when it is absent."""
    if key in holder:
        return Malformed(child(at, key), expected, describe(holder[key]), via)
    return Malformed(at, expected, absent, via)


def parameters(root: Any, op: Operation) -> list[Parameter]:
    """(parameter, its key path): the path item's, overridden by the operation's own (same
    name and location). Malformed when a list or a parameter has the wrong shape."""
    merged: dict[tuple[str, str], Parameter] = {}
    for where, listed in ((op.params_where, op.item.get("parameters")),
                          (child(op.where, "parameters"), op.raw.get("parameters"))):
        if listed is None:
            continue
        for i, raw in enumerate(need_list(listed, where, "a list of parameters")):
            param, at = _parameter(root, raw, child(where, i))
            merged[(param["name"], param["in"])] = (param, at)
    return list(merged.values())


def _json_schema_of(content: Any, where: str) -> tuple[str, Any] | None:
    """(media type, schema) of the first JSON media type of a content object, or None."""
    content = need_object(content, where, "a content object (media type -> media type object)")
    for media, spec in content.items():
        if is_json_media(media):
            at = child(where, media)
            spec = need_object(spec, at, "a media type object")
            return media, _need_schema(spec.get("schema", {}), child(at, "schema"))
    return None


def _written_schema(param: dict[str, Any], at: str) -> Any:
    """A parameter's schema as written: its ``schema``, or the one of its JSON ``content``."""
    if "schema" in param:
        return _need_schema(param["schema"], child(at, "schema"))
    found = _json_schema_of(param["content"], child(at, "content")) if "content" in param else None
    return found[1] if found else {}


def _param_schema(inl: Inliner, param: dict[str, Any], at: str) -> Any:
    built = inl.build(_written_schema(param, at), "input")
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


def _json_body(root: Any, op: Operation) -> tuple[Any, bool, str] | None:
    """(schema, required, key path of the schema) of the JSON request body, None without one."""
    if op.raw.get("requestBody") is None:
        return None
    where = child(op.where, "requestBody")
    body, at, via = follow_object(root, op.raw["requestBody"], where, "a request body object")
    if "content" not in body:
        raise _bad_member(body, "content", at, "a request body with content", f"{describe(body)}, without content",
                          via)
    required = _need_flag(body, "required", at)
    json_body = _json_schema_of(body["content"], child(at, "content"))
    if json_body is None:
        if not body["content"]:
            return None
        raise NotJson(f"request body is not JSON ({', '.join(map(str, body['content']))})")
    return json_body[1], required, child(child(child(at, "content"), json_body[0]), "schema")


def _is_object_body(schema: Any) -> bool:
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return False
    declared = schema.get("type", "object")
    kinds = declared if isinstance(declared, list) else [declared]
    return bool(schema["properties"]) and "object" in kinds


def _read_only(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("readOnly") is True


def _renamed(branch: Any, renames: dict[str, str], gone: tuple[str, ...] = ()) -> Any:
    """A copy of an object schema with its properties (and required names) renamed, and those
    named in ``gone`` left out; anything else as it is."""
    if not isinstance(branch, dict):
        return branch
    out = dict(branch)
    if isinstance(branch.get("properties"), dict):
        out["properties"] = {renames.get(k, k): v for k, v in branch["properties"].items() if k not in gone}
    if isinstance(branch.get("required"), list):
        out["required"] = _renamed_names(branch["required"], renames, gone)
    return out


def _renamed_names(names: list[Any], renames: dict[str, str], gone: tuple[str, ...]) -> list[Any]:
    """A ``required`` list renamed (an entry that is no name, as a hostile one may be, kept)."""
    return [renames.get(k, k) if isinstance(k, str) else k for k in names if k not in gone]


def _check_object_body(schema: Any, where: str) -> None:
    """The keywords of a body's root schema that flattening reads must have their JSON Schema
    types: a string ``required`` must not become a set of its characters."""
    if not isinstance(schema, dict):
        return
    if "properties" in schema and not isinstance(schema["properties"], dict):
        raise Malformed(child(where, "properties"), "properties: an object (name -> schema)",
                        describe(schema["properties"]))
    required = schema.get("required", [])
    if not is_names(required):
        raise Malformed(child(where, "required"), "required: a list of property names", describe(required))
    _check_compositions(schema, where)


def _check_compositions(schema: dict[str, Any], where: str) -> None:
    for key in COMPOSITIONS:
        if not isinstance(schema.get(key, []), list):
            raise Malformed(child(where, key), f"{key}: a list of schemas", describe(schema[key]))


def _merge_body(fields: _Fields, schema: dict[str, Any], body_required: bool) -> dict[str, Any]:
    """Join an object body's properties; return the root compositions to carry over (with the
    properties renamed there as they were in the tool)."""
    renames = _add_properties(fields, schema, body_required)
    return {key: [_renamed(b, renames) for b in schema[key]] for key in COMPOSITIONS if key in schema}


def _add_properties(fields: _Fields, schema: dict[str, Any], body_required: bool) -> dict[str, str]:
    """Add an object body's properties (readOnly ones left out); return the renamed ones."""
    wanted = set(schema.get("required", [])) if body_required else set()
    renames: dict[str, str] = {}
    for prop, sub in schema["properties"].items():
        if _read_only(sub):
            continue
        base = sanitize(prop, fallback="field")
        name = fields.add(base, f"body_{base}", sub, prop in wanted)
        if name != prop:
            renames[prop] = name
    return renames


def _without_read_only(schema: Any) -> Any:
    props = schema.get("properties") if isinstance(schema, dict) else None
    gone = tuple(k for k, v in props.items() if _read_only(v)) if isinstance(props, dict) else ()
    return _renamed(schema, {}, gone) if gone else schema


def _add_parameters(inl: Inliner, fields: _Fields, params: list[Parameter]) -> None:
    for param, at in params:
        where = param["in"]
        if where == "header" and param["name"].lower() in _IGNORED_HEADERS:
            continue
        base = sanitize(param["name"], fallback="param")
        required = where == "path" or param.get("required") is True
        fields.add(base, sanitize(f"{where}_{base}"), _param_schema(inl, param, at), required)


def _add_body(inl: Inliner, root: Any, op: Operation, fields: _Fields) -> dict[str, Any]:
    """Add the JSON body's fields; return the root compositions to carry over."""
    body = _json_body(root, op)
    if body is None:
        return {}
    built = inl.build(body[0], "input")
    _check_object_body(built, body[2])
    op.body_composition = root_composition(built)
    if _is_object_body(built):
        return _merge_body(fields, built, body[1])
    fields.add("body", "body_body", _without_read_only(built), body[1])
    return {}


def input_schema(inl: Inliner, root: Any, op: Operation, params: list[Parameter]) -> dict[str, Any]:
    """The flat input schema of ``op`` with its ``parameters``. Raises NotJson, OverBound,
    RemoteRef, BadRef, Malformed."""
    fields = _Fields()
    _add_parameters(inl, fields, params)
    carried = _add_body(inl, root, op, fields)
    out: dict[str, Any] = {"type": "object", "properties": fields.properties}
    if fields.required:
        out["required"] = fields.required
    out.update(carried)
    return out


def success_schemas(inl: Inliner, root: Any, op: Operation) -> dict[str, Any]:
    """Status -> built schema of every 2xx JSON response (a JSON response without one: ``{}``).
    Malformed when what it reads (responses, a 2xx response, its content) has the wrong shape."""
    out: dict[str, Any] = {}
    if op.raw.get("responses") is None:
        return out
    listed = child(op.where, "responses")
    responses = need_object(op.raw["responses"], listed, "a responses object (status -> response)")
    for status, raw in responses.items():
        schema = _response_schema(root, raw, child(listed, status)) if _SUCCESS.match(status) else None
        if schema is not None:
            out[status] = inl.build(schema, "response")
    return out


def _response_schema(root: Any, raw: Any, where: str) -> Any:
    """The JSON schema of one response as written, or None when it has no JSON content."""
    response, at, _ = follow_object(root, raw, where, "a response object")
    if response.get("content") is None:
        return None
    json_response = _json_schema_of(response["content"], child(at, "content"))
    return json_response[1] if json_response else None

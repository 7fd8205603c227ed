"""Check a loaded document against one of the JSON Schemas shipped in ``harness/_load/schemas``.

Each schema error becomes an InputError naming the file, the line, the key path, what the
schema expected there and what was found, so a user never has to read a jsonschema trace.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from harness._common.yamlsafe import Document
from harness._errors import InputError, InputErrors

__all__ = ["check", "check_value", "schema", "validator"]


@cache
def schema(name: str) -> dict[str, Any]:
    """The shipped schema ``<name>.schema.json``."""
    text = resources.files("harness._load").joinpath("schemas", f"{name}.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _registry() -> Registry[Any]:
    """Every shipped schema under its ``$id``, so one schema can ``$ref`` another by file name."""
    folder = resources.files("harness._load").joinpath("schemas")
    registry: Registry[Any] = Registry()
    for entry in folder.iterdir():
        if entry.name.endswith(".schema.json"):
            contents = json.loads(entry.read_text())
            registry = registry.with_resource(contents["$id"], Resource.from_contents(contents))
    return registry


@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    cls = jsonschema.validators.validator_for(schema(name))
    return cls(schema(name), format_checker=cls.FORMAT_CHECKER, registry=_registry())


def _path(error: ValidationError) -> str:
    out = ""
    for step in error.absolute_path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out = f"{out}.{step}" if out else str(step)
    return out


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    kind = {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
        type(value), "number" if isinstance(value, int | float) else "null"
    )
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{kind} {text}"


def _closest_branch(error: ValidationError) -> ValidationError | None:
    """The error of the branch the value came closest to: the one that got past the value's own
    type (its errors lie deeper, or are not about type/enum/const at the value itself)."""
    context = list(error.context or [])
    if not context:
        return None
    shallow = ("type", "enum", "const")

    def closeness(e: ValidationError) -> tuple[int, int]:
        return (len(e.relative_path), 0 if e.validator in shallow else 1)

    best = max(context, key=closeness)
    return best if closeness(best) > (0, 0) else None


def _describe(error: ValidationError) -> tuple[str, str, str]:
    """(extra path, expected, found) in words."""
    path = _path(error)
    v = error.validator
    if v == "additionalProperties":
        return _unknown_key(error, path)
    if v == "required":
        return path, f"the key {error.message.split(' ')[0]}", "it missing"
    if v in ("oneOf", "anyOf"):
        best = _closest_branch(error)
        if best is not None:
            return _describe(best)
        title = error.schema.get("title") or error.schema.get("description") or "a known form"
        return path, str(title), _short(error.instance)
    return path, _expected(error), _short(error.instance)


def _unknown_key(error: ValidationError, path: str) -> tuple[str, str, str]:
    allowed = sorted(error.schema.get("properties", {}))
    extra = [k for k in error.instance if k not in allowed]
    where = f"{path}.{extra[0]}" if path else extra[0]
    return where, f"one of the keys {', '.join(allowed)}", f"unknown key {extra[0]!r}"


# What a keyword expects, in words: {v} the keyword, {value} its value, {json} that value as JSON
_EXPECTED = {"type": "a value of type {value}", "const": "{json}", "pattern": "a string matching {value}",
             "minItems": "{v} {value}", "minLength": "{v} {value}", "minProperties": "{v} {value}"}


def _expected(error: ValidationError) -> str:
    value = error.validator_value
    if error.validator == "enum":
        return "one of " + ", ".join(json.dumps(o) for o in value)
    return _EXPECTED.get(str(error.validator), "{v} {json}").format(
        v=error.validator, value=value, json=json.dumps(value, default=str))


def _prefixed(prefix: str, path: str) -> str:
    if not path or not prefix:
        return path or prefix
    return f"{prefix}{path}" if path.startswith("[") else f"{prefix}.{path}"


def _raise_all(doc: Document, errors: Iterable[ValidationError], at: str = "") -> None:
    """Every schema error as an InputError at its place (under key path ``at``), or nothing."""
    found = []
    for error in sorted(errors, key=lambda e: list(map(str, e.path))):
        path, expected, what = _describe(error)
        found.append(InputError(doc.place(_prefixed(at, path)), expected, what))
    if found:
        raise InputErrors(found)


def check_value(doc: Document, value: Any, schema_: Mapping[str, Any], at: str) -> None:
    """Check a value found at key path ``at`` of ``doc`` against a schema a subject ships."""
    cls = jsonschema.validators.validator_for(dict(schema_))
    _raise_all(doc, cls(dict(schema_)).iter_errors(value), at)


# Digests of (schema, value) pairs this process already found valid. A suite is loaded again and
# again in one process (each in-process command, the pins' plugin, `harness run` after `init`),
# and walking jsonschema's validator over the bundled case files is half of a load (0.11 s of
# 0.27), where serialising and hashing the same values is 3 ms. Only valid pairs are kept: an
# invalid one is checked again each time, so its errors are always made afresh.
_VALID_KEEP = 1024
_valid: OrderedDict[bytes, None] = OrderedDict()


def _digest(schema_name: str, value: Any) -> bytes:
    # JSON keeps apart what a schema tells apart (1, 1.0, true, "1"); ``repr`` only for a value
    # YAML could give that JSON has no word for, which then never matches a different value
    text = json.dumps([schema_name, value], ensure_ascii=False, default=repr)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).digest()


def check(doc: Document, schema_name: str) -> None:
    """Raise InputErrors listing every place ``doc`` breaks the schema ``schema_name``."""
    key = _digest(schema_name, doc.value)
    if key in _valid:
        _valid.move_to_end(key)
        return
    _raise_all(doc, validator(schema_name).iter_errors(doc.value))
    _valid[key] = None
    if len(_valid) > _VALID_KEEP:
        _valid.popitem(last=False)

"""Check a report against the shipped report.schema.json (and the section schemas it refers to).

The harness checks its own report before writing it: a report that breaks its published
schema is a harness bug, caught here rather than by a user's pipeline.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema
from referencing import Registry, Resource

__all__ = ["report_validator", "validate_report"]

_PERMISSIVE: dict[str, Any] = {"type": "object"}


def _load(name: str) -> dict[str, Any] | None:
    path = resources.files("harness.report").joinpath("schemas", name)
    if not path.is_file():
        return None
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


@cache
def report_validator() -> jsonschema.Draft202012Validator:
    main = _load("report.schema.json")
    assert main is not None
    base = main["$id"].rpartition("/")[0]
    registry: Registry[Any] = Registry()
    for name in ("rejections.schema.json", "mutation.schema.json"):
        schema = _load(name) or {**_PERMISSIVE, "$schema": main["$schema"]}
        registry = registry.with_resource(f"{base}/{name}", Resource.from_contents(schema))
    return jsonschema.Draft202012Validator(main, registry=registry)


def validate_report(report: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError when the report breaks its schema."""
    report_validator().validate(report)

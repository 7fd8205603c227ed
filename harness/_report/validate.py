"""Check a report against the shipped report.schema.json (and the section schemas it refers to).

The harness checks its own report before writing it: a report that breaks its published
schema is a harness bug, caught here rather than by a user's pipeline.

The check runs on ``jsonschema-rs`` (the Rust engine's binding). Measured on one 100,000-unit
report (``docs/stability.md``, "Checking report.json"), it took a small fraction of the time of
``jsonschema`` and of ``fastjsonschema`` and caught the same planted errors
(``tests/unit/report/test_validate.py``). A run's long lists (the differential rows, the listed
rejection findings) are streams read from the run folder: each item is checked on its own
against its ``$defs`` entry, the rest of the report as a whole with those lists empty, so the
check never needs the whole report in memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources
from typing import Any

import jsonschema_rs

from harness._report.stream import OrderedLines

__all__ = ["ReportInvalid", "item_validator", "report_validator", "schemas", "validate_mutation", "validate_report"]

_PERMISSIVE: dict[str, Any] = {"type": "object"}
_SECTIONS = ("rejections.schema.json", "mutation.schema.json")
_BASE = "https://wire-harness.invalid/schemas"


class ReportInvalid(ValueError):
    """report.json breaks its schema: a harness bug (exit 70)."""


def _load(name: str) -> dict[str, Any] | None:
    path = resources.files("harness._report").joinpath("schemas", name)
    if not path.is_file():
        return None
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


@cache
def schemas() -> dict[str, dict[str, Any]]:
    """Every shipped schema by its ``$id`` (a missing section schema is any object)."""
    main = _load("report.schema.json")
    assert main is not None
    out = {main["$id"]: main}
    for name in _SECTIONS:
        out[f"{_BASE}/{name}"] = _load(name) or {**_PERMISSIVE, "$schema": main["$schema"]}
    return out


@cache
def _registry() -> jsonschema_rs.Registry:
    return jsonschema_rs.Registry(list(schemas().items()))


@cache
def report_validator() -> jsonschema_rs.Validator:
    return jsonschema_rs.validator_for(schemas()[f"{_BASE}/report.schema.json"], registry=_registry())


@cache
def item_validator(ref: str) -> jsonschema_rs.Validator:
    """A validator for one ``$defs`` entry, e.g. ``report.schema.json#/$defs/row``."""
    return jsonschema_rs.validator_for({"$schema": "https://json-schema.org/draft/2020-12/schema",
                                        "$ref": f"{_BASE}/{ref}"}, registry=_registry())


def _check(validator: jsonschema_rs.Validator, value: Any, where: str, file: str = "report.json") -> None:
    try:
        validator.validate(value)
    except jsonschema_rs.ValidationError as exc:
        path = "/".join(str(p) for p in exc.instance_path)
        message = exc.message if len(exc.message) <= 400 else exc.message[:400] + "..."
        raise ReportInvalid(f"{file} at {where}{'/' + path if path else ''}: {message}") from exc


def _items(validator: jsonschema_rs.Validator, values: Iterable[Any], where: str) -> None:
    for i, value in enumerate(values):
        _check(validator, value, f"{where}/{i}")


def validate_report(report: Any) -> None:
    """Raise ReportInvalid (naming the place) when the report breaks its schema. Lists that are
    streams are checked an item at a time. Also what a reader of a finished run (``show``,
    ``bless``, ``--baseline``) holds report.json to before indexing into it."""
    rows: Sequence[Any] = report.get("differential", [])
    section = report.get("rejections") or {}
    # a report read back from disk may hold anything: only a mapping has findings to stream
    findings: Sequence[Any] = section.get("findings", []) if isinstance(section, dict) else []
    streamed_rows, streamed_findings = isinstance(rows, OrderedLines), isinstance(findings, OrderedLines)
    head = dict(report)
    if streamed_rows:
        head["differential"] = []
    if streamed_findings:
        head["rejections"] = {**section, "findings": []}
    _check(report_validator(), head, "")
    if streamed_rows:
        _items(item_validator("report.schema.json#/$defs/row"), rows, "differential")
    if streamed_findings:
        _items(item_validator("rejections.schema.json#/$defs/finding"), findings, "rejections/findings")


def validate_mutation(section: Any) -> None:
    """Raise ReportInvalid when a mutation.json read back (``mutate --baseline``) breaks
    mutation.schema.json."""
    _check(item_validator("mutation.schema.json"), section, "", "mutation.json")

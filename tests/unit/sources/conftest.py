"""Fixtures for the OpenAPI source tests: small documents written to real files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness._sources.openapi import ImportResult, import_document

Doc = dict[str, Any]
Imported = Callable[..., ImportResult]


def api(paths: Doc, schemas: Doc | None = None, version: str = "3.0.3", **extra: Any) -> Doc:
    """An OpenAPI document with ``paths`` and optional component schemas."""
    doc: Doc = {"openapi": version, "info": {"title": "t", "version": "1"}, "paths": paths}
    if schemas is not None:
        doc["components"] = {"schemas": schemas}
    doc.update(extra)
    return doc


def ok(schema: Any = None) -> Doc:
    """A responses object: a 200 with a JSON ``schema`` (or none)."""
    if schema is None:
        return {"200": {"description": "ok"}}
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def body(schema: Any, media: str = "application/json", required: bool = True) -> Doc:
    return {"required": required, "content": {media: {"schema": schema}}}


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """write(doc_or_text, name="api.json") -> the path of a real file holding it."""

    def _write(doc: Doc | str, name: str = "api.json") -> Path:
        path = tmp_path / name
        path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
        return path

    return _write


@pytest.fixture
def imported(write: Callable[..., Path]) -> Callable[..., ImportResult]:
    """imported(doc, operations=None) -> the ImportResult of the document written to a file."""

    def _imported(doc: Doc | str, operations: list[str] | None = None, name: str = "api.json") -> ImportResult:
        return import_document(write(doc, name), operations)

    return _imported


def tool(result: ImportResult, name: str) -> Doc:
    for t in result.tools:
        if t["name"] == name:
            return t
    raise AssertionError(f"no tool {name!r} in {[t['name'] for t in result.tools]}")

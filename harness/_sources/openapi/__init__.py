"""OpenAPI 3.0/3.1 documents as a tool source: one tool per operation (seed 002's rules).

    tools_from_document(path, operations, place)  the case-file source: [{name, description,
                                                  input_schema, openapi}] or one InputError
    import_document(path, operations)             the same, plus what was skipped and why

Each tool also carries ``openapi: {operation_id, method, path, responses}`` (the 2xx JSON
response schemas, refs inlined, as written): subjects that read results (``openapi_omit``)
need them; subjects that build request bodies take only name, description and input_schema.

Modules: importer (the run and its summary), operations (one operation -> one input schema),
refs (``$ref`` inlining), names, checks (path keys, server URLs), bounds (limits, budgets),
shapes (the type of every value read from the document, checked where it is read and named by
key path and line when wrong).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from harness._errors import InputError, Place
from harness._sources.openapi.importer import (
    ImportResult,
    Skipped,
    import_document,
    import_value,
    load_openapi,
)
from harness._sources.openapi.shapes import describe, is_names

__all__ = ["ImportResult", "Skipped", "import_document", "import_value", "load_openapi", "tools_from_document"]

_log = logging.getLogger(__name__)


def tools_from_document(path: Path, operations: list[str] | None, place: Place) -> list[dict[str, Any]]:
    """The tools of ``path``; an operation named in ``operations`` that a bound skips is an error."""
    if operations is not None and not is_names(operations):
        raise InputError(place, "operations: a list of operationIds or method_path keys", describe(operations))
    result = import_document(path, operations, place, display=str(path))
    for line in result.warnings():  # at most three lines: nothing is dropped without a word
        _log.warning("%s: %s", place, line)
    if operations and result.skipped:  # only named operations were built, so each is named
        raise _named_but_skipped(result.skipped, place)
    return result.tools


def _named_but_skipped(skipped: list[Skipped], place: Place) -> InputError:
    reasons = "; ".join(f"{s.name}: {s.reason}" for s in skipped[:5])
    return InputError(place, "every named operation imported", f"skipped {reasons}")

"""Built-in subjects, each in its own sub-package, and how a subject name is resolved.

The machinery never imports a subject by name: it asks ``resolve_subject``, which looks in the
suite's own ``subjects:`` table, then in ``BUILTIN`` below, then treats the name as
``module:attribute`` naming a ``Subject``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from harness.errors import SubjectError
from harness.model import Subject

__all__ = ["BUILTIN", "load_callable", "resolve_subject"]

BUILTIN: dict[str, str] = {
    "anthropic_messages": "harness.subjects.anthropic_messages:SUBJECT",
    "anthropic_messages_fixed": "harness.subjects.anthropic_messages:FIXED_SUBJECT",
    "openai_strict_resume": "harness.subjects.openai_strict_resume:SUBJECT",
    "openapi_omit": "harness.subjects.openapi_omit:SUBJECT",
}


def load_callable(spec: str) -> Callable[..., Any]:
    """Import ``module:attr.attr`` and return it; SubjectError naming ``spec`` otherwise."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise SubjectError(f"{spec!r}: expected 'module:function'")
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as exc:  # any import failure is the user's to read, in one line
        raise SubjectError(f"{spec!r}: cannot import {module_name}: {type(exc).__name__}: {exc}") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SubjectError(f"{spec!r}: {module_name} has no attribute {attr!r}") from None
    return obj  # type: ignore[no-any-return]


def resolve_subject(name: str, declared: Mapping[str, Subject] | None = None) -> Subject:
    if declared and name in declared:
        return declared[name]
    spec = BUILTIN.get(name, name if ":" in name else "")
    if not spec:
        known = ", ".join(sorted({*BUILTIN, *(declared or {})}))
        raise SubjectError(f"unknown subject {name!r}: expected one of {known}, or module:attribute")
    subject = load_callable(spec)
    if not isinstance(subject, Subject):
        raise SubjectError(f"{spec!r}: expected a harness.model.Subject, found {type(subject).__name__}")
    return subject

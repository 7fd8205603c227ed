"""Subject ``openapi_omit`` (seed 000): what a tool returns to the model, pruned by ``omit``.

Wire ``tool-result``: the pipelines' output is the tool's result after omit, as the model
would read it; there is no provider request body here.

Why the output is "the pruned result, or the refusal raised" rather than a JSON record such
as ``{"validate": ..., "result": ...}``: in the system under test a refused declaration never
produces a tool at all; the user sees an error, not a value. Raising keeps that truthful in
the differential report: the 3.1 type-list cases show old as an *error* (TypeError: the bug,
or OmitRefused: the wrong refusal) against new's pruned value, which is exactly what the fix
changed; a refusal both revisions share is an error on both sides with comparable messages
(only the article changed: "a object" -> "an object"); and every case where validate passes
compares the pruned bytes themselves, where the two revisions must agree byte for byte.
Wrapping refusals into a value would turn the TypeError into data and hide that old crashed.
"""

from __future__ import annotations

from harness.model import Subject
from harness.subjects.openapi_omit.entries import OmitRefused

__all__ = ["SUBJECT", "OmitRefused"]

SUBJECT = Subject(
    name="openapi_omit",
    old="harness.subjects.openapi_omit.pipelines:old",
    new="harness.subjects.openapi_omit.pipelines:new",
    wires=frozenset({"tool-result"}),
    description="seed 000: omit prunes an OpenAPI tool's JSON result; validate refuses only "
    "paths the 2xx response schemas rule out (old: 3.1 type lists raise TypeError)",
    input_keys=frozenset({"omit", "operation", "result"}),
    output="value",
)

"""Subject ``openapi_omit`` (seed 000): what a tool returns to the model, pruned by ``omit``.

Wire ``tool-result``: the pipelines' output is what the tool would hand the model after omit;
there is no provider request body here. The output is a JSON record:

    {"validate": "passed", "result": <the pruned result>}
    {"validate": "refused", "reason": "<validate's message>"}

and anything else validate raises (the first revision's TypeError on a 3.1 type list) is
raised: an error outcome.

Why this shape, rather than raising the refusal or returning the bare result: it makes the
differential report say exactly what changed. A refusal both revisions share compares as
*identical bytes*, message included, so the report shows it unchanged, and any drift in a
message (the fix's "a object" -> "an object") is a divergence at ``reason`` that a case must
declare; raised refusals would reach compare as two errors, which can only be declared by
type and regex, never shown identical. A crash stays a crash: turning the TypeError into data
would hide that the old revision broke, which is the bug the follow-up commit fixed. The
envelope keeps a result that happens to look like a refusal from being read as one.
"""

from __future__ import annotations

from harness import Subject
from wire_harness_subjects.openapi_omit.entries import OmitRefused

__all__ = ["SUBJECT", "OmitRefused"]

SUBJECT = Subject(
    name="openapi_omit",
    old="wire_harness_subjects.openapi_omit.pipelines:old",
    new="wire_harness_subjects.openapi_omit.pipelines:new",
    refeed="wire_harness_subjects.openapi_omit.pipelines:refeed",
    wires=frozenset({"tool-result"}),
    description="seed 000: omit prunes an OpenAPI tool's JSON result; validate refuses only "
    "paths the 2xx response schemas rule out (old: 3.1 type lists raise TypeError)",
    input_keys=frozenset({"omit", "operation", "result"}),
    output="value",
)

"""Built-in subject ``anthropic_messages``: seed 001's Anthropic Messages ``input_schema`` change.

    old  every Messages lane runs the Responses-style root flatten (``flatten.py``)
    new  the first-party lane (``gate.py``) runs the narrowing pass (``narrow.py``);
         every other Messages lane ships ``input_schema`` verbatim

Both passes start with the shared registry normalization (``registry.py``) and share the root
composition helpers (``compose.py``: find, merge, strip); notes (``notes.py``) tell the model
about a constraint a pass dropped; ``body.py`` builds the request body and the refeed.
"""

from __future__ import annotations

from harness.model import Subject

__all__ = ["SUBJECT"]

SUBJECT = Subject(
    name="anthropic_messages",
    old="harness.subjects.anthropic_messages.old:build_body",
    new="harness.subjects.anthropic_messages.new:build_body",
    refeed="harness.subjects.anthropic_messages.body:refeed",
    wires=frozenset({"anthropic-messages"}),
    input_keys=frozenset({"system"}),
    output="request-body",
    description="Anthropic Messages tools[].input_schema: root flatten everywhere (old) vs "
    "recorded-keyword narrowing on the first-party lane and verbatim elsewhere (new)",
)

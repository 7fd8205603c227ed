"""Built-in subject ``anthropic_messages``: seed 001's Anthropic Messages ``input_schema`` change.

    old  every Messages lane runs the Responses-style root flatten (``flatten.py``)
    new  the first-party lane (``gate.py``) runs the narrowing pass (``narrow.py``);
         every other Messages lane ships ``input_schema`` verbatim

``SUBJECT`` is the pull request head as shipped, its endpoint predicate included (which misses
careless spellings of the genuine URL: the round-5 review's MINOR-2). ``FIXED_SUBJECT``
(``anthropic_messages_fixed``) is the same pair with the review's one-line predicate fix.

Both passes start with the shared registry normalization (``registry.py``) and share the root
composition helpers (``compose.py``: find, merge, strip); notes (``notes.py``) tell the model
about a constraint a pass dropped; ``body.py`` builds the request body and the refeed.
"""

from __future__ import annotations

from harness import Subject

__all__ = ["FIXED_SUBJECT", "SUBJECT"]

SUBJECT = Subject(
    name="anthropic_messages",
    old="wire_harness_subjects.anthropic_messages.old:build_body",
    new="wire_harness_subjects.anthropic_messages.new:build_body",
    refeed="wire_harness_subjects.anthropic_messages.body:refeed",
    wires=frozenset({"anthropic-messages"}),
    input_keys=frozenset({"system"}),
    output="request-body",
    description="Anthropic Messages tools[].input_schema: root flatten everywhere (old) vs "
    "recorded-keyword narrowing on the first-party lane and verbatim elsewhere (new)",
)

FIXED_SUBJECT = Subject(
    name="anthropic_messages_fixed",
    old="wire_harness_subjects.anthropic_messages.old:build_body",
    new="wire_harness_subjects.anthropic_messages.new:build_body_fixed",
    refeed="wire_harness_subjects.anthropic_messages.body:refeed",
    wires=frozenset({"anthropic-messages"}),
    input_keys=frozenset({"system"}),
    output="request-body",
    description="seed 001's pull request with the round-5 review's MINOR-2 fix to the endpoint "
    "predicate (lower-case before the scheme strip, trim the host's trailing dot)",
)

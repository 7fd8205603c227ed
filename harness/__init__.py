"""wire-harness: a conformance and mutation-testing harness for provider wire output.

The public Python surface is what ``__all__`` names, and nothing else: a subject plugin, a wire
plugin, a Python pin or a script needs no other import (``tests/unit/test_public_surface.py``
holds the docs, the examples, the bundled suite and the ``wire-harness-subjects`` distribution
to that). Besides these, ``harness.adapter.serve`` (the JSON-lines protocol's Python end) and
the pytest plugins named in docs/stability.md are public. Every other module may change in any
release.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from harness.errors import (
    ConfigError,
    HarnessError,
    InputError,
    InputErrors,
    MutationError,
    Place,
    SecretError,
    SubjectError,
)
from harness.exitcodes import ExitCode
from harness.model import (
    Allowance,
    Case,
    ErrorInfo,
    Expectation,
    Lane,
    Observation,
    PinSpec,
    PipelineSpec,
    Subject,
    Suite,
    Verdict,
)
from harness.settings import Settings

if TYPE_CHECKING:
    from harness.canonical import canonical_bytes
    from harness.load import load_suite
    from harness.pins.cache import suite_for
    from harness.plugins import load_callable, registered_subjects, registered_wires, resolve_subject
    from harness.reject.wires import Wire
    from harness.report.redact import redact_text
    from harness.selectors import location

__all__ = [
    "Allowance",
    "Case",
    "ConfigError",
    "ErrorInfo",
    "ExitCode",
    "Expectation",
    "HarnessError",
    "InputError",
    "InputErrors",
    "Lane",
    "MutationError",
    "Observation",
    "PinSpec",
    "PipelineSpec",
    "Place",
    "SecretError",
    "Settings",
    "Subject",
    "SubjectError",
    "Suite",
    "Verdict",
    "Wire",
    "canonical_bytes",
    "load_callable",
    "load_suite",
    "location",
    "redact_text",
    "registered_subjects",
    "registered_wires",
    "resolve_subject",
    "suite_for",
]
__version__ = "0.1.0"

# Imported on first use: load_suite pulls in jsonschema and the schemas, suite_for the pipeline
# machinery; a forked mutation engine that only needs the model should not pay ~130 ms for them.
_LAZY = {
    "canonical_bytes": "harness.canonical",
    "load_callable": "harness.plugins",
    "load_suite": "harness.load",
    "location": "harness.selectors",
    "redact_text": "harness.report.redact",
    "registered_subjects": "harness.plugins",
    "registered_wires": "harness.plugins",
    "resolve_subject": "harness.plugins",
    "suite_for": "harness.pins.cache",
    "Wire": "harness.reject.wires",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)

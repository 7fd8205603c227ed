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

from harness._errors import (
    ConfigError,
    HarnessError,
    InputError,
    InputErrors,
    MutationError,
    Place,
    SecretError,
    SubjectError,
)
from harness._exitcodes import ExitCode
from harness._model import (
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
from harness._settings import Settings

if TYPE_CHECKING:
    from harness._common.canonical import canonical_bytes
    from harness._common.redact import redact_text
    from harness._common.selectors import location
    from harness._load import load_suite
    from harness._pins.cache import suite_for
    from harness._plugins import load_callable, registered_subjects, registered_wires, resolve_subject
    from harness._wires import Wire

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
    "canonical_bytes": "harness._common.canonical",
    "load_callable": "harness._plugins",
    "load_suite": "harness._load",
    "location": "harness._common.selectors",
    "redact_text": "harness._common.redact",
    "registered_subjects": "harness._plugins",
    "registered_wires": "harness._plugins",
    "resolve_subject": "harness._plugins",
    "suite_for": "harness._pins.cache",
    "Wire": "harness._wires",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)

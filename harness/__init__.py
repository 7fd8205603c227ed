"""wire-harness: a conformance and mutation-testing harness for provider wire output.

The public surface is what ``__all__`` names; everything in a module whose name starts with an
underscore, and every name not listed here or in a submodule's ``__all__``, may change.
"""

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
from harness.model import Case, Expectation, Lane, Observation, PinSpec, Subject, Suite, Verdict

__all__ = [
    "Case",
    "ConfigError",
    "ExitCode",
    "Expectation",
    "HarnessError",
    "InputError",
    "InputErrors",
    "Lane",
    "MutationError",
    "Observation",
    "PinSpec",
    "Place",
    "SecretError",
    "Subject",
    "SubjectError",
    "Suite",
    "Verdict",
    "load_suite",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # load_suite pulls in jsonschema and the schemas; a forked mutation engine that only needs
    # the model should not pay ~130 ms for it, so it is imported on first use.
    if name == "load_suite":
        from harness.load import load_suite

        return load_suite
    raise AttributeError(f"module 'harness' has no attribute {name!r}")

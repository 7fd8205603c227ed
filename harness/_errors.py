"""Every error the harness raises on purpose.

    HarnessError                 base: catch this to catch everything below
    ├── InputError               a file in a suite is wrong: names file, place, expected, found
    │   └── InputErrors          several InputErrors found in one pass (a suite is checked whole)
    ├── ConfigError              a command-line argument or setting is wrong: names it and its value
    ├── SubjectError             a subject or pipeline cannot be imported or is not callable
    ├── MutationError            a declared mutant does not apply, or mutation setup failed
    └── SecretError              a credential was about to be written to disk, and was refused

The CLI turns each into one message and an exit code (see ``harness._exitcodes``); none of them
ever reaches the user as a traceback. Errors *inside a pipeline* are not HarnessErrors: they are
outcomes, recorded in an Observation.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "ConfigError",
    "HarnessError",
    "InputError",
    "InputErrors",
    "MutationError",
    "Place",
    "SecretError",
    "SubjectError",
]


class HarnessError(Exception):
    """Base of every error the harness raises on purpose."""


@dataclass(frozen=True)
class Place:
    """Where in which file: ``file:line`` plus the key path (``cases[2].pins[0].kind``)."""

    file: str
    line: int | None = None
    path: str = ""

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where} at {self.path}" if self.path else where


class InputError(HarnessError):
    """One thing wrong with one input file."""

    def __init__(self, place: Place, expected: str, found: str) -> None:
        self.place = place
        self.expected = expected
        self.found = found
        super().__init__(f"{place}: expected {expected}, found {found}")


class InputErrors(HarnessError):
    """Several InputErrors, reported together so one run shows every broken file."""

    def __init__(self, errors: Iterable[InputError]) -> None:
        self.errors = list(errors)
        lines = "\n".join(f"  {e}" for e in self.errors)
        super().__init__(f"{len(self.errors)} input error(s):\n{lines}")


class ConfigError(HarnessError):
    """A bad argument or setting: names the argument and the value given."""

    def __init__(self, argument: str, value: object, expected: str) -> None:
        self.argument = argument
        self.value = value
        self.expected = expected
        given = f"{argument} not given" if value is None else f"{argument}={value!r}"  # never "X=None"
        super().__init__(f"{given}: expected {expected}")


class SubjectError(HarnessError):
    """A subject's pipelines cannot be found, imported or called."""


class MutationError(HarnessError):
    """A declared mutant does not apply, or the mutation engine cannot start."""


class SecretError(HarnessError):
    """A credential was found in bytes about to be written; nothing was written."""

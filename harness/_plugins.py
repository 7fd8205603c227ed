"""Subjects and wires that installed distributions register: the ``harness.subjects`` and
``harness.wires`` entry-point groups.

The harness names no subject. A case file's ``subject:`` is looked up in the suite's own
``subjects:`` table, then among the ``harness.subjects`` entry points of every installed
distribution (the built-in ones come from ``wire-harness-subjects``, the repository's
``subjects/`` folder), then read as ``module:attribute`` naming a ``harness.Subject``.

A wire profile (``harness.Wire``: the endpoint, base body and clean tool of one provider API,
which ``harness cassettes build`` rebuilds recorded rejections in) is one of the harness's own
or one a ``harness.wires`` entry point names. Entry points are read once per process, with
``importlib.metadata``, and a name is imported only when it is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from harness._errors import ConfigError, SubjectError
from harness._model import Subject
from harness._wires import WIRES, Wire

__all__ = [
    "SUBJECT_GROUP",
    "WIRE_GROUP",
    "UnknownSubject",
    "distribution_folders",
    "load_callable",
    "registered_subjects",
    "registered_wires",
    "resolve_subject",
    "wire_for_validator",
]

SUBJECT_GROUP = "harness.subjects"
WIRE_GROUP = "harness.wires"


class UnknownSubject(SubjectError):
    """A subject name no suite table, entry point or ``module:attribute`` provides."""

    def __init__(self, name: str, registered: tuple[str, ...], declared: tuple[str, ...] = ()) -> None:
        self.name = name
        self.registered = registered
        self.declared = declared
        super().__init__(f"unknown subject {name!r}: expected {self.expected}")

    @property
    def expected(self) -> str:
        installed = ", ".join(self.registered) or "none: is wire-harness-subjects installed?"
        own = f"; declared in suite.yaml: {', '.join(self.declared)}" if self.declared else ""
        return f"a registered subject ({SUBJECT_GROUP} entry points: {installed}{own}) or module:attribute"


@dataclass(frozen=True)
class _Registered:
    """One name in a group: where it points and which distribution says so."""

    value: str
    dist: str


def _dist_name(ep: metadata.EntryPoint) -> str:
    dist = ep.dist
    return dist.metadata["Name"] if dist is not None else "?"


@cache
def _group(group: str) -> Mapping[str, _Registered | ConfigError]:
    """name -> where it points; a name two distributions point at different objects is an error,
    kept for the one who asks for that name (an unrelated run is not stopped by it)."""
    out: dict[str, _Registered | ConfigError] = {}
    for ep in metadata.entry_points(group=group):
        seen = out.get(ep.name)
        mine = _Registered(ep.value, _dist_name(ep))
        if isinstance(seen, _Registered) and seen.value != mine.value:
            out[ep.name] = ConfigError(f"entry point {group} {ep.name!r}",
                                       f"{seen.value} ({seen.dist}) and {mine.value} ({mine.dist})",
                                       "one distribution registering each name")
        elif seen is None:
            out[ep.name] = mine
    return out


def registered_subjects() -> tuple[str, ...]:
    """Every subject name the installed distributions register, sorted."""
    return tuple(sorted(_group(SUBJECT_GROUP)))


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


def _registered(group: str, name: str) -> _Registered | None:
    found = _group(group).get(name)
    if isinstance(found, ConfigError):
        raise found
    return found


def resolve_subject(name: str, declared: Mapping[str, Subject] | None = None) -> Subject:
    """The suite's own subject ``name``, else a registered one, else ``module:attribute``."""
    if declared and name in declared:
        return declared[name]
    found = _registered(SUBJECT_GROUP, name)
    spec = found.value if found else (name if ":" in name else "")
    if not spec:
        raise UnknownSubject(name, registered_subjects(), tuple(sorted(declared or {})))
    subject = load_callable(spec)
    if not isinstance(subject, Subject):
        raise SubjectError(f"{spec!r}: expected a harness.Subject, found {type(subject).__name__}")
    return subject


def _plugin_wire(name: str, found: _Registered) -> Wire:
    wire = load_callable(found.value)
    if not isinstance(wire, Wire):
        raise ConfigError(f"entry point {WIRE_GROUP} {name!r} ({found.dist})", found.value,
                          f"a harness.Wire, not {type(wire).__name__}")
    if wire.name != name:
        raise ConfigError(f"entry point {WIRE_GROUP} {name!r} ({found.dist})", f"a Wire named {wire.name!r}",
                          f"a Wire named {name!r}, as the entry point")
    return wire


@cache
def registered_wires() -> Mapping[str, Wire]:
    """The harness's wire profiles and every ``harness.wires`` entry point's, by name. A plugin
    may add a wire, never replace one: a built-in's name is refused, naming the distribution."""
    out = dict(WIRES)
    for name in sorted(_group(WIRE_GROUP)):
        found = _registered(WIRE_GROUP, name)
        assert found is not None
        if name in WIRES:
            raise ConfigError(f"entry point {WIRE_GROUP} {name!r} ({found.dist})", found.value,
                              "a name no built-in wire has")
        out[name] = _plugin_wire(name, found)
    return out


def wire_for_validator(validator: str) -> str:
    """The wire a rule of ``validator`` is rebuilt in when the rule names none ("" if none)."""
    for wire in registered_wires().values():
        if validator in wire.validators:
            return wire.name
    return ""


def distribution_folders(root: Path) -> tuple[Path, ...]:
    """Folders directly under a project root that are distributions of their own (they hold a
    ``pyproject.toml``, as the repository's ``subjects/`` does). Their packages import from
    there, as ``src/``'s do: mutation and ``--old-ref`` put them on the path of the tree they
    run, and ``subjects/pkg/mod.py`` is the module ``pkg.mod``."""
    try:
        return tuple(sorted(d for d in root.iterdir() if d.is_dir() and (d / "pyproject.toml").is_file()))
    except OSError:
        return ()

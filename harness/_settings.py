"""suite.yaml's settings, read once into one frozen, typed value, with every default here.

``Settings`` has a typed field per setting (``settings.timeout_s``, ``settings.rules``...) and
is also a read-only mapping of suite.yaml as written plus the defaults of the globs and the
timeout (``settings["cases"]``, ``settings.get("cassettes")``): stages that still read a
setting by key get the same values as before, and the defaults no longer differ between them.
Sections that other stages own (``subjects``, ``mutation``, ``diverges``) stay raw mappings
here; their loaders type them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from harness._errors import InputError, Place

__all__ = ["DEFAULT_SETTINGS", "Settings", "read_settings"]

FailOn = Literal["introduced", "any"]


def _strings(value: Any) -> tuple[str, ...]:
    """A glob list as suite.yaml may write it: one string or a list of them."""
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value or ())


@dataclass(frozen=True, eq=False)
class Settings(Mapping[str, Any]):
    """One suite's settings. Build with ``Settings.parse(mapping)``; ``Settings()`` is a suite.yaml
    that sets nothing."""

    name: str | None = None
    description: str = ""
    lanes: tuple[str, ...] = ("lanes.yaml", "lanes/*.yaml")
    cases: tuple[str, ...] = ("**/*.cases.yaml",)
    ledgers: tuple[str, ...] = ("**/*.ledger.yaml",)
    rules: tuple[str, ...] = ("**/*.rules.yaml",)
    """Rule globs; an empty list reads as this default (a suite always has the bundled rules)."""
    cassettes: str | None = None
    """The cassettes folder, relative to the suite folder; None: ``cassettes/`` beside or above."""
    read_roots: tuple[str, ...] = ()
    timeout_s: float = 10.0
    """Seconds one pipeline call may take (``harness run --timeout`` overrides)."""
    memory_mb: float | None = None
    """The address space each pipeline may take on top of its worker; None: no ceiling."""
    fail_on_rejections: FailOn = "introduced"
    matrix: tuple[str, ...] = ()
    pin_sets: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    subjects: Mapping[str, Any] = field(default_factory=dict)
    mutation: Mapping[str, Any] = field(default_factory=dict)
    diverges: tuple[Mapping[str, Any], ...] = ()
    _raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Settings:
        """From suite.yaml's mapping (already checked against the suite schema)."""
        if isinstance(raw, Settings):
            return raw
        merged = {**DEFAULT_SETTINGS, **raw}
        return cls(**_globs(merged), **_limits(merged), **_sections(merged), _raw=merged)

    def updated(self, **values: Any) -> Settings:
        """These settings with ``values`` set, as if suite.yaml had said so (a command-line override)."""
        return Settings.parse({**self._raw, **values})

    # the mapping view: suite.yaml as written plus the defaults, for readers by key
    def __getitem__(self, key: str) -> Any:
        return self._view[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._view)

    def __len__(self) -> int:
        return len(self._view)

    @property
    def _view(self) -> Mapping[str, Any]:
        return self._raw or DEFAULT_SETTINGS

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._view) == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def _globs(merged: Mapping[str, Any]) -> dict[str, Any]:
    return {"lanes": _strings(merged["lanes"]), "cases": _strings(merged["cases"]),
            "ledgers": _strings(merged["ledgers"]), "rules": _strings(merged["rules"]) or _DEFAULT.rules,
            "read_roots": _strings(merged.get("read_roots")), "matrix": _strings(merged.get("matrix")),
            "cassettes": str(merged["cassettes"]) if merged.get("cassettes") else None}


def _limits(merged: Mapping[str, Any]) -> dict[str, Any]:
    memory = merged.get("memory_mb")
    return {"timeout_s": float(merged["timeout_s"]), "memory_mb": float(memory) if memory else None,
            "fail_on_rejections": "any" if merged.get("fail_on_rejections") == "any" else "introduced"}


def _sections(merged: Mapping[str, Any]) -> dict[str, Any]:
    """The named sections: kept as written, for the loaders that own them to type."""
    return {"name": merged.get("name"), "description": str(merged.get("description") or ""),
            "pin_sets": {str(k): _strings(v) for k, v in (merged.get("pin_sets") or {}).items()},
            "subjects": dict(merged.get("subjects") or {}), "mutation": dict(merged.get("mutation") or {}),
            "diverges": tuple(merged.get("diverges") or ())}


_DEFAULT = Settings()
DEFAULT_SETTINGS: Mapping[str, Any] = {
    "lanes": list(_DEFAULT.lanes), "cases": list(_DEFAULT.cases), "ledgers": list(_DEFAULT.ledgers),
    "rules": list(_DEFAULT.rules), "timeout_s": _DEFAULT.timeout_s,
}
"""What a suite.yaml that sets nothing reads as, by key: the dataclass's own defaults."""

assert {f.name for f in fields(Settings)} >= set(DEFAULT_SETTINGS)


def read_settings(root: Path, display: str | None = None) -> tuple[Settings, Any]:
    """``root/suite.yaml`` checked against its schema and parsed, with its Document (None when
    the folder has no suite.yaml: every default). Errors name the file as ``display`` (default:
    relative to ``root``)."""
    from harness._common.schemacheck import check  # the schema checker pulls in jsonschema
    from harness._common.yamlsafe import load_document

    path = root / "suite.yaml"
    if path.is_symlink() and not path.exists():  # not "no suite.yaml": every default, silently
        raise InputError(Place(display or "suite.yaml"), "a readable file",
                         "a symlink that leads nowhere (or to itself)")
    if not path.is_file():
        return Settings.parse({}), None
    doc = load_document(path, display=display or _display(path, root))
    check(doc, "suite")
    return Settings.parse(doc.value), doc


def _display(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)

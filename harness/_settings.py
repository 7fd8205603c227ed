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

from harness._catalog import BUNDLED, NONE, RulesSetting
from harness._errors import InputError, Place

__all__ = ["DEFAULT_SETTINGS", "PYPROJECT_TABLE", "Settings", "pyproject_settings", "pyproject_suite", "read_settings"]

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
    rules: RulesSetting = None
    """Rule globs, or ``"none"`` (no rules, on purpose) or ``"bundled"``; None when suite.yaml does
    not say: the suite's own ``**/*.rules.yaml``, else the bundled catalog (``harness._catalog``)."""
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
            "ledgers": _strings(merged["ledgers"]), "rules": _rules(merged.get("rules")),
            "read_roots": _strings(merged.get("read_roots")), "matrix": _strings(merged.get("matrix")),
            "cassettes": str(merged["cassettes"]) if merged.get("cassettes") else None}


def _rules(value: Any) -> RulesSetting:
    """``rules:`` as written: a word (none, bundled), globs (one or a list), or None when not said
    (an empty list too, as it always read: no globs named)."""
    if value is None or value in (NONE, BUNDLED):
        return value  # type: ignore[no-any-return]
    return _strings(value) or None


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
    "timeout_s": _DEFAULT.timeout_s,
}
"""What a suite.yaml that sets nothing reads as, by key: the dataclass's own defaults."""

assert {f.name for f in fields(Settings)} >= set(DEFAULT_SETTINGS)


def read_settings(root: Path, display: str | None = None) -> tuple[Settings, Any]:
    """The suite folder ``root``'s settings, checked against the suite schema and parsed, with
    their Document (None when there are none: every default). They are ``root/suite.yaml``, else
    the ``[tool.wire-harness]`` table of the nearest pyproject.toml at or above ``root`` when its
    ``suite`` names this folder; both at once is bad input (one place says what a suite is).
    Errors name suite.yaml as ``display`` (default: relative to ``root``)."""
    from harness._common.schemacheck import check  # the schema checker pulls in jsonschema
    from harness._common.yamlsafe import load_document

    path = root / "suite.yaml"
    if path.is_symlink() and not path.exists():  # not "no suite.yaml": every default, silently
        raise InputError(Place(display or "suite.yaml"), "a readable file",
                         "a symlink that leads nowhere (or to itself)")
    in_toml = pyproject_settings(root)
    if path.is_file():
        if in_toml is not None:
            raise InputError(Place(display or _display(path, root)), "the suite's settings in one place: suite.yaml "
                             "or pyproject.toml's [tool.wire-harness], not both",
                             f"both ({in_toml.file} names this folder as its suite)")
        doc = load_document(path, display=display or _display(path, root))
    elif in_toml is not None:
        doc = in_toml
    else:
        return Settings.parse({}), None
    check(doc, "suite")
    return Settings.parse(doc.value), doc


PYPROJECT_TABLE = "tool.wire-harness"


def _pyproject_table(path: Path) -> dict[str, Any] | None:
    """``path``'s ``[tool.wire-harness]`` table; None when it has none. TOML that does not parse
    is bad input naming the file."""
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(Place(str(path)), "a pyproject.toml that parses as TOML", str(exc)) from None
    tool = data.get("tool")
    table = tool.get("wire-harness") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise InputError(Place(str(path), None, PYPROJECT_TABLE), "a table", type(table).__name__)
    return table


def pyproject_suite(folder: Path) -> Path | None:
    """The suite folder ``folder/pyproject.toml``'s ``[tool.wire-harness]`` names: its ``suite``
    (relative to that file), else ``folder`` itself; None without such a table."""
    path = folder / "pyproject.toml"
    table = _pyproject_table(path) if path.is_file() else None
    if table is None:
        return None
    suite = table.get("suite", ".")
    if not isinstance(suite, str) or not suite or Path(suite).is_absolute():
        raise InputError(Place(str(path), None, f"{PYPROJECT_TABLE}.suite"),
                         "a folder relative to pyproject.toml (a string)", repr(suite))
    return folder / suite if suite != "." else folder


def pyproject_settings(root: Path) -> Any:
    """The ``[tool.wire-harness]`` table naming the suite folder ``root`` as a Document (its key
    paths under the table's name; ``suite`` left out, ``version`` 1 unless said), from the nearest
    pyproject.toml at or above ``root``; None when that file has no table for this folder."""
    from harness._common.yamlsafe import Document, LineMap

    here = root.resolve()
    for folder in (here, *here.parents):
        path = folder / "pyproject.toml"
        if not path.is_file():
            continue
        named = pyproject_suite(folder)
        if named is None or named.resolve() != here:
            return None
        table = _pyproject_table(path) or {}
        value = {"version": 1, **{k: v for k, v in table.items() if k != "suite"}}
        return Document(f"{_display(path, Path.cwd())} [{PYPROJECT_TABLE}]", value, LineMap())
    return None


def _display(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)

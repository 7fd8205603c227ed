"""Plain vcrpy cassettes: read and write them with vcrpy's own serializer, and the Catalog.

A cassette is vcrpy version-1 YAML (``{version: 1, interactions: [...]}``) with no ``metadata:``
block, so vcrpy and pytest-recording load it unchanged. The Catalog of a suite joins its
cassettes folder, the manifest beside it and the rules, and hands out Interactions: one recorded
request/response each, with its manifest entry and the texts of its response (provider bodies
nest: a gateway carries the upstream body as a JSON string, so texts are collected recursively).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness._catalog import OWN_RULES, catalog_path, rules_source
from harness._errors import ConfigError, InputError, Place
from harness._reject.manifest import Entry, Manifest, load_manifest
from harness._reject.rules import RuleSet, rules_of_suite
from harness._settings import Settings

if TYPE_CHECKING:
    from vcr.request import Request

__all__ = [
    "Catalog",
    "Interaction",
    "cassette_text",
    "cassettes_folder",
    "ensure_suite_folder",
    "load_catalog",
    "read_cassette",
    "response_texts",
    "suite_settings",
]


@dataclass(frozen=True)
class Interaction:
    """One recorded request and response, with its manifest entry."""

    entry: Entry
    method: str
    uri: str
    body: Any
    raw_body: str
    status: int
    response_text: str
    texts: tuple[str, ...]


def read_cassette(path: Path) -> list[tuple[Request, dict[str, Any]]]:
    """The (request, response) pairs of a cassette, as vcrpy itself loads them."""
    from vcr.serialize import deserialize  # here: a suite with no cassettes never imports vcrpy (0.2 CPU s)
    from vcr.serializers import yamlserializer

    try:
        loaded = deserialize(path.read_text(encoding="utf-8"), yamlserializer)
    except Exception as exc:  # vcrpy raises ValueError/KeyError/yaml errors on a broken file
        raise InputError(Place(str(path)), "a vcrpy version-1 cassette", f"{type(exc).__name__}: {exc}") from None
    if len(loaded) != 2:
        raise InputError(Place(str(path)), "a cassette without a metadata block", "a metadata block")
    requests, responses = loaded
    pairs = list(zip(requests, responses, strict=True))
    for i, (req, resp) in enumerate(pairs):
        _check_pair(path, i, req, resp)
    return pairs


_MISSING = object()


def _found(value: Any) -> str:
    """A short description of a wrong value: its type and the start of its repr."""
    if value is _MISSING:
        return "nothing (the key is missing)"
    shown = repr(value)
    return f"{type(value).__name__} {shown[:60]}{'...' if len(shown) > 60 else ''}"


def _bad(path: Path, at: str, key: str, expected: str, value: Any) -> InputError:
    return InputError(Place(str(path), None, f"{at}.{key}"), expected, _found(value))


def _check_pair(path: Path, i: int, req: Request, resp: Any) -> None:
    """vcrpy loads whatever shape the YAML has; refuse here what later code would trip over.

    ``read_cassette`` feeds the catalog, replay and ``harness run``'s preload, so a response
    without a status or a body that is a bare string must be bad input naming its place, not a
    KeyError deep inside the run.
    """
    at = f"interactions[{i}]"
    for key in ("method", "uri"):
        if not isinstance(getattr(req, key, None), str):
            raise _bad(path, at, f"request.{key}", "a string", getattr(req, key, None))
    if not isinstance(resp, Mapping):
        raise _bad(path, at, "response", "a mapping with status, headers and body", resp)
    _check_status(path, at, resp)
    _check_body(path, at, resp)
    headers = resp.get("headers", _MISSING)
    if not isinstance(headers, Mapping):
        raise _bad(path, at, "response.headers", "a mapping of header names to lists of values", headers)


def _check_status(path: Path, at: str, resp: Mapping[str, Any]) -> None:
    status = resp.get("status", _MISSING)
    if not isinstance(status, Mapping):
        raise _bad(path, at, "response.status", "a mapping {code: <int>, message: <str>}", status)
    code = status.get("code", _MISSING)
    if isinstance(code, bool) or not isinstance(code, int):
        raise _bad(path, at, "response.status.code", "an integer HTTP status", code)


def _check_body(path: Path, at: str, resp: Mapping[str, Any]) -> None:
    body = resp.get("body", _MISSING)
    if not isinstance(body, Mapping) or "string" not in body:
        raise _bad(path, at, "response.body", "a mapping {string: <text>}", body)
    if not isinstance(body["string"], (str, bytes, type(None))):
        raise _bad(path, at, "response.body.string", "a string", body["string"])


def cassette_text(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> str:
    """Serialize (request dict, response dict) pairs exactly as vcrpy writes a cassette."""
    from vcr.request import Request
    from vcr.serialize import serialize
    from vcr.serializers import yamlserializer

    requests = [Request._from_dict(req) for req, _ in pairs]
    text: str = serialize({"requests": requests, "responses": [r for _, r in pairs]}, yamlserializer)
    return text


def _body_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def response_texts(text: str) -> tuple[str, ...]:
    """Every string in a response body, descending into strings that are themselves JSON."""
    out: list[str] = []

    def visit(value: Any, depth: int) -> None:
        if isinstance(value, dict):
            for v in value.values():
                visit(v, depth)
        elif isinstance(value, list):
            for v in value:
                visit(v, depth)
        elif isinstance(value, str):
            out.append(value)
            stripped = value.strip()
            # a body may be JSON, or "Prefix - {json}" (LiteLLM, SDK reprs): try both
            start = stripped.find("{") if stripped[:1] not in ("{", "[") else 0
            if depth < 4 and start >= 0:
                with contextlib.suppress(ValueError):
                    visit(json.loads(stripped[start:]), depth + 1)

    try:
        visit(json.loads(text), 0)
    except (ValueError, RecursionError):  # an answer nested past the decoder: its text is all there is
        out[:] = [text]
    return tuple(out)


def _interaction(entry: Entry, req: Request, resp: Mapping[str, Any]) -> Interaction:
    raw = _body_text(req.body)
    try:
        body = json.loads(raw) if raw else None
    except ValueError:
        body = None
    text = _body_text(resp.get("body", {}).get("string"))
    return Interaction(
        entry=entry, method=req.method, uri=req.uri, body=body, raw_body=raw,
        status=int(resp["status"]["code"]), response_text=text, texts=response_texts(text),
    )


@dataclass(frozen=True)
class Catalog:
    """A suite's recorded evidence: rules, manifest and the interactions it points at."""

    folder: str
    rules: RuleSet
    manifest: Manifest
    interactions: tuple[Interaction, ...]
    files: tuple[str, ...]

    def by_id(self) -> dict[str, Interaction]:
        return {i.entry.id: i for i in self.interactions}

    def backing(self, rule_id: str) -> list[Interaction]:
        return [i for i in self.interactions if i.entry.rule == rule_id]


def cassettes_folder(root: Path, settings: Mapping[str, Any]) -> Path:
    """The suite's ``cassettes:`` setting, else ``<suite>/cassettes``, else ``<suite>/../cassettes``."""
    if settings.get("cassettes"):
        return (root / str(settings["cassettes"])).resolve()
    for candidate in (root / "cassettes", root.parent / "cassettes"):
        if candidate.is_dir():
            return candidate.resolve()
    return (root / "cassettes").resolve()


def _setting_line(suite_yaml: Path, key: str) -> int | None:
    """The line of a top-level ``key:`` in suite.yaml, to name it in an error (None if not found)."""
    if not suite_yaml.is_file():
        return None
    for n, line in enumerate(suite_yaml.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if line.startswith((f"{key}:", f'"{key}":')):
            return n
    return None


def _named_folder(base: Path, settings: Mapping[str, Any], folder: Path | None) -> Path:
    """The cassettes folder; one error when the one named explicitly is not there.

    Read as an empty catalog, a mistyped ``cassettes:`` made every receipt of every rule a
    separate "rule-without-receipt" problem (a hundred lines hiding the one real mistake).
    """
    if folder is not None:
        if not folder.is_dir():
            raise ConfigError("--cassettes", str(folder), "an existing cassettes folder")
        return folder
    where = cassettes_folder(base, settings)
    if settings.get("cassettes") and not where.is_dir():
        suite_yaml = base / "suite.yaml"
        raise InputError(Place(str(suite_yaml), _setting_line(suite_yaml, "cassettes"), "cassettes"),
                         "a cassettes folder that exists (relative to the suite folder)",
                         f"{settings['cassettes']!r} -> {where} (missing)")
    return where


def load_catalog(root: Path | str, settings: Mapping[str, Any] | None = None,
                 folder: Path | None = None) -> Catalog:
    """Load rules, manifest and every interaction the manifest names."""
    base = Path(root)
    settings = settings or {}
    if folder is None and not settings.get("cassettes") and rules_source(base, Settings.parse(settings).rules).bundled:
        folder = catalog_path("cassettes")  # the bundled rules' receipts are the bundled cassettes
    where = _named_folder(base, settings, folder)
    rules = rules_of_suite(base, settings)
    manifest = load_manifest(where)
    cache: dict[str, list[Pair]] = {}
    interactions = [_interaction(entry, *_recorded(where, manifest, entry, cache)) for entry in manifest.entries]
    return Catalog(str(where), rules, manifest, tuple(interactions), tuple(_cassette_files(where)))


Pair = tuple["Request", dict[str, Any]]


def _recorded(where: Path, manifest: Manifest, entry: Entry, cache: dict[str, list[Pair]]) -> Pair:
    """The request and response a manifest entry points at, each cassette read once."""
    if entry.cassette not in cache:
        path = where / entry.cassette
        if not path.is_file():
            raise InputError(Place(manifest.file, entry.line, "cassette"), "an existing cassette file",
                             f"{entry.cassette} (missing)")
        cache[entry.cassette] = read_cassette(path)
    pairs = cache[entry.cassette]
    if entry.index >= len(pairs):
        raise InputError(Place(manifest.file, entry.line, "index"),
                         f"an index below {len(pairs)} in {entry.cassette}", str(entry.index))
    return pairs[entry.index]


def _cassette_files(where: Path) -> list[str]:
    """Every cassette under the folder, the manifest aside, by relative path."""
    if not where.is_dir():
        return []
    return sorted(p.relative_to(where).as_posix() for p in where.rglob("*.yaml") if p.name != "manifest.yaml")


def suite_settings(suite: Path) -> Settings:
    """suite.yaml's settings without loading cases: a catalog check or replay needs no pipelines."""
    from harness._settings import read_settings

    return read_settings(suite, display=str(suite / "suite.yaml"))[0]


def _holds_a_suite(folder: Path) -> bool:
    return ((folder / "suite.yaml").is_file() or (folder / "cassettes").is_dir()
            or any(p.is_file() for pat in OWN_RULES for p in folder.glob(str(pat))))


def ensure_suite_folder(suite: Path, option: str = "--suite") -> None:
    """``suite`` is a folder holding a suite.yaml, rules files or a cassettes folder.

    A typo read as an empty suite checks nothing and passes ("ok: 0 rules"): refuse it instead.
    """
    expected = "a suite folder (with suite.yaml, *.rules.yaml files or a cassettes folder)"
    if not suite.is_dir():
        raise ConfigError(option, str(suite), f"{expected}, found {'a file' if suite.exists() else 'nothing'}")
    if not _holds_a_suite(suite):
        raise ConfigError(option, str(suite), f"{expected}, found a folder with none of them")

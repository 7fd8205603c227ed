"""Rules as data: load ``*.rules.yaml`` files into frozen Rule values.

A rule says where to look in a request body (``select``, optionally ``within`` a JSON Schema
whose every subschema is tested), the rejected shape there (``rejects``, a JSON Schema, and/or
a built-in ``predicate``), the stable part of the provider's message (``message``, a regex), the
places the message names (``location`` templates) and the receipts backing it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import regex
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from harness._common.patterns import BoundedPattern, bounded
from harness._common.schemacheck import check
from harness._common.selectors import check_selectors
from harness._common.yamlsafe import Document, load_document
from harness._errors import HarnessError, InputError, InputErrors, Place
from harness._model import Lane
from harness._reject.walk import subschemas
from harness._settings import Settings

__all__ = ["Rule", "RuleSet", "load_rules", "rules_of_suite"]


@dataclass(frozen=True)
class Rule:
    """One rejection signature. ``receipts`` are receipt ids; ``triggers`` per-receipt builder data."""

    id: str
    validator: str
    select: str
    message: str
    receipts: tuple[str, ...]
    rejects: Mapping[str, Any] | bool | None = None
    predicate: Mapping[str, Any] | None = None
    when: Mapping[str, Any] | bool | None = None
    within: str | None = None
    nodes: str = "objects"
    location: tuple[str, ...] = ()
    path_style: str = "selector"
    title: str = ""
    drift: str = ""
    why: str = ""
    wire: str = ""
    upstream: str = ""
    """A gateway rule recorded with one upstream behind the gateway (OpenRouter routing to
    DeepSeek): it applies only to a lane that fronts that upstream too (``meets``)."""
    trigger: Mapping[str, Any] = field(default_factory=dict)
    triggers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    file: str = ""
    line: int | None = None
    # where each listed receipt id stands in the rules file, so a dangling one is named exactly
    receipt_places: tuple[Place, ...] = ()

    def meets(self, fronts: Iterable[str], upstream: str | None = None) -> bool:
        """Whether a request through validators ``fronts`` (routed on to ``upstream`` by a
        translating gateway) meets this rule: the rule's validator is among them and, for a rule
        recorded with an upstream, that upstream is the lane's or among the fronted validators."""
        met = set(fronts)
        return self.validator in met and (not self.upstream or self.upstream in met or self.upstream == upstream)

    @property
    def pattern(self) -> BoundedPattern:
        return bounded(self.message, dotall=True, where=Place(f"rule {self.id}", None, "message"))


@dataclass(frozen=True)
class RuleSet:
    """Every rule of a suite, by id, in file order."""

    rules: tuple[Rule, ...]

    def by_id(self) -> dict[str, Rule]:
        return {r.id: r for r in self.rules}

    def for_validators(self, validators: Iterable[str], upstream: str | None = None) -> tuple[Rule, ...]:
        """The rules a request meets through these validators (a lane's ``fronts``): a gateway
        rule keyed on an upstream only when that upstream is the lane's (``Rule.meets``)."""
        wanted = frozenset(validators)
        return tuple(r for r in self.rules if r.meets(wanted, upstream))

    def for_lane(self, lane: Lane) -> tuple[Rule, ...]:
        """The rules a lane's requests meet: its ``fronts``, and its ``upstream`` for gateway rules."""
        return self.for_validators(lane.fronts, lane.upstream)


def _check_parts(doc: Document, at: str, raw: Mapping[str, Any]) -> None:
    """What the schema cannot say: the regex compiles, the selectors parse, the schemas are schemas."""
    try:
        bounded(raw["message"], dotall=True)
    except (re.error, regex.error) as exc:
        raise InputError(doc.place(f"{at}.message"), "a regular expression", f"{exc}") from None
    check_selectors(raw, ("select", "within"), lambda key: doc.place(f"{at}.{key}"))
    for key in ("rejects", "when"):
        if isinstance(raw.get(key), dict):
            _check_schema(doc, f"{at}.{key}", raw[key])


def _check_schema(doc: Document, at: str, schema: Mapping[str, Any]) -> None:
    """A Draft 2020-12 schema whose every ``$ref`` resolves inside it."""
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise InputError(doc.place(at), "a JSON Schema", exc.message) from None
    _check_refs(doc, at, schema)


def _check_refs(doc: Document, at: str, schema: Mapping[str, Any]) -> None:
    """Every ``$ref`` resolves inside the rule's own schema, now rather than mid-run.

    check_schema accepts ``{$ref: "#/nope"}``; jsonschema only fails (PointerToNowhere) when a
    body reaches it, and would fetch a remote ``$ref`` over the network. The registry here has
    the schema alone and no retrieval, so a dangling or remote reference is bad input at load.
    """
    resource = Resource.from_contents(schema, default_specification=DRAFT202012)
    base = resource.id() or ""
    resolver = Registry().with_resource(base, resource).resolver(base_uri=base)
    for parts, ref in _refs(schema):
        try:
            resolver.lookup(ref)
        except (Unresolvable, ValueError) as exc:
            raise InputError(doc.place(at), "a $ref that points into the rule's own schema",
                             f"{ref!r} at {_json_path([*parts, '$ref'])} ({type(exc).__name__})") from None


def _refs(schema: Any) -> Iterator[tuple[list[str | int], str]]:
    """(path, reference) of every string ``$ref`` in the schema."""
    for parts, node in subschemas(schema):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if isinstance(ref, str):
            yield parts, ref


def _json_path(parts: list[str | int]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")


def _rule(doc: Document, i: int, default_validator: str | None) -> Rule:
    at = f"rules[{i}]"
    raw = doc.value["rules"][i]
    _check_parts(doc, at, raw)
    validator = raw.get("validator") or default_validator
    if not validator:
        raise InputError(doc.place(at), "a validator (on the rule or the file)", "none")
    receipts, triggers = _receipt_ids(raw["receipts"])
    return Rule(
        id=raw["id"], validator=validator, select=raw["select"], message=raw["message"],
        receipts=tuple(receipts), rejects=raw.get("rejects"), predicate=raw.get("predicate"),
        when=raw.get("when"), within=raw.get("within"), nodes=raw.get("nodes", "objects"),
        location=tuple(raw.get("location", ())), path_style=raw.get("path_style", "selector"),
        title=raw.get("title", ""), drift=raw.get("drift", ""), why=raw.get("why", ""),
        wire=raw.get("wire", ""), upstream=raw.get("upstream", ""), trigger=raw.get("trigger", {}), triggers=triggers,
        file=doc.file, line=doc.lines.line_of(at),
        receipt_places=tuple(doc.place(f"{at}.receipts[{j}]") for j in range(len(receipts))),
    )


def _receipt_ids(items: list[Any]) -> tuple[list[str], dict[str, Mapping[str, Any]]]:
    """A rule's receipt ids in order, and the builder trigger of each receipt that has one."""
    receipts: list[str] = []
    triggers: dict[str, Mapping[str, Any]] = {}
    for item in items:
        rid = item if isinstance(item, str) else item["id"]
        receipts.append(rid)
        if isinstance(item, dict) and "trigger" in item:
            triggers[rid] = item["trigger"]
    return receipts, triggers


def load_rules(paths: Iterable[Path], root: Path | None = None) -> RuleSet:
    """Load and check rules files; InputErrors lists every problem in every file."""
    errors: list[InputError] = []
    rules: list[Rule] = []
    seen: dict[str, Rule] = {}
    for path in paths:
        display = _display(path, root)
        try:
            rules += _file_rules(path, display, seen)
        except HarnessError as exc:
            errors += _input_errors(exc, display)
    if errors:
        raise InputErrors(errors)
    return RuleSet(tuple(rules))


def _input_errors(exc: HarnessError, display: str) -> list[InputError]:
    """What went wrong with one rules file, as input errors (a file that would not load is one)."""
    if isinstance(exc, InputErrors):
        return list(exc.errors)
    if isinstance(exc, InputError):
        return [exc]
    return [InputError(Place(display), "a loadable rules file", str(exc))]


def _file_rules(path: Path, display: str, seen: dict[str, Rule]) -> list[Rule]:
    """The rules of one file, each id unique among those ``seen`` so far (which it joins)."""
    doc = load_document(path, display=display)
    check(doc, "rules")
    found: list[Rule] = []
    for i in range(len(doc.value["rules"])):
        rule = _rule(doc, i, doc.value.get("validator"))
        if rule.id in seen:
            other = seen[rule.id]
            raise InputError(doc.place(f"rules[{i}].id"), "a rule id unique in the suite",
                             f"{rule.id!r}, also at {other.file}:{other.line}")
        seen[rule.id] = rule
        found.append(rule)
    return found


def _display(path: Path, root: Path | None) -> str:
    if root is None:
        return str(path)
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def rules_of_suite(root: Path | str, settings: Mapping[str, Any]) -> RuleSet:
    """The rules a suite's settings name (``rules:`` globs; ``none``; ``bundled``, also when it
    says nothing and holds no ``*.rules.yaml``: harness._catalog.rules_source). Globs that find no
    rules file are bad input: every body would pass a check against nothing, and only
    ``rules: none`` says that on purpose."""
    from harness._catalog import rules_source
    from harness._common.files import suite_files

    source = rules_source(Path(root), Settings.parse(settings).rules)
    # not confined: suites share a rules catalog by relative glob (examples/ use ../../cases/rules)
    found = suite_files(source.folder, list(source.globs), Place("suite.yaml", None, "rules"))
    if not found and not source.on_purpose:
        raise _no_rules(Path(root), source.globs)
    # the bundled files named from the catalog folder (rules/x.rules.yaml), though in a checkout
    # they resolve to links' targets elsewhere
    return load_rules(found, found[0].parent.parent if source.bundled and found else Path(root))


def _no_rules(root: Path, globs: tuple[str, ...]) -> InputError:
    from harness._settings import pyproject_settings

    suite_yaml = root / "suite.yaml"
    line, file = None, str(suite_yaml)
    if suite_yaml.is_file():
        texts = suite_yaml.read_text(encoding="utf-8", errors="replace").splitlines()
        line = next((n for n, text in enumerate(texts, 1) if text.startswith(("rules:", '"rules":'))), None)
    elif (in_toml := pyproject_settings(root)) is not None:
        file = in_toml.file
    return InputError(
        Place(file, line, "rules"),
        "rules files for the rejection checks: globs that match *.rules.yaml files, no rules: key (the "
        "bundled catalog of recorded rejections), or rules: none to check bodies against no rules on purpose",
        f"{list(globs)} matching no file under {root.resolve()}")

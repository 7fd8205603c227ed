"""Import a whole OpenAPI 3.0/3.1 document: tools plus a summary of what was skipped and why.

Outcomes, from mildest to hardest (seed 002, "Untrusted documents"):
  - a response schema over a bound, or past the response budget: dropped (the tool stays);
  - an operation over a per-operation bound, with a non-JSON body, or over the fields budget:
    skipped, with the reason in the summary;
  - a remote ``$ref``, a bad path key, a server URL with credentials, a document over the
    document-wide bounds, a malformed shape (a value without the type the importer reads, a
    recursive $ref between parameters, bodies, responses or path items): the import is refused
    with one InputError naming the place (key path, and line) where the shape is wrong.
Never a hang: every walk is bounded by a count or a depth, and every bound is checked as
values are built, not afterwards.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness._common.documents import made_once, parsed_once
from harness._common.yamlsafe import Document, load_document
from harness._errors import InputError, Place
from harness._sources.openapi.bounds import (
    MAX_DOCUMENT_VALUES,
    Budgets,
    OverBound,
    Sizes,
    count_values,
)
from harness._sources.openapi.checks import path_key_problem, placeholders, server_problem
from harness._sources.openapi.operations import (
    NotJson,
    Operation,
    Parameter,
    collect_operations,
    input_schema,
    parameters,
    root_composition,
    success_schemas,
)
from harness._sources.openapi.quickjson import Counted, quick_json
from harness._sources.openapi.refs import BadRef, BudgetSpent, Inliner, RemoteRef
from harness._sources.openapi.shapes import Malformed, child, describe, first_non_json, place_of

__all__ = ["ImportResult", "Skipped", "import_document", "import_value", "load_openapi"]


@dataclass(frozen=True)
class Skipped:
    """One operation left out (or one response schema dropped), and why."""

    name: str
    method: str
    path: str
    reason: str

    @classmethod
    def of(cls, op: Operation, reason: str) -> Skipped:
        return cls(op.name, op.method, op.path, reason)

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "method": self.method, "path": self.path, "reason": self.reason}


@dataclass
class ImportResult:
    """What an import produced: the tools and everything it left out, with reasons."""

    file: str
    version: str
    values: int
    operations: int
    tools: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    dropped_responses: list[Skipped] = field(default_factory=list)
    duplicated_ids: list[str] = field(default_factory=list)
    body_compositions: list[str] = field(default_factory=list)

    @property
    def root_compositions(self) -> list[str]:
        """Tools whose input schema carries oneOf/anyOf/allOf at its root (an object body's
        composition carried over). ``body_compositions`` also counts composition-only bodies,
        which seed 002 wraps as one ``body`` field."""
        return [t["name"] for t in self.tools if root_composition(t["input_schema"])]

    def warnings(self) -> list[str]:
        """At most three lines, each naming the first five entries (seed 002's log contract)."""
        lines = (
            ("duplicated operationIds", self.duplicated_ids),
            ("skipped operations", [f"{s.name} ({s.reason})" for s in self.skipped]),
            ("dropped response schemas", [f"{s.name} ({s.reason})" for s in self.dropped_responses]),
        )
        return [_warning(what, names) for what, names in lines if names]

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "openapi": self.version,
            "values": self.values,
            "operations": self.operations,
            "tools": len(self.tools),
            "skipped": [s.as_dict() for s in self.skipped],
            "dropped_responses": [s.as_dict() for s in self.dropped_responses],
            "duplicated_operation_ids": self.duplicated_ids,
            "root_compositions": self.root_compositions,
            "body_compositions": self.body_compositions,
        }


def _warning(what: str, names: list[str]) -> str:
    more = f" and {len(names) - 5} more" if len(names) > 5 else ""
    return f"{len(names)} {what}: {', '.join(names[:5])}{more}"


def load_openapi(path: Path, display: str | None = None, max_values: int = MAX_DOCUMENT_VALUES) -> Document:
    """Load a JSON or YAML document within the document-wide value bound."""
    name = display or str(path)
    quick = quick_json(path, name, max_values) if path.suffix == ".json" else None
    return quick or _strict(path, name, max_values)


def _strict(path: Path, name: str, max_values: int) -> Document:
    """The strict reader's value (JSON or YAML), or its InputError said in OpenAPI's terms."""
    try:
        doc = load_document(path, display=name, max_nodes=max_values, numeric_keys=True)
    except RecursionError:
        raise InputError(Place(name), "a document nested at most 200 deep", "deeper") from None
    except InputError as exc:
        if exc.expected == "a string key" and exc.found.startswith("int "):  # the common case
            raise InputError(exc.place, "a string key (OpenAPI asks YAML to quote status codes: '200':)",
                             exc.found) from None
        raise
    return doc


def _refuse(doc: Document, where: str, expected: str, found: str) -> InputError:
    """One InputError at ``where`` (a key path, or the #/pointer of a ref's target)."""
    return InputError(doc.place(place_of(doc.value, where)), expected, found)


def _refuse_shape(doc: Document, exc: Malformed) -> InputError:
    via = f" (reached by the $ref at {place_of(doc.value, exc.via)})" if exc.via else ""
    return _refuse(doc, exc.where, exc.expected + via, exc.found)


_DOCUMENT = "an OpenAPI 3.x document (an object with openapi and paths)"


def _check_document(doc: Document) -> str:
    """The document's OpenAPI version, once its top level passes every document-wide check."""
    value = doc.value
    if not isinstance(value, dict):
        raise _refuse(doc, "", _DOCUMENT, "an empty document" if value is None else describe(value))
    version = _version(doc, value)
    _check_paths(doc, value, version)
    problem = server_problem(value)
    if problem:
        raise _refuse(doc, *problem)
    return version


def _version(doc: Document, value: dict[str, Any]) -> str:
    version = value.get("openapi")
    if isinstance(version, str) and version[:4] in ("3.0.", "3.1."):
        return version
    raise _refuse(doc, "openapi", "an OpenAPI 3.0 or 3.1 document (openapi: \"3.0.x\" or \"3.1.x\", quoted)",
                  _not_openapi(value))


def _not_openapi(value: dict[str, Any]) -> str:
    """What a document without an OpenAPI 3.x version says it is instead (Swagger 2, often)."""
    swagger = value.get("swagger")
    if isinstance(swagger, str):
        return f"swagger {swagger[:20]}"
    if "swagger" in value:
        return f"swagger: {describe(swagger)}"
    return "no openapi key" if "openapi" not in value else describe(value["openapi"])


def _check_paths(doc: Document, value: dict[str, Any], version: str) -> None:
    if "paths" not in value and version.startswith("3.1."):
        return  # 3.1 may leave paths out (webhooks or components only)
    paths = value.get("paths")
    if not isinstance(paths, dict):
        found = describe(paths) if "paths" in value else "no paths key"
        raise _refuse(doc, "paths", "paths: an object (path -> path item)", found)
    _check_path_keys(doc, paths)


def _check_path_keys(doc: Document, paths: dict[str, Any]) -> None:
    for key in paths:
        problem = path_key_problem(str(key))
        if problem:
            raise _refuse(doc, child("paths", key), "a plain absolute path", problem)


def _check_placeholders(doc: Document, op: Operation, params: list[Parameter]) -> None:
    wanted = sorted(set(placeholders(op.path)))
    found = sorted({p["name"] for p, _ in params if p["in"] == "path"})
    if wanted != found:
        raise _refuse(doc, op.where, f"path parameters matching the placeholders {wanted}",
                      f"path parameters {found}")


class _Run:
    def __init__(self, doc: Document, budgets: Budgets) -> None:
        self.doc = doc
        self.root: dict[str, Any] = doc.value
        self.budgets = budgets
        self.inliner = Inliner(self.root, budgets)
        self.sizes = Sizes()
        self.responses_off: str | None = None

    def _malformed(self, op: Operation, exc: RemoteRef | BadRef | BudgetSpent | Malformed) -> InputError:
        """One InputError: at the place a shape check named, else at the operation (a schema
        ref is found while inlining, which does not track key paths)."""
        if isinstance(exc, Malformed):
            return _refuse_shape(self.doc, exc)
        if isinstance(exc, RemoteRef):
            return _refuse(self.doc, op.where, "only local $refs (the harness never fetches)",
                           f"$ref {str(exc)[:80]!r}")
        if isinstance(exc, BudgetSpent):
            return _refuse(self.doc, op.where, "a document within the inlining budget", exc.reason)
        return _refuse(self.doc, op.where, "a $ref naming a place in the document", f"{str(exc)[:80]!r}")

    def parameters(self, op: Operation) -> list[Parameter]:
        try:
            return parameters(self.root, op)
        except (RemoteRef, BadRef, Malformed) as exc:
            raise self._malformed(op, exc) from None

    def _input(self, op: Operation, params: list[Parameter], result: ImportResult) -> tuple[dict[str, Any], int] | None:
        """(input schema, its expanded size), or None when the operation is skipped."""
        self.inliner.start_operation()
        try:
            schema = input_schema(self.inliner, self.root, op, params)
            return schema, self.sizes.check(schema)
        except (BudgetSpent, RemoteRef, BadRef, Malformed) as exc:  # BudgetSpent before OverBound
            raise self._malformed(op, exc) from None
        except (NotJson, OverBound) as exc:
            result.skipped.append(Skipped.of(op, str(exc)))
            return None

    def tool(self, op: Operation, result: ImportResult) -> None:
        """Add ``op``'s tool to ``result``, or the reason it was skipped."""
        params = self.parameters(op)  # read once: the placeholder check and the tool share them
        _check_placeholders(self.doc, op, params)
        built = self._input(op, params, result)
        if built is None:
            return
        schema, size = built
        if op.body_composition:
            result.body_compositions.append(op.name)
        fields = len(schema["properties"])
        if self.budgets.fields + fields > self.budgets.fields_limit:
            reason = f"over the fields budget ({self.budgets.fields_limit:,} top-level fields)"
            result.skipped.append(Skipped.of(op, reason))
            return
        if not self.budgets.take_held([schema], size):
            raise self._malformed(op, BudgetSpent("input", self.budgets.held_limit))
        self.budgets.fields += fields
        result.tools.append({
            "name": op.name,
            "description": _description(op.raw),
            "input_schema": schema,
            "openapi": {
                "operation_id": op.operation_id, "method": op.method, "path": op.path,
                "responses": self._responses(op, result),
            },
        })

    def _responses(self, op: Operation, result: ImportResult) -> dict[str, Any]:
        """The 2xx JSON response schemas, or ``{}`` with the reason they were dropped."""
        try:
            return self._success(op)
        except OverBound as exc:
            result.dropped_responses.append(Skipped.of(op, exc.reason))
            return {}

    def _success(self, op: Operation) -> dict[str, Any]:
        """``_responses`` within the bounds and budgets; OverBound with the reason if not."""
        if self.responses_off:
            raise OverBound(self.responses_off)
        self.inliner.start_operation()
        try:
            schemas = success_schemas(self.inliner, self.root, op)
            size = self.sizes.check(*schemas.values())
        except (RemoteRef, BadRef, Malformed) as exc:
            raise self._malformed(op, exc) from None
        except BudgetSpent as exc:  # spent for the rest of the document
            self.responses_off = exc.reason
            raise
        if not self.budgets.take_held(list(schemas.values()), size):
            raise OverBound(f"over the held-values budget ({self.budgets.held_limit:,})")
        return schemas


def _description(raw: dict[str, Any]) -> str:
    for key in ("description", "summary"):
        if isinstance(raw.get(key), str) and raw[key].strip():
            return str(raw[key])
    return ""


def _select(doc: Document, survey: _Survey, wanted: list[str] | None, place: Place) -> list[Operation]:
    if not wanted:
        return list(survey.ops)
    chosen = {survey.order[id(op)]: op for name in wanted for op in _named(doc, survey, name, place)}
    return [chosen[at] for at in sorted(chosen)]  # document order


def _named(doc: Document, survey: _Survey, name: str, place: Place) -> list[Operation]:
    """The operations ``name`` picks (an operationId or a method_path key); InputError if none."""
    found = survey.by_key.get(name)
    if not found:
        known = ", ".join(op.operation_id or op.name for op in survey.ops[:8])
        raise InputError(place, f"operationIds or method_path keys of {doc.file} ({known}...)", repr(name))
    return found


@dataclass(frozen=True)
class _Survey:
    """What an import reads of the whole document, whichever operations it then builds."""

    version: str
    values: int
    ops: list[Operation]
    duplicated: list[str]
    value: Any  # the document's value, held so that the id keying this survey stays its own
    by_key: dict[str, list[Operation]] = field(default_factory=dict)  # what each name picks
    order: dict[int, int] = field(default_factory=dict)  # by the operation's id: its place in ``ops``


def _survey(doc: Document, max_values: int) -> _Survey:
    version = _check_document(doc)
    values = _counted(doc, max_values)
    try:
        ops = collect_operations(doc.value)
    except Malformed as exc:
        raise _refuse_shape(doc, exc) from None
    survey = _Survey(version, values, ops, _duplicated(ops), doc.value)
    for at, op in enumerate(ops):
        survey.order[id(op)] = at
        for key in op.keys:
            survey.by_key.setdefault(key, []).append(op)
    return survey


def _surveyed(doc: Document, max_values: int) -> _Survey:
    """``_survey``, made once per document within a suite's load (``made_once``): each case
    importing one operation of a document would otherwise walk all of it again. A refusal is
    kept too, and said again to every case."""
    def survey() -> _Survey | InputError:
        try:
            return _survey(doc, max_values)
        except InputError as exc:
            return exc

    found = made_once(("openapi survey", id(doc.value), doc.file, max_values), survey)
    if isinstance(found, InputError):  # a new one for each case (a raise adds to an error's traceback)
        raise InputError(found.place, found.expected, found.found) from None
    return found


def import_value(doc: Document, operations: list[str] | None = None, place: Place | None = None,
                 max_values: int = MAX_DOCUMENT_VALUES) -> ImportResult:
    """Import an already loaded document (see ``import_document``)."""
    survey = _surveyed(doc, max_values)
    result = ImportResult(doc.file, survey.version, survey.values, len(survey.ops),
                          duplicated_ids=list(survey.duplicated))  # the survey's own stays as it is
    run = _Run(doc, Budgets.for_document(survey.values))
    for op in _select(doc, survey, operations, place or Place(doc.file)):
        run.tool(op, result)
    return result


def _counted(doc: Document, max_values: int) -> int:
    """The values in the document (counted while loading when it came through ``quick_json``);
    InputError past ``max_values`` or at a value JSON cannot hold."""
    values, odd = (doc.values, False) if isinstance(doc, Counted) else count_values(doc.value, max_values)
    if values > max_values:
        raise _refuse(doc, "", f"at most {max_values:,} values", "more")
    if odd:
        _refuse_non_json(doc)
    return values


def _duplicated(ops: list[Operation]) -> list[str]:
    counts = Counter(op.operation_id for op in ops if op.operation_id)
    return sorted(i for i, n in counts.items() if n > 1)


def _refuse_non_json(doc: Document) -> None:
    found = first_non_json(doc.value)
    if found is not None:
        raise _refuse(doc, found[0], "JSON values only (NaN or infinity has no JSON form)",
                      describe(found[1]))


def import_document(path: Path, operations: list[str] | None = None, place: Place | None = None,
                    display: str | None = None, max_values: int = MAX_DOCUMENT_VALUES) -> ImportResult:
    """Load and import ``path``; InputError when the document is refused as a whole. Within a
    suite's load the document is parsed once however many cases import from it (the import
    builds each case's tools afresh, so none shares a value with another).

    ``max_values`` lowers the document-wide bound (tests use it to stay fast)."""
    name = display or str(path)
    with collector_paused():
        doc = parsed_once(("openapi", path.resolve(), max_values), name, lambda: load_openapi(path, name, max_values))
        return import_value(doc, operations, place, max_values)


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection meanwhile: an import builds hundreds of thousands of
    acyclic values, and each collection would rescan all those kept so far (a third of a big
    import's time) to find nothing."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()

"""Load a suite folder: ``suite.yaml``, the lanes file and every case file.

Every file is checked against its shipped schema, then against the others (a case naming an
unknown lane, two cases with one id). Errors from all files are gathered and raised together as
InputErrors, so one run shows everything that is wrong. Later stages read extra sections
(``rules``, ``ledgers``, ``cassettes``) from ``Suite.settings`` through their own loaders.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from harness._common.documents import read_once
from harness._common.yamlsafe import Document
from harness._errors import HarnessError, InputError, InputErrors, Place, SubjectError
from harness._load.above import lane_allowances, with_above
from harness._load.cases import case_file, load_checked
from harness._load.imports import probe_import
from harness._load.places import Errors, from_here, rel
from harness._model import Case, Lane, PipelineSpec, Subject, Suite
from harness._plugins import load_callable, resolve_subject
from harness._provision import package_side, requirement_problems
from harness._provision.released import REQUIREMENT
from harness._settings import Settings, read_settings

__all__ = ["declared_subjects", "load_suite", "python_pins"]

def _forget_foreign(module: str, root: Path) -> None:
    """Drop a cached module of this name that came from outside this suite (another suite loaded
    in the same process), so this suite's own file is the one imported."""
    cached = sys.modules.get(module)
    origin = getattr(cached, "__file__", None)
    if cached is not None and origin and not Path(origin).resolve().is_relative_to(root.resolve()):
        del sys.modules[module]


def _own_calls(doc: Document | None, settings: Settings) -> Iterator[tuple[Place, str]]:
    """Each in-process callable suite.yaml's subjects name (``module:function``), with its place;
    a side that is absent, or a pipeline outside this process, has nothing to import here."""
    for name, spec in settings.subjects.items():
        for role in ("old", "new", "refeed"):
            if isinstance(spec.get(role), str):
                yield (doc.place(f"subjects.{name}.{role}") if doc else Place("suite.yaml")), spec[role]


def _probed(module: str, place: Place, probed: dict[str, str | None], timeout: float, errors: Errors) -> bool:
    """Whether ``module`` imports cleanly in a child (see load.imports): probed once, and a failure
    said once, at the first place that names the module."""
    if module not in probed:
        probed[module] = probe_import(module, timeout)
        if probed[module]:
            errors.add(InputError(place, "a pipeline module that imports", str(probed[module])))
    return not probed[module]


def _check_imports(doc: Document | None, settings: Settings, errors: Errors, root: Path) -> None:
    """Each module a suite's own subjects name imports, in a child first, then here (safe now:
    it imported cleanly in the child), and defines the callable named."""
    probed: dict[str, str | None] = {}
    for place, call in _own_calls(doc, settings):
        module = call.partition(":")[0]
        if not _probed(module, place, probed, settings.timeout_s, errors):
            continue
        _forget_foreign(module, root)
        try:
            load_callable(call)
        except SubjectError as exc:
            errors.add(InputError(place, "a callable the module defines", str(exc)))


def _check_requirements(doc: Document | None, settings: Settings, errors: Errors) -> None:
    """A ``package:`` side's package and requirements go to pip's command line: each must be a
    requirement specifier, never an option, a path or a URL (harness._provision.released)."""
    for name, spec in settings.subjects.items():
        for role in ("old", "new"):
            for key, problem in requirement_problems(spec.get(role)):
                at = f"subjects.{name}.{role}.{key}"
                errors.add(InputError(doc.place(at) if doc else Place("suite.yaml", None, at), REQUIREMENT, problem))


def _pipeline(raw: str | dict[str, Any], role: str, root: Path) -> PipelineSpec:
    """A side as declared in suite.yaml, paths resolved against the suite folder."""
    if isinstance(raw, str):
        return PipelineSpec(kind="python", call=raw, root=str(root.resolve()))
    return _built_elsewhere(raw, role, root) or _program_side(raw, role, root)


def _built_elsewhere(raw: dict[str, Any], role: str, root: Path) -> PipelineSpec | None:
    """A side another package builds: a gateway on loopback in front of the capture server, a
    released version (an environment the harness provisions), a whole HTTP client."""
    if "gateway" in raw:
        from harness._pipeline.capture.gateway import gateway_side

        return gateway_side(raw, role, root)
    if "package" in raw:
        return package_side(raw, role, root)
    if "client" in raw or "transport" in raw:
        from harness._pipeline.capture import client_side

        return client_side(raw, role, root)
    return None


def _python_path(raw: dict[str, Any], root: Path) -> str | None:
    """The side's interpreter: a path (``./venv/bin/python``) made absolute against the suite
    folder, its folders resolved but never its last link. A virtualenv's ``bin/python`` is a
    symlink to the base interpreter, and Python finds the venv (its ``pyvenv.cfg``, so its
    site-packages) from the path it was started by: following the link runs the base interpreter
    without the venv's packages."""
    python = raw.get("python")
    if python and ("/" in python or python.startswith(".")):
        given = root / python
        return str(given.parent.resolve() / given.name)
    return python


def _program_side(raw: dict[str, Any], role: str, root: Path) -> PipelineSpec:
    """A command speaking the protocol, or a callable in another interpreter (or this one)."""
    program = "command" in raw
    return PipelineSpec(
        kind="command" if program else "python", call=raw.get("call"), command=tuple(raw.get("command", ())),
        name=raw.get("name", role if program else ""),
        python=_python_path(raw, root), cwd=str((root / raw.get("cwd", ".")).resolve()),
        path=tuple(str((root / p).resolve()) for p in raw.get("path", ())), setup=raw.get("setup"),
        env=tuple(sorted(raw.get("env", {}).items())), root=str(root.resolve()),
        start_timeout_s=float(raw.get("start_timeout_s", 60.0)),
    )


def declared_subjects(settings: Mapping[str, Any], root: Path) -> dict[str, Subject]:
    """The subjects ``suite.yaml`` declares, by name."""
    out: dict[str, Subject] = {}
    for name, spec in settings.get("subjects", {}).items():
        sides = {role: _pipeline(spec[role], role, root) for role in ("old", "new")}
        out[name] = Subject(
            name=name, old=sides["old"].label(), new=sides["new"].label(), wires=frozenset(spec["wires"]),
            description=spec.get("description", ""), refeed=spec.get("refeed"),
            input_keys=frozenset(spec.get("input_keys", ())),
            output=spec.get("output", "request-body"), input_schema=spec.get("input_schema"),
            pipelines=sides,
        )
    return out


def _lanes(doc: Document) -> dict[str, Lane]:
    lanes: dict[str, Lane] = {}
    for i, raw in enumerate(doc.value["lanes"]):
        place = doc.place(f"lanes[{i}]")
        if raw["id"] in lanes:
            raise InputError(doc.place(f"lanes[{i}].id"), "a unique lane id", f"a second {raw['id']!r}")
        lanes[raw["id"]] = Lane(
            id=raw["id"], wire=raw["wire"], provider=raw["provider"],
            base_url=raw.get("base_url"), model=raw.get("model"), title=raw.get("title", ""),
            options=raw.get("options", {}), fronts=tuple(raw.get("fronts", ())), upstream=raw.get("upstream"),
            file=doc.file, line=place.line, diverges=lane_allowances(raw, raw["id"]),
        )
    return lanes


def python_pins(root: Path) -> list[Path]:
    """The suite folder's files pytest would collect tests from, by the project's own naming."""
    from harness._common.files import project_root
    from harness._common.pytest_names import naming, pin_files  # pytest's config reader, only when asked

    return pin_files(root, naming(root, project_root(root.resolve())))


def _globbed(root: Path, patterns: list[str], roots: tuple[Path, ...] = ()) -> list[Path]:
    from harness._common.files import suite_files  # harness._sources imports harness._load

    return suite_files(root, patterns, Place(rel(root / "suite.yaml", root)), roots or None)


def load_suite(root: Path | str) -> Suite:
    """Load the suite folder ``root``; raises InputErrors with every problem found."""
    folder = _suite_folder(root)
    try:
        with read_once():  # a tools file many cases pick from is parsed once
            return _load(folder)
    except InputErrors as exc:
        raise InputErrors([from_here(err, folder) for err in exc.errors]) from None
    except InputError as exc:
        raise from_here(exc, folder) from None


def _suite_folder(root: Path | str) -> Path:
    root = Path(root)
    if not root.is_dir():
        raise InputError(Place(str(root)), "a suite folder", "a file" if root.exists() else "no such folder")
    return root


def _import_first(root: Path) -> None:
    """A suite's own pipelines (``subjects:`` in suite.yaml) import from the suite folder: put
    it first on the path, so its modules win over another suite's. Then the project root (and
    its ``src/``: ``import_roots``), so a pipeline names the user's own package (``mypkg.client:
    build``) as plain pytest there and ``--old-ref`` let it, without PYTHONPATH."""
    from harness._common.files import import_roots  # harness._sources imports harness._load

    here = str(root.resolve())
    if here in sys.path:
        sys.path.remove(here)
    sys.path.insert(0, here)
    for n, folder in enumerate(import_roots(root), 1):
        if str(folder) not in sys.path:
            sys.path.insert(n, str(folder))


def _raise_if_any(errors: Errors) -> None:
    if errors.items:
        raise InputErrors(errors.items)


def _load(root: Path) -> Suite:
    errors = Errors()
    _import_first(root)
    settings, settings_doc = read_settings(root)
    _check_requirements(settings_doc, settings, errors)
    _check_imports(settings_doc, settings, errors, root)
    _raise_if_any(errors)
    declared = declared_subjects(settings, root)
    from harness._common.files import read_roots  # harness._sources imports harness._load

    roots = read_roots(root, settings)
    lanes = _suite_lanes(root, settings, settings_doc, roots, errors)
    cases = _suite_cases(root, settings, settings_doc, roots, lanes, declared, errors)
    _unique_case_ids(cases, errors)
    _raise_if_any(errors)
    cases = [with_above(case, settings, lanes) for case in cases]  # suite.yaml's and lanes' diverges:
    subjects = {c.subject: resolve_subject(c.subject, declared) for c in cases}
    return Suite(
        root=str(root.resolve()), name=settings.name or root.resolve().name, lanes=lanes,
        subjects=subjects, cases=tuple(cases), settings=settings,
    )


def _suite_lanes(root: Path, settings: Settings, settings_doc: Document | None, roots: tuple[Path, ...],
                 errors: Errors) -> dict[str, Lane]:
    """Every lane of every lanes file, ids unique across files."""
    lanes: dict[str, Lane] = {}
    lane_files = _globbed(root, list(settings.lanes), roots)
    if not lane_files and _needs_lanes(root, settings, settings_doc, roots):  # said as suite.yaml wrote it
        errors.add(InputError(Place(str(root)), f"a lanes file matching {settings['lanes']}", "none"))
    for path in lane_files:
        try:
            _add_lanes(lanes, _lanes(load_checked(path, root, "lanes")))
        except HarnessError as exc:
            errors.add(exc)
    return lanes


def _needs_lanes(root: Path, settings: Settings, settings_doc: Document | None, roots: tuple[Path, ...]) -> bool:
    """Lanes are what cases run on: a suite of Python pins only needs none, unless it names some."""
    if settings_doc is not None and "lanes" in settings_doc.value:
        return True
    return bool(_globbed(root, settings["cases"], roots))


def _add_lanes(lanes: dict[str, Lane], found: dict[str, Lane]) -> None:
    for lane_id, lane in found.items():
        if lane_id in lanes:
            raise InputError(Place(lane.file, lane.line, "id"), "a lane id unique in the suite",
                             f"{lane_id!r}, also in {lanes[lane_id].file}")
        lanes[lane_id] = lane


def _suite_cases(root: Path, settings: Settings, settings_doc: Document | None, roots: tuple[Path, ...],
                 lanes: dict[str, Lane], declared: dict[str, Subject], errors: Errors) -> list[Case]:
    """Every case of every case file; a suite with no case file where it needs one is an error."""
    case_files = _globbed(root, settings["cases"], roots)
    if not case_files and _needs_case_files(root, settings, settings_doc):
        where = settings_doc.place("cases") if settings_doc else Place(str(root), None, "cases")
        errors.add(InputError(where, f"case files matching {settings['cases']}", "no file"))
    cases: list[Case] = []
    for path in case_files:
        cases.extend(case_file(path, root, lanes, declared, errors, roots))
    return cases


def _needs_case_files(root: Path, settings: Settings, settings_doc: Document | None) -> bool:
    """No case file is an error when the suite names its case globs or has nothing else to run;
    a suite of Python pins only (module pins, a mutation-only suite) legitimately has none."""
    if settings_doc is None or "cases" in settings_doc.value:
        return True
    return not ("mutation" in settings or python_pins(root))


def _unique_case_ids(cases: list[Case], errors: Errors) -> None:
    seen: dict[str, Case] = {}
    for case in cases:
        if case.id in seen:
            errors.add(InputError(Place(case.file, case.line, "id"), "a case id unique in the suite",
                                  f"{case.id!r}, also at {seen[case.id].file}:{seen[case.id].line}"))
        seen[case.id] = case

"""Load a suite folder: ``suite.yaml``, the lanes file and every case file.

Every file is checked against its shipped schema, then against the others (a case naming an
unknown lane, two cases with one id). Errors from all files are gathered and raised together as
InputErrors, so one run shows everything that is wrong. Later stages read extra sections
(``rules``, ``ledgers``, ``cassettes``) from ``Suite.settings`` through their own loaders.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from harness._common.documents import read_once
from harness._common.schemacheck import check, check_value
from harness._common.selectors import check_selectors, select
from harness._common.yamlsafe import Document, load_document
from harness._errors import HarnessError, InputError, InputErrors, Place, SubjectError
from harness._load.above import lane_allowances, with_above
from harness._load.imports import probe_import
from harness._load.places import Errors, from_here, rel
from harness._model import Case, Expectation, Lane, PinSpec, PipelineSpec, Subject, Suite
from harness._plugins import UnknownSubject, load_callable, resolve_subject
from harness._provision import package_side, requirement_problems
from harness._provision.released import REQUIREMENT
from harness._settings import Settings, read_settings

__all__ = ["declared_subjects", "load_suite", "python_pins"]

def _load_checked(path: Path, root: Path, schema: str) -> Document:
    doc = load_document(path, display=rel(path, root))
    check(doc, schema)
    return doc


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


def content_id(subject: str, raw: dict[str, Any]) -> str:
    """A stable id from what the case feeds the pipelines (not its title or pins)."""
    material = {"subject": subject, "tools": raw.get("tools"), "input": raw.get("input", {})}
    digest = hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()
    return f"{subject}-{digest[:10]}"


def _expectations(raw: dict[str, Any]) -> dict[str, Expectation]:
    out: dict[str, Expectation] = {}
    for lane, exp in raw.get("expect", {}).items():
        if isinstance(exp, str):
            out[lane] = Expectation(kind=exp)  # type: ignore[arg-type]
            continue
        if "diverges" not in exp:  # {same: {why}} or {same-value: {why}}: a sameness with its reason
            [(kind, body)] = exp.items()
            out[lane] = Expectation(kind=kind, why=body["why"])
            continue
        d = exp["diverges"]
        out[lane] = Expectation(
            kind="diverges", paths=tuple(d.get("paths", ())), why=d["why"],
            old_raises=d.get("old_raises"), new_raises=d.get("new_raises"),
        )
    return out


def _selectors_compile(doc: Document, where: str, pin: dict[str, Any]) -> None:
    check_selectors(pin, ("select", "same_as_input"), lambda key: doc.place(f"{where}.{key}"))


def _checks(doc: Document, where: str, pin: dict[str, Any], pin_lanes: tuple[str, ...]) -> dict[str, Any]:
    """An ``all`` pin's checks (several assertions as one pin), each on the pin's lanes or some."""
    for i, entry in enumerate(pin["checks"]):
        at = f"{where}.checks[{i}]"
        _selectors_compile(doc, at, entry)
        owned = [key for key in ("name", "why", "catches_old") if key in entry]
        if owned or entry["kind"] == "all":
            key = owned[0] if owned else "kind"
            raise InputError(doc.place(f"{at}.{key}"), "a check of one kind, without name, why or catches_old "
                             "(the pin's own)", repr(key) if owned else "another 'all'")
        stray = [lane for lane in entry.get("lanes", ()) if lane not in pin_lanes]
        if stray:
            raise InputError(doc.place(f"{at}.lanes"), f"lanes of this pin ({', '.join(pin_lanes)})", repr(stray))
    return {"checks": [{**entry, "lanes": list(entry.get("lanes", pin_lanes))} for entry in pin["checks"]]}


def _pin_lanes(doc: Document, where: str, pin: dict[str, Any], lanes: tuple[str, ...],
               seen: dict[tuple[str, str], int]) -> tuple[str, ...]:
    """The pin's lanes: the case's own, and none where a pin of the same name already is (one
    name may recur on disjoint lanes: one pin, a different check per lane)."""
    pin_lanes = tuple(pin.get("lanes", lanes))
    stray = [lane for lane in pin_lanes if lane not in lanes]
    if stray:
        raise InputError(doc.place(f"{where}.lanes"), f"lanes of this case ({', '.join(lanes)})", repr(stray))
    _name_free(doc.place(f"{where}.name"), pin["name"], pin_lanes, seen)
    return pin_lanes


def _name_free(place: Place, name: str, pin_lanes: tuple[str, ...], seen: dict[tuple[str, str], int]) -> None:
    """No pin of the case has ``name`` on these lanes already."""
    clash = [lane for lane in pin_lanes if (name, lane) in seen]
    if clash:
        raise InputError(place, "a pin name unique in its case on each lane",
                         f"{name!r} again on {', '.join(clash)} (also pins[{seen[(name, clash[0])]}])")


def _pins(doc: Document, at: str, raw: dict[str, Any], lanes: tuple[str, ...]) -> tuple[PinSpec, ...]:
    pins: list[PinSpec] = []
    seen: dict[tuple[str, str], int] = {}  # (pin name, lane) -> the entry that has it
    common = {"name", "kind", "lanes", "why", "catches_old"}
    for j, p in enumerate(raw.get("pins", [])):
        where = f"{at}.pins[{j}]"
        _selectors_compile(doc, where, p)
        pin_lanes = _pin_lanes(doc, where, p, lanes, seen)
        seen.update({(p["name"], lane): j for lane in pin_lanes})
        pins.append(PinSpec(
            name=p["name"], kind=p["kind"], lanes=pin_lanes,
            params=_checks(doc, where, p, pin_lanes) if p["kind"] == "all" else
            {k: v for k, v in p.items() if k not in common},
            why=p.get("why", ""), catches_old=p.get("catches_old", False),
            line=doc.lines.line_of(where),
        ))
    return tuple(pins)


def _case_lanes(doc: Document, at: str, raw: dict[str, Any], subject: Subject,
                lanes: dict[str, Lane]) -> tuple[str, ...]:
    """The lanes a case runs on: named ones must exist and carry the subject's wire; with none
    named, every lane of the subject's wires, and there must be at least one (a case that runs
    nowhere would be silently lost)."""
    if raw.get("lanes"):
        for j, lane in enumerate(raw["lanes"]):
            _lane_fits(doc.place(f"{at}.lanes[{j}]"), lane, subject, lanes)
        return tuple(raw["lanes"])
    found = tuple(lid for lid, ln in lanes.items() if ln.wire in subject.wires)
    if not found:
        raise InputError(doc.place(at), f"a lane of wire {_wires(subject)} for subject {subject.name} to run on",
                         "no such lane in the lanes files")
    return found


def _wires(subject: Subject) -> str:
    return ", ".join(sorted(subject.wires))


def _lane_fits(place: Place, lane: str, subject: Subject, lanes: dict[str, Lane]) -> None:
    """A lane a case names exists and carries one of the subject's wires."""
    if lane not in lanes:
        raise InputError(place, f"a lane id from the lanes files ({', '.join(lanes)})", repr(lane))
    if lanes[lane].wire not in subject.wires:
        raise InputError(place, f"a lane of wire {_wires(subject)} (subject {subject.name})",
                         f"{lane!r}, whose wire is {lanes[lane].wire!r}")


def _file_pins_confined(doc: Document, at: str, raw: dict[str, Any], path: Path,
                        roots: tuple[Path, ...] | None) -> None:
    """An ``equals: {file: F}`` pin reads F beside its case file: confined to the suite folder
    (and ``read_roots``) like every tool source, ``..`` and symlinks resolved."""
    from harness._common.files import confined  # harness._sources imports harness._load

    allowed = roots or (path.parent.resolve(),)
    for j, pin in enumerate(raw.get("pins", [])):
        name = pin.get("file") if isinstance(pin, dict) else None
        if isinstance(name, str):
            confined(path.parent / name, allowed, doc.place(f"{at}.pins[{j}].file"), name)


def _same_as_input_picks(doc: Document, at: str, raw: dict[str, Any], case_input: dict[str, Any]) -> None:
    """An ``equals: {same_as_input: SEL}`` pin whose selector picks nothing from the case's own
    input is a mistake in the case file, known now, not a pin failing later about the output."""
    for j, pin in enumerate(raw.get("pins", [])):
        selector = pin.get("same_as_input") if isinstance(pin, dict) else None
        if isinstance(selector, str) and not select(case_input, selector):
            raise InputError(doc.place(f"{at}.pins[{j}].same_as_input"),
                             "a selector that picks something from the case's input", repr(selector))


def _input_checked(doc: Document, at: str, raw: dict[str, Any], subject: Subject) -> None:
    """The case's ``input:`` keys are the subject's, and its schema (if any) holds."""
    extra = sorted(set(raw.get("input", {})) - subject.input_keys)
    if extra:
        keys = ", ".join(sorted(subject.input_keys)) or "none"
        raise InputError(doc.place(f"{at}.input"), f"input keys of {subject.name} ({keys})", f"unknown {extra}")
    if subject.input_schema is not None:
        check_value(doc, raw.get("input", {}), subject.input_schema, f"{at}.input")


def _unblessed(exp: Any) -> bool:
    """A divergence whose reason is still the placeholder ``harness bless`` writes."""
    return isinstance(exp, dict) and str(exp.get("diverges", {}).get("why", "")).strip().startswith("TODO")


def _expect_checked(doc: Document, at: str, raw: dict[str, Any], case_lanes: tuple[str, ...]) -> None:
    """Each ``expect:`` entry names ``*`` or a lane of the case, and says why (accepting a change
    needs a person's reason)."""
    for lane, exp in raw.get("expect", {}).items():
        if lane not in ("*", *case_lanes):
            raise InputError(doc.place(f"{at}.expect.{lane}"), "'*' or a lane of this case", repr(lane))
        if _unblessed(exp):
            raise InputError(doc.place(f"{at}.expect.{lane}.diverges.why"), "the reason for this divergence",
                             "'TODO' (left by harness bless: write why this lane may differ)")


def _case(doc: Document, i: int, subject: Subject, lanes: dict[str, Lane], path: Path,
          roots: tuple[Path, ...] | None = None) -> Case:
    at = f"cases[{i}]"
    raw = doc.value["cases"][i]
    _input_checked(doc, at, raw, subject)
    from harness._sources import resolve_tools  # here, not at the top: harness._sources imports harness._load

    tools = resolve_tools(raw["tools"], path, doc.place(f"{at}.tools"), roots, doc)
    case_lanes = _case_lanes(doc, at, raw, subject, lanes)
    _expect_checked(doc, at, raw, case_lanes)
    _same_as_input_picks(doc, at, raw, {"tools": tools, **raw.get("input", {})})
    _file_pins_confined(doc, at, raw, path, roots)
    return Case(
        id=raw.get("id") or content_id(subject.name, raw), subject=subject.name, file=doc.file,
        line=doc.lines.line_of(at), title=raw.get("title", ""),
        input={"tools": tools, **raw.get("input", {})}, lanes=case_lanes,
        expect=_expectations(raw), checks=frozenset(raw.get("checks", ())),
        pins=_pins(doc, at, raw, case_lanes), rejections=tuple(raw.get("rejections", ())),
    )


def _case_doc(path: Path, root: Path, declared: dict[str, Subject], errors: Errors) -> tuple[Document, Subject] | None:
    """A case file, checked, and the subject it names (None, with the error recorded, if either fails)."""
    try:
        doc = _load_checked(path, root, "cases")
        return doc, resolve_subject(doc.value["subject"], declared)
    except UnknownSubject as exc:
        errors.add(InputError(Place(rel(path, root), _subject_line(path), "subject"), exc.expected, repr(exc.name)))
    except SubjectError as exc:
        errors.add(InputError(Place(rel(path, root), _subject_line(path), "subject"), "a subject that imports",
                              str(exc)))
    except HarnessError as exc:
        errors.add(exc)
    return None


def _case_file(path: Path, root: Path, lanes: dict[str, Lane], declared: dict[str, Subject],
               errors: Errors, roots: tuple[Path, ...] | None = None) -> list[Case]:
    loaded = _case_doc(path, root, declared, errors)
    if loaded is None:
        return []
    doc, subject = loaded
    cases = []
    for i in range(len(doc.value["cases"])):
        try:
            cases.append(_case(doc, i, subject, lanes, path, roots))
        except HarnessError as exc:
            errors.add(exc)
    return cases


def _subject_line(path: Path) -> int | None:
    for number, text in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if text.startswith("subject:"):
            return number
    return None


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
            _add_lanes(lanes, _lanes(_load_checked(path, root, "lanes")))
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
        cases.extend(_case_file(path, root, lanes, declared, errors, roots))
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

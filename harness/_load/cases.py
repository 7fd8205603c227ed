"""Read one case file into Cases: its schema, each case's lanes, pins, expectations and input.

``harness._load.suite`` finds the case files and calls ``case_file`` for each; errors are added
to the suite's Errors, so one load reports every broken case of every file together.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from harness._common.schemacheck import check, check_value
from harness._common.selectors import check_selectors, select
from harness._common.yamlsafe import Document, load_document
from harness._errors import HarnessError, InputError, Place, SubjectError
from harness._load.places import Errors, rel
from harness._model import Case, Expectation, Lane, PinSpec, Subject
from harness._plugins import UnknownSubject, resolve_subject

__all__ = ["case_file", "load_checked"]


def load_checked(path: Path, root: Path, schema: str) -> Document:
    doc = load_document(path, display=rel(path, root))
    check(doc, schema)
    return doc



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
        doc = load_checked(path, root, "cases")
        return doc, resolve_subject(doc.value["subject"], declared)
    except UnknownSubject as exc:
        errors.add(InputError(Place(rel(path, root), _subject_line(path), "subject"), exc.expected, repr(exc.name)))
    except SubjectError as exc:
        errors.add(InputError(Place(rel(path, root), _subject_line(path), "subject"), "a subject that imports",
                              str(exc)))
    except HarnessError as exc:
        errors.add(exc)
    return None


def case_file(path: Path, root: Path, lanes: dict[str, Lane], declared: dict[str, Subject],
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



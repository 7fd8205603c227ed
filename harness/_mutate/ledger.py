"""Declared mutants: ledger files (``*.ledger.yaml``) and applying their changes.

A declared mutant is the reviewer's hand-written mutation ("gate forced off", "swap one
function for another", "drop a disjunct"): a site (file, optionally one function), a change
(``find``/``replace`` or a unified ``diff``), and one claim: the pins that kill it
(``killed_by``), ``equivalent`` with the reason no pin can, or ``survives`` with the reason a
known escape is let through (held while it survives, failed once a pin kills it). The change
must apply exactly: ``find`` text absent or present more than once inside the site is an error
naming the mutant, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness._common.schemacheck import check
from harness._common.yamlsafe import Document, load_document
from harness._errors import HarnessError, InputError, InputErrors, Place
from harness._model import Suite
from harness._mutate.targets import function_spans, load_settings, resolve_targets

__all__ = ["DeclaredMutant", "Ledger", "apply_diff", "check_ledgers", "load_ledgers"]


@dataclass(frozen=True)
class DeclaredMutant:
    """One ledger entry with its change applied to the site file's text."""

    id: str
    title: str
    file: str  # relative to the project root
    function: str | None
    line: int  # first changed line in the site file
    source: str  # the whole site file with the change applied
    diff: str
    claims: tuple[str, ...]
    equivalent: str | None
    why: str
    place: Place  # where the entry stands in its ledger
    claim_places: tuple[Place, ...] = ()  # where each killed_by reference stands
    survives: str | None = None  # an expected survivor: why no pin kills it


@dataclass(frozen=True)
class Ledger:
    file: str
    targets: tuple[tuple[str, Place], ...]
    mutants: tuple[DeclaredMutant, ...]
    pin_sets: tuple[str, ...] = ()  # the review rounds it belongs to; () for every run
    place: Place | None = None  # where ``pin_sets`` stands

    def runs_with(self, pin_set: str | None) -> bool:
        """Whether its mutants run when only ``pin_set`` (None: every pin) runs."""
        return pin_set is None or not self.pin_sets or pin_set in self.pin_sets


def load_ledgers(suite_root: Path, patterns: list[str] | str, project_root: Path) -> list[Ledger]:
    """Every ledger of the suite, validated, with every change applied (InputErrors otherwise)."""
    ledgers, errors = _load_all(suite_root, patterns, project_root)
    if errors:
        raise InputErrors(errors)
    return ledgers


def _load_all(suite_root: Path, patterns: list[str] | str, project_root: Path) -> tuple[list[Ledger], list[InputError]]:
    """The ledgers that load, and the errors of those that do not."""
    if isinstance(patterns, str):
        patterns = [patterns]
    from harness._common.files import suite_files  # an absolute glob is bad input, not Path.glob's NotImplementedError

    paths = suite_files(suite_root, patterns, Place("suite.yaml", None, "ledgers"))
    ledgers: list[Ledger] = []
    errors: list[InputError] = []
    for path in paths:
        ledger, failed = _load_or_errors(path, suite_root, project_root)
        errors.extend(failed)
        if ledger is not None:
            ledgers.append(ledger)
    scoped, reused = _scoped_ids(ledgers)
    return scoped, errors + reused


def _load_or_errors(path: Path, suite_root: Path, project_root: Path) -> tuple[Ledger | None, list[InputError]]:
    """One ledger, or None with every error that stops it (so the others still load and report)."""
    try:
        return _load_one(path, suite_root, project_root), []
    except InputErrors as exc:
        return None, list(exc.errors)
    except InputError as exc:
        return None, [exc]


def _scoped_ids(ledgers: list[Ledger]) -> tuple[list[Ledger], list[InputError]]:
    """Mutant ids unique among the ledgers that can run together. Ledgers bound to disjoint pin
    sets (one review round each) may reuse an id; every mutant with such an id is then named by
    its ledger's pin sets, ``r1:M1`` and ``r2:M1``, so a run of every pin still has one id per
    mutant. Any other reuse is an error at each reuse."""
    errors: list[InputError] = []
    seen: dict[str, list[tuple[Place, tuple[str, ...], str]]] = {}
    for ledger in ledgers:
        for m in ledger.mutants:
            earlier = seen.setdefault(m.id, [])
            clash = next((e for e in reversed(earlier)
                          if e[2] == ledger.file or _run_together(e[1], ledger.pin_sets)), None)
            if clash is not None:
                shared = sorted(set(clash[1]) & set(ledger.pin_sets))
                note = f" (both run with pin set {shared[0]})" if shared else ""
                errors.append(InputError(m.place, "a mutant id unique in the suite",
                                         f"{m.id!r}, also at {clash[0]}{note}"))
            earlier.append((m.place, ledger.pin_sets, ledger.file))
    reused = {mid for mid, uses in seen.items() if len(uses) > 1}
    return [_scoped(ledger, reused) for ledger in ledgers], errors


def _run_together(sets: tuple[str, ...], other: tuple[str, ...]) -> bool:
    """Whether ledgers bound to these pin sets run in one run of a chosen set (an unbound
    ledger runs with every set)."""
    return not sets or not other or bool(set(sets) & set(other))


def _scoped(ledger: Ledger, reused: set[str]) -> Ledger:
    if not any(m.id in reused for m in ledger.mutants):
        return ledger
    prefix = "+".join(ledger.pin_sets)
    mutants = tuple(replace(m, id=f"{prefix}:{m.id}") if m.id in reused else m for m in ledger.mutants)
    return replace(ledger, mutants=mutants)


def check_ledgers(suite: Suite) -> None:
    """Load and validate every ledger of ``suite`` (YAML, schema, sites, targets, each change applying
    exactly once), raising InputErrors with file:line places; None when all are sound.

    Cheap (no pin is collected, no mutant generated), so ``harness run`` calls it before building
    and a broken ledger fails every run, not only ``harness mutate``. Pin references in
    ``killed_by`` are checked against the collected pins, by ``harness mutate`` only.
    """
    root = Path(suite.root)
    settings = load_settings(root, suite.settings)
    ledgers, errors = _load_all(root, list(suite.settings.ledgers), settings.root)
    known = set(suite.settings.pin_sets)
    for ledger in ledgers:
        errors.extend(_stray_pin_sets(ledger, known))
        errors.extend(_target_errors(ledger, settings.root, root))
    if errors:  # in file order, whichever check found them
        raise InputErrors(sorted(errors, key=lambda e: (e.place.file, e.place.line or 0)))


def _stray_pin_sets(ledger: Ledger, known: set[str]) -> list[InputError]:
    """The error naming the pin sets ``ledger`` belongs to that suite.yaml does not define, if any."""
    stray = [name for name in ledger.pin_sets if name not in known]
    if not stray or ledger.place is None:
        return []
    names = ", ".join(sorted(known)) or "none: suite.yaml has no pin_sets"
    return [InputError(ledger.place, f"pin sets of suite.yaml ({names})", repr(stray))]


def _target_errors(ledger: Ledger, project_root: Path, suite_root: Path) -> list[InputError]:
    """An error for each of the ledger's targets that names no module or function."""
    errors: list[InputError] = []
    for entry in ledger.targets:
        try:
            resolve_targets([entry], project_root, suite_root)
        except InputError as exc:
            errors.append(exc)
    return errors


def _load_one(path: Path, suite_root: Path, project_root: Path) -> Ledger:
    root = suite_root.resolve()
    # a ledger symlinked from outside the suite is named by its real path
    display = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    doc = load_document(path, display=display)
    _check_document(doc)
    targets = tuple((t, doc.place(f"targets[{i}]")) for i, t in enumerate(doc.value.get("targets", ())))
    return Ledger(file=display, targets=targets, mutants=_mutants(doc, project_root),
                  pin_sets=tuple(doc.value.get("pin_sets", ())), place=doc.place("pin_sets"))


def _mutants(doc: Document, project_root: Path) -> tuple[DeclaredMutant, ...]:
    """Every entry of a sound ledger with its change applied; InputErrors naming each one that fails."""
    errors: list[InputError] = []
    mutants: list[DeclaredMutant] = []
    for i, raw in enumerate(doc.value["mutants"]):
        try:
            mutants.append(_mutant(doc, i, raw, project_root))
        except InputError as exc:
            errors.append(exc)
    if errors:
        raise InputErrors(errors)
    return tuple(mutants)


def _check_document(doc: Document) -> None:
    """Raise InputErrors (in line order) when the ledger fails its schema or a mutant's verdict rule."""
    errors = _verdict_errors(doc)
    try:
        check(doc, "ledger")
    except InputErrors as exc:
        errors.extend(exc.errors)
    if errors:
        raise InputErrors(sorted(errors, key=lambda e: e.place.line or 0))


def _verdict_errors(doc: Document) -> list[InputError]:
    """Each mutant must say either which pins kill it or why none can, not both and not neither.
    Checked here, not by the schema, whose oneOf/not error would name neither key."""
    mutants = doc.value.get("mutants") if isinstance(doc.value, dict) else None
    entries = mutants if isinstance(mutants, list) else []
    return [error for i, raw in enumerate(entries) if (error := _verdict_error(doc, i, raw)) is not None]


def _verdict_error(doc: Document, i: int, raw: Any) -> InputError | None:
    if not isinstance(raw, dict):
        return None  # the schema names it
    given = [k for k in ("killed_by", "equivalent", "survives") if k in raw]
    if len(given) == 1:
        return None
    found = f"{' and '.join(given)} (they are mutually exclusive)" if given else "none of them"
    return InputError(doc.place(f"mutants[{i}]"), "one of killed_by (the pins that kill it), equivalent (why no "
                      "pin can) and survives (why a known escape is let through)", found)


def _mutant(doc: Document, i: int, raw: dict[str, Any], root: Path) -> DeclaredMutant:
    at = f"mutants[{i}]"
    mid = raw["id"]
    site = raw["site"]
    root = root.resolve()
    file, source = _site_source(doc.place(f"{at}.site.file"), mid, root, site["file"])
    function = site.get("function")
    span = _site_span(doc, at, mid, source, function)
    change = raw["change"]
    mutated = _changed(doc, at, mid, source, span, site["file"], change)
    first, last = _changed_span(source, mutated)
    if first == 0:
        raise InputError(doc.place(f"{at}.change"), f"a change that alters {site['file']} for mutant {mid}",
                         "no difference")
    if "diff" in change and span is not None:  # find/replace was searched inside the function already
        _check_inside(doc.place(f"{at}.change"), mid, function, span, first, last)
    rel = file.relative_to(root).as_posix()
    return DeclaredMutant(
        id=mid, title=raw["title"], file=rel, function=function, line=first, source=mutated,
        diff=_unified_diff(source, mutated, rel), claims=tuple(raw.get("killed_by", ())),
        equivalent=raw.get("equivalent"), survives=raw.get("survives"),
        why=raw.get("why", ""), place=doc.place(at),
        claim_places=tuple(doc.place(f"{at}.killed_by[{j}]") for j in range(len(raw.get("killed_by", ())))),
    )


def _changed(doc: Document, at: str, mid: str, source: str, span: tuple[int, int] | None, name: str,
             change: dict[str, Any]) -> str:
    """``source`` with the mutant's change applied, whichever way it is written: find/replace
    (searched inside the site function) or a unified diff."""
    if "find" in change:
        return _find_replace(doc, at, mid, source, span, change["find"], change["replace"])
    return _diffed(doc, at, mid, source, name, change["diff"])


def _check_inside(place: Place, mid: str, function: str | None, span: tuple[int, int], first: int, last: int) -> None:
    """A diff may stray from its site function; insertions right after the function's last line
    still belong to it."""
    if not (span[0] <= first and last <= span[1] + 1):
        raise InputError(place, f"a change inside {function} (lines {span[0]}-{span[1]}) for mutant {mid}",
                         f"lines {first}-{last} changed")


def _diffed(doc: Document, at: str, mid: str, source: str, name: str, diff: str) -> str:
    """``source`` with the mutant's unified diff applied; one that does not apply is an InputError."""
    try:
        return apply_diff(source, diff)
    except HarnessError as exc:
        raise InputError(doc.place(f"{at}.change.diff"), f"a diff that applies to {name} for mutant {mid}",
                         str(exc)) from None


def _unified_diff(source: str, mutated: str, rel: str) -> str:
    """The mutant's change as the reports show it (one line of context), whichever way it was written."""
    import difflib

    return "".join(difflib.unified_diff(source.splitlines(keepends=True), mutated.splitlines(keepends=True),
                                        f"a/{rel}", f"b/{rel}", n=1))


def _site_source(place: Place, mid: str, root: Path, name: str) -> tuple[Path, str]:
    """The site file (resolved, under ``root``) and its text. A site outside the project root is
    refused: its mutated copy would land outside the sandboxed tree, and it has no module name."""
    file = (root / name).resolve()
    if not file.is_relative_to(root):
        raise InputError(place, f"a file under the project root {root} for mutant {mid}",
                         f"{name!r}, which resolves outside it")
    if not file.is_file():
        raise InputError(place, f"a file under {root} for mutant {mid}", f"no file {name!r}")
    try:
        return file, file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(place, f"a UTF-8 text file for mutant {mid}",
                         f"{name!r}, byte 0x{exc.object[exc.start]:02x} at offset {exc.start} not UTF-8") from None
    except OSError as exc:
        raise InputError(place, f"a readable file for mutant {mid}", f"{name!r}: {exc.strerror}") from None


def _site_span(doc: Document, at: str, mid: str, source: str, function: str | None) -> tuple[int, int] | None:
    if function is None:
        return None
    try:
        spans = function_spans(source)
    except SyntaxError as exc:
        raise InputError(doc.place(f"{at}.site.file"), "a site file that parses",
                         f"line {exc.lineno}: {exc.msg}") from None
    if function not in spans:
        known = ", ".join(sorted(spans)) or "none"
        raise InputError(doc.place(f"{at}.site.function"), f"a function of the site file for mutant {mid} ({known})",
                         repr(function))
    return spans[function]


def _find_replace(doc: Document, at: str, mid: str, source: str, span: tuple[int, int] | None,
                  find: str, replace: str) -> str:
    lo, hi = _offsets(source, span)
    region = source[lo:hi]
    count = region.count(find)
    where = "the site function" if span is not None else "the site file"
    if count != 1:
        found = "no occurrence" if count == 0 else f"{count} occurrences (ambiguous: quote more context)"
        raise InputError(doc.place(f"{at}.change.find"), f"find text occurring exactly once in {where} "
                         f"for mutant {mid}", found)
    return source[:lo] + region.replace(find, replace, 1) + source[hi:]


def _changed_span(before: str, after: str) -> tuple[int, int]:
    """(first, last) 1-based lines of ``before`` that differ from ``after``; (0, 0) when equal."""
    if before == after:
        return 0, 0
    a, b = before.splitlines(), after.splitlines()
    first = _alike(a, b)
    tail = _alike(a[first:][::-1], b[first:][::-1])  # alike at the end, not counting those at the start
    return first + 1, max(first + 1, len(a) - tail)


def _alike(a: list[str], b: list[str]) -> int:
    """How many lines ``a`` and ``b`` share at the start."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_diff(source: str, diff: str) -> str:
    """Apply a unified diff exactly: every context and removed line must match the source."""
    lines = source.splitlines(keepends=True)
    out: list[str] = []
    pos = 0
    hunks = _hunks(diff)
    if not hunks:
        raise HarnessError("no @@ hunk in the diff")
    for start, old, new in hunks:
        at = _locate(lines, old, max(start - 1, 0), pos)
        out.extend(lines[pos:at])
        out.extend(new)
        pos = at + len(old)
    out.extend(lines[pos:])
    return "".join(out)


def _hunks(diff: str) -> list[tuple[int, list[str], list[str]]]:
    hunks: list[tuple[int, list[str], list[str]]] = []
    current: tuple[int, list[str], list[str]] | None = None
    for raw in diff.splitlines():
        m = _HUNK.match(raw)
        if m:
            current = (int(m.group(1)), [], [])
            hunks.append(current)
        elif current is not None and not raw.startswith(("--- ", "+++ ", "\\")):
            _add_line(current, raw)
    return hunks


def _add_line(hunk: tuple[int, list[str], list[str]], raw: str) -> None:
    """One body line of a hunk: removed (old side), added (new side), or context (both). A line
    without a sign (a blank context line whose space an editor stripped) is context, kept whole."""
    _, old, new = hunk
    sign = raw[:1]
    text = raw[1:] if sign in ("-", "+", " ") else raw
    if sign != "+":
        old.append(text + "\n")
    if sign != "-":
        new.append(text + "\n")


def _matches_at(lines: list[str], old: list[str], i: int) -> bool:
    """Whether ``old`` stands at line ``i`` of ``lines`` (a CRLF source matches an LF diff)."""
    return [x.rstrip("\r\n") for x in lines[i:i + len(old)]] == [x.rstrip("\n") for x in old]


def _offsets(source: str, span: tuple[int, int] | None) -> tuple[int, int]:
    """Where the site is in ``source``, as character offsets: the function's lines, else the whole file."""
    if span is None:
        return 0, len(source)
    lines = source.splitlines(keepends=True)
    return sum(len(x) for x in lines[: span[0] - 1]), sum(len(x) for x in lines[: span[1]])


def _locate(lines: list[str], old: list[str], hint: int, floor: int) -> int:
    """Where ``old`` occurs in ``lines`` at or after ``floor``: the stated line, else the only match."""
    if hint >= floor and _matches_at(lines, old, hint):
        return hint
    return _only_match(lines, old, hint, floor)


def _only_match(lines: list[str], old: list[str], hint: int, floor: int) -> int:
    """The one place at or after ``floor`` where a hunk that moved from its stated line stands;
    none, or several, is an error: applying it anywhere would be a guess."""
    found = [i for i in range(floor, len(lines) - len(old) + 1) if _matches_at(lines, old, i)]
    if len(found) != 1:
        first = old[0].rstrip() if old else ""
        raise HarnessError(f"hunk at line {hint + 1} ({first!r}) matches {len(found)} places, expected 1")
    return found[0]

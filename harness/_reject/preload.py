"""Check a suite's rejection inputs before anything runs: the catalog and every declaration.

``preload(suite)`` loads the rules, manifest and cassettes the run will use, runs the catalog
check (`harness cassettes check`) on them, and checks each case's ``rejections:`` declarations
against that catalog: the rule id exists, and every lane named fronts the rule's validator (a
declaration on a lane that cannot show the rejection documents nothing). Everything wrong is
raised at once as InputErrors naming file, line and key path, so a broken rules file or
declaration stops a run before the build stage instead of after it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness._common.secrets import env_secrets
from harness._common.yamlsafe import Document, load_document
from harness._errors import HarnessError, InputError, InputErrors, Place
from harness._model import Case, Suite
from harness._reject.cassettes import Catalog
from harness._reject.check import check_catalog
from harness._reject.rules import Rule

__all__ = ["declaration_errors", "preload"]


def _case_paths(suite: Suite, file: str) -> tuple[Document | None, dict[int | None, str]]:
    """The case file's document and, by line, the key path (``cases[i]``) of each case in it."""
    try:
        doc = load_document(Path(suite.root) / file, display=file)
    except HarnessError:
        return None, {}
    raw = doc.value.get("cases", []) if isinstance(doc.value, dict) else []
    return doc, {doc.lines.line_of(f"cases[{i}]"): f"cases[{i}]" for i in range(len(raw))}


def _unknown_rule(rule_id: Any, rules: Mapping[str, Rule]) -> str:
    near = difflib.get_close_matches(str(rule_id), list(rules), n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return f"{rule_id!r}, not among the suite's {len(rules)} rule(s){hint}"


def _needs(rule: Rule) -> str:
    return f"{rule.validator} with upstream {rule.upstream}" if rule.upstream else rule.validator


def _named_lane_error(suite: Suite, case: Case, lane_id: Any, rule: Rule, fronting: list[str],
                      where: Place) -> InputError | None:
    """Why a lane a declaration names cannot show the rule's rejection, or None."""
    if lane_id not in case.lanes:
        return InputError(where, f"a lane this case runs on ({', '.join(case.lanes)})", repr(lane_id))
    if lane_id in fronting:
        return None
    fronts = ", ".join(suite.lanes[lane_id].fronts) or "no validator"
    return InputError(where, f"a lane fronting {_needs(rule)}, the validator of {rule.id} "
                      f"({', '.join(fronting) or 'none of this case'})", f"{lane_id!r}, which fronts {fronts}")


def _fronting(suite: Suite, case: Case, rule: Rule) -> list[str]:
    """The case's lanes whose requests meet the rule."""
    return [ln for ln in case.lanes if rule.meets(suite.lanes[ln].fronts, suite.lanes[ln].upstream)]


def _named_lanes_errors(suite: Suite, case: Case, at: str, decl: Mapping[str, Any], rule: Rule,
                        fronting: list[str], place: Callable[[str], Place]) -> list[InputError]:
    """One error per lane the declaration names that cannot show the rule's rejection."""
    named = (_named_lane_error(suite, case, lane_id, rule, fronting, place(f"{at}.lanes[{k}]"))
             for k, lane_id in enumerate(decl.get("lanes") or ()))
    return [e for e in named if e is not None]


def _lane_errors(suite: Suite, case: Case, at: str, decl: Mapping[str, Any], rule: Rule,
                 place: Callable[[str], Place]) -> list[InputError]:
    """A declaration on a lane that cannot show the rule's rejection documents nothing: refuse it."""
    fronting = _fronting(suite, case, rule)
    errors = _named_lanes_errors(suite, case, at, decl, rule, fronting, place)
    if not decl.get("lanes") and not fronting:
        errors.append(InputError(place(f"{at}.rule"), f"a rule of a validator one of this case's lanes fronts "
                                 f"({', '.join(case.lanes)})", f"{rule.id!r}, whose validator is {rule.validator}"))
    return errors


def declaration_errors(suite: Suite, catalog: Catalog) -> list[InputError]:
    """Every declared rejection whose rule is unknown or whose lanes cannot show it."""
    rules = catalog.rules.by_id()
    errors: list[InputError] = []
    docs: dict[str, tuple[Document | None, dict[int | None, str]]] = {}
    for case in suite.cases:
        if not case.rejections:
            continue
        if case.file not in docs:
            docs[case.file] = _case_paths(suite, case.file)
        errors += _case_errors(suite, case, rules, *docs[case.file])
    return errors


def _case_errors(suite: Suite, case: Case, rules: Mapping[str, Rule], doc: Document | None,
                 paths: dict[int | None, str]) -> list[InputError]:
    """The errors of one case's declarations, each placed at its key path in the case file."""
    base = paths.get(case.line, f"case {case.id}")

    def place(path: str) -> Place:
        return doc.place(path) if doc is not None else Place(case.file, case.line, path)

    errors: list[InputError] = []
    for j, decl in enumerate(case.rejections):
        at = f"{base}.rejections[{j}]"
        rule = rules.get(str(decl.get("rule")))
        if rule is None:
            errors.append(InputError(place(f"{at}.rule"), "a rule id of the suite's catalog",
                                     _unknown_rule(decl.get("rule"), rules)))
        else:
            errors.extend(_lane_errors(suite, case, at, decl, rule, place))
    return errors


_EXPECTED = {"rule-without-receipt": "a receipt id the manifest lists for this rule",
             "unknown-rule": "a rule id of the suite's rules"}


def _catalog_errors(catalog: Catalog) -> list[InputError]:
    """The catalog check's problems as InputErrors: evidence a run would cite must hold up.

    An interaction naming a rule the suite lacks is left to `harness cassettes check`: a suite
    may borrow a shared cassettes folder (``../cassettes``) and use only some of its rules, and a
    rule that lists a mistyped interaction is already reported as a dangling receipt.

    The check reads and scans every cassette again (0.15 CPU s on the bundled catalog: most of a
    small run's cost after the first), so a process running run after run (the test suite runs
    ``harness`` in process) checks the same catalog, files and credentials once.
    """
    secrets = env_secrets()
    key = (id(catalog), tuple(secrets), _stamps(catalog))
    hit = _checked.get(key)
    if hit is not None and hit[0] is catalog:  # the very catalog (an id alone may be reused)
        return list(hit[1])
    errors = [InputError(p.place or Place(p.where),
                         _EXPECTED.get(p.kind, f"evidence `harness cassettes check` accepts ({p.kind})"), p.detail)
              for p in check_catalog(catalog, secrets).problems if p.kind != "unknown-rule"]
    _checked[key] = (catalog, errors)
    while len(_checked) > _CHECKED_KEEP:  # a long-lived process loading catalog after catalog
        del _checked[next(iter(_checked))]
    return list(errors)


_CHECKED_KEEP = 8
_checked: dict[tuple[Any, ...], tuple[Catalog, list[InputError]]] = {}


def _stamps(catalog: Catalog) -> tuple[tuple[str, int, int, int, int], ...]:
    """Each file the check reads, with its inode, times and size: an edited cassette is checked again."""
    folder = Path(catalog.folder)
    stamps = []
    for path in (*(folder / rel for rel in catalog.files), Path(catalog.manifest.file)):
        try:
            st = path.stat()
        except OSError:
            stamps.append((str(path), -1, -1, -1, -1))
        else:
            stamps.append((str(path), st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size))
    return tuple(stamps)


def preload(suite: Suite) -> None:
    """Load and check the suite's rules, cassettes and declared rejections; InputErrors if any is wrong."""
    from harness._reject.verdicts import catalog_of

    try:
        catalog = catalog_of(suite)
    except InputErrors:
        raise
    except InputError as exc:
        raise InputErrors([exc]) from None
    errors = _catalog_errors(catalog) + declaration_errors(suite, catalog)
    if errors:
        raise InputErrors(errors)

"""Findings of a run by kind, compared with a baseline run's, and the exit code they give.

A finding is named so that the same problem in two runs has the same name: a verdict by
``case[lane]``, a pin by node id, a rejection by ``case[lane]: rule`` (new pipeline, undeclared),
a failed claim by the declared mutant's id. An escaped mutant is named by what it changes, not by
mutmut's number or its content key (both move when anything else in its file is edited): file,
function, operator and the changed lines, with an ordinal for identical changes in one function.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeGuard

from harness._errors import ConfigError
from harness._evidence.runs import load_report, run_folder
from harness._exitcodes import ExitCode, combine
from harness._pins.rerun import command, expect_ids, pytest_options
from harness._reject.delta import failing

__all__ = ["KINDS", "Findings", "compare", "escape_names", "findings", "judge", "load_baseline",
           "load_mutation_baseline", "mutation_exit", "mutation_findings"]

KINDS = ("verdicts", "pins", "rejections", "escapes", "claims")
Findings = dict[str, dict[str, str]]  # kind -> {identity: the name a reader sees}
_CODE = {"verdicts": ExitCode.DIVERGENCE, "pins": ExitCode.DIVERGENCE, "rejections": ExitCode.KNOWN_REJECTION,
         "escapes": ExitCode.MUTANTS_ESCAPED, "claims": ExitCode.MUTANTS_ESCAPED}
_WORDS = {"verdicts": "failing verdict(s)", "pins": "failing pin(s)", "rejections": "undeclared rejection(s)",
          "escapes": "escaped mutant(s)", "claims": "failed claim(s)"}


def _changed(diff: str) -> list[str]:
    return [line[0] + line[1:].strip() for line in diff.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def _identity(m: Mapping[str, Any]) -> str:
    if m["kind"] == "declared":
        return f"declared\x00{m['id']}"
    return "\x00".join([m["file"], m.get("function") or "", m["operator"], *_changed(m["diff"])])


def _scope(identity: str) -> str:
    """What a mutant belongs to (file and function, or the declared id): a run mutating only the
    diff says nothing about the escapes of functions it did not mutate."""
    return "\x00".join(identity.split("\x00")[:2])


def escape_names(section: Mapping[str, Any] | None) -> dict[str, str]:
    """Escaped mutants of a mutation section: stable identity -> mutant id."""
    if not section:
        return {}
    seen: Counter[str] = Counter()
    out: dict[str, str] = {}
    for m in section.get("mutants", []):
        ident = _identity(m)
        seen[ident] += 1
        expected = m.get("claim", {}).get("result") == "survives"  # a ledger's known escape
        if m["status"] in ("survived", "no_coverage") and not expected:
            out[f"{ident}\x00{seen[ident]}"] = m["id"]
    return out


def mutation_findings(section: Mapping[str, Any] | None) -> Findings:
    section = section or {}
    claims = {m: m for m in section.get("claims_failed", [])}
    scope = {_scope(_identity(m)): "" for m in section.get("mutants", [])}
    return {"escapes": escape_names(section), "claims": claims, "scope": scope}


def _caught_old(pins: Mapping[str, Any]) -> dict[str, str]:
    """Against the old pipeline, a pin that passes is the finding: it does not catch the old behaviour."""
    return {p: p for p in (pins.get("catches_old") or {}).get("passed", [])}


def _failed_new(pins: Mapping[str, Any]) -> dict[str, str]:
    return {p["id"]: p["id"] for p in pins["results"] if p["outcome"] in ("failed", "error")}


def _pins(pins: Mapping[str, Any] | None) -> dict[str, str]:
    if not pins:
        return {}
    return (_caught_old if pins["against"] == "old" else _failed_new)(pins)


def _rejections(section: Mapping[str, Any] | None) -> dict[str, str]:
    """The undeclared rejections of the new pipeline that fail the run under the section's own
    ``fail_on`` (introduced ones by default; every one with ``--fail-on-rejections any``)."""
    if not section:
        return {}
    hits = failing(section.get("findings", []), str(section.get("fail_on", "any")))
    return {f"{case}[{lane}]: {rule}": f"{case}[{lane}]: {rule}" for case, lane, rule in hits}


def findings(report: Mapping[str, Any]) -> Findings:
    """Every failing finding of a report, by kind."""
    verdicts = {f"{r['case']}[{r['lane']}]": f"{r['case']}[{r['lane']}]" for r in report["differential"] if r["failed"]}
    return {"verdicts": verdicts, "pins": _pins(report.get("pins")),
            "rejections": _rejections(report.get("rejections")), **mutation_findings(report.get("mutation"))}


def _names(keys: set[str], names: Mapping[str, str]) -> list[str]:
    return sorted(names[k] for k in keys)


def _comparable(kind: str, base: Findings, mutated: Mapping[str, str]) -> dict[str, str]:
    """The baseline's findings of ``kind`` this run can speak for: of the escapes, only those in
    what this run mutated can be still escaping or fixed."""
    old = base.get(kind, {})
    if kind != "escapes":
        return old
    return {k: v for k, v in old.items() if _scope(k) in mutated}


def compare(current: Findings, base: Findings, run: str, fail_on: str) -> dict[str, Any]:
    """The report's ``baseline`` block: names new, still failing and fixed, by kind."""
    new, still, fixed = {}, {}, {}
    for kind in KINDS:
        cur, old = current.get(kind, {}), _comparable(kind, base, current.get("scope", {}))
        new[kind] = _names(set(cur) - set(old), cur)
        still[kind] = _names(set(cur) & set(old), cur)
        fixed[kind] = _names(set(old) - set(cur), old)
    counts = {kind: {"new": len(new[kind]), "still": len(still[kind]), "fixed": len(fixed[kind])} for kind in KINDS}
    return {"run": run, "fail_on": fail_on, "new": new, "still": still, "fixed": fixed, "counts": counts}


def load_baseline(path: Path, check: Callable[[Any], None]) -> tuple[str, dict[str, Any]]:
    """(folder, report.json) of a baseline run given as a run folder or a reports folder, held to
    the report schema by ``check`` (see ``load_report``)."""
    folder = run_folder(path, "--baseline")
    return str(folder), load_report(folder, check, "--baseline")


def load_mutation_baseline(path: Path, check_report: Callable[[Any], None],
                           check_section: Callable[[Any], None]) -> tuple[str, dict[str, Any] | None]:
    """(folder, mutation section) of an earlier ``harness mutate`` out folder, or of a run; each
    held to its schema by its check (raising ValueError) before any finding is read from it."""
    from harness._mutate.shards import baseline_problem

    if not (path / "mutation.json").is_file():
        folder, report = load_baseline(path, check_report)
        problem = baseline_problem(report.get("mutation"))
        if problem:
            raise ConfigError("--baseline", folder, problem)
        return folder, report.get("mutation")
    where = str(path / "mutation.json")
    try:
        section: dict[str, Any] = json.loads((path / "mutation.json").read_text(encoding="utf-8"))
        check_section(section)
    except (ValueError, RecursionError) as exc:  # json's C decoder recurses once per level of nesting
        raise ConfigError("--baseline", where, f"a mutation.json this harness version wrote ({exc})") from None
    problem = baseline_problem(section)
    if problem:
        raise ConfigError("--baseline", where, problem)
    return str(path), section


def _incomplete(section: Mapping[str, Any] | None) -> bool:
    return bool(section) and not section.get("verdict", {}).get("complete", True)  # type: ignore[union-attr]


def mutation_exit(section: Mapping[str, Any], delta: Mapping[str, Any] | None, fail_on: str) -> ExitCode:
    """``harness mutate``'s code. With a baseline and ``new``: new escapes or failed claims only.
    With ``--in-diff``: any escape in the diff (the suite-wide threshold is for whole runs).
    Otherwise the threshold and the claims, as the mutation stage judges them. Pending mutants
    always fail: an incomplete run is no pass."""
    from harness._mutate import exit_code  # the stage's own judgement, for the plain case

    if _incomplete(section):
        return ExitCode.MUTANTS_ESCAPED
    if _new_only(delta, fail_on):
        return _escaped_if(delta["new"]["escapes"], delta["new"]["claims"])
    if section.get("in_diff"):
        return _escaped_if(section["escaped"], section["claims_failed"])
    return ExitCode(exit_code(dict(section)))


def _new_only(delta: Mapping[str, Any] | None, fail_on: str) -> TypeGuard[Mapping[str, Any]]:
    """Only new findings fail: ``--fail-on new``, and a baseline to tell them by."""
    return fail_on == "new" and delta is not None


def _escaped_if(*findings: list[str]) -> ExitCode:
    return ExitCode.MUTANTS_ESCAPED if any(findings) else ExitCode.OK


def _mutation_reason(failing: Mapping[str, list[str]], fail_on: str, incomplete: bool) -> str:
    names = failing["escapes"] + failing["claims"]
    new = "new " if fail_on == "new" else ""
    return (f"{len(failing['escapes'])} {new}escaped mutant(s), {len(failing['claims'])} {new}failed claim(s)"
            + (f": {', '.join(names[:4])}" if names else "") + (" (incomplete)" if incomplete else ""))


def _kind_reason(kind: str, names: list[str], fail_on: str) -> str:
    new = " new" if fail_on == "new" else ""
    more = " …" if len(names) > 3 else ""
    return f"{len(names)}{new} {_WORDS[kind]}: {', '.join(names[:3])}{more}"


def _rerunnable(report: Mapping[str, Any], kind: str, names: list[str]) -> list[str]:
    """The names a reason prints, each the command that reruns it (``harness._pins.rerun``): a
    pin by its node id, a verdict and a rejection by their case x lane's expect item (when the
    pins ran); other names as they are."""
    options, expect = pytest_options(report.get("options") or {}), expect_ids(report.get("pins"))
    if kind == "pins":
        return [command(name, options) for name in names]
    out = []
    for name in names:
        head, colon, rule = name.partition(": ")
        nodeid = expect.get(head) if kind in ("verdicts", "rejections") else None
        out.append(name if nodeid is None else command(nodeid, options) + (f" ({rule})" if colon else ""))
    return out


def _codes(report: Mapping[str, Any], failing: Mapping[str, list[str]], fail_on: str) -> list[tuple[ExitCode, str]]:
    """Each failing stage's exit code, with the reason to print for it."""
    codes = [(_CODE[kind], _kind_reason(kind, _rerunnable(report, kind, failing[kind]), fail_on))
             for kind in ("verdicts", "pins", "rejections") if failing[kind]]
    section = report.get("mutation")
    code = mutation_exit(section, report.get("baseline"), fail_on) if section else ExitCode.OK
    if code:
        codes.append((code, _mutation_reason(failing, fail_on, _incomplete(section))))
    return codes


def _worst(codes: list[tuple[ExitCode, str]]) -> tuple[ExitCode, str]:
    """The code that wins (the lowest non-zero, as the exit-code contract says) and the reasons that gave it."""
    best = combine(*(c for c, _ in codes))
    return best, "; ".join(reason for c, reason in codes if c == best)


def judge(report: Mapping[str, Any], fail_on: str) -> tuple[ExitCode, str]:
    """A run's code when it has a baseline (``new``: only new findings fail) or mutated the diff
    only."""
    delta = report.get("baseline")
    every = {k: sorted(v.values()) for k, v in findings(report).items()}
    codes = _codes(report, delta["new"] if _new_only(delta, fail_on) else every, fail_on)
    if codes:
        return _worst(codes)
    return ExitCode.OK, "clean" if delta is None else f"no new finding since {Path(delta['run']).name}"

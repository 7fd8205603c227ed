"""The main job: load -> build -> compare -> reject -> pins -> (mutate) -> report.

Writes ``<out>/<run-id>/`` as it goes (``differential.jsonl`` grows one line per finished case x
lane, so an interrupted run leaves evidence), then report.json, report.md and junit.xml, and
points ``<out>/latest`` at it. Stopped by SIGTERM or Ctrl-C, it still writes report.json,
report.md and junit.xml from what was finished, with ``partial: {stage, signal, ...}`` in the
report and exit code 143 (SIGTERM) or 130 (Ctrl-C); the supervisor has ended every child by then.

The stages other packages own (rejections, mutation) are named in ``STAGES`` and imported on first
use: the mutation engine pulls in mutmut, which a run without ``--mutate`` should not pay for.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.baseline import compare, findings, judge, load_baseline
from harness.build import UnitResult, build, units
from harness.errors import ConfigError
from harness.evidence import Limits, ObservationStore, body_relpath
from harness.exitcodes import ExitCode, combine
from harness.model import Observation, Side, Suite
from harness.pins.run import run_pins
from harness.report import junit, markdown
from harness.report.assemble import report_document
from harness.report.redact import redactor
from harness.report.validate import validate_report
from harness.supervise import Terminated

__all__ = ["RunOptions", "RunResult", "run"]


@dataclass(frozen=True)
class RunOptions:
    cases: Sequence[str] = ()
    lanes: Sequence[str] = ()
    against: Side = "new"
    pins: bool = True
    pin_set: str | None = None
    rejections: bool = True
    mutate: bool = False
    workers: int | None = None
    timeout: float | None = None
    out: Path = Path("reports")
    mutation_options: Mapping[str, Any] = field(default_factory=dict)
    evidence_limits: Limits = field(default_factory=Limits)
    # --baseline / --fail-on (harness.baseline): fail_on None is "new" with a baseline, else "any"
    baseline: Path | None = None
    fail_on: str | None = None

    revisions: Mapping[str, str] = field(default_factory=dict)
    """``{"old": sha, "new": sha}`` when a side runs from a git revision (``--old-ref``)."""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cases": list(self.cases), "lanes": list(self.lanes), "pins_against": self.against,
                               "pins": self.pins, "pin_set": self.pin_set, "rejections": self.rejections,
                               "mutate": self.mutate}
        if self.revisions:
            out["revisions"] = dict(self.revisions)
        return out


@dataclass
class RunResult:
    report: dict[str, Any]
    folder: Path
    code: ExitCode
    warning: str | None = None


def _run_id(suite: Suite) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{suite.name}-{os.getpid() % 10000:04d}"


STAGES: dict[str, str] = {"rejections": "harness.reject.verdicts", "mutation": "harness.mutate"}


def _stage(key: str) -> Any:
    # No ImportError is caught here: a stage that cannot import is a harness bug, never a
    # stage to skip quietly.
    return importlib.import_module(STAGES[key])


def _observations(results: Sequence[UnitResult]) -> dict[tuple[str, str, str], Observation]:
    out: dict[tuple[str, str, str], Observation] = {}
    for r in results:
        for side in ("old", "new"):
            obs = getattr(r, side)
            if obs is not None:
                out[(r.unit.case.id, r.unit.lane.id, side)] = obs
    return out


def _renderers(sections: Mapping[str, Any]) -> dict[str, Callable[[Any], str]]:
    return {key: _stage(key).render_markdown for key in STAGES if sections.get(key) is not None}


def _exit(report: Mapping[str, Any], sections: Mapping[str, Any]) -> tuple[ExitCode, str]:
    codes: list[tuple[ExitCode, str]] = []
    failed = report["summary"]["failed"]
    if failed:
        codes.append((ExitCode.DIVERGENCE, f"{failed} failing case x lane verdict(s)"))
    pins = report.get("pins")
    if pins:
        bad = pins["summary"]["failed"] + pins["summary"]["error"]
        if pins["against"] == "new" and bad:
            codes.append((ExitCode.DIVERGENCE, f"{bad} failing pin(s)"))
        if pins["against"] == "old" and pins["catches_old"] and pins["catches_old"]["passed"]:
            codes.append((ExitCode.DIVERGENCE, f"{len(pins['catches_old']['passed'])} catches_old pin(s) passed"))
    for key in STAGES:
        if sections.get(key) is not None:
            mod = _stage(key)
            code = ExitCode(mod.exit_code(sections[key]))
            if code:
                reason = getattr(mod, "exit_reason", None)
                codes.append((code, reason(sections[key]) if reason else f"{key}: exit {int(code)}"))
    if not codes:
        return ExitCode.OK, "clean"
    best = combine(*(c for c, _ in codes))
    return best, "; ".join(reason for c, reason in codes if c == best)


def _write(folder: Path, name: str, data: bytes | str) -> None:
    tmp = folder / f".{name}.tmp"
    tmp.write_bytes(data if isinstance(data, bytes) else data.encode())
    tmp.replace(folder / name)


def _point_latest(out: Path, folder: Path) -> str | None:
    """Point ``out/latest`` at the run; a problem here must not hide a finished run's verdict,
    so it comes back as a sentence for the caller to print."""
    link = out / "latest"
    if link.exists() and not link.is_symlink():
        return f"{link} is not a symlink, so it was left alone; this run is in {folder}"
    tmp = out / f".latest.{os.getpid()}"
    try:
        if tmp.is_symlink() or tmp.exists():
            tmp.unlink()
        tmp.symlink_to(folder.name)
        tmp.replace(link)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        return f"could not point {link} at this run ({exc.strerror}); this run is in {folder}"
    return None


def preload(suite: Suite, options: RunOptions) -> None:
    """The stages' input checks, before anything is built: a broken rules file, declaration or
    ledger is bad input (exit 2), found before a run folder exists. Raises InputErrors."""
    if options.rejections:
        _stage("rejections").preload(suite)
    _stage("mutation").check_ledgers(suite)  # ledgers are suite files: checked on every run


def _baseline(options: RunOptions) -> tuple[str, dict[str, Any]] | None:
    """The baseline run, read before anything is built: a wrong path is bad input, not a lost run."""
    if options.fail_on == "new" and options.baseline is None:
        raise ConfigError("--fail-on", "new", "--baseline PREVIOUS_RUN_DIR as well (new since what?)")
    return load_baseline(options.baseline) if options.baseline is not None else None


def _compared(report: dict[str, Any], options: RunOptions, base: tuple[str, dict[str, Any]] | None,
              code: ExitCode, reason: str) -> tuple[ExitCode, str]:
    """With a baseline, the comparison goes into the report and, with ``new``, only new findings
    fail; a mutation run limited to the diff fails on any escape there, not the suite threshold."""
    fail_on = options.fail_on or ("new" if base is not None else "any")
    if base is not None:
        # the baseline's run id, not its path: report.json holds no absolute path
        report["baseline"] = compare(findings(report), findings(base[1]), Path(base[0]).name, fail_on)
    if base is None and fail_on == "any" and not (report.get("mutation") or {}).get("in_diff"):
        return code, reason
    return judge(report, fail_on)


class _Progress:
    """Where a run is, so a stopped run can say so: the stage, the finished units."""

    def __init__(self, planned: int) -> None:
        self.stage = "build"
        self.planned = planned
        self.done: list[UnitResult] = []
        self.pins: dict[str, Any] | None = None
        self.sections: dict[str, Any] = {}


def run(suite: Suite, options: RunOptions, progress: Callable[[UnitResult], None] | None = None) -> RunResult:
    preload(suite, options)
    base = _baseline(options)
    started = time.time()
    folder = options.out / _run_id(suite)
    folder.mkdir(parents=True, exist_ok=False)
    where = _Progress(len(units(suite, options.cases or None, options.lanes or None, options.timeout)))
    try:
        return _stages(suite, options, folder, started, where, progress, base)
    except (Terminated, KeyboardInterrupt) as exc:
        signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
        return _partial(suite, options, folder, started, where, signum)


def _stages(suite: Suite, options: RunOptions, folder: Path, started: float, where: _Progress,
            progress: Callable[[UnitResult], None] | None, base: tuple[str, dict[str, Any]] | None) -> RunResult:
    stream = (folder / "differential.jsonl").open("w", encoding="utf-8")
    # The run folder's evidence, scrubbed of secrets; the pin stage gets the exact observations
    # (a pin must see what the pipeline made) in memory, from ``results``.
    evidence = ObservationStore(folder / "observations", scrub=redactor().redact,  # bodies stay JSON
                                limits=options.evidence_limits)
    links: dict[tuple[str, str, str], str | None] = {}  # (case, lane, side) -> its saved body, for report.json

    def on_result(res: UnitResult) -> None:
        v = res.verdict
        assert v is not None
        for obs in (res.old, res.new):
            if obs is not None:
                digest = evidence.put(obs)
                links[(obs.case_id, obs.lane_id, obs.side)] = body_relpath(digest) if digest else None
        stream.write(json.dumps({"case": v.case_id, "lane": v.lane_id, "verdict": v.kind, "failed": v.failed}) + "\n")
        stream.flush()
        where.done.append(res)
        if progress:
            progress(res)

    try:
        results = build(suite, options.cases or None, options.lanes or None, workers=options.workers,
                        timeout=options.timeout, on_result=on_result)
    finally:
        stream.close()
        evidence.close()
    built = time.time()
    sections = where.sections
    if options.rejections:
        where.stage = "rejections"
        sections["rejections"] = _stage("rejections").evaluate(suite, _observations(results))
    where.stage = "pins"
    pins = (run_pins(suite, options.against, options.cases, options.lanes, pin_set=options.pin_set,
                     revisions=options.revisions, saved=_observations(results)) if options.pins else None)
    where.pins = pins
    pinned = time.time()
    if options.mutate:
        where.stage = "mutation"
        out = str(folder / "mutation")
        sections["mutation"] = _stage("mutation").run(suite, {**options.mutation_options, "out": out,
                                                                 "pins": options.pin_set})
    where.stage = "report"
    timings = {"run_id": folder.name, "started_at": datetime.fromtimestamp(started, UTC).isoformat(),
               "build_s": round(built - started, 3), "pins_s": round(pinned - built, 3), "total_s": 0.0,
               "observations": {f"{r.unit.case.id}|{r.unit.lane.id}|{s}": round(getattr(r, s).duration_s, 6)
                                for r in results for s in ("old", "new") if getattr(r, s) is not None}}
    saved = {"summary": evidence.summary(), "folder": evidence.folder.name, "links": links, "notes": evidence.notes}
    report = report_document(suite, options.as_json(), results, pins, sections, timings, saved)
    code, reason = _compared(report, options, base, *_exit(report, sections))
    report["exit"] = {"code": int(code), "reason": reason}
    return _written(report, folder, options, sections, code, started)


def _written(report: dict[str, Any], folder: Path, options: RunOptions, sections: Mapping[str, Any],
             code: ExitCode, started: float, banner: str = "") -> RunResult:
    report = redactor().value(report)  # before anything is written or printed: no secret leaves the run
    validate_report(report)
    report["timings"]["total_s"] = round(time.time() - started, 3)  # redaction and validation included
    _write(folder, "report.json", json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    _write(folder, "report.md", banner + markdown.render(report, _renderers(sections)))
    _write(folder, "junit.xml", junit.render(report))
    warning = _point_latest(options.out, folder)
    return RunResult(report, folder, code, warning)


def _partial(suite: Suite, options: RunOptions, folder: Path, started: float, where: _Progress,
             signum: int) -> RunResult:
    """The report of a stopped run: what was finished, and where it stopped. Stages after the
    one that was running are absent (null), not empty: nothing claims they passed."""
    name = signal.Signals(signum).name
    code = ExitCode.TERMINATED if signum == signal.SIGTERM else ExitCode.INTERRUPTED
    sections = {k: v for k, v in where.sections.items() if k != "mutation"}
    timings = {"run_id": folder.name, "started_at": datetime.fromtimestamp(started, UTC).isoformat(),
               "total_s": round(time.time() - started, 3)}
    report = report_document(suite, options.as_json(), where.done, where.pins, sections, timings)
    report["partial"] = {"stage": where.stage, "signal": name, "units_done": len(where.done),
                         "units_planned": where.planned}
    reason = (f"stopped by {name} during the {where.stage} stage: a partial report "
              f"({len(where.done)} of {where.planned} case x lane runs finished)")
    report["exit"] = {"code": int(code), "reason": reason}
    banner = f"> **Partial run.** {reason[0].upper()}{reason[1:]}.\n\n"
    return _written(report, folder, options, sections, code, started, banner)

"""The main job: load -> build -> compare -> reject -> pins -> (mutate) -> report.

Writes ``<out>/<run-id>/`` as it goes: each finished case x lane's report row goes to
``differential.jsonl``, its findings with a known rejection to ``rejections.jsonl`` and its bodies
to ``observations/`` the moment it finishes, and nothing of it stays in memory but counts; then
report.json, report.md and junit.xml are assembled from those files, and ``<out>/latest`` points
at the run. A run's memory does not grow with its number of units (``bench/memory_scale.py``).
Stopped by SIGTERM or Ctrl-C, it still writes report.json, report.md and junit.xml from what was
finished, with ``partial: {stage, signal, ...}`` in the report and exit code 143 (SIGTERM) or 130
(Ctrl-C); the supervisor has ended every child by then.

The stages other packages own are typed seams (``RejectionStage``, ``MutationStage``: the functions
the runner calls on their sections), imported on first use: the mutation engine pulls in mutmut,
which a run without ``--mutate`` should not pay for.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple, Protocol, cast

from harness._baseline import compare, findings, judge, load_baseline
from harness._common import supervise
from harness._common.redact import redactor
from harness._common.supervise import Terminated
from harness._differential import Unit, UnitResult, build, units
from harness._differential.rows import Row, unpacked
from harness._errors import ConfigError
from harness._evidence import Limits, ObservationStore, Saved
from harness._evidence.store import Digested
from harness._evidence.view import saved_diffs
from harness._exitcodes import ExitCode, combine
from harness._model import SIDES, Side, Suite
from harness._pins.child import StageOptions
from harness._pins.stage import STREAM as PINS_STREAM
from harness._pins.stage import PinStage
from harness._report import junit, markdown
from harness._report.assemble import Sections, evidence_links, report_document, summary
from harness._report.findings import Fired, RejectionStream
from harness._report.page import write_page
from harness._report.rows import DifferentialStream
from harness._report.sections import MutationSection, PinsSection, RejectionsSection, Report
from harness._report.stream import Slots, write_json
from harness._report.validate import validate_report

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
    # --baseline / --fail-on (harness._baseline): fail_on None is "new" with a baseline, else "any"
    baseline: Path | None = None
    fail_on: str | None = None

    revisions: Mapping[str, str] = field(default_factory=dict)
    """``{"old": sha, "new": sha}`` when a side runs from a git revision (``--old-ref``)."""

    def as_json(self, versions: Sequence[str] = ()) -> dict[str, Any]:
        """report.json's ``options``; ``versions``: the version matrix the suite was played over."""
        out: dict[str, Any] = {"cases": list(self.cases), "lanes": list(self.lanes), "pins_against": self.against,
                               "pins": self.pins, "pin_set": self.pin_set, "rejections": self.rejections,
                               "mutate": self.mutate}
        if self.revisions:
            out["revisions"] = dict(self.revisions)
        if versions:  # a printed id reruns its pair only with them (harness._pins.rerun)
            out["versions"] = list(versions)
        return out


@dataclass
class RunResult:
    """A finished (or stopped) run. ``report`` is report.json's value; its ``differential`` and
    listed rejection findings are read from the run folder when iterated, not held in memory."""

    report: Report
    folder: Path
    code: ExitCode
    warning: str | None = None


def _run_id(suite: Suite) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    # a name from suite.yaml is checked (suite.schema.json); one taken from the folder may hold
    # anything a folder name can ('/' never, but '..', spaces, NUL-free oddities)
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", suite.name).strip(".-") or "suite"
    return f"{stamp}-{name}-{os.getpid() % 10000:04d}"


def _new_run_folder(out: Path, suite: Suite) -> Path:
    """A run folder of its own: two runs of one process in the same second get `-2`, `-3`, ...
    (never the other run's folder: its files would be overwritten)."""
    name = _run_id(suite)
    for n in range(1, 1000):
        folder = out / (name if n == 1 else f"{name}-{n}")
        try:
            folder.mkdir(parents=True, exist_ok=False)
            return folder
        except FileExistsError:
            continue
    raise FileExistsError(out / name)


Renderer = Callable[..., str]


class RejectionStage(Protocol):
    """What the runner asks of the rejection stage (``harness._reject.verdicts``) about its section."""

    def exit_code(self, section: RejectionsSection) -> ExitCode: ...
    def exit_reason(self, section: RejectionsSection, limit: int = 3) -> str: ...
    def ok_reason(self, section: RejectionsSection) -> str | None: ...
    def preload(self, suite: Suite) -> None: ...


class MutationStage(Protocol):
    """What the runner asks of the mutation stage (``harness._mutate``)."""

    def run(self, suite: Suite, options: Mapping[str, Any] | None = None) -> MutationSection: ...
    def exit_code(self, section: MutationSection) -> ExitCode: ...
    def check_ledgers(self, suite: Suite) -> None: ...


# No ImportError is caught in these: a stage that cannot import is a harness bug, never a stage
# to skip quietly.
def _rejection_stage() -> RejectionStage:
    from harness._reject import verdicts

    return verdicts


def _mutation_stage() -> MutationStage:
    from harness._mutate import ledger, runner

    @dataclass(frozen=True)
    class _Mutation:
        run: Callable[..., MutationSection] = runner.run
        exit_code: Callable[[MutationSection], ExitCode] = runner.exit_code
        check_ledgers: Callable[[Suite], None] = ledger.check_ledgers

    return _Mutation()


def _renderers(sections: Sections) -> dict[str, Renderer]:
    out: dict[str, Renderer] = {}
    if sections.rejections is not None:
        from harness._reject.report import render_markdown as rejections_markdown

        out["rejections"] = rejections_markdown
    if sections.mutation is not None:
        from harness._mutate.render import render_markdown as mutation_markdown

        out["mutation"] = mutation_markdown
    return out


def _pin_codes(pins: PinsSection | None) -> list[tuple[ExitCode, str]]:
    if not pins:
        return []
    codes = []
    bad = pins["summary"]["failed"] + pins["summary"]["error"]
    if pins["against"] == "new" and bad:
        codes.append((ExitCode.DIVERGENCE, f"{bad} failing pin(s)"))
    claims = pins["catches_old"]
    if pins["against"] == "old" and claims and claims["passed"]:
        codes.append((ExitCode.DIVERGENCE, f"{len(claims['passed'])} catches_old pin(s) passed"))
    return codes


def _stage_codes(sections: Sections) -> list[tuple[ExitCode, str]]:
    codes = []
    if sections.rejections is not None:
        stage = _rejection_stage()
        code = ExitCode(stage.exit_code(sections.rejections))
        if code:
            codes.append((code, stage.exit_reason(sections.rejections)))
    if sections.mutation is not None:
        code = ExitCode(_mutation_stage().exit_code(sections.mutation))
        if code:
            codes.append((code, f"mutation: exit {int(code)}"))
    return codes


def _ok_reason(sections: Sections) -> str:
    """"clean", unless undeclared rejections the old side shared passed unremarked (a first run)."""
    if sections.rejections is None:
        return "clean"
    return _rejection_stage().ok_reason(sections.rejections) or "clean"


def _exit(report: Report, sections: Sections) -> tuple[ExitCode, str]:
    codes: list[tuple[ExitCode, str]] = []
    failed = report["summary"]["failed"]
    if failed:
        codes.append((ExitCode.DIVERGENCE, f"{failed} failing case x lane verdict(s)"))
    codes += _pin_codes(sections.pins) + _stage_codes(sections)
    if not codes:
        return ExitCode.OK, _ok_reason(sections)
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
        _rejection_stage().preload(suite)
    _mutation_stage().check_ledgers(suite)  # ledgers are suite files: checked on every run


def _baseline(options: RunOptions) -> tuple[str, dict[str, Any]] | None:
    """The baseline run, read before anything is built: a wrong path is bad input, not a lost run."""
    if options.fail_on == "new" and options.baseline is None:
        raise ConfigError("--fail-on", "new", "--baseline PREVIOUS_RUN_DIR as well (new since what?)")
    return load_baseline(options.baseline, validate_report) if options.baseline is not None else None


def _compared(report: Report, options: RunOptions, base: tuple[str, dict[str, Any]] | None,
              code: ExitCode, reason: str) -> tuple[ExitCode, str]:
    """With a baseline, the comparison goes into the report and, with ``new``, only new findings
    fail; a mutation run limited to the diff fails on any escape there, not the suite threshold."""
    fail_on = options.fail_on or ("new" if base is not None else "any")
    if base is not None:
        # the baseline's run id, not its path: report.json holds no absolute path
        report["baseline"] = compare(findings(report), findings(base[1]), Path(base[0]).name, fail_on)
    mutation = report.get("mutation")
    if base is None and fail_on == "any" and not (mutation and mutation["in_diff"]):
        return code, reason
    return judge(report, fail_on)


class Prepared(NamedTuple):
    """What a build worker made of one unit for the parent to write down (``_prepare``)."""

    digests: tuple[Digested | None, Digested | None]
    fired: Fired
    row: bytes | None
    """the unit's differential row, redacted, as differential.jsonl holds it: valid when each body
    was saved under its digest (the parent checks)"""
    lines: tuple[str | None, str | None]
    """old's and new's lines of observations.jsonl, on the same condition (the store checks)"""


_UNPREPARED = Prepared((None, None), (None, None, None), None, (None, None))


class _Progress:
    """Where a run is, so a stopped run can say so: the stage, the finished units; and the
    streams each finished unit goes to."""

    def __init__(self, suite: Suite, options: RunOptions, folder: Path) -> None:
        plan = units(suite, options.cases or None, options.lanes or None, options.timeout)
        self.slots = Slots((u.case.id, u.lane.id) for u in plan)
        self.stage = "build"
        self.planned = self.slots.total
        self.done = 0
        self.rows = DifferentialStream(folder, self.planned)
        self.rejections = RejectionStream(suite, folder, self.planned) if options.rejections else None
        self.pins: PinsSection | None = None

    def finished(self, res: UnitResult, saved: Mapping[str, Saved], evidence: str,
                 prepared: Prepared = _UNPREPARED) -> None:
        """One unit to the streams; then its bodies are let go (the build stage keeps its result
        object, but nothing of it is read again), which keeps a run's memory flat. ``prepared``:
        what a worker made of the unit (``_prepare``); its row is used only when the bodies were
        saved as the worker assumed (not left out by the evidence caps)."""
        slot = self.slots(res.unit.case.id, res.unit.lane.id)
        as_assumed = all(saved.get(side) == Saved(d and d[0]) for side, d in zip(SIDES, prepared.digests, strict=True))
        self.rows.put(slot, res, evidence_links(evidence, saved.get("old"), saved.get("new")),
                      prepared.row if as_assumed else None)
        if self.rejections is not None:
            self.rejections.add(slot, res.unit.case, res.unit.lane, res.old, res.new, prepared.fired)
        res.old = res.new = None
        res.checks = res.verdict = None
        self.done += 1

    def sections(self, mutation: MutationSection | None = None) -> Sections:
        rejections = self.rejections.section() if self.rejections is not None else None
        return Sections(pins=self.pins, rejections=rejections, mutation=mutation)


def _absolute(options: RunOptions) -> RunOptions:
    """The options with the report folder made absolute, once, before any child starts: the
    pins' pytest works in the project root, the mutation engine in its sandbox, and a path
    relative to the folder the harness was started in names another file there
    (``reports/<run>/pins.jsonl`` from ``cases/`` was not found). ``baseline`` is read here, in
    this process, before the build: it stays as the user wrote it, for the messages."""
    return dataclasses.replace(options, out=options.out.absolute())


def run(suite: Suite, options: RunOptions, progress: Callable[[UnitResult], None] | None = None) -> RunResult:
    options = _absolute(options)
    # The pin stage starts first, so its Python pins' pytest starts up (import, plugins,
    # collection) while the input checks run on the other core; it runs no pin before the run
    # folder exists, and bad input stops it with the run (a bad pin set is bad input too).
    with _pin_stage(suite, options) as pins:
        preload(suite, options)
        base = _baseline(options)
        started = time.time()
        folder = _new_run_folder(options.out, suite)
        where = _Progress(suite, options, folder)
        if pins is not None:
            pins.attach(folder / PINS_STREAM)
        try:
            return _stages(suite, options, folder, started, where, progress, base, pins)
        except (Terminated, KeyboardInterrupt) as exc:
            supervise.heard()
            if pins is not None:
                pins.close()  # nothing of the stage runs on while the partial report is written
            signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
            return _partial(suite, options, folder, started, where, signum)


def _pin_stage(suite: Suite, options: RunOptions) -> contextlib.AbstractContextManager[PinStage | None]:
    """The pin stage, started before anything else: it runs as units finish (harness._pins.stage),
    streaming to the run folder's pins.jsonl once it is given (``PinStage.attach``)."""
    if not options.pins:
        return contextlib.nullcontext()
    opts = StageOptions(options.against, pin_set=options.pin_set, revisions=options.revisions,
                        cases=options.cases or None, lanes=options.lanes or None)
    return PinStage(suite, opts, stream_later=True)


def _stages(suite: Suite, options: RunOptions, folder: Path, started: float, where: _Progress,
            progress: Callable[[UnitResult], None] | None, base: tuple[str, dict[str, Any]] | None,
            pins: PinStage | None) -> RunResult:
    # The run folder's evidence is scrubbed of secrets; the pin stage reads each unit's exact
    # observations as it finishes (a pin must see what the pipeline made).
    evidence = ObservationStore(folder / "observations", scrub=redactor().redact,  # bodies stay JSON
                                limits=options.evidence_limits)

    def on_result(res: UnitResult) -> None:
        old, new, verdict = res.old, res.new, res.verdict
        prepared: Prepared = res.prepared or _UNPREPARED  # made in the worker: _prepare
        saved: dict[str, Saved] = {obs.side: evidence.save(obs, digested, line) for obs, digested, line
                                   in zip((old, new), prepared.digests, prepared.lines, strict=True)
                                   if obs is not None}
        if progress:
            progress(res)
        with supervise.held_termination():  # the row and the count of finished units agree
            where.finished(res, saved, evidence.folder.name, prepared)
        if pins is not None:  # after its row: a pin outcome on disk is of a unit the report has
            pins.unit(res.unit.case.id, res.unit.lane.id, old, new, verdict)

    try:
        build(suite, options.cases or None, options.lanes or None, workers=options.workers,
              timeout=options.timeout, on_result=on_result, prepare=_prepare(evidence, where.rejections))
    finally:
        evidence.close()
    supervise.raise_unheard()  # a SIGTERM swallowed while a worker was forked stops the run here
    built = time.time()
    rows = where.rows.finish()
    where.stage = "pins"
    where.pins = cast(PinsSection | None, pins.finish() if pins is not None else None)  # the section's schema
    if pins is not None:
        pins.close()  # its child, forks and pins cache done with before the mutation stage
    pinned = time.time()
    mutation = None
    if options.mutate:
        where.stage = "mutation"
        out = str(folder / "mutation")
        # sides played from a git revision run the revision's code, which no mutant changes
        mutation = _mutation_stage().run(suite, {**options.mutation_options, "out": out, "pins": options.pin_set,
                                                 "revisions": tuple(sorted(options.revisions))})
    where.stage = "report"
    sections = where.sections(mutation)
    timings = {"run_id": folder.name, "started_at": datetime.fromtimestamp(started, UTC).isoformat(),
               "build_s": round(built - started, 3), "pins_s": round(pinned - built, 3), "total_s": 0.0}
    counts = summary(where.done, where.rows.verdicts, where.rows.failed, sections.pins)
    report = report_document(suite, options.as_json(suite.settings.matrix), rows, counts, sections, timings,
                             evidence.summary(), where.rows.subjects)
    code, reason = _compared(report, options, base, *_exit(report, sections))
    report["exit"] = {"code": int(code), "reason": reason}
    return _written(report, folder, options, sections, code, started)


def _prepare(evidence: ObservationStore, rejections: RejectionStream | None) -> Callable[[Unit, Row], Prepared]:
    """The per-unit evidence work a build worker does beside the pipelines (DESIGN.md, "The
    parent writes down; the workers prepare"): each body scrubbed, digested and staged for the
    store, its index line, the rejection rules fired on it, the report row made and redacted. The
    parent, given the answer, writes them down; without it (a ``prepare`` that raised) it does
    the same work itself, to the same bytes."""

    def prepare(unit: Unit, row: Row) -> Prepared:
        old, new = row[0][1], row[1][1]
        first = None if old is None else evidence.stage(old)
        second = first if new is old else (None if new is None else evidence.stage(new))
        res = UnitResult(unit, *unpacked(unit, row))
        assert res.old is not None and res.new is not None
        fired = rejections.fire(unit.case, unit.lane, (res.old, res.new)) if rejections is not None \
            else (None, None, None)
        digests = (first and first[0], second and second[0])
        links = evidence_links(evidence.folder.name, Saved(digests[0]), Saved(digests[1]))
        lines = (evidence.index_line(res.old, digests[0]), evidence.index_line(res.new, digests[1]))
        return Prepared((first, second), fired, DifferentialStream.line(res, links), lines)

    return prepare


def _written(report: Report, folder: Path, options: RunOptions, sections: Sections,
             code: ExitCode, started: float, banner: str = "") -> RunResult:
    # Before anything is written or printed: no secret leaves the run. The streamed lists were
    # redacted row by row as they were made; the walk passes them through untouched.
    report = cast(Report, redactor().value(report))
    validate_report(report)
    report["timings"]["total_s"] = round(time.time() - started, 3)  # redaction and validation included
    write_json(folder / "report.json", report)
    _write(folder, "report.md", banner + markdown.render(report, _renderers(sections), saved_diffs(folder)))
    junit.write(folder / "junit.xml", report)
    write_page(report, folder)  # differential.html: the grid, each cell's diff and bodies
    warning = _point_latest(options.out, folder)
    return RunResult(report, folder, code, warning)


def _partial(suite: Suite, options: RunOptions, folder: Path, started: float, where: _Progress,
             signum: int) -> RunResult:
    """The report of a stopped run: what was finished, and where it stopped. Stages after the
    one that was running are absent (null), not empty: nothing claims they passed."""
    name = signal.Signals(signum).name
    code = ExitCode.TERMINATED if signum == signal.SIGTERM else ExitCode.INTERRUPTED
    sections = where.sections()
    timings = {"run_id": folder.name, "started_at": datetime.fromtimestamp(started, UTC).isoformat(),
               "total_s": round(time.time() - started, 3)}
    rows = where.rows.finish()
    counts = summary(where.done, where.rows.verdicts, where.rows.failed, sections.pins)
    report = report_document(suite, options.as_json(suite.settings.matrix), rows, counts, sections, timings, None,
                             where.rows.subjects)
    report["partial"] = {"stage": where.stage, "signal": name, "units_done": where.done,
                         "units_planned": where.planned}
    reason = (f"stopped by {name} during the {where.stage} stage: a partial report "
              f"({where.done} of {where.planned} case x lane runs finished)")
    report["exit"] = {"code": int(code), "reason": reason}
    banner = f"> **Partial run.** {reason[0].upper()}{reason[1:]}.\n\n"
    return _written(report, folder, options, sections, code, started, banner)

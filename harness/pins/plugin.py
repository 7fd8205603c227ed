"""pytest plugin: every case file becomes pytest items, so plain ``pytest`` runs every pin.

Node ids are ``<case file>::<case id>[<lane id>]::<pin name>``; each case x lane also gets an
``expect`` item checking the old-vs-new verdict the case declares (skipped when pins run
against the old pipeline, where it has no meaning).

Options:
    --harness-against old|new   which pipeline the pins check (default new)
    --harness-isolate           each pipeline call in a forked child (crash-proof; slower)
    --harness-cases GLOB,...    only these case ids      --harness-lanes GLOB,...  only these lanes
    --harness-results FILE      write one JSON line per item outcome (used by ``harness run``)
    --harness-observations DIR  read saved observations from a run's store before calling pipelines

Fixture for Python pins beside the case files:
    observe(case_id, lane_id, side="new") -> Observation
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from harness.compare import compare
from harness.errors import HarnessError
from harness.model import Case, Observation, PinSpec, Side, Suite
from harness.pins import cache
from harness.pins.declarative import PinFailure, evaluate
from harness.report.redact import redactor

__all__ = ["CaseFile", "CaseLane", "ExpectItem", "PinItem"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness", "wire-harness pins")
    group.addoption("--harness-against", choices=("old", "new"), default="new",
                    help="run the pins against this pipeline (default: new)")
    group.addoption("--harness-isolate", action="store_true",
                    help="run each pipeline call in a forked child, so a crash fails one item only")
    group.addoption("--harness-cases", default="", help="comma-separated case id globs")
    group.addoption("--harness-lanes", default="", help="comma-separated lane id globs")
    group.addoption("--harness-results", default="", help="write item outcomes as JSON lines here")
    group.addoption("--harness-observations", default="",
                    help="a run's observations folder: pins read these instead of calling the pipelines again")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "harness_pin: a pin collected from a case file")
    cache.set_against(config.getoption("--harness-against"))
    cache.set_isolate(bool(config.getoption("--harness-isolate")))
    if config.getoption("--harness-observations"):
        cache.use_store(Path(config.getoption("--harness-observations")))
    path = config.getoption("--harness-results")
    if path:
        _results.append(open(path, "w", encoding="utf-8"))  # noqa: SIM115 - closed at unconfigure


def pytest_unconfigure(config: pytest.Config) -> None:
    while _results:
        _results.pop().close()


_results: list[IO[str]] = []  # the --harness-results file, when asked for


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if not _results or (report.when != "call" and not (report.failed or report.skipped)):
        return
    handle = _results[0]
    message = ""
    if report.failed:
        message = report.longreprtext.strip().splitlines()[-1] if report.longreprtext else "failed"
    elif report.skipped and isinstance(report.longrepr, tuple):
        message = str(report.longrepr[2])
    message = redactor().text(message[:2000])  # a pin's message can quote pipeline output
    handle.write(json.dumps({"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
                             "message": message, "duration_s": round(report.duration, 6)}) + "\n")
    handle.flush()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name.endswith(".cases.yaml"):
        return CaseFile.from_parent(parent, path=file_path)
    return None


def _globs(config: pytest.Config, name: str) -> list[str]:
    return [g for g in str(config.getoption(name)).split(",") if g]


def _wanted(value: str, globs: list[str]) -> bool:
    return not globs or any(fnmatch.fnmatchcase(value, g) for g in globs)


class CaseFile(pytest.File):
    """A ``*.cases.yaml`` file: one collector per case x lane."""

    def collect(self) -> Iterator[pytest.Collector]:
        try:
            suite = cache.suite_for(self.path)
        except (HarnessError, LookupError) as exc:
            raise self.CollectError(str(exc)) from None
        cases, lanes = _globs(self.config, "--harness-cases"), _globs(self.config, "--harness-lanes")
        root = Path(suite.root)
        for case in suite.cases:
            if (root / case.file).resolve() != self.path.resolve() or not _wanted(case.id, cases):
                continue
            for lane_id in case.lanes:
                if _wanted(lane_id, lanes):
                    yield CaseLane.from_parent(self, name=f"{case.id}[{lane_id}]", suite=suite,
                                               case=case, lane_id=lane_id)


class CaseLane(pytest.Collector):
    def __init__(self, *, suite: Suite, case: Case, lane_id: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.suite, self.case, self.lane_id = suite, case, lane_id

    def collect(self) -> Iterator[pytest.Item]:
        yield ExpectItem.from_parent(self, name="expect")
        for pin in self.case.pins:
            if self.lane_id in pin.lanes:
                yield PinItem.from_parent(self, name=pin.name, pin=pin)


class _HarnessItem(pytest.Item):
    parent: CaseLane

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.nodeid

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, PinFailure | HarnessError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)  # type: ignore[return-value]


class PinItem(_HarnessItem):
    def __init__(self, *, pin: PinSpec, **kw: Any) -> None:
        super().__init__(**kw)
        self.pin = pin
        self.add_marker(pytest.mark.harness_pin)

    def runtest(self) -> None:
        evaluate(self.parent.suite, self.parent.case, self.parent.lane_id, self.pin)


class ExpectItem(_HarnessItem):
    def runtest(self) -> None:
        if cache.against() == "old":
            pytest.skip("old-vs-new expectations have no meaning when pins run against the old pipeline")
        p = self.parent
        old = cache.observe(p.suite, p.case.id, p.lane_id, "old")
        new = cache.observe(p.suite, p.case.id, p.lane_id, "new")
        got = compare(old, new, p.case.expectation(p.lane_id))
        if got.failed:
            where = f" at {', '.join(got.unexpected_paths[:5])}" if got.unexpected_paths else ""
            raise PinFailure(f"verdict {got.kind}: {got.detail}{where}")


@pytest.fixture
def observe(request: pytest.FixtureRequest) -> Callable[..., Observation]:
    """``observe(case_id, lane_id, side="new")``: an Observation from the suite of this test file."""
    suite = cache.suite_for(Path(str(request.path)))

    def _observe(case_id: str, lane_id: str, side: Side = "new") -> Observation:
        return cache.observe(suite, case_id, lane_id, side)

    return _observe

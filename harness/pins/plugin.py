"""pytest plugin: every case file becomes pytest items, so plain ``pytest`` runs every pin.

Installed as a ``pytest11`` entry point: with the wheel installed, plain ``pytest`` in any
project collects case files and offers the fixtures below (no conftest.py needed).

Node ids are ``<case file>::<case id>[<lane id>]::<pin name>``, relative to pytest's rootdir
(the project root, see ``harness._pins.ids``); each case x lane also gets an ``expect`` item
checking the old-vs-new verdict the case declares (skipped when pins run against the old
pipeline, where it has no meaning). Every printed id reruns that one item: ``pytest
'<file>::<case>[<lane>]::<pin>'`` (pytest alone cannot address a name after a bracket).

Options:
    --harness-against old|new   which pipeline the pins check (default new); against old, a pin
                                marked ``catches_old`` that fails is an expected failure (xfail)
                                and one that passes fails, so the run is green exactly when the
                                marked pins catch the old pipeline
    --harness-isolate           each pipeline call in a forked child (crash-proof; slower)
    --harness-cases GLOB,...    only these case ids      --harness-lanes GLOB,...  only these lanes
    --harness-pins SET          only the pins of this named set (``pin_sets`` in suite.yaml)
    --harness-results FILE      write one JSON line per item outcome (used by ``harness run``)
    --harness-rejections check|off  an ``expect`` item also fails when the new body meets a known
                                provider rejection the case does not declare (``harness run``
                                exit 3); ``harness run`` checks those itself and passes ``off``
    --harness-observations DIR  read saved observations from a run's store before calling pipelines
    --harness-revisions old:SHA,new:SHA  play those sides from git revisions (``harness run --old-ref``)
    --harness-case-files on|off  off: leave case files alone, collect Python pins only (``harness
                                run`` evaluates case-file items in its own process, ``harness._pins.inproc``)
    --harness-known-ids FILE    node ids evaluated elsewhere that a ``--harness-pins`` set may name

Fixtures for Python pins inside a suite folder:
    observe(case_id, lane_id, side="new") -> Observation
    pipeline_module(subject=None, side="new") -> module   the module defining the subject's
        pipeline (``--harness-against old`` swaps in the old one), to call any of its functions;
        the mutation engine charges each pin for the functions it reaches, as for case pins
"""

from __future__ import annotations

import contextlib
import importlib
import json
import re
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from harness._errors import HarnessError, InputError
from harness._model import Case, Observation, PinSpec, Side, Subject, Suite
from harness._pins import cache
from harness._pins.check import CATCHES_OLD_PASSED, EXPECT_AGAINST_OLD, catches_old_applies, check_expect, message_of
from harness._pins.collect import case_lanes
from harness._pins.declarative import PinFailure, evaluate
from harness._pins.ids import select_set, suite_prefix
from harness._pins.results import result_line

__all__ = ["CaseFile", "CaseLane", "ExpectItem", "PinItem", "observe", "pipeline_module"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness", "wire-harness pins")
    group.addoption("--harness-against", choices=("old", "new"), default="new",
                    help="run the pins against this pipeline (default: new)")
    group.addoption("--harness-isolate", action="store_true",
                    help="run each pipeline call in a forked child, so a crash fails one item only")
    group.addoption("--harness-cases", default="", help="comma-separated case id globs")
    group.addoption("--harness-lanes", default="", help="comma-separated lane id globs")
    group.addoption("--harness-pins", default="", metavar="SET",
                    help="only the pins of this named set (pin_sets in suite.yaml)")
    group.addoption("--harness-results", default="", help="write item outcomes as JSON lines here")
    group.addoption("--harness-rejections", choices=("check", "off"), default="check",
                    help="expect items also fail on an undeclared known rejection of the new body (default: check)")
    group.addoption("--harness-revisions", default="",
                    help="old:SHA,new:SHA - play those sides from these git revisions (as harness run --old-ref)")
    group.addoption("--harness-versions", default="", metavar="V1,V2,...",
                    help="play a version matrix as harness run --versions did: every pair's pins")
    group.addoption("--harness-observations", default="",
                    help="a run's observations folder: pins read these instead of calling the pipelines again")
    group.addoption("--harness-case-files", choices=("on", "off"), default="on",
                    help="off: collect only Python pins (harness run evaluates case files itself)")
    group.addoption("--harness-known-ids", default="", metavar="FILE",
                    help="node ids (one a line) collected elsewhere that a --harness-pins set may name")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "harness_pin: a pin collected from a case file")
    cache.set_against(config.getoption("--harness-against"))
    cache.set_isolate(bool(config.getoption("--harness-isolate")))
    revisions = dict(part.split(":", 1) for part in _listed(config, "--harness-revisions"))
    cache.set_revisions(revisions.get("old"), revisions.get("new"))
    cache.set_versions(_listed(config, "--harness-versions"))
    if config.getoption("--harness-observations"):
        cache.use_store(Path(config.getoption("--harness-observations")))
    path = config.getoption("--harness-results")
    if path:
        _results.append(open(path, "w", encoding="utf-8"))  # noqa: SIM115 - closed at unconfigure


def pytest_unconfigure(config: pytest.Config) -> None:
    while _results:
        _results.pop().close()
    # the cache outlives a session run in-process (pytester, an IDE): leave it as a new session
    # expects it, not playing "old" or reading another run's observations
    cache.set_against("new")
    cache.set_revisions(None, None)
    cache.set_versions([])
    cache.clear()


_results: list[IO[str]] = []  # the --harness-results file, when asked for


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    line = result_line(report) if _results else None
    if line is not None:
        _results[0].write(json.dumps(line) + "\n")
        _results[0].flush()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name.endswith(".cases.yaml") and parent.config.getoption("--harness-case-files") == "on":
        return CaseFile.from_parent(parent, path=file_path)
    return None


_ITEM_ARG = re.compile(r"^(?P<head>[^\[]+?\.cases\.ya?ml::[^:\[\]]+\[[^\]]*\])::(?P<pin>[^:\[\]]+)$")
_only: dict[tuple[str, str], set[str]] = {}  # (case file, "case[lane]") -> pin names asked for


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """Let ``<file>::<case>[<lane>]::<pin>`` name one item: pytest reads everything after a
    ``[`` as parameters of the last name, so the argument is collected as ``<file>::<case>[<lane>]``
    and the other pins of that case x lane are deselected afterwards."""
    _only.clear()
    args = session.config.args
    here = session.config.invocation_params.dir
    plain: list[tuple[str, str]] = []
    for i, arg in enumerate(args):
        m = _ITEM_ARG.match(arg)
        args[i] = m.group("head") if m else arg
        file, _, name = args[i].partition("::")
        key = (str((here / file).resolve()), name)
        if m is None:
            plain.append(key)
        else:
            _only.setdefault(key, set()).add(m.group("pin"))
    for file, name in plain:  # its folder, file, case or case x lane asked for too: every pin of it
        _forget_covered(file, name)
    args[:] = list(dict.fromkeys(args))


def _forget_covered(file: str, name: str) -> None:
    """No single-pin narrowing for the case x lanes the plain argument ``file::name`` collects whole."""
    for key in [k for k in _only if _covers(file, name, k)]:
        del _only[key]


def _covers(file: str, name: str, key: tuple[str, str]) -> bool:
    """Whether the plain argument ``file::name`` collects every pin of the case x lane ``key``."""
    if not name:
        return Path(key[0]).is_relative_to(file)
    return key[0] == file and (key[1] == name or key[1].startswith(name + "["))


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    keep = [item for item in items if _asked_for(item)]
    name = str(config.getoption("--harness-pins"))
    if name:
        keep = _in_pin_set(config, keep, name)
    if len(keep) < len(items):
        kept = set(keep)
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
        items[:] = keep


def _asked_for(item: pytest.Item) -> bool:
    parent = item.parent
    if not _only or not isinstance(parent, CaseLane):
        return True
    pins = _only.get((str(item.path.resolve()), parent.name))
    return pins is None or item.name in pins


def _known_ids(config: pytest.Config) -> list[str]:
    """The case-file node ids ``harness run`` evaluated itself (``--harness-known-ids``): a pin
    set's reference naming one of those is not a reference naming nothing."""
    path = str(config.getoption("--harness-known-ids"))
    return Path(path).read_text(encoding="utf-8").splitlines() if path else []


def _in_pin_set(config: pytest.Config, items: list[pytest.Item], name: str) -> list[pytest.Item]:
    """The items of the named pin set, suite by suite; items of no suite are not in any set."""
    known = _known_ids(config)
    by_suite = _by_suite(items)
    kept: set[str] = set()
    for suite, members in by_suite.values():
        prefix = suite_prefix(suite, config.rootpath)
        try:
            kept.update(select_set(suite, name, [i.nodeid for i in members] + known, prefix))
        except InputError as exc:
            raise pytest.UsageError(f"--harness-pins {name}: {exc}") from None
    if not by_suite and not known:
        raise pytest.UsageError(f"--harness-pins {name}: no collected item belongs to a suite folder")
    return [item for item in items if item.nodeid in kept]


def _by_suite(items: list[pytest.Item]) -> dict[str, tuple[Suite, list[pytest.Item]]]:
    """The items of each suite folder (by its root); items of no suite are left out."""
    out: dict[str, tuple[Suite, list[pytest.Item]]] = {}
    for item in items:
        with contextlib.suppress(LookupError):
            suite = cache.suite_for(item.path)
            out.setdefault(suite.root, (suite, []))[1].append(item)
    return out


def _listed(config: pytest.Config, name: str) -> list[str]:
    """A comma-separated option's parts."""
    return [part for part in str(config.getoption(name)).split(",") if part]


class CaseFile(pytest.File):
    """A ``*.cases.yaml`` file: one collector per case x lane."""

    def collect(self) -> Iterator[pytest.Collector]:
        try:
            suite = cache.suite_for(self.path)
        except (HarnessError, LookupError) as exc:
            raise self.CollectError(str(exc)) from None
        cases, lanes = _listed(self.config, "--harness-cases"), _listed(self.config, "--harness-lanes")
        for case, lane_id in case_lanes(suite, self.path, cases, lanes):
            yield CaseLane.from_parent(self, name=f"{case.id}[{lane_id}]", suite=suite, case=case, lane_id=lane_id)


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

    def _guarded(self, check: Callable[..., None], *args: Any) -> None:
        """Run ``check``; what it raises besides a PinFailure also leaves its one-line message
        (``check.message_of``) for the results file, the words ``harness run`` reports in-process."""
        try:
            check(*args)
        except PinFailure:
            raise
        except Exception as exc:
            self.user_properties.append(("harness_message", message_of(exc)))
            raise

    def reportinfo(self) -> tuple[Path, int | None, str]:
        # the case's line (0-based, as pytest counts): a skip marker a conftest adds needs one
        return self.path, max((self.parent.case.line or 1) - 1, 0), self.nodeid

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
        p = self.parent
        if not catches_old_applies(self.pin):
            self._guarded(evaluate, p.suite, p.case, p.lane_id, self.pin)
            return
        try:
            self._guarded(evaluate, p.suite, p.case, p.lane_id, self.pin)
        except PinFailure as exc:
            self.user_properties.append(("harness_outcome", "failed"))
            pytest.xfail(f"catches the old pipeline, as marked: {exc}")
        self.user_properties.append(("harness_outcome", "passed"))
        raise PinFailure(CATCHES_OLD_PASSED)


class ExpectItem(_HarnessItem):
    def runtest(self) -> None:
        if cache.against() == "old":
            pytest.skip(EXPECT_AGAINST_OLD)
        p = self.parent
        self._guarded(check_expect, p.suite, p.case, p.lane_id,
                      self.config.getoption("--harness-rejections") == "check")


@pytest.fixture
def observe(request: pytest.FixtureRequest) -> Callable[..., Observation]:
    """``observe(case_id, lane_id, side="new")``: an Observation from the suite of this test file."""
    suite = cache.suite_for(Path(str(request.path)))

    def _observe(case_id: str, lane_id: str, side: Side = "new") -> Observation:
        return cache.observe(suite, case_id, lane_id, side)

    return _observe


@pytest.fixture
def pipeline_module(request: pytest.FixtureRequest) -> Callable[..., types.ModuleType]:
    """``pipeline_module(subject=None, side="new")``: the module defining that subject's pipeline
    (the suite's only subject when none is named), imported now, so a mutant switched on is the
    code a pin calls. ``--harness-against old`` makes ``side="new"`` the old pipeline's module."""
    suite = cache.suite_for(Path(str(request.path)))

    def _module(subject: str | None = None, side: Side = "new") -> types.ModuleType:
        chosen = _subject(suite, subject)
        spec = chosen.pipeline(cache.against() if side == "new" else "old")
        if spec.kind != "python" or spec.python or not spec.call:
            raise pytest.UsageError(f"pipeline_module({chosen.name!r}): its {side} pipeline does not run in this "
                                    "process (a command or another interpreter), so it has no module to hand a pin")
        return importlib.import_module(spec.call.partition(":")[0])

    return _module


def _subject(suite: Suite, name: str | None) -> Subject:
    """A subject suite.yaml declares or a case uses, or a built-in one named explicitly."""
    from harness._load.suite import declared_subjects
    from harness._plugins import resolve_subject

    declared = declared_subjects(suite.settings, Path(suite.root))
    known = {**declared, **suite.subjects}
    if name is None:
        if len(known) != 1:
            raise pytest.UsageError(f"pipeline_module() needs a subject name: suite {suite.name} has "
                                    f"{', '.join(sorted(known)) or 'no subject'}")
        return next(iter(known.values()))
    if name in known:
        return known[name]
    try:
        return resolve_subject(name, declared)
    except HarnessError as exc:
        raise pytest.UsageError(f"pipeline_module({name!r}): {exc}") from None

"""The engine process: ``python -m harness._mutate.engine <out>/plan.json``.

A fresh interpreter per run, so the mutated modules are installed before anything imports the
originals and nothing of the caller's process leaks in. It runs pytest in-process once: the
collection is the pins; ``pytest_runtestloop`` is taken over to run, instead of the tests,
1. the baseline: every pin once on unmutated code in forked children, with per-pin coverage of
   the target functions and their lines (``harness._mutate.coverage``; cached observations are
   dropped before each pin, so each pin is charged for what its own observations reach);
2. one forked child per mutant row running every covering pin (``harness._mutate.rowpins``),
   with no ``-x`` unless ``--first-kill``. A case file's pins and ``expect`` items are judged
   in-process on the row's observations, made once each, and decided without running when what
   they read equals the baseline's (``harness._mutate.observed``); Python pins run as pytest
   items. The row reports once, over a pipe, when it is done (``harness._mutate.pool``).
Rows go to ``results.jsonl`` as they finish; ``baseline.json`` and ``errors.json`` beside it.

``plan["granularity"] == "pin"`` runs the engine as it was before observations: every covering
pin (function-level coverage) as a pytest item, one message per pin. It is the oracle the tests
compare the kill matrix with, not a user setting.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness._common.progress import Ticker
from harness._mutate.coverage import Coverage
from harness._mutate.pool import cores
from harness._mutate.rowpins import how as _how

__all__ = ["PINS_PLUGIN", "main"]

PINS_PLUGIN = "harness.pins.plugin"


def _clear_cache() -> None:
    """Drop observations the pins module cached: built before a fork they would hide the mutant."""
    # only when the pins plugin is loaded: importing it afresh in every child would cost more
    # than the pins (and a project without it has no such cache)
    cache = sys.modules.get("harness._pins.cache")
    clear = getattr(cache, "clear", None)
    if callable(clear):
        from harness._mutate.sides import fixed_specs

        fixed = fixed_specs()  # sides at a git revision run code no mutant changes: seen once, kept
        clear(fixed.__contains__) if fixed else clear()


class Engine:
    def __init__(self, plan: dict[str, Any]) -> None:
        self.plan = plan
        self.out = Path(plan["out"])
        self.coverage = Coverage()
        self.per_pin = plan.get("granularity") == "pin"
        self.judging = False  # set for the mutant rows: case-file pins judged on observations
        self.obs_prints: dict[Any, Any] = {}  # the baseline's observations, as pins read them
        self.harness_items: list[bool] = []
        self.items: list[Any] = []
        self.collect_errors: list[dict[str, str]] = []
        self.exit_code = 0
        self.recording = False  # set in baseline children: report each pin's coverage
        self.check: Any = None  # the outputs a declared equivalent's row compares (harness._mutate.replay)
        self.recorded: list[Any] = []  # the pins' own calls, recorded in the warm-up (equivalents only)
        self.current: dict[str, Any] = {}  # the mutant this row's child runs
        from harness._mutate.sandbox import open_rows

        self.rows = open_rows(plan.get("sandbox"))

    # pytest hooks --------------------------------------------------------------------------
    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.collect_errors.append({"nodeid": report.nodeid, "error": str(report.longreprtext)[-2000:]})

    def pytest_runtestloop(self, session: Any) -> bool:
        try:
            self._run(list(session.items))
        except Exception as exc:
            import traceback

            self._fail("internal", [{"error": f"{type(exc).__name__}: {exc}",
                                     "trace": traceback.format_exc()[-4000:]}])
        return True

    # the run -------------------------------------------------------------------------------
    def _fail(self, kind: str, errors: list[dict[str, Any]]) -> None:
        (self.out / "errors.json").write_text(json.dumps({"kind": kind, "errors": errors}, indent=1))
        self.exit_code = 2 if kind in ("input", "collect") else 70

    def _run(self, items: list[Any]) -> None:
        if self.collect_errors:
            self._fail("collect", self.collect_errors)
            return
        nodeids = self._keep(items)
        if not self._claims_resolve(nodeids):
            return
        self._load_modules()
        from harness._mutate.sides import play_fixed, run_setups

        play_fixed(self.plan.get("fixed_sides") or {}, self.items)  # --old-ref: the revision's side, as the run

        stamps = self.rows.scratch.parent / "built" if self.plan.get("sandbox") else None  # a kept sandbox's builds
        problem = run_setups(fresh=False, stamps=stamps)  # the unmutated build, in the scratch: rows start from it
        if problem is not None:
            raise RuntimeError(f"the unmutated code cannot run: {problem}")
        self.rows.take_shared_listing()  # the built scratch is what every row starts from
        workers = int(self.plan["workers"]) or cores()
        baseline = self._baseline(nodeids, workers)
        self._warm_up(nodeids, baseline)
        self.rows.take_shared_listing()
        self._mutants(nodeids, baseline, workers)

    def _keep(self, items: list[Any]) -> list[str]:
        """The collected pins less the excluded ones (``self.items``); their node ids."""
        from harness._mutate.observed import is_harness_item
        from harness._pins.killed_by import matches_any

        self.items = [item for item in items if not matches_any(item.nodeid, self.plan.get("exclude", []))]
        self.harness_items = [is_harness_item(item) for item in self.items]
        return [item.nodeid for item in self.items]

    def _warm_up(self, nodeids: list[str], baseline: dict[str, Any]) -> None:
        """Run the passing pins once here, on unmutated code, before forking the mutant rows.

        The parent never ran an item, so every child would redo pytest's lazy per-item work
        (fixture closures, requests...) and fault in fresh pages: about two thirds of a pin's
        cost in a child. These pins passed in the baseline children, so running them here is
        what a plain pytest session does; cached observations are dropped afterwards.
        """
        from harness._mutate.pinrun import run_item

        def overrun(signum: int, frame: Any) -> None:
            raise TimeoutError("a pin overran its deadline while warming up")

        good = [self.items[i] for i, nid in enumerate(nodeids) if baseline["outcomes"].get(nid) == "passed"]
        deadline = float(self.plan["timeout"].get("baseline_s", 60.0))
        previous = signal.signal(signal.SIGALRM, overrun)
        from harness._mutate.replay import recorder_for

        recorder = recorder_for(self.items, self.harness_items, self.plan)  # the pins' calls, for equivalents
        try:  # only an optimisation: a pin that hangs here is cut off and the run goes on
            for pos, item in enumerate(good):
                signal.setitimer(signal.ITIMER_REAL, deadline)
                with recorder.recording(item.nodeid):
                    run_item(item, good[pos + 1] if pos + 1 < len(good) else None)
            self.recorded = recorder.calls
            if not self.per_pin:  # from the cache the warm-up filled: no pipeline runs again
                from harness._mutate.observed import baseline_prints

                self.obs_prints = baseline_prints(good)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        _clear_cache()

    def _claims_resolve(self, nodeids: list[str]) -> bool:
        from harness._pins.killed_by import resolve

        errors = []
        for m in self.plan["mutants"]:
            places = m.get("claim_places") or []
            for j, ref in enumerate(m.get("claims", ())):
                if not resolve(ref, nodeids, self.plan["suite_prefix"]):
                    where = places[j] if j < len(places) else m["ledger"]
                    errors.append({"where": where, "mutant": m["id"], "ref": ref})
        if errors:
            self._fail("input", errors)
        return not errors

    def _load_modules(self) -> None:
        import importlib

        from harness._mutate.mutmut_adapter import known_switch_ids

        known: set[str] = set()
        for name in sorted({*self.plan["modules"], *self.plan["site_modules"]}):
            module = importlib.import_module(name)
            files = self.plan["modules"].get(name)
            self.coverage.add_module(module, (files[0], files[1]) if files else None)
            known |= known_switch_ids(module)
        # mutmut runs the original code for an unknown id: that would read as "survived"
        unknown = [m["id"] for m in self.plan["mutants"] if _how(m) == "switch" and m["switch"] not in known]
        if unknown:
            raise RuntimeError(f"{len(unknown)} operator mutant(s) the trampolines do not know: {unknown[:5]}")

    def _run_pin(self, i: int, rest: Sequence[int]) -> tuple[str, dict[str, Any]]:
        if i == len(self.items):  # not a pin: the output check of a declared equivalent
            return self._outputs_check()
        if self.judging and self.harness_items[i]:
            from harness._mutate.observed import judge

            return judge(self.items[i], self.obs_prints), {}
        from harness._mutate.pinrun import run_item

        outcome = run_item(self.items[i], self._following(rest))
        if not self.recording:
            return outcome, {}
        return outcome, {"h": sorted(self.coverage.hits.functions), "l": sorted(self.coverage.hits.lines)}

    def _following(self, rest: Sequence[int]) -> Any:
        """The next item pytest's protocol will run (its fixtures are kept for it): judged
        items do not go through the protocol, so they are not it."""
        for j in rest:
            if j < len(self.items) and not (self.judging and self.harness_items[j]):
                return self.items[j]
        return None

    def _outputs_check(self) -> tuple[str, dict[str, Any]]:
        return self.check.run(self.current)  # type: ignore[no-any-return]

    def _before_pin(self) -> None:
        _clear_cache()
        self.coverage.hits.clear()

    def _run_jobs(self, jobs: list[Any], deadlines: list[float], workers: int, on_row: Any) -> None:
        """The pool over ``jobs``, each worker on a lane of the sandbox of its own."""
        from harness._mutate.pool import run_jobs

        workers = max(1, min(workers, len(jobs)))
        with self.rows.lanes(workers):
            run_jobs(jobs, self._run_pin, deadlines, workers, on_row)

    def _baseline(self, nodeids: list[str], workers: int) -> dict[str, Any]:
        from harness._mutate.outputs import reused_baseline
        from harness._mutate.pool import Job, Row

        kept = reused_baseline(self.out, self.plan, nodeids)
        if kept is not None:  # --resume on the same project and pins: its baseline holds
            print("harness mutate: --resume: the stopped run's baseline is reused", file=sys.stderr, flush=True)
            return kept

        def preparer(key: str) -> Any:
            def prepare(lane: int) -> str | None:
                from harness._mutate.mutmut_adapter import activate
                from harness._mutate.sides import forget_pipelines

                self.rows.enter(key, "baseline", lane)
                forget_pipelines()
                activate(None)
                self.recording = True
                self.coverage.start()
                return None

            return prepare

        n = len(nodeids)
        chunks = [list(range(n))[k::max(1, workers)] for k in range(max(1, workers))]
        jobs = [Job(f"baseline-{k}", c, preparer(f"baseline-{k}"), self._before_pin) for k, c in enumerate(chunks) if c]
        result: dict[str, Any] = {"pins": nodeids, "outcomes": {}, "details": {}, "durations": {}, "hits": {},
                                  "lines": {}}

        def on_row(row: Row) -> None:
            # what the unmutated code writes is its own behaviour: not charged, not put back (in
            # copy mode the scratch is listed again after the warm-up; an overlay's layer is dropped)
            for i, outcome in row.outcomes.items():
                result["outcomes"][nodeids[i]] = outcome
                extra = row.extra.get(i, {})
                result["durations"][nodeids[i]] = round(float(extra.get("d", 0.0)), 6)
                result["hits"][nodeids[i]] = extra.get("h", [])
                result["lines"][nodeids[i]] = extra.get("l", [])
                if i in row.details:
                    result["details"][nodeids[i]] = row.details[i]
            if row.unviable is not None:
                raise RuntimeError(f"the unmutated code cannot run: {row.unviable}")

        started = time.monotonic()
        deadline = float(self.plan["timeout"].get("baseline_s", 60.0))
        self._run_jobs(jobs, [deadline] * n, workers, on_row)
        result["duration_s"] = round(time.monotonic() - started, 3)
        result["key"] = self.plan.get("baseline_key", "")
        (self.out / "baseline.json").write_text(json.dumps(result, indent=1, sort_keys=True))
        return result

    def _selected(self) -> dict[str, dict[str, Any]]:
        selected = set(self.plan["selected"]) - set(self.plan["done"])
        return {m["key"]: m for m in self.plan["mutants"] if m["key"] in selected}

    def _deadlines(self, nodeids: list[str], baseline: dict[str, Any], mutants: dict[str, Any]) -> list[float]:
        """Each pin's deadline (floor + factor x its baseline duration); the output check's last."""
        factor, floor = float(self.plan["timeout"]["factor"]), float(self.plan["timeout"]["floor_s"])
        deadlines = [floor + factor * float(baseline["durations"].get(nid, 0.0)) for nid in nodeids]
        if any(m.get("equivalent") for m in mutants.values()):
            from harness._mutate.replay import EquivalenceCheck

            started = time.monotonic()
            self.check = EquivalenceCheck.prepare(self.plan["suite_root"], self.coverage, self.recorded)
            _clear_cache()
            deadlines = [*deadlines, floor + factor * (time.monotonic() - started)]
        return deadlines

    def _chooser(self, nodeids: list[str], baseline: dict[str, Any]) -> Any:
        from harness._mutate.rowpins import PinChooser

        good = [i for i, nid in enumerate(nodeids) if baseline["outcomes"].get(nid) == "passed"]
        sources = {name: files[0] for name, files in self.plan["modules"].items()}
        return PinChooser(nodeids, good, baseline, sources, self.coverage.mapped, self.per_pin)

    def _mutants(self, nodeids: list[str], baseline: dict[str, Any], workers: int) -> None:
        mutants = self._selected()
        deadlines = self._deadlines(nodeids, baseline, mutants)
        chooser = self._chooser(nodeids, baseline)
        with (self.out / "results.jsonl").open("a", encoding="utf-8") as results:
            jobs, by_lines = self._jobs(mutants, chooser, results)
            if any(self.rows.shares_scratch(_how(mutants[j.key])) for j in jobs):
                # rows sharing the scratch one at a time: a write is charged to the row that made it,
                # and putting the scratch back never pulls a file from under another row
                workers = 1
            self.judging = not self.per_pin
            with Ticker(len(jobs), "mutants run", prefix="harness mutate: ") as ticker:
                on_row = self._row_writer(results, nodeids, mutants, by_lines, ticker)
                self._run_jobs(jobs, deadlines, workers, on_row)

    def _jobs(self, mutants: dict[str, Any], chooser: Any, results: Any) -> tuple[list[Any], dict[str, int]]:
        """A row for each mutant with pins to run (a mutant no pin covers is written at once), and
        the pin runs line coverage saved each."""
        jobs = []
        by_lines: dict[str, int] = {}
        for key in sorted(mutants):
            m = mutants[key]
            chosen = chooser.pins_for(m)
            by_lines[key] = chosen.saved_by_lines
            check = [len(self.items)] if self.check is not None and self.check.wants(m) else []
            if chosen.pins or check:
                jobs.append(self._job(m, [*chosen.pins, *check]))
            else:
                _write_row(results, m, {}, {}, None, 0, 0.0, saved={"observations": 0, "lines": chosen.saved_by_lines})
        return jobs, by_lines

    def _job(self, m: dict[str, Any], pins: list[int]) -> Any:
        from harness._mutate.pool import Job
        from harness._pipeline.setup import SETUP_TIMEOUT_S

        # a file mutant builds before its first pin: the setup's own deadline, not the pool's
        start = SETUP_TIMEOUT_S + 30.0 if _how(m) == "file" else 0.0
        prepare = _preparer(m, self.rows, self.items, self.plan.get("rebuild"))

        def prepare_row(lane: int) -> str | None:
            self.current = m  # in the row's child: the mutant an output check compares
            return prepare(lane)  # type: ignore[no-any-return]

        return Job(m["key"], pins, prepare_row, _clear_once(), start, whole=not self.per_pin,
                   stop_on_kill=bool(self.plan.get("first_kill")))

    def _row_writer(self, results: Any, nodeids: list[str], mutants: dict[str, Any], by_lines: dict[str, int],
                    ticker: Ticker) -> Any:
        from harness._mutate.observed import SAVED
        from harness._mutate.pool import Row

        check = len(self.items)  # the pseudo-pin index of the output check

        def on_row(row: Row) -> None:
            m = mutants[row.key]
            outcomes = {nodeids[i]: ("passed" if o == SAVED else o) for i, o in row.outcomes.items() if i != check}
            details = {nodeids[i]: d for i, d in row.details.items() if i != check}
            elapsed = time.monotonic() - row.started
            checked = None
            if check in row.outcomes:
                checked = {"outcome": row.outcomes[check], "detail": row.details.get(check, ""),
                           **{k: v for k, v in row.extra.get(check, {}).items() if k != "d"}}
            writes = self.rows.writes(row.key, _how(m), row.lane)
            saved = {"observations": sum(1 for o in row.outcomes.values() if o == SAVED), "lines": by_lines[row.key]}
            _write_row(results, m, outcomes, details, row.unviable, row.forks, elapsed, checked, writes, saved)
            ticker.advance()  # where the run is and the time left: a bar, or a line every few seconds

        return on_row


def _clear_once() -> Any:
    """Drop cached observations before a child's first pin only: the ones its later pins share
    were all made with the mutant on (each fork starts from the parent's copy of the flag)."""
    done = [False]

    def before_pin() -> None:
        if not done[0]:
            _clear_cache()
            done[0] = True

    return before_pin


def _preparer(m: dict[str, Any], rows: Any, items: list[Any], rebuild_with: str | None = None) -> Any:
    def prepare(lane: int) -> str | None:
        from harness._mutate.mutmut_adapter import activate
        from harness._mutate.sides import apply_file, forget_pipelines

        how = _how(m)
        tree = rows.enter(m["key"], how, lane)
        if how == "file":
            activate(None)
            problem = apply_file(m, tree, rows.scratch, items, rebuild_with)
            rows.mark(m["key"], tree)
            # the report names no absolute path: the row's tree is '<sandbox>'
            return problem.replace(str(tree), "<sandbox>") if problem else None
        forget_pipelines()  # a command side started by the parent runs unmutated code
        if how == "switch":  # nothing written: the row's writes are all it finds in its lane
            activate(m["switch"])
            return None
        activate(None)
        from harness._mutate.loader import exec_in_place

        path = m["source_path"]
        try:
            exec_in_place(m["module"], Path(path).read_text(encoding="utf-8"), path)
        except BaseException as exc:
            return f"{type(exc).__name__}: {exc}"
        rows.mark(m["key"], tree)
        return None

    return prepare


def _write_row(fh: Any, m: dict[str, Any], outcomes: dict[str, str], details: dict[str, str],
               unviable: str | None, forks: int, elapsed: float, outputs: dict[str, Any] | None = None,
               writes: list[dict[str, str]] | None = None, saved: dict[str, int] | None = None) -> None:
    row = {"key": m["key"], "id": m["id"], "pins": outcomes, "details": details, "unviable": unviable,
           "forks": forks, "duration_s": round(elapsed, 4)}
    if saved is not None:  # pin runs decided without running: equal observations, lines not run
        row["saved"] = saved
    if outputs is not None:
        row["outputs"] = outputs
    if writes:
        row["writes"] = writes
    fh.write(json.dumps(row, sort_keys=True) + "\n")
    fh.flush()


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # unwinds through the pool, which kills every running child


def _cheap_failures() -> None:
    """Failure reports carry one line: nobody reads a traceback here, and rendering one against a
    mutated module is most of a killed pin's cost."""
    from _pytest import nodes

    def short(self: Any, excinfo: Any, style: Any = None) -> str:
        return f"{excinfo.typename}: {str(excinfo.value)[:200]}"

    nodes.Node._repr_failure_py = short  # type: ignore[method-assign,assignment]


def _preload() -> None:
    """What every run imports, none of it a target: loaded while the caller is still planning."""
    import _pytest.runner  # noqa: F401
    import mutmut.mutation.trampoline  # noqa: F401
    import pytest  # noqa: F401

    import harness._mutate.loader
    import harness._mutate.pinrun
    import harness._mutate.pool  # noqa: F401


def _importable(root: str, suite_root: str) -> None:
    """The project root (and its src/) first, then the suite folder, as ``harness run`` has it:
    a suite's own pipeline modules beside its case files import by their bare names."""
    from harness._plugins import distribution_folders

    nested = [str(d) for d in distribution_folders(Path(root))]  # the repository's subjects/
    for entry in (suite_root, *nested, os.path.join(root, "src"), root):
        if entry not in sys.path and os.path.isdir(entry):
            sys.path.insert(0, entry)
    # pipelines a pin runs in a child interpreter find them too
    paths = [p for p in (root, *nested, suite_root) if os.path.isdir(p)]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([*paths, *filter(None, [os.environ.get("PYTHONPATH")])]))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--wait"]:  # started early: the plan's path arrives on stdin when it exists
        _preload()
        line = sys.stdin.readline().strip()
        if not line:
            return 0
        args = [line]
    plan = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    root = plan["root"]
    os.chdir(root)
    _importable(root, plan.get("suite_root", root))
    from harness._mutate.loader import install

    install({name: (orig, mutated) for name, (orig, mutated) in plan["modules"].items()})
    import pytest

    _cheap_failures()
    signal.signal(signal.SIGTERM, _interrupted)  # a cancelled CI job: stop the children too
    engine = Engine(plan)
    engine.rows.protect([Path(plan["out"])])  # the user's tree read-only to everything from here on
    # --assert=plain: a failing assert's rewritten explanation (a diff of two large values) costs
    # far more than the pin itself, and only pass/fail crosses the pipe
    # the pins plugin registered here, as `harness run` does: a suite needs no conftest.py for its
    # case-file pins (a conftest's pytest_plugins naming it again is the same plugin, not a second)
    pytest_args = [*plan["pin_args"], "--rootdir", root, "-p", PINS_PLUGIN, "-p", "no:cacheprovider", "-o", "addopts=",
                   "--assert=plain", "--tb=no", "-s", "-q", "-p", "no:randomly", "-p", "no:faulthandler",
                   "-W", "ignore::DeprecationWarning"]
    code = pytest.main(pytest_args, plugins=[engine])
    if engine.exit_code:
        return engine.exit_code
    if not (Path(plan["out"]) / "baseline.json").exists():
        (Path(plan["out"]) / "errors.json").write_text(json.dumps(
            {"kind": "collect", "errors": [{"error": f"pytest ended with code {int(code)} before the run"}]}))
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

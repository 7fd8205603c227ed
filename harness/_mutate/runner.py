"""``run(suite, options)``: plan, run the engine process, build the section, write the reports."""

from __future__ import annotations

import dataclasses
import filecmp
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness._common import supervise
from harness._errors import ConfigError, InputError, InputErrors, MutationError, Place
from harness._exitcodes import ExitCode
from harness._model import Suite
from harness._mutate.extra import require_mutmut
from harness._mutate.outlive import fresh_rows, outlive
from harness._mutate.outputs import folder_lock
from harness._mutate.plan import Options, Plan, baseline_key, build_plan, out_folder, parse_shard, write_plan
from harness._mutate.results import build_section, read_rows
from harness._mutate.sandbox import Sandbox, changes, listing
from harness._mutate.section import MutationSection
from harness._mutate.sides import spec_document
from harness._mutate.targets import load_settings

__all__ = ["content_changes", "exit_code", "finish", "run", "stopped_section"]


def _errors_from_engine(out: Path, code: int, stderr: bytes | None) -> Exception:
    path = out / "errors.json"
    if not path.is_file():
        tail = (stderr or b"").decode(errors="replace").strip().splitlines()[-15:]
        said = ("; its last words:\n  " + "\n  ".join(tail)) if tail else " and left no explanation"
        return MutationError(f"the mutation engine ended with code {code}{said}")
    doc = json.loads(path.read_text(encoding="utf-8"))
    return _ENGINE_ERRORS.get(doc.get("kind"), _internal_error)(doc.get("errors", []))


def _reference_errors(errors: list[dict[str, Any]]) -> Exception:
    """Claims naming pins the collection does not have: the ledger's places."""
    return InputErrors([
        InputError(Place(e["where"]), f"a pin reference matching a collected pin for mutant {e['mutant']}",
                   repr(e["ref"])) for e in errors])


def _collect_errors(errors: list[dict[str, Any]]) -> Exception:
    last = [(e.get("nodeid", ""), (e["error"].strip().splitlines() or [""])[-1]) for e in errors]
    lines = "\n".join(f"  {nodeid}: {line}" for nodeid, line in last)
    return MutationError(f"collecting the pins failed:\n{lines}")


def _internal_error(errors: list[dict[str, Any]]) -> Exception:
    first = errors[0] if errors else {}
    return MutationError(f"the mutation engine failed: {first.get('error')}\n{first.get('trace', '')}")


# errors.json's kind -> the error it makes (anything else: the engine's own failure)
_ENGINE_ERRORS = {"input": _reference_errors, "collect": _collect_errors}


def _options(given: Options | Mapping[str, Any] | None) -> Options:
    """Options from the dataclass or a plain mapping (``harness run`` passes its settings as one)."""
    if given is None or isinstance(given, Options):
        return given or Options()
    raw = dict(given)
    shard = raw.get("shard")
    if isinstance(shard, str):
        raw["shard"] = parse_shard(shard)
    if raw.get("out") is not None:
        raw["out"] = Path(raw["out"])
    known = set(Options.__dataclass_fields__)
    stray = sorted(set(raw) - known)
    if stray:
        raise ConfigError("mutation options", stray, f"only {', '.join(sorted(known))}")
    return Options(**raw)


def _start_engine(cwd: Path, progress: bool) -> subprocess.Popen[bytes]:
    """The engine process, started before the plan exists: it imports pytest and the runner
    while this process generates the mutants, then waits for the plan's path on stdin."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("MUTANT_UNDER_TEST", None)
    # supervised: its own process group, ended with the harness (even a SIGKILLed one)
    return supervise.popen(
        [sys.executable, "-m", "harness._mutate.engine", "--wait"], cwd=cwd, env=env, stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL, stderr=None if progress else subprocess.PIPE,
    )


def run(suite: Suite, options: Options | Mapping[str, Any] | None = None) -> MutationSection:
    """Run the kill matrix for ``suite``; returns the report section (also written to the out dir).

    The engine runs in a scratch copy of the project (``harness._mutate.sandbox``); the user's
    tree is listed before and after, and whatever changed there is reported (``sandbox.outside``).
    """
    require_mutmut()
    options = _options(options)
    root = load_settings(Path(suite.root), suite.settings).root
    out = out_folder(Path(suite.root), options)
    with folder_lock(out):  # another run in this folder would rewrite this one's results
        return _run_locked(suite, options, root, out)


def _run_locked(suite: Suite, options: Options, root: Path, out: Path) -> MutationSection:
    guard = listing(root, skip=[out])
    tree = hashlib.sha256(json.dumps(sorted(guard.items())).encode()).hexdigest()
    sandbox = _sandbox(root, out, options.resume, tree)
    kept = False
    try:
        plan, done, code, stderr = _run_engine(suite, options, sandbox, Path(sandbox.map(root)), guard)
        again, key = _pass_again(plan), baseline_key(plan, guard)
        code, stderr = outlive(plan.out, code, stderr, lambda finished: _engine_pass(
            Path(sandbox.map(root)), options.progress,
            lambda: fresh_rows(sandbox, write_plan(again, 1, finished, sandbox, key))))
        found = changes(guard, listing(root, skip=[out]))
        _record_outside(plan.out, sandbox.mode, content_changes(found, root, Path(sandbox.map(root))))
    except (KeyboardInterrupt, supervise.Terminated) as stop:
        # the rows finished so far are the run's result: reports written, the caller prints them;
        # the built scratch stays for a --resume
        stop.section = stopped_section(out)  # type: ignore[union-attr]
        kept = _keep(sandbox, out, tree)
        raise
    finally:
        if not kept:
            sandbox.remove()
            (out / KEPT).unlink(missing_ok=True)
    if code != 0:
        raise _errors_from_engine(plan.out, code, stderr)
    return finish(plan.out, resumed=len(done))


KEPT = "sandbox-kept.json"
"""In the out folder: the sandbox a stopped run left for ``--resume`` and the tree it copied."""


def _sandbox(root: Path, out: Path, resume: bool, tree: str) -> Sandbox:
    """The stopped run's sandbox, built, when ``--resume`` finds the project as it copied it;
    else a new one (a kept sandbox nobody resumes goes with the next run into this folder)."""
    try:
        kept = json.loads((out / KEPT).read_text(encoding="utf-8"))
        base = Path(kept["base"])
    except (OSError, ValueError, KeyError, TypeError):
        return Sandbox.create(root, skip=[out])
    if resume and kept.get("tree") == tree and (base / "tree").is_dir():
        print("harness mutate: --resume: the stopped run's sandbox and its build are reused", file=sys.stderr,
              flush=True)
        return Sandbox.reuse(base, root, skip=[out])
    if base.name.startswith("harness-sandbox-"):
        shutil.rmtree(base, ignore_errors=True)
    (out / KEPT).unlink(missing_ok=True)
    return Sandbox.create(root, skip=[out])


def _keep(sandbox: Sandbox, out: Path, tree: str) -> bool:
    """Leave a stopped run's sandbox (its scratch built) for ``--resume``; False when it cannot be."""
    if not sandbox.keep():
        return False
    (out / KEPT).write_text(json.dumps({"base": str(sandbox.base), "tree": tree}), encoding="utf-8")
    return True


def stopped_section(out: Path) -> MutationSection | None:
    """A stopped run's section and reports from the rows it finished (the rest ``pending``, so
    the verdict is incomplete); None when it stopped before its baseline was written."""
    if not (out / "plan.json").is_file() or not (out / "baseline.json").is_file():
        return None
    try:
        return finish(out)
    except (OSError, ValueError, KeyError):  # a plan or baseline torn by the stop: nothing to say
        return None


def _run_engine(suite: Suite, options: Options, sandbox: Sandbox, where: Path,
                tree: dict[str, str]) -> tuple[Plan, set[str], int, bytes | None]:
    """Plan while the engine starts (in the scratch, ``where``: '' on its sys.path is that folder),
    hand it the plan, wait for it: the plan, the rows resumed, its exit code and stderr."""
    engine = _start_engine(where, options.progress)
    try:
        plan, done = _prepare(suite, options)
        key = baseline_key(plan, tree)
        _keep_baseline_if(plan.out, options.resume, key)
        workers = options.workers if options.workers is not None else plan.settings.workers
        plan_path = write_plan(plan, workers or 0, done, sandbox, key)
        _out, stderr = engine.communicate(f"{plan_path}\n".encode())
    except BaseException:  # Ctrl-C, SIGTERM (Terminated) or an error: the engine and its forks go
        supervise.kill_group(engine.pid)
        engine.wait()
        raise
    return plan, done, engine.returncode, stderr


def _pass_again(plan: Plan) -> Plan:
    """The plan of a pass after a mutant killed the engine: it keeps the baseline this run measured
    (its baseline.json carries the run's key), as a ``--resume`` does. Measured again, every pin would
    run once more on unmutated code, and in a scratch the killer's row may have left changed."""
    return dataclasses.replace(plan, options=dataclasses.replace(plan.options, resume=True))


def _engine_pass(where: Path, progress: bool, plan_path: Callable[[], Path]) -> tuple[int, bytes | None]:
    """The engine once more on a plan ``plan_path`` writes (after a mutant killed it: ``outlive``)."""
    engine = _start_engine(where, progress)
    try:
        _out, stderr = engine.communicate(f"{plan_path()}\n".encode())
    except BaseException:  # Ctrl-C, SIGTERM (Terminated) or an error: the engine and its forks go
        supervise.kill_group(engine.pid)
        engine.wait()
        raise
    return engine.returncode, stderr


def content_changes(found: list[dict[str, str]], root: Path, scratch: Path) -> list[dict[str, str]]:
    """``found`` (a stat listing's differences) without the files rewritten with the bytes they
    had: the scratch holds the tree as the run found it, and a rewrite with the same bytes (another
    tool regenerating a file while the run went) changed nothing in the user's tree."""
    return [c for c in found if not (c["change"] == "modified" and _same_bytes(root / c["path"], scratch / c["path"]))]


def _same_bytes(a: Path, b: Path) -> bool:
    try:
        return a.is_file() and not a.is_symlink() and b.is_file() and filecmp.cmp(a, b, shallow=False)
    except OSError:
        return False


def _record_outside(out: Path, mode: str, outside: list[dict[str, str]]) -> None:
    """What changed in the user's tree during the run: in sandbox.json, and said on stderr."""
    (out / "sandbox.json").write_text(json.dumps({"mode": mode, "outside": outside}, indent=1), encoding="utf-8")
    if outside:
        names = ", ".join(f"{o['path']} ({o['change']})" for o in outside[:10])
        print(f"harness mutate: the project tree changed during the run, outside the sandbox: {names}",
              file=sys.stderr, flush=True)


def _prepare(suite: Suite, options: Options) -> tuple[Plan, set[str]]:
    """The plan, and the rows an interrupted run already finished (with ``--resume``)."""
    fixed = {name: {side: spec_document(subject.pipeline(side)) for side in options.revisions}
             for name, subject in suite.subjects.items()} if options.revisions else {}
    # a side at a revision runs the revision's tree, outside the project: mutants never reach it,
    # so it neither makes the mutants whole files nor plays the engine's unmutated working tree
    external = any(not subject.pipeline(side).in_process for subject in suite.subjects.values()
                   for side in ("old", "new") if side not in options.revisions)
    plan = build_plan(Path(suite.root), suite.name, suite.settings, options, suite.cases, external=external,
                      fixed=fixed)
    results = plan.out / "results.jsonl"
    for stale in ("errors.json", "sandbox.json"):
        (plan.out / stale).unlink(missing_ok=True)
    done: set[str] = set()
    if options.resume:
        kept = read_rows([results])
        # rewrite without a torn last line (an interrupted write), so appends start on a new line
        results.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in kept.values()), encoding="utf-8")
        done = set(kept) & set(plan.selected)
    else:
        results.unlink(missing_ok=True)
    return plan, done


def _keep_baseline_if(out: Path, resume: bool, key: str) -> None:
    """The last run's baseline.json stays for a ``--resume`` on the same project and pins (its
    key); otherwise it goes: it describes other code or other pins."""
    path = out / "baseline.json"
    try:
        kept = resume and json.loads(path.read_text(encoding="utf-8")).get("key") == key
    except (OSError, ValueError, AttributeError):
        kept = False
    if not kept:
        path.unlink(missing_ok=True)


def finish(out: Path, resumed: int = 0, shards: list[str] | None = None) -> MutationSection:
    """Build the section from the files in ``out`` and write every report format beside them."""
    plan = json.loads((out / "plan.json").read_text(encoding="utf-8"))
    baseline = json.loads((out / "baseline.json").read_text(encoding="utf-8"))
    rows = read_rows([out / "results.jsonl"])
    section = build_section(plan, baseline, rows, shards)
    section["timing"]["resumed_rows"] = resumed
    guard = out / "sandbox.json"
    if guard.is_file():
        section["sandbox"] = json.loads(guard.read_text(encoding="utf-8"))
    write_reports(out, plan, section)
    return section


def write_reports(out: Path, plan: dict[str, Any], section: MutationSection) -> None:
    from harness._mutate.html_view import render_html
    from harness._mutate.render import render_markdown
    from harness._mutate.stryker import stryker_report
    from harness._mutate.viewer import VIEWER_FILE, render_viewer

    (out / "mutation.json").write_text(json.dumps(section, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (out / "mutation.md").write_text(render_markdown(section), encoding="utf-8")
    (out / "mutation.html").write_text(render_html(section), encoding="utf-8")
    # the sources as the user has them: plan["root"] is the run's sandbox, gone by now
    stryker = stryker_report(section, Path(plan.get("project_root") or plan["root"]), plan)
    (out / "mutation-report.json").write_text(json.dumps(stryker, indent=1) + "\n", encoding="utf-8")
    (out / VIEWER_FILE).write_text(render_viewer(stryker, section.get("suite", "")), encoding="utf-8")


def exit_code(section: Mapping[str, Any]) -> ExitCode:
    """MUTANTS_ESCAPED when escapes exceed the suite's threshold, a claimed kill did not happen, or
    the section is incomplete (pending mutants, e.g. a merge missing a shard): that is no pass."""
    verdict = section.get("verdict", {})
    if verdict.get("escaped_over_threshold") or verdict.get("claims_failed") or not verdict.get("complete", True):
        return ExitCode.MUTANTS_ESCAPED
    return ExitCode.OK

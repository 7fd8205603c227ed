"""The output folder of a mutation run, and evidence for a declared ``equivalent``.

``folder_lock(out)``: one mutation run at a time per output folder. Two runs sharing one (the
default ``reports/mutation`` is shared by every run of a suite) would delete and append to each
other's results; the second is refused with the holder's pid. The lock is an ``flock`` on
``out/.lock``, so it goes away with its process, even one killed with SIGKILL.

Evidence for a declared ``equivalent``: the new pipeline's output on every case x lane.

"No pin turned red" only says the pins cannot tell; a claimed no-op should also leave every
output the suite can produce byte-identical. So for declared-equivalent mutants the engine
fingerprints the subjects' ``new`` pipelines over every case x lane of the suite, once on the
unmutated code and once with the mutant on, and reports the case x lanes that differ.
Suites without cases (a project of plain tests) have nothing to fingerprint: None.
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from harness._errors import ConfigError
from harness._model import Case, Observation, Suite
from harness._pipeline.base import Pipeline

__all__ = ["differing", "fingerprints", "folder_lock", "reused_baseline"]


@contextlib.contextmanager
def folder_lock(out: Path) -> Iterator[None]:
    """Hold ``out`` for this run; ConfigError (exit 2) naming the holder when another run has it."""
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            raise ConfigError("--out", str(out), f"a folder no other mutation run is using (pid {holder} holds "
                              "it: wait for it, or give this run its own --out)") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def reused_baseline(out: Path, plan: Mapping[str, Any], nodeids: list[str]) -> dict[str, Any] | None:
    """With ``--resume``: the stopped run's baseline.json when it was made on the same project,
    pins and traced modules (its key, ``plan.baseline_key``) and lists the same pins; else None."""
    path = out / "baseline.json"
    if not plan.get("resume") or not plan.get("baseline_key") or not path.is_file():
        return None
    try:
        kept: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return None
    return kept if kept.get("key") == plan["baseline_key"] and kept.get("pins") == nodeids else None


def fingerprints(suite_root: str) -> dict[str, str] | None:
    """``case[lane]`` -> sha256 of the canonical output (or the error raised), None without cases.
    The suite is the one the pins loaded in this process (so a row working in its own copy of the
    sandbox fingerprints its own sides); every side is reached through the pipeline seam."""

    from harness._differential.unit import Pipelines

    suite = _suite(suite_root)
    if suite is None or not suite.cases:
        return None
    out: dict[str, str] = {}
    timeout = suite.settings.timeout_s
    with Pipelines() as pipes:
        for case in suite.cases:
            out.update(_case_prints(pipes.get(suite.subjects[case.subject].pipeline("new")), suite, case, timeout))
    return out


def _case_prints(pipeline: Pipeline, suite: Suite, case: Case, timeout: float) -> dict[str, str]:
    """One case's fingerprint on each of its lanes, from the new side's pipeline."""
    out: dict[str, str] = {}
    for lane_id in case.lanes:
        obs = pipeline.call(copy.deepcopy(dict(case.input)), suite.lanes[lane_id].as_dict(), case_id=case.id,
                            lane_id=lane_id, side="new", timeout=timeout)
        out[f"{case.id}[{lane_id}]"] = _fingerprint(obs)
    return out


def _suite(suite_root: str) -> Suite | None:
    """The suite the pins loaded in this process, else loaded here; None for a folder that is not one."""
    from harness._load import load_suite
    from harness._mutate.sides import suites

    try:
        return suites().get(str(Path(suite_root).resolve())) or load_suite(suite_root)
    except Exception:  # not a suite of cases: the pins are the only oracle
        return None


def _fingerprint(obs: Observation) -> str:
    """The sha256 of a wire body; an error is an output too: the same one must come back."""
    if obs.ok and obs.wire is not None:
        return hashlib.sha256(obs.wire).hexdigest()
    err = obs.error
    return f"{obs.outcome} {err.type if err else ''}: {(err.message if err else '')[:200]}"


def differing(before: dict[str, str], after: dict[str, str] | None) -> list[str]:
    """The case x lanes whose output changed (all of them when none could be made)."""
    if after is None:
        return sorted(before)
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))

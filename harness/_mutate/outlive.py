"""A mutant that kills the mutation engine is that mutant's outcome, not the end of the run.

A row's child is the engine's fork: a mutant of code that sends signals (``os.kill(pid, ...)``
with ``pid`` mutated to ``os.getppid()`` or ``0``) can kill the engine itself, and the run used to
end with exit 2 and no mutation.json. When the engine ends unexplained (no errors.json) after its
baseline, with mutants left, ``outlive`` runs the mutants left again, one row at a time, in the
order the engine runs them (by key): if it dies again, the first mutant without a row is the one
that killed it. Its row is written here: each pin the baseline saw reach its function, ``crash``,
with a detail saying the engine was killed and which pin was running is unknown. So it counts
as killed by those pins (a claim on them holds), and the run goes on with the rest. (With the
sandbox in copy mode, what the killer's row wrote in the scratch stays there: the engine puts
the scratch back after each row, and it died first.)
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness._common.supervise import ended_by
from harness._mutate.results import read_rows

__all__ = ["fresh_rows", "outlive"]

Rerun = Callable[[set[str]], tuple[int, bytes | None]]
"""Start the engine again on the plan, rows of ``done`` skipped, one worker: its code and stderr."""


def fresh_rows(sandbox: Any, plan_path: Path) -> Path:
    """The sandbox's row folders emptied (the dead engine's lanes are still there) before the
    engine starts again on ``plan_path``; that path."""
    shutil.rmtree(sandbox.base / "rows", ignore_errors=True)
    (sandbox.base / "rows").mkdir()
    return plan_path


def _unexplained(out: Path, code: int) -> bool:
    """The engine ended badly without saying why, after its baseline (so mutant rows were running)."""
    return code != 0 and not (out / "errors.json").is_file() and (out / "baseline.json").is_file()


def _left(out: Path, plan: dict[str, Any]) -> tuple[set[str], list[str]]:
    """The mutants with a row, and the selected ones without, in the engine's order (by key)."""
    done = set(read_rows([out / "results.jsonl"])) if (out / "results.jsonl").is_file() else set()
    return done, sorted(k for k in plan["selected"] if k not in done)


def _covering(mutant: dict[str, Any], baseline: dict[str, Any]) -> list[str]:
    """The pins passing on unmutated code whose run reached the mutant's function."""
    where = f"{mutant.get('module')}:{mutant.get('function')}"
    return [pin for pin in baseline.get("pins", []) if baseline.get("outcomes", {}).get(pin) == "passed"
            and where in baseline.get("hits", {}).get(pin, [])]


def _killer_row(out: Path, mutant: dict[str, Any], how: str) -> None:
    """The row of the mutant that killed the engine, appended to results.jsonl on a line of its own."""
    baseline = json.loads((out / "baseline.json").read_text(encoding="utf-8"))
    pins = _covering(mutant, baseline)
    detail = f"the mutant killed the mutation engine ({how}) during its row; which pin was running is unknown"
    row = {"key": mutant["key"], "id": mutant["id"], "pins": dict.fromkeys(pins, "crash"),
           "details": dict.fromkeys(pins, detail), "unviable": None if pins else detail, "forks": 1,
           "duration_s": 0.0}
    results = out / "results.jsonl"
    torn = results.is_file() and results.stat().st_size and not results.read_bytes().endswith(b"\n")
    with results.open("a", encoding="utf-8") as fh:
        fh.write(("\n" if torn else "") + json.dumps(row, sort_keys=True) + "\n")


def outlive(out: Path, code: int, stderr: bytes | None, rerun: Rerun) -> tuple[int, bytes | None]:
    """The engine's code and stderr once every mutant has a row, or once it fails for a reason
    that is not a mutant (see the module's docstring)."""
    plan: dict[str, Any] = json.loads((out / "plan.json").read_text(encoding="utf-8"))
    mutants = {m["key"]: m for m in plan["mutants"]}
    said = f"the mutation engine ended ({ended_by(code)})"
    while _unexplained(out, code):
        done, left = _left(out, plan)
        if not left:  # every mutant has its row: the run is whole
            return 0, stderr
        print(f"harness mutate: {said} with {len(left)} mutant(s) left; running them one at a time",
              file=sys.stderr, flush=True)
        code, stderr = rerun(done)
        if not _unexplained(out, code):
            break
        _, left_now = _left(out, plan)
        if left_now:
            killer = mutants[left_now[0]]
            _killer_row(out, killer, ended_by(code))
            said = f"mutant {killer['id']} killed the mutation engine ({ended_by(code)}): recorded as its outcome"
    return code, stderr

"""The fork pool on its own: a pin that crashes its child or overruns its deadline is charged to
that pin, the rest of the row still runs, and a mutant whose preparation fails is unviable."""

from __future__ import annotations

import os
import time
from typing import Any

from harness._mutate.pool import Job, Row, run_jobs


def _pin(i: int, nxt: int | None) -> tuple[str, dict[str, Any]]:
    if i == 1:
        os._exit(9)
    if i == 2:
        while True:
            time.sleep(0.01)
    return ("failed" if i == 3 else "passed"), {"n": i}


def _run(jobs: list[Job], deadline: float = 0.3) -> dict[str, Row]:
    rows: dict[str, Row] = {}
    run_jobs(jobs, _pin, [deadline] * 5, 2, lambda row: rows.__setitem__(row.key, row))
    return rows


def test_a_crash_and_a_hang_are_charged_to_their_pins_and_the_row_completes() -> None:
    started = time.monotonic()
    rows = _run([Job("m", [0, 1, 2, 3, 4], lambda lane: None)])
    row = rows["m"]
    assert row.outcomes == {0: "passed", 1: "crash", 2: "timeout", 3: "failed", 4: "passed"}
    assert row.details[1] == "exited with code 9"
    assert row.forks == 3 and row.unviable is None
    assert time.monotonic() - started < 3


def test_a_mutant_whose_preparation_fails_is_unviable_and_runs_no_pin() -> None:
    rows = _run([Job("bad", [0, 4], lambda lane: "SyntaxError: invalid syntax"), Job("ok", [0], lambda lane: None)])
    assert rows["bad"].unviable == "SyntaxError: invalid syntax" and rows["bad"].outcomes == {}
    assert rows["ok"].outcomes == {0: "passed"}


def test_a_row_that_builds_before_its_pins_gets_its_own_start_deadline(monkeypatch: Any) -> None:
    from harness._mutate import pool

    monkeypatch.setattr(pool, "START_DEADLINE_S", 0.3)

    def slow_build(lane: int) -> None:
        time.sleep(0.8)  # a rebuild of the mutated side: longer than the pool's start deadline

    rows = _run([Job("plain", [0], slow_build), Job("file", [0], slow_build, start_s=5.0)])
    assert rows["plain"].unviable == "did not start its pins before the deadline"
    assert rows["file"].unviable is None and rows["file"].outcomes == {0: "passed"}


def _lane_pin(i: int, nxt: Any) -> tuple[str, dict[str, Any]]:
    if i == 1:
        os._exit(9)
    if i == 5:
        time.sleep(0.3)  # both rows of the first pair run at once
    return "passed", {"lane": int(os.environ["TEST_LANE"]), "pid": os.getpid()}


def _on_lane(lane: int) -> None:
    os.environ["TEST_LANE"] = str(lane)  # in the child: what its pins report


def test_rows_running_at_once_get_lanes_of_their_own_and_a_row_keeps_its_lane_after_a_crash() -> None:
    rows: dict[str, Row] = {}
    jobs = [Job("a", [5, 1, 4], _on_lane), Job("b", [5], _on_lane), Job("c", [0], _on_lane)]
    run_jobs(jobs, _lane_pin, [5.0] * 6, 2, lambda row: rows.__setitem__(row.key, row))
    a, b = rows["a"], rows["b"]
    assert a.outcomes == {5: "passed", 1: "crash", 4: "passed"} and a.forks == 2
    # the re-forked child (another pid) finishes the row on the lane its first child had
    assert a.extra[5]["pid"] != a.extra[4]["pid"] and a.extra[5]["lane"] == a.extra[4]["lane"] == a.lane
    assert {a.lane, b.lane} == {0, 1} and b.extra[5]["lane"] == b.lane
    assert rows["c"].extra[0]["lane"] == rows["c"].lane in (0, 1)


def test_a_child_stopped_at_a_deadline_after_its_pin_ended_costs_no_pin_its_verdict() -> None:
    calls = [0]

    def stall_between_pins() -> None:
        calls[0] += 1  # per child: a fork starts from the parent's count
        if calls[0] > 1:
            time.sleep(1.0)  # past the pin's deadline, after it ended, before the next begins

    rows = _run([Job("m", [0, 4, 0], lambda lane: None, stall_between_pins, whole=True)])
    # each child runs one pin and is stopped in the pause after it: the row goes on in a fresh one
    assert rows["m"].outcomes == {0: "passed", 4: "passed"} and rows["m"].details == {}
    assert rows["m"].forks == 3

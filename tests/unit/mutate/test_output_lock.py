"""One mutation run per output folder: a second one is refused, naming the holder."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness._errors import ConfigError
from harness._load.suite import load_suite
from harness._mutate.outputs import folder_lock
from harness._mutate.runner import run


def _hold(out: Path) -> int:
    """Another process in ``folder_lock(out)`` until killed: a fork of this one (no interpreter
    to start and import the harness again); its pid once it holds the folder."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: hold, say so, wait to be killed
        try:
            os.close(r)
            with folder_lock(out):
                os.write(w, b"held")
                time.sleep(60)
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as said:
        assert said.read(4) == b"held"
    return pid


def _kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    out = tmp_path / "reports" / "mutation"
    pid = _hold(out)
    yield out, pid
    _kill(pid)


def test_a_folder_held_by_another_process_is_refused_with_its_pid(held: tuple[Path, int]) -> None:
    out, pid = held
    with pytest.raises(ConfigError) as caught, folder_lock(out):
        pass
    assert f"pid {pid} holds it" in str(caught.value) and "--out" in str(caught.value)


def test_a_mutation_run_into_a_held_folder_is_refused_before_it_touches_anything(
        held: tuple[Path, int], scenarios: Path) -> None:
    out, _ = held
    before = sorted(p.name for p in out.iterdir())
    with pytest.raises(ConfigError, match="no other mutation run is using"):
        run(load_suite(scenarios / "suites" / "hostile"), {"out": str(out)})
    assert sorted(p.name for p in out.iterdir()) == before


def test_the_lock_goes_with_its_process_even_a_killed_one(tmp_path: Path) -> None:
    out = tmp_path / "m"
    pid = _hold(out)
    _kill(pid)
    with folder_lock(out):
        assert (out / ".lock").read_text() != str(pid)

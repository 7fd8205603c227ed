"""One mutation run per output folder: a second one is refused, naming the holder."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness._errors import ConfigError
from harness._load.suite import load_suite
from harness._mutate.outputs import folder_lock
from harness._mutate.runner import run

HOLD = """
import sys, time
from pathlib import Path
from harness._mutate.outputs import folder_lock
with folder_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    out = tmp_path / "reports" / "mutation"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    yield out, holder.pid
    holder.kill()
    holder.wait()


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
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    holder.kill()
    holder.wait()
    with folder_lock(out):
        assert (out / ".lock").read_text() != str(holder.pid)

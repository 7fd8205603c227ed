"""The Node and Rust adapters keep the protocol whatever their pipelines do: a throw, a promise,
an output JSON cannot carry, a panic, a declared failure, and prints to stdout (which must go
to stderr, never between answers). Real programs, driven through ``CommandPipeline``."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness._model import Observation, PipelineSpec
from harness._pipeline.command import CommandPipeline
from tests.e2e.examples_tree import REPO, cargo_missing, node_missing

pytestmark = pytest.mark.slow

LANE = {"id": "l", "wire": "w", "provider": "p"}


def call(pipe: CommandPipeline, inp: Any = None) -> Observation:
    return pipe.call(inp or {"n": 1}, LANE, case_id="c", lane_id="l", side="new", timeout=20)


@pytest.fixture
def opened() -> Iterator[list[CommandPipeline]]:
    pipes: list[CommandPipeline] = []
    yield pipes
    for pipe in pipes:
        pipe.close()


def _open(opened: list[CommandPipeline], argv: list[str], name: str) -> CommandPipeline:
    pipe = CommandPipeline(PipelineSpec(kind="command", command=tuple(argv), name=name))
    opened.append(pipe)
    return pipe


def test_the_node_adapter_answers_throws_promises_and_outputs_json_cannot_carry(
        scenarios: Path, opened: list[CommandPipeline]) -> None:
    reason = node_missing()
    if reason:
        pytest.skip(reason)
    argv = ["node", str(scenarios / "adapters" / "node_behaviours.js"),
            str(REPO / "adapters" / "node" / "wire-harness-adapter.js")]
    thrown = call(_open(opened, argv, "throws"))
    assert thrown.outcome == "error" and thrown.error is not None
    assert (thrown.error.type, thrown.error.message) == ("RangeError", "too far")
    assert thrown.error.where.startswith("node_behaviours.js:") and thrown.error.where.endswith(" in throws")
    assert call(_open(opened, argv, "later"), {"n": 5}).value == {"later": 5}
    for name in ("undef", "nan"):
        obs = call(_open(opened, argv, name))
        assert obs.error is not None and obs.error.type == "OutputNotJSON", name
    logs = _open(opened, argv, "logs")
    assert [call(logs).value for _ in range(2)] == [{"logged": True}] * 2
    assert logs.stray == 0 and stderr_shows(logs, "progress, through console.log")


@pytest.fixture(scope="module")
def rust_behaviours(tmp_path_factory: pytest.TempPathFactory, scenarios_dir: Path) -> Path:
    reason = cargo_missing()
    if reason:
        pytest.skip(reason)
    crate = tmp_path_factory.mktemp("rust_behaviours") / "crate"
    shutil.copytree(scenarios_dir / "adapters" / "rust_behaviours", crate)
    shutil.copytree(REPO / "adapters" / "rust" / ".cargo", crate / ".cargo")
    template = (crate / "Cargo.toml.in").read_text()
    (crate / "Cargo.toml").write_text(template.replace("@ADAPTER@", str(REPO / "adapters" / "rust")))
    subprocess.run(["cargo", "build", "--release", "--offline", "--quiet"], cwd=crate, check=True, timeout=900,
                   env={**os.environ, "CARGO_TARGET_DIR": str(crate / "target")})
    return crate / "target" / "release" / "rust-behaviours"


def stderr_shows(pipe: CommandPipeline, text: str) -> bool:
    """Whether the running program's stderr shows ``text`` within 10 s: stderr is drained by a
    thread, so the answer on stdout can come before the line that was printed first is read."""
    deadline = time.monotonic() + 10
    while text not in pipe.stderr_tail() and time.monotonic() < deadline:
        time.sleep(0.05)
    return text in pipe.stderr_tail()


@pytest.fixture(scope="module")
def scenarios_dir() -> Path:
    return REPO / "tests" / "scenarios"


@pytest.mark.heavy  # a cargo build of the behaviours' crate: tests/README.md
def test_the_rust_adapter_answers_a_panic_and_goes_on_and_keeps_println_off_the_protocol(
        rust_behaviours: Path, opened: list[CommandPipeline]) -> None:
    panics = _open(opened, [str(rust_behaviours)], "panics")
    first, second = call(panics), call(panics)
    for obs in (first, second):
        assert obs.outcome == "error" and obs.error is not None
        assert (obs.error.type, obs.error.message) == ("panic", "bad shape")
        assert obs.error.where.startswith("main.rs:")
    assert panics.starts == 1, "a panic must not end the program"
    failed = call(_open(opened, [str(rust_behaviours)], "fails"))
    assert failed.error is not None and (failed.error.type, failed.error.message) == ("KeyError", "no tools")
    prints = _open(opened, [str(rust_behaviours)], "prints")
    assert [call(prints, {"n": n}).value for n in (1, 2)] == [{"printed": 1}, {"printed": 2}]
    assert prints.stray == 0 and stderr_shows(prints, "progress, through println!")

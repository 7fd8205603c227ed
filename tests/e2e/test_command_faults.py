"""Each way a command pipeline can break the protocol is one clear outcome, and the next call
is answered by a fresh process: a real program (tests/scenarios/protocol_programs/faulty.py)
misbehaving on purpose, driven through ``CommandPipeline`` as the build stage drives it."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness._differential import build
from harness._load import load_suite
from harness._model import Observation, PipelineSpec
from harness._pipeline import Pipelines
from harness._pipeline.command import CommandPipeline

pytestmark = pytest.mark.slow

TOOLS = {"tools": [{"name": "echo", "description": "", "input_schema": {"type": "object"}}]}
LANE = {"id": "plain", "wire": "toy-wire", "provider": "toy"}


@pytest.fixture
def faulty(scenarios: Path) -> Iterator[Any]:
    opened: list[CommandPipeline] = []

    def start(mode: str, start_timeout_s: float = 60.0) -> CommandPipeline:
        program = str(scenarios / "protocol_programs" / "faulty.py")
        pipe = CommandPipeline(PipelineSpec(kind="command", command=(sys.executable, program, mode), name="new",
                                            start_timeout_s=start_timeout_s))
        opened.append(pipe)
        return pipe

    yield start
    for pipe in opened:
        pipe.close()


def call(pipe: CommandPipeline, inp: Any = None, timeout: float = 5.0) -> Observation:
    return pipe.call(TOOLS if inp is None else inp, LANE, case_id="c", lane_id="plain", side="new", timeout=timeout)


def test_a_program_that_never_reads_its_input_times_out_even_on_an_input_larger_than_the_pipe(faulty: Any) -> None:
    pipe = faulty("never-reads")
    big = {"tools": TOOLS["tools"], "pad": "x" * (4 << 20)}  # far past the 64 KiB pipe buffer
    start = time.monotonic()
    obs = call(pipe, big, timeout=1.0)
    assert (obs.outcome, obs.error and obs.error.type) == ("timeout", "Timeout")
    assert time.monotonic() - start < 5, "the write blocked past the deadline"


def test_a_program_that_closes_its_stdin_and_stays_up_is_a_protocol_error_not_a_hang(faulty: Any) -> None:
    obs = call(faulty("closes-stdin"), timeout=30.0)
    assert obs.outcome == "error" and obs.error is not None and obs.error.type == "ProtocolError"
    assert "closed its standard input" in obs.error.message
    assert obs.duration_s < 10


def test_a_program_that_closes_its_stdout_mid_request_is_a_protocol_error(faulty: Any) -> None:
    obs = call(faulty("closes-stdout"), timeout=30.0)
    assert obs.outcome == "error" and obs.error is not None and obs.error.type == "ProtocolError"
    assert "closed its standard output" in obs.error.message


def test_a_program_that_exits_mid_request_is_a_crash_with_its_status_and_last_words(faulty: Any) -> None:
    pipe = faulty("exits")
    obs = call(pipe)
    assert obs.outcome == "crash" and obs.error is not None
    assert "exit code 3" in obs.error.message and "out of patience" in obs.error.message
    assert call(pipe).outcome == "crash"  # restarted, and it crashes again: each call its own outcome


def test_a_wrong_id_is_a_protocol_error_and_the_process_is_restarted(faulty: Any) -> None:
    pipe = faulty("wrong-id")
    first = call(pipe)
    assert first.error is not None and first.error.type == "ProtocolError" and "found id 2" in first.error.message
    assert pipe.starts == 1 and pipe.proc is None
    call(pipe)
    assert pipe.starts == 2


def test_json_logger_lines_and_plain_prints_are_stray_counted_and_surfaced_at_close(
        faulty: Any, capfd: pytest.CaptureFixture[str]) -> None:
    logger, banner = faulty("json-logger"), faulty("banner")
    for pipe in (logger, banner):
        assert [call(pipe).outcome for _ in range(3)] == ["ok"] * 3
        assert pipe.stray == 3
        pipe.close()
    err = capfd.readouterr().err
    assert err.count("printed 3 stray line(s) on stdout") == 2, err


def test_a_large_answer_arrives_whole(faulty: Any) -> None:
    pipe = faulty("huge-answer")
    obs = call(pipe, {**TOOLS, "size": 8 << 20}, timeout=60.0)  # 128 times the 64 KiB pipe buffer
    assert obs.outcome == "ok" and obs.wire is not None and len(obs.wire) > 8 << 20
    assert obs.value == {"blob": "x" * (8 << 20)}


@pytest.mark.expensive  # 64 MiB through a pipe: about two CPU seconds with the program's side
def test_a_huge_answer_arrives_whole_at_a_cost_linear_in_its_size(faulty: Any) -> None:
    """The harness's own CPU (this process reads the pipe: not the program's, not the load's
    wall time) for 64 MiB against 8 MiB of the same program: 8 times as much when the newline
    search never rescans a byte, about 45 times when every read rescans the whole line."""
    pipe = faulty("huge-answer")
    call(pipe)  # the start is not what is measured
    spent = {}
    for size in (8 << 20, 64 << 20):
        before = time.process_time()
        obs = call(pipe, {**TOOLS, "size": size}, timeout=300.0)
        spent[size] = time.process_time() - before
        assert obs.outcome == "ok" and obs.wire is not None and len(obs.wire) > size
    ratio = spent[64 << 20] / max(spent[8 << 20], 0.01)
    assert ratio < 24, f"64 MiB took {ratio:.0f} times the CPU of 8 MiB ({spent}): a quadratic newline scan?"


def test_an_answer_nested_too_deeply_to_decode_is_a_protocol_error_not_a_harness_crash(faulty: Any) -> None:
    obs = call(faulty("deep-answer"))
    assert obs.outcome == "error" and obs.error is not None and obs.error.type == "ProtocolError"
    assert "nested too deeply" in obs.error.message


def test_a_program_with_no_hello_is_an_error_for_every_call_naming_the_cause(faulty: Any) -> None:
    pipe = faulty("no-hello", start_timeout_s=0.5)  # the side's start_timeout_s, not the 60 s default
    obs = call(pipe)
    assert obs.outcome == "error" and obs.error is not None and obs.error.type == "PipelineStart"
    assert "no hello within 0.5 s" in obs.error.message and "gave up after 3 start(s)" in obs.error.message
    assert call(pipe).error.type == "PipelineStart"  # type: ignore[union-attr]


def test_a_program_that_ignores_shutdown_is_ended_at_close(faulty: Any) -> None:
    pipe = faulty("ignores-shutdown")
    assert call(pipe).outcome == "ok"
    proc = pipe.proc
    assert proc is not None
    start = time.monotonic()
    pipe.close()
    assert proc.poll() is not None and time.monotonic() - start < 5


SLOW_EXIT = """\
import json, pathlib, sys, time
print(json.dumps({"type": "hello", "protocol": 1, "pipelines": ["new"],
                  "implementation": {"name": "slow-exit", "version": "1", "language": "python"}}), flush=True)
for raw in sys.stdin:
    request = json.loads(raw)
    if request.get("type") == "shutdown":
        break
    print(json.dumps({"type": "result", "id": request["id"], "output": {"tools": request["input"]["tools"]}}),
          flush=True)
asked = time.monotonic()
time.sleep(float(sys.argv[2]))
pathlib.Path(sys.argv[1]).write_text(repr(asked))  # when shutdown came: written only by a program not killed first
"""


def slow_exit(folder: Path, marker: Path, seconds: float) -> tuple[str, ...]:
    """A program that exits ``seconds`` after shutdown, leaving ``marker`` behind."""
    program = folder / "slow_exit.py"
    program.write_text(SLOW_EXIT)
    return (sys.executable, str(program), str(marker), str(seconds))


def test_a_program_that_takes_its_shutdown_grace_at_the_end_of_a_build_exits_on_its_own(
        tmp_path: Path, scenarios: Path) -> None:
    root = shutil.copytree(scenarios / "suites" / "toy", tmp_path / "toy")
    marker = tmp_path / "exited.txt"
    # longer than the build used to wait at its end (1 s), within the protocol's 2 s
    command = ", ".join(f"'{arg}'" for arg in slow_exit(root, marker, 1.2))  # quoted: YAML would read 1.2 as a number
    suite_yaml = (root / "suite.yaml").read_text().replace(
        "    new: toy_pipes:new\n", f"    new: {{command: [{command}], name: new}}\n")
    (root / "suite.yaml").write_text(suite_yaml)
    (root / "toy.cases.yaml").write_text(
        "version: 1\nsubject: toy\ncases:\n  - {id: one, tools: [{name: a}], lanes: [plain]}\n")
    [result] = build(load_suite(root), workers=1)
    assert result.new is not None and result.new.ok, result.new
    assert marker.exists()  # it had the grace docs/protocol.md promises, not killed before


def test_closing_several_programs_gives_each_the_whole_grace_at_once(tmp_path: Path) -> None:
    markers = [tmp_path / f"exited-{i}.txt" for i in range(3)]
    pipes = Pipelines()
    for marker in markers:
        pipe = pipes.get(PipelineSpec(kind="command", command=slow_exit(tmp_path, marker, 1.0), name="new"))
        assert call(pipe).ok  # started and serving
    pipes.close()
    asked = sorted(float(marker.read_text()) for marker in markers)  # each exited on its own, within its grace
    assert asked[-1] - asked[0] < 0.5, asked  # asked together, not one grace after another


def test_node_dying_at_start_under_a_memory_ceiling_is_named_by_its_out_of_memory_words(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """V8 reserves more than 300 MiB of address space at start-up, and frames its fatal words in
    ``#`` lines: the error's first words are those, with the ceiling it met, not ``#``. (The whole
    run's terminal line: tests/e2e/test_memory_ceiling.py.)"""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    from harness._common import supervise

    monkeypatch.setattr(supervise, "_ceiling", [300.0])  # the suite's memory_mb, as a worker holds it
    pipe = CommandPipeline(PipelineSpec(kind="command", command=("node", "-e", "setInterval(() => {}, 1000)"),
                                        name="new", cwd=str(tmp_path)))
    try:
        obs = call(pipe)
    finally:
        pipe.close()
    assert obs.outcome == "error" and obs.error is not None and obs.error.type == "PipelineStart"
    first = obs.error.message.split("; stderr:", 1)[0]
    assert first.startswith("command node -e setInterval(() => {}, 1000) [new]: exited before its hello ("), first
    assert first.endswith("): Fatal process OOM in Failed to reserve virtual memory for CodeRange (memory_mb: 300 MiB)")

"""``harness protocol-check CMD``: passes on the three shipped adapters, fails on a program that
breaks one rule with that rule's checklist line; and the real traffic between the harness and
each adapter, tapped during a run, conforms to the shipped message schemas."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness._cli.main import main
from harness._cli.protocol_check import _MARK
from harness._model import PipelineSpec
from harness._pipeline.command import ADAPTER, CommandPipeline
from harness._pipeline.conformance import (
    PROBE_INPUT,
    PROBE_LANE,
    Check,
    _calls,
    _end_of_input,
    _hello,
    _Program,
    _shutdown,
)
from harness._pipeline.protocol import schema_errors
from tests.e2e.examples_tree import REPO, built_rust_example, node_missing
from tests.e2e.inproc import harness_main, python3_first_on_path

pytestmark = pytest.mark.slow


def protocol_check(*cmd: str, cwd: Path = REPO,
                   env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return harness_main("protocol-check", "--timeout", "3", "--start-timeout", "3", "--", *cmd, cwd=cwd, env=env)


@pytest.fixture(scope="module")
def rust_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_rust_example(tmp_path_factory.mktemp("rust"))


def _node() -> list[str]:
    reason = node_missing()
    if reason:
        pytest.skip(reason)
    return ["node", str(REPO / "examples" / "node" / "pipes.js")]


@pytest.fixture(scope="module")
def node_checked() -> subprocess.CompletedProcess[str]:
    """protocol-check on the Node example, once for the tests that read its checklist."""
    return protocol_check(*_node())


def _python(scenarios: Path) -> list[str]:
    return [sys.executable, str(ADAPTER), "--call", "plain_pipes:old", "--name", "old"]


@pytest.mark.parametrize("adapter", ["python", "node", pytest.param("rust", marks=pytest.mark.heavy)])
def test_protocol_check_passes_every_check_on_each_shipped_adapter(
        adapter: str, scenarios: Path, request: pytest.FixtureRequest) -> None:
    if adapter == "node":
        got = request.getfixturevalue("node_checked")
    else:
        cmd = _python(scenarios) if adapter == "python" else [str(request.getfixturevalue("rust_binary"))]
        got = protocol_check(*cmd, cwd=scenarios / "suites" / "command_pipes")
    assert got.returncode == 0, got.stdout + got.stderr
    assert "FAIL" not in got.stdout and "warn" not in got.stdout
    last = got.stdout.rstrip().splitlines()[-1]
    assert re.fullmatch(r"(\d+) of \1 checks passed", last), last
    assert "end of input (stdin closed, no shutdown)" in got.stdout


def test_protocol_check_passes_the_python_example_command_exactly_as_its_suite_declares_it(tmp_path: Path) -> None:
    suite = REPO / "examples" / "python"
    side = yaml.safe_load((suite / "suite.yaml").read_text())["subjects"]["messages_py"]["new"]
    got = protocol_check(*side["command"], cwd=suite, env=python3_first_on_path(tmp_path / "bin"))
    assert got.returncode == 0, got.stdout + got.stderr
    assert "FAIL" not in got.stdout and "warn" not in got.stdout
    assert re.fullmatch(r"(\d+) of \1 checks passed", got.stdout.rstrip().splitlines()[-1]), got.stdout
    assert "hello: the first message: python-example 1.0.0" in got.stdout  # its own serve() call, not the CLI


def faulty(scenarios: Path) -> list[str]:
    """The command of tests/scenarios/protocol_programs/faulty.py, less its MODE. It imports only
    the standard library: ``-S`` spares each of its starts (two a check) the test environment's
    site-packages and their .pth files, a third of an interpreter's start."""
    return [sys.executable, "-S", str(scenarios / "protocol_programs" / "faulty.py")]


# mode of tests/scenarios/protocol_programs/faulty.py -> the checklist line that must fail
BROKEN = {
    "no-hello": "FAIL  hello: the first message: no hello within 3 s; killed",
    "old-protocol": "FAIL  hello speaks protocol 1: found 0",
    "wrong-id": "FAIL  call 'new' (id 7) is answered with its id: expected id 7, found 8",
    "result-for-unknown": "FAIL  an unknown pipeline gets an error answer with the call's id: expected an error answer",
    "dies-on-bad-json": "FAIL  a malformed request line gets an error answer with id null: "
                        "it closed its standard output (exit code 1)",
    "never-reads": "FAIL  call 'new' (id 7) is answered with its id: no answer within 3 s; killed",
    "closes-stdin": "FAIL  call 'new' (id 7) is answered with its id: it closed its standard input",
    "ignores-shutdown": "FAIL  shutdown: exits with status 0 within 2 s: still running",
    "hangs-at-eof": "FAIL  end of input (stdin closed, no shutdown): exits with status 0 within 2 s: still running",
}


# the modes whose program keeps serving through the large inputs (a quarter of a CPU second a
# check): the whole command in the expensive tier, their rule's step alone below
REACHED_ALONE = ("hangs-at-eof", "ignores-shutdown", "old-protocol", "result-for-unknown")


@pytest.mark.parametrize("mode", [pytest.param(m, marks=pytest.mark.expensive) if m in REACHED_ALONE else m
                                  for m in sorted(BROKEN)])
def test_protocol_check_fails_a_broken_program_on_the_rule_it_breaks(mode: str, scenarios: Path) -> None:
    got = protocol_check(*faulty(scenarios), mode)
    assert got.returncode == 1, got.stdout + got.stderr
    assert BROKEN[mode] in got.stdout, got.stdout
    assert got.stdout.rstrip().splitlines()[-1].endswith("failed")


def _step_alone(mode: str, scenarios: Path) -> list[Check]:
    """The checks of the one step of the checklist ``mode`` breaks, run on faulty.py as
    ``check_program`` runs them (after the hello where the step needs one), without the steps
    between: the calls to each pipeline and their large inputs."""
    argv = [*faulty(scenarios), mode]
    if mode == "hangs-at-eof":  # a start of its own, as check_program's last step
        return [_end_of_input(argv, None, 3)]
    program = _Program(argv, None)
    try:
        checks, _ = _hello(program, 3)
        if mode == "ignores-shutdown":
            return [_shutdown(program)]
        if mode == "result-for-unknown":  # no pipeline named: the unknown call and the malformed line
            return _calls(program, [], PROBE_INPUT, PROBE_LANE, 3)
        return checks
    finally:
        program.kill()


@pytest.mark.parametrize("mode", REACHED_ALONE)
def test_the_step_a_broken_program_breaks_fails_with_its_checklist_line(mode: str, scenarios: Path) -> None:
    checks = _step_alone(mode, scenarios)
    lines = [f"{_MARK[c.status]}  {c.name}" + (f": {c.detail}" if c.detail else "") for c in checks]
    assert any(BROKEN[mode] in line for line in lines), lines


def test_protocol_check_redacts_the_programs_hello_answers_and_stderr_it_quotes(scenarios: Path) -> None:
    password = "db-pass-value-never-shown"
    got = harness_main("protocol-check", "--timeout", "3", "--start-timeout", "3", "--", *faulty(scenarios),
                       "leaks-keys", env={"DB_PASS": password})
    assert got.returncode == 1, got.stdout + got.stderr
    assert "sk-proj-A1b2" not in got.stdout + got.stderr and password not in got.stdout + got.stderr
    assert "hello: the first message: faulty-leaks-keys [REDACTED:openai-style-key] " \
           "pass=[REDACTED:environment-credential]" in got.stdout
    failing = next(line for line in got.stdout.splitlines() if "FAIL  call 'new'" in line)
    assert 'it said: {"type": "error", "id": 8, "error": {"type": "Upstream", "message": ' \
           '"[REDACTED:openai-style-key] pass=[REDACTED:environment-credential]"}}' in failing
    assert "stderr ends: upstream said 401 for [REDACTED:openai-style-key]" in failing


def test_protocol_check_finds_the_input_size_a_program_refuses_and_quotes_its_answer(scenarios: Path) -> None:
    got = protocol_check(*faulty(scenarios), "small-inputs")
    assert got.returncode == 1, got.stdout + got.stderr
    line = next(line for line in got.stdout.splitlines() if "large inputs" in line)
    assert line.startswith("  FAIL  large inputs (64 KiB to 4 MiB) are read whole and answered like the first call: "
                           "answered up to 124 KiB, refused from 130 KiB (first refused at 256 KiB: expected a result "
                           "as for the first call, found TooLarge; it said: "), line
    assert "stderr ends: refusing a 262" in line  # its stderr, quoted
    assert got.stdout.rstrip().endswith("11 of 12 checks passed, 1 failed")


def test_protocol_check_refuses_a_nan_output_as_a_run_does(scenarios: Path) -> None:
    got = protocol_check(*faulty(scenarios), "nan-output")
    assert got.returncode == 1, got.stdout
    assert "FAIL  call 'new' (id 7) is answered with its id: expected an output the harness can keep as JSON, " \
           "found one it refuses (Out of range float values are not JSON compliant); it said: " in got.stdout


def test_protocol_check_warns_about_stray_lines_without_failing(scenarios: Path) -> None:
    got = protocol_check(*faulty(scenarios), "banner")
    assert got.returncode == 0, got.stdout
    assert "warn  no stray lines on stdout: 7 line(s) that are not messages" in got.stdout  # a banner per call


def test_protocol_check_without_a_command_is_a_usage_error() -> None:
    got = harness_main("protocol-check")
    assert got.returncode == 2 and "CMD" in got.stderr


def _tapped_traffic(cmd: list[str], tmp_path: Path, scenarios: Path, cwd: Path, names: list[str]) -> list[Any]:
    log = tmp_path / "traffic.jsonl"
    tap = str(scenarios / "protocol_programs" / "tap.py")
    for name in names:
        # tap.py imports only the standard library: -S, as faulty() says
        spec = PipelineSpec(kind="command", command=(sys.executable, "-S", tap, str(log), *cmd), name=name,
                            cwd=str(cwd))
        pipe = CommandPipeline(spec)
        try:
            tool = {"name": "t", "description": "d", "input_schema": {"type": "object", "oneOf": [{"required": ["a"]}]}}
            lane = {"id": "l", "wire": "anthropic-messages", "provider": "anthropic", "base_url": None,
                    "model": None, "options": {}, "fronts": []}
            assert pipe.call({"tools": [tool]}, lane, case_id="c", lane_id="l", side="new", timeout=30).ok
            assert pipe.call({"nope": 1}, lane, case_id="c", lane_id="l", side="new", timeout=30).outcome == "error"
        finally:
            pipe.close()
    return [json.loads(line) for line in log.read_text().splitlines()]


# node: one pipeline, as for python (the other's traffic is the same adapter's); both: expensive
@pytest.mark.parametrize("adapter", ["python", "node", pytest.param("node-both", marks=pytest.mark.expensive),
                                     pytest.param("rust", marks=pytest.mark.heavy)])
def test_the_real_traffic_with_each_adapter_conforms_to_the_message_schemas(
        adapter: str, tmp_path: Path, scenarios: Path, request: pytest.FixtureRequest) -> None:
    if adapter == "python":
        cmd, cwd, names = [sys.executable, str(ADAPTER), "--call", "plain_pipes:old", "--name", "old"], \
            scenarios / "suites" / "command_pipes", ["old"]
    elif adapter.startswith("node"):
        cmd, cwd, names = _node(), REPO, ["old", "new"] if adapter == "node-both" else ["old"]
    else:
        cmd, cwd, names = [str(request.getfixturevalue("rust_binary"))], REPO, ["old", "new"]
    traffic = _tapped_traffic(cmd, tmp_path, scenarios, cwd, names)
    kinds = []
    for entry in traffic:
        message = json.loads(entry["line"])
        kinds.append((entry["from"], message["type"]))
        assert schema_errors(message["type"], message) == [], entry
    per_process = [("program", "hello"), ("harness", "call"), ("program", "result"), ("harness", "call"),
                   ("program", "error"), ("harness", "shutdown")]
    assert kinds == per_process * len(names)
    assert os.path.getsize(tmp_path / "traffic.jsonl") > 0


def test_a_run_names_each_pipeline_that_printed_stray_lines_and_how_many(
        scenarios: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", python3_first_on_path(tmp_path / "bin")["PATH"])  # its commands' python3
    suite = tmp_path / "command_pipes"
    shutil.copytree(scenarios / "suites" / "command_pipes", suite)
    # in this process, its output read at the descriptors: a pipeline is closed, and says so on
    # stderr, in the forked worker, whose writes a stream swapped in this process would not see
    argv, code = sys.argv, None
    sys.argv = ["harness", "run", str(suite), "--case", "stray-print", "--workers", "1", "--no-rejections",
                "--out", str(tmp_path / "out")]  # the rejection stage: not what this is about
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.argv = argv
    got = capfd.readouterr()
    assert code == 0, got.out + got.err
    # served.py prints a banner at start (both sides) and a progress line in the stray-print call (new)
    assert "command python3 served.py [new] printed 2 stray line(s) on stdout" in got.err
    assert "command python3 served.py [old] printed 1 stray line(s) on stdout" in got.err


def test_the_checklist_docs_protocol_md_shows_is_what_the_node_example_prints(
        node_checked: subprocess.CompletedProcess[str]) -> None:
    got = node_checked
    text = (REPO / "docs" / "protocol.md").read_text()
    shown = text.split("protocol-check: node examples/node/pipes.js\n", 1)[1].split("```", 1)[0].splitlines()
    printed = got.stdout.splitlines()[1:]
    node = re.compile(r"\(node [0-9.]+\)")
    assert [node.sub("(node X)", line) for line in printed] == [node.sub("(node X)", line) for line in shown]


def test_a_program_that_dies_after_its_hello_is_said_to_have_ended_not_to_have_closed_its_input(
        scenarios: Path) -> None:
    got = protocol_check(*faulty(scenarios), "dies-after-hello")
    assert got.returncode == 1, got.stdout + got.stderr
    failing = next(line for line in got.stdout.splitlines() if "FAIL  call 'new' (id 7)" in line)
    assert "exit code 3" in failing and "closed its standard input" not in failing, failing


def test_a_first_message_that_is_not_a_hello_is_quoted_redacted_before_it_is_cut() -> None:
    # the 200-character cut falls inside the key: cut first, its start would no longer look like one
    first = json.dumps({"type": "greeting", "pad": "a" * 145, "key": "sk-proj-Q7wE9rT2" + "x9" * 20})
    got = harness_main("protocol-check", "--timeout", "3", "--start-timeout", "3", "--",
                       sys.executable, "-c", f"print({first!r}, flush=True)")
    assert got.returncode == 1, got.stdout + got.stderr
    line = next(line for line in got.stdout.splitlines() if "hello: the first message" in line)
    assert "Q7wE9r" not in got.stdout + got.stderr and "[REDACTED" in line, line

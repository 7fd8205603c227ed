"""``harness replay`` end to end: a recorded rejection replays offline; bad bodies are bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "cases"
# the bundled suite's lanes, rules and cassettes beside one case: what replay reads of a suite,
# loaded without the bundled suite's 18 case files (a quarter of a CPU second a replay)
LANES_ONLY = REPO / "tests" / "scenarios" / "suites" / "replay_lanes"
LANE = "anthropic-first-party"
ROOT_ONEOF = {"model": "m", "tools": [{"name": "t", "input_schema": {
    "type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}}]}


def replay(body: Path, lane: str = LANE, fresh: bool = False,
           suite: Path = LANES_ONLY) -> subprocess.CompletedProcess[str]:
    """The command in this process; ``fresh``: in its own interpreter, where the stack is the
    command's alone (the nesting limits are about that stack)."""
    args = ("replay", str(body), "--lane", lane, "--suite", str(suite))
    if not fresh:
        return harness_main(*args, cwd=REPO)
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True, timeout=120,
                          cwd=REPO, check=False)


# the bundled suite itself too, its case files loaded (expensive: a quarter of a CPU second more)
@pytest.mark.parametrize("suite", [LANES_ONLY, pytest.param(BUNDLED, marks=pytest.mark.expensive)],
                         ids=["lanes-only", "bundled"])
def test_a_body_a_rule_covers_replays_the_recorded_400_and_exits_3(tmp_path: Path, suite: Path) -> None:
    body = tmp_path / "rejected.json"
    body.write_text(json.dumps(ROOT_ONEOF))
    got = replay(body, suite=suite)
    assert got.returncode == 3, got.stderr
    assert "anthropic.root-composition" in got.stdout and "replayed 400" in got.stdout


def test_a_clean_body_is_unknown_and_exits_0(tmp_path: Path) -> None:
    body = tmp_path / "clean.json"
    body.write_text(json.dumps({"model": "m", "tools": [{"name": "t", "input_schema": {"type": "object"}}]}))
    got = replay(body)
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith("unknown:")


@pytest.mark.parametrize(("name", "data", "expected"), [
    ("list.json", b"[1, 2]", "a JSON object (a request body), found list"),
    ("scalar.json", b"3", "a JSON object (a request body), found int"),
    ("latin1.json", b"\xff\xfe{}", "UTF-8 text"),
    ("broken.json", b"{", "a JSON request body"),
    ("twice.json", b'{"model": "a", "tools": [], "model": "b"}', "each key once per object, found 'model' twice"),
    ("nan.json", b'{"model": "m", "max_tokens": NaN}', "numbers as JSON writes them, found NaN"),
    ("huge.json", b'{"model": "m", "temperature": 1e999}', "numbers a 64-bit float holds, found 1e999"),
])
def test_a_body_that_is_not_a_json_object_is_bad_input_naming_the_file(
        tmp_path: Path, name: str, data: bytes, expected: str) -> None:
    body = tmp_path / name
    body.write_bytes(data)
    got = replay(body)
    assert got.returncode == 2, (got.stdout, got.stderr)
    assert str(body) in got.stderr and expected in got.stderr
    assert "Traceback" not in got.stderr and "internal error" not in got.stderr


def test_a_missing_body_file_is_bad_input_naming_the_file(tmp_path: Path) -> None:
    got = replay(tmp_path / "nowhere.json")
    assert got.returncode == 2, (got.stdout, got.stderr)
    assert "nowhere.json" in got.stderr and "readable JSON file" in got.stderr
    assert "internal error" not in got.stderr


def _nested_schema(levels: int) -> str:
    """A request body whose tool schema nests ``levels`` objects deep, written without recursion."""
    inner = '{"type": "object"}'
    for _ in range(levels):
        inner = '{"type": "object", "properties": {"x": ' + inner + "}}"
    return '{"model": "m", "tools": [{"name": "t", "input_schema": ' + inner + "}]}"


# each in this process, and in an interpreter of its own where the stack is the command's alone
# (expensive: 0.8 CPU s each, a fresh interpreter importing the harness)
FRESH = pytest.mark.parametrize("fresh", [False, pytest.param(True, marks=pytest.mark.expensive)],
                                ids=["in-process", "fresh"])


@FRESH
@pytest.mark.parametrize(("levels", "found"), [(5000, "nested too deep to parse"), (400, "found 201 or more")])
def test_a_body_nested_thousands_of_levels_is_bad_input_naming_the_file_and_the_nesting(
        tmp_path: Path, levels: int, found: str, fresh: bool) -> None:
    body = tmp_path / "deep.json"
    body.write_text(_nested_schema(levels))
    got = replay(body, fresh=fresh)
    assert got.returncode == 2, (got.stdout, got.stderr)
    assert "internal error" not in got.stderr and "RecursionError" not in got.stderr
    assert f"BODY='{body}'" in got.stderr and "nesting at most 200 levels deep" in got.stderr
    assert found in got.stderr


@FRESH
def test_a_body_nested_just_within_the_limit_is_matched_as_usual(tmp_path: Path, fresh: bool) -> None:
    body = tmp_path / "deep-but-fine.json"
    body.write_text(_nested_schema(96))  # two levels a step (schema, properties): 196 deep in all
    got = replay(body, fresh=fresh)
    assert got.returncode == 0, (got.stdout, got.stderr)
    assert got.stdout.startswith("unknown:")


def test_a_gemini_rest_body_in_camel_case_replays_the_recorded_type_list_400(tmp_path: Path) -> None:
    body = tmp_path / "rest.json"
    body.write_text(json.dumps({"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": [
        {"functionDeclarations": [{"name": "lookup", "parameters": {
            "type": "object", "properties": {"q": {"type": ["string", "integer"]}}}}]}]}))
    got = replay(body, lane="gemini-api")
    assert got.returncode == 3, (got.stdout, got.stderr)
    assert "gemini.type-list" in got.stdout and "tools[0].functionDeclarations[0].parameters.properties.q" in got.stdout
    assert "replayed 400" in got.stdout and "R071" in got.stdout

"""examples/rust's passes, built on Debian's serde_json with ``preserve_order``, remove keys in
the order the built-in anthropic_messages subject models (``registry.swap_remove``): the two
give the same ``input_schema`` bytes, key order included, on shapes where a removal moves a key.
Heavy: it builds the crate (tests/README.md)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from wire_harness_subjects.anthropic_messages import new, old

from harness._common.canonical import canonical_bytes
from tests.e2e.examples_tree import built_rust_example

pytestmark = [pytest.mark.slow, pytest.mark.heavy]

FIRST_PARTY = {"id": "anthropic-first-party", "provider": "anthropic", "base_url": "https://api.anthropic.com",
               "model": "claude-sonnet-4-5"}
SCHEMAS: dict[str, dict[str, Any]] = {
    "untyped root anyOf (type moves into anyOf's place in the old flatten)": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "anyOf": [{"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
                  {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}]},
    "allOf beside a root enum (properties moves ahead of enum)": {
        "type": "object", "allOf": [{"properties": {"speed": {}}}, {"properties": {"level": {}}}],
        "enum": [{"speed": "fast", "level": 1}], "title": "preset"},
    "root not and enum removed by the old flatten, in that order": {
        "title": "t", "not": {"type": "string"}, "enum": [{}], "properties": {"x": {}}, "description": "d"},
}


def rust_schemas(pipes: Path, side: str) -> list[bytes]:
    calls = [{"type": "call", "id": i, "pipeline": side, "lane": FIRST_PARTY,
              "input": {"tools": [{"name": "t", "description": "", "input_schema": schema}]}}
             for i, schema in enumerate(SCHEMAS.values())]
    stdin = "".join(json.dumps(c) + "\n" for c in calls) + json.dumps({"type": "shutdown"}) + "\n"
    got = subprocess.run([str(pipes)], input=stdin, capture_output=True, text=True, timeout=60, check=True)
    answers = [json.loads(line) for line in got.stdout.splitlines()][1:]  # the hello first
    return [canonical_bytes(a["output"]["tools"][0]["input_schema"]) for a in answers]


@pytest.fixture(scope="module")
def pipes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_rust_example(tmp_path_factory.mktemp("rust"))


@pytest.mark.parametrize("side", ["old", "new"])
def test_the_rust_crate_and_the_built_in_subject_ship_the_same_key_order(pipes: Path, side: str) -> None:
    build = {"old": old.build_body, "new": new.build_body}[side]
    ours = [canonical_bytes(build({"tools": [{"name": "t", "description": "", "input_schema": s}]}, FIRST_PARTY)
                            ["tools"][0]["input_schema"]) for s in SCHEMAS.values()]
    assert rust_schemas(pipes, side) == ours

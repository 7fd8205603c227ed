"""Tiny scenario folders for the rejection tests: one rule, one cassette, one manifest.

``write_scenario(tmp_path, **changes)`` writes a consistent folder (rules/ + cassettes/) in
which `harness cassettes check` passes; each test breaks one thing on purpose. ``write_suite``
adds lanes, a subject and two cases, so the folder loads as a whole suite.

``bundled_catalog()`` and ``bundled_suite()`` are the bundled suite's catalog and suite, loaded
once per process (a worker) for the tests that only read them: loading the catalog costs about
half a CPU second, the suite a sixth. A test of the loading itself loads afresh.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from harness._load.suite import load_suite
from harness._model import Suite
from harness._reject.cassettes import Catalog, cassette_text
from harness._reject.verdicts import cached_catalog

__all__ = ["GOOD_BODY", "LANES", "MESSAGE", "REPO", "RULE", "bundled_catalog", "bundled_suite", "receipt_bodies",
           "write_scenario", "write_suite"]

REPO = Path(__file__).resolve().parents[3]


def bundled_catalog() -> Catalog:
    """The bundled suite's rules and receipts through the rejection stage's own per-process cache
    (``cached_catalog``, the key ``catalog_of`` gives the bundled suite), so a worker loads them
    once whichever module asks first. Read it; never change it."""
    return cached_catalog(str(REPO / "cases"), "../cassettes", ("rules/*.rules.yaml",))


LARGE = 20_000
"""Characters of JSON past which a receipt body is left to the full sweeps: the one bundled body
past it (R052, 129 tools in 86,000 characters) costs a third of a sweep over all 127."""


def receipt_bodies(catalog: Catalog) -> list[Any]:
    """One body per validator for the README tier's cross-checks: the smallest body recorded for
    any of its rules (so a rule of every validator's family fires on one), and every accepted
    body; bodies past LARGE left out. The full sweeps over every body are
    tests/e2e/test_rule_crosschecks.py's."""
    smallest: dict[str, tuple[int, Any]] = {}
    for interaction in catalog.interactions:
        size, validator = len(json.dumps(interaction.body)), interaction.entry.validator
        if interaction.entry.outcome == "rejected" and size < smallest.get(validator, (LARGE + 1,))[0]:
            smallest[validator] = (size, interaction.body)
    accepted = [i.body for i in catalog.interactions if i.entry.outcome == "accepted"]
    return [body for _, body in smallest.values()] + accepted


@cache
def bundled_suite() -> Suite:
    """The bundled suite, loaded once per process. Read it (``dataclasses.replace`` for a variant)."""
    return load_suite(REPO / "cases")

MESSAGE = "tools.1.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level"

RULE: dict[str, Any] = {
    "id": "demo.root-composition",
    "validator": "anthropic",
    "select": "tools[*].input_schema",
    "rejects": {"type": "object", "anyOf": [{"required": ["oneOf"]}, {"required": ["anyOf"]}]},
    "message": "input_schema does not support oneOf, allOf, or anyOf at the top level",
    "location": ["tools.{0}.custom.input_schema"],
    "receipts": ["D1"],
}

_CLEAN = {"name": "ok", "input_schema": {"type": "object", "properties": {}}}
_BAD = {"name": "bad", "input_schema": {"type": "object", "anyOf": [{"required": ["a"]}]}}
GOOD_BODY: dict[str, Any] = {"model": "m", "tools": [_CLEAN, _BAD]}


def _pair(body: Any, status: int, text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    request = {"method": "POST", "uri": "https://api.anthropic.com/v1/messages", "body": json.dumps(body),
               "headers": {"Content-Type": ["application/json"]}}
    response = {"status": {"code": status, "message": "x"}, "headers": {"Content-Type": ["application/json"]},
                "body": {"string": text}}
    return request, response


def write_scenario(root: Path, *, rule: dict[str, Any] | None = None, body: Any = None, status: int = 400,
                   message: str = MESSAGE, accepted_body: Any = None, entry: dict[str, Any] | None = None,
                   extra_interaction: bool = False, header: tuple[str, str] | None = None) -> Path:
    """Write ``root/suite`` (suite.yaml, rules) and ``root/suite/cassettes``; return the suite folder."""
    suite = root / "suite"
    (suite / "rules").mkdir(parents=True)
    (suite / "suite.yaml").write_text("version: 1\nrules: ['rules/*.rules.yaml']\ncassettes: cassettes\n")
    (suite / "rules" / "demo.rules.yaml").write_text(
        yaml.safe_dump({"version": 1, "rules": [rule or RULE]}, sort_keys=False))
    envelope = json.dumps({"type": "error", "error": {"type": "invalid_request_error", "message": message}})
    pairs = [_pair(GOOD_BODY if body is None else body, status, envelope)]
    if extra_interaction:
        pairs.append(_pair(GOOD_BODY, 400, envelope))
    if header:
        pairs[0][0]["headers"][header[0]] = [header[1]]
    cassettes = suite / "cassettes"
    (cassettes / "demo").mkdir(parents=True)
    (cassettes / "demo" / "demo.yaml").write_text(cassette_text(pairs))
    entries = [{"id": "D1", "cassette": "demo/demo.yaml", "index": 0, "validator": "anthropic",
                "outcome": "rejected", "rule": "demo.root-composition",
                "provenance": {"kind": "transcribed", "source_url": "https://example.org/report/1",
                               "date": "2026-01-02"}, **(entry or {})}]
    if accepted_body is not None:
        (cassettes / "demo" / "accepted.yaml").write_text(
            cassette_text([_pair(accepted_body, 200, "{}")]))
        entries.append({"id": "A1", "cassette": "demo/accepted.yaml", "index": 0, "validator": "anthropic",
                        "outcome": "accepted", "provenance": {"kind": "synthetic", "note": "an example"}})
    (cassettes / "manifest.yaml").write_text(yaml.safe_dump({"version": 1, "interactions": entries},
                                                            sort_keys=False))
    return suite


PIPES = "def old(inp, lane):\n    return {'model': 'm', 'tools': inp['tools']}\n\nnew = old\n"
LANES = [
    {"id": "gw", "title": "gateway to claude", "wire": "anthropic-messages", "provider": "custom",
     "base_url": "https://gw.example.org", "model": "m", "fronts": ["one-api", "anthropic"]},
    {"id": "other", "title": "not claude", "wire": "anthropic-messages", "provider": "custom",
     "base_url": "https://other.example.org", "model": "m", "fronts": ["deepseek"]},
]


def write_suite(tmp_path: Path, declaration: dict[str, Any] | None, rule: dict[str, Any] | None = None,
                lanes: list[dict[str, Any]] | None = None) -> Path:
    """The consistent one-rule scenario plus lanes, a subject and two cases; the second declares."""
    root = write_scenario(tmp_path, rule=rule)
    (root / "suite.yaml").write_text(yaml.safe_dump({
        "version": 1, "name": "preload", "rules": ["rules/*.rules.yaml"], "cassettes": "cassettes",
        "subjects": {"demo": {"old": "preload_pipes:old", "new": "preload_pipes:new",
                              "wires": ["anthropic-messages"]}}}, sort_keys=False))
    (root / "preload_pipes.py").write_text(PIPES)
    (root / "lanes.yaml").write_text(yaml.safe_dump({"version": 1, "lanes": lanes or LANES}, sort_keys=False))
    tool = {"name": "t", "description": "d", "input_schema": {"type": "object"}}
    second: dict[str, Any] = {"id": "declares", "tools": [tool], "expect": {"*": "same"}}
    if declaration is not None:
        second["rejections"] = [declaration]
    cases = {"version": 1, "subject": "demo", "cases": [
        {"id": "plain", "tools": [tool], "expect": {"*": "same"}}, second]}
    (root / "demo.cases.yaml").write_text(yaml.safe_dump(cases, sort_keys=False))
    return root

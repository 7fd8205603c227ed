"""``cassettes check`` looks for credentials inside ``!!binary`` and compressed bodies too."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

import pytest

from harness._reject.cassettes import cassette_text, load_catalog
from harness._reject.check import check_catalog
from tests.unit.reject.scenario import GOOD_BODY, MESSAGE, write_scenario

KEY = "sk-ant-api03-" + "BINARYxHIDDENx" * 3


def _rewrite(suite: Path, body: bytes, headers: dict[str, list[str]]) -> None:
    request = {"method": "POST", "uri": "https://api.anthropic.com/v1/messages", "body": json.dumps(GOOD_BODY),
               "headers": {"Content-Type": ["application/json"]}}
    response = {"status": {"code": 400, "message": "x"}, "headers": headers, "body": {"string": body}}
    text = cassette_text([(request, response)])
    assert "!!binary" in text and "BINARYxHIDDEN" not in text  # the raw file shows no key shape
    (suite / "cassettes" / "demo" / "demo.yaml").write_text(text)


@pytest.mark.parametrize(("encode", "headers"), [
    (lambda b: b + b"\xff", {"Content-Type": ["application/json"]}),
    (gzip.compress, {"Content-Type": ["application/json"], "Content-Encoding": ["gzip"]}),
    (gzip.compress, {"Content-Type": ["application/json"]}),  # no header: gzip's magic bytes say it
    (zlib.compress, {"Content-Type": ["application/json"], "content-encoding": ["Deflate"]}),
], ids=["binary", "gzip", "gzip-unlabelled", "deflate"])
def test_a_key_inside_a_binary_or_gzip_body_is_a_secret_problem_naming_the_body(
        tmp_path: Path, encode: object, headers: dict[str, list[str]]) -> None:
    suite = write_scenario(tmp_path)
    envelope = json.dumps({"type": "error", "error": {"type": "invalid_request_error",
                                                      "message": f"{MESSAGE} (key {KEY})"}}).encode()
    _rewrite(suite, encode(envelope), headers)  # type: ignore[operator]
    catalog = load_catalog(suite, {"rules": ["rules/*.rules.yaml"], "cassettes": "cassettes"})
    secrets = [p for p in check_catalog(catalog).problems if p.kind == "secret"]
    assert secrets, check_catalog(catalog).problems
    assert any("interactions[0].response.body.string" in p.detail for p in secrets)
    assert all(KEY not in str(p) for p in secrets)


@pytest.mark.parametrize("where", ["header", "gzip-body"])
def test_the_value_of_a_credential_variable_in_a_cassette_is_a_secret_problem_without_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    password = "plain-words-no-key-shape-42"  # no key shape: only the environment says it is a secret
    monkeypatch.setenv("UPSTREAM_DB_PASS", password)
    suite = write_scenario(tmp_path)
    envelope = json.dumps({"type": "error", "error": {"type": "invalid_request_error", "message": MESSAGE}}).encode()
    headers = {"Content-Type": ["application/json"], "X-Debug-Echo": [password if where == "header" else "none"]}
    if where == "gzip-body":
        envelope = gzip.compress(envelope.replace(b'"type": "error"', f'"type": "error", "db": "{password}"'.encode()))
        headers["Content-Encoding"] = ["gzip"]
    _rewrite(suite, envelope + (b"\xff" if where == "header" else b""), headers)  # a !!binary body either way
    catalog = load_catalog(suite, {"rules": ["rules/*.rules.yaml"], "cassettes": "cassettes"})
    secrets = [p for p in check_catalog(catalog).problems if p.kind == "secret"]
    assert any("environment credential" in p.detail for p in secrets), check_catalog(catalog).problems
    assert all(password not in str(p) for p in secrets)
    monkeypatch.delenv("UPSTREAM_DB_PASS")
    assert not [p for p in check_catalog(catalog).problems if p.kind == "secret"]

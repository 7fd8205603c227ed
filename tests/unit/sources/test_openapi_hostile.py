"""Hostile documents, each with its documented outcome (seed 002, "Untrusted documents"):
refused with one InputError, or the operation skipped / its response dropped with a reason;
never a hang, a RecursionError or exhausted memory."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harness._errors import InputError, Place
from harness._sources import resolve_tools
from harness._sources.openapi import import_document
from harness._sources.openapi.bounds import held

from .conftest import Imported, api, body, ok, tool

S = "#/components/schemas/"
SECRET = "hunter2-not-a-real-password"

ALIAS_BOMB = """\
openapi: 3.0.3
info: {title: bomb, version: "1"}
paths: {}
x-bomb:
  a: &a [x, x, x, x, x, x, x, x, x, x]
  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
  f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
  g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
"""


def _nested(depth: int) -> str:
    return '{"items": ' * depth + "{}" + "}" * depth


def test_an_alias_bomb_is_refused_counting_values_after_expansion(write: Callable[..., Path]) -> None:
    start = time.perf_counter()
    with pytest.raises(InputError, match=r"at most 100,000 values after expanding YAML aliases"):
        import_document(write(ALIAS_BOMB, "bomb.yaml"), max_values=100_000)
    assert time.perf_counter() - start < 5


def test_a_self_referencing_schema_becomes_an_empty_schema(imported: Imported) -> None:
    doc = api({"/a": {"get": {"operationId": "a", "parameters": [
        {"name": "q", "in": "query", "schema": {"$ref": S + "Self"}}], "responses": ok({"$ref": S + "Self"})}}},
        {"Self": {"$ref": S + "Self"}})
    t = tool(imported(doc), "a")
    assert t["input_schema"]["properties"]["q"] == {}
    assert t["openapi"]["responses"]["200"] == {}


def test_a_ref_to_the_whole_document_is_cut_where_it_repeats(imported: Imported) -> None:
    doc = api({"/a": {"get": {"operationId": "a", "responses": ok({"$ref": "#"})}}})
    responses = tool(imported(doc), "a")["openapi"]["responses"]
    assert responses["200"]["paths"]["/a"]["get"]["responses"]["200"]["content"]["application/json"]["schema"] == {}


def test_a_clique_of_mutually_referencing_schemas_is_skipped_quickly(imported: Imported) -> None:
    names = [f"S{i}" for i in range(9)]
    schemas = {n: {"type": "object", "properties": {m: {"$ref": S + m} for m in names if m != n}} for n in names}
    doc = api({"/a": {"post": {"operationId": "a", "requestBody": body({"$ref": S + "S0"}), "responses": ok()}},
               "/b": {"get": {"operationId": "b", "responses": ok()}}}, schemas)
    start = time.perf_counter()
    result = imported(doc)
    assert time.perf_counter() - start < 5
    assert [t["name"] for t in result.tools] == ["b"]
    assert result.skipped[0].reason.startswith("too large: more than 10,000 values")


def test_ten_thousand_deep_nesting_is_refused_at_load(write: Callable[..., Path]) -> None:
    text = ('{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": '
            '{"operationId": "a", "responses": {"200": {"description": "ok", "content": '
            '{"application/json": {"schema": ' + _nested(10_000) + "}}}}}}}}")
    with pytest.raises(InputError, match="nesting"):
        import_document(write(text, "deep.json"))


def test_a_ten_thousand_long_ref_chain_skips_the_operation_as_too_deep(imported: Imported) -> None:
    schemas = {f"S{i}": {"$ref": f"{S}S{i + 1}"} for i in range(10_000)}
    schemas["S10000"] = {"type": "string"}
    doc = api({"/a": {"get": {"operationId": "a", "parameters": [
        {"name": "q", "in": "query", "schema": {"$ref": S + "S0"}}], "responses": ok()}}}, schemas)
    result = imported(doc)
    assert result.tools == []
    assert result.skipped[0].reason.startswith("too deep: more than 128 levels")


def test_nesting_past_128_levels_skips_the_operation_or_drops_the_response(write: Callable[..., Path]) -> None:
    deep = _nested(150)
    text = ('{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {'
            '"/in": {"get": {"operationId": "deepInput", "parameters": [{"name": "q", "in": "query", '
            '"schema": ' + deep + '}], "responses": {"200": {"description": "ok"}}}},'
            '"/out": {"get": {"operationId": "deepOutput", "responses": {"200": {"description": "ok", '
            '"content": {"application/json": {"schema": ' + deep + "}}}}}}}}")
    result = import_document(write(text, "deep150.json"))
    assert [s.name for s in result.skipped] == ["deepInput"]
    assert [t["name"] for t in result.tools] == ["deepOutput"]
    assert result.tools[0]["openapi"]["responses"] == {}
    assert result.dropped_responses[0].reason.startswith("too deep")


def test_a_schema_over_ten_thousand_values_skips_the_operation(imported: Imported) -> None:
    doc = api({"/a": {"get": {"operationId": "a", "parameters": [
        {"name": "q", "in": "query", "schema": {"enum": list(range(10_001))}}], "responses": ok()}}})
    result = imported(doc)
    assert result.tools == [] and result.skipped[0].reason.startswith("too large")


def test_operations_past_the_fields_budget_are_skipped(imported: Imported) -> None:
    wide = {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(1_000)}}
    paths = {f"/p{i}": {"post": {"operationId": f"op{i}", "requestBody": body({"$ref": S + "Wide"}),
                                 "responses": ok()}} for i in range(30)}
    result = imported(api(paths, {"Wide": wide}))
    assert 0 < len(result.tools) < 30
    assert result.skipped and all(s.reason.startswith("over the fields budget") for s in result.skipped)
    assert sum(len(t["input_schema"]["properties"]) for t in result.tools) <= 8 * result.values


def test_responses_past_the_held_values_budget_are_dropped_counting_what_each_copy_holds(
        imported: Imported) -> None:
    # every response holds the whole of Big: 5,006 values expanded, 2,504 held (Part once)
    part = {"enum": list(range(2_500))}
    big = {"properties": {"a": {"$ref": S + "Part"}, "b": {"$ref": S + "Part"}}}
    paths = {f"/p{i}": {"get": {"operationId": f"op{i}", "responses": ok({"$ref": S + "Big"})}} for i in range(150)}
    result = imported(api(paths, {"Part": part, "Big": big}))
    assert len(result.tools) == 150  # a dropped response keeps its tool
    limit = max(50_000, min(4_000_000, 64 * result.values))
    assert held(tool(result, "op0")["openapi"]["responses"]["200"]) == 2_504
    total, kept = 0, 0
    for _ in range(150):  # in document order: the input schema (3 values held), then the response
        total += 3
        if total + 2_504 <= limit:
            total, kept = total + 2_504, kept + 1
    assert 0 < kept < 150  # counting expanded sizes instead would keep about half as many
    assert len(result.dropped_responses) == 150 - kept
    assert all(s.reason == f"over the held-values budget ({limit:,})" for s in result.dropped_responses)
    assert [t["name"] for t in result.tools if t["openapi"]["responses"]] == [f"op{i}" for i in range(kept)]


@pytest.mark.parametrize(("key", "why"), [
    ("/files/../etc/passwd", "a . or .. segment"),
    ("/files/./x", "a . or .. segment"),
    ("//evil.example/x", "a scheme or an empty segment"),
    ("https://evil.example/x", "a path that does not start with /"),
    ("/a?debug=1", "a query"),
    ("/a#frag", "a fragment"),
    ("/a\\b", "a backslash"),
])
def test_a_path_key_that_is_not_a_plain_absolute_path_refuses_the_document(
        imported: Imported, key: str, why: str) -> None:
    with pytest.raises(InputError, match=f"expected a plain absolute path, found {why}"):
        imported(api({key: {"get": {"operationId": "a", "responses": ok()}}}))


def _with_server(url: str, **variables: object) -> dict[str, object]:
    server: dict[str, object] = {"url": url}
    if variables:
        server["variables"] = variables
    return api({"/a": {"get": {"operationId": "a", "responses": ok()}}}, servers=[server])


def test_a_server_url_with_credentials_is_refused_without_echoing_them(
        imported: Imported, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(InputError) as caught:
        imported(_with_server(f"https://admin:{SECRET}@api.example.invalid/v1"))
    assert "carrying credentials" in str(caught.value)
    assert SECRET not in str(caught.value) and "admin" not in str(caught.value)
    assert SECRET not in caplog.text


@pytest.mark.parametrize("host", ["0x7f.1", "0177.0.0.1", "2130706433", "127.1"])
def test_an_ambiguous_numeric_server_host_is_refused(imported: Imported, host: str) -> None:
    with pytest.raises(InputError, match="ambiguous numeric host"):
        imported(_with_server(f"http://{host}/api"))


def test_a_server_variable_holding_a_url_delimiter_is_refused(imported: Imported) -> None:
    variables = {"region": {"default": f"eu@evil.example#{SECRET}"}}
    with pytest.raises(InputError, match="server variable 'region'") as caught:
        imported(_with_server("https://{region}.api.example.invalid", **variables))
    assert SECRET not in str(caught.value)


def test_plain_servers_and_variables_pass(imported: Imported) -> None:
    doc = _with_server("HTTPS://{region}.api.example.invalid:8443/v1", region={"default": "eu", "enum": ["eu", "us"]})
    assert [t["name"] for t in imported(doc).tools] == ["a"]


def test_a_url_as_the_document_is_refused_without_fetching(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="the harness never fetches"):
        resolve_tools({"openapi": "https://example.invalid/openapi.json"}, tmp_path / "x.cases.yaml",
                      Place("x.cases.yaml"))


@pytest.mark.parametrize(("doc", "found"), [
    ({"swagger": "2.0", "paths": {}}, "swagger 2.0"),
    ({"openapi": "3.2.0", "paths": {}}, "'3.2.0'"),
    ({"openapi": "3.0.3", "paths": []}, "list"),
])
def test_a_document_that_is_not_openapi_3_0_or_3_1_is_refused(imported: Imported, doc: dict[str, object],
                                                               found: str) -> None:
    with pytest.raises(InputError, match=found):
        imported(doc)

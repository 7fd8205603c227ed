"""The fast JSON path of an OpenAPI import gives the strict reader's value or its InputError
(same file, line, key path, expected, found) for every document, and names lines only when a
refusal asks for one."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harness._common.yamlsafe import load_document
from harness._errors import InputError
from harness._sources.openapi import import_document, load_openapi
from harness._sources.openapi.bounds import Budgets, Sizes, TooDeep, TooLarge, held
from harness._sources.openapi.quickjson import Counted, LazyLines, extent, quick_json

from .conftest import api, ok

HEAD = '{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}, "x": '


def _strict(path: Path, max_values: int = 2_000_000) -> object:
    """What the strict reader makes of ``path``: its value, or its error's fields."""
    try:
        return load_document(path, max_nodes=max_values).value
    except InputError as exc:
        return (str(exc.place), exc.expected, exc.found)


def _quick(path: Path, max_values: int = 2_000_000) -> object:
    try:
        return load_openapi(path, max_values=max_values).value
    except InputError as exc:
        return (str(exc.place), exc.expected, exc.found)


HOSTILE = {
    "a key written twice": HEAD + '{"a": 1,\n "a": 2}}',
    "NaN": HEAD + "[1,\n NaN]}",
    "minus Infinity": HEAD + "[\n-Infinity]}",
    "a float past 64 bits": HEAD + "[\n1e999]}",
    "an integer of 301 digits": HEAD + "[\n" + "9" * 301 + "]}",
    "a negative integer of 301 digits": HEAD + "[\n-" + "9" * 301 + "]}",
    "a lone surrogate": HEAD + '\n"\\ud83d"}',
    "a lone low surrogate": HEAD + '\n"a\\uDE80"}',
    "nesting 201 deep": HEAD + "[" * 200 + "1" + "]" * 200 + "}",
    "nesting 2000 deep": HEAD + "[" * 2000 + "]" * 2000 + "}",
    "a trailing comma": HEAD + "[1,\n]}",
    "text after the document": HEAD + "1}\n{}",
    "a control character in a string": HEAD + '"a\tb"}',
}

HONEST = {
    "a surrogate pair": HEAD + '"\\ud83d\\ude80"}',
    "an integer of 300 digits": HEAD + "9" * 300 + "}",
    "nesting 199 deep": HEAD + "[" * 198 + "]" * 198 + "}",
    "a byte order mark": "\ufeff" + HEAD + "1}",
    "a tiny float": HEAD + "1e-999}",
    "NaN inside a string": HEAD + '"NaN Infinity 1e999"}',
    "an empty file": "",
    "a byte order mark only": "\ufeff",
}


@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_a_document_the_strict_reader_refuses_is_refused_with_its_very_error(
        write: Callable[..., Path], text: str) -> None:
    path = write(text)
    strict = _strict(path)
    assert isinstance(strict, tuple), "the strict reader refuses this document"
    assert _quick(path) == strict


@pytest.mark.parametrize("text", list(HONEST.values()), ids=list(HONEST))
def test_a_document_the_strict_reader_reads_is_read_to_the_same_value(
        write: Callable[..., Path], text: str) -> None:
    path = write(text)
    strict = _strict(path)
    assert not isinstance(strict, tuple)
    assert _quick(path) == strict


def test_a_document_over_the_value_bound_gets_the_strict_readers_error(write: Callable[..., Path]) -> None:
    path = write(HEAD + json.dumps(list(range(50))) + "}")
    assert _quick(path, max_values=40) == _strict(path, max_values=40)
    assert quick_json(path, "api.json", 40) is None


def test_an_honest_json_document_is_counted_while_loading_and_its_lines_wait_for_a_refusal(
        write: Callable[..., Path]) -> None:
    doc = api({"/a": {"get": {"operationId": "a", "responses": ok({"type": "object"})}}})
    path = write(json.dumps(doc, indent=1))
    loaded = load_openapi(path)
    assert isinstance(loaded, Counted) and isinstance(loaded.lines, LazyLines)
    assert loaded.lines.lines == {}  # nothing computed yet
    assert loaded.values == len(list(_values(doc)))
    assert loaded.place('paths."/a".get').line == 9  # computed now: the line of "get"
    assert loaded.lines.lines == load_document(path).lines.lines  # as the strict reader does
    assert import_document(path).values == loaded.values


def test_a_refusal_after_the_fast_load_names_the_line_of_the_bad_value(write: Callable[..., Path]) -> None:
    doc = api({"/a": {"get": {"operationId": "a", "responses": ok()}}}, servers=[{"url": 7}])
    path = write(json.dumps(doc, indent=1))
    with pytest.raises(InputError) as err:
        import_document(path)
    lines = path.read_text().splitlines()
    line = err.value.place.line  # servers[0]: the line its object opens on
    assert line is not None and lines[line - 1].strip() == "{" and '"url": 7' in lines[line]


def test_extent_counts_what_the_strict_reader_counts_and_stops_at_the_depth_bound() -> None:
    value = {"a": [1, [2, {"b": None}]], "c": {}}
    assert extent(value, 100, 200) == len(list(_values(value)))
    assert extent([[[1]]], 100, 3) == 4
    assert extent([[[1]]], 100, 2) is None  # the 1 is at depth 3
    assert extent([[[[]]]], 100, 3) == 4  # an empty container adds no depth below it
    assert extent(list(range(10)), 10, 200) is None


def test_held_counts_a_shared_value_once_within_a_schema_and_again_in_each_schema() -> None:
    shared = {"type": "string", "enum": ["a", "b"]}
    schema = {"properties": {"x": shared, "y": shared}}
    # held: schema, properties, shared (once), "string", the enum list and its 2 items
    assert held(schema) == 7
    assert held(schema, schema) == 14  # each schema counts on its own
    assert held("text") == 1
    assert Sizes().check(schema) == 12  # expanded: shared counts at each use


def test_sizes_bound_the_expanded_size_and_height_of_each_schema() -> None:
    deep: object = 1
    for _ in range(128):
        deep = [deep]
    assert Sizes().check(deep) == 129  # the 1 at depth 128: within the bound
    with pytest.raises(TooDeep, match="more than 128 levels"):
        Sizes().check([deep])
    with pytest.raises(TooLarge, match="more than 10,000 values expanded"):
        Sizes().check({"a": [list(range(5_000))] * 2})


def test_a_value_sized_in_one_schema_is_still_bounded_where_another_holds_it_deeper() -> None:
    sizes = Sizes()
    chain: object = "leaf"
    for _ in range(120):
        chain = {"items": chain}
    assert sizes.check(chain) == 121  # sized here, remembered for the next schema
    nested: object = chain
    for _ in range(8):
        nested = [nested]
    assert sizes.check(nested) == 129  # depth 128: within the bound
    with pytest.raises(TooDeep, match="more than 128 levels"):
        sizes.check([nested])
    assert sizes.check([chain] * 82) == 9_923  # each use counted
    wide = [chain] * 83
    with pytest.raises(TooLarge):
        sizes.check(wide)


def test_the_held_budget_decides_as_the_exact_count_would_though_it_walks_only_near_the_limit() -> None:
    shared = {"enum": list(range(40))}
    schema = {"a": shared, "b": shared}  # expands to 85 values, holds 43
    budgets = Budgets(built_limit=0, held_limit=43 * 3, fields_limit=0)
    taken = [budgets.take_held([schema], Sizes().check(schema)) for _ in range(4)]
    assert taken == [True, True, True, False]  # 3 x 44 fit exactly; the sizes alone would stop at 1
    assert budgets.held == 43 * 3 and budgets.unheld == []


def _values(value: object) -> list[object]:
    out = [value]
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    for child in children:
        out += _values(child)
    return out


def test_an_import_leaves_the_garbage_collector_as_it_found_it(write: Callable[..., Path]) -> None:
    good = write(json.dumps(api({"/a": {"get": {"operationId": "a", "responses": ok()}}})), "good.json")
    bad = write('{"openapi": "2.0"}', "bad.json")
    was = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            import_document(good)
            assert gc.isenabled() is enabled
            with pytest.raises(InputError):
                import_document(bad)
            assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_a_refusal_after_the_fast_load_names_the_strict_readers_line_whatever_the_line_ends(
        write: Callable[..., Path], newline: str) -> None:
    doc = api({"/a": {"get": {"operationId": "a", "responses": ok()}}}, servers=[{"url": 7}])
    path = write(json.dumps(doc, indent=1).replace("\n", newline))
    assert isinstance(load_openapi(path), Counted)  # the fast path read it
    with pytest.raises(InputError) as err:
        import_document(path)
    strict = load_document(path).place("servers[0]")
    assert err.value.place == strict and strict.line is not None and strict.line > 1

"""The strict JSON reader: one behaviour whatever the file's size, every refusal at file:line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._common.yamlsafe import load_document, load_text
from harness._errors import InputError

BIG_PADDING = 1024 * 1024 + 10  # past the size at which today's main switched readers


def _both_sizes(tmp_path: Path, text: str) -> list[Path]:
    small = tmp_path / "small.json"
    small.write_text(text, encoding="utf-8")
    big = tmp_path / "big.json"
    big.write_text(text + " " * BIG_PADDING, encoding="utf-8")
    return [small, big]


def test_a_surrogate_pair_escape_is_one_character_as_json_dump_writes_it(tmp_path: Path) -> None:
    text = json.dumps({"name": "rocket \U0001F680"})
    assert "\\ud83d\\ude80" in text
    for path in _both_sizes(tmp_path, text):
        assert load_document(path).value == {"name": "rocket \U0001F680"}


def test_exponent_numbers_are_numbers_not_strings_at_any_size(tmp_path: Path) -> None:
    for path in _both_sizes(tmp_path, '{"a": 1e5, "b": 1e308, "c": -0.5E-3}'):
        assert load_document(path).value == {"a": 1e5, "b": 1e308, "c": -0.5e-3}


@pytest.mark.parametrize(("text", "line", "expected"), [
    ('{\n "a": NaN\n}', 2, "a finite number"),
    ('{\n "a": Infinity\n}', 2, "a finite number"),
    ('{\n "a": -Infinity\n}', 2, "a finite number"),
    ('{\n "a": 1e999\n}', 2, "a number a 64-bit float can hold"),
    ('{\n "a": ' + "9" * 5000 + "\n}", 2, "an integer of at most 300 digits"),
    ('{\n "a": 1,\n "a": 2\n}', 3, "each key once"),
    ('{\n "a": "\\ud83d"\n}', 2, "whole characters"),
    ('{\n "a": [1,]\n}', 2, "a JSON value"),
    ('{"a": 1}\n{"b": 2}', 2, "the end of the JSON document"),
])
def test_what_json_does_not_mean_is_refused_at_its_line_at_any_size(
        tmp_path: Path, text: str, line: int, expected: str) -> None:
    for path in _both_sizes(tmp_path, text):
        with pytest.raises(InputError) as caught:
            load_document(path)
        assert caught.value.place.line == line, path.name
        assert expected in caught.value.expected


def test_json_nesting_is_bounded_like_yaml_before_python_recursion() -> None:
    for depth in (250, 5000):
        with pytest.raises(InputError, match="nesting at most 200 deep"):
            load_text("[" * depth + "]" * depth, "deep.json")


def test_json_key_paths_know_their_lines() -> None:
    doc = load_text('{\n "a": 1,\n "b": [\n  {"x": 2,\n   "y": [1, 2]}\n ]\n}', "f.json")
    assert doc.value == {"a": 1, "b": [{"x": 2, "y": [1, 2]}]}
    assert doc.place("b[0].y").line == 5
    assert doc.place("a").line == 2


def test_yaml_refuses_non_finite_numbers_and_enormous_integers_with_their_line() -> None:
    with pytest.raises(InputError) as caught:
        load_text("a: 1\nfloor_s: .nan\n", "s.yaml")
    assert caught.value.place.line == 2
    with pytest.raises(InputError, match="at most 300 digits"):
        load_text("a: " + "7" * 5000 + "\n", "s.yaml")

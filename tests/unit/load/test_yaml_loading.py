"""The YAML reader: values, line numbers, and refusals of what has no meaning in a suite."""

from __future__ import annotations

import pytest

from harness._common.yamlsafe import load_text
from harness._errors import InputError

ALIAS_BOMB = "\n".join(
    [f"l0: &l0 [{', '.join(['x'] * 9)}]"]
    + [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
)


def test_key_paths_know_their_lines() -> None:
    doc = load_text("a: 1\nb:\n  - x: 2\n    y: [1, 2]\n", "f.yaml")
    assert doc.value == {"a": 1, "b": [{"x": 2, "y": [1, 2]}]}
    assert doc.place("b[0].y").line == 4
    assert doc.place("b[0].missing").line == 3  # falls back to the nearest known ancestor


def test_an_alias_bomb_is_refused_at_a_lower_bound_with_the_file_and_the_limit() -> None:
    # the default bound (a million values) costs seconds to reach: tests/e2e/test_full_size_limits.py
    with pytest.raises(InputError) as err:
        load_text(ALIAS_BOMB, "bomb.yaml", max_nodes=10_000)
    assert err.value.place.file == "bomb.yaml"
    assert err.value.expected == "at most 10,000 values after expanding YAML aliases"


def test_a_recursive_alias_is_refused() -> None:
    with pytest.raises(InputError, match="recursive alias"):
        load_text("a: &a\n  b: *a\n", "rec.yaml")


def test_a_duplicate_key_names_its_line() -> None:
    with pytest.raises(InputError) as err:
        load_text("a: 1\nb: 2\na: 3\n", "dup.yaml")
    assert err.value.place.line == 3
    assert "a second 'a'" in err.value.found


def test_malformed_yaml_names_the_line_of_the_problem() -> None:
    with pytest.raises(InputError) as err:
        load_text("cases:\n  - id: x\n    tools: [1,\n", "broken.yaml")
    assert err.value.place.file == "broken.yaml"
    assert err.value.place.line is not None
    assert err.value.expected == "well-formed YAML"


def test_nesting_deeper_than_the_limit_is_refused() -> None:
    deep = "[" * 300 + "]" * 300
    with pytest.raises(InputError, match="nesting at most"):
        load_text(deep, "deep.yaml")


def test_merge_keys_and_non_string_keys_are_refused() -> None:
    with pytest.raises(InputError, match="merge key"):
        load_text("base: &b {x: 1}\nother:\n  <<: *b\n", "merge.yaml")
    with pytest.raises(InputError, match="a string key"):
        load_text("1: one\n", "intkey.yaml")


@pytest.mark.parametrize("text", ["d: 2024-01-01\n", "d: !!timestamp 2024-01-01\n"])
def test_a_date_is_the_text_as_written_because_tool_schemas_travel_as_json(text: str) -> None:
    # a date object would reach the pipeline and fail there as "not JSON serializable"
    assert load_text(text, "f.yaml").value == {"d": "2024-01-01"}


@pytest.mark.parametrize("tag", ["timestamp", "bool"])
def test_a_tagged_value_its_tag_cannot_read_names_the_tag_and_the_value(tag: str) -> None:
    with pytest.raises(InputError) as err:
        load_text(f"a:\n  b: !!{tag} x\n", "tags.yaml")
    assert (err.value.place.file, err.value.place.line, err.value.place.path) == ("tags.yaml", 2, "a.b")
    assert err.value.expected == f"a value that its tag {tag} can read"
    assert err.value.found == "'x'"


def test_binary_data_is_refused_as_no_json_value() -> None:
    with pytest.raises(InputError) as err:
        load_text("a: !!binary aGk=\n", "bin.yaml")
    assert err.value.found == "binary data (!!binary)"

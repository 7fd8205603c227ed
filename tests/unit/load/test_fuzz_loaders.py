"""Fuzzing the readers: any text gives a Document or one InputError, never another exception."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from harness._common.yamlsafe import load_document, load_text
from harness._errors import InputError
from tests.fuzzing import fuzz

JSON_BITS = st.sampled_from(['{', '}', '[', ']', ',', ':', '"', '\\', '\\u', 'd83d', 'de80', 'NaN', '-', '1e',
                             '999', '0', 'true', 'null', ' ', '\n', '"a"', '"a":', '.5', 'Infinity', '\x00'])
YAML_BITS = st.sampled_from(["a: ", "- ", "&x ", "*x", "<<: ", "!!binary ", "!!timestamp ", "!!bool ",
                             "2024-01-01 ", "!!python/object ", ".nan", ".inf",
                             "? ", "{", "}", "[", "]", ", ", "\n", "  ", "'", '"', "\\x00", "0x1F", "1e5", "~",
                             "|\n", "%YAML 1.1\n", "--- ", "...", "#", "\t"])


def _loads(text: str, name: str) -> None:
    try:
        doc = load_text(text, name)
    except InputError:
        return
    # JSON's values only: the YAML reader gives a date as its text and refuses !!binary, so
    # nothing it reads can fail later as "not JSON serializable" inside a pipeline
    json.dumps(doc.value, allow_nan=False)
    assert doc.place("").file == name


@fuzz()
@given(st.lists(JSON_BITS, max_size=40).map("".join) | st.text(max_size=200))
def test_any_text_read_as_json_gives_a_value_or_one_input_error(text: str) -> None:
    _loads(text, "fuzz.json")


@fuzz()
@given(st.lists(YAML_BITS, max_size=40).map("".join) | st.text(max_size=200))
def test_any_text_read_as_yaml_gives_a_value_or_one_input_error(text: str) -> None:
    _loads(text, "fuzz.yaml")


@fuzz()
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                                  max_size=4), max_leaves=30))
def test_whatever_json_dump_writes_reads_back_as_itself_or_is_refused_for_nan(value: object) -> None:
    text = json.dumps(value)
    try:
        doc = load_text(text, "dumped.json")
    except InputError as exc:
        assert "NaN" in text or "Infinity" in text or "surrogate" in exc.found, exc
        return
    assert doc.value == json.loads(text)


@fuzz(share=0.3)
@given(st.binary(max_size=300))
def test_any_bytes_in_a_file_give_a_value_or_one_input_error(tmp_path_factory: object, data: bytes) -> None:
    folder = Path(str(tmp_path_factory.mktemp("fuzz")))  # type: ignore[attr-defined]
    for name in ("f.json", "f.yaml"):
        (folder / name).write_bytes(data)
        with contextlib.suppress(InputError):
            load_document(folder / name)

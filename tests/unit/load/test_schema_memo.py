"""A document found valid once is not walked again, and nothing else is let through: the memory
of valid documents is keyed on the whole value, so any change is checked afresh."""

from __future__ import annotations

import pytest

from harness._common import schemacheck
from harness._common.yamlsafe import load_text
from harness._errors import InputErrors

GOOD = "version: 1\nsubject: calm\ncases:\n  - id: one\n    tools: [{name: a}]\n"


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the validator's walks over a document (the seam the memory saves)."""
    walks: list[int] = []
    real = schemacheck.validator

    class Counted:
        def __init__(self, name: str) -> None:
            self.inner = real(name)

        def iter_errors(self, value: object):  # type: ignore[no-untyped-def]
            walks.append(1)
            return self.inner.iter_errors(value)

    monkeypatch.setattr(schemacheck, "validator", Counted)
    monkeypatch.setattr(schemacheck, "_valid", type(schemacheck._valid)())
    return walks


def test_the_same_valid_document_is_walked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    walks = _counting(monkeypatch)
    for _ in range(3):
        schemacheck.check(load_text(GOOD, "a.cases.yaml"), "cases")
    assert len(walks) == 1


@pytest.mark.parametrize("changed", [
    GOOD + "    surprise: 1\n",  # an unknown key
    GOOD.replace("id: one", "id: 1"),  # 1, not "1"
    GOOD.replace("version: 1", "version: true"),  # true, not 1
], ids=["unknown-key", "number-for-string", "boolean-for-number"])
def test_a_document_changed_after_a_valid_check_is_checked_again_and_refused(
        monkeypatch: pytest.MonkeyPatch, changed: str) -> None:
    walks = _counting(monkeypatch)
    schemacheck.check(load_text(GOOD, "a.cases.yaml"), "cases")
    for _ in range(2):  # refused every time, never remembered
        with pytest.raises(InputErrors) as caught:
            schemacheck.check(load_text(changed, "a.cases.yaml"), "cases")
        assert caught.value.errors[0].place.file == "a.cases.yaml"
    assert len(walks) == 3


def test_one_value_is_remembered_per_schema_not_across_schemas(monkeypatch: pytest.MonkeyPatch) -> None:
    walks = _counting(monkeypatch)
    schemacheck.check(load_text(GOOD, "a.cases.yaml"), "cases")
    with pytest.raises(InputErrors):
        schemacheck.check(load_text(GOOD, "lanes.yaml"), "lanes")
    assert len(walks) == 2

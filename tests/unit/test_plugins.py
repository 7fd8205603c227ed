"""Subjects and wires come from entry points: the built-in subjects from their own distribution,
nothing in the harness naming them. (A third party's plugin, installed for real, is
tests/e2e/test_plugins.py.)"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from harness import Subject, registered_subjects, registered_wires, resolve_subject
from harness._errors import SubjectError
from harness._plugins import UnknownSubject, wire_for_validator

BUILT_IN = ("anthropic_messages", "anthropic_messages_fixed", "openai_strict_resume", "openapi_omit")
REPO = Path(__file__).resolve().parents[2]


def test_the_built_in_subjects_are_entry_points_of_their_own_distribution() -> None:
    assert set(BUILT_IN) <= set(registered_subjects())
    points = {ep.name: ep for ep in metadata.entry_points(group="harness.subjects")}
    for name in BUILT_IN:
        assert points[name].dist is not None and points[name].dist.metadata["Name"] == "wire-harness-subjects"
        subject = resolve_subject(name)
        assert subject.name == name and subject.new.startswith("wire_harness_subjects.")


def test_the_harness_package_imports_no_subject() -> None:
    named = [p.relative_to(REPO).as_posix() for p in (REPO / "harness").rglob("*.py")
             if "wire_harness_subjects" in p.read_text(encoding="utf-8")]
    assert named == []


def test_an_unknown_subject_lists_the_registered_ones_and_those_the_suite_declares() -> None:
    own = Subject(name="mine", old="m:old", new="m:new", wires=frozenset({"w"}))
    with pytest.raises(UnknownSubject) as err:
        resolve_subject("nope", {"mine": own})
    assert err.value.name == "nope" and err.value.declared == ("mine",)
    assert err.value.expected == ("a registered subject (harness.subjects entry points: "
                                  f"{', '.join(registered_subjects())}; declared in suite.yaml: mine) "
                                  "or module:attribute")
    assert resolve_subject("mine", {"mine": own}) is own


def test_a_module_attribute_that_is_not_a_subject_is_refused_by_name() -> None:
    with pytest.raises(SubjectError, match=r"'harness:Lane': expected a harness.Subject, found type"):
        resolve_subject("harness:Lane")


def test_the_built_in_wires_are_registered_and_an_unknown_validator_has_none() -> None:
    wires = registered_wires()
    assert {"anthropic", "openai-chat", "openai-responses", "gemini", "bedrock"} <= set(wires)
    assert all(name == wire.name for name, wire in wires.items())
    assert wire_for_validator("no-such-validator") == ""

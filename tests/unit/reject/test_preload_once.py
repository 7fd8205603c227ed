"""A process that runs run after run (the test suite runs ``harness`` in process) checks a
suite's catalog once (``harness._reject.preload``), and again when a file the check reads
changed or the credentials it looks for are others."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness._errors import InputErrors
from harness._load import load_suite
from harness._reject import preload as preloading
from tests.unit.reject.scenario import write_suite

KEY = "sk-ant-api03-" + "Q" * 24 + "preloaded"


def _checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The catalog folders the check ran on, from now on."""
    ran: list[str] = []
    check = preloading.check_catalog

    def counted(catalog: Any, secrets: Any = None) -> Any:
        ran.append(catalog.folder)
        return check(catalog, secrets)

    monkeypatch.setattr(preloading, "check_catalog", counted)
    return ran


def test_the_same_catalog_is_checked_once_however_many_runs_use_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ran = _checks(monkeypatch)
    suite = load_suite(write_suite(tmp_path, None))
    for _ in range(3):
        preloading.preload(suite)
    assert len(ran) == 1


def test_a_cassette_edited_after_a_check_is_checked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_suite(tmp_path, None)
    suite = load_suite(root)
    preloading.preload(suite)
    cassette = root / "cassettes" / "demo" / "demo.yaml"
    text = cassette.read_text()
    assert "message: x" in text
    cassette.write_text(text.replace("message: x", f"message: {KEY}"))
    ran = _checks(monkeypatch)
    with pytest.raises(InputErrors) as caught:
        preloading.preload(suite)
    assert ran and "demo/demo.yaml" in str(caught.value) and KEY not in str(caught.value)


def test_a_credential_set_after_a_check_is_looked_for_in_the_catalog(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = load_suite(write_suite(tmp_path, None))
    preloading.preload(suite)
    monkeypatch.setenv("DEMO_API_KEY", "invalid_request_error")  # a value the recorded answer holds
    with pytest.raises(InputErrors) as caught:
        preloading.preload(suite)
    assert "demo/demo.yaml" in str(caught.value)

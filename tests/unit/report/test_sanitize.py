"""The sanitizer: what a pipeline says reaches files and terminals readable and harmless."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

from harness._common.redact import Redactor
from harness._common.sanitize import clean_text, walk_strings
from harness._report import junit


def test_terminal_escapes_and_c0_controls_become_visible_escapes_and_newlines_stay() -> None:
    said = "screen \x1b[2J\x1b[H cleared \x07 \x00 \r over\nnext\tcol \x85 \u202egnp.exe"
    assert clean_text(said) == ("screen \\x1b[2J\\x1b[H cleared \\x07 \\x00 \\x0d over\nnext\tcol \\x85 "
                                "\\u202egnp.exe")


def test_a_lone_surrogate_becomes_the_replacement_character_and_the_text_encodes() -> None:
    cleaned = clean_text("upstream said \ud83d and stopped")
    assert cleaned == "upstream said \ufffd and stopped"
    cleaned.encode("utf-8")


def test_xml_noncharacters_are_removed_and_plain_text_is_returned_as_is() -> None:
    assert clean_text("a\ufffeb\uffffc") == "abc"
    plain = "nothing to do here: ünïcode and \U0001F680 are fine"
    assert clean_text(plain) is plain


def test_a_value_nested_five_thousand_deep_is_walked_without_recursion_and_cut() -> None:
    value: object = "bottom \x1b"
    for _ in range(5000):
        value = {"down\x00": [value]}
    out = walk_strings(value, clean_text, max_depth=64)
    json.dumps(out)  # the standard encoder recurses: the cut keeps it well inside the limit
    node = out
    for _ in range(32):
        assert list(node) == ["down\\x00"]
        node = node["down\\x00"][0]
    assert node == "[cut: nested deeper than 64 levels]"


def test_the_report_walk_redacts_and_sanitizes_keys_and_values_alike() -> None:
    report = {"a\x1b": ["sk-ant-api03-" + "y" * 30 + "\ud800"], "n": 1, "t": (1, "x")}
    assert Redactor([]).value(report) == {"a\\x1b": ["[REDACTED:anthropic-key]\ufffd"], "n": 1, "t": [1, "x"]}


def _report(message: str) -> dict[str, object]:
    return {"suite": {"name": "s\x1b"}, "differential": [
        {"subject": "toy", "case": "c", "lane": "l", "verdict": "error", "failed": True, "detail": message}]}


def test_junit_xml_stays_well_formed_whatever_a_pipeline_error_holds() -> None:
    data = junit.render(_report("boom \x00\x0b\x1b[2J \ud83d \ufffe end"))
    root = ET.fromstring(data)
    error = root.find("testsuite/testcase/error")
    assert error is not None
    assert error.get("message") == "error: boom \\x00\\x0b\\x1b[2J \ufffd  end"


def test_the_text_rendering_of_any_report_prints_no_control_character() -> None:
    import io

    from rich.console import Console

    from harness._cli.output import render_text

    row = {"subject": "toy", "case": "c", "lane": "l", "verdict": "error", "failed": True,
           "detail": "new error: \x1b[2J\x1b]0;pwned\x07 \ud83d"}
    report = {"differential": [row], "summary": {"units": 1, "failed": 1, "verdicts": {
        "identical": 0, "reordered": 0, "intended": 0, "unexpected": 0, "error": 1}},
        "pins": None, "rejections": None, "mutation": None, "exit": {"code": 1, "reason": "r\x1b"}}
    out = io.StringIO()
    render_text(report, Console(file=out, width=200, color_system=None))
    printed = out.getvalue()
    assert "\x1b" not in printed and "\x07" not in printed and "\\x1b[2J" in printed

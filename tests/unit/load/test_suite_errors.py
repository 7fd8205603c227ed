"""Loading a suite: every broken file gets one error naming file, line, key path, expected
and found, and errors from several files come back together."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._errors import InputErrors
from harness._load import load_suite

SUITE = """version: 1
name: scenario
subjects:
  echo:
    old: echo_pipes:old
    new: echo_pipes:new
    wires: [echo]
"""
LANES = "version: 1\nlanes:\n  - {id: one, wire: echo, provider: p}\n  - {id: two, wire: echo, provider: q}\n"
PIPES = "def old(i, lane):\n    return i\n\n\ndef new(i, lane):\n    return i\n"
GOOD_CASE = "version: 1\nsubject: echo\ncases:\n  - id: fine\n    tools: [{name: t}]\n"


def make_suite(tmp: Path, **cases: str) -> Path:
    (tmp / "suite.yaml").write_text(SUITE)
    (tmp / "lanes.yaml").write_text(LANES)
    (tmp / "echo_pipes.py").write_text(PIPES)
    for name, text in cases.items():
        (tmp / f"{name}.cases.yaml").write_text(text)
    return tmp


def errors_of(root: Path) -> list[str]:
    """The load errors, each file's name in the suite folder (without the folder they carry)."""
    with pytest.raises(InputErrors) as err:
        load_suite(root)
    return [str(e).removeprefix(f"{root.as_posix()}/") for e in err.value.errors]


def test_a_case_file_is_named_as_the_caller_can_open_it_from_where_it_named_the_suite(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cases").mkdir()
    make_suite(tmp_path / "cases", bad=GOOD_CASE + "    colour: blue\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputErrors) as err:
        load_suite("cases")
    [message] = [str(e) for e in err.value.errors]
    # as the case's pin ids and `harness bless` name it from the project root; the bare name in
    # the suite ("bad.cases.yaml") left the user to guess which suite folder
    assert message.startswith("cases/bad.cases.yaml:6 at cases[0].colour")


def test_a_good_suite_loads_with_its_lanes_and_cases(tmp_path: Path) -> None:
    suite = load_suite(make_suite(tmp_path, good=GOOD_CASE))
    assert [c.id for c in suite.cases] == ["fine"]
    assert suite.cases[0].lanes == ("one", "two")
    assert suite.cases[0].input == {"tools": [{"name": "t", "description": "", "input_schema": {}}]}


def test_an_unknown_key_names_the_key_its_line_and_the_allowed_keys(tmp_path: Path) -> None:
    text = GOOD_CASE + "    colour: blue\n"
    [message] = errors_of(make_suite(tmp_path, bad=text))
    assert message.startswith("bad.cases.yaml:6 at cases[0].colour")
    assert "unknown key 'colour'" in message and "one of the keys" in message


def test_a_wrong_type_says_what_was_expected_and_found(tmp_path: Path) -> None:
    text = "version: 1\nsubject: echo\ncases:\n  - id: x\n    tools: [{name: t}]\n    lanes: one\n"
    [message] = errors_of(make_suite(tmp_path, bad=text))
    assert "bad.cases.yaml:6 at cases[0].lanes" in message
    assert "expected a value of type array" in message and 'found string "one"' in message


def test_a_broken_file_does_not_hide_the_errors_of_another(tmp_path: Path) -> None:
    unknown = GOOD_CASE.replace("fine", "x") + "    y: 1\n"
    root = make_suite(tmp_path, good=GOOD_CASE, broken="cases: [\n", unknown=unknown)
    messages = errors_of(root)
    assert len(messages) == 2
    assert any(m.startswith("broken.cases.yaml") and "well-formed YAML" in m for m in messages)
    assert any(m.startswith("unknown.cases.yaml") for m in messages)


def test_a_case_naming_an_unknown_lane_lists_the_known_ones(tmp_path: Path) -> None:
    text = GOOD_CASE + "    lanes: [three]\n"
    [message] = errors_of(make_suite(tmp_path, bad=text))
    assert "a lane id from the lanes files (one, two)" in message and "'three'" in message


def test_two_cases_with_one_id_are_an_error_naming_both_places(tmp_path: Path) -> None:
    [message] = errors_of(make_suite(tmp_path, a=GOOD_CASE, b=GOOD_CASE))
    assert "a case id unique in the suite" in message and "also at" in message


def test_an_unknown_subject_is_named(tmp_path: Path) -> None:
    [message] = errors_of(make_suite(tmp_path, bad=GOOD_CASE.replace("subject: echo", "subject: nope")))
    assert message.startswith("bad.cases.yaml:2 at subject: expected a registered subject")
    assert message.endswith("found 'nope'")
    assert "anthropic_messages" in message and "declared in suite.yaml: echo" in message


def test_case_ids_derived_from_content_are_stable_and_ignore_titles(tmp_path: Path) -> None:
    text = "version: 1\nsubject: echo\ncases:\n  - title: {t}\n    tools: [{{name: t}}]\n"
    first = load_suite(make_suite(tmp_path, c=text.format(t="one"))).cases[0].id
    second = load_suite(make_suite(tmp_path, c=text.format(t="two"))).cases[0].id
    assert first == second and first.startswith("echo-")


def test_a_pin_with_a_key_its_kind_does_not_take_is_refused(tmp_path: Path) -> None:
    text = GOOD_CASE + "    pins:\n      - {name: p, kind: deterministic, select: x}\n"
    [message] = errors_of(make_suite(tmp_path, bad=text))
    assert "cases[0].pins[0].select" in message and "unknown key 'select'" in message


def test_a_same_expectation_may_carry_its_reason(tmp_path: Path) -> None:
    text = GOOD_CASE + "    expect:\n      two: {same: {why: the gap is documented}}\n"
    case = load_suite(make_suite(tmp_path, c=text)).cases[0]
    assert (case.expectation("two").kind, case.expectation("two").why) == ("same", "the gap is documented")
    assert case.expectation("one").kind == "same" and case.expectation("one").why == ""


def test_a_subject_input_schema_checks_case_input_at_load_with_its_line(tmp_path: Path) -> None:
    root = make_suite(tmp_path)
    (root / "suite.yaml").write_text(SUITE + "    input_keys: [mode]\n    input_schema:\n"
                                     "      properties: {mode: {enum: [request, resume]}}\n")
    text = GOOD_CASE + "    input: {mode: replay}\n"
    (root / "bad.cases.yaml").write_text(text)
    [message] = errors_of(root)
    assert message.startswith("bad.cases.yaml:6 at cases[0].input.mode")
    assert 'one of "request", "resume"' in message and 'found string "replay"' in message


def test_an_unknown_key_in_the_mutation_settings_is_named_by_suite_yaml(tmp_path: Path) -> None:
    root = make_suite(tmp_path, good=GOOD_CASE)
    (root / "suite.yaml").write_text(SUITE + "mutation:\n  colour: blue\n")
    [message] = errors_of(root)
    assert message.startswith("suite.yaml:9 at mutation.colour") and "unknown key 'colour'" in message


def test_a_lane_of_another_wire_is_refused_naming_both_wires(tmp_path: Path) -> None:
    root = make_suite(tmp_path)
    (root / "lanes.yaml").write_text(LANES + "  - {id: other, wire: tool-result, provider: r}\n")
    (root / "bad.cases.yaml").write_text(GOOD_CASE + "    lanes: [one, other]\n")
    [message] = errors_of(root)
    assert "cases[0].lanes[1]" in message and "a lane of wire echo" in message and "'tool-result'" in message


def test_a_case_with_no_lane_of_its_wire_is_an_error_not_a_silent_skip(tmp_path: Path) -> None:
    root = make_suite(tmp_path, c=GOOD_CASE)
    (root / "lanes.yaml").write_text("version: 1\nlanes:\n  - {id: one, wire: elsewhere, provider: p}\n")
    [message] = errors_of(root)
    assert "c.cases.yaml:4 at cases[0]" in message and "a lane of wire echo" in message


def test_a_cases_glob_that_matches_nothing_is_an_error(tmp_path: Path) -> None:
    [message] = errors_of(make_suite(tmp_path))
    assert "case files matching" in message


def test_a_pin_selector_that_does_not_parse_is_refused_at_load(tmp_path: Path) -> None:
    text = GOOD_CASE + "    pins:\n      - {name: p, kind: schema, select: 'model[[[', must_match: {}}\n"
    [message] = errors_of(make_suite(tmp_path, c=text))
    assert "c.cases.yaml:7 at cases[0].pins[0].select" in message


def test_a_subject_module_that_exits_or_hangs_at_import_is_one_error_with_its_place(tmp_path: Path) -> None:
    root = make_suite(tmp_path, c=GOOD_CASE)
    (root / "echo_pipes.py").write_text("import os\nos._exit(7)\n")
    [message] = errors_of(root)
    assert message.startswith("suite.yaml:5 at subjects.echo.old") and "ended its process (exit code 7)" in message
    # a module spinning at import burns CPU until stopped: a short timeout_s stops it soon
    (root / "suite.yaml").write_text(SUITE.replace("name: scenario", "name: scenario\ntimeout_s: 0.1"))
    (root / "echo_pipes.py").write_text("while True:\n    pass\n")
    [message] = errors_of(root)
    assert "did not finish within 0.1 s" in message


def test_an_unknown_key_inside_diverges_is_named_there(tmp_path: Path) -> None:
    text = GOOD_CASE + "    expect:\n      '*': {diverges: {why: x, wat: 1}}\n"
    [message] = errors_of(make_suite(tmp_path, c=text))
    assert "cases[0].expect.*.diverges.wat" in message and "unknown key 'wat'" in message


def test_a_mutation_only_suite_loads_with_no_cases(tmp_path: Path) -> None:
    root = make_suite(tmp_path)
    (root / "suite.yaml").write_text(SUITE + "mutation:\n  targets: [echo_pipes]\n")
    assert load_suite(root).cases == ()


def test_a_bad_tool_in_a_tools_file_is_named_at_its_own_line(tmp_path: Path) -> None:
    root = make_suite(tmp_path)
    (root / "tools.yaml").write_text("tools:\n  - name: fine\n  - description: no name\n")
    (root / "c.cases.yaml").write_text("version: 1\nsubject: echo\ncases:\n  - id: x\n    tools: {file: tools.yaml}\n")
    [message] = errors_of(root)
    assert message.startswith("tools.yaml:3 at tools[1]") and "a tool object with a string name" in message


def test_picking_from_a_source_with_two_tools_of_one_name_is_refused(tmp_path: Path) -> None:
    root = make_suite(tmp_path)
    (root / "tools.yaml").write_text("tools:\n  - name: twin\n  - name: twin\n    description: the second\n")
    (root / "c.cases.yaml").write_text(
        "version: 1\nsubject: echo\ncases:\n  - id: x\n    tools: {file: tools.yaml, pick: [twin]}\n")
    [message] = errors_of(root)
    assert "two tools named 'twin'" in message


def test_a_pipeline_function_the_module_lacks_is_named_at_its_place_in_suite_yaml(tmp_path: Path) -> None:
    root = make_suite(tmp_path, c=GOOD_CASE)
    (root / "suite.yaml").write_text(SUITE.replace("echo_pipes:new", "echo_pipes:nosuch"))
    [message] = errors_of(root)
    assert message.startswith("suite.yaml:6 at subjects.echo.new") and "has no attribute 'nosuch'" in message


def test_a_divergence_blessed_with_why_todo_is_refused_until_a_reason_is_written(tmp_path: Path) -> None:
    todo = GOOD_CASE + "    expect:\n      one:\n        diverges:\n          why: TODO\n          paths: [x]\n"
    (err,) = errors_of(make_suite(tmp_path, blessed=todo))
    assert err.startswith("blessed.cases.yaml:9 at cases[0].expect.one.diverges.why: expected the reason")
    (tmp_path / "blessed.cases.yaml").write_text(todo.replace("why: TODO", "why: the new line adds x"))
    assert load_suite(tmp_path).cases[0].expect["one"].why == "the new line adds x"


def test_a_suite_of_python_pins_only_needs_no_lanes_file(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text("version: 1\nname: pins-only\n")
    (tmp_path / "test_module_pins.py").write_text("def test_it():\n    assert True\n")
    assert load_suite(tmp_path).lanes == {}
    (tmp_path / "suite.yaml").write_text("version: 1\nname: pins-only\nlanes: [my-lanes.yaml]\n")
    [message] = errors_of(tmp_path)  # a lanes file the suite names is still required
    assert "a lanes file matching ['my-lanes.yaml']" in message


def test_case_files_without_a_lanes_file_are_an_error(tmp_path: Path) -> None:
    root = make_suite(tmp_path, good=GOOD_CASE)
    (root / "lanes.yaml").unlink()
    assert any("a lanes file matching" in m for m in errors_of(root))

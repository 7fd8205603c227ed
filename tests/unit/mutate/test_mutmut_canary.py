"""Canary for mutmut internals: an upgrade that changes what mutmut generates, how it numbers
mutants, or how the trampoline switches between them must fail here, loudly, before it can
turn every mutant of a real run into a silent survivor."""

from __future__ import annotations

import multiprocessing
import os
import sys
import types

import pytest

from harness._mutate import mutmut_adapter as adapter

SOURCE = '''\
LIMIT = 3


def add(a, b):
    return a + b


class Box:
    def big(self, x):
        if x > LIMIT and not x == 7:
            return "big"
        return x * 2
'''

# what mutmut 3.8.1 generates for SOURCE, in its numbering order
EXPECTED = [
    ("add", 1, "a + b", "a - b"),
    ("Box.big", 1, "x > LIMIT and not x == 7", "x > LIMIT or not x == 7"),
    ("Box.big", 2, " > LIMIT", " >= LIMIT"),
    ("Box.big", 3, "not x == 7", "x == 7"),
    ("Box.big", 4, " == 7", " != 7"),
    ("Box.big", 5, "7", "8"),
    ("Box.big", 6, '"big"', '"XXbigXX"'),
    ("Box.big", 7, '"big"', '"BIG"'),
    ("Box.big", 8, "x * 2", "x / 2"),
    ("Box.big", 9, "2", "3"),
]


def _load(code: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(code, f"<{name}>", "exec"), module.__dict__)
    return module


@pytest.fixture
def generated() -> adapter.GeneratedFile:
    return adapter.generate("canary.py", SOURCE)


def test_the_installed_mutmut_is_the_version_the_adapter_was_written_for() -> None:
    assert adapter.mutmut_version() == adapter.EXPECTED_VERSION


def test_mutmut_generates_exactly_the_known_operator_mutants(generated: adapter.GeneratedFile) -> None:
    got = [(e.function, e.number, e.original, e.replacement) for e in generated.edits]
    assert got == EXPECTED


def test_every_edit_changes_the_source_at_its_line(generated: adapter.GeneratedFile) -> None:
    for edit in generated.edits:
        before, after = SOURCE.splitlines(), edit.mutated.splitlines()
        assert [i + 1 for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b] == [edit.line]


def test_the_trampoline_switches_to_each_mutant_and_back(generated: adapter.GeneratedFile) -> None:
    module = _load(generated.code, "canary_mod")
    try:
        assert module.add(2, 3) == 5
        assert adapter.known_switch_ids(module) == {
            adapter.mutant_switch_id("canary_mod", e.mangled, e.number) for e in generated.edits}
        adapter.activate(adapter.mutant_switch_id("canary_mod", "x_add", 1))
        assert module.add(2, 3) == -1
        adapter.activate(adapter.mutant_switch_id("canary_mod", "xǁBoxǁbig", 6))
        assert module.Box().big(5) == "XXbigXX"
        assert module.add(2, 3) == 5  # another function's mutant leaves add alone
        adapter.activate(None)
        assert module.Box().big(5) == "big"
        assert "MUTANT_UNDER_TEST" not in os.environ
    finally:
        adapter.activate(None)
        del sys.modules["canary_mod"]


def test_each_trampolined_mutant_behaves_like_its_edit_applied_to_the_source(
        generated: adapter.GeneratedFile) -> None:
    module = _load(generated.code, "canary_eq")
    try:
        for edit in generated.edits:
            plain = _load(edit.mutated, "canary_plain")
            adapter.activate(adapter.mutant_switch_id("canary_eq", edit.mangled, edit.number))
            for x in (0, 3, 5, 7, 9):
                assert module.Box().big(x) == plain.Box().big(x), edit
                assert module.add(x, 2) == plain.add(x, 2), edit
    finally:
        adapter.activate(None)
        sys.modules.pop("canary_eq", None)
        sys.modules.pop("canary_plain", None)


def test_the_environment_variable_wins_over_the_process_local_mutant(
        generated: adapter.GeneratedFile, monkeypatch: pytest.MonkeyPatch) -> None:
    module = _load(generated.code, "canary_env")
    try:
        adapter.activate(adapter.mutant_switch_id("canary_env", "x_add", 1))
        monkeypatch.setenv("MUTANT_UNDER_TEST", "")  # undone after the test: later tests see no mutant
        assert module.add(2, 3) == 5
    finally:
        adapter.activate(None)
        del sys.modules["canary_env"]


def test_class_level_statements_are_skipped_like_module_level_code() -> None:
    """A dataclass field's default or a class constant is marked by mutmut with the statement
    itself, not a function; mutmut never trampolines it, so neither may the adapter."""
    source = "class Entry:\n    where_empty: str | None = None\n    LIMIT = 3\n\n    def m(self):\n        return 1\n"
    edits = adapter.generate("entry.py", source).edits
    assert [(e.function, e.original, e.replacement) for e in edits] == [("Entry.m", "1", "2")]


def test_original_names_are_recovered_from_mangled_attributes() -> None:
    assert adapter.original_function_name("x_add__mutmut_orig") == "add"
    assert adapter.original_function_name("Box.xǁBoxǁbig__mutmut_orig") == "Box.big"
    assert adapter.original_function_name("x_add__mutmut_3") is None
    assert adapter.original_function_name("helper") == "helper"


def test_a_function_filter_keeps_only_that_functions_mutants() -> None:
    only = adapter.generate("canary.py", SOURCE, frozenset({"add"}))
    assert [e.function for e in only.edits] == ["add"]
    assert "xǁBoxǁbig__mutmut_1" not in only.code


def test_mutated_sources_cut_from_mutmuts_rendering_equal_a_fresh_render() -> None:
    import libcst as cst
    from mutmut.mutation import file_mutation

    edits = adapter.generate("canary.py", SOURCE).edits
    with adapter._quiet_config():
        module, mutations, _c, _f = file_mutation.create_mutations("canary.py", SOURCE)
    mutations = [m for m in mutations if m.contained_by_top_level_function is not None]
    renderer = adapter._Renderer(module, SOURCE)
    assert renderer.exact
    for edit, mutation in zip(edits, mutations, strict=True):
        assert isinstance(mutation.contained_by_top_level_function, cst.FunctionDef)
        slow = renderer.mutated(mutation.contained_by_top_level_function, mutation.original_node,
                                mutation.mutated_node)
        assert edit.mutated == slow


def test_using_the_adapter_imports_no_mutmut_main_and_leaves_the_start_method_as_it_was() -> None:
    """In this process, beside whatever it imported before; a fresh interpreter's view is the
    expensive tier's (tests/e2e/test_mutmut_fresh_interpreter.py)."""
    method = multiprocessing.get_start_method(allow_none=True)
    adapter.generate("c.py", SOURCE)
    adapter.activate(None)
    assert "mutmut.__main__" not in sys.modules
    assert multiprocessing.get_start_method(allow_none=True) == method

"""The evidence for a declared ``equivalent`` in a suite without case files: the calls its pins
make, recorded, replayed on unmutated code and with the mutant on (``harness._mutate.replay``).

In this process: a project module and a pin module written to a folder, the pin called under
the recorder as the engine's warm-up does, the module's function swapped the way a declared
mutant's row swaps it (``exec_in_place``). The whole run is tests/e2e/test_mutate_claims.py."""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness._mutate.coverage import Coverage
from harness._mutate.loader import exec_in_place
from harness._mutate.replay import EquivalenceCheck, Recorder

PICKER = '''def pick(tools, name):
    for tool in tools:
        if tool["name"] == name:
            return tool
    return None


def drop_used(tools):
    tools[:] = [t for t in tools if not t.get("used")]


def unused(tools):
    return tools
'''

PIN = '''import {module}

TOOLS = [{{"name": "search", "v": 1}}, {{"name": "search", "v": 2}}, {{"name": "fetch", "used": True}}]


def test_pick():
    assert {module}.pick(TOOLS, "search")["name"] == "search"
    {module}.drop_used(list(TOOLS))
'''


@pytest.fixture
def project(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Any, Any, Path]]:
    """A project module and a pin module importing it, each named after the test (one import each)."""
    name = f"picker_{request.node.name[-12:].replace('[', '_').replace(']', '')}"
    (tmp_path / f"{name}.py").write_text(PICKER)
    (tmp_path / f"test_{name}.py").write_text(PIN.format(module=name))
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(name), importlib.import_module(f"test_{name}"), tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)
        sys.modules.pop(f"test_{name}", None)


def _recorded(module: Any, pin: Any, root: Path) -> EquivalenceCheck:
    recorder = Recorder({pin.__file__}, str(root))
    with recorder.recording("tests/test_picker.py::test_pick"):
        pin.test_pick()
    coverage = Coverage()
    coverage.add_module(module)
    return EquivalenceCheck.prepare(str(root / "no-suite-here"), coverage, recorder.calls)


def _declared(module: Any, function: str) -> dict[str, Any]:
    return {"module": module.__name__, "function": function, "equivalent": "claimed", "apply": "module",
            "kind": "declared"}


def test_the_pins_calls_are_recorded_with_their_arguments_and_what_each_reaches(project: tuple[Any, Any, Path]) -> None:
    module, pin, root = project
    check = _recorded(module, pin, root)
    assert check.cases is None  # no case files: the pins' calls are all there is
    assert [(c.label, c.pin) for c in check.calls] == [
        (f"{module.__name__}:pick", "tests/test_picker.py::test_pick"),
        (f"{module.__name__}:drop_used", "tests/test_picker.py::test_pick")]
    assert check.calls[0].reach == {f"{module.__name__}:pick"}
    assert check.wants(_declared(module, "pick")) and check.wants(_declared(module, "drop_used"))
    assert not check.wants(_declared(module, "unused"))  # no pin calls it: its claim stays unchecked


def test_a_reordered_find_the_pins_cannot_see_changes_the_output_of_their_own_call(
        project: tuple[Any, Any, Path]) -> None:
    module, pin, root = project
    check = _recorded(module, pin, root)
    path = module.__file__
    exec_in_place(module.__name__, PICKER.replace("for tool in tools:", "for tool in reversed(tools):"), path)
    pin.test_pick()  # the pin still passes: only a reviewer's claim says the order cannot matter
    outcome, extra = check.run(_declared(module, "pick"))
    assert outcome == "failed"
    assert extra["differ"] == [f"{module.__name__}:pick called by tests/test_picker.py::test_pick"]
    assert extra["calls"] == 1 and extra["cases"] == 0


def test_an_in_place_edit_is_an_output_and_a_true_no_op_holds(project: tuple[Any, Any, Path]) -> None:
    module, pin, root = project
    check = _recorded(module, pin, root)
    exec_in_place(module.__name__, PICKER.replace("if not t.get(\"used\")", "if t.get(\"used\")"), module.__file__)
    assert check.run(_declared(module, "drop_used"))[0] == "failed"  # returns None both ways; the list differs
    exec_in_place(module.__name__, PICKER.replace("    return None\n", "    return\n"), module.__file__)
    assert check.run(_declared(module, "pick")) == ("passed", {"differ": [], "count": 0, "cases": 0, "calls": 1})


def test_a_recorded_call_that_does_not_end_when_replayed_is_dropped_and_the_rest_are_kept(
        project: tuple[Any, Any, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from harness._mutate import replay

    module, pin, root = project
    recorder = Recorder({pin.__file__}, str(root))
    with recorder.recording("tests/test_picker.py::test_pick"):
        pin.test_pick()

    def spins(tools: Any) -> None:
        while True:  # its own handler catches Exception, never the deadline
            with contextlib.suppress(Exception):
                tools.clear()

    endless = replay.Call("tests/test_picker.py::test_pick", f"{module.__name__}:spins", spins, ([],), {})
    monkeypatch.setattr(replay, "REPLAY_DEADLINE_S", 0.2)
    coverage = Coverage()
    coverage.add_module(module)
    check = EquivalenceCheck.prepare(str(root / "no-suite-here"), coverage, [endless, *recorder.calls])
    assert [c.label for c in check.calls] == [f"{module.__name__}:pick", f"{module.__name__}:drop_used"]

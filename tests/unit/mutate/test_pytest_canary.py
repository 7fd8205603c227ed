"""A canary per private pytest API the mutation engine uses (harness/_mutate/pinrun.py, engine.py):

- ``_pytest.runner.get_reraise_exceptions`` (exists from pytest 9.0: the reason for the floor);
- ``_pytest.runner.CallInfo.from_call(func, when=, reraise=)``;
- ``_pytest.runner.runtestprotocol(item, nextitem=, log=False)`` (xfail items);
- ``_pytest.outcomes.Skipped`` (what a skip raises);
- ``_pytest.nodes.Node._repr_failure_py`` (patched for one-line failure reports).

An upgrade that renames, moves or changes any of these fails here by name, before it reads as
"every mutant survived". Fix pinrun/engine, then the canary; pyproject's pytest range follows.
"""

from __future__ import annotations

import inspect
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[3]


def test_the_declared_pytest_range_starts_at_the_floor_and_holds_the_installed_one() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    spec = SpecifierSet(next(d for d in project["dependencies"] if d.startswith("pytest"))[len("pytest"):])
    assert "8.4.2" not in spec and "9.0.0" in spec  # 8.x lacks get_reraise_exceptions
    assert pytest.__version__ in spec


def test_get_reraise_exceptions_gives_exit_and_keyboard_interrupt(pytestconfig: pytest.Config) -> None:
    from _pytest.runner import get_reraise_exceptions

    found = get_reraise_exceptions(pytestconfig)
    assert pytest.exit.Exception in found and KeyboardInterrupt in found


def test_callinfo_from_call_takes_when_and_reraise_and_keeps_the_exception() -> None:
    from _pytest.runner import CallInfo

    assert CallInfo is pytest.CallInfo
    assert list(inspect.signature(CallInfo.from_call).parameters) == ["func", "when", "reraise"]
    info = CallInfo.from_call(lambda: 1 / 0, when="call", reraise=(KeyboardInterrupt,))
    assert info.excinfo is not None and info.excinfo.errisinstance(ZeroDivisionError)

    def interrupt() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        CallInfo.from_call(interrupt, when="call", reraise=(KeyboardInterrupt,))


def test_skipped_is_what_pytest_skip_raises() -> None:
    from _pytest.outcomes import Skipped

    assert Skipped is pytest.skip.Exception


def test_repr_failure_py_has_the_signature_the_engine_replaces() -> None:
    from _pytest import nodes

    assert list(inspect.signature(nodes.Node._repr_failure_py).parameters) == ["self", "excinfo", "style"]


_ITEMS = """
import pytest

def test_passes():
    assert True

def test_fails():
    assert 1 == 2

def test_skips():
    pytest.skip("not here")

@pytest.mark.xfail(strict=True)
def test_xfails():
    assert False
"""

class _Probe:
    """Runs the session's items through ``run_item`` (instead of pytest's loop), then renders a
    real failing item's report the way the engine has it render (``_cheap_failures``)."""

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        from harness._mutate.engine import _cheap_failures
        from harness._mutate.pinrun import run_item

        items = session.items
        for i, item in enumerate(items):
            self.seen[item.name] = run_item(item, items[i + 1] if i + 1 < len(items) else None)
        _cheap_failures()
        failing = next(it for it in items if it.name == "test_fails")
        try:
            failing.runtest()
        except AssertionError:
            self.seen["repr"] = str(failing.repr_failure(pytest.ExceptionInfo.from_current()))
        return True


def test_run_item_reads_pass_fail_skip_and_xfail_through_the_private_runner(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole private chain, on a real pytest session (pytester, in this process)."""
    from _pytest import nodes

    # _cheap_failures replaces it for the rest of the process, as in the engine's child: put it back after
    monkeypatch.setattr(nodes.Node, "_repr_failure_py", nodes.Node._repr_failure_py)
    pytester.makepyfile(test_items=textwrap.dedent(_ITEMS))
    probe = _Probe()
    pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:hypothesispytest",
                                 "-o", "addopts=",
                                 "--assert=plain", plugins=[probe])
    seen = probe.seen
    assert {k: seen.get(k) for k in ("test_passes", "test_fails", "test_skips", "test_xfails")} == {
        "test_passes": "passed", "test_fails": "failed", "test_skips": "skipped", "test_xfails": "skipped"}
    assert seen["repr"].startswith("AssertionError") and "\n" not in seen["repr"].strip()

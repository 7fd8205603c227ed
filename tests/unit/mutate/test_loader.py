"""Declared mutants run by executing the changed source as the live module: every holder of an
old function or class (a `from m import f`, a cache of resolved callables, a trampoline) must
run the mutant, and classes keep their identity so isinstance still holds."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest

from harness._mutate import mutmut_adapter as adapter
from harness._mutate.loader import exec_in_place

SITE = '''\
LIMITS = ("a", "b")


def f(x):
    return x + 1


class Box:
    def size(self):
        return 1
'''


@pytest.fixture
def modules() -> Iterator[tuple[types.ModuleType, types.ModuleType]]:
    site = types.ModuleType("site_under_test")
    sys.modules["site_under_test"] = site
    exec(compile(SITE, "site_under_test.py", "exec"), site.__dict__)
    user = types.ModuleType("user_of_site")
    sys.modules["user_of_site"] = user
    exec("from site_under_test import f, Box, LIMITS\ncache = {'f': f}\n", user.__dict__)
    yield site, user
    del sys.modules["site_under_test"], sys.modules["user_of_site"]


def test_every_holder_of_a_changed_function_runs_the_mutant(modules: tuple[types.ModuleType, ...]) -> None:
    site, user = modules
    box = site.Box()
    exec_in_place("site_under_test", SITE.replace("x + 1", "x - 1").replace("return 1", "return 2")
                  .replace('("a", "b")', '("a",)'), "mutant.py")
    assert site.f(1) == 0 and user.f(1) == 0 and user.cache["f"](1) == 0
    assert isinstance(box, user.Box) and box.size() == 2
    assert user.LIMITS == ("a",)


def test_a_change_that_does_not_import_raises(modules: tuple[types.ModuleType, ...]) -> None:
    with pytest.raises(ModuleNotFoundError):
        exec_in_place("site_under_test", "import no_such_module_xyz\n" + SITE, "mutant.py")


def test_a_trampolined_function_is_retargeted_not_replaced() -> None:
    generated = adapter.generate("site_under_test.py", SITE)
    site = types.ModuleType("site_under_test")
    sys.modules["site_under_test"] = site
    try:
        exec(compile(generated.code, "site_under_test.py", "exec"), site.__dict__)
        trampoline = site.f
        held = {"f": trampoline}
        exec_in_place("site_under_test", SITE.replace("x + 1", "x * 10"), "mutant.py")
        assert site.f is trampoline and held["f"](2) == 20
        assert site.Box().size() == 1
    finally:
        del sys.modules["site_under_test"]

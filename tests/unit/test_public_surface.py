"""The public surface: what ``__all__`` promises exists, and every module declares one."""

from __future__ import annotations

import importlib
import pkgutil

import harness
from harness.exitcodes import ExitCode, combine


def all_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(harness.__path__, "harness.")
                  if m.name not in ("harness.__main__",))


def test_every_name_in_the_package_all_is_importable() -> None:
    for name in harness.__all__:
        assert hasattr(harness, name), name


def test_every_module_declares_all_and_each_name_exists() -> None:
    missing, broken = [], []
    for name in all_modules():
        module = importlib.import_module(name)
        if not hasattr(module, "__all__"):
            missing.append(name)
            continue
        broken += [f"{name}.{n}" for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"modules without __all__: {missing}"
    assert not broken, f"__all__ names that do not exist: {broken}"


def test_exit_codes_are_the_documented_numbers() -> None:
    assert {c.name: int(c) for c in ExitCode} == {
        "OK": 0, "DIVERGENCE": 1, "BAD_INPUT": 2, "KNOWN_REJECTION": 3, "MUTANTS_ESCAPED": 4, "DRIFT": 5,
        "INTERNAL": 70, "INTERRUPTED": 130, "TERMINATED": 143,
    }


def test_the_lowest_non_zero_exit_code_wins() -> None:
    assert combine(ExitCode.OK, ExitCode.MUTANTS_ESCAPED, ExitCode.KNOWN_REJECTION) == ExitCode.KNOWN_REJECTION
    assert combine(ExitCode.OK, ExitCode.OK) == ExitCode.OK


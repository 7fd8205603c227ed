"""Which ``.py`` files of a suite folder hold tests, by the project's own pytest naming.

A ported review keeps its pin module as it was: ``review_pins.py`` with ``check_*`` functions is
a test module when the project's pytest configuration says ``python_files = review_*.py`` and
``python_functions = check_*``. The settings are read as pytest reads them (its own
``determine_setup``: the first of pytest.ini, .pytest.ini, pyproject.toml, tox.ini, setup.cfg
that configures pytest, from the suite folder upward), so ``harness run`` finds the Python pins
that plain ``pytest`` and ``harness mutate`` collect. A file holds tests when its name matches
``python_files`` and it defines a function matching ``python_functions`` or a class matching
``python_classes`` (found by reading the source, not importing it: over-approximate on purpose,
since a file only looking like a test costs one pytest child while a missed one would lose pins).
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT", "Naming", "naming", "pin_files", "py_files", "skipped_dir"]

# pytest's default norecursedirs
_NORECURSE = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")
_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)", re.M)
_CLASS = re.compile(r"^[ \t]*class[ \t]+(\w+)", re.M)


@dataclass(frozen=True)
class Naming:
    """pytest's ``python_files``, ``python_functions`` and ``python_classes`` for a folder."""

    files: tuple[str, ...]
    functions: tuple[str, ...]
    classes: tuple[str, ...]


DEFAULT = Naming(("test_*.py", "*_test.py"), ("test",), ("Test",))


def _values(config: Any, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """An ini value as pytest splits it: a TOML list as it is, an ini string on whitespace."""
    value = getattr(config.get(key), "value", config.get(key))
    if value is None:
        return default
    return tuple(map(str, value)) if isinstance(value, list) else tuple(str(value).split())


def naming(folder: Path, rootdir: Path) -> Naming:
    """The naming pytest uses for tests under ``folder``, run from ``rootdir`` (the project root)."""
    import pytest
    from _pytest.config.findpaths import determine_setup  # private: its canary is in tests/unit/pins/test_collect.py

    try:
        _, _, config, _ = determine_setup(inifile=None, override_ini=None, args=[str(folder)],
                                          rootdir_cmd_arg=str(rootdir), invocation_dir=rootdir)
    except pytest.UsageError:  # a configuration pytest refuses: the pins' own pytest run will say why
        return DEFAULT
    return Naming(_values(config, "python_files", DEFAULT.files),
                  _values(config, "python_functions", DEFAULT.functions),
                  _values(config, "python_classes", DEFAULT.classes))


def skipped_dir(folder: Path) -> bool:
    """A folder pytest does not enter by default (``norecursedirs``, or a virtualenv)."""
    return any(fnmatch.fnmatch(folder.name, pattern) for pattern in _NORECURSE) or (folder / "pyvenv.cfg").is_file()


def py_files(root: Path) -> Iterator[Path]:
    """Every ``.py`` file below ``root``, in order, past the folders pytest never enters."""
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if not skipped_dir(here / d))
        yield from (here / f for f in sorted(files) if f.endswith(".py"))


def _file_matches(path: Path, patterns: Sequence[str]) -> bool:
    """pytest's ``fnmatch_ex``: a pattern without a slash matches the name, else the path."""
    return any(fnmatch.fnmatch(path.name, p) if "/" not in p else fnmatch.fnmatch(path.as_posix(), f"*/{p}")
               for p in patterns)


def _name_matches(name: str, options: Sequence[str]) -> bool:
    """pytest's rule for python_functions/python_classes: a prefix, or a glob."""
    return any(name.startswith(o) or (any(c in o for c in "*?[") and fnmatch.fnmatch(name, o)) for o in options)


def _defines_tests(source: str, names: Naming) -> bool:
    return (any(_name_matches(m, names.functions) for m in _DEF.findall(source))
            or any(_name_matches(m, names.classes) for m in _CLASS.findall(source)))


def pin_files(folder: Path, names: Naming) -> list[Path]:
    """The files under ``folder`` pytest would collect tests from, by ``names``."""
    found = []
    for path in py_files(folder):
        if not _file_matches(path, names.files) or path.name == "conftest.py":
            continue
        try:
            if _defines_tests(path.read_text(encoding="utf-8", errors="replace"), names):
                found.append(path)
        except OSError:
            found.append(path)  # unreadable here: pytest will say what it makes of it
    return found

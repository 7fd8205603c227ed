"""What ``pytest <suite folder>`` with the pins plugin would collect, found without pytest.

``case_items``: every case-file item (``expect`` and each pin of a case x lane) with the node id
the plugin gives it, in collection order. It follows pytest's walk: case files named
``*.cases.yaml`` inside the suite folder, none under a folder pytest does not enter by default
(``norecursedirs``: ``build``, ``dist``, ``node_modules``, ``venv``, dot-folders, ... and any
virtualenv).

``python_pin_files``: whether the suite folder holds Python pins, i.e. a ``.py`` file (walked the
same way) that pytest would collect tests from, by the project's own ``python_files``,
``python_functions`` and ``python_classes`` (``harness._common.pytest_names``). Over-approximate
on purpose: a file only looking like a test costs one pytest child; a missed one would lose pins.

``item_hooks``: the ``conftest.py`` files pytest would load for the suite (in the suite folder,
or in a folder between the project root and it) that may act on case-file items: one defining a
``pytest_*`` hook or naming a plugin in ``pytest_plugins`` (other than the harness's own). Such a
conftest could skip, mark or rerun items, which only pytest does: the pin stage then runs every
item through pytest, as it did before the in-process evaluation. Fixtures alone do not count, nor
do the hooks that only add options, print or size xdist's pool (``_INERT_HOOKS``): a project
conftest choosing ``-n auto``'s worker count sent the bundled suite's 1,177 items through pytest.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness._common.pytest_names import naming, pin_files, py_files, skipped_dir
from harness._model import Case, PinSpec, Suite
from harness._pins.ids import node_root

__all__ = ["CaseItem", "case_items", "case_lanes", "item_hooks", "python_pin_files"]

_HOOK_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(?P<name>pytest_\w+)", re.M)
_INERT_HOOKS = re.compile(r"pytest_(?:addoption|addhooks|report_header|report_collectionfinish|terminal_summary"
                          r"|xdist_\w+)")
"""Hooks that cannot skip, mark, rerun or judge an item: they add options, print, or set up xdist."""
_PLUGINS = re.compile(r"^pytest_plugins\s*=\s*(?P<value>.+)$", re.M)


@dataclass(frozen=True)
class CaseItem:
    """One case-file item: ``pin`` is None for the case x lane's ``expect`` item."""

    nodeid: str
    case: Case
    lane_id: str
    pin: PinSpec | None = None


def _entered(root: Path, path: Path) -> bool:
    """Whether pytest, walking from ``root``, reaches ``path`` (a file under it)."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return False
    folder = root
    for part in rel.parts[:-1]:
        folder = folder / part
        if skipped_dir(folder):
            return False
    return True


def _nodeid_file(path: Path, rootdir: Path) -> str:
    return Path(os.path.relpath(path, rootdir)).as_posix()


def _wanted(value: str, globs: Sequence[str] | None) -> bool:
    return not globs or any(fnmatch.fnmatchcase(value, g) for g in globs)


def case_lanes(suite: Suite, path: Path, cases: Sequence[str] | None = None,
               lanes: Sequence[str] | None = None) -> Iterator[tuple[Case, str]]:
    """The (case, lane id) pairs of the case file ``path`` the plugin collects, in suite order,
    limited by the ``--harness-cases`` / ``--harness-lanes`` globs."""
    root, path = Path(suite.root), path.resolve()
    for case in suite.cases:
        if (root / case.file).resolve() == path and _wanted(case.id, cases):
            yield from ((case, lane_id) for lane_id in case.lanes if _wanted(lane_id, lanes))


def _of_lane(head: str, case: Case, lane_id: str) -> list[CaseItem]:
    """A case x lane's items: its ``expect``, then each of its pins on that lane."""
    pins = [pin for pin in case.pins if lane_id in pin.lanes]
    return [CaseItem(f"{head}[{lane_id}]::expect", case, lane_id),
            *(CaseItem(f"{head}[{lane_id}]::{pin.name}", case, lane_id, pin) for pin in pins)]


def case_items(suite: Suite, rootdir: Path, cases: Sequence[str] | None = None,
               lanes: Sequence[str] | None = None) -> list[CaseItem]:
    """The plugin's items for ``suite``, node ids relative to ``rootdir`` (``ids.node_root``),
    limited by the ``--harness-cases`` / ``--harness-lanes`` globs."""
    root, rootdir = Path(suite.root).resolve(), rootdir.resolve()
    items: list[CaseItem] = []
    for case in suite.cases:
        path = (root / case.file).resolve()
        if path.name.endswith(".cases.yaml") and _entered(root, path) and _wanted(case.id, cases):
            head = f"{_nodeid_file(path, rootdir)}::{case.id}"
            for lane_id in (lane for lane in case.lanes if _wanted(lane, lanes)):
                items += _of_lane(head, case, lane_id)
    return items


def python_pin_files(suite: Suite) -> list[Path]:
    """The suite folder's ``.py`` files pytest would collect tests from (see the module
    docstring), by the naming of the project root the pins' pytest runs in."""
    root = Path(suite.root)
    return pin_files(root, naming(root, node_root(suite)))


def _acts_on_items(conftest: Path) -> bool:
    try:
        text = conftest.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True  # unreadable here: let pytest say what it makes of it
    if any(not _INERT_HOOKS.fullmatch(hook["name"]) for hook in _HOOK_DEF.finditer(text)):
        return True
    named = _PLUGINS.search(text)
    return named is not None and re.sub(r"[\s\[\]()\"',]|harness\.pins\.plugin", "", named["value"]) != ""


def item_hooks(suite: Suite, rootdir: Path) -> list[Path]:
    """The conftest files that may act on case-file items (see the module docstring)."""
    root = Path(suite.root).resolve()
    above = [root, *root.parents]
    rootdir = rootdir.resolve()
    folders = above[: above.index(rootdir) + 1] if rootdir in above else [root]
    found = [f / "conftest.py" for f in folders if (f / "conftest.py").is_file()]
    found += [p for p in py_files(root) if p.name == "conftest.py" and p.parent != root]
    return [p for p in found if _acts_on_items(p)]

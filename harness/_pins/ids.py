"""One id per pin: the node-id root, pin groups and the named pin sets of ``suite.yaml``.

Every pin's node id is relative to the *project root*: ``mutation.root`` when the suite sets it,
else the nearest folder at or above the suite holding ``pyproject.toml``, ``setup.cfg`` or
``.git`` (the suite folder itself when there is none). ``harness run``, ``harness mutate`` and
plain ``pytest`` started there all name a pin the same way, in every section of report.json.

A pin set (``pin_sets: {r2: [refs...]}``) lists pins in the forms ledger ``killed_by`` accepts
(``harness._pins.killed_by``); ``--harness-pins r2`` keeps only the items a ref names. A ref
naming no collected item is an error, never an empty round.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness._common.files import project_root
from harness._errors import InputError, Place
from harness._model import Suite
from harness._pins.killed_by import resolve

__all__ = ["node_root", "pin_set", "select_set", "suite_prefix"]


def node_root(suite: Suite) -> Path:
    """The folder every node id of ``suite`` is relative to (see the module docstring)."""
    root = suite.settings.mutation.get("root")
    return (Path(suite.root) / str(root)).resolve() if root else project_root(Path(suite.root).resolve())


def suite_prefix(suite: Suite, root: Path) -> str:
    """The suite folder relative to ``root`` with a trailing slash ('' when it is ``root``)."""
    try:
        rel = Path(suite.root).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return ""
    return "" if rel == "." else rel + "/"


def pin_set(suite: Suite, name: str) -> list[str]:
    """The refs of the pin set ``name``; an unknown name is an InputError naming the known ones."""
    sets = suite.settings.pin_sets
    if name not in sets:
        known = ", ".join(sorted(sets)) or "none (suite.yaml has no pin_sets)"
        raise InputError(Place("suite.yaml", None, "pin_sets"), f"a pin set of suite {suite.name} ({known})",
                         repr(name))
    return [str(ref) for ref in sets[name]]


def select_set(suite: Suite, name: str, nodeids: Sequence[str], prefix: str) -> list[str]:
    """The node ids the set ``name`` names, in collection order; a ref naming none is an error."""
    chosen: set[str] = set()
    for i, ref in enumerate(pin_set(suite, name)):
        hits = resolve(ref, nodeids, prefix)
        if not hits:
            raise InputError(Place("suite.yaml", None, f"pin_sets.{name}[{i}]"),
                             "a pin reference matching a collected pin", repr(ref))
        chosen.update(hits)
    return [n for n in nodeids if n in chosen]

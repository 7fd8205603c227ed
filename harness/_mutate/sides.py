"""Pipelines outside the engine's process, as the mutation engine sees them.

A side that is a command (any language) or a callable in another interpreter cannot be mutated
in memory: its mutant is a changed file in the row's tree. In a row's child this module

- forgets the pipelines inherited from the parent (their processes belong to the parent and run
  the unmutated code) without closing them;
- points every side's ``PipelineSpec`` at the row's tree when the row works in its own copy
  (copy mode; in overlay mode the tree is at the scratch's own path, nothing moves);
- writes the mutated file and runs each side's ``setup`` there, incrementally: the row's tree
  starts from the scratch after the unmutated build, so only what the change touches rebuilds.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from harness._model import PipelineSpec, Subject, Suite

__all__ = ["apply_file", "external_specs", "fixed_specs", "forget_pipelines", "play_fixed", "rebuild", "reroot",
           "reroot_suites", "run_setups", "spec_document", "suites"]

_TUPLES = ("command", "path", "requirements", "find_links")


def spec_document(spec: PipelineSpec) -> dict[str, Any]:
    """``spec`` as plain JSON values (plan.json), read back by ``_spec_from``."""
    return {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}


def _spec_from(raw: dict[str, Any]) -> PipelineSpec:
    values: dict[str, Any] = {k: tuple(v) if k in _TUPLES else v for k, v in raw.items()}
    values["env"] = tuple((str(k), str(v)) for k, v in raw.get("env", ()))
    return PipelineSpec(**values)


_fixed: set[PipelineSpec] = set()


def fixed_specs() -> frozenset[PipelineSpec]:
    """The sides this engine plays from a git revision (``play_fixed``): no mutant reaches them."""
    return frozenset(_fixed)


def play_fixed(fixed: dict[str, dict[str, dict[str, Any]]], items: Sequence[Any] = ()) -> None:
    """Play each subject's sides named in ``fixed`` (by subject and side, from plan.json) as the
    run did: ``harness run --old-ref`` plays the old side from a worktree of the revision, and the
    engine's pins, loaded from the working tree, must read that side too (``items``: the
    collected pins, which hold their suite)."""
    _fixed.clear()
    if not fixed:
        return
    loaded = suites()
    moved: dict[int, Suite] = {}
    for key, suite in list(loaded.items()):
        subjects = {name: _played(subject, fixed.get(name, {})) for name, subject in suite.subjects.items()}
        loaded[key] = moved.setdefault(id(suite), dataclasses.replace(suite, subjects=subjects))
    _hand_to_items(moved, items)


def _played(subject: Subject, sides: dict[str, dict[str, Any]]) -> Subject:
    if not sides:
        return subject
    specs = {role: subject.pipeline(role) for role in ("old", "new")}
    for side, raw in sides.items():
        specs[side] = _spec_from(raw)
        _fixed.add(specs[side])
    return dataclasses.replace(subject, pipelines={**subject.pipelines, **specs})


def _hand_to_items(moved: dict[int, Suite], items: Sequence[Any]) -> None:
    """Every collected pin (or collector above it) holding a suite in ``moved`` holds its new one."""
    for item in items:  # a pin reads the suite its collector holds (the case x lane node)
        node = item
        while node is not None:
            held = getattr(node, "suite", None)
            if held is not None and id(held) in moved:
                node.suite = moved[id(held)]
            node = getattr(node, "parent", None)


def suites() -> dict[str, Suite]:
    """The suites the pins plugin loaded in this process (by folder), empty without it."""
    cache = sys.modules.get("harness._pins.cache")
    loaded = getattr(cache, "_suites", None)
    return loaded if isinstance(loaded, dict) else {}


def external_specs() -> Iterator[PipelineSpec]:
    """Every side of the loaded suites that runs outside this process, once each."""
    seen: set[PipelineSpec] = set()
    for suite in suites().values():
        for subject in suite.subjects.values():
            for role in ("old", "new"):
                spec = subject.pipeline(role)
                if not spec.in_process and spec not in seen:
                    seen.add(spec)
                    yield spec


def forget_pipelines() -> None:
    """A fresh table of open pipelines for this child; the parent's children are left alone
    (closing them from here would shut them down for the parent and every other row)."""
    cache = sys.modules.get("harness._pins.cache")
    if cache is None:
        return
    from harness._differential.unit import Pipelines

    cache._pipes = Pipelines()  # type: ignore[attr-defined]


def _moved(value: str | None, old: Path, new: Path) -> str | None:
    if value is None:
        return None
    p = Path(value)
    if p.is_absolute() and p.is_relative_to(old):
        return str(new / p.relative_to(old))
    return value


def reroot(spec: PipelineSpec, old: Path, new: Path) -> PipelineSpec:
    """The same pipeline, with every path under ``old`` moved under ``new``."""
    return dataclasses.replace(
        spec, cwd=_moved(spec.cwd, old, new), root=_moved(spec.root, old, new),
        python=_moved(spec.python, old, new), path=tuple(str(_moved(p, old, new)) for p in spec.path),
        command=tuple(str(_moved(a, old, new)) for a in spec.command),
    )


def _rerooted_subject(subject: Subject, old: Path, new: Path) -> Subject:
    if not subject.pipelines:
        return subject
    moved = {role: reroot(spec, old, new) for role, spec in subject.pipelines.items()}
    return dataclasses.replace(subject, pipelines=moved)


def reroot_suites(old: Path, new: Path, items: Sequence[Any] = ()) -> None:
    """Point every loaded suite's sides at ``new`` (the row's own copy of the scratch), in the
    pins plugin's table and in every collected pin (or collector above it) holding its suite."""
    loaded = suites()
    moved: dict[int, Suite] = {}
    for key, suite in list(loaded.items()):
        subjects = {name: _rerooted_subject(s, old, new) for name, s in suite.subjects.items()}
        loaded[key] = moved.setdefault(id(suite), dataclasses.replace(suite, subjects=subjects))
    _hand_to_items(moved, items)


def run_setups(fresh: bool, stamps: Path | None = None) -> str | None:
    """Each external side's setup (once per folder and command); a sentence when one fails.
    ``fresh``: forget which setups this process already ran (a row's tree has changed).
    ``stamps``: a folder remembering the setups done in this tree (the unmutated build of a
    sandbox a ``--resume`` reuses is not paid again); never for a row's tree."""
    import hashlib

    from harness._errors import SubjectError
    from harness._pipeline import setup

    if fresh:
        setup._done.clear()
    for spec in external_specs():
        digest = hashlib.sha256(f"{spec.cwd or spec.root}\0{spec.setup}".encode()).hexdigest()[:16]
        try:
            setup.prepare(spec, stamp=stamps / f"{digest}.done" if stamps is not None else None)
        except SubjectError as exc:
            return f"the setup does not build the mutant: {exc}"
    return None


def rebuild(command: str, tree: Path) -> str | None:
    """The suite's ``mutation.rebuild`` in the row's tree; a sentence when it fails."""
    if not command:
        return None
    from harness._pipeline.setup import SETUP_TIMEOUT_S

    try:
        proc = subprocess.run(command, shell=True, cwd=tree, capture_output=True, text=True,
                              timeout=SETUP_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"the rebuild {command!r} did not end within {SETUP_TIMEOUT_S:g} s"
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip()[-1500:]
        return f"the rebuild {command!r} does not build the mutant (exit code {proc.returncode}): {tail}"
    return None


def apply_file(m: dict[str, Any], tree: Path, scratch: Path, items: Sequence[Any] = (),
               rebuild_with: str | None = None) -> str | None:
    """Write mutant ``m``'s file into ``tree``, move the sides there (``items``: the collected
    pins, which hold their suite), run the suite's ``rebuild`` there, else the sides' setups."""
    source = Path(m["source_path"]).read_text(encoding="utf-8")
    target = tree / m["file"]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source, encoding="utf-8")
    if tree != scratch:
        reroot_suites(scratch, tree, items)
    forget_pipelines()
    if rebuild_with is not None:
        return rebuild(rebuild_with, tree)
    return run_setups(fresh=True)

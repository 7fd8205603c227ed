"""Pipelines from a git revision: ``harness run --old-ref REV [--new-ref REV]``.

The pre-merge job in one command: the pull request's own case files (the working tree), the
base commit's pipelines as ``old``. For a revision the harness

1. resolves REV in the repository holding the suite (a bad ref is exit 2 naming it);
2. checks it out once as a git worktree in the cache, ``$HARNESS_CACHE`` or
   ``${XDG_CACHE_HOME:-~/.cache}/wire-harness``, under ``revisions/<repo>/worktrees/<tree hash>``
   (a second run, or another commit with the same tree, reuses the folder once ``git status``
   shows it unchanged; a changed one is made again; hooks and filter drivers never run:
   ``harness._revisions.worktrees``). Outside the repository on purpose: a worktree inside it
   would hold a second copy of every case file, which a suite's ``**/*.cases.yaml`` glob would find;
3. runs each side's ``setup`` there once, remembered by tree hash in ``.../setup/`` (a second
   run does not rebuild);
4. points the subject's pipeline declaration at that tree. The side played there is the
   subject's ``new`` declaration: "the pipeline as it was at REV" against "the pipeline now".

An in-process Python side (``module:function``) cannot import a second copy of the same module
names into the harness's process, so at a revision it runs in another interpreter
(``sys.executable``) over the pipeline protocol, with ``PYTHONPATH`` = the worktree's suite
folder, the worktree root, and its ``src/`` when present. PYTHONPATH entries come before
site-packages on ``sys.path``, so a package the user installed from this repository (``pip
install -e .``, a path in a ``.pth`` file or an editable finder, which Python consults after the
path entries) is imported from the worktree, not from the working tree. A command side keeps its
argv; its ``cwd``, ``path`` entries and absolute arguments inside the repository move into the
worktree (an interpreter path moves only when the worktree has it: a git-ignored ``.venv`` stays).
A side already in another interpreter (``python:`` + ``call:``) keeps its declared ``path``
(moved) first, then gets the same three folders.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from harness._common import supervise
from harness._errors import ConfigError
from harness._model import PipelineSpec, Side, Subject, Suite
from harness._pipeline.setup import prepare
from harness._plugins import distribution_folders
from harness._revisions.worktrees import GIT_TIMEOUT_S, cache_root, locked, repo_cache, worktree

__all__ = ["Revision", "at_revisions", "cache_root", "checkout", "repo_of", "side_at"]


@dataclass(frozen=True)
class Revision:
    """One revision checked out: what the user named, what it is, and where it lives."""

    ref: str
    sha: str
    tree: str
    repo: Path
    folder: Path

    def move(self, path: str | None, *, only_if_there: bool = False) -> str | None:
        """``path`` inside the repository, moved to the same place inside this revision's tree."""
        if path is None:
            return None
        try:
            rel = Path(path).resolve().relative_to(self.repo)
        except ValueError:
            return path  # outside the repository: the same for every revision
        moved = self.folder / rel
        if only_if_there and not moved.exists():
            return path
        return str(moved)

    def label(self) -> str:
        return f"{self.ref} ({self.sha[:12]})"


def _git(repo: Path, *args: str) -> supervise.Finished:
    return supervise.run(["git", "-C", str(repo), *args], timeout=GIT_TIMEOUT_S, cap=64 << 10)


def repo_of(suite_root: Path, flag: str) -> Path:
    done = _git(suite_root, "rev-parse", "--show-toplevel")
    if done.code != 0:
        raise ConfigError(flag, str(suite_root), "a suite folder inside a git repository (git rev-parse failed: "
                          f"{done.tail(300)})")
    return Path(done.stdout.decode().strip()).resolve()


def _resolve(repo: Path, ref: str, flag: str) -> tuple[str, str]:
    """The commit and tree REV names; ConfigError (exit 2) naming REV when it names none."""
    if ref.startswith("-"):  # never let a ref be read as an option of git
        raise ConfigError(flag, ref, f"a git revision of {repo}")
    sha = _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    tree = _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{tree}}")
    if sha.code != 0 or tree.code != 0:
        raise ConfigError(flag, ref, f"a git revision of {repo} (a commit, branch or tag git can resolve)")
    return sha.stdout.decode().strip(), tree.stdout.decode().strip()


def checkout(repo: Path, ref: str, flag: str) -> Revision:
    """REV as a worktree in the cache, made on first use and reused while unchanged."""
    sha, tree = _resolve(repo, ref, flag)
    return Revision(ref, sha, tree, repo, worktree(repo, ref, sha, tree, flag))


def _tree_path(root: str, rev: Revision) -> list[str]:
    """The folders a Python side at ``rev`` imports from: its suite folder, the tree's root, its
    ``src/`` when present (where a package installed from this repository lives), and each
    distribution folder under the root (the built-in subjects' ``subjects/``)."""
    src = rev.folder / "src"
    nested = [str(d) for d in distribution_folders(rev.folder)]
    return [root, str(rev.folder), *([str(src)] if src.is_dir() else []), *nested]


def side_at(spec: PipelineSpec, rev: Revision) -> PipelineSpec:
    """``spec`` as it runs from ``rev``'s tree (see the module's docstring)."""
    root = rev.move(spec.root) or str(rev.folder)
    if spec.in_process:
        return PipelineSpec(kind="python", call=spec.call, python=sys.executable, cwd=root,
                            path=tuple(dict.fromkeys(_tree_path(root, rev))), root=root)
    path = [rev.move(p) or p for p in spec.path]
    if spec.kind == "python":  # another interpreter: its declared folders first, then the tree's
        path += _tree_path(root, rev)
    return dataclasses.replace(spec, root=root, cwd=rev.move(spec.cwd), path=tuple(dict.fromkeys(path)),
                               python=_interpreter_at(spec.python, rev),
                               command=tuple(_argument_at(a, rev) for a in spec.command))


def _interpreter_at(python: str | None, rev: Revision) -> str | None:
    """A side's interpreter named by path, moved into the tree when the tree has it (a virtualenv
    in the repository); one named by command (``python3``) as it is."""
    return rev.move(python, only_if_there=True) if python and "/" in python else python


def _argument_at(arg: str, rev: Revision) -> str:
    """A command's absolute path argument moved into the tree when the tree has it."""
    return (rev.move(arg, only_if_there=True) or arg) if arg.startswith("/") else arg


def _setup(spec: PipelineSpec, rev: Revision, cache: Path) -> PipelineSpec:
    """Run the side's setup in the revision's tree once per tree; the spec returned has none
    left to run."""
    if not spec.setup:
        return spec
    where = Path(spec.cwd or spec.root or rev.folder)
    rel = where.relative_to(rev.folder).as_posix() if where.is_relative_to(rev.folder) else str(where)
    digest = hashlib.sha256(f"{rel}\0{spec.setup}\0{sorted(spec.env)}".encode()).hexdigest()[:16]
    prepare(spec, stamp=cache / "setup" / f"{rev.tree}-{digest}.done")
    return dataclasses.replace(spec, setup=None)


def at_revisions(suite: Suite, old_ref: str | None, new_ref: str | None = None) -> tuple[Suite, dict[str, str]]:
    """``suite`` with its subjects' sides played from the named revisions; the case files stay
    the suite's own. Returns the suite and ``{side: sha}`` for the report."""
    named: tuple[tuple[Side, str | None], ...] = (("old", old_ref), ("new", new_ref))
    refs: dict[Side, str] = {side: ref for side, ref in named if ref}
    if not refs:
        return suite, {}
    repo = repo_of(Path(suite.root), f"--{next(iter(refs))}-ref")
    revs = {side: checkout(repo, ref, f"--{side}-ref") for side, ref in refs.items()}
    cache = repo_cache(repo)
    with locked(cache):  # two runs on one checkout build a tree once, not at the same time
        subjects = {name: _subject_at(subject, revs, cache) for name, subject in suite.subjects.items()}
    return dataclasses.replace(suite, subjects=subjects), {side: rev.sha for side, rev in revs.items()}


def _subject_at(subject: Subject, revs: Mapping[Side, Revision], cache: Path) -> Subject:
    """``subject`` with each side named in ``revs`` played by its new pipeline at that revision."""
    sides = {side: subject.pipeline(side) for side in ("old", "new")}
    labels = {"old": subject.old, "new": subject.new}
    for side, rev in revs.items():
        sides[side] = _setup(side_at(subject.pipeline("new"), rev), rev, cache)
        labels[side] = f"{subject.new} at {rev.label()}"
    return dataclasses.replace(subject, old=labels["old"], new=labels["new"], pipelines=sides)

"""The worktree cache of ``--old-ref`` / ``--new-ref``: one git worktree per tree hash, checked
before each use, and removed with ``harness revisions clean``.

A cached worktree plays as the revision, so it must be the revision: before reuse, ``HEAD``'s
tree must be the one asked for and ``git status --porcelain`` must be empty (untracked
``__pycache__/`` folders aside: Python writes them when a side imports from the tree; they are
removed on every reuse, so no crafted bytecode plays) and no file may be hidden from git status
(assume-unchanged, skip-worktree). Anything
else, an edited file, a new file, a staged change, and the worktree is made again, with its setup
(the stamps of its tree are dropped). Setup output is expected to be git-ignored (``node_modules/``,
``target/``, a build log); output that is not makes the tree count as changed on the next run.

Git runs here with the repository's hooks and filter drivers off: ``core.hooksPath`` pointed at
nothing (no ``post-checkout`` hook runs when a worktree is made), every filter driver the
configuration names emptied (no ``smudge``/``clean``/``process`` command runs, and none is
required), ``core.fsmonitor`` off. So a worktree is the committed bytes: a Git LFS file stays its
pointer (docs/real-software.md says so for pre-merge jobs).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from harness._common import supervise
from harness._errors import ConfigError

__all__ = ["GIT_TIMEOUT_S", "Cleaned", "cache_root", "changes", "clean", "clean_all", "made_again", "repo_cache",
           "safe_git", "worktree"]

GIT_TIMEOUT_S = 300.0
_REPO_FILE = "repository"  # in each repository's cache folder: the repository it belongs to


def cache_root() -> Path:
    """``$HARNESS_CACHE``, else ``$XDG_CACHE_HOME/wire-harness``, else ``~/.cache/wire-harness``."""
    if os.environ.get("HARNESS_CACHE"):
        return Path(os.environ["HARNESS_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "wire-harness"


def _filter_drivers(repo: Path) -> list[str]:
    """The filter drivers the repository's configuration (any level) names."""
    done = supervise.run(["git", "-C", str(repo), "config", "--name-only", "--get-regexp", r"^filter\."],
                         timeout=GIT_TIMEOUT_S, cap=64 << 10)
    names = (line.strip() for line in done.stdout.decode("utf-8", "replace").splitlines())
    return sorted({name[len("filter."): name.rindex(".")] for name in names if name.count(".") >= 2})


def _without_hooks_and_filters(repo: Path) -> list[str]:
    """``git -c ...`` settings that keep hooks, filter drivers and fsmonitor from running."""
    settings = ["core.hooksPath=/dev/null", "core.fsmonitor=false"]
    for driver in _filter_drivers(repo):
        settings += [f"filter.{driver}.{key}=" for key in ("smudge", "clean", "process")]
        settings.append(f"filter.{driver}.required=false")
    return [arg for setting in settings for arg in ("-c", setting)]


def safe_git(repo: Path, *args: str, where: Path | None = None, off: Sequence[str] | None = None) -> supervise.Finished:
    """``git`` in ``where`` (default ``repo``) with ``repo``'s hooks and filter drivers off;
    ``off``: those settings as the caller read them for this one operation (a checkout reads the
    configuration once, not once per git command)."""
    settings = _without_hooks_and_filters(repo) if off is None else off
    return supervise.run(["git", *settings, "-C", str(where or repo), *args], timeout=GIT_TIMEOUT_S, cap=64 << 10)


def repo_cache(repo: Path, make: bool = True) -> Path:
    """This repository's folder in the cache: its name, and a hash of its path (two clones of
    one project never share worktrees). It records the repository, for ``clean_all``."""
    cache = cache_root() / "revisions" / f"{repo.name}-{hashlib.sha256(str(repo).encode()).hexdigest()[:12]}"
    if make:
        cache.mkdir(parents=True, exist_ok=True)
        if not (cache / _REPO_FILE).is_file():
            (cache / _REPO_FILE).write_text(str(repo) + "\n", encoding="utf-8")
    return cache


@contextlib.contextmanager
def locked(cache: Path) -> Iterator[None]:
    """One harness at a time makes or removes worktrees in this cache (two CI jobs on one checkout)."""
    with (cache / ".lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def changes(repo: Path, folder: Path, tree: str, off: Sequence[str] | None = None) -> list[str] | None:
    """What makes ``folder`` other than a clean checkout of ``tree``: None when it is not a
    worktree at all, else its changed paths (empty: usable as it is)."""
    if not (folder / ".git").exists():
        return None
    off = _without_hooks_and_filters(repo) if off is None else off
    head = safe_git(repo, "rev-parse", "HEAD^{tree}", where=folder, off=off)
    if head.code != 0:
        return None
    if head.stdout.decode().strip() != tree:
        return ["HEAD (another tree is checked out)"]
    status = safe_git(repo, "status", "--porcelain", "--ignore-submodules=none", "--untracked-files=all",
                      where=folder, off=off)
    if status.code != 0:
        return [f"git status failed: {status.tail(200)}"]
    lines = status.stdout.decode("utf-8", "replace").splitlines()
    found = [line for line in lines if not (line.startswith("?? ") and "__pycache__" in line[3:].split("/")[:-1])]
    return found + _hidden(repo, folder, off)


def _hidden(repo: Path, folder: Path, off: Sequence[str]) -> list[str]:
    """Files git status is told not to look at: marked assume-unchanged (a lower-case tag in
    ``git ls-files -v``) or skip-worktree (``S``), so an edit to them shows nowhere."""
    listed = safe_git(repo, "ls-files", "-v", where=folder, off=off)
    if listed.code != 0:
        return [f"git ls-files failed: {listed.tail(200)}"]
    lines = listed.stdout.decode("utf-8", "replace").splitlines()
    return [f"{line[2:]} (not looked at by git status)" for line in lines
            if line[:1].islower() or line.startswith("S ")]


def _drop_bytecode(folder: Path) -> None:
    """Every ``__pycache__`` of a reused worktree goes: bytecode is checked against its source's
    time and size only, so a crafted ``.pyc`` stamped like the committed source would play
    instead of it; the sides compile the committed files again."""
    for cached in sorted(folder.rglob("__pycache__"), reverse=True):
        if cached.is_dir() and not cached.is_symlink():
            shutil.rmtree(cached, ignore_errors=True)


def made_again(repo: Path, cache: Path, folder: Path, sha: str, off: Sequence[str] | None = None) -> supervise.Finished:
    """``folder`` (re)made as a detached worktree of ``sha``; the setup stamps of its tree dropped."""
    off = _without_hooks_and_filters(repo) if off is None else off
    if folder.exists():  # a half-made, foreign or changed folder: start it again
        safe_git(repo, "worktree", "remove", "--force", str(folder), off=off)
        shutil.rmtree(folder, ignore_errors=True)
    for stamp in (cache / "setup").glob(f"{folder.name}-*.done"):
        stamp.unlink(missing_ok=True)
    safe_git(repo, "worktree", "prune", off=off)
    folder.parent.mkdir(parents=True, exist_ok=True)
    return safe_git(repo, "worktree", "add", "--detach", "--quiet", str(folder), sha, off=off)


def worktree(repo: Path, ref: str, sha: str, tree: str, flag: str) -> Path:
    """The cached worktree of ``tree``, made on first use, made again when it was changed."""
    cache = repo_cache(repo)
    folder = cache / "worktrees" / tree
    with locked(cache):
        off = _without_hooks_and_filters(repo)
        changed = changes(repo, folder, tree, off)
        if changed == []:
            _drop_bytecode(folder)
            return folder
        if changed:
            shown = ", ".join(changed[:5]) + (f" (+{len(changed) - 5} more)" if len(changed) > 5 else "")
            print(f"harness: the cached worktree of {ref} in {folder} was changed ({shown}); making it again",
                  file=sys.stderr, flush=True)
        made = made_again(repo, cache, folder, sha, off)
        if made.code != 0:
            raise ConfigError(flag, ref, f"a revision git can check out into {folder} ({made.tail(400)})")
    return folder


class Cleaned:
    """What ``clean`` removed: worktrees, bytes, and the repository whose registrations went."""

    def __init__(self, repo: str | None, worktrees: int, size: int) -> None:
        self.repo, self.worktrees, self.size = repo, worktrees, size


def _size(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        with contextlib.suppress(OSError):
            if path.is_file() and not path.is_symlink():
                total += path.stat().st_size
    return total


def clean(cache: Path, repo: Path | None) -> Cleaned:
    """Remove a repository's cache folder: each worktree through ``git worktree remove`` (so its
    ``.git/worktrees`` registration goes too), then ``git worktree prune`` for any whose folder
    was already gone, then the folder with its setup stamps."""
    if not cache.is_dir():
        return Cleaned(str(repo) if repo else None, 0, 0)
    with locked(cache):
        folders = sorted(p for p in (cache / "worktrees").glob("*") if p.is_dir())
        size = sum(_size(p) for p in folders)
        for folder in folders:
            if repo is not None and repo.is_dir():
                safe_git(repo, "worktree", "remove", "--force", str(folder))
            shutil.rmtree(folder, ignore_errors=True)
        if repo is not None and repo.is_dir():
            safe_git(repo, "worktree", "prune")
    shutil.rmtree(cache, ignore_errors=True)
    return Cleaned(str(repo) if repo else None, len(folders), size)


def clean_all() -> list[Cleaned]:
    """``clean`` every repository's cache folder, each with the repository it recorded."""
    root = cache_root() / "revisions"
    out = []
    for cache in sorted(p for p in root.glob("*") if p.is_dir()) if root.is_dir() else []:
        recorded = cache / _REPO_FILE
        repo = Path(recorded.read_text(encoding="utf-8").strip()) if recorded.is_file() else None
        out.append(clean(cache, repo))
    return out

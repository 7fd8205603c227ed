"""Files a suite may read: its own folder and the folders its ``read_roots`` names, nothing else.

A case, a rule file or a ledger names files by path or glob; each is resolved (``..`` and
symlinks) and refused unless it lies inside those folders, so a suite cannot make the harness read
``/etc/passwd`` or a key file. Every stage that reads a suite's files goes through here, which is
why it sits beside the other shared helpers rather than inside one stage.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from harness._errors import InputError, Place

__all__ = ["confined", "import_roots", "project_root", "read_roots", "resolve_path", "suite_files"]


class _Settings(Protocol):
    """What of ``harness.Settings`` this module reads (it cannot import it: _settings imports _common)."""

    @property
    def read_roots(self) -> tuple[str, ...]: ...


def read_roots(root: Path, settings: _Settings) -> tuple[Path, ...]:
    """The folders a suite may read files from: itself, and each of its ``read_roots``."""
    return (root.resolve(), *((root / r).resolve() for r in settings.read_roots))


def confined(path: Path, roots: Sequence[Path], place: Place, raw: str) -> Path:
    """``path`` resolved (``..`` and symlinks), refused unless it lies inside one of ``roots``."""
    real = _resolved(path, place, raw)
    if not any(real == r or real.is_relative_to(r) for r in roots):
        raise InputError(place, "a file inside the suite folder or a folder named in suite.yaml's read_roots",
                         f"{raw!r}, which resolves outside them")
    return real


def _resolved(path: Path, place: Place, raw: str) -> Path:
    """``path`` resolved; a symlink loop (RuntimeError on Python 3.11, OSError on 3.13) is bad input."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        raise InputError(place, "a file path that resolves", f"{raw!r}, a symlink loop") from None


def suite_files(root: Path, patterns: Sequence[str], place: Place, roots: Sequence[Path] | None = None) -> list[Path]:
    """The files matching ``patterns`` (globs relative to ``root``), resolved and sorted. An
    absolute pattern is bad input (``Path.glob`` cannot take one); with ``roots``, a match that
    resolves outside them (``..``, a symlink) is too."""
    _relative(patterns, place)
    found = sorted({p.resolve() for pattern in patterns for p in root.glob(pattern) if p.is_file()})
    if roots is not None:
        for path in found:
            confined(path, roots, place, _as_named(path, root.resolve()))
    return found


def _relative(patterns: Sequence[str], place: Place) -> None:
    """Globs relative to the suite folder: ``Path.glob`` cannot take an absolute one."""
    for pattern in patterns:
        if Path(pattern).is_absolute():
            raise InputError(place, "globs relative to the suite folder", f"the absolute pattern {pattern!r}")


def _as_named(path: Path, root: Path) -> str:
    """``path`` as a suite names it: relative to the suite folder when inside it."""
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def resolve_path(raw: str, base: Path, place: Place, roots: Sequence[Path] | None = None) -> Path:
    """A path named in a suite file, relative to that file's folder; URLs refused; with
    ``roots``, confined to them (see ``confined``)."""
    if "://" in raw or raw.startswith("//"):
        raise InputError(place, "a local file path", f"a URL {raw!r} (the harness never fetches)")
    path = confined(base / raw, roots, place, raw) if roots is not None else _resolved(base / raw, place, raw)
    if not path.is_file():
        raise InputError(place, "an existing file", f"no file at {raw!r}")
    return path


def project_root(suite_root: Path) -> Path:
    """The nearest folder at or above ``suite_root`` holding ``pyproject.toml``, ``setup.cfg`` or
    ``.git``, else the suite folder: what pin node ids and mutation targets are relative to
    when suite.yaml's ``mutation.root`` does not say."""
    for folder in (suite_root, *suite_root.parents):
        if any((folder / marker).exists() for marker in ("pyproject.toml", "setup.cfg", ".git")):
            return folder
    return suite_root


def import_roots(suite_root: Path) -> list[Path]:
    """The folders a suite's Python modules import from after the suite folder itself: the project
    root (``project_root``, the folder pin node ids are relative to) and its ``src/`` when there
    is one, as ``harness run --old-ref`` gives a revision's worktree (src first: a src layout's
    package is named from there). Empty when the suite folder is the project root without src/."""
    here = suite_root.resolve()
    top = project_root(here)
    return [folder for folder in (top / "src", top) if folder != here and folder.is_dir()]

"""Mutants run against a scratch copy of the project, never against the user's tree.

    user's tree (read-only to mutants) ──copy once──▶ <tmp>/harness-sandbox-*/tree   (the scratch)
                                                        │ the engine runs here: cwd, sys.path, specs
                                   one row (a mutant) ──┤
        overlay mode: the child enters its own mount namespace; an overlay mounted on the
                      scratch's path keeps every write in rows/<key>/upper, and the user's tree is
                      bind-mounted read-only (even root gets EROFS)
        copy mode:    (no mount namespaces) a row that changes files works in rows/<key>/tree, a
                      copy of the scratch; other rows share the scratch, which is compared with
                      its listing after each row and put back

What a row wrote (created, modified, deleted), beyond applying its own mutant and running the
setup, is named on the row. The user's tree is listed before and after the whole run; any
difference is reported as a write outside the sandbox.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["LINKED", "MODES", "SKIPPED", "Rows", "Sandbox", "changes", "choose_mode", "copy_tree", "listing",
           "overlay_works"]

MODES = ("overlay", "copy")
SKIPPED = frozenset({".git", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis"})
"""Never copied: version control and caches nothing runs from."""
LINKED = frozenset({".venv", "venv", ".tox", ".nox"})
"""Symlinked, not copied: interpreters a side may name by path; read-only to mutants in overlay mode."""

_CLONE_NEWNS = 0x00020000
_MS_RDONLY, _MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
_overlay_ok: list[bool] = []


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    def enc(s: str | None) -> bytes | None:
        return s.encode() if s is not None else None

    if _libc().mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {fstype or 'bind'} on {target}: {os.strerror(err)}")


def _enter_namespace() -> None:
    if _libc().unshare(_CLONE_NEWNS) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"unshare(CLONE_NEWNS): {os.strerror(err)}")
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE, None)  # nothing mounted here reaches the host


def _overlay(lower: Path, upper: Path, work: Path, target: Path) -> None:
    _mount("overlay", str(target), "overlay", 0, f"lowerdir={lower},upperdir={upper},workdir={work}")


def _read_only(path: Path) -> None:
    _mount(str(path), str(path), None, _MS_BIND | _MS_REC, None)
    _mount(None, str(path), None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY, None)


def overlay_works() -> bool:
    """Whether this process may make mount namespaces and overlays (root on Linux, usually):
    tried once in a forked child on a tiny folder."""
    if _overlay_ok:
        return _overlay_ok[0]
    ok = False
    with tempfile.TemporaryDirectory(prefix="harness-probe-") as tmp:
        base = Path(tmp)
        for name in ("lower", "upper", "work", "merged"):
            (base / name).mkdir()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child only reports by its exit code
            try:
                _enter_namespace()
                _overlay(base / "lower", base / "upper", base / "work", base / "merged")
                (base / "merged" / "x").write_text("x")
                os._exit(0)
            except BaseException:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        ok = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and (base / "upper" / "x").is_file()
    _overlay_ok.append(ok)
    return ok


def choose_mode() -> str:
    """``HARNESS_SANDBOX=overlay|copy`` forces one; else overlay where the kernel lets us."""
    from harness._errors import ConfigError

    forced = os.environ.get("HARNESS_SANDBOX", "")
    if forced and forced not in MODES:
        raise ConfigError("HARNESS_SANDBOX", forced, " or ".join(MODES))
    if forced == "overlay" and not overlay_works():
        raise ConfigError("HARNESS_SANDBOX", forced, "copy (mount namespaces are not available here)")
    if forced:
        return forced
    return "overlay" if overlay_works() else "copy"


# -- listings ---------------------------------------------------------------------------------
def listing(root: Path, skip: Iterable[Path] = ()) -> dict[str, str]:
    """rel path -> what is there (kind, size, mtime, mode), for every file and link under ``root``.
    Cheap enough to take after every row (stat only); a write always moves mtime or size."""
    skipped = {str(p) for p in skip}
    out: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED and os.path.join(folder, d) not in skipped
                         and not os.path.islink(os.path.join(folder, d)))
        for name in [*files, *(d for d in os.listdir(folder) if os.path.islink(os.path.join(folder, d)))]:
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                continue
            rel = os.path.relpath(path, root)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = f"link {os.readlink(path)}"
            elif stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
                out[rel] = "whiteout"  # an overlay's record of a deletion
            else:
                out[rel] = f"{stat.S_IFMT(st.st_mode):o} {st.st_size} {st.st_mtime_ns} {stat.S_IMODE(st.st_mode):o}"
    return out


def changes(before: dict[str, str], after: dict[str, str]) -> list[dict[str, str]]:
    """What differs between two listings of one tree: ``[{path, change}]``, sorted by path."""
    out = []
    for rel in sorted(before.keys() | after.keys()):
        was, now = before.get(rel), after.get(rel)
        if was == now:
            continue
        change = "created" if was is None else "deleted" if now is None else "modified"
        out.append({"path": rel, "change": change})
    return out


def _upper_changes(before: dict[str, str], after: dict[str, str], lower: Path) -> list[dict[str, str]]:
    """An overlay's upper layer, before and after: whiteouts are deletions; a file that the lower
    layer (the scratch) also holds was modified, else created."""
    out = []
    for item in changes(before, after):
        rel = item["path"]
        if after.get(rel) == "whiteout":
            item["change"] = "deleted"
        elif item["change"] != "deleted":
            item["change"] = "modified" if os.path.lexists(lower / rel) else "created"
        out.append(item)
    return out


# -- copying ----------------------------------------------------------------------------------
def _clone(src: str, dst: str) -> str:
    """Copy one file, sharing its blocks where the filesystem can (copy_file_range reflinks on
    btrfs/xfs), plain bytes elsewhere."""
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        size = os.fstat(fin.fileno()).st_size
        try:
            while size > 0:
                done = os.copy_file_range(fin.fileno(), fout.fileno(), size)
                if done == 0:
                    break
                size -= done
        except OSError:
            fin.seek(0)
            fout.seek(0)
            fout.truncate()
            shutil.copyfileobj(fin, fout, 1 << 20)
    shutil.copystat(src, dst)
    return dst


def copy_tree(src: Path, dest: Path, skip: Iterable[Path] = ()) -> None:
    """``src`` into ``dest`` (which must not exist), without SKIPPED folders and ``skip``; LINKED
    folders at the top become symlinks to the originals."""
    skipped = {str(p.resolve()) for p in skip}

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n in SKIPPED or str(Path(folder, n).resolve()) in skipped
                or (Path(folder) == src and n in LINKED)}

    shutil.copytree(src, dest, symlinks=True, ignore=ignore, copy_function=_clone)
    for name in LINKED:
        if (src / name).is_dir():
            os.symlink(src / name, dest / name)


@dataclass
class Sandbox:
    """The run's scratch copy of ``original`` and the folder its rows work in."""

    original: Path
    base: Path
    mode: str
    skip: tuple[Path, ...] = ()

    @property
    def scratch(self) -> Path:
        return self.base / "tree"

    @classmethod
    def create(cls, original: Path, skip: Iterable[Path] = (), mode: str | None = None) -> Sandbox:
        original = original.resolve()
        _remove_abandoned()
        base = Path(tempfile.mkdtemp(prefix="harness-sandbox-"))
        (base / "pid").write_text(str(os.getpid()), encoding="ascii")
        # a temporary folder inside the project (TMPDIR=./tmp) is never copied into itself
        box = cls(original, base, mode or choose_mode(), (*(p.resolve() for p in skip), base.resolve()))
        copy_tree(original, box.scratch, box.skip)
        (base / "rows").mkdir()
        return box

    def map(self, path: str | Path) -> str:
        """A path in the user's tree, as the same path in the scratch (others unchanged)."""
        p = Path(path)
        try:
            rel = p.resolve().relative_to(self.original)
        except ValueError:
            return str(path)
        return str(self.scratch / rel)

    def describe(self) -> dict[str, Any]:
        return {"mode": self.mode, "scratch": str(self.scratch), "rows": str(self.base / "rows"),
                "original": str(self.original)}

    def remove(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


def _remove_abandoned() -> None:
    """Sandboxes of runs that were killed (SIGKILL leaves no chance to clean up): their owner's
    pid, written in the folder, is no longer alive."""
    for folder in Path(tempfile.gettempdir()).glob("harness-sandbox-*"):
        try:
            pid = int((folder / "pid").read_text(encoding="ascii"))
        except (OSError, ValueError):
            continue  # not ours, or still being made
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:
            continue  # alive, someone else's


# -- inside the engine ------------------------------------------------------------------------
class Rows:
    """The engine's side of the sandbox (built from ``plan.json``'s ``sandbox``)."""

    def __init__(self, described: dict[str, Any] | None) -> None:
        self.on = described is not None
        described = described or {}
        self.mode = str(described.get("mode", "copy"))
        self.scratch = Path(described.get("scratch", "."))
        self.rows = Path(described.get("rows", "."))
        self.original = Path(described.get("original", "."))
        self.shared: dict[str, str] = {}
        self.take_shared_listing()  # before the baseline: its rows are compared with it too

    def folder(self, key: str) -> Path:
        return self.rows / key

    def take_shared_listing(self) -> None:
        """The scratch as the rows should find it (after the baseline build and warm-up)."""
        if self.on and self.mode == "copy":
            self.shared = listing(self.scratch)

    def protect(self, writable: Iterable[Path] = ()) -> None:
        """In the engine process, once, before anything runs (overlay mode): a mount namespace of
        its own where the user's tree is read-only, ``writable`` (the run's out folder) excepted.
        Every row and every side the engine starts inherits it, so no row pays for it."""
        if not self.on or self.mode != "overlay":
            return
        _enter_namespace()
        if self.scratch.is_relative_to(self.original):  # TMPDIR inside the project: nothing to bind
            return
        _read_only(self.original)
        for folder in writable:
            if folder.resolve().is_relative_to(self.original) and folder.is_dir():
                # a bind of a read-only mount is read-only too: bind, then clear the flag on it
                _mount(str(folder), str(folder), None, _MS_BIND | _MS_REC, None)
                _mount(None, str(folder), None, _MS_REMOUNT | _MS_BIND, None)

    def enter(self, key: str, own_tree: bool) -> Path:
        """In a row's child, before its mutant is applied: where the row's tree is."""
        if not self.on:
            return Path.cwd()
        row = self.folder(key)
        if self.mode == "overlay":
            for name in ("upper", "work"):
                (row / name).mkdir(parents=True, exist_ok=True)
            _enter_namespace()
            _overlay(self.scratch, row / "upper", row / "work", self.scratch)
            os.chdir(self.scratch)
            return self.scratch
        if own_tree:
            tree = row / "tree"
            if not tree.exists():
                row.mkdir(parents=True, exist_ok=True)
                shutil.copytree(self.scratch, tree, symlinks=True, copy_function=_clone)
            os.chdir(tree)
            return tree
        os.chdir(self.scratch)
        return self.scratch

    def mark(self, key: str, tree: Path) -> None:
        """In the child, after the mutant is applied and built: what follows is the row's writes.
        A row re-forked after a crash keeps the first mark (its earlier pins' writes count)."""
        if not self.on or (self.mode == "copy" and tree == self.scratch):
            return  # a shared scratch is compared with the run's listing instead
        row = self.folder(key)
        row.mkdir(parents=True, exist_ok=True)
        if (row / "before.json").exists():
            return
        seen = listing(row / "upper") if self.mode == "overlay" else listing(tree)
        (row / "before.json").write_text(json.dumps(seen), encoding="utf-8")

    def writes(self, key: str, own_tree: bool) -> list[dict[str, str]]:
        """In the parent, once the row has ended: what it wrote, and the scratch put back."""
        if not self.on:
            return []
        row = self.folder(key)
        before_file = row / "before.json"
        before = json.loads(before_file.read_text(encoding="utf-8")) if before_file.is_file() else {}
        if self.mode == "overlay":
            found = _upper_changes(before, listing(row / "upper"), self.scratch) if (row / "upper").is_dir() else []
        elif own_tree:
            found = changes(before, listing(row / "tree")) if (row / "tree").is_dir() else []
        else:
            found = changes(self.shared, listing(self.scratch))
            self._put_back(found)
        if self.mode == "copy":  # a row's own copy of the tree is large; an overlay's layers are not,
            shutil.rmtree(row, ignore_errors=True)  # and removing them costs more than a small row
        return found

    def _put_back(self, found: list[dict[str, str]]) -> None:
        """Copy mode: the shared scratch as it was before the row (from the user's tree)."""
        for item in found:
            target = self.scratch / item["path"]
            source = self.original / item["path"]
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            elif os.path.lexists(target):
                target.unlink()
            if item["change"] != "created" and os.path.lexists(source):
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target, follow_symlinks=False)
        self.shared = listing(self.scratch)

"""Mutants run against a scratch copy of the project, never against the user's tree.

    user's tree (read-only to mutants) ──copy once──▶ <tmp>/harness-sandbox-*/tree   (the scratch)
                                                        │ the engine runs here: cwd, sys.path, specs
                                   one row (a mutant) ──┤
        overlay mode: one mount namespace per worker lane, made once, where an overlay mounted
                      on the scratch's path keeps every write in rows/lane-<n>/upper; a row's
                      child joins its lane's namespace (setns). The upper layer is empty when a
                      row starts, so whatever is in it when the row ends is the row's writes; a
                      lane a row wrote in is replaced by a fresh one. The user's tree is
                      bind-mounted read-only in the engine's own namespace (even root gets EROFS)
        copy mode:    (no mount namespaces) a row that changes files works in rows/<key>/tree, a
                      copy of the scratch; other rows share the scratch, which is compared with
                      its listing after each row and put back

What a row wrote (created, modified, deleted), beyond applying its own mutant and running the
setup, is named on the row. The user's tree is listed before and after the whole run; any
difference is reported as a write outside the sandbox.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["LINKED", "MODES", "SKIPPED", "CopyRows", "OverlayRows", "Rows", "Sandbox", "changes", "choose_mode",
           "copy_tree", "listing", "open_rows", "overlay_works"]

MODES = ("overlay", "copy")
SKIPPED = frozenset({".git", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis"})
"""Never copied: version control and caches nothing runs from."""
LINKED = frozenset({".venv", "venv", ".tox", ".nox"})
"""Symlinked, not copied: interpreters a side may name by path; read-only to mutants in overlay mode."""

_CLONE_NEWNS = 0x00020000
_MS_RDONLY, _MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
_overlay_ok: list[bool] = []


@functools.cache
def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def _checked(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    def enc(s: str | None) -> bytes | None:
        return s.encode() if s is not None else None

    _checked(_libc().mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
             f"mount {fstype or 'bind'} on {target}")


def _enter_namespace() -> None:
    _checked(_libc().unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE, None)  # nothing mounted here reaches the host


def _overlay(lower: Path, upper: Path, work: Path, target: Path) -> None:
    _mount("overlay", str(target), "overlay", 0, f"lowerdir={lower},upperdir={upper},workdir={work}")


def _read_only(path: Path) -> None:
    _mount(str(path), str(path), None, _MS_BIND | _MS_REC, None)
    _mount(None, str(path), None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY, None)


def _fork(work: Callable[[], None]) -> int:
    """Start ``work`` in a forked child, which exits 0 when it returns and 1 when it raises."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child only reports by its exit code and pipes
        code = 1
        try:
            work()
            code = 0
        finally:
            os._exit(code)
    return pid


def _in_child(work: Callable[[], None]) -> int:
    """Run ``work`` in a forked child; its exit code (0 when ``work`` returned)."""
    _, status = os.waitpid(_fork(work), 0)
    return os.waitstatus_to_exitcode(status)


def overlay_works() -> bool:
    """Whether this process may make mount namespaces and overlays (root on Linux, usually):
    tried once in a forked child on a tiny folder."""
    if _overlay_ok:
        return _overlay_ok[0]
    with tempfile.TemporaryDirectory(prefix="harness-probe-") as tmp:
        base = Path(tmp)
        for name in ("lower", "upper", "work", "merged"):
            (base / name).mkdir()

        def probe() -> None:
            _enter_namespace()
            _overlay(base / "lower", base / "upper", base / "work", base / "merged")
            (base / "merged" / "x").write_text("x")

        _overlay_ok.append(_in_child(probe) == 0 and (base / "upper" / "x").is_file())
    return _overlay_ok[0]


def choose_mode() -> str:
    """``HARNESS_SANDBOX=overlay|copy`` forces one; else overlay where the kernel lets us."""
    from harness._errors import ConfigError

    forced = os.environ.get("HARNESS_SANDBOX", "")
    if forced and forced not in MODES:
        raise ConfigError("HARNESS_SANDBOX", forced, " or ".join(MODES))
    works = overlay_works()
    if forced == "overlay" and not works:
        raise ConfigError("HARNESS_SANDBOX", forced, "copy (mount namespaces are not available here)")
    return forced or ("overlay" if works else "copy")


# -- listings ---------------------------------------------------------------------------------
def _describe(entry: os.DirEntry[str]) -> str | None:
    """What is at ``entry`` (kind, size, mtime, mode; a link's target; an overlay's whiteout)."""
    try:
        st = entry.stat(follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return f"link {os.readlink(entry.path)}"
    if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
        return "whiteout"  # an overlay's record of a deletion
    return f"{stat.S_IFMT(st.st_mode):o} {st.st_size} {st.st_mtime_ns} {stat.S_IMODE(st.st_mode):o}"


def _walk(folder: str, skipped: set[str]) -> Iterator[os.DirEntry[str]]:
    """Every file and link under ``folder``, without SKIPPED folders, ``skipped`` paths, or
    what links point into; an unreadable folder is passed over, as ``os.walk`` does."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if not entry.is_dir(follow_symlinks=False):
            yield entry
        elif entry.name not in SKIPPED and entry.path not in skipped:
            yield from _walk(entry.path, skipped)


def listing(root: Path, skip: Iterable[Path] = ()) -> dict[str, str]:
    """rel path -> what is there (kind, size, mtime, mode), for every file and link under ``root``.
    Cheap enough to take after every row (stat only); a write always moves mtime or size."""
    prefix = len(os.path.join(str(root), ""))
    seen = ((entry.path[prefix:], _describe(entry)) for entry in _walk(str(root), {str(p) for p in skip}))
    return {rel: what for rel, what in seen if what is not None}


def changes(before: dict[str, str], after: dict[str, str]) -> list[dict[str, str]]:
    """What differs between two listings of one tree: ``[{path, change}]``, sorted by path."""
    out = []
    for rel in sorted(before.keys() | after.keys()):
        was, now = before.get(rel), after.get(rel)
        if was != now:
            out.append({"path": rel, "change": "created" if was is None else "deleted" if now is None else "modified"})
    return out


def _upper_changes(before: dict[str, str], after: dict[str, str], lower: Path) -> list[dict[str, str]]:
    """An overlay's upper layer, before and after: whiteouts are deletions; a file that the lower
    layer (the scratch) also holds was modified, else created."""
    out = changes(before, after)
    for item in out:
        rel = item["path"]
        if after.get(rel) == "whiteout":
            item["change"] = "deleted"
        elif item["change"] != "deleted":
            item["change"] = "modified" if os.path.lexists(lower / rel) else "created"
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

    @classmethod
    def reuse(cls, base: Path, original: Path, skip: Iterable[Path] = ()) -> Sandbox:
        """A sandbox a stopped run kept (``keep``), taken again: its scratch as that run built it,
        its rows' folder emptied. Only overlay sandboxes are kept: their rows never write the scratch."""
        (base / "pid").write_text(str(os.getpid()), encoding="ascii")
        shutil.rmtree(base / "rows", ignore_errors=True)
        (base / "rows").mkdir()
        return cls(original.resolve(), base, "overlay", (*(p.resolve() for p in skip), base.resolve()))

    def keep(self) -> bool:
        """Leave this sandbox for a ``--resume`` (not removed, not taken for an abandoned one);
        False in copy mode, where a stopped row may have left the shared scratch changed."""
        if self.mode != "overlay":
            return False
        (self.base / "pid").write_text("kept", encoding="ascii")
        return True

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


def _owner_gone(folder: Path) -> bool:
    """Whether ``folder`` is a sandbox whose owner, the pid written in it, no longer runs."""
    try:
        os.kill(int((folder / "pid").read_text(encoding="ascii")), 0)
    except (OSError, ValueError) as exc:  # not ours or still being made; alive, someone else's
        return isinstance(exc, ProcessLookupError)
    return False


def _remove_abandoned() -> None:
    """Sandboxes of runs that were killed (SIGKILL leaves no chance to clean up)."""
    for folder in Path(tempfile.gettempdir()).glob("harness-sandbox-*"):
        if _owner_gone(folder):
            shutil.rmtree(folder, ignore_errors=True)


# -- inside the engine ------------------------------------------------------------------------
class Rows:
    """The engine's side of the sandbox (``open_rows``); this base is no sandbox at all: rows run
    in the engine's folder and nothing is charged to them.

    The engine calls, in the parent: ``protect`` once, ``take_shared_listing`` when the scratch
    is as rows should find it, ``lanes(n)`` around each pool run, ``writes`` once a row has
    ended; in a row's child: ``enter`` before its mutant is applied, ``mark`` after (rows whose
    preparation writes files: what follows is the row's own writes)."""

    def __init__(self, described: dict[str, Any] | None = None) -> None:
        described = described or {}
        self.scratch = Path(described.get("scratch", "."))
        self.rows = Path(described.get("rows", "."))
        self.original = Path(described.get("original", "."))

    def owns_tree(self, how: str) -> bool:
        """Whether a row of a mutant applied ``how`` works in its own copy of the scratch."""
        return False

    def shares_scratch(self, how: str) -> bool:
        """Whether such a row changes the scratch other rows run in (they must run one at a time)."""
        return False

    def take_shared_listing(self) -> None:
        """The scratch as the rows should find it (after the baseline build and warm-up)."""

    def protect(self, writable: Iterable[Path] = ()) -> None:
        """Once, in the engine, before anything runs: the user's tree out of the rows' reach."""

    @contextmanager
    def lanes(self, count: int) -> Iterator[None]:
        """Around one pool run of ``count`` workers: whatever each worker lane needs."""
        yield

    def enter(self, key: str, how: str, lane: int) -> Path:
        """In a row's child (on worker ``lane``), before its mutant is applied: the row's tree."""
        return Path.cwd()

    def mark(self, key: str, tree: Path) -> None:
        """In the child, after the mutant is applied and built: what follows is the row's writes."""

    def writes(self, key: str, how: str, lane: int) -> list[dict[str, str]]:
        """In the parent, once the row has ended: what it wrote, its folder put back."""
        return []

    def _mark_once(self, key: str, seen: dict[str, str]) -> None:
        """A row re-forked after a crash keeps its first mark (its earlier pins' writes count)."""
        row = self.rows / key
        row.mkdir(parents=True, exist_ok=True)
        if not (row / "before.json").exists():
            (row / "before.json").write_text(json.dumps(seen), encoding="utf-8")

    def _marked(self, key: str) -> dict[str, str]:
        before = self.rows / key / "before.json"
        return json.loads(before.read_text(encoding="utf-8")) if before.is_file() else {}


class CopyRows(Rows):
    """No mount namespaces: a row that changes files works in its own copy of the scratch; the
    others share the scratch, compared with its listing after each row and put back."""

    def __init__(self, described: dict[str, Any]) -> None:
        super().__init__(described)
        self.shared: dict[str, str] = {}
        self.take_shared_listing()  # before the baseline: its rows are compared with it too

    def owns_tree(self, how: str) -> bool:
        return how == "file"

    def shares_scratch(self, how: str) -> bool:
        return how != "file"

    def take_shared_listing(self) -> None:
        self.shared = listing(self.scratch)

    def enter(self, key: str, how: str, lane: int) -> Path:
        tree = self.scratch
        if self.owns_tree(how):
            tree = self.rows / key / "tree"
            if not tree.exists():
                tree.parent.mkdir(parents=True, exist_ok=True)
                shutil.copytree(self.scratch, tree, symlinks=True, copy_function=_clone)
        os.chdir(tree)
        return tree

    def mark(self, key: str, tree: Path) -> None:
        if tree != self.scratch:  # a shared scratch is compared with the run's listing instead
            self._mark_once(key, listing(tree))

    def writes(self, key: str, how: str, lane: int) -> list[dict[str, str]]:
        if not self.owns_tree(how):
            found = changes(self.shared, listing(self.scratch))
            self._put_back(found)
            return found
        tree = self.rows / key / "tree"
        found = changes(self._marked(key), listing(tree)) if tree.is_dir() else []
        shutil.rmtree(self.rows / key, ignore_errors=True)  # a copy of the whole tree: large
        return found

    def _put_back(self, found: list[dict[str, str]]) -> None:
        """The shared scratch as it was before the row (from the user's tree)."""
        for item in found:
            target = self.scratch / item["path"]
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            elif os.path.lexists(target):
                target.unlink()
            source = self.original / item["path"]
            if item["change"] != "created" and os.path.lexists(source):
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target, follow_symlinks=False)
        self.shared = listing(self.scratch)


@dataclass(frozen=True)
class _Lane:
    """A worker's mount namespace (held open by ``fd``) with an overlay on the scratch whose
    writes go to ``folder``/upper."""

    folder: Path
    fd: int

    @property
    def upper(self) -> Path:
        return self.folder / "upper"


class OverlayRows(Rows):
    """Mount namespaces: the user's tree read-only to the engine and everything it starts; one
    overlay on the scratch per worker lane, made once and joined by each row's child."""

    def __init__(self, described: dict[str, Any]) -> None:
        super().__init__(described)
        self.open: dict[int, _Lane] = {}
        self.made = 0  # lane folders made in this run: each has a name of its own
        self.joined: _Lane | None = None  # in a row's child: the lane it entered

    def protect(self, writable: Iterable[Path] = ()) -> None:
        """A mount namespace of the engine's own where the user's tree is read-only, ``writable``
        (the run's out folder) excepted. Every row and every side inherits it."""
        _enter_namespace()
        if self.scratch.is_relative_to(self.original):  # TMPDIR inside the project: nothing to bind
            return
        _read_only(self.original)
        for folder in writable:
            if folder.resolve().is_relative_to(self.original) and folder.is_dir():
                # a bind of a read-only mount is read-only too: bind, then clear the flag on it
                _mount(str(folder), str(folder), None, _MS_BIND | _MS_REC, None)
                _mount(None, str(folder), None, _MS_REMOUNT | _MS_BIND, None)

    @contextmanager
    def lanes(self, count: int) -> Iterator[None]:
        self.open = {k: self._new_lane() for k in range(max(1, count))}
        try:
            yield
        finally:
            for lane in self.open.values():
                os.close(lane.fd)
            self.open = {}

    def _new_lane(self) -> _Lane:
        """A fresh namespace and overlay, made in a short-lived child: the namespace outlives it,
        held by the descriptor the parent opens on it while the child waits."""
        folder = self.rows / f"lane-{self.made}"
        self.made += 1
        for name in ("upper", "work"):
            (folder / name).mkdir(parents=True)
        ready, go = os.pipe(), os.pipe()

        def hold() -> None:
            os.close(ready[0])
            os.close(go[1])  # or the read below would never see the parent go
            _enter_namespace()
            _overlay(self.scratch, folder / "upper", folder / "work", self.scratch)
            os.write(ready[1], b"1")
            os.read(go[0], 1)  # until the parent holds the namespace (or is gone)

        pid = _fork(hold)
        os.close(ready[1])
        try:
            if os.read(ready[0], 1) != b"1":
                raise OSError(f"could not mount an overlay for a worker in {folder}")
            return _Lane(folder, os.open(f"/proc/{pid}/ns/mnt", os.O_RDONLY))
        finally:
            for fd in (ready[0], go[0], go[1]):
                os.close(fd)
            os.waitpid(pid, 0)

    def enter(self, key: str, how: str, lane: int) -> Path:
        # the namespace's root and cwd are its own: the scratch's path now shows the overlay
        _checked(_libc().setns(self.open[lane].fd, _CLONE_NEWNS), "setns(CLONE_NEWNS)")
        self.joined = self.open[lane]
        os.chdir(self.scratch)
        return self.scratch

    def mark(self, key: str, tree: Path) -> None:
        if self.joined is not None:
            self._mark_once(key, listing(self.joined.upper))

    def writes(self, key: str, how: str, lane: int) -> list[dict[str, str]]:
        """The lane's upper layer is the row's writes (less its mark); a lane written in is
        replaced, so the next row finds the scratch as it is."""
        held = self.open[lane]
        after = listing(held.upper)
        if not after:
            return []
        os.close(held.fd)
        self.open[lane] = self._new_lane()
        return _upper_changes(self._marked(key), after, self.scratch)


def open_rows(described: dict[str, Any] | None) -> Rows:
    """The engine's side of the sandbox described in ``plan.json`` (None: no sandbox)."""
    if described is None:
        return Rows()
    return OverlayRows(described) if described.get("mode") == "overlay" else CopyRows(described)

"""Where load errors point: every file's errors gathered, and files named as the caller can open them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from harness._errors import HarnessError, InputError, InputErrors, Place

__all__ = ["Errors", "from_here", "rel"]


class Errors:
    """Every problem a load finds, so one run shows every broken file."""

    def __init__(self) -> None:
        self.items: list[InputError] = []

    def add(self, exc: HarnessError) -> None:
        if isinstance(exc, InputErrors):
            self.items.extend(exc.errors)
        elif isinstance(exc, InputError):
            self.items.append(exc)
        else:
            self.items.append(InputError(Place("?"), "a loadable suite", str(exc)))


def rel(path: Path, root: Path) -> str:
    """``path``'s name in the suite folder ``root`` (as case ids, reports and pin ids use it)."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, RuntimeError, OSError):  # elsewhere, or a symlink loop (RuntimeError on 3.11)
        return str(path)


def from_here(err: InputError, folder: Path) -> InputError:
    """``err`` naming its file as the caller can open it: the suite folder as given, joined with
    the file's name in the suite (``cases/x.cases.yaml``, as pin ids and ``bless`` name it from
    the project root), not the bare name in the suite (``x.cases.yaml``)."""
    name = err.place.file
    if name == "?" or Path(name).is_absolute() or not (folder / name).exists():
        return err
    return InputError(replace(err.place, file=(folder / name).as_posix()), err.expected, err.found)

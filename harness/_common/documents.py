"""Tool files read once per run: many cases may pick tools from one file.

Inside ``read_once()`` (``load_suite`` holds it for the whole load) a file is parsed the first
time a case names it and its Document handed to every later case; outside, each call reads the
file. A file that fails to load fails the same way for every case that names it, each error
naming the file as that case's file names it. ``load_once`` reads tool listings;
``parsed_once`` takes the parser, for files read another way (OpenAPI documents).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar

from harness._common.yamlsafe import Document, load_document
from harness._errors import InputError, Place

__all__ = ["load_once", "made_once", "parsed_once", "read_once"]

T = TypeVar("T")
D = TypeVar("D", bound=Document)

_READ: ContextVar[dict[Hashable, Document | InputError] | None] = ContextVar("harness_documents_read", default=None)
_MADE: ContextVar[dict[Hashable, Any] | None] = ContextVar("harness_documents_made", default=None)


@contextmanager
def read_once() -> Iterator[None]:
    """Within the block, ``load_once`` and ``parsed_once`` parse each file once."""
    token, made = _READ.set({}), _MADE.set({})
    try:
        yield
    finally:
        _READ.reset(token)
        _MADE.reset(made)


def made_once(key: Hashable, make: Callable[[], T]) -> T:
    """``make()``, once per ``key`` inside ``read_once`` (what a file's Document turns into,
    such as its list of tools); every call outside. A ``make`` that raises is not remembered."""
    made = _MADE.get()
    if made is None:
        return make()
    if key not in made:
        made[key] = make()
    value: T = made[key]
    return value


def _as_named(error: InputError, display: str) -> InputError:
    """The error kept for a file, as a new one for this case (one raised twice would carry
    the first raise's traceback into the second), naming the file as ``display`` does."""
    return InputError(Place(display, error.place.line, error.place.path), error.expected, error.found)


def load_once(path: Path, display: str) -> Document:
    """``load_document(path, display=display)``, parsed once per resolved path in ``read_once``.
    The Document's value is shared: callers copy what they keep and may change."""
    return parsed_once(path.resolve(), display, lambda: load_document(path, display=display))


def parsed_once(key: Hashable, display: str, parse: Callable[[], D]) -> D:
    """``parse()``, once per ``key`` in ``read_once`` (an InputError too: every case naming a
    broken file gets it, named as that case names the file). The value is shared."""
    read = _READ.get()
    if read is None:
        return parse()
    if key not in read:
        try:
            read[key] = parse()
        except InputError as exc:
            read[key] = exc
    found = read[key]
    if isinstance(found, InputError):
        raise _as_named(found, display)
    kept: D = found  # type: ignore[assignment]  # what ``parse`` made for this key
    return kept if kept.file == display else dataclasses.replace(kept, file=display)

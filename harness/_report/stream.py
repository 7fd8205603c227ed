"""The run's streams: JSON lines written as each result is made, read back in a fixed order.

A run's results finish in whatever order the workers finish them, but report.json lists them in
suite order (two runs on the same inputs give the same bytes). ``OrderedLines`` appends each
result to its file the moment it is made (an interrupted run keeps what it finished) and
remembers only where each line starts, by its slot (the unit's place in the suite); reading it
back seeks line by line in slot order, so the whole stream is never in memory: eight bytes a
unit instead of the result itself.

``write_json`` writes report.json from a document whose long lists are such streams, with the
same bytes ``json.dumps(doc, indent=1, ensure_ascii=False)`` would give the materialised value.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Generic, TypeVar, overload

__all__ = ["OrderedLines", "Slots", "line", "write_json"]

T = TypeVar("T")
_EMPTY = -1


class OrderedLines(Sequence[T], Generic[T]):
    """A JSON-lines file whose lines are read back by slot, not by the order they were written.

    ``put(slot, value)`` appends a line (the last put of a slot wins); iterating yields the values
    of the filled slots in slot order. A Sequence, so a report section can hold it where it held
    a list: ``len``, indexing and iteration read from the file."""

    def __init__(self, path: Path, slots: int) -> None:
        self.path = path
        self._offsets = array("q", [_EMPTY]) * slots
        self._filled = 0
        self._out: IO[bytes] | None = path.open("wb")
        self._end = 0

    def put(self, slot: int, value: T) -> None:
        self.put_line(slot, line(value))

    def put_line(self, slot: int, line: bytes) -> None:
        """``put`` of a value already encoded as ``put`` encodes it (``line(value)``), e.g. by
        a build worker: the parent only writes it."""
        if self._out is None:
            raise ValueError(f"{self.path.name} is closed")
        self._out.write(line)
        self._out.flush()  # an interrupted run leaves every finished line on disk
        if self._offsets[slot] == _EMPTY:
            self._filled += 1
        self._offsets[slot] = self._end
        self._end += len(line)

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    def __len__(self) -> int:
        return self._filled

    def _read(self, stream: IO[bytes], offset: int) -> T:
        stream.seek(offset)
        value: T = json.loads(stream.readline())
        return value

    def __iter__(self) -> Iterator[T]:
        if self._out is not None:
            self._out.flush()
        with self.path.open("rb") as stream:
            for offset in self._offsets:
                if offset != _EMPTY:
                    yield self._read(stream, offset)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        for i, value in enumerate(self):
            if i == index:
                return value
        raise IndexError(index)  # pragma: no cover - len() said it was there

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list


def line(value: Any) -> bytes:
    """``value`` as ``OrderedLines.put`` writes it: one compact JSON line."""
    return json.dumps(value, ensure_ascii=False).encode() + b"\n"


class Slots:
    """Each planned (case, lane)'s place in the suite, from the plan in suite order, in memory
    that grows with the cases, not with cases x lanes: a case's first place, plus its lanes'
    positions shared between every case with the same lanes."""

    def __init__(self, plan: Iterable[tuple[str, str]]) -> None:
        self._first: dict[str, int] = {}
        self._lanes: dict[str, dict[str, int]] = {}
        shared: dict[tuple[str, ...], dict[str, int]] = {}
        current: list[str] = []
        case = None
        count = 0
        for count, (case_id, lane_id) in enumerate(plan, start=1):
            if case_id != case:
                self._close(case, current, shared)
                case, current = case_id, []
                self._first[case_id] = count - 1
            current.append(lane_id)
        self._close(case, current, shared)
        self.total = count

    def _close(self, case: str | None, lanes: list[str], shared: dict[tuple[str, ...], dict[str, int]]) -> None:
        if case is not None:
            key = tuple(lanes)
            self._lanes[case] = shared.setdefault(key, {lane: i for i, lane in enumerate(key)})

    def __call__(self, case_id: str, lane_id: str) -> int:
        return self._first[case_id] + self._lanes[case_id][lane_id]


def _items(values: Iterable[Any], depth: int) -> Iterator[str]:
    pad = " " * depth
    for value in values:
        text = json.dumps(value, indent=1, ensure_ascii=False)
        yield pad + text.replace("\n", "\n" + pad)  # JSON strings hold no raw newline: every line is indented


def _marker(i: int) -> str:
    return f"\x00stream-{i}\x00"


def _streamed(value: Any, found: list[Sequence[Any]]) -> Any:
    """``value`` with each OrderedLines inside it replaced by a marker string (found in order)."""
    if isinstance(value, OrderedLines):
        found.append(value)
        return _marker(len(found) - 1)
    if isinstance(value, dict):
        return {k: _streamed(v, found) for k, v in value.items()}
    return value


def write_json(path: Path, doc: Any) -> None:
    """``doc`` as ``json.dumps(doc, indent=1, ensure_ascii=False) + "\\n"`` into ``path`` (through a
    temporary file), with every OrderedLines inside a dict of it read and written one item at a time."""
    found: list[Sequence[Any]] = []
    text = json.dumps(_streamed(doc, found), indent=1, ensure_ascii=False)
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for i, lines in enumerate(found):
            quoted = json.dumps(_marker(i))
            before, _, text = text.partition(quoted)
            out.write(before)
            key_line = before.rpartition("\n")[2]
            depth = len(key_line) - len(key_line.lstrip(" "))
            _write_list(out, lines, depth)
        out.write(text + "\n")
    tmp.replace(path)


def _write_list(out: IO[str], lines: Iterable[Any], depth: int) -> None:
    """A list at a key indented ``depth`` spaces, as json.dumps(indent=1) writes it."""
    first = True
    for item in _items(lines, depth + 1):
        out.write(("[\n" if first else ",\n") + item)
        first = False
    out.write("[]" if first else "\n" + " " * depth + "]")

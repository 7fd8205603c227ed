"""A row's progress in shared memory: which pin its child is on, since when, and how each ended.

Made by the parent before the fork (an anonymous shared mapping both processes see), written
only by the child, read by the parent to set the running pin's deadline and, when the child is
killed or dies, to know which pins finished and which one to charge. So a row sends one message
over its pipe however many pins it runs, and a pin that hangs or crashes is still charged
exactly. The start time is CLOCK_MONOTONIC, which is the same clock in every process.

Layout: int64 position of the running pin (-1: still preparing; len(pins): done), float64 the
time it started, then one byte per pin: 0 not run, else its outcome's code.
"""

from __future__ import annotations

import mmap
import struct
import time

__all__ = ["CODES", "Slot"]

CODES = {"passed": 1, "failed": 2, "skipped": 3, "saved": 4}
_NAMES = {code: name for name, code in CODES.items()}
_HEAD = struct.Struct("qd")


class Slot:
    def __init__(self, pins: int) -> None:
        self.pins = pins
        self.mem = mmap.mmap(-1, _HEAD.size + max(1, pins))
        _HEAD.pack_into(self.mem, 0, -1, time.monotonic())

    def begin(self, position: int) -> None:
        """The child starts pin ``position`` (or, at ``pins``, has finished its row)."""
        # the start time first: a reader that sees the new position also sees its start time
        struct.pack_into("d", self.mem, 8, time.monotonic())
        struct.pack_into("q", self.mem, 0, position)

    def done(self, position: int, outcome: str) -> None:
        self.mem[_HEAD.size + position] = CODES.get(outcome, CODES["failed"])

    def position(self) -> tuple[int, float]:
        """(position, its start time), read position first (see ``begin``)."""
        (position,) = struct.unpack_from("q", self.mem, 0)
        (started,) = struct.unpack_from("d", self.mem, 8)
        return int(position), float(started)

    def outcomes(self) -> dict[int, str]:
        """Position -> outcome of every pin that finished."""
        raw = self.mem[_HEAD.size:_HEAD.size + self.pins]
        return {pos: _NAMES[code] for pos, code in enumerate(raw) if code in _NAMES}

    def close(self) -> None:
        self.mem.close()

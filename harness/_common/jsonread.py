"""Read JSON strictly into plain values, remembering the line of every key path.

One reader for every JSON file a suite holds, whatever its size, so the same bytes mean the
same thing in a 1 KiB tool file and a 13 MiB OpenAPI document. It is stricter than ``json``:
a key written twice, ``NaN``/``Infinity``, a number no 64-bit float can hold and an integer
longer than ``MAX_INT_DIGITS`` digits are refused with file:line, as are lone UTF-16
surrogates (``"\\ud83d"`` alone: no file format downstream can carry one). A surrogate pair
(``"\\ud83d\\ude80"``, what ``json.dump`` writes for an emoji) is one character, as JSON says.
The node and depth bounds are those of the YAML reader (``harness._common.yamlsafe``).
"""

from __future__ import annotations

import bisect
import json
import math
import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from harness._errors import InputError, Place

__all__ = ["MAX_INT_DIGITS", "child_path", "parse_json"]

MAX_INT_DIGITS = 300  # below 10**308, so every integer also converts to a finite float

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_WORD = re.compile(r"-?[A-Za-z_]+")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
_LITERALS = {"true": True, "false": False, "null": None}
_NOT_NUMBERS = {"NaN", "Infinity", "-Infinity", "nan", "inf", "-inf"}


def child_path(path: str, key: object) -> str:
    """``path`` extended by one key or index, spelled as errors and line maps spell it."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    text = str(key)
    plain = text.replace("_", "").replace("-", "").isalnum()
    step = text if plain else json.dumps(text)
    return f"{path}.{step}" if path else step


class _Parser:
    def __init__(self, text: str, file: str, max_nodes: int, max_depth: int) -> None:
        self.text = text
        self.file = file
        self.max_nodes = max_nodes
        self.max_depth = max_depth
        self.count = 0
        self.lines: dict[str, int] = {}
        self._breaks = [m.start() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self._breaks, pos) + 1

    def fail(self, pos: int, expected: str, found: str, path: str = "") -> InputError:
        return InputError(Place(self.file, self.line(pos), path), expected, found)

    def ws(self, pos: int) -> int:
        match = _WS.match(self.text, pos)
        assert match is not None  # the pattern matches the empty string
        return match.end()

    def found_at(self, pos: int) -> str:
        if pos >= len(self.text):
            return "the end of the file"
        return repr(self.text[pos:pos + 12])

    def document(self) -> Any:
        pos = self.ws(0)
        if pos >= len(self.text):
            return None  # an empty file is no value, as an empty YAML file is
        value, pos = self.value(pos, "", 0)
        pos = self.ws(pos)
        if pos < len(self.text):
            raise self.fail(pos, "the end of the JSON document", self.found_at(pos))
        return value

    def value(self, pos: int, path: str, depth: int) -> tuple[Any, int]:
        self.count += 1
        self.lines.setdefault(path, self.line(pos))
        if self.count > self.max_nodes:
            raise self.fail(pos, f"at most {self.max_nodes:,} values", "more (an enormous file)", path)
        if depth > self.max_depth:
            raise self.fail(pos, f"nesting at most {self.max_depth} deep", "deeper", path)
        char = self.text[pos:pos + 1]
        if char == "{":
            return self.mapping(pos + 1, path, depth)
        if char == "[":
            return self.sequence(pos + 1, path, depth)
        if char == '"':
            return self.string(pos, path)
        return self.scalar(pos, path)

    def string(self, pos: int, path: str) -> tuple[str, int]:
        try:
            text, end = scanstring(self.text, pos + 1, True)
        except ValueError as exc:  # json.JSONDecodeError: an unterminated string, a bad escape
            at, problem = getattr(exc, "pos", pos), getattr(exc, "msg", str(exc))
            raise self.fail(at, "a well-formed JSON string", problem, path) from None
        if _LONE_SURROGATE.search(text):
            raise self.fail(pos, "a string whose \\u escapes form whole characters",
                            "a lone UTF-16 surrogate", path)
        return text, end

    def scalar(self, pos: int, path: str) -> tuple[Any, int]:
        word = _WORD.match(self.text, pos)
        if word is not None:
            if word.group() in _LITERALS:
                return _LITERALS[word.group()], word.end()
            if word.group() in _NOT_NUMBERS:
                raise self.fail(pos, "a finite number (JSON has no NaN or Infinity)", word.group(), path)
            raise self.fail(pos, "a JSON value", self.found_at(pos), path)
        number = _NUMBER.match(self.text, pos)
        if number is None:
            raise self.fail(pos, "a JSON value", self.found_at(pos), path)
        written = number.group()
        if number.group(1) is None and number.group(2) is None:
            if len(written.lstrip("-")) > MAX_INT_DIGITS:
                raise self.fail(pos, f"an integer of at most {MAX_INT_DIGITS} digits",
                                f"{len(written.lstrip('-')):,} digits", path)
            return int(written), number.end()
        value = float(written)
        if math.isinf(value):
            raise self.fail(pos, "a number a 64-bit float can hold", written[:40], path)
        return value, number.end()

    def sequence(self, pos: int, path: str, depth: int) -> tuple[list[Any], int]:
        out: list[Any] = []
        pos = self.ws(pos)
        if self.text[pos:pos + 1] == "]":
            return out, pos + 1
        while True:
            item, pos = self.value(self.ws(pos), f"{path}[{len(out)}]", depth + 1)
            out.append(item)
            pos = self.ws(pos)
            char = self.text[pos:pos + 1]
            if char == "]":
                return out, pos + 1
            if char != ",":
                raise self.fail(pos, "',' or ']' in an array", self.found_at(pos), path)
            pos += 1

    def mapping(self, pos: int, path: str, depth: int) -> tuple[dict[str, Any], int]:
        out: dict[str, Any] = {}
        pos = self.ws(pos)
        if self.text[pos:pos + 1] == "}":
            return out, pos + 1
        while True:
            if self.text[pos:pos + 1] != '"':
                raise self.fail(pos, "a quoted key in an object", self.found_at(pos), path)
            key_at = pos
            key, pos = self.string(pos, path)
            sub = child_path(path, key)
            if key in out:
                raise self.fail(key_at, "each key once", f"a second {key!r}", sub)
            pos = self.ws(pos)
            if self.text[pos:pos + 1] != ":":
                raise self.fail(pos, "':' after a key", self.found_at(pos), sub)
            self.lines[sub] = self.line(key_at)
            out[key], pos = self.value(self.ws(pos + 1), sub, depth + 1)
            pos = self.ws(pos)
            char = self.text[pos:pos + 1]
            if char == "}":
                return out, pos + 1
            if char != ",":
                raise self.fail(pos, "',' or '}' in an object", self.found_at(pos), path)
            pos = self.ws(pos + 1)


def parse_json(text: str, file: str, *, max_nodes: int, max_depth: int) -> tuple[Any, dict[str, int]]:
    """The value of ``text`` and the line of each key path; InputError naming ``file`` and the
    line otherwise. Nesting is bounded by ``max_depth`` before Python's own recursion limit."""
    parser = _Parser(text, file, max_nodes, max_depth)
    return parser.document(), parser.lines

"""Read YAML and JSON into plain values, remembering the line of every key path.

A ``.json`` file goes to the strict JSON reader (``harness._common.jsonread``) whatever its size;
everything else is YAML. Both share the byte, node and depth bounds below, and both refuse
what no suite file means: duplicate keys, non-finite numbers, integers past ``MAX_INT_DIGITS``.

PyYAML shares an aliased node instead of copying it, so an alias bomb (``a: &a [*a, *a]``,
nine levels deep) costs little memory to load but billions of steps to walk. We therefore
compose the node graph ourselves and construct values while counting every node *after*
alias expansion; past ``max_nodes`` the file is refused with a clear error. Recursive
anchors, duplicate keys and non-string keys are refused too: none has a meaning in a case file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness._common.jsonread import MAX_INT_DIGITS, child_path, parse_json
from harness._errors import InputError, Place

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_NODES", "Document", "LineMap", "child_path", "load_document", "load_text"]

MAX_NODES = 1_000_000
MAX_DEPTH = 200
MAX_BYTES = 64 * 1024 * 1024

_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class LineMap:
    """Key path -> 1-based line, for naming the place of a schema error."""

    lines: dict[str, int] = field(default_factory=dict)

    def line_of(self, path: str) -> int | None:
        """The line of ``path`` or of its nearest ancestor that has one."""
        while True:
            if path in self.lines:
                return self.lines[path]
            if not path:
                return None
            path = _parent(path)


@dataclass
class Document:
    """A loaded file: its value and where each key path stands in it."""

    file: str
    value: Any
    lines: LineMap

    def place(self, path: str) -> Place:
        return Place(self.file, self.lines.line_of(path), path)


_BINARY = "tag:yaml.org,2002:binary"
_STR = "tag:yaml.org,2002:str"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


def _parent(path: str) -> str:
    cut = max(path.rfind("."), path.rfind("["))
    return path[:cut] if cut > 0 else ""


class _Builder:
    def __init__(self, file: str, max_nodes: int, max_depth: int, numeric_keys: bool = False) -> None:
        self.file = file
        self.numeric_keys = numeric_keys
        self.max_nodes = max_nodes
        self.max_depth = max_depth
        self.count = 0
        self.lines = LineMap()
        self.scalars: Any = yaml.constructor.SafeConstructor()
        self.active: set[int] = set()

    def build(self, node: yaml.Node, path: str, depth: int) -> Any:
        self.count += 1
        line = node.start_mark.line + 1
        self.lines.lines.setdefault(path, line)
        if self.count > self.max_nodes:
            raise InputError(Place(self.file, line, path), f"at most {self.max_nodes:,} values after expanding "
                             "YAML aliases", "more (an alias bomb or an enormous file)")
        if depth > self.max_depth:
            raise InputError(Place(self.file, line, path), f"nesting at most {self.max_depth} deep", "deeper")
        if isinstance(node, yaml.ScalarNode):
            if node.tag == _STR:  # most scalars: PyYAML's constructor would return this same text
                return node.value
            return self._scalar(node, Place(self.file, line, path))
        if id(node) in self.active:
            raise InputError(Place(self.file, line, path), "a YAML alias that is not its own ancestor",
                             "a recursive alias")
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.build(n, child_path(path, i), depth + 1) for i, n in enumerate(node.value)]
            return self._mapping(node, path, depth)
        finally:
            self.active.discard(id(node))

    def _scalar(self, node: yaml.ScalarNode, place: Place) -> Any:
        _check_digits(node, place)
        if node.tag == _BINARY:
            raise InputError(place, "a JSON value (text, number, true/false, null, list or mapping)",
                             "binary data (!!binary)")
        try:
            value = self.scalars.construct_object(node)
        except ValueError as exc:  # int() past Python's own digit limit, and the like
            raise InputError(place, "a plain YAML value", str(exc)[:200]) from None
        except (KeyError, AttributeError, TypeError):  # PyYAML's own failure on `!!bool x`, `!!timestamp x`
            raise InputError(place, f"a value that its tag {node.tag.rsplit(':', 1)[-1]} can read",
                             repr(node.value)[:200]) from None
        if node.tag == _TIMESTAMP:
            # JSON has no dates, and tool schemas travel as JSON: `default: 2024-01-01` is the text
            # the user wrote, not a date object no pipeline could serialise
            return node.value
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(place, "a finite number (no suite file means NaN or infinity)", f"the number {value}")
        return value

    def _mapping(self, node: yaml.Node, path: str, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self._key(key_node, path, depth, out)
            sub = child_path(path, key)
            self.lines.lines[sub] = key_node.start_mark.line + 1
            out[key] = self.build(value_node, sub, depth + 1)
        return out

    def _key(self, key_node: yaml.Node, path: str, depth: int, taken: dict[str, Any]) -> str:
        """A mapping's key: a plain string (or, with numeric_keys, an integer as written) not taken."""
        line = key_node.start_mark.line + 1
        if key_node.tag == "tag:yaml.org,2002:merge":
            raise InputError(Place(self.file, line, path), "plain keys", "a YAML merge key (<<)")
        key = self.build(key_node, path, depth + 1)
        if self.numeric_keys and isinstance(key, int) and not isinstance(key, bool):
            key = key_node.value  # as written: OpenAPI's unquoted `200:` status codes
        if not isinstance(key, str):
            raise InputError(Place(self.file, line, path), "a string key", f"{type(key).__name__} {key!r}")
        if key in taken:
            raise InputError(Place(self.file, line, child_path(path, key)), "each key once", f"a second {key!r}")
        return key


def _check_digits(node: yaml.ScalarNode, place: Place) -> None:
    """An integer longer than MAX_INT_DIGITS is refused before Python spends time parsing it."""
    if node.tag != "tag:yaml.org,2002:int":
        return
    digits = sum(c.isdigit() for c in node.value)
    if digits > MAX_INT_DIGITS:
        raise InputError(place, f"an integer of at most {MAX_INT_DIGITS} digits", f"{digits:,} digits")


def load_text(
    text: str, file: str, *, max_nodes: int = MAX_NODES, max_depth: int = MAX_DEPTH, numeric_keys: bool = False,
    json: bool | None = None,
) -> Document:
    """Parse ``text``: strict JSON when ``json`` (by default: when ``file`` ends in ``.json``),
    YAML otherwise; ``file`` names it in errors. ``numeric_keys`` reads an unquoted integer YAML
    key as the text it was written as (OpenAPI status codes)."""
    if len(text) > MAX_BYTES:
        raise InputError(Place(file), f"a text of at most {MAX_BYTES:,} characters", f"{len(text):,}")
    if file.endswith(".json") if json is None else json:
        value, lines = parse_json(text.removeprefix("\ufeff"), file, max_nodes=max_nodes, max_depth=max_depth)
        return Document(file, value, LineMap(lines))
    node = _compose(text, file, max_depth)
    if node is None:
        return Document(file, None, LineMap())
    builder = _Builder(file, max_nodes, max_depth, numeric_keys)
    try:
        value = builder.build(node, "", 0)
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        raise InputError(Place(file, mark.line + 1 if mark else None), "a plain YAML value", str(exc.problem)) from None
    return Document(file, value, builder.lines)


def _compose(text: str, file: str, max_depth: int) -> yaml.Node | None:
    """YAML's node graph (aliases not yet expanded), or None for an empty text."""
    try:
        return yaml.compose(text, Loader=_SafeLoader)
    except yaml.MarkedYAMLError as exc:
        raise _malformed(exc, file, max_depth) from None
    except yaml.YAMLError as exc:
        raise InputError(Place(file), "well-formed YAML", str(exc)) from None


def _malformed(exc: yaml.MarkedYAMLError, file: str, max_depth: int) -> InputError:
    mark = exc.problem_mark or exc.context_mark
    place = Place(file, mark.line + 1 if mark is not None else None)
    problem = str(exc.problem or exc.context)
    if "nesting depth" in problem:  # libyaml's own limit, hit before ours can count
        return InputError(place, f"nesting at most {max_depth} deep", "deeper (past libyaml's limit)")
    return InputError(place, "well-formed JSON" if file.endswith(".json") else "well-formed YAML", problem)


def load_document(path: Path, *, display: str | None = None, numeric_keys: bool = False, **limits: int) -> Document:
    """Load a YAML or JSON file (by its suffix), at most ``MAX_BYTES`` of it."""
    name = display or str(path)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise InputError(Place(name), f"a file of at most {MAX_BYTES:,} bytes", f"{size:,} bytes")
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(Place(name), "UTF-8 text", f"undecodable byte at {exc.start}") from None
    except OSError as exc:
        raise InputError(Place(name), "a readable file", exc.strerror or str(exc)) from None
    return load_text(text, name, numeric_keys=numeric_keys, json=path.suffix == ".json", **limits)

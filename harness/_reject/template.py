"""Location templates: the place a provider message names, in the provider's own spelling.

``tools.{0}.custom.input_schema`` renders, for a hit whose selector captured 13 at its first
wildcard, as ``tools.13.custom.input_schema``. ``{path}`` stands for the walked subschema path
in the rule's path style. Extraction runs the other way: it turns a template into a regex and
pulls every place a message names out of it, so a check can compare them with where a rule
fired on the recorded body (``tools.1...`` in the message is ``tools[1]`` in the body).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache

__all__ = ["Named", "extract", "normalize", "render"]

_HOLE = re.compile(r"\{(\d|path)\}")
_VALUE = r"([^\s.\[\]'\"`(),:]+)"

Named = dict[str, str]
"""One place named in a message: hole name ("0", "1", "path") -> the text found there."""


def render(template: str, captures: Mapping[str, str]) -> str:
    return _HOLE.sub(lambda m: captures.get(m.group(1), m.group(0)), template)


@cache
def _regex(template: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    parts = _HOLE.split(template)  # literal, hole, literal, ..., literal: a hole is always followed
    out = ""
    names: list[str] = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out += re.escape(part)
        else:
            names.append(part)
            out += _hole(part, parts[i + 1])
    # a template ending in a word must not match inside a longer word (parameters vs parametersX)
    return re.compile(out + r"(?![0-9A-Za-z_])" if _ends_in_word(template) else out), tuple(names)


def _hole(name: str, literal_after: str) -> str:
    if name != "path":
        return _VALUE
    # a path runs until the literal that follows the hole (or to a word break)
    return r"(.*?)" if literal_after else r"([^\s'\"`:]*)"


def _ends_in_word(template: str) -> bool:
    return bool(template) and (template[-1].isalnum() or template[-1] == "_")


def extract(template: str, texts: list[str]) -> list[Named]:
    """Every place ``template`` finds in ``texts``, as hole -> text."""
    pattern, names = _regex(template)
    found: list[Named] = []
    for text in texts:
        for m in pattern.finditer(text):
            found.append({name: m.group(i + 1) for i, name in enumerate(names)})
    return found


def normalize(text: str) -> str:
    """Compare paths loosely: providers differ in quotes and spaces (``('a','b')`` vs ``('a', 'b')``)."""
    return re.sub(r"[\s'\"]", "", text)

"""A schema error in a suite file reads as words: the place, what the keyword expects, what was found."""

from __future__ import annotations

import jsonschema

from harness._common.schemacheck import _describe

SCHEMA = {"type": "object", "additionalProperties": False, "required": ["a"], "properties": {
    "a": {"type": "string"}, "b": {"enum": ["x", 1, None]}, "c": {"const": {"k": 1}}, "d": {"pattern": "^z+$"},
    "e": {"type": "array", "minItems": 2}, "f": {"type": "string", "minLength": 3},
    "g": {"type": "object", "minProperties": 1}, "h": {"type": "integer"}, "l": {"maximum": 3},
    "i": {"anyOf": [{"type": "string"}, {"type": "integer"}], "title": "a name or a number"},
    "k": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}


def test_each_keyword_says_what_it_expects_in_words() -> None:
    value = {"b": "y", "c": {"k": 2}, "d": "zza", "e": [1], "f": "ab", "g": {}, "h": "no", "l": 9, "i": [],
             "k": None, "zz": 1}
    errors = sorted(jsonschema.Draft202012Validator(SCHEMA).iter_errors(value),
                    key=lambda e: (list(map(str, e.path)), e.validator))
    assert [_describe(e) for e in errors] == [
        ("zz", "one of the keys a, b, c, d, e, f, g, h, i, k, l", "unknown key 'zz'"),
        ("", "the key 'a'", "it missing"),
        ("b", 'one of "x", 1, null', 'string "y"'),
        ("c", '{"k": 1}', 'object {"k": 2}'),
        ("d", "a string matching ^z+$", 'string "zza"'),
        ("e", "minItems 2", "array [1]"),
        ("f", "minLength 3", 'string "ab"'),
        ("g", "minProperties 1", "object {}"),
        ("h", "a value of type integer", 'string "no"'),
        ("i", "a name or a number", "array []"),
        ("k", "a known form", "null null"),
        ("l", "maximum 3", "number 9"),
    ]

"""Malformed shapes in an untrusted document: each refused with one InputError naming the
document, the place (key path, and the line a YAML or JSON file gives), what was expected and
what was found. Never a traceback, never a silent loss, never a string iterated as a list."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness._errors import InputError
from harness._sources.openapi import import_document

from .conftest import Doc, Imported, api, body, ok, tool

P = "#/components/parameters/"
RB = "#/components/requestBodies/B"

PARAMETERS_AS_A_STRING = """\
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: a
      parameters: notalist
      responses: {"200": {description: ok}}
"""

PATH_ITEM_AS_A_LIST = """\
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    - get
"""


def _refusal(write: Callable[..., Path], text: str, name: str = "api.yaml") -> InputError:
    with pytest.raises(InputError) as caught:
        import_document(write(text, name), display=name)
    return caught.value


def test_parameters_given_as_a_string_are_refused_as_not_a_list(write: Callable[..., Path]) -> None:
    error = _refusal(write, PARAMETERS_AS_A_STRING)
    assert str(error.place) == 'api.yaml:7 at paths."/a".get.parameters'
    assert error.expected == "a list of parameters"
    assert error.found == "the string 'notalist'"


def test_a_path_item_given_as_a_list_is_reported_not_dropped(write: Callable[..., Path]) -> None:
    error = _refusal(write, PATH_ITEM_AS_A_LIST)
    assert str(error.place) == 'api.yaml:4 at paths."/a"'
    assert (error.expected, error.found) == ("a path item object", "a list of 1 item")


@pytest.mark.parametrize(("components", "cycle"), [
    ({"A": {"$ref": P + "A"}}, f"{P}A -> {P}A"),
    ({"A": {"$ref": P + "B"}, "B": {"$ref": P + "C"}, "C": {"$ref": P + "A"}},
     f"{P}A -> {P}B -> {P}C -> {P}A"),
])
def test_a_recursive_parameter_ref_is_reported_as_a_recursive_reference(
        imported: Imported, components: Doc, cycle: str) -> None:
    doc = api({"/a": {"get": {"operationId": "a", "parameters": [{"$ref": P + "A"}], "responses": ok()}}},
              components={"parameters": components})
    with pytest.raises(InputError) as caught:
        imported(doc)
    assert caught.value.place.path == 'paths."/a".get.parameters[0]'
    assert caught.value.found == f"a recursive reference: {cycle}"
    assert "without a name" not in str(caught.value)


@pytest.mark.parametrize("text", ["", "# only a comment\n", "null\n"])
def test_an_empty_document_says_what_was_expected(write: Callable[..., Path], text: str) -> None:
    error = _refusal(write, text)
    assert error.expected == "an OpenAPI 3.x document (an object with openapi and paths)"
    assert error.found == "an empty document"
    assert "NoneType" not in str(error)


def _op(**fields: Any) -> Doc:
    return api({"/a": {"post": {"operationId": "a", "responses": ok(), **fields}}})


def _with(doc: Doc, **extra: Any) -> Doc:
    return {**doc, **extra}


A = 'paths."/a"'
OP = f"{A}.post"
GOOD_PARAM = {"name": "q", "in": "query", "schema": {"type": "string"}}

# (scenario, document, key path named, expected (a part), found (a part))
MALFORMED: list[tuple[str, Any, str, str, str]] = [
    ("a list as the document", [1, 2], "", "an OpenAPI 3.x document", "a list of 2 items"),
    ("a string as the document", "\"just text\"", "", "an OpenAPI 3.x document", "the string 'just text'"),
    ("no openapi key", {"paths": {}}, "openapi", "an OpenAPI 3.0 or 3.1 document", "no openapi key"),
    ("an unquoted version", {"openapi": 3.1, "paths": {}}, "openapi", "quoted", "the number 3.1"),
    ("no paths", {"openapi": "3.0.3"}, "paths", "paths: an object", "no paths key"),
    ("paths as a list", {"openapi": "3.0.3", "paths": []}, "paths", "paths: an object", "an empty list"),
    ("paths as null", {"openapi": "3.0.3", "paths": None}, "paths", "paths: an object", "null"),
    ("a path item as a string", api({"/a": "get"}), A, "a path item object", "the string 'get'"),
    ("a path item as null", api({"/a": None}), A, "a path item object", "null"),
    ("a path item field unknown", api({"/a": {"GET": {}}}), f"{A}.GET", "a path item field", "the key 'GET'"),
    ("a path item ref to a list", _with(api({"/a": {"$ref": "#/x-items"}}), **{"x-items": [1]}),
     "x-items", "a path item object (reached by the $ref at paths.\"/a\")", "a list of 1 item"),
    ("a path item ref naming nothing", api({"/a": {"$ref": "#/nowhere"}}), f'{A}."$ref"',
     "a $ref naming a place in the document", "'#/nowhere'"),
    ("a path item ref that is remote", api({"/a": {"$ref": "https://example.invalid/p"}}), f'{A}."$ref"',
     "only local $refs", "https://example.invalid/p"),
    ("a path item ref that is a number", api({"/a": {"$ref": 7}}), f'{A}."$ref"', "a $ref string", "the number 7"),
    ("parameters as a string under a path item ref",
     _with(api({"/a": {"$ref": "#/components/x-items/A~1b"}}),
           components={"x-items": {"A/b": {"get": {"parameters": "notalist"}}}}),
     'components.x-items."A/b".get.parameters', "a list of parameters", "the string 'notalist'"),
    ("an operation as a string", api({"/a": {"get": "fetch"}}), f"{A}.get", "an operation object",
     "the string 'fetch'"),
    ("an operation as a list", api({"/a": {"get": []}}), f"{A}.get", "an operation object", "an empty list"),
    ("an operationId as a number", api({"/a": {"get": {"operationId": 12}}}), f"{A}.get.operationId",
     "a string operationId", "the number 12"),
    ("path-item parameters as an object", api({"/a": {"parameters": {"q": 1}, "get": {"responses": ok()}}}),
     f"{A}.parameters", "a list of parameters", "an object with keys q"),
    ("a parameter as a string", _op(parameters=["q"]), f"{OP}.parameters[0]", "a parameter object",
     "the string 'q'"),
    ("a parameter without a name", _op(parameters=[{"in": "query"}]), f"{OP}.parameters[0]",
     "a parameter with a string name", "without name"),
    ("a parameter named by a number", _op(parameters=[{"name": 5, "in": "query"}]), f"{OP}.parameters[0].name",
     "a parameter with a string name", "the number 5"),
    ("a parameter without in", _op(parameters=[{"name": "q"}]), f"{OP}.parameters[0]",
     "in: path, query, header or cookie", "parameter 'q' without in"),
    ("a parameter in a list", _op(parameters=[{"name": "q", "in": ["query"]}]), f"{OP}.parameters[0].in",
     "in: path, query, header or cookie", "a list of 1 item"),
    ("a parameter required as a string", _op(parameters=[{**GOOD_PARAM, "required": "yes"}]),
     f"{OP}.parameters[0].required", "required: true or false", "the string 'yes'"),
    ("a parameter schema as a string", _op(parameters=[{**GOOD_PARAM, "schema": "string"}]),
     f"{OP}.parameters[0].schema", "a schema", "the string 'string'"),
    ("a parameter content as a list", _op(parameters=[{"name": "q", "in": "query", "content": []}]),
     f"{OP}.parameters[0].content", "a content object", "an empty list"),
    ("a parameter ref to a string", _with(_op(parameters=[{"$ref": P + "Q"}]), components={"parameters": {"Q": "q"}}),
     "components.parameters.Q", "(reached by the $ref at paths.\"/a\".post.parameters[0])", "the string 'q'"),
    ("a parameter ref without a name", _with(_op(parameters=[{"$ref": P + "Q"}]),
                                             components={"parameters": {"Q": {"in": "query"}}}),
     "components.parameters.Q", "a parameter with a string name", "without name"),
    ("a request body as a string", _op(requestBody="json"), f"{OP}.requestBody", "a request body object",
     "the string 'json'"),
    ("a request body without content", _op(requestBody={"required": True}), f"{OP}.requestBody",
     "a request body with content", "without content"),
    ("a request body content as a list", _op(requestBody={"content": ["application/json"]}),
     f"{OP}.requestBody.content", "a content object", "a list of 1 item"),
    ("a media type as a string", _op(requestBody={"content": {"application/json": "object"}}),
     f'{OP}.requestBody.content."application/json"', "a media type object", "the string 'object'"),
    ("a body schema as a list", _op(requestBody=body([{"type": "string"}])),
     f'{OP}.requestBody.content."application/json".schema', "a schema", "a list of 1 item"),
    ("a body required as a string", _op(requestBody={**body({}), "required": "true"}),
     f"{OP}.requestBody.required", "required: true or false", "the string 'true'"),
    ("a body's required as a string", _op(requestBody=body({"type": "object", "required": "name",
                                                            "properties": {"name": {}}})),
     f'{OP}.requestBody.content."application/json".schema.required', "a list of property names",
     "the string 'name'"),
    ("a body's required holding an object", _op(requestBody=body({"type": "object", "required": [{}],
                                                                  "properties": {"name": {}}})),
     f'{OP}.requestBody.content."application/json".schema.required', "a list of property names",
     "a list of 1 item"),
    ("a body's properties as a list", _op(requestBody=body({"type": "object", "properties": ["a"]})),
     f'{OP}.requestBody.content."application/json".schema.properties', "properties: an object",
     "a list of 1 item"),
    ("a body's oneOf as an object", _op(requestBody=body({"type": "object", "properties": {"a": {}},
                                                          "oneOf": {"required": ["a"]}})),
     f'{OP}.requestBody.content."application/json".schema.oneOf', "oneOf: a list of schemas",
     "an object with keys required"),
    ("a recursive request body ref",
     _with(_op(requestBody={"$ref": RB}), components={"requestBodies": {"B": {"$ref": RB}}}),
     f"{OP}.requestBody", "a $ref that leads to a request body object", "a recursive reference"),
    ("responses as a list", _op(responses=[200]), f"{OP}.responses", "a responses object", "a list of 1 item"),
    ("a 2xx response as a string", _op(responses={"200": "ok"}), f'{OP}.responses.200', "a response object",
     "the string 'ok'"),
    ("a 2xx response content as a string", _op(responses={"201": {"content": "application/json"}}),
     f'{OP}.responses.201.content', "a content object", "the string 'application/json'"),
    ("a 2xx media type as a list", _op(responses={"200": {"content": {"application/json": []}}}),
     f'{OP}.responses.200.content."application/json"', "a media type object", "an empty list"),
    ("a 2xx schema as a number", _op(responses=ok(3)),
     f'{OP}.responses.200.content."application/json".schema', "a schema", "the number 3"),
    ("servers as a string", _with(_op(), servers="https://u:pw@example.invalid"), "servers",
     "a list of servers", "a string (not shown)"),
    ("a server as a string", _with(_op(), servers=["https://u:pw@example.invalid"]), "servers[0]",
     "a server object with a url", "a string (not shown)"),
    ("a server url as a number", _with(_op(), servers=[{"url": 8080}]), "servers[0]", "a server with a string url",
     "the number 8080"),
    ("server variables as a list", _with(_op(), servers=[{"url": "https://x.example", "variables": []}]),
     "servers[0].url", "seed 002's rules", "server variables that are not an object"),
    ("a server variable as a string", _with(_op(), servers=[{"url": "https://{v}.example", "variables": {"v": "x"}}]),
     "servers[0].url", "seed 002's rules", "server variable 'v' that is not an object"),
]


@pytest.mark.parametrize(("scenario", "doc", "where", "expected", "found"), MALFORMED,
                         ids=[row[0] for row in MALFORMED])
def test_each_malformed_shape_is_refused_at_its_place(
        imported: Imported, scenario: str, doc: Any, where: str, expected: str, found: str) -> None:
    with pytest.raises(InputError) as caught:
        imported(doc)
    error = caught.value
    assert error.place.file.endswith("api.json")
    assert error.place.path == where, scenario
    assert error.place.line is not None or where == "", "a JSON file gives a line for every key path"
    assert expected in error.expected, error
    assert found in error.found, error
    assert "pw@" not in str(error)


RICH = api(
    {"/items/{id}": {
        "parameters": [{"$ref": P + "Id"}],
        "servers": [{"url": "https://{region}.example.invalid", "variables": {"region": {"default": "eu"}}}],
        "get": {"operationId": "getItem", "parameters": [{"name": "q", "in": "query", "required": False,
                                                          "content": {"application/json": {"schema": {}}}}],
                "responses": {"200": {"$ref": "#/components/responses/Item"}, "404": {"description": "no"}}},
        "post": {"operationId": "addItem", "requestBody": {"$ref": "#/components/requestBodies/Item"},
                 "responses": ok({"$ref": "#/components/schemas/Item"})},
    },
     "/other": {"$ref": "#/components/x-pathItems/Other"}},
    {"Item": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}},
              "anyOf": [{"required": ["name"]}]}},
    servers=[{"url": "https://api.example.invalid"}],
)
RICH["components"].update({
    "parameters": {"Id": {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}},
    "responses": {"Item": {"description": "an item", "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Item"}}}}},
    "requestBodies": {"Item": body({"$ref": "#/components/schemas/Item"})},
    "x-pathItems": {"Other": {"delete": {"operationId": "dropOther", "responses": ok()}}},
})
ODD_VALUES: list[Any] = [None, "text", 0, True, [], ["x"], {}, {"$ref": "#/components/parameters/Id"}, {"$ref": "#"}]


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in ``value`` (as a tuple of keys and indices), parents before children."""
    out = [path]
    if isinstance(value, dict):
        for key, sub in value.items():
            out += _places(sub, (*path, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            out += _places(sub, (*path, i))
    return out


def _copy(doc: Doc) -> Any:
    """A deep copy of a JSON document through the C codec: a sixth of copy.deepcopy's CPU over
    the 880 variants below."""
    return json.loads(json.dumps(doc))


def _replaced(doc: Doc, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    out = _copy(doc)
    node = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return out


def _without(doc: Doc, path: tuple[Any, ...]) -> Any:
    out = _copy(doc)
    node = out
    for step in path[:-1]:
        node = node[step]
    del node[path[-1]]
    return out


def test_the_rich_document_imports_whole(imported: Imported) -> None:
    result = imported(RICH)
    assert [t["name"] for t in result.tools] == ["getItem", "addItem", "dropOther"]
    assert tool(result, "getItem")["input_schema"]["required"] == ["id"]


# ODD_VALUES by JSON kind: the README tier puts one of each kind at every place, in turn
_KINDS = ([None, "text", 0, True], [[], ["x"]], [{}, {"$ref": "#/components/parameters/Id"}, {"$ref": "#"}])


def variants(every: bool = True) -> list[tuple[str, Any]]:
    """(label, document): each place replaced by each odd value (``every=False``: by one value
    of each kind, taken in turn, so each value still lands at a share of the places), and each
    key or item left out."""
    places = _places(RICH)
    odd = [ODD_VALUES] * len(places) if every else [[kind[i % len(kind)] for kind in _KINDS]
                                                     for i in range(len(places))]
    out = [(f"{place} = {value!r}", _replaced(RICH, place, value)) for place, values in zip(places, odd, strict=True)
           for value in values]
    out += [(f"{place} left out", _without(RICH, place)) for place in places[1:]]
    return out


def import_failures(path: Path, documents: list[tuple[str, Any]]) -> list[str]:
    """Each document written to ``path`` and imported: what raised other than an InputError
    naming ``path``."""
    failures = []
    for label, variant in documents:
        path.write_text(json.dumps(variant), encoding="utf-8")
        try:
            import_document(path)
        except InputError as exc:
            if exc.place.file != str(path):
                failures.append(f"{label}: the error names another file: {exc}")
        except Exception as exc:  # the defect this test exists for
            failures.append(f"{label}: {type(exc).__name__}: {exc}")
    return failures


def test_a_value_of_each_kind_anywhere_gives_a_result_or_one_input_error(write: Callable[..., Path]) -> None:
    """Every place of a document using every feature the importer reads, replaced in turn by a
    scalar, a list and an object (or left out): the import succeeds, or refuses with an
    InputError naming the document. Any other exception is a type assumed and not checked. Every
    odd value at every place (880 documents, about a CPU second) is
    tests/e2e/test_openapi_every_shape.py's."""
    documents = variants(every=False)
    assert len(documents) > 300 and {label.split(" = ")[-1] for label, _ in documents} >= {repr(v) for v in ODD_VALUES}
    failures = import_failures(write(RICH), documents)
    assert not failures, "\n".join(failures[:20])

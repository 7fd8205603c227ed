"""Tool sources: where a case's tools come from.

A case names its tools in one of five forms (the ``source`` definition in cases.schema.json):

    tools: [tool, ...]                                  inline, each tool's shape detected
    tools: {inline: [tool, ...], shape: gemini}         inline, the shape declared
    tools: {file: tools.json, pick: [a, b], shape: X}   a JSON/YAML list, {tools: [...]} (a request
                                                        body), or a Gemini {functionDeclarations}
    tools: {mcp: server.tools.json, pick: [...]}        an MCP ``tools/list`` answer (or any listing)
    tools: {openapi: api.json, operations: [...]}       an OpenAPI 3.0/3.1 document, a tool an operation

A tool may be written in any shape of ``harness._sources.shapes`` (OpenAI Chat Completions and
Responses, Anthropic, Gemini, MCP). Every form resolves to a list of ``{"name", "description",
"input_schema"}`` dicts. Tools from
an OpenAPI document also carry ``openapi``: ``{operation_id, method, path, responses}`` (the
result-pruning subject needs the 2xx response schemas); subjects read tool fields by name, so
this extra key never reaches a request body unless a subject ships it. Paths are relative to
the case file; URLs are refused (the harness never fetches). A path must stay inside the suite
folder, or inside a folder the suite names in ``read_roots`` (suite.yaml), once ``..`` and
symlinks are resolved: a case file cannot make the harness read ``/etc/passwd`` or a key file.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness._common.documents import load_once, made_once
from harness._common.files import confined, read_roots, resolve_path, suite_files
from harness._common.yamlsafe import Document
from harness._errors import InputError, Place
from harness._sources.shapes import SHAPES, converted

__all__ = ["SHAPES", "confined", "read_roots", "resolve_path", "resolve_tools", "suite_files", "tools_from_listing"]


def _listing(value: Any) -> tuple[Any, str]:
    """The tools of a listing and their key path: ``tools`` of ``{tools}`` (a request body too),
    or of an MCP answer's ``result``, a Gemini tool object as a list of one, or the value itself."""
    prefix = ""
    if isinstance(value, dict) and isinstance(value.get("result"), dict):
        value, prefix = value["result"], "result."
    if _gemini_tool(value):
        return value, ""
    if isinstance(value, dict):
        return value.get("tools"), f"{prefix}tools"
    return value, prefix


def _gemini_tool(value: Any) -> bool:
    return isinstance(value, dict) and "tools" not in value and \
        any(k in value for k in ("functionDeclarations", "function_declarations"))


def tools_from_listing(value: Any, place: Place, doc: Document | None = None,
                       shape: str | None = None) -> list[dict[str, Any]]:
    """Tools from a list, ``{tools: [...]}`` or an MCP ``tools/list`` result, each in its
    detected shape (or ``shape``). With the loaded ``doc``, an error names the tool's line."""
    def where(path: str) -> Place:
        return doc.place(path) if doc is not None else Place(place.file, place.line, path)

    listing, prefix = _listing(value)
    if _gemini_tool(listing):
        return converted(listing, "", where, shape)
    if not isinstance(listing, list):
        raise InputError(place, "a list of tools or an object with 'tools'", type(value).__name__)
    return [tool for i, t in enumerate(listing) for tool in converted(t, f"{prefix}[{i}]", where, shape)]


def _pick(tools: list[dict[str, Any]], names: list[str] | None, place: Place) -> list[dict[str, Any]]:
    if not names:
        return tools
    by_name = _by_name(tools, place)
    missing = [n for n in names if n not in by_name]
    if missing:
        known = ", ".join(sorted(by_name)[:12])
        raise InputError(place, f"tool names from the source ({known}...)", f"unknown {missing}")
    return [by_name[n] for n in names]


def _by_name(tools: list[dict[str, Any]], place: Place) -> dict[str, dict[str, Any]]:
    by_name: dict[str, dict[str, Any]] = {}
    for tool in tools:
        if tool["name"] in by_name:  # picking by name would silently drop one of them
            raise InputError(place, "tool names unique in the source to pick from", f"two tools named {tool['name']!r}")
        by_name[tool["name"]] = tool
    return by_name


def resolve_tools(source: Any, case_file: Path, place: Place,
                  roots: Sequence[Path] | None = None, doc: Document | None = None) -> list[dict[str, Any]]:
    """Resolve one case's ``tools`` value to a list of tool dicts; files only inside ``roots``.
    With the case file's ``doc``, an error in an inline tool names that tool's line."""
    if isinstance(source, list) or "inline" in source:
        return _inline_tools(source, place, doc)
    if "openapi" in source:
        return _openapi_tools(source, case_file, place, roots)
    return _listed_tools(source, case_file, place, roots)


def _inline_tools(source: list[Any] | dict[str, Any], place: Place, doc: Document | None) -> list[dict[str, Any]]:
    listing, at, shape = (source, place.path, None) if isinstance(source, list) else \
        (source["inline"], f"{place.path}.inline", source.get("shape"))

    def where(path: str) -> Place:
        return doc.place(path) if doc is not None else Place(place.file, place.line, path)

    return [tool for i, t in enumerate(listing) for tool in converted(t, f"{at}[{i}]", where, shape)]


def _openapi_tools(source: dict[str, Any], case_file: Path, place: Place,
                   roots: Sequence[Path] | None) -> list[dict[str, Any]]:
    from harness._sources import openapi  # local: only suites that use it pay for it

    path = resolve_path(source["openapi"], case_file.parent, place, roots)
    tools = openapi.tools_from_document(path, source.get("operations"), place)
    return _pick(tools, source.get("pick"), place)


def _listed_tools(source: dict[str, Any], case_file: Path, place: Place,
                  roots: Sequence[Path] | None) -> list[dict[str, Any]]:
    """The tools of a ``file:`` or ``mcp:`` listing, picked, as the case's own copy."""
    key = "mcp" if "mcp" in source else "file"
    shape = source.get("shape")  # an MCP dump's entries are detected too: some write input_schema
    path = resolve_path(source[key], case_file.parent, place, roots)
    display = source[key] if Path(source[key]).is_absolute() else str(Path(place.file).parent / source[key])
    doc = load_once(path, display)  # parsed once per run however many cases pick from it
    tools = made_once(("tools", path, display, shape),
                      lambda: tools_from_listing(doc.value, doc.place(""), doc, shape))
    picked = _pick(tools, source.get("pick"), place)
    own: list[dict[str, Any]] = pickle.loads(pickle.dumps(picked))  # the parsed file is shared
    return own

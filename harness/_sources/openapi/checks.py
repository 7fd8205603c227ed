"""Document-wide checks on an untrusted OpenAPI document: path keys and server URLs.

A document decides where requests would go, so both are held to seed 002's rules even though
the harness never sends one. A server URL carrying credentials is refused *without echoing
it*: the message names the place, never the URL, so no secret reaches a report or a log.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from harness._sources.openapi.refs import BadRef, RemoteRef, resolve_pointer
from harness._sources.openapi.shapes import child, describe

__all__ = ["path_key_problem", "placeholders", "server_problems"]

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_NUMERIC_LABEL = re.compile(r"0[xX][0-9a-fA-F]*|\d+")
_DOTTED_QUAD = re.compile(r"^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$")
_BAD_VARIABLE = set("@/\\?#")


def placeholders(path: str) -> list[str]:
    return _PLACEHOLDER.findall(path)


def path_key_problem(path: str) -> str | None:
    """Why ``path`` is not a plain absolute path, or None when it is."""
    if not path.startswith("/"):
        return "a path that does not start with /"
    if "://" in path or path.startswith("//") or "//" in path:
        return "a scheme or an empty segment (//)"
    for char, what in (("?", "a query (?)"), ("#", "a fragment (#)"), ("\\", "a backslash")):
        if char in path:
            return what
    if any(seg in (".", "..") for seg in path.split("/")):
        return "a . or .. segment"
    return None


def _host_problem(host: str) -> str | None:
    """0x7f.1, 0177.0.0.1, 2130706433, 127.1: numbers a resolver may read several ways."""
    labels = host.split(".")
    numeric = bool(host) and all(_NUMERIC_LABEL.fullmatch(label) for label in labels)
    if numeric and not _DOTTED_QUAD.match(host):
        return f"an ambiguous numeric host {host!r} (write a.b.c.d)"
    return None


_URL_RULES = "a server URL within seed 002's rules"


def _kind(value: Any) -> str:
    """``describe`` without a string's text: a server string may carry credentials."""
    return "a string (not shown)" if isinstance(value, str) else describe(value)


def _expand(url: str, variables: Any) -> tuple[str, str | None]:
    if variables is None:
        return url, None
    if not isinstance(variables, dict):
        return url, "server variables that are not an object (name -> variable)"
    for name, spec in variables.items():
        if not isinstance(spec, dict):
            return url, f"server variable {name!r} that is not an object"
        values = [spec.get("default")]
        if isinstance(spec.get("enum"), list):
            values += spec["enum"]
        for value in values:
            if isinstance(value, str) and _BAD_VARIABLE & set(value):
                return url, f"server variable {name!r} with a value holding @, /, \\, ? or #"
        default = values[0] if isinstance(values[0], str) else ""
        url = url.replace("{" + str(name) + "}", default)
    return url, None


def _server_problem(server: Any) -> tuple[str, str] | None:
    """(expected, found) when ``server`` breaks a rule. The URL itself is never in ``found``."""
    if not isinstance(server, dict):
        return "a server object with a url", _kind(server)
    if not isinstance(server.get("url"), str):
        return "a server with a string url", _kind(server["url"]) if "url" in server else "no url"
    url, problem = _expand(server["url"], server.get("variables"))
    if problem:
        return _URL_RULES, problem
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        has_credentials = parts.username is not None or parts.password is not None
    except ValueError:
        return _URL_RULES, "a server url that does not parse"
    if has_credentials or "@" in parts.netloc:
        return _URL_RULES, "a server url carrying credentials (user:password@, not shown): put them in auth"
    problem = _host_problem(host)
    return (_URL_RULES, problem) if problem else None


def _path_items(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(place, object) of each path item, and of the target of a path item's ``$ref`` (its
    servers decide where requests go just the same). Wrong shapes and refs naming nothing are
    the importer's to report; here they are passed over."""
    paths = doc.get("paths")
    out: list[tuple[str, dict[str, Any]]] = []
    for key, item in (paths.items() if isinstance(paths, dict) else ()):
        if not isinstance(item, dict):
            continue
        out.append((child("paths", key), item))
        ref = item.get("$ref")
        if not isinstance(ref, str):
            continue
        try:
            target = resolve_pointer(doc, ref)
        except (RemoteRef, BadRef):
            continue
        if isinstance(target, dict) and target is not item:
            out.append((ref, target))  # a #/pointer: the importer turns it into a key path
    return out


def _server_lists(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    """(place, value) of every ``servers`` of the document, its path items and operations."""
    places: list[tuple[str, Any]] = [("servers", doc.get("servers"))]
    for where, item in _path_items(doc):
        places.append((child(where, "servers"), item.get("servers")))
        for method, op in item.items():
            if isinstance(op, dict) and "servers" in op:
                places.append((child(child(where, method), "servers"), op["servers"]))
    return [(where, servers) for where, servers in places if servers is not None]


def server_problems(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(key path, expected, found) for every server entry that breaks a rule."""
    found: list[tuple[str, str, str]] = []
    for where, servers in _server_lists(doc):
        if not isinstance(servers, list):
            found.append((where, "a list of servers", _kind(servers)))
            continue
        for i, server in enumerate(servers):
            problem = _server_problem(server)
            if problem:
                found.append((child(child(where, i), "url") if problem[0] == _URL_RULES else child(where, i), *problem))
    return found

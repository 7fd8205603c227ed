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

__all__ = ["path_key_problem", "placeholders", "server_problem"]

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_NUMERIC_LABEL = re.compile(r"0[xX][0-9a-fA-F]*|\d+")
_DOTTED_QUAD = re.compile(r"^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$")
_BAD_VARIABLE = set("@/\\?#")


def placeholders(path: str) -> list[str]:
    return _PLACEHOLDER.findall(path)


# in the order they are reported; "//" also catches a scheme's "://"
_PATH_PARTS = (("//", "a scheme or an empty segment (//)"), ("?", "a query (?)"), ("#", "a fragment (#)"),
               ("\\", "a backslash"))


def path_key_problem(path: str) -> str | None:
    """Why ``path`` is not a plain absolute path, or None when it is."""
    if not path.startswith("/"):
        return "a path that does not start with /"
    for part, what in _PATH_PARTS:
        if part in path:
            return what
    if {".", ".."} & set(path.split("/")):
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
    """``url`` with each server variable replaced by its default, or the variables' problem."""
    if variables is None:
        return url, None
    if not isinstance(variables, dict):
        return url, "server variables that are not an object (name -> variable)"
    for name, spec in variables.items():
        problem = _variable_problem(name, spec)
        if problem:
            return url, problem
        default = spec.get("default")
        url = url.replace("{" + str(name) + "}", default if isinstance(default, str) else "")
    return url, None


def _variable_problem(name: Any, spec: Any) -> str | None:
    if not isinstance(spec, dict):
        return f"server variable {name!r} that is not an object"
    enum = spec.get("enum")
    values = [spec.get("default"), *(enum if isinstance(enum, list) else ())]
    if any(isinstance(value, str) and _BAD_VARIABLE & set(value) for value in values):
        return f"server variable {name!r} with a value holding @, /, \\, ? or #"
    return None


def _url_problem(url: str) -> str | None:
    """Why an expanded server URL breaks a rule, or None. The URL itself is never in it."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return "a server url that does not parse"
    if "@" in parts.netloc:  # user@ or user:password@: urlsplit reads both from before an @
        return "a server url carrying credentials (user:password@, not shown): put them in auth"
    return _host_problem(host)


def _server_problem(server: Any) -> tuple[str, str] | None:
    """(expected, found) when ``server`` breaks a rule. The URL itself is never in ``found``."""
    if not isinstance(server, dict):
        return "a server object with a url", _kind(server)
    if not isinstance(server.get("url"), str):
        return "a server with a string url", _kind(server["url"]) if "url" in server else "no url"
    url, problem = _expand(server["url"], server.get("variables"))
    problem = problem or _url_problem(url)
    return (_URL_RULES, problem) if problem else None


def _ref_target(doc: dict[str, Any], item: dict[str, Any]) -> dict[str, Any] | None:
    """The other object a path item's ``$ref`` names, if it names one. Refs naming nothing are
    the importer's to report; here they are passed over."""
    ref = item.get("$ref")
    if not isinstance(ref, str):
        return None
    try:
        target = resolve_pointer(doc, ref)
    except (RemoteRef, BadRef):
        return None
    return target if isinstance(target, dict) and target is not item else None


def _path_items(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(place, object) of each path item, and of the target of a path item's ``$ref`` (its
    servers decide where requests go just the same). Wrong shapes are the importer's to
    report; here they are passed over."""
    paths = doc.get("paths")
    out: list[tuple[str, dict[str, Any]]] = []
    for key, item in (paths.items() if isinstance(paths, dict) else ()):
        if not isinstance(item, dict):
            continue
        out.append((child("paths", key), item))
        target = _ref_target(doc, item)
        if target is not None:
            out.append((item["$ref"], target))  # a #/pointer: the importer turns it into a key path
    return out


def _server_lists(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    """(place, value) of every ``servers`` of the document, its path items and operations."""
    places: list[tuple[str, Any]] = [("servers", doc.get("servers"))]
    for where, item in _path_items(doc):
        places.append((child(where, "servers"), item.get("servers")))
        places += [(child(child(where, key), "servers"), op.get("servers"))
                   for key, op in item.items() if isinstance(op, dict)]
    return [(where, servers) for where, servers in places if servers is not None]


def server_problem(doc: dict[str, Any]) -> tuple[str, str, str] | None:
    """(key path, expected, found) of the first server entry that breaks a rule, or None."""
    for where, servers in _server_lists(doc):
        if not isinstance(servers, list):
            return where, "a list of servers", _kind(servers)
        problem = _list_problem(where, servers)
        if problem:
            return problem
    return None


def _list_problem(where: str, servers: list[Any]) -> tuple[str, str, str] | None:
    """``server_problem`` for one list of servers at ``where``."""
    for i, server in enumerate(servers):
        problem = _server_problem(server)
        if problem:
            at = child(where, i)
            return (child(at, "url") if problem[0] == _URL_RULES else at, *problem)
    return None

"""A third party's plugin, installed as a distribution (the dist-info beside this folder): one
subject and one wire profile, registered through the harness.subjects and harness.wires
entry-point groups, written against the harness's public names only."""

from __future__ import annotations

from typing import Any

from harness import Subject, Wire

__all__ = ["SUBJECT", "WIRE", "new", "old"]


def old(data: Any, lane: Any) -> dict[str, Any]:
    return {"model": lane["model"], "toolbox": {"fns": list(data["tools"])}}


def new(data: Any, lane: Any) -> dict[str, Any]:
    return {"model": lane["model"], "toolbox": {"fns": list(data["tools"])}}


SUBJECT = Subject(name="acme_echo", old="acme_harness_plugin:old", new="acme_harness_plugin:new",
                  wires=frozenset({"acme-chat"}), description="Acme's chat body, the same on both sides")


def _clean(i: int) -> dict[str, Any]:
    return {"name": f"tool_{i}", "schema": {"type": "object", "properties": {}}}


WIRE = Wire("acme-chat", "https://api.acme.invalid/v2/chat", {"model": "acme-1", "prompt": "Use a tool."},
            ("toolbox", "fns"), _clean, validators=("acme",))

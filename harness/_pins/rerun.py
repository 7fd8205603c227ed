"""What a printed id reruns: the node id, and the pytest options the run's pins were judged with.

Every id ``harness run`` prints (a failing pin, a failing verdict, a catches_old pin that passed)
is one pytest item, relative to the project root (``harness._pins.ids``). Plain ``pytest ID``
there reruns it when the run played the working tree's pipelines against new. A run that played
other sides needs the options that say so (``--harness-against=old``, ``--harness-revisions=old:SHA``
for ``--old-ref``/``--new-ref``, ``--harness-versions=V1,V2`` for a version matrix), so its ids are
printed as the whole command:
``pytest --harness-revisions=old:1f2e... 'cases/x.cases.yaml::c[lane]::pin'``.

A failing verdict is rerun by its case x lane's ``expect`` item, which judges the same verdict
(and fails on the same undeclared known rejection).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from harness._provision.matrix import PINS_OPTION

__all__ = ["command", "expect_ids", "pytest_options"]

_EXPECT = "::expect"


def pytest_options(options: Mapping[str, Any]) -> list[str]:
    """The pytest options that play what a run with report.json ``options`` played."""
    out = []
    if options.get("pins_against") == "old":
        out.append("--harness-against=old")
    revisions = options.get("revisions") or {}
    if revisions:
        out.append("--harness-revisions=" + ",".join(f"{side}:{sha}" for side, sha in sorted(revisions.items())))
    versions = options.get("versions") or ()
    if versions:  # a matrix run's ids name a pair (case@1.0.0..2.0.0) only a session given them has
        out.append(f"{PINS_OPTION}={','.join(versions)}")
    return out


def command(nodeid: str, options: Sequence[str]) -> str:
    """``nodeid`` alone when plain pytest reruns it, else the whole command, quoted for a shell."""
    return shlex.join(["pytest", *options, nodeid]) if options else nodeid


def expect_ids(pins: Mapping[str, Any] | None) -> dict[str, str]:
    """``case[lane]`` -> the node id of that case x lane's expect item, from a run's pins section."""
    out: dict[str, str] = {}
    for result in (pins or {}).get("results", ()):
        nodeid = str(result["id"])
        if nodeid.endswith(_EXPECT):
            head = nodeid[: -len(_EXPECT)]
            out[head.rpartition("::")[2]] = nodeid
    return out

"""A side that names a released version: ``{package: "litellm==1.74.0", call: "mod:fn"}``.

It becomes an ordinary "callable in another interpreter" ``PipelineSpec`` whose interpreter is
the provisioned environment's (``harness._provision.envs``), so the rest of the harness (the warm
worker, the protocol, stdout banners moved to stderr) is the existing ``python`` kind.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from harness._model import PipelineSpec
from harness._provision.envs import env_python

__all__ = ["distribution", "package_side", "with_version"]

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?")


def distribution(requirement: str) -> str:
    """``litellm[proxy]==1.74.0`` -> ``litellm[proxy]``: the name and extras, without the version."""
    found = _NAME.match(requirement)
    if found is None:
        raise ValueError(f"not a pip requirement: {requirement!r}")
    return found.group(1) + (found.group(2) or "")


def package_side(raw: dict[str, Any], role: str, root: Path) -> PipelineSpec:
    """The spec of a package side as declared in suite.yaml, paths resolved against ``root``."""
    where = str(root.resolve())
    requirements = (str(raw["package"]).strip(), *(str(r).strip() for r in raw.get("requirements", ())))
    links = tuple(link if "://" in link else str((root / link).resolve()) for link in raw.get("find_links", ()))
    return PipelineSpec(
        kind="python", call=raw["call"], name=raw.get("name", ""), python=env_python(requirements),
        cwd=str((root / raw["cwd"]).resolve()) if "cwd" in raw else where,
        path=tuple(str((root / p).resolve()) for p in raw.get("path", ())), setup=raw.get("setup"),
        env=tuple(sorted(raw.get("env", {}).items())), root=where,
        requirements=requirements, find_links=links, index=bool(raw.get("index", True)),
        start_timeout_s=float(raw.get("start_timeout_s", 60.0)),
    )


def with_version(spec: PipelineSpec, version: str) -> PipelineSpec:
    """The same side with its package pinned to ``version`` (and its own environment)."""
    requirements = (f"{distribution(spec.requirements[0])}=={version}", *spec.requirements[1:])
    return dataclasses.replace(spec, requirements=requirements, python=env_python(requirements))

"""A side that names a released version: ``{package: "litellm==1.74.0", call: "mod:fn"}``.

It becomes an ordinary "callable in another interpreter" ``PipelineSpec`` whose interpreter is
the provisioned environment's (``harness._provision.envs``), so the rest of the harness (the warm
worker, the protocol, stdout banners moved to stderr) is the existing ``python`` kind.

``package`` and each of ``requirements`` go to pip's command line, so each must be a requirement
specifier and nothing else (``requirement_problem``, checked when the suite loads): pip reads
``-r/etc/passwd`` as a file to open and ``--target=...`` as an option, and takes ``x.whl``, a
path, or ``name @ file:///...`` as files to install. Local wheels and folders are ``find_links``.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from harness._errors import ConfigError
from harness._model import PipelineSpec
from harness._provision.envs import env_python

__all__ = ["distribution", "package_side", "requirement_problem", "requirement_problems", "with_version"]

# What pip takes as a file to install when a requirement's name ends with it (pip's archive suffixes)
_ARCHIVES = (".whl", ".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".txz", ".tar.lz",
             ".tlz", ".tar.lzma")
REQUIREMENT = "a requirement specifier (PEP 508: name[extras] and versions, as litellm==1.74.0)"


def requirement_problem(text: object) -> str | None:
    """Why ``text`` may not go to pip as one requirement (an option, a path, a file, a URL, not
    PEP 508), or None when it is a plain requirement specifier."""
    from packaging.requirements import InvalidRequirement, Requirement  # pytest's dependency, and ours

    if not isinstance(text, str) or not text.strip():
        return f"{text!r}: empty"
    given = text.strip()
    if given.startswith("-"):
        return f"{given!r}: an option, which pip would obey"
    try:
        req = Requirement(given)
    except InvalidRequirement as exc:
        return f"{given!r}: not PEP 508 ({str(exc).splitlines()[0]})"
    if req.url:
        return f"{given!r}: a direct reference (name @ URL); put local wheels or folders in find_links"
    if req.name.lower().endswith(_ARCHIVES):
        return f"{given!r}: a file name, which pip would install from the working folder"
    return None


def requirement_problems(side: Any) -> list[tuple[str, str]]:
    """Each bad requirement of a side as declared (its key under the side, and what is wrong)."""
    if not isinstance(side, dict) or "package" not in side:
        return []
    named = [("package", side["package"])]
    named += [(f"requirements[{i}]", r) for i, r in enumerate(side.get("requirements") or ())]
    return [(key, problem) for key, value in named if (problem := requirement_problem(value)) is not None]

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
    pinned = f"{distribution(spec.requirements[0])}=={version}"
    if requirement_problem(pinned) is not None:
        raise ConfigError("versions", version, "a version pip can pin (PEP 440, as 1.74.0)")
    requirements = (pinned, *spec.requirements[1:])
    return dataclasses.replace(spec, requirements=requirements, python=env_python(requirements))

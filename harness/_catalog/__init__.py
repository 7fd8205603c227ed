"""The bundled catalog of recorded rejections, installed with the package: ``rules/`` (the
rejection rules), ``cassettes/`` (the receipts backing them, with ``manifest.yaml``) and
``lanes/`` (the lanes the rules were written for).

In a source checkout these are links to ``cases/rules``, ``cassettes`` and ``cases/lanes``; a
built wheel holds copies. ``harness catalog path`` prints where they are, and the folder is a
suite folder for the commands that take ``--suite`` (``harness cassettes check``).

It is also every suite's default: a suite whose settings name no ``rules`` and that holds no
``*.rules.yaml`` of its own checks its bodies against this catalog (``rules_source``), read from
the installed package wherever the suite is, so a suite in a user's repository gets the same
rejections as one in this checkout without a file copied.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

__all__ = ["BUNDLED", "NONE", "OWN_RULES", "PARTS", "RulesSetting", "RulesSource", "catalog_path", "rules_source"]

PARTS = ("rules", "cassettes", "lanes")

BUNDLED: Literal["bundled"] = "bundled"
"""``rules: bundled``: the catalog installed with the harness, said explicitly."""
NONE: Literal["none"] = "none"
"""``rules: none``: no rejection rules, on purpose (bodies are checked against nothing)."""
OWN_RULES = ("**/*.rules.yaml",)
"""The rules files a suite that names none may hold itself; with none there, the bundled catalog."""

RulesSetting = tuple[str, ...] | Literal["bundled", "none"] | None
"""suite.yaml's ``rules``: globs, one of the two words, or None when it does not say."""


def catalog_path(part: str | None = None) -> Path:
    """The catalog folder, or one of its PARTS, as a real path (resolved, so links are followed)."""
    base = Path(str(resources.files("harness._catalog")))
    found = base / part if part else base
    return found.resolve()


@dataclass(frozen=True)
class RulesSource:
    """Where a suite's rules come from: the ``globs`` under ``folder``. ``bundled``: the
    installed catalog, whose receipts are its own cassettes (used unless the suite names a
    cassettes folder). ``on_purpose``: no globs because the suite said ``rules: none``."""

    folder: Path
    globs: tuple[str, ...]
    bundled: bool = False
    on_purpose: bool = False


def rules_source(root: Path, rules: RulesSetting) -> RulesSource:
    """The rules of the suite folder ``root`` whose settings say ``rules``: named globs as named;
    ``none``, none; ``bundled``, or nothing said and no ``*.rules.yaml`` in the folder, the
    bundled catalog."""
    if rules == NONE:
        return RulesSource(root, (), on_purpose=True)
    if isinstance(rules, tuple):
        return RulesSource(root, rules)
    if rules is None and _holds_rules(root):
        return RulesSource(root, OWN_RULES)
    return RulesSource(catalog_path(), ("rules/*.rules.yaml",), bundled=True)


def _holds_rules(root: Path) -> bool:
    return any(p.is_file() for pattern in OWN_RULES for p in root.glob(pattern))

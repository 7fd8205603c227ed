"""Helpers for the example-suite tests: a scratch copy of the parts of this repository an
example reaches by relative path, and the toolchain each needs (skip reasons when absent)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

__all__ = ["REPO", "built_rust_example", "cargo_missing", "mirror", "node_missing"]

REPO = Path(__file__).resolve().parents[2]
DEBIAN_REGISTRY = Path("/usr/share/cargo/registry")


def node_missing() -> str | None:
    return None if shutil.which("node") else "needs node on PATH (the Node adapter and examples/node)"


def cargo_missing() -> str | None:
    if not shutil.which("cargo"):
        return "needs cargo on PATH (the Rust adapter and examples/rust)"
    if not any(DEBIAN_REGISTRY.glob("serde_json-*/Cargo.toml")):
        return (f"needs Debian's serde_json sources in {DEBIAN_REGISTRY} "
                "(apt-get install librust-serde-json-dev): the crates registry is not reachable")
    return None


# the adapter each example reaches by relative path (examples/python falls back to serve.py by path)
ADAPTERS = {"node": "adapters/node", "rust": "adapters/rust", "python": "harness/adapter"}


def mirror(into: Path, lang: str) -> Path:
    """``examples/<lang>`` and what it names by relative path, copied under ``into``; the suite."""
    skip = shutil.ignore_patterns("target", "node_modules", "__pycache__")
    root = into / "repo"
    for part in (ADAPTERS[lang], "cases/rules", "cassettes", f"examples/{lang}"):
        shutil.copytree(REPO / part, root / part, ignore=skip)
    (root / "pyproject.toml").write_text("")  # the project root the ledger's site files are named from
    return root / "examples" / lang


def built_rust_example(into: Path) -> Path:
    """``examples/rust`` mirrored under ``into`` and built offline: its ``pipes`` binary (the test
    is skipped, saying why, without cargo and Debian's serde_json)."""
    reason = cargo_missing()
    if reason:
        pytest.skip(reason)
    suite = mirror(into, "rust")
    subprocess.run(["cargo", "build", "--release", "--offline", "--quiet"], cwd=suite, check=True, timeout=900)
    return suite / "target" / "release" / "pipes"

"""`harness mutate examples/<lang>` on the example suites (a Rust and a Node pipeline pair served
over the JSON-lines protocol): the ledger runs and is printed, and the repository's tree is
byte-identical afterwards. Skipped, with the reason, where an example or its toolchain is absent."""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness._mutate.foreign import INSTRUMENTER

pytestmark = [pytest.mark.slow, pytest.mark.heavy]  # a whole example's ledger mutated, a cargo build: tests/README.md

REPO = Path(__file__).resolve().parents[2]
HARNESS = [sys.executable, "-c", "from harness._cli.main import main; main()"]
UNWATCHED = {".git", ".hypothesis", "reports", "target", "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache",
             ".ruff_cache", "mutants", ".tox"}


def _hashes(root: Path) -> dict[str, str]:
    """Every file of the repository a run could touch (build output and run folders aside)."""
    out: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in UNWATCHED and not d.startswith(".venv")]
        for name in files:
            path = Path(folder, name)
            if not path.is_symlink():
                out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _toolchain(lang: str) -> str | None:
    """Why the example cannot run here, or None."""
    if not (REPO / "examples" / lang / "suite.yaml").is_file():
        return f"examples/{lang} is not in this tree"
    if lang == "node" and shutil.which("node") is None:
        return "node is not installed"
    if lang == "node" and not (REPO / "examples" / "node" / INSTRUMENTER / "package.json").is_file():
        return "@stryker-mutator/instrumenter is not installed: run `npm ci` in examples/node"
    if lang == "rust":
        if shutil.which("cargo") is None:
            return "cargo is not installed"
        if not glob.glob("/usr/share/cargo/registry/serde_json-*"):
            return "Debian's librust-serde-json-dev is not installed (apt-get install librust-serde-json-dev)"
    return None


@pytest.mark.parametrize("lang", ["rust", "node"])
def test_mutating_an_example_runs_its_ledger_and_leaves_the_tree_byte_identical(tmp_path: Path, lang: str) -> None:
    why = _toolchain(lang)
    if why:
        pytest.skip(why)
    before = _hashes(REPO)
    proc = subprocess.run([*HARNESS, "mutate", f"examples/{lang}", "--out", str(tmp_path / "out")], cwd=REPO,
                          capture_output=True, text=True, check=False, timeout=1800)
    assert _hashes(REPO) == before
    assert "### Ledger" in proc.stdout, proc.stderr[-3000:]
    section = json.loads((tmp_path / "out" / "mutation.json").read_text())
    declared = [m for m in section["mutants"] if m["kind"] == "declared"]
    assert declared and all(m["status"] != "pending" for m in section["mutants"])
    assert section["sandbox"]["outside"] == []
    if lang == "node":  # Stryker's operator mutants of passes.js beside the ledger
        stryker = [m for m in section["mutants"] if m["kind"] == "operator"]
        assert len(stryker) > 50 and all(m["file"] == "examples/node/passes.js" for m in stryker)

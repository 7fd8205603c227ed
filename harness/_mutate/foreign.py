"""Operator mutants of files that are not Python, from the tools their users already know.

- JavaScript / TypeScript: Stryker's own instrumenter (npm ``@stryker-mutator/instrumenter``,
  installed by the project beside its code). ``stryker_list.mjs`` asks it for the mutants of each
  file and prints them as JSON (place, original text, replacement); nothing of Stryker is
  re-implemented here. Stryker replaces a syntax-tree node and the harness splices text, so the
  script re-parses every spliced mutant with the instrumenter's parser and compares its tree with
  the original's with that one node replaced, parenthesising the replacement when the bare text
  would parse otherwise (``a || b && c`` is ``a || (b && c)``); a mutant that splices as neither
  fails the listing, naming it.
- Rust: cargo-mutants, when its binary is on PATH (it is not installable from our registries):
  ``cargo mutants --list --diff --json`` lists each mutant with a unified diff, applied here
  exactly like a ledger's ``diff``.

Each listed mutant becomes a whole-file change applied in the row's sandbox (``apply: file``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from harness._errors import HarnessError, InputError, Place
from harness._mutate.ledger import apply_diff
from harness._mutate.mutants import Mutant, file_mutant

__all__ = ["JS_SUFFIXES", "RUST_SUFFIXES", "STRYKER_LIST", "TREE_CHECKED", "cargo_mutants", "from_cargo_mutants_json",
           "stryker_mutants"]

JS_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")
RUST_SUFFIXES = (".rs",)
STRYKER_LIST = Path(__file__).resolve().parent / "stryker_list.mjs"
INSTRUMENTER = Path("node_modules") / "@stryker-mutator" / "instrumenter"
LIST_TIMEOUT_S = 300.0
# how a listed JS/TS mutant's replacement splices as the node it names (stryker_list.mjs re-parses
# each one): as it is, or parenthesised (`a && b` -> `(a || b)` inside `a && b && c`)
TREE_CHECKED = ("same", "parenthesized")


def _first_line(text: str) -> str:
    stripped = text.strip()
    return stripped.splitlines()[0] if stripped else "(nothing)"


def _instrumenter_home(file: Path, root: Path) -> Path | None:
    """The nearest folder from ``file`` up to ``root`` whose node_modules holds the instrumenter."""
    for folder in [file.parent, *file.parent.parents]:
        if (folder / INSTRUMENTER / "package.json").is_file():
            return folder
        if folder == root:
            break
    return None


def stryker_mutants(file: Path, rel: str, root: Path, place: Place, folder: Path) -> list[Mutant]:
    """Stryker's operator mutants of one JS/TS file (InputError when it cannot list them)."""
    home = _instrumenter_home(file, root)
    if shutil.which("node") is None:
        raise InputError(place, "node on PATH, to list Stryker's mutants of a JS/TS target", "no node")
    if home is None:
        raise InputError(place, f"@stryker-mutator/instrumenter installed beside {rel} (npm install "
                         "--save-dev @stryker-mutator/instrumenter in its package)", "not installed")
    listing = _stryker_listing(file.relative_to(home), home, rel, place)
    source = file.read_text(encoding="utf-8")
    return [_stryker_mutant(item, rel, source, place, folder) for item in listing]


def _stryker_listing(name: Path, home: Path, rel: str, place: Place) -> list[dict[str, Any]]:
    """What stryker_list.mjs prints for one file (``name``, relative to the instrumenter's ``home``)."""
    try:
        proc = subprocess.run(["node", str(STRYKER_LIST), str(name)], cwd=home,
                              capture_output=True, text=True, timeout=LIST_TIMEOUT_S, check=False,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise InputError(place, "Stryker's mutant listing to finish", f"no end within {LIST_TIMEOUT_S:g} s") from None
    if proc.returncode != 0:
        tail = proc.stderr.strip()[-800:]
        raise InputError(place, f"Stryker's instrumenter to list the mutants of {rel}",
                         f"exit code {proc.returncode}: {tail}")
    listing: list[dict[str, Any]] = json.loads(proc.stdout)
    return listing


def _stryker_mutant(item: dict[str, Any], rel: str, source: str, place: Place, folder: Path) -> Mutant:
    start, end = int(item["start"]), int(item["end"])
    if source[start:end] != item["original"]:  # the listing must describe this very text
        raise InputError(place, f"Stryker's listing of {rel} to match the file",
                         f"offset {start}: {item['original'][:40]!r} is not in the file")
    if item.get("tree") not in TREE_CHECKED:  # spliced and re-parsed as the node it names, by stryker_list.mjs
        raise InputError(place, f"each of Stryker's mutants of {rel} checked against the tree it names",
                         f"offset {start}: {item.get('tree')!r}")
    mutated = source[:start] + item["replacement"] + source[end:]
    title = f"{_first_line(item['original'])} -> {_first_line(item['replacement'])}"
    return file_mutant(rel, source, mutated, str(item["mutator"]), title, folder,
                       (int(item["line"]), int(item["column"]), int(item["end_line"]), int(item["end_column"])),
                       str(item["replacement"]))


def from_cargo_mutants_json(listing: list[dict[str, Any]], root: Path, wanted: set[str], folder: Path,
                            place: Place) -> list[Mutant]:
    """Mutants of ``cargo mutants --list --diff --json`` for the files in ``wanted`` (paths
    relative to ``root``, the crate folder); each one's diff applied to the file exactly."""
    return [_cargo_mutant(item, str(item.get("file", "")), root, folder, place) for item in listing
            if str(item.get("file", "")) in wanted]


def _cargo_mutant(item: dict[str, Any], rel: str, root: Path, folder: Path, place: Place) -> Mutant:
    source = (root / rel).read_text(encoding="utf-8")
    try:
        mutated = apply_diff(source, str(item["diff"]))
    except (HarnessError, KeyError) as exc:
        raise InputError(place, f"a cargo-mutants diff that applies to {rel}", str(exc)) from None
    function = (item.get("function") or {}).get("function_name") or ""
    genre = str(item.get("genre", "FnValue"))
    title = f"{function}: {_first_line(str(item.get('replacement', '')))}" if function else genre
    return file_mutant(rel, source, mutated, f"cargo-mutants:{genre}", title, folder, _cargo_span(item),
                       str(item.get("replacement", "")))


def _cargo_span(item: dict[str, Any]) -> tuple[int, int, int, int]:
    """(line, column, end line, end column) as cargo-mutants lists them; 1 for what it leaves out."""
    span = item.get("span") or {}
    start, end = span.get("start", {}), span.get("end", {})
    return int(start.get("line", 1)), int(start.get("column", 1)), int(end.get("line", 1)), int(end.get("column", 1))


def cargo_mutants(files: list[tuple[Path, str, Place]], root: Path, folder: Path) -> list[Mutant]:
    """Operator mutants of Rust targets from cargo-mutants; InputError when it is not installed
    (it is not on our registries: declare Rust mutants in a ledger instead)."""
    if not files:
        return []
    place = files[0][2]
    if shutil.which("cargo-mutants") is None:
        raise InputError(place, "cargo-mutants on PATH for operator mutants of a Rust target (or declared "
                         "mutants in a ledger, which need nothing installed)", "cargo-mutants not installed")
    return [m for crate, members in _by_crate(files, root) for m in _crate_mutants(crate, members, root, folder)]


def _by_crate(files: list[tuple[Path, str, Place]], root: Path) -> list[tuple[Path, list[tuple[Path, str, Place]]]]:
    """The target files grouped by the nearest folder holding a Cargo.toml (else ``root``), sorted."""
    by_crate: dict[Path, list[tuple[Path, str, Place]]] = {}
    for file, rel, where in files:
        crate = next((d for d in file.parents if (d / "Cargo.toml").is_file()), root)
        by_crate.setdefault(crate, []).append((file, rel, where))
    return sorted(by_crate.items())


def _crate_mutants(crate: Path, members: list[tuple[Path, str, Place]], root: Path, folder: Path) -> list[Mutant]:
    """cargo-mutants' mutants of one crate's target files, named relative to the project root."""
    proc = subprocess.run(["cargo", "mutants", "--list", "--diff", "--json"], cwd=crate, capture_output=True,
                          text=True, timeout=LIST_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise InputError(members[0][2], "cargo mutants --list to succeed",
                         f"exit code {proc.returncode}: {proc.stderr.strip()[-800:]}")
    wanted = {f.relative_to(crate).as_posix() for f, _, _ in members}
    found = from_cargo_mutants_json(json.loads(proc.stdout), crate, wanted, folder, members[0][2])
    prefix = crate.relative_to(root).as_posix() if crate != root else ""
    return [_under(m, prefix) for m in found]


def _under(m: Mutant, prefix: str) -> Mutant:
    """A crate-relative mutant as a project-relative one."""
    if not prefix:
        return m
    from dataclasses import replace

    rel = f"{prefix}/{m.file}"
    return replace(m, file=rel, id=f"{prefix}/{m.id}", diff=m.diff.replace(f"a/{m.file}", f"a/{rel}", 1)
                   .replace(f"b/{m.file}", f"b/{rel}", 1))

"""Fail when DESIGN.md's file map and the tracked files disagree (run by tests/unit/test_design_map.py).

Two directions, both over DESIGN.md's two tables ("Top level", and "The package, stage by stage"
whose paths are relative to ``harness/``):

- every tracked file under harness/, subjects/, scripts/, bench/, docs/ and examples/ is mapped:
  a row names its path, or it lies under a folder row. Under a folder row, a Python module (or
  ``.mjs``) of harness/, subjects/, scripts/ or bench/, and a page of docs/, must also be named
  in that row (its stem or file name, in backticks), so a module added to a folder with a row
  still needs its words. Data files (schemas, vendored files, example suites) are covered by
  their folder. An ``__init__.py`` is a package marker unless it defines a public function or
  class; then it needs a row (its own, or its folder's).
- every path DESIGN.md names exists: each row's first column; each backticked or plain path
  (``a/b.py``, ``x.json``, ``dir/``) anywhere, found under the row's folder, ``harness/`` or the
  checkout; each backticked dotted name under ``harness`` (a module, or a name a module defines
  or imports); and each backticked bare name in a folder row of the package table (a module,
  subfolder or a name defined in that folder).

    python scripts/check_design_map.py [ROOT]     exit 0 when they agree, 1 with the differences
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Row", "differences", "main", "rows"]

SCOPE = ("harness", "subjects", "scripts", "bench", "docs", "examples")
NAMED_CODE = (".py", ".mjs")
UNTRACKED = ("reports/",)  # run output, git-ignored: named in the map, never in the checkout
TABLES = {"## Top level": "", "## The package, stage by stage": "harness/"}
_TICKED = re.compile(r"`([^`]+)`")
_PLAIN_PATH = re.compile(r"(?<![\w`/.-])((?:[\w.-]+/)+[\w.-]+\.(?:py|md|json|yaml|mjs|js|toml))\b")
_FILEISH = re.compile(r"^[\w.][\w.-]*(?:/[\w.<>-]*)*$")
_EXTENSIONS = (".py", ".md", ".json", ".yaml", ".yml", ".mjs", ".js", ".toml", ".ini")


@dataclass(frozen=True)
class Row:
    """One table row: the paths its first column names (from the checkout's root) and its text."""

    paths: tuple[str, ...]
    text: str

    def folder(self) -> str | None:
        return next((p for p in self.paths if p.endswith("/")), None)


def rows(design: str) -> list[Row]:
    """Every row of the two file-map tables, first-column paths made relative to the checkout."""
    found: list[Row] = []
    prefix: str | None = None
    for line in design.splitlines():
        if line.startswith("## "):
            prefix = TABLES.get(line.strip())
        elif prefix is not None and line.startswith("| `"):
            first, _, rest = line.strip("|").partition(" | ")
            found.append(Row(tuple(prefix + p for p in _TICKED.findall(first)), rest))
    return found


def _tracked(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", *SCOPE], cwd=root, capture_output=True, text=True, check=True)
    return out.stdout.split()


def _everything(root: Path) -> set[str]:
    """Tracked files of the whole checkout and every folder above them (as ``dir/``)."""
    out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True)
    paths = set(out.stdout.split())
    for path in list(paths):
        parts = path.split("/")
        paths.update("/".join(parts[:i]) + "/" for i in range(1, len(parts)))
    return paths


def _defined(files: list[Path]) -> set[str]:
    """Top-level names the modules define or import (functions, classes, assignments)."""
    return {name for file in files for node in ast.parse(file.read_text()).body for name in _names(node)}


def _names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        return _assigned(node)
    return []


def _assigned(node: ast.Assign | ast.AnnAssign) -> list[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    if "__all__" in names and node.value is not None:
        names += ast.literal_eval(node.value)  # names a package serves lazily through __getattr__
    return names


def _public_init(path: Path) -> bool:
    return any(isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")
               for n in ast.parse(path.read_text()).body)


def _holder(path: str, table: list[Row]) -> Row | None:
    """The row of the deepest folder that holds path."""
    held = [(len(f), r) for r in table for f in r.paths if f.endswith("/") and path.startswith(f)]
    return max(held, key=lambda pair: pair[0])[1] if held else None


def _must_be_named(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    if path.startswith("docs/"):
        return name.endswith(".md")
    return name.endswith(NAMED_CODE) and name != "__init__.py" and not path.startswith("examples/")


def _unmapped(root: Path, tracked: list[str], table: list[Row]) -> list[str]:
    named = {p for r in table for p in r.paths}
    found = (_unmapped_file(root, path, table) for path in tracked if path not in named)
    return [problem for problem in found if problem]


def _unmapped_file(root: Path, path: str, table: list[Row]) -> str | None:
    """Why a file no row names is not mapped by the folder row that holds it, if it is not."""
    holder = _holder(path, table)
    name = path.rsplit("/", 1)[-1]
    own_folder = holder is not None and holder.folder() == path.removesuffix("__init__.py")
    if name == "__init__.py" and _public_init(root / path) and not own_folder:
        return f"{path}: defines public names but has no row (its own or its folder's)"
    if holder is None:
        return f"{path}: under no row"
    if _must_be_named(path) and not {name, name.rsplit(".", 1)[0]} & set(_TICKED.findall(holder.text)):
        return f"{path}: its folder's row ({holder.folder()}) does not name it"
    return None


def _resolves(token: str, bases: list[str], known: set[str]) -> bool:
    token = token.rstrip(".,;:")
    return any((base + token) in known or any(k.startswith(base) and k.endswith("/" + token) for k in known)
               for base in bases)


def _path_tokens(text: str) -> list[str]:
    ticked = [t for t in _TICKED.findall(text)
              if _FILEISH.match(t) and ("/" in t or (t.endswith(_EXTENSIONS) and t not in _EXTENSIONS))]
    return ticked + _PLAIN_PATH.findall(_TICKED.sub(" ", text))


def _dotted_ok(token: str, root: Path, known: set[str]) -> bool:
    parts = token.split(".")
    for cut in range(len(parts), 0, -1):
        module = "/".join(parts[:cut])
        for candidate in (module + ".py", module + "/__init__.py"):
            rest = parts[cut:]
            if candidate in known and (not rest or (len(rest) == 1 and rest[0] in _defined([root / candidate]))):
                return True
    return f'"{token}"' in _source(root)  # an entry-point group the harness reads, not a module


def _source(root: Path) -> str:
    return "\n".join(p.read_text() for p in sorted((root / "harness").rglob("*.py")))


def _missing(root: Path, design: str, table: list[Row], known: set[str]) -> list[str]:
    problems = [f"{p}: a row names it, no such path" for p in _first_columns(table) if p not in known]
    texts = [(r.text, [r.folder() or "", "harness/", ""]) for r in table]
    texts.append((_prose(design), ["harness/", ""]))
    problems += [p for text, bases in texts for p in _text_problems(root, text, bases, known)]
    return problems + [p for row in table for p in _unknown_names(root, row, known)]


def _text_problems(root: Path, text: str, bases: list[str], known: set[str]) -> list[str]:
    """Paths and dotted harness names in one row's text (or the prose) that are not there."""
    paths = [f"{token}: named in DESIGN.md, no such path" for token in _path_tokens(text)
             if _checkable(token) and not _resolves(token, bases, known)]
    dotted = [f"{token}: named in DESIGN.md, no such module or name" for token in _TICKED.findall(text)
              if re.fullmatch(r"harness(\.\w+)+", token) and not _dotted_ok(token, root, known)]
    return paths + dotted


def _prose(design: str) -> str:
    """DESIGN.md outside its tables: the picture and the decisions."""
    return "\n".join(line for line in design.splitlines() if not line.startswith("| "))


def _first_columns(table: list[Row]) -> list[str]:
    return [p for row in table for p in row.paths if not p.startswith(UNTRACKED)]


def _checkable(token: str) -> bool:
    """A path of the checkout, not a placeholder (``<run>/``), the shared folder or run output."""
    return not any(mark in token for mark in ("<", "..")) and not token.startswith(UNTRACKED)


def _unknown_names(root: Path, row: Row, known: set[str]) -> list[str]:
    """Bare names in a package folder row that are neither a module there nor defined there."""
    folder = row.folder()
    if folder is None or not folder.startswith("harness/_"):
        return []
    allowed = _row_names(root, row, folder, known)
    return [f"{folder} row: `{token}` is no module of the folder and no name defined in it"
            for token in _TICKED.findall(row.text) if re.fullmatch(r"[A-Za-z_]\w*", token) and token not in allowed]


def _row_names(root: Path, row: Row, folder: str, known: set[str]) -> set[str]:
    """What a folder row may name: its modules and subfolders by stem, and what they define."""
    inside = [k for k in known if k.startswith(row.paths) and not k.endswith("/")]
    stems = {k.removeprefix(folder).split("/")[0].rsplit(".", 1)[0] for k in inside}
    return stems | _defined([root / k for k in inside if k.endswith(".py")])


def differences(root: Path) -> list[str]:
    """Every disagreement between DESIGN.md's file map and the tracked files, one line each."""
    design = (root / "DESIGN.md").read_text()
    table = rows(design)
    return _unmapped(root, _tracked(root), table) + _missing(root, design, table, _everything(root))


def main(argv: list[str]) -> int:
    found = differences(Path(argv[0]) if argv else Path.cwd())
    for line in found:
        print(line)
    print(f"DESIGN.md's file map: {len(found)} difference(s)", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

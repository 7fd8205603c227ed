"""DESIGN.md's file map names every tracked file, and every path it names exists.

The check is scripts/check_design_map.py; the first test holds this checkout to it, the others
show on a small git tree of their own that it catches each kind of drift.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]

DESIGN = """# Design

## Top level

| path | job |
|---|---|
| `harness/` | the package |
| `docs/` | user docs: `guide.md` |

## The package, stage by stage

| module | stage | job |
|---|---|---|
| `__init__.py` | all | the public surface |
| `_stage/` | build | `alpha` (the first job), `beta` (the second) |

## Decisions

- The stage lives in `_stage/alpha.py`.
"""


def _checker() -> ModuleType:
    if "check_design_map" in sys.modules:
        return sys.modules["check_design_map"]
    spec = importlib.util.spec_from_file_location("check_design_map", ROOT / "scripts" / "check_design_map.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_design_map"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def _tree(tmp_path: Path, design: str, files: list[str]) -> Path:
    (tmp_path / "DESIGN.md").write_text(design)
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text('"""A module."""\n')
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    return tmp_path


FILES = ["harness/__init__.py", "harness/_stage/__init__.py", "harness/_stage/alpha.py",
         "harness/_stage/beta.py", "docs/guide.md"]


def test_this_checkout_s_file_map_matches_its_tracked_files() -> None:
    assert _checker().differences(ROOT) == []


def test_a_tree_that_matches_its_map_has_no_differences(tmp_path: Path) -> None:
    assert _checker().differences(_tree(tmp_path, DESIGN, FILES)) == []


@pytest.mark.parametrize("added", ["harness/_stage/gamma.py", "harness/_other.py", "docs/new-page.md", "bench/x.py"])
def test_a_file_added_without_its_row_or_its_name_in_its_folder_s_row_is_reported(tmp_path: Path, added: str) -> None:
    found = _checker().differences(_tree(tmp_path, DESIGN, [*FILES, added]))
    assert len(found) == 1 and found[0].startswith(added + ":")


def test_an_init_module_with_public_functions_needs_a_row(tmp_path: Path) -> None:
    root = _tree(tmp_path, DESIGN, [*FILES, "harness/_bare/__init__.py"])
    assert _checker().differences(root) == []  # a package marker needs none
    (root / "harness/_bare/__init__.py").write_text("def build() -> None:\n    pass\n")
    assert _checker().differences(root) == ["harness/_bare/__init__.py: defines public names but has no row "
                                             "(its own or its folder's)"]


def test_a_module_a_folder_row_names_that_is_not_there_is_reported(tmp_path: Path) -> None:
    found = _checker().differences(_tree(tmp_path, DESIGN, [f for f in FILES if not f.endswith("beta.py")]))
    assert found == ["harness/_stage/ row: `beta` is no module of the folder and no name defined in it"]


def test_a_moved_path_named_in_the_prose_is_reported(tmp_path: Path) -> None:
    design = DESIGN.replace("`_stage/alpha.py`", "`stage/alpha.py`")
    found = _checker().differences(_tree(tmp_path, design, FILES))
    assert found == ["stage/alpha.py: named in DESIGN.md, no such path"]


def test_a_row_for_a_file_that_is_gone_is_reported(tmp_path: Path) -> None:
    design = DESIGN.replace("| `__init__.py` |", "| `__init__.py`, `_gone.py` |")
    assert _checker().differences(_tree(tmp_path, design, FILES)) == ["harness/_gone.py: a row names it, no such path"]

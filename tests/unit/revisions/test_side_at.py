"""Where a side runs from at a revision: the same declaration, its paths moved into the
revision's tree (``harness._revisions.side_at``), on real folders."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness._model import PipelineSpec
from harness._revisions import Revision, side_at


@pytest.fixture
def rev(tmp_path: Path) -> Revision:
    repo, tree = tmp_path / "repo", tmp_path / "cache" / "worktrees" / "t1"
    for root in (repo, tree):
        (root / "suite").mkdir(parents=True)
        (root / "src").mkdir()
    (repo / ".venv" / "bin").mkdir(parents=True)  # git-ignored: only in the working tree
    (tree / "suite" / "bin").mkdir()
    return Revision("HEAD~1", "a" * 40, "t1", repo.resolve(), tree.resolve())


def test_an_in_process_side_moves_to_another_interpreter_with_the_trees_folders_first(rev: Revision) -> None:
    spec = PipelineSpec(kind="python", call="pipe:body", root=str(rev.repo / "suite"))
    moved = side_at(spec, rev)
    assert not moved.in_process and moved.python == sys.executable and moved.call == "pipe:body"
    assert moved.path == (str(rev.folder / "suite"), str(rev.folder), str(rev.folder / "src"))
    assert moved.cwd == moved.root == str(rev.folder / "suite")


def test_without_a_src_folder_the_path_has_the_suite_folder_and_the_root(rev: Revision) -> None:
    (rev.folder / "src").rmdir()
    moved = side_at(PipelineSpec(kind="python", call="pipe:body", root=str(rev.repo / "suite")), rev)
    assert moved.path == (str(rev.folder / "suite"), str(rev.folder))


def test_a_command_side_keeps_its_argv_and_moves_its_folders_into_the_tree(rev: Revision) -> None:
    spec = PipelineSpec(kind="command", command=("node", "pipe.js", str(rev.repo / "suite" / "bin"), "/usr/bin/x"),
                        name="new", cwd=str(rev.repo / "suite"), path=(str(rev.repo / "src"),),
                        setup="npm ci", root=str(rev.repo / "suite"))
    moved = side_at(spec, rev)
    assert moved.command == ("node", "pipe.js", str(rev.folder / "suite" / "bin"), "/usr/bin/x")
    assert moved.cwd == str(rev.folder / "suite") and moved.path == (str(rev.folder / "src"),)
    assert moved.setup == "npm ci" and moved.name == "new"


def test_a_side_in_another_interpreter_keeps_its_path_first_then_the_trees_folders(rev: Revision) -> None:
    spec = PipelineSpec(kind="python", call="pipe:body", python="python3", path=(str(rev.repo / "suite" / "bin"),),
                        root=str(rev.repo / "suite"), cwd=str(rev.repo / "suite"))
    assert side_at(spec, rev).path == (str(rev.folder / "suite" / "bin"), str(rev.folder / "suite"),
                                       str(rev.folder), str(rev.folder / "src"))


def test_an_interpreter_the_tree_does_not_hold_stays_where_it_is(rev: Revision) -> None:
    venv_python = str(rev.repo / ".venv" / "bin" / "python")
    spec = PipelineSpec(kind="python", call="pipe:body", python=venv_python, root=str(rev.repo / "suite"),
                        cwd=str(rev.repo / "suite"))
    moved = side_at(spec, rev)
    assert moved.python == venv_python  # a git-ignored .venv is not in the worktree
    # the .venv may have the package installed from the working tree: the tree's folders come first
    assert moved.path == (str(rev.folder / "suite"), str(rev.folder), str(rev.folder / "src"))
    on_path = PipelineSpec(kind="python", call="pipe:body", python="python3", root=str(rev.repo / "suite"))
    assert side_at(on_path, rev).python == "python3"


def test_a_distribution_folder_in_the_tree_is_on_the_path_so_its_subjects_are_the_revisions(rev: Revision) -> None:
    # the repository's subjects/ (wire-harness-subjects): at HEAD~1 its code is HEAD~1's
    (rev.folder / "subjects").mkdir()
    (rev.folder / "subjects" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (rev.folder / "notes").mkdir()
    moved = side_at(PipelineSpec(kind="python", call="pipe:body", root=str(rev.repo / "suite")), rev)
    assert moved.path == (str(rev.folder / "suite"), str(rev.folder), str(rev.folder / "src"),
                          str(rev.folder / "subjects"))

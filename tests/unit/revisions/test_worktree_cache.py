"""The worktree cache of `--old-ref` plays a revision only as committed: a cached worktree someone
edited, or one holding a file the revision does not, is made again (with its setup) instead of
playing silently as the revision; the repository's hooks and filter drivers never run in it; and
`harness revisions clean` removes the worktrees with their `.git/worktrees` registrations."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness._cli.main import cli
from harness._revisions import checkout

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git on PATH")


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with one commit: a pipeline module and a file a filter driver would change."""
    monkeypatch.setenv("HARNESS_CACHE", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    (repo / "suite").mkdir(parents=True)
    (repo / "suite" / "pipe.py").write_text("def body(i, lane):\n    return {'model': 'committed'}\n")
    (repo / "notes.txt").write_text("committed bytes\n")
    (repo / ".gitattributes").write_text("*.txt filter=shout\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    return repo.resolve()


def test_an_edited_cached_worktree_is_made_again_not_played_as_the_revision(
        repo: Path, capfd: pytest.CaptureFixture[str]) -> None:
    rev = checkout(repo, "HEAD", "--old-ref")
    (rev.folder / "suite" / "pipe.py").write_text("def body(i, lane):\n    return {'model': 'poisoned'}\n")
    again = checkout(repo, "HEAD", "--old-ref")
    assert again.folder == rev.folder
    assert "committed" in (again.folder / "suite" / "pipe.py").read_text()
    assert "was changed ( M suite/pipe.py); making it again" in capfd.readouterr().err


def test_a_file_the_revision_does_not_hold_makes_the_worktree_again(repo: Path) -> None:
    rev = checkout(repo, "HEAD", "--old-ref")
    (rev.folder / "suite" / "sitecustomize.py").write_text("import os\n")
    checkout(repo, "HEAD", "--old-ref")
    assert not (rev.folder / "suite" / "sitecustomize.py").exists()


def test_a_clean_worktree_is_reused_with_its_setup_and_without_its_bytecode(repo: Path) -> None:
    """Bytecode is checked against its source's time and size only: a crafted ``.pyc`` stamped
    like the committed source would play instead of it, so a reused worktree keeps none."""
    rev = checkout(repo, "HEAD", "--old-ref")
    (rev.folder / "suite" / "__pycache__").mkdir()
    (rev.folder / "suite" / "__pycache__" / "pipe.cpython-311.pyc").write_bytes(b"x")
    stamp = rev.folder.parent.parent / "setup" / f"{rev.tree}-0123.done"
    stamp.parent.mkdir(parents=True)
    stamp.write_text("")
    checkout(repo, "HEAD", "--old-ref")
    assert not (rev.folder / "suite" / "__pycache__").exists() and stamp.exists()
    (rev.folder / "notes.txt").write_text("edited\n")
    checkout(repo, "HEAD", "--old-ref")
    assert not stamp.exists()  # made again: its setup runs again too


def test_the_repositorys_hooks_and_filter_drivers_never_run_for_a_worktree(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _git(repo, "config", "filter.shout.smudge", f"sh -c 'echo smudge >> {marker}; tr a-z A-Z'")
    _git(repo, "config", "filter.shout.clean", f"sh -c 'echo clean >> {marker}; cat'")
    _git(repo, "config", "filter.shout.required", "true")
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(f"#!/bin/sh\necho hook >> {marker}\n")
    hook.chmod(0o755)
    rev = checkout(repo, "HEAD", "--old-ref")
    (rev.folder / "notes.txt").touch()  # a newer mtime: git status would run the clean filter
    checkout(repo, "HEAD", "--old-ref")
    assert not marker.exists(), marker.read_text()
    assert (rev.folder / "notes.txt").read_text() == "committed bytes\n"  # the committed bytes, not smudged


def test_revisions_clean_removes_the_worktrees_and_their_git_registrations(repo: Path, tmp_path: Path) -> None:
    rev = checkout(repo, "HEAD", "--old-ref")
    assert str(rev.folder) in _git(repo, "worktree", "list")
    got = CliRunner().invoke(cli, ["revisions", "clean", str(repo / "suite")])
    assert got.exit_code == 0, got.output
    assert got.stdout.startswith("removed 1 worktree(s), ") and got.stdout.rstrip().endswith(f"of {repo}")
    assert not rev.folder.exists() and not rev.folder.parent.parent.exists()
    assert _git(repo, "worktree", "list").count("\n") == 0  # only the repository's own working tree
    assert not (repo / ".git" / "worktrees").exists() or not any((repo / ".git" / "worktrees").iterdir())
    got = CliRunner().invoke(cli, ["revisions", "clean", str(repo)])
    assert got.exit_code == 0 and got.stdout.startswith(f"nothing cached for {repo}")


def test_revisions_clean_all_prunes_a_registration_whose_folder_is_already_gone(repo: Path, tmp_path: Path) -> None:
    rev = checkout(repo, "HEAD", "--old-ref")
    shutil.rmtree(rev.folder)  # removed by hand: git still lists it
    assert "prunable" in _git(repo, "worktree", "list", "--porcelain")
    got = CliRunner().invoke(cli, ["revisions", "clean", "--all"])
    assert got.exit_code == 0 and f"removed 0 worktree(s), 0.0 MB, of {repo}" in got.stdout, got.output
    assert "prunable" not in _git(repo, "worktree", "list", "--porcelain")
    assert not (tmp_path / "cache" / "revisions").exists() or not any((tmp_path / "cache" / "revisions").iterdir())


def test_a_file_hidden_from_git_status_and_then_edited_makes_the_worktree_again(repo: Path) -> None:
    rev = checkout(repo, "HEAD", "--old-ref")
    subprocess.run(["git", "-C", str(rev.folder), "update-index", "--assume-unchanged", "suite/pipe.py"], check=True)
    (rev.folder / "suite" / "pipe.py").write_text("def body(i, lane):\n    return {'model': 'poisoned'}\n")
    checkout(repo, "HEAD", "--old-ref")
    assert "committed" in (rev.folder / "suite" / "pipe.py").read_text()


def test_a_folder_named_like_a_bytecode_cache_is_a_change(repo: Path) -> None:
    rev = checkout(repo, "HEAD", "--old-ref")
    lookalike = rev.folder / "suite" / "x__pycache__" / "evil.py"
    lookalike.parent.mkdir()
    lookalike.write_text("import os\n")
    checkout(repo, "HEAD", "--old-ref")
    assert not lookalike.exists()

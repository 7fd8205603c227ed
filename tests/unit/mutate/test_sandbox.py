"""The sandbox's pieces on real folders: the scratch copy, listings, a row's writes, put-back."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from harness._errors import ConfigError
from harness._mutate.sandbox import Sandbox, changes, choose_mode, listing, open_rows, overlay_works


def _tree(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "data.txt").write_text("kept\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: main\n")
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / "pkg" / "__pycache__").mkdir()
    (root / "pkg" / "__pycache__" / "mod.pyc").write_bytes(b"\0")
    return root


def test_the_scratch_copy_leaves_out_git_and_caches_and_links_the_virtualenv(tmp_path: Path) -> None:
    original = _tree(tmp_path / "project")
    box = Sandbox.create(original, mode="copy")
    try:
        assert (box.scratch / "pkg" / "mod.py").read_text() == "x = 1\n"
        assert not (box.scratch / ".git").exists()
        assert not (box.scratch / "pkg" / "__pycache__").exists()
        assert (box.scratch / ".venv").is_symlink() and os.readlink(box.scratch / ".venv") == str(original / ".venv")
        assert box.map(original / "pkg" / "mod.py") == str(box.scratch / "pkg" / "mod.py")
        assert box.map("/elsewhere/x") == "/elsewhere/x"
    finally:
        box.remove()
    assert not box.base.exists()


def test_the_run_output_folder_inside_the_project_is_not_copied(tmp_path: Path) -> None:
    original = _tree(tmp_path / "project")
    (original / "reports" / "mutation").mkdir(parents=True)
    (original / "reports" / "mutation" / "results.jsonl").write_text("{}\n")
    box = Sandbox.create(original, skip=[original / "reports" / "mutation"], mode="copy")
    try:
        assert (box.scratch / "reports").is_dir() and not (box.scratch / "reports" / "mutation").exists()
    finally:
        box.remove()


def test_changes_name_created_modified_and_deleted_files(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    before = listing(root)
    (root / "data.txt").unlink()
    (root / "pkg" / "mod.py").write_text("x = 2\n")
    (root / "new.txt").write_text("n")
    assert changes(before, listing(root)) == [
        {"path": "data.txt", "change": "deleted"}, {"path": "new.txt", "change": "created"},
        {"path": "pkg/mod.py", "change": "modified"}]


def test_a_shared_row_in_copy_mode_is_charged_its_writes_and_the_scratch_is_put_back(tmp_path: Path) -> None:
    original = _tree(tmp_path / "project")
    box = Sandbox.create(original, mode="copy")
    try:
        rows = open_rows(box.describe())
        (box.scratch / "data.txt").unlink()
        (box.scratch / "stray.txt").write_text("s")
        found = rows.writes("row-1", "switch", 0)
        assert found == [{"path": "data.txt", "change": "deleted"}, {"path": "stray.txt", "change": "created"}]
        assert (box.scratch / "data.txt").read_text() == "kept\n" and not (box.scratch / "stray.txt").exists()
        assert rows.writes("row-2", "switch", 0) == []
    finally:
        box.remove()


def test_an_unknown_sandbox_mode_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_SANDBOX", "chroot")
    with pytest.raises(ConfigError) as err:
        choose_mode()
    assert "HARNESS_SANDBOX" in str(err.value) and "overlay or copy" in str(err.value)


def test_a_temporary_folder_inside_the_project_is_not_copied_into_itself(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    original = _tree(tmp_path / "project")
    (original / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(original / "tmp"))
    box = Sandbox.create(original, mode="copy")
    try:
        assert box.base.parent == original / "tmp"
        assert (box.scratch / "tmp").is_dir() and list((box.scratch / "tmp").iterdir()) == []
    finally:
        box.remove()


def test_the_sandbox_of_a_killed_run_is_removed_by_the_next_one(tmp_path: Path) -> None:
    import subprocess
    import sys

    original = _tree(tmp_path / "project")
    # a run killed by SIGKILL: its sandbox stays behind, naming a pid that no longer exists
    code = ("import sys; from pathlib import Path; from harness._mutate.sandbox import Sandbox; "
            "print(Sandbox.create(Path(sys.argv[1]), mode='copy').base)")
    left = Path(subprocess.run([sys.executable, "-c", code, str(original)], capture_output=True, text=True,
                               check=True).stdout.strip())
    assert left.is_dir()
    box = Sandbox.create(original, mode="copy")
    try:
        assert not left.exists() and box.base.is_dir()
    finally:
        box.remove()


def _in_row(rows: Any, lane: int, work: Any) -> None:
    """What a row's child does: enter its lane, run ``work`` there, exit."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - reports by its exit code
        code = 1
        try:
            work(rows.enter("k", "switch", lane))
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@pytest.mark.skipif(not overlay_works(), reason="no mount namespaces here")
def test_rows_on_one_lane_share_its_overlay_and_a_row_that_wrote_leaves_the_next_a_clean_scratch(
        tmp_path: Path) -> None:
    original = _tree(tmp_path / "project")
    box = Sandbox.create(original, mode="overlay")
    try:
        rows = open_rows(box.describe())
        with rows.lanes(1):
            _in_row(rows, 0, lambda tree: (tree / "pkg" / "mod.py").read_text())  # reads only
            assert rows.writes("reader", "switch", 0) == []

            def vandal(tree: Path) -> None:
                (tree / "data.txt").unlink()
                (tree / "pkg" / "mod.py").write_text("x = 2\n")
                (tree / "new.txt").write_text("n")

            _in_row(rows, 0, vandal)
            assert rows.writes("vandal", "switch", 0) == [
                {"path": "data.txt", "change": "deleted"}, {"path": "new.txt", "change": "created"},
                {"path": "pkg/mod.py", "change": "modified"}]

            def finds_it_clean(tree: Path) -> None:
                assert (tree / "data.txt").read_text() == "kept\n" and not (tree / "new.txt").exists()
                assert (tree / "pkg" / "mod.py").read_text() == "x = 1\n"

            _in_row(rows, 0, finds_it_clean)
            assert rows.writes("after", "switch", 0) == []
        # one lane made for the reader and the vandal, one more after the vandal's writes
        assert sorted(p.name for p in (box.base / "rows").iterdir()) == ["lane-0", "lane-1"]
        assert (box.scratch / "data.txt").read_text() == "kept\n"  # the scratch itself never changed
    finally:
        box.remove()

"""What changed in the user's tree during a mutation run is judged by content: a file another tool
rewrote with the same bytes (new mtime, same text) is no change; a file whose bytes changed is."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from harness._mutate.runner import content_changes
from harness._mutate.sandbox import changes, listing


def _tree(root: Path) -> None:
    (root / "cassettes").mkdir(parents=True)
    (root / "cassettes" / "a.yaml").write_text("interactions: []\n")
    (root / "cassettes" / "b.yaml").write_text("interactions: []\n")


def test_a_rewrite_with_the_same_bytes_is_not_reported_and_a_real_edit_is(tmp_path: Path) -> None:
    root, scratch = tmp_path / "user", tmp_path / "scratch"
    _tree(root)
    shutil.copytree(root, scratch)  # the sandbox's copy: the tree as the run found it
    before = listing(root)
    for name, text in (("a.yaml", "interactions: []\n"), ("b.yaml", "interactions: [x]\n")):
        path = root / "cassettes" / name
        path.write_text(text)
        os.utime(path, (1, 1))  # a stat listing sees both files change
    found = changes(before, listing(root))
    assert [c["path"] for c in found] == ["cassettes/a.yaml", "cassettes/b.yaml"]
    assert content_changes(found, root, scratch) == [{"path": "cassettes/b.yaml", "change": "modified"}]


def test_created_and_deleted_files_are_reported_whatever_their_bytes(tmp_path: Path) -> None:
    root, scratch = tmp_path / "user", tmp_path / "scratch"
    _tree(root)
    shutil.copytree(root, scratch)
    before = listing(root)
    (root / "cassettes" / "a.yaml").unlink()
    (root / "cassettes" / "c.yaml").write_text("interactions: []\n")
    found = content_changes(changes(before, listing(root)), root, scratch)
    assert found == [{"path": "cassettes/a.yaml", "change": "deleted"},
                     {"path": "cassettes/c.yaml", "change": "created"}]

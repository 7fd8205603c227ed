"""A side's interpreter named by path is kept as the path it is: a virtualenv's ``bin/python``
is a symlink to the base interpreter, and following it would run without the venv."""

from __future__ import annotations

import venv
from pathlib import Path

from harness._load.suite import declared_subjects


def _sides(root: Path, python: str) -> dict[str, str | None]:
    spec = {"old": {"python": python, "call": "m:old"}, "new": {"python": python, "call": "m:new"}, "wires": ["w"]}
    subject = declared_subjects({"subjects": {"s": spec}}, root)["s"]
    return {role: subject.pipeline(role).python for role in ("old", "new")}


def test_a_venvs_python_link_is_kept_not_followed_to_the_base_interpreter(tmp_path: Path) -> None:
    venv.EnvBuilder(symlinks=True, with_pip=False).create(tmp_path / "env")
    python = tmp_path.resolve() / "env" / "bin" / "python"
    assert python.is_symlink() and python.resolve() != python
    assert _sides(tmp_path, "env/bin/python") == {"old": str(python), "new": str(python)}
    assert _sides(tmp_path, "./env/bin/../bin/python")["new"] == str(python)


def test_the_folders_above_the_interpreter_are_still_resolved(tmp_path: Path) -> None:
    (tmp_path / "real" / "bin").mkdir(parents=True)
    (tmp_path / "real" / "bin" / "python").touch()
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    assert _sides(tmp_path, "linked/bin/python")["old"] == str(tmp_path.resolve() / "real" / "bin" / "python")


def test_an_interpreter_named_by_command_stays_a_command(tmp_path: Path) -> None:
    assert _sides(tmp_path, "python3") == {"old": "python3", "new": "python3"}

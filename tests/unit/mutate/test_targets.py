"""Targets and settings: the mutation section is validated with its place, targets resolve to
files and functions, --in-diff keeps only functions a git diff touches, shards are a partition."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness._errors import ConfigError, InputError, InputErrors, Place
from harness._mutate.mutants import shard_keys
from harness._mutate.targets import Target, changed_lines, load_settings, resolve_targets

CODE = ("def a(x):\n    return x + 1\n\n\ndef b(x):\n    return x * 2\n\n\n"
        "class K:\n    def m(self):\n        return 3\n")


def _project(tmp_path: Path, suite_yaml: str = "version: 1\n") -> Path:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(CODE)
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "suite.yaml").write_text(suite_yaml)
    return tmp_path


def test_a_bad_mutation_setting_names_its_line_and_key(tmp_path: Path) -> None:
    root = _project(tmp_path, "version: 1\nmutation:\n  targets: [pkg.mod:a]\n  timeout: {factr: 2}\n")
    with pytest.raises(InputErrors) as info:
        load_settings(root / "suite", {})
    (error,) = info.value.errors
    assert str(error).startswith(
        "suite.yaml:4 at mutation.timeout.factr: expected one of the keys baseline_s, factor, floor_s")


def test_defaults_find_the_project_root_and_leave_verdict_items_out(tmp_path: Path) -> None:
    settings = load_settings(_project(tmp_path) / "suite", {})
    assert settings.root == tmp_path.resolve() and settings.exclude == ("*::expect",)


def test_module_function_and_file_targets_merge_per_file(tmp_path: Path) -> None:
    root = _project(tmp_path)
    place = Place("suite.yaml")
    (target,) = resolve_targets([("pkg.mod:a", place), ("pkg/mod.py:K.m", place)], root)
    assert target == Target(root / "pkg" / "mod.py", "pkg/mod.py", "pkg.mod", frozenset({"a", "K.m"}))
    (whole,) = resolve_targets([("pkg.mod:a", place), ("pkg/mod.py", place)], root)
    assert whole.functions is None


def test_an_unknown_target_function_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"a function of mod.py \(K.m, a, b\)"):
        resolve_targets([("pkg.mod:c", Place("suite.yaml"))], _project(tmp_path))


def test_in_diff_sees_only_the_lines_changed_since_a_revision(tmp_path: Path) -> None:
    root = _project(tmp_path)
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=root, check=True)
    (root / "pkg" / "mod.py").write_text(CODE.replace("x * 2", "x * 3"))
    assert changed_lines(root, "HEAD", ["pkg/mod.py"]) == {"pkg/mod.py": {6}}


def test_a_revision_git_cannot_resolve_is_bad_input_even_with_no_file_to_diff(tmp_path: Path) -> None:
    root = _project(tmp_path)
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=root, check=True)
    with pytest.raises(ConfigError, match="no-such-ref"):
        changed_lines(root, "no-such-ref", [])
    assert changed_lines(root, "HEAD", []) == {}


def test_shards_partition_the_mutants_deterministically() -> None:
    keys = [f"k{i:02d}" for i in range(10)]
    slices = [shard_keys(list(reversed(keys)), k, 3) for k in (1, 2, 3)]
    assert set().union(*slices) == set(keys) and sum(map(len, slices)) == 10
    assert slices[0] == shard_keys(keys, 1, 3)


def _git_project(tmp_path: Path) -> Path:
    root = _project(tmp_path, "version: 1\nmutation:\n  root: ..\n  targets: [pkg/mod.py]\n")
    (root / "suite" / "lanes.yaml").write_text("version: 1\nlanes:\n  - {id: l, wire: w, provider: p}\n")
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=root, check=True)
    return root


def test_in_diff_plans_mutants_only_for_the_functions_the_diff_touches(tmp_path: Path) -> None:
    from harness._mutate.plan import Options, build_plan

    root = _git_project(tmp_path)
    (root / "pkg" / "mod.py").write_text(CODE.replace("x * 2", "x * 3"))
    everything = build_plan(root / "suite", "s", {}, Options(out=tmp_path / "all"))
    touched = build_plan(root / "suite", "s", {}, Options(out=tmp_path / "diff", in_diff="HEAD"))
    assert {m.function for m in everything.mutants} == {"a", "b", "K.m"}
    assert {m.function for m in touched.mutants} == {"b"}


def test_a_declared_change_that_does_not_apply_fails_the_ledger_check_naming_the_mutant(tmp_path: Path) -> None:
    from harness._model import Suite
    from harness._mutate import check_ledgers

    root = _git_project(tmp_path)
    (root / "suite" / "x.ledger.yaml").write_text(
        "version: 1\nmutants:\n  - id: M1-stale\n    title: t\n    site: {file: pkg/mod.py, function: a}\n"
        "    change: {find: 'x + 2', replace: 'x'}\n    killed_by: ['c::p']\n")
    suite = Suite(root=str(root / "suite"), name="s", lanes={}, subjects={}, cases=(),
                  settings={"ledgers": ["**/*.ledger.yaml"]})
    with pytest.raises(InputErrors) as info:
        check_ledgers(suite)
    (error,) = info.value.errors
    assert str(error).startswith("x.ledger.yaml:6 at mutants[0].change.find") and "M1-stale" in str(error)


def test_a_module_in_the_suite_folder_is_named_as_its_subjects_import_it(tmp_path: Path) -> None:
    from harness._mutate.targets import module_name

    root = _project(tmp_path)
    (root / "suite" / "pipes.py").write_text(CODE)
    assert module_name(root, root / "suite" / "pipes.py", root / "suite") == "pipes"
    assert module_name(root, root / "pkg" / "mod.py", root / "suite") == "pkg.mod"
    (target,) = resolve_targets([("pipes:a", Place("x"))], root, root / "suite")
    assert target.module == "pipes" and target.rel == "suite/pipes.py"
    (root / "suite" / "__init__.py").write_text("")  # a package suite keeps its dotted name
    assert module_name(root, root / "suite" / "pipes.py", root / "suite") == "suite.pipes"


def test_a_target_file_that_is_not_utf8_is_an_input_error_at_its_place(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "pkg" / "latin1.py").write_bytes("NAME = 'caf\xe9'\n".encode("latin-1"))
    with pytest.raises(InputError) as info:
        resolve_targets([("pkg/latin1.py", Place("x.ledger.yaml", 2, "targets[0]"))], root)
    assert str(info.value).startswith("x.ledger.yaml:2 at targets[0]: expected a UTF-8 target file, found ")
    assert str(info.value).endswith("latin1.py: byte 0xe9 at offset 11 not UTF-8")


def test_a_folder_under_the_root_with_its_own_pyproject_is_an_import_root_like_src(tmp_path: Path) -> None:
    # the repository's subjects/ distribution: subjects/pkg/mod.py imports as pkg.mod
    from harness._mutate.targets import module_name
    from harness._plugins import distribution_folders

    package = tmp_path / "subjects" / "pkg"
    package.mkdir(parents=True)
    (tmp_path / "subjects" / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text("x = 1\n")
    (tmp_path / "other").mkdir()
    assert distribution_folders(tmp_path) == (tmp_path / "subjects",)
    assert module_name(tmp_path, package / "mod.py") == "pkg.mod"
    assert module_name(tmp_path, package / "__init__.py") == "pkg"


def test_a_suite_naming_nothing_to_mutate_is_a_missing_setting_not_a_run_of_zero_mutants(tmp_path: Path) -> None:
    from harness._mutate.plan import Options, build_plan

    root = _project(tmp_path)  # suite.yaml without a mutation section, no ledger
    with pytest.raises(ConfigError) as info:
        build_plan(root / "suite", "s", {}, Options(out=tmp_path / "out"))
    assert "mutation: {targets: [pkg/module.py]}" in str(info.value)

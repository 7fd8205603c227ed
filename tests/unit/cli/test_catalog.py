"""`harness catalog path`: the bundled catalog folder, and every bundled rules file is in it
(the catalog's rules/ holds one link per file of cases/rules: a new file needs its link)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from harness._catalog import PARTS, catalog_path
from harness._cli.main import cli

REPO = Path(__file__).resolve().parents[3]


def test_catalog_path_prints_the_folder_and_each_part() -> None:
    runner = CliRunner()
    whole = runner.invoke(cli, ["catalog", "path"])
    assert whole.exit_code == 0 and Path(whole.output.strip()) == catalog_path()
    for part in PARTS:
        out = runner.invoke(cli, ["catalog", "path", part])
        assert out.exit_code == 0 and Path(out.output.strip()).is_dir()
    assert runner.invoke(cli, ["catalog", "path", "recipes"]).exit_code == 2


def test_every_bundled_rules_file_is_in_the_catalog() -> None:
    bundled = sorted(p.name for p in (REPO / "cases" / "rules").glob("*.rules.yaml"))
    linked = sorted(p.name for p in (REPO / "harness" / "_catalog" / "rules").glob("*.rules.yaml"))
    assert linked == bundled, "link the new rules file: ln -s ../../../cases/rules/NAME harness/_catalog/rules/"
    for name in linked:
        linked_bytes = (REPO / "harness" / "_catalog" / "rules" / name).read_bytes()
        assert linked_bytes == (REPO / "cases" / "rules" / name).read_bytes()


def test_the_catalog_cassettes_and_lanes_are_the_bundled_ones() -> None:
    assert catalog_path("cassettes") == (REPO / "cassettes").resolve()
    assert catalog_path("lanes") == (REPO / "cases" / "lanes").resolve()

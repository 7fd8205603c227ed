"""``harness cassettes build|check``: rebuild the bundled receipts; check a suite's catalog."""

from __future__ import annotations

from pathlib import Path

import click

from harness._errors import ConfigError
from harness._exitcodes import ExitCode
from harness._reject.build import build_catalog
from harness._reject.cassettes import ensure_suite_folder, load_catalog, suite_settings
from harness._reject.check import check_catalog
from harness._reject.rules import load_rules

__all__ = ["command"]


@click.group("cassettes")
def command() -> None:
    """Build and check recorded rejections (vcrpy cassettes + manifest + rules)."""


@command.command("build")
@click.option("--receipts", "receipts", type=click.Path(path_type=Path), required=True, multiple=True,
              help="receipts.jsonl to transcribe (repeatable: the shared transcriptions and a project's own)")
@click.option("--rules", "rules_dir", type=click.Path(path_type=Path), default=Path("cases/rules"),
              show_default=True, help="folder of *.rules.yaml naming the receipts each rule backs")
@click.option("--out", type=click.Path(path_type=Path), default=Path("cassettes"), show_default=True)
def build(receipts: tuple[Path, ...], rules_dir: Path, out: Path) -> int:
    """Rebuild cassettes and manifest from receipts, deterministically."""
    rules = load_rules(_rules_files(rules_dir), rules_dir)
    counts = build_catalog(list(receipts), rules, out)
    click.echo(f"built {counts['cassettes']} cassettes, {counts['interactions']} interactions "
               f"({counts['receipts']} receipts) for {counts['rules']} rules in {out}")
    return ExitCode.OK


def _rules_files(rules_dir: Path) -> list[Path]:
    """The rules files under ``--rules``; a missing folder, a file or an empty folder is bad input.

    A build deletes the cassettes a previous build wrote for rules it no longer has, so reading
    "no rules" from a typo would wipe the catalog: refuse before anything is read or deleted.
    """
    if not rules_dir.is_dir():
        found = "a file" if rules_dir.exists() else "nothing there"
        raise ConfigError("--rules", str(rules_dir), f"a folder of *.rules.yaml files, found {found} "
                          "(nothing was built or deleted)")
    paths = sorted(p for p in rules_dir.glob("**/*.rules.yaml") if p.is_file())
    if not paths:
        raise ConfigError("--rules", str(rules_dir), "a folder holding at least one *.rules.yaml file, "
                          "found none (nothing was built or deleted)")
    return paths


@command.command("check")
@click.option("--suite", type=click.Path(path_type=Path), default=Path("cases"), show_default=True)
@click.option("--cassettes", "folder", type=click.Path(path_type=Path), default=None,
              help="cassettes folder (default: the suite's `cassettes:` setting)")
def check_cmd(suite: Path, folder: Path | None) -> int:
    """Every rejection explained by a rule at the place its message names; no secrets."""
    ensure_suite_folder(suite)
    catalog = load_catalog(suite, suite_settings(suite), folder)
    result = check_catalog(catalog)
    for problem in result.problems:
        click.echo(str(problem))
    status = "ok" if result.ok else f"{len(result.problems)} problem(s)"
    click.echo(f"cassettes check: {status}: {result.rules} rules, {result.rejected} rejected and "
               f"{result.accepted} accepted interactions in {catalog.folder}")
    return ExitCode.OK if result.ok else ExitCode.BAD_INPUT

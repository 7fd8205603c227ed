"""``harness catalog path [PART]``: where the bundled rules, cassettes and lanes are installed."""

from __future__ import annotations

import click

from harness._catalog import PARTS, catalog_path
from harness._errors import ConfigError

__all__ = ["command"]


@click.group("catalog")
def command() -> None:
    """The bundled catalog of recorded rejections (rules, cassettes, lanes) installed with the package."""


@command.command("path")
@click.argument("part", required=False, type=click.Choice(PARTS))
def path(part: str | None) -> int:
    """Print the catalog folder (a suite folder for `harness cassettes check --suite`), or one PART of it."""
    where = catalog_path(part)
    if not where.is_dir():
        raise ConfigError("catalog", str(where), f"the installed catalog folder{f' {part}/' if part else ''} "
                          "(reinstall wire-harness: the package data is missing)")
    click.echo(str(where))
    return 0

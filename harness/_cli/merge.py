"""``harness merge OUT SHARD...``: join the result folders of ``harness mutate --shard`` runs."""

from __future__ import annotations

from pathlib import Path

import click

from harness._cli.mutate import FORMATS, emit
from harness._mutate import exit_code, merge

__all__ = ["command"]


@click.command("merge")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Folder for the merged report (may be one of the shard folders' parent).")
@click.argument("shards", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--format", "form", type=click.Choice(FORMATS), default=None,
              help="stdout: summary (default), markdown (mutation.md) or json (mutation.json).")
@click.option("-q", "--quiet", is_flag=True, help="No summary unless --format asks.")
def command(out: Path, shards: tuple[Path, ...], form: str | None, quiet: bool) -> int:
    """Merge shard folders (each from `harness mutate --shard K/N --out DIR`) into one report of every
    planned mutant. A shard not given leaves its mutants pending: the run is incomplete, exit 4."""
    section = merge(list(shards), out)
    emit(section, out, form, quiet)
    return int(exit_code(section))

"""``harness merge OUT SHARD...``: join the result folders of ``harness mutate --shard`` runs."""

from __future__ import annotations

from pathlib import Path

import click

from harness.mutate import exit_code, merge, render_markdown

__all__ = ["command"]


@click.command("merge")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Folder for the merged report (may be one of the shard folders' parent).")
@click.argument("shards", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("-q", "--quiet", is_flag=True, help="No table on stdout.")
def command(out: Path, shards: tuple[Path, ...], quiet: bool) -> int:
    """Merge shard folders (each from `harness mutate --shard K/N --out DIR`) into one report."""
    section = merge(list(shards), out)
    if not quiet:
        click.echo(render_markdown(section))
    return int(exit_code(section))

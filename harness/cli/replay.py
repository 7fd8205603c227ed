"""`harness replay`: placeholder until its stage lands (owned by the stage's author)."""

from __future__ import annotations

import click

__all__ = ["command"]


@click.command("replay", hidden=True)
def command() -> int:
    """Not built yet."""
    raise click.ClickException("harness replay is not built yet")

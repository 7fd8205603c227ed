"""`harness check-lane`: placeholder until its stage lands (owned by the stage's author)."""

from __future__ import annotations

import click

__all__ = ["command"]


@click.command("check-lane", hidden=True)
def command() -> int:
    """Not built yet."""
    raise click.ClickException("harness check-lane is not built yet")

"""`harness mutate`: placeholder until its stage lands (owned by the stage's author)."""

from __future__ import annotations

import click

__all__ = ["command"]


@click.command("mutate", hidden=True)
def command() -> int:
    """Not built yet."""
    raise click.ClickException("harness mutate is not built yet")

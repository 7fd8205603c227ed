"""``harness revisions clean [PATH] [--all]``: remove the worktrees ``--old-ref``/``--new-ref``
cached for a repository, with their ``.git/worktrees`` registrations."""

from __future__ import annotations

from pathlib import Path

import click

from harness._exitcodes import ExitCode
from harness._revisions import repo_of
from harness._revisions.worktrees import Cleaned, cache_root, clean, clean_all, repo_cache

__all__ = ["command"]


@click.group("revisions")
def command() -> None:
    """The worktrees `harness run --old-ref/--new-ref` caches (under $HARNESS_CACHE/revisions)."""


@command.command("clean")
@click.argument("path", required=False, type=click.Path(path_type=Path), default=Path("."))
@click.option("--all", "every", is_flag=True, help="Every repository's cached worktrees, not only PATH's.")
def clean_command(path: Path, every: bool) -> int:
    """Remove the cached worktrees of the git repository holding PATH (default: here), through
    `git worktree remove` and `git worktree prune`, so the repository's `.git/worktrees` forgets
    them; the next `--old-ref` run checks its revision out again."""
    if every:
        done = clean_all()
        for item in done:
            click.echo(_line(item))
        if not done:
            click.echo(f"nothing to clean in {cache_root() / 'revisions'}")
        return int(ExitCode.OK)
    repo = repo_of(path.resolve(), "PATH")
    cache = repo_cache(repo, make=False)
    if not cache.is_dir():
        click.echo(f"nothing cached for {repo} (in {cache})")
        return int(ExitCode.OK)
    click.echo(_line(clean(cache, repo)))
    return int(ExitCode.OK)


def _line(item: Cleaned) -> str:
    whose = item.repo or "a repository the cache did not record (its registrations stay until its own prune)"
    return f"removed {item.worktrees} worktree(s), {item.size / 1e6:.1f} MB, of {whose}"

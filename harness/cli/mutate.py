"""``harness mutate [SUITE]``: the full pin x mutant kill matrix, the ledger table, every report."""

from __future__ import annotations

from pathlib import Path

import click

from harness.errors import ConfigError
from harness.exitcodes import ExitCode
from harness.load import load_suite
from harness.mutate import Options, exit_code, parse_shard, render_markdown, run

__all__ = ["command"]


def _default_suite() -> Path:
    here = Path("cases")
    if not (here / "suite.yaml").is_file():
        raise ConfigError("SUITE", None, "a suite folder (no SUITE given and ./cases/suite.yaml not found)")
    return here


@click.command("mutate")
@click.argument("suite", required=False, type=click.Path(path_type=Path))
@click.option("--in-diff", "in_diff", metavar="REV", default=None,
              help="Mutate only functions that overlap `git diff REV` (pre-merge runs).")
@click.option("--shard", default=None, metavar="K/N", help="Run only the K-th of N deterministic slices.")
@click.option("--workers", type=click.IntRange(0, 256), default=None,
              help="Mutants run at once (default: the suite's setting, else one per core).")
@click.option("--out", type=click.Path(path_type=Path), default=Path("reports/mutation"), show_default=True,
              help="Folder for results.jsonl, mutation.json/.md/.html and mutation-report.json (Stryker).")
@click.option("--resume", is_flag=True, help="Keep the rows already in OUT/results.jsonl; run only the rest.")
@click.option("-q", "--quiet", is_flag=True, help="No progress output, no table on stdout.")
def command(suite: Path | None, in_diff: str | None, shard: str | None, workers: int | None, out: Path,
            resume: bool, quiet: bool) -> int:
    """Run every covering pin against every mutant of SUITE (default ./cases) and check the ledgers."""
    loaded = load_suite(suite or _default_suite())
    options = Options(in_diff=in_diff, shard=parse_shard(shard) if shard else None, workers=workers,
                      out=out, resume=resume, progress=not quiet)
    section = run(loaded, options)
    if not quiet:
        click.echo(render_markdown(section))
        click.echo(f"Reports: {out}/mutation.md, mutation.json, mutation.html, mutation-report.json", err=True)
    code: ExitCode = exit_code(section)
    return int(code)

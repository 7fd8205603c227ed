"""``harness bless CASE|--all``: accept a run's observed divergences into the case files, with
``why: TODO`` for a person to replace; ``--update-golden`` rewrites golden files instead."""

from __future__ import annotations

from pathlib import Path

import click

from harness._cli.args import default_suite
from harness._errors import ConfigError
from harness._evidence import accept
from harness._evidence.runs import load_report, run_folder
from harness._exitcodes import ExitCode
from harness._report.validate import validate_report

__all__ = ["command"]


@click.command("bless")
@click.argument("case", required=False)
@click.option("--all", "every", is_flag=True, help="Every case of the run (instead of CASE).")
@click.option("--lane", "lanes", multiple=True, help="Only lanes matching this glob (repeatable).")
@click.option("--run", "run", type=click.Path(path_type=Path), default=Path("reports/latest"), show_default=True,
              help="The run whose observations are accepted (or a reports folder: its latest run).")
@click.option("--suite", "suite", type=click.Path(path_type=Path), default=None,
              help="The suite folder holding the case files (default: as `harness run` finds it).")
@click.option("--update-golden", is_flag=True, help="Rewrite the files of `equals` pins from the run's new output.")
def command(case: str | None, every: bool, lanes: tuple[str, ...], run: Path, suite: Path | None,
            update_golden: bool) -> int:
    """Write CASE's (or --all) unexpected divergences in the run into its case file as declared
    ones with `why: TODO`; the suite will not load until each TODO is a reason."""
    if every == (case is not None):
        raise ConfigError("CASE", case, "a case id or glob, or --all (one of the two)")
    folder = run_folder(run)
    report = load_report(folder, validate_report)
    root = suite or default_suite()
    if update_golden:
        done = accept.update_golden(root, folder, report, case, lanes)
    else:
        done = accept.bless_divergences(root, accept.blessable(report, case, lanes), accept.case_lanes(report))
    _print(done, folder, update_golden)
    return int(ExitCode.OK)


def _print(done: list[accept.Blessed], folder: Path, update_golden: bool) -> None:
    for item in done:
        lanes = 'every lane ("*")' if item.lane == "*" else item.lane
        click.echo(f"{item.where}: {item.case} on {lanes}: {item.what}")
    if not done:
        click.echo("nothing to bless: no failing divergence (or golden pin) matched in " + str(folder))
    elif not update_golden:
        click.echo("Replace each `why: TODO` with the reason; until then the suite does not load (exit 2).")

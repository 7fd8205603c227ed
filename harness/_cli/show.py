"""``harness show CASE [LANE]``: one case x lane of a finished run, old and new bodies and their diff."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.text import Text

from harness._evidence.runs import load_report, run_folder
from harness._evidence.view import pick_rows, unit_lines
from harness._exitcodes import ExitCode
from harness._report.validate import validate_report

__all__ = ["command"]


@click.command("show")
@click.argument("case")
@click.argument("lane", required=False)
@click.option("--run", "run", type=click.Path(path_type=Path), default=Path("reports/latest"), show_default=True,
              help="The run folder (or a reports folder: its latest run).")
def command(case: str, lane: str | None, run: Path) -> int:
    """Print CASE's verdict on LANE (default: every lane; globs allowed), its old and new bodies,
    their diff, the rejections found and the pins that looked at it. Colour on a terminal only."""
    folder = run_folder(run)
    report = load_report(folder, validate_report)
    console = Console(highlight=False, soft_wrap=True)  # colour only when stdout is a terminal
    rows = pick_rows(report, case, lane)
    # which run this is: `reports/latest` moves with every run, of any suite
    console.print(Text(f"run {folder.name} (suite {report['suite']['name']}, {folder})", style="dim"))
    for i, row in enumerate(rows):
        if i:
            console.print(Text("=" * 72))
        for text, style in unit_lines(folder, report, row):
            console.print(Text(text, style=style or ""))
    return int(ExitCode.OK)

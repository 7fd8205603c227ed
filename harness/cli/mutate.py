"""``harness mutate [SUITE]``: the full pin x mutant kill matrix, the ledger table, every report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from harness.errors import ConfigError
from harness.exitcodes import ExitCode
from harness.load import load_suite
from harness.mutate import Options, exit_code, parse_shard, render_markdown, render_summary, run

__all__ = ["FORMATS", "command", "emit"]

FORMATS = ("summary", "markdown", "json")


def _default_suite() -> Path:
    here = Path("cases")
    if not (here / "suite.yaml").is_file():
        raise ConfigError("SUITE", None, "a suite folder (no SUITE given and ./cases/suite.yaml not found)")
    return here


def _note_left_out(out: Path) -> None:
    """Declared mutants the --case/--lane filters left without their claimed pins, on stderr."""
    plan = json.loads((out / "plan.json").read_text(encoding="utf-8"))
    left = plan.get("filters", {}).get("left_out", [])
    if left:
        click.echo(f"left out {len(left)} declared mutant(s) whose claimed pins are outside --case/--lane: "
                   + ", ".join(left), err=True)


def emit(section: dict[str, Any], out: Path, form: str | None, quiet: bool) -> None:
    """The chosen form on stdout: a summary unless asked (``-q`` alone prints nothing)."""
    if form is None and quiet:
        return
    if form == "markdown":
        click.echo(render_markdown(section), nl=False)
    elif form == "json":
        click.echo(json.dumps(section, indent=1, sort_keys=True))
    else:
        click.echo(render_summary(section, out), nl=False)


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
@click.option("--format", "form", type=click.Choice(FORMATS), default=None,
              help="stdout: summary (default: counts, ledger table, one line per escape), markdown "
                   "(mutation.md, with diffs) or json (mutation.json).")
@click.option("--mutant", "mutants", multiple=True, metavar="ID",
              help="Run only this mutant (an id as the summary prints it, or a glob; repeatable).")
@click.option("--case", "cases", multiple=True, metavar="GLOB",
              help="Only the pins of case ids matching this glob (repeatable); Python pins still run.")
@click.option("--lane", "lanes", multiple=True, metavar="GLOB",
              help="Only the pins of lanes matching this glob (repeatable).")
@click.option("--pins", "pin_set", metavar="SET", default=None,
              help="Only the pins of this named set (pin_sets in suite.yaml), e.g. one review round.")
@click.option("-q", "--quiet", is_flag=True, help="No progress output; no summary unless --format asks.")
def command(suite: Path | None, in_diff: str | None, shard: str | None, workers: int | None, out: Path,
            resume: bool, form: str | None, mutants: tuple[str, ...], cases: tuple[str, ...],
            lanes: tuple[str, ...], pin_set: str | None, quiet: bool) -> int:
    """Run every covering pin against every mutant of SUITE (default ./cases) and check the ledgers."""
    loaded = load_suite(suite or _default_suite())
    if pin_set:
        from harness.pins.ids import pin_set as known_set

        known_set(loaded, pin_set)  # an unknown set is bad input before anything is planned
    options = Options(in_diff=in_diff, shard=parse_shard(shard) if shard else None, workers=workers,
                      out=out, resume=resume, progress=not quiet, pins=pin_set, mutants=mutants, cases=cases,
                      lanes=lanes)
    section = run(loaded, options)
    _note_left_out(out)
    emit(section, out, form, quiet)
    code: ExitCode = exit_code(section)
    return int(code)

"""``harness run [SUITE]``: the main job. Prints the differential table and writes the reports."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import click
from rich.console import Console

from harness._cli.args import default_suite, not_nan
from harness._cli.output import interactive, progress, render_text
from harness._cli.summary import summary_lines
from harness._differential import units
from harness._errors import ConfigError
from harness._exitcodes import ExitCode
from harness._load import load_suite
from harness._model import Suite
from harness._pins.collect import python_pin_files
from harness._pins.ids import node_root
from harness._pins.ids import pin_set as known_set
from harness._provision import expand, parse_versions
from harness._revisions import at_revisions
from harness._runner import RunOptions, RunResult, run

__all__ = ["command"]


def _width() -> int:
    """Piped output: COLUMNS when set, else wide enough for a dozen lanes."""
    try:
        return max(40, int(os.environ.get("COLUMNS", "240")))
    except ValueError:
        return 240


@click.command("run")
@click.argument("suite", required=False, type=click.Path(path_type=Path))
@click.option("--case", "cases", multiple=True, help="Only case ids matching this glob (repeatable).")
@click.option("--lane", "lanes", multiple=True, help="Only lanes matching this glob (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown", "summary"]), default="text",
              show_default=True, help="What to print on stdout (summary: counts only, a line per stage; also -qq).")
@click.option("--out", type=click.Path(path_type=Path), default=Path("reports"), show_default=True,
              help="Folder for reports/<run-id>/ and reports/latest.")
@click.option("--workers", type=click.IntRange(1, 256), default=None,
              help="Worker processes (default: one per core). Pipelines always run isolated from the harness.")
@click.option("--timeout", type=click.FloatRange(0.01, 3600), default=None, callback=not_nan,
              help="Seconds a pipeline call may take (default: the suite's timeout_s).")
@click.option("--pins", "pin_set", metavar="SET", default=None,
              help="Run only the pins of this named set (pin_sets in suite.yaml); default: every pin.")
@click.option("--no-pins", "no_pins", is_flag=True, help="Do not run the pins (pytest items).")
@click.option("--pins-against", type=click.Choice(["new", "old"]), default="new", show_default=True,
              help="Run the pins against this pipeline; 'old' shows which pins catch the old behaviour.")
@click.option("--rejections/--no-rejections", default=True, show_default=True,
              help="Check bodies against the recorded rejection rules.")
@click.option("--mutate/--no-mutate", default=False, show_default=True, help="Also run the mutation stage.")
# -- revisions (harness._revisions): both sides from git, the case files from the working tree --
@click.option("--old-ref", "old_ref", metavar="REV", default=None,
              help="Play the old side with the subject's pipeline as it is at git revision REV (a worktree "
                   "in the cache; setup run once per tree). The pre-merge job: --old-ref origin/main.")
@click.option("--new-ref", "new_ref", metavar="REV", default=None,
              help="Play the new side from git revision REV too (default: the working tree).")
# -- end of revisions --
# -- released versions (harness._provision) and the rejection delta (harness._reject.delta) --
@click.option("--fail-on-rejections", "fail_on_rejections", type=click.Choice(["introduced", "any"]), default=None,
              help="Which undeclared known rejections of the new pipeline fail the run (exit 3): those it "
                   "introduced (default; the old pipeline did not have them) or any.")
@click.option("--versions", metavar="V1,V2,...", default=None,
              help="Play every subject whose sides name a package at these versions: consecutive pairs and "
                   "each against the first, in one run (overrides suite.yaml's matrix:).")
# -- end of released versions and delta --
# -- baselines (harness/_baseline): compare with an earlier run, fail on what is new --
@click.option("--baseline", type=click.Path(path_type=Path), default=None,
              help="An earlier run folder (or reports folder: its latest) to compare with; implies --fail-on new.")
@click.option("--fail-on", "fail_on", type=click.Choice(["new", "any"]), default=None,
              help="Fail on every finding (any: the default without --baseline) or only on new ones.")
@click.option("--in-diff", "in_diff", metavar="REV", default=None,
              help="With --mutate: mutate only what `git diff REV` touches; any new escape there fails.")
# -- end baselines --
@click.option("-q", "--quiet", count=True,
              help="No progress output; rejections as counts, not a line per group. "
                   "-qq: counts only (--format summary).")
def command(suite: Path | None, cases: tuple[str, ...], lanes: tuple[str, ...], fmt: str, out: Path,
            workers: int | None, timeout: float | None, pin_set: str | None, no_pins: bool, pins_against: str,
            rejections: bool, mutate: bool, old_ref: str | None, new_ref: str | None,
            fail_on_rejections: str | None, versions: str | None, baseline: Path | None, fail_on: str | None,
            in_diff: str | None, quiet: int) -> int:
    """Run old and new pipelines over SUITE (default: ./suite.yaml's folder, the one pyproject.toml's
    [tool.wire-harness] names, else ./cases), lane by lane, and report."""
    loaded = _matrix(_loaded(suite, pin_set), versions)
    if fail_on_rejections:
        loaded = dataclasses.replace(loaded, settings=loaded.settings.updated(fail_on_rejections=fail_on_rejections))
    if in_diff and not mutate:
        raise ConfigError("--in-diff", in_diff, "--mutate as well (it limits the mutation stage)")
    if new_ref and mutate:  # every mutant would survive: the code it changes would never run
        raise ConfigError("--new-ref", new_ref, "no --mutate with it (the mutation stage mutates the working "
                          "tree; --new-ref plays the new side from a revision instead)")
    loaded, revisions = at_revisions(loaded, old_ref, new_ref)
    options = RunOptions(cases=cases, lanes=lanes, against=pins_against,  # type: ignore[arg-type]
                         pins=not no_pins, pin_set=pin_set, rejections=rejections, mutate=mutate, workers=workers,
                         timeout=timeout, out=out, revisions=revisions, baseline=baseline, fail_on=fail_on,
                         mutation_options={"progress": not quiet, **({"in_diff": in_diff} if in_diff else {})})
    total = len(units(loaded, cases, lanes, timeout))  # no --case/--lane: an empty filter, every unit
    with progress(total, quiet > 0) as tick:
        result = run(loaded, options, tick)
    _show(result, "summary" if quiet > 1 and fmt == "text" else fmt, quiet > 0,
          os.path.relpath(node_root(loaded), Path.cwd()))
    return int(ExitCode(result.code))


def _loaded(suite: Path | None, pin_set: str | None) -> Suite:
    """The suite, refused when it has nothing to run or does not name the pin set asked for."""
    folder = suite or default_suite()
    loaded = load_suite(folder)
    if not loaded.cases and not python_pin_files(loaded):  # the pins' own project root, as the stage finds them
        raise ConfigError("SUITE", str(folder), "a suite with at least one case or Python pin "
                          "(this one only names mutation targets: run `harness mutate` on it)")
    if pin_set:
        known_set(loaded, pin_set)  # an unknown set is bad input before anything runs
    return loaded


def _matrix(loaded: Suite, versions: str | None) -> Suite:
    """The suite played over --versions, else over suite.yaml's matrix, else as it is."""
    matrix = parse_versions(versions) if versions else loaded.settings.matrix
    return expand(loaded, matrix) if matrix else loaded


# --format: the saved report file printed as it is; text is rendered from the report
_SAVED = {"json": "report.json", "markdown": "report.md"}


def _show(result: RunResult, fmt: str, quiet: bool, root: str = ".") -> None:
    if result.warning:
        click.echo(f"harness: warning: {result.warning}", err=True)
    if "partial" in result.report:
        click.echo(f"harness: {result.report['exit']['reason']}", err=True)
    if fmt in _SAVED:  # the rows are streamed into the file, not held in memory
        click.echo((result.folder / _SAVED[fmt]).read_text(), nl=False)
    elif fmt == "summary":
        click.echo("\n".join(summary_lines(result.report)))
    else:
        render_text(result.report, Console(highlight=False, soft_wrap=True, width=None if interactive() else _width()),
                    quiet, root)
    click.echo(f"reports: {result.folder}", err=True)  # stderr: never in the way of --format json

"""``harness mutate [SUITE]``: the full pin x mutant kill matrix, the ledger table, every report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from harness._cli.args import default_suite
from harness._common.supervise import Terminated
from harness._errors import ConfigError
from harness._exitcodes import ExitCode
from harness._load import load_suite
from harness._mutate import Options, parse_shard, render_markdown, render_summary, run
from harness._mutate.section import MutationSection

__all__ = ["FORMATS", "baseline_of", "command", "emit", "judged"]

FORMATS = ("summary", "markdown", "json")


def _note_left_out(out: Path) -> None:
    """Declared mutants the --case/--lane filters left without their claimed pins, on stderr."""
    plan = json.loads((out / "plan.json").read_text(encoding="utf-8"))
    left = plan.get("filters", {}).get("left_out", [])
    if left:
        click.echo(f"left out {len(left)} declared mutant(s) whose claimed pins are outside --case/--lane: "
                   + ", ".join(left), err=True)


def emit(section: MutationSection, out: Path, form: str | None, quiet: bool) -> None:
    """The chosen form on stdout: a summary unless asked (``-q`` alone prints nothing)."""
    if form is None and quiet:
        return
    if form == "markdown":
        click.echo(render_markdown(section), nl=False)
    elif form == "json":
        click.echo(json.dumps(section, indent=1, sort_keys=True))
    else:
        click.echo(render_summary(section, out), nl=False)


def _stopped(section: MutationSection | None, out: Path, form: str | None, quiet: bool) -> None:
    """What a run stopped by a signal finished: its summary (the rest pending), or why there is none."""
    if section is None:
        click.echo("harness mutate: stopped before its baseline ended: no mutant ran, no summary", err=True)
        return
    emit(section, out, form, quiet)
    t = section["totals"]
    click.echo(f"harness mutate: stopped with {t['total'] - t['pending']} of {t['total']} mutants run; the summary "
               f"and the reports in {out} cover those (--resume runs the rest)", err=True)


def baseline_of(path: Path | None, fail_on: str | None) -> tuple[str, dict[str, Any] | None] | None:
    """The baseline's mutation section, read before any mutant runs (a wrong path is exit 2)."""
    from harness._baseline import load_mutation_baseline
    from harness._report.validate import validate_mutation, validate_report

    if fail_on == "new" and path is None:
        raise ConfigError("--fail-on", "new", "--baseline PREVIOUS_MUTATION_DIR as well (new since what?)")
    return load_mutation_baseline(path, validate_report, validate_mutation) if path is not None else None


def judged(section: MutationSection, base: tuple[str, dict[str, Any] | None] | None, fail_on: str | None,
           out: Path, quiet: bool) -> ExitCode:
    """The exit code (harness._baseline.mutation_exit); with a baseline, the comparison is written to
    OUT/baseline-delta.json and its new escapes printed."""
    from harness._baseline import compare, mutation_exit, mutation_findings

    rule = fail_on or ("new" if base is not None else "any")
    delta = None
    if base is not None:
        delta = compare(mutation_findings(section), mutation_findings(base[1]), base[0], rule)
        (out / "baseline-delta.json").write_text(json.dumps(delta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        if not quiet:
            _print_delta(base[0], delta)
    return mutation_exit(section, delta, rule)


def _print_delta(baseline: str, delta: dict[str, Any]) -> None:
    """The comparison with ``baseline``: counts, then each new escape and failed claim."""
    c = delta["counts"]["escapes"]
    click.echo(f"baseline {baseline}: {c['new']} new escape(s), {c['still']} escaping already, "
               f"{c['fixed']} fixed; {delta['counts']['claims']['new']} new failed claim(s)")
    for name in delta["new"]["escapes"] + delta["new"]["claims"]:
        click.echo(f"new: {name}")


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
@click.option("--first-kill", "first_kill", is_flag=True,
              help="Stop each mutant at its first killing pin (mutmut's semantics): statuses as in the full "
                   "matrix, killed_by lists only that pin.")
@click.option("-q", "--quiet", is_flag=True, help="No progress output; no summary unless --format asks.")
@click.option("--baseline", type=click.Path(path_type=Path), default=None,
              help="An earlier mutation out folder (or run folder) to compare with; implies --fail-on new.")
@click.option("--fail-on", "fail_on", type=click.Choice(["new", "any"]), default=None,
              help="Fail on every escape over the threshold (any: the default without --baseline) or on new ones.")
def command(suite: Path | None, in_diff: str | None, shard: str | None, workers: int | None, out: Path,
            resume: bool, form: str | None, mutants: tuple[str, ...], cases: tuple[str, ...],
            lanes: tuple[str, ...], pin_set: str | None, first_kill: bool, quiet: bool, baseline: Path | None,
            fail_on: str | None) -> int:
    """Run every covering pin against every mutant of SUITE (default: as `harness run` finds it) and
    check the ledgers."""
    base = baseline_of(baseline, fail_on)
    loaded = load_suite(suite or default_suite())
    if pin_set:
        from harness._pins.ids import pin_set as known_set

        known_set(loaded, pin_set)  # an unknown set is bad input before anything is planned
    options = Options(in_diff=in_diff, shard=parse_shard(shard) if shard else None, workers=workers,
                      out=out, resume=resume, progress=not quiet, pins=pin_set, mutants=mutants, cases=cases,
                      lanes=lanes, first_kill=first_kill)
    try:
        section = run(loaded, options)
    except (KeyboardInterrupt, Terminated) as stop:  # the finished rows' summary, then the signal's exit code
        _stopped(getattr(stop, "section", None), out, form, quiet)
        raise
    _note_left_out(out)
    emit(section, out, form, quiet)
    return int(judged(section, base, fail_on, out, quiet or form == "json"))

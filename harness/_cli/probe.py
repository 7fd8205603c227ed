"""``harness probe``: re-send recorded bodies to the live endpoint; exit 5 on drift or when it could not check.

Exit codes: 0 every request checked and held; 5 drift, or a request that got no answer to
compare (refused, timed out, too big, not sent before the run's deadline); 2 bad input (a
``--bodies`` line that is not strict JSON, an --out folder holding an earlier recording)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from harness._cli.args import default_suite, not_nan, suite_lane
from harness._common.jsonread import parse_json
from harness._common.yamlsafe import MAX_DEPTH, MAX_NODES
from harness._differential import UnitResult, build
from harness._errors import ConfigError, InputError
from harness._exitcodes import ExitCode
from harness._load.suite import load_suite
from harness._model import Observation, Suite
from harness._reject.probe import DRIFT, KEY_ENV, UNCHECKED, ProbeItem, probe, summarize, unchecked
from harness._reject.verdicts import catalog_of

__all__ = ["command"]


def _bodies(path: Path | None) -> list[Any]:
    if path is None:
        return []
    lines = path.read_bytes().splitlines()
    return [_body(_text(line, f"{path}:{n}"), f"{path}:{n}") for n, line in enumerate(lines, 1) if line.strip()]


def _text(line: bytes, where: str) -> str:
    """A --bodies line as text: JSON lines are UTF-8, and a line that is not is bad input at its place."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError("--bodies", where, f"one JSON body a line in UTF-8 (found byte 0x{line[exc.start]:02x} "
                          f"at column {exc.start + 1}, which is not UTF-8)") from None


def _body(line: str, where: str) -> Any:
    """One line of --bodies: a body, or a record of one under ``body``."""
    try:
        item, _ = parse_json(line, where, max_nodes=MAX_NODES, max_depth=MAX_DEPTH)
    except InputError as exc:
        raise ConfigError("--bodies", where, f"one JSON body a line ({exc.expected}, found {exc.found})") from None
    return item["body"] if isinstance(item, dict) and "body" in item else item


def _run_bodies(suite: Suite, lane_id: str) -> list[Any]:
    """The new pipeline's request bodies on this lane (probe decides which no rule covers)."""
    if not any(lane_id in case.lanes for case in suite.cases):
        return []
    return [new.value for result in build(suite, lanes=[lane_id]) if (new := _new_request(result)) is not None]


def _new_request(result: UnitResult) -> Observation | None:
    """The new side's observation when it built a request body, else None."""
    if result.unit.subject.output != "request-body":
        return None
    return result.new if result.new is not None and result.new.ok else None


@click.command("probe")
@click.option("--lane", "lane_id", required=True, help="the lane whose endpoint is probed")
@click.option("--suite", "suite_dir", type=click.Path(path_type=Path), default=None,
              help="The suite folder (default: ./suite.yaml's folder, pyproject.toml's [tool.wire-harness], ./cases).")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="scratch folder for the recording")
@click.option("--key-env", default=None, help="environment variable holding the key (default by provider)")
@click.option("--bodies", type=click.Path(path_type=Path), default=None,
              help="JSON lines of bodies seen in a run; those no rule covers are probed too")
@click.option("--from-run", is_flag=True,
              help="also build the lane's new bodies over the suite and probe those no rule covers")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="send at most this many requests")
@click.option("--timeout", type=click.FloatRange(0.01, 3600), default=30.0, show_default=True,
              callback=not_nan, help="seconds for each request, whole: connect to the answer's last byte")
@click.option("--deadline", "run_deadline", type=click.FloatRange(0.01, 86400), default=900.0, show_default=True,
              callback=not_nan, help="seconds for the whole run; requests not sent by then could not be checked")
def command(lane_id: str, suite_dir: Path | None, out: Path, key_env: str | None, bodies: Path | None,
            from_run: bool, limit: int | None, timeout: float, run_deadline: float) -> int:
    """Re-probe a lane live: needs its key in the environment; records to --out; exit 5 on drift."""
    suite = load_suite(suite_dir or default_suite())
    lane = suite_lane(suite, lane_id, "--lane")
    key = _key(key_env or KEY_ENV.get(lane.provider, "HARNESS_PROBE_KEY"))
    seen = _bodies(bodies) + (_run_bodies(suite, lane_id) if from_run else [])
    items = probe(catalog_of(suite), lane, out, key, bodies=seen, limit=limit, timeout=timeout,
                  run_deadline=run_deadline)
    return _report(lane_id, out, items)


def _key(name: str) -> str:
    """The provider's key from the environment variable ``name``; a bad argument when it is unset."""
    key = os.environ.get(name, "")
    if not key:
        raise ConfigError("--key-env", name, "an environment variable holding the provider's key")
    return key


def _report(lane_id: str, out: Path, items: list[ProbeItem]) -> int:
    """List drift and what could not be checked apart; exit 5 on either (never green unchecked)."""
    for item in items:
        _print_item(item)
    counts = ", ".join(f"{v} {k}" for k, v in sorted(summarize(items).items()))
    click.echo(f"probe {lane_id}: {len(items)} request(s): {counts or 'none'}; recorded in {out}")
    closing = _closing(lane_id, items)
    for line in closing:
        click.echo(line)
    return ExitCode.DRIFT if closing else ExitCode.OK  # each closing line says why it is not a pass


def _print_item(item: ProbeItem) -> None:
    """A line about a request worth one: drift, no answer to compare, an answer not recorded."""
    rule = item.rule or "no rule"
    if item.outcome in DRIFT:
        click.echo(f"{item.outcome}: {item.id} ({rule}) status {item.status}: {item.detail}")
    elif item.outcome in UNCHECKED:
        click.echo(f"could not check: {item.id} ({rule}): {item.detail}")
    if item.refused:
        click.echo(f"{item.refused}: {item.id} ({rule}); its outcome ({item.outcome}) stands")


def _closing(lane_id: str, items: list[ProbeItem]) -> list[str]:
    """What keeps the probe from passing: drift, nothing to probe, requests with no answer to compare."""
    total, drift, missed = len(items), sum(1 for i in items if i.outcome in DRIFT), len(unchecked(items))
    lines = []
    if drift:
        lines.append(f"drift: {drift} of {total} request(s) answered differently from the record")
    if not total:
        lines.append(f"could not check: nothing to probe on {lane_id} (no recorded rejection of its "
                     "validators and no uncovered body); exit 5, not a pass")
    elif missed:
        lines.append(f"could not check: {missed} of {total} request(s) got no answer to compare "
                     "(not drift, but not a pass either); exit 5")
    return lines

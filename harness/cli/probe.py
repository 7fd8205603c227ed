"""``harness probe``: re-send recorded bodies to the live endpoint; exit 5 on drift."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from harness.build import build
from harness.errors import ConfigError
from harness.exitcodes import ExitCode
from harness.load.suite import load_suite
from harness.model import Suite
from harness.reject.probe import DRIFT, KEY_ENV, probe, summarize
from harness.reject.verdicts import catalog_of

__all__ = ["command"]


def _bodies(path: Path | None) -> list[Any]:
    if path is None:
        return []
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                item = json.loads(line)
            except ValueError as exc:
                raise ConfigError("--bodies", f"{path}:{n}", f"one JSON body a line ({exc})") from None
            out.append(item.get("body", item) if isinstance(item, dict) and "body" in item else item)
    return out


def _run_bodies(suite: Suite, lane_id: str) -> list[Any]:
    """The new pipeline's request bodies on this lane (probe decides which no rule covers)."""
    if not any(lane_id in case.lanes for case in suite.cases):
        return []
    out: list[Any] = []
    for result in build(suite, lanes=[lane_id]):
        subject = suite.subjects.get(result.unit.case.subject)
        if result.new is not None and result.new.ok and (subject is None or subject.output == "request-body"):
            out.append(result.new.value)
    return out


@click.command("probe")
@click.option("--lane", "lane_id", required=True, help="the lane whose endpoint is probed")
@click.option("--suite", "suite_dir", type=click.Path(path_type=Path), default=Path("cases"), show_default=True)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="scratch folder for the recording")
@click.option("--key-env", default=None, help="environment variable holding the key (default by provider)")
@click.option("--bodies", type=click.Path(path_type=Path), default=None,
              help="JSON lines of bodies seen in a run; those no rule covers are probed too")
@click.option("--from-run", is_flag=True,
              help="also build the lane's new bodies over the suite and probe those no rule covers")
@click.option("--limit", type=int, default=None, help="send at most this many requests")
@click.option("--timeout", type=float, default=30.0, show_default=True)
def command(lane_id: str, suite_dir: Path, out: Path, key_env: str | None, bodies: Path | None,
            from_run: bool, limit: int | None, timeout: float) -> int:
    """Re-probe a lane live: needs its key in the environment; records to --out; exit 5 on drift."""
    suite = load_suite(suite_dir)
    if lane_id not in suite.lanes:
        raise ConfigError("--lane", lane_id, f"a lane of the suite ({', '.join(sorted(suite.lanes))})")
    lane = suite.lanes[lane_id]
    name = key_env or KEY_ENV.get(lane.provider, "HARNESS_PROBE_KEY")
    key = os.environ.get(name, "")
    if not key:
        raise ConfigError("--key-env", name, "an environment variable holding the provider's key")
    seen = _bodies(bodies) + (_run_bodies(suite, lane_id) if from_run else [])
    items = probe(catalog_of(suite), lane, out, key, bodies=seen, limit=limit, timeout=timeout)
    for item in items:
        if item.outcome in DRIFT or item.outcome == "error":
            click.echo(f"{item.outcome}: {item.id} ({item.rule or 'no rule'}) status {item.status}: {item.detail}")
    counts = ", ".join(f"{v} {k}" for k, v in sorted(summarize(items).items()))
    click.echo(f"probe {lane_id}: {len(items)} request(s): {counts or 'none'}; recorded in {out}")
    return ExitCode.DRIFT if any(i.outcome in DRIFT for i in items) else ExitCode.OK

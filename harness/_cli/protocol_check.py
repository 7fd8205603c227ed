"""``harness protocol-check CMD...``: does a program speak the pipeline protocol (docs/protocol.md)?

Starts CMD, walks it through the handshake, a call per declared pipeline, an error answer, a
malformed request, large inputs (64 KiB to 4 MiB), shutdown and end of input
(``harness._pipeline.conformance``), prints one checklist line per check and exits 0 when none
failed, 1 when one did (2: bad arguments).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from harness._cli.args import not_nan
from harness._common.redact import redact_text
from harness._errors import ConfigError
from harness._exitcodes import ExitCode
from harness._pipeline.conformance import Check, check_program

__all__ = ["command"]

_MARK = {"pass": "pass", "warn": "warn", "fail": "FAIL"}


def _json_file(option: str, path: Path | None) -> Any:
    if path is None:
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(option, str(path), f"a readable JSON file ({exc.strerror or exc})") from None
    except (ValueError, RecursionError) as exc:  # json's C decoder recurses once per level of nesting
        raise ConfigError(option, str(path), f"a JSON file ({exc})") from None


@click.command("protocol-check", context_settings={"ignore_unknown_options": True})
@click.argument("cmd", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option("--timeout", type=click.FloatRange(0.01, 3600), default=10.0, show_default=True, callback=not_nan,
              help="Seconds allowed per answer.")
@click.option("--start-timeout", type=click.FloatRange(0.01, 3600), default=60.0, show_default=True,
              callback=not_nan, help="Seconds allowed for the hello.")
@click.option("--input", "input_file", type=click.Path(path_type=Path), help="JSON file: the input each call sends.")
@click.option("--lane", "lane_file", type=click.Path(path_type=Path), help="JSON file: the lane each call sends.")
def command(cmd: tuple[str, ...], timeout: float, start_timeout: float, input_file: Path | None,
            lane_file: Path | None) -> int:
    """Check that the program CMD speaks the JSON-lines pipeline protocol (put `--` before CMD)."""
    lane = _lane(lane_file)  # read before --input, as each names its own option when it is bad
    checks = check_program(list(cmd), timeout=timeout, start_timeout=start_timeout,
                           probe=_json_file("--input", input_file), lane=lane)
    return ExitCode.DIVERGENCE if _print_checklist(cmd, checks) else ExitCode.OK


def _print_checklist(cmd: tuple[str, ...], checks: list[Check]) -> int:
    """A line per check, then the count that passed; how many failed. A check's detail quotes the
    program (its hello, answers, stderr): redacted and its control characters escaped."""
    click.echo(f"protocol-check: {' '.join(cmd)}")
    for check in checks:
        detail = f": {redact_text(check.detail)}" if check.detail else ""
        click.echo(f"  {_MARK[check.status]}  {check.name}{detail}")
    failed = sum(c.status == "fail" for c in checks)
    click.echo(f"{len(checks) - failed} of {len(checks)} checks passed" + (f", {failed} failed" if failed else ""))
    return failed


def _lane(lane_file: Path | None) -> dict[str, Any] | None:
    """--lane's JSON object, or None without one."""
    lane = _json_file("--lane", lane_file)
    if lane is not None and not isinstance(lane, dict):
        raise ConfigError("--lane", str(lane_file), "a JSON object (a lane)")
    return lane

"""``harness replay BODY --lane LANE``: what would the lane's fronted validators answer, on record?

Offline: the body (a JSON file, or ``-`` for stdin) is matched against the recorded rejections of
every validator the lane fronts and, when a rule fires, the recorded response is replayed through
vcrpy (record mode none). A body no rule covers is ``unknown`` and is never sent anywhere.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import click

from harness._cli.args import default_suite, suite_lane
from harness._errors import ConfigError
from harness._exitcodes import ExitCode
from harness._load.suite import load_suite
from harness._reject.replay import MAX_BODY_DEPTH, body_depth, replay
from harness._reject.verdicts import catalog_of

__all__ = ["command"]


def _read_body(body_file: Path) -> dict[str, Any]:
    """The request body: a JSON object read as UTF-8; anything else is a bad argument naming the file."""
    body = _decoded(_read_bytes(body_file), body_file)
    depth = body_depth(body)
    if depth > MAX_BODY_DEPTH:
        raise ConfigError("BODY", str(body_file), f"a JSON body nesting at most {MAX_BODY_DEPTH} levels deep, "
                          f"found {depth} or more")
    if not isinstance(body, dict):
        # a request body is an object; replaying a list or a scalar would only ever say "unknown"
        raise ConfigError("BODY", str(body_file), f"a JSON object (a request body), found {type(body).__name__}")
    return body


def _read_bytes(body_file: Path) -> bytes:
    """The file's bytes, or stdin's for ``-``."""
    try:
        return sys.stdin.buffer.read() if str(body_file) == "-" else body_file.read_bytes()
    except OSError as exc:
        raise ConfigError("BODY", str(body_file), f"a readable JSON file ({exc.strerror or exc})") from None


class _NotJson(ValueError):
    """What ``json.loads`` takes but no provider does: a key written twice, NaN, Infinity."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):  # which body a provider sees then depends on its parser
        twice = next(key for key, n in Counter(key for key, _ in pairs).items() if n > 1)
        raise _NotJson(f"each key once per object, found {twice!r} twice")
    return out


def _constant(name: str) -> Any:
    raise _NotJson(f"numbers as JSON writes them, found {name}")


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _NotJson(f"numbers a 64-bit float holds, found {text}")
    return value


def _decoded(data: bytes, body_file: Path) -> Any:
    """The body as the wire would carry it: the strict answers of the harness's own readers,
    at the C parser's speed."""
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=_pairs, parse_constant=_constant,
                          parse_float=_float)
    except _NotJson as exc:
        raise ConfigError("BODY", str(body_file), f"a JSON request body with {exc}") from None
    except RecursionError:  # the JSON decoder recurses per level: thousands of levels end here
        raise ConfigError("BODY", str(body_file), f"a JSON body nesting at most {MAX_BODY_DEPTH} levels deep, "
                          "found one nested too deep to parse") from None
    except UnicodeDecodeError as exc:
        raise ConfigError("BODY", str(body_file), f"UTF-8 text (byte {exc.start} is not)") from None
    except ValueError as exc:
        raise ConfigError("BODY", str(body_file), f"a JSON request body ({exc})") from None


@click.command("replay")
@click.argument("body_file", type=click.Path(path_type=Path, allow_dash=True))
@click.option("--lane", "lane_id", required=True)
@click.option("--suite", "suite_dir", type=click.Path(path_type=Path), default=None,
              help="The suite folder (default: ./suite.yaml's folder, pyproject.toml's [tool.wire-harness], ./cases).")
def command(body_file: Path, lane_id: str, suite_dir: Path | None) -> int:
    """Replay the recorded answer to a request body sent on LANE (never the network)."""
    body = _read_body(body_file)  # a bad body is refused before the suite's load (a quarter second for cases/)
    suite = load_suite(suite_dir or default_suite())
    lane = suite_lane(suite, lane_id, "--lane")
    result = replay(catalog_of(suite), lane, body)
    if result.status == "unknown":
        click.echo(f"unknown: no recorded rejection covers this body on {lane_id} (nothing was sent)")
        return ExitCode.OK
    click.echo(f"rejected on record by {', '.join(result.rules)} at {', '.join(result.locations)}")
    click.echo(f"replayed {result.response_status}: {result.response_body}")
    click.echo(f"receipts: {', '.join(result.receipts)}")
    return ExitCode.KNOWN_REJECTION

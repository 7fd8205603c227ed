"""`harness openapi DOCUMENT`: import an OpenAPI 3.0/3.1 document and summarise the import.

Prints the tools made, the operations skipped and why, response schemas dropped, duplicated
operationIds, and how many tools carry a root composition (and how many JSON bodies had one
before seed 002's flattening). With ``--lanes SUITE`` it also runs a subject's old and new
pipelines (default ``anthropic_messages``) over every tool on that subject's lanes and says
what each lane ships for the composed tools. URLs are refused: the harness never fetches.
Exit 0 on success; 2 when the document is refused or a named operation was skipped.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import click

from harness._errors import ConfigError
from harness._exitcodes import ExitCode
from harness._plugins import resolve_subject
from harness._sources.openapi import import_document
from harness._sources.openapi.importer import ImportResult
from harness._sources.openapi.lanes import LaneShipping, load_lanes, rules_beside, ship

__all__ = ["command", "summary_text"]


def _operations(values: tuple[str, ...]) -> list[str] | None:
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    return names or None


def summary_text(result: ImportResult, seconds: float | None = None) -> str:
    """The import summary for people."""
    took = f" in {seconds:.2f} s" if seconds is not None else ""
    more = [f"    ... and {len(result.skipped) - 20} more"] if len(result.skipped) > 20 else []
    return "\n".join([
        f"{result.file}: OpenAPI {result.version}, {result.values:,} values, "
        f"{result.operations} operations{took}",
        f"  tools: {len(result.tools)}",
        f"  skipped: {len(result.skipped)}",
        *(f"    {s.name} ({s.method.upper()} {s.path}): {s.reason}" for s in result.skipped[:20]),
        *more,
        f"  response schemas dropped: {len(result.dropped_responses)}",
        *(f"    {s.name}: {s.reason}" for s in result.dropped_responses[:20]),
        f"  duplicated operationIds: {len(result.duplicated_ids)}",
        f"  root compositions (tools): {len(result.root_compositions)}",
        f"  JSON bodies with a root composition: {len(result.body_compositions)} "
        "(a composition-only body becomes one `body` field)",
    ])


def _shipping_text(rows: list[LaneShipping], composed: int) -> str:
    return "\n".join([f"  what each lane ships for the {composed} composed tools:", *map(_shipping_line, rows)])


def _shipping_line(row: LaneShipping) -> str:
    counts = ", ".join(f"{k} {v}" for k, v in sorted(row.counts.items()) if k != "errors_any_tool")
    errors = row.counts.get("errors_any_tool", 0)
    rules = f"  [{', '.join(sorted(row.rules))}]" if row.rules else ""
    return (f"    {row.lane:28} {row.side:3}  {counts or 'nothing'}{rules}"
            + (f"  (pipeline errors on {errors} tools)" if errors else ""))


@click.command("openapi")
@click.argument("document")
@click.option("--operations", "operations", multiple=True,
              help="operationIds or method_path keys to import (repeatable or comma-separated).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--lanes", "lanes_at", type=click.Path(path_type=Path),
              help="A suite folder or lanes file: also run SUBJECT's pipelines over every tool.")
@click.option("--subject", default="anthropic_messages", show_default=True,
              help="The subject whose pipelines --lanes runs.")
def command(document: str, operations: tuple[str, ...], fmt: str, lanes_at: Path | None,
            subject: str) -> int:
    """Import an OpenAPI document and print what became of each operation."""
    path = _local_file(document)
    wanted = _operations(operations)
    start = time.perf_counter()
    result = import_document(path, wanted, display=document)
    seconds = time.perf_counter() - start
    shipping = None
    if lanes_at is not None:
        shipping = ship(result.tools, resolve_subject(subject), load_lanes(lanes_at), rules=rules_beside(lanes_at))
    if fmt == "json":
        _print_json(result, seconds, subject, shipping)
    else:
        _print_text(result, seconds, shipping)
    if wanted and result.skipped:
        click.echo("harness: a named operation was skipped (see the summary)", err=True)
        return int(ExitCode.BAD_INPUT)
    return int(ExitCode.OK)


def _local_file(document: str) -> Path:
    """DOCUMENT as a file on this machine: a URL is refused, the harness never fetches."""
    if "://" in document or document.startswith("//"):
        raise ConfigError("DOCUMENT", "<a URL, not shown>", "a local file (the harness never fetches)")
    path = Path(document)
    if not path.is_file():
        raise ConfigError("DOCUMENT", document, "an existing file")
    return path


def _print_json(result: ImportResult, seconds: float, subject: str, shipping: list[LaneShipping] | None) -> None:
    out: dict[str, Any] = {**result.as_dict(), "seconds": round(seconds, 3)}
    if shipping is not None:
        out["shipping"] = {"subject": subject, "lanes": [r.as_dict() for r in shipping]}
    click.echo(json.dumps(out, indent=2))


def _print_text(result: ImportResult, seconds: float, shipping: list[LaneShipping] | None) -> None:
    click.echo(summary_text(result, seconds))
    for line in result.warnings():
        click.echo(f"warning: {line}", err=True)
    if shipping is not None:
        click.echo(_shipping_text(shipping, len(result.root_compositions)))

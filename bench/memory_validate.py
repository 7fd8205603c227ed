"""Benchmark: checking a large report.json against its schema, three engines side by side.

    python bench/memory_validate.py [--units 100000] [--report PATH]

Makes a report with ``harness run`` on a generated suite (``memory_scale.suite``: one trivial
pipeline, 50 lanes) unless ``--report`` names one, then times, on the loaded value: ``jsonschema``
(Draft 2020-12, the schemas in a ``referencing`` registry), ``fastjsonschema`` (compiled once,
the section schemas given as ref handlers) and ``jsonschema-rs`` (the whole value, and item by
item the way the runner checks a streamed report). Each must also refuse the report with one
error planted in its last row; the CPU seconds of each are printed with the ratio to jsonschema.
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_scale import suite

from harness._report.validate import item_validator, report_validator, schemas

__all__ = ["engines", "main"]

MAIN = "https://wire-harness.invalid/schemas/report.schema.json"


def _jsonschema() -> Callable[[Any], bool]:
    import jsonschema
    from referencing import Registry, Resource

    registry: Registry[Any] = Registry().with_resources(
        (uri, Resource.from_contents(schema)) for uri, schema in schemas().items())
    validator = jsonschema.Draft202012Validator(schemas()[MAIN], registry=registry)
    return lambda value: validator.is_valid(value)


def _fastjsonschema() -> Callable[[Any], bool]:
    import fastjsonschema

    handlers = {"https": lambda uri: schemas()[uri]}
    check = fastjsonschema.compile(schemas()[MAIN], handlers=handlers)

    def valid(value: Any) -> bool:
        try:
            check(value)
        except fastjsonschema.JsonSchemaException:
            return False
        return True

    return valid


def _rs_whole() -> Callable[[Any], bool]:
    validator = report_validator()
    return lambda value: bool(validator.is_valid(value))


def _rs_streamed() -> Callable[[Any], bool]:
    """The runner's way: the head with the long lists empty, then each row and finding alone."""
    head, row, finding = report_validator(), item_validator("report.schema.json#/$defs/row"), \
        item_validator("rejections.schema.json#/$defs/finding")

    def valid(value: Any) -> bool:
        section = value.get("rejections") or {}
        rest = {**value, "differential": [], "rejections": {**section, "findings": []} if section else None}
        return bool(head.is_valid(rest) and all(row.is_valid(r) for r in value["differential"])
                    and all(finding.is_valid(f) for f in section.get("findings", [])))

    return valid


def engines() -> dict[str, Callable[[], Callable[[Any], bool]]]:
    return {"jsonschema": _jsonschema, "fastjsonschema": _fastjsonschema, "jsonschema-rs (whole)": _rs_whole,
            "jsonschema-rs (item by item)": _rs_streamed}


def _report(units: int, tmp: Path) -> Path:
    folder = suite(tmp / "suite", units, 50)
    subprocess.run([sys.executable, "-m", "harness", "run", str(folder), "--no-pins", "--workers", "2",
                    "--out", str(tmp / "out"), "--format", "markdown", "-q"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return tmp / "out" / "latest" / "report.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=100_000)
    parser.add_argument("--report", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memory-validate-") as tmp:
        path = args.report or _report(args.units, Path(tmp))
        report = json.loads(path.read_text())
        size = path.stat().st_size
    broken = copy.deepcopy(report)
    broken["differential"][-1]["verdict"] = "maybe"
    print(f"report.json: {size / 1e6:.1f} MB, {len(report['differential']):,} rows")
    base = None
    for name, make in engines().items():
        check = make()
        start = time.process_time()
        ok = check(report)
        spent = time.process_time() - start
        caught = not check(broken)
        base = base or spent
        print(f"  {name:30} {spent:8.2f} CPU s  {spent / base:6.3f}x  valid: {ok}  planted error caught: {caught}")


if __name__ == "__main__":
    main()

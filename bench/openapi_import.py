"""Benchmark: importing GitHub's REST description (13 MB, OpenAPI 3.0) as a ratio to json.load.

    python bench/openapi_import.py [--repeat 5] [--document PATH]

Both sides read the same file from disk; each figure is the best of ``--repeat`` runs, in wall
and in CPU time, so the ratio says what the importer adds (value counting, path/server checks, $ref inlining with
shared targets, bounds) on top of parsing. Also prints what the import made: tools, skipped
operations, dropped response schemas, root compositions. Skips (exit 0, with the reason) when
../shared/corpora is absent, as it is in a user's clone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT = REPO.parent / "shared" / "corpora" / "openapi" / "github-api.github.com.json"
sys.path.insert(0, str(REPO))

import harness._load  # noqa: E402, F401  first: harness._sources imported alone meets an import cycle (reported)
from harness._sources.openapi import import_document  # noqa: E402

__all__ = ["main"]


def _best(repeat: int, step: Callable[[], object]) -> tuple[float, float]:
    """The best wall and the best CPU time of ``repeat`` runs (CPU time is steadier on a
    loaded machine)."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        step()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return min(wall), min(cpu)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--document", type=Path, default=DEFAULT)
    args = parser.parse_args(argv)
    path: Path = args.document
    if not path.is_file():
        print(f"skipped: {path} is absent (../shared/corpora is not part of a user's clone)")
        return 0

    def parse() -> object:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)

    result = import_document(path)
    parse_s, parse_cpu = _best(args.repeat, parse)
    import_s, import_cpu = _best(args.repeat, lambda: import_document(path))
    print(f"document: {path.name} ({path.stat().st_size / 1e6:.1f} MB, {result.values:,} values, "
          f"{result.operations} operations)")
    print(f"tools {len(result.tools)}, skipped {len(result.skipped)}, response schemas dropped "
          f"{len(result.dropped_responses)}, root compositions {len(result.root_compositions)}, "
          f"JSON bodies with a root composition {len(result.body_compositions)}")
    print(f"json.load {parse_s:.3f} s ({parse_cpu:.3f} s cpu), import {import_s:.3f} s "
          f"({import_cpu:.3f} s cpu) (best of {args.repeat})")
    print(f"ratio import / json.load = {import_s / parse_s:.2f} wall, {import_cpu / parse_cpu:.2f} cpu "
          "(target <= 2.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: the differential stage (build + compare, isolated workers) over real tool schemas,
as a ratio to calling the two pipelines bare, in this process, on the same inputs.

    python bench/differential.py [--repeat 3] [--workers N]

Inputs: every tool of ../shared/corpora/mcp/*.tools.json and codewhale/, one case per tool,
on every lane of the bundled suite's seed 001 subject. Target: ratio <= 1.3.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "corpora"
sys.path.insert(0, str(REPO))

from harness.build import build  # noqa: E402
from harness.canonical import canonical_bytes  # noqa: E402
from harness.errors import Place  # noqa: E402
from harness.load import load_suite  # noqa: E402
from harness.model import Case, Expectation, Suite  # noqa: E402
from harness.sources import tools_from_listing  # noqa: E402
from harness.subjects import load_callable  # noqa: E402


def corpus_tools() -> list[dict]:
    tools = []
    for path in sorted([*SHARED.glob("mcp/*.json"), *SHARED.glob("codewhale/*.json")]):
        tools += tools_from_listing(json.loads(path.read_text()), Place(str(path)))
    return tools


def corpus_suite(bundled: Suite, tools: list[dict]) -> Suite:
    subject = bundled.subjects["anthropic_messages"]
    lanes = tuple(lid for lid, lane in bundled.lanes.items() if lane.wire in subject.wires)
    why = Expectation("diverges", why="corpus run: no expectation declared")
    cases = tuple(
        Case(id=f"corpus-{i:04d}", subject=subject.name, file="bench", line=None, title=t["name"],
             input={"tools": [t]}, lanes=lanes, expect={"*": why}, checks=frozenset(), pins=())
        for i, t in enumerate(tools)
    )
    return Suite(root=bundled.root, name="corpus", lanes=bundled.lanes, subjects={subject.name: subject},
                 cases=cases, settings=bundled.settings)


def bare(suite: Suite) -> float:
    subject = next(iter(suite.subjects.values()))
    old, new = load_callable(subject.old), load_callable(subject.new)
    start = time.perf_counter()
    for case in suite.cases:
        for lane_id in case.lanes:
            lane = suite.lanes[lane_id].as_dict()
            canonical_bytes(old(case.input, lane))
            canonical_bytes(new(case.input, lane))
    return time.perf_counter() - start


def harnessed(suite: Suite, workers: int | None) -> float:
    start = time.perf_counter()
    results = build(suite, workers=workers)
    elapsed = time.perf_counter() - start
    assert all(r.verdict is not None for r in results)
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    if not SHARED.is_dir():
        print(f"skipped: the corpora folder {SHARED} is absent")
        return 0
    suite = corpus_suite(load_suite(REPO / "cases"), corpus_tools())
    units = sum(len(c.lanes) for c in suite.cases)
    bare_s: list[float] = []
    harness_s: list[float] = []
    for _ in range(args.repeat):  # interleaved, so drift in machine load hits both alike
        bare_s.append(bare(suite))
        harness_s.append(harnessed(suite, args.workers))
    b, h = min(bare_s), min(harness_s)
    print(f"{len(suite.cases)} tools x lanes = {units} units, {2 * units} pipeline calls")
    print(f"bare pipelines (this process): best {b:.3f} s of {args.repeat} runs")
    print(f"harness build+compare:         best {h:.3f} s of {args.repeat} runs")
    print(f"ratio harness/bare: {h / b:.2f}x (target <= 1.30x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

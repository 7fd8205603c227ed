"""Benchmark: rule-check throughput over real tool schemas, as a ratio to json.loads.

    python bench/rules_throughput.py [--repeat 5]

Bodies: every server dump of ../shared/corpora/mcp/ and codewhale/, each turned into one
request body per wire (Anthropic Messages, OpenAI Chat, OpenAI Responses, Gemini, Bedrock
Converse) carrying all of that dump's tools. Measured in the same run on the same bytes:
``json.loads`` of every body, and ``json.loads`` plus every rule of the bundled catalog fired
on it. The figure printed is (rules) / (json.loads): how many json.loads the rule check costs,
in wall and in CPU time (best of ``--repeat``; CPU time is steadier on a loaded machine).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "corpora"
sys.path.insert(0, str(REPO))

from harness.canonical import canonical_bytes  # noqa: E402
from harness.errors import Place  # noqa: E402
from harness.reject.match import fire_all  # noqa: E402
from harness.reject.rules import rules_of_suite  # noqa: E402
from harness.sources import tools_from_listing  # noqa: E402


def _bodies(tools: list[dict[str, Any]]) -> list[bytes]:
    def params(t: dict[str, Any]) -> Any:
        return t["input_schema"]

    shapes: list[Any] = [
        {"model": "m", "max_tokens": 1, "tools": [{"name": t["name"], "description": t["description"],
                                                   "input_schema": params(t)} for t in tools]},
        {"model": "m", "tools": [{"type": "function", "function": {
            "name": t["name"], "description": t["description"], "parameters": params(t)}} for t in tools]},
        {"model": "m", "tools": [{"type": "function", "name": t["name"], "description": t["description"],
                                  "parameters": params(t), "strict": True} for t in tools]},
        {"tools": [{"function_declarations": [{"name": t["name"], "description": t["description"],
                                               "parameters": params(t)} for t in tools]}]},
        {"toolConfig": {"tools": [{"toolSpec": {"name": t["name"], "description": t["description"],
                                                "inputSchema": {"json": params(t)}}} for t in tools]}},
    ]
    return [canonical_bytes(s) for s in shapes]


def corpus_bodies() -> list[bytes]:
    bodies: list[bytes] = []
    for path in sorted([*SHARED.glob("mcp/*.json"), *SHARED.glob("codewhale/*.json")]):
        bodies += _bodies(tools_from_listing(json.loads(path.read_text()), Place(str(path))))
    return bodies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not SHARED.is_dir():
        print(f"skipped: the shared corpora are absent ({SHARED}); nothing measured")
        return 0
    rules = rules_of_suite(REPO / "cases", {"rules": ["rules/*.rules.yaml"]}).rules
    bodies = corpus_bodies()
    size = sum(len(b) for b in bodies)
    hits = sum(len(fire_all(rules, json.loads(b))) for b in bodies)  # warm validator caches
    best_json = best_rules = cpu_json = cpu_rules = float("inf")
    for _ in range(args.repeat):
        start, cpu = time.perf_counter(), time.process_time()
        for b in bodies:
            json.loads(b)
        best_json = min(best_json, time.perf_counter() - start)
        cpu_json = min(cpu_json, time.process_time() - cpu)
        start, cpu = time.perf_counter(), time.process_time()
        for b in bodies:
            fire_all(rules, json.loads(b))
        best_rules = min(best_rules, time.perf_counter() - start)
        cpu_rules = min(cpu_rules, time.process_time() - cpu)
    print(f"bodies: {len(bodies)} ({size / 1e6:.2f} MB), rules: {len(rules)}, hits: {hits}")
    print(f"json.loads:        {best_json * 1e3:8.2f} ms  ({size / best_json / 1e6:7.1f} MB/s)")
    print(f"loads + all rules: {best_rules * 1e3:8.2f} ms  ({size / best_rules / 1e6:7.1f} MB/s, "
          f"{len(bodies) / best_rules:.0f} bodies/s)")
    print(f"ratio (rules / json.loads): {best_rules / best_json:.1f}x wall, "
          f"{cpu_rules / max(cpu_json, 1e-9):.1f}x cpu (target <= 10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

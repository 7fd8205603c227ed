"""Benchmark: rule-check throughput over real tool schemas, as a ratio to json.loads.

    python bench/rules_throughput.py [--repeat 10] [--engines]

Bodies: every server dump of ../shared/corpora/mcp/ and codewhale/, each turned into one
request body per wire (Anthropic Messages, OpenAI Chat, OpenAI Responses, Gemini, Bedrock
Converse) carrying all of that dump's tools. Measured in the same run on the same bytes:
``json.loads`` of every body, and ``json.loads`` plus every rule of the bundled catalog fired
on it. The figure printed is (rules) / (json.loads): how many json.loads the rule check costs,
in wall and in CPU time (best of ``--repeat``; CPU time is steadier on a loaded machine), warm
(the best pass) and cold (the first pass in the process, as each build worker meets it).

``--engines`` also times the bad-shape checks alone, engine beside engine, on exactly the
(schema, node) pairs a corpus run tests: the harness's generated checks (``harness._reject.fastschema``),
``jsonschema-rs``, ``fastjsonschema`` (when installed) and ``jsonschema``, each with the number of
answers that differ from jsonschema's.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "corpora"
sys.path.insert(0, str(REPO))

import jsonschema  # noqa: E402
import jsonschema_rs  # noqa: E402

from harness._common.canonical import canonical_bytes  # noqa: E402
from harness._errors import Place  # noqa: E402
from harness._reject.compiled import CompiledRules  # noqa: E402
from harness._reject.match import checker, fire_all  # noqa: E402
from harness._reject.rules import Rule, rules_of_suite  # noqa: E402
from harness._sources import tools_from_listing  # noqa: E402

__all__ = ["corpus_bodies", "main"]

Check = Callable[[Any], bool]


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


def tested_pairs(rules: list[Rule], bodies: list[bytes]) -> list[tuple[Any, Any]]:
    """The (rejects schema, node) pairs the compiled pass tests on ``bodies``, in order."""
    pairs: list[tuple[Any, Any]] = []
    engine = CompiledRules(rules)  # a fresh one: its indexes are built on the recording checks
    for group in engine.groups:
        for plan in group.plans:
            if plan.rejects is not None:
                plan.rejects = _recording(plan.rejects, plan.rule.rejects, pairs)
    for body in bodies:
        engine.fire(json.loads(body))
    return pairs


def _recording(check: Check, schema: Any, into: list[tuple[Any, Any]]) -> Check:
    def recorded(value: Any) -> bool:
        into.append((schema, value))
        return check(value)
    return recorded


def _fastjsonschema(schema: Any) -> Check | None:
    try:
        fastjsonschema = importlib.import_module("fastjsonschema")  # optional: the bench only
    except ImportError:
        return None
    validate = fastjsonschema.compile(schema)

    def valid(value: Any) -> bool:
        try:
            validate(value)
        except fastjsonschema.JsonSchemaValueException:
            return False
        return True
    return valid


def _engines() -> dict[str, Callable[[Any], Check | None]]:
    return {
        "harness (generated)": checker,
        "jsonschema-rs": lambda s: jsonschema_rs.validator_for(s).is_valid,
        "fastjsonschema": _fastjsonschema,
        "jsonschema": lambda s: jsonschema.Draft202012Validator(s).is_valid,
    }


def compare_engines(pairs: list[tuple[Any, Any]], repeat: int) -> None:
    """Each engine's CPU time over ``pairs``, and how many answers differ from jsonschema's."""
    schemas = {id(s): s for s, _ in pairs}
    reference = [jsonschema.Draft202012Validator(s).is_valid(v) for s, v in pairs]
    print(f"bad-shape checks: {len(pairs)} (schema, node) pairs, {len(schemas)} schemas")
    for name, make in _engines().items():
        made = {i: make(s) for i, s in schemas.items()}
        checks = [made[id(s)] for s, _ in pairs]
        if any(c is None for c in checks):
            print(f"  {name:20s} not installed")
            continue
        best, answers = _timed([(c, v) for c, (_, v) in zip(checks, pairs, strict=True)], repeat)  # type: ignore[misc]
        differ = sum(a != b for a, b in zip(answers, reference, strict=True))
        print(f"  {name:20s} {best * 1e3:8.2f} ms cpu  ({differ} answers differ from jsonschema's)")


def _timed(calls: list[tuple[Check, Any]], repeat: int) -> tuple[float, list[bool]]:
    best = float("inf")
    answers: list[bool] = []
    for _ in range(repeat):
        cpu = time.process_time()
        answers = [check(value) for check, value in calls]
        best = min(best, time.process_time() - cpu)
    return best, answers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--engines", action="store_true", help="also time the bad-shape engines side by side")
    args = parser.parse_args()
    if not SHARED.is_dir():
        print(f"skipped: the shared corpora are absent ({SHARED}); nothing measured")
        return 0
    rules = list(rules_of_suite(REPO / "cases", {"rules": ["rules/*.rules.yaml"]}).rules)
    bodies = corpus_bodies()
    throughput(rules, bodies, args.repeat)
    if args.engines:
        compare_engines(tested_pairs(rules, bodies), max(3, args.repeat // 3))
    return 0


def throughput(rules: list[Rule], bodies: list[bytes], repeat: int) -> None:
    """json.loads of every body against json.loads plus every rule, best of ``repeat``."""
    size = sum(len(b) for b in bodies)
    # The cold first pass: what each build worker pays on the first bodies it checks (the rule
    # list's compiled plans, then each key combination's entries and generated checks, made on
    # first meeting). Measured once, before anything has fired in this process.
    cpu = time.process_time()
    for b in bodies:
        json.loads(b)
    cold_json = time.process_time() - cpu
    cpu = time.process_time()
    hits = sum(len(fire_all(rules, json.loads(b))) for b in bodies)  # and the caches are warm after
    cold_rules = time.process_time() - cpu
    best_json = best_rules = cpu_json = cpu_rules = float("inf")
    for _ in range(repeat):
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
    print(f"json.loads:        {best_json * 1e3:8.2f} ms  ({cpu_json * 1e3:8.2f} ms cpu)")
    print(f"loads + all rules: {best_rules * 1e3:8.2f} ms  ({cpu_rules * 1e3:8.2f} ms cpu, "
          f"{len(bodies) / best_rules:.0f} bodies/s)")
    print(f"ratio (rules / json.loads): {best_rules / best_json:.1f}x wall, "
          f"{cpu_rules / max(cpu_json, 1e-9):.1f}x cpu (target <= 10x)")
    print(f"cold first pass (loads + all rules, once, caches empty): {cold_rules * 1e3:8.2f} ms cpu, "
          f"{cold_rules / max(cpu_json, 1e-9):.1f}x the warm json.loads ({cold_rules / max(cold_json, 1e-9):.1f}x "
          f"the first json.loads pass)")


if __name__ == "__main__":
    sys.exit(main())

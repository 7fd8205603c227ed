"""Benchmark: the harness's full kill matrix against ``mutmut run`` on the same targets and pins.

    python bench/mutation_vs_mutmut.py [--keep DIR] [--workers N] [--repeat 3] [--heavy N]

Builds one throwaway project in a temporary folder: the seed 001 sanitizer modules of the
bundled subject (registry, compose, notes, narrow; imports rewritten to a flat package ``sani``)
and 24 ordinary pytest tests that pin ``narrow()``'s output on 24 schemas (expected values are
recorded from the unmutated code when the project is built). Then, on that project:

1. ``mutmut run`` (first kill only, one exit code per mutant), wall time;
2. ``harness mutate`` (every covering pin against every mutant, the full matrix), wall time;

and prints both, the ratio, and whether the two agree mutant by mutant on killed vs survived
(mutmut's ids and the harness's operator ids are the same names). Each tool runs ``--repeat``
times, alternating, from a clean state (mutmut's ``mutants/`` cache removed); the ratio is of the
fastest runs (the machine's other load only ever adds time), medians printed beside.
CPU time (user + system of the tool and every process it started) is printed beside wall time.

``--heavy N``: the heavy-pin scenario: every test builds N bodies (``narrow()`` on N of the
schemas, a different window per test) instead of one, so a pin costs N times as much to run.
``--cases``: the pins are case-file pins instead (a suite in ``tests/``: 24 cases of N tools
each, three pins per case reading the body, expected values recorded from the unmutated code);
mutmut runs the same items through the pins plugin, the harness judges them on observations.

Targets (issue 13): full matrix <= 0.25x mutmut's first-kill wall time on the bundled targets,
<= 0.5x on the heavy-pin scenario.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SUBJECT = REPO / "subjects" / "wire_harness_subjects" / "anthropic_messages"
MODULES = ("registry", "compose", "notes", "narrow")
BIN = Path(sys.executable).parent

SCHEMAS: list[Any] = [
    {"type": "object", "properties": {"a": {"type": "string"}}},
    {"oneOf": [{"properties": {"path": {"type": "string"}}, "required": ["path"]},
               {"properties": {"url": {"type": "string"}}, "required": ["url"]}]},
    {"anyOf": [{"properties": {"q": {"type": "string"}}, "required": ["q"]},
               {"properties": {"id": {"type": "integer"}}, "required": ["id"]}], "additionalProperties": False},
    {"allOf": [{"properties": {"x": {"type": "number"}}, "required": ["x"]},
               {"properties": {"y": {"type": "number"}}, "required": ["y"]}]},
    {"allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/b"}], "$defs": {"a": {}, "b": {}}},
    {"oneOf": [True, False]},
    {"type": "object", "properties": {}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
    {"oneOf": [{"required": ["a"]}], "properties": {"a": {"type": "string"}}},
    {"oneOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "ghost"]}]},
    {"anyOf": [{"type": "object", "properties": {"n": {"type": "integer"}}}, {"type": "null"}]},
    {"type": "object"},
    {"type": "object", "properties": {"a": {}}, "required": ["a", "b"]},
    ["not", "an", "object"],
    "scalar",
    {"type": "string", "enum": ["a", "b"]},
    {"not": {"required": ["a"]}, "properties": {"a": {}}},
    {"type": "object", "dependentRequired": {"a": ["b"]}, "properties": {"a": {}, "b": {}}},
    {"oneOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]},
               {"properties": {"b": {"type": "string"}}, "required": ["b"]}],
     "anyOf": [{"properties": {"c": {"type": "string"}}, "required": ["c"]},
               {"properties": {"d": {"type": "string"}}, "required": ["d"]}]},
    {"oneOf": [{}, {}], "allOf": [{}, {}]},
    {"properties": {"p": {"type": "string", "description": "root"}},
     "oneOf": [{"properties": {"p": {"type": "integer"}}}, {"properties": {"q": {}}}]},
    {"anyOf": [{"properties": {"x": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}, {"properties": {}}]},
    {"type": "object", "properties": {"inner": {"anyOf": [{"type": "string"}, {"type": "null"}]}}},
    {"oneOf": [{"properties": {"a": {}}, "required": ["a", "a"]}, {"properties": {"b": {}}, "required": [1, "b"]}]},
    {"anyOf": [{"type": "object", "properties": {"a": {}}}, {"type": "object", "properties": {"b": {}}}],
     "type": "object"},
]


def _test(i: int, schemas: list[Any], narrow: Any) -> str:
    import copy

    expected = [list(narrow(copy.deepcopy(schema))) for schema in schemas]
    return (f"\n\ndef test_schema_{i:02d}():\n"
            f"    schemas = json.loads({json.dumps(json.dumps(schemas))})\n"
            f"    assert [list(narrow(s)) for s in schemas] == json.loads({json.dumps(json.dumps(expected))})\n")


# mutmut forks each mutant's run from a process that has already run the pins: observations the
# pins plugin cached there would hide the mutant (mutmut then reports most mutants survived), so
# each item starts from an empty cache (the harness's engine clears it in every child itself)
_CONFTEST = """def pytest_runtest_setup(item):
    from harness._pins import cache

    cache.clear()
"""

_PIPES = """from sani.narrow import narrow


def body(inp, lane):
    return {"tools": [{"name": t["name"], "input_schema": list(narrow(t["input_schema"]))} for t in inp["tools"]]}
"""


def _case_suite(root: Path, heavy: int, narrow: Any) -> None:
    """tests/ as a suite folder: one case per window of schemas, three pins reading its body."""
    import copy

    tests = root / "tests"
    (tests / "pipes.py").write_text(_PIPES, encoding="utf-8")
    (tests / "conftest.py").write_text(_CONFTEST, encoding="utf-8")
    (tests / "suite.yaml").write_text(
        "version: 1\nname: bench\nsubjects:\n  bench: {old: 'pipes:body', new: 'pipes:body', wires: [none]}\n"
        "mutation:\n  root: ..\n  pins: ['.']\n  exclude: []  # expect items too: mutmut runs them\n"
        f"  targets: [{', '.join(f'sani/{n}.py' for n in MODULES)}]\n",
        encoding="utf-8")
    (tests / "lanes.yaml").write_text("version: 1\nlanes:\n  - {id: none, wire: none, provider: none}\n")
    cases = []
    for i in range(len(SCHEMAS)):
        window = [SCHEMAS[(i + k) % len(SCHEMAS)] for k in range(max(1, heavy))]
        tools = [{"name": f"t{k}", "input_schema": s} for k, s in enumerate(window)]
        want = [list(narrow(copy.deepcopy(s))) for s in window]
        cases.append({"id": f"c{i:02d}", "tools": tools, "expect": {"*": "same"}, "pins": [
            {"name": "schemas", "kind": "equals", "select": "tools[*].input_schema", "value": want},
            {"name": "first_name", "kind": "equals", "select": "tools[0].name", "value": "t0"},
            {"name": "same_as_old", "kind": "same-as-old"}]})
    (tests / "bench.cases.yaml").write_text(json.dumps({"version": 1, "subject": "bench", "cases": cases}),
                                            encoding="utf-8")


def build_project(root: Path, heavy: int = 1, case_pins: bool = False) -> None:
    pkg = root / "sani"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for name in MODULES:
        text = (SUBJECT / f"{name}.py").read_text(encoding="utf-8")
        text = text.replace("wire_harness_subjects.anthropic_messages.", "sani.")
        (pkg / f"{name}.py").write_text(text, encoding="utf-8")
    sys.path.insert(0, str(root))
    from sani.narrow import narrow  # type: ignore[import-not-found]

    tests = ["import json\n\nfrom sani.narrow import narrow\n"]
    for i in range(len(SCHEMAS)):
        tests.append(_test(i, [SCHEMAS[(i + k) % len(SCHEMAS)] for k in range(max(1, heavy))], narrow))
    (root / "tests").mkdir()
    if case_pins:
        _case_suite(root, heavy, narrow)
    else:
        (root / "tests" / "test_sani.py").write_text("".join(tests), encoding="utf-8")
    sys.path.remove(str(root))
    for name in [n for n in sys.modules if n == "sani" or n.startswith("sani.")]:
        del sys.modules[name]
    (root / "pyproject.toml").write_text(
        '[tool.mutmut]\nsource_paths = ["sani"]\npytest_add_cli_args_test_selection = ["tests"]\n\n'
        '[tool.pytest.ini_options]\naddopts = "-p no:cacheprovider"\n', encoding="utf-8")
    targets = ", ".join(f'"sani/{n}.py"' for n in MODULES)
    (root / "suite.yaml").write_text(
        f"version: 1\nname: bench\nmutation:\n  root: .\n  pins: [tests]\n  targets: [{targets}]\n",
        encoding="utf-8")
    (root / "lanes.yaml").write_text("version: 1\nlanes:\n  - {id: none, wire: none, provider: none}\n")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_mutmut(root: Path, workers: int | None) -> tuple[float, float, dict[str, str]]:
    env = {**os.environ, "PYTHONPATH": ""}
    shutil.rmtree(root / "mutants", ignore_errors=True)
    args = [str(BIN / "mutmut"), "run"] + ([f"--max-children={workers}"] if workers else [])
    cpu = _children_cpu()
    started = time.perf_counter()
    subprocess.run(args, cwd=root, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    cpu = _children_cpu() - cpu
    out = subprocess.run([str(BIN / "mutmut"), "results", "--all", "true"], cwd=root, env=env, check=True,
                         capture_output=True, text=True).stdout
    statuses = {}
    for line in out.splitlines():
        m = re.match(r"^\s*(\S+): (.+)$", line)
        if m:
            statuses[m.group(1)] = m.group(2).strip()
    return elapsed, cpu, statuses


def run_harness(root: Path, workers: int | None, suite: Path | None = None) -> tuple[float, float, dict[str, Any]]:
    out = root / "harness-out"
    args = [str(BIN / "harness"), "mutate", str(suite or root), "--out", str(out), "-q"]
    args += ["--workers", str(workers)] if workers else []
    cpu = _children_cpu()
    started = time.perf_counter()
    # the case-file suite's pipeline module imports the project's package, as pytest finds it from its rootdir
    env = {**os.environ, "PYTHONPATH": str(root)}
    subprocess.run(args, cwd=root, env=env, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    return elapsed, _children_cpu() - cpu, json.loads((out / "mutation.json").read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="build the project here and keep it")
    parser.add_argument("--workers", type=int, default=None, help="parallel mutants for both (default: cores)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each tool (default 3)")
    parser.add_argument("--heavy", type=int, default=1, metavar="N",
                        help="bodies each test builds (default 1; the heavy-pin scenario: 6)")
    parser.add_argument("--cases", action="store_true", help="case-file pins instead of Python tests")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="mutation-bench-"))
    if root.exists() and any(root.iterdir()):
        shutil.rmtree(root)
    build_project(root, args.heavy, args.cases)
    mutmut_runs: list[float] = []
    harness_runs: list[float] = []
    mutmut_cpu: list[float] = []
    harness_cpu: list[float] = []
    for _ in range(max(1, args.repeat)):
        seconds, cpu, mutmut_status = run_mutmut(root, args.workers)
        mutmut_runs.append(seconds)
        mutmut_cpu.append(cpu)
        seconds, cpu, section = run_harness(root, args.workers, root / "tests" if args.cases else None)
        harness_runs.append(seconds)
        harness_cpu.append(cpu)
    mutmut_s, harness_s = min(mutmut_runs), min(harness_runs)
    ours = {m["id"]: m["status"] for m in section["mutants"]}
    common = sorted(set(ours) & set(mutmut_status))
    disagree = [k for k in common if (ours[k] in ("killed", "timeout")) != (mutmut_status[k] in ("killed", "timeout"))]
    killers = sum(len(m["killed_by"]) for m in section["mutants"])
    print(f"mutants: harness {len(ours)}, mutmut {len(mutmut_status)}, compared {len(common)}, "
          f"verdicts differing {len(disagree)} {disagree[:5]}")
    print(f"mutmut run (first kill only): best {mutmut_s:.2f} s, median {statistics.median(mutmut_runs):.2f} s")
    print(f"harness mutate (full matrix, {killers} killing pin x mutant pairs): best {harness_s:.2f} s, "
          f"median {statistics.median(harness_runs):.2f} s")
    print(f"ratio harness / mutmut: {harness_s / mutmut_s:.2f} best-to-best, "
          f"{statistics.median(harness_runs) / statistics.median(mutmut_runs):.2f} median-to-median "
          f"(target <= {0.5 if args.heavy > 1 else 0.25})")
    print(f"CPU time: mutmut {statistics.median(mutmut_cpu):.2f} s, harness {statistics.median(harness_cpu):.2f} s "
          f"(medians); ratio {statistics.median(harness_cpu) / statistics.median(mutmut_cpu):.2f}")
    runs = section.get("pin_runs", {})
    if runs:
        print(f"pin runs: {runs['run']} made, {runs['saved']} saved ({runs['saved_by_observations']} by "
              f"observations, {runs['saved_by_lines']} by line coverage)")
    print("each run, wall s (mutmut / harness): " + ", ".join(
        f"{a:.2f}/{b:.2f}" for a, b in zip(mutmut_runs, harness_runs, strict=True)))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

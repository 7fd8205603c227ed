"""Benchmark: the harness's full kill matrix against ``mutmut run`` on the same targets and pins.

    python bench/mutation_vs_mutmut.py [--keep DIR] [--workers N] [--repeat 3]

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
Target: ratio <= 0.35.
"""

from __future__ import annotations

import argparse
import json
import os
import re
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


def build_project(root: Path) -> None:
    pkg = root / "sani"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for name in MODULES:
        text = (SUBJECT / f"{name}.py").read_text(encoding="utf-8")
        text = text.replace("wire_harness_subjects.anthropic_messages.", "sani.")
        (pkg / f"{name}.py").write_text(text, encoding="utf-8")
    sys.path.insert(0, str(root))
    import copy

    from sani.narrow import narrow  # type: ignore[import-not-found]

    tests = ["import copy, json\n\nfrom sani.narrow import narrow\n"]
    for i, schema in enumerate(SCHEMAS):
        expected = narrow(copy.deepcopy(schema))
        tests.append(f"\n\ndef test_schema_{i:02d}():\n"
                     f"    schema = json.loads({json.dumps(json.dumps(schema))})\n"
                     f"    assert list(narrow(schema)) == json.loads({json.dumps(json.dumps(list(expected)))})\n")
    sys.path.remove(str(root))
    for name in [n for n in sys.modules if n == "sani" or n.startswith("sani.")]:
        del sys.modules[name]
    (root / "tests").mkdir()
    (root / "tests" / "test_sani.py").write_text("".join(tests), encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[tool.mutmut]\nsource_paths = ["sani"]\npytest_add_cli_args_test_selection = ["tests"]\n\n'
        '[tool.pytest.ini_options]\naddopts = "-p no:cacheprovider"\n', encoding="utf-8")
    targets = ", ".join(f'"sani/{n}.py"' for n in MODULES)
    (root / "suite.yaml").write_text(
        f"version: 1\nname: bench\nmutation:\n  root: .\n  pins: [tests]\n  targets: [{targets}]\n",
        encoding="utf-8")
    (root / "lanes.yaml").write_text("version: 1\nlanes:\n  - {id: none, wire: none, provider: none}\n")


def run_mutmut(root: Path, workers: int | None) -> tuple[float, dict[str, str]]:
    env = {**os.environ, "PYTHONPATH": ""}
    shutil.rmtree(root / "mutants", ignore_errors=True)
    args = [str(BIN / "mutmut"), "run"] + ([f"--max-children={workers}"] if workers else [])
    started = time.perf_counter()
    subprocess.run(args, cwd=root, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    out = subprocess.run([str(BIN / "mutmut"), "results", "--all", "true"], cwd=root, env=env, check=True,
                         capture_output=True, text=True).stdout
    statuses = {}
    for line in out.splitlines():
        m = re.match(r"^\s*(\S+): (.+)$", line)
        if m:
            statuses[m.group(1)] = m.group(2).strip()
    return elapsed, statuses


def run_harness(root: Path, workers: int | None) -> tuple[float, dict[str, Any]]:
    out = root / "harness-out"
    args = [str(BIN / "harness"), "mutate", str(root), "--out", str(out), "-q"]
    args += ["--workers", str(workers)] if workers else []
    started = time.perf_counter()
    subprocess.run(args, cwd=root, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    return elapsed, json.loads((out / "mutation.json").read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="build the project here and keep it")
    parser.add_argument("--workers", type=int, default=None, help="parallel mutants for both (default: cores)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each tool (default 3)")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="mutation-bench-"))
    if root.exists() and any(root.iterdir()):
        shutil.rmtree(root)
    build_project(root)
    mutmut_runs: list[float] = []
    harness_runs: list[float] = []
    for _ in range(max(1, args.repeat)):
        seconds, mutmut_status = run_mutmut(root, args.workers)
        mutmut_runs.append(seconds)
        seconds, section = run_harness(root, args.workers)
        harness_runs.append(seconds)
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
          f"(target <= 0.35)")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
